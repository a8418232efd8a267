/* The perf mmap ring: one metadata page followed by a power-of-two data area.
 * The kernel advances data_head; we read records between data_tail and
 * data_head (acquire), then publish data_tail (release). A record that wraps
 * past the end of the data area is reassembled in a scratch buffer. */
#ifndef PPROBE_RING_H
#define PPROBE_RING_H

#include <errno.h>
#include <linux/perf_event.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

struct ring {
	int fd;
	int cpu;
	void *base;			/* mmap base (metadata page), NULL for a synthetic ring */
	size_t mmap_len;
	struct perf_event_mmap_page *meta;
	unsigned char *data;		/* data area */
	uint64_t mask;			/* data size - 1 */
	unsigned char *scratch;		/* for records that wrap */
	size_t scratch_len;
	uint64_t bytes_read;
	bool sideband;			/* the tracking event's own ring */
};

/* Map pages data pages (a power of two) of fd. Returns 0 or -errno. */
int ring__mmap(struct ring *r, int fd, int cpu, size_t data_pages);
/* A ring over caller memory: meta is the control page, data/size the data
 * area (size a power of two). For tests and for replaying buffers. */
int ring__init_synthetic(struct ring *r, struct perf_event_mmap_page *meta,
			 void *data, size_t size);
void ring__unmap(struct ring *r);

/* Called for each record; the pointer is valid only during the call.
 * A non-zero return stops the read and is returned by ring__read; the record
 * counts as consumed, except with RING_LEAVE: it stays in the ring, first of
 * the next read (the reader had no room for it). */
#define RING_LEAVE (-ENOSPC)
typedef int (*ring_record_fn)(void *ctx, const struct perf_event_header *hdr, int cpu);

/* Consume everything currently in the ring. Returns 0, a callback's non-zero
 * value, or -EBADMSG for a corrupt record (the ring is then reset to head). */
int ring__read(struct ring *r, ring_record_fn fn, void *ctx);

/* Bytes currently unread. */
uint64_t ring__pending(const struct ring *r);

#endif
