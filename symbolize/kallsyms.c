/* /proc/kallsyms: text symbols of the kernel and its modules, sorted, each
 * extending to the next symbol. Module symbols carry "[module]" as dso.
 *
 * Compact, because on a VM every fresh page is a fault the hypervisor
 * serves (~5 us here): 122,000 symbols were 48-byte symtab entries grown
 * by doubling, a cover index and a sort buffer, 80 ms of a load (pprobe's
 * largest fixed cost after the debug files). Now an entry is 16 bytes (its
 * start, its name's offset in one pool, its module), the names one pool
 * grown in place (mremap), the file read in 256 KiB pieces into one
 * buffer: 30 ms, most of it the kernel printing the file. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sym_internal.h"

struct kent {
	uint64_t start;
	uint32_t name;		/* offset in names */
	uint16_t mod;		/* 0: the kernel; else modnames[mod - 1] */
	uint8_t marker;		/* an end marker: an empty range */
};

/* An array grown in place by mremap: no copy, no page touched twice. */
struct grow {
	void *p;
	size_t used, cap;
};

static void *grow__room(struct grow *g, size_t n)
{
	if (g->used + n > g->cap) {
		size_t cap = g->cap ? g->cap : 1 << 20;
		while (cap < g->used + n)
			cap *= 2;
		void *p = g->p ? mremap(g->p, g->cap, cap, MREMAP_MAYMOVE)
			       : mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return NULL;
		g->p = p;
		g->cap = cap;
	}
	void *r = (char *)g->p + g->used;
	g->used += n;
	return r;
}

static void grow__free(struct grow *g)
{
	if (g->p)
		munmap(g->p, g->cap);
	memset(g, 0, sizeof(*g));
}

struct kallsyms {
	struct grow ents;	/* struct kent, sorted by start once loaded */
	struct grow names;
	size_t n;
	struct strpool modules;
	const char **modnames;	/* interned "[module]" names */
	size_t nmod;
};

/* The module's index + 1 in modnames, 0 on ENOMEM or past 65,535 modules. */
static int module_index(struct kallsyms *k, const char *mod, size_t len)
{
	char buf[256];
	const char **v;

	if (len + 3 > sizeof(buf))
		len = sizeof(buf) - 3;
	snprintf(buf, sizeof(buf), "[%.*s]", (int)len, mod);
	for (size_t i = 0; i < k->nmod; i++)
		if (!strcmp(k->modnames[i], buf))
			return (int)i + 1;
	if (k->nmod >= UINT16_MAX)
		return 0;
	v = realloc(k->modnames, (k->nmod + 1) * sizeof(*v));
	if (!v)
		return 0;
	k->modnames = v;
	v[k->nmod] = strpool__add(&k->modules, buf, strlen(buf));
	return v[k->nmod] ? (int)++k->nmod : 0;
}

/* _etext, _einittext, __entry_text_end, __sched_text_end...: they mark
 * where a text section ends and must not name what follows. (Plain "_end"
 * suffixes are often real functions: tcp_sigpool_end.) */
