/* pprobe stat: count events (no sampling) for a command, processes, threads
 * or CPUs; scaled for multiplexing, with derived metrics, intervals and
 * repeats. */
#define _GNU_SOURCE
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect.h"
#include "util.h"
#include "commands.h"
#include "options.h"
#include "event_spec.h"
#include "target_opts.h"
#include "stat_format.h"

struct stat_run {
	struct stat_count *counts;
	size_t n;
};

/* Sum every fd of each event: value, enabled, running. */
static void read_counts(struct collect *c, struct stat_count *counts)
{
	struct evlist *el = &c->evlist;
	for (int e = 0; e < el->nr_evsels; e++) {
		struct stat_count *sc = &counts[e];
		sc->value = sc->enabled = sc->running = 0;
		if (el->evsels[e]->open_errno) {
			sc->supported = false;
			continue;
		}
		for (int ci = 0; ci < el->nr_cpus; ci++)
			for (int t = 0; t < el->nr_tids; t++) {
				int fd = evlist__fd_of(el, ci, t, e);
				uint64_t v[3];
				if (fd < 0 || read(fd, v, sizeof(v)) != (ssize_t)sizeof(v))
					continue;
				sc->value += v[0];
				sc->enabled += v[1];
				sc->running += v[2];
			}
		sc->supported = !(sc->enabled && !sc->running);
	}
	/* Other sites of one probe (inlined copies, a line's addresses) count
	 * with the first. */
	for (int e = 0; e < el->nr_evsels; e++) {
		const struct event_spec *sp = el->evsels[e]->spec;
		if (!sp || sp->same_as <= 0 || sp->same_as > el->nr_evsels)
			continue;
		struct stat_count *to = &counts[sp->same_as - 1];
		to->value += counts[e].value;
		to->enabled += counts[e].enabled;
		to->running += counts[e].running;
		counts[e].value = counts[e].enabled = counts[e].running = 0;
	}
}

/* Print the counts of the events shown: not the other sites of a probe. */
static void print_counts(const struct stat_print *pp, const struct event_list *evl,
			 const struct stat_count *counts, size_t n)
{
	struct stat_count *v = pp_xcalloc(n ? n : 1, sizeof(*v));
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (i >= evl->nr || evl->v[i].same_as <= 0)
			v[k++] = counts[i];
	stat_print__counts(pp, v, k);
	free(v);
}

/* -I: the counts since the previous interval, then remember these.
 * Returns 0, or the errno of a failed write (EPIPE: nobody reads on). */
static int print_interval(const struct stat_print *pp_in, const struct event_list *evl, double ts, double interval_s,
			   const struct stat_count *counts, struct stat_count *prev, size_t n)
{
	struct stat_count *d = pp_xcalloc(n, sizeof(*d));
	for (size_t i = 0; i < n; i++) {
		d[i] = counts[i];
		d[i].value -= prev[i].value;
		d[i].enabled -= prev[i].enabled;
		d[i].running -= prev[i].running;
	}
	struct stat_print pp = *pp_in;
	pp.interval_ts = ts;
	pp.elapsed = interval_s;
	print_counts(&pp, evl, d, n);
	int err = 0;
	if (fflush(pp.out) || ferror(pp.out))
		err = stream__write_errno(pp.out);
	memcpy(prev, counts, n * sizeof(*prev));
	free(d);
	return err;
}

