/* weft uses SIGURG to preempt; a program's own SIGURG handler must still
 * run for every SIGURG the program sends, with its flags honoured, and
 * never for weft's requests (a spinning thread keeps those coming). */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "weft_check.h"

static volatile sig_atomic_t calls, depth, maxdepth, plain_calls;
static volatile int codes[8];
static volatile int stop, spinning;

static void on_urg(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	depth++;
	if (depth > maxdepth)
		maxdepth = depth;
	if (calls < 8)
		codes[calls] = si->si_code;
	calls++;
	if (sig == SIGURG && calls == 4)
		raise(SIGURG); /* nested at once only with SA_NODEFER */
	depth--;
}

static void on_urg_plain(int sig)
{
	(void)sig;
	plain_calls++;
}

static void *spin(void *arg)
{
	(void)arg;
	spinning = 1;
	while (!stop) {
	}
	return NULL;
}

/* kill and sigqueue are sent to the process: any thread that does not block
 * the signal may run the handler, maybe after the call returns.  A second
 * SIGURG sent while one is pending would merge with it, so wait. */
static void await_calls(int n)
{
	for (int i = 0; i < 5000 && calls < n; i++)
		usleep(1000);
}

static const char *code(int c)
{
	return c == SI_USER ? "SI_USER" : c == SI_TKILL ? "SI_TKILL" : c == SI_QUEUE ? "SI_QUEUE"
	       : "other";
}

int main(void)
{
	weft_check_loaded();
	pthread_t t;
	pthread_create(&t, NULL, spin, NULL);
	while (!spinning)
		usleep(1000);
	usleep(50000); /* weft preempts the spinner meanwhile */

	struct sigaction sa, old;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_urg;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGURG, &sa, NULL);
	sigaction(SIGURG, NULL, &old);
	printf("installed handler read back: %d\n", old.sa_sigaction == on_urg);
	raise(SIGURG);
	kill(getpid(), SIGURG);
	await_calls(2);
	union sigval v = { .sival_int = 7 };
	sigqueue(getpid(), SIGURG, v);
	await_calls(3);
	printf("calls after raise, kill, sigqueue: %d\n", (int)calls);
	usleep(50000);
	/* Without SA_NODEFER: the raise inside the 4th call waits for it to end. */
	raise(SIGURG);
	printf("calls %d maxdepth %d\n", (int)calls, (int)maxdepth);
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigaction(SIGURG, &sa, NULL);
	calls = 3;
	maxdepth = 0;
	raise(SIGURG);
	printf("SA_NODEFER: calls %d maxdepth %d\n", (int)calls, (int)maxdepth);
	for (int i = 0; i < 5; i++)
		printf("code %d: %s\n", i, code(codes[i]));

	/* SA_RESETHAND: once, then the default (ignore). */
	struct sigaction sp;
	memset(&sp, 0, sizeof sp);
	sp.sa_handler = on_urg_plain;
	sp.sa_flags = SA_RESETHAND;
	sigaction(SIGURG, &sp, NULL);
	raise(SIGURG);
	raise(SIGURG);
	sigaction(SIGURG, NULL, &old);
	printf("SA_RESETHAND: calls %d, now default %d\n", (int)plain_calls,
	       old.sa_handler == SIG_DFL);
	usleep(50000);
	stop = 1;
	pthread_join(t, NULL);
	printf("plain calls at the end %d\n", (int)plain_calls);
	return 0;
}
