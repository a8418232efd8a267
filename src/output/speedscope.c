/* Stacks as a speedscope file: see speedscope.h. */
#define _GNU_SOURCE
#include "speedscope.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "util.h"

#define NONE UINT32_MAX

/* printf into a new string (pp_xmalloc: the program ends on OOM). */
__attribute__((format(printf, 1, 2))) static char *xprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *s = pp_xmalloc((size_t)(n > 0 ? n : 0) + 1);
	va_start(ap, fmt);
	vsnprintf(s, (size_t)(n > 0 ? n : 0) + 1, fmt, ap);
	va_end(ap);
	return s;
}

/* speedscope's frame index of each name of each frame id, and the frames
 * themselves: one per folded name, so that speedscope adds up what folded
 * output adds up (the same function at two addresses is one frame); its
 * file the first one known. */
struct ss_frames {
	const struct frametab *ft;
	uint32_t *first;	/* by frame id: offset into idx, NONE: not seen yet */
	uint32_t *idx;		/* speedscope frame indices, outermost first */
	size_t nr_idx, alloc_idx;
	struct strtab names;	/* id == speedscope frame index */
	const char **files;	/* by speedscope frame index: the frame table's strings, NULL: none */
	size_t alloc_files;
	uint32_t *nr_names;	/* by frame id */
};

static void ss_frames__init(struct ss_frames *sf, const struct frametab *ft)
{
	size_t n = frametab__count(ft);
	memset(sf, 0, sizeof(*sf));
	sf->ft = ft;
	sf->first = pp_xmalloc((n ? n : 1) * sizeof(*sf->first));
	sf->nr_names = pp_xcalloc(n ? n : 1, sizeof(*sf->nr_names));
	for (size_t i = 0; i < n; i++)
		sf->first[i] = NONE;
	strtab__init(&sf->names);
}

static void ss_frames__exit(struct ss_frames *sf)
{
	free(sf->first);
	free(sf->nr_names);
	free(sf->idx);
	free(sf->files);
	strtab__free(&sf->names);
}

/* The speedscope frames of frame id, outermost first; *n gets how many. */
static const uint32_t *ss_frames__of(struct ss_frames *sf, uint32_t id, uint32_t *n)
{
	if (sf->first[id] == NONE) {
		struct frame_view v;
		frametab__get(sf->ft, id, &v);
		uint32_t nr = v.nr_syms ? v.nr_syms : 1;
		if (sf->nr_idx + nr > sf->alloc_idx) {
			sf->alloc_idx = (sf->nr_idx + nr) * 2;
			sf->idx = pp_xrealloc(sf->idx, sf->alloc_idx * sizeof(*sf->idx));
		}
		sf->first[id] = (uint32_t)sf->nr_idx;
		sf->nr_names[id] = nr;
		for (uint32_t k = 0; k < nr; k++) {
			const char *name = v.nr_syms && v.labels[k] ? v.labels[k] : "[unknown]";
			uint32_t i = strtab__intern(&sf->names, name);
			if (i >= sf->alloc_files) {
				size_t n = sf->alloc_files;
				sf->alloc_files = (i + 1) * 2;
				sf->files = pp_xrealloc(sf->files, sf->alloc_files * sizeof(*sf->files));
				memset(sf->files + n, 0, (sf->alloc_files - n) * sizeof(*sf->files));
			}
			if (!sf->files[i] && v.nr_syms && v.syms[k].file)
				sf->files[i] = v.syms[k].file;
			sf->idx[sf->nr_idx++] = i;
		}
	}
	*n = sf->nr_names[id];
	return sf->idx + sf->first[id];
}

static void write_frames(FILE *out, const struct ss_frames *sf)
{
	fputs("\"shared\":{\"frames\":[", out);
	for (size_t i = 0; i < sf->names.nr; i++) {
		fputs(i ? ",{\"name\":" : "{\"name\":", out);
		json__string(out, strtab__str(&sf->names, (uint32_t)i));
		if (sf->files[i]) {
			fputs(",\"file\":", out);
			json__string(out, sf->files[i]);
		}
		fputc('}', out);
	}
	fputs("]}", out);
}

