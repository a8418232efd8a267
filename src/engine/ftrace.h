/* ftrace: the kernel's function and function_graph tracers through tracefs,
 * as perf ftrace drives them (reset, pids, filters, tracer, tracing_on,
 * read trace_pipe, reset), with the global tracing state left exactly as
 * found on every exit path.
 *
 * Where the kernel offers the tracer in an instance (instances/NAME/
 * available_tracers lists it, and the instance has every file the options
 * need), everything happens in a new instance pprobe_ftrace_<pid>, removed
 * at the end: the global state is never touched. Otherwise (function_graph
 * before 6.12, max_graph_depth) the top level is used: every file pprobe may
 * write there is read first, and written back at the end where it differs.
 * In both cases a guard process is forked before the first change; it waits
 * on a pipe from pprobe and, if pprobe dies without saying it is done
 * (kill -9), restores the snapshot and removes the instance itself.
 *
 * Functions return -errno (or NULL + errno) with a message in err. */
#ifndef PPROBE_FTRACE_H
#define PPROBE_FTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct ftrace_opts {
	const char *tracer;		/* "function" or "function_graph" */
	const char *const *filters;	/* -T: set_ftrace_filter (globs) */
	size_t nr_filters;
	const char *const *notrace;	/* -N: set_ftrace_notrace */
	size_t nr_notrace;
	const char *const *graph_funcs;	/* -G: set_graph_function */
	size_t nr_graph_funcs;
	const char *const *graph_notrace; /* -g: set_graph_notrace */
	size_t nr_graph_notrace;
	int depth;			/* -D: max_graph_depth, 0 = the kernel's */
	const char *cpu_mask;		/* tracing_cpumask (hex, as the file takes it), NULL = all */
	unsigned long buffer_kb;	/* buffer_size_kb per CPU, 0 = the kernel's */
};

struct ftrace;

/* Checks the tracer, picks an instance or the top level, saves what it will
 * change, starts the guard and writes the filters, the tracer and its
 * options, with tracing off. NULL + errno with what was refused and why in
 * err (EPERM: the kernel refuses the function tracer's files; ENOENT: no
 * such tracer; EINVAL: a filter matched no function). */
struct ftrace *ftrace__new(const struct ftrace_opts *o, char *err, size_t errlen);

/* Trace only these tasks (set_ftrace_pid) and, with follow, the tasks they
 * fork (options/function-fork; *followed tells whether the kernel has it). */
int ftrace__set_pids(struct ftrace *f, const pid_t *pids, int nr, bool follow, bool *followed, char *err,
		     size_t errlen);

/* Never trace task PID (set_ftrace_notrace_pid, 5.8 on; -ENOENT before):
 * pprobe itself with -a, whose reads of trace_pipe would feed themselves. */
int ftrace__set_notrace_pid(struct ftrace *f, pid_t pid);

/* tracing_on 1 / 0. */
int ftrace__start(struct ftrace *f);
int ftrace__stop(struct ftrace *f);

/* trace_pipe of the instance (or the top level), opened O_NONBLOCK; owned
 * by f. -errno. */
int ftrace__pipe_fd(struct ftrace *f);

/* Entries the kernel dropped (per_cpu/cpuN/stats: overrun, dropped events). */
uint64_t ftrace__lost(struct ftrace *f);

/* "instance pprobe_ftrace_123" or "top level (the tracer is not offered in
 * instances)". Valid while f lives. */
const char *ftrace__where(const struct ftrace *f);

/* At the top level: the tracer that was there, if not nop ("function\n"),
 * which pprobe replaces while it runs; NULL otherwise. */
const char *ftrace__replaced_tracer(const struct ftrace *f);

/* Restores what was found (or removes the instance), tells the guard it is
 * done and reaps it. NULL is fine. */
void ftrace__delete(struct ftrace *f);

/* The function a trace_pipe line of either tracer enters, into name: the
 * function tracer's "comm-pid [cpu] flags ts: FUNC <-PARENT", the graph
 * tracer's "cpu) comm-pid | duration | FUNC() {" and "FUNC();". 1 when the
 * line is such an entry, 0 otherwise (closing braces, comments, banners). */
int ftrace__line_function(const char *line, char *name, size_t len);

/* Why the kernel refused a function tracer file with EPERM, in words (the
 * kernel lockdown mode where securityfs tells). */
void ftrace__eperm_reason(char *buf, size_t len);

#endif
