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
#include "collect_say.h"
#include "util.h"
#include "pprobe/safe_open.h"
#include "commands.h"
#include "options.h"
#include "event_spec.h"
#include "target_opts.h"
#include "stat_format.h"
#include "topology.h"

/* The rows of an aggregation mode (-A, --per-core, ..., --per-thread):
 * each counted unit (a CPU of -a/-C, a thread of -p/-t) with its counts,
 * summed into rows by the unit's topology id. */
struct stat_aggr {
	enum aggr_mode mode;		/* AGGR_GLOBAL: none of this */
	int cache_level;		/* --per-cache=L#: 1..9, 0 the last level */
	struct aggr_id *cpu_ids;	/* indexed by CPU number: its ids in mode */
	int max_cpu;			/* cpu_ids has max_cpu + 1 entries */
	/* of the last run (stat_once): */
	int nr_units;
	int *unit_cpu;			/* CPU modes: each unit's CPU number */
	char **unit_label;		/* --per-thread: each unit's "comm-TID" */
	struct stat_count *units;	/* [e * nr_units + u] */
};

static void stat_aggr__free_run(struct stat_aggr *a)
{
	for (int u = 0; a->unit_label && u < a->nr_units; u++)
		free(a->unit_label[u]);
	free(a->unit_label);
	free(a->unit_cpu);
	free(a->units);
	a->unit_label = NULL;
	a->unit_cpu = NULL;
	a->units = NULL;
	a->nr_units = 0;
}

/* The units of this run, right after the events are opened: the CPUs or
 * threads of the evlist, a thread's comm read while it lives. */
static void stat_aggr__start_run(struct stat_aggr *a, const struct evlist *el, size_t nr_events)
{
	stat_aggr__free_run(a);
	if (a->mode == AGGR_GLOBAL)
		return;
	if (a->mode == AGGR_THREAD) {
		a->nr_units = el->nr_tids;
		a->unit_label = pp_xcalloc((size_t)a->nr_units, sizeof(char *));
		for (int t = 0; t < el->nr_tids; t++) {
			char path[64], comm[64] = "";
			snprintf(path, sizeof(path), "/proc/%d/comm", el->tids[t]);
			FILE *f = fopen(path, "re");
			if (!f || !fgets(comm, sizeof(comm), f))
				snprintf(comm, sizeof(comm), "%s", "[unknown]");
			if (f)
				fclose(f);
			comm[strcspn(comm, "\n")] = 0;
			char label[96];
			snprintf(label, sizeof(label), "%s-%d", comm, el->tids[t]);
			a->unit_label[t] = pp_xstrdup(label);
		}
	} else {
		a->nr_units = el->nr_cpus;
		a->unit_cpu = pp_xmalloc((size_t)a->nr_units * sizeof(int));
		memcpy(a->unit_cpu, el->cpus, (size_t)a->nr_units * sizeof(int));
	}
	a->units = pp_xcalloc(nr_events * (size_t)a->nr_units, sizeof(*a->units));
}

static void count_add(struct stat_count *to, const struct stat_count *from)
{
	to->value += from->value;
	to->enabled += from->enabled;
	to->running += from->running;
}

/* Sum every fd of each event: value, enabled, running; with an
 * aggregation mode also each unit's (CPU's or thread's) into a->units. */
