/* Dynamic probes in tracefs (uprobe_events, kprobe_events), as perf probe
 * makes them: persistent ones (pprobe --add/-l/-d) and temporary ones that
 * live for one run of pprobe (-e 'SPEC ARG...').
 *
 * All functions return >= 0 or -errno; where an err buffer is given it then
 * holds a sentence for the user (what failed, why, what to do). Functions
 * that change tracefs block SIGINT/SIGTERM/SIGHUP while they write, so a
 * signal never leaves a definition half-made. */
#ifndef PPROBE_PROBE_TRACEFS_H
#define PPROBE_PROBE_TRACEFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A probe definition in perf probe's --add syntax, as given by the user:
 *   "[[GROUP:]EVENT=]FUNC[@SRC][:RLN|+OFFS|%return|;PTN] [ARG...]"
 * binary NULL = the kernel. Resolves every instance (probe_finder__find), translates
 * the args (probe_finder__fetch_args), writes uprobe_events/kprobe_events, explains
 * kernel refusals with error_log. Default group "probe" (kernel) or
 * "probe_<binname>" (binary); event names as perf's (func, func_1, ... ; func__return).
 * On success fills up to max created "GROUP:EVENT" names into names (malloc'ed) and
 * returns their count; -errno with err filled otherwise (nothing left in tracefs). */
int probe_tracefs__add(const char *binary, const char *def, char ***names,
		       char *err, size_t errlen);
/* The same with perf probe -f: an EVENT name given in def that is taken
 * gets the next free suffix (EVENT_1, EVENT_2, ...) instead of -EEXIST. */
int probe_tracefs__add_forced(const char *binary, const char *def, char ***names, char *err, size_t errlen);

/* The same, but temporary for this process's run: group "pprobe_<pid>", removed by
 * probe_tracefs__remove_temps() which is registered with atexit() on first use and
 * called on SIGINT/SIGTERM paths; stale "pprobe_<pid>" groups of dead pids are swept
 * by probe_tracefs__sweep_stale() (called on first use too).
 * SIGINT/SIGTERM/SIGHUP stay blocked from the first use on: the engine's
 * signalfd (collect.c) receives them and pprobe exits through its normal
 * path, so the atexit() handler runs. */
int probe_tracefs__add_temp(const char *binary, const char *def, char ***names,
			    char *err, size_t errlen);
/* One site already resolved (no DWARF, no arguments) as a temporary probe
 * of group "pprobe_<pid>", removed and swept as those of
 * probe_tracefs__add_temp: target is what follows the event name in
 * uprobe_events ("/abs/path:0xOFF", "/abs/path:0xOFF(0xREFCTR)" for a USDT
 * semaphore) or kprobe_events ("SYM+OFF", "0xADDR"); the event is named
 * after base (sanitized; "__return" added for a return probe; _1, _2, ...
 * when taken). The same site asked again in this run gives the event made
 * the first time. Fills name with "GROUP:EVENT"; 0, or -errno with err
 * filled (tracefs missing or not writable, the kernel's refusal). */
int probe_tracefs__add_temp_site(bool uprobe, bool retprobe, const char *base, const char *target, char *name,
				 size_t namelen, char *err, size_t errlen);
/* Hold the probe event of tracefs id ID open system-wide (one CPU, never
 * enabled) until probe_tracefs__remove_temps() or exit. For uprobe events
 * followed into new tasks: the kernel's per-process filter of uprobe events
 * loses breakpoints in forked and exec'd tasks when it has only per-task
 * perf events (a process that forks or execs while another exits stops
 * hitting; seen on 6.18 with perf too); with a system-wide event open it
 * keeps the breakpoints in every process that maps the file, and perf
 * still counts only the tasks followed. 0, or -errno (no CAP_PERFMON). */
int probe_tracefs__anchor(uint64_t id);
void probe_tracefs__remove_temps(void);
int probe_tracefs__sweep_stale(void);
void probe_tracefs__free_names(char **names, int n);

/* ---- the pieces, for pprobe -l/-d and the tests ---- */

/* A definition split: "[[GROUP:]EVENT=]POINT [ARG...]" (whitespace separates
 * the args, as perf). Strings malloc'ed; probe_def__exit frees them. */
struct probe_def {
	char *group;		/* GROUP given, else NULL */
	char *event;		/* EVENT given, else NULL */
	char *point;		/* FUNC[@SRC][:RLN|+OFFS|%return|;PTN], SRC:ALN, SRC;PTN, 0xADDR */
	char **args;
	int nargs;
	bool retprobe;		/* point ends in %return */
};
int probe_def__parse(const char *def, struct probe_def *d, char *err, size_t errlen);
void probe_def__exit(struct probe_def *d);

/* perf's default group: "probe" for the kernel, else "probe_" and the
 * binary's base name up to its first character not alphanumeric or '_' (libc.so.6 -> probe_libc),
 * other characters tracefs refuses turned into '_'. */
int probe_tracefs__default_group(const char *binary, char *buf, size_t len);

/* perf's event name for a point before uniqueness: the function name without
 * clone suffixes (.constprop.0) or @SRC; FUNC:RLN -> FUNC_L<RLN>; 0xADDR ->
 * abs_<addr hex>; a SRC:LINE or SRC;PTN point takes function (the function
 * found there); __return appended for %return. Characters tracefs refuses
 * become '_'. */
int probe_tracefs__event_base(const char *point, const char *function, char *buf, size_t len);

/* base itself if no name in taken (n entries) equals it, else base_1,
 * base_2, ... (the base shortened to keep the name under 64 bytes). */
int probe_tracefs__unique_name(const char *base, char *const *taken, int n, char *buf, size_t len);

/* GROUP and EVENT as tracefs accepts them: [A-Za-z_][A-Za-z0-9_]*, < 64 bytes. */
bool probe_tracefs__valid_name(const char *name);

/* One line of uprobe_events / kprobe_events. */
struct probe_event {
	char *group, *event;
	bool retprobe;
	bool uprobe;		/* else a kprobe */
	char *target;		/* uprobe: the file; kprobe: "SYM+OFF", "SYM" or "0xADDR" */
	uint64_t offset;	/* uprobe: file offset */
	char *args;		/* the fetch args as tracefs shows them ("" none) */
};
/* Parse one line ("p:GROUP/EVENT TARGET ARGS"); 0, or -EINVAL for a line
 * that is not a probe definition. */
int probe_event__parse(const char *line, struct probe_event *e);
void probe_event__exit(struct probe_event *e);

/* The probe events whose "GROUP:EVENT" matches pattern (a glob; no ':' in it:
 * the event name in any group; NULL: all), kprobes first, in tracefs order.
 * Returns the count and *out (free with probe_events__free). */
int probe_tracefs__list(const char *pattern, struct probe_event **out);
void probe_events__free(struct probe_event *v, int n);

/* perf probe -l's text for e, without the leading name (*pfcache: a
 * finder kept between calls, NULL at first; probe_finder__delete() it):
 * "on handle:2@/src/server.c in /bin/server with path len" (the point as
 * DWARF names it now; "0x1169" when the file has changed or is gone). */
struct probe_finder;
char *probe_event__describe(const struct probe_event *e, struct probe_finder **pfcache);

/* Remove the probe events matching pattern (as probe_tracefs__list). Returns
 * the count removed and their "GROUP:EVENT" names; -ENOENT when none matches;
 * other -errno (-EBUSY: in use by a running tracer) with err filled; names
 * removed before a failure are returned too (*names, count in *nremoved). */
int probe_tracefs__del(const char *pattern, char ***names, int *nremoved,
		       char *err, size_t errlen);

/* The kernel can take kprobes (kprobe_events in tracefs)? When not, fills buf
 * with the message for a kernel probe on func (func may be NULL): why, and the
 * tracepoints whose names contain it or that it contains
 * (tcp_sendmsg -> tcp:tcp_sendmsg_locked). Returns 1 available, 0 not. */
int probe_tracefs__kprobes_available(const char *func, char *buf, size_t len);

/* The kernel functions matching GLOB that a kprobe can take: traceable
 * ones (available_filter_functions, module suffixes dropped, each name
 * once, sorted) not in the kprobe blacklist (debugfs kprobes/blacklist,
 * where mounted). *out is a malloc'ed array of malloc'ed names, freed with
 * tracefs__free_events(). Returns the count (0: none) or -errno (EPERM:
 * the kernel refuses available_filter_functions). */
int probe_tracefs__kernel_functions(const char *glob, char ***out);

/* "a:b, c:d" (or "" when none), returning how many: the tracepoints named
 * func, sys_enter_/sys_exit_ of a syscall's entry (__x64_sys_read), then those
 * whose names contain func or that func contains (>= 4 characters), at most 8.
 * For the messages of kernel probes on a kernel without kprobes. */
int probe_tracefs__tracepoints_near(const char *func, char *buf, size_t len);

#endif
