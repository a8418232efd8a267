// Throws and catches exactly N C++ exceptions (libstdc++'s USDT probes
// libstdcxx:throw and libstdcxx:catch fire once each per exception).
// Usage: probe_throw [N] (default 10)
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

__attribute__((noinline)) static void thrower(long i)
{
	if (i >= 0)
		throw std::runtime_error("probe");
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? std::atol(argv[1]) : 10, caught = 0;
	for (long i = 0; i < n; i++) {
		try {
			thrower(i);
		} catch (const std::exception &) {
			caught++;
		}
	}
	std::printf("%ld\n", caught);
	return 0;
}
