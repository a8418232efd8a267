/* pprobe record: sample events, aggregate stacks online, write folded stacks. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "collect.h"
#include "collect_say.h"
#include "unwind_pool.h"
#include "commands.h"
#include "options.h"
#include "event_spec.h"
#include "offcpu.h"
#include "stack.h"
#include "tp_format.h"
#include "trace_filter.h"
#include "target_opts.h"
#include "stacks.h"
#include "pprof.h"
#include "record_outputs.h"
#include "record_push.h"
#include "speedscope.h"
#include "spill.h"
#include "svg.h"
#include "pprobe/safe_open.h"
#include "pprobe/debuginfo.h"
#include "pprobe/objcache.h"
#include "sigguard.h"
#include "pprobe/symbolize.h"
#include "pprobe/unwind.h"

#include "record_internal.h"

/* --off-cpu: a sched_switch sample, in the thread that leaves the CPU:
 * its stack, under a leaf frame saying whether it blocked or was
 * preempted, waits for the thread's next switch-in. */
static void on_switch_out(struct record *r, struct collect *c, const struct evsel *ev, const struct sample *s,
			  struct thread *t, struct process *p)
{
	int64_t state;
	if (!s->tid)
		return;	/* the idle task (-a): not a thread that waits */
	if (!r->prev_state || !s->raw || tp_field__int(r->prev_state, s->raw, s->raw_size, &state)) {
		r->bad_prev_state++;
		return;
	}
	enum offcpu_kind kind = offcpu__kind_of_prev_state(state);
	uint32_t *fr = r->frame_buf;
	uint32_t n = 0;
	if (kind != OFFCPU_EXITING) {
		fr[0] = frametab__special(r->frames, offcpu_kind__frame(kind));
		uint32_t limit = record_frame_limit(r, ev);
		n = 1 + record_sample_stack(r, c, ev, s, p, NULL, fr + 1, limit < MAX_FRAMES ? limit : MAX_FRAMES - 1);
	}
	offcpu__switch_out(&r->off, (pid_t)s->pid, (pid_t)s->tid, record_stack_owner(s, t).comm, s->time, kind, fr, n);
}

static void add_interval(void *ctx, const struct offcpu_interval *iv)
{
	struct record *r = ctx;
	/* the stack is that of the switch-out: time it by when the wait began */
	struct stack_owner o = { .comm = iv->label, .pid = iv->pid, .tid = iv->tid };
	stacktab__add(r->off_stacks, &o, iv->words, iv->nr, iv->end - iv->start, iv->start);
}

/* --off-cpu: a thread back on a CPU closes its interval. */
static void on_switch(struct collect *c, const struct sample *id, uint16_t misc)
{
	struct record *r = c->priv;
	if (!(misc & PERF_RECORD_MISC_SWITCH_OUT) && id->tid)
		offcpu__switch_in(&r->off, (pid_t)id->tid, id->time, add_interval, r);
}

static int on_sample(struct collect *c, struct evsel *ev, const struct sample *s,
		     struct thread *t, struct process *p)
{
	struct record *r = c->priv;
	struct evstate *es = ev->priv;

	if (!es)
		return 0;
	if (es->switch_out) {
		on_switch_out(r, c, ev, s, t, p);
		return 0;
	}
	if (r->pool)
		record_to_workers(r, c, ev, s, t, p);
	else
		record_add_sample(r, c, ev, s, t, p, NULL);
	return 0;
}

/* Open each executable file as it is mapped, while the process lives: a
 * deleted binary or one in another mount namespace is still readable then
 * (through /proc/PID/map_files or /proc/PID/root), not at the end; and for
 * JIT code, what finding its perf map and jitdump needs. */
static void on_mmap(struct collect *c, pid_t pid, const struct map *m)
{
	struct record *r = c->priv;
	if (m->prot & PROT_EXEC)
		symbolizer__prepare(r->sym, pid, m);
}

/* -p, -t: processes that were there before us, their mappings read, not
 * reported: what finding their JIT maps and jitdumps needs (their uid, pid
 * namespace and root, a jitdump they mapped), now while they live. */
static void note_targets(struct collect *c, struct record *r)
{
	const struct u64map *procs = &c->session.processes;

	if (!c->opts.pid_list && !c->opts.tid_list)
		return;
	for (size_t i = 0; i < procs->cap; i++)
		if (procs->used[i])
			symbolizer__note_process(r->sym, ((const struct process *)procs->vals[i])->pid);
}

static void on_process_gone(struct collect *c, pid_t pid)
{
	struct record *r = c->priv;
	if (r->unwinder)
		unwinder__forget(r->unwinder, pid);
	if (r->pool)
		unwind_pool__forget(r->pool, pid);
	frametab__forget(r->frames, pid);
}

/* ---- options ---- */

/* Stack tables in memory, at most (folded and svg outputs): a run of hours
 * over a machine whose distinct stacks keep coming stays bounded. */
#define DEFAULT_MAX_TABLES (64ULL << 20)

static int parse_max_tables(const struct opt *o, void *opts, const char *arg, char *err, size_t errlen)
{
	uint64_t v = drain__parse_size(arg);
	if (!v)
		return seterr(err, errlen, "--max-tables wants a size in bytes with K, M or G, e.g. 64M; got '%s'",
			      arg), -EINVAL;
	*OPT_FIELD(o, opts, uint64_t) = v;
	return 0;
}

int record_parse_freq(const struct opt *o, void *opts, const char *arg, char *err, size_t errlen)
{
	(void)o;
	char *end;
	struct record_opts *ro = opts;
	if (!strcmp(arg, "max")) {	/* perf's: kernel.perf_event_max_sample_rate */
		FILE *f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "re");
		long v = 0;
		if (!f || fscanf(f, "%ld", &v) != 1 || v <= 0) {
			if (f)
				fclose(f);
			return seterr(err, errlen, "-F max: cannot read /proc/sys/kernel/perf_event_max_sample_rate"),
			       -EINVAL;
		}
		fclose(f);
		ro->freq = v;
		ro->freq_max = true;
		return 0;
	}
	long v = strtol(arg, &end, 10);
	if (end == arg || *end || v <= 0)
		return seterr(err, errlen, "bad frequency '%s': Hz, e.g. 999, or max", arg), -EINVAL;
	ro->freq = v;
	ro->freq_max = false;
	return 0;
}

static int parse_max_stack(const struct opt *o, void *opts, const char *arg, char *err, size_t errlen)
{
	(void)o;
	char *end;
	long v = strtol(arg, &end, 10);
	if (end == arg || *end || v < 1 || v > MAX_FRAMES)
		return seterr(err, errlen, "--max-stack wants a depth of 1 to %d frames, got '%s'", MAX_FRAMES, arg),
		       -EINVAL;
	((struct record_opts *)opts)->max_stack = v;
	return 0;
}

static int parse_period(const struct opt *o, void *opts, const char *arg, char *err, size_t errlen)
{
	(void)o;
	char *end;
	unsigned long long v = strtoull(arg, &end, 10);
	if (end == arg || *end || v == 0 || arg[0] == '-')
		return seterr(err, errlen, "bad period '%s': a positive count", arg), -EINVAL;
	((struct record_opts *)opts)->period = v;
	return 0;
}

