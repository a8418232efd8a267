/* pprobe flame graphs: folded stacks -> interactive SVG, compatible with
 * Brendan Gregg's flamegraph.pl (same input, options, geometry and colours),
 * plus difffolded.pl-style differential profiles.
 *
 * Input is streamed: each distinct stack is kept once, compactly (a few
 * bytes a frame), with its summed counts, so memory follows the distinct
 * stacks, not the input lines; only the frames wide enough to draw are
 * built, when writing. (--flamechart keeps time order and merges only
 * adjacent stacks, as flamegraph.pl does.)
 *
 * Errors: functions returning int return 0 or a negative errno; constructors
 * return NULL with errno set. Nothing here prints or exits. Numbers are read
 * and written with strtod/printf: keep LC_NUMERIC at "C" (pprobe never calls
 * setlocale). Objects are not thread-safe; use one per thread.
 */
#ifndef PPROBE_FLAMEGRAPH_H
#define PPROBE_FLAMEGRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Options, named after flamegraph.pl's. flamegraph_opts__init() fills in
 * flamegraph.pl's defaults; strings are copied by flamegraph__new(). */
struct flamegraph_opts {
	const char *title;      /* --title; NULL: "Flame Graph", "Icicle Graph" (inverted), "Flame Chart" */
	const char *subtitle;   /* --subtitle; NULL or "": none */
	unsigned width;         /* --width: image width in pixels (1200) */
	unsigned height;        /* --height: height of each frame in pixels (16) */
	double minwidth;        /* --minwidth: omit frames narrower than this (0.1) ... */
	bool minwidth_percent;  /* ... pixels, or percent of the total when true ("0.5%") */
	const char *fonttype;   /* --fonttype ("Verdana") */
	double fontsize;        /* --fontsize (12) */
	double fontwidth;       /* --fontwidth: average glyph width / fontsize (0.59) */
	const char *countname;  /* --countname ("samples") */
	const char *nametype;   /* --nametype ("Function:") */
	const char *colors;     /* --colors: hot mem io wakeup chain java js perl red green
	                         * blue aqua yellow purple orange ("hot") */
	const char *bgcolors;   /* --bgcolors: yellow blue green grey or "#rrggbb";
	                         * NULL or "": chosen by palette, as flamegraph.pl */
	bool hash;              /* --hash: colour keyed by a hash of the name */
	bool random;            /* --random: random colours (seeded by random_seed) */
	uint64_t random_seed;   /* seed for --random; 0: time-based */
	bool reverse;           /* --reverse: reverse each stack (merge at the leaves) */
	bool inverted;          /* --inverted: icicle graph, root at the top */
	bool flamechart;        /* --flamechart: keep input (time) order, merge adjacent only */
	bool negate;            /* --negate: swap differential hues (red <-> blue) */
	const char *notes;      /* --notes: text embedded in an XML comment (NULL: none) */
	double total;           /* --total: override the sum of counts (0: none); ignored
	                         * when smaller than the real total, as flamegraph.pl */
	double factor;          /* --factor: scale counts in the labels (1) */
	const char *encoding;   /* --encoding: XML declaration encoding (NULL: none) */
};

void flamegraph_opts__init(struct flamegraph_opts *opts);

struct flamegraph;

/* NULL with errno EINVAL for an unknown --colors or --bgcolors, a
 * non-positive width/height/fontsize, or notes containing '<' or '>'. */
struct flamegraph *flamegraph__new(const struct flamegraph_opts *opts);
void flamegraph__delete(struct flamegraph *fg);

/* One folded line as flamegraph.pl reads it: "frame;frame;... COUNT" or,
 * for a differential, "frame;...;frame COUNT1 COUNT2" (widths from COUNT2,
 * colour from COUNT2 - COUNT1). A trailing '\n' is ignored. Lines that
 * flamegraph.pl ignores (no whitespace-separated count at the end) are
 * counted (flamegraph__ignored()) and return 0; -ENOMEM on allocation
 * failure. */
int flamegraph__add_line(struct flamegraph *fg, const char *line);

/* flamegraph.pl's line grammar, for other readers of folded stacks:
 * /^(.*)\s+?(\d+(?:\.\d*)?)$/ applied once, and once more for an optional
 * second count column ("stack BEFORE AFTER", difffolded's output). line[0..len)
 * excludes the '\n'. On success *stack_len is the length of the stack part,
 * *count1 the (first) count, *count2 and *has2 the second when there is one.
 * -EINVAL when the line does not match (flamegraph.pl ignores such lines). */
int folded_line__parse(const char *line, size_t len, size_t *stack_len, double *count1, double *count2,
		       bool *has2);

/* A stack: frames[0] is the outermost (the comm in pprobe's folded output),
 * frames[n-1] the leaf. Frames are used as given (no ';' splitting). */
int flamegraph__add_stack(struct flamegraph *fg, const char *const *frames, size_t n,
			  uint64_t count);

/* The differential form: width from `after`, colour from after - before. */
int flamegraph__add_diff_stack(struct flamegraph *fg, const char *const *frames, size_t n,
			       double before, double after);

/* Writes the SVG. With no counts at all it writes flamegraph.pl's error SVG
 * and returns -ENODATA; -EIO when writing fails. May be called again after
 * more input. */
int flamegraph__write_svg(struct flamegraph *fg, FILE *out);

uint64_t flamegraph__ignored(const struct flamegraph *fg);  /* lines skipped as invalid */
double flamegraph__total(const struct flamegraph *fg);      /* sum of (after) counts */
size_t flamegraph__nr_stacks(const struct flamegraph *fg);  /* distinct stacks kept */

/* difffolded.pl: two folded profiles -> "stack COUNT_BEFORE COUNT_AFTER"
 * lines (0 where a stack is missing from one side). */
struct folded_diff_opts {
	bool normalize;         /* -n: scale BEFORE counts so both totals match */
	bool strip_hex;         /* -s: replace hex numbers 0x... with "0x..." */
	bool no_comm;           /* --no-comm: join without the root frame (the program name), so
	                         * ./app.orig and ./app compare; a stack of the root alone is kept */
};

struct folded_diff;

struct folded_diff *folded_diff__new(const struct folded_diff_opts *opts);
void folded_diff__delete(struct folded_diff *d);
/* side 0: BEFORE, side 1: AFTER. Invalid lines are skipped (and counted). */
int folded_diff__add_line(struct folded_diff *d, int side, const char *line);
uint64_t folded_diff__ignored(const struct folded_diff *d);
/* Writes all stacks, sorted bytewise, "stack c1 c2\n"; -EIO on write error. */
int folded_diff__write(struct folded_diff *d, FILE *out);
/* Feeds the two-column stacks to a flame graph (the --svg path), as their
 * "stack BEFORE AFTER" lines in sorted order would. To a flame graph with no
 * input yet (and no --reverse or chain palette) the stacks are handed over,
 * not copied: the diff is empty afterwards. */
int folded_diff__to_flamegraph(struct folded_diff *d, struct flamegraph *fg);

#endif
