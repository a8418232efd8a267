#include "chunk_pool.h"

#include <pthread.h>
#include <stdint.h>
#include <sys/mman.h>

#include "util.h"

#define TRIM_NS 1000000000ull	/* what stayed spare this long is unmapped */
#define MAX_FLOOR 64

struct spare {
	struct spare *next;
};

static pthread_mutex_t lock;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct spare *spares;
static int nr_spare, low, floor_ = POOL_MIN_SPARE;
static uint64_t trim_at;

/* Priority inheritance, as drain.c's locks: the drain thread may run
 * SCHED_FIFO. */
static void init_lock(void)
{
	pthread_mutexattr_t ma;
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT);
	pthread_mutex_init(&lock, &ma);
	pthread_mutexattr_destroy(&ma);
}

/* With the lock: the spares that stayed unused since the last trim, beyond
 * the floor, off the list (returned, to be unmapped without the lock). */
static struct spare *trim_locked(uint64_t now)
{
	struct spare *out = NULL;
	if (now < trim_at)
		return NULL;
	for (int excess = low - floor_; excess > 0 && spares; excess--) {
		struct spare *s = spares;
		spares = s->next;
		s->next = out;
		out = s;
		nr_spare--;
	}
	low = nr_spare;
	trim_at = now + TRIM_NS;
	return out;
}

static void unmap_list(struct spare *s)
{
	while (s) {
		struct spare *next = s->next;
		munmap(s, POOL_CHUNK_BYTES);
		s = next;
	}
}

void *chunk_pool__get(void)
{
	pthread_once(&once, init_lock);
	pthread_mutex_lock(&lock);
	struct spare *s = spares;
	if (s) {
		spares = s->next;
		if (--nr_spare < low)
			low = nr_spare;
	} else {
		low = 0;
	}
	struct spare *gone = trim_locked(now_ns());
	pthread_mutex_unlock(&lock);
	unmap_list(gone);
	return s ? (void *)s : pp_map_anon(POOL_CHUNK_BYTES, true);
}

void chunk_pool__put(void *chunk)
{
	if (!chunk)
		return;
	pthread_once(&once, init_lock);
	struct spare *s = chunk;
	pthread_mutex_lock(&lock);
	s->next = spares;
	spares = s;
	nr_spare++;
	struct spare *gone = trim_locked(now_ns());
	pthread_mutex_unlock(&lock);
	unmap_list(gone);
}

void chunk_pool__reserve(int floor, int prefill)
{
	pthread_once(&once, init_lock);
	pthread_mutex_lock(&lock);
	if (floor > MAX_FLOOR)
		floor = MAX_FLOOR;
	if (floor > floor_)
		floor_ = floor;
	int have = nr_spare;
	pthread_mutex_unlock(&lock);
	for (int i = have; i < prefill && i < floor_; i++) {
		void *m = pp_map_anon(POOL_CHUNK_BYTES, true);
		if (!m)
			break;
		chunk_pool__put(m);
	}
}

void chunk_pool__release(void)
{
	pthread_once(&once, init_lock);
	pthread_mutex_lock(&lock);
	struct spare *gone = spares;
	spares = NULL;
	nr_spare = low = 0;
	floor_ = POOL_MIN_SPARE;
	pthread_mutex_unlock(&lock);
	unmap_list(gone);
}

int chunk_pool__spare(void)
{
	pthread_once(&once, init_lock);
	pthread_mutex_lock(&lock);
	int n = nr_spare;
	pthread_mutex_unlock(&lock);
	return n;
}