int record_parse_call_graph(const struct opt *o, void *opts, const char *arg, char *err, size_t errlen)
{
	(void)o;
	struct record_opts *ro = opts;
	char *end;
	if (!strcmp(arg, "fp")) {
		ro->cg = CG_FP;
		return 0;
	}
	if (strncmp(arg, "dwarf", 5) || (arg[5] && arg[5] != ','))
		return seterr(err, errlen, "unknown --call-graph mode '%s': fp or dwarf[,SIZE]", arg), -EINVAL;
	ro->cg = CG_DWARF;
	if (arg[5] == ',') {
		unsigned long sz = strtoul(arg + 6, &end, 0);
		if (end == arg + 6 || *end || sz < 8 || sz > 65528)
			return seterr(err, errlen, "dwarf stack size '%s' must be 8..65528 bytes", arg + 6), -EINVAL;
		ro->stack_size = (uint32_t)(sz & ~7UL);	/* the kernel wants a multiple of 8 */
	}
	return 0;
}

static int parse_workers(const struct opt *o, void *opts, const char *arg, char *err, size_t errlen)
{
	(void)o;
	char *end;
	long v = strtol(arg, &end, 10);
	if (end == arg || *end || v < 1 || v > 64)
		return seterr(err, errlen, "--workers wants 1 to 64 threads, got '%s'", arg), -EINVAL;
	((struct record_opts *)opts)->workers = (int)v;
	return 0;
}

static int parse_unwinder(const struct opt *o, void *opts, const char *arg, char *err, size_t errlen)
{
	(void)o;
	if (unwind_backend__parse(arg, &((struct record_opts *)opts)->backend))
		return seterr(err, errlen, "unknown unwinder '%s': libdw or libunwind", arg), -EINVAL;
	return 0;
}

static int parse_weight(const struct opt *o, void *opts, const char *arg, char *err, size_t errlen)
{
	(void)o;
	if (strcmp(arg, "period") && strcmp(arg, "samples"))
		return seterr(err, errlen, "--weight is 'samples' or 'period', not '%s'", arg), -EINVAL;
	((struct record_opts *)opts)->weight_period = !strcmp(arg, "period");
	((struct record_opts *)opts)->weight_given = true;
	return 0;
}

static int parse_format(const struct opt *o, void *opts, const char *arg, char *err, size_t errlen)
{
	(void)o;
	for (int f = 0; f < OUT_NR; f++)
		if (!strcmp(arg, out_formats[f].name)) {
			((struct record_opts *)opts)->format = f + 1;
			return 0;
		}
	return seterr(err, errlen, "--format is one of " OUT_FORMAT_NAMES ", not '%s'", arg), -EINVAL;
}

/* Two tools spell --pid differently: perf record --pid PID attaches to a
 * process, stackcollapse-perf.pl --pid puts comm-PID in the root frame.
 * Both are kept: followed by a PID list, --pid (and --tid) attach as in
 * perf; alone, they mean --root-pid (--root-tid). The option parser looks
 * only at the word after the option (arg_if), never at the command's. */
static bool is_id_list(const char *s)
{
	if (!s || !*s)
		return false;
	for (; *s; s++)
		if (!(*s >= '0' && *s <= '9') && *s != ',')
			return false;
	return true;
}

static int parse_pid_or_root(const struct opt *o, void *opts, const char *arg, char *err, size_t errlen)
{
	(void)err, (void)errlen;
	struct record_opts *r = opts;
	bool pid = o->key == 'p';
	if (arg)
		*(pid ? &r->co.pid_list : &r->co.tid_list) = arg;
	else
		*(pid ? &r->root_pid : &r->root_tid) = true;
	return 0;
}

#define R struct record_opts
static const struct opt record_table[] = {
	OPT_GROUP("Target (default: the command, counted from its exec):"),
	TARGET_OPTS_IDS(R, co,
			OPT_FN_ARG_IF('p', "pid", "PID[,PID...]", R, co.pid_list, parse_pid_or_root, is_id_list,
				      "existing processes, all their threads; --pid without a PID list "
				      "after it: --root-pid"),
			OPT_FN_ARG_IF('t', "tid", "TID[,TID...]", R, co.tid_list, parse_pid_or_root, is_id_list,
				      "existing threads; --tid without a TID list after it: --root-tid")),
	OPT_GROUP("Events:"),
	OPT_LIST('e', "event", "EVENT", R, events,
		 "repeatable, comma lists; default cpu-clock\n"
		 "software (cpu-clock, task-clock, page-faults, cs, ...), tracepoints subsys:name with globs "
		 "(sched:*), :u/:k modifiers, perf's per-event terms (cpu-clock/max-stack=3,period=100000/: "
		 "period, freq, name, max-stack, call-graph=fp|dwarf[,SIZE]|no, stack-size, inherit, no-inherit; "
		 "tracepoints all but period, freq, name; an event's term wins over -F/-c/--max-stack/"
		 "--call-graph, the events of a run have one kind of stack), probes (every hit sampled):\n"
		 PROBE_FORMS_HELP("-x")),
	OPT_LIST(0, "filter", "EXPR", R, events,
		 "kernel filter for the tracepoints of the preceding -e, as perf record --filter: "
		 "'prev_state == 1 && next_pid != 0'; checked against the event's fields first; given twice, "
		 "both apply (&&)"),
	OPT_STRING('x', "exec", "BIN", R, exec,
		   "probe:FUNC[+OFF|:LINE|%return] and sdt_PROVIDER:NAME are probes in BIN"),
	OPT_FN('F', "freq", "HZ", R, freq, record_parse_freq,
	       "samples per second (default 999 for clock events); max: kernel.perf_event_max_sample_rate, as "
	       "perf"),
	OPT_FN('c', "count", "PERIOD", R, period, parse_period,
	       "one sample every PERIOD events (tracepoints: every event)"),
	OPT_FLAG(0, "off-cpu", R, off_cpu,
		 "wall-clock profile: on-CPU samples (cpu-clock or task-clock) and the time each thread spent "
		 "switched out, both in ns, in one output; an off-CPU stack is the thread's stack when it left "
		 "the CPU, under a leaf frame [off-cpu: blocked] (it slept: I/O, locks, sleep) or [off-cpu: "
		 "preempted] (still runnable); from sched:sched_switch samples and context-switch records, no "
		 "BPF. A wait still going on when recording ends is counted up to the end; one that began "
		 "before recording began is not counted; not with -C"),
	RING_OPTS(R, co, "default sized to lose nothing"),
	OPT_GROUP("Stacks:"),
	OPT_SET('g', NULL, R, cg, CG_DWARF, "kernel callchains and DWARF-unwound user stacks"),
	OPT_FN(0, "call-graph", "MODE", R, cg, record_parse_call_graph,
	       "dwarf[,SIZE]: user stacks unwound with CFI from a SIZE-byte stack copy, completed from the "
	       "thread's earlier samples (where the frames above were live at both) or from the live stack "
	       "when the copy ends early (default: 65528 for events sampled at a rate, of which "
	       "only what the stack fills is kept; 8192, as perf, for tracepoints and probes, which come in bursts); "
	       "fp: frame-pointer user stacks"),
	OPT_FN(0, "unwinder", "NAME", R, backend, parse_unwinder, "libdw (default) or libunwind"),
	OPT_FN(0, "workers", "N", R, workers, parse_workers,
	       "with dwarf: unwind on N threads (default: one per 16 CPUs, 1 to 16); the output is the same "
	       "as with one"),
	OPT_FN(0, "max-stack", "N", R, max_stack, parse_max_stack,
	       "at most N frames a stack (below comm), the outermost dropped, as perf's max-stack: the "
	       "kernel's callchain is asked for no more (sample_max_stack), the unwinder stops there"),
	OPT_FLAG(0, "hold-exits", R, hold_exits,
		 "with dwarf: hold each exiting thread of the command (ptrace exit-stops) until its samples "
		 "are unwound, so a process that exits from deep in its stack keeps its last stacks complete; "
		 "the command cannot be ptraced by anything else then (gdb, strace, LeakSanitizer)"),
	OPT_GROUP("Output:"),
	OPT_LIST('o', "output", "FILE", R, outputs,
		 "repeatable: one run writes each (-o app.folded -o app.pb.gz); the format from FILE's name: "
		 ".svg an interactive flame graph, .pb.gz (.pb, .pprof) pprof for go tool pprof, Pyroscope, "
		 "Parca, .speedscope.json speedscope's JSON (a timeline per thread: https://www.speedscope.app), "
		 ".folded or no extension folded; other extensions are refused. Default pprobe.folded; "
		 "'-' for stdout (the command's stdout then goes to stderr); several events write FILE's "
		 "stem + .EVENT + its extension each"),
	OPT_FN(0, "format", "FMT", R, format, parse_format,
	       "folded, svg, pprof or speedscope, whatever the name of the one -o FILE (default: from the "
	       "name)"),
	OPT_FN(0, "weight", "KIND", R, weight_period, parse_weight,
	       "samples (default) or period (sum the sample periods); --off-cpu weighs in ns"),
	OPT_FLAG(0, "per-thread", R, per_thread, "stacks per thread: the root frame is comm/TID"),
	OPT_FLAG(0, "root-pid", R, root_pid,
		 "the root frame is comm-PID (stackcollapse-perf.pl --pid); '--pid' with no PID list after it "
		 "means this too"),
	OPT_FLAG(0, "root-tid", R, root_tid,
		 "the root frame is comm-PID/TID (stackcollapse-perf.pl --tid); '--tid' with no TID list after "
		 "it means this too"),
	OPT_GROUP("Continuous profiling (Pyroscope):"),
	OPT_STRING(0, "push", "URL", R, push.url,
		   "send each interval's profile (pprof) to the Pyroscope server at URL "
		   "(http://host:4040), through its HTTP ingest API, instead of writing a file; a failed "
		   "send is retried with backoff from a bounded queue and said, never stops the recording"),
	OPT_FN(0, "interval", "SECS", R, push.interval, opt_parse_duration, "with --push: seconds per profile (10)"),
	OPT_STRING(0, "app", "NAME", R, push.app,
		   "with --push: the application name (default: the command's name, or pprobe); Pyroscope "
		   "shows NAME.cpu"),
	OPT_LIST(0, "label", "KEY=VALUE", R, push.labels, "with --push: a label of the series, repeatable"),
	OPT_GROUP("Output, continued:"),
	OPT_FLAG(0, "srcline", R, srcline,
		 "user frames with debug info as func:file.c:LINE (the sampled line at the leaf, call sites "
		 "above it)"),
	OPT_FN(0, "max-tables", "SIZE", R, max_tables, parse_max_tables,
	       "memory for the stack tables of folded and svg outputs, e.g. 64M, 1G (default 64M); past it "
	       "they are written to temporary files in TMPDIR (else /tmp) and merged into the output at the "
	       "end, so that a long run's memory stays bounded (pprof and speedscope keep the whole table)"),
	OPT_FN(0, "symbolize-timeout", "SECS", R, symbolize_timeout, opt_parse_duration,
	       "stop symbolizing after SECS (default 60): the frames left are named by their object "
	       "([libc.so.6]) and the summary says how many"),
	OPT_FLAG('q', "quiet", R, co.quiet, "no summary, no live status"),
	OPT_END(),
};
#undef R

