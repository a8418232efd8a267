/* pprobe trace --syscalls: cmd_trace.c parses the options, this runs the
 * syscall mode (trace_syscalls.c). */
#ifndef PPROBE_TRACE_SYSCALLS_H
#define PPROBE_TRACE_SYSCALLS_H

#include <stdbool.h>

#include "collect.h"
#include "options.h"

struct trace_syscalls_opts {
	struct collect_opts *co;
	const struct opt_list *events;	/* -e items: syscall names and globs */
	const char *output;		/* -o, or NULL: stdout */
	bool summary;			/* --summary: only the summary */
	bool with_summary;		/* --with-summary: the calls, then the summary */
	bool failure;			/* --failure: only failed calls */
};

/* Runs it all; returns pprobe's exit status (the command's where one ran). */
int trace_syscalls(const struct trace_syscalls_opts *o);

#endif
