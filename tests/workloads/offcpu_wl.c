/* offcpu_wl: known shares of wall-clock time, for record --off-cpu.
 *
 *   offcpu_wl ROUNDS [CHILD_ROUNDS]
 *     starts a helper thread and, in each of ROUNDS rounds of its main
 *     thread (main;rounds):
 *       burn():       10 ms of this thread's CPU time (CLOCK_THREAD_CPUTIME_ID)
 *       nap():        nanosleep 10 ms
 *       wait_reply(): every fourth round, asks the helper for a byte at
 *                     now + 10 ms (it sleeps until then: clock_nanosleep)
 *                     and reads it: the read blocks (pipe_read) ~10 ms
 *     Halfway (so that -p attached after the start sees them) it forks a
 *     child that execs "offcpu_wl CHILD_ROUNDS 0" (default 4: the same
 *     shares; it starts neither) and a thread side_work() (burn, nap, 4
 *     times); it prints "child PID" and "side TID" on stdout. At the end it waits for
 *     both, prints "waited PID NS" (the wall time from each ask to its
 *     reply, by its own clock: what a profile's wait_reply may not pass)
 *     and exits 3 (its status is part of the test).
 *   offcpu_wl contend MS
 *     two threads pinned to one CPU, each spin()s for MS ms of its own CPU
 *     time: each waits, runnable, about as long as it runs (preempted).
 *   offcpu_wl pingpong N [CPU]
 *     two threads (pinned to CPU if given) pass a byte back and forth over
 *     two pipes N times: a
 *     switch-heavy workload for scripts/bench/offcpu.sh; prints "elapsed
 *     SECONDS".
 *
 * So, in the main thread's wall-clock profile: burn (on-CPU) ~= nap
 * (off-CPU, blocked) and wait_reply (off-CPU, blocked) ~= nap / 4.
 * -O2 -g, no frame pointers: stacks come from DWARF. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static int req[2], rep[2];
static volatile unsigned long sink;
static long long waited_ns;	/* wall time of wait_reply's reads, by CLOCK_MONOTONIC */

static long long thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

NOINLINE static void burn_ms(long ms)
{
	long long end = thread_cpu_ns() + ms * 1000000;
	while (thread_cpu_ns() < end)
		for (int i = 0; i < 1000; i++)
			sink += (unsigned long)i * sink + 1;
}

NOINLINE static void burn(void)
{
	burn_ms(10);
	__asm__ volatile("" ::: "memory");
}

static void sleep_ms(long ms)
{
	struct timespec ts = { 0, ms * 1000000L };
	while (nanosleep(&ts, &ts))
		;
}

NOINLINE static void nap(void)
{
	sleep_ms(10);
	__asm__ volatile("" ::: "memory");	/* no tail call: nap stays on the stack */
}

NOINLINE static void wait_reply(void)
{
	/* the helper answers at now + 10 ms, however late it wakes for the ask */
	struct timespec at;
	char b;
	clock_gettime(CLOCK_MONOTONIC, &at);
	at.tv_nsec += 10000000;
	if (at.tv_nsec >= 1000000000) {
		at.tv_sec++;
		at.tv_nsec -= 1000000000;
	}
	if (write(req[1], &at, sizeof(at)) != sizeof(at) || read(rep[0], &b, 1) != 1)
		exit(1);
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	waited_ns += (now.tv_sec - at.tv_sec) * 1000000000LL + now.tv_nsec - at.tv_nsec + 10000000;
	__asm__ volatile("" ::: "memory");
}

NOINLINE static void *helper(void *arg)
{
	(void)arg;
	struct timespec at;
	char b = 'r';
	while (read(req[0], &at, sizeof(at)) == sizeof(at)) {
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL))
			;
		if (write(rep[1], &b, 1) != 1)
			exit(1);
	}
	return NULL;
}

NOINLINE static void *side_work(void *arg)
{
	(void)arg;
	printf("side %d\n", (int)gettid());
	fflush(stdout);
	for (int i = 0; i < 4; i++) {
		burn();
		nap();
	}
	return NULL;
}

static pid_t child;
static pthread_t side;
static bool side_started;

static void spawn(int child_rounds)
{
	child = fork();
	if (child == 0) {
		char buf[16], self[4096];
		ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
		if (len <= 0)
			_exit(127);
		self[len] = 0;
		snprintf(buf, sizeof(buf), "%d", child_rounds);
		execl(self, "offcpu_wl", buf, "0", (char *)NULL);
		_exit(127);
	}
	printf("child %d\n", child);
	fflush(stdout);
	side_started = !pthread_create(&side, NULL, side_work, NULL);
}

NOINLINE static void rounds(int n, int child_rounds)
{
	for (int i = 0; i < n; i++) {
		if (i == n / 2 && child_rounds > 0)
			spawn(child_rounds);
		burn();
		nap();
		if (i % 4 == 3)
			wait_reply();
	}
}

NOINLINE static void *spin(void *arg)
{
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	sched_setaffinity(0, sizeof(one), &one);
	burn_ms((long)arg);
	return NULL;
}

static int contend(long ms)
{
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, spin, (void *)ms))
			return 1;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return 0;
}

static int pp[2][2];

static void *pong(void *arg)
{
	long n = (long)arg;
	char b;
	for (long i = 0; i < n; i++)
		if (read(pp[0][0], &b, 1) != 1 || write(pp[1][1], &b, 1) != 1)
			exit(1);
	return NULL;
}

static int pingpong(long n, int cpu)
{
	if (cpu >= 0) {	/* both threads (pong inherits it) on one CPU: direct hand-offs */
		cpu_set_t one;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (sched_setaffinity(0, sizeof(one), &one))
			return 1;
	}
	pthread_t t;
	char b = 'p';
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (pipe(pp[0]) || pipe(pp[1]) || pthread_create(&t, NULL, pong, (void *)n))
		return 1;
	for (long i = 0; i < n; i++)
		if (write(pp[0][1], &b, 1) != 1 || read(pp[1][0], &b, 1) != 1)
			return 1;
	pthread_join(t, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("elapsed %.6f\n", (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	return 0;
}

int main(int argc, char **argv)
{
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "pingpong"))
		return pingpong(atol(argv[2]), argc == 4 ? atoi(argv[3]) : -1);
	if (argc == 3 && !strcmp(argv[1], "contend"))
		return contend(atol(argv[2]));
	if (argc < 2) {
		fprintf(stderr, "usage: offcpu_wl ROUNDS [CHILD_ROUNDS] | offcpu_wl pingpong N\n");
		return 2;
	}
	int n = atoi(argv[1]);
	int child_rounds = argc > 2 ? atoi(argv[2]) : 4;
	pthread_t t;
	if (pipe(req) || pipe(rep) || pthread_create(&t, NULL, helper, NULL))
		return 1;
	rounds(n, child_rounds);
	int st = 0;
	if (child > 0 && (waitpid(child, &st, 0) != child || !WIFEXITED(st) || WEXITSTATUS(st) != 3))
		return 1;
	if (side_started)
		pthread_join(side, NULL);
	printf("waited %d %lld\n", (int)getpid(), waited_ns);
	return 3;
}
