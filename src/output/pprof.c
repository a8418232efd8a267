/* Placeholder until the profile.proto decoder lands (issue 14, part 1):
 * pprof input is refused with a clear reason, never misread. */
#include "pprof.h"

#include <errno.h>
#include <stdio.h>

int pprof__read(const uint8_t *buf, size_t len, psample_fn fn, void *ctx,
		struct profile_info *info, char *err, size_t errlen)
{
	(void)buf, (void)len, (void)fn, (void)ctx, (void)info;
	snprintf(err, errlen, "pprof input is not supported yet");
	return -ENOTSUP;
}
