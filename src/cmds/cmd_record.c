/* pprobe record: sample events, aggregate stacks online, write folded stacks. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "collect.h"
#include "commands.h"
#include "event_spec.h"
#include "probe_spec.h"
#include "stacks.h"
#include "svg.h"
#include "pprobe/symbolize.h"
#include "pprobe/unwind.h"

#define MAX_FRAMES 4096

enum callgraph { CG_NONE, CG_FP, CG_DWARF };

/* Unwind quality of the samples whose leaf is in one object. */
struct quality {
	uint64_t samples, complete;
	uint64_t ends[UNWIND_ERROR + 1];
};

struct record {
	struct frametab *frames;
	enum callgraph cg;
	bool weight_period;
	uint16_t max_stack;
	uint64_t truncated;
	/* DWARF unwinding */
	struct symbolizer *sym;		/* opened up front: files are prepared as they are mapped */
	struct unwinder *unwinder;
	enum unwind_backend backend;
	bool hold_exits;		/* --hold-exits */
	bool srcline;			/* --srcline: func:file.c:LINE frames */
	uint32_t stack_size;
	uint64_t unwound, complete, live_stack, unwind_ns;
	struct strtab objs;		/* leaf object names */
	struct quality *quality;	/* indexed by objs id */
	size_t nr_quality;
	uint64_t ips[MAX_FRAMES];
	uint32_t frame_buf[MAX_FRAMES + 8];
};

static const char *basename_of(const char *path)
{
	const char *b = strrchr(path, '/');
	return b ? b + 1 : path;
}

/* The user part of a sample, unwound from its registers and stack copy. */
static uint32_t unwind_user(struct record *r, struct collect *c, const struct sample *s,
			    const struct process *p,
			    uint32_t *fr, uint32_t room)
{
	struct unwind_result res;
	uint32_t n = 0;
	pid_t pid = (pid_t)s->pid;

	uint64_t t0 = now_ns();
	int nr = collect__unwind_user(c, r->unwinder, s, p, r->ips,
				      (int)(room - 1 < MAX_FRAMES ? room - 1 : MAX_FRAMES), &res);
	r->unwind_ns += now_ns() - t0;
	r->unwound++;
	if (nr < 0) {
		res.end = UNWIND_ERROR;
		res.nr = 0;
		res.end_dso = NULL;
		nr = 0;
	}
	for (int i = 0; i < nr; i++)
		fr[n++] = frametab__user(r->frames, pid, maps__find(p->maps, r->ips[i]), r->ips[i], i > 0);
	if (res.used_live_stack)
		r->live_stack++;

	const struct map *leaf = nr > 0 ? maps__find(p->maps, r->ips[0]) : NULL;
	uint32_t obj = strtab__intern(&r->objs, leaf && leaf->path ? basename_of(leaf->path) : "[unknown]");
	if (obj >= r->nr_quality) {
		size_t nq = (obj + 1) * 2;
		r->quality = pp_xrealloc(r->quality, nq * sizeof(*r->quality));
		memset(r->quality + r->nr_quality, 0, (nq - r->nr_quality) * sizeof(*r->quality));
		r->nr_quality = nq;
	}
	r->quality[obj].samples++;
	r->quality[obj].ends[res.end]++;
	if (res.end == UNWIND_COMPLETE) {
		r->quality[obj].complete++;
		r->complete++;
		return n;
	}
	/* An incomplete stack says why at its outer end. */
	char why[300];
	switch (res.end) {
	case UNWIND_NO_CFI:
		snprintf(why, sizeof(why), "[no-cfi %s]", res.end_dso ? res.end_dso : "?");
		break;
	case UNWIND_UNMAPPED:
		snprintf(why, sizeof(why), "[unmapped]");
		break;
	case UNWIND_ERROR:
		snprintf(why, sizeof(why), "[unwind-error%s%s]", res.end_dso ? " " : "", res.end_dso ? res.end_dso : "");
		break;
	default:	/* truncated, max-depth */
		snprintf(why, sizeof(why), "[truncated]");
		break;
	}
	fr[n++] = frametab__special(r->frames, why);
	return n;
}

