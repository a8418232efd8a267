/* Records from all CPU rings, delivered in timestamp order. A record read
 * from one ring may depend on a sideband record of another (a sample in a
 * library whose MMAP2 was written on another CPU), so records are queued and
 * released only once every ring has been read past their time. */
#ifndef PPROBE_ORDERED_H
#define PPROBE_ORDERED_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

struct ordered_ent {
	uint64_t time;
	uint64_t seq;
	size_t off;
	int cpu;
};

struct ordered {
	unsigned char *buf;
	size_t len, cap;
	struct ordered_ent *ents;
	size_t nr, alloc;
	uint64_t seq;
	uint64_t last_flushed;	/* largest time delivered */
	uint64_t out_of_order;	/* records older than what was already delivered */
};

typedef int (*ordered_fn)(void *ctx, const struct perf_event_header *hdr, int cpu);

void ordered__init(struct ordered *q);
void ordered__exit(struct ordered *q);
void ordered__push(struct ordered *q, const struct perf_event_header *hdr, uint64_t time, int cpu);
/* Deliver, in (time, arrival) order, every record with time < limit
 * (UINT64_MAX: all). The callback may push new records; they are kept for
 * the next flush. Returns the first non-zero callback value or 0. */
int ordered__flush(struct ordered *q, uint64_t limit, ordered_fn fn, void *ctx);

#endif
