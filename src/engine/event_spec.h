/* Event specs: perf's -e syntax -> ready perf_event_attrs.
 *
 * One -e argument is a comma list (commas inside pmu/.../ are terms of that
 * event, {a,b} is a group) of:
 *   software   cpu-clock task-clock page-faults|faults minor-faults major-faults
 *              context-switches|cs cpu-migrations|migrations alignment-faults
 *              emulation-faults dummy bpf-output cgroup-switches
 *   hardware   cycles|cpu-cycles instructions cache-references cache-misses
 *              branches|branch-instructions branch-misses bus-cycles
 *              stalled-cycles-frontend|idle-cycles-frontend
 *              stalled-cycles-backend|idle-cycles-backend ref-cycles
 *   cache      CACHE[-OP][-RESULT]: L1-dcache-load-misses, LLC-loads,
 *              dTLB-store-misses, branch-loads, ... (perf's tables and legal
 *              combinations; OP defaults to load, RESULT to refs)
 *   raw        rHEX (PERF_TYPE_RAW), pmu/term=value,term,.../, pmu/alias/
 *              (sysfs format/ and events/; built-in terms config, config1,
 *              config2, period, freq, name)
 *   tracepoint subsys:name with globs (sched:*, syscalls:sys_enter_open*)
 *   terms      perf's per-event terms on the symbolic, raw and tracepoint
 *              forms too: NAME/term,.../[MODS] (cpu-clock/max-stack=3/,
 *              sched:sched_switch/call-graph=fp/). Symbolic and raw events
 *              take period=N freq=N name=STR max-stack=N stack-size=N
 *              call-graph=fp|dwarf[,SIZE]|lbr|no inherit no-inherit;
 *              tracepoints, as in perf, all but period, freq and name;
 *              pmu/.../ events take them besides their own.
 *   breakpoint mem:ADDR[/LEN][:ACCESS] (perf's syntax: ACCESS r, w, x or a mix,
 *              default rw; LEN 1, 2, 4, 8, default 4, sizeof(long) for x)
 *   probe      ephemeral probes through the uprobe/kprobe PMUs (probe_spec.h):
 *              uprobe:BIN:FUNC[+OFF|:LINE|0xADDR], uretprobe:BIN:FUNC,
 *              probe:FUNC[+OFF|%return] (kernel, or BIN with ctx.exec), kprobe:,
 *              kretprobe:, sdt:BIN:PROVIDER:NAME; existing tracefs probe
 *              events GROUP:NAME are used as tracepoints
 * each optionally followed by :MODIFIERS (perf's u k h p P G H I D e W; for
 * pmu events also directly after the closing '/').
 */
#ifndef PPROBE_EVENT_SPEC_H
#define PPROBE_EVENT_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>

#define PPROBE_DEFAULT_FREQ 999

/* call-graph=MODE of an event (perf's term); UNSET: the run's -g/--call-graph */
enum event_callgraph {
	EVENT_CG_UNSET,
	EVENT_CG_NO,
	EVENT_CG_FP,
	EVENT_CG_DWARF,
	EVENT_CG_LBR,           /* parsed so that the command can say perf's words */
};

enum event_kind {
	EVENT_KIND_SOFTWARE,
	EVENT_KIND_HARDWARE,
	EVENT_KIND_CACHE,
	EVENT_KIND_RAW,         /* rHEX and pmu/.../ */
	EVENT_KIND_TRACEPOINT,
	EVENT_KIND_PROBE,       /* dynamic probe (a tracefs event of a probe group) */
	EVENT_KIND_BREAKPOINT,  /* mem:ADDR[/LEN][:rwx] hardware breakpoint */
};

struct event_spec {
	char name[256];             /* display name as the user spelled it (glob
	                               expanded, modifiers kept): "cycles:u",
	                               "sched:sched_switch", "msr/tsc/" */
	enum event_kind kind;
	/* type, config, config1, config2, size, exclude_*, precise_ip, and the
	 * default sampling (freq=1 sample_freq=999, or sample_period=1). The
	 * caller adds sample_type, read_format, disabled, inherit, ... */
	struct perf_event_attr attr;
	bool sample_freq_default;   /* true: sample by frequency (-F); false: every event */
	bool sampling_from_terms;   /* pmu/period=N/ or freq=N/: -F/-c leave it alone */
	int group_leader;           /* index in the list of its {group}'s leader, -1 if none */
	bool weak_group;            /* :W (perf's weak group): a member that cannot be opened
	                               in its group is counted on its own */
	char pmu[64];               /* pmu/.../ events: the PMU name, else "" */
	char tp_sys[64];            /* tracepoint/probe: subsystem ("sched") */
	char tp_name[192];          /* tracepoint/probe: event name ("sched_switch") */
	char modifiers[16];         /* as given: "u", "k", "pp", "" */
	/* PMU probes (probe_spec.c): */
	char *probe_str;            /* owned: the path (uprobe) or function (kprobe)
	                               attr.config1 points to; freed by event_list__exit */
	bool probe_ret;             /* a return probe (uretprobe, kretprobe) */
	uint64_t probe_offset;      /* attr.config2: file offset (uprobe), offset in
	                               the symbol or kernel address (kprobe) */
	uint64_t probe_ref_ctr;     /* USDT semaphore's file offset, 0 none */
	char probe_base[64];        /* the event name a tracefs probe of this site
	                               gets (probe_spec__follow_tasks): "work", "work_L3" */
	int same_as;                /* > 0: 1 + index of the event this one is counted
	                               and shown with (another site of the same probe:
	                               inlined copies, several addresses of a line) */
	/* perf's per-event terms (NAME/term,.../); 0 or UNSET: not given, the
	 * run's options apply. Sampling terms (period, freq) are in attr with
	 * sampling_from_terms. */
	uint32_t max_stack;         /* max-stack=N: at most N frames a stack */
	uint32_t stack_size;        /* stack-size=N, call-graph=dwarf,N: bytes of
	                               user stack copied (a multiple of 8) */
	enum event_callgraph callgraph; /* call-graph=fp|dwarf|lbr|no */
	int inherit;                /* -1 no-inherit (this event does not follow
	                               children), 1 inherit (the default), 0 not given */
	char *filter;               /* --filter: the kernel filter set on its fds (collect
	                               adds pprobe's own threads under -a); owned, NULL none */
};

