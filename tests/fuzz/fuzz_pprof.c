/* A pprof profile (gzip or raw profile.proto; report, flamegraph and diff
 * read any a user hands them) through pprof__read, the bounds checked
 * before protobuf-c decodes it. Asserts what the reader promises: every
 * sample's frames are there (nr of them, each named or with an object or
 * neither, never a dangling string; a frame's mapping, where it has one,
 * readable to its strings, as annotate reads it), a refusal says why. */
#include "fuzz.h"
#include "pprof.h"

static int sample(void *ctx, const struct psample *s)
{
	size_t *n = ctx;

	if (s->nr && !s->frames)
		abort();
	for (size_t i = 0; i < s->nr; i++) {
		if (s->frames[i].name)
			*n += strlen(s->frames[i].name);
		if (s->frames[i].dso)
			*n += strlen(s->frames[i].dso);
		const struct pmapping *m = s->frames[i].map;
		if (m)
			*n += strlen(m->file) + strlen(m->build_id) + (m->start < m->limit);
	}
	if (s->comm)
		*n += strlen(s->comm);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct profile_info info;
	char why[400] = "";
	size_t n = 0;

	int err = pprof__read(data, size, sample, &n, &info, why, sizeof(why));
	if (err < 0 && !why[0])
		abort();	/* a refusal says why */
	return 0;
}
