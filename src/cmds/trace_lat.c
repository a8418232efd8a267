/* pprobe trace --latency: starts and ends paired by key (lat_pending.c),
 * their durations handed to the aggregations, the slowest pairs kept and
 * printed. See trace_lat.h. */
#define _GNU_SOURCE
#include "trace_lat.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agg_map.h"
#include "json.h"
#include "lat_pending.h"
#include "sample.h"
#include "session.h"
#include "tp_format.h"
#include "trace_agg.h"
#include "trace_print.h"
#include "util.h"

/* --slowest's bound: the pairs are kept sorted, inserted in O(N). */
#define SLOWEST_MAX 10000

struct slow {
	uint64_t dur;			/* ns */
	uint64_t end_time;
	uint64_t key;			/* the pairing key */
	int32_t start_tid, end_tid;
	char start_comm[16], end_comm[16];
	char *kstack, *ustack;		/* the start's, folded; NULL without -s/-g */
};

struct trace_lat {
	const struct trace_lat_opts *o;
	struct trace_agg *agg;
	struct lat_pending *pending;
	char *pair_field[2];		/* --pair's START_FIELD, END_FIELD; NULL: tid */
	const struct tp_field *field[2];
	const struct trace_agg_event *start_ev;
	uint64_t div;			/* ns in a unit */
	const char *unit;
	uint64_t pairs, short_records;
	struct slow *slowest;		/* longest first */
	size_t nr_slowest;
	char *stack;			/* folded stacks being built */
	size_t stack_cap;
};

struct trace_lat *trace_lat__new(const struct trace_lat_opts *o, struct trace_agg *agg, char *err, size_t len)
{
	struct trace_lat *l = pp_xcalloc(1, sizeof(*l));
	l->o = o;
	l->agg = agg;
	l->unit = o->unit ? o->unit : "us";
	if (!strcmp(l->unit, "ns")) {
		l->div = 1;
	} else if (!strcmp(l->unit, "us")) {
		l->div = 1000;
	} else if (!strcmp(l->unit, "ms")) {
		l->div = 1000000;
	} else {
		seterr(err, len, "--unit '%s': ns, us or ms", l->unit);
		goto err;
	}
	if (o->slowest < 0 || o->slowest > SLOWEST_MAX) {
		seterr(err, len, "--slowest %ld: keeps 1 to %d pairs", o->slowest, SLOWEST_MAX);
		goto err;
	}
	if (o->pair) {
		const char *eq = strchr(o->pair, '=');
		l->pair_field[0] = eq ? strndup(o->pair, (size_t)(eq - o->pair)) : pp_xstrdup(o->pair);
		l->pair_field[1] = pp_xstrdup(eq ? eq + 1 : o->pair);
		if (!l->pair_field[0] || !*l->pair_field[0] || !*l->pair_field[1] || strchr(l->pair_field[1], '=')) {
			seterr(err, len, "--pair '%s': START_FIELD=END_FIELD (or FIELD, in both), e.g. --pair "
			       "pid=next_pid", o->pair);
			goto err;
		}
	}
	l->slowest = o->slowest ? pp_xcalloc((size_t)o->slowest, sizeof(*l->slowest)) : NULL;
	l->pending = lat_pending__new(0);
	if (!l->pending)
		pp_oom(sizeof(struct lat_pending *));
	return l;
err:
	trace_lat__delete(l);
	return NULL;
}

void trace_lat__delete(struct trace_lat *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->nr_slowest; i++) {
		free(l->slowest[i].kstack);
		free(l->slowest[i].ustack);
	}
	free(l->slowest);
	free(l->pair_field[0]);
	free(l->pair_field[1]);
	lat_pending__delete(l->pending);
	free(l->stack);
	free(l);
}

