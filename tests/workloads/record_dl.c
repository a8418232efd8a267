/* A library the wl_record workload dlopen()s: its samples must be attributed
 * to dl_spin in libwl_dl.so. */
#include <time.h>

static volatile unsigned long dl_sink;

__attribute__((noinline)) static void dl_inner(void)
{
	for (unsigned long i = 0; i < 300000UL; i++)
		dl_sink += i ^ 5;
}

__attribute__((noinline)) void dl_spin(double secs)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	double end = ts.tv_sec + ts.tv_nsec / 1e9 + secs;
	for (;;) {
		dl_inner();
		clock_gettime(CLOCK_MONOTONIC, &ts);
		if (ts.tv_sec + ts.tv_nsec / 1e9 >= end)
			break;
	}
}