static int stat_once(const struct event_list *evl, const struct collect_opts *co, double interval_ms,
		     const struct stat_print *pp_in, struct stat_count *counts, double *elapsed, int *child_status)
{
	struct collect c;
	int ret;
	collect__init(&c);
	for (size_t i = 0; i < evl->nr; i++) {
		struct evsel *ev = evlist__add(&c.evlist, evl->v[i].name, &evl->v[i].attr);
		ev->spec = &evl->v[i];
		ev->group_leader = evl->v[i].group_leader;
	}
	ret = collect__prepare(&c, co);
	if (ret)
		goto out;
	/* What cannot be counted here is said, and the rest is counted. */
	int opened = 0;
	for (int e = 0; e < c.evlist.nr_evsels; e++) {
		const struct evsel *ev = c.evlist.evsels[e];
		if (!ev->open_errno) {
			opened++;
			continue;
		}
		char msg[1024];
		event_spec__explain_open_error(ev->spec, ev->open_errno, msg, sizeof(msg));
		fprintf(stderr, "pprobe stat: %s\n", msg);
	}
	if (!opened) {
		fprintf(stderr, "pprobe stat: none of the events can be counted\n");
		ret = 1;
		goto out;
	}
	collect__watch_output(&c, fileno(pp_in->out));
	ret = collect__start(&c);
	if (ret)
		goto out;
	double deadline = co->duration > 0 ? c.t_start + co->duration : 0;
	double next = interval_ms > 0 ? c.t_start + interval_ms / 1e3 : 0;
	struct stat_count *prev = interval_ms > 0 ? pp_xcalloc(evl->nr, sizeof(*prev)) : NULL;
	while (!c.stop) {
		double now = now_seconds();
		double wake = 3600;
		if (c.nr_target_pids)
			wake = 0.1;	/* -p/-t: notice soon when the targets are gone */
		if (deadline && deadline - now < wake)
			wake = deadline - now;
		if (next && next - now < wake)
			wake = next - now;
		if (wake > 0)
			collect__wait(&c, (int)(wake * 1000) + 1);
		now = now_seconds();
		if (next && now >= next) {
			read_counts(&c, counts);
			int err = print_interval(pp_in, evl, now - c.t_start, interval_ms / 1e3, counts, prev, evl->nr);
			if (err)
				collect__output_error(&c, err);
			next += interval_ms / 1e3;
		}
		if (deadline && now >= deadline)
			break;
	}
	evlist__disable(&c.evlist);
	read_counts(&c, counts);
	*elapsed = now_seconds() - c.t_start;
	if (c.out_err) {
		free(prev);
		if (c.out_err == EPIPE) {
			ret = CMD_EXIT_SIGPIPE;	/* the command, if any, is let go */
		} else {
			fprintf(stderr, "pprobe stat: writing the counts failed: %s\n", strerror(c.out_err));
			ret = 1;
		}
	} else if (prev) {
		/* The last, partial interval: the intervals add up to the total. */
		double last = next - interval_ms / 1e3;
		print_interval(pp_in, evl, *elapsed, *elapsed - (last - c.t_start), counts, prev, evl->nr);
		free(prev);
	}
out:
	collect__cleanup(&c);
	*child_status = collect__exit_status(&c);
	return ret;
}

/* ---- options ---- */

struct stat_opts {
	struct collect_opts co;
	struct opt_list events;		/* -e */
	const char *exec;		/* --exec */
	const char *output;
	const char *sep;		/* -x */
	int style;			/* enum stat_style: the last of -x and --json */
	double interval_ms;
	long repeat;
};

static int parse_interval(const struct opt *o, void *opts, const char *arg, char *err, size_t errlen)
{
	(void)o;
	char *end;
	double v = strtod(arg, &end);
	if (end == arg || *end || !(v >= 10))
		return seterr(err, errlen, "-I wants milliseconds >= 10, got '%s'", arg), -EINVAL;
	((struct stat_opts *)opts)->interval_ms = v;
	return 0;
}

static int parse_repeat(const struct opt *o, void *opts, const char *arg, char *err, size_t errlen)
{
	(void)o;
	char *end;
	long v = strtol(arg, &end, 10);
	if (end == arg || *end || v < 1)
		return seterr(err, errlen, "-r wants a positive count, got '%s'", arg), -EINVAL;
	((struct stat_opts *)opts)->repeat = v;
	return 0;
}

static int parse_separator(const struct opt *o, void *opts, const char *arg, char *err, size_t errlen)
{
	(void)o, (void)err, (void)errlen;
	struct stat_opts *so = opts;
	so->sep = arg;
	so->style = STAT_CSV;
	return 0;
}

