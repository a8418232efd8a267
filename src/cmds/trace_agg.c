/* pprobe trace's aggregations: the options parsed, the keys and values
 * read from each sample, the maps printed at the end and at intervals.
 * See trace_agg.h; the table itself is src/output/agg_map.c. */
#define _GNU_SOURCE
#include "trace_agg.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agg_map.h"
#include "event_spec.h"
#include "json.h"
#include "sample.h"
#include "session.h"
#include "tp_format.h"
#include "trace_print.h"
#include "util.h"

#define MAX_KEYS 8
#define MAX_MAPS 16

enum key_kind { KEY_COMM, KEY_PID, KEY_TID, KEY_CPU, KEY_EVENT, KEY_KSTACK, KEY_USTACK, KEY_FIELD };

static const char *const key_names[] = {
	[KEY_COMM] = "comm",     [KEY_PID] = "pid",       [KEY_TID] = "tid",     [KEY_CPU] = "cpu",
	[KEY_EVENT] = "event", [KEY_KSTACK] = "kstack", [KEY_USTACK] = "ustack",
};

struct agg_def {
	enum agg_op op;
	const char *field;		/* the value's field (NULL for count) */
	struct agg_map *map;
	char name[80];			/* "@", "@hist_count" */
	uint64_t short_records;		/* records too short for the field */
};

struct trace_agg_event {
	struct trace_agg_event *next;
	const char *name;		/* "sys:event" (the spec's) */
	const struct tp_format *fmt;
	const struct tp_field *keys[MAX_KEYS];	/* KEY_FIELD's */
	const struct tp_field *values[MAX_MAPS];
};

struct trace_agg {
	const struct trace_agg_opts *o;
	struct agg_def maps[MAX_MAPS];
	int nr_maps;
	enum key_kind keys[MAX_KEYS];
	char *key_field[MAX_KEYS];	/* KEY_FIELD's name */
	int nr_keys;
	struct trace_agg_event *events;
	struct agg_key key;
	char *stack;			/* the folded stack being built */
	size_t stack_cap;
	double next_print;		/* -I: when (now_seconds), 0 before the first tick */
};

/* bpftrace's spellings of a field: args.NAME, args->NAME */
static const char *field_name(const char *s)
{
	if (!strncmp(s, "args.", 5))
		return s + 5;
	if (!strncmp(s, "args->", 6))
		return s + 6;
	return s;
}

static int parse_i64(const char *s, size_t n, int64_t *v)
{
	char buf[32], *end;
	if (!n || n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, n);
	buf[n] = 0;
	errno = 0;
	*v = strtoll(buf, &end, 0);
	return errno || *end ? -EINVAL : 0;
}

/* "FIELD,MIN,MAX,STEP" */
static int parse_lhist(const char *spec, char **field, struct agg_linear *l, char *err, size_t len)
{
	const char *c1 = strchr(spec, ',');
	const char *c2 = c1 ? strchr(c1 + 1, ',') : NULL;
	const char *c3 = c2 ? strchr(c2 + 1, ',') : NULL;
	if (!c3 || strchr(c3 + 1, ',') || c1 == spec)
		return seterr(err, len, "--lhist '%s': FIELD,MIN,MAX,STEP, e.g. --lhist count,0,1000,100", spec),
		       -EINVAL;
	if (parse_i64(c1 + 1, (size_t)(c2 - c1 - 1), &l->min) || parse_i64(c2 + 1, (size_t)(c3 - c2 - 1), &l->max) ||
	    parse_i64(c3 + 1, strlen(c3 + 1), &l->step))
		return seterr(err, len, "--lhist '%s': MIN, MAX and STEP are integers, e.g. --lhist count,0,1000,100",
			      spec), -EINVAL;
	char why[256];
	if (agg_linear__check(l, why, sizeof(why)))
		return seterr(err, len, "--lhist '%s': %s", spec, why), -EINVAL;
	*field = strndup(spec, (size_t)(c1 - spec));
	return 0;
}

