/* perf's generic per-event terms (see event_terms.h). perf's meanings
 * (tools/perf/Documentation/perf-record.txt, util/parse-events.c
 * config_term_common and config_term_tracepoint). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "event_terms.h"

/* As record --max-stack: up to 4096 frames a stack. */
#define TERM_MAX_STACK 4096
/* As --call-graph dwarf,SIZE: the kernel copies at most 65528 bytes (a
 * multiple of 8 below USHRT_MAX). */
#define TERM_MAX_STACK_SIZE 65528

const char *event_terms__valid(enum event_terms_set set)
{
	switch (set) {
	case EVENT_TERMS_SYMBOLIC:
		return "period, freq, name, max-stack, call-graph, stack-size, inherit, no-inherit";
	case EVENT_TERMS_TRACEPOINT:
		return "max-stack, call-graph, stack-size, inherit, no-inherit";
	case EVENT_TERMS_PMU:
		break;
	}
	return "max-stack, call-graph, stack-size, inherit, no-inherit";
}

bool event_terms__is_perfs(const char *t)
{
	static const char *const perfs[] = {
		"time", "branch_type", "nr", "max-events", "overwrite", "no-overwrite", "driver-config",
		"percore", "aux-output", "aux-sample-size", "metric-id",
	};
	for (size_t i = 0; i < sizeof(perfs) / sizeof(perfs[0]); i++)
		if (!strcmp(t, perfs[i]))
			return true;
	return false;
}

/* A positive number of at most MAX; 0 and *v, or -EINVAL. */
static int positive(const char *val, uint64_t max, uint64_t *v)
{
	char *end;
	if (!val || !*val || *val == '-')
		return -EINVAL;
	errno = 0;
	unsigned long long x = strtoull(val, &end, 0);
	if (errno || *end || !x || x > max)
		return -EINVAL;
	*v = x;
	return 0;
}

static int stack_size(struct event_spec *s, const char *term, const char *val, const char *full, char *err,
		      size_t errlen)
{
	uint64_t v;
	if (positive(val, TERM_MAX_STACK_SIZE, &v) || v < 8)
		return seterr(err, errlen, "'%s': %s wants a stack size of 8 to %d bytes, got '%s'", full, term,
			      TERM_MAX_STACK_SIZE, val ? val : ""), -EINVAL;
	s->stack_size = (uint32_t)(v & ~7ULL);	/* the kernel wants a multiple of 8 */
	return 1;
}

int event_terms__apply(struct event_spec *s, enum event_terms_set set, bool counting, const char *t, char *val,
		       const char *full, bool *dwarf_size_next, char *err, size_t errlen)
{
	uint64_t v;
	bool was_dwarf = *dwarf_size_next;

	*dwarf_size_next = false;
	if (counting && (!strcmp(t, "max-stack") || !strcmp(t, "call-graph") || !strcmp(t, "stack-size") ||
			 !strcmp(t, "freq") || !strcmp(t, "inherit") || !strcmp(t, "no-inherit")))
		return seterr(err, errlen, "'%s': '%s' is not usable in 'pprobe stat' (as in perf stat: "
			      "counting takes the terms period and name)", full, t), -EINVAL;
	if (was_dwarf && !val && *t >= '0' && *t <= '9')	/* call-graph=dwarf,SIZE */
		return stack_size(s, "call-graph=dwarf,SIZE", t, full, err, errlen);
	if (set != EVENT_TERMS_PMU && (!strcmp(t, "period") || !strcmp(t, "freq") || !strcmp(t, "name"))) {
		if (set == EVENT_TERMS_TRACEPOINT)
			return seterr(err, errlen, "'%s': a tracepoint takes no term '%s', it samples every "
				      "event (valid terms: %s)", full, t, event_terms__valid(set)), -EINVAL;
		if (!strcmp(t, "name")) {
			size_t n = val ? strlen(val) : 0;
			if (n >= 2 && (val[0] == '\'' || val[0] == '"') && val[n - 1] == val[0]) {
				val[n - 1] = 0;
				val++;
			}
			if (!val || !*val)
				return seterr(err, errlen, "'%s': term 'name' needs a value (name=STRING)", full),
				       -EINVAL;
			snprintf(s->name, sizeof(s->name), "%s", val);
			return 1;
		}
		if (positive(val, UINT64_MAX, &v))
			return seterr(err, errlen, "'%s': term '%s' wants a positive number (%s=N), got '%s'", full,
				      t, t, val ? val : ""), -EINVAL;
		s->attr.freq = t[0] == 'f';
		if (s->attr.freq)
			s->attr.sample_freq = v;
		else
			s->attr.sample_period = v;
		s->sampling_from_terms = true;
		return 1;
	}
	if (!strcmp(t, "max-stack")) {
		if (positive(val, TERM_MAX_STACK, &v))
			return seterr(err, errlen, "'%s': max-stack wants a depth of 1 to %d frames, got '%s'", full,
				      TERM_MAX_STACK, val ? val : ""), -EINVAL;
		s->max_stack = (uint32_t)v;
		return 1;
	}
	if (!strcmp(t, "stack-size"))
		return stack_size(s, t, val, full, err, errlen);
	if (!strcmp(t, "call-graph")) {
		static const struct { const char *name; enum event_callgraph cg; } modes[] = {
			{ "fp", EVENT_CG_FP }, { "dwarf", EVENT_CG_DWARF }, { "lbr", EVENT_CG_LBR }, { "no", EVENT_CG_NO },
		};
		for (size_t i = 0; val && i < sizeof(modes) / sizeof(modes[0]); i++)
			if (!strcmp(val, modes[i].name)) {
				s->callgraph = modes[i].cg;
				*dwarf_size_next = modes[i].cg == EVENT_CG_DWARF;
				return 1;
			}
		return seterr(err, errlen, "'%s': call-graph wants fp, dwarf[,SIZE], lbr or no, got '%s'", full,
			      val ? val : ""), -EINVAL;
	}
	if (!strcmp(t, "inherit") || !strcmp(t, "no-inherit")) {
		if (val)
			return seterr(err, errlen, "'%s': term '%s' takes no value", full, t), -EINVAL;
		s->inherit = t[0] == 'n' ? -1 : 1;
		return 1;
	}
	if (set != EVENT_TERMS_PMU && event_terms__is_perfs(t))
		return seterr(err, errlen, "'%s': perf's term '%s' is not supported by pprobe (valid terms: %s)",
			      full, t, event_terms__valid(set)), -EINVAL;
	if (set != EVENT_TERMS_PMU)
		return seterr(err, errlen, "'%s': unknown term '%s' (valid terms: %s)", full, t,
			      event_terms__valid(set)), -ENOENT;
	return 0;
}

const char *event_callgraph__name(enum event_callgraph cg)
{
	switch (cg) {
	case EVENT_CG_UNSET: return "";
	case EVENT_CG_NO:    return "no";
	case EVENT_CG_FP:    return "fp";
	case EVENT_CG_DWARF: return "dwarf";
	case EVENT_CG_LBR:   return "lbr";
	}
	return "?";
}
