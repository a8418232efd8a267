/* pprobe trace: one line per event as it happens, decoded from the event's
 * format, in timestamp order across CPUs; or, with --count/--hist/...,
 * bpftrace's maps of them (trace_agg.c). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "collect.h"
#include "collect_say.h"
#include "util.h"
#include "pprobe/safe_open.h"
#include "commands.h"
#include "options.h"
#include "event_spec.h"
#include "probe_spec.h"
#include "stack.h"
#include "target_opts.h"
#include "tp_format.h"
#include "trace_agg.h"
#include "trace_lat.h"
#include "trace_filter.h"
#include "trace_print.h"
#include "trace_syscalls.h"
#include "pprobe/objcache.h"
#include "pprobe/symbolize.h"
#include "pprobe/unwind.h"

struct trace_event {
	const struct event_spec *spec;
	struct tp_format *fmt;		/* NULL for events without a format */
	struct trace_agg_event *agg;	/* its fields for the aggregations */
	enum trace_lat_role role;	/* --latency: the first -e starts, the second ends */
	uint64_t count;
};

struct trace {
	FILE *out;
	bool json, kstack, ustack;
	struct symbolizer *sym;
	struct unwinder *unwinder;
	struct objcache *files;		/* the ELF files of both: each opened once */
	struct trace_agg *agg;		/* --count, --hist, ...: maps, not lines */
	struct trace_lat *lat;		/* --latency: durations of pairs into agg */
};


static int on_sample(struct collect *c, struct evsel *ev, const struct sample *s,
		     struct thread *t, struct process *p)
{
	struct trace *tr = c->priv;
	struct trace_event *te = ev->priv;
	if (!te || c->out_err)
		return 0;
	te->count++;
	const struct trace_print tp = { .out = tr->out, .json = tr->json, .kstack = tr->kstack, .ustack = tr->ustack,
					.sym = tr->sym, .unwinder = tr->unwinder, .collect = c };
	if (tr->lat) {
		trace_lat__sample(tr->lat, te->role, &tp, s, t, p);
		return 0;
	}
	if (tr->agg) {
		trace_agg__sample(tr->agg, te->agg, &tp, s, t, p);
		return 0;
	}
	trace_print__sample(&tp, te->spec, te->fmt, s, t, p);
	if (ferror(tr->out))	/* EPIPE: nobody reads on */
		collect__output_error(c, stream__write_errno(tr->out));
	return 0;
}

static void on_tick(struct collect *c)
{
	struct trace *tr = c->priv;
	if (!c->out_err)
		trace_agg__tick(tr->agg, tr->out);
	if (ferror(tr->out))
		collect__output_error(c, stream__write_errno(tr->out));
}

/* ---- options ---- */

struct trace_opts {
	struct collect_opts co;
	struct opt_list events;		/* -e and --filter, in order */
	const char *exec;		/* -x */
	const char *output;
	bool header, kstack, stacks, json;
	bool syscalls, summary, with_summary, failure;	/* --syscalls mode */
	struct trace_agg_opts agg;
	bool latency;
	struct trace_lat_opts lat;
};