static int parse_by(struct trace_agg *a, const char *by, char *err, size_t len)
{
	const char *p = by;
	for (;;) {
		const char *e = strchrnul(p, ',');
		size_t n = (size_t)(e - p);
		if (!n)
			return seterr(err, len, "--by '%s': an empty key; keys are comm, pid, tid, cpu, event, kstack, "
				      "ustack or a field of the event", by), -EINVAL;
		if (a->nr_keys == MAX_KEYS)
			return seterr(err, len, "--by '%s': at most %d keys", by, MAX_KEYS), -EINVAL;
		int k = a->nr_keys++;
		a->keys[k] = KEY_FIELD;
		for (int i = 0; i < KEY_FIELD; i++)
			if (strlen(key_names[i]) == n && !strncmp(p, key_names[i], n))
				a->keys[k] = (enum key_kind)i;
		if (a->keys[k] == KEY_FIELD) {
			char *f = strndup(p, n);
			a->key_field[k] = pp_xstrdup(field_name(f));
			free(f);
		}
		if (!*e)
			return 0;
		p = e + 1;
	}
}

struct trace_agg *trace_agg__new(const struct trace_agg_opts *o, char *err, size_t len)
{
	struct trace_agg *a = pp_xcalloc(1, sizeof(*a));
	a->o = o;
	if (o->maps.nr > MAX_MAPS) {
		seterr(err, len, "at most %d aggregations", MAX_MAPS);
		goto err;
	}
	if (o->by && parse_by(a, o->by, err, len))
		goto err;
	for (size_t i = 0; i < o->maps.nr; i++) {
		const struct opt_item *it = &o->maps.v[i];
		struct agg_def *d = &a->maps[a->nr_maps++];
		struct agg_linear lin = { 0 };
		char *field = NULL;
		for (int op = AGG_COUNT; op <= AGG_LHIST; op++)
			if (!strcmp(it->name, agg_op__name((enum agg_op)op)))
				d->op = (enum agg_op)op;
		if (d->op == AGG_LHIST) {
			if (parse_lhist(it->arg, &field, &lin, err, len))
				goto err;
		} else if (d->op != AGG_COUNT) {
			if (!*it->arg && !o->value) {
				seterr(err, len, "--%s needs a FIELD of the event, e.g. --%s count", it->name,
				       it->name);
				goto err;
			}
			field = pp_xstrdup(*it->arg ? field_name(it->arg) : o->value);
		}
		d->field = field;
		if (o->value && field && strcmp(field, o->value)) {
			seterr(err, len, "--%s %s: with --latency the value is the duration, '%s' (e.g. --%s %s%s)",
			       it->name, field, o->value, it->name, o->value, d->op == AGG_LHIST ? ",0,1000,100" : "");
			goto err;
		}
		d->map = agg_map__new(d->op, d->op == AGG_LHIST ? &lin : NULL, a->nr_keys > 0, 0);
		if (!d->map)
			pp_oom(sizeof(struct agg_def));
		/* one map: bpftrace's @; several: each named after what it keeps */
		if (o->maps.nr == 1)
			snprintf(d->name, sizeof(d->name), "@");
		else if (field)
			snprintf(d->name, sizeof(d->name), "@%s_%s", it->name, field);
		else
			snprintf(d->name, sizeof(d->name), "@%s", it->name);
	}
	return a;
err:
	trace_agg__delete(a);
	return NULL;
}

void trace_agg__delete(struct trace_agg *a)
{
	if (!a)
		return;
	for (int i = 0; i < a->nr_maps; i++) {
		agg_map__delete(a->maps[i].map);
		free((char *)a->maps[i].field);
	}
	for (int i = 0; i < a->nr_keys; i++)
		free(a->key_field[i]);
	while (a->events) {
		struct trace_agg_event *e = a->events;
		a->events = e->next;
		free(e);
	}
	agg_key__exit(&a->key);
	free(a->stack);
	free(a);
}

static bool has_key(const struct trace_agg *a, enum key_kind k)
{
	for (int i = 0; i < a->nr_keys; i++)
		if (a->keys[i] == k)
			return true;
	return false;
}

bool trace_agg__kstack(const struct trace_agg *a)
{
	return has_key(a, KEY_KSTACK);
}

bool trace_agg__ustack(const struct trace_agg *a)
{
	return has_key(a, KEY_USTACK);
}

