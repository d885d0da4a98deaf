// C++20 waits (std::barrier, std::latch, std::counting_semaphore,
// std::atomic::wait) use syscall(SYS_futex): under weft they must park
// tasks, including with GOMAXPROCS=1 and more threads than procs.
#include <atomic>
#include <barrier>
#include <cstdio>
#include <latch>
#include <semaphore>
#include <thread>
#include <vector>
#include "weft_check.h"

int main()
{
	weft_check_loaded();
	const int n = 16, rounds = 50;
	std::atomic<int> sum{0}, completions{0};
	std::barrier bar(n, [&]() noexcept { completions++; });
	std::latch done(n);
	std::vector<std::thread> ts;
	for (int i = 0; i < n; i++)
		ts.emplace_back([&, i] {
			for (int r = 0; r < rounds; r++) {
				sum += i;
				bar.arrive_and_wait();
			}
			done.count_down();
		});
	done.wait();
	for (auto &t : ts)
		t.join();
	std::printf("barrier rounds %d sum %d\n", completions.load(), sum.load());

	std::counting_semaphore<64> sem(0);
	std::atomic<int> got{0};
	std::vector<std::thread> cs;
	for (int i = 0; i < 8; i++)
		cs.emplace_back([&] {
			for (int k = 0; k < 1000; k++) {
				sem.acquire();
				got++;
			}
		});
	for (int k = 0; k < 8000; k++)
		sem.release();
	for (auto &t : cs)
		t.join();
	std::printf("semaphore acquired %d\n", got.load());

	std::atomic<int> flag{0};
	std::thread w([&] {
		flag.wait(0);
		std::printf("atomic wait saw %d\n", flag.load());
	});
	std::this_thread::sleep_for(std::chrono::milliseconds(20));
	flag = 5;
	flag.notify_one();
	w.join();
	return 0;
}
