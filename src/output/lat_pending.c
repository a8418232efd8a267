/* The pending starts of pprobe trace --latency: the project's u64map of
 * 64-bit pairing keys to the start's time, task and map key bytes. See
 * lat_pending.h. */
#include "lat_pending.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

struct lat_pending {
	struct u64map map;		/* key -> struct lat_start * (malloc'd, its buffers owned) */
	size_t max;
	struct lat_start last;		/* the last start taken out (its buffers owned) */
	struct lat_pending_counts counts;
};

struct lat_pending *lat_pending__new(size_t max)
{
	struct lat_pending *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	u64map__init(&p->map);
	p->max = max ? max : LAT_PENDING_DEFAULT_MAX;
	return p;
}

static void start__free(struct lat_start *st)
{
	free((void *)st->key);
	free((void *)st->kstack);
	free((void *)st->ustack);
}

void lat_pending__delete(struct lat_pending *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->map.cap; i++)
		if (p->map.used[i]) {
			start__free(p->map.vals[i]);
			free(p->map.vals[i]);
		}
	u64map__free(&p->map);
	start__free(&p->last);
	free(p);
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
	struct lat_start *e = u64map__get(&p->map, k);
	if (e) {
		struct lat_start n;
		if (copy_start(&n, st))
			return -ENOMEM;
		start__free(e);
		*e = n;
		p->counts.replaced++;
		return 1;
	}
	if (p->map.nr >= p->max) {
		p->counts.full++;
		return -ENOSPC;
	}
	e = malloc(sizeof(*e));
	if (!e || copy_start(e, st)) {
		free(e);
		p->counts.full++;
		return -ENOSPC;
	}
	u64map__put(&p->map, k, e);
	return 0;
}

int lat_pending__end(struct lat_pending *p, uint64_t k, struct lat_start *st)
{
	struct lat_start *e = u64map__del(&p->map, k);
	if (!e) {
		p->counts.unmatched++;
		return 0;
	}
	start__free(&p->last);
	p->last = *e;
	*st = *e;
	free(e);
	return 1;
}

size_t lat_pending__nr(const struct lat_pending *p)
{
	return p->map.nr;
}

void lat_pending__counts(const struct lat_pending *p, struct lat_pending_counts *c)
{
	*c = p->counts;
}
