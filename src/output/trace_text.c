/* pprobe trace's text lines: see trace_print.h. */
#include "trace_print.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "event_spec.h"
#include "probe_spec.h"
#include "sample.h"
#include "session.h"
#include "tp_format.h"

void trace_print__header(const struct trace_print *tp)
{
	if (!tp->json)
		fprintf(tp->out, "# %14s-%-7s [CPU] %14s: EVENT: FIELDS\n", "COMM", "TID", "SECONDS");
}

/* The event's text as trace_pipe prints it; " (why not)" when the record
 * does not fit its format. */
static void print_info(FILE *out, const struct tp_format *fmt, const void *raw, size_t size)
{
	char small[1024];
	char *buf = small;
	int n = tp_format__print(fmt, raw, size, small, sizeof(small));
	if (n >= (int)sizeof(small) && (buf = malloc((size_t)n + 1)))
		n = tp_format__print(fmt, raw, size, buf, (size_t)n + 1);
	if (!buf)
		fputs(" (no memory to print the event)", out);
	else if (n == -ERANGE)
		fputs(" (record shorter than its format)", out);
	else if (n < 0)
		fputs(" (no memory to print the event)", out);
	else if (n > 0)
		fprintf(out, " %s", buf);
	if (buf != small)
		free(buf);
}

void trace_print__text(const struct trace_print *tp, const struct event_spec *spec, const struct tp_format *fmt,
		       const struct sample *s, const char *comm)
{
	FILE *out = tp->out;
	fprintf(out, "%16s-%-7u [%03u] %14.6f: %s:", comm, s->tid, s->cpu, (double)s->time / 1e9, spec->name);
	if (fmt && s->raw) {
		print_info(out, fmt, s->raw, s->raw_size);
	} else if (spec->pmu[0] && spec->kind == EVENT_KIND_PROBE && s->raw) {
		/* PMU probes have no format: their ip, as perf prints them */
		char pb[64];
		if (probe_spec__format_raw(spec, s->raw, s->raw_size, pb, sizeof(pb)) > 0)
			fprintf(out, " %s", pb);
		else
			fputs(" (record too short for a probe)", out);
	} else {
		fprintf(out, " ip=0x%llx period=%llu", (unsigned long long)s->ip, (unsigned long long)s->period);
	}
	fputc('\n', out);
}

void trace_print__sample(const struct trace_print *tp, const struct event_spec *spec, const struct tp_format *fmt,
			 const struct sample *s, const struct thread *t, const struct process *p)
{
	char comm[32];
	snprintf(comm, sizeof(comm), "%s", t ? t->comm : "?");
	if (tp->json) {
		trace_print__json(tp, spec, fmt, s, comm, p);
		return;
	}
	trace_print__text(tp, spec, fmt, s, comm);
	if (tp->kstack || tp->ustack)
		trace_print__stacks(tp, s, p);
}
