/* Sorted address ranges -> names with O(log n) lookup. Used for ELF symbol
 * tables, /proc/kallsyms and JIT perf maps. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

int symtab__add(struct symtab *t, uint64_t start, uint64_t size, uint64_t limit,
		const char *name, size_t namelen, const char *dso, uint32_t prio)
{
	struct symtab_entry *e;

	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;
		struct symtab_entry *v = realloc(t->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->v = v;
		t->cap = cap;
	}
	e = &t->v[t->n];
	e->name = strpool__add(&t->strings, name, namelen);
	if (!e->name)
		return -ENOMEM;
	e->start = start;
	e->sized = size != 0;
	e->end = size ? start + size : (limit > start ? limit : UINT64_MAX);
	e->pretty = NULL;
	e->dso = dso;
	e->prio = prio;
	t->n++;
	return 0;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct symtab_entry *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* the preferred duplicate first: higher prio, then sized, then longer, then name */
	if (x->prio != y->prio)
		return x->prio > y->prio ? -1 : 1;
	if (x->sized != y->sized)
		return x->sized ? -1 : 1;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1;
	return strcmp(x->name, y->name);
}

int symtab__finish(struct symtab *t)
{
	size_t i, n = 0;

	if (!t->n)
		return 0;
	/* Input in address order (all of /proc/kallsyms on a kernel without
	 * modules, and every second pass) is not sorted again: the preferred
	 * duplicate of each address is moved first, which is all the
	 * deduplication below reads. A sort of 122,000 sorted kallsyms
	 * entries, twice, was a third of a kallsyms load. */
	for (i = 1; i < t->n && t->v[i - 1].start <= t->v[i].start; i++)
		;
	if (i < t->n) {
		qsort(t->v, t->n, sizeof(*t->v), entry_cmp);
	} else {
		for (i = 0; i < t->n;) {
			size_t j = i + 1, best = i;

			for (; j < t->n && t->v[j].start == t->v[i].start; j++)
				if (entry_cmp(&t->v[j], &t->v[best]) < 0)
					best = j;
			if (best != i) {
				struct symtab_entry tmp = t->v[i];

				t->v[i] = t->v[best];
				t->v[best] = tmp;
			}
			i = j;
		}
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
