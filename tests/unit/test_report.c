/* report.c's aggregation: Children once per sample under recursion, Self at
 * the leaf, a sample without frames, the pid filter (and the samples and
 * stacks it keeps) and the key parser; the
 * table and tree as text (fmemopen); a live stack table read as samples
 * (report__add_stacks, pprobe top) and its rows with their functions. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "report.h"

/* samples: the sample's samples/count value (pprof input) */
static void add_n(struct report *r, const char *comm, int64_t pid, double w, double samples,
		  const char *const *names, size_t n)
{
	struct pframe f[16];
	for (size_t i = 0; i < n; i++)
		f[i] = (struct pframe){ .name = names[i], .kernel = !strcmp(names[i], "sys") };
	struct psample s = { .comm = comm, .pid = pid, .tid = pid, .frames = f, .nr = n, .weight = w,
			     .samples = samples };
	report__add(r, &s);
}

static void add(struct report *r, const char *comm, int64_t pid, double w, const char *const *names, size_t n)
{
	add_n(r, comm, pid, w, 0, names, n);
}

static char *table(struct report *r, bool children, double limit)
{
	static char buf[4096];
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	struct report_print p = { .children = children, .percent_limit = limit };
	report__write_table(r, f, &p);
	fclose(f);
	return buf;
}

int main(void)
{
	enum report_key keys[REPORT_NR_KEYS];
	size_t nr;
	char bad[32];
	CHECK_EQ_INT(report_keys__parse("tid,sym", keys, &nr, bad, sizeof(bad)), 0);
	CHECK(nr == 2 && keys[0] == REPORT_TID && keys[1] == REPORT_SYM, "%zu", nr);
	CHECK(report_keys__parse("sym,cpu", keys, &nr, bad, sizeof(bad)) < 0 && !strcmp(bad, "cpu"), "%s", bad);
	CHECK(report_keys__parse("sym,sym", keys, &nr, bad, sizeof(bad)) < 0 && !strcmp(bad, "sym"), "%s", bad);

	struct report_opts o = { .keys = { REPORT_SYM }, .nr_keys = 1 };
	struct report *r = report__new(&o);
	add(r, "a", 1, 6, (const char *const[]){ "main", "f", "f", "f" }, 4);
	add(r, "a", 1, 3, (const char *const[]){ "main", "g", "sys" }, 3);
	add(r, "a", 2, 1, NULL, 0);
	CHECK(report__total(r) == 10, "%g", report__total(r));
	CHECK_EQ_U64(report__samples(r), 3);
	CHECK(report__count(r) == 0, "folded input counts no samples: %g", report__count(r));
	CHECK(report__has_pids(r) && report__has_tids(r), "ids");
	CHECK_STREQ(table(r, true, 0),
		    "# Children        Self  Symbol\n"
		    "# ........    ........  ......\n"
		    "    90.00%       0.00%  [.] main\n"
		    "    60.00%      60.00%  [.] f\n"
		    "    30.00%      30.00%  [k] sys\n"
		    "    30.00%       0.00%  [.] g\n"
		    "    10.00%      10.00%  [.] [unknown]\n");
	CHECK_STREQ(table(r, false, 20),
		    "# Overhead  Symbol\n"
		    "# ........  ......\n"
		    "    60.00%  [.] f\n"
		    "    30.00%  [k] sys\n");
	report__delete(r);

	/* The pid filter: shares of what is kept; the callees tree of f
	 * starts at its outermost call. */
	int64_t pids[] = { 1 };
	o = (struct report_opts){ .pids = pids, .nr_pids = 1, .tree_func = "f" };
	r = report__new(&o);
	add_n(r, "a", 1, 6, 3, (const char *const[]){ "main", "f", "f", "f" }, 4);
	add_n(r, "a", 1, 2, 1, (const char *const[]){ "main", "g" }, 2);
	add_n(r, "b", 2, 100, 50, (const char *const[]){ "main", "f" }, 2);
	CHECK(report__total(r) == 8, "%g", report__total(r));
	/* pprof's header: the samples and stacks of what is kept */
	CHECK(report__count(r) == 4, "samples %g", report__count(r));
	CHECK_EQ_U64(report__samples(r), 2);
	CHECK(report__has_tree(r), "f is on a kept stack");
	static char buf[1024];
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	report__write_tree(r, f, 0);
	fclose(f);
	CHECK_STREQ(buf, " 75.00%  f\n   75.00%  f\n     75.00%  f\n");
	report__delete(r);

	/* A stack table as top reads it: frames leaf first there, outermost
	 * first here; a kernel frame named by its object, without _[k];
	 * weights and adds summed per stack. */
	struct frametab *ft = frametab__new();
	struct stacktab *st = stacktab__new(ft);
	uint32_t m = frametab__special(ft, "main"), fx = frametab__special(ft, "f");
	uint32_t gx = frametab__special(ft, "g"), k = frametab__kernel(ft, 0xffffffff81000000ULL, false);
	struct stack_owner ow = { .comm = "a", .pid = 7, .tid = 8 };
	stacktab__add(st, &ow, (const uint32_t[]){ fx, m }, 2, 3, 0);
	stacktab__add(st, &ow, (const uint32_t[]){ fx, m }, 2, 3, 0);
	stacktab__add(st, &ow, (const uint32_t[]){ k, gx, m }, 3, 4, 0);
	frametab__symbolize(ft, NULL);
	o = (struct report_opts){ .keys = { REPORT_DSO, REPORT_SYM }, .nr_keys = 2, .tree_func = "g",
				  .tree_callers = true };
	r = report__new(&o);
	report__add_stacks(r, st, ft);
	CHECK(report__total(r) == 10, "%g", report__total(r));
	CHECK_EQ_U64(report__samples(r), 2);	/* stacks */
	CHECK(report__count(r) == 3, "adds %g", report__count(r));
	struct report_print pr = { .children = true };
	struct report_row *rows = report__rows(r, &pr, &nr);
	CHECK_EQ_U64(nr, 4);
	if (nr == 4) {
		CHECK_STREQ(rows[0].func, "main");
		CHECK(rows[0].children == 10 && rows[0].self == 0, "main %g %g", rows[0].children, rows[0].self);
		CHECK_STREQ(rows[1].func, "f");
		CHECK(rows[1].self == 6, "f self %g", rows[1].self);
		CHECK_STREQ(rows[2].func, "[kernel.kallsyms]");
		CHECK_STREQ(rows[2].col[0], "[kernel.kallsyms]");
		CHECK_STREQ(rows[2].col[1], "[k] [kernel.kallsyms]");
		CHECK_STREQ(rows[3].func, "g");
		CHECK_STREQ(rows[3].col[1], "[.] g");
	}
	free(rows);
	const char *titles[REPORT_NR_KEYS];
	CHECK(report__titles(r, titles) == 2 && !strcmp(titles[0], "Shared Object") && !strcmp(titles[1], "Symbol"),
	      "titles");
	f = fmemopen(buf, sizeof(buf), "w");
	report__write_tree(r, f, 0);
	fclose(f);
	CHECK_STREQ(buf, " 40.00%  g\n   40.00%  main\n");
	report__delete(r);
	stacktab__delete(st);
	frametab__delete(ft);
	return check_summary();
}
