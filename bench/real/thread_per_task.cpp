// A std::thread per task: 5000 small tasks, each run on a thread of its
// own, at most 16 alive at once, results gathered through a mutex.
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

static std::mutex mu;
static unsigned long long total;  // protected by mu

static void task(unsigned n)
{
	unsigned long long h = n;
	for (int i = 0; i < 2000; i++)
		h = h * 6364136223846793005ULL + 1442695040888963407ULL;
	std::lock_guard<std::mutex> g(mu);
	total += h >> 40;
}

int main()
{
	const unsigned tasks = 5000, batch = 16;
	for (unsigned base = 0; base < tasks; base += batch) {
		std::vector<std::thread> ts;
		for (unsigned i = base; i < base + batch && i < tasks; i++)
			ts.emplace_back(task, i);
		for (auto &t : ts)
			t.join();
	}
	std::printf("tasks %u, total %llu\n", tasks, total);
	return 0;
}
