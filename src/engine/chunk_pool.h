/* The 2 MiB chunks that records are staged in (drain.c) and queued in
 * (ordered.c), from one pool: under load the queue pulls the whole backlog
 * the drain thread staged, so memory flows from one to the other, and with
 * a pool each (the queue kept 16 chunks, the drain thread 16-32) every
 * chunk beyond was unmapped on one side and mapped, its pages cleared,
 * on the other: 13% of pprobe's CPU in a system-wide malloc uprobe run
 * that fell behind. Spare chunks are kept while used: once a second, what
 * stayed spare the whole second beyond the floor is unmapped. Thread-safe. */
#ifndef PPROBE_CHUNK_POOL_H
#define PPROBE_CHUNK_POOL_H

#include <stddef.h>

#define POOL_CHUNK_BYTES ((size_t)2 << 20)
/* Spare chunks always kept (32 MiB), unless chunk_pool__release */
#define POOL_MIN_SPARE 16

/* A chunk with its pages there (a spare, else mapped and populated);
 * NULL when the system has no memory for it. */
void *chunk_pool__get(void);
void chunk_pool__put(void *chunk);
/* Keep at least floor spare chunks (at most 64), and have prefill of them
 * mapped now (a burst at the start meets memory already there). */
void chunk_pool__reserve(int floor, int prefill);
/* Unmap every spare chunk (the end of a run); the floor goes back to
 * POOL_MIN_SPARE. */
void chunk_pool__release(void);
/* Spare chunks now (tests). */
int chunk_pool__spare(void);

#endif