#define T struct trace_opts
static const struct opt trace_table[] = {
	OPT_GROUP("Events:"),
	OPT_LIST('e', "event", "EVENT", T, events,
		 "tracepoint (subsys:name, globs), probe, or any other event; probes print their address: "
		 "'uprobe:BIN:FUNC: (0x401136)', return probes '(0xRETURN_ADDRESS <- 0xFUNC)':\n"
		 PROBE_FORMS_HELP("-x")),
	OPT_STRING('x', "exec", "BIN", T, exec,
		   "probe:FUNC[+OFF|:LINE|%return] and sdt_PROVIDER:NAME are probes in BIN"),
	OPT_LIST(0, "filter", "EXPR", T, events,
		 "kernel filter for the events of the preceding -e, as perf: 'sig == 5 && pid == 42'; checked "
		 "against their fields first; given twice, both apply (&&)"),
	OPT_GROUP("Syscalls (like perf trace; -e then names syscalls):"),
	OPT_FLAG(0, "syscalls", T, syscalls,
		 "each syscall a line, 'TIME ( DUR ms): comm/tid ptrace(request: PEEKDATA, pid: 42, addr: "
		 "0x4a70d0, data: 0x7ffc...) = 0', from the sys_enter/sys_exit tracepoints; -e ptrace,openat "
		 "or -e 'open*' chooses syscalls (default: all, through raw_syscalls); values named (O_RDONLY, "
		 "AT_FDCWD, SIGTERM, -1 ENOENT (...)); pointers in hex: strings only where the kernel's "
		 "tracepoint copies them (from 6.19; user memory is not read later); '= ?': never returned "
		 "(exit_group) or, "
		 "with <unfinished ...>, still in the call when tracing ended"),
	OPT_FLAG(0, "summary", T, summary,
		 "only the summary: per thread, per syscall calls, errors, total/min/avg/max time (perf trace -s)"),
	OPT_FLAG(0, "with-summary", T, with_summary, "the calls, then the summary (perf trace -S)"),
	OPT_FLAG(0, "failure", T, failure, "only the calls that failed"),
	OPT_GROUP("Aggregations (bpftrace's maps: no line per event; printed at the end, as bpftrace prints them):"),
	OPT_LIST(0, "count", NULL, T, agg.maps, "count the events per key: '@[bash]: 12' (count())"),
	OPT_LIST(0, "sum", "FIELD", T, agg.maps, "sum of the event's field FIELD (args.FIELD too) per key (sum())"),
	OPT_LIST(0, "min", "FIELD", T, agg.maps, "the smallest FIELD per key (min())"),
	OPT_LIST(0, "max", "FIELD", T, agg.maps, "the largest FIELD per key (max())"),
	OPT_LIST(0, "avg", "FIELD", T, agg.maps, "the average of FIELD per key, an integer (avg())"),
	OPT_LIST(0, "stats", "FIELD", T, agg.maps, "'count N, average A, total T' of FIELD per key (stats())"),
	OPT_LIST(0, "hist", "FIELD", T, agg.maps,
		 "log2 histogram of FIELD per key: [0], [1], [2, 4), [4, 8), ... (hist())"),
	OPT_LIST(0, "lhist", "FIELD,MIN,MAX,STEP", T, agg.maps,
		 "linear histogram of FIELD per key, buckets of STEP from MIN to MAX (lhist())"),
	OPT_STRING(0, "by", "KEY[,KEY...]", T, agg.by,
		   "the maps' keys: comm, pid, tid, cpu, event (its name), a field of the event (args.FIELD if "
		   "it is also one of these names), kstack, ustack (folded: outer;...;leaf; ustack unwinds with "
		   "DWARF); several: '@[bash, 1234]'; none: one value, '@: 12'. Equal values print in key order"),
	OPT_FN('I', "interval", "SECS", T, agg.interval, opt_parse_double,
	       "every SECS seconds print the time (HH:MM:SS) and the maps, then clear them (bpftrace's "
	       "interval with time(), print(), clear())"),
	OPT_GROUP("Latency (bcc's funclatency, runqlat; the durations between a start and an end event):"),
	OPT_FLAG(0, "latency", T, latency,
		 "the first -e starts, the second ends (each -e one event; the same event twice with --pair "
		 "works); an end pairs with its key's last start (a second start replaces the first, as "
		 "bpftrace's @start[tid] = nsecs), and end.time - start.time goes, in --unit, to the "
		 "aggregations as the value 'lat': --hist lat (the default), --lhist lat,MIN,MAX,STEP, --stats "
		 "lat, --max lat, --count, ...; --by keys are read from the start event (its task: for "
		 "sched_wakeup the waker, its field comm the woken). Pairs made, starts never ended and ends "
		 "without a start are said on stderr"),
	OPT_STRING(0, "pair", "START_FIELD=END_FIELD", T, lat.pair,
		   "pair by a field of each event instead of the thread id: sched:sched_wakeup then "
		   "sched:sched_switch --pair pid=next_pid (run-queue latency), sched:sched_switch twice --pair "
		   "prev_pid=next_pid (off-CPU time); FIELD alone: the same name in both"),
	OPT_STRING(0, "unit", "ns|us|ms", T, lat.unit, "the durations' unit (default us: bcc's usecs)"),
	OPT_FN(0, "slowest", "N", T, lat.slowest, opt_parse_positive_long,
	       "after the maps, the N longest pairs, longest first: the duration, the end's time, the start's "
	       "and the end's comm-tid, the pairing key, and with -s/-g the start event's stacks, folded (where the "
	       "thread blocked, the call was made; on stdout, or with --json one more line {\"unit\", \"slowest\": "
	       "[{duration, duration_ns, time, key, start, end, kstack, ustack}]})"),
	OPT_GROUP("Target (default: the command, traced from its exec):"),
	TARGET_OPTS(T, co),
	OPT_GROUP("Output:"),
	OPT_FLAG('H', "header", T, header, "print a header line first"),
	OPT_FLAG('s', "kstack", T, kstack, "the kernel stack under each event (with --latency: --slowest's)"),
	OPT_FLAG('g', NULL, T, stacks,
		 "kernel and user stacks (user stacks unwound with DWARF; with --latency: --slowest's)"),
	OPT_STRING('o', "output", "FILE", T, output,
		   "write there instead of stdout (without -o the command's stdout goes to stderr: the trace "
		   "alone on stdout)"),
	OPT_FLAG(0, "json", T, json,
		 "one JSON object per line; with aggregations one object each time the maps print: "
		 "{\"time\": (with -I), \"by\": [KEYS], \"maps\": [{\"name\", \"op\", \"field\", \"entries\": "
		 "[{\"key\": [...], \"value\": V}]}]}, V a number, {count, average, total} (stats) or "
		 "[{min, max, count}] (histograms' non-empty buckets, bounds inclusive)"),
	RING_OPTS(T, co, "default 1024, 4096 with -g"),
	OPT_END(),
};
#undef T

