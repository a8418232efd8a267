/* annotate_wl: one hot function whose hottest instruction is known, for
 * `pprobe annotate` against perf annotate (tests/e2e/annotate.sh).
 * main forks; the child execs this program again ("child"), which starts
 * a thread that runs hot_loop for SECS seconds (argv[1], default 1).
 * hot_loop's time is a chain of 64-bit divisions, each waiting for the one
 * before, in mix(), an always-inlined helper: nearly every sample lands at
 * the line marked ANNOTATE_HOT_LINE (mix's, not hot_loop's), and one
 * instruction (the div, or the one after it where the timer's interrupt
 * is taken) holds most of them. The line marked ANNOTATE_LOOP_LINE is
 * hot_loop's own, with a few percent. Built -O2 -g -fno-unroll-loops (one
 * division in the loop, for clang too). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long divisor = 7;
static volatile unsigned long sink;
static double secs = 1;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline __attribute__((always_inline)) unsigned long mix(unsigned long x, unsigned long d)
{
	return x / d + (x << 7);	/* ANNOTATE_HOT_LINE */
}

__attribute__((noinline)) unsigned long hot_loop(unsigned long n)
{
	unsigned long x = n, d = divisor;
	for (unsigned long i = 0; i < n; i++)
		x = mix(x ^ i, d) | 1;	/* ANNOTATE_LOOP_LINE */
	return x;
}

static void *spin(void *arg)
{
	(void)arg;
	double end = now() + secs;
	while (now() < end)
		sink += hot_loop(200000);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "child"))
		secs = atof(argv[1]);
	if (argc > 2 && !strcmp(argv[1], "child"))
		secs = atof(argv[2]);
	if (argc > 1 && !strcmp(argv[1], "child")) {
		pthread_t t;
		if (pthread_create(&t, NULL, spin, NULL))
			return 1;
		pthread_join(t, NULL);
		return 0;
	}
	char s[32];
	snprintf(s, sizeof(s), "%g", secs);
	pid_t pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		execl("/proc/self/exe", argv[0], "child", s, (char *)NULL);
		_exit(127);
	}
	int st;
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