static void read_counts(struct collect *c, struct stat_count *counts, struct stat_aggr *a)
{
	struct evlist *el = &c->evlist;
	int nu = a->units ? a->nr_units : 0;
	for (int e = 0; e < el->nr_evsels; e++) {
		struct stat_count *sc = &counts[e];
		sc->value = sc->enabled = sc->running = 0;
		for (int u = 0; u < nu; u++)
			a->units[(size_t)e * nu + u] = (struct stat_count){ .name = sc->name, .type = sc->type,
									    .config = sc->config };
		if (el->evsels[e]->open_errno) {
			sc->supported = false;
			for (int u = 0; u < nu; u++)
				a->units[(size_t)e * nu + u].supported = false;
			continue;
		}
		for (int ci = 0; ci < el->nr_cpus; ci++)
			for (int t = 0; t < el->nr_tids; t++) {
				int fd = evlist__fd_of(el, ci, t, e);
				uint64_t v[3];
				if (fd < 0 || read(fd, v, sizeof(v)) != (ssize_t)sizeof(v))
					continue;
				struct stat_count one = { .value = v[0], .enabled = v[1], .running = v[2] };
				count_add(sc, &one);
				if (nu)
					count_add(&a->units[(size_t)e * nu + (a->mode == AGGR_THREAD ? t : ci)], &one);
			}
		sc->supported = !(sc->enabled && !sc->running);
		for (int u = 0; u < nu; u++)
			a->units[(size_t)e * nu + u].supported = true;
	}
	/* Other sites of one probe (inlined copies, a line's addresses) count
	 * with the first. */
	for (int e = 0; e < el->nr_evsels; e++) {
		const struct event_spec *sp = el->evsels[e]->spec;
		if (!sp || sp->same_as <= 0 || sp->same_as > el->nr_evsels)
			continue;
		count_add(&counts[sp->same_as - 1], &counts[e]);
		counts[e].value = counts[e].enabled = counts[e].running = 0;
		for (int u = 0; u < nu; u++) {
			count_add(&a->units[(size_t)(sp->same_as - 1) * nu + u], &a->units[(size_t)e * nu + u]);
			a->units[(size_t)e * nu + u].value = 0;
		}
	}
}

static int cmp_units_by_id(const void *x, const void *y, void *arg)
{
	const struct stat_aggr *a = arg;
	int u = *(const int *)x, w = *(const int *)y;
	return aggr_id__cmp(&a->cpu_ids[a->unit_cpu[u]], &a->cpu_ids[a->unit_cpu[w]]);
}

struct by_value {
	const struct stat_count *units;	/* one event's, by unit */
};

static int cmp_units_by_value(const void *x, const void *y, void *arg)
{
	const struct stat_count *v = ((const struct by_value *)arg)->units;
	uint64_t p = v[*(const int *)x].value, q = v[*(const int *)y].value;
	return p < q ? 1 : p > q ? -1 : *(const int *)x - *(const int *)y;
}

/* The rows of an aggregation mode, as perf stat prints them: -A and
 * --per-thread each event's rows in turn (CPUs in order, threads by count,
 * largest first); the topology modes each row's events in turn. IDX are
 * the K events shown; UNITS [e * nr_units + u]. */
static void print_aggr(const struct stat_print *pp_in, const struct stat_aggr *a, const struct stat_count *units,
		       const size_t *idx, size_t k)
{
	int nu = a->nr_units;
	struct stat_print pp = *pp_in;
	struct stat_count *row = pp_xcalloc(k ? k : 1, sizeof(*row));
	int *order = pp_xmalloc((size_t)(nu ? nu : 1) * sizeof(int));
	char label[128];
	pp.aggr = a->mode;
	pp.label = label;
	pp.aggr_nr = -1;
	for (int u = 0; u < nu; u++)
		order[u] = u;
	if (a->mode == AGGR_NONE || a->mode == AGGR_THREAD) {
		for (size_t j = 0; j < k; j++) {
			if (a->mode == AGGR_THREAD) {
				struct by_value bv = { units + idx[j] * (size_t)nu };
				qsort_r(order, (size_t)nu, sizeof(int), cmp_units_by_value, &bv);
			}
			for (int o = 0; o < nu; o++) {
				int u = order[o];
				for (size_t jj = 0; jj < k; jj++)
					row[jj] = units[idx[jj] * (size_t)nu + (size_t)u];
				if (a->mode == AGGR_THREAD)
					snprintf(label, sizeof(label), "%s", a->unit_label[u]);
				else
					snprintf(label, sizeof(label), "CPU%d", a->unit_cpu[u]);
				stat_print__count(&pp, row, k, j);
			}
		}
	} else {
		qsort_r(order, (size_t)nu, sizeof(int), cmp_units_by_id, (void *)a);
		for (int o = 0; o < nu;) {
			const struct aggr_id *id = &a->cpu_ids[a->unit_cpu[order[o]]];
			int end = o;
			while (end < nu && !aggr_id__cmp(&a->cpu_ids[a->unit_cpu[order[end]]], id))
				end++;
			for (size_t jj = 0; jj < k; jj++) {
				row[jj] = units[idx[jj] * (size_t)nu + (size_t)order[o]];
				for (int m = o + 1; m < end; m++)
					count_add(&row[jj], &units[idx[jj] * (size_t)nu + (size_t)order[m]]);
			}
			aggr_id__label(id, a->mode, label, sizeof(label));
			pp.aggr_nr = end - o;
			for (size_t j = 0; j < k; j++)
				stat_print__count(&pp, row, k, j);
			o = end;
		}
	}
	free(order);
	free(row);
}

