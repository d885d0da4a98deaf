// C++ standard threads on weft: std::thread, mutex, condition_variable,
// lock_guard, thread_local objects, exceptions in threads, async/future,
// std::shared_mutex (pthread_rwlock), this_thread::sleep_for.
// std::barrier/std::latch (futex-based atomic waits) are left out: see the
// note at the end of main.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <future>
#include <mutex>
#include <numeric>
#include <shared_mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>
#include "weft_check.h"

using namespace std::chrono_literals;

static std::atomic<int> tl_ctor{0}, tl_dtor{0}, tl_bad{0};

struct Tracked {
	int id = -1;
	std::string name;
	Tracked() { tl_ctor++; }
	~Tracked()
	{
		if (id >= 0 && name != "t" + std::to_string(id))
			tl_bad++;
		tl_dtor++;
	}
};
static thread_local Tracked tracked;
static thread_local int tl_counter = 100;

int main()
{
	weft_check_loaded();

	// std::thread + std::mutex + lock_guard
	{
		std::mutex m;
		long total = 0;
		std::vector<std::thread> ts;
		for (int i = 0; i < 8; i++)
			ts.emplace_back([&, i] {
				for (int k = 0; k < 10000; k++) {
					std::lock_guard<std::mutex> g(m);
					total += i;
				}
			});
		for (auto &t : ts)
			t.join();
		std::printf("mutex total %ld\n", total);
	}

	// thread_local objects: constructed on first use, destroyed at thread exit
	{
		tl_ctor = tl_dtor = 0;
		std::vector<std::thread> ts;
		std::atomic<int> counters_ok{0};
		for (int i = 0; i < 20; i++)
			ts.emplace_back([i, &counters_ok] {
				tracked.id = i;
				tracked.name = "t" + std::to_string(i);
				for (int k = 0; k < 10; k++) {
					tl_counter++;
					std::this_thread::yield();
				}
				std::this_thread::sleep_for(1ms);
				if (tl_counter == 110 && tracked.id == i)
					counters_ok++;
			});
		for (auto &t : ts)
			t.join();
		std::printf("thread_local ctor %d dtor %d bad %d counters ok %d\n", tl_ctor.load(),
			    tl_dtor.load(), tl_bad.load(), counters_ok.load());
	}

	// condition_variable: wait with predicate, wait_for timeout, notify_all
	{
		std::mutex m;
		std::condition_variable cv;
		bool ready = false;
		int woke = 0;
		std::vector<std::thread> ts;
		for (int i = 0; i < 6; i++)
			ts.emplace_back([&] {
				std::unique_lock<std::mutex> l(m);
				cv.wait(l, [&] { return ready; });
				woke++;
			});
		{
			std::unique_lock<std::mutex> l(m);
			bool r = cv.wait_for(l, 20ms, [] { return false; });
			std::printf("wait_for predicate false -> %d\n", r);
			auto st = cv.wait_for(l, 10ms);
			std::printf("wait_for status timeout %d\n", st == std::cv_status::timeout ? 1 : 0);
			auto st2 = cv.wait_until(l, std::chrono::steady_clock::now() + 10ms);
			std::printf("wait_until status timeout %d\n",
				    st2 == std::cv_status::timeout ? 1 : 0);
			ready = true;
		}
		cv.notify_all();
		for (auto &t : ts)
			t.join();
		std::printf("cv woke %d\n", woke);

		// ping-pong with notify_one
		int turn = 0, rounds = 0;
		std::thread a([&] {
			for (int k = 0; k < 1000; k++) {
				std::unique_lock<std::mutex> l(m);
				cv.wait(l, [&] { return turn == 0; });
				turn = 1;
				rounds++;
				cv.notify_one();
			}
		});
		std::thread b([&] {
			for (int k = 0; k < 1000; k++) {
				std::unique_lock<std::mutex> l(m);
				cv.wait(l, [&] { return turn == 1; });
				turn = 0;
				rounds++;
				cv.notify_one();
			}
		});
		a.join();
		b.join();
		std::printf("ping-pong rounds %d\n", rounds);
	}

	// exceptions thrown and caught inside threads, and carried by futures
	{
		std::atomic<int> caught{0};
		std::vector<std::thread> ts;
		for (int i = 0; i < 10; i++)
			ts.emplace_back([i, &caught] {
				try {
					std::this_thread::sleep_for(100us);
					if (i % 2)
						throw std::runtime_error("odd " + std::to_string(i));
					throw i;
				} catch (const std::runtime_error &e) {
					if (std::string(e.what()) == "odd " + std::to_string(i))
						caught++;
				} catch (int v) {
					if (v == i)
						caught++;
				}
			});
		for (auto &t : ts)
			t.join();
		std::printf("exceptions caught in threads %d\n", caught.load());
	}

	// std::async / std::future
	{
		std::vector<std::future<long>> fs;
		for (int i = 0; i < 10; i++)
			fs.push_back(std::async(std::launch::async, [i] {
				std::this_thread::sleep_for(1ms);
				long s = 0;
				for (int k = 0; k <= i * 1000; k++)
					s += k;
				return s;
			}));
		long total = 0;
		for (auto &f : fs)
			total += f.get();
		std::printf("async total %ld\n", total);
		auto bad = std::async(std::launch::async, []() -> int { throw std::logic_error("boom"); });
		try {
			bad.get();
			std::printf("no exception\n");
		} catch (const std::logic_error &e) {
			std::printf("future exception: %s\n", e.what());
		}
		std::promise<int> p;
		auto pf = p.get_future();
		std::thread t([&p] {
			std::this_thread::sleep_for(5ms);
			p.set_value(77);
		});
		auto st = pf.wait_for(0ms);
		std::printf("promise not ready yet %d\n", st == std::future_status::timeout ? 1 : 0);
		std::printf("promise value %d\n", pf.get());
		t.join();
		auto d = std::async(std::launch::deferred, [] { return 5; });
		std::printf("deferred %d\n", d.get());
	}

	// sleep_for really sleeps (at least the requested time)
	{
		auto t0 = std::chrono::steady_clock::now();
		std::thread t([] { std::this_thread::sleep_for(30ms); });
		t.join();
		std::this_thread::sleep_for(10ms);
		auto el = std::chrono::steady_clock::now() - t0;
		std::printf("slept at least 40ms: %d\n", el >= 40ms ? 1 : 0);
	}

	// hardware_concurrency, ids
	{
		std::thread::id main_id = std::this_thread::get_id();
		std::thread::id other;
		std::thread t([&] { other = std::this_thread::get_id(); });
		std::thread::id tid = t.get_id();
		t.join();
		std::printf("ids: other != main %d, get_id matches %d\n", other != main_id, other == tid);
	}

	// std::shared_mutex: readers share, writers exclude
	{
		std::shared_mutex sm;
		long value = 0;
		std::atomic<int> readers{0}, max_readers{0}, torn{0};
		std::vector<std::thread> ts;
		for (int i = 0; i < 6; i++)
			ts.emplace_back([&, i] {
				for (int k = 0; k < 3000; k++) {
					if ((k + i) % 4 == 0) {
						std::unique_lock<std::shared_mutex> g(sm);
						if (readers.load() != 0)
							torn++;
						value++;
					} else {
						std::shared_lock<std::shared_mutex> g(sm);
						int r = ++readers;
						int mx = max_readers.load();
						while (r > mx && !max_readers.compare_exchange_weak(mx, r))
							;
						long v1 = value;
						std::this_thread::yield();
						if (value != v1)
							torn++;
						--readers;
					}
				}
			});
		for (auto &t : ts)
			t.join();
		std::printf("shared_mutex writes %ld, exclusion violations %d\n", value, torn.load());
		std::shared_mutex sm2;
		sm2.lock_shared();
		bool try_w = sm2.try_lock();
		bool try_r = sm2.try_lock_shared();
		if (try_r)
			sm2.unlock_shared();
		sm2.unlock_shared();
		std::printf("shared_mutex try_lock while shared %d, try_lock_shared %d\n", try_w, try_r);
	}

	// Not tested: std::barrier and std::latch wait with raw futex system
	// calls (std::__detail::__platform_wait), which block a weft worker
	// rather than parking the task: they hang under weft.
	return 0;
}