const struct cmd_def trace_cmd = {
	.name = "trace",
	.prog = "pprobe trace",
	.summary = "print events as they happen, fields decoded, kernel-filtered",
	.usage = "pprobe trace -e EVENT [--filter EXPR] [-e EVENT ...] [options] [--] [command [args...]]\n"
		 "pprobe trace --latency -e START [--filter EXPR] -e END [--filter EXPR] [--pair "
		 "START_FIELD=END_FIELD] [options] [--] [command [args...]]\n"
		 "pprobe trace --syscalls [-e SYSCALL[,SYSCALL...]] [--summary] [--failure] [options] "
		 "[--] [command [args...]]",
	.about = "Print each event as it happens, in timestamp order across CPUs:\n"
		 "  comm-tid [cpu] seconds: subsys:event: the fields as the kernel prints them (trace_pipe)",
	.opts = trace_table,
	.footer =
"Examples:\n"
"  pprobe trace -a -d 10 -e signal:signal_generate --filter 'sig == 5 && pid == 3073758'\n"
"  pprobe trace -e 'syscalls:sys_enter_open*' -- ls\n"
"  pprobe trace -s -e sched:sched_process_exec -a -d 10\n"
"  pprobe trace -e uretprobe:/bin/bash:readline -p 4242\n"
"  pprobe trace --syscalls -a -e ptrace -d 10\n"
"  pprobe trace --syscalls --failure -e 'open*' -- make\n"
"  pprobe trace --syscalls --summary -p 4242\n"
"  pprobe trace -e syscalls:sys_enter_write --by comm --hist count -a -d 5\n"
"  pprobe trace -e syscalls:sys_enter_read -e syscalls:sys_enter_write --by comm,event --count -a -d 5\n"
"  pprobe trace -e sched:sched_switch --by prev_comm --count -a -I 1 -d 3\n"
"  pprobe trace --latency -e syscalls:sys_enter_read -e syscalls:sys_exit_read --by comm -a -d 5\n"
"  pprobe trace --latency -e sched:sched_switch -e sched:sched_switch --pair prev_pid=next_pid --slowest 3 -a -d 2\n",
};

