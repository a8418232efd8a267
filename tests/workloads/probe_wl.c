/* Functions called an exact number of times, for the uprobe tests
 * (tests/e2e/probe_pmu*.sh). Usage: probe_wl [N [SECS]] (default 10; with
 * SECS, sleep that long before the calls and again before exiting, for
 * tests that attach to the process or look at it):
 *   probe_target   N calls (through outer -> middle), its "odd" line N/2 times
 *   probe_inl      inlined into site_a (N calls) and site_b (2N calls): 3N
 *   getppid        N calls (libc; not called by the C runtime's start-up)
 *   probe_untaken  never called
 *   probe_clone    2N calls with a constant (gcc -O2 -fipa-cp-clone: to a
 *                  .constprop clone) and N with a variable (to the original)
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

volatile long sink;

__attribute__((noinline)) void note_odd(long i)
{
	sink += i;
}

__attribute__((noinline)) long probe_target(long i)
{
	long r = i * 3;
	if (i & 1)
		note_odd(i);	/* PROBE_LINE_ODD: N/2 times */
	return r + 1;
}

static inline __attribute__((always_inline)) long probe_inl(long x)
{
	sink += x;
	return x * 2;
}

__attribute__((noinline)) long site_a(long i)
{
	return probe_inl(i) + 1;
}

__attribute__((noinline)) long site_b(long i)
{
	return probe_inl(i + 1) - sink;
}

__attribute__((noinline)) long probe_untaken(long i)
{
	return i + sink;
}

/* With gcc's -fipa-cp-clone (probe.cmake), the calls with the constant 7
 * go to probe_clone.constprop.0 and the other to probe_clone. */
__attribute__((noinline)) static long probe_clone(long x, long k)
{
	long r = 0;
	for (long j = 0; j < k; j++)
		r += (x ^ j) * (j + 1);
	return r + sink;
}

__attribute__((noinline)) long clone_a(long i)
{
	return probe_clone(i, 7);
}

__attribute__((noinline)) long clone_b(long i)
{
	return probe_clone(i, 7) + sink;
}

__attribute__((noinline)) long clone_c(long i, long k)
{
	return probe_clone(i, k) + sink;
}

/* Not tail calls, so the caller chain stays on the stack at -O2. */
__attribute__((noinline)) long middle(long i)
{
	return probe_target(i) + sink;
}

__attribute__((noinline)) long outer(long i)
{
	return middle(i) + sink;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10, s = 0;
	if (argc > 2)
		sleep((unsigned)atoi(argv[2]));
	for (long i = 0; i < n; i++)
		s += outer(i);
	for (long i = 0; i < n; i++)
		s += site_a(i);
	for (long i = 0; i < 2 * n; i++)
		s += site_b(i);
	for (long i = 0; i < n; i++)
		s += getppid() > 0;
	for (long i = 0; i < n; i++)
		s += clone_a(i) + clone_b(i) + clone_c(i, argc + sink);
	if (n < 0)
		s += probe_untaken(n);
	printf("%ld\n", s);
	fflush(stdout);
	if (argc > 2)
		sleep((unsigned)atoi(argv[2]));
	return 0;
}