static int quality_cmp(const void *a, const void *b, void *arg)
{
	const struct quality *q = arg;
	uint64_t x = q[*(const uint32_t *)a].samples, y = q[*(const uint32_t *)b].samples;
	return x < y ? 1 : x > y ? -1 : 0;
}

static void print_unwind_quality(const struct record *r)
{
	if (!r->unwound)
		return;
	fprintf(stderr, "pprobe record: %s unwinding: %llu user stacks, %.1f%% complete, %.1f us per stack%s\n",
		unwind_backend__str(r->backend), (unsigned long long)r->unwound,
		100.0 * (double)r->complete / (double)r->unwound,
		(double)r->unwind_ns / 1e3 / (double)r->unwound,
		r->live_stack ? ", some completed from the live stack" : "");
	uint32_t *ids = pp_xmalloc(r->objs.nr * sizeof(*ids) + 1);
	for (uint32_t i = 0; i < r->objs.nr; i++)
		ids[i] = i;
	qsort_r(ids, r->objs.nr, sizeof(*ids), quality_cmp, r->quality);
	for (size_t k = 0; k < r->objs.nr && k < 8; k++) {
		const struct quality *q = &r->quality[ids[k]];
		char reasons[256] = "";
		size_t len = 0;
		for (int e = UNWIND_TRUNCATED; e <= UNWIND_ERROR; e++)
			if (q->ends[e])
				len += (size_t)snprintf(reasons + len, sizeof(reasons) - len, "%s %llu %s",
							len ? "," : " (", (unsigned long long)q->ends[e],
							unwind_end__str((enum unwind_end)e));
		fprintf(stderr, "  %-28s %8llu stacks %6.1f%% complete%s%s\n", strtab__str(&r->objs, ids[k]),
			(unsigned long long)q->samples, 100.0 * (double)q->complete / (double)q->samples,
			reasons, len ? ")" : "");
	}
	free(ids);
}

struct evstate {
	struct stacktab *stacks;
	char *path;		/* its output, tried before the command starts */
	struct outfile out;
	bool shared;		/* another site of a probe: stacks are the first site's */
	char rate_buf[64];	/* "999 Hz", "every event", "every 1000 events" */
};

static void usage(FILE *f)
{
	fprintf(f,
"usage: pprobe record [options] [--] [command [args...]]\n"
"\n"
"Sample events and write folded stacks (one line per unique stack,\n"
"'comm;outermost;...;leaf COUNT', as flamegraph.pl reads them).\n"
"\n"
"Target (default: the command, counted from its exec):\n"
"  -a, --all-cpus          all online CPUs (a command then only bounds the duration)\n"
"  -C, --cpu LIST          these CPUs only, e.g. 0-1,3\n"
"  -p, --pid PID[,PID...]  existing processes, all their threads\n"
"  -t, --tid TID[,TID...]  existing threads\n"
"  -d, --duration SECS     stop after SECS seconds (SIGINT/SIGTERM also stop cleanly)\n"
"Events:\n"
"  -e, --event EVENT       repeatable, comma lists; default cpu-clock\n"
"                          software (cpu-clock, task-clock, page-faults, cs, ...),\n"
"                          tracepoints subsys:name with globs (sched:*), :u/:k modifiers,\n"
"                          probes (every hit sampled):\n"
PROBE_SPEC_HELP("                            ")
"  -x, --exec BIN          probe:FUNC[+OFF|:LINE|%%return] means a uprobe in BIN\n"
"  -F, --freq HZ           samples per second (default 999 for clock events)\n"
"  -c, --count PERIOD      one sample every PERIOD events (tracepoints: every event)\n"
"  -m, --mmap-pages N      ring pages per CPU (power of two; default sized to lose nothing)\n"
COLLECT_QUEUE_HELP
"Stacks:\n"
"  -g                      kernel callchains and DWARF-unwound user stacks\n"
"      --call-graph MODE   dwarf[,SIZE]: user stacks unwound with CFI from a SIZE-byte\n"
"                          stack copy (default 4096), completed from the live stack\n"
"                          when the copy ends early; fp: frame-pointer user stacks\n"
"      --unwinder NAME     libdw (default) or libunwind\n"
"      --hold-exits        with dwarf: hold each exiting thread of the command (ptrace\n"
"                          exit-stops) until its samples are unwound, so a process\n"
"                          that exits from deep in its stack keeps its last stacks\n"
"                          complete; the command cannot be ptraced by anything else\n"
"                          then (gdb, strace, LeakSanitizer)\n"
"Output:\n"
"  -o, --output FILE       default pprobe.folded; '-' for stdout; several events\n"
"                          write FILE's stem + .EVENT.folded each\n"
"      --format FMT        folded (default) or svg: an interactive flame graph\n"
"                          (the default when FILE ends in .svg)\n"
"      --weight KIND       samples (default) or period (sum the sample periods)\n"
"      --srcline           user frames with debug info as func:file.c:LINE (the\n"
"                          sampled line at the leaf, call sites above it)\n"
"  -q, --quiet             no summary, no live status\n"
"\n"
"Examples:\n"
"  pprobe record -g -- ./app                       # profile a command at 999 Hz\n"
"  pprobe record -e syscalls:sys_enter_write -g -a sleep 5\n"
"  pprobe record -g -x ./app -e probe:handle_request -- ./app   # who calls it\n"
"  pprobe record -g -p 1234 -d 10 -o app.folded && flamegraph.pl app.folded > app.svg\n");
}

