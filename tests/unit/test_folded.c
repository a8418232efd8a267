/* The stack aggregator and folded writer: outermost-first order, sorted
 * deterministic output, identical symbolized stacks merged, weights summed,
 * comm blanks -> '_', ';' in names made harmless, kernel frames '_[k]',
 * unknown frames named after their object. No symbolizer: names come from
 * the mapping (which is what a stripped object gives). Each stack keeps its
 * comm/pid/tid: the root frame shows them as asked (--pid, --tid,
 * --per-thread), stacktab__get and frametab__get show the structure, and the
 * timeline keeps every add in time order. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "stack.h"
#include "stacks.h"

struct out {
	char buf[4096];
	size_t len;
};

static void line(void *ctx, const char *stack, size_t len, uint64_t w)
{
	struct out *o = ctx;
	CHECK(len == strlen(stack), "len %zu is the stack's length %zu", len, strlen(stack));
	o->len += (size_t)snprintf(o->buf + o->len, sizeof(o->buf) - o->len, "%s %llu\n", stack,
				   (unsigned long long)w);
}

struct big {
	char *buf;
	size_t len, cap;
};

static void big_line(void *ctx, const char *stack, size_t len, uint64_t w)
{
	struct big *o = ctx;
	(void)len;
	size_t need = strlen(stack) + 32;
	if (o->len + need > o->cap) {
		o->cap = (o->len + need) * 2;
		o->buf = realloc(o->buf, o->cap);
	}
	o->len += (size_t)sprintf(o->buf + o->len, "%s %llu\n", stack, (unsigned long long)w);
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Lines are sorted as strcmp sorts their text, though they are compared
 * label by label: labels that are prefixes of others ("foo" and
 * "foo::bar": ':' sorts before ';'; "foo" and "foo!": '!' before ';'),
 * a line that is a prefix of another, equal texts from distinct stacks
 * (merged). Checked against the lines built and sorted as strings. */
static void test_order(void)
{
	static const char *names[] = { "foo", "foo::bar", "foo!", "fo", "foo<", "foz", "f" };
	static const char *comms[] = { "a", "a b", "a:", "ab" };
	enum { NN = sizeof(names) / sizeof(names[0]), NC = sizeof(comms) / sizeof(comms[0]), NS = 400 };
	struct frametab *ft = frametab__new();
	struct stacktab *st = stacktab__new(ft);
	uint32_t ids[NN];
	for (int i = 0; i < NN; i++)
		ids[i] = frametab__special(ft, names[i]);
	frametab__symbolize(ft, NULL);
	char *want[NS];
	uint64_t wcount[NS];
	unsigned seed = 12345;
	for (int s = 0; s < NS; s++) {
		uint32_t fr[5];
		seed = seed * 1103515245u + 12345u;
		int n = 1 + (int)((seed >> 16) % 5);
		int c = (int)((seed >> 8) % NC);
		char text[256];
		size_t len = (size_t)sprintf(text, "%s", comms[c]);
		for (char *p = text; *p; p++)
			if (*p == ' ')
				*p = '_';
		for (int i = 0; i < n; i++) {
			seed = seed * 1103515245u + 12345u;
			fr[i] = ids[(seed >> 16) % NN];
		}
		for (int i = n - 1; i >= 0; i--)	/* leaf first in fr[] */
			len += (size_t)sprintf(text + len, ";%s", names[fr[i] - ids[0]]);
		struct stack_owner o = { comms[c], 1, 1 };
		stacktab__add(st, &o, fr, (uint32_t)n, 1 + (uint64_t)s, 0);
		want[s] = strdup(text);
		wcount[s] = 1 + (uint64_t)s;
	}
	/* the expected text: sorted as strings, equal ones merged */
	char *sorted[NS];
	memcpy(sorted, want, sizeof(sorted));
	qsort(sorted, NS, sizeof(sorted[0]), str_cmp);
	struct big exp = { 0 }, got = { 0 };
	for (int i = 0; i < NS;) {
		uint64_t sum = 0;
		int j = i;
		while (j < NS && !strcmp(sorted[j], sorted[i]))
			j++;
		for (int s = 0; s < NS; s++)
			if (!strcmp(want[s], sorted[i]))
				sum += wcount[s];
		big_line(&exp, sorted[i], strlen(sorted[i]), sum);
		i = j;
	}
	stacktab__folded(st, big_line, &got);
	CHECK(exp.buf && got.buf && !strcmp(exp.buf, got.buf), "folded order differs from strcmp's:\n%.600s\nwant\n%.600s",
	      got.buf ? got.buf : "", exp.buf ? exp.buf : "");
	for (int s = 0; s < NS; s++)
		free(want[s]);
	free(exp.buf);
	free(got.buf);
	stacktab__delete(st);
	frametab__delete(ft);
}

