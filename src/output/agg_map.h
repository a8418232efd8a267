/* The aggregation table of pprobe trace --count/--sum/--hist/... (issue 29):
 * keys (a tuple of integers and strings: comm, pid, a field, a folded
 * stack) -> one aggregate each, as a bpftrace map keeps them, printed as
 * bpftrace 0.17 prints maps:
 *
 *   count/sum/min/max  "@[bash, 1234]: 3" a key a line, by value ascending
 *   avg                "@[bash]: 12", by average, then a blank line
 *   stats              "@[bash]: count N, average A, total T", by average,
 *                      then a blank line
 *   hist/lhist         "@[bash]: " (trailing space), the buckets
 *                      (agg_hist__print), a blank line; by total count
 *
 * equal values ordered by key (numbers numerically, strings bytewise), so
 * that the output is deterministic where bpftrace's is not. Unkeyed maps
 * print "@: N"; an unkeyed count or sum with nothing counted prints "@: 0".
 *
 * Memory is bounded: a map holds keys and buckets up to max_bytes (its
 * hash table included); an event of a new key past that is not counted
 * and is added to agg_map__dropped(). Keys already there keep counting. */
#ifndef PPROBE_AGG_MAP_H
#define PPROBE_AGG_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "agg_hist.h"

enum agg_op {
	AGG_COUNT,
	AGG_SUM,
	AGG_MIN,
	AGG_MAX,
	AGG_AVG,
	AGG_STATS,
	AGG_HIST,	/* log2 */
	AGG_LHIST,	/* linear */
};

/* "count", "sum", ..., "lhist" */
const char *agg_op__name(enum agg_op op);

/* The default bound of a map's memory (agg_map__new's max_bytes 0). */
#define AGG_MAP_DEFAULT_MAX_BYTES (64u << 20)

/* A key being built: its parts appended in order, encoded into bytes
 * (a map copies them). Reuse one for every event: agg_key__reset. */
struct agg_key {
	unsigned char *buf;
	size_t len, cap;
	unsigned nr;		/* parts */
};

void agg_key__reset(struct agg_key *k);
void agg_key__int(struct agg_key *k, int64_t v);	/* printed signed */
void agg_key__uint(struct agg_key *k, uint64_t v);	/* printed unsigned */
/* A string of at most len bytes, ending at its first NUL if before. */
void agg_key__str(struct agg_key *k, const char *s, size_t len);
void agg_key__exit(struct agg_key *k);

struct agg_map;

/* A map of op; lin: the linear histogram's bounds for AGG_LHIST (copied;
 * agg_linear__check'ed by the caller), else NULL. keyed: its keys have
 * parts (printed "@[...]"), else one unkeyed value ("@"). max_bytes 0:
 * AGG_MAP_DEFAULT_MAX_BYTES. NULL + errno (ENOMEM). */
struct agg_map *agg_map__new(enum agg_op op, const struct agg_linear *lin, bool keyed, size_t max_bytes);
void agg_map__delete(struct agg_map *m);

/* One event of key k and value v (ignored by AGG_COUNT). 0, or -ENOSPC:
 * a new key past max_bytes, not counted (agg_map__dropped). */
int agg_map__add(struct agg_map *m, const struct agg_key *k, int64_t v);

size_t agg_map__nr(const struct agg_map *m);
/* Events of keys that did not fit, since the map was made (clear keeps it). */
uint64_t agg_map__dropped(const struct agg_map *m);
/* Forget every key (bpftrace's clear()). */
void agg_map__clear(struct agg_map *m);

/* The map as bpftrace prints it (above), named name ("@", "@bytes"). */
void agg_map__print(const struct agg_map *m, FILE *out, const char *name);

/* The map's entries as a JSON array, in the text's order:
 *   [{"key":[PART, ...],"value":VALUE}, ...]
 * PART a number or a string; VALUE a number (count, sum, min, max, avg),
 * {"count":N,"average":A,"total":T} (stats), or for histograms the
 * non-empty buckets as bpftrace -f json writes them: [{"min":LO,"max":HI,
 * "count":N}, ...] with inclusive bounds, "min" left out below the first
 * bucket ((..., 0) or (..., MIN)) and "max" past the last ([MAX, ...)). */
void agg_map__print_json(const struct agg_map *m, FILE *out);

#endif
