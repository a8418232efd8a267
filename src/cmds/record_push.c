/* record --push (record_push.h). */
#define _GNU_SOURCE
#include "record_push.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util.h"

static int64_t wall_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Pyroscope's application names: letters, digits, '.', '-', '_'. */
static void app_of_command(const char *command, char *buf, size_t len)
{
	const char *b = command ? strrchr(command, '/') : NULL;
	b = b ? b + 1 : command;
	size_t n = 0;
	for (; b && *b && n + 1 < len; b++)
		buf[n++] = (char)((*b >= 'a' && *b <= 'z') || (*b >= 'A' && *b <= 'Z') || (*b >= '0' && *b <= '9') ||
					  *b == '.' || *b == '-' || *b == '_' ? *b : '_');
	buf[n] = 0;
	if (!n)
		snprintf(buf, len, "pprobe");
}

int record_push__start(struct record_push *rp, const struct record_push_opts *o, const char *command,
		       unsigned sample_rate, bool quiet, char *err, size_t errlen)
{
	char app[128];
	const char **labels = pp_xcalloc(o->labels.nr + 1, sizeof(*labels));
	for (size_t i = 0; i < o->labels.nr; i++)
		labels[i] = o->labels.v[i].arg;
	if (o->app)
		snprintf(app, sizeof(app), "%s", o->app);
	else
		app_of_command(command, app, sizeof(app));
	struct pusher_opts po = {
		.url = o->url, .app = app, .labels = labels, .nr_labels = o->labels.nr, .sample_rate = sample_rate,
	};
	memset(rp, 0, sizeof(*rp));
	rp->pusher = pusher__new(&po, err, errlen);
	free(labels);
	if (!rp->pusher)
		return -EINVAL;
	rp->url = o->url;
	rp->interval = o->interval > 0 ? o->interval : 10;
	rp->next = now_seconds() + rp->interval;
	rp->from_ns = wall_ns();
	rp->quiet = quiet;
	return 0;
}

bool record_push__due(const struct record_push *rp, double now)
{
	return rp->pusher && now >= rp->next;
}

void record_push__cut(struct record_push *rp, struct stacktab *st, const struct frametab *ft, struct pprof_opts *po,
		      double now)
{
	int64_t until = wall_ns();
	po->time_nanos = rp->from_ns;
	po->duration_nanos = until - rp->from_ns;
	uint8_t *buf = NULL;
	size_t len = 0;
	int err = pprof__encode(st, ft, po, &buf, &len);
	if (err) {
		fprintf(stderr, "pprobe record: push: encoding the interval failed: %s\n", strerror(-err));
		free(buf);
	} else {
		pusher__submit(rp->pusher, buf, len, rp->from_ns / 1000000000LL,
			       (until + 999999999LL) / 1000000000LL);
	}
	stacktab__clear(st);
	rp->from_ns = until;
	while (rp->next <= now)
		rp->next += rp->interval;
}

/* Profiles refused for good (4xx) since last said: dropped, not retried. */
static void say_refused(struct record_push *rp, const struct pusher_stats *st, const char *more)
{
	fprintf(stderr, "pprobe record: push to %s: %llu profile%s refused: %s (dropped, not retried%s)\n", rp->url,
		(unsigned long long)(st->rejected - rp->rejected_said), st->rejected - rp->rejected_said == 1 ? "" : "s",
		st->last_error, more);
	rp->rejected_said = st->rejected;
}

void record_push__report(struct record_push *rp)
{
	struct pusher_stats st;
	if (!rp->pusher)
		return;
	pusher__stats(rp->pusher, &st);
	if (st.error_seq != rp->error_seq && st.rejected != rp->rejected_said) {
		rp->error_seq = st.error_seq;
		say_refused(rp, &st, "; the recording goes on");
	} else if (st.error_seq != rp->error_seq) {
		rp->error_seq = st.error_seq;
		rp->failures_said = st.failures;
		fprintf(stderr, "pprobe record: push to %s failed: %s (waiting: %zu profiles; retried with backoff, "
			"the recording goes on)\n", rp->url, st.last_error, st.queued);
	} else if (rp->failures_said && !st.queued) {
		fprintf(stderr, "pprobe record: push to %s: delivered again\n", rp->url);
		rp->failures_said = 0;
	}
}

void record_push__finish(struct record_push *rp, double deadline_s)
{
	struct pusher_stats st;
	if (!rp->pusher)
		return;
	pusher__finish(rp->pusher, deadline_s);
	pusher__stats(rp->pusher, &st);
	/* a failure no tick got to say (a short or slow run): a refusal
	 * said as one, as record_push__report says it */
	if (st.error_seq != rp->error_seq && st.rejected != rp->rejected_said)
		say_refused(rp, &st, "");
	else if (st.error_seq != rp->error_seq)
		fprintf(stderr, "pprobe record: push to %s failed: %s\n", rp->url, st.last_error);
	if (!rp->quiet || st.dropped || st.rejected || st.unsent)
		fprintf(stderr, "pprobe record: push: %llu of %llu profiles delivered to %s (%llu bytes)%s",
			(unsigned long long)st.sent, (unsigned long long)st.submitted, rp->url,
			(unsigned long long)st.bytes_sent, st.failures ? "" : "\n");
	if (st.failures && (!rp->quiet || st.dropped || st.rejected || st.unsent))
		fprintf(stderr, "; %llu failed attempts (last: %s)\n", (unsigned long long)st.failures, st.last_error);
	if (st.dropped || st.rejected || st.unsent)
		fprintf(stderr, "pprobe record: push: NOT delivered: %llu dropped from the full queue, %llu refused by "
			"the server, %llu still queued at the end\n", (unsigned long long)st.dropped,
			(unsigned long long)st.rejected, (unsigned long long)st.unsent);
	pusher__delete(rp->pusher);
	rp->pusher = NULL;
}
