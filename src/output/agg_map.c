/* The aggregation table: keys -> aggregates in an open-addressing hash
 * table, printed sorted as bpftrace prints maps. See agg_map.h. */
#define _GNU_SOURCE
#include "agg_map.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "util.h"

/* A key's parts, encoded: a tag, then 8 bytes of value ('i', 'u') or a
 * 4-byte length and the bytes ('s'). */
#define PART_INT 'i'
#define PART_UINT 'u'
#define PART_STR 's'

struct agg_entry {
	uint64_t hash;
	struct agg_stats st;		/* every op: count, sum, min, max */
	uint64_t *buckets;		/* hist and lhist */
	size_t klen;
	unsigned char key[];
};

struct agg_map {
	enum agg_op op;
	struct agg_linear lin;
	bool keyed;
	size_t nr_buckets;		/* hist, lhist: per entry */
	size_t max_bytes, bytes;
	struct agg_entry **slots;	/* power of two, linear probing */
	size_t cap, nr;
	uint64_t dropped;
};

const char *agg_op__name(enum agg_op op)
{
	static const char *const names[] = {
		[AGG_COUNT] = "count", [AGG_SUM] = "sum",     [AGG_MIN] = "min",   [AGG_MAX] = "max",
		[AGG_AVG] = "avg",     [AGG_STATS] = "stats", [AGG_HIST] = "hist", [AGG_LHIST] = "lhist",
	};
	return (unsigned)op < sizeof(names) / sizeof(names[0]) ? names[op] : "?";
}

/* ---- keys ---- */

static void key_put(struct agg_key *k, const void *p, size_t n)
{
	if (k->len + n > k->cap) {
		size_t cap = k->cap ? k->cap : 64;
		while (cap < k->len + n)
			cap *= 2;
		k->buf = pp_xrealloc(k->buf, cap);
		k->cap = cap;
	}
	memcpy(k->buf + k->len, p, n);
	k->len += n;
}

void agg_key__reset(struct agg_key *k)
{
	k->len = 0;
	k->nr = 0;
}

static void key_num(struct agg_key *k, unsigned char tag, uint64_t v)
{
	key_put(k, &tag, 1);
	key_put(k, &v, sizeof(v));
	k->nr++;
}

void agg_key__int(struct agg_key *k, int64_t v)
{
	key_num(k, PART_INT, (uint64_t)v);
}

void agg_key__uint(struct agg_key *k, uint64_t v)
{
	key_num(k, PART_UINT, v);
}

void agg_key__str(struct agg_key *k, const char *s, size_t len)
{
	const char *nul = memchr(s, 0, len);
	uint32_t n = (uint32_t)(nul ? (size_t)(nul - s) : len);
	unsigned char tag = PART_STR;
	key_put(k, &tag, 1);
	key_put(k, &n, sizeof(n));
	key_put(k, s, n);
	k->nr++;
}

void agg_key__exit(struct agg_key *k)
{
	free(k->buf);
	*k = (struct agg_key){ 0 };
}

/* One part of an encoded key at *p (moved past it). */
struct part {
	unsigned char tag;
	uint64_t v;
	const char *s;
	uint32_t len;
};

static const unsigned char *part_next(const unsigned char *p, struct part *pt)
{
	pt->tag = *p++;
	if (pt->tag == PART_STR) {
		memcpy(&pt->len, p, sizeof(pt->len));
		pt->s = (const char *)p + sizeof(pt->len);
		return p + sizeof(pt->len) + pt->len;
	}
	memcpy(&pt->v, p, sizeof(pt->v));
	return p + sizeof(pt->v);
}

static int part_cmp(const struct part *a, const struct part *b)
{
	if (a->tag != b->tag)
		return a->tag < b->tag ? -1 : 1;
	if (a->tag == PART_STR) {
		int c = memcmp(a->s, b->s, a->len < b->len ? a->len : b->len);
		return c ? c : a->len < b->len ? -1 : a->len > b->len;
	}
	if (a->tag == PART_INT)
		return (int64_t)a->v < (int64_t)b->v ? -1 : (int64_t)a->v > (int64_t)b->v;
	return a->v < b->v ? -1 : a->v > b->v;
}