/* -e and --filter in their order (a --filter goes with the -e before it,
 * checked against its events' formats). 0, or 2 after saying why. */
static int add_events(const struct trace_opts *o, struct event_list *evl)
{
	char err[4096];
	if (event_opts__add(evl, &o->events, NULL, err, sizeof(err))) {
		fprintf(stderr, "pprobe trace: %s\n", err);
		return 2;
	}
	for (size_t i = 0; i < evl->nr; i++)
		if (evl->v[i].callgraph != EVENT_CG_UNSET || evl->v[i].stack_size) {
			/* one kind of stack for all events: -s or -g */
			fprintf(stderr, "pprobe trace: %s: trace takes no call-graph= or stack-size= "
				"term; -s prints kernel stacks, -g kernel and user stacks\n",
				evl->v[i].name);
			return 2;
		}
	return 0;
}

/* Each event with its format (its filter was checked as it was given). */
static int setup_events(struct trace *tr, struct collect *c, const struct event_list *evl, struct symbolizer *sym)
{
	if (tr->lat && evl->nr != 2) {
		fprintf(stderr, "pprobe trace: --latency pairs a start and an end event; the two -e name %zu "
			"events: give each -e one event, no glob\n", evl->nr);
		return 2;
	}
	for (size_t i = 0; i < evl->nr; i++) {
		const struct event_spec *spec = &evl->v[i];
		struct trace_event *te = pp_xcalloc(1, sizeof(*te));
		te->spec = spec;
		if ((spec->kind == EVENT_KIND_TRACEPOINT || spec->kind == EVENT_KIND_PROBE) && !spec->pmu[0]) {
			te->fmt = tp_format__load(spec->tp_sys, spec->tp_name);
			if (!te->fmt) {
				fprintf(stderr, "pprobe trace: cannot read the format of %s: %s\n", spec->name,
					strerror(errno));
				free(te);
				return 1;
			}
			tp_format__set_kernel_symbols(te->fmt, sym);
		}
		te->role = i ? TRACE_LAT_END : TRACE_LAT_START;
		if (tr->agg && (!tr->lat || te->role == TRACE_LAT_START)) {	/* --latency's keys: the start's */
			char err[4096];
			te->agg = trace_agg__bind(tr->agg, spec->name, te->fmt, err, sizeof(err));
			if (!te->agg) {
				fprintf(stderr, "pprobe trace: %s\n", err);
				tp_format__free(te->fmt);
				free(te);
				return 2;
			}
		}
		if (tr->lat) {
			char err[4096];
			if (trace_lat__bind(tr->lat, te->role, spec->name, te->fmt, te->agg, err, sizeof(err))) {
				fprintf(stderr, "pprobe trace: %s\n", err);
				tp_format__free(te->fmt);
				free(te);
				return 2;
			}
		}
		struct evsel *ev = evlist__add(&c->evlist, spec->name, &spec->attr);
		ev->spec = spec;
		ev->priv = te;
	}
	return 0;
}

/* Samples with their raw record, and the stacks -s and -g ask for:
 * record's set-up (collect__setup_stacks), DWARF for -g. */
