/* Aggregating stacks online, symbolizing once at the end.
 *
 * A frame is interned at sample time as (kind, mapping snapshot, address):
 * the mapping is copied then, so later exec/munmap/exit cannot change what an
 * address meant. Each event has its own stack table over the shared frame
 * table; at the end every unique frame is symbolized once and the stacks are
 * written as sorted, merged folded lines. */
#ifndef PPROBE_STACKS_H
#define PPROBE_STACKS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "pprobe/maps.h"
#include "pprobe/symbolize.h"

struct frametab;
struct stacktab;

struct frametab *frametab__new(void);
void frametab__delete(struct frametab *ft);

/* m may be NULL (address not mapped): the frame prints as "[unknown]". */
uint32_t frametab__user(struct frametab *ft, pid_t pid, const struct map *m,
			uint64_t addr, bool is_return);
uint32_t frametab__kernel(struct frametab *ft, uint64_t addr, bool is_return);
/* A synthetic frame printed as is, e.g. "[truncated]", "[no-cfi libfoo.so]". */
uint32_t frametab__special(struct frametab *ft, const char *name);
size_t frametab__count(const struct frametab *ft);

/* Symbolize every frame not yet symbolized. */
void frametab__symbolize(struct frametab *ft, struct symbolizer *sym);

struct stacktab *stacktab__new(struct frametab *ft);
void stacktab__delete(struct stacktab *st);
/* frames[0] is the leaf (innermost), frames[n-1] the outermost. */
void stacktab__add(struct stacktab *st, const char *comm, const uint32_t *frames,
		   uint32_t n, uint64_t weight);
size_t stacktab__count(const struct stacktab *st);
uint64_t stacktab__total(const struct stacktab *st);

/* Folded lines "comm;outer;...;leaf WEIGHT", sorted, identical lines merged.
 * The frame table must be symbolized. Calls fn for each line (no newline);
 * returns the number of lines. */
typedef void (*folded_line_fn)(void *ctx, const char *stack, uint64_t weight);
size_t stacktab__folded(struct stacktab *st, folded_line_fn fn, void *ctx);
/* Convenience: write the lines to f. */
size_t stacktab__write_folded(struct stacktab *st, FILE *f);

#endif
