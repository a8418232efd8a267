/* Writes of known sizes from forked, exec'd and threaded tasks, for trace's
 * aggregations against bpftrace (tests/e2e/trace_agg.sh).
 *
 * Usage: agg_wl CHILDREN THREADS
 *   The process itself, CHILDREN forked children (the odd ones exec this
 *   program again as "agg_wl --child": comm stays agg_wl) and THREADS
 *   threads each make, in task_writes(), the same 10 write(2)s to
 *   /dev/null of 1, 2, 3, 64, 64, 100, 1000, 4096, 5000 and 70000 bytes
 *   (80330 in all). Nothing else is written (no output unless something
 *   fails): (1 + CHILDREN + THREADS) * 10 writes, all of comm agg_wl, the
 *   threads' under the process's pid. Exits 0 when all went as it should.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const size_t sizes[] = { 1, 2, 3, 64, 64, 100, 1000, 4096, 5000, 70000 };
static char buf[70000];

__attribute__((noinline)) int task_writes(void)
{
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	int bad = fd < 0;
	for (size_t i = 0; !bad && i < sizeof(sizes) / sizeof(sizes[0]); i++)
		bad = write(fd, buf, sizes[i]) != (ssize_t)sizes[i];
	if (fd >= 0)
		close(fd);
	__asm__ volatile("" ::: "memory");	/* a call, not a tail call: main stays on the stack */
	return bad;
}

static void *thread_main(void *arg)
{
	(void)arg;
	return (void *)(long)task_writes();
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "--child"))
		return task_writes();
	if (argc != 3) {
		fprintf(stderr, "usage: agg_wl CHILDREN THREADS\n");
		return 2;
	}
	long nchild = atol(argv[1]), nthr = atol(argv[2]);
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0) {
		fprintf(stderr, "agg_wl: /proc/self/exe: %s\n", strerror(errno));
		return 1;
	}
	self[n] = 0;
	int bad = task_writes();
	for (long i = 0; i < nchild; i++) {
		pid_t pid = fork();
		if (pid < 0) {
			fprintf(stderr, "agg_wl: fork: %s\n", strerror(errno));
			return 1;
		}
		if (pid == 0) {
			if (i & 1) {
				execl(self, argv[0], "--child", (char *)NULL);
				_exit(3);
			}
			_exit(task_writes());
		}
		int st;
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
			fprintf(stderr, "agg_wl: child %ld failed (status 0x%x)\n", i, st);
			bad = 1;
		}
	}
	for (long i = 0; i < nthr; i++) {
		pthread_t t;
		void *r;
		if (pthread_create(&t, NULL, thread_main, NULL) || pthread_join(t, &r) || r) {
			fprintf(stderr, "agg_wl: thread %ld failed\n", i);
			bad = 1;
		}
	}
	return bad;
}