#define S struct stat_opts
static const struct opt stat_table[] = {
	OPT_GROUP("Events:"),
	OPT_LIST('e', "event", "EVENTS", S, events,
		 "comma lists, repeatable, {a,b} groups; default: task-clock, context-switches, "
		 "cpu-migrations, page-faults (and the hardware events where a PMU exists); probes count "
		 "hits, a function's inlined copies together:\n"
		 PROBE_FORMS_HELP("--exec")),
	OPT_STRING(0, "exec", "BIN", S, exec,
		   "probe:FUNC[+OFF|:LINE|%return] and sdt_PROVIDER:NAME are probes in BIN (in stat, -x is "
		   "the CSV separator, as in perf stat)"),
	OPT_GROUP("Target (default: the command, counted from its exec):"),
	TARGET_OPTS(S, co),
	OPT_FN('I', "interval-print", "MS", S, interval_ms, parse_interval, "print counts every MS milliseconds"),
	OPT_FN('r', "repeat", "N", S, repeat, parse_repeat, "run the command N times: mean and spread"),
	OPT_GROUP("Output:"),
	OPT_FN('x', "field-separator", "SEP", S, sep, parse_separator,
	       "CSV, fields separated by SEP: value,unit,event,runtime,running%,metric,metric-unit"),
	OPT_SET(0, "json", S, style, STAT_JSON, "one JSON object per counter"),
	OPT_STRING('o', "output", "FILE", S, output, "write there instead of stderr"),
	OPT_END(),
};
#undef S

const struct cmd_def stat_cmd = {
	.name = "stat",
	.prog = "pprobe stat",
	.summary = "count events: exact totals, rates, intervals, repeats",
	.usage = "pprobe stat [-e EVENTS] [options] [--] [command [args...]]",
	.about = "Count events: exact for software events, tracepoints and probes; hardware counters scaled "
		 "by time_enabled/time_running when multiplexed (the running percentage is shown).",
	.opts = stat_table,
	.footer =
"Examples:\n"
"  pprobe stat -- ./app\n"
"  pprobe stat -e syscalls:sys_enter_write,cs -a -d 5\n"
"  pprobe stat -e '{cycles,instructions}' -r 5 -- ./bench\n"
"  pprobe stat -x, -e uprobe:libc.so.6:malloc,uretprobe:./app:parse -- ./app\n"
"  pprobe stat --exec ./app -e probe:handle:12 -- ./app\n",
};

/* ---- the command ---- */

/* -e, or perf's default set without the hardware events this machine may
 * lack. 0, or 2 after saying why. */
static int add_events(const struct stat_opts *o, struct event_list *evl)
{
	char err[1024];
	evl->ctx.exec = o->exec;
	evl->ctx.pids = o->co.pid_list;
	for (size_t i = 0; i < o->events.nr; i++) {
		const char *ev = o->events.v[i].arg;
		if (event_list__add(evl, ev, err, sizeof(err))) {
			/* -x is the separator here: a binary meant for probe: is --exec */
			bool hint = o->sep && !o->exec && (strstr(ev, "probe:") || strstr(ev, "sdt_"));
			fprintf(stderr, "pprobe stat: %s%s\n", err,
				hint ? " (in stat, -x is the CSV separator; give a probe's binary as --exec BIN)" : "");
			return 2;
		}
	}
	if (!evl->nr) {
		event_list__add(evl, "task-clock,context-switches,cpu-migrations,page-faults", err, sizeof(err));
		if (access("/sys/bus/event_source/devices/cpu", F_OK) == 0)
			event_list__add(evl, "cycles,instructions,branches,branch-misses", err, sizeof(err));
	}
	return 0;
}

/* -r N: N runs, counts[] their means and spread; one run: its counts. 0,
 * or what stat_once() returned; *child_status the command's. */
static int stat_runs(const struct stat_opts *o, const struct event_list *evl, const struct stat_print *pp,
		     struct stat_count *counts, double *elapsed, int *child_status)
{
	struct stat_count *acc = pp_xcalloc(evl->nr, sizeof(*acc));
	double *sumsq = pp_xcalloc(evl->nr, sizeof(*sumsq));
	double elapsed_sum = 0;
	long repeat = o->repeat;
	int ret = 0;
	for (long r = 0; r < repeat; r++) {
		for (size_t i = 0; i < evl->nr; i++) {
			counts[i].name = evl->v[i].name;
			counts[i].type = evl->v[i].attr.type;
			counts[i].config = evl->v[i].attr.config;
		}
		ret = stat_once(evl, &o->co, o->interval_ms, pp, counts, elapsed, child_status);
		if (ret)
			goto out;
		elapsed_sum += *elapsed;
		for (size_t i = 0; i < evl->nr; i++) {
			double v = stat_count__scaled(&counts[i]);
			acc[i].mean += v;
			sumsq[i] += v * v;
			acc[i].value += counts[i].value;
			acc[i].enabled += counts[i].enabled;
			acc[i].running += counts[i].running;
		}
	}
	if (repeat > 1) {
		for (size_t i = 0; i < evl->nr; i++) {
			double mean = acc[i].mean / (double)repeat;
			double var = sumsq[i] / (double)repeat - mean * mean;
			counts[i].mean = mean;
			counts[i].stddev = var > 0 ? sqrt(var * (double)repeat / (double)(repeat - 1)) : 0;
			counts[i].runs = (int)repeat;
			counts[i].enabled = acc[i].enabled;
			counts[i].running = acc[i].running;
		}
		*elapsed = elapsed_sum / (double)repeat;
	}
out:
	free(acc);
	free(sumsq);
	return ret;
}

