/* pprobe annotate's logic without an object: samples counted at their
 * leaf's physical function by file offset (annotate__add), and a
 * function's instructions given shares, hits inside an instruction and
 * outside the function placed, source lines summed and ordered
 * (annotation__build), the layout's marks (annotation__write). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "annotate.h"
#include "check.h"

static void test_add(void)
{
	struct annotate *a = annotate__new();
	/* two processes map one object at different places: offsets add up */
	struct pmapping m1 = { .start = 0x5000, .limit = 0x9000, .offset = 0x1000, .file = "/bin/app", .build_id = "ab" };
	struct pmapping m2 = { .start = 0x7000, .limit = 0xb000, .offset = 0x1000, .file = "/bin/app", .build_id = "ab" };
	/* main -> hot (physical) -> mix (inlined into hot, same location) */
	struct pframe f1[] = { { .name = "main", .addr = 0x5010, .map = &m1 },
			       { .name = "hot", .addr = 0x5340, .map = &m1 },
			       { .name = "mix", .addr = 0x5340, .map = &m1, .inlined = true } };
	struct pframe f2[] = { { .name = "hot", .addr = 0x7340, .map = &m2 } };
	struct pframe f3[] = { { .name = "hot", .addr = 0x7350, .map = &m2 } };
	struct pframe f4[] = { { .name = "cold", .addr = 0x100, .map = &m2 } };	/* outside its mapping */
	struct psample s[] = { { .frames = f1, .nr = 3, .weight = 10, .samples = 1 },
			       { .frames = f2, .nr = 1, .weight = 20, .samples = 2 },
			       { .frames = f3, .nr = 1, .weight = 5, .samples = 1 },
			       { .frames = f4, .nr = 1, .weight = 1, .samples = 1 } };
	for (size_t i = 0; i < 4; i++)
		annotate__add(a, &s[i]);
	CHECK(annotate__has_addrs(a), "addresses seen");
	size_t n;
	const struct annotate_fn *fns = annotate__functions(a, &n);
	CHECK_EQ_U64(n, 2);
	CHECK_STREQ(fns[0].name, "hot");
	CHECK(fns[0].weight == 35, "hot's self weight 35: %g", fns[0].weight);
	CHECK(fns[0].samples == 4, "hot's samples 4: %g", fns[0].samples);
	CHECK_EQ_U64(fns[0].nr_hits, 2);
	CHECK_EQ_U64(fns[0].hits[0].addr, 0x1340);	/* 0x5340 - 0x5000 + 0x1000 and 0x7340 - 0x7000 + 0x1000 */
	CHECK(fns[0].hits[0].weight == 30, "one offset from two processes: %g", fns[0].hits[0].weight);
	CHECK_EQ_U64(fns[0].hits[1].addr, 0x1350);
	CHECK_STREQ(fns[1].name, "cold");
	CHECK_EQ_U64(fns[1].nr_hits, 0);
	CHECK(fns[1].unmapped == 1, "an address outside its mapping counted apart");
	annotate__delete(a);

	/* folded input: no addresses */
	a = annotate__new();
	struct pframe f5[] = { { .name = "hot" } };
	struct psample s5 = { .frames = f5, .nr = 1, .weight = 1 };
	annotate__add(a, &s5);
	CHECK(!annotate__has_addrs(a), "folded frames have no addresses");
	annotate__delete(a);
}

static struct pf_asm_insn insn(uint64_t addr, const char *file, int line, const char *inl)
{
	return (struct pf_asm_insn){ .addr = addr, .text = (char *)"nop", .file = (char *)file, .line = line,
				     .inlined = (char *)inl };
}

static void test_build(void)
{
	struct pf_asm_insn ins[] = {
		insn(0x100, "a.c", 10, NULL), insn(0x104, "a.c", 11, NULL), insn(0x108, "a.c", 33, "mix"),
		insn(0x10b, "a.c", 11, NULL), insn(0x110, "a.c", 33, "mix"), insn(0x114, NULL, 0, NULL),
	};
	struct pf_asm as = { .symbol = (char *)"hot", .addr = 0x100, .size = 0x18, .insns = ins, .n = 6 };
	struct annotate_hit sorted[] = {	/* ascending, as annotation__build wants them */
		{ .addr = 0x0f0, .weight = 7 },		/* before the function */
		{ .addr = 0x104, .weight = 1, .samples = 1 },
		{ .addr = 0x109, .weight = 2, .samples = 1 },	/* inside the instruction at 0x108 */
		{ .addr = 0x10b, .weight = 1, .samples = 1 },
		{ .addr = 0x110, .weight = 6, .samples = 3 },
		{ .addr = 0x200, .weight = 3 },		/* after it */
	};
	struct annotation an;
	CHECK_EQ_INT(annotation__build(&an, &as, sorted, 6), 0);
	CHECK(an.total == 10, "weight on the function's instructions: %g", an.total);
	CHECK(an.outside == 10, "outside: %g", an.outside);
	CHECK(an.samples == 6, "samples: %g", an.samples);
	CHECK(an.weight[2] == 2, "a hit inside an instruction counts for it: %g", an.weight[2]);
	CHECK_EQ_U64(an.hottest, 4);
	CHECK(an.nr_lines == 4, "four source lines (one unknown): %zu", an.nr_lines);
	CHECK(an.lines[0].line == 33 && an.lines[0].weight == 8, "hottest line 33 (two runs summed): %d %g",
	      an.lines[0].line, an.lines[0].weight);
	CHECK_STREQ(an.lines[0].inlined, "mix");
	CHECK(an.lines[1].line == 11 && an.lines[1].weight == 2, "then line 11: %d %g", an.lines[1].line,
	      an.lines[1].weight);
	double sum = 0;
	for (size_t i = 0; i < as.n; i++)
		sum += an.weight[i];
	CHECK(sum == an.total, "instruction weights sum to the total");

	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct annotation_print p = { .object = "/bin/app", .event = "cpu", .unit = "nanoseconds" };
	annotation__write(&an, f, &p);
	fclose(f);
	CHECK(strstr(buf, "Disassembly of app for cpu (6 samples") != NULL, "header: %s", buf);
	CHECK(strstr(buf, ">  60.00 :   110:   nop\n") != NULL, "hottest instruction marked: %s", buf);
	CHECK(strstr(buf, ">  80.00 :   a.c:33    (inlined from mix)\n") != NULL, "hottest line marked: %s", buf);
	CHECK(strstr(buf, "a.c:10") != NULL, "a line without text shown as file:line");
	free(buf);
	annotation__free(&an);

	/* nothing in the function */
	struct annotate_hit far[] = { { .addr = 0x400, .weight = 1 } };
	CHECK_EQ_INT(annotation__build(&an, &as, far, 1), -ENOENT);
	annotation__free(&an);
}

int main(void)
{
	test_add();
	test_build();
	return check_summary();
}
