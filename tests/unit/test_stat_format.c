/* pprobe stat's arithmetic and output on synthetic counts: multiplex
 * scaling, derived metrics (IPC, branch miss %, CPUs utilized, rates), the
 * spread of repeats, digit grouping, CSV and JSON lines. */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "stat_format.h"

static char *print(const struct stat_print *p0, const struct stat_count *c, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	struct stat_print p = *p0;
	p.out = open_memstream(&buf, &len);
	stat_print__counts(&p, c, n);
	fclose(p.out);
	return buf;
}

int main(void)
{
	struct stat_count c[4] = {
		{ .name = "cycles", .type = PERF_TYPE_HARDWARE, .config = PERF_COUNT_HW_CPU_CYCLES,
		  .value = 1000000, .enabled = 200, .running = 100, .supported = true },
		{ .name = "instructions", .type = PERF_TYPE_HARDWARE, .config = PERF_COUNT_HW_INSTRUCTIONS,
		  .value = 3000000, .enabled = 200, .running = 100, .supported = true },
		{ .name = "task-clock", .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_TASK_CLOCK,
		  .value = 1500000000, .enabled = 10, .running = 10, .supported = true },
		{ .name = "syscalls:sys_enter_prctl", .type = PERF_TYPE_TRACEPOINT, .config = 99,
		  .value = 1234567, .enabled = 10, .running = 10, .supported = true },
	};
	double m;
	const char *u;

	/* Multiplexed half the time: scaled x2, running 50%. */
	CHECK(stat_count__scaled(&c[0]) == 2000000.0, "scaled %f", stat_count__scaled(&c[0]));
	CHECK(stat_count__running_pct(&c[0]) == 50.0, "pct %f", stat_count__running_pct(&c[0]));
	/* IPC uses scaled values of both. */
	CHECK(stat_metric(c, 4, 1, 2.0, &m, &u) && fabs(m - 3.0) < 1e-9 && !strcmp(u, "insn per cycle"),
	      "ipc %f %s", m, u);
	CHECK(stat_metric(c, 4, 0, 2.0, &m, &u) && fabs(m - 0.001) < 1e-12 && !strcmp(u, "GHz"), "ghz %f", m);
	CHECK(stat_metric(c, 4, 2, 1.0, &m, &u) && fabs(m - 1.5) < 1e-9 && !strcmp(u, "CPUs utilized"),
	      "cpus %f %s", m, u);
	CHECK(stat_metric(c, 4, 3, 2.0, &m, &u) && fabs(m - 617283.5) < 1e-6 && !strcmp(u, "/sec"), "rate %f", m);

	/* A counter that never ran: not supported, no metric. */
	struct stat_count ns = { .name = "cycles", .type = PERF_TYPE_HARDWARE, .config = 0, .enabled = 5 };
	CHECK(!stat_metric(&ns, 1, 0, 1.0, &m, &u), "metric for unsupported");

	struct stat_print p = { .style = STAT_HUMAN, .elapsed = 1.0, .interval_ts = -1 };
	char *out = print(&p, c + 2, 2);
	/* C locale: no thousands separators (as perf stat under LC_ALL=C). */
	CHECK(strstr(out, "             1500.00 msec task-clock") != NULL, "human clock: %s", out);
	CHECK(strstr(out, "             1234567      syscalls:sys_enter_prctl     # 1234567.000 /sec") != NULL,
	      "human count: %s", out);
	free(out);
	out = print(&p, c, 2);
	CHECK(strstr(out, "             6000000      instructions                 #    3.000 insn per cycle  (50.00%)\n") != NULL,
	      "human ipc + running: %s", out);
	free(out);
	out = print(&p, &ns, 1);
	CHECK(strstr(out, "     <not supported>      cycles\n") != NULL, "unsupported: %s", out);
	free(out);

	struct stat_print csv = { .style = STAT_CSV, .sep = ";", .elapsed = 2.0, .interval_ts = -1 };
	out = print(&csv, c + 3, 1);
	CHECK_STREQ(out, "1234567;;syscalls:sys_enter_prctl;10;100.00;617283.50;/sec\n");
	free(out);
	csv.interval_ts = 1.5;
	out = print(&csv, c + 3, 1);
	CHECK_STREQ(out, "1.500000;1234567;;syscalls:sys_enter_prctl;10;100.00;617283.50;/sec\n");
	free(out);

	/* Repeats: the spread of the mean, in human and JSON alike. */
	struct stat_count r = { .name = "x", .type = PERF_TYPE_TRACEPOINT, .supported = true, .enabled = 1,
				.running = 1, .mean = 100, .stddev = 10, .runs = 4 };
	CHECK(fabs(stat_count__spread_pct(&r) - 5.0) < 1e-9, "spread %f", stat_count__spread_pct(&r));
	out = print(&p, &r, 1);
	CHECK(strstr(out, "( +-  5.00% )") != NULL, "human spread: %s", out);
	free(out);
	struct stat_print js = { .style = STAT_JSON, .elapsed = 1.0, .interval_ts = -1 };
	out = print(&js, &r, 1);
	CHECK(strstr(out, "\"counter-value\":\"100\"") && strstr(out, "\"variance\":5.00") &&
	      strstr(out, "\"event\":\"x\""), "json: %s", out);
	free(out);

	/* An event name with quotes, a backslash and control characters (a
	 * probe's name as the user spelled it) is still valid JSON: RFC 8259
	 * escapes, the whole line exactly. */
	struct stat_count odd = { .name = "a\"b\\c\x01" "d\te\nf\x1f", .type = PERF_TYPE_TRACEPOINT,
				  .supported = true, .value = 7, .enabled = 1, .running = 1 };
	struct stat_print js0 = { .style = STAT_JSON, .elapsed = 0, .interval_ts = -1 };
	out = print(&js0, &odd, 1);
	CHECK_STREQ(out, "{\"counter-value\":\"7\",\"unit\":\"\",\"event\":\"a\\\"b\\\\c\\u0001d\\te\\nf\\u001f\","
		  "\"event-runtime\":1,\"pcnt-running\":100.00}\n");
	for (const char *q = out; *q; q++)
		CHECK((unsigned char)*q >= 0x20 || *q == '\n', "raw control character 0x%02x in %s", *q, out);
	free(out);
	return check_summary();
}
