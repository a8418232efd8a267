// C++ ground truth: recursion through a class template and std::function,
// std::sort with an inlined lambda comparator that spins.
//   unwind_cxx DEPTH SECONDS
// Outermost first: main -> Walker<int>::descend*DEPTH -> sort_spin -> std::sort internals -> lambda
#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <functional>
#include <unistd.h>
#include <vector>

static volatile std::sig_atomic_t stop_flag;
volatile unsigned long csink;

__attribute__((noinline)) void sort_spin()
{
	std::vector<int> v(64);
	while (!stop_flag) {
		for (int i = 0; i < 64; i++)
			v[i] = (i * 7919) % 64;
		std::sort(v.begin(), v.end(), [](int a, int b) {
			for (int i = 0; i < 20000; i++)
				csink += i;
			return a < b;
		});
	}
}

template <typename T> struct Walker {
	std::function<void()> leaf;
	__attribute__((noinline)) T descend(int n)
	{
		volatile char frame[256];
		frame[0] = (char)n;
		if (n <= 1) {
			leaf();
			return frame[0];
		}
		T r = descend(n - 1);
		return r + frame[0];
	}
};

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	std::signal(SIGALRM, [](int) { stop_flag = 1; });
	alarm((unsigned)std::atoi(argv[2]));
	Walker<int> w{ sort_spin };
	return w.descend(std::atoi(argv[1])) == -1000;
}
