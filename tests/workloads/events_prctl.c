/* A known number of prctl(2) calls, for exact tracepoint counts.
 * Usage: events_prctl N [PAUSE_MS [THREADS [getpriority]]]
 *   sleeps PAUSE_MS (default 0), then each of THREADS threads (default 1)
 *   makes N prctl(PR_GET_DUMPABLE) calls (or getpriority(2) calls, which
 *   nothing else on a test machine makes: for system-wide counts), then
 *   sleeps PAUSE_MS again. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>

static long n;
static int use_getpriority;

static void *calls(void *arg)
{
	(void)arg;
	for (long i = 0; i < n; i++) {
		if (use_getpriority)
			getpriority(PRIO_PROCESS, 0);
		else
			prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
	}
	return NULL;
}

static void pause_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (ms > 0 && nanosleep(&ts, &ts))
		;
}

int main(int argc, char **argv)
{
	n = argc > 1 ? atol(argv[1]) : 100;
	long ms = argc > 2 ? atol(argv[2]) : 0;
	int threads = argc > 3 ? atoi(argv[3]) : 1;
	use_getpriority = argc > 4 && !strcmp(argv[4], "getpriority");
	pthread_t t[64];
	if (threads < 1 || threads > 64)
		return 2;
	pause_ms(ms);
	for (int i = 1; i < threads; i++)
		pthread_create(&t[i], NULL, calls, NULL);
	calls(NULL);
	for (int i = 1; i < threads; i++)
		pthread_join(t[i], NULL);
	pause_ms(ms);
	return 0;
}
