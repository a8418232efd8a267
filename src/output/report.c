/* pprobe report's aggregation and its perf report --stdio layout (report.h). */
#define _GNU_SOURCE
#include "report.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static const char *const key_names[REPORT_NR_KEYS] = { "comm", "pid", "tid", "dso", "sym" };
static const char *const key_titles[REPORT_NR_KEYS] = { "Command", "Pid", "Tid", "Shared Object", "Symbol" };

struct entry {
	uint32_t col[REPORT_NR_KEYS];	/* column texts in r->strs, for the sort keys */
	uint32_t func;			/* the function's name in r->strs (report_row.func) */
	double self, children;
	uint64_t stamp;			/* the last sample counted in children */
};

struct tnode {
	uint32_t name;			/* in r->strs */
	uint32_t child, next;		/* first child, next sibling: index, 0 for none */
	double weight;
};

struct report {
	struct report_opts o;
	struct strtab strs;		/* column texts, tree labels */
	struct strtab keys;		/* an entry's joined columns: its id is its index */
	struct entry *e;
	size_t nr, cap;
	double total, count;
	uint64_t samples, seq;
	bool has_pids, has_tids;
	struct tnode *t;		/* t[0] is the root above tree_func */
	size_t tnr, tcap;
	struct u64map tkids;		/* parent << 32 | name -> child index */
	char *buf;
	size_t buf_cap;
};

int report_keys__parse(const char *s, enum report_key *keys, size_t *nr, char *bad, size_t badlen)
{
	*nr = 0;
	const char *p = s;
	for (;;) {
		size_t n = strcspn(p, ",");
		int k = -1;
		for (int i = 0; i < REPORT_NR_KEYS; i++)
			if (strlen(key_names[i]) == n && !strncmp(p, key_names[i], n))
				k = i;
		for (size_t i = 0; k >= 0 && i < *nr; i++)
			if (keys[i] == (enum report_key)k)
				k = -1;
		if (k < 0 || *nr == REPORT_NR_KEYS) {
			snprintf(bad, badlen, "%.*s", (int)n, p);
			return -EINVAL;
		}
		keys[(*nr)++] = (enum report_key)k;
		if (!p[n])
			return 0;
		p += n + 1;
	}
}

struct report *report__new(const struct report_opts *o)
{
	struct report *r = pp_xcalloc(1, sizeof(*r));
	r->o = *o;
	if (!r->o.nr_keys) {
		r->o.keys[0] = REPORT_COMM, r->o.keys[1] = REPORT_DSO, r->o.keys[2] = REPORT_SYM;
		r->o.nr_keys = 3;
	}
	strtab__init(&r->strs);
	strtab__init(&r->keys);
	u64map__init(&r->tkids);
	r->t = pp_xcalloc(1, sizeof(*r->t));
	r->tnr = r->tcap = 1;
	return r;
}

void report__delete(struct report *r)
{
	if (!r)
		return;
	strtab__free(&r->strs);
	strtab__free(&r->keys);
	u64map__free(&r->tkids);
	free(r->e);
	free(r->t);
	free(r->buf);
	free(r);
}

static bool in_list(int64_t v, const int64_t *l, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (l[i] == v)
			return true;
	return false;
}

static const char *frame_sym(struct report *r, const struct pframe *f)
{
	size_t n = strlen(f->name ? f->name : "[unknown]") + 5;
	if (n > r->buf_cap) {
		r->buf_cap = n * 2;
		r->buf = pp_xrealloc(r->buf, r->buf_cap);
	}
	snprintf(r->buf, r->buf_cap, "[%c] %s", f->kernel ? 'k' : '.', f->name ? f->name : "[unknown]");
	return r->buf;
}

