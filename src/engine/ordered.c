#include "ordered.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

void ordered__init(struct ordered *q)
{
	memset(q, 0, sizeof(*q));
}

void ordered__exit(struct ordered *q)
{
	free(q->buf);
	free(q->ents);
	memset(q, 0, sizeof(*q));
}

void ordered__push(struct ordered *q, const struct perf_event_header *hdr, uint64_t time, int cpu)
{
	size_t sz = (hdr->size + 7u) & ~7u;
	if (q->len + sz > q->cap) {
		q->cap = (q->len + sz) * 2;
		q->buf = pp_xrealloc(q->buf, q->cap);
	}
	memcpy(q->buf + q->len, hdr, hdr->size);
	if (q->nr == q->alloc) {
		q->alloc = q->alloc ? q->alloc * 2 : 1024;
		q->ents = pp_xrealloc(q->ents, q->alloc * sizeof(*q->ents));
	}
	if (time < q->last_flushed)
		q->out_of_order++;
	q->ents[q->nr++] = (struct ordered_ent){ .time = time, .seq = q->seq++, .off = q->len, .cpu = cpu };
	q->len += sz;
}

static int ent_cmp(const void *a, const void *b)
{
	const struct ordered_ent *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
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
	 * rings while it works): ents and buf can move, so index, never hold
	 * pointers. New records land after the ready ones and wait for the
	 * next flush. */
	for (i = 0; i < ready; i++) {
		struct ordered_ent e = q->ents[i];
		if (e.time > q->last_flushed)
			q->last_flushed = e.time;
		ret = fn(ctx, (const struct perf_event_header *)(q->buf + e.off), e.cpu);
		if (ret) {
			i++;
			break;
		}
	}
	if (i == q->nr) {
		q->nr = 0;
		q->len = 0;
		return ret;
	}
	/* Compact what remains, into a buffer sized to it: after a burst the
	 * queue gives its memory back. */
	size_t left = q->nr - i, keep = 0;
	for (size_t k = 0; k < left; k++)
		keep += (((const struct perf_event_header *)(q->buf + q->ents[i + k].off))->size + 7u) & ~7u;
	q->cap = keep * 2 > 65536 ? keep * 2 : 65536;
	unsigned char *nb = pp_xmalloc(q->cap);
	size_t nlen = 0;
	for (size_t k = 0; k < left; k++) {
		struct ordered_ent e = q->ents[i + k];
		const struct perf_event_header *h = (const void *)(q->buf + e.off);
		size_t sz = (h->size + 7u) & ~7u;
		memcpy(nb + nlen, h, h->size);
		e.off = nlen;
		nlen += sz;
		q->ents[k] = e;
	}
	free(q->buf);
	q->buf = nb;
	q->len = nlen;
	q->nr = left;
	return ret;
}