static int key_cmp(const struct agg_entry *a, const struct agg_entry *b)
{
	const unsigned char *pa = a->key, *pb = b->key;
	while (pa < a->key + a->klen && pb < b->key + b->klen) {
		struct part x, y;
		pa = part_next(pa, &x);
		pb = part_next(pb, &y);
		int c = part_cmp(&x, &y);
		if (c)
			return c;
	}
	return (pa < a->key + a->klen) - (pb < b->key + b->klen);
}

/* ---- the table ---- */

struct agg_map *agg_map__new(enum agg_op op, const struct agg_linear *lin, bool keyed, size_t max_bytes)
{
	struct agg_map *m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->op = op;
	m->keyed = keyed;
	m->max_bytes = max_bytes ? max_bytes : AGG_MAP_DEFAULT_MAX_BYTES;
	if (op == AGG_HIST) {
		m->nr_buckets = AGG_LOG2_BUCKETS;
	} else if (op == AGG_LHIST) {
		m->lin = *lin;
		m->nr_buckets = agg_linear__nr_buckets(lin);
	}
	return m;
}

static void free_entries(struct agg_map *m)
{
	for (size_t i = 0; i < m->cap; i++) {
		if (!m->slots[i])
			continue;
		free(m->slots[i]->buckets);
		free(m->slots[i]);
	}
}

void agg_map__clear(struct agg_map *m)
{
	free_entries(m);
	free(m->slots);
	m->slots = NULL;
	m->cap = m->nr = m->bytes = 0;
}

void agg_map__delete(struct agg_map *m)
{
	if (!m)
		return;
	agg_map__clear(m);
	free(m);
}

size_t agg_map__nr(const struct agg_map *m)
{
	return m->nr;
}

uint64_t agg_map__dropped(const struct agg_map *m)
{
	return m->dropped;
}

static int grow(struct agg_map *m)
{
	size_t cap = m->cap ? m->cap * 2 : 64;
	size_t more = (cap - m->cap) * sizeof(*m->slots);
	if (m->bytes + more > m->max_bytes)
		return -ENOSPC;
	struct agg_entry **slots = calloc(cap, sizeof(*slots));
	if (!slots)
		return -ENOSPC;
	for (size_t i = 0; i < m->cap; i++) {
		struct agg_entry *e = m->slots[i];
		if (!e)
			continue;
		size_t j = e->hash & (cap - 1);
		while (slots[j])
			j = (j + 1) & (cap - 1);
		slots[j] = e;
	}
	free(m->slots);
	m->slots = slots;
	m->cap = cap;
	m->bytes += more;
	return 0;
}

/* The entry of key k, made if new; NULL when it does not fit. */
static struct agg_entry *lookup(struct agg_map *m, const struct agg_key *k)
{
	uint64_t h = k->len ? hash_bytes(k->buf, k->len, 0x9e3779b97f4a7c15ull) : 0;
	if (m->cap) {
		for (size_t j = h & (m->cap - 1); m->slots[j]; j = (j + 1) & (m->cap - 1)) {
			struct agg_entry *e = m->slots[j];
			if (e->hash == h && e->klen == k->len && (!k->len || !memcmp(e->key, k->buf, k->len)))
				return e;
		}
	}
	/* new: the table at most 3/4 full */
	if ((m->nr + 1) * 4 > m->cap * 3 && grow(m))
		return NULL;
	size_t need = sizeof(struct agg_entry) + k->len + m->nr_buckets * sizeof(uint64_t);
	if (m->bytes + need > m->max_bytes)
		return NULL;
	struct agg_entry *e = calloc(1, sizeof(*e) + k->len);
	uint64_t *b = m->nr_buckets ? calloc(m->nr_buckets, sizeof(*b)) : NULL;
	if (!e || (m->nr_buckets && !b)) {
		free(e);
		free(b);
		return NULL;
	}
	e->hash = h;
	e->klen = k->len;
	if (k->len)	/* an unkeyed map's empty key: buf may be NULL */
		memcpy(e->key, k->buf, k->len);
	e->buckets = b;
	size_t j = h & (m->cap - 1);
	while (m->slots[j])
		j = (j + 1) & (m->cap - 1);
	m->slots[j] = e;
	m->nr++;
	m->bytes += need;
	return e;
}