/* What the probe forms of -e take from the rest of the command line; the
 * caller sets it after event_list__init (NULL: not given). */
struct event_context {
	const char *exec;	/* -x/--exec BINARY: probe:FUNC... and sdt_PROVIDER:NAME
				   are probes in it (else probe: is the kernel's) */
	const char *pids;	/* -p PID[,PID...]: a bare BIN name is looked up among
				   the mappings of these processes first */
	bool counting;		/* stat: perf's sampling terms (max-stack, call-graph,
				   stack-size, freq, inherit, no-inherit) are refused
				   as perf stat does; period and name are taken */
};

struct event_list {
	struct event_spec *v;
	size_t nr, cap;
	struct event_context ctx;
	size_t last_first, last_nr;	/* the events the last event_list__add added */
};

void event_list__init(struct event_list *l);
void event_list__exit(struct event_list *l);

/* Parse one -e argument and append its specs. 0, or -errno with a message
 * for the user in err (what is wrong, close names, what to do):
 *   -ENOENT      unknown event / PMU / tracepoint (close names suggested)
 *   -EINVAL      syntax error, bad modifier, bad term value, illegal cache combo
 *   -ERANGE      a term value too big for its format bits
 *   -EOPNOTSUPP  a dynamic probe that does not exist yet (not supported yet)
 *   tracefs errors (not mounted and cannot mount, EACCES) for tracepoints.
 * On error the list is unchanged. */
int event_list__add(struct event_list *l, const char *arg, char *err, size_t errlen);

/* --filter EXPR, for every event of the last -e (event_list__add), as perf
 * record and perf trace take it. Each of them must be a tracepoint or a
 * probe with fields, and EXPR is checked against each one's format now
 * (the unknown field shown, the fields there are). A second --filter for
 * the same -e is joined to the first with &&, as perf does. 0, or -errno
 * with the reason in err, one line worded the same for every command. */
int event_list__add_filter(struct event_list *l, const char *filter, char *err, size_t errlen);
/* its words for a --filter before any -e (a usage error to the commands) */
#define EVENT_FILTER_NEEDS_E "--filter option should follow a -e tracepoint option: it applies to the -e before it"


/* A zeroed new slot at the end (for probe parsers); NULL + ENOMEM. */
struct event_spec *event_list__append(struct event_list *l);

/* Apply -F/-c: period > 0 sets sample_period on every event; else freq > 0
 * sets sample_freq on frequency-default events (tracepoints and probes keep
 * period 1). Events with sampling_from_terms are left alone. */
void event_list__set_sampling(struct event_list *l, uint64_t freq, uint64_t period);

/* NAME made safe for a file name (out.NAME.folded): ':' -> '-', '/' -> '_'
 * (a trailing '/' is dropped), anything not [A-Za-z0-9._=+-] -> '_'.
 * "sched:sched_switch" -> "sched-sched_switch", "msr/tsc/" -> "msr_tsc".
 * Returns the length, or -ENAMETOOLONG (buf still NUL-terminated). */
int event_spec__file_name(const char *name, char *buf, size_t len);

const char *event_kind__name(enum event_kind kind);
/* "fp", "dwarf", "lbr", "no"; "" for UNSET */
const char *event_callgraph__name(enum event_callgraph cg);

/* The message a user sees when perf_event_open() of S failed with ERR
 * (errno, positive or negative) for TARGET, the pid argument it was opened
 * with (-1: every CPU, -a or -C, which unprivileged users need paranoid
 * <= 0 for; a task of another user: the kernel's ptrace check, not the
 * paranoid level; 0: not known): what failed, why, what to do. Returns the
 * length written (snprintf-style). */
int event_spec__explain_open_error(const struct event_spec *s, int err, pid_t target, char *buf, size_t len);
/* kernel.perf_event_paranoid (2, the default, when it cannot be read). */
long perf_paranoid(void);

/* Known symbolic names, for `list` and suggestions. */
struct event_symbol {
	const char *name;
	const char *alias;      /* or NULL */
	enum event_kind kind;   /* SOFTWARE or HARDWARE */
	uint32_t type;
	uint64_t config;
	const char *desc;
};
const struct event_symbol *event_symbols(size_t *nr);

/* The canonical names of all legal hardware cache events
 * ("L1-dcache-loads", ...), with their configs; returns the count. Static
 * storage, built on first use. */
size_t event_cache_names(const char *const **names, const uint64_t **configs);

/* Parse a single cache event name; 0 and *config, or -ENOENT (not a cache
 * name) or -EINVAL (a cache name, but an illegal op/result combination). */
int event_cache__parse(const char *name, uint64_t *config);

#endif
