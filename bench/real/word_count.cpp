// A single-threaded C++ filter through iostreams: reads words from stdin,
// counts them in a std::map of std::string, writes each word and its count
// to stdout.  cin/cout keep their default sync with stdio, so every
// character goes through glibc's stdio.
#include <iostream>
#include <map>
#include <string>

int main()
{
	std::map<std::string, unsigned long> n;
	std::string w;
	while (std::cin >> w)
		n[w]++;
	for (const auto &kv : n)
		std::cout << kv.first << ' ' << kv.second << '\n';
	return 0;
}