int trace_lat__bind(struct trace_lat *l, enum trace_lat_role role, const char *name, const struct tp_format *fmt,
		    const struct trace_agg_event *agg_ev, char *err, size_t len)
{
	const char *what = role == TRACE_LAT_START ? "start" : "end";
	const char *fname = l->pair_field[role];
	if (role == TRACE_LAT_START)
		l->start_ev = agg_ev;
	if (!fname)
		return 0;
	const struct tp_field *f = fmt ? tp_format__field(fmt, fname) : NULL;
	if (!f) {
		if (!fmt)
			return seterr(err, len, "--pair: the %s event %s has no fields to pair by '%s' (not a "
				      "tracepoint or tracefs probe); without --pair the thread id pairs", what, name,
				      fname), -EINVAL;
		size_t n = (size_t)snprintf(err, len, "--pair: the %s event %s has no field '%s'; its fields:", what,
					    name, fname);
		tp_format__list_fields(fmt, err, len, n);
		return -EINVAL;
	}
	if (f->is_array || f->is_string)
		return seterr(err, len, "--pair: the %s event %s's field '%s' is %s (%s), not a number or pointer",
			      what, name, fname, f->is_string ? "a string" : "an array", f->type), -EINVAL;
	l->field[role] = f;
	return 0;
}

/* The pairing key of s: its thread, or --pair's field. -1 when the record
 * is too short for the field. */
static int pair_key(struct trace_lat *l, enum trace_lat_role role, const struct sample *s, uint64_t *k)
{
	int64_t v;
	if (!l->field[role]) {
		*k = s->tid;
		return 0;
	}
	if (!s->raw || tp_field__int(l->field[role], s->raw, s->raw_size, &v)) {
		l->short_records++;
		return -1;
	}
	*k = (uint64_t)v;
	return 0;
}

static char *folded(struct trace_lat *l, const struct trace_print *tp, const struct sample *s,
		    const struct process *p, bool user)
{
	size_t n = trace_print__folded(tp, s, p, user, &l->stack, &l->stack_cap);
	return strndup(l->stack ? l->stack : "", n);
}

/* The pair among the longest --slowest: kept in order, the shortest out. */
static void keep_slowest(struct trace_lat *l, uint64_t dur, uint64_t k, const struct lat_start *st,
			 const struct sample *s, const struct thread *t)
{
	size_t max = (size_t)l->o->slowest, i = l->nr_slowest;
	if (i == max && dur <= l->slowest[max - 1].dur)
		return;
	if (i == max) {
		i--;
		free(l->slowest[i].kstack);
		free(l->slowest[i].ustack);
	} else {
		l->nr_slowest++;
	}
	while (i > 0 && l->slowest[i - 1].dur < dur) {	/* ties: the earlier first */
		l->slowest[i] = l->slowest[i - 1];
		i--;
	}
	struct slow *e = &l->slowest[i];
	*e = (struct slow){ .dur = dur, .end_time = s->time, .key = k, .start_tid = st->tid,
			    .end_tid = (int32_t)s->tid };
	memcpy(e->start_comm, st->comm, sizeof(e->start_comm));
	snprintf(e->end_comm, sizeof(e->end_comm), "%s", t ? t->comm : "?");
	e->kstack = st->kstack ? pp_xstrdup(st->kstack) : NULL;
	e->ustack = st->ustack ? pp_xstrdup(st->ustack) : NULL;
}

void trace_lat__sample(struct trace_lat *l, enum trace_lat_role role, const struct trace_print *tp,
		       const struct sample *s, const struct thread *t, const struct process *p)
{
	uint64_t k;
	struct lat_start st;
	if (pair_key(l, role, s, &k))
		return;
	if (role == TRACE_LAT_START) {
		const struct agg_key *ak = trace_agg__key(l->agg, l->start_ev, tp, s, t, p);
		st = (struct lat_start){ .time = s->time, .pid = (int32_t)s->pid, .tid = (int32_t)s->tid,
					 .key = ak->buf, .key_len = ak->len, .key_nr = ak->nr };
		snprintf(st.comm, sizeof(st.comm), "%s", t ? t->comm : "?");
		/* --slowest's stacks: the start's, where the thread blocked,
		 * the call was made (the end of off-CPU time, a sched_switch,
		 * is in another task's context) */
		char *ks = l->slowest && tp->kstack ? folded(l, tp, s, p, false) : NULL;
		char *us = l->slowest && tp->ustack ? folded(l, tp, s, p, true) : NULL;
		st.kstack = ks;
		st.ustack = us;
		lat_pending__start(l->pending, k, &st);
		free(ks);
		free(us);
		return;
	}
	if (!lat_pending__end(l->pending, k, &st) || s->time < st.time)
		return;
	uint64_t dur = s->time - st.time;
	const struct agg_key ak = { .buf = (unsigned char *)st.key, .len = st.key_len, .cap = st.key_len,
				    .nr = st.key_nr };
	trace_agg__add(l->agg, &ak, (int64_t)(dur / l->div));
	l->pairs++;
	if (l->slowest)
		keep_slowest(l, dur, k, &st, s, t);
}

