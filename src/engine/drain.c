#define _GNU_SOURCE
#include "drain.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <sched.h>
#include <sys/resource.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "chunk_pool.h"
#include "util.h"

/* 2 MiB (a huge page) holds 480 samples with a 4 KB DWARF stack copy, and
 * any record (64 KiB at most); from the pool the queue's chunks come from
 * too (chunk_pool.h), which keeps spares so a steady stream does not map
 * and unmap a chunk per pass (see drain__init). */
#define CHUNK_BYTES POOL_CHUNK_BYTES
/* The thread's pace at least, where the consumer passes at its own ticks */
#define CONSUMER_TICKS_MS 20
/* Chunks populated at the start where the records come at a pace */
#define PACED_PREFILL 2

/* A chunk is filled across passes: each pass publishes what it added (pub)
 * and the consumer reads up to pub while the drain thread goes on writing
 * past it; only a full chunk is sealed and left for another. A pass used
 * to take a whole chunk for what it read (often one sample): with the
 * consumer behind, chunks piled up faster than spares came back, and each
 * fresh one cleared 2 MiB (a clang compile under record -g: 34 fresh huge
 * pages, 5% of pprobe's CPU). */
struct drain_chunk {
	struct drain_chunk *next;	/* (d->lock) */
	size_t used, cap;		/* written (the drain's side) */
	uint64_t pub;			/* published: readable up to here (atomic) */
	uint32_t sealed;		/* no more is written (atomic, after pub) */
	bool linked;			/* on the published list (ring_lock) */
	/* the drain's own (until retired or freed) and one per record held
	 * (drain__hold): back to the pool at 0 (atomic) */
	uint32_t refs;
	_Alignas(8) unsigned char data[];	/* records, 8-byte aligned */
};

/* Before each record in a chunk; the record follows, padded to 8 bytes. */
struct drain_ent {
	int32_t cpu;
	uint32_t flags;
};

