/* record --push: continuous profiling into Pyroscope. Every --interval
 * seconds the interval's stacks go out as one pprof profile (then the table
 * starts empty again); src/output/push.c sends them from a thread of its
 * own, so recording never waits for the network. */
#ifndef PPROBE_RECORD_PUSH_H
#define PPROBE_RECORD_PUSH_H

#include <stdbool.h>
#include <stdint.h>

#include "options.h"
#include "pprof.h"
#include "push.h"
#include "stacks.h"

struct record_push_opts {
	const char *url;		/* --push */
	double interval;		/* --interval (s); 0: 10 */
	const char *app;		/* --app; NULL: the command's name, else "pprobe" */
	struct opt_list labels;		/* --label k=v */
};

struct record_push {
	struct pusher *pusher;
	const char *url;
	double interval, next;		/* s, monotonic */
	int64_t from_ns;		/* wall clock: the interval's start */
	uint64_t error_seq;		/* the last failure said */
	uint64_t failures_said;
	uint64_t rejected_said;		/* profiles the server refused, said so far */
	bool quiet;
};

/* Start the sender. 0, or -EINVAL with the reason in err (a usage error). */
int record_push__start(struct record_push *rp, const struct record_push_opts *o, const char *command,
		       unsigned sample_rate, bool quiet, char *err, size_t errlen);
/* Is an interval over? (now: monotonic seconds) */
bool record_push__due(const struct record_push *rp, double now);
/* The interval's stacks (symbolized) as one profile to the queue, then
 * the table is cleared; the next interval begins. po: the event's pprof
 * options, whose time and duration are set here. */
void record_push__cut(struct record_push *rp, struct stacktab *st, const struct frametab *ft, struct pprof_opts *po,
		      double now);
/* A failure or a recovery since the last call, said in one line. */
void record_push__report(struct record_push *rp);
/* Deliver what is queued (up to deadline_s more seconds), say the totals,
 * free everything. */
void record_push__finish(struct record_push *rp, double deadline_s);

#endif