/* The entry of frame f of sample s (f NULL: a sample without frames). */
static struct entry *entry_of(struct report *r, const struct psample *s, const struct pframe *f)
{
	static const struct pframe none = { .name = "[unknown]" };
	char num[32];
	uint32_t col[REPORT_NR_KEYS] = { 0 };
	if (!f)
		f = &none;
	for (size_t i = 0; i < r->o.nr_keys; i++) {
		const char *t = "";
		switch (r->o.keys[i]) {
		case REPORT_COMM: t = s->comm ? s->comm : "[unknown]"; break;
		case REPORT_PID:
		case REPORT_TID: {
			int64_t id = r->o.keys[i] == REPORT_PID ? s->pid : s->tid;
			snprintf(num, sizeof(num), "%lld", (long long)id);
			t = id >= 0 ? num : "-";
			break;
		}
		case REPORT_DSO: t = f->dso ? f->dso : f->kernel ? "[kernel.kallsyms]" : "[unknown]"; break;
		case REPORT_SYM: t = frame_sym(r, f); break;
		case REPORT_NR_KEYS: break;
		}
		col[i] = strtab__intern(&r->strs, t);
	}
	char key[REPORT_NR_KEYS * 11 + 1];
	size_t kl = 0;
	for (size_t i = 0; i < r->o.nr_keys; i++)
		kl += (size_t)snprintf(key + kl, sizeof(key) - kl, "%x,", col[i]);
	uint32_t id = strtab__intern(&r->keys, key);
	if (id == r->nr) {
		if (r->nr == r->cap) {
			r->cap = r->cap ? r->cap * 2 : 256;
			r->e = pp_xrealloc(r->e, r->cap * sizeof(*r->e));
		}
		const char *fn = f == &none ? "" : f->name ? f->name : "[unknown]";
		r->e[r->nr] = (struct entry){ .func = strtab__intern(&r->strs, fn) };
		memcpy(r->e[r->nr].col, col, sizeof(col));
		r->nr++;
	}
	return &r->e[id];
}

static uint32_t tree_label(struct report *r, const struct pframe *f)
{
	const char *name = f->name ? f->name : "[unknown]";
	size_t n = strlen(name) + 5;
	if (n > r->buf_cap) {
		r->buf_cap = n * 2;
		r->buf = pp_xrealloc(r->buf, r->buf_cap);
	}
	snprintf(r->buf, r->buf_cap, "%s%s", name, f->kernel ? "_[k]" : f->inlined ? "_[i]" : f->jit ? "_[j]" : "");
	return strtab__intern(&r->strs, r->buf);
}

static uint32_t tree_child(struct report *r, uint32_t parent, uint32_t name)
{
	uint64_t key = (uint64_t)parent << 32 | name;
	void *v = u64map__get(&r->tkids, key);
	if (v)
		return (uint32_t)(uintptr_t)v;
	if (r->tnr == r->tcap) {
		r->tcap *= 2;
		r->t = pp_xrealloc(r->t, r->tcap * sizeof(*r->t));
	}
	uint32_t id = (uint32_t)r->tnr++;
	r->t[id] = (struct tnode){ .name = name, .next = r->t[parent].child };
	r->t[parent].child = id;
	u64map__put(&r->tkids, key, (void *)(uintptr_t)id);
	return id;
}

static void tree_add(struct report *r, const struct psample *s)
{
	const char *fn = r->o.tree_func;
	size_t i, n = s->nr;
	if (r->o.tree_callers) {
		for (i = n; i > 0 && strcmp(s->frames[i - 1].name ? s->frames[i - 1].name : "", fn); i--)
			;
		if (!i)
			return;
		uint32_t node = 0;
		for (size_t j = i; j > 0; j--) {
			node = tree_child(r, node, tree_label(r, &s->frames[j - 1]));
			r->t[node].weight += s->weight;
		}
		return;
	}
	for (i = 0; i < n && strcmp(s->frames[i].name ? s->frames[i].name : "", fn); i++)
		;
	uint32_t node = 0;
	for (; i < n; i++) {
		node = tree_child(r, node, tree_label(r, &s->frames[i]));
		r->t[node].weight += s->weight;
	}
}

int report__add(void *ctx, const struct psample *s)
{
	struct report *r = ctx;
	r->has_pids |= s->pid >= 0;
	r->has_tids |= s->tid >= 0;
	if (r->o.pids && !in_list(s->pid, r->o.pids, r->o.nr_pids))
		return 0;
	if (r->o.tids && !in_list(s->tid, r->o.tids, r->o.nr_tids))
		return 0;
	r->total += s->weight;
	r->count += s->samples;
	r->samples++;
	r->seq++;
	for (size_t i = 0; i < s->nr; i++) {
		struct entry *e = entry_of(r, s, &s->frames[i]);
		if (e->stamp != r->seq) {
			e->stamp = r->seq;
			e->children += s->weight;
		}
	}
	struct entry *leaf = entry_of(r, s, s->nr ? &s->frames[s->nr - 1] : NULL);
	leaf->self += s->weight;
	if (!s->nr)
		leaf->children += s->weight;
	if (r->o.tree_func)
		tree_add(r, s);
	return 0;
}

