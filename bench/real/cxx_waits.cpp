// C++20's waits with many threads waiting at once: N threads (10,000 by
// default) wait on a std::latch the main thread counts down, then on a
// std::barrier of N+1, then on a std::atomic<int>::wait; each part ends
// when all have passed.  libstdc++ (gcc 12) waits with FUTEX_WAIT without
// FUTEX_PRIVATE_FLAG, on words in private memory.  Go's side:
// bench/go/latch.go.
#include <atomic>
#include <barrier>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <latch>
#include <thread>
#include <vector>

static std::atomic<int> arrived;

static void all_in(int n)
{
	while (arrived.load() < n)
		std::this_thread::sleep_for(std::chrono::microseconds(200));
	arrived = 0;
}

int main(int argc, char **argv)
{
	const int n = argc > 1 ? std::atoi(argv[1]) : 10000;
	std::vector<std::thread> ts;
	ts.reserve(n);
	std::atomic<int> passed{0};

	std::latch latch(1);
	for (int i = 0; i < n; i++)
		ts.emplace_back([&] { arrived++; latch.wait(); passed++; });
	all_in(n);
	latch.count_down();
	for (auto &t : ts)
		t.join();
	ts.clear();

	std::barrier bar(n + 1);
	for (int i = 0; i < n; i++)
		ts.emplace_back([&] { arrived++; bar.arrive_and_wait(); passed++; });
	all_in(n);
	bar.arrive_and_wait();
	for (auto &t : ts)
		t.join();
	ts.clear();

	std::atomic<int> flag{0};
	for (int i = 0; i < n; i++)
		ts.emplace_back([&] { arrived++; flag.wait(0); passed++; });
	all_in(n);
	flag = 1;
	flag.notify_all();
	for (auto &t : ts)
		t.join();
	std::printf("threads %d, passed %d of %d waits\n", n, passed.load(), 3 * n);
	return 0;
}
