/* Internals shared by the flamegraph/ files. Not installed, not public. */
#ifndef PPROBE_FLAMEGRAPH_INTERNAL_H
#define PPROBE_FLAMEGRAPH_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pprobe/flamegraph.h"

/* folded.c: flamegraph.pl's line grammar, /^(.*)\s+?(\d+(?:\.\d*)?)$/ applied
 * once, and once more for an optional second count column. On success
 * *stack_len is the length of the stack part; *count2 is set (and *has2
 * true) for two columns, *count1 being the first. -EINVAL when the line
 * does not match. `len` excludes any trailing '\n' already. */
int folded__parse(const char *line, size_t len, size_t *stack_len,
		  double *count1, double *count2, bool *has2);

/* One count column only: /^(.*)\s+?(\d+(?:\.\d*)?)$/ */
int folded__parse_count(const char *line, size_t len, size_t *stack_len, double *count);

/* Perl prints numbers with %.15g; so do we, for compatible geometry. */
void fmt_num(char *buf, size_t size, double v);

/* UTF-8 decoding tolerant of garbage: returns the code point at s (of at
 * most n bytes) and its length in *adv; an invalid byte decodes to itself
 * with *valid false. */
uint32_t utf8_next(const unsigned char *s, size_t n, size_t *adv, bool *valid);

/* XML-escapes s (& < > " '), replacing bytes that are not valid UTF-8 and
 * characters XML 1.0 forbids with U+FFFD. */
void xml_escape(FILE *out, const char *s, size_t len);

/* colors.c */
struct fg_rng {
	uint64_t x;             /* Perl's drand48 state */
};
void fg_rng__seed(struct fg_rng *r, uint32_t seed);
double fg_rng__next(struct fg_rng *r);

enum fg_palette {
	PAL_HOT, PAL_MEM, PAL_IO, PAL_WAKEUP, PAL_CHAIN, PAL_JAVA, PAL_JS, PAL_PERL,
	PAL_RED, PAL_GREEN, PAL_BLUE, PAL_AQUA, PAL_YELLOW, PAL_PURPLE, PAL_ORANGE,
	PAL_NR
};
int fg_palette__parse(const char *name);      /* -EINVAL when unknown */
const char *fg_palette__name(int pal);
/* The colour flamegraph.pl's color() gives `name` (with its annotation). */
void fg_color(int pal, bool hash, struct fg_rng *random, const char *name, size_t len,
	      int rgb[3]);
/* color_scale(): differential red/blue. */
void fg_color_scale(double delta, double maxdelta, bool negate, int rgb[3]);

/* What the input is kept as (flamegraph.c): every distinct stack once, as
 * the varint-encoded indices of its interned frame names, with its summed
 * counts. Nothing is merged into a tree while reading: only the frames wide
 * enough to draw are ever built (layout.c), so memory follows the encoded
 * input (a few bytes per frame) and CPU the bytes read. */
struct fg_str {
	const char *s;
	uint32_t len;
	uint32_t hash;
};

enum {
	NODE_HAS_DELTA = 1,     /* touched by a differential (two-column) stack */
};

struct fg_stack {
	const uint8_t *ids;     /* varint(name index + 1)..., then 0 */
	double count;           /* sum of the (after) counts of its lines */
};

/* A frame wide enough to draw (layout.c), in drawing order: depth first,
 * siblings sorted by name (by time for a flame chart). */
struct fg_node {
	uint32_t name;
	uint32_t depth;
	uint32_t flags;
	double total;           /* counts of all stacks through this frame */
	double start;           /* where it starts, in counts from the left */
	double delta;           /* sum of (after - before) of stacks ending here */
};

struct fg_chunk;

struct flamegraph {
	struct flamegraph_opts o;
	char *strs_owned[8];
	int palette;
	struct fg_rng rng;

	struct fg_str *strs;
	uint32_t nr_strs, cap_strs;
	uint64_t *str_tab;      /* open addressing: hash << 32 | (string index + 1) */
	uint32_t str_tab_mask;
	struct fg_chunk *chunks;        /* names */
	struct fg_chunk *id_chunks;     /* encoded stacks */

	struct fg_stack *stacks;
	uint32_t nr_stacks, cap_stacks;
	uint64_t *stack_tab;    /* hash << 32 | (stack index + 1); none for a flame chart,
	                         * which merges only a stack equal to the one before */
	uint32_t stack_tab_mask;
	double *sdeltas;        /* per stack, once a differential stack arrived: */
	uint8_t *sflags;        /* sum of (after - before), NODE_HAS_DELTA */
	double *sstarts;        /* per stack, --flamechart only: the time before it */

	uint8_t *enc;           /* scratch: the stack being encoded */
	size_t enc_cap;
	const char **frames;    /* scratch for splitting a line */
	size_t *lens;
	size_t frames_cap;
	char *scratch;          /* scratch for annotated (chain) names */
	size_t scratch_cap;

	double time;            /* sum of counts (after counts for differentials) */
	double maxdelta;
	bool any_delta;
	uint64_t ignored;
};

/* layout.c: the frames at least `minwidth_time` wide, whose parents are too,
 * in drawing order; *depthmax is the deepest. 0 or -ENOMEM. */
int fg_layout(const struct flamegraph *fg, double minwidth_time, struct fg_node **nodes,
	      size_t *nr, uint32_t *depthmax);

/* Sibling order: flamegraph.pl sorts whole lines, so a frame name compares
 * as if followed by ';' (its children's lines). */
int fg_name_cmp(const struct fg_str *a, const struct fg_str *b);

/* svg.c */
int fg_write_svg(struct flamegraph *fg, FILE *out);

/* script.c: the interactive part of the SVG (CSS and ECMAScript). */
extern const char fg_script[];

#endif
