/* pprobe annotate's aggregation and layout: the self samples of a profile
 * read back (pprof, whose locations keep addresses) per function and per
 * sampled address, and one function's instructions (pprobe/probe_finder.h's
 * pf_asm) with each instruction's and each source line's share, laid out
 * as perf annotate --stdio does. Formatting only: which function, and what
 * to say when the object cannot be read, is the command's choice. */
#ifndef PPROBE_ANNOTATE_H
#define PPROBE_ANNOTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pprobe/probe_finder.h"
#include "profile_in.h"

/* A sampled address: first as an offset in the mapped file (so processes
 * that map one object at different places add up), then, once the command
 * has the object, its link-time address. */
struct annotate_hit {
	uint64_t addr;
	double weight, samples;
};

/* A function with self samples, keyed by its name and its object. */
struct annotate_fn {
	const char *name;	/* the physical function of the leaf location (not an inline frame) */
	const char *file;	/* the mapping's file; "" none */
	const char *build_id;	/* hex; "" not known */
	bool kernel;
	double weight, samples;	/* its self total */
	struct annotate_hit *hits;	/* by file offset, ascending, one per offset */
	size_t nr_hits;
	double unmapped;	/* weight of samples without an address in a mapping */
};

struct annotate;

struct annotate *annotate__new(void);		/* never NULL (allocation failure aborts) */
void annotate__delete(struct annotate *a);	/* accepts NULL */

/* A psample_fn: ctx is the annotate. Counts the sample at its leaf. Always 0. */
int annotate__add(void *ctx, const struct psample *s);

/* After the read: some leaf had an address in a mapping (pprof as record
 * writes it; folded stacks have none). */
bool annotate__has_addrs(const struct annotate *a);
double annotate__total(const struct annotate *a);	/* weight of all samples */
/* The functions by self weight, hottest first (valid until delete). */
const struct annotate_fn *annotate__functions(struct annotate *a, size_t *n);

/* One function's instructions with their shares. */
struct annotation_line {
	const char *file;	/* NULL: no line info */
	int line;
	const char *inlined;	/* the inline function it is the code of; NULL none */
	const char *src;	/* its text; NULL unknown */
	double weight;
};

struct annotation {
	const struct pf_asm *as;	/* borrowed */
	double *weight;			/* per instruction of as */
	double total;			/* weight on the function's instructions */
	double samples;			/* samples behind it */
	double outside;			/* weight of hits not in the function's bytes */
	size_t hottest;			/* instruction with the most weight */
	struct annotation_line *lines;	/* source lines, hottest first (ties: by file, line) */
	size_t nr_lines;
};

/* Hits (link-time addresses, ascending) onto as's instructions: a hit inside
 * an instruction counts for it. 0 or -ENOENT when none lands in the function. */
int annotation__build(struct annotation *an, const struct pf_asm *as, const struct annotate_hit *hits,
		      size_t nr_hits);
void annotation__free(struct annotation *an);

struct annotation_print {
	const char *object;	/* the file shown in the header */
	const char *event;	/* "cpu" */
	const char *unit;	/* the weight's, for a header without a sample count */
	bool print_line;	/* -l: file:line beside each source line */
};

/* perf annotate --stdio's layout: the header, then the instructions, a
 * source line above each run of instructions of one line; '>' marks the
 * hottest instruction; then the source lines by share, hottest first. */
void annotation__write(const struct annotation *an, FILE *f, const struct annotation_print *p);

#endif
