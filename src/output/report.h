/* pprobe report's aggregation: perf report --stdio's view of a profile read
 * back (profile_in.h). Per entry (a tuple of sort keys: comm, pid, tid, dso,
 * sym) the weight of samples whose leaf it is (self) and of samples that
 * have it anywhere on the stack, once per sample even under recursion
 * (children, perf report --children); the callers or callees tree of one
 * function; and perf diff's per-function table of two reports. Formatting
 * only: what to print is the command's choice. */
#ifndef PPROBE_REPORT_H
#define PPROBE_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "profile_in.h"
#include "stacks.h"

enum report_key { REPORT_COMM, REPORT_PID, REPORT_TID, REPORT_DSO, REPORT_SYM, REPORT_NR_KEYS };

struct report_opts {
	enum report_key keys[REPORT_NR_KEYS];	/* the sort keys, in column order */
	size_t nr_keys;				/* 0: perf's default comm,dso,sym */
	const int64_t *pids, *tids;		/* keep only these (NULL: all) */
	size_t nr_pids, nr_tids;
	const char *tree_func;			/* build the tree of this function (exact name) */
	bool tree_callers;			/* its callers (innermost occurrence up to the root);
						   else its callees (outermost occurrence down to the leaf) */
};

/* "comm,dso,sym" -> keys; -EINVAL for an unknown or repeated key (its name
 * in bad, at most badlen bytes). */
int report_keys__parse(const char *s, enum report_key *keys, size_t *nr, char *bad, size_t badlen);

struct report;

struct report *report__new(const struct report_opts *o);	/* copies o (not the arrays it points to) */
void report__delete(struct report *r);

/* A psample_fn: ctx is the report. Always returns 0. */
int report__add(void *ctx, const struct psample *s);

/* Every stack of st (its frames symbolized in ft) as a psample into the
 * report: the frames outermost first, each inlined function a frame of its
 * own as folded output shows it, weighed by the stack's weight (samples:
 * its number of adds). For a live view of a table that record fills
 * (pprobe top): the same aggregation as a profile read back. */
void report__add_stacks(struct report *r, const struct stacktab *st, const struct frametab *ft);

double report__total(const struct report *r);	/* weight of the samples kept */
uint64_t report__samples(const struct report *r);	/* psamples kept: folded lines, pprof Samples (stacks) */
double report__count(const struct report *r);	/* their psample.samples summed (pprof's samples/count) */
bool report__has_pids(const struct report *r);	/* some input sample had a pid */
bool report__has_tids(const struct report *r);
bool report__has_tree(const struct report *r);	/* tree_func was on some kept stack */

struct report_print {
	bool children;		/* Children and Self columns, by children; else Self by self */
	double percent_limit;	/* hide rows under this percentage (of the column sorted by) */
};
/* One row of the table: its column texts (nr_keys of them, in the sort
 * keys' order), its weights, and the function it stands for (the name
 * report_opts.tree_func takes; "" for a sample without frames). Valid until
 * the next report__add or report__delete. */
struct report_row {
	const char *col[REPORT_NR_KEYS];
	const char *func;
	double self, children;
};
/* The rows report__write_table prints, in its order (p as there): an
 * array of *nr rows, malloc'd, the caller's to free. */
struct report_row *report__rows(struct report *r, const struct report_print *p, size_t *nr);
/* The column titles of the sort keys ("Shared Object", "Symbol"), nr_keys. */
size_t report__titles(const struct report *r, const char **titles);

/* The table, perf report --stdio style: a column line, then one row per entry. */
void report__write_table(struct report *r, FILE *f, const struct report_print *p);

/* The tree of tree_func: one line per node, "PCT%  name" indented two
 * blanks a level, children by weight; nodes under percent_limit left out. */
void report__write_tree(struct report *r, FILE *f, double percent_limit);

/* perf diff's view: per entry, self percentage in before and after and the
 * change, by |change|; rows whose both percentages are under percent_limit
 * left out. Both reports need the same keys. */
void report__write_diff(struct report *before, struct report *after, FILE *f, double percent_limit);

#endif
