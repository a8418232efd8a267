/* pprobe annotate's aggregation (self samples per function and sampled
 * address) and its perf annotate --stdio layout. See annotate.h. */
#define _GNU_SOURCE
#include "annotate.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

struct annotate {
	struct strtab strs;	/* names, files, build ids */
	struct strtab keys;	/* "name\1file\1build id" -> index of fns */
	struct annotate_fn *fns;
	size_t nr_fns, alloc_fns;
	size_t *alloc_hits;	/* per fn */
	bool has_addrs, sorted;
	double total;
};

struct annotate *annotate__new(void)
{
	struct annotate *a = pp_xcalloc(1, sizeof(*a));
	strtab__init(&a->strs);
	strtab__init(&a->keys);
	return a;
}

void annotate__delete(struct annotate *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->nr_fns; i++)
		free(a->fns[i].hits);
	free(a->fns);
	free(a->alloc_hits);
	strtab__free(&a->strs);
	strtab__free(&a->keys);
	free(a);
}

static const char *str(struct annotate *a, const char *s)
{
	return strtab__str(&a->strs, strtab__intern(&a->strs, s ? s : ""));
}

static size_t fn_index(struct annotate *a, const char *name, const struct pmapping *m, bool kernel)
{
	const char *file = m ? m->file : "", *bid = m ? m->build_id : "";
	size_t len = strlen(name) + strlen(file) + strlen(bid) + 3;
	char stack[512], *key = len <= sizeof(stack) ? stack : pp_xmalloc(len);
	snprintf(key, len, "%s\1%s\1%s", name, file, bid);
	uint32_t id = strtab__intern(&a->keys, key);
	if (key != stack)
		free(key);
	if (id < a->nr_fns)
		return id;
	if (a->nr_fns == a->alloc_fns) {
		a->alloc_fns = a->alloc_fns ? a->alloc_fns * 2 : 64;
		a->fns = pp_xrealloc(a->fns, a->alloc_fns * sizeof(*a->fns));
		a->alloc_hits = pp_xrealloc(a->alloc_hits, a->alloc_fns * sizeof(*a->alloc_hits));
	}
	a->fns[a->nr_fns] = (struct annotate_fn){ .name = str(a, name), .file = str(a, file),
						  .build_id = str(a, bid), .kernel = kernel };
	a->alloc_hits[a->nr_fns] = 0;
	return a->nr_fns++;
}

int annotate__add(void *ctx, const struct psample *s)
{
	struct annotate *a = ctx;
	a->total += s->weight;
	if (!s->nr)
		return 0;
	/* the leaf location's physical function: its last frame not inlined */
	size_t i = s->nr - 1;
	while (i > 0 && s->frames[i].inlined)
		i--;
	const struct pframe *f = &s->frames[i];
	size_t k = fn_index(a, f->name ? f->name : "[unknown]", f->map, f->kernel);	/* may move fns */
	struct annotate_fn *fn = &a->fns[k];
	a->sorted = false;
	fn->weight += s->weight;
	fn->samples += s->samples;
	const struct pmapping *m = f->map;
	if (!m || f->addr < m->start || f->addr >= m->limit) {
		fn->unmapped += s->weight;
		return 0;
	}
	a->has_addrs = true;
	if (fn->nr_hits == a->alloc_hits[k]) {
		a->alloc_hits[k] = a->alloc_hits[k] ? a->alloc_hits[k] * 2 : 16;
		fn->hits = pp_xrealloc(fn->hits, a->alloc_hits[k] * sizeof(*fn->hits));
	}
	fn->hits[fn->nr_hits++] = (struct annotate_hit){ .addr = f->addr - m->start + m->offset,
							 .weight = s->weight, .samples = s->samples };
	return 0;
}

bool annotate__has_addrs(const struct annotate *a)
{
	return a->has_addrs;
}

double annotate__total(const struct annotate *a)
{
	return a->total;
}

