/* Sorted address ranges -> names with O(log n) lookup. Used for ELF symbol
 * tables, /proc/kallsyms and JIT perf maps. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sym_internal.h"

struct strchunk {
	struct strchunk *next;
	size_t used, cap;
	char data[];
};

const char *strpool__add(struct strpool *p, const char *s, size_t len)
{
	struct strchunk *c = p->head;
	char *d;

	if (!c || c->cap - c->used < len + 1) {
		size_t cap = len + 1 > 60000 ? len + 1 : 60000;

		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->used = 0;
		c->cap = cap;
		c->next = p->head;
		p->head = c;
	}
	d = c->data + c->used;
	memcpy(d, s, len);
	d[len] = 0;
	c->used += len + 1;
	return d;
}

void strpool__free(struct strpool *p)
{
	struct strchunk *c = p->head;

	while (c) {
		struct strchunk *n = c->next;

		free(c);
		c = n;
	}
	p->head = NULL;
}

int symtab__reserve(struct symtab *t, size_t more)
{
	if (more > (SIZE_MAX / sizeof(*t->v)) / 2 || t->n + more <= t->cap)
		return 0;	/* a count past any file is left to grow */
	struct symtab_entry *v = realloc(t->v, (t->n + more) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	t->v = v;
	t->cap = t->n + more;
	return 0;
}

static struct symtab_entry *symtab__slot(struct symtab *t)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;
		struct symtab_entry *v = realloc(t->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		t->v = v;
		t->cap = cap;
	}
	return &t->v[t->n];
}

static void entry_init(struct symtab_entry *e, uint64_t start, uint64_t size, uint64_t limit, uint32_t prio)
{
	e->start = start;
	e->sized = size != 0;
	e->end = size ? start + size : (limit > start ? limit : UINT64_MAX);
	e->pretty = NULL;
	e->prio = prio;
}

int symtab__add(struct symtab *t, uint64_t start, uint64_t size, uint64_t limit,
		const char *name, size_t namelen, uint32_t prio)
{
	struct symtab_entry *e = symtab__slot(t);

	if (!e)
		return -ENOMEM;
	e->name = strpool__add(&t->strings, name, namelen);
	if (!e->name)
		return -ENOMEM;
	entry_init(e, start, size, limit, prio);
	e->src = SYMTAB_SRC_COPY;
	e->name_off = 0;
	t->n++;
	return 0;
}

int symtab__add_ref(struct symtab *t, uint64_t start, uint64_t size, uint64_t limit,
		    const char *name, uint64_t name_off, uint8_t src, uint32_t prio)
{
	struct symtab_entry *e;

	if (src == SYMTAB_SRC_COPY || src >= SYMTAB_SRC_NR)
		return symtab__add(t, start, size, limit, name, strlen(name), prio);
	e = symtab__slot(t);
	if (!e)
		return -ENOMEM;
	e->name = name;
	entry_init(e, start, size, limit, prio);
	e->src = src;
	e->name_off = name_off;
	t->n++;
	return 0;
}

void symtab__release(struct symtab *t, uint8_t src, int fd)
{
	if (src == SYMTAB_SRC_COPY || src >= SYMTAB_SRC_NR)
		return;
	t->name_fd[src] = fd + 1;	/* 0: none */
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].src == src)
			t->v[i].name = NULL;
}

/* Names past this are not read back (a C++ or Rust name of a few KiB is
 * long; this is a file that changed under us). */
#define NAME_MAX_READ (64u << 10)

const char *symtab__name(struct symtab *t, const struct symtab_entry *e)
{
	struct symtab_entry *w = (struct symtab_entry *)e;	/* filled lazily, as pretty */
	char small[256], *buf = small;
	size_t cap = sizeof(small), len = 0;
	int fd;

	if (e->name || e->src == SYMTAB_SRC_COPY || e->src >= SYMTAB_SRC_NR || t->name_fd[e->src] <= 0)
		return e->name;
	fd = t->name_fd[e->src] - 1;
	for (;;) {
		ssize_t r = pread(fd, buf + len, cap - len, (off_t)(e->name_off + len));
		char *nul;

		if (r <= 0)
			break;
		nul = memchr(buf + len, 0, (size_t)r);
		len += (size_t)r;
		if (nul) {
			w->name = nul == buf ? NULL : strpool__add(&t->strings, buf, (size_t)(nul - buf));
			break;
		}
		if (cap >= NAME_MAX_READ)
			break;
		char *b = malloc(cap * 4);	/* a long name: read again into more room */
		if (!b)
			break;
		memcpy(b, buf, len);
		if (buf != small)
			free(buf);
		buf = b;
		cap *= 4;
	}
	if (buf != small)
		free(buf);
	if (!w->name)
		w->src = SYMTAB_SRC_COPY;	/* said once: not read again */
	return w->name;
}

static size_t underscores(const char *s)
{
	size_t n = 0;
	while (s[n] == '_')
		n++;
	return n;
}

/* The preferred of two symbols at one address: higher prio (kind, then
 * global over weak over local), then sized, then longer, then not an old
 * version's (free, not cfree@GLIBC_2.2.5), then fewer leading
 * underscores (as perf chooses: glibc's malloc, not its equally global
 * __libc_malloc), then the name (strcmp's first). */
