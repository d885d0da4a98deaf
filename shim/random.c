/*
 * random.c — glibc's random-number and temporary-name functions.
 *
 * Each may reach glibc's getrandom, which from glibc 2.41 on takes a
 * per-thread vDSO state at a thread's first call, every signal blocked
 * while it reads TLS, and gives it back at the thread's exit, which a task
 * never reaches: sched/stack/getrandom.c pins these calls in trap mode while
 * the task has none, and hands ended tasks' states to new ones.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>
#include <unistd.h>

#include "shim.h"
#include "stack/getrandom.h"

/* The call, between wt_rng_enter and wt_rng_leave (sched/stack/getrandom.c):
 * pinned while its task has no getrandom state, given a kept one first.
 * KIND: WT_RNG_MAYBE, _TAKES or _PURE. */
#define RNG_CALL(kind, call)                              \
	({                                                \
		wt_real_init();                           \
		struct wt_rng g_ = wt_rng_enter(kind);    \
		__typeof__(call) pr_ = call;              \
		wt_rng_leave(g_);                         \
		pr_;                                      \
	})

WT_EXPORT ssize_t getrandom(void *buf, size_t len, unsigned int flags)
{
	return RNG_CALL(WT_RNG_PURE, real.getrandom(buf, len, flags));
}

WT_EXPORT int getentropy(void *buf, size_t len)
{
	return RNG_CALL(WT_RNG_MAYBE, real.getentropy(buf, len));
}

WT_EXPORT uint32_t arc4random(void)
{
	return RNG_CALL(WT_RNG_PURE, real.arc4random());
}

WT_EXPORT void arc4random_buf(void *buf, size_t len)
{
	wt_real_init();
	struct wt_rng g = wt_rng_enter(WT_RNG_PURE);
	real.arc4random_buf(buf, len);
	wt_rng_leave(g);
}

WT_EXPORT uint32_t arc4random_uniform(uint32_t bound)
{
	return RNG_CALL(WT_RNG_PURE, real.arc4random_uniform(bound));
}

WT_EXPORT int mkstemp(char *tmpl)
{
	return RNG_CALL(WT_RNG_TAKES, real.mkstemp(tmpl));
}

WT_EXPORT int mkstemp64(char *tmpl)
{
	return RNG_CALL(WT_RNG_TAKES, real.mkstemp64(tmpl));
}

WT_EXPORT int mkostemp(char *tmpl, int flags)
{
	return RNG_CALL(WT_RNG_TAKES, real.mkostemp(tmpl, flags));
}

WT_EXPORT int mkostemp64(char *tmpl, int flags)
{
	return RNG_CALL(WT_RNG_TAKES, real.mkostemp64(tmpl, flags));
}

WT_EXPORT int mkstemps(char *tmpl, int suffixlen)
{
	return RNG_CALL(WT_RNG_TAKES, real.mkstemps(tmpl, suffixlen));
}

WT_EXPORT int mkstemps64(char *tmpl, int suffixlen)
{
	return RNG_CALL(WT_RNG_TAKES, real.mkstemps64(tmpl, suffixlen));
}

WT_EXPORT int mkostemps(char *tmpl, int suffixlen, int flags)
{
	return RNG_CALL(WT_RNG_TAKES, real.mkostemps(tmpl, suffixlen, flags));
}

WT_EXPORT int mkostemps64(char *tmpl, int suffixlen, int flags)
{
	return RNG_CALL(WT_RNG_TAKES, real.mkostemps64(tmpl, suffixlen, flags));
}

WT_EXPORT char *mkdtemp(char *tmpl)
{
	return RNG_CALL(WT_RNG_TAKES, real.mkdtemp(tmpl));
}

WT_EXPORT char *mktemp(char *tmpl)
{
	return RNG_CALL(WT_RNG_TAKES, real.mktemp(tmpl));
}

WT_EXPORT FILE *tmpfile(void)
{
	return RNG_CALL(WT_RNG_MAYBE, real.tmpfile());
}

WT_EXPORT FILE *tmpfile64(void)
{
	return RNG_CALL(WT_RNG_MAYBE, real.tmpfile64());
}

WT_EXPORT char *tempnam(const char *dir, const char *prefix)
{
	return RNG_CALL(WT_RNG_TAKES, real.tempnam(dir, prefix));
}

WT_EXPORT char *tmpnam(char s[L_tmpnam])
{
	return RNG_CALL(WT_RNG_TAKES, real.tmpnam(s));
}

WT_EXPORT char *tmpnam_r(char s[L_tmpnam])
{
	return RNG_CALL(WT_RNG_TAKES, real.tmpnam_r(s));
}
