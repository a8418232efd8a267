/* Stack tables spilled to disk: a long run's memory stays within a bound
 * however many distinct stacks it sees (record --max-tables). Each spill
 * writes a table's folded lines (sorted, merged: stacktab__folded) to an
 * unlinked temporary file, a run; at the end the runs and the last table
 * are merged into the lines the whole table would have given, byte for
 * byte: sorted, identical lines' weights summed. */
#ifndef PPROBE_SPILL_H
#define PPROBE_SPILL_H

#include <stddef.h>

#include "stacks.h"

struct spill;

/* Runs in $TMPDIR, else /tmp, made unlinked (O_TMPFILE, else unlinked at
 * once): nothing is left behind on any exit. NULL: out of memory. */
struct spill *spill__new(void);
void spill__delete(struct spill *s);

/* st's folded lines (its frame table symbolized) as a new run; the caller
 * clears st after. More than SPILL_MAX_RUNS runs are merged into one (a
 * bounded number of open files; where that fails, at the next add). 0,
 * or -errno (the disk: no run was added, st is kept). */
#define SPILL_MAX_RUNS 16
int spill__add(struct spill *s, struct stacktab *st);
size_t spill__runs(const struct spill *s);
/* Bytes written to runs so far (the disk a run used, merges included). */
unsigned long long spill__bytes(const struct spill *s);

/* Every run's lines and st's, merged, to fn in stacktab__folded's order;
 * returns the number of lines, *err set to 0 or -errno. st joins the runs
 * at the first merge: a merge again (another output of the same table)
 * gives the same lines, whatever st holds then. No spill__add after.
 * Where the disk refuses st's lines, they are merged from memory. */
size_t spill__merge(struct spill *s, struct stacktab *st, folded_line_fn fn, void *ctx, int *err);
/* The lines of a table that may have been spilled: spill__merge where s
 * is not NULL, else stacktab__folded (*err 0). */
size_t spill__folded(struct spill *s, struct stacktab *st, folded_line_fn fn, void *ctx, int *err);

#endif
