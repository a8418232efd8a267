/* pprof: gzip-compressed profile.proto, as go tool pprof, Pyroscope and
 * Parca read it (https://github.com/google/pprof/blob/main/proto/profile.proto,
 * third_party/pprof). */
#ifndef PPROBE_PPROF_H
#define PPROBE_PPROF_H

#include <stddef.h>
#include <stdint.h>

#include "profile_in.h"

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