static uint64_t ld(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static void add(uint64_t *p, uint64_t v)
{
	__atomic_fetch_add(p, v, __ATOMIC_ACQ_REL);
}

static void note_peak(struct drain *d, uint64_t total)
{
	uint64_t peak = ld(&d->peak);
	while (total > peak &&
	       !__atomic_compare_exchange_n(&d->peak, &peak, total, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		;
}

int drain__init(struct drain *d, struct ring *rings, int nr_rings, uint64_t max_bytes, int poll_ms, bool paced)
{
	memset(d, 0, sizeof(*d));
	d->wake_fd = d->stop_fd = -1;
	d->rings = rings;
	d->nr_rings = nr_rings;
	d->max_bytes = max_bytes;
	d->poll_ms = poll_ms;
	d->stalled = pp_xcalloc((size_t)(nr_rings > 0 ? nr_rings : 1), sizeof(*d->stalled));
	/* Priority inheritance: the drain thread runs SCHED_FIFO where allowed;
	 * the main thread holding a lock it waits for must not be preempted by
	 * everything else meanwhile. */
	pthread_mutexattr_t ma;
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT);
	pthread_mutex_init(&d->ring_lock, &ma);
	pthread_mutex_init(&d->lock, &ma);
	pthread_mutexattr_destroy(&ma);
	pthread_cond_init(&d->room, NULL);
	d->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	d->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (d->wake_fd < 0 || d->stop_fd < 0)
		return -errno;
	/* Chunks with their pages already there, as many as one ring holds
	 * (at most 64 MiB, half the bound): the start of a run is when a burst
	 * meets fresh memory, and the drain thread, clearing a page for every
	 * 4 KiB it copied, fell behind the kernel (10,000 DWARF samples, 43 MB
	 * in 8 ms: an 8 MiB ring kept 19-100% with fresh chunks). Reused
	 * chunks stay in the pool for the next burst. Events that come at a
	 * rate get two (below); a chunk made later is populated when made. */
	uint64_t want = 0;
	for (int i = 0; i < nr_rings; i++)
		if (rings[i].meta && rings[i].mask + 1 > want)
			want = rings[i].mask + 1;
	if (want > max_bytes / 2)
		want = max_bytes / 2;
	int keep = (int)((want + CHUNK_BYTES - 1) / CHUNK_BYTES);
	if (keep > 32)
		keep = 32;
	/* Rate-sampled events (large stack copies at F Hz) come at a pace:
	 * their chunks are populated as they are first taken. A 99 Hz -a run
	 * used 3 MiB of the 34 it populated, and populating took 3-140 ms
	 * depending on the memory the system had free. */
	chunk_pool__reserve(keep, paced ? (keep < PACED_PREFILL ? keep : PACED_PREFILL) : keep);
	return 0;
}

/* A chunk to fill, from the pool (NULL: out of memory). mmap'd there, not
 * malloc'd: the drain thread never waits on an allocator lock the main
 * thread (which frees chunks) holds. */
static struct drain_chunk *chunk_get(void)
{
	struct drain_chunk *ch = chunk_pool__get();
	if (!ch)
		return NULL;
	ch->cap = CHUNK_BYTES - sizeof(*ch);
	ch->next = NULL;
	ch->used = 0;
	ch->pub = 0;
	ch->sealed = 0;
	ch->linked = false;
	ch->refs = 1;
	return ch;
}

static void chunk_unref(struct drain_chunk *ch)
{
	if (__atomic_sub_fetch(&ch->refs, 1, __ATOMIC_ACQ_REL) == 0)
		chunk_pool__put(ch);
}

void *drain__hold(struct drain *d)
{
	struct drain_chunk *ch = d->pulling;
	if (ch)
		__atomic_add_fetch(&ch->refs, 1, __ATOMIC_ACQ_REL);
	return ch;
}

void drain__release(void *hold)
{
	if (hold)
		chunk_unref(hold);
}

/* What the chunk being filled got since its last publish goes to the
 * consumer (the chunk joins the list at its first). ring_lock held. */
static void publish(struct drain *d)
{
	struct drain_chunk *ch = d->fill;
	if (!ch || ch->used == __atomic_load_n(&ch->pub, __ATOMIC_RELAXED))
		return;
	if (!ch->linked) {
		ch->linked = true;
		pthread_mutex_lock(&d->lock);
		if (d->tail)
			d->tail->next = ch;
		else
			d->head = ch;
		d->tail = ch;
		pthread_mutex_unlock(&d->lock);
	}
	__atomic_store_n(&ch->pub, ch->used, __ATOMIC_RELEASE);
	d->published = true;
}

/* The chunk being filled is full: published whole and sealed, so the
 * consumer retires it once read; an empty one is kept. ring_lock held. */
static void seal(struct drain *d)
{
	struct drain_chunk *ch = d->fill;
	if (!ch || !ch->used)
		return;
	publish(d);
	__atomic_store_n(&ch->sealed, 1, __ATOMIC_RELEASE);
	d->fill = NULL;
}

struct copy_ctx {
	struct drain *d;
	int ring;
	bool bounded;
	bool left;		/* records were left in the ring at the bound */
};

/* The size of h once the unwritten part of its stack copy is cut (*off:
 * where the stack size field is, 0 if nothing is cut). A sample of a
 * rate-sampled event reserves 64 KB of stack and fills what the thread's
 * stack holds above sp, often a tenth of it. */
static size_t trimmed_size(const struct drain *d, const struct perf_event_header *h, size_t *off,
			   uint64_t *keep)
{
	*off = 0;
	if (h->type != PERF_RECORD_SAMPLE || !d->stack_field)
		return h->size;
	size_t o = d->stack_field(d->stack_field_arg, h);
	uint64_t size, dyn;
	if (!o || o + 16 > h->size)
		return h->size;
	memcpy(&size, (const char *)h + o, 8);
	if (size > h->size || o + 8 + size + 8 != h->size)
		return h->size;	/* not the record's last field */
	memcpy(&dyn, (const char *)h + o + 8 + size, 8);
	uint64_t k = (dyn + 7) & ~7ULL;
	if (k >= size)
		return h->size;
	*off = o;
	*keep = k;
	return o + 8 + k + 8;
}

static int copy_record(void *ctx, const struct perf_event_header *h, int cpu)
{
	struct copy_ctx *x = ctx;
	struct drain *d = x->d;
	if (h->type == PERF_RECORD_SAMPLE && d->drop_sample && d->drop_sample(d->drop_sample_arg, h)) {
		add(&d->dropped, 1);
		return 0;
	}
	size_t off;
	uint64_t keep = 0;
	size_t rsz = trimmed_size(d, h, &off, &keep);
	size_t sz = sizeof(struct drain_ent) + ((rsz + 7u) & ~7u);
	uint64_t total = ld(&d->staged) + ld(&d->consumer) + sz;
	if (x->bounded && !d->rings[x->ring].sideband && total > d->max_bytes) {
		d->stalled[x->ring] = true;
		x->left = true;
		return RING_LEAVE;
	}
	if (!d->fill || d->fill->used + sz > d->fill->cap) {
		seal(d);
		if (!d->fill && !(d->fill = chunk_get())) {
			/* No memory: as at the bound, the kernel counts the loss. */
			d->stalled[x->ring] = true;
			x->left = true;
			return RING_LEAVE;
		}
	}
	struct drain_ent e = { cpu, 0 };
	if (h->type == PERF_RECORD_LOST && d->stalled[x->ring]) {
		e.flags |= DRAIN_LOST_QUEUE_FULL;
		d->stalled[x->ring] = false;
	}
	unsigned char *p = d->fill->data + d->fill->used;
	memcpy(p, &e, sizeof(e));
	if (off) {
		/* header and fields up to the stack size, the size (now keep),
		 * the written bytes, dyn_size */
		unsigned char *r = p + sizeof(e);
		const unsigned char *src = (const unsigned char *)h;
		uint64_t size;
		memcpy(&size, src + off, 8);
		memcpy(r, src, off);
		memcpy(r + off, &keep, 8);
		memcpy(r + off + 8, src + off + 8, keep);
		memcpy(r + off + 8 + keep, src + off + 8 + size, 8);
		((struct perf_event_header *)r)->size = (uint16_t)rsz;
	} else {
		memcpy(p + sizeof(e), h, h->size);
	}
	d->fill->used += sz;
	add(&d->staged, sz);
	add(&d->bytes, h->size);
	note_peak(d, total);
	return 0;
}

/* One pass over every ring; wake: tell the consumer (not when it is the
 * one passing). Returns whether records were left at the bound. */
static bool pass(struct drain *d, bool bounded, bool wake_consumer)
{
	bool left = false;
	pthread_mutex_lock(&d->ring_lock);
	d->published = false;
	/* the sideband's rings (last) first: never left unread for samples */
	for (int i = d->nr_rings - 1; i >= 0; i--) {
		if (!d->rings[i].meta)
			continue;
		struct copy_ctx x = { d, i, bounded, false };
		if (ring__read(&d->rings[i], copy_record, &x) == -EBADMSG)
			add(&d->bad, 1);
		left |= x.left;
	}
	publish(d);
	bool wake = d->published && wake_consumer;
	pthread_mutex_unlock(&d->ring_lock);
	if (wake) {
		uint64_t one = 1;
		if (write(d->wake_fd, &one, sizeof(one)) < 0) {
			/* the counter is saturated: the consumer has a wakeup pending anyway */
		}
	}
	return left;
}

static void *drain_main(void *arg)
{
	struct drain *d = arg;
	/* The thread sleeps most of the time and does bounded work when it
	 * wakes (at most the rings' contents), but in a burst it must get a CPU
	 * within the few ms a ring takes to fill. Sharing a CPU with the main
	 * thread's unwinding and the workload it waited 50-750 ms per 30,000
	 * samples at default priority (losing up to 70% of them), under 10 ms
	 * as SCHED_FIFO 1. Where that is refused (no CAP_SYS_NICE), try a
	 * better nice, then go on as is. */
	struct sched_param sp = { .sched_priority = 1 };
	if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp))
		(void)setpriority(PRIO_PROCESS, (id_t)gettid(), -10);
	struct pollfd *pfd = pp_xcalloc((size_t)d->nr_rings + 1, sizeof(*pfd));
	int np = 0;
	pfd[np++] = (struct pollfd){ .fd = d->stop_fd, .events = POLLIN };
	for (int i = 0; i < d->nr_rings; i++)
		if (d->rings[i].meta)
			pfd[np++] = (struct pollfd){ .fd = d->rings[i].fd, .events = POLLIN };
	bool deadline_past = false;
	for (;;) {
		int timeout = __atomic_load_n(&d->poll_ms, __ATOMIC_RELAXED);
		/* The consumer passes at its own ticks: this thread is for when
		 * it is busy (the watermarks wake it in a burst). Both threads
		 * waking at every tick was two context switches a tick: at the
		 * 2 ms pace of a clang compile ~15% of pprobe's CPU. */
		if (__atomic_load_n(&d->consumer_ticks, __ATOMIC_RELAXED))
			timeout = timeout * 5 < CONSUMER_TICKS_MS ? CONSUMER_TICKS_MS : timeout * 5;
		uint64_t deadline = deadline_past || !d->at_deadline ? 0
					: __atomic_load_n(&d->deadline_ns, __ATOMIC_ACQUIRE);
		if (deadline) {
			uint64_t now = now_ns();
			if (now >= deadline) {
				deadline_past = true;
				d->at_deadline(d->at_deadline_arg);
			} else if ((deadline - now) / 1000000 < (uint64_t)timeout) {
				timeout = (int)((deadline - now) / 1000000) + 1;
			}
		}
		poll(pfd, (nfds_t)np, timeout);
		if (pfd[0].revents)
			break;
		/* An event whose task is gone reports POLLHUP for ever: read
		 * its ring on the timeout only, never spin on it. */
		for (int i = 1; i < np; i++)
			if (pfd[i].revents & (POLLHUP | POLLERR | POLLNVAL))
				pfd[i].fd = -1;
		uint64_t t0 = now_ns();
		bool left = pass(d, true, true);
		__atomic_store_n(&d->pass_ns, t0, __ATOMIC_RELEASE);
		if (left) {
			/* Wait for the consumer to free memory rather than spin
			 * on a ring that polls readable. */
			struct timespec ts;
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_nsec += (long)__atomic_load_n(&d->poll_ms, __ATOMIC_RELAXED) * 1000000L;
			if (ts.tv_nsec >= 1000000000L) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000L;
			}
			pthread_mutex_lock(&d->lock);
			if (ld(&d->staged) + ld(&d->consumer) >= d->max_bytes / 2)
				pthread_cond_timedwait(&d->room, &d->lock, &ts);
			pthread_mutex_unlock(&d->lock);
		}
	}
	free(pfd);
	return NULL;
}