/* Print the counts of the events shown: not the other sites of a probe;
 * with an aggregation mode its rows (UNITS, as a->units). */
static void print_counts(const struct stat_print *pp, const struct event_list *evl,
			 const struct stat_count *counts, size_t n, const struct stat_aggr *a,
			 const struct stat_count *units)
{
	if (a && a->mode != AGGR_GLOBAL && units) {
		size_t *idx = pp_xmalloc((n ? n : 1) * sizeof(*idx)), k = 0;
		for (size_t i = 0; i < n; i++)
			if (i >= evl->nr || evl->v[i].same_as <= 0)
				idx[k++] = i;
		print_aggr(pp, a, units, idx, k);
		free(idx);
		return;
	}
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
/* counts - prev into a new array of N; prev becomes counts. */
static struct stat_count *count_deltas(const struct stat_count *counts, struct stat_count *prev, size_t n)
{
	struct stat_count *d = pp_xcalloc(n ? n : 1, sizeof(*d));
	for (size_t i = 0; i < n; i++) {
		d[i] = counts[i];
		d[i].value -= prev[i].value;
		d[i].enabled -= prev[i].enabled;
		d[i].running -= prev[i].running;
	}
	memcpy(prev, counts, n * sizeof(*prev));
	return d;
}

static int print_interval(const struct stat_print *pp_in, const struct event_list *evl, double ts, double interval_s,
			   const struct stat_count *counts, struct stat_count *prev, size_t n,
			   const struct stat_aggr *a, struct stat_count *prev_units)
{
	struct stat_count *d = count_deltas(counts, prev, n);
	struct stat_count *du = a->units ? count_deltas(a->units, prev_units, n * (size_t)a->nr_units) : NULL;
	struct stat_print pp = *pp_in;
	pp.interval_ts = ts;
	pp.elapsed = interval_s;
	print_counts(&pp, evl, d, n, a, du);
	int err = 0;
	if (fflush(pp.out) || ferror(pp.out))
		err = stream__write_errno(pp.out);
	free(d);
	free(du);
	return err;
}

/* NAME:u, for an event counted in user space only (evlist__open's
 * fallback without privileges); kept for the process, as the names are. */
static const char *user_only_name(const char *name)
{
	static char **kept;
	static size_t n;

	for (size_t i = 0; i < n; i++)
		if (!strncmp(kept[i], name, strlen(name)) && !strcmp(kept[i] + strlen(name), ":u"))
			return kept[i];
	kept = pp_xrealloc(kept, (n + 1) * sizeof(*kept));
	size_t len = strlen(name) + 3;
	kept[n] = pp_xmalloc(len);
	snprintf(kept[n], len, "%s:u", name);
	return kept[n++];
}

static int stat_once(const struct event_list *evl, const struct collect_opts *co, double interval_ms,
		     const struct stat_print *pp_in, struct stat_count *counts, struct stat_aggr *a, double *elapsed,
		     int *child_status)
{
	struct collect c;
	char why[4096] = "";
	int ret;
	collect__init(&c);
	collect_say__hook(&c);
	for (size_t i = 0; i < evl->nr; i++) {
		struct evsel *ev = evlist__add(&c.evlist, evl->v[i].name, &evl->v[i].attr);
		ev->spec = &evl->v[i];
		ev->group_leader = evl->v[i].group_leader;
		ev->weak_group = evl->v[i].weak_group;
	}
	ret = collect_say__status(&c, collect__prepare(&c, co, why, sizeof(why)));
	collect_say__error(why);
	if (ret)
		goto out;
	stat_aggr__start_run(a, &c.evlist, evl->nr);
	/* What cannot be counted here is said, and the rest is counted; a
	 * refusal is explained once, the other events it refused named after. */
	int opened = 0;
	for (int e = 0; e < c.evlist.nr_evsels; e++) {
		const struct evsel *ev = c.evlist.evsels[e];
		if (!ev->open_errno) {
			opened++;
			continue;
		}
		int said = 0;
		for (int k = 0; k < e && !said; k++)
			said = c.evlist.evsels[k]->open_errno == ev->open_errno;
		if (said)
			continue;
		char msg[1024];
		event_spec__explain_open_error(ev->spec, ev->open_errno, c.evlist.tids[0], msg, sizeof(msg));
		fprintf(stderr, "pprobe stat: %s\n", msg);
		const char *sep = "pprobe stat: refused alike: ";
		for (int k = e + 1; k < c.evlist.nr_evsels; k++)
			if (c.evlist.evsels[k]->open_errno == ev->open_errno) {
				fprintf(stderr, "%s%s", sep, c.evlist.evsels[k]->name);
				sep = ", ";
			}
		if (sep[0] == ',')
			fputc('\n', stderr);
	}
	for (int e = 0; e < c.evlist.nr_evsels && (size_t)e < evl->nr; e++)
		if (c.evlist.evsels[e]->user_only)
			counts[e].name = user_only_name(evl->v[e].name);	/* as perf stat: task-clock:u */
	if (!opened) {
		fprintf(stderr, "pprobe stat: none of the events can be counted\n");
		ret = 1;
		goto out;
	}
	collect__watch_output(&c, fileno(pp_in->out));
	ret = collect_say__status(&c, collect__start(&c, why, sizeof(why)));
	collect_say__error(why);
	if (ret)
		goto out;
	double deadline = co->duration > 0 ? c.t_start + co->duration : 0;
	double next = interval_ms > 0 ? c.t_start + interval_ms / 1e3 : 0;
	struct stat_count *prev = interval_ms > 0 ? pp_xcalloc(evl->nr, sizeof(*prev)) : NULL;
	struct stat_count *prev_units = interval_ms > 0 && a->units ?
					pp_xcalloc(evl->nr * (size_t)a->nr_units, sizeof(*prev_units)) : NULL;
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
			read_counts(&c, counts, a);
			int err = print_interval(pp_in, evl, now - c.t_start, interval_ms / 1e3, counts, prev, evl->nr,
						 a, prev_units);
			if (err)
				collect__output_error(&c, err);
			next += interval_ms / 1e3;
		}
		if (deadline && now >= deadline)
			break;
	}
	evlist__disable(&c.evlist);
	read_counts(&c, counts, a);
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
		print_interval(pp_in, evl, *elapsed, *elapsed - (last - c.t_start), counts, prev, evl->nr, a,
			       prev_units);
		free(prev);
	}
	free(prev_units);
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
	int aggr;			/* enum aggr_mode: -A, --per-core, ..., --per-thread */
	int cache_level;		/* --per-cache=L#; 0: the last level */
	bool no_merge;			/* --no-merge: accepted, see its help */
};

