/* Records from all CPU rings, delivered in timestamp order. A record read
 * from one ring may depend on a sideband record of another (a sample in a
 * library whose MMAP2 was written on another CPU), so records are queued and
 * released only once every ring has been read past their time. */
#ifndef PPROBE_ORDERED_H
#define PPROBE_ORDERED_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <errno.h>
#include <stdint.h>

/* Records live in chunks of 2 MiB (a bigger record in one of its own),
 * never moved once pushed: a chunk goes back to the pool (chunk_pool.h)
 * when its last record was delivered. No flush copies what it leaves
 * queued. */
struct ordered_chunk {
	size_t size, used;	/* bytes of data[], of them handed out */
	size_t live;		/* records in it not delivered yet */
	unsigned char data[];
};

struct ordered_ent {
	uint64_t time;
	uint64_t seq;
	struct ordered_chunk *chunk;	/* the record at chunk's off; or, chunk NULL, */
	const struct perf_event_header *held;	/* where its stager keeps it */
	void *hold;			/* (ordered__push_held) */
	uint32_t off;
	int cpu;
};

struct ordered {
	struct ordered_chunk *cur;	/* where pushes go */
	size_t len;		/* bytes of the records queued */
	struct ordered_ent *ents;
	size_t nr, alloc;
	uint64_t seq;
	uint64_t last_flushed;	/* largest time delivered */
	uint64_t out_of_order;	/* records older than what was already delivered */
	void (*release)(void *hold);	/* of records pushed held */
};

typedef int (*ordered_fn)(void *ctx, const struct perf_event_header *hdr, int cpu);

void ordered__init(struct ordered *q);
void ordered__exit(struct ordered *q);
void ordered__push(struct ordered *q, const struct perf_event_header *hdr, uint64_t time, int cpu);
/* The same without a copy: hdr stays valid until q->release(hold), called
 * once the record was delivered or dropped, or the queue goes. */
void ordered__push_held(struct ordered *q, const struct perf_event_header *hdr, uint64_t time, int cpu,
			void *hold);
/* Deliver, in (time, arrival) order, every record with time < limit
 * (UINT64_MAX: all). The callback may push new records; they are kept for
 * the next flush. Returns the first non-zero callback value or 0.
 * ORDERED_DROP from the callback: its record was the last wanted; every
 * record left (delivered next or not) is handed to fn of ordered__drop. */
#define ORDERED_DROP (-ECANCELED)
int ordered__flush(struct ordered *q, uint64_t limit, ordered_fn fn, void *ctx);
/* Every record queued to fn (which may count them), then none queued: the
 * memory is kept for the next pushes. */
void ordered__drop(struct ordered *q, ordered_fn fn, void *ctx);

#endif