static void print_json(const struct trace_lat *l, FILE *out)
{
	fputs("{\"unit\":", out);
	json__string(out, l->unit);
	fputs(",\"slowest\":[", out);
	for (size_t i = 0; i < l->nr_slowest; i++) {
		const struct slow *e = &l->slowest[i];
		int first = 1;
		fputs(i ? ",{" : "{", out);
		json__key(out, "duration", &first);
		json__u64(out, e->dur / l->div);
		json__key(out, "duration_ns", &first);
		json__u64(out, e->dur);
		json__key(out, "time", &first);
		json__double(out, (double)e->end_time / 1e9, 6);
		json__key(out, "key", &first);
		json__u64(out, e->key);
		json__key(out, "start", &first);
		fputs("{\"comm\":", out);
		json__string(out, e->start_comm);
		fprintf(out, ",\"tid\":%d}", e->start_tid);
		json__key(out, "end", &first);
		fputs("{\"comm\":", out);
		json__string(out, e->end_comm);
		fprintf(out, ",\"tid\":%d}", e->end_tid);
		if (e->kstack) {
			json__key(out, "kstack", &first);
			json__string(out, e->kstack);
		}
		if (e->ustack) {
			json__key(out, "ustack", &first);
			json__string(out, e->ustack);
		}
		fputc('}', out);
	}
	fputs("]}\n", out);
}

void trace_lat__print(const struct trace_lat *l, FILE *out, bool json)
{
	if (!l->slowest)
		return;
	if (json) {
		print_json(l, out);
		fflush(out);
		return;
	}
	fprintf(out, "@slowest (%s, end time, start comm-tid -> end comm-tid, key):\n", l->unit);
	for (size_t i = 0; i < l->nr_slowest; i++) {
		const struct slow *e = &l->slowest[i];
		fprintf(out, "%12" PRIu64 " %s %14.6f %s-%d -> %s-%d  key %" PRIu64 "\n", e->dur / l->div, l->unit,
			(double)e->end_time / 1e9, e->start_comm, e->start_tid, e->end_comm, e->end_tid, e->key);
		if (e->kstack)
			fprintf(out, "    kstack: %s\n", *e->kstack ? e->kstack : "[none]");
		if (e->ustack)
			fprintf(out, "    ustack: %s\n", *e->ustack ? e->ustack : "[none]");
	}
	fputc('\n', out);
	fflush(out);
}

void trace_lat__say_left_out(const struct trace_lat *l)
{
	struct lat_pending_counts c;
	lat_pending__counts(l->pending, &c);
	fprintf(stderr, "pprobe trace: --latency: %" PRIu64 " pairs", l->pairs);
	if (lat_pending__nr(l->pending))
		fprintf(stderr, "; %zu starts without an end left out (still open when tracing ended, or their "
			"thread exited)", lat_pending__nr(l->pending));
	if (c.unmatched)
		fprintf(stderr, "; %" PRIu64 " ends without a start ignored", c.unmatched);
	if (c.replaced)
		fprintf(stderr, "; %" PRIu64 " starts replaced by a later start of their key", c.replaced);
	if (c.full)
		fprintf(stderr, "; %" PRIu64 " starts dropped: %u pending at most", c.full, LAT_PENDING_DEFAULT_MAX);
	if (l->short_records)
		fprintf(stderr, "; %" PRIu64 " records too short for --pair left out", l->short_records);
	fputc('\n', stderr);
}
