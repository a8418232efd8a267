/* USDT probes with known providers, names and arguments, each with a
 * semaphore (as dtrace -G generates), for `pprobe list -x`.
 * Usage: events_usdt [N]: fires the probes N times (default 1). */
#define _SDT_HAS_SEMAPHORES 1
#include <stdio.h>
#include <stdlib.h>
#include <sys/sdt.h>

#define SEMA(n) unsigned short pprobe_wl_##n##_semaphore __attribute__((section(".probes"), used))
SEMA(start);
SEMA(tick);
SEMA(guarded);
SEMA(done);

__attribute__((noinline)) static long work(long i)
{
	DTRACE_PROBE2(pprobe_wl, tick, i, i * 2);
	return i * 3;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1, sum = 0;
	DTRACE_PROBE(pprobe_wl, start);
	for (long i = 0; i < n; i++) {
		sum += work(i);
		if (__builtin_expect(pprobe_wl_guarded_semaphore, 0))
			STAP_PROBE1(pprobe_wl, guarded, sum);
	}
	DTRACE_PROBE1(pprobe_wl, done, sum);
	printf("%ld\n", sum);
	return 0;
}