/* A code address of a mapped file is one frame for every process that maps
 * the file, wherever it is mapped; other files, other kinds of identity and
 * anonymous memory stay apart. Stacks without their ids merge across
 * processes. */
static void test_shared_files(void)
{
	struct frametab *ft = frametab__new();
	char lib[] = "/usr/lib/libx.so";
	struct map m1 = { .start = 0x7f1000000000, .end = 0x7f1000100000, .pgoff = 0x1000, .maj = 8, .min = 1,
			  .ino = 77, .path = lib };
	struct map m2 = m1, other = m1, bid = m1, bid2 = m1, anon = { .start = 0x7f2000000000, .end = 0x7f2000001000,
									 .path = "//anon" };
	m2.start = 0x7f5000000000;	/* another process's ASLR */
	m2.end = m2.start + 0x100000;
	other.ino = 78;			/* another file at the same path (replaced) */
	bid.ino = bid2.ino = 0;		/* MMAP2 with a build id: no inode */
	bid.build_id_size = bid2.build_id_size = 20;
	memset(bid.build_id, 0xab, 20);
	memset(bid2.build_id, 0xcd, 20);
	uint32_t f1 = frametab__user(ft, 100, &m1, m1.start + 0x230, true);
	uint32_t f2 = frametab__user(ft, 200, &m2, m2.start + 0x230, true);
	CHECK(f1 == f2, "one file, one offset, two processes: frames %u and %u", f1, f2);
	CHECK(frametab__user(ft, 200, &m2, m2.start + 0x230, false) != f1, "a return address is not the same frame as a pc");
	CHECK(frametab__user(ft, 200, &m2, m2.start + 0x238, true) != f1, "another offset is another frame");
	CHECK(frametab__user(ft, 300, &other, other.start + 0x230, true) != f1, "another inode is another file");
	uint32_t b1 = frametab__user(ft, 300, &bid, bid.start + 0x230, true);
	CHECK(b1 != f1, "a build id is not matched against an inode");
	CHECK(frametab__user(ft, 400, &bid, bid.start + 0x10230, true) == frametab__user(ft, 500, &bid, bid.start + 0x10230, true) &&
	      b1 == frametab__user(ft, 500, &bid, bid.start + 0x230, true), "one build id: one frame per offset");
	CHECK(frametab__user(ft, 500, &bid2, bid2.start + 0x230, true) != b1, "another build id is another file");
	uint32_t j1 = frametab__user(ft, 100, &anon, anon.start + 0x10, false);
	CHECK(frametab__user(ft, 200, &anon, anon.start + 0x10, false) != j1,
	      "anonymous memory (JIT code) is each process's own");
	CHECK(frametab__user(ft, 100, &anon, anon.start + 0x10, false) == j1, "and one frame in that process");
	struct frame_view fv;
	frametab__get(ft, f2, &fv);
	CHECK(fv.pid == 100 && fv.map && fv.map->start == m1.start && fv.addr == m1.start + 0x230,
	      "the first process's mapping and address stand for all: pid %d", fv.pid);

	struct stacktab *st = stacktab__new(ft);
	stacktab__drop_ids(st);
	struct stack_owner p1 = { "cc1", 100, 100 }, p2 = { "cc1", 200, 201 }, p3 = { "as", 300, 300 };
	uint32_t s[] = { f1 };
	stacktab__add(st, &p1, s, 1, 1, 0);
	stacktab__add(st, &p2, (uint32_t[]){ f2 }, 1, 2, 0);
	stacktab__add(st, &p3, s, 1, 4, 0);
	CHECK_EQ_U64(stacktab__count(st), 2);
	struct stack_view v;
	stacktab__get(st, 0, &v);
	CHECK(!strcmp(v.comm, "cc1") && v.pid == -1 && v.tid == -1 && v.weight == 3 && v.samples == 2,
	      "cc1's stack of two processes: pid %d tid %d weight %llu", v.pid, v.tid, (unsigned long long)v.weight);
	stacktab__delete(st);
	frametab__delete(ft);
}

