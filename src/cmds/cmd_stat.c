/* pprobe stat: count events (no sampling) for a command, processes, threads
 * or CPUs; scaled for multiplexing, with derived metrics, intervals and
 * repeats. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect.h"
#include "commands.h"
#include "event_spec.h"
#include "probe_spec.h"
#include "stat_format.h"

static void usage(FILE *f)
{
	fprintf(f,
"usage: pprobe stat [-e EVENTS] [options] [--] [command [args...]]\n"
"\n"
"Count events: exact for software events, tracepoints and probes; hardware\n"
"counters scaled by time_enabled/time_running when multiplexed (the running\n"
"percentage is shown).\n"
"\n"
"  -e, --event EVENTS    comma lists, repeatable, {a,b} groups; default: task-clock,\n"
"                        context-switches, cpu-migrations, page-faults (and the\n"
"                        hardware events where a PMU exists); probes count hits:\n"
PROBE_SPEC_HELP("                          ")
"                        a function's inlined copies are counted together\n"
"  -a, -C LIST, -p PID, -t TID   all CPUs, some CPUs, processes, threads\n"
"  -d, --duration SECS   stop after SECS seconds\n"
"  -I, --interval-print MS   print counts every MS milliseconds\n"
"  -r, --repeat N        run the command N times: mean and spread\n"
"  -x, --field-separator SEP  CSV: value,unit,event,runtime,running%%,metric,metric-unit\n"
"  -x, --exec BIN        (when BIN names a binary: a file, or a library or program\n"
"                        found by name) probe:FUNC[+OFF|:LINE|%%return] means a uprobe in BIN\n"
"      --json            one JSON object per counter\n"
"  -o, --output FILE     write there instead of stderr\n"
"\n"
"Examples:\n"
"  pprobe stat -- ./app\n"
"  pprobe stat -e syscalls:sys_enter_write,cs -a -d 5\n"
"  pprobe stat -e '{cycles,instructions}' -r 5 -- ./bench\n"
"  pprobe stat -e uprobe:libc.so.6:malloc,uretprobe:./app:parse -- ./app\n");
}

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

/* -I: the counts since the previous interval, then remember these. */
static void print_interval(const struct stat_print *pp_in, const struct event_list *evl, double ts, double interval_s,
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
	fflush(pp.out);
	memcpy(prev, counts, n * sizeof(*prev));
	free(d);
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
			print_interval(pp_in, evl, now - c.t_start, interval_ms / 1e3, counts, prev, evl->nr);
			next += interval_ms / 1e3;
		}
		if (deadline && now >= deadline)
			break;
	}
	evlist__disable(&c.evlist);
	read_counts(&c, counts);
	*elapsed = now_seconds() - c.t_start;
	if (prev) {
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

int cmd_stat(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "event", required_argument, NULL, 'e' },
		COLLECT_TARGET_LONGOPTS,
		{ "interval-print", required_argument, NULL, 'I' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "field-separator", required_argument, NULL, 'x' },
		{ "json", no_argument, NULL, 'J' },
		{ "output", required_argument, NULL, 'o' },
		{ "exec", required_argument, NULL, 'X' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct collect_opts co = { 0 };
	struct event_list evl;
	struct stat_print pp = { .style = STAT_HUMAN, .sep = ",", .interval_ts = -1 };
	double interval_ms = 0;
	long repeat = 1;
	const char *output = NULL;
	int ret = 0, opt, child_status = 0;
	struct stat_count *counts = NULL, *acc = NULL;
	double *sumsq = NULL;
	struct outfile of = { 0 };

	event_list__init(&evl);
	probe_spec__scan_exec_opt(argc, argv, "+e:aC:p:t:d:I:r:x:o:h", longopts, true);
	optind = 1;
	while ((opt = getopt_long(argc, argv, "+e:aC:p:t:d:I:r:x:o:h", longopts, NULL)) != -1) {
		char *end;
		char err[1024];
		int shared = collect_opts__parse(&co, opt, optarg, "pprobe stat");
		if (shared < 0) {
			ret = 2;
			goto out;
		}
		if (shared)
			continue;
		switch (opt) {
		case 'e':
			if (event_list__add(&evl, optarg, err, sizeof(err))) {
				fprintf(stderr, "pprobe stat: %s\n", err);
				ret = 2;
				goto out;
			}
			break;
		case 'I':
			interval_ms = strtod(optarg, &end);
			if (*end || interval_ms < 10) {
				fprintf(stderr, "pprobe stat: -I wants milliseconds >= 10, got '%s'\n", optarg);
				ret = 2;
				goto out;
			}
			break;
		case 'r':
			repeat = strtol(optarg, &end, 10);
			if (*end || repeat < 1) {
				fprintf(stderr, "pprobe stat: -r wants a positive count, got '%s'\n", optarg);
				ret = 2;
				goto out;
			}
			break;
		case 'x':
			if (probe_spec__is_binary_arg(optarg))
				break;	/* -x BINARY: probe_spec__scan_exec_opt() */
			pp.style = STAT_CSV;
			pp.sep = optarg;
			break;
		case 'X': break;	/* --exec BINARY */
		case 'J': pp.style = STAT_JSON; break;
		case 'o': output = optarg; break;
		case 'h': usage(stdout); goto out;
		default: usage(stderr); ret = 2; goto out;
		}
	}
	if (optind < argc)
		co.argv = argv + optind;
	if (repeat > 1 && !co.argv) {
		fprintf(stderr, "pprobe stat: -r repeats a command: give one\n");
		ret = 2;
		goto out;
	}
	if (!evl.nr) {
		char err[256];
		/* perf's default set, without the hardware events this machine may lack. */
		event_list__add(&evl, "task-clock,context-switches,cpu-migrations,page-faults", err, sizeof(err));
		if (access("/sys/bus/event_source/devices/cpu", F_OK) == 0)
			event_list__add(&evl, "cycles,instructions,branches,branch-misses", err, sizeof(err));
	}
	/* Thousands separators as the locale says, as perf stat does, but only
	 * for people: CSV and JSON keep C's numbers for the programs that read them. */
	if (pp.style == STAT_HUMAN)
		setlocale(LC_NUMERIC, "");
	co.counting = true;
	co.quiet = true;
	if (output) {
		if (outfile__open_or_say(&of, output, "pprobe stat")) {
			ret = 1;
			goto out;
		}
		pp.out = of.f;
	} else {
		pp.out = stderr;
	}

	counts = pp_xcalloc(evl.nr, sizeof(*counts));
	acc = pp_xcalloc(evl.nr, sizeof(*acc));
	sumsq = pp_xcalloc(evl.nr, sizeof(*sumsq));
	double elapsed = 0, elapsed_sum = 0;
	for (long r = 0; r < repeat; r++) {
		for (size_t i = 0; i < evl.nr; i++) {
			counts[i].name = evl.v[i].name;
			counts[i].type = evl.v[i].attr.type;
			counts[i].config = evl.v[i].attr.config;
		}
		ret = stat_once(&evl, &co, interval_ms, &pp, counts, &elapsed, &child_status);
		if (ret)
			goto out;
		elapsed_sum += elapsed;
		for (size_t i = 0; i < evl.nr; i++) {
			double v = stat_count__scaled(&counts[i]);
			acc[i].mean += v;
			sumsq[i] += v * v;
			acc[i].value += counts[i].value;
			acc[i].enabled += counts[i].enabled;
			acc[i].running += counts[i].running;
		}
	}
	if (repeat > 1) {
		for (size_t i = 0; i < evl.nr; i++) {
			double mean = acc[i].mean / (double)repeat;
			double var = sumsq[i] / (double)repeat - mean * mean;
			counts[i].mean = mean;
			counts[i].stddev = var > 0 ? sqrt(var * (double)repeat / (double)(repeat - 1)) : 0;
			counts[i].runs = (int)repeat;
			counts[i].enabled = acc[i].enabled;
			counts[i].running = acc[i].running;
		}
		elapsed = elapsed_sum / (double)repeat;
	}

	pp.elapsed = elapsed;
	if (pp.style == STAT_HUMAN && interval_ms <= 0) {
		/* What was counted: a target named by option wins over a command
		 * that only bounds the duration (as perf stat). */
		fprintf(pp.out, "\n Performance counter stats for ");
		if (co.pid_list) {
			fprintf(pp.out, "process id '%s'", co.pid_list);
		} else if (co.tid_list) {
			fprintf(pp.out, "thread id '%s'", co.tid_list);
		} else if (co.cpu_list) {
			fprintf(pp.out, "CPU(s) %s", co.cpu_list);
		} else if (co.system_wide) {
			fprintf(pp.out, "'system wide'");
		} else {
			fprintf(pp.out, "'");
			for (char **a = co.argv; *a; a++)
				fprintf(pp.out, "%s%s", a == co.argv ? "" : " ", *a);
			fprintf(pp.out, "'");
		}
		if (repeat > 1)
			fprintf(pp.out, " (%ld runs)", repeat);
		fprintf(pp.out, ":\n\n");
	}
	if (interval_ms <= 0)	/* with -I the intervals are the output */
		print_counts(&pp, &evl, counts, evl.nr);
	if (pp.style == STAT_HUMAN && interval_ms <= 0)
		fprintf(pp.out, "\n%20.9f seconds time elapsed\n\n", elapsed);
	ret = child_status;
out:
	if (of.f) {
		if (outfile__commit(&of) && !ret) {
			fprintf(stderr, "pprobe stat: writing %s failed\n", output);
			ret = 1;
		}
	}
	free(counts);
	free(acc);
	free(sumsq);
	event_list__exit(&evl);
	return ret;
}