const struct cmd_def record_cmd = {
	.name = "record",
	.prog = "pprobe record",
	.summary = "sample events and write folded stacks (or an SVG, pprof, speedscope's JSON)",
	.usage = "pprobe record [options] [--] [command [args...]]",
	.about = "Sample events and write folded stacks (one line per unique stack, "
		 "'comm;outermost;...;leaf COUNT', as flamegraph.pl reads them), an SVG flame graph, or "
		 "pprof (go tool pprof, Pyroscope, Parca): one -o for each.",
	.opts = record_table,
	.footer =
"Examples:\n"
"  pprobe record -g -- ./app                       # profile a command at 999 Hz\n"
"  pprobe record -e syscalls:sys_enter_write -g -a sleep 5\n"
"  pprobe record -g -x ./app -e probe:handle_request -- ./app   # who calls it\n"
"  pprobe record -g -p 1234 -d 10 -o app.folded && pprobe flamegraph app.folded > app.svg\n"
"  pprobe record --off-cpu -g -o app.svg -- ./app   # where the wall-clock time went, in ns\n"
"  pprobe record -g -o app.folded -o app.pb.gz -- ./app && go tool pprof -top app.pb.gz\n"
"  pprobe record -g -o app.speedscope.json -- ./app # a timeline per thread: https://www.speedscope.app\n",
};