int agg_map__add(struct agg_map *m, const struct agg_key *k, int64_t v)
{
	struct agg_entry *e = lookup(m, k);
	if (!e) {
		m->dropped++;
		return -ENOSPC;
	}
	agg_stats__add(&e->st, m->op == AGG_COUNT ? 0 : v);
	if (m->op == AGG_HIST)
		e->buckets[agg_log2__bucket(v)]++;
	else if (m->op == AGG_LHIST)
		e->buckets[agg_linear__bucket(&m->lin, v)]++;
	return 0;
}

/* ---- printing ---- */

/* What the entries are sorted by, as bpftrace sorts: the value; the
 * average for avg and stats; the total count for histograms. */
static int64_t sort_value(enum agg_op op, const struct agg_stats *st, bool *is_unsigned)
{
	*is_unsigned = false;
	switch (op) {
	case AGG_SUM: return st->sum;
	case AGG_MIN: return st->min;
	case AGG_MAX: return st->max;
	case AGG_AVG:
	case AGG_STATS: return agg_stats__avg(st);
	case AGG_COUNT:
	case AGG_HIST:
	case AGG_LHIST: break;
	}
	*is_unsigned = true;
	return (int64_t)st->count;
}

static int entry_cmp(const void *pa, const void *pb, void *arg)
{
	const struct agg_entry *a = *(struct agg_entry *const *)pa, *b = *(struct agg_entry *const *)pb;
	enum agg_op op = *(const enum agg_op *)arg;
	bool u;
	int64_t x = sort_value(op, &a->st, &u), y = sort_value(op, &b->st, &u);
	if (x != y) {
		if (u)
			return (uint64_t)x < (uint64_t)y ? -1 : 1;
		return x < y ? -1 : 1;
	}
	return key_cmp(a, b);
}

/* The entries in print order: malloc'd (NULL when empty). */
static struct agg_entry **sorted(const struct agg_map *m)
{
	if (!m->nr)
		return NULL;
	struct agg_entry **v = pp_xmalloc(m->nr * sizeof(*v));
	size_t n = 0;
	for (size_t i = 0; i < m->cap; i++)
		if (m->slots[i])
			v[n++] = m->slots[i];
	enum agg_op op = m->op;
	qsort_r(v, n, sizeof(*v), entry_cmp, &op);
	return v;
}

static void print_key(const struct agg_map *m, const struct agg_entry *e, FILE *out, const char *name)
{
	fputs(name, out);
	if (!m->keyed)
		return;
	fputc('[', out);
	const unsigned char *p = e->key;
	for (int i = 0; p < e->key + e->klen; i++) {
		struct part pt;
		p = part_next(p, &pt);
		if (i)
			fputs(", ", out);
		if (pt.tag == PART_STR)
			fwrite(pt.s, 1, pt.len, out);
		else if (pt.tag == PART_INT)
			fprintf(out, "%" PRId64, (int64_t)pt.v);
		else
			fprintf(out, "%" PRIu64, pt.v);
	}
	fputc(']', out);
}

static const char *log2_label(const void *arg, size_t b, char *buf, size_t len)
{
	(void)arg;
	return agg_log2__label((int)b, buf, len);
}

static const char *lin_label(const void *arg, size_t b, char *buf, size_t len)
{
	return agg_linear__label(arg, b, buf, len);
}