static int setup_sampling(struct trace *tr, struct collect *c, struct collect_opts *co)
{
	const struct stack_opts so = {
		.kind = tr->ustack ? STACKS_DWARF : tr->kstack ? STACKS_KERNEL : STACKS_NONE,
		.max_frames = 127,
	};
	char err[300];
	co->extra_sample_type = PERF_SAMPLE_RAW;
	if (collect__setup_stacks(co, &c->evlist, &so, UNWIND_LIBDW, tr->files, &tr->unwinder, err, sizeof(err))) {
		fprintf(stderr, "pprobe trace: %s\n", err);
		return 1;
	}
	co->quiet = true;
	return 0;
}

/* With stacks: each executable file opened as it is mapped, while the
 * process lives, as record does (its debug file found through
 * /proc/PID/root, a deleted binary through map_files); a short process is
 * often gone by the time its events are printed. */
static void on_mmap(struct collect *c, pid_t pid, const struct map *m)
{
	struct trace *tr = c->priv;
	if (tr->unwinder && (m->prot & PROT_EXEC))
		symbolizer__prepare(tr->sym, pid, m);
}

/* Events, sampling and the output, before anything runs. 0, or the exit status. */
static int trace_prepare(struct trace_opts *o, struct trace *tr, struct collect *c, struct event_list *evl,
			 struct outfile *of)
{
	evl->ctx.exec = o->exec;
	evl->ctx.pids = o->co.pid_list;
	int ret = add_events(o, evl);
	/* Every event is traced: one sample per occurrence. */
	event_list__set_sampling(evl, 0, 1);
	/* Stacks and the functions in events' fields (%pS) are named through
	 * it; it reads kallsyms on its first kernel address. */
	struct symbolizer_opts so;
	symbolizer_opts__init(&so);
	tr->files = objcache__new();	/* names' and the unwinder's (setup_sampling) */
	tr->sym = tr->files ? symbolizer__new_cached(&so, tr->files) : NULL;
	if (!ret)
		ret = setup_events(tr, c, evl, tr->sym);
	if (!ret)
		ret = setup_sampling(tr, c, &o->co);
	if (ret)
		return ret;
	c->priv = tr;
	c->on_sample = on_sample;
	c->on_mmap = on_mmap;
	if (tr->agg)
		c->on_tick = on_tick;

	if (o->output) {
		if (outfile__open_or_say(of, o->output, "pprobe trace"))
			return 1;
		tr->out = of->f;
	} else {
		tr->out = stdout;
		if (!tr->agg)
			setvbuf(stdout, NULL, _IOLBF, 0);	/* live: a line as it happens */
	}
	return 0;
}

/* --syscalls: the options that go with it, then the syscall mode. */
static int run_syscalls(struct trace_opts *o, int argc, char **argv, int n)
{
	const char *bad = o->exec ? "-x" : o->header ? "-H" : o->kstack ? "-s (kernel stacks; perf trace's -s is --summary)"
			: o->stacks ? "-g" : o->json ? "--json" : NULL;
	if (!bad && (o->agg.maps.nr || o->agg.by || o->agg.interval))
		bad = o->agg.maps.nr ? "an aggregation (--count, --hist, ...)" : o->agg.by ? "--by" : "-I";
	if (!bad && (o->latency || o->lat.pair || o->lat.unit || o->lat.slowest))
		bad = "--latency";
	for (size_t k = 0; k < o->events.nr && !bad; k++)
		if (o->events.v[k].key != 'e')
			bad = "--filter";
	if (!o->syscalls)
		return opts__usage_error(&trace_cmd, "%s goes with --syscalls",
					 o->summary ? "--summary" : o->with_summary ? "--with-summary" : "--failure");
	if (bad)
		return opts__usage_error(&trace_cmd, "%s does not go with --syscalls", bad);
	if (o->summary && o->with_summary)
		return opts__usage_error(&trace_cmd, "--summary prints only the summary, --with-summary the calls "
				       "too: give one");
	if (n < argc)
		o->co.argv = argv + n;
	const struct trace_syscalls_opts so = { .co = &o->co, .events = &o->events, .output = o->output,
						.summary = o->summary, .with_summary = o->with_summary,
						.failure = o->failure };
	return trace_syscalls(&so);
}