int drain__start(struct drain *d)
{
	int err = pthread_create(&d->thread, NULL, drain_main, d);
	if (err)
		return -err;
	d->running = true;
	return 0;
}

void drain__stop(struct drain *d)
{
	if (!d->running)
		return;
	uint64_t one = 1;
	if (write(d->stop_fd, &one, sizeof(one)) < 0) {
		/* cannot fail on a fresh eventfd */
	}
	pthread_join(d->thread, NULL);
	d->running = false;
}

void drain__read(struct drain *d)
{
	pass(d, false, true);
}

void drain__tick(struct drain *d)
{
	uint64_t t0 = now_ns();
	pass(d, true, false);
	__atomic_store_n(&d->pass_ns, t0, __ATOMIC_RELEASE);
}

/* A read, sealed chunk (the list's head) leaves the list, back to the pool. */
static void retire(struct drain *d, struct drain_chunk *ch)
{
	pthread_mutex_lock(&d->lock);
	d->head = ch->next;
	if (!d->head)
		d->tail = NULL;
	pthread_mutex_unlock(&d->lock);
	chunk_unref(ch);
}

size_t drain__pull(struct drain *d, drain_fn fn, void *ctx)
{
	uint64_t v;
	if (read(d->wake_fd, &v, sizeof(v)) < 0) {
		/* nothing signalled: there may still be records from drain__read */
	}
	pthread_mutex_lock(&d->lock);
	struct drain_chunk *ch = d->head;
	pthread_mutex_unlock(&d->lock);
	size_t n = 0;
	while (ch) {
		d->pulling = ch;
		/* sealed first: once sealed, pub is final */
		bool sealed = __atomic_load_n(&ch->sealed, __ATOMIC_ACQUIRE);
		size_t pub = __atomic_load_n(&ch->pub, __ATOMIC_ACQUIRE);
		size_t off = d->rd;
		while (off < pub) {
			struct drain_ent e;
			memcpy(&e, ch->data + off, sizeof(e));
			const struct perf_event_header *h = (const void *)(ch->data + off + sizeof(e));
			fn(ctx, h, e.cpu, e.flags);
			off += sizeof(e) + ((h->size + 7u) & ~7u);
			n++;
		}
		/* The consumer holds these records now: count them there before
		 * they leave the staged bytes, or the drain thread sees room that
		 * is not there until the consumer says what it holds
		 * (drain__consumer_bytes, after the pull). */
		__atomic_fetch_add(&d->consumer, off - d->rd, __ATOMIC_ACQ_REL);
		__atomic_fetch_sub(&d->staged, off - d->rd, __ATOMIC_ACQ_REL);
		d->rd = off;
		d->pulling = NULL;
		if (!sealed)
			break;	/* the one being filled: the next pull goes on here */
		pthread_mutex_lock(&d->lock);
		struct drain_chunk *next = ch->next;
		pthread_mutex_unlock(&d->lock);
		retire(d, ch);
		d->rd = 0;
		ch = next;
	}
	return n;
}

