/* Reading profiles back (profile_in.c): folded lines -> samples with the
 * root frame's comm/pid/tid (comm, comm-PID, comm-PID/TID, comm/TID), the
 * _[k]/_[i]/_[j] suffixes as flags, "[libc.so.6]" frames with their object,
 * flamegraph.pl's count grammar (fractions, a second column, lines it
 * ignores), lines longer than the read buffer, no final newline; gzip and
 * protobuf input go to the pprof decoder, text with a control byte does not;
 * psample__folded writes what it read. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "profile_in.h"

#define MAXS 16
struct got {
	size_t n;
	char comm[MAXS][64];
	long long pid[MAXS], tid[MAXS];
	double w[MAXS];
	char folded[MAXS][256];	/* psample__folded */
	char flags[MAXS][64];	/* per frame: k, i, j or . */
	char dso[MAXS][256];	/* per frame: its dso or -, ',' between */
	size_t nr[MAXS];
	size_t longest;
};

static int collect(void *ctx, const struct psample *s)
{
	struct got *g = ctx;
	if (s->nr > g->longest)
		g->longest = s->nr;
	if (g->n == MAXS)
		return 0;
	size_t i = g->n++;
	snprintf(g->comm[i], sizeof(g->comm[i]), "%s", s->comm ? s->comm : "(null)");
	g->pid[i] = s->pid, g->tid[i] = s->tid, g->w[i] = s->weight, g->nr[i] = s->nr;
	char *buf = NULL;
	size_t cap = 0;
	psample__folded(s, &buf, &cap);
	snprintf(g->folded[i], sizeof(g->folded[i]), "%s", buf);
	free(buf);
	size_t fl = 0, dl = 0;
	for (size_t k = 0; k < s->nr && fl + 2 < sizeof(g->flags[i]); k++) {
		const struct pframe *f = &s->frames[k];
		g->flags[i][fl++] = f->kernel ? 'k' : f->inlined ? 'i' : f->jit ? 'j' : '.';
		dl += (size_t)snprintf(g->dso[i] + dl, sizeof(g->dso[i]) - dl, "%s%s", k ? "," : "",
				       f->dso ? f->dso : "-");
	}
	g->flags[i][fl] = '\0';
	return 0;
}

static char *write_tmp(const char *text, size_t len)
{
	char *path = strdup("/tmp/test_profile_in.XXXXXX");
	int fd = mkstemp(path);
	if (fd < 0 || write(fd, text, len) != (ssize_t)len)
		return NULL;
	close(fd);
	return path;
}

static int read_text(const char *text, struct got *g, struct profile_info *info, char *err, size_t errlen)
{
	char *path = write_tmp(text, strlen(text));
	memset(g, 0, sizeof(*g));
	int r = path ? profile_in__read(path, collect, g, info, err, errlen) : -1;
	if (path)
		unlink(path);
	free(path);
	return r;
}

