/* pprobe trace --latency (issue 29): the first -e starts, the second
 * ends; each end is paired with the last start of the same key (the
 * thread id, or --pair START_FIELD=END_FIELD: a pid, a request's
 * pointer), and the duration, in --unit, goes to the aggregations
 * (trace_agg.h, their value named "lat") under the start's --by key.
 * --slowest N keeps the N longest pairs, with the start's stacks. */
#ifndef PPROBE_TRACE_LAT_H
#define PPROBE_TRACE_LAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct process;
struct sample;
struct thread;
struct tp_format;
struct trace_agg;
struct trace_agg_event;
struct trace_print;

struct trace_lat_opts {
	const char *pair;	/* --pair START_FIELD[=END_FIELD]; NULL: by thread id */
	const char *unit;	/* --unit ns, us, ms; NULL: us */
	long slowest;		/* --slowest N; 0: none */
};

/* The value's name in the aggregation options: --hist lat. */
#define TRACE_LAT_VALUE "lat"

enum trace_lat_role { TRACE_LAT_START, TRACE_LAT_END };

struct trace_lat;

/* o checked (unit, pair syntax): NULL with err saying what is wrong (a
 * usage error). agg: the maps the durations go to (borrowed). */
struct trace_lat *trace_lat__new(const struct trace_lat_opts *o, struct trace_agg *agg, char *err, size_t len);
void trace_lat__delete(struct trace_lat *l);

/* The start or end event (name "sys:event", fmt NULL without a format;
 * agg_ev: the start's aggregation binding, for its --by keys): 0, or
 * -EINVAL with err naming what is wrong (no --pair field, not a number). */
int trace_lat__bind(struct trace_lat *l, enum trace_lat_role role, const char *name, const struct tp_format *fmt,
		    const struct trace_agg_event *agg_ev, char *err, size_t len);

/* One sample of the start or end event. */
void trace_lat__sample(struct trace_lat *l, enum trace_lat_role role, const struct trace_print *tp,
		       const struct sample *s, const struct thread *t, const struct process *p);

/* --slowest's pairs, longest first (text, or one JSON line); nothing
 * without --slowest. */
void trace_lat__print(const struct trace_lat *l, FILE *out, bool json);

/* On stderr: pairs made, starts never ended, ends without a start, starts
 * dropped (the pending table full), records too short for --pair. */
void trace_lat__say_left_out(const struct trace_lat *l);

#endif
