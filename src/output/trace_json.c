/* pprobe trace --json: one object per event, fields typed. See trace_print.h. */
#include "trace_print.h"

#include <string.h>

#include "event_spec.h"
#include "json.h"
#include "probe_spec.h"
#include "sample.h"
#include "tp_format.h"

static void field_value(FILE *f, const struct tp_field *fld, const void *raw, size_t size)
{
	int64_t v;
	if (fld->is_string) {
		const void *p = NULL;
		size_t n = 0;
		if (fld->is_dynamic) {
			if (tp_field__dynamic(fld, raw, size, &p, &n))
				p = NULL;
		} else if ((size_t)fld->offset + fld->size <= size) {
			p = (const char *)raw + fld->offset;
			n = fld->size;
		}
		if (p)
			json__string_n(f, p, n);
		else
			fputs("null", f);
	} else if (!fld->is_array && !fld->is_pointer && tp_field__int(fld, raw, size, &v) == 0) {
		if (fld->elem_signed)
			json__i64(f, v);
		else
			json__u64(f, (uint64_t)v);
	} else {
		char tmp[4096];
		tp_field__format(fld, raw, size, tmp, sizeof(tmp));
		json__string(f, tmp);
	}
}

static void fields(FILE *f, const struct tp_format *fmt, const void *raw, size_t size)
{
	int first = 1;
	fputs(",\"fields\":{", f);
	for (size_t i = 0; i < fmt->nr_fields; i++) {
		const struct tp_field *fld = &fmt->fields[i];
		if (fld->is_common)
			continue;
		json__key(f, fld->name, &first);
		field_value(f, fld, raw, size);
	}
	fputc('}', f);
}

void trace_print__json(const struct trace_print *tp, const struct event_spec *spec, const struct tp_format *fmt,
		       const struct sample *s, const char *comm, const struct process *p)
{
	FILE *f = tp->out;
	uint64_t pa[2];
	int npa;

	fputs("{\"comm\":", f);
	json__string(f, comm);
	fprintf(f, ",\"pid\":%u,\"tid\":%u,\"cpu\":%u,\"time\":%.9f,\"event\":", s->pid, s->tid, s->cpu,
		(double)s->time / 1e9);
	json__string(f, spec->name);
	if (fmt && s->raw) {
		fields(f, fmt, s->raw, s->raw_size);
	} else if (spec->pmu[0] && spec->kind == EVENT_KIND_PROBE &&
		   (npa = probe_spec__raw_addrs(spec, s->raw, s->raw_size, pa)) > 0) {
		if (npa == 1)
			fprintf(f, ",\"fields\":{\"ip\":%llu}", (unsigned long long)pa[0]);
		else
			fprintf(f, ",\"fields\":{\"func\":%llu,\"ret_ip\":%llu}", (unsigned long long)pa[0],
				(unsigned long long)pa[1]);
	}
	/* the stacks go in the object */
	if (tp->kstack || tp->ustack)
		trace_print__stacks(tp, s, p);
	fputs("}\n", f);
}
