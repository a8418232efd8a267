/* Workloads with known behaviour for pprobe record's tests.
 *
 *   hot SECS            burn CPU: hot_three() does 3 units for each 1 of hot_one();
 *                       prints "cpu SECS" (its own CPU time) at the end
 *   prctl N             exactly N prctl(PR_GET_DUMPABLE) calls from do_prctls()
 *   threads T SECS      T threads spinning in thread_spin()
 *   fork-exec PROG ARG  fork; the child execs PROG with ARG...; wait for it
 *   dlopen LIB SECS     dlopen LIB and spin in its dl_spin() for SECS
 *   syscalls N          N write(2)s of 1 byte to /dev/null from do_writes()
 *   pause               sleep until killed (for -p tests)
 *   handler SECS        run_hot for SECS while a SIGALRM handler (every
 *                       1.5-2.5 ms) spins in in_handler()
 *   fixed N             N rounds of hot_three+hot_one+8 writes, then print
 *                       "elapsed SECS cpu SECS" (its own wall and CPU time)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

/* gcc 12 ignores -mno-omit-leaf-frame-pointer at -O2, and a leaf without a
 * frame hides its caller from a frame-pointer walk. The spinning functions
 * call this, so they are not leaves and keep their frame. */
__attribute__((noinline)) void wl_barrier(void)
{
	__asm__ volatile("" ::: "memory");
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static void spin_units(unsigned long units)
{
	wl_barrier();	/* first: a non-tail call, so a frame */
	for (unsigned long i = 0; i < units * 200000UL; i++)
		sink += i;
}

/* xorshift32: a pseudo-random sequence that is the same every run */
static unsigned int next_random(unsigned int *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

/* hot_three(n) does 3n units of 25,000 additions for hot_one(n)'s n */
__attribute__((noinline)) void hot_three(unsigned long n)
{
	wl_barrier();	/* first: a non-tail call, so a frame */
	for (unsigned long i = 0; i < 3 * n * 25000UL; i++)
		sink += i * 3;
}

__attribute__((noinline)) void hot_one(unsigned long n)
{
	wl_barrier();	/* first: a non-tail call, so a frame */
	for (unsigned long i = 0; i < n * 25000UL; i++)
		sink += i * 3;
}

/*
 * Rounds of 1 to 8 units, in a pseudo-random order: a round of fixed length
 * near a multiple of the sampling period (a 0.25 ms round against 999 Hz)
 * would alias, and the samples would land on one function more than its
 * share of the time.
 */
__attribute__((noinline)) static void run_hot(double secs)
{
	double end = now() + secs;
	unsigned int x = 2463534242u;
	while (now() < end) {
		unsigned long n = 1 + next_random(&x) % 8;
		hot_three(n);
		hot_one(n);
	}
}

__attribute__((noinline)) void do_prctls(long n)
{
	for (long i = 0; i < n; i++)
		sink += (unsigned long)prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
}

__attribute__((noinline)) void do_writes(long n)
{
	int fd = open("/dev/null", O_WRONLY);
	for (long i = 0; i < n; i++)
		sink += (unsigned long)write(fd, "x", 1);
	close(fd);
}

static double thread_secs;

__attribute__((noinline)) void thread_spin(void)
{
	double end = now() + thread_secs;
	while (now() < end)
		spin_units(1);
}

static void *thread_main(void *arg)
{
	(void)arg;
	thread_spin();
	return NULL;
}

__attribute__((noinline)) void in_handler(void)
{
	wl_barrier();	/* first: a non-tail call, so a frame */
	for (unsigned long i = 0; i < 600000UL; i++)
		sink += i * 5;
}

/*
 * The next SIGALRM in 1.5 to 2.5 ms, pseudo-random: at a fixed 2 ms the
 * signals kept one phase against 999 Hz sampling, and one run sampled the
 * handler 23 times where its share of the time gives ~110.
 */
static void alarm_again(void)
{
	static unsigned int x = 2463534242u;
	struct itimerval it = { { 0, 0 }, { 0, 1500 + (long)(next_random(&x) % 1000) } };
	setitimer(ITIMER_REAL, &it, NULL);
}

static void on_alarm(int sig)
{
	(void)sig;
	in_handler();
	alarm_again();	/* also keeps in_handler's call from being a tail call */
}

static void usage(void)
{
	fprintf(stderr, "usage: wl_record hot SECS | prctl N | threads T SECS | fork-exec PROG ARG... |"
			" dlopen LIB SECS | syscalls N | pause | fixed N | handler SECS\n");
	exit(2);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		usage();
	const char *mode = argv[1];
	if (!strcmp(mode, "hot") && argc == 3) {
		run_hot(atof(argv[2]));
		struct rusage ru;
		getrusage(RUSAGE_SELF, &ru);
		printf("cpu %.6f\n", ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
					ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
	} else if (!strcmp(mode, "prctl") && argc == 3) {
		do_prctls(atol(argv[2]));
	} else if (!strcmp(mode, "syscalls") && argc == 3) {
		do_writes(atol(argv[2]));
	} else if (!strcmp(mode, "threads") && argc == 4) {
		int n = atoi(argv[2]);
		thread_secs = atof(argv[3]);
		pthread_t *t = calloc((size_t)n, sizeof(*t));
		for (int i = 0; i < n; i++)
			pthread_create(&t[i], NULL, thread_main, NULL);
		for (int i = 0; i < n; i++)
			pthread_join(t[i], NULL);
		free(t);
	} else if (!strcmp(mode, "fork-exec") && argc >= 3) {
		pid_t pid = fork();
		if (pid == 0) {
			execv(argv[2], argv + 2);
			perror("execv");
			_exit(127);
		}
		int st;
		waitpid(pid, &st, 0);
		return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
	} else if (!strcmp(mode, "dlopen") && argc == 4) {
		void *h = dlopen(argv[2], RTLD_NOW);
		if (!h) {
			fprintf(stderr, "dlopen: %s\n", dlerror());
			return 1;
		}
		void (*fn)(double) = (void (*)(double))dlsym(h, "dl_spin");
		if (!fn)
			return 1;
		fn(atof(argv[3]));
		dlclose(h);
	} else if (!strcmp(mode, "fixed") && argc == 3) {
		long n = atol(argv[2]);
		double t0 = now();
		for (long i = 0; i < n; i++) {
			hot_three(8);
			hot_one(8);
			do_writes(8);
		}
		struct rusage ru;
		getrusage(RUSAGE_SELF, &ru);
		printf("elapsed %.6f cpu %.6f\n", now() - t0,
		       ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
	} else if (!strcmp(mode, "handler") && argc == 3) {
		struct sigaction sa = { .sa_handler = on_alarm };
		sigaction(SIGALRM, &sa, NULL);
		alarm_again();
		run_hot(atof(argv[2]));
		sa.sa_handler = SIG_IGN;	/* one may be armed still */
		sigaction(SIGALRM, &sa, NULL);
	} else if (!strcmp(mode, "pause")) {
		for (;;)
			pause();
	} else {
		usage();
	}
	return 0;
}