static int parse_per_cache(const struct opt *o, void *opts, const char *arg, char *err, size_t errlen)
{
	(void)o;
	struct stat_opts *so = opts;
	so->aggr = AGGR_CACHE;
	so->cache_level = 0;
	if (!arg)
		return 0;
	/* perf's spelling: L1..L9 (or l1) */
	if (strlen(arg) != 2 || (arg[0] != 'L' && arg[0] != 'l') || arg[1] < '1' || arg[1] > '9')
		return seterr(err, errlen, "Cache level must be of form L[1-9], or l[1-9], not '%s'", arg), -EINVAL;
	so->cache_level = arg[1] - '0';
	return 0;
}

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
		 "cpu-migrations, page-faults (and the hardware events where a PMU exists); perf's terms "
		 "period and name (cpu-clock/name=x/), the sampling ones refused as perf stat does; probes count "
		 "hits, a function's inlined copies together:\n"
		 PROBE_FORMS_HELP("--exec")),
	OPT_STRING(0, "exec", "BIN", S, exec,
		   "probe:FUNC[+OFF|:LINE|%return] and sdt_PROVIDER:NAME are probes in BIN (in stat, -x is "
		   "the CSV separator, as in perf stat)"),
	OPT_GROUP("Target (default: the command, counted from its exec):"),
	TARGET_OPTS(S, co),
	OPT_FN('I', "interval-print", "MS", S, interval_ms, parse_interval, "print counts every MS milliseconds"),
	OPT_FN('r', "repeat", "N", S, repeat, parse_repeat, "run the command N times: mean and spread"),
	OPT_GROUP("Aggregation (perf stat's; the CPU ones need -a or -C):"),
	OPT_SET('A', "no-aggr", S, aggr, AGGR_NONE, "each CPU's counts: CPU0, CPU1, ..."),
	OPT_SET(0, "per-core", S, aggr, AGGR_CORE,
		"counts per physical core (S0-D0-C1, then the number of CPUs summed), from sysfs topology"),
	OPT_FN_OPTARG(0, "per-cache", "L#", S, aggr, parse_per_cache,
		      "counts per cache instance of level L# (default the last level): S0-D0-L3-ID0, the id "
		      "being the first CPU sharing it (--per-cache=L2)"),
	OPT_SET(0, "per-die", S, aggr, AGGR_DIE, "counts per die: S0-D0"),
	OPT_SET(0, "per-socket", S, aggr, AGGR_SOCKET, "counts per processor socket: S0"),
	OPT_SET(0, "per-node", S, aggr, AGGR_NODE, "counts per NUMA node: N0"),
	OPT_SET(0, "per-thread", S, aggr, AGGR_THREAD,
		"with -p or -t: counts per thread (comm-TID), largest first; threads started later count "
		"with the thread that started them"),
	OPT_FLAG(0, "no-merge", S, no_merge,
		 "do not merge the counts of one event name on several PMUs (perf's uncore/hybrid aliases): "
		 "pprobe opens each event on the one PMU it names, so counts are never merged and this "
		 "changes nothing"),
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
"  pprobe stat --per-core -a -e cpu-clock,cs -d 1\n"
"  pprobe stat --per-thread -p 1234 -e task-clock -d 2\n"
"  pprobe stat -x, -e uprobe:libc.so.6:malloc,uretprobe:./app:parse -- ./app\n"
"  pprobe stat --exec ./app -e probe:handle:2 -- ./app\n",
};

