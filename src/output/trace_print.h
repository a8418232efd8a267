/* pprobe trace's writers: one line per event, text or JSON, and the stacks
 * under it.
 *
 * Text: "comm-tid [cpu] seconds: subsys:event: INFO", INFO what the kernel's
 * trace_pipe prints for the event (tp_format__print); PMU probes without a
 * format print their address as perf does ("(0x401136)"); other events
 * "ip=0x... period=N". Stacks follow, one frame a line:
 * "\t    ADDRESS symbol+0xOFF (dso)".
 * JSON: one object a line, {"comm","pid","tid","cpu","time","event",
 * "fields":{name: value, ...},"stack":[...]}, field values typed (integers
 * as numbers, strings as strings, pointers and other arrays as text). */
#ifndef PPROBE_TRACE_PRINT_H
#define PPROBE_TRACE_PRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct collect;
struct event_spec;
struct process;
struct sample;
struct symbolizer;
struct thread;
struct tp_format;
struct unwinder;

struct trace_print {
	FILE *out;
	bool json;
	bool kstack, ustack;		/* the kernel stack (PERF_SAMPLE_CALLCHAIN), user stack */
	struct symbolizer *sym;		/* stacks: symbols */
	struct unwinder *unwinder;	/* ustack: DWARF unwinding of the sampled stack */
	struct collect *collect;	/* ustack: the processes' maps */
};

/* One event of spec (fmt: its format, NULL when it has none); t and p may
 * be NULL (unknown thread). */
void trace_print__sample(const struct trace_print *tp, const struct event_spec *spec, const struct tp_format *fmt,
			 const struct sample *s, const struct thread *t, const struct process *p);

/* The column header of the text output (-H); nothing for JSON. */
void trace_print__header(const struct trace_print *tp);

/* Between the writers (trace_text.c, trace_json.c, trace_stack.c). */
void trace_print__text(const struct trace_print *tp, const struct event_spec *spec, const struct tp_format *fmt,
		       const struct sample *s, const char *comm);
void trace_print__json(const struct trace_print *tp, const struct event_spec *spec, const struct tp_format *fmt,
		       const struct sample *s, const char *comm, const struct process *p);
/* The stacks of s: text lines, or (JSON) the ,"stack":[...] member; an
 * incomplete user stack ends in its label (unwind_result__label). */
void trace_print__stacks(const struct trace_print *tp, const struct sample *s, const struct process *p);

/* The kernel stack (user false) or the user stack of s folded, outermost
 * first: "main;work;write" ("[unknown]" where unnamed; "" when none; an
 * incomplete user stack starts with its label, "[truncated];..."), into
 * *buf (malloc'd, grown; *cap its size; the caller frees it). Returns its
 * length. */
size_t trace_print__folded(const struct trace_print *tp, const struct sample *s, const struct process *p, bool user,
			   char **buf, size_t *cap);

#endif
