/* The workload of tests/e2e/record_compressed.sh, compiled there with its
 * CFI only in a compressed .debug_frame. It forks (the child execs this
 * program again, by argv[0], with "child"), starts a thread, and spins in leaf() under
 * mid() in all three: every stack must go on from leaf to an entry point.
 * tests/e2e/record_binaries.sh builds it with -DWL_SDT: a USDT probe in mid
 * for the probe listing; it runs shorter with WL_ROUNDS in the environment,
 * and exits with WL_EXIT. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef WL_SDT
#include <sys/sdt.h>
#else
#define DTRACE_PROBE1(p, n, a) ((void)(a))
#endif

static long rounds = 1500;

__attribute__((noinline)) static long leaf(long n)
{
	volatile long s = 0;
	for (long i = 0; i < n; i++)
		s += i * i % 7;
	return s;
}

__attribute__((noinline)) static long mid(long n)
{
	long t = 0;
	for (long i = 0; i < rounds; i++)
		t += leaf(n);
	DTRACE_PROBE1(pprobe_wl, mid_done, t);
	return t + 1;
}

__attribute__((noinline)) static void *thread_fn(void *arg)
{
	long r = mid((long)arg);
	__asm__ volatile("" : : "r"(r) : "memory");	/* no tail call: thread_fn stays on the stack */
	return (void *)r;
}

int main(int argc, char **argv)
{
	if (getenv("WL_ROUNDS"))	/* fewer rounds of leaf per mid (the child inherits it) */
		rounds = atol(getenv("WL_ROUNDS"));
	if (argc > 1 && !strcmp(argv[1], "child"))
		return mid(100000) == 0;
	pthread_t t;
	if (pthread_create(&t, NULL, thread_fn, (void *)100000L))
		return 2;
	pid_t pid = fork();
	if (pid == 0) {
		execl(argv[0], argv[0], "child", (char *)NULL);	/* the same comm */
		_exit(127);
	}
	long r = mid(100000);
	int st = 0;
	pthread_join(t, NULL);
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return 3;
	printf("%ld\n", r);
	return getenv("WL_EXIT") ? atoi(getenv("WL_EXIT")) : 0;	/* what record must return */
}