/* "EVENT has no field 'X'; its fields: a b c" */
static void no_field(const char *what, const char *name, const struct tp_format *fmt, const char *field, char *err,
		     size_t len)
{
	if (!fmt) {
		seterr(err, len, "%s: %s has no fields to read '%s' from (not a tracepoint or tracefs probe); keys "
		       "without fields: comm, pid, tid, cpu, event, kstack, ustack", what, name, field);
		return;
	}
	size_t n = (size_t)snprintf(err, len, "%s: %s has no field '%s'; its fields:", what, name, field);
	n = tp_format__list_fields(fmt, err, len, n);
	if (n < len)
		snprintf(err + n, len - n, " (and the keys comm, pid, tid, cpu, event, kstack, ustack)");
}

struct trace_agg_event *trace_agg__bind(struct trace_agg *a, const char *name, const struct tp_format *fmt,
					char *err, size_t len)
{
	struct trace_agg_event *ev = pp_xcalloc(1, sizeof(*ev));
	ev->name = name;
	ev->fmt = fmt;
	for (int i = 0; i < a->nr_keys; i++) {
		if (a->keys[i] != KEY_FIELD)
			continue;
		ev->keys[i] = fmt ? tp_format__field(fmt, a->key_field[i]) : NULL;
		if (!ev->keys[i]) {
			no_field("--by", name, fmt, a->key_field[i], err, len);
			goto err;
		}
	}
	for (int i = 0; i < a->nr_maps; i++) {
		const struct agg_def *d = &a->maps[i];
		char what[16];
		if (a->o->value)	/* given by trace_agg__add */
			continue;
		snprintf(what, sizeof(what), "--%s", agg_op__name(d->op));
		if (!d->field)
			continue;
		const struct tp_field *f = fmt ? tp_format__field(fmt, d->field) : NULL;
		if (!f) {
			no_field(what, name, fmt, d->field, err, len);
			goto err;
		}
		if (f->is_array || f->is_string || f->is_pointer) {
			seterr(err, len, "%s %s: %s's field '%s' is %s (%s), not a number; --by %s keys by it", what,
			       d->field, name, d->field,
			       f->is_string ? "a string" : f->is_array ? "an array" : "a pointer", f->type, d->field);
			goto err;
		}
		ev->values[i] = f;
	}
	ev->next = a->events;
	a->events = ev;
	return ev;
err:
	free(ev);
	return NULL;
}

