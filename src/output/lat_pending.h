/* The pending starts of pprobe trace --latency (issue 29): a start event
 * waits here, under its pairing key (a thread id, or a field's value: a
 * pid, a request's pointer), for the end event of the same key; the
 * duration is the end's time less the start's. What bpftrace's
 * `@start[tid] = nsecs` ... `delete(@start[tid])` keeps, bounded: at most
 * max entries; a start past that is dropped and counted. A second start
 * of a key before its end replaces the first (as the bpftrace map does). */
#ifndef PPROBE_LAT_PENDING_H
#define PPROBE_LAT_PENDING_H

#include <stddef.h>
#include <stdint.h>

/* What a start leaves for its end: its time and task, the bytes of its
 * map key (an agg_key's buf/len/nr: the --by keys read from the start
 * event), and its stacks, folded (NULL when not asked). */
struct lat_start {
	uint64_t time;
	int32_t pid, tid;
	char comm[16];
	const unsigned char *key;
	size_t key_len;
	unsigned key_nr;
	const char *kstack, *ustack;	/* NUL-terminated */
};

struct lat_pending;

/* A table of at most max starts (0: LAT_PENDING_DEFAULT_MAX). NULL +
 * errno (ENOMEM). */
#define LAT_PENDING_DEFAULT_MAX (1u << 20)
struct lat_pending *lat_pending__new(size_t max);
void lat_pending__delete(struct lat_pending *p);

/* The start st (copied, its key bytes and stacks too) under key k. 0: added; 1: it
 * replaced a start of k not yet ended (counted in replaced); -ENOSPC: the
 * table is full, not added (counted in full). */
int lat_pending__start(struct lat_pending *p, uint64_t k, const struct lat_start *st);

/* The start under k, taken out into *st: 1, or 0 when there is none
 * (counted in unmatched). st's key bytes and stacks stay valid until the
 * next call on p. */
int lat_pending__end(struct lat_pending *p, uint64_t k, struct lat_start *st);

/* Starts waiting for their end. */
size_t lat_pending__nr(const struct lat_pending *p);

struct lat_pending_counts {
	uint64_t replaced;	/* starts replaced by a later start of their key */
	uint64_t full;		/* starts dropped: the table was full */
	uint64_t unmatched;	/* ends without a start */
};
void lat_pending__counts(const struct lat_pending *p, struct lat_pending_counts *c);

#endif