/* A frame's function as a pframe: its folded label without the _[k]/_[i]/
 * _[j] suffix (the name, or "[libc.so.6]" where there is none), copied to
 * *buf at *len (the pointers are set once the buffer is whole). */
static void stack_frame(struct pframe *pf, const struct frame_view *v, uint32_t k, char **buf, size_t *cap,
			size_t *len)
{
	const char *label = v->labels[k] ? v->labels[k] : "[unknown]";
	size_t n = strlen(label);
	*pf = (struct pframe){ .dso = v->syms[k].dso, .kernel = v->kind == FRAME_KERNEL,
			       .inlined = v->syms[k].inlined };
	char suffix = folded__suffix(label, n);
	pf->jit = suffix == 'j';
	if (suffix)
		n -= 4;
	if (pf->kernel && (!pf->dso || pf->dso[0] != '['))
		pf->dso = "[kernel.kallsyms]";
	if (*len + n + 1 > *cap) {
		*cap = (*len + n + 1) * 2;
		*buf = pp_xrealloc(*buf, *cap);
	}
	memcpy(*buf + *len, label, n);
	(*buf)[*len + n] = '\0';
	pf->name = (const char *)(uintptr_t)*len;	/* an offset until the buffer is whole */
	*len += n + 1;
}

void report__add_stacks(struct report *r, const struct stacktab *st, const struct frametab *ft)
{
	struct pframe *pf = NULL;
	size_t pcap = 0, cap = 0;
	char *names = NULL;
	for (size_t i = 0; i < stacktab__count(st); i++) {
		struct stack_view sv;
		stacktab__get(st, i, &sv);
		size_t n = 0, len = 0;
		for (uint32_t j = sv.nr; j > 0; j--) {	/* leaf first in the table, outermost first here */
			struct frame_view v;
			frametab__get(ft, sv.frames[j - 1], &v);
			for (uint32_t k = 0; k < v.nr_syms; k++) {
				if (n == pcap) {
					pcap = pcap ? pcap * 2 : 64;
					pf = pp_xrealloc(pf, pcap * sizeof(*pf));
				}
				stack_frame(&pf[n++], &v, k, &names, &cap, &len);
			}
		}
		for (size_t j = 0; j < n; j++)
			pf[j].name = names + (uintptr_t)pf[j].name;
		struct psample s = { .comm = sv.comm, .pid = sv.pid, .tid = sv.tid, .frames = pf, .nr = n,
				     .weight = (double)sv.weight, .samples = (double)sv.samples };
		report__add(r, &s);
	}
	free(pf);
	free(names);
}

double report__total(const struct report *r) { return r->total; }
uint64_t report__samples(const struct report *r) { return r->samples; }
double report__count(const struct report *r) { return r->count; }
bool report__has_pids(const struct report *r) { return r->has_pids; }
bool report__has_tids(const struct report *r) { return r->has_tids; }
bool report__has_tree(const struct report *r) { return r->t[0].child != 0; }

static double pct(double v, double total)
{
	return total > 0 ? 100.0 * v / total : 0;
}

/* Sorting the entries: by the chosen column, the other, then the texts. */
static const struct report *sort_r;
static bool sort_children;

static int entry_cmp(const void *a, const void *b)
{
	const struct entry *x = *(const struct entry *const *)a, *y = *(const struct entry *const *)b;
	double kx = sort_children ? x->children : x->self, ky = sort_children ? y->children : y->self;
	if (kx != ky)
		return kx > ky ? -1 : 1;
	kx = sort_children ? x->self : x->children, ky = sort_children ? y->self : y->children;
	if (kx != ky)
		return kx > ky ? -1 : 1;
	for (size_t i = 0; i < sort_r->o.nr_keys; i++) {
		int c = strcmp(strtab__str(&sort_r->strs, x->col[i]), strtab__str(&sort_r->strs, y->col[i]));
		if (c)
			return c;
	}
	return 0;
}

