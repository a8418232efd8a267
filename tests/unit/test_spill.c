/* Stack tables spilled to disk (src/output/spill.c): the lines of a table
 * spilled in parts (its frame table cleared between them, as record clears
 * it) and merged at the end are, byte for byte, the lines of the whole
 * table: with no spill, one, and more than SPILL_MAX_RUNS (merged into one
 * as they come); names with blanks (the weight is the last word). The
 * runs leave nothing in TMPDIR, and a TMPDIR that cannot be written is an
 * error, the table kept (at the end: its lines merged from memory). */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "spill.h"
#include "stacks.h"

struct big {
	char *buf;
	size_t len, cap;
};

static void big_line(void *ctx, const char *stack, size_t len, uint64_t w)
{
	struct big *o = ctx;
	CHECK(len == strlen(stack), "len %zu is the stack's length %zu", len, strlen(stack));
	size_t need = len + 32;
	if (o->len + need > o->cap) {
		o->cap = (o->len + need) * 2;
		o->buf = realloc(o->buf, o->cap);
	}
	o->len += (size_t)sprintf(o->buf + o->len, "%s %llu\n", stack, (unsigned long long)w);
}

static const char *names[] = { "main", "foo", "foo::bar", "irange&, gimple* 12", "f", "[truncated]", "x 9" };
static const char *comms[] = { "cc1", "a b", "sh" };
enum { NN = sizeof(names) / sizeof(names[0]), NC = sizeof(comms) / sizeof(comms[0]) };

/* The ns stacks of seed, added to st (frame ids from ft, interned anew). */
static void add_stacks(struct frametab *ft, struct stacktab *st, unsigned *seed, int ns)
{
	uint32_t ids[NN];
	for (int i = 0; i < NN; i++)
		ids[i] = frametab__special(ft, names[i]);
	for (int s = 0; s < ns; s++) {
		uint32_t fr[6];
		*seed = *seed * 1103515245u + 12345u;
		int n = 1 + (int)((*seed >> 16) % 6), c = (int)((*seed >> 8) % NC);
		for (int i = 0; i < n; i++) {
			*seed = *seed * 1103515245u + 12345u;
			fr[i] = ids[(*seed >> 16) % NN];
		}
		struct stack_owner o = { comms[c], 1, 1 };
		stacktab__add(st, &o, fr, (uint32_t)n, 1 + (*seed % 7), 0);
	}
	frametab__symbolize(ft, NULL);
}

static size_t dir_entries(const char *path)
{
	DIR *d = opendir(path);
	size_t n = 0;
	for (struct dirent *e; d && (e = readdir(d));)
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	if (d)
		closedir(d);
	return n;
}

/* NS stacks, spilled every CHUNK (0: never), against the whole table;
 * refused: the last table's lines cannot go to disk (merged from memory). */
static void spilled_equals_whole(int ns, int chunk, bool refused)
{
	struct frametab *ft = frametab__new();
	struct stacktab *st = stacktab__new(ft);
	unsigned seed = 4242;
	add_stacks(ft, st, &seed, ns);
	struct big want = { 0 }, got = { 0 };
	size_t want_lines = stacktab__folded(st, big_line, &want);

	struct frametab *ft2 = frametab__new();
	struct stacktab *st2 = stacktab__new(ft2);
	struct spill *sp = spill__new();
	seed = 4242;
	int spills = 0;
	for (int done = 0; done < ns;) {
		int n = chunk && ns - done > chunk ? chunk : ns - done;
		add_stacks(ft2, st2, &seed, n);
		done += n;
		if (chunk && done < ns) {
			CHECK(spill__add(sp, st2) == 0, "spill %d", spills);
			spills++;
			stacktab__clear(st2);
			frametab__clear(ft2);
		}
	}
	CHECK(spill__runs(sp) <= SPILL_MAX_RUNS, "%zu runs open after %d spills", spill__runs(sp), spills);
	CHECK(!spills || spill__bytes(sp) > 0, "spilled bytes counted");
	char *tmp = strdup(getenv("TMPDIR"));
	if (refused)
		setenv("TMPDIR", "/proc/self", 1);
	int err = -1;
	size_t lines = spill__merge(sp, st2, big_line, &got, &err);
	setenv("TMPDIR", tmp, 1);
	free(tmp);
	CHECK(err == 0, "merge: %s", strerror(-err));
	CHECK_EQ_U64(lines, want_lines);
	CHECK(want.buf && got.buf && !strcmp(want.buf, got.buf), "%d stacks spilled every %d differ:\n%.400s\nwant\n%.400s",
	      ns, chunk, got.buf ? got.buf : "", want.buf ? want.buf : "");
	/* a second output of the same table: the same lines again */
	struct big again = { 0 };
	spill__merge(sp, st2, big_line, &again, &err);
	CHECK(err == 0 && again.buf && got.buf && !strcmp(again.buf, got.buf), "a second merge differs");
	free(again.buf);
	free(want.buf);
	free(got.buf);
	spill__delete(sp);
	stacktab__delete(st2);
	frametab__delete(ft2);
	stacktab__delete(st);
	frametab__delete(ft);
}

int main(void)
{
	char dir[] = "/tmp/test_spill.XXXXXX";
	CHECK(mkdtemp(dir) != NULL, "mkdtemp");
	setenv("TMPDIR", dir, 1);

	spilled_equals_whole(500, 0, false);	/* no spill: the table alone */
	spilled_equals_whole(500, 250, false);	/* one */
	spilled_equals_whole(3000, 97, false);	/* 30: merged into one past SPILL_MAX_RUNS */
	spilled_equals_whole(300, 1, false);	/* a run per stack */
	spilled_equals_whole(800, 300, true);	/* the disk full at the end */
	spilled_equals_whole(200, 0, true);
	CHECK(dir_entries(dir) == 0, "%zu files left in TMPDIR", dir_entries(dir));

	/* nowhere to write: said, and the table is the caller's still */
	setenv("TMPDIR", "/proc/self", 1);
	struct frametab *ft = frametab__new();
	struct stacktab *st = stacktab__new(ft);
	unsigned seed = 1;
	add_stacks(ft, st, &seed, 10);
	struct spill *sp = spill__new();
	CHECK(spill__add(sp, st) < 0, "a spill into /proc/self fails");
	CHECK(spill__runs(sp) == 0, "no run from a failed spill");
	spill__delete(sp);
	stacktab__delete(st);
	frametab__delete(ft);

	rmdir(dir);
	return check_summary();
}