static int on_sample(struct collect *c, struct evsel *ev, const struct sample *s,
		     struct thread *t, struct process *p)
{
	struct record *r = c->priv;
	struct evstate *es = ev->priv;
	uint32_t *fr = r->frame_buf;
	uint32_t n = 0;
	pid_t pid = (pid_t)s->pid;

	if (!es)
		return 0;
	if (r->cg != CG_NONE) {
		/* The kernel's callchain: kernel frames, and with fp the user
		 * frames too. Each context starts with its exact ip; the rest are
		 * return addresses. */
		uint64_t ctx = 0;
		bool first = true;
		for (uint64_t i = 0; i < s->callchain_nr && n < MAX_FRAMES; i++) {
			uint64_t ip = s->callchain[i];
			if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
				ctx = ip;
				first = true;
				continue;
			}
			if (ctx == (uint64_t)PERF_CONTEXT_KERNEL)
				fr[n++] = frametab__kernel(r->frames, ip, !first);
			else if (ctx == (uint64_t)PERF_CONTEXT_USER && r->cg == CG_FP)
				fr[n++] = frametab__user(r->frames, pid, p ? maps__find(p->maps, ip) : NULL, ip, !first);
			else
				continue;	/* hypervisor/guest contexts: not ours */
			first = false;
		}
		/* The kernel stops at sample_max_stack entries (markers count). */
		if (r->cg == CG_FP && s->callchain_nr >= r->max_stack) {
			fr[n++] = frametab__special(r->frames, "[truncated]");
			r->truncated++;
		}
		if (r->cg == CG_DWARF && s->regs_abi && s->regs && p && n < MAX_FRAMES)
			n += unwind_user(r, c, s, p, fr + n, MAX_FRAMES - n);
	} else {
		uint16_t mode = s->misc & PERF_RECORD_MISC_CPUMODE_MASK;
		if (mode == PERF_RECORD_MISC_KERNEL)
			fr[n++] = frametab__kernel(r->frames, s->ip, false);
		else
			fr[n++] = frametab__user(r->frames, pid, p ? maps__find(p->maps, s->ip) : NULL, s->ip, false);
	}
	stacktab__add(es->stacks, t ? t->comm : "[unknown]", fr, n, r->weight_period ? s->period : 1);
	return 0;
}

/* Open each executable file as it is mapped, while the process lives: a
 * deleted binary or one in another mount namespace is still readable then
 * (through /proc/PID/map_files or /proc/PID/root), not at the end. */
static void on_mmap(struct collect *c, pid_t pid, const struct map *m)
{
	struct record *r = c->priv;
	if ((m->prot & PROT_EXEC) && map__is_file(m))
		symbolizer__prepare(r->sym, pid, m);
}