struct report_row *report__rows(struct report *r, const struct report_print *p, size_t *nr)
{
	const struct entry **rows = pp_xmalloc((r->nr + 1) * sizeof(*rows));
	size_t n = 0;
	for (size_t i = 0; i < r->nr; i++) {
		double v = p->children ? r->e[i].children : r->e[i].self;
		if (v > 0 && pct(v, r->total) >= p->percent_limit)
			rows[n++] = &r->e[i];
	}
	sort_r = r;
	sort_children = p->children;
	qsort(rows, n, sizeof(*rows), entry_cmp);
	struct report_row *out = pp_xcalloc(n + 1, sizeof(*out));
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < r->o.nr_keys; k++)
			out[i].col[k] = strtab__str(&r->strs, rows[i]->col[k]);
		out[i].func = strtab__str(&r->strs, rows[i]->func);
		out[i].self = rows[i]->self;
		out[i].children = rows[i]->children;
	}
	free(rows);
	*nr = n;
	return out;
}

size_t report__titles(const struct report *r, const char **titles)
{
	for (size_t k = 0; k < r->o.nr_keys; k++)
		titles[k] = key_titles[r->o.keys[k]];
	return r->o.nr_keys;
}

/* Column widths: the widest text among the rows shown, or the title. */
static void col_widths(const struct report *r, const struct report_row *rows, size_t n, int *w)
{
	for (size_t i = 0; i < r->o.nr_keys; i++) {
		w[i] = (int)strlen(key_titles[r->o.keys[i]]);
		for (size_t j = 0; j < n; j++) {
			int l = (int)strlen(rows[j].col[i]);
			w[i] = l > w[i] ? l : w[i];
		}
	}
}

/* The texts of one row (col NULL: the titles). */
static void write_cols(const struct report *r, FILE *f, const int *w, const char *const *col)
{
	for (size_t i = 0; i < r->o.nr_keys; i++) {
		const char *t = col ? col[i] : key_titles[r->o.keys[i]];
		if (i + 1 < r->o.nr_keys)
			fprintf(f, "%-*s  ", w[i], t);
		else
			fprintf(f, "%s\n", t);
	}
}

static void write_dots(const struct report *r, FILE *f, const int *w)
{
	for (size_t i = 0; i < r->o.nr_keys; i++) {
		int n = i + 1 < r->o.nr_keys ? w[i] : (int)strlen(key_titles[r->o.keys[i]]);
		for (int k = 0; k < n; k++)
			fputc('.', f);
		fputs(i + 1 < r->o.nr_keys ? "  " : "\n", f);
	}
}

void report__write_table(struct report *r, FILE *f, const struct report_print *p)
{
	size_t n;
	struct report_row *rows = report__rows(r, p, &n);
	int w[REPORT_NR_KEYS];
	col_widths(r, rows, n, w);
	if (p->children)
		fprintf(f, "#%9s  %10s  ", "Children", "Self");
	else
		fprintf(f, "#%9s  ", "Overhead");
	write_cols(r, f, w, NULL);
	if (p->children)
		fprintf(f, "#%9s  %10s  ", "........", "........");
	else
		fprintf(f, "#%9s  ", "........");
	write_dots(r, f, w);
	for (size_t i = 0; i < n; i++) {
		if (p->children)
			fprintf(f, "%9.2f%%  ", pct(rows[i].children, r->total));
		fprintf(f, "%9.2f%%  ", pct(rows[i].self, r->total));
		write_cols(r, f, w, rows[i].col);
	}
	free(rows);
}

static int tnode_cmp(const void *a, const void *b)
{
	const struct tnode *x = *(const struct tnode *const *)a, *y = *(const struct tnode *const *)b;
	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	return strcmp(strtab__str(&sort_r->strs, x->name), strtab__str(&sort_r->strs, y->name));
}