/* ---- the command ---- */

/* -e, or perf's default set without the hardware events this machine may
 * lack. 0, or 2 after saying why. */
static int add_events(const struct stat_opts *o, struct event_list *evl)
{
	char err[1024];
	evl->ctx.exec = o->exec;
	evl->ctx.pids = o->co.pid_list;
	evl->ctx.counting = true;
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
 * or what stat_once() returned; *child_status the command's. A stop signal
 * ends the repeats (as perf stat): o->repeat becomes the runs done. */
static int stat_runs(struct stat_opts *o, const struct event_list *evl, const struct stat_print *pp,
		     struct stat_count *counts, struct stat_aggr *a, double *elapsed, int *child_status)
{
	struct stat_count *acc = pp_xcalloc(evl->nr, sizeof(*acc));
	double *sumsq = pp_xcalloc(evl->nr, sizeof(*sumsq));
	double elapsed_sum = 0;
	long repeat = o->repeat;
	int ret = 0;
	for (long r = 0; r < repeat; r++) {
		if (r && collect__stopped()) {
			repeat = o->repeat = r;
			break;
		}
		for (size_t i = 0; i < evl->nr; i++) {
			counts[i].name = evl->v[i].name;
			counts[i].type = evl->v[i].attr.type;
			counts[i].config = evl->v[i].attr.config;
		}
		ret = stat_once(evl, &o->co, o->interval_ms, pp, counts, a, elapsed, child_status);
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

/* Aggregation options that need what was not given: perf's messages.
 * 0, or the exit status after saying why. */
static int check_aggr(const struct stat_opts *o)
{
	const struct collect_opts *co = &o->co;
	if (o->aggr == AGGR_GLOBAL)
		return 0;
	if (o->aggr == AGGR_THREAD) {
		if (co->pid_list || co->tid_list)
			return 0;
		if (co->system_wide || co->cpu_list)
			return opts__usage_error(&stat_cmd, "--per-thread with -a or -C is not supported: give the "
						 "processes (-p) or threads (-t) to count per thread");
		return opts__usage_error(&stat_cmd, "The --per-thread option is only available when monitoring "
					 "via -p -t options");
	}
	if (!co->system_wide && !co->cpu_list)
		return opts__usage_error(&stat_cmd, "both cgroup and no-aggregation modes only available in "
					 "system-wide mode (-a or -C)");
	if (o->repeat > 1)
		return opts__usage_error(&stat_cmd, "-r with --per-%s is not supported: one run's rows",
					 aggr_mode__name((enum aggr_mode)o->aggr));
	return 0;
}

/* Each counted CPU's topology ids for the CPU aggregation modes, read
 * before anything is counted. 0, or 1 after saying what is missing (as
 * perf: "cannot build die map"). */
static int load_topology(const struct stat_opts *o, struct stat_aggr *a)
{
	int *cpus = NULL;
	int n = o->co.cpu_list ? cpulist__parse(o->co.cpu_list, &cpus) : cpulist__online(&cpus);
	if (n <= 0) {
		free(cpus);
		if (o->co.cpu_list)
			return opts__usage_error(&stat_cmd, "bad CPU list '%s' (e.g. 0-1,3)", o->co.cpu_list);
		fprintf(stderr, "pprobe stat: cannot read the online CPUs\n");
		return 1;
	}
	a->max_cpu = cpus[n - 1];
	a->cpu_ids = pp_xcalloc((size_t)a->max_cpu + 1, sizeof(*a->cpu_ids));
	for (int i = 0; i < n; i++) {
		char err[512];
		if (topology__cpu_id(cpus[i], a->mode, a->cache_level, &a->cpu_ids[cpus[i]], err, sizeof(err))) {
			fprintf(stderr, "pprobe stat: %s\n", err);
			free(cpus);
			return 1;
		}
	}
	free(cpus);
	return 0;
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
	struct stat_aggr aggr = { .mode = (enum aggr_mode)o.aggr, .cache_level = o.cache_level };
	ret = check_aggr(&o);
	if (!ret && aggr.mode != AGGR_GLOBAL && aggr.mode != AGGR_THREAD)
		ret = load_topology(&o, &aggr);
	if (ret) {
		free(aggr.cpu_ids);
		opt_list__free(&o.events);
		return ret;
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
	ret = stat_runs(&o, &evl, &pp, counts, &aggr, &elapsed, &child_status);
	if (ret)
		goto out;
	pp.elapsed = elapsed;
	if (pp.style == STAT_HUMAN && o.interval_ms <= 0)
		print_header(pp.out, &o);
	if (o.interval_ms <= 0)	/* with -I the intervals are the output */
		print_counts(&pp, &evl, counts, evl.nr, &aggr, aggr.units);
	if (pp.style == STAT_HUMAN && o.interval_ms <= 0)
		fprintf(pp.out, "\n%20.9f seconds time elapsed\n\n", elapsed);
	safe_open__say("pprobe stat");	/* a probed binary's file that was not read */
	ret = child_status;
out:
	if (of.f) {
		int err = outfile__commit(&of);
		if (err && !ret) {
			fprintf(stderr, "pprobe stat: writing %s failed: %s\n", o.output, strerror(-err));
			ret = 1;
		}
	}
	free(counts);
	stat_aggr__free_run(&aggr);
	free(aggr.cpu_ids);
	event_list__exit(&evl);
	opt_list__free(&o.events);
	return ret;
}
