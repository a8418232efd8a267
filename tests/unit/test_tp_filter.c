/* tp_filter: field checks against real formats; real filters through
 * PERF_EVENT_IOC_SET_FILTER, and the kernel's own reason for a rejected one. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "tp_filter.h"
#include "tp_format.h"
#include "tracefs.h"

static int fails, checks;
#define CHECK(cond, ...) do { checks++; if (!(cond)) { fails++; \
	fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
	fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

static char err[4096];

static void check_ok(const struct tp_format *f, const char *filter)
{
	int r = tp_filter__check(f, "signal:signal_generate", filter, err, sizeof(err));
	CHECK(r == 0, "'%s' rejected: %s", filter, err);
}

/* EXPECT_MSG in the message, and the caret line pointing at column COL. */
static void check_bad(const struct tp_format *f, const char *filter, const char *msg, int col)
{
	int r = tp_filter__check(f, "signal:signal_generate", filter, err, sizeof(err));
	CHECK(r == -EINVAL, "'%s' accepted", filter);
	CHECK(strstr(err, msg) != NULL, "'%s': no '%s' in: %s", filter, msg, err);
	char want[512];
	snprintf(want, sizeof(want), "\n  %s\n  %*s^", filter, col, "");
	CHECK(strstr(err, want) != NULL, "'%s': caret not at %d: %s", filter, col, err);
}

/* Column of the caret under EXPR in MSG, -1 if none. */
static int caret_col(const char *msg, const char *expr)
{
	char head[512];
	snprintf(head, sizeof(head), "\n  %s\n  ", expr);
	const char *p = strstr(msg, head);
	if (!p)
		return -1;
	p += strlen(head);
	int col = 0;
	while (p[col] == ' ')
		col++;
	return p[col] == '^' ? col : -1;
}

int main(void)
{
	if (!tracefs__root()) {
		char m[512];
		tracefs__strerror(errno, m, sizeof(m));
		printf("SKIP: %s\n", m);
		return 77;
	}
	struct tp_format *f = tp_format__load("signal", "signal_generate");
	if (!f) {
		printf("SKIP: no signal:signal_generate (%s)\n", strerror(errno));
		return 77;
	}
	check_ok(f, "sig == 5 && pid == 3073758");
	check_ok(f, "(sig == 5 || sig == 9) && comm ~ \"ba*\" && common_pid != 1");
	check_ok(f, "CPU == 0 && COMM == \"x(\" && result&1");
	check_ok(f, "comm == bash");
	check_bad(f, "sig == 5 && pidx == 3", "no field 'pidx'", 12);
	CHECK(strstr(err, "did you mean 'pid'?") && strstr(err, "fields: sig errno code comm pid group result"),
	      "%s", err);
	check_bad(f, "(sig == 5", "'(' without its ')'", 0);
	check_bad(f, "sig == 5)", "')' without its '('", 8);
	check_bad(f, "comm == \"bash", "string without its closing", 8);

	/* the kernel: a good filter is accepted, a bad operator is explained */
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_TRACEPOINT;
	a.config = f->id;
	a.sample_period = 1;
	a.disabled = 1;
	int fd = (int)syscall(SYS_perf_event_open, &a, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		printf("SKIP: cannot open signal:signal_generate: %s\n", strerror(errno));
		tp_format__free(f);
		return fails ? 1 : 77;
	}
	CHECK(ioctl(fd, PERF_EVENT_IOC_SET_FILTER, "sig == 5 && pid == 3073758") == 0, "good filter: %s",
	      strerror(errno));
	char *before = tracefs__read_file("events/signal/signal_generate/filter", NULL);

	const char *badop = "comm == \"bash\" && sig = 3";
	check_ok(f, badop);   /* fields are fine: only the kernel sees the '=' */
	/* a perf event takes one filter in its life (a second ioctl: EEXIST) */
	close(fd);
	fd = (int)syscall(SYS_perf_event_open, &a, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	int r = ioctl(fd, PERF_EVENT_IOC_SET_FILTER, badop);
	int e = errno;
	CHECK(r < 0 && e == EINVAL, "bad operator accepted? %d %s", r, strerror(e));
	char msg[2048];
	tp_filter__explain("signal", "signal_generate", badop, e, msg, sizeof(msg));
	printf("%s\n", msg);
	if (geteuid() == 0) {
		CHECK(strstr(msg, "Invalid operator"), "%s", msg);
		/* the caret under the '=' (column 22) */
		int col = caret_col(msg, badop);
		CHECK(col == 22, "caret at %d: %s", col, msg);
	}
	const char *badfield = "sig == 5 && pidx == 3";
	close(fd);
	fd = (int)syscall(SYS_perf_event_open, &a, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	r = ioctl(fd, PERF_EVENT_IOC_SET_FILTER, badfield);
	e = errno;
	CHECK(r < 0, "bad field accepted");
	tp_filter__explain("signal", "signal_generate", badfield, e, msg, sizeof(msg));
	printf("%s\n", msg);
	if (geteuid() == 0)
	{
		/* the caret under "pidx" */
		int col = caret_col(msg, badfield);
		CHECK(strstr(msg, "Field not found") && col == 12, "caret at %d: %s", col, msg);
	}
	/* a second filter on one event */
	r = ioctl(fd, PERF_EVENT_IOC_SET_FILTER, "sig == 9");
	CHECK(r == 0, "filter on a fresh fd: %s", strerror(errno));
	r = ioctl(fd, PERF_EVENT_IOC_SET_FILTER, "sig == 5");
	e = errno;
	CHECK(r < 0 && e == EEXIST, "second filter: %d %s", r, strerror(e));
	tp_filter__explain("signal", "signal_generate", "sig == 5", e, msg, sizeof(msg));
	CHECK(strstr(msg, "already has a filter"), "%s", msg);
	/* the event's ftrace filter is as it was */
	char *after = tracefs__read_file("events/signal/signal_generate/filter", NULL);
	CHECK(before && after && !strcmp(before, after), "filter file changed: '%s' -> '%s'", before, after);
	free(before);
	free(after);
	close(fd);
	tp_format__free(f);
	printf("%d checks, %d failed\n", checks, fails);
	return fails ? 1 : 0;
}
