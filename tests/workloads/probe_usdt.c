/* USDT probes for the sdt: tests (tests/e2e/probe_pmu_sdt.sh).
 * Usage: probe_usdt [N] (default 10):
 *   pprobe_pmu:multi   one probe at two sites: N hits at one, 2N at the other
 *                      (3N), with a semaphore both sites share
 *   pprobe_pmu:gated   behind a semaphore (as dtrace -G makes them): the
 *                      program counts the iterations that found it set and
 *                      prints "gated=K" -- K = N only while a tool probes it
 */
#define _SDT_HAS_SEMAPHORES 1
#include <stdio.h>
#include <stdlib.h>
#include <sys/sdt.h>

unsigned short pprobe_pmu_gated_semaphore __attribute__((section(".probes"), used));
unsigned short pprobe_pmu_multi_semaphore __attribute__((section(".probes"), used));

__attribute__((noinline)) static long one(long i)
{
	STAP_PROBE1(pprobe_pmu, multi, i);
	return i + 1;
}

__attribute__((noinline)) static long two(long i)
{
	STAP_PROBE1(pprobe_pmu, multi, -i);
	return i - 1;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10, s = 0, gated = 0;
	for (long i = 0; i < n; i++) {
		s += one(i);
		if (pprobe_pmu_gated_semaphore) {
			gated++;
			STAP_PROBE1(pprobe_pmu, gated, i);
		}
	}
	for (long i = 0; i < 2 * n; i++)
		s += two(i);
	printf("gated=%ld sum=%ld\n", gated, s);
	return 0;
}
