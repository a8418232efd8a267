/* C side of tests/workloads/go_cgo_wl: cspin, a spin loop called from Go;
 * ccallback, C that calls back into Go (goback, //export in main.go). */
#include "spin.h"
#include "_cgo_export.h"

__attribute__((noinline)) long cspin(long n)
{
	volatile long s = 0;
	for (long i = 0; i < n; i++)
		s += i * i % 7;
	return s;
}

__attribute__((noinline)) long ccallback(long n)
{
	return goback(n) + 1;
}
