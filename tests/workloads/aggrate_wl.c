/* Events at a chosen rate, counted by the workload itself, for the cost of
 * trace's aggregations beside bpftrace's (scripts/bench/aggregate.sh).
 *
 * Usage: aggrate_wl RATE SECONDS [GO]
 *   GO, if given, is a path (a FIFO) opened before anything is timed (the
 *   open returns once a writer opens it too; nothing is read from it): the
 *   tools attach to this pid while it waits. Then for SECONDS seconds the one thread calls wl_event() RATE
 *   times a second (0: as fast as it can), each call one read(2) of
 *   /dev/zero of 1, 8, 64, 512 or 4096 bytes in turn (one event each in
 *   syscalls:sys_enter_read, in five log2 buckets, and one uprobe hit on
 *   wl_event). The pace is kept against the clock: after a slow stretch it
 *   catches up, and it sleeps 1 ms when ahead. Nothing else is read.
 *   Then one line on stdout:
 *     events N wall_s W user_s U sys_s S
 *   N the calls made, W the seconds from GO to the end, U and S its CPU
 *   (getrusage) over the same span. Exits 0 unless a read failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static const size_t sizes[] = { 1, 8, 64, 512, 4096 };
static char buf[4096];
static int zfd = -1;

__attribute__((noinline)) int wl_event(size_t n)
{
	int r = read(zfd, buf, n) != (ssize_t)n;
	__asm__ volatile("" ::: "memory");	/* a call, not a tail call */
	return r;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double cpu_s(int self_sys)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	const struct timeval *tv = self_sys ? &ru.ru_stime : &ru.ru_utime;
	return tv->tv_sec + tv->tv_usec / 1e6;
}

int main(int argc, char **argv)
{
	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: aggrate_wl RATE SECONDS [GO]\n");
		return 2;
	}
	double rate = atof(argv[1]), secs = atof(argv[2]);
	if (rate < 0 || secs <= 0) {
		fprintf(stderr, "aggrate_wl: RATE >= 0 (0: unbounded), SECONDS > 0\n");
		return 2;
	}
	zfd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	if (zfd < 0) {
		fprintf(stderr, "aggrate_wl: /dev/zero: %s\n", strerror(errno));
		return 1;
	}
	if (argc == 4) {	/* opened, not read: the tools count read(2)s */
		int go = open(argv[3], O_RDONLY | O_CLOEXEC);
		if (go < 0) {
			fprintf(stderr, "aggrate_wl: %s: %s\n", argv[3], strerror(errno));
			return 1;
		}
		close(go);
	}
	double u0 = cpu_s(0), s0 = cpu_s(1), t0 = now(), t = t0, end = t0 + secs;
	unsigned long long n = 0;
	unsigned k = 0;
	int bad = 0;
	const size_t nsizes = sizeof(sizes) / sizeof(sizes[0]);
	if (rate == 0) {
		while (!bad && t < end) {
			for (int i = 0; i < 1000 && !bad; i++, n++) {
				bad = wl_event(sizes[k]);
				k = k + 1 == nsizes ? 0 : k + 1;
			}
			t = now();
		}
	} else {
		const struct timespec ms = { 0, 1000000 };
		while (!bad && t < end) {
			unsigned long long due = (unsigned long long)((t - t0) * rate) + 1;
			for (; n < due && !bad; n++) {
				bad = wl_event(sizes[k]);
				k = k + 1 == nsizes ? 0 : k + 1;
			}
			nanosleep(&ms, NULL);
			t = now();
		}
	}
	t = now();
	printf("events %llu wall_s %.4f user_s %.3f sys_s %.3f\n", n, t - t0, cpu_s(0) - u0, cpu_s(1) - s0);
	if (bad)
		fprintf(stderr, "aggrate_wl: read of /dev/zero: %s\n", strerror(errno));
	return bad;
}
