// 10,000 threads waiting at once on a std::latch, a std::barrier and a
// std::atomic<int>::wait.  libstdc++ (gcc 12) waits with FUTEX_WAIT without
// FUTEX_PRIVATE_FLAG, on words in private memory (the latch's and barrier's
// words go through its static waiter table): no other process can see them,
// so under weft each waiter is a parked task and the process keeps at most
// GOMAXPROCS+3 OS threads while they all wait (natively one thread each,
// which this test does not check).  Each part ends when the main thread
// releases them; the waits that held an OS thread each filled
// WEFT_MAXTHREADS and hung there.
#include <atomic>
#include <barrier>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <latch>
#include <thread>
#include <vector>
#include "test_util.h"

static int n;
static std::atomic<int> arrived;
static bool under_weft;
static bool bound_ok = true;

// Once all n are in (counted just before their wait), and a moment later
// asleep: under weft, the OS threads the process has.
static void all_in(const char *what)
{
	while (arrived.load() < n)
		std::this_thread::sleep_for(std::chrono::milliseconds(1));
	std::this_thread::sleep_for(std::chrono::milliseconds(100));
	if (!under_weft)
		return;
	long k = os_threads(), limit = procs() + 3;
	if (k < 1 || k > limit) {
		std::printf("FAIL: %s: %ld OS threads with %d waiting (limit %ld)\n", what, k, n,
			    limit);
		bound_ok = false;
	}
}

static void join(std::vector<std::thread> &ts)
{
	for (auto &t : ts)
		t.join();
	ts.clear();
	arrived = 0;
}

int main()
{
	weft_check_loaded();
	const char *e = std::getenv("WEFT_EXPECT");
	under_weft = e && *e == '1';
	n = test_threads(10000);
	std::vector<std::thread> ts;
	ts.reserve(n);

	std::latch latch(1);
	std::atomic<int> passed{0};
	for (int i = 0; i < n; i++)
		ts.emplace_back([&] {
			arrived++;
			latch.wait();
			passed++;
		});
	all_in("latch");
	latch.count_down();
	join(ts);
	std::printf("latch: %s\n", passed.load() == n ? "all passed" : "some did not pass");

	std::atomic<int> completions{0};
	std::barrier bar(n + 1, [&]() noexcept { completions++; });
	passed = 0;
	for (int i = 0; i < n; i++)
		ts.emplace_back([&] {
			arrived++;
			bar.arrive_and_wait();
			passed++;
		});
	all_in("barrier");
	bar.arrive_and_wait();
	join(ts);
	std::printf("barrier: %s, %d completion\n", passed.load() == n ? "all passed" : "some did not pass",
		    completions.load());

	std::atomic<int> flag{0};
	std::atomic<int> saw{0};
	for (int i = 0; i < n; i++)
		ts.emplace_back([&] {
			arrived++;
			flag.wait(0);
			if (flag.load() == 7)
				saw++;
		});
	all_in("atomic wait");
	flag = 7;
	flag.notify_all();
	join(ts);
	std::printf("atomic wait: %s\n", saw.load() == n ? "all saw 7" : "some did not see 7");
	return bound_ok ? 0 : 1;
}
