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

/* The merged tree (flamegraph.c), drawn by svg.c. Nodes and interned names
 * are addressed by 32-bit indices; node 0 is the root ("all"). */
struct fg_str {
	const char *s;
	uint32_t len;
	uint32_t hash;
};

enum {
	NODE_HAS_DELTA = 1,     /* touched by a differential (two-column) stack */
	NODE_KEPT = 2,          /* wide enough to draw (set by the writer) */
};

struct fg_node {
	uint32_t name;
	uint32_t parent;
	uint32_t first_child;   /* 0: none (the root is nobody's child) */
	uint32_t next_sibling;
	uint32_t depth;
	uint32_t flags;
	double total;           /* counts of all stacks through this frame */
	double self;            /* counts of stacks ending here */
};

/* Child lookup: the key lives in the slot, so probing never touches nodes. */
struct fg_slot {
	uint32_t parent, name, node;    /* node 0: empty */
};

struct fg_chunk;

struct flamegraph {
	struct flamegraph_opts o;
	char *strs_owned[8];
	int palette;
	struct fg_rng rng;

	struct fg_str *strs;
	uint32_t nr_strs, cap_strs;
	uint32_t *str_tab;      /* open addressing: string index + 1 */
	uint32_t str_tab_mask;
	struct fg_chunk *chunks;

	struct fg_node *nodes;
	uint32_t nr_nodes, cap_nodes;
	struct fg_slot *child_tab;
	uint32_t child_tab_mask;
	double *deltas;         /* per node, once a differential stack arrived:
	                         * sum of (after - before) of stacks ending there */
	double *starts;         /* per node, --flamechart only: time of creation */

	uint32_t *path;         /* nodes of the previous stack, depth 1.. */
	size_t path_len, path_cap;

	const char **frames;    /* scratch for splitting a line */
	size_t *lens;
	size_t frames_cap;
	char *scratch;          /* scratch for annotated (chain) names */
	size_t scratch_cap;

	double time;            /* sum of counts (after counts for differentials) */
	double maxdelta;
	uint64_t ignored;
};

/* svg.c */
int fg_write_svg(struct flamegraph *fg, FILE *out);

/* script.c: the interactive part of the SVG (CSS and ECMAScript). */
extern const char fg_script[];

#endif