int main(void)
{
	struct got g;
	struct profile_info info;
	char err[256];
	const char *text =
		"app;main;hot 10\n"
		"app-42;main;inl_[i];write_[k];[kernel.kallsyms]_[k] 3\n"
		"app-42/43;start_thread;[libc.so.6];jitted_[j] 2.5\n"
		"app/44;main;[unknown];[truncated] 1\n"
		"not a stack line\n"
		"\n"
		"kworker/u8:1-ev;worker_thread_[k] 7\n"
		"app;main;x 1 4\n"
		"app-x;f 2";		/* no final newline */
	CHECK_EQ_INT(read_text(text, &g, &info, err, sizeof(err)), 0);
	CHECK_EQ_INT(info.format, PROFILE_FOLDED);
	CHECK_STREQ(info.sample_type, "samples");
	CHECK_EQ_U64(info.lines, 9);
	CHECK_EQ_U64(info.ignored, 2);
	CHECK_EQ_U64(g.n, 7);
	/* comm */
	CHECK_STREQ(g.comm[0], "app");
	CHECK(g.pid[0] == -1 && g.tid[0] == -1, "%lld %lld", g.pid[0], g.tid[0]);
	CHECK_EQ_INT(g.nr[0], 2);
	CHECK(g.w[0] == 10, "%g", g.w[0]);
	/* comm-PID, suffixes stripped into flags */
	CHECK_STREQ(g.comm[1], "app");
	CHECK(g.pid[1] == 42 && g.tid[1] == -1, "%lld %lld", g.pid[1], g.tid[1]);
	CHECK_STREQ(g.flags[1], ".ikk");
	CHECK_STREQ(g.dso[1], "-,-,-,[kernel.kallsyms]");
	CHECK_STREQ(g.folded[1], "app;main;inl_[i];write_[k];[kernel.kallsyms]_[k]");
	/* comm-PID/TID, fractional count, an object's frame */
	CHECK_STREQ(g.comm[2], "app");
	CHECK(g.pid[2] == 42 && g.tid[2] == 43, "%lld %lld", g.pid[2], g.tid[2]);
	CHECK(g.w[2] == 2.5, "%g", g.w[2]);
	CHECK_STREQ(g.flags[2], "..j");
	CHECK_STREQ(g.dso[2], "-,libc.so.6,-");
	/* comm/TID; frames saying why a stack ends have no object */
	CHECK_STREQ(g.comm[3], "app");
	CHECK(g.pid[3] == -1 && g.tid[3] == 44, "%lld %lld", g.pid[3], g.tid[3]);
	CHECK_STREQ(g.dso[3], "-,-,-");
	/* a comm with '/' and '-' but no numbers after them */
	CHECK_STREQ(g.comm[4], "kworker/u8:1-ev");
	CHECK(g.pid[4] == -1 && g.tid[4] == -1, "%lld %lld", g.pid[4], g.tid[4]);
	/* two columns: the last is the weight, as flamegraph.pl draws it */
	CHECK(g.w[5] == 4 && g.nr[5] == 2, "%g %zu", g.w[5], g.nr[5]);
	CHECK_STREQ(g.folded[5], "app;main;x");
	/* the last line without '\n'; "app-x" is a comm */
	CHECK_STREQ(g.comm[6], "app-x");
	CHECK(g.w[6] == 2, "%g", g.w[6]);

	/* A line longer than the read buffer (64 KiB), frames split across reads. */
	size_t frames = 20000, len = 0;
	char *big = malloc(frames * 8 + 64);
	len += (size_t)sprintf(big, "app");
	for (size_t i = 0; i < frames; i++)
		len += (size_t)sprintf(big + len, ";f%05zu", i);
	len += (size_t)sprintf(big + len, " 5\napp;tail 1\n");
	CHECK_EQ_INT(read_text(big, &g, &info, err, sizeof(err)), 0);
	CHECK_EQ_U64(g.n, 2);
	CHECK_EQ_U64(g.longest, frames);
	CHECK_STREQ(g.folded[1], "app;tail");
	free(big);

	/* Empty input: no samples, no error. */
	CHECK_EQ_INT(read_text("", &g, &info, err, sizeof(err)), 0);
	CHECK_EQ_U64(g.n, 0);

	/* Binary input is pprof's to decode (gzip magic; a protobuf's control
	 * bytes), never read as folded lines. */
	char *path = write_tmp("\x1f\x8b\x08\x00junk", 8);
	memset(&g, 0, sizeof(g));
	int r = profile_in__read(path, collect, &g, &info, err, sizeof(err));
	CHECK(r < 0 && strstr(err, path), "%d '%s'", r, err);
	CHECK_EQ_U64(g.n, 0);
	unlink(path);
	free(path);
	path = write_tmp("\x0a\x04\x08\x01\x10\x02", 6);
	r = profile_in__read(path, collect, &g, &info, err, sizeof(err));
	CHECK(r < 0 && strstr(err, path), "%d '%s'", r, err);
	unlink(path);
	free(path);

	/* Folded text with a control byte is still folded (flamegraph's hostile
	 * input); random bytes that do not walk as a Profile are too (and
	 * ignored as lines). */
	CHECK_EQ_INT(read_text("app;ctrl\x01" "char;x 2\n", &g, &info, err, sizeof(err)), 0);
	CHECK(g.n == 1 && info.format == PROFILE_FOLDED && g.w[0] == 2, "%zu %d", g.n, info.format);
	CHECK_EQ_INT(read_text("python\x01\x02 3\n", &g, &info, err, sizeof(err)), 0);
	CHECK(g.n == 1 && info.format == PROFILE_FOLDED, "%zu %d", g.n, info.format);
	/* A protobuf longer than what is looked at: fields beyond the start. */
	unsigned char pb[5000] = { 0x0a, 0x04, 0x08, 0x01, 0x10, 0x02, 0x32, 0xff, 0x3f };
	memset(pb + 9, 'x', sizeof(pb) - 9);
	path = write_tmp((const char *)pb, sizeof(pb));
	r = profile_in__read(path, collect, &g, &info, err, sizeof(err));
	CHECK(r < 0 && strstr(err, path), "%d '%s'", r, err);
	unlink(path);
	free(path);

	/* A missing file: -ENOENT and its name. */
	r = profile_in__read("/nonexistent/x.folded", collect, &g, &info, err, sizeof(err));
	CHECK(r == -ENOENT && strstr(err, "/nonexistent/x.folded"), "%d '%s'", r, err);
	return check_summary();
}
