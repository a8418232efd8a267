/* Internals shared by the flamegraph/ files. Not installed, not public. */
#ifndef PPROBE_FLAMEGRAPH_INTERNAL_H
#define PPROBE_FLAMEGRAPH_INTERNAL_H

#include <errno.h>
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

/* What the input is kept as (store.c): every distinct stack once, as the
 * varint-encoded indices of its interned frame names, with its summed
 * counts. Nothing is merged into a tree while reading: only the frames wide
 * enough to draw are ever built (layout.c), so memory follows the encoded
 * input (a few bytes per frame) and CPU the bytes read. */
struct fg_str {
	const char *s;          /* NUL-terminated, zero-padded to whole words */
	uint32_t len;
	uint32_t hash;
};

enum {
	NODE_HAS_DELTA = 1,     /* touched by a differential (two-column) stack */
};

struct fg_stack {
	const uint8_t *ids;     /* varint(name index + 1)..., then 0 */
	double v[2];            /* the owner's sums: (count, delta) or (before, after) */
};

struct fg_chunk;

struct fg_store {
	struct fg_str *strs;    /* index 0 is "" */
	uint32_t nr_strs, cap_strs;
	uint64_t *str_tab;      /* open addressing: hash << 32 | (string index + 1) */
	uint32_t str_tab_mask;
	struct fg_chunk *chunks;        /* names */
	struct fg_chunk *id_chunks;     /* encoded stacks */
	struct fg_stack *stacks;
	uint32_t nr_stacks, cap_stacks;
	uint64_t *stack_tab;    /* hash << 32 | (stack index + 1); NULL when only a stack
	                         * equal to the one just before merges (a flame chart) */
	uint32_t stack_tab_mask;
	uint8_t *enc;           /* the stack being encoded */
	size_t enc_len, enc_cap;
};

int fg_store__init(struct fg_store *st, bool adjacent_only);
void fg_store__exit(struct fg_store *st);
/* The name's index, or -ENOMEM. */
int64_t fg_store__intern(struct fg_store *st, const char *s, size_t len);
int fg_store__reserve(struct fg_store *st, size_t more);

/* A stack is built by fg_store__add()ing its names after setting enc_len
 * to 0, then fg_store__end() keeps its first `keep` bytes (enc_len, or
 * less to drop trailing names): the index of the same stack stored before,
 * or of a new one (*is_new, with v zero), or -ENOMEM. */
static inline int fg_store__add(struct fg_store *st, uint32_t name)
{
	if (st->enc_len + 6 > st->enc_cap && fg_store__reserve(st, 6))
		return -ENOMEM;
	uint8_t *p = st->enc + st->enc_len;
	uint64_t v = (uint64_t)name + 1;
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	st->enc_len = (size_t)(p - st->enc);
	return 0;
}

int64_t fg_store__end(struct fg_store *st, size_t keep, bool *is_new);

/* Decodes the next name at *p: its index + 1, or 0 at the stack's end. */
static inline __attribute__((always_inline)) uint32_t fg_next_id(const uint8_t **p)
{
	const uint8_t *q = *p;
	uint32_t v = *q & 0x7f;
	for (unsigned shift = 7; *q++ & 0x80; shift += 7)
		v |= (uint32_t)(*q & 0x7f) << shift;
	*p = q;
	return v;
}

/* Grows *arr (of *cap elements) to hold need; 0 or -ENOMEM. */
int fg_grow(void **arr, uint32_t *cap, size_t elem, uint32_t need);

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

struct flamegraph {
	struct flamegraph_opts o;
	char *strs_owned[9];
	int palette;
	struct fg_rng rng;

	struct fg_store st;     /* stacks' v: (count, sum of after - before) */
	uint8_t *sflags;        /* per stack, once a differential stack arrived: NODE_HAS_DELTA */
	double *sstarts;        /* per stack, --flamechart only: the time before it */
	uint32_t *order;        /* the order the first nr_order stacks came in, when it is
	                         * not their index order (fg_adopt) */
	uint32_t nr_order;
	uint32_t cap_side;      /* of sflags and sstarts */

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

/* A flame graph with no input yet, no --reverse and no chain palette can
 * take over a store of differential stacks (diff.c): v (BEFORE, AFTER),
 * names split at every ';' (trailing empty ones are dropped here), in the
 * given order (taken too), as if their "stack BEFORE AFTER" lines had been
 * added in that order. The store is left empty. */
bool fg_can_adopt(const struct flamegraph *fg);
int fg_adopt(struct flamegraph *fg, struct fg_store *st, uint32_t *order, uint32_t nr);

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