static void on_process_gone(struct collect *c, pid_t pid)
{
	struct record *r = c->priv;
	if (r->unwinder)
		unwinder__forget(r->unwinder, pid);
}

/* -o FILE for one event; FILE's stem + ".EVENT.folded" (.svg) for each of several. */
static char *output_name(const char *out, const char *event, bool several, bool svg)
{
	if (!several)
		return pp_xstrdup(out);
	char ev[256];
	event_spec__file_name(event, ev, sizeof(ev));
	size_t len = strlen(out);
	const char *ext = svg ? ".svg" : ".folded";
	size_t el = strlen(ext);
	size_t stem = len > el && !strcmp(out + len - el, ext) ? len - el : len;
	size_t sz = stem + strlen(ev) + el + 3;
	char *name = pp_xmalloc(sz);
	snprintf(name, sz, "%.*s.%s%s", (int)stem, out, ev, ext);
	return name;
}

int cmd_record(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "event", required_argument, NULL, 'e' },
		COLLECT_TARGET_LONGOPTS,
		{ "freq", required_argument, NULL, 'F' },
		{ "count", required_argument, NULL, 'c' },
		{ "mmap-pages", required_argument, NULL, 'm' },
		COLLECT_QUEUE_LONGOPTS,
		{ "call-graph", required_argument, NULL, 'G' },
		{ "unwinder", required_argument, NULL, 'U' },
		{ "hold-exits", no_argument, NULL, 'H' },
		{ "srcline", no_argument, NULL, 'S' },
		{ "output", required_argument, NULL, 'o' },
		{ "weight", required_argument, NULL, 'W' },
		{ "format", required_argument, NULL, 'O' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "exec", required_argument, NULL, 'X' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct collect_opts co = { 0 };
	struct record rec = { 0 };
	struct collect c;
	const char **events = NULL;
	struct event_list evl;
	int nr_events = 0;
	const char *output = "pprobe.folded";
	const char *format = NULL;
	long freq = 0;
	unsigned long long period = 0;
	int ret = 0, opt;

	collect__init(&c);
	event_list__init(&evl);
	probe_spec__scan_exec_opt(argc, argv, "+e:aC:p:t:d:F:c:m:go:qx:h", longopts, false);
	optind = 1;
	while ((opt = getopt_long(argc, argv, "+e:aC:p:t:d:F:c:m:go:qx:h", longopts, NULL)) != -1) {
		char *end;
		int shared = collect_opts__parse(&co, opt, optarg, "pprobe record");
		if (shared < 0) {
			ret = 2;
			goto out;
		}
		if (shared)
			continue;
		switch (opt) {
		case 'e':
			events = pp_xrealloc(events, (size_t)(nr_events + 1) * sizeof(*events));
			events[nr_events++] = optarg;
			break;
		case 'F':
			freq = strtol(optarg, &end, 10);
			if (*end || freq <= 0) {
				fprintf(stderr, "pprobe record: bad frequency '%s' (Hz, e.g. 999)\n", optarg);
				ret = 2;
				goto out;
			}
			break;
		case 'c':
			period = strtoull(optarg, &end, 10);
			if (*end || period == 0) {
				fprintf(stderr, "pprobe record: bad period '%s' (a positive count)\n", optarg);
				ret = 2;
				goto out;
			}
			break;
		case 'g': rec.cg = CG_DWARF; break;
		case 'G':
			if (!strcmp(optarg, "fp")) {
				rec.cg = CG_FP;
			} else if (!strncmp(optarg, "dwarf", 5) && (optarg[5] == 0 || optarg[5] == ',')) {
				rec.cg = CG_DWARF;
				if (optarg[5] == ',') {
					unsigned long sz = strtoul(optarg + 6, &end, 0);
					if (*end || sz < 8 || sz > 65528) {
						fprintf(stderr, "pprobe record: dwarf stack size '%s' must be 8..65528 bytes\n",
							optarg + 6);
						ret = 2;
						goto out;
					}
					rec.stack_size = (uint32_t)(sz & ~7UL);	/* the kernel wants a multiple of 8 */
				}
			} else {
				fprintf(stderr, "pprobe record: unknown --call-graph mode '%s' (fp, dwarf[,SIZE])\n", optarg);
				ret = 2;
				goto out;
			}
			break;
		case 'U':
			if (unwind_backend__parse(optarg, &rec.backend)) {
				fprintf(stderr, "pprobe record: unknown unwinder '%s' (libdw, libunwind)\n", optarg);
				ret = 2;
				goto out;
			}
			break;
		case 'o': output = optarg; break;
		case 'H': rec.hold_exits = true; break;
		case 'S': rec.srcline = true; break;
		case 'W':
			if (!strcmp(optarg, "period"))
				rec.weight_period = true;
			else if (strcmp(optarg, "samples")) {
				fprintf(stderr, "pprobe record: --weight is 'samples' or 'period', not '%s'\n", optarg);
				ret = 2;
				goto out;
			}
			break;
		case 'O':
			if (strcmp(optarg, "folded") && strcmp(optarg, "svg")) {
				fprintf(stderr, "pprobe record: --format is 'folded' or 'svg', not '%s'\n", optarg);
				ret = 2;
				goto out;
			}
			format = optarg;
			break;
		case 'q': co.quiet = true; break;
		case 'x': case 'X': break;	/* probe_spec__scan_exec_opt() */
		case 'h': usage(stdout); goto out;
		default: usage(stderr); ret = 2;
				goto out;
		}
	}
	if (freq && period) {
		fprintf(stderr, "pprobe record: -F and -c exclude each other\n");
		ret = 2;
				goto out;
	}
	if ((co.pid_list != NULL) + (co.tid_list != NULL) > 1) {
		fprintf(stderr, "pprobe record: give either -p or -t\n");
		ret = 2;
				goto out;
	}
	if (optind < argc)
		co.argv = argv + optind;
	size_t olen = strlen(output);
	/* An .svg output name asks for the graph, unless --format says otherwise. */
	bool svg = format ? !strcmp(format, "svg") : olen > 4 && !strcmp(output + olen - 4, ".svg");
	if (!nr_events) {
		events = pp_xrealloc(events, sizeof(*events));
		events[nr_events++] = "cpu-clock";
	}

	rec.frames = frametab__new();
	strtab__init(&rec.objs);
	struct symbolizer_opts so;
	symbolizer_opts__init(&so);
	so.srcline = rec.srcline;
	rec.sym = symbolizer__new(&so);
	if (!rec.sym) {
		fprintf(stderr, "pprobe record: cannot set up the symbolizer: %s\n", strerror(errno));
		ret = 1;
		goto out;
	}
	rec.max_stack = 127;
	c.priv = &rec;
	c.on_sample = on_sample;
	c.on_mmap = on_mmap;
	for (int i = 0; i < nr_events; i++) {
		char err[1024];
		if (event_list__add(&evl, events[i], err, sizeof(err))) {
			fprintf(stderr, "pprobe record: %s\n", err);
			ret = 2;
			goto out;
		}
	}
	event_list__set_sampling(&evl, (uint64_t)freq, period);
	int nr_shown = 0;
	for (size_t i = 0; i < evl.nr; i++) {
		const struct event_spec *spec = &evl.v[i];
		struct evsel *ev = evlist__add(&c.evlist, spec->name, &spec->attr);
		struct evstate *es = pp_xcalloc(1, sizeof(*es));
		ev->spec = spec;
		if (spec->same_as > 0 && (size_t)spec->same_as <= i) {
			/* another site of a probe: its stacks go with the first's */
			es->stacks = ((struct evstate *)c.evlist.evsels[spec->same_as - 1]->priv)->stacks;
			es->shared = true;
		} else {
			es->stacks = stacktab__new(rec.frames);
			nr_shown++;
		}
		ev->priv = es;
		if (ev->attr.freq)
			snprintf(es->rate_buf, sizeof(es->rate_buf), "%llu Hz",
				 (unsigned long long)ev->attr.sample_freq);
		else if (ev->attr.sample_period == 1)
			snprintf(es->rate_buf, sizeof(es->rate_buf), "every event");
		else
			snprintf(es->rate_buf, sizeof(es->rate_buf), "every %llu events",
				 (unsigned long long)ev->attr.sample_period);
	}
	bool several = nr_shown > 1;
	if (several && !strcmp(output, "-")) {
		fprintf(stderr, "pprobe record: several events write one file each: give -o FILE, not '-'\n");
		ret = 2;
		goto out;
	}

	if (rec.cg != CG_NONE) {
		co.extra_sample_type |= PERF_SAMPLE_CALLCHAIN;
		co.max_stack = rec.max_stack;
	}
	if (rec.cg == CG_DWARF) {
		/* Kernel callchain from the kernel; the user stack unwound here from
		 * the registers and a copy of the top of the stack. */
		co.exclude_callchain_user = true;
		co.extra_sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		co.regs_user_mask = UNWIND_X86_SAMPLE_REGS_MASK;
		/* 4 KB, measured (test_unwind --sweep): with the live stack beyond
		 * the copy, 2 KB already completes 100% at depths 10 to 1000; 4 KB
		 * is twice that margin at half of perf's 8 KB per sample. */
		co.stack_user_size = rec.stack_size ? rec.stack_size : UNWIND_DEFAULT_STACK_COPY;
		rec.stack_size = co.stack_user_size;
		rec.unwinder = unwinder__new(rec.backend);
		if (!rec.unwinder) {
			fprintf(stderr, "pprobe record: cannot set up the %s unwinder: %s\n",
				unwind_backend__str(rec.backend), strerror(errno));
			ret = 1;
			goto out;
		}
		c.on_process_gone = on_process_gone;
		co.hold_exits = rec.hold_exits;
		/* Every ms a sample waits, its live stack may move on: folded
		 * stacks need the causal order only (see collect.h). */
		co.order_slack_us = 100;
	}
	/* Rings sized so a burst is absorbed while the drain thread copies it
	 * out: a sample with a DWARF stack copy weighs stack_size bytes. The
	 * kernel writes stack copies faster than a reader on another CPU can
	 * copy them out (about 1.8 GB/s measured here), so the ring takes the
	 * difference: of a 10,000-prctl burst (41 MB), 16 MB rings kept all in
	 * 4 runs of 6 on a loaded 2-CPU machine, 32 MB rings in 6 of 6.
	 * Those 32 MB are per CPU and locked: on a machine with many CPUs the
	 * DWARF default halves until all rings together take at most 512 MB
	 * (2048 pages at least: 8 MB, 64 CPUs). */
	if (!co.ring_pages) {	/* -m not given */
		co.ring_pages = rec.cg == CG_DWARF ? 8192 : rec.cg == CG_FP ? 1024 : 256;
		long ncpu = sysconf(_SC_NPROCESSORS_ONLN), psz = sysconf(_SC_PAGESIZE);
		while (rec.cg == CG_DWARF && co.ring_pages > 2048 && ncpu > 0 && psz > 0 &&
		       (uint64_t)co.ring_pages * (uint64_t)psz * (uint64_t)ncpu > (512ULL << 20))
			co.ring_pages /= 2;
	}
	co.status_prefix = "pprobe record";

	/* Every output is tried now (its temporary created beside it and
	 * removed): one that cannot be written is said before the command runs,
	 * not after its profile is taken. Not kept open: a run with many
	 * events needs its fds for them. */
	for (int i = 0; i < c.evlist.nr_evsels; i++) {
		struct evsel *ev = c.evlist.evsels[i];
		struct evstate *es = ev->priv;
		if (!es || es->shared)
			continue;
		es->path = output_name(output, ev->name, several, svg);
		if (outfile__open_or_say(&es->out, es->path, "pprobe record")) {
			ret = 1;
			goto out;
		}
		outfile__abort(&es->out);
	}

	ret = collect__prepare(&c, &co);
	if (ret)
		goto out;
	ret = collect__run(&c);
	if (ret)
		goto out;

	/* Symbolize the unique addresses once, then write each event's file. */
	frametab__symbolize(rec.frames, rec.sym);

	for (int i = 0; i < c.evlist.nr_evsels; i++) {
		struct evsel *ev = c.evlist.evsels[i];
		struct evstate *es = ev->priv;
		if (!es || es->shared)
			continue;
		uint64_t samples = ev->samples;
		int si = ev->spec ? (int)(ev->spec - evl.v) : -1;	/* evsels also hold the sideband dummy */
		for (int k = i + 1; k < c.evlist.nr_evsels; k++)
			if (si >= 0 && c.evlist.evsels[k]->spec && c.evlist.evsels[k]->spec->same_as == si + 1)
				samples += c.evlist.evsels[k]->samples;
		const char *path = es->path;
		struct outfile of;
		int err = outfile__open_or_say(&of, path, "pprobe record");
		if (err) {
			ret = 1;
			continue;
		}
		size_t lines;
		if (svg) {
			char title[300];
			snprintf(title, sizeof(title), "pprobe record: %s", ev->name);
			err = stacktab__write_svg(es->stacks, title, rec.weight_period ? "events" : "samples", of.f,
						  &lines);
			if (err) {
				fprintf(stderr, "pprobe record: drawing %s failed: %s\n", path, strerror(-err));
				outfile__abort(&of);
				ret = 1;
				continue;
			}
		} else {
			lines = stacktab__write_folded(es->stacks, of.f);
		}
		err = outfile__commit(&of);
		if (err) {
			fprintf(stderr, "pprobe record: writing %s failed: %s\n", path, strerror(-err));
			ret = 1;
		} else if (!co.quiet) {
			fprintf(stderr, "pprobe record: %s: %llu samples (%s), %zu unique stacks -> %s\n",
				ev->name, (unsigned long long)samples, es->rate_buf, lines,
				strcmp(path, "-") ? path : "stdout");
		}
	}
	if (!co.quiet) {
		char queue[96];
		collect__queue_summary(&c, queue, sizeof(queue));
		fprintf(stderr, "pprobe record: %.2f s, %llu samples, %llu lost records, %llu lost samples, %s%s\n",
			c.t_end - c.t_start, (unsigned long long)c.nr_samples, (unsigned long long)c.lost,
			(unsigned long long)c.lost_samples, queue,
			c.stop_signal ? " (stopped by signal)" : "");
		collect__report_lost(&c, "pprobe record");
		print_unwind_quality(&rec);
		if (rec.truncated)
			fprintf(stderr, "pprobe record: %llu stacks deeper than %u frames ended in [truncated]\n",
				(unsigned long long)rec.truncated, rec.max_stack);
		if (c.bad_records)
			fprintf(stderr, "pprobe record: %llu malformed records skipped\n",
				(unsigned long long)c.bad_records);
		if (c.unknown_id)
			fprintf(stderr, "pprobe record: %llu samples of no event of ours skipped\n",
				(unsigned long long)c.unknown_id);
		if (c.throttled)
			fprintf(stderr, "pprobe record: the kernel throttled sampling %llu times "
				"(kernel.perf_event_max_sample_rate); a lower -F avoids it\n",
				(unsigned long long)c.throttled);
		if (c.queue.out_of_order)
			fprintf(stderr, "pprobe record: %llu records arrived after newer ones were "
				"processed (delivered late, out of order)\n",
				(unsigned long long)c.queue.out_of_order);
	}
out:
	for (int i = 0; i < c.evlist.nr_evsels; i++) {
		struct evstate *es = c.evlist.evsels[i]->priv;
		if (es) {
			if (!es->shared)
				stacktab__delete(es->stacks);
			free(es->path);
			free(es);
		}
	}
	collect__cleanup(&c);
	if (!ret)
		ret = collect__exit_status(&c);
	frametab__delete(rec.frames);
	symbolizer__delete(rec.sym);
	unwinder__delete(rec.unwinder);
	strtab__free(&rec.objs);
	free(rec.quality);
	event_list__exit(&evl);
	free(events);
	return ret;
}