void agg_map__print(const struct agg_map *m, FILE *out, const char *name)
{
	if (!m->nr) {
		if (!m->keyed && (m->op == AGG_COUNT || m->op == AGG_SUM))
			fprintf(out, "%s: 0\n", name);
		return;
	}
	struct agg_entry **v = sorted(m);
	for (size_t i = 0; i < m->nr; i++) {
		const struct agg_entry *e = v[i];
		print_key(m, e, out, name);
		switch (m->op) {
		case AGG_COUNT: fprintf(out, ": %" PRIu64 "\n", e->st.count); break;
		case AGG_SUM: fprintf(out, ": %" PRId64 "\n", e->st.sum); break;
		case AGG_MIN: fprintf(out, ": %" PRId64 "\n", e->st.min); break;
		case AGG_MAX: fprintf(out, ": %" PRId64 "\n", e->st.max); break;
		case AGG_AVG: fprintf(out, ": %" PRId64 "\n", agg_stats__avg(&e->st)); break;
		case AGG_STATS:
			fprintf(out, ": count %" PRIu64 ", average %" PRId64 ", total %" PRId64 "\n", e->st.count,
				agg_stats__avg(&e->st), e->st.sum);
			break;
		case AGG_HIST:
		case AGG_LHIST:
			fputs(": \n", out);
			if (m->op == AGG_HIST)
				agg_hist__print(out, e->buckets, m->nr_buckets, log2_label, NULL);
			else
				agg_hist__print(out, e->buckets, m->nr_buckets, lin_label, &m->lin);
			fputc('\n', out);
			break;
		}
	}
	/* avg and stats maps end in a blank line, as bpftrace's do */
	if (m->op == AGG_AVG || m->op == AGG_STATS)
		fputc('\n', out);
	free(v);
}

static void json_value(const struct agg_map *m, const struct agg_entry *e, FILE *out)
{
	switch (m->op) {
	case AGG_COUNT: json__u64(out, e->st.count); return;
	case AGG_SUM: json__i64(out, e->st.sum); return;
	case AGG_MIN: json__i64(out, e->st.min); return;
	case AGG_MAX: json__i64(out, e->st.max); return;
	case AGG_AVG: json__i64(out, agg_stats__avg(&e->st)); return;
	case AGG_STATS:
		fprintf(out, "{\"count\":%" PRIu64 ",\"average\":%" PRId64 ",\"total\":%" PRId64 "}", e->st.count,
			agg_stats__avg(&e->st), e->st.sum);
		return;
	case AGG_HIST:
	case AGG_LHIST: break;
	}
	fputc('[', out);
	int first = 1;
	for (size_t b = 0; b < m->nr_buckets; b++) {
		if (!e->buckets[b])
			continue;
		int64_t lo = 0, hi = 0;
		bool has_lo, has_hi;
		if (m->op == AGG_HIST)
			agg_log2__bounds((int)b, &lo, &has_lo, &hi, &has_hi);
		else
			agg_linear__bounds(&m->lin, b, &lo, &has_lo, &hi, &has_hi);
		fputs(first ? "{" : ",{", out);
		first = 0;
		if (has_lo)
			fprintf(out, "\"min\":%" PRId64 ",", lo);
		if (has_hi)
			fprintf(out, "\"max\":%" PRId64 ",", hi);
		fprintf(out, "\"count\":%" PRIu64 "}", e->buckets[b]);
	}
	fputc(']', out);
}

void agg_map__print_json(const struct agg_map *m, FILE *out)
{
	struct agg_entry **v = sorted(m);
	fputc('[', out);
	for (size_t i = 0; i < m->nr; i++) {
		const struct agg_entry *e = v[i];
		fputs(i ? ",{\"key\":[" : "{\"key\":[", out);
		const unsigned char *p = e->key;
		for (int k = 0; p < e->key + e->klen; k++) {
			struct part pt;
			p = part_next(p, &pt);
			if (k)
				fputc(',', out);
			if (pt.tag == PART_STR)
				json__string_n(out, pt.s, pt.len);
			else if (pt.tag == PART_INT)
				json__i64(out, (int64_t)pt.v);
			else
				json__u64(out, pt.v);
		}
		fputs("],\"value\":", out);
		json_value(m, e, out);
		fputc('}', out);
	}
	fputc(']', out);
	free(v);
}