static void write_node(struct report *r, FILE *f, uint32_t node, int depth, double limit)
{
	size_t n = 0;
	for (uint32_t c = r->t[node].child; c; c = r->t[c].next)
		n++;
	const struct tnode **kids = pp_xmalloc((n + 1) * sizeof(*kids));
	n = 0;
	for (uint32_t c = r->t[node].child; c; c = r->t[c].next)
		kids[n++] = &r->t[c];
	sort_r = r;
	qsort(kids, n, sizeof(*kids), tnode_cmp);
	for (size_t i = 0; i < n; i++) {
		double p = pct(kids[i]->weight, r->total);
		if (p < limit)
			continue;
		fprintf(f, "%*s%6.2f%%  %s\n", depth * 2, "", p, strtab__str(&r->strs, kids[i]->name));
		write_node(r, f, (uint32_t)(kids[i] - r->t), depth + 1, limit);
	}
	free(kids);
}

void report__write_tree(struct report *r, FILE *f, double percent_limit)
{
	write_node(r, f, 0, 0, percent_limit);
}

struct drow {
	const char *const *col;		/* texts, nr_keys */
	double base, now;
};

static size_t diff_keys;

static int drow_cmp(const void *a, const void *b)
{
	const struct drow *x = a, *y = b;
	double dx = fabs(x->now - x->base), dy = fabs(y->now - y->base);
	if (dx != dy)
		return dx > dy ? -1 : 1;
	for (size_t i = 0; i < diff_keys; i++) {
		int c = strcmp(x->col[i], y->col[i]);
		if (c)
			return c;
	}
	return 0;
}

/* Both reports' entries joined on their column texts. */
void report__write_diff(struct report *before, struct report *after, FILE *f, double percent_limit)
{
	struct strtab join;
	strtab__init(&join);
	size_t cap = before->nr + after->nr + 1, n = 0, nk = after->o.nr_keys;
	struct drow *rows = pp_xcalloc(cap, sizeof(*rows));
	const char **texts = pp_xcalloc(cap * nk, sizeof(*texts));
	struct report *side[2] = { before, after };
	for (int s = 0; s < 2; s++) {
		struct report *r = side[s];
		for (size_t i = 0; i < r->nr; i++) {
			if (r->e[i].self <= 0)
				continue;
			size_t len = 0;
			for (size_t k = 0; k < nk; k++) {
				const char *t = strtab__str(&r->strs, r->e[i].col[k]);
				size_t tl = strlen(t) + 2;
				if (len + tl > r->buf_cap) {
					r->buf_cap = (len + tl) * 2;
					r->buf = pp_xrealloc(r->buf, r->buf_cap);
				}
				memcpy(r->buf + len, t, tl - 1);
				len += tl - 1;
				r->buf[len - 1] = '\x1f';
				r->buf[len] = '\0';
			}
			uint32_t id = strtab__intern(&join, r->buf);
			if (id == n) {
				rows[n].col = texts + n * nk;
				for (size_t k = 0; k < nk; k++)
					texts[n * nk + k] = strtab__str(&r->strs, r->e[i].col[k]);
				n++;
			}
			double p = pct(r->e[i].self, r->total);
			if (s)
				rows[id].now += p;
			else
				rows[id].base += p;
		}
	}
	diff_keys = nk;
	qsort(rows, n, sizeof(*rows), drow_cmp);
	int w[REPORT_NR_KEYS];
	for (size_t k = 0; k < nk; k++) {
		w[k] = (int)strlen(key_titles[after->o.keys[k]]);
		for (size_t j = 0; j < n; j++)
			w[k] = (int)strlen(rows[j].col[k]) > w[k] ? (int)strlen(rows[j].col[k]) : w[k];
	}
	fprintf(f, "#%9s  %10s  %10s  ", "Baseline", "New", "Delta");
	write_cols(after, f, w, NULL);
	fprintf(f, "#%9s  %10s  %10s  ", "........", "........", "........");
	write_dots(after, f, w);
	for (size_t i = 0; i < n; i++) {
		if (rows[i].base < percent_limit && rows[i].now < percent_limit)
			continue;
		double d = rows[i].now - rows[i].base;
		fprintf(f, "%9.2f%%  %9.2f%%  %+9.2f%%  ", rows[i].base, rows[i].now, fabs(d) < 0.005 ? 0.0 : d);
		for (size_t k = 0; k < nk; k++)
			if (k + 1 < nk)
				fprintf(f, "%-*s  ", w[k], rows[i].col[k]);
			else
				fprintf(f, "%s\n", rows[i].col[k]);
	}
	free(texts);
	free(rows);
	strtab__free(&join);
}
