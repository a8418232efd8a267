/* Folded stacks as an SVG flame graph (through flamegraph/): the writer
 * behind record's --format svg and -o FILE.svg. */
#ifndef PPROBE_SVG_H
#define PPROBE_SVG_H

#include <stddef.h>
#include <stdio.h>

#include "stacks.h"

struct spill;

/* The folded lines of st (its frame table symbolized), merged with the
 * runs spilled from it where sp is not NULL, drawn as one interactive
 * flame graph on out, titled TITLE, widths counted in COUNTNAME
 * ("samples", "events"). *lines gets the number of unique stacks drawn.
 * 0, or -errno (-ENODATA: no stacks). */
int stacktab__write_svg(struct stacktab *st, struct spill *sp, const char *title, const char *countname, FILE *out,
			size_t *lines);

#endif
