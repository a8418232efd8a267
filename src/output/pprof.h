/* pprof: gzip-compressed profile.proto, as go tool pprof, Pyroscope and
 * Parca read it (https://github.com/google/pprof/blob/main/proto/profile.proto). */
#ifndef PPROBE_PPROF_H
#define PPROBE_PPROF_H

#include <stddef.h>
#include <stdint.h>

#include "profile_in.h"

/* Decode a profile (gzip-compressed or not) held in buf[0..len) and call fn
 * for each sample: frames from the locations' lines (inlined callee frames
 * after their caller, as folded prints them), comm/pid/tid from the labels,
 * weight = the first sample value. info->format/sample_type/sample_unit are
 * filled. Returns 0, fn's non-zero return, or -errno with a reason in err. */
int pprof__read(const uint8_t *buf, size_t len, psample_fn fn, void *ctx,
		struct profile_info *info, char *err, size_t errlen);

#endif
