/* perf's per-event terms that are not a PMU's own (event_spec.c's helper):
 * max-stack, call-graph, stack-size, inherit, no-inherit, and for events
 * sampled at a rate period, freq, name. Internal to src/engine. */
#ifndef PPROBE_EVENT_TERMS_H
#define PPROBE_EVENT_TERMS_H

#include <stdbool.h>
#include <stddef.h>

#include "event_spec.h"

/* Which terms an event takes. */
enum event_terms_set {
	EVENT_TERMS_SYMBOLIC,   /* cpu-clock/.../, cycles/.../, rHEX/.../: all */
	EVENT_TERMS_TRACEPOINT, /* sys:name/.../: as perf, no period, freq, name */
	EVENT_TERMS_PMU,        /* pmu/.../: the rest (the PMU parser has the others) */
};

/* The names a set takes, for messages: "period, freq, ..." */
const char *event_terms__valid(enum event_terms_set set);

/* Apply TERM (VAL: after '=', or NULL) to S. FULL is the event as written,
 * for messages. 1: applied; 0: not one of these terms (the caller goes
 * on); -EINVAL/-ENOENT with a message in err: a bad value, a term of
 * perf's this set does not take, or with COUNTING (stat) a sampling term
 * perf stat refuses too (max-stack, call-graph, stack-size, freq, inherit,
 * no-inherit: "'max-stack' is not usable in 'perf stat'"). *dwarf_size_next is set when a bare
 * number may follow as dwarf's stack size (call-graph=dwarf,4096). */
int event_terms__apply(struct event_spec *s, enum event_terms_set set, bool counting, const char *term, char *val,
		       const char *full, bool *dwarf_size_next, char *err, size_t errlen);

/* A term perf knows but pprobe does not take (overwrite, aux-output, ...)? */
bool event_terms__is_perfs(const char *term);

#endif
