/* The stack aggregator and folded writer: outermost-first order, sorted
 * deterministic output, identical symbolized stacks merged, weights summed,
 * comm blanks -> '_', ';' in names made harmless, kernel frames '_[k]',
 * unknown frames named after their object. No symbolizer: names come from
 * the mapping (which is what a stripped object gives). */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "stacks.h"

struct out {
	char buf[4096];
	size_t len;
};

static void line(void *ctx, const char *stack, uint64_t w)
{
	struct out *o = ctx;
	o->len += (size_t)snprintf(o->buf + o->len, sizeof(o->buf) - o->len, "%s %llu\n", stack,
				   (unsigned long long)w);
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
	stacktab__add(st, "my prog", s1, 3, 1);
	stacktab__add(st, "my prog", s1, 3, 1);
	stacktab__add(st, "my prog", s2, 2, 5);
	stacktab__add(st, "zz", s3, 3, 2);
	stacktab__add(st, "aa", s2, 2, 1);
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

	/* Two distinct addresses in one stripped object fold to the same
	 * line: merged, weights summed. */
	struct stacktab *st2 = stacktab__new(ft);
	uint32_t c1 = frametab__user(ft, 10, &app, 0x400200, false);
	frametab__symbolize(ft, NULL);
	uint32_t x1[] = { a }, x2[] = { c1 };
	stacktab__add(st2, "p", x1, 1, 3);
	stacktab__add(st2, "p", x2, 1, 4);
	memset(&o, 0, sizeof(o));
	n = stacktab__folded(st2, line, &o);
	CHECK_EQ_U64(n, 1);
	CHECK_STREQ(o.buf, "p;[my:app] 7\n");

	stacktab__delete(st2);
	stacktab__delete(st);
	frametab__delete(ft);
	return check_summary();
}
