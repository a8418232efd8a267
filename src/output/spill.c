/* Stack tables spilled to disk (spill.h). */
#define _GNU_SOURCE
#include "spill.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

struct spill {
	FILE **runs;
	size_t nr, alloc;
	unsigned long long bytes;
	bool merged;		/* the last table is a run since the first merge */
	char *mem;		/* that run, in memory where the disk refused it */
};

/* One run being read: its current line, "STACK WEIGHT". */
struct cursor {
	FILE *f;
	char *line;
	size_t cap;
	size_t len;		/* the stack's, without the weight */
	uint64_t weight;
	bool done;
	bool bad;		/* a read error, or a line not ours */
};

struct spill *spill__new(void)
{
	return calloc(1, sizeof(struct spill));
}

void spill__delete(struct spill *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nr; i++)
		fclose(s->runs[i]);
	free(s->runs);
	free(s->mem);
	free(s);
}

size_t spill__runs(const struct spill *s)
{
	return s->nr;
}

unsigned long long spill__bytes(const struct spill *s)
{
	return s->bytes;
}

/* A new, unlinked file to write a run to, or NULL (errno). */
static FILE *run_file(void)
{
	const char *dir = getenv("TMPDIR");
	if (!dir || !*dir)
		dir = "/tmp";
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
		/* a file system without O_TMPFILE: named, and unlinked at once */
		char path[4096];
		snprintf(path, sizeof(path), "%s/pprobe-spill.XXXXXX", dir);
		fd = mkostemp(path, O_CLOEXEC);
		if (fd >= 0)
			unlink(path);
	}
	if (fd < 0)
		return NULL;
	FILE *f = fdopen(fd, "w+");
	if (!f) {
		int e = errno;
		close(fd);
		errno = e;
	}
	return f;
}

/* The run's next line into c; false at its end, or on a read error (bad). */
static bool cursor_next(struct cursor *c)
{
	ssize_t n = getline(&c->line, &c->cap, c->f);
	if (n <= 0) {
		c->done = true;
		c->bad = ferror(c->f);
		return false;
	}
	if (c->line[n - 1] == '\n')
		c->line[--n] = 0;
	char *sp = memrchr(c->line, ' ', (size_t)n), *end;
	errno = 0;
	unsigned long long w = sp ? strtoull(sp + 1, &end, 10) : 0;
	if (!sp || end == sp + 1 || *end || errno) {	/* not a line we wrote */
		c->done = c->bad = true;
		return false;
	}
	*sp = 0;
	c->len = (size_t)(sp - c->line);
	c->weight = w;
	return true;
}

/* The runs' lines, merged (each run sorted, its lines unique), to fn;
 * returns the lines, *err 0 or -errno. */
static size_t merge_runs(FILE **runs, size_t nr, folded_line_fn fn, void *ctx, int *err)
{
	struct cursor *c = pp_xcalloc(nr ? nr : 1, sizeof(*c));
	size_t lines = 0;
	*err = 0;
	for (size_t i = 0; i < nr; i++) {
		c[i].f = runs[i];
		if (fflush(runs[i]) || fseek(runs[i], 0, SEEK_SET))
			*err = -errno;
		else if (!cursor_next(&c[i]) && c[i].bad)
			*err = -EIO;
	}
	while (!*err) {
		/* the least stack (a handful of runs: a scan) */
		struct cursor *least = NULL;
		for (size_t i = 0; i < nr; i++)
			if (!c[i].done && (!least || strcmp(c[i].line, least->line) < 0))
				least = &c[i];
		if (!least)
			break;
		uint64_t w = 0;
		for (size_t i = 0; i < nr; i++)
			if (&c[i] != least && !c[i].done && c[i].len == least->len && !strcmp(c[i].line, least->line)) {
				w += c[i].weight;
				if (!cursor_next(&c[i]) && c[i].bad)
					*err = -EIO;
			}
		fn(ctx, least->line, least->len, w + least->weight);
		lines++;
		if (!cursor_next(least) && least->bad)
			*err = -EIO;
	}
	for (size_t i = 0; i < nr; i++)
		free(c[i].line);
	free(c);
	return lines;
}

/* A finished run: flushed, its size counted. 0 or -errno. */
static int run_done(struct spill *s, FILE *f)
{
	errno = 0;
	if (fflush(f) || ferror(f))
		return errno ? -errno : -EIO;
	long at = ftell(f);
	s->bytes += at > 0 ? (unsigned long long)at : 0;
	return 0;
}

static int push_run(struct spill *s, FILE *f)
{
	if (s->nr == s->alloc) {
		s->alloc = s->alloc ? s->alloc * 2 : 8;
		s->runs = pp_xrealloc(s->runs, s->alloc * sizeof(*s->runs));
	}
	s->runs[s->nr++] = f;
	return 0;
}

/* The runs merged into one. 0 or -errno (the runs then stay as they were). */
static int compact(struct spill *s)
{
	FILE *f = run_file();
	if (!f)
		return -errno;
	int err;
	merge_runs(s->runs, s->nr, folded__write_line, f, &err);
	if (!err)
		err = run_done(s, f);
	if (err) {
		fclose(f);
		return err;
	}
	for (size_t i = 0; i < s->nr; i++)
		fclose(s->runs[i]);
	s->nr = 0;
	return push_run(s, f);
}

/* st's lines as one more run. 0 or -errno. */
static int add_run(struct spill *s, struct stacktab *st)
{
	FILE *f = run_file();
	if (!f)
		return -errno;
	stacktab__folded(st, folded__write_line, f);
	int err = run_done(s, f);
	if (err) {
		fclose(f);
		return err;
	}
	return push_run(s, f);
}

int spill__add(struct spill *s, struct stacktab *st)
{
	int err = add_run(s, st);
	if (!err && s->nr > SPILL_MAX_RUNS)
		(void)compact(s);	/* else tried again at the next: the run is in */
	return err;
}

/* st's lines as a run in memory (the disk refused them). 0 or -errno. */
static int add_mem_run(struct spill *s, struct stacktab *st)
{
	size_t size = 0;
	FILE *w = open_memstream(&s->mem, &size);
	if (!w)
		return -errno;
	stacktab__folded(st, folded__write_line, w);
	if (fclose(w))
		return -errno;
	FILE *f = fmemopen(s->mem, size ? size : 1, "r");
	if (!f)
		return -errno;
	return push_run(s, f);
}

size_t spill__folded(struct spill *s, struct stacktab *st, folded_line_fn fn, void *ctx, int *err)
{
	*err = 0;
	return s ? spill__merge(s, st, fn, ctx, err) : stacktab__folded(st, fn, ctx);
}

size_t spill__merge(struct spill *s, struct stacktab *st, folded_line_fn fn, void *ctx, int *err)
{
	*err = 0;
	if (!s->merged && st && stacktab__count(st) && add_run(s, st))
		*err = add_mem_run(s, st);
	if (*err)
		return 0;
	s->merged = true;
	return merge_runs(s->runs, s->nr, fn, ctx, err);
}