static int hit_cmp(const void *x, const void *y)
{
	const struct annotate_hit *a = x, *b = y;
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

static int fn_cmp(const void *x, const void *y)
{
	const struct annotate_fn *a = x, *b = y;
	if (a->weight != b->weight)
		return a->weight > b->weight ? -1 : 1;
	int c = strcmp(a->name, b->name);
	return c ? c : strcmp(a->file, b->file);
}

const struct annotate_fn *annotate__functions(struct annotate *a, size_t *n)
{
	if (!a->sorted) {
		for (size_t i = 0; i < a->nr_fns; i++) {
			struct annotate_fn *fn = &a->fns[i];
			if (fn->nr_hits)	/* hits NULL when none */
				qsort(fn->hits, fn->nr_hits, sizeof(*fn->hits), hit_cmp);
			size_t w = 0;
			for (size_t k = 0; k < fn->nr_hits; k++) {
				if (w && fn->hits[w - 1].addr == fn->hits[k].addr) {
					fn->hits[w - 1].weight += fn->hits[k].weight;
					fn->hits[w - 1].samples += fn->hits[k].samples;
				} else {
					fn->hits[w++] = fn->hits[k];
				}
			}
			fn->nr_hits = w;
		}
		/* the keys' ids are no longer the fns' indexes: no add after this */
		if (a->nr_fns)
			qsort(a->fns, a->nr_fns, sizeof(*a->fns), fn_cmp);
		a->sorted = true;
	}
	*n = a->nr_fns;
	return a->fns;
}

/* ---- one function ---- */

static bool same_str(const char *x, const char *y)
{
	return x == y || (x && y && !strcmp(x, y));
}

static int line_cmp(const void *x, const void *y)
{
	const struct annotation_line *a = x, *b = y;
	if (a->weight != b->weight)
		return a->weight > b->weight ? -1 : 1;
	int c = strcmp(a->file ? a->file : "", b->file ? b->file : "");
	return c ? c : (a->line > b->line) - (a->line < b->line);
}

int annotation__build(struct annotation *an, const struct pf_asm *as, const struct annotate_hit *hits,
		      size_t nr_hits)
{
	memset(an, 0, sizeof(*an));
	an->as = as;
	an->weight = pp_xcalloc(as->n + 1, sizeof(*an->weight));
	size_t k = 0;
	for (size_t h = 0; h < nr_hits; h++) {
		uint64_t addr = hits[h].addr;
		/* the last instruction starting at or before addr (hits ascend) */
		while (k + 1 < as->n && as->insns[k + 1].addr <= addr)
			k++;
		if (!as->n || addr < as->insns[0].addr || addr >= as->addr + as->size) {
			an->outside += hits[h].weight;
			continue;
		}
		an->weight[k] += hits[h].weight;
		an->total += hits[h].weight;
		an->samples += hits[h].samples;
	}
	if (an->total <= 0)
		return -ENOENT;
	/* source lines: one entry per (file, line), summed over the function */
	an->lines = pp_xcalloc(as->n, sizeof(*an->lines));
	for (size_t i = 0; i < as->n; i++) {
		const struct pf_asm_insn *in = &as->insns[i];
		if (an->weight[i] > an->weight[an->hottest])
			an->hottest = i;
		size_t l;
		for (l = 0; l < an->nr_lines; l++)
			if (an->lines[l].line == in->line && same_str(an->lines[l].file, in->file))
				break;
		if (l == an->nr_lines)
			an->lines[an->nr_lines++] = (struct annotation_line){ .file = in->file, .line = in->line,
									      .inlined = in->inlined, .src = in->src };
		an->lines[l].weight += an->weight[i];
	}
	qsort(an->lines, an->nr_lines, sizeof(*an->lines), line_cmp);
	return 0;
}

void annotation__free(struct annotation *an)
{
	free(an->weight);
	free(an->lines);
	memset(an, 0, sizeof(*an));
}

static const char *base(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;
	return s ? s + 1 : p;
}

/* A source line as it heads its instructions: its text, else file:line. */
static void write_source(FILE *f, const struct pf_asm_insn *in, bool print_line)
{
	fprintf(f, "         :   ");
	if (!in->file) {
		fprintf(f, "(no line information)\n");
		return;
	}
	if (print_line || !in->src)
		fprintf(f, "%s:%d", base(in->file), in->line);
	if (in->src) {
		const char *t = in->src;
		while (*t == ' ' || *t == '\t')
			t++;
		fprintf(f, "%s%d    %s", print_line ? "    " : "", in->line, t);
	}
	if (in->inlined)
		fprintf(f, "    (inlined from %s)", in->inlined);
	fputc('\n', f);
}

void annotation__write(const struct annotation *an, FILE *f, const struct annotation_print *p)
{
	const struct pf_asm *as = an->as;
	if (an->samples > 0)
		fprintf(f, " Percent |	Source code & Disassembly of %s for %s (%.15g samples, percent: local-period)\n",
			base(p->object), p->event, an->samples);
	else
		fprintf(f, " Percent |	Source code & Disassembly of %s for %s (%.15g %s, percent: local-period)\n",
			base(p->object), p->event, an->total, p->unit);
	fprintf(f, "------------------------------------------------------------------------------------------\n");
	fprintf(f, "         :\n         :   %016llx <%s>:\n", (unsigned long long)as->addr, as->symbol);
	for (size_t i = 0; i < as->n; i++) {
		const struct pf_asm_insn *in = &as->insns[i];
		if (!i || in->line != as->insns[i - 1].line || !same_str(in->file, as->insns[i - 1].file))
			write_source(f, in, p->print_line);
		char mark = i == an->hottest ? '>' : ' ';
		if (an->weight[i] > 0)
			fprintf(f, "%c%7.2f :   %llx:   %s\n", mark, 100.0 * an->weight[i] / an->total,
				(unsigned long long)in->addr, in->text);
		else
			fprintf(f, "%c   0.00 :   %llx:   %s\n", mark, (unsigned long long)in->addr, in->text);
	}
	if (as->truncated)
		fprintf(f, "         :   (the rest of %s could not be decoded)\n", as->symbol);
	fprintf(f, "\n Percent |	Source lines of %s, hottest first\n", as->symbol);
	fprintf(f, "------------------------------------------------------------------------------------------\n");
	for (size_t l = 0; l < an->nr_lines && an->lines[l].weight > 0; l++) {
		const struct annotation_line *ln = &an->lines[l];
		fprintf(f, "%c%7.2f :   ", l ? ' ' : '>', 100.0 * ln->weight / an->total);
		if (ln->file)
			fprintf(f, "%s:%d", ln->file, ln->line);
		else
			fprintf(f, "(no line information)");
		if (ln->inlined)
			fprintf(f, "    (inlined from %s)", ln->inlined);
		fputc('\n', f);
	}
}
