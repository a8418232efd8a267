/* pprof: gzip-compressed profile.proto, as go tool pprof, Pyroscope and
 * Parca read it (https://github.com/google/pprof/blob/main/proto/profile.proto,
 * third_party/pprof). */
#ifndef PPROBE_PPROF_H
#define PPROBE_PPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "profile_in.h"
#include "stacks.h"

/* What one event's stacks measure. */
struct pprof_opts {
	const char *event;	/* "cpu-clock", "syscalls:sys_enter_write": the value's name for events */
	bool time;		/* weights measure time (cpu-clock, task-clock, --off-cpu): nanoseconds */
	bool wall;		/* with time: wall-clock time (--off-cpu), "wall" rather than "cpu" */
	/* The stacks' weights are already the measure (ns or events: --weight
	 * period, --off-cpu); else they count samples, each worth period. */
	bool weight_is_value;
	uint64_t period;	/* ns or events per sample; 0: varies (a frequency) */
	int64_t time_nanos;	/* when recording began, ns since the epoch; 0: not known */
	int64_t duration_nanos;
};

/* One event's stacks as a gzip-compressed profile.proto in *buf (malloc'd,
 * the caller frees it). The frame table must be symbolized. Sample values:
 * [samples/count, cpu|wall/nanoseconds] for time, [samples/count,
 * EVENT/count] for events, [samples/count] alone when the events per sample
 * vary; the last is default_sample_type. Labels pid, tid (numbers, where
 * known) and comm on every sample. Returns 0 or -errno. */
int pprof__encode(const struct stacktab *st, const struct frametab *ft, const struct pprof_opts *o,
		  uint8_t **buf, size_t *len);
/* pprof__encode, written to f. 0 or -errno (a failed fwrite: -EIO). */
int pprof__write(const struct stacktab *st, const struct frametab *ft, const struct pprof_opts *o, FILE *f);

/* Decode a profile (gzip-compressed or not) held in buf[0..len) and call fn
 * for each sample: frames from the locations' lines, outermost first
 * (inlined callee frames after their caller, as folded prints them), a
 * location without lines as its object "[libc.so.6]" (or "[unknown]"),
 * comm/pid/tid from the labels (also "thread_id"), weight = the value of
 * default_sample_type, else the last value (as go tool pprof).
 * info->format/sample_type/sample_unit are filled. Input is untrusted: at
 * most 1 GiB decompressed, every index checked. Returns 0, fn's non-zero
 * return, or -errno with a reason in err. */
int pprof__read(const uint8_t *buf, size_t len, psample_fn fn, void *ctx,
		struct profile_info *info, char *err, size_t errlen);

#endif
