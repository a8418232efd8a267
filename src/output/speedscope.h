/* speedscope's file format (https://www.speedscope.app/file-format-schema.json,
 * speedscope's src/lib/file-format-spec.ts): the writer behind record's
 * --format speedscope and -o FILE.speedscope.json. */
#ifndef PPROBE_SPEEDSCOPE_H
#define PPROBE_SPEEDSCOPE_H

#include <stddef.h>
#include <stdio.h>

#include "stacks.h"

struct speedscope_opts {
	const char *name;	/* the profile group's name (speedscope's title); NULL: none */
	const char *unit;	/* of the weights: "nanoseconds" (cpu-clock, --off-cpu) or "none" */
	const char *exporter;	/* "pprobe@VERSION"; NULL: none */
};

/* st (its frame table ft symbolized) as one speedscope file on out:
 * shared.frames one per distinct (folded name, source file), named as the
 * folded output names them ("fn_[k]", "fn_[i]", "[libc.so.6]"); one
 * "sampled" profile per thread (comm, pid, tid), named "COMM pid: PID tid:
 * TID" as speedscope names the threads of `perf script` input, in order of
 * each thread's first sample; its samples (frame lists, outermost first)
 * in time order with their weights when st keeps a timeline, else one per
 * unique stack with its summed weight; startValue 0, endValue the sum of
 * the weights; activeProfileIndex the thread of the largest sum. Write
 * errors show in ferror(out). Returns the number of profiles (threads). */
size_t speedscope__write(const struct frametab *ft, struct stacktab *st, const struct speedscope_opts *o,
			 FILE *out);

#endif