/* Each id what frametab__user gives in the same table, no new frame made. */
static void check_stack(struct frametab *ft, pid_t pid, const struct maps *maps, const uint64_t *ips, uint32_t nr,
			const uint32_t *ids, const char *what)
{
	size_t had = frametab__count(ft);
	for (uint32_t i = 0; i < nr; i++) {
		uint32_t want = frametab__user(ft, pid, maps__find(maps, ips[i]), ips[i], i > 0);
		CHECK(ids[i] == want, "%s: frame %u is %u, frametab__user's %u", what, i, ids[i], want);
	}
	CHECK(frametab__count(ft) == had, "%s: %zu frames, %zu after frametab__user", what, had, frametab__count(ft));
}

/* frametab__user_stack of the stack ips (leaf first) of a process with maps. */
static void user_stack(struct frametab *ft, pid_t pid, pid_t tid, const struct maps *maps, const uint64_t *ips,
		       uint32_t nr, uint32_t *ids)
{
	const struct map *slots[8];
	struct ustack us;
	ustack__init(&us, maps, ips, (int)nr, NULL, slots);
	frametab__user_stack(ft, pid, tid, &us, ids);
}

/* frametab__user_stack: each frame the id frametab__user gives, whether
 * taken from the thread's previous stack (shared outer frames) or looked
 * up; not taken once the maps changed, for another process, or after
 * frametab__forget (a new process with the same pid and maps pointer), or
 * after frametab__clear. */
static void test_user_stack(void)
{
	struct frametab *ft = frametab__new();
	struct maps *maps = maps__new();
	char lib[] = "/usr/lib/liby.so", anon[] = "//anon";
	struct map m = { .start = 0x400000, .end = 0x500000, .maj = 8, .min = 1, .ino = 9, .path = lib };
	struct map jit = { .start = 0x600000, .end = 0x601000, .path = anon };	/* each process's own frames */
	CHECK(maps && !maps__insert(maps, &m) && !maps__insert(maps, &jit), "maps");
	uint64_t a[] = { 0x400100, 0x400200, 0x600300, 0x600400 };	/* leaf first */
	uint64_t b[] = { 0x400180, 0x400250, 0x600300, 0x600400 };	/* shares the two outer frames */
	uint64_t c[] = { 0x600300, 0x600400 };	/* the leaf's exact ip where a return address was */
	uint32_t ids[4], before[4];
	const uint64_t *stacks[] = { a, b, c, a };
	const uint32_t nrs[] = { 4, 4, 2, 4 };
	for (int k = 0; k < 4; k++) {
		user_stack(ft, 10, 11, maps, stacks[k], nrs[k], ids);
		check_stack(ft, 10, maps, stacks[k], nrs[k], ids, "one thread's stacks");
	}
	memcpy(before, ids, sizeof(ids));
	/* the mapping replaced: the same addresses are other frames now */
	struct map m2 = m, jit2 = jit;
	m2.ino = 10;
	CHECK(!maps__insert(maps, &m2) && !maps__insert(maps, &jit2), "maps");
	user_stack(ft, 10, 11, maps, a, 4, ids);
	check_stack(ft, 10, maps, a, 4, ids, "after the maps changed");
	CHECK(ids[0] != before[0], "a new file's frame: %u", ids[0]);
	/* another pid, the same tid, maps and generation: its own JIT frames */
	user_stack(ft, 12, 11, maps, a, 4, ids);
	check_stack(ft, 12, maps, a, 4, ids, "another process");
	/* forgotten: a new process of pid 12 with another mapping, at the
	 * same generation (and, as malloc goes, often the same pointer) */
	uint64_t gen = maps__generation(maps);
	memcpy(before, ids, sizeof(ids));
	frametab__forget(ft, 12);
	maps__delete(maps);
	maps = maps__new();
	struct map m3 = m;
	m3.ino = 11;
	CHECK(maps && !maps__insert(maps, &m3), "maps");
	while (maps__generation(maps) < gen)
		CHECK(!maps__insert(maps, &jit), "maps");
	user_stack(ft, 12, 11, maps, a, 4, ids);
	check_stack(ft, 12, maps, a, 4, ids, "after forget");
	/* the frame table cleared: ids given before are not reused */
	frametab__clear(ft);
	user_stack(ft, 12, 11, maps, a, 4, ids);
	check_stack(ft, 12, maps, a, 4, ids, "after clear");
	CHECK(frametab__count(ft) == 4, "after clear: %zu frames", frametab__count(ft));
	maps__delete(maps);
	frametab__delete(ft);
}

