/* The speedscope writer on a synthetic stack table: the exact file (frames
 * shared and deduplicated by name, one sampled profile per thread in order
 * of first sample, samples in time order outermost frame first, weights,
 * the busiest thread active, names escaped), and the file without a
 * timeline (one sample per unique stack).
 *
 * `test_speedscope --write FILE` writes the timeline case to FILE: the
 * deterministic input of tests/e2e/speedscope_browser.sh. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "speedscope.h"
#include "stacks.h"

struct fixture {
	struct frametab *ft;
	struct stacktab *st;
	uint32_t main_, alpha, beta, gamma, tpl, work;
};

static void add(struct fixture *x, const char *comm, pid_t pid, pid_t tid, uint64_t time, uint64_t weight, int n,
		...)
{
	struct stack_owner o = { .comm = comm, .pid = pid, .tid = tid };
	uint32_t fr[8];
	va_list ap;
	va_start(ap, n);
	for (int i = 0; i < n; i++)	/* given leaf first, as stacktab__add takes them */
		fr[i] = va_arg(ap, uint32_t);
	va_end(ap);
	stacktab__add(x->st, &o, fr, (uint32_t)n, weight, time);
}

/* Three threads of "app" (pid 100) and "tool" (pid 102, after an exec),
 * added out of time order. */
static void fixture__init(struct fixture *x, bool timeline)
{
	x->ft = frametab__new();
	x->st = stacktab__new(x->ft);
	if (timeline)
		stacktab__keep_timeline(x->st);
	x->main_ = frametab__special(x->ft, "main");
	x->alpha = frametab__special(x->ft, "alpha");
	x->beta = frametab__special(x->ft, "beta");
	x->gamma = frametab__special(x->ft, "gamma");
	x->tpl = frametab__special(x->ft, "tpl<a&b> \"q\"");
	x->work = frametab__special(x->ft, "work");
	add(x, "app", 100, 100, 30, 300, 2, x->alpha, x->main_);
	add(x, "app", 100, 101, 15, 50, 2, x->beta, x->main_);
	add(x, "app", 100, 100, 10, 100, 2, x->alpha, x->main_);
	add(x, "app", 100, 100, 20, 200, 2, x->beta, x->main_);
	add(x, "app", 100, 101, 25, 25, 3, x->tpl, x->gamma, x->main_);
	add(x, "tool", 102, 102, 40, 70, 2, x->work, x->main_);
	frametab__symbolize(x->ft, NULL);
}

static void fixture__exit(struct fixture *x)
{
	stacktab__delete(x->st);
	frametab__delete(x->ft);
}

static char *write_file(struct fixture *x, size_t *profiles)
{
	struct speedscope_opts o = { .name = "test \"profile\"", .unit = "nanoseconds", .exporter = "pprobe@test" };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	*profiles = speedscope__write(x->ft, x->st, &o, f);
	fclose(f);
	return buf;
}

#define FRAMES                                                                                                  \
	"\"shared\":{\"frames\":[{\"name\":\"main\"},{\"name\":\"alpha\"},{\"name\":\"beta\"},"                     \
	"{\"name\":\"gamma\"},{\"name\":\"tpl<a&b> \\\"q\\\"\"},{\"name\":\"work\"}]}"
#define HEAD "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
#define TAIL ",\"name\":\"test \\\"profile\\\"\",\"activeProfileIndex\":0,\"exporter\":\"pprobe@test\"}\n"

static void test_timeline(void)
{
	struct fixture x;
	size_t n;
	fixture__init(&x, true);
	char *got = write_file(&x, &n);
	CHECK_EQ_U64(n, 3);
	/* speedscope's frame indices follow first use in the stacks, in order of
	 * first add: main, alpha, beta, gamma, tpl, work */
	const char *want = HEAD FRAMES ",\"profiles\":["
		"{\"type\":\"sampled\",\"name\":\"app pid: 100 tid: 100\",\"unit\":\"nanoseconds\","
		"\"startValue\":0,\"endValue\":600,\"samples\":[[0,1],[0,2],[0,1]],\"weights\":[100,200,300]},"
		"{\"type\":\"sampled\",\"name\":\"app pid: 100 tid: 101\",\"unit\":\"nanoseconds\","
		"\"startValue\":0,\"endValue\":75,\"samples\":[[0,2],[0,3,4]],\"weights\":[50,25]},"
		"{\"type\":\"sampled\",\"name\":\"tool pid: 102 tid: 102\",\"unit\":\"nanoseconds\","
		"\"startValue\":0,\"endValue\":70,\"samples\":[[0,5]],\"weights\":[70]}]" TAIL;
	CHECK_STREQ(got, want);
	free(got);
	fixture__exit(&x);
}

