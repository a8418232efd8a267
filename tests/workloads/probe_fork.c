/* A program that forks, execs and starts threads, each calling work() a
 * known number of times, for the probe tests on commands and processes that
 * make new tasks (tests/e2e/probe_fork.sh; the kernel cannot inherit uprobe
 * and kprobe PMU events into them).
 *
 * Usage: probe_fork [-w] CHILDREN THREADS CALLS
 *   CHILDREN processes are forked; the odd ones exec this program again
 *   ("probe_fork --child CALLS"), the even ones do not; every child calls
 *   work() CALLS times and exits 0. Then THREADS threads each call work()
 *   CALLS times. The parent itself never calls work(): work() runs exactly
 *   CALLS * (CHILDREN + THREADS) times.
 *   -w: first print "ready" and wait for SIGUSR1 (for tests that attach with
 *   -p before the process forks).
 * Exits 7 when every fork, exec, thread and child went as it should; else
 * says what failed on stderr and exits 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define EXIT_ALL_WELL 7

volatile long sink;

__attribute__((noinline)) long work(long i)
{
	sink += i;
	return sink;
}

static void calls(long n)
{
	for (long i = 0; i < n; i++)
		work(i);
}

static void *thread_main(void *arg)
{
	calls((long)arg);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--child")) {
		calls(atol(argv[2]));
		return 0;
	}
	int a = 1;
	int wait_go = argc > 1 && !strcmp(argv[1], "-w");
	a += wait_go;
	if (argc - a != 3) {
		fprintf(stderr, "usage: probe_fork [-w] CHILDREN THREADS CALLS\n");
		return 2;
	}
	long nchild = atol(argv[a]), nthr = atol(argv[a + 1]), ncalls = atol(argv[a + 2]);
	if (wait_go) {
		sigset_t s;
		int sig;
		sigemptyset(&s);
		sigaddset(&s, SIGUSR1);
		sigprocmask(SIG_BLOCK, &s, NULL);
		printf("ready\n");
		fflush(stdout);
		sigwait(&s, &sig);
		sigprocmask(SIG_UNBLOCK, &s, NULL);
	}
	int bad = 0;
	pid_t *kids = calloc((size_t)nchild + 1, sizeof(*kids));
	for (long i = 0; i < nchild; i++) {
		pid_t pid = fork();
		if (pid < 0) {
			fprintf(stderr, "probe_fork: fork: %s\n", strerror(errno));
			bad = 1;
			break;
		}
		if (pid == 0) {
			if (i & 1) {
				char n[32];
				snprintf(n, sizeof(n), "%ld", ncalls);
				execl("/proc/self/exe", "probe_fork", "--child", n, (char *)NULL);
				fprintf(stderr, "probe_fork: exec: %s\n", strerror(errno));
				_exit(3);
			}
			calls(ncalls);
			_exit(0);
		}
		kids[i] = pid;
	}
	for (long i = 0; i < nchild; i++) {
		int st;
		if (!kids[i])
			continue;
		if (waitpid(kids[i], &st, 0) != kids[i]) {
			fprintf(stderr, "probe_fork: waitpid %d: %s\n", (int)kids[i], strerror(errno));
			bad = 1;
		} else if (!WIFEXITED(st) || WEXITSTATUS(st)) {
			fprintf(stderr, "probe_fork: child %ld (%s) ended with status 0x%x\n", i,
				i & 1 ? "exec'd" : "forked", st);
			bad = 1;
		}
	}
	free(kids);
	pthread_t *t = calloc((size_t)nthr + 1, sizeof(*t));
	long started = 0;
	for (long i = 0; i < nthr; i++) {
		int e = pthread_create(&t[i], NULL, thread_main, (void *)ncalls);
		if (e) {
			fprintf(stderr, "probe_fork: pthread_create: %s\n", strerror(e));
			bad = 1;
			break;
		}
		started++;
	}
	for (long i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	free(t);
	return bad ? 1 : EXIT_ALL_WELL;
}