static bool entry_better(struct symtab *t, const struct symtab_entry *x, const struct symtab_entry *y)
{
	if (x->prio != y->prio)
		return x->prio > y->prio;
	if (x->sized != y->sized)
		return x->sized;
	if (x->end != y->end)
		return x->end > y->end;
	const char *a = symtab__name(t, x), *b = symtab__name(t, y);
	if (!a || !b)
		return a != NULL;
	bool va = strchr(a, '@'), vb = strchr(b, '@');	/* an old version's (cfree@GLIBC_2.2.5) */
	if (va != vb)
		return !va;
	size_t ua = underscores(a), ub = underscores(b);
	if (ua != ub)
		return ua < ub;
	return strcmp(a, b) < 0;
}

static int start_cmp(const void *a, const void *b)
{
	const struct symtab_entry *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* The entries in start order. A radix sort of keys (start - lowest) << 32 |
 * index over the digits that differ, then the entries moved into that
 * order in place, cycle by cycle. glibc's qsort is a merge sort through a
 * second table, memcpy and a comparison call per step: 30% of loading
 * node's 153,000 functions, and the copies' fresh pages more. Tables
 * spanning 4 GiB or more (or of 2^32 entries) are qsort'ed. Ties (one
 * address) are left in any order: symtab__finish picks among them. */
static int sort_by_start(struct symtab *t)
{
	size_t n = t->n;
	uint64_t lo = UINT64_MAX, hi = 0;
	enum { BITS = 11, BUCKETS = 1 << BITS };

	for (size_t i = 0; i < n; i++) {
		lo = t->v[i].start < lo ? t->v[i].start : lo;
		hi = t->v[i].start > hi ? t->v[i].start : hi;
	}
	if (hi - lo > UINT32_MAX || n > UINT32_MAX) {
		qsort(t->v, n, sizeof(*t->v), start_cmp);
		return 0;
	}
	uint64_t *a = malloc(2 * n * sizeof(*a)), *b;
	size_t *count = malloc(BUCKETS * sizeof(*count));
	if (!a || !count) {
		free(a);
		free(count);
		return -ENOMEM;
	}
	b = a + n;
	for (size_t i = 0; i < n; i++)
		a[i] = (t->v[i].start - lo) << 32 | i;
	for (unsigned shift = 32; shift < 64 && ((hi - lo) >> (shift - 32)); shift += BITS) {
		memset(count, 0, BUCKETS * sizeof(*count));
		for (size_t i = 0; i < n; i++)
			count[(a[i] >> shift) & (BUCKETS - 1)]++;
		for (size_t d = 0, sum = 0; d < BUCKETS; d++) {
			size_t c = count[d];
			count[d] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			b[count[(a[i] >> shift) & (BUCKETS - 1)]++] = a[i];
		uint64_t *x = a;
		a = b;
		b = x;
	}
	/* position k takes entry a[k]'s low half: follow each cycle once,
	 * marking a position done by setting a[k] to k */
	for (size_t k = 0; k < n; k++) {
		size_t src = (uint32_t)a[k];
		if (src == k)
			continue;
		struct symtab_entry tmp = t->v[k];
		size_t j = k;
		while (src != k) {
			t->v[j] = t->v[src];
			a[j] = j;
			j = src;
			src = (uint32_t)a[j];
		}
		t->v[j] = tmp;
		a[j] = j;
	}
	free(a < b ? a : b);	/* the one allocation, whichever half a ended in */
	free(count);
	return 0;
}

int symtab__finish(struct symtab *t)
{
	size_t i, n = 0;

	if (!t->n)
		return 0;
	/* Input in address order (all of a kallsyms-like file, and every
	 * second pass) is not sorted again. */
	for (i = 1; i < t->n && t->v[i - 1].start <= t->v[i].start; i++)
		;
	if (i < t->n && sort_by_start(t))
		return -ENOMEM;
	/* the preferred duplicate of each address first: all the
	 * deduplication below reads */
	for (i = 0; i < t->n;) {
		size_t j = i + 1, best = i;

		for (; j < t->n && t->v[j].start == t->v[i].start; j++)
			if (entry_better(t, &t->v[j], &t->v[best]))
				best = j;
		if (best != i) {
			struct symtab_entry tmp = t->v[i];

			t->v[i] = t->v[best];
			t->v[best] = tmp;
		}
		i = j;
	}
	for (i = 0; i < t->n; i++)	/* keep the first of each address */
		if (!n || t->v[n - 1].start != t->v[i].start)
			t->v[n++] = t->v[i];
	t->n = n;
	/* zero-sized: up to the next symbol (or limit) */
	for (i = 0; i < n; i++)
		if (!t->v[i].sized && i + 1 < n && t->v[i + 1].start < t->v[i].end)
			t->v[i].end = t->v[i + 1].start;
	free(t->cover);
	t->cover = malloc(n * sizeof(*t->cover));
	if (!t->cover)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		t->cover[i] = (i && t->v[t->cover[i - 1]].end > t->v[i].end) ? t->cover[i - 1] : i;
	return 0;
}

const struct symtab_entry *symtab__find(const struct symtab *t, uint64_t addr)
{
	size_t lo = 0, hi = t->n;

	if (!t->cover)
		return NULL;
	while (lo < hi) {	/* first entry with start > addr */
		size_t mid = lo + (hi - lo) / 2;

		if (t->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	if (addr < t->v[lo - 1].end)
		return &t->v[lo - 1];
	/* an earlier, longer symbol may enclose addr (e.g. a function around a local label) */
	const struct symtab_entry *c = &t->v[t->cover[lo - 1]];
	return addr < c->end ? c : NULL;
}

void symtab__free(struct symtab *t)
{
	free(t->v);
	free(t->cover);
	strpool__free(&t->strings);
	memset(t, 0, sizeof(*t));
}
