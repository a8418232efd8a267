#include "ordered.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "chunk_pool.h"
#include "util.h"

/* A huge page per chunk where the system gives them on request (one fault
 * and one clear per 2 MiB, not 512), mapped by us: from malloc a freed
 * chunk went back to the kernel with the heap's top and the next one was
 * faulted in again, page by page (a clang compile under record -g: 7,305
 * of pprobe's 25,000 page faults were its pushes), populated when mapped
 * (faulting a huge page in by the first push was 5% of pprobe's CPU in
 * that compile). Standard chunks come from, and go back to, the pool the
 * drain thread's come from (chunk_pool.h): a steady run maps nothing new,
 * and a backlog pulled from the drain thread's chunks into the queue
 * reuses them. A record bigger than a chunk gets one of its own. */
#define CHUNK_BYTES POOL_CHUNK_BYTES
#define CHUNK_DATA (CHUNK_BYTES - sizeof(struct ordered_chunk))	/* a standard chunk's room */

void ordered__init(struct ordered *q)
{
	memset(q, 0, sizeof(*q));
}

static struct ordered_chunk *chunk_map(size_t size)
{
	size_t bytes = (sizeof(struct ordered_chunk) + size + 4095) & ~(size_t)4095;
	void *m = bytes == CHUNK_BYTES ? chunk_pool__get() : pp_map_anon(bytes, true);
	if (!m)
		pp_oom(bytes);
	struct ordered_chunk *ch = m;
	ch->size = bytes - sizeof(*ch);
	return ch;
}

/* Back to the pool (or unmapped, a chunk of its own): its last record was
 * delivered, or the queue goes. */
static void chunk_unmap(struct ordered_chunk *ch)
{
	if (ch && ch->size == CHUNK_DATA)
		chunk_pool__put(ch);
	else if (ch)
		munmap(ch, sizeof(*ch) + ch->size);
}

void ordered__exit(struct ordered *q)
{
	/* every chunk with live records is reachable from an entry */
	for (size_t i = 0; i < q->nr; i++) {
		struct ordered_chunk *ch = q->ents[i].chunk;
		if (!ch) {
			q->release(q->ents[i].hold);
			continue;
		}
		if (ch && ch != q->cur && !--ch->live)
			chunk_unmap(ch);
	}
	chunk_unmap(q->cur);
	chunk_pool__release();
	free(q->ents);
	memset(q, 0, sizeof(*q));
}

/* A chunk with room for sz bytes: the current one, else a new current one
 * (the old stays while it has live records). */
static struct ordered_chunk *chunk_for(struct ordered *q, size_t sz)
{
	struct ordered_chunk *ch = q->cur;
	if (ch && ch->size - ch->used >= sz)
		return ch;
	if (ch && !ch->live)
		chunk_unmap(ch);
	ch = chunk_map(sz > CHUNK_DATA ? sz : CHUNK_DATA);
	ch->used = 0;
	ch->live = 0;
	q->cur = ch;
	return ch;
}

/* A new entry at the end, for a record of time (seq: its arrival) */
static struct ordered_ent *ent_add(struct ordered *q, uint64_t time, int cpu)
{
	if (q->nr == q->alloc) {
		q->alloc = q->alloc ? q->alloc * 2 : 1024;
		q->ents = pp_xrealloc(q->ents, q->alloc * sizeof(*q->ents));
	}
	if (time < q->last_flushed)
		q->out_of_order++;
	struct ordered_ent *e = &q->ents[q->nr++];
	*e = (struct ordered_ent){ .time = time, .seq = q->seq++, .cpu = cpu };
	return e;
}

void ordered__push(struct ordered *q, const struct perf_event_header *hdr, uint64_t time, int cpu)
{
	size_t sz = (hdr->size + 7u) & ~7u;
	struct ordered_chunk *ch = chunk_for(q, sz);
	memcpy(ch->data + ch->used, hdr, hdr->size);
	struct ordered_ent *e = ent_add(q, time, cpu);
	e->chunk = ch;
	e->off = (uint32_t)ch->used;
	ch->used += sz;
	ch->live++;
	q->len += sz;
}

void ordered__push_held(struct ordered *q, const struct perf_event_header *hdr, uint64_t time, int cpu,
			void *hold)
{
	struct ordered_ent *e = ent_add(q, time, cpu);
	e->held = hdr;
	e->hold = hold;
	q->len += (hdr->size + 7u) & ~7u;
}

static int ent_cmp(const void *a, const void *b)
{
	const struct ordered_ent *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static const struct perf_event_header *ent_hdr(const struct ordered_ent *e)
{
	return e->chunk ? (const struct perf_event_header *)(e->chunk->data + e->off) : e->held;
}

/* Entry e was delivered (or dropped): its bytes are free, and its chunk
 * with them when it was the last. */
static void ent_done(struct ordered *q, const struct ordered_ent *e)
{
	struct ordered_chunk *ch = e->chunk;
	q->len -= (ent_hdr(e)->size + 7u) & ~7u;
	if (!ch)
		q->release(e->hold);
	else if (!--ch->live && ch != q->cur)
		chunk_unmap(ch);
}

int ordered__flush(struct ordered *q, uint64_t limit, ordered_fn fn, void *ctx)
{
	int ret = 0;
	size_t ready, i;

	if (!q->nr)
		return 0;
	qsort(q->ents, q->nr, sizeof(*q->ents), ent_cmp);
	for (ready = 0; ready < q->nr && q->ents[ready].time < limit; ready++)
		;
	/* The callback may push more records (the caller keeps draining the
	 * rings while it works): ents can move, so index, never hold
	 * pointers into it (records themselves never move). New records land
	 * after the ready ones and wait for the next flush. A record's chunk
	 * is released only after the callback returned. */
	for (i = 0; i < ready; i++) {
		struct ordered_ent e = q->ents[i];
		if (e.time > q->last_flushed)
			q->last_flushed = e.time;
		ret = fn(ctx, ent_hdr(&e), e.cpu);
		ent_done(q, &e);
		if (ret) {
			i++;
			break;
		}
	}
	size_t left = q->nr - i;
	memmove(q->ents, q->ents + i, left * sizeof(*q->ents));
	q->nr = left;
	if (!left && q->cur && !q->cur->live) {	/* all delivered: start the chunk again */
		q->cur->used = 0;
		q->len = 0;
	}
	/* after a burst, the entries' array gives its memory back too */
	if (q->alloc > 4096 && q->nr < q->alloc / 8) {
		q->alloc /= 4;
		q->ents = pp_xrealloc(q->ents, q->alloc * sizeof(*q->ents));
	}
	return ret;
}

void ordered__drop(struct ordered *q, ordered_fn fn, void *ctx)
{
	for (size_t i = 0; i < q->nr; i++) {
		struct ordered_ent e = q->ents[i];
		fn(ctx, ent_hdr(&e), e.cpu);
		ent_done(q, &e);
	}
	q->nr = 0;
}