/* The human-readable header: what was counted. A target named by option
 * wins over a command that only bounds the duration (as perf stat). */
static void print_header(FILE *out, const struct stat_opts *o)
{
	const struct collect_opts *co = &o->co;
	fprintf(out, "\n Performance counter stats for ");
	if (co->pid_list) {
		fprintf(out, "process id '%s'", co->pid_list);
	} else if (co->tid_list) {
		fprintf(out, "thread id '%s'", co->tid_list);
	} else if (co->cpu_list) {
		fprintf(out, "CPU(s) %s", co->cpu_list);
	} else if (co->system_wide) {
		fprintf(out, "'system wide'");
	} else {
		fprintf(out, "'");
		for (char **a = co->argv; *a; a++)
			fprintf(out, "%s%s", a == co->argv ? "" : " ", *a);
		fprintf(out, "'");
	}
	if (o->repeat > 1)
		fprintf(out, " (%ld runs)", o->repeat);
	fprintf(out, ":\n\n");
}

int cmd_stat(int argc, char **argv)
{
	struct stat_opts o = { .style = STAT_HUMAN, .repeat = 1 };
	struct event_list evl;
	int ret = 0, child_status = 0;
	struct stat_count *counts = NULL;
	struct outfile of = { 0 };

	int n = opts__parse(&stat_cmd, argc, argv, &o);
	if (n < 0) {
		opt_list__free(&o.events);
		return opts__exit_status(n);
	}
	if (n < argc)
		o.co.argv = argv + n;
	if (o.repeat > 1 && !o.co.argv) {
		opt_list__free(&o.events);
		return opts__usage_error(&stat_cmd, "-r repeats a command: give one");
	}
	struct stat_print pp = { .style = (enum stat_style)o.style, .sep = o.sep ? o.sep : ",", .interval_ts = -1 };
	event_list__init(&evl);
	ret = add_events(&o, &evl);
	if (ret)
		goto out;
	/* Thousands separators as the locale says, as perf stat does, but only
	 * for people: CSV and JSON keep C's numbers for the programs that read them. */
	if (pp.style == STAT_HUMAN)
		setlocale(LC_NUMERIC, "");
	o.co.counting = true;
	o.co.quiet = true;
	if (o.output) {
		if (outfile__open_or_say(&of, o.output, "pprobe stat")) {
			ret = 1;
			goto out;
		}
		pp.out = of.f;
	} else {
		pp.out = stderr;
	}

	counts = pp_xcalloc(evl.nr, sizeof(*counts));
	double elapsed = 0;
	ret = stat_runs(&o, &evl, &pp, counts, &elapsed, &child_status);
	if (ret)
		goto out;
	pp.elapsed = elapsed;
	if (pp.style == STAT_HUMAN && o.interval_ms <= 0)
		print_header(pp.out, &o);
	if (o.interval_ms <= 0)	/* with -I the intervals are the output */
		print_counts(&pp, &evl, counts, evl.nr);
	if (pp.style == STAT_HUMAN && o.interval_ms <= 0)
		fprintf(pp.out, "\n%20.9f seconds time elapsed\n\n", elapsed);
	ret = child_status;
out:
	if (of.f) {
		if (outfile__commit(&of) && !ret) {
			fprintf(stderr, "pprobe stat: writing %s failed\n", o.output);
			ret = 1;
		}
	}
	free(counts);
	event_list__exit(&evl);
	opt_list__free(&o.events);
	return ret;
}