/* The threads: each unique stack's owner, interned as "pid\x1ftid\x1fcomm". */
static uint32_t thread_of(struct strtab *threads, const struct stack_view *v)
{
	char *key = xprintf("%d\x1f%d\x1f%s", (int)v->pid, (int)v->tid, v->comm ? v->comm : "[unknown]");
	uint32_t id = strtab__intern(threads, key);
	free(key);
	return id;
}

static void write_profile_name(FILE *out, const struct stack_view *v)
{
	char *name;
	const char *comm = v->comm ? v->comm : "[unknown]";
	if (v->pid >= 0 && v->tid >= 0)
		name = xprintf("%s pid: %d tid: %d", comm, (int)v->pid, (int)v->tid);
	else if (v->pid >= 0)
		name = xprintf("%s pid: %d", comm, (int)v->pid);
	else if (v->tid >= 0)
		name = xprintf("%s tid: %d", comm, (int)v->tid);
	else
		name = xprintf("%s", comm);
	json__string(out, name);
	free(name);
}

/* Each unique stack's sample, "[outer,...,leaf]", rendered once. */
struct ss_stacks {
	char *buf;
	size_t len, cap;
	size_t *off;		/* by stack: start in buf; the text ends at off[i + 1] */
};

static void ss_stacks__put(struct ss_stacks *s, const char *text, size_t n)
{
	if (s->len + n + 1 > s->cap) {
		s->cap = (s->len + n + 1) * 2;
		s->buf = pp_xrealloc(s->buf, s->cap);
	}
	memcpy(s->buf + s->len, text, n);
	s->len += n;
}

static void ss_stacks__render(struct ss_stacks *s, struct ss_frames *sf, const struct stacktab *st, size_t nr)
{
	char num[16];
	s->off = pp_xmalloc((nr + 1) * sizeof(*s->off));
	for (size_t i = 0; i < nr; i++) {
		struct stack_view v;
		stacktab__get(st, i, &v);
		s->off[i] = s->len;
		ss_stacks__put(s, "[", 1);
		bool first = true;
		for (uint32_t j = v.nr; j-- > 0;) {	/* leaf first in the table, outermost first here */
			uint32_t n;
			const uint32_t *idx = ss_frames__of(sf, v.frames[j], &n);
			for (uint32_t k = 0; k < n; k++) {
				int l = snprintf(num, sizeof(num), first ? "%u" : ",%u", idx[k]);
				ss_stacks__put(s, num, (size_t)l);
				first = false;
			}
		}
		ss_stacks__put(s, "]", 1);
	}
	s->off[nr] = s->len;
}

struct ss_profile {
	uint32_t first_stack;	/* for its name */
	size_t nr, start;	/* its samples: seq[order[start .. start + nr)] */
	uint64_t total;
};

static void write_profile(FILE *out, const struct ss_profile *p, const struct stacktab *st, const char *unit,
			  const struct ss_stacks *ss, const struct stack_tick *seq, const size_t *order)
{
	struct stack_view v;
	stacktab__get(st, p->first_stack, &v);
	fputs("{\"type\":\"sampled\",\"name\":", out);
	write_profile_name(out, &v);
	fputs(",\"unit\":", out);
	json__string(out, unit);
	fputs(",\"startValue\":0,\"endValue\":", out);
	json__u64(out, p->total);
	fputs(",\"samples\":[", out);
	for (size_t k = 0; k < p->nr; k++) {
		uint32_t s = seq[order[p->start + k]].stack;
		if (k)
			fputc(',', out);
		fwrite(ss->buf + ss->off[s], 1, ss->off[s + 1] - ss->off[s], out);
	}
	fputs("],\"weights\":[", out);
	for (size_t k = 0; k < p->nr; k++) {
		if (k)
			fputc(',', out);
		json__u64(out, seq[order[p->start + k]].weight);
	}
	fputs("]}", out);
}

