/* pprobe trace's aggregations (--count, --sum/--min/--max/--avg/--stats/
 * --hist FIELD, --lhist FIELD,MIN,MAX,STEP, --by KEY[,KEY...], -I SECS):
 * instead of a line per event, maps of keys to aggregates (agg_map.h),
 * printed at the end and every interval as bpftrace prints them. */
#ifndef PPROBE_TRACE_AGG_H
#define PPROBE_TRACE_AGG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "options.h"

struct agg_key;
struct event_spec;
struct process;
struct sample;
struct thread;
struct tp_format;
struct trace_print;

/* What the options said: maps, in the order given (each item's name is
 * the option's long name, "count" ... "lhist", its arg the FIELD or the
 * lhist spec; count's arg NULL); by: the --by list or NULL. */
struct trace_agg_opts {
	struct opt_list maps;
	const char *by;
	double interval;	/* -I seconds, 0: none */
	bool json;
	/* --latency: the maps' value is given by the caller (trace_agg__add),
	 * not read from a field; its name ("lat"), the only FIELD the maps
	 * take. NULL: values are fields of the event. */
	const char *value;
};

struct trace_agg;
struct trace_agg_event;

/* The aggregations of o (o->maps not empty), their syntax checked: NULL
 * with err saying what is wrong (a usage error). o is borrowed for the
 * life of the result. */
struct trace_agg *trace_agg__new(const struct trace_agg_opts *o, char *err, size_t len);
void trace_agg__delete(struct trace_agg *a);

/* Which stacks the keys need sampled. */
bool trace_agg__kstack(const struct trace_agg *a);
bool trace_agg__ustack(const struct trace_agg *a);

/* The fields of an event (name: "sys:event", fmt NULL when it has no
 * format) bound for its samples: NULL with err naming what is wrong (no
 * such field, with the event's fields; a field not a number). Freed by
 * trace_agg__delete. */
struct trace_agg_event *trace_agg__bind(struct trace_agg *a, const char *name, const struct tp_format *fmt,
					char *err, size_t len);

/* One sample of the event bound as ev (tp: for the stacks' symbols). */
void trace_agg__sample(struct trace_agg *a, const struct trace_agg_event *ev, const struct trace_print *tp,
		       const struct sample *s, const struct thread *t, const struct process *p);

/* --latency's halves of trace_agg__sample: the key of a sample (its
 * --by parts; a->key, valid until the next call), then later v added to
 * every map under a key made so (its bytes kept meanwhile). */
const struct agg_key *trace_agg__key(struct trace_agg *a, const struct trace_agg_event *ev,
				     const struct trace_print *tp, const struct sample *s, const struct thread *t,
				     const struct process *p);
void trace_agg__add(struct trace_agg *a, const struct agg_key *k, int64_t v);

/* Every map, as bpftrace prints them (text) or one JSON document a line;
 * header: an interval's, the local time as bpftrace's time() prints it
 * ("13:48:12"). Then, with clear, the maps are emptied. */
void trace_agg__print(struct trace_agg *a, FILE *out, bool header, bool clear);

/* From the collect loop's on_tick: with -I, every interval (the first
 * counted from the first call) the maps with a time header, then cleared. */
void trace_agg__tick(struct trace_agg *a, FILE *out);

/* Says on stderr what was left out: events of keys past a map's bound,
 * records too short for a field. Nothing when none was. */
void trace_agg__say_left_out(const struct trace_agg *a);

#endif
