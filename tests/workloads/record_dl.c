/* A library the wl_record workload dlopen()s: its samples must be attributed
 * to dl_spin in libwl_dl.so. */
#include <time.h>

static volatile unsigned long dl_sink;

/* Keeps dl_inner from being a leaf: gcc 12 drops leaf frame pointers. */
__attribute__((noinline)) void dl_barrier(void)
{
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void dl_inner(void)
{
	dl_barrier();	/* first: a non-tail call, so a frame */
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
