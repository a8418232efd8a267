/* The pending starts of pprobe trace --latency: a chained hash table of
 * 64-bit pairing keys to the start's time, task and map key bytes. See
 * lat_pending.h. */
#include "lat_pending.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct entry {
	struct entry *next;
	uint64_t k;
	struct lat_start st;	/* st.key: owned (malloc'd) */
};

struct lat_pending {
	struct entry **buckets;
	size_t nr_buckets;	/* a power of 2 */
	size_t nr, max;
	struct lat_start last;		/* the last start taken out (its buffers owned) */
	struct lat_pending_counts counts;
};

static size_t bucket_of(const struct lat_pending *p, uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return (size_t)k & (p->nr_buckets - 1);
}

struct lat_pending *lat_pending__new(size_t max)
{
	struct lat_pending *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->max = max ? max : LAT_PENDING_DEFAULT_MAX;
	p->nr_buckets = 1024;
	p->buckets = calloc(p->nr_buckets, sizeof(*p->buckets));
	if (!p->buckets) {
		free(p);
		return NULL;
	}
	return p;
}

static void start__free(struct lat_start *st)
{
	free((void *)st->key);
	free((void *)st->kstack);
	free((void *)st->ustack);
}

static void entry__free(struct entry *e)
{
	start__free(&e->st);
	free(e);
}

void lat_pending__delete(struct lat_pending *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nr_buckets; i++)
		while (p->buckets[i]) {
			struct entry *e = p->buckets[i];
			p->buckets[i] = e->next;
			entry__free(e);
		}
	free(p->buckets);
	start__free(&p->last);
	free(p);
}

/* Twice the buckets once there are more entries than buckets; on ENOMEM
 * the chains just grow longer. */
static void grow(struct lat_pending *p)
{
	size_t n = p->nr_buckets * 2;
	struct entry **b = calloc(n, sizeof(*b));
	if (!b)
		return;
	struct entry **old = p->buckets;
	size_t old_nr = p->nr_buckets;
	p->buckets = b;
	p->nr_buckets = n;
	for (size_t i = 0; i < old_nr; i++)
		while (old[i]) {
			struct entry *e = old[i];
			old[i] = e->next;
			size_t h = bucket_of(p, e->k);
			e->next = b[h];
			b[h] = e;
		}
	free(old);
}

static int copy_start(struct lat_start *dst, const struct lat_start *src)
{
	unsigned char *key = NULL;
	char *ks = src->kstack ? strdup(src->kstack) : NULL, *us = src->ustack ? strdup(src->ustack) : NULL;
	if (src->key_len && (key = malloc(src->key_len)))
		memcpy(key, src->key, src->key_len);
	if ((src->key_len && !key) || (src->kstack && !ks) || (src->ustack && !us)) {
		free(key);
		free(ks);
		free(us);
		return -ENOMEM;
	}
	*dst = *src;
	dst->key = key;
	dst->kstack = ks;
	dst->ustack = us;
	return 0;
}

int lat_pending__start(struct lat_pending *p, uint64_t k, const struct lat_start *st)
{
	size_t h = bucket_of(p, k);
	for (struct entry *e = p->buckets[h]; e; e = e->next) {
		if (e->k != k)
			continue;
		struct lat_start n;
		if (copy_start(&n, st))
			return -ENOMEM;
		start__free(&e->st);
		e->st = n;
		p->counts.replaced++;
		return 1;
	}
	if (p->nr >= p->max) {
		p->counts.full++;
		return -ENOSPC;
	}
	struct entry *e = calloc(1, sizeof(*e));
	if (!e || copy_start(&e->st, st)) {
		free(e);
		p->counts.full++;
		return -ENOSPC;
	}
	e->k = k;
	e->next = p->buckets[h];
	p->buckets[h] = e;
	if (++p->nr > p->nr_buckets)
		grow(p);
	return 0;
}

int lat_pending__end(struct lat_pending *p, uint64_t k, struct lat_start *st)
{
	for (struct entry **pe = &p->buckets[bucket_of(p, k)]; *pe; pe = &(*pe)->next) {
		struct entry *e = *pe;
		if (e->k != k)
			continue;
		*pe = e->next;
		p->nr--;
		start__free(&p->last);
		p->last = e->st;
		*st = e->st;
		free(e);
		return 1;
	}
	p->counts.unmatched++;
	return 0;
}

size_t lat_pending__nr(const struct lat_pending *p)
{
	return p->nr;
}

void lat_pending__counts(const struct lat_pending *p, struct lat_pending_counts *c)
{
	*c = p->counts;
}