int main(void)
{
	struct frametab *ft = frametab__new();
	struct stacktab *st = stacktab__new(ft);
	struct map libc = { .start = 0x7f0000000000, .end = 0x7f0000100000, .path = "/usr/lib/x86_64-linux-gnu/libc.so.6" };
	struct map app = { .start = 0x400000, .end = 0x401000, .path = "/opt/my;app" };

	uint32_t a = frametab__user(ft, 10, &app, 0x400100, false);
	uint32_t a2 = frametab__user(ft, 10, &app, 0x400100, false);
	CHECK(a == a2, "same frame interned twice: %u vs %u", a, a2);
	uint32_t b = frametab__user(ft, 10, &libc, 0x7f0000000100, true);
	uint32_t k = frametab__kernel(ft, 0xffffffff81000000ULL, false);
	uint32_t u = frametab__user(ft, 10, NULL, 0x1234, true);
	uint32_t tr = frametab__special(ft, "[truncated]");
	CHECK(frametab__count(ft) == 5, "count %zu", frametab__count(ft));

	/* leaf first */
	uint32_t s1[] = { k, a, b };
	uint32_t s2[] = { a, b };
	uint32_t s3[] = { a, u, tr };
	struct stack_owner prog = { "my prog", 10, 10 }, zz = { "zz", 20, 21 }, aa = { "aa", 30, 31 };
	stacktab__keep_timeline(st);
	stacktab__add(st, &prog, s1, 3, 1, 500);
	stacktab__add(st, &prog, s1, 3, 1, 100);
	stacktab__add(st, &prog, s2, 2, 5, 300);
	stacktab__add(st, &zz, s3, 3, 2, 100);
	stacktab__add(st, &aa, s2, 2, 1, 200);
	CHECK_EQ_U64(stacktab__count(st), 4);
	CHECK_EQ_U64(stacktab__total(st), 10);

	frametab__symbolize(ft, NULL);
	struct out o = { { 0 }, 0 };
	size_t n = stacktab__folded(st, line, &o);
	CHECK_EQ_U64(n, 4);
	CHECK_STREQ(o.buf,
		  "aa;[libc.so.6];[my:app] 1\n"
		  "my_prog;[libc.so.6];[my:app] 5\n"
		  "my_prog;[libc.so.6];[my:app];[kernel.kallsyms]_[k] 2\n"
		  "zz;[truncated];[unknown];[my:app] 2\n");

	/* Roots as stackcollapse-perf.pl --pid / --tid and perf's --per-thread */
	stacktab__set_root(st, STACK_ROOT_TID);
	memset(&o, 0, sizeof(o));
	stacktab__folded(st, line, &o);
	CHECK_STREQ(o.buf,
		  "aa-30/31;[libc.so.6];[my:app] 1\n"
		  "my_prog-10/10;[libc.so.6];[my:app] 5\n"
		  "my_prog-10/10;[libc.so.6];[my:app];[kernel.kallsyms]_[k] 2\n"
		  "zz-20/21;[truncated];[unknown];[my:app] 2\n");
	stacktab__set_root(st, STACK_ROOT_PID);
	memset(&o, 0, sizeof(o));
	stacktab__folded(st, line, &o);
	CHECK(strstr(o.buf, "zz-20;[truncated]") && strstr(o.buf, "aa-30;"), "--pid roots: %s", o.buf);
	stacktab__set_root(st, STACK_ROOT_THREAD);
	memset(&o, 0, sizeof(o));
	stacktab__folded(st, line, &o);
	CHECK(strstr(o.buf, "zz/21;[truncated]") && strstr(o.buf, "my_prog/10;"), "--per-thread roots: %s", o.buf);

	/* The structure behind the lines */
	struct stack_view v;
	stacktab__get(st, 0, &v);
	CHECK(!strcmp(v.comm, "my prog") && v.pid == 10 && v.tid == 10 && v.nr == 3 && v.frames[0] == k,
	      "stack 0: %s %d/%d n=%u", v.comm, v.pid, v.tid, v.nr);
	CHECK_EQ_U64(v.weight, 2);
	CHECK_EQ_U64(v.samples, 2);
	stacktab__get(st, 2, &v);
	CHECK(v.tid == 21 && v.frames[2] == tr, "stack 2: tid %d", v.tid);
	struct frame_view fv;
	frametab__get(ft, b, &fv);
	CHECK(fv.kind == FRAME_USER && fv.addr == 0x7f0000000100 && fv.is_return && fv.pid == 10 && fv.map &&
	      fv.map->start == 0x7f0000000000 && fv.nr_syms == 1 && !fv.syms[0].name &&
	      !strcmp(fv.labels[0], "[libc.so.6]"), "libc frame: kind %d n %u", fv.kind, fv.nr_syms);
	frametab__get(ft, k, &fv);
	CHECK(fv.kind == FRAME_KERNEL && !fv.map && !strcmp(fv.labels[0], "[kernel.kallsyms]_[k]"), "kernel frame");
	frametab__get(ft, tr, &fv);
	CHECK(fv.kind == FRAME_SPECIAL && !strcmp(fv.syms[0].name, "[truncated]"), "special frame");

	/* Every add in time order; equal times keep their order of adding */
	const struct stack_tick *ticks;
	size_t nt = stacktab__timeline(st, &ticks);
	CHECK_EQ_U64(nt, 5);
	uint64_t want_t[] = { 100, 100, 200, 300, 500 };
	uint32_t want_s[] = { 0, 2, 3, 1, 0 };
	for (size_t i = 0; i < nt && i < 5; i++)
		CHECK(ticks[i].time == want_t[i] && ticks[i].stack == want_s[i], "tick %zu: %llu stack %u", i,
		      (unsigned long long)ticks[i].time, ticks[i].stack);

	/* Two distinct addresses in one stripped object fold to the same
	 * line: merged, weights summed. */
	struct stacktab *st2 = stacktab__new(ft);
	uint32_t c1 = frametab__user(ft, 10, &app, 0x400200, false);
	frametab__symbolize(ft, NULL);
	uint32_t x1[] = { a }, x2[] = { c1 };
	struct stack_owner p = { "p", 1, 1 };
	stacktab__add(st2, &p, x1, 1, 3, 0);
	stacktab__add(st2, &p, x2, 1, 4, 0);
	memset(&o, 0, sizeof(o));
	n = stacktab__folded(st2, line, &o);
	CHECK_EQ_U64(n, 1);
	CHECK_STREQ(o.buf, "p;[my:app] 7\n");

	/* A cleared frame table starts over: ids from 0, names again. The
	 * cleared tables hold nothing that --max-tables counts (their hash
	 * slots' capacity stays: counting it spilled empty tables each pass). */
	CHECK(stacktab__bytes(st2) > 0, "a table with a stack: %zu bytes", stacktab__bytes(st2));
	stacktab__clear(st2);
	CHECK_EQ_U64(stacktab__count(st2), 0);
	CHECK_EQ_U64(stacktab__total(st2), 0);
	CHECK_EQ_U64(stacktab__bytes(st2), 0);
	frametab__clear(ft);
	CHECK_EQ_U64(frametab__count(ft), 0);
	CHECK_EQ_U64(frametab__bytes(ft), 0);
	uint32_t again = frametab__special(ft, "[truncated]");
	uint32_t a3 = frametab__user(ft, 10, &app, 0x400100, false);
	CHECK(again == 0 && a3 == 1, "ids after clear: %u %u", again, a3);
	frametab__symbolize(ft, NULL);
	uint32_t x3[] = { a3, again };
	stacktab__add(st2, &p, x3, 2, 9, 0);
	memset(&o, 0, sizeof(o));
	n = stacktab__folded(st2, line, &o);
	CHECK_STREQ(o.buf, "p;[truncated];[my:app] 9\n");

	stacktab__delete(st2);
	stacktab__delete(st);
	frametab__delete(ft);
	test_order();
	test_shared_files();
	test_user_stack();
	return check_summary();
}
