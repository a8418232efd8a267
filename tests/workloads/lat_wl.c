/* Sleeps of known lengths from forked, exec'd and threaded tasks, for
 * trace --latency against bpftrace (tests/e2e/trace_latency.sh).
 *
 * Usage: lat_wl CHILDREN THREADS
 *   The process itself, then CHILDREN forked children one after another
 *   (the odd ones exec this program again as "lat_wl --child": comm stays
 *   lat_wl), then THREADS threads one after another, each run
 *   task_sleeps(): sleep_us(1100), sleep_us(4500), sleep_us(17000), each
 *   one nanosleep(2) (glibc: the clock_nanosleep syscall). A sleep never
 *   ends early, and each is far below the top of its log2 bucket of
 *   microseconds: [1K, 2K), [4K, 8K), [16K, 32K), so each task puts one
 *   duration in each (the margins, 948 us, 3.6 ms and 15 ms, absorb a
 *   busy machine's lateness). (1 + CHILDREN + THREADS) * 3 sleeps in all,
 *   and as many calls of sleep_us, all of comm lat_wl. Nothing else
 *   sleeps. Exits 0 when all went as it should.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

__attribute__((noinline)) int sleep_us(long us)
{
	struct timespec ts = { .tv_sec = us / 1000000, .tv_nsec = (us % 1000000) * 1000 };
	int r = nanosleep(&ts, NULL);
	__asm__ volatile("" ::: "memory");	/* a call, not a tail call */
	return r;
}

__attribute__((noinline)) int task_sleeps(void)
{
	int bad = sleep_us(1100);
	bad |= sleep_us(4500);
	bad |= sleep_us(17000);
	__asm__ volatile("" ::: "memory");
	return bad != 0;
}

static void *thread_main(void *arg)
{
	(void)arg;
	return (void *)(long)task_sleeps();
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "--child"))
		return task_sleeps();
	if (argc != 3) {
		fprintf(stderr, "usage: lat_wl CHILDREN THREADS\n");
		return 2;
	}
	long nchild = atol(argv[1]), nthr = atol(argv[2]);
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0) {
		fprintf(stderr, "lat_wl: /proc/self/exe: %s\n", strerror(errno));
		return 1;
	}
	self[n] = 0;
	int bad = task_sleeps();
	for (long i = 0; i < nchild; i++) {
		pid_t pid = fork();
		if (pid < 0) {
			fprintf(stderr, "lat_wl: fork: %s\n", strerror(errno));
			return 1;
		}
		if (pid == 0) {
			if (i & 1) {
				execl(self, argv[0], "--child", (char *)NULL);
				_exit(3);
			}
			_exit(task_sleeps());
		}
		int st;
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
			fprintf(stderr, "lat_wl: child %ld failed (status 0x%x)\n", i, st);
			bad = 1;
		}
	}
	for (long i = 0; i < nthr; i++) {
		pthread_t t;
		void *r;
		if (pthread_create(&t, NULL, thread_main, NULL) || pthread_join(t, &r) || r) {
			fprintf(stderr, "lat_wl: thread %ld failed\n", i);
			bad = 1;
		}
	}
	return bad;
}