/* Without a timeline: one sample per unique stack (summed), in order of
 * first add; the threads in order of their first stack. */
static void test_no_timeline(void)
{
	struct fixture x;
	size_t n;
	fixture__init(&x, false);
	char *got = write_file(&x, &n);
	CHECK_EQ_U64(n, 3);
	const char *want = HEAD FRAMES ",\"profiles\":["
		"{\"type\":\"sampled\",\"name\":\"app pid: 100 tid: 100\",\"unit\":\"nanoseconds\","
		"\"startValue\":0,\"endValue\":600,\"samples\":[[0,1],[0,2]],\"weights\":[400,200]},"
		"{\"type\":\"sampled\",\"name\":\"app pid: 100 tid: 101\",\"unit\":\"nanoseconds\","
		"\"startValue\":0,\"endValue\":75,\"samples\":[[0,2],[0,3,4]],\"weights\":[50,25]},"
		"{\"type\":\"sampled\",\"name\":\"tool pid: 102 tid: 102\",\"unit\":\"nanoseconds\","
		"\"startValue\":0,\"endValue\":70,\"samples\":[[0,5]],\"weights\":[70]}]" TAIL;
	CHECK_STREQ(got, want);
	free(got);
	fixture__exit(&x);
}

/* The busiest thread is the active profile; an unknown owner is named as
 * far as it is known; no stacks: a valid file with no profiles. */
static void test_active_and_unknown(void)
{
	struct frametab *ft = frametab__new();
	struct stacktab *st = stacktab__new(ft);
	stacktab__keep_timeline(st);
	uint32_t a = frametab__special(ft, "a");
	struct stack_owner o1 = { .comm = "x", .pid = 5, .tid = 5 };
	struct stack_owner o2 = { .comm = NULL, .pid = -1, .tid = -1 };
	struct stack_owner o3 = { .comm = "y", .pid = 6, .tid = -1 };
	stacktab__add(st, &o1, &a, 1, 1, 1);
	stacktab__add(st, &o2, &a, 1, 5, 2);
	stacktab__add(st, &o3, &a, 1, 2, 3);
	frametab__symbolize(ft, NULL);
	struct speedscope_opts so = { .unit = "none" };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	CHECK_EQ_U64(speedscope__write(ft, st, &so, f), 3);
	fclose(f);
	CHECK(strstr(buf, "\"name\":\"x pid: 5 tid: 5\""), "%s", buf);
	CHECK(strstr(buf, "\"name\":\"[unknown]\",\"unit\""), "%s", buf);
	CHECK(strstr(buf, "\"name\":\"y pid: 6\",\"unit\""), "%s", buf);
	CHECK(strstr(buf, "\"activeProfileIndex\":1}"), "%s", buf);
	CHECK(!strstr(buf, "\"exporter\""), "%s", buf);
	free(buf);
	stacktab__delete(st);

	st = stacktab__new(ft);
	buf = NULL;
	f = open_memstream(&buf, &len);
	CHECK_EQ_U64(speedscope__write(ft, st, &so, f), 0);
	fclose(f);
	CHECK_STREQ(buf, HEAD "\"shared\":{\"frames\":[]},\"profiles\":[],\"activeProfileIndex\":0}\n");
	free(buf);
	stacktab__delete(st);
	frametab__delete(ft);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--write")) {
		struct fixture x;
		struct speedscope_opts o = { .name = "synthetic", .unit = "nanoseconds", .exporter = "pprobe@test" };
		FILE *f = fopen(argv[2], "w");
		if (!f) {
			perror(argv[2]);
			return 1;
		}
		fixture__init(&x, true);
		speedscope__write(x.ft, x.st, &o, f);
		fixture__exit(&x);
		return fclose(f) ? 1 : 0;
	}
	test_timeline();
	test_no_timeline();
	test_active_and_unknown();
	return check_summary();
}