void drain__consumer_bytes(struct drain *d, uint64_t bytes)
{
	uint64_t old = __atomic_exchange_n(&d->consumer, bytes, __ATOMIC_ACQ_REL);
	note_peak(d, ld(&d->staged) + bytes);
	if (bytes < old) {
		pthread_mutex_lock(&d->lock);
		pthread_cond_signal(&d->room);
		pthread_mutex_unlock(&d->lock);
	}
}

uint64_t drain__pass_ns(struct drain *d)
{
	return ld(&d->pass_ns);
}

uint64_t drain__peak(struct drain *d)
{
	return ld(&d->peak);
}

static void free_chunks(struct drain_chunk *ch)
{
	while (ch) {
		struct drain_chunk *next = ch->next;
		chunk_unref(ch);
		ch = next;
	}
}

void drain__exit(struct drain *d)
{
	drain__stop(d);
	if (!d->stalled)
		return;		/* never initialized */
	if (d->fill && !d->fill->linked)
		free_chunks(d->fill);	/* else it is on the list */
	free_chunks(d->head);
	chunk_pool__release();	/* the queue's chunks go when it goes */
	free(d->stalled);
	d->head = d->tail = d->fill = NULL;
	d->stalled = NULL;
	pthread_cond_destroy(&d->room);
	pthread_mutex_destroy(&d->lock);
	pthread_mutex_destroy(&d->ring_lock);
	if (d->wake_fd >= 0)
		close(d->wake_fd);
	if (d->stop_fd >= 0)
		close(d->stop_fd);
	d->wake_fd = d->stop_fd = -1;
}

void drain__size_str(uint64_t v, char *buf, size_t len)
{
	static const char units[] = "KMG";
	int u = -1;
	while (u < 2 && v && !(v & 1023)) {
		v >>= 10;
		u++;
	}
	snprintf(buf, len, "%llu%s", (unsigned long long)v, u >= 0 ? (char[]){ units[u], 0 } : "");
}

uint64_t drain__parse_size(const char *s)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (end == s || errno || *s == '-')
		return 0;
	unsigned shift = 0;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	default: break;
	}
	if (*end == 'i' && shift)
		end++;
	if ((*end == 'b' || *end == 'B') && shift)
		end++;
	if (*end || (shift && v > (UINT64_MAX >> shift)))
		return 0;
	return (uint64_t)v << shift;
}

uint64_t drain__default_max(void)
{
	uint64_t max = 512ULL << 20;
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
	if (pages > 0 && psz > 0 && (uint64_t)pages * (uint64_t)psz / 4 < max)
		max = (uint64_t)pages * (uint64_t)psz / 4;
	return max;
}