static void key_field(struct agg_key *k, const struct tp_field *f, const struct sample *s)
{
	int64_t v;
	if (f->is_string) {
		const void *p = NULL;
		size_t n = 0;
		if (f->is_dynamic) {
			if (tp_field__dynamic(f, s->raw, s->raw_size, &p, &n))
				p = NULL;
		} else if ((size_t)f->offset + f->size <= s->raw_size) {
			p = (const char *)s->raw + f->offset;
			n = f->size;
		}
		agg_key__str(k, p ? p : "?", p ? n : 1);
	} else if (!f->is_array && !f->is_pointer && tp_field__int(f, s->raw, s->raw_size, &v) == 0) {
		if (f->elem_signed)
			agg_key__int(k, v);
		else
			agg_key__uint(k, (uint64_t)v);
	} else {
		char tmp[1024];
		int n = tp_field__format(f, s->raw, s->raw_size, tmp, sizeof(tmp));
		agg_key__str(k, tmp, n < 0 ? 0 : (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
	}
}

const struct agg_key *trace_agg__key(struct trace_agg *a, const struct trace_agg_event *ev,
				     const struct trace_print *tp, const struct sample *s, const struct thread *t,
				     const struct process *p)
{
	struct agg_key *k = &a->key;
	agg_key__reset(k);
	for (int i = 0; i < a->nr_keys; i++) {
		switch (a->keys[i]) {
		case KEY_COMM: {
			const char *comm = t ? t->comm : "?";
			agg_key__str(k, comm, strnlen(comm, sizeof(t->comm)));
			break;
		}
		case KEY_PID: agg_key__int(k, (int32_t)s->pid); break;
		case KEY_TID: agg_key__int(k, (int32_t)s->tid); break;
		case KEY_CPU: agg_key__int(k, s->cpu); break;
		case KEY_EVENT: agg_key__str(k, ev->name, strlen(ev->name)); break;
		case KEY_KSTACK:
		case KEY_USTACK: {
			size_t n = trace_print__folded(tp, s, p, a->keys[i] == KEY_USTACK, &a->stack, &a->stack_cap);
			agg_key__str(k, a->stack, n);
			break;
		}
		case KEY_FIELD:
			if (s->raw)
				key_field(k, ev->keys[i], s);
			else
				agg_key__str(k, "?", 1);
			break;
		}
	}
	return k;
}

void trace_agg__add(struct trace_agg *a, const struct agg_key *k, int64_t v)
{
	for (int i = 0; i < a->nr_maps; i++)
		agg_map__add(a->maps[i].map, k, v);
}

void trace_agg__sample(struct trace_agg *a, const struct trace_agg_event *ev, const struct trace_print *tp,
		       const struct sample *s, const struct thread *t, const struct process *p)
{
	const struct agg_key *k = trace_agg__key(a, ev, tp, s, t, p);
	for (int i = 0; i < a->nr_maps; i++) {
		struct agg_def *d = &a->maps[i];
		int64_t v = 0;
		if (ev->values[i] && (!s->raw || tp_field__int(ev->values[i], s->raw, s->raw_size, &v))) {
			d->short_records++;
			continue;
		}
		agg_map__add(d->map, k, v);
	}
}

static void print_json(struct trace_agg *a, FILE *out, const char *when)
{
	fputc('{', out);
	if (when) {
		fputs("\"time\":", out);
		json__string(out, when);
		fputc(',', out);
	}
	fputs("\"by\":[", out);
	for (int i = 0; i < a->nr_keys; i++) {
		if (i)
			fputc(',', out);
		json__string(out, a->keys[i] == KEY_FIELD ? a->key_field[i] : key_names[a->keys[i]]);
	}
	fputs("],\"maps\":[", out);
	for (int i = 0; i < a->nr_maps; i++) {
		const struct agg_def *d = &a->maps[i];
		fputs(i ? ",{\"name\":" : "{\"name\":", out);
		json__string(out, d->name);
		fputs(",\"op\":", out);
		json__string(out, agg_op__name(d->op));
		if (d->field) {
			fputs(",\"field\":", out);
			json__string(out, d->field);
		}
		fputs(",\"entries\":", out);
		agg_map__print_json(d->map, out);
		fputc('}', out);
	}
	fputs("]}\n", out);
}

void trace_agg__print(struct trace_agg *a, FILE *out, bool header, bool clear)
{
	char when[32] = "";
	if (header) {
		time_t now = time(NULL);
		struct tm tm;
		strftime(when, sizeof(when), "%H:%M:%S", localtime_r(&now, &tm));
	}
	if (a->o->json) {
		print_json(a, out, header ? when : NULL);
	} else {
		if (header)
			fprintf(out, "%s\n", when);
		for (int i = 0; i < a->nr_maps; i++)
			agg_map__print(a->maps[i].map, out, a->maps[i].name);
	}
	fflush(out);
	for (int i = 0; clear && i < a->nr_maps; i++)
		agg_map__clear(a->maps[i].map);
}

void trace_agg__say_left_out(const struct trace_agg *a)
{
	for (int i = 0; i < a->nr_maps; i++) {
		const struct agg_def *d = &a->maps[i];
		uint64_t dropped = agg_map__dropped(d->map);
		if (dropped)
			fprintf(stderr,
				"pprobe trace: %s: %" PRIu64 " events of new keys left out: a map holds at most %u MiB "
				"of keys and buckets; fewer keys (--by) or -I to clear it\n",
				d->name, dropped, AGG_MAP_DEFAULT_MAX_BYTES >> 20);
		if (d->short_records)
			fprintf(stderr, "pprobe trace: %s: %" PRIu64 " events whose record was too short for '%s' left "
				"out\n", d->name, d->short_records, d->field);
	}
}

void trace_agg__tick(struct trace_agg *a, FILE *out)
{
	double iv = a->o->interval;
	if (iv <= 0)
		return;
	double now = now_seconds();
	if (!a->next_print) {
		a->next_print = now + iv;
		return;
	}
	if (now < a->next_print)
		return;
	trace_agg__print(a, out, true, true);
	a->next_print += iv;
	if (a->next_print < now)	/* fell behind: the next a whole interval on */
		a->next_print = now + iv;
}
