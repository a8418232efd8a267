// C++ symbolization workload: a namespaced template method and an overload,
// so that demangled names with parameters are known exactly.
#include <cstdio>
#include <unistd.h>

namespace pprobe_wl {
template <typename T> struct Acc {
	T v;
	__attribute__((noinline)) T add(T x, int times);
};
template <typename T> T Acc<T>::add(T x, int times)
{
	for (int i = 0; i < times; i++)
		v = v * 31 + x;
	return v;
}
__attribute__((noinline)) long spin(long x, double)
{
	Acc<long> a{x};
	return a.add(x, 1000);
}
} // namespace pprobe_wl

volatile long cxx_sink;

int main()
{
	std::printf("ready %d\n", getpid());
	std::fflush(stdout);
	for (;;) {
		cxx_sink += pprobe_wl::spin(cxx_sink, 1.0);
		usleep(1000);
	}
}