size_t speedscope__write(const struct frametab *ft, struct stacktab *st, const struct speedscope_opts *o, FILE *out)
{
	size_t nr_stacks = stacktab__count(st);
	const struct stack_tick *ticks;
	struct stack_tick *own = NULL;
	size_t nr_seq = stacktab__timeline(st, &ticks);

	if (!nr_seq && nr_stacks) {
		/* no timeline kept: one sample per unique stack */
		own = pp_xmalloc(nr_stacks * sizeof(*own));
		for (size_t i = 0; i < nr_stacks; i++) {
			struct stack_view v;
			stacktab__get(st, i, &v);
			own[i] = (struct stack_tick){ .time = 0, .stack = (uint32_t)i, .weight = v.weight };
		}
		ticks = own;
		nr_seq = nr_stacks;
	}

	/* each stack's thread; profiles in order of each thread's first sample */
	struct strtab threads;
	strtab__init(&threads);
	uint32_t *thread = pp_xmalloc((nr_stacks ? nr_stacks : 1) * sizeof(*thread));
	for (size_t i = 0; i < nr_stacks; i++) {
		struct stack_view v;
		stacktab__get(st, i, &v);
		thread[i] = thread_of(&threads, &v);
	}
	uint32_t *prof_of = pp_xmalloc((threads.nr ? threads.nr : 1) * sizeof(*prof_of));
	for (size_t t = 0; t < threads.nr; t++)
		prof_of[t] = NONE;
	struct ss_profile *prof = pp_xcalloc(threads.nr ? threads.nr : 1, sizeof(*prof));
	size_t nr_prof = 0;
	for (size_t k = 0; k < nr_seq; k++) {
		uint32_t t = thread[ticks[k].stack];
		if (prof_of[t] == NONE) {
			prof_of[t] = (uint32_t)nr_prof;
			prof[nr_prof++].first_stack = ticks[k].stack;
		}
		prof[prof_of[t]].nr++;
		prof[prof_of[t]].total += ticks[k].weight;
	}
	/* the samples grouped by profile, each group in time order */
	size_t *order = pp_xmalloc((nr_seq ? nr_seq : 1) * sizeof(*order));
	size_t *fill = pp_xcalloc(nr_prof ? nr_prof : 1, sizeof(*fill));
	for (size_t p = 1; p < nr_prof; p++)
		prof[p].start = prof[p - 1].start + prof[p - 1].nr;
	for (size_t k = 0; k < nr_seq; k++) {
		uint32_t p = prof_of[thread[ticks[k].stack]];
		order[prof[p].start + fill[p]++] = k;
	}
	size_t busiest = 0;
	for (size_t p = 1; p < nr_prof; p++)
		if (prof[p].total > prof[busiest].total)
			busiest = p;

	struct ss_frames sf;
	struct ss_stacks ss = { 0 };
	ss_frames__init(&sf, ft);
	ss_stacks__render(&ss, &sf, st, nr_stacks);

	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",", out);
	write_frames(out, &sf);
	fputs(",\"profiles\":[", out);
	for (size_t p = 0; p < nr_prof; p++) {
		if (p)
			fputc(',', out);
		write_profile(out, &prof[p], st, o->unit ? o->unit : "none", &ss, ticks, order);
	}
	fputs("]", out);
	if (o->name) {
		fputs(",\"name\":", out);
		json__string(out, o->name);
	}
	fputs(",\"activeProfileIndex\":", out);
	json__u64(out, busiest);
	if (o->exporter) {
		fputs(",\"exporter\":", out);
		json__string(out, o->exporter);
	}
	fputs("}\n", out);

	ss_frames__exit(&sf);
	free(ss.buf);
	free(ss.off);
	free(order);
	free(fill);
	free(prof);
	free(prof_of);
	free(thread);
	strtab__free(&threads);
	free(own);
	return nr_prof;
}
