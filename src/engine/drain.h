/* The drain thread: copies records out of the per-CPU perf rings into a
 * staging queue of mmap'ed chunks as soon as the kernel wakes it, so the
 * rings never wait for the slow work of the main thread (preparing libraries,
 * unwinding, symbolizing). The main thread pulls the staged records in ring
 * order and processes them.
 *
 * Memory is bounded: the staged bytes plus what the consumer says it holds
 * (drain__consumer_bytes) stay under max_bytes. At the bound the thread stops
 * copying: records stay in the ring, and what the ring cannot hold the
 * kernel counts in a PERF_RECORD_LOST, which comes out flagged
 * DRAIN_LOST_QUEUE_FULL so the loss is blamed on the bound, not on -m.
 *
 * Ring reads are serialized by ring_lock: the main thread may also read
 * synchronously (drain__read) when it must have every record up to now. */
#ifndef PPROBE_DRAIN_H
#define PPROBE_DRAIN_H

#include <linux/perf_event.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "ring.h"

/* A PERF_RECORD_LOST of a ring the drain thread had left unread for lack of
 * queue room since that ring's previous LOST. */
#define DRAIN_LOST_QUEUE_FULL 1u

struct drain_chunk;

struct drain {
	struct ring *rings;
	int nr_rings;
	uint64_t max_bytes;
	int poll_ms;			/* read the rings at least this often (atomic: the
					 * consumer may change it while the thread runs) */
	pthread_mutex_t ring_lock;	/* held while reading the rings */
	pthread_mutex_t lock;		/* published chunks */
	pthread_cond_t room;		/* the consumer freed memory */
	bool *stalled;			/* per ring (ring_lock): left unread at the bound */
	struct drain_chunk *fill;	/* being filled (ring_lock) */
	bool published;			/* a chunk was published this pass (ring_lock) */
	struct drain_chunk *head, *tail;	/* published, oldest first (lock) */
	size_t rd;			/* the consumer's offset in head */
	struct drain_chunk *pulling;	/* the chunk drain__pull is handing out */
	int wake_fd;			/* eventfd: records were staged (poll it) */
	int stop_fd;			/* eventfd: the thread must stop */
	pthread_t thread;
	bool running;
	/* Read and written with __atomic builtins. */
	uint64_t staged;		/* bytes in chunks */
	uint64_t consumer;		/* bytes the consumer holds */
	uint64_t peak;			/* largest staged + consumer seen */
	uint64_t pass_ns;		/* start of the last pass over every ring */
	uint64_t bad;			/* corrupt records (the ring was reset) */
	uint64_t bytes;			/* bytes read from the rings */
	/* Set before drain__start, called on the drain thread for each
	 * PERF_RECORD_SAMPLE: the offset in the record of its
	 * PERF_SAMPLE_STACK_USER size, or 0. When the stack copy ends the
	 * record, the bytes past its dyn_size (which the kernel reserved but
	 * did not write) are not staged. */
	size_t (*stack_field)(void *arg, const struct perf_event_header *hdr);
	void *stack_field_arg;
	/* Set before drain__start, called on the drain thread for each
	 * PERF_RECORD_SAMPLE: true leaves it out before it is copied (pprobe's
	 * own samples under -a), counted in dropped. */
	bool (*drop_sample)(void *arg, const struct perf_event_header *hdr);
	void *drop_sample_arg;
	uint64_t dropped;		/* (atomic) */
	/* Set before drain__start: called once on the drain thread when
	 * CLOCK_MONOTONIC reaches deadline_ns (atomic; 0: none yet, it may be
	 * set while the thread runs). The drain thread wakes for it: the
	 * consumer may be busy with one record for longer than -d allows. */
	void (*at_deadline)(void *arg);
	void *at_deadline_arg;
	uint64_t deadline_ns;
	/* Set by a consumer that reads the rings itself at its every wakeup
	 * (drain__tick): the thread then wakes at the rings' watermarks and
	 * at a slower pace of its own, for when the consumer is busy (atomic). */
	bool consumer_ticks;
};

/* Record callback of drain__pull: hdr is valid during the call only,
 * unless the callback holds it (drain__hold). */
typedef void (*drain_fn)(void *ctx, const struct perf_event_header *hdr, int cpu, unsigned flags);

/* Set up over rings (entries without meta are skipped); paced: the records
 * come at a rate, not in bursts (fewer chunks made ready at the start).
 * Returns 0 or -errno. */
int drain__init(struct drain *d, struct ring *rings, int nr_rings, uint64_t max_bytes, int poll_ms, bool paced);
/* Start the thread. Returns 0 or -errno (the caller may then read with
 * drain__read alone). */
int drain__start(struct drain *d);
/* Stop and join the thread (no-op if not running). */
void drain__stop(struct drain *d);
/* Read every ring now, from the calling thread, regardless of the bound (it
 * adds at most what the rings hold). */
void drain__read(struct drain *d);
/* One pass over every ring from the consumer's thread, within the bound,
 * as the drain thread's own (pass_ns moves; the wake eventfd is left
 * alone): a tick of the consumer's that is one wakeup, not the drain
 * thread's and then the consumer's. */
void drain__tick(struct drain *d);
/* Hand every staged record, in ring order, to fn; frees the chunks read.
 * Returns the number of records. */
size_t drain__pull(struct drain *d, drain_fn fn, void *ctx);
/* From a drain_fn: the record being handed out stays valid (its chunk
 * kept) until drain__release of the handle returned. A queue that keeps
 * records holds them where they were staged rather than copying them
 * (a deep stack's sample is tens of KB: the copy was 8% of pprobe's CPU
 * for a clang compile). Thread-safe. */
void *drain__hold(struct drain *d);
void drain__release(void *hold);
/* The consumer holds this many bytes of records now (counted in the bound). */
void drain__consumer_bytes(struct drain *d, uint64_t bytes);
/* When the thread last started a pass over every ring (0: never): records
 * written before that are staged or pulled. */
uint64_t drain__pass_ns(struct drain *d);
uint64_t drain__peak(struct drain *d);
void drain__exit(struct drain *d);

/* "512M", "64K", "2G", "1048576": bytes, or 0 on a bad size. */
uint64_t drain__parse_size(const char *s);
/* The other way: 512M, 1G, 64K, 1000. */
void drain__size_str(uint64_t v, char *buf, size_t len);
/* The default bound: 512 MiB, or a quarter of RAM where that is less. */
uint64_t drain__default_max(void);

#endif