static void trace_opts__free(struct trace_opts *o)
{
	opt_list__free(&o->events);
	opt_list__free(&o->agg.maps);
}

/* --latency's options: exactly two -e; a histogram of the durations
 * unless another aggregation is asked. 0, or 2 after saying why. */
static int check_latency(struct trace_opts *o)
{
	size_t nr_e = 0;
	if (!o->latency) {
		if (o->lat.pair || o->lat.unit || o->lat.slowest)
			return opts__usage_error(&trace_cmd, "%s goes with --latency",
						 o->lat.pair ? "--pair" : o->lat.unit ? "--unit" : "--slowest");
		return 0;
	}
	for (size_t k = 0; k < o->events.nr; k++)
		nr_e += o->events.v[k].key == 'e';
	if (nr_e != 2)
		return opts__usage_error(&trace_cmd, "--latency pairs a start and an end event: two -e, not %zu "
					 "(e.g. -e syscalls:sys_enter_read -e syscalls:sys_exit_read)", nr_e);
	if ((o->kstack || o->stacks) && !o->lat.slowest)
		return opts__usage_error(&trace_cmd, "%s with --latency: the stacks of --slowest's pairs; give "
					 "--slowest N", o->kstack ? "-s" : "-g");
	if (!o->agg.maps.nr) {
		struct opt_list *l = &o->agg.maps;
		l->v = pp_xrealloc(l->v, sizeof(*l->v));
		l->v[l->nr++] = (struct opt_item){ .name = "hist", .arg = TRACE_LAT_VALUE };
	}
	o->agg.value = TRACE_LAT_VALUE;
	return 0;
}

/* The aggregation options together and with the rest: 0, or 2 after
 * saying why; tr->agg made when there are aggregations. */
static int setup_agg(struct trace_opts *o, struct trace *tr)
{
	char err[512];
	int ret = check_latency(o);
	if (ret)
		return ret;
	if (!o->agg.maps.nr) {
		if (o->agg.by || o->agg.interval)
			return opts__usage_error(&trace_cmd,
						 "%s goes with an aggregation: --count, --sum, --min, --max, --avg, "
						 "--stats, --hist or --lhist", o->agg.by ? "--by" : "-I");
		return 0;
	}
	if ((!o->latency && (o->kstack || o->stacks)) || o->header)
		return opts__usage_error(&trace_cmd, "%s prints with each event's line; aggregations print maps "
					 "(--by kstack or ustack keys them by the stack)",
					 o->header ? "-H" : o->kstack ? "-s" : "-g");
	if (o->agg.interval < 0)
		return opts__usage_error(&trace_cmd, "-I wants seconds above 0, e.g. -I 1 or -I 0.5");
	o->agg.json = o->json;
	tr->agg = trace_agg__new(&o->agg, err, sizeof(err));
	if (!tr->agg)
		return opts__usage_error(&trace_cmd, "%s", err);
	if (o->latency && !(tr->lat = trace_lat__new(&o->lat, tr->agg, err, sizeof(err))))
		return opts__usage_error(&trace_cmd, "%s", err);
	return 0;
}