static bool end_marker(const char *name)
{
	size_t n = strlen(name);

	return !strcmp(name, "_etext") || !strcmp(name, "_einittext") || !strcmp(name, "_end") ||
	       (n > 11 && !strncmp(name, "__", 2) && !strcmp(name + n - 9, "_text_end"));
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* One line, "ADDR T NAME[\t[MODULE]]" without its newline, parsed by hand
 * (sscanf was most of the time of a load). */
static int parse_line(char *line, kallsyms_fn *fn, void *arg)
{
	unsigned long long addr = 0;
	char type, *name, *mod, *end, *p = line;
	size_t modlen = 0;

	for (int d; (d = hexval(*p)) >= 0; p++)
		addr = addr << 4 | (unsigned)d;
	if (p == line || p - line > 16 || *p != ' ' || !p[1] || p[2] != ' ')
		return 0;
	type = p[1];
	name = p + 3;
	while (*name == ' ')
		name++;
	end = name + strcspn(name, " \t");
	mod = NULL;
	if (*end == '\t' || *end == ' ')
		mod = strchr(end, '[');
	*end = 0;
	if (mod)
		modlen = strcspn(++mod, "]");
	return fn(arg, addr, type, name, mod, modlen);
}

#define KALLSYMS_PIECE (256 << 10)

int kallsyms__foreach(const char *path, kallsyms_fn *fn, void *arg)
{
	int fd = open(path ? path : "/proc/kallsyms", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* 5 MB of text read in 256 KiB pieces into one buffer; a line cut
	 * by a piece's end is moved to the front for the next. A line longer
	 * than a piece (none is) is cut there. */
	char *buf = malloc(KALLSYMS_PIECE + 1);
	size_t have = 0;
	int err = buf ? 0 : -ENOMEM;
	bool eof = false;

	while (!err && !eof) {
		ssize_t r = read(fd, buf + have, KALLSYMS_PIECE - have);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		eof = r == 0;
		have += (size_t)r;
		char *p = buf, *stop = buf + have;
		for (;;) {
			char *nl = memchr(p, '\n', (size_t)(stop - p));
			if (!nl) {
				if (eof || (p == buf && have == KALLSYMS_PIECE))
					nl = stop;	/* the last line, or one too long */
				else
					break;
			}
			if (nl == p && nl == stop)
				break;
			*nl = 0;
			err = parse_line(p, fn, arg);
			p = nl + 1;
			if (err || p > stop)
				break;
		}
		if (p > stop)
			p = stop;
		have = (size_t)(stop - p);
		memmove(buf, p, have);
	}
	close(fd);
	free(buf);
	return err;
}

struct load {
	struct kallsyms *k;
	char *last_mod;
	uint16_t last_idx;
	size_t nonzero;
};

static int load_line(void *arg, uint64_t addr, char type, const char *name, const char *mod,
		     size_t ml)
{
	struct load *l = arg;
	struct kallsyms *k = l->k;

	if (addr)
		l->nonzero++;
	/* text symbols only: data must never name a code address */
	if (type != 't' && type != 'T' && type != 'w' && type != 'W')
		return 0;
	uint16_t idx = 0;
	if (mod) {
		if (l->last_mod && !strncmp(l->last_mod, mod, ml) && l->last_mod[ml] == 0) {
			idx = l->last_idx;
		} else {
			int i = module_index(k, mod, ml);
			if (!i)
				return -ENOMEM;
			free(l->last_mod);
			l->last_mod = strndup(mod, ml);
			if (!l->last_mod)
				return -ENOMEM;
			l->last_idx = idx = (uint16_t)i;
		}
	}
	size_t len = strlen(name) + 1;
	struct kent *e = grow__room(&k->ents, sizeof(*e));
	char *nm = k->names.used + len <= UINT32_MAX ? grow__room(&k->names, len) : NULL;
	if (!e || !nm)
		return -ENOMEM;
	memcpy(nm, name, len);
	*e = (struct kent){ addr, (uint32_t)(nm - (char *)k->names.p), idx, end_marker(name) };
	k->n++;
	return 0;
}

static const char *kent_name(const struct kallsyms *k, const struct kent *e)
{
	return (const char *)k->names.p + e->name;
}

/* By start; at one address the preferred first: a symbol before an end
 * marker, then the first name in strcmp order. */
static int kent_cmp(const void *a, const void *b, void *arg)
{
	const struct kent *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->marker != y->marker)
		return x->marker ? 1 : -1;
	return strcmp(kent_name(arg, x), kent_name(arg, y));
}

/* Sorted (input already in address order, all of it on a kernel without
 * modules, is not sorted again: each address's preferred entry is moved
 * first), one entry per address. */
static void sort_dedupe(struct kallsyms *k)
{
	struct kent *v = k->ents.p;
	size_t i, n = 0;

	for (i = 1; i < k->n && v[i - 1].start <= v[i].start; i++)
		;
	if (i < k->n) {
		qsort_r(v, k->n, sizeof(*v), kent_cmp, k);
	} else {
		for (i = 0; i < k->n;) {
			size_t j = i + 1, best = i;
			for (; j < k->n && v[j].start == v[i].start; j++)
				if (kent_cmp(&v[j], &v[best], k) < 0)
					best = j;
			struct kent tmp = v[i];
			v[i] = v[best];
			v[best] = tmp;
			i = j;
		}
	}
	for (i = 0; i < k->n; i++)
		if (!n || v[n - 1].start != v[i].start)
			v[n++] = v[i];
	k->n = n;
}

struct kallsyms *kallsyms__load(const char *path)
{
	struct load l = { .k = calloc(1, sizeof(*l.k)) };
	struct kallsyms *k = l.k;
	int err;

	if (!k)
		return NULL;
	err = kallsyms__foreach(path, load_line, &l);
	if (err)
		goto err;
	if (!l.nonzero) {	/* kptr_restrict hides addresses */
		err = -EPERM;
		goto err;
	}
	sort_dedupe(k);
	free(l.last_mod);
	return k;
err:
	free(l.last_mod);
	kallsyms__delete(k);
	errno = -err;
	return NULL;
}

bool kallsyms__find(const struct kallsyms *k, uint64_t addr, struct kallsyms_sym *out)
{
	const struct kent *v = k->ents.p;
	size_t lo = 0, hi = k->n;

	while (lo < hi) {	/* the first entry starting past addr */
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return false;
	const struct kent *e = &v[lo - 1];
	if (e->marker)		/* past the end of a text section */
		return false;
	/* The last symbol before another object's first (core -> module,
	 * module -> module) would otherwise cover the whole gap between
	 * allocations: at most 64 KiB, more than any kernel function. Past
	 * the last symbol we do not know where the text ends: the rest of its
	 * page (the last one is usually a trampoline page). */
	if (lo == k->n ? addr >= ((e->start | 4095) + 1) : e->mod != e[1].mod && addr - e->start >= 65536)
		return false;
	out->name = kent_name(k, e);
	out->dso = e->mod ? k->modnames[e->mod - 1] : "[kernel.kallsyms]";
	out->start = e->start;
	return true;
}

void kallsyms__delete(struct kallsyms *k)
{
	if (!k)
		return;
	grow__free(&k->ents);
	grow__free(&k->names);
	strpool__free(&k->modules);
	free(k->modnames);
	free(k);
}
