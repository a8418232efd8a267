/* A profile file as report, flamegraph and diff read it (profile_in.c):
 * the input as a file (a memfd), its format told by content (gzip or a
 * protobuf: pprof; anything else: folded lines, one grammar, NUL and the
 * 16 MiB line cap included), read both ways: as samples (report) and as
 * lines with pprof samples folded (flamegraph, diff). Asserts the reader's
 * promises: a line handed on has no NUL and is no longer than the cap, a
 * sample's frames are there, lines read >= lines ignored, a refusal says
 * why. */
#include "fuzz.h"
#include "profile_in.h"

struct seen {
	size_t samples, lines, bytes;
};

static int sample(void *ctx, const struct psample *s)
{
	struct seen *n = ctx;
	if (s->nr && !s->frames)
		abort();
	for (size_t i = 0; i < s->nr; i++)
		n->bytes += s->frames[i].name ? strlen(s->frames[i].name) : 0;
	n->samples++;
	return 0;
}

static int line(void *ctx, const char *l)
{
	struct seen *n = ctx;
	size_t len = strlen(l);
	if (len > (16u << 20))
		abort();
	n->bytes += len;
	n->lines++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64], err[512];
	int fd = fuzz_memfd(data, size, path, sizeof(path));
	if (fd < 0)
		return 0;
	struct profile_info info;
	struct seen s = { 0 };
	err[0] = '\0';
	int ret = profile_in__read(path, sample, &s, &info, err, sizeof(err));
	if (ret < 0 && !err[0])
		abort();	/* a refusal says why */
	if (!ret && info.format == PROFILE_FOLDED && info.ignored > info.lines)
		abort();
	struct seen l = { 0 };
	err[0] = '\0';
	ret = profile_in__read_lines(path, line, sample, &l, &info, err, sizeof(err));
	if (ret < 0 && !err[0])
		abort();
	close(fd);
	return 0;
}