int cmd_trace(int argc, char **argv)
{
	struct trace_opts o = { 0 };
	struct trace tr = { 0 };
	struct collect c;
	struct event_list evl;
	int ret = 0;
	struct outfile of = { 0 };
	char err[4096] = "";

	int n = opts__parse(&trace_cmd, argc, argv, &o);
	if (n < 0) {
		trace_opts__free(&o);
		return opts__exit_status(n);
	}
	/* The trace on stdout, the command's stdout on our stderr, as record
	 * -o - does: `pprobe trace --json ... -- ls | jq` reads only events. */
	o.co.child_stdout_to_stderr = !o.output;
	if (o.syscalls || o.summary || o.with_summary || o.failure) {
		ret = run_syscalls(&o, argc, argv, n);
		trace_opts__free(&o);
		return ret;
	}
	if (!o.events.nr || event_opts__check(&o.events))
		ret = o.events.nr ? opts__usage_error(&trace_cmd, "%s", event_opts__check(&o.events))
				  : opts__usage_error(&trace_cmd, "no event given: -e EVENT, e.g. -e "
						      "'syscalls:sys_enter_open*'; 'pprobe list' shows them");
	if (!ret)
		ret = setup_agg(&o, &tr);
	if (ret) {
		trace_agg__delete(tr.agg);
		trace_opts__free(&o);
		return ret;
	}
	if (n < argc)
		o.co.argv = argv + n;
	tr.json = o.json;
	tr.kstack = o.kstack || o.stacks || (tr.agg && trace_agg__kstack(tr.agg));
	tr.ustack = o.stacks || (tr.agg && trace_agg__ustack(tr.agg));

	collect__init(&c);
	collect_say__hook(&c);
	event_list__init(&evl);
	ret = trace_prepare(&o, &tr, &c, &evl, &of);
	if (!ret) {
		ret = collect_say__status(&c, collect__prepare(&c, &o.co, err, sizeof(err)));
		collect_say__error(err);
	}
	if (ret)
		goto out;
	if (o.header) {
		const struct trace_print tp = { .out = tr.out, .json = tr.json };
		trace_print__header(&tp);
	}
	collect__watch_output(&c, fileno(tr.out));
	ret = collect_say__status(&c, collect__run(&c, err, sizeof(err)));
	collect_say__error(err);
	if (tr.agg && !ret && !c.out_err) {
		/* the maps (the last interval's with -I) */
		trace_agg__print(tr.agg, tr.out, o.agg.interval > 0, false);
		if (tr.lat)
			trace_lat__print(tr.lat, tr.out, o.json);
		if (ferror(tr.out))
			collect__output_error(&c, stream__write_errno(tr.out));
		trace_agg__say_left_out(tr.agg);
		if (tr.lat)
			trace_lat__say_left_out(tr.lat);
	}
	if (c.out_err && c.out_err != EPIPE) {
		fprintf(stderr, "pprobe trace: writing %s failed: %s\n", o.output ? o.output : "stdout",
			strerror(c.out_err));
		ret = 1;
	}
	if (c.lost || c.lost_samples) {
		char queue[96];
		collect__queue_summary(&c, queue, sizeof(queue));
		fprintf(stderr, "pprobe trace: %llu events lost; %s\n",
			(unsigned long long)(c.lost + c.lost_samples), queue);
	}
	if (c.lost || c.lost_samples || c.stop_left)
		collect_say__lost(&c, "pprobe trace");
	safe_open__say("pprobe trace");	/* the files of the traced that were not read */
out:
	if (of.f) {
		if (ret)
			outfile__abort(&of);
		else if ((ret = -outfile__commit(&of))) {
			fprintf(stderr, "pprobe trace: writing %s failed: %s\n", o.output, strerror(ret));
			ret = 1;
		}
	}
	for (int i = 0; i < c.evlist.nr_evsels; i++) {
		struct trace_event *te = c.evlist.evsels[i]->priv;
		if (te) {
			tp_format__free(te->fmt);
			free(te);
		}
	}
	collect__cleanup(&c);
	if (!ret)
		ret = c.out_err == EPIPE ? CMD_EXIT_SIGPIPE : collect__exit_status(&c);
	trace_lat__delete(tr.lat);
	trace_agg__delete(tr.agg);
	symbolizer__delete(tr.sym);
	unwinder__delete(tr.unwinder);
	objcache__put(tr.files);
	event_list__exit(&evl);
	trace_opts__free(&o);
	return ret;
}
