/* Ephemeral probes of -e through the perf uprobe and kprobe PMUs
 * (/sys/bus/event_source/devices/{uprobe,kprobe}) where nothing is
 * inherited (-a, -C, -t): nothing is written to tracefs, so they vanish with
 * pprobe's file descriptors, even when it is killed. With a command or -p,
 * a temporary tracefs probe in group pprobe_<pid> instead, removed at exit
 * (probe_spec__follow_tasks), because the kernel cannot inherit PMU probes
 * into the target's new processes and threads.
 *
 * Forms (GROUP:REST as event_spec.c's probe hook hands them over):
 *   uprobe:BIN:FUNC[+OFF]  uprobe:BIN:FUNC:LINE  uprobe:BIN:0xADDR
 *   uprobe:BIN:FUNC%return  uretprobe:BIN:FUNC
 *   probe:FUNC[+OFF|%return|:LINE]    a uprobe in the -x BINARY if one was
 *                                     given (event_context.exec), else a kernel probe
 *   kprobe:FUNC[+OFF]  kprobe:0xADDR  kretprobe:FUNC  probe:FUNC%return
 *   sdt:BIN:PROVIDER:NAME (also usdt:)  USDT from .note.stapsdt, semaphores
 *                                       through ref_ctr_offset; one event
 *                                       per site of the probe
 *   sdt_PROVIDER:NAME                   the same in the -x BINARY (the name
 *                                       pprobe list -x shows)
 * BIN is a path or a bare name looked up in the current directory, the
 * mappings of the -p processes, the library directories (ld.so.conf) and
 * PATH ("libc.so.6", "libc").
 * LINE is relative to the function's first line (perf probe's FUNC:RLN);
 * 0xADDR is a link-time address as nm and objdump show it. Every raw offset
 * or address is checked to start an instruction. A FUNC with several
 * instances (inlined copies, clones) and a LINE with several addresses give
 * one event per address, all under the spec's name (event_spec.same_as).
 */
#ifndef PPROBE_PROBE_SPEC_H
#define PPROBE_PROBE_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include "event_spec.h"

struct pmu;

enum probe_target {
	PROBE_TARGET_UPROBE,
	PROBE_TARGET_KPROBE,
	PROBE_TARGET_SDT,
};

/* One spec, parsed but not resolved. */
struct probe_spec {
	enum probe_target target;
	bool ret;		/* %return, uretprobe:, kretprobe: */
	char *binary;		/* uprobe/sdt: as given; NULL for the kernel */
	char *where;		/* "FUNC", "FUNC+OFF", "FUNC:LINE", "0xADDR" (no %return) */
	char *provider;		/* sdt */
	char *name;		/* sdt */
	char *args;		/* what followed the spec after whitespace; NULL none */
};

/* Does GROUP name a form this file parses (probe, kprobe, kretprobe,
 * uprobe, uretprobe, sdt, usdt)? */
bool probe_spec__is_group(const char *group);

/* GROUP:REST -> *ps (owned strings: probe_spec__exit); EXEC is the binary
 * of probe:FUNC and sdt_PROVIDER:NAME (event_context.exec; NULL: probe: is
 * the kernel's). 0, or -EINVAL with a message in err. */
int probe_spec__parse(const char *group, const char *rest, const char *exec, struct probe_spec *ps, char *err,
		      size_t errlen);
void probe_spec__exit(struct probe_spec *ps);

/* Parse, resolve and append one event_spec per probe site to l (kind
 * EVENT_KIND_PROBE, pmu "uprobe"/"kprobe", name "GROUP:REST", sampling
 * every event; modifiers are the caller's). A spec followed by arguments
 * becomes a temporary tracefs probe for this run instead
 * (probe_tracefs__add_temp), appended as its tracepoint events (pmu "").
 * l->ctx gives the -x binary and the -p processes.
 * Returns the number appended, or -errno with a message in err and l
 * unchanged:
 *   -ENOENT      no such binary, function, USDT probe, or no uprobe PMU
 *   -EINVAL      bad syntax, an offset not at an instruction start
 *   -EOPNOTSUPP  a kernel without kprobes (the message lists the
 *                tracepoints that match the function), USDT with arguments */
int probe_spec__add(struct event_list *l, const char *group, const char *rest, char *err, size_t errlen);

/* Fill the PMU part of attr: type from pmu, config1 = str (a path for
 * uprobes, a function name for kprobes, NULL for a kprobe at an address),
 * config2 = offset (or the kernel address), the retprobe and ref_ctr_offset
 * bits through pmu's sysfs formats. 0, or -EOPNOTSUPP when pmu lacks the
 * format a bit needs (message in err). */
int probe_spec__pmu_attr(struct perf_event_attr *attr, const struct pmu *pmu, const char *str,
			 uint64_t offset, uint64_t ref_ctr_offset, bool ret, char *err, size_t errlen);

/* A probe followed into the new tasks of its target (a command, -p):
 * the kernel cannot inherit uprobe/kprobe PMU events (it would read
 * config1, a pointer into pprobe, again in every forking task: their
 * fork() and pthread_create() fail with EFAULT), so a PMU probe S becomes
 * a temporary tracefs probe of the same site (probe_tracefs__add_temp_site,
 * group pprobe_<pid>, removed at exit) and attr (S's attr as the caller
 * keeps it) that tracefs event: PERF_TYPE_TRACEPOINT, config = its id.
 * Its records have the PMU probe's raw layout, so S (pmu still set) prints
 * them as before. A probe that is a tracefs event already is kept, and
 * uprobe events are held open system-wide (probe_tracefs__anchor) so that
 * new processes keep their breakpoints. Returns 1 converted, 0 nothing to
 * do, or -errno with one line in err (tracefs not writable: what to do). */
int probe_spec__follow_tasks(const struct event_spec *s, struct perf_event_attr *attr, char *err, size_t errlen);
/* Is attr an event of the uprobe or kprobe PMU (never to be inherited)? */
bool probe_spec__is_pmu_probe_attr(const struct perf_event_attr *attr);

/* A binary as the user names it -> an absolute path: a path (with '/'),
 * else a file of that name in the current directory, a mapping of the
 * PIDS processes (a -p list, NULL none; basename NAME or NAME.so*), the library
 * directories (/etc/ld.so.conf.d, /lib/x86_64-linux-gnu, /usr/lib, ...;
 * NAME.so and NAME.so.* too) or PATH. 0 or -ENOENT. */
int probe_spec__find_binary(const char *name, const char *pids, char *path, size_t len);

/* Tracepoints whose names contain FUNC or are contained in it, and the
 * syscall tracepoints of a sys_ function: "tcp:tcp_sendmsg_locked, ...".
 * Returns how many were written to out (0: none, out ""). */
int probe_spec__matching_tracepoints(const char *func, char *out, size_t len);

/* The text trace prints for a PMU probe sample (raw = PERF_SAMPLE_RAW data:
 * the trace_entry header, then ip for an entry probe, func and ret_ip for
 * a kretprobe, vaddr[0] = func, vaddr[1] = ret_ip for a uretprobe):
 * "(0x401136)" or "(0x4011a2 <- 0x401136)" as the kernel prints them.
 * Returns the length (snprintf-style) or -EINVAL for a short record. */
/* The addresses of such a record: ip for an entry probe (returns 1);
 * func, ret_ip for a return probe (returns 2); -EINVAL for a short record. */
int probe_spec__raw_addrs(const struct event_spec *s, const void *raw, size_t size, uint64_t addrs[2]);
int probe_spec__format_raw(const struct event_spec *s, const void *raw, size_t size, char *buf, size_t len);


#endif