void record_say(const struct record *r, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: ", r->prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

/* ---- setup ---- */

/* --off-cpu: the one on-CPU event must count time (ns, the off-CPU unit);
 * sched:sched_switch joins it, sampled on every switch (prev_state read
 * from its raw record). 0, or -1 after saying why. */
static int off_cpu_events(struct event_list *evl, struct record *rec)
{
	char err[1024];
	const struct event_spec *on = &evl->v[0];
	if (evl->nr != 1 || on->kind != EVENT_KIND_SOFTWARE ||
	    (on->attr.config != PERF_COUNT_SW_CPU_CLOCK && on->attr.config != PERF_COUNT_SW_TASK_CLOCK)) {
		record_say(rec, "--off-cpu weighs on-CPU samples by their time: -e must be one of "
			"cpu-clock or task-clock, not '%s'\n", evl->nr == 1 ? on->name : "several events");
		return -1;
	}
	if (event_list__add(evl, "sched:sched_switch", err, sizeof(err))) {
		record_say(rec, "--off-cpu needs the sched:sched_switch tracepoint: %s\n", err);
		return -1;
	}
	rec->switch_fmt = tp_format__load("sched", "sched_switch");
	rec->prev_state = rec->switch_fmt ? tp_format__field(rec->switch_fmt, "prev_state") : NULL;
	if (!rec->prev_state) {
		record_say(rec, "--off-cpu: cannot read the format of sched:sched_switch (%s)\n",
			rec->switch_fmt ? "no prev_state field" : strerror(errno));
		return -1;
	}
	return 0;
}

/* The events of -e (cpu-clock by default), each with its stack table
 * (other sites of a probe share the first's). Returns the number of
 * outputs (events shown), or -1 after saying why (exit status 2). */
static int add_events(const struct record_opts *o, struct event_list *evl, struct collect *c, struct record *rec)
{
	char err[4096];
	if (event_opts__add(evl, &o->events, "cpu-clock", err, sizeof(err))) {
		record_say(rec, "%s\n", err);
		return -1;
	}
	event_list__set_sampling(evl, (uint64_t)o->freq, o->period);
	if (o->off_cpu && off_cpu_events(evl, rec))
		return -1;
	int nr_shown = 0;
	for (size_t i = 0; i < evl->nr; i++) {
		const struct event_spec *spec = &evl->v[i];
		struct evsel *ev = evlist__add(&c->evlist, spec->name, &spec->attr);
		struct evstate *es = pp_xcalloc(1, sizeof(*es));
		ev->spec = spec;
		ev->priv = es;
		if (rec->off_cpu && spec->kind == EVENT_KIND_TRACEPOINT) {
			/* the switch-outs: their intervals go to the on-CPU event's table */
			es->switch_out = es->shared = true;
			continue;
		}
		if (spec->same_as > 0 && (size_t)spec->same_as <= i) {
			/* another site of a probe: its stacks go with the first's */
			es->stacks = ((struct evstate *)c->evlist.evsels[spec->same_as - 1]->priv)->stacks;
			es->shared = true;
		} else {
			es->stacks = stacktab__new(rec->frames);
			stacktab__set_root(es->stacks, rec->root);
			if (!rec->keep_ids)
				stacktab__drop_ids(es->stacks);
			if (rec->speedscope)
				stacktab__keep_timeline(es->stacks);
			nr_shown++;
		}
		if (rec->off_cpu)
			rec->off_stacks = es->stacks;
		if (ev->attr.freq)
			snprintf(es->rate_buf, sizeof(es->rate_buf), "%llu Hz",
				 (unsigned long long)ev->attr.sample_freq);
		else if (ev->attr.sample_period == 1)
			snprintf(es->rate_buf, sizeof(es->rate_buf), "every event");
		else
			snprintf(es->rate_buf, sizeof(es->rate_buf), "every %llu events",
				 (unsigned long long)ev->attr.sample_period);
	}
	return nr_shown;
}

/* perf's call-graph=MODE terms. One run records one kind of stack, the
 * sample layout being the run's: every sampled event's mode (its term,
 * else -g/--call-graph's, else none) must be the same, and becomes the
 * run's (so cpu-clock/call-graph=fp/ alone is -e cpu-clock --call-graph fp,
 * as in perf). 0, or 2 after saying why. */
static int callgraph_from_terms(struct record *rec, const struct collect *c)
{
	static const char *const cg_names[] = { [CG_NONE] = "no", [CG_FP] = "fp", [CG_DWARF] = "dwarf" };
	const struct evsel *first = NULL;
	enum callgraph mode = rec->cg;

	for (int i = 0; i < c->evlist.nr_evsels; i++) {
		const struct evsel *ev = c->evlist.evsels[i];
		const struct evstate *es = ev->priv;
		if (!ev->spec || !es || es->switch_out)
			continue;	/* --off-cpu's switch-outs follow the run's mode */
		enum event_callgraph t = ev->spec->callgraph;
		if (t == EVENT_CG_LBR) {
			if (ev->spec->kind == EVENT_KIND_HARDWARE || ev->spec->kind == EVENT_KIND_CACHE ||
			    ev->spec->kind == EVENT_KIND_RAW)
				record_say(rec, "%s: pprobe does not record LBR call stacks; "
					"call-graph=fp or dwarf\n", ev->name);
			else	/* perf's words */
				record_say(rec, "%s: PMU Hardware or event type doesn't support "
					"branch stack sampling.\n", ev->name);
			return 2;
		}
		enum callgraph m = t == EVENT_CG_FP ? CG_FP : t == EVENT_CG_DWARF ? CG_DWARF
				 : t == EVENT_CG_NO ? CG_NONE : (enum callgraph)rec->cg;
		if (first && m != mode) {
			record_say(rec, "%s would record %s stacks and %s %s stacks (call-graph= "
				"terms, -g/--call-graph): pprobe records one kind of stack for all the events of a "
				"run; give them the same call-graph=\n", first->name, cg_names[mode], ev->name,
				cg_names[m]);
			return 2;
		}
		if (!first) {
			first = ev;
			mode = m;
		}
	}
	rec->cg = mode;
	return 0;
}

/* After the frames were symbolized (a push cut, a spill): the files of
 * processes still alive stay open, the rest (a build's compilers, a test
 * suite's fresh binaries) are closed once a cut went by without them. */
static void sweep_files(struct collect *c, struct record *r)
{
	struct u64map *procs = &c->session.processes;
	for (size_t i = 0; i < procs->cap; i++) {
		const struct process *p = procs->vals[i];
		if (!procs->used[i] || p->exited)
			continue;
		for (size_t k = 0; k < maps__count(p->maps); k++) {
			const struct map *m = maps__at(p->maps, k);
			if (m->prot & PROT_EXEC)
				symbolizer__keep(r->sym, p->pid, m);
		}
	}
	objcache__sweep(r->files);	/* the symbolizer's and the unwinder's */
	if (r->pool)	/* the workers' own */
		unwind_pool__sweep(r->pool);
	malloc_trim(0);	/* what was freed goes back: RSS shows what is in use */
}

/* The stack tables' memory: the frames' too where they can go with the
 * stacks (not with --off-cpu, whose waits still open hold frame ids). */
static size_t tables_bytes(struct collect *c, const struct record *r)
{
	size_t n = r->off_cpu ? 0 : frametab__bytes(r->frames);
	for (int i = 0; i < c->evlist.nr_evsels; i++) {
		const struct evstate *es = c->evlist.evsels[i]->priv;
		if (es && !es->shared && es->stacks)
			n += stacktab__bytes(es->stacks);
	}
	return n;
}

/* Past --max-tables: each table's lines to a run on disk, the tables and
 * the frames emptied (spill.h). A spill that fails (the disk) is said at
 * the end, and the tables stay in memory from then on. */
static void spill_tables(struct collect *c, struct record *r)
{
	frametab__symbolize(r->frames, r->sym);
	for (int i = 0; i < c->evlist.nr_evsels; i++) {
		struct evstate *es = c->evlist.evsels[i]->priv;
		if (!es || es->shared || !es->stacks || !stacktab__count(es->stacks))
			continue;
		if (!es->spill && !(es->spill = spill__new()))
			r->spill_err = -ENOMEM;
		else
			r->spill_err = spill__add(es->spill, es->stacks);
		if (r->spill_err) {	/* none spilled: the table alone, as without */
			if (es->spill && !spill__runs(es->spill)) {
				spill__delete(es->spill);
				es->spill = NULL;
			}
			r->max_tables = 0;
			return;
		}
		stacktab__clear(es->stacks);
	}
	if (!r->off_cpu)
		frametab__clear(r->frames);
	r->spills++;
	sweep_files(c, r);
}

/* Each pass of the main loop: the workers' results taken, the tables
 * spilled past --max-tables. */
static void record_tick(struct collect *c)
{
	struct record *r = c->priv;
	if (r->pool)
		unwind_pool__kick(r->pool);
	if (r->max_tables && tables_bytes(c, r) > r->max_tables)
		spill_tables(c, r);
	if (r->view)
		r->view->tick(c, r, r->view->arg);
}

/* Stacks: callchains, DWARF unwinding, and rings sized for them. 0, or the
 * exit status after saying why. */
static int setup_stacks(struct record *rec, struct collect *c, struct collect_opts *co)
{
	const struct stack_opts so = {
		.kind = rec->cg == CG_DWARF ? STACKS_DWARF : rec->cg == CG_FP ? STACKS_FP : STACKS_NONE,
		.max_frames = rec->max_stack,
		.stack_size = rec->stack_size,
	};
	/* Several workers: each its own unwinder (and files); the samples
	 * still go in order (unwind_pool.h). --off-cpu's switch-outs pair
	 * with context switches here: one thread. */
	bool pool = rec->cg == CG_DWARF && rec->workers > 1 && !rec->off_cpu;
	const char *chk = getenv("PPROBE_WORKERS_CHECK");
	bool here = !pool || (chk && strcmp(chk, "0"));
	char err[300];
	if (collect__setup_stacks(co, &c->evlist, &so, rec->backend, rec->files, here ? &rec->unwinder : NULL, err,
				  sizeof(err))) {
		record_say(rec, "%s\n", err);
		return 1;
	}
	if (rec->cg == CG_DWARF) {
		if (pool) {
			rec->pool = unwind_pool__new(rec->workers, rec->backend, MAX_FRAMES, err, sizeof(err));
			if (!rec->pool) {
				record_say(rec, "%s\n", err);
				return 1;
			}
			c->before_task = record_before_task;
		}
		c->on_process_gone = on_process_gone;
		co->hold_exits = rec->hold_exits;
		/* Every ms a sample waits, its live stack may move on: folded
		 * stacks need the causal order only (see collect.h). */
		co->order_slack_us = 100;
	}
	return 0;
}

/* Every output is tried now (its temporary created beside it and removed):
 * one that cannot be written is said before the command runs, not after
 * its profile is taken. Not kept open: a run with many events needs its
 * fds for them. */
static int try_outputs(struct collect *c, const struct record *rec, bool several)
{
	for (int i = 0; i < c->evlist.nr_evsels; i++) {
		struct evsel *ev = c->evlist.evsels[i];
		struct evstate *es = ev->priv;
		if (!es || es->shared)
			continue;
		es->paths = pp_xcalloc(rec->nr_outs, sizeof(*es->paths));
		for (size_t k = 0; k < rec->nr_outs; k++) {
			es->paths[k] = output_name(&rec->outs[k], ev->name, several);
			int err = outfile__check(es->paths[k]);
			if (err) {
				fprintf(stderr, "pprobe record: cannot write %s: %s\n", es->paths[k], strerror(-err));
				return 1;
			}
		}
	}
	return 0;
}

/* ---- output ---- */

/* What an event's stacks measure, for pprof's sample types. */
static void pprof_opts_of(const struct collect *c, const struct evsel *ev, const struct record *rec,
			  struct pprof_opts *po)
{
	const struct perf_event_attr *a = &ev->attr;
	bool clock = ev->spec && ev->spec->kind == EVENT_KIND_SOFTWARE &&
		     (a->config == PERF_COUNT_SW_CPU_CLOCK || a->config == PERF_COUNT_SW_TASK_CLOCK);
	*po = (struct pprof_opts){ .event = ev->name, .time = clock || rec->off_cpu, .wall = rec->off_cpu,
				   .weight_is_value = rec->weight_period };
	/* the clock events' frequency is a fixed period in ns (the kernel's hrtimer) */
	if (!a->freq)
		po->period = a->sample_period;
	else if (clock && a->sample_freq)
		po->period = 1000000000ULL / a->sample_freq;
	struct timespec rt;
	clock_gettime(CLOCK_REALTIME, &rt);
	double ago = (c->t_end > c->t_start ? now_seconds() - c->t_start : 0);
	po->time_nanos = (int64_t)rt.tv_sec * 1000000000LL + rt.tv_nsec - (int64_t)(ago * 1e9);
	po->duration_nanos = c->t_end > c->t_start ? (int64_t)((c->t_end - c->t_start) * 1e9) : 0;
}

/* speedscope's unit of an event's weights: ns where they are time (the
 * periods of cpu-clock and task-clock, --off-cpu), else counts. */
static const char *speedscope_unit(const struct record *rec, const struct evsel *ev)
{
	bool clock = ev->attr.type == PERF_TYPE_SOFTWARE &&
		     (ev->attr.config == PERF_COUNT_SW_CPU_CLOCK || ev->attr.config == PERF_COUNT_SW_TASK_CLOCK);
	return rec->off_cpu || (rec->weight_period && clock) ? "nanoseconds" : "none";
}

/* One event's stacks into an open file, in format fmt; *lines: the unique
 * stacks written; *threads: speedscope's profiles (one per thread), else 0.
 * 0 or -errno. */
static int write_one(struct collect *c, const struct evsel *ev, const struct record *rec, enum out_format fmt,
		     FILE *f, size_t *lines, size_t *threads)
{
	*threads = 0;
	const struct evstate *es = ev->priv;
	switch (fmt) {
	case OUT_SVG: {
		char title[300];
		snprintf(title, sizeof(title), "pprobe record: %s", ev->name);
		return stacktab__write_svg(es->stacks, es->spill, title,
					   rec->off_cpu ? "ns" : rec->weight_period ? "events" : "samples", f, lines);
	}
	case OUT_PPROF: {
		struct pprof_opts po;
		pprof_opts_of(c, ev, rec, &po);
		*lines = stacktab__count(es->stacks);
		return pprof__write(es->stacks, rec->frames, &po, f);
	}
	case OUT_SPEEDSCOPE: {
		char name[300];
		snprintf(name, sizeof(name), "pprobe record: %s", ev->name);
		struct speedscope_opts so = { .name = name, .unit = speedscope_unit(rec, ev),
					      .exporter = "pprobe@" PPROBE_VERSION };
		*threads = speedscope__write(rec->frames, es->stacks, &so, f);
		*lines = stacktab__count(es->stacks);
		return ferror(f) ? -EIO : 0;
	}
	case OUT_FOLDED:
	case OUT_NR:
		break;
	}
	int err;
	*lines = spill__folded(es->spill, es->stacks, folded__write_line, f, &err);
	return err;
}

/* ---- --push ---- */

/* At the end, what is still queued gets this long to be delivered. */
#define PUSH_FINISH_S 5.0

/* One interval of the pushed event's stacks out, the table emptied. */
static void push_cut(struct collect *c, struct record *r, double now)
{
	struct pprof_opts po;
	record_sync(c, r);	/* the interval's samples, all of them; the frames new since the last cut */
	pprof_opts_of(c, r->push_ev, r, &po);
	record_push__cut(&r->push, ((struct evstate *)r->push_ev->priv)->stacks, r->frames, &po, now);
	record_clear(c, r);	/* memory follows one interval, not the run */
}

void record_sync(struct collect *c, struct record *r)
{
	if (r->pool)
		record_take_back(r, c, -1);
	frametab__symbolize(r->frames, r->sym);
}

void record_clear(struct collect *c, struct record *r)
{
	for (int i = 0; i < c->evlist.nr_evsels; i++) {
		struct evstate *es = c->evlist.evsels[i]->priv;
		if (es && !es->shared && es->stacks)
			stacktab__clear(es->stacks);
	}
	/* with --off-cpu the waits still open hold frame ids (symbolized
	 * already: their names are copies) */
	if (!r->off_cpu)
		frametab__clear(r->frames);
	sweep_files(c, r);
}

static void push_tick(struct collect *c)
{
	struct record *r = c->priv;
	if (r->pool)
		unwind_pool__kick(r->pool);
	double now = now_seconds();
	if (record_push__due(&r->push, now))
		push_cut(c, r, now);
	if (now >= r->next_report) {
		record_push__report(&r->push);
		r->next_report = now + 1;
	}
}

/* Usage errors of --push and its companions, before anything starts. */
static const char *check_push_opts(const struct record_opts *o)
{
	static char err[300];
	if (!o->push.url)
		return o->push.interval || o->push.app || o->push.labels.nr ? "--interval, --app and --label go with --push"
									   : NULL;
	if (o->outputs.nr || o->format)
		return "--push sends each interval to the server; -o and --format write the whole run to a file: "
		       "give one or the other";
	if (pusher__check_target(o->push.url, o->push.app, err, sizeof(err)))
		return err;
	for (size_t i = 0; i < o->push.labels.nr; i++)
		if (pusher__check_label(o->push.labels.v[i].arg, err, sizeof(err)))
			return err;
	return NULL;
}

/* --push: one event, and the sender started. 0 or the exit status. */
static int push_prepare(struct record_opts *o, struct record *rec, struct collect *c, int nr_shown)
{
	char err[300];
	if (nr_shown != 1) {
		fprintf(stderr, "pprobe record: --push sends one event's profile: give one -e\n");
		return 2;
	}
	for (int i = 0; i < c->evlist.nr_evsels && !rec->push_ev; i++) {
		struct evstate *es = c->evlist.evsels[i]->priv;
		if (es && !es->shared)
			rec->push_ev = c->evlist.evsels[i];
	}
	const struct perf_event_attr *a = &rec->push_ev->attr;
	unsigned rate = a->freq ? (unsigned)a->sample_freq : 0;
	if (record_push__start(&rec->push, &o->push, o->co.argv ? o->co.argv[0] : NULL, rate, o->co.quiet, err,
			       sizeof(err))) {
		fprintf(stderr, "pprobe record: %s\n", err);
		return 2;
	}
	c->on_tick = push_tick;
	return 0;
}

/* After the run: SIGINT/SIGTERM end symbolizing too. The first one after
 * the run stops symbolizing (the frames left are named by their object)
 * and the files are written with what there is; the guard (sigguard.h)
 * ends pprobe at once at the second stop signal of the whole run, which
 * may be the first after it. The timeout stops symbolizing as the first
 * signal does. */
struct late_stop {
	double deadline;
	unsigned run_signals;	/* stop signals before symbolizing */
	bool timed_out, signalled;
};

static bool late_should_stop(void *arg)
{
	struct late_stop *ls = arg;
	if (sigguard__count() > ls->run_signals)
		ls->signalled = true;
	else if (now_seconds() >= ls->deadline)
		ls->timed_out = true;
	return ls->timed_out || ls->signalled;
}

/* Each event's files, one per -o. 0, or 1 when one could not be written
 * (said). */
static int write_outputs(struct collect *c, const struct event_list *evl, const struct record *rec)
{
	int ret = 0;
	for (int i = 0; i < c->evlist.nr_evsels; i++) {
		struct evsel *ev = c->evlist.evsels[i];
		struct evstate *es = ev->priv;
		if (!es || es->shared)
			continue;
		uint64_t samples = ev->samples;
		int si = ev->spec ? (int)(ev->spec - evl->v) : -1;	/* evsels also hold the sideband dummy */
		for (int k = i + 1; k < c->evlist.nr_evsels; k++)
			if (si >= 0 && c->evlist.evsels[k]->spec && c->evlist.evsels[k]->spec->same_as == si + 1)
				samples += c->evlist.evsels[k]->samples;
		for (size_t k = 0; k < rec->nr_outs; k++) {
			const char *path = es->paths[k];
			struct outfile of;
			int err = outfile__open_or_say(&of, path, "pprobe record");
			if (err) {
				ret = 1;
				continue;
			}
			outfile__bulk(&of);
			size_t lines = 0, threads = 0;
			err = write_one(c, ev, rec, rec->outs[k].fmt, of.f, &lines, &threads);
			if (err && err != -EIO) {
				fprintf(stderr, "pprobe record: writing %s failed: %s\n", path, strerror(-err));
				outfile__abort(&of);
				ret = 1;
				continue;
			}
			err = outfile__commit(&of);	/* a failed write (-EIO) is said with its errno here */
			if (err == -EPIPE && !strcmp(path, "-")) {
				ret = CMD_EXIT_SIGPIPE;	/* the reader went away: as any filter */
			} else if (err) {
				fprintf(stderr, "pprobe record: writing %s failed: %s\n", path, strerror(-err));
				ret = 1;
			} else if (!c->opts.quiet) {
				char per_thread[48] = "";
				if (threads)
					snprintf(per_thread, sizeof(per_thread), ", %zu threads", threads);
				fprintf(stderr, "pprobe record: %s: %llu samples (%s), %zu unique stacks%s -> %s\n",
					ev->name, (unsigned long long)samples, es->rate_buf, lines, per_thread,
					strcmp(path, "-") ? path : "stdout");
			}
		}
	}
	return ret;
}

static void print_off_cpu(const struct record *rec)
{
	const struct offcpu_stats *st = &rec->off.st;
	record_say(rec, "off-CPU: %llu waits, %.3f s blocked, %.3f s preempted; weights in ns "
		"(on-CPU samples by their period)\n", (unsigned long long)(st->intervals + st->open_at_end),
		(double)st->ns[0] / 1e9, (double)st->ns[1] / 1e9);
	if (st->open_at_end)
		record_say(rec, "off-CPU: %llu threads were still off-CPU at the end: counted up "
			"to it\n", (unsigned long long)st->open_at_end);
	if (st->unmatched_in || st->unmatched_out || st->backwards || rec->bad_prev_state)
		record_say(rec, "off-CPU: not counted: %llu switch-ins without their switch-out, "
			"%llu switch-outs without their switch-in (records lost), %llu out of order, "
			"%llu sched_switch records without a readable prev_state\n",
			(unsigned long long)st->unmatched_in, (unsigned long long)st->unmatched_out,
			(unsigned long long)st->backwards, (unsigned long long)rec->bad_prev_state);
}

struct unnamed_said {
	const struct record *rec;
	int said;
};

static void say_unnamed(const char *dso, const char *why, size_t unnamed, size_t total, void *arg)
{
	struct unnamed_said *u = arg;
	if (u->said++ < 8)
		record_say(u->rec, "%s: %zu of %zu code addresses without a name: %s\n", dso, unnamed, total,
			   why ? why : "no symbol covers them");
}

/* What --max-tables did. */
static void print_spills(struct collect *c, const struct record *rec)
{
	unsigned long long bytes = 0;
	for (int i = 0; i < c->evlist.nr_evsels; i++) {
		const struct evstate *es = c->evlist.evsels[i]->priv;
		if (es && es->spill)
			bytes += spill__bytes(es->spill);
	}
	const char *tmp = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char max[32];
	drain__size_str(rec->max_tables_asked, max, sizeof(max));
	if (rec->spills)
		record_say(rec, "stack tables past --max-tables %s spilled %u times to temporary "
			"files in %s (%.1f MB written), merged into the output\n", max, rec->spills, tmp,
			(double)bytes / 1e6);
	if (rec->spill_err)
		record_say(rec, "could not spill the stack tables (%s): they stayed in memory from "
			"then on\n", strerror(-rec->spill_err));
}

static void print_summary(struct collect *c, const struct record *rec)
{
	char queue[96];
	collect__queue_summary(c, queue, sizeof(queue));
	double span = c->t_stop_ns ? (double)c->t_stop_ns / 1e9 - c->t_start : c->t_end - c->t_start; /* events on */
	char more[80] = "";
	if (c->t_end - c->t_start - span >= 0.1)
		snprintf(more, sizeof(more), "; then %.2f s processing what was queued", c->t_end - c->t_start - span);
	record_say(rec, "%.2f s, %llu samples, %llu lost records, %llu lost samples, %s%s%s\n",
		span, (unsigned long long)c->nr_samples, (unsigned long long)c->lost,
		(unsigned long long)c->lost_samples, queue, c->stop_signal ? " (stopped by signal)" : "", more);
	collect_say__lost(c, rec->prog);
	if (rec->off_cpu)
		print_off_cpu(rec);
	record_print_unwind_quality(rec);
	struct unnamed_said un = { .rec = rec };
	if (rec->frames && frametab__unnamed(rec->frames, say_unnamed, &un) > 8)
		record_say(rec, "and %d more objects with code addresses without a name\n", un.said - 8);
	/* pprobe's own threads, not the command's: what profiling costs */
	struct rusage ru;
	if (!getrusage(RUSAGE_SELF, &ru)) {
		double u = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
		double k = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
		record_say(rec, "profiler CPU %.2f s (%.2f user, %.2f system)\n", u + k, u, k);
	}
	if (rec->truncated)
		record_say(rec, "%llu stacks deeper than %u frames ended in [truncated]\n",
			(unsigned long long)rec->truncated, rec->max_stack);
	if (c->bad_records)
		record_say(rec, "%llu malformed records skipped\n", (unsigned long long)c->bad_records);
	if (c->unknown_id)
		record_say(rec, "%llu samples of no event of ours skipped\n",
			(unsigned long long)c->unknown_id);
	if (c->throttled)
		record_say(rec, "the kernel throttled sampling %llu times "
			"(kernel.perf_event_max_sample_rate); a lower -F avoids it\n",
			(unsigned long long)c->throttled);
	if (c->queue.out_of_order)
		record_say(rec, "%llu records arrived after newer ones were "
			"processed (delivered late, out of order)\n",
			(unsigned long long)c->queue.out_of_order);
	print_spills(c, rec);
	if (rec->unsymbolized && rec->symbolize_timed_out)
		record_say(rec, "symbolizing took longer than --symbolize-timeout %g s: %zu frames "
			"left named by their object\n", rec->symbolize_timeout, rec->unsymbolized);
	else if (rec->unsymbolized)
		record_say(rec, "symbolizing stopped by a signal: %zu frames left named by their "
			"object\n", rec->unsymbolized);
	safe_open__say(rec->prog);
}

/* ---- the command ---- */

static void free_evstates(struct collect *c, size_t nr_outs)
{
	for (int i = 0; i < c->evlist.nr_evsels; i++) {
		struct evstate *es = c->evlist.evsels[i]->priv;
		if (es) {
			if (!es->shared)
				stacktab__delete(es->stacks);
			spill__delete(es->spill);
			for (size_t k = 0; es->paths && k < nr_outs; k++)
				free(es->paths[k]);
			free(es->paths);
			free(es);
		}
	}
}

static void record_exit(struct record *rec)
{
	frametab__delete(rec->frames);
	symbolizer__delete(rec->sym);
	unwinder__delete(rec->unwinder);
	unwind_pool__delete(rec->pool);
	objcache__put(rec->files);
	strtab__free(&rec->objs);
	free(rec->quality);
	offcpu__exit(&rec->off);
	tp_format__free(rec->switch_fmt);
	free(rec->outs);
	pusher__delete(rec->push.pusher);	/* an error path: nothing to say */
}

/* Each -o with its format (default pprobe.folded, or pprobe + --format's
 * extension). NULL, or what is wrong (a usage error). */
static const char *choose_outputs(const struct record_opts *o, struct record *rec)
{
	if (o->format && o->outputs.nr > 1)
		return "--format applies to one -o; with several, each FILE's name gives its format "
		       "(.folded, .svg, .pb.gz, .speedscope.json)";
	static char default_name[32];
	rec->nr_outs = o->outputs.nr ? o->outputs.nr : 1;
	rec->outs = pp_xcalloc(rec->nr_outs, sizeof(*rec->outs));
	if (!o->outputs.nr) {
		enum out_format f = o->format ? (enum out_format)(o->format - 1) : OUT_FOLDED;
		snprintf(default_name, sizeof(default_name), "pprobe%s", out_formats[f].exts[0]);
		rec->outs[0] = (struct output){ .name = default_name, .fmt = f };
	}
	size_t nr_stdout = 0;
	for (size_t k = 0; k < o->outputs.nr; k++) {
		const char *name = o->outputs.v[k].arg;
		rec->outs[k].name = name;
		rec->outs[k].fmt = o->format ? (enum out_format)(o->format - 1) : format_of_name(name);
		if (!o->format && name_has_other_ext(name)) {
			static char why[512];
			char exts[128];
			out_format_exts(exts, sizeof(exts));
			snprintf(why, sizeof(why), "-o %s: record does not write %s files; it writes %s (or give --format "
				 "FMT for one -o)", name, strrchr(name, '.'), exts);
			return why;
		}
		nr_stdout += !strcmp(name, "-");
		for (size_t j = 0; j < k; j++)
			if (strcmp(name, "-") && !strcmp(name, o->outputs.v[j].arg))
				return "the same -o FILE twice";
	}
	rec->to_stdout = nr_stdout > 0;
	return nr_stdout > 1 ? "one -o may be '-' (stdout), not several" : NULL;
}

/* Everything before the run: events, stacks, outputs. 0, or the exit status. */
static int record_prepare(struct record_opts *o, struct record *rec, struct collect *c, struct event_list *evl)
{
	rec->cg = (enum callgraph)o->cg;
	rec->stack_size = o->stack_size;
	rec->backend = o->backend;
	rec->workers = o->workers ? o->workers : unwind_pool__default_workers();
	rec->hold_exits = o->hold_exits;
	rec->srcline = o->srcline;
	rec->weight_period = o->weight_period || o->off_cpu;
	rec->root = o->root_tid ? STACK_ROOT_TID : o->root_pid ? STACK_ROOT_PID
		  : o->per_thread ? STACK_ROOT_THREAD : STACK_ROOT_COMM;
	rec->off_cpu = o->off_cpu;
	rec->pushing = o->push.url != NULL;
	offcpu__init(&rec->off);
	if (o->off_cpu) {
		c->on_switch = on_switch;
		o->co.context_switch = true;
		o->co.extra_sample_type |= PERF_SAMPLE_RAW;	/* prev_state */
	}
	rec->frames = frametab__new();
	frametab__srcline_names(rec->frames, rec->srcline);
	strtab__init(&rec->objs);
	struct symbolizer_opts so;
	symbolizer_opts__init(&so);
	/* pprof carries file and line beside each function; folded names
	 * carry them only with --srcline (frametab__srcline_names) */
	so.srcline = rec->srcline;
	for (size_t k = 0; k < rec->nr_outs; k++) {	/* both show each frame's file */
		so.srcline |= rec->outs[k].fmt == OUT_PPROF || rec->outs[k].fmt == OUT_SPEEDSCOPE;
		rec->speedscope |= rec->outs[k].fmt == OUT_SPEEDSCOPE;	/* every sample in time order */
		/* pprof labels each sample with its pid and tid, speedscope
		 * has a profile per thread */
		rec->keep_ids |= rec->outs[k].fmt == OUT_PPROF || rec->outs[k].fmt == OUT_SPEEDSCOPE;
	}
	rec->keep_ids |= rec->pushing || rec->root != STACK_ROOT_COMM;
	so.srcline |= rec->pushing;
	/* folded and svg are written from merged lines: their tables may go
	 * to disk; pprof and speedscope need the whole table, --push cuts its
	 * own intervals */
	rec->max_tables_asked = o->max_tables ? o->max_tables : DEFAULT_MAX_TABLES;
	rec->max_tables = rec->pushing || rec->view ? 0 : rec->max_tables_asked;	/* a view reads the table */
	for (size_t k = 0; k < rec->nr_outs; k++)
		if (rec->outs[k].fmt != OUT_FOLDED && rec->outs[k].fmt != OUT_SVG)
			rec->max_tables = 0;
	/* one cache of ELF files for names and for unwinding (setup_stacks) */
	rec->files = objcache__new();
	rec->sym = rec->files ? symbolizer__new_cached(&so, rec->files) : NULL;
	if (!rec->sym) {
		record_say(rec, "cannot set up the symbolizer: %s\n", strerror(errno));
		return 1;
	}
	rec->max_stack = 127;
	rec->frame_limit = MAX_FRAMES;
	if (o->max_stack) {
		rec->frame_limit = (uint32_t)o->max_stack;
		rec->max_stack = collect__kernel_max_stack((uint32_t)o->max_stack);
	}
	c->priv = rec;
	c->on_sample = on_sample;
	c->on_mmap = on_mmap;
	evl->ctx.exec = o->exec;
	evl->ctx.pids = o->co.pid_list;
	int nr_shown = add_events(o, evl, c, rec);
	if (nr_shown < 0)
		return 2;
	if (nr_shown > 1 && rec->to_stdout) {
		record_say(rec, "several events write one file each: give -o FILE, not '-'\n");
		return 2;
	}
	if (rec->pushing) {
		int err = push_prepare(o, rec, c, nr_shown);
		if (err)
			return err;
	}
	if (callgraph_from_terms(rec, c))
		return 2;
	int ret = setup_stacks(rec, c, &o->co);
	if (ret)
		return ret;
	if (!rec->pushing)	/* push_tick: the workers, the intervals */
		c->on_tick = record_tick;
	o->co.status_prefix = rec->prog;
	/* stdout carries the folded stacks: the command's own stdout goes to
	 * our stderr, so that its lines do not become stacks. */
	o->co.child_stdout_to_stderr |= rec->to_stdout;
	return rec->view ? 0 : try_outputs(c, rec, nr_shown > 1);
}

/* After the options: set up, run, write or finish the view, say. */
int record_run(struct record_opts *o, struct record *rec)
{
	struct collect c;
	struct event_list evl;
	char err[4096] = "";
	bool view_status = false;	/* the view's finish chose the exit status */
	int ret;

	if (!rec->prog)
		rec->prog = "pprobe record";
	rec->symbolize_timeout = o->symbolize_timeout > 0 ? o->symbolize_timeout : 60;
	if (o->freq_max)
		fprintf(stderr, "info: Using a maximum frequency rate of %ld Hz\n", o->freq);

	collect__init(&c);
	collect_say__hook(&c);
	event_list__init(&evl);
	ret = record_prepare(o, rec, &c, &evl);
	/* From here objects are read as they are mapped, while the rings
	 * fill: debuginfod (a network fetch) waits for the symbolization. */
	debuginfo__debuginfod(false, sigguard__asked, NULL);
	if (!ret) {
		ret = collect_say__status(&c, collect__prepare(&c, &o->co, err, sizeof(err)));
		collect_say__error(err);
	}
	if (!ret)
		note_targets(&c, rec);
	if (!ret && rec->to_stdout)
		collect__watch_output(&c, 1);
	uint64_t main_before = clock_ns(CLOCK_THREAD_CPUTIME_ID);	/* the run's, not the set-up's */
	if (!ret) {
		ret = collect_say__status(&c, collect__run(&c, err, sizeof(err)));
		collect_say__error(err);
	}
	if (rec->pool) {	/* what the workers still have */
		record_take_back(rec, &c, -1);
		rec->workers_cpu_ns = unwind_pool__cpu_ns(rec->pool);
		rec->main_cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID) - main_before;
	}
	if (!ret && c.out_err == EPIPE) {
		ret = CMD_EXIT_SIGPIPE;	/* nobody reads the stacks: none are written */
	} else if (!ret) {
		if (rec->off_cpu)	/* waits still going on: up to the end */
			offcpu__finish(&rec->off, c.t_stop_ns, add_interval, rec);
		if (rec->pushing) {	/* the last interval, then what is queued */
			push_cut(&c, rec, now_seconds());
			record_push__finish(&rec->push, PUSH_FINISH_S);
		} else {
			/* Symbolize the unique addresses once, then write each event's file. */
			struct late_stop ls = { .run_signals = sigguard__count() };
			ls.deadline = now_seconds() + rec->symbolize_timeout;
			debuginfo__debuginfod(true, late_should_stop, &ls);	/* under the same bounds */
			rec->unsymbolized = frametab__symbolize_until(rec->frames, rec->sym, late_should_stop, &ls);
			debuginfo__debuginfod(true, sigguard__asked, NULL);
			rec->symbolize_timed_out = ls.timed_out;
			if (rec->view) {
				int st = rec->view->finish(&c, rec, rec->view->arg);
				view_status = st >= 0;
				ret = st >= 0 ? st : 0;
			} else {
				ret = write_outputs(&c, &evl, rec);
			}
		}
		if (!o->co.quiet)
			print_summary(&c, rec);
	}
	free_evstates(&c, rec->nr_outs);
	collect__cleanup(&c);
	if (!ret && !view_status)
		ret = collect__exit_status(&c);
	record_exit(rec);
	event_list__exit(&evl);
	return ret;
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o = { 0 };
	struct record rec = { 0 };
	int ret;

	int n = opts__parse(&record_cmd, argc, argv, &o);
	if (n < 0) {
		opt_list__free(&o.events);
		opt_list__free(&o.outputs);
		opt_list__free(&o.push.labels);
		return opts__exit_status(n);
	}
	const char *bad_outputs = o.push.url ? NULL : choose_outputs(&o, &rec);
	const char *bad_push = check_push_opts(&o);
	if (bad_outputs || bad_push)
		ret = opts__usage_error(&record_cmd, "%s", bad_outputs ? bad_outputs : bad_push);
	else if (event_opts__check(&o.events))
		ret = opts__usage_error(&record_cmd, "%s", event_opts__check(&o.events));
	else if (o.freq && o.period)
		ret = opts__usage_error(&record_cmd, "-F and -c exclude each other");
	else if (o.co.pid_list && o.co.tid_list)
		ret = opts__usage_error(&record_cmd, "give either -p or -t");
	else if (o.off_cpu && o.co.cpu_list)
		ret = opts__usage_error(&record_cmd, "--off-cpu and -C exclude each other: a thread leaving one "
					"CPU may come back on another that -C leaves out");
	else if (o.off_cpu && o.weight_given && !o.weight_period)
		ret = opts__usage_error(&record_cmd, "--off-cpu weighs by time (ns): --weight samples does not apply");
	else
		ret = 0;
	if (ret) {
		opt_list__free(&o.events);
		opt_list__free(&o.outputs);
		opt_list__free(&o.push.labels);
		free(rec.outs);
		return ret;
	}
	if (n < argc)
		o.co.argv = argv + n;
	ret = record_run(&o, &rec);
	opt_list__free(&o.events);
	opt_list__free(&o.outputs);
	opt_list__free(&o.push.labels);
	return ret;
}

