// A C++ program whose stacks run through a deep chain of template
// instantiations: Level<N>::run calls Level<N-1>::run down to Level<0>, each
// instantiation a function of its own with a frame of its own size, every
// tenth through a std::function holding a lambda; -O2 without frame
// pointers, ~20 KB of stack under main. main forks a child that execs this
// program again ("child"), starts two threads, and runs the chain itself:
// a command that forks, execs and starts threads.
//   wl_cxx_deep SECONDS [child]
// Every sample in the spin loop has, outermost first:
//   main or the thread's entry -> run_chain -> Level<DEPTH>::run ... Level<0>::run
#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <sys/types.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

static constexpr int DEPTH = 120;
static std::atomic<bool> stop_flag;
volatile unsigned long sink;

template <int N> struct Level {
	__attribute__((noinline)) static unsigned long run(unsigned long x)
	{
		std::array<volatile unsigned char, 64 + 32 * (N % 5)> pad;
		pad[0] = (unsigned char)x;
		pad[pad.size() - 1] = (unsigned char)(x >> 8);
		unsigned long r;
		if constexpr (N % 10 == 0) {
			std::function<unsigned long(unsigned long)> f = [](unsigned long y) {
				return Level<N - 1>::run(y + 1);
			};
			r = f(x);
		} else {
			r = Level<N - 1>::run(x + pad[0]);
		}
		return r + pad[0] + pad[pad.size() - 1];	// not a tail call
	}
};

template <> struct Level<0> {
	__attribute__((noinline)) static unsigned long run(unsigned long x)
	{
		for (int i = 0; i < 200000; i++)
			sink += (unsigned long)i * 2654435761u;	// volatile: not folded
		return (x + sink) & 0xff;
	}
};

__attribute__((noinline)) static void run_chain()
{
	unsigned long x = 0;
	while (!stop_flag.load(std::memory_order_relaxed))
		x += Level<DEPTH>::run(x);
	sink = x;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0;
	bool child = argc > 2 && !strcmp(argv[2], "child");
	pid_t pid = -1;
	if (!child) {
		static char self[4096];
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		if (n <= 0)
			return 2;
		pid = fork();
		if (pid == 0) {
			execl(self, argv[0], argv[1], "child", (char *)nullptr);
			_exit(127);
		}
	}
	std::thread timer([secs] {
		std::this_thread::sleep_for(std::chrono::duration<double>(secs));
		stop_flag = true;
	});
	std::thread worker(run_chain);
	run_chain();
	worker.join();
	timer.join();
	int st = 0;
	if (pid > 0 && (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))) {
		fprintf(stderr, "child failed (status %#x)\n", st);
		return 1;
	}
	return 0;
}
