/* Reading a profile back: folded stacks or pprof, as one stream of samples.
 *
 * `pprobe flamegraph`, `diff` and `report` read what `record` wrote (or what
 * perf script | stackcollapse-perf.pl, go tool pprof, Pyroscope... wrote).
 * profile_in__read() detects the format by content (gzip or protobuf:
 * pprof; anything else: folded lines) and calls fn once per sample, in file
 * order. Strings in a psample are valid only during the call. */
#ifndef PPROBE_PROFILE_IN_H
#define PPROBE_PROFILE_IN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* pprof: the Mapping a location lies in, as the profile says it. */
struct pmapping {
	uint64_t start, limit;	/* [memory_start, memory_limit) */
	uint64_t offset;	/* file_offset that start maps */
	const char *file;	/* "" not known */
	const char *build_id;	/* as written (pprobe: hex); "" not known */
};

struct pframe {
	const char *name;	/* function, as folded prints it without the _[k]/_[i]/_[j] suffix */
	const char *dso;	/* object ("libc.so.6", "[kernel.kallsyms]"); NULL: not known */
	bool kernel;		/* _[k] */
	bool inlined;		/* _[i] */
	bool jit;		/* _[j] */
	/* pprof: the location's address (the leaf's ip, a caller's return
	 * address), the same for its inline frames; 0 not known (folded) */
	uint64_t addr;
	const struct pmapping *map;	/* pprof: the location's mapping; NULL none (folded) */
};

struct psample {
	const char *comm;	/* program name (the folded root frame, pprof label "comm"); NULL: none */
	int64_t pid, tid;	/* -1: not known */
	const struct pframe *frames;	/* outermost first; the comm root frame is not one of them */
	size_t nr;
	double weight;
	double samples;		/* pprof with a samples/count type (info->has_samples): that value */
};

enum profile_format { PROFILE_FOLDED, PROFILE_PPROF };

struct profile_info {
	enum profile_format format;
	/* pprof: the first sample type ("cpu", "nanoseconds"), else "samples", "count" */
	char sample_type[64], sample_unit[64];
	/* pprof: the profile has a samples/count value besides (or as) the one
	 * read as weight; psample.samples carries it */
	bool has_samples;
	uint64_t lines, ignored;	/* folded: lines read, lines that were not "stack COUNT" */
};

typedef int (*psample_fn)(void *ctx, const struct psample *s);

/* path "-" is stdin. A non-zero return of fn stops the read and is returned.
 * Returns 0 or -errno with a one-line reason in err. */
int profile_in__read(const char *path, psample_fn fn, void *ctx, struct profile_info *info,
		     char *err, size_t errlen);

/* For commands that keep folded text as it is (flamegraph, diff: two count
 * columns, lines flamegraph.pl reads its own way): folded input goes to
 * line_fn line by line as it is read (without its '\n'), pprof input to fn
 * as samples. Returns as profile_in__read(). */
typedef int (*pline_fn)(void *ctx, const char *line);
int profile_in__read_lines(const char *path, pline_fn line_fn, psample_fn fn, void *ctx,
			   struct profile_info *info, char *err, size_t errlen);

/* The letter of a folded label's _[k]/_[i]/_[j] suffix (kernel, inlined,
 * JIT), 0 for none; n the label's length. */
char folded__suffix(const char *label, size_t n);

/* A sample as the folded stack record writes: "comm;outer;...;leaf" with the
 * _[k]/_[i]/_[j] suffixes, "[unknown]" for no comm, ';' in names made ':'
 * (no count). *buf (malloc'd, *cap bytes) grows as needed; returns the
 * length. */
size_t psample__folded(const struct psample *s, char **buf, size_t *cap);

#endif
