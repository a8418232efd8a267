/* pprobe ftrace: the kernel's function and function_graph tracers, as perf
 * ftrace, functrace and funcgraph drive them; --count as funccount. The
 * tracer runs in a tracefs instance where the kernel allows it, else at the
 * top level; either way the global tracing state is left as found
 * (src/engine/ftrace.c). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect.h"
#include "collect_say.h"
#include "commands.h"
#include "ftrace.h"
#include "options.h"
#include "target_opts.h"
#include "util.h"

struct ftrace_cmd_opts {
	struct collect_opts co;
	struct opt_list filters, notrace, graph_funcs, graph_notrace;
	const char *tracer;
	long depth;
	long buffer_kb;
	bool count;
};

static int parse_depth(const struct opt *o, void *opts, const char *arg, char *err, size_t errlen)
{
	char *end;
	long v = strtol(arg, &end, 10);
	if (end == arg || *end || v <= 0 || v > 100000)
		return seterr(err, errlen, "-D wants a depth >= 1, e.g. 3; got '%s'", arg), -EINVAL;
	*OPT_FIELD(o, opts, long) = v;
	return 0;
}

static int parse_tracer(const struct opt *o, void *opts, const char *arg, char *err, size_t errlen)
{
	if (strcmp(arg, "function") && strcmp(arg, "function_graph"))
		return seterr(err, errlen, "--tracer is 'function' or 'function_graph', not '%s'", arg), -EINVAL;
	*OPT_FIELD(o, opts, const char *) = arg;
	return 0;
}

#define O struct ftrace_cmd_opts
static const struct opt ftrace_table[] = {
	OPT_GROUP("Functions (globs as the kernel takes them: '*sys_ptrace', 'vfs_*'):"),
	OPT_LIST('T', "trace-funcs", "FUNC", O, filters, "trace these functions only (set_ftrace_filter)"),
	OPT_LIST('N', "notrace-funcs", "FUNC", O, notrace, "do not trace these (set_ftrace_notrace)"),
	OPT_LIST('G', "graph-funcs", "FUNC", O, graph_funcs,
		 "function_graph from these functions: their callees nested, with durations (set_graph_function)"),
	OPT_LIST('g', "nograph-funcs", "FUNC", O, graph_notrace,
		 "function_graph: leave out these and their callees (set_graph_notrace)"),
	OPT_FN('D', "graph-depth", "DEPTH", O, depth, parse_depth, "function_graph: at most DEPTH levels"),
	OPT_FN('t', "tracer", "TRACER", O, tracer, parse_tracer,
	       "function or function_graph (default: function_graph with -G/-g, function with -T/-N, "
	       "else function_graph, as perf ftrace)"),
	OPT_FLAG(0, "count", O, count, "count the calls of each function instead of printing them (funccount)"),
	OPT_GROUP("Target (default: the command; without one, every task):"),
	OPT_FLAG('a', "all-cpus", O, co.system_wide, "every task (a command then only bounds the duration)"),
	OPT_STRING('C', "cpu", "LIST", O, co.cpu_list, "these CPUs only, e.g. 0-1,3 (tracing_cpumask)"),
	OPT_STRING('p', "pid", "PID[,PID...]", O, co.pid_list,
		   "existing processes, all their threads and the tasks they fork"),
	OPT_FN('d', "duration", "SECS", O, co.duration, opt_parse_duration,
	       "stop after SECS seconds (SIGINT/SIGTERM also stop cleanly)"),
	OPT_GROUP("Buffer:"),
	OPT_FN('m', "buffer-size", "KB", O, buffer_kb, opt_parse_positive_long,
	       "kernel buffer per CPU in KB (buffer_size_kb); lost entries are counted and said"),
	OPT_END(),
};
#undef O

const struct cmd_def ftrace_cmd = {
	.name = "ftrace",
	.prog = "pprobe ftrace",
	.summary = "trace kernel functions: function and function_graph tracers, call counts",
	.usage = "pprobe ftrace [-T FUNC] [-N FUNC] [-G FUNC] [-D DEPTH] [--count] [-a|-p PID] [-d SECS] "
		 "[--] [command [args...]]",
	.about = "Trace kernel functions with ftrace, printed as the kernel prints them (trace_pipe), with the task:\n"
		 "  function:        comm-pid [cpu] flags seconds: FUNC <-CALLER\n"
		 "  function_graph:  cpu) comm-pid | duration | FUNC() { ... }  or  0.500 us | FUNC();\n"
		 "A command starts once tracing is set up and is traced with the tasks it forks. The tracer runs "
		 "in a tracefs instance where the kernel offers it there, else at the top level; the tracing state "
		 "(current_tracer, filters, options, instances) is left exactly as found on every exit, kill -9 "
		 "of pprobe included (a guard process restores it).",
	.opts = ftrace_table,
	.footer =
"Examples:\n"
"  pprobe ftrace -T '*sys_ptrace' -p 4242                 (functrace)\n"
"  pprobe ftrace -G do_sys_openat2 -D 3 -- cat /proc/version\n"
"  pprobe ftrace -T 'vfs_*' --count -a -d 5               (funccount)\n",
};

/* ---- output ---- */

struct counts {
	struct strtab names;
	uint64_t *n;
	size_t cap;
	char part[4096];	/* a line not yet complete */
	size_t part_len;
};

static void count_line(struct counts *k, const char *line)
{
	char name[256];
	if (!ftrace__line_function(line, name, sizeof(name)))
		return;
	uint32_t id = strtab__intern(&k->names, name);
	if (id >= k->cap) {
		size_t cap = k->cap ? k->cap * 2 : 256;
		while (cap <= id)
			cap *= 2;
		k->n = pp_xrealloc(k->n, cap * sizeof(*k->n));
		memset(k->n + k->cap, 0, (cap - k->cap) * sizeof(*k->n));
		k->cap = cap;
	}
	k->n[id]++;
}

static void count_bytes(struct counts *k, const char *buf, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (buf[i] != '\n') {
			if (k->part_len < sizeof(k->part) - 1)
				k->part[k->part_len++] = buf[i];
			continue;
		}
		k->part[k->part_len] = 0;
		count_line(k, k->part);
		k->part_len = 0;
	}
}

static const struct counts *sort_counts;
static int cmp_counts(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	if (sort_counts->n[x] != sort_counts->n[y])
		return sort_counts->n[x] < sort_counts->n[y] ? 1 : -1;
	return strcmp(strtab__str(&sort_counts->names, x), strtab__str(&sort_counts->names, y));
}

/* funccount's table: FUNC COUNT, most called first. */
static int print_counts(struct counts *k)
{
	uint32_t *ids = pp_xmalloc((k->names.nr + 1) * sizeof(*ids));
	for (size_t i = 0; i < k->names.nr; i++)
		ids[i] = (uint32_t)i;
	sort_counts = k;
	qsort(ids, k->names.nr, sizeof(*ids), cmp_counts);
	printf("%-40s %12s\n", "FUNC", "COUNT");
	for (size_t i = 0; i < k->names.nr; i++)
		printf("%-40s %12llu\n", strtab__str(&k->names, ids[i]), (unsigned long long)k->n[ids[i]]);
	free(ids);
	return fflush(stdout) ? -errno : 0;
}

/* Everything trace_pipe has now, to stdout or the counts. 0, or -EPIPE
 * (the reader went away) or another -errno of the output. */
static int drain_pipe(int fd, struct counts *k)
{
	static char buf[1 << 16];
	/* at most 4 MB a call: signals and the clock are looked at between */
	for (int i = 0; i < 64; i++) {
		ssize_t r = read(fd, buf, sizeof(buf));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return 0;	/* EAGAIN: empty for now */
		if (k) {
			count_bytes(k, buf, (size_t)r);
			continue;
		}
		if (fwrite(buf, 1, (size_t)r, stdout) != (size_t)r || fflush(stdout))
			return -errno;
	}
	return 0;
}

/* ---- the run ---- */

/* The tracer perf ftrace would pick. */
static const char *pick_tracer(const struct ftrace_cmd_opts *o)
{
	if (o->tracer)
		return o->tracer;
	if (o->graph_funcs.nr || o->graph_notrace.nr)
		return "function_graph";
	if (o->filters.nr || o->notrace.nr)
		return "function";
	return "function_graph";
}

static const char **list_args(const struct opt_list *l)
{
	const char **v = pp_xcalloc(l->nr + 1, sizeof(*v));
	for (size_t i = 0; i < l->nr; i++)
		v[i] = l->v[i].arg;
	return v;
}

/* "0-1,3" -> tracing_cpumask's hex ("b"), 32 bits a group. */
static char *cpu_mask(const char *list)
{
	int *cpus = NULL;
	int n = cpulist__parse(list, &cpus);
	if (n <= 0)
		return NULL;
	int max = cpus[n - 1];
	int groups = max / 32 + 1;
	uint32_t *w = pp_xcalloc((size_t)groups, sizeof(*w));
	for (int i = 0; i < n; i++)
		w[cpus[i] / 32] |= 1u << (cpus[i] % 32);
	char *s = pp_xmalloc((size_t)groups * 9 + 1), *p = s;
	for (int g = groups - 1; g >= 0; g--)
		p += sprintf(p, g == groups - 1 ? "%x" : ",%08x", w[g]);
	free(w);
	free(cpus);
	return s;
}

/* Trace until the command exits, -d, the -p targets are gone, SIGINT or
 * SIGTERM, or the reader of our output goes away (collect__watch_output:
 * the run ends then, not at the next entry there is to write). */
static int trace_loop(struct collect *c, struct ftrace *ft, int fd, struct counts *k, double duration)
{
	double end = duration > 0 ? now_seconds() + duration : 0;
	int out = 0;
	if (!k)
		collect__watch_output(c, STDOUT_FILENO);
	while (!c->stop && !out) {
		int ms = 50;
		if (end) {
			double left = end - now_seconds();
			if (left <= 0)
				break;
			if (left * 1000 < ms)
				ms = (int)(left * 1000) + 1;
		}
		collect__wait(c, ms);
		if (c->out_err == EPIPE)
			out = -EPIPE;
		else
			out = drain_pipe(fd, k);
	}
	ftrace__stop(ft);
	if (!out)
		out = drain_pipe(fd, k);
	return out;
}

static int ftrace_run(struct ftrace_cmd_opts *o, struct collect *c)
{
	const char **filters = list_args(&o->filters), **notrace = list_args(&o->notrace);
	const char **gf = list_args(&o->graph_funcs), **gn = list_args(&o->graph_notrace);
	char *mask = o->co.cpu_list ? cpu_mask(o->co.cpu_list) : NULL;
	struct ftrace_opts fo = {
		.tracer = pick_tracer(o),
		.filters = filters, .nr_filters = o->filters.nr,
		.notrace = notrace, .nr_notrace = o->notrace.nr,
		.graph_funcs = gf, .nr_graph_funcs = o->graph_funcs.nr,
		.graph_notrace = gn, .nr_graph_notrace = o->graph_notrace.nr,
		.depth = (int)o->depth, .cpu_mask = mask, .buffer_kb = (unsigned long)o->buffer_kb,
	};
	struct counts k = { 0 };
	struct ftrace *ft = NULL;
	char err[2048];
	int ret = 0;
	strtab__init(&k.names);

	/* The command is forked and held before its exec: its pid goes into
	 * set_ftrace_pid before it runs a single instruction of its own. */
	o->co.counting = true;
	o->co.quiet = true;
	ret = collect_say__status(c, collect__prepare(c, &o->co, err, sizeof(err)));
	collect_say__error(err);
	if (ret)
		goto out;
	ft = ftrace__new(&fo, err, sizeof(err));
	if (!ft) {
		fprintf(stderr, "pprobe ftrace: %s\n", err);
		ret = 1;
		goto out;
	}
	const char *was = ftrace__replaced_tracer(ft);
	if (was)
		fprintf(stderr, "pprobe ftrace: the top level's tracer was %.*s; it is replaced while pprobe runs, "
			"then restored with its settings (%s)\n", (int)strcspn(was, "\n"), was, ftrace__where(ft));
	/* pprobe's own reads of trace_pipe are not traced (they would feed
	 * themselves); kernels before 5.8 have no set_ftrace_notrace_pid */
	if (o->co.system_wide)
		(void)ftrace__set_notrace_pid(ft, getpid());
	if (!o->co.system_wide) {
		const pid_t *pids = c->child ? &c->child : c->evlist.tids;
		int nr = c->child ? 1 : c->evlist.nr_tids;
		bool followed;
		if (ftrace__set_pids(ft, pids, nr, true, &followed, err, sizeof(err))) {
			fprintf(stderr, "pprobe ftrace: %s\n", err);
			ret = 1;
			goto out;
		}
		if (!followed)
			fprintf(stderr, "pprobe ftrace: this kernel has no options/function-fork: the tasks the "
				"target forks are not traced\n");
	}
	int fd = ftrace__pipe_fd(ft);
	if (fd < 0 || ftrace__start(ft)) {
		fprintf(stderr, "pprobe ftrace: cannot start tracing (%s): %s\n", ftrace__where(ft),
			strerror(fd < 0 ? -fd : errno));
		ret = 1;
		goto out;
	}
	int st = collect__start(c, err, sizeof(err));
	/* Tracing is on from ftrace__start, and a stop signal can come from
	 * then (one that watches tracefs for it did, in CI: exit 130). With no
	 * command held back it is a stop, as in the loop: what was traced is
	 * read and the run ends as it would have a moment later. */
	if (st == -EINTR && !c->child) {
		st = 0;
		c->stop = true;
	}
	ret = collect_say__status(c, st);
	collect_say__error(err);
	int out = ret ? 0 : trace_loop(c, ft, fd, o->count ? &k : NULL, o->co.duration);
	if (!out && o->count)
		out = print_counts(&k);
	if (out && out != -EPIPE) {
		fprintf(stderr, "pprobe ftrace: writing the output failed: %s\n", strerror(-out));
		ret = 1;
	}
	/* A reader that went away (| head) ends the run: what was set is
	 * restored, a command is let run on untraced, and pprobe dies of
	 * SIGPIPE, as the other streaming commands (collect__output_error). */
	if (out == -EPIPE)
		collect__output_error(c, EPIPE);
	uint64_t lost = ftrace__lost(ft);
	if (lost && out != -EPIPE)
		fprintf(stderr, "pprobe ftrace: the kernel dropped %llu entries (its buffer was full): a bigger -m KB "
			"(buffer_size_kb per CPU) or fewer functions (-T, -N) keeps them\n", (unsigned long long)lost);
out:
	ftrace__delete(ft);
	collect__cleanup(c);
	if (!ret)
		ret = c->out_err == EPIPE ? CMD_EXIT_SIGPIPE : collect__exit_status(c);
	strtab__free(&k.names);
	free(k.n);
	free(mask);
	free(filters);
	free(notrace);
	free(gf);
	free(gn);
	return ret;
}

int cmd_ftrace(int argc, char **argv)
{
	struct ftrace_cmd_opts o = { 0 };
	struct collect c;
	int ret = 0;

	int n = opts__parse(&ftrace_cmd, argc, argv, &o);
	if (n < 0) {
		ret = opts__exit_status(n);
		goto out;
	}
	if (n < argc)
		o.co.argv = argv + n;
	const char *tracer = pick_tracer(&o);
	if (o.co.pid_list && o.co.system_wide)
		ret = opts__usage_error(&ftrace_cmd, "-p and -a exclude each other");
	else if (o.co.pid_list && o.co.argv)
		ret = opts__usage_error(&ftrace_cmd, "give either -p PID or a command, not both");
	else if (!strcmp(tracer, "function") && (o.graph_funcs.nr || o.graph_notrace.nr || o.depth))
		ret = opts__usage_error(&ftrace_cmd, "-G, -g and -D go with the function_graph tracer, not "
				       "--tracer function");
	else if (o.co.cpu_list) {
		int *cpus = NULL;
		if (cpulist__parse(o.co.cpu_list, &cpus) <= 0)
			ret = opts__usage_error(&ftrace_cmd, "bad CPU list '%s': e.g. 0-1,3", o.co.cpu_list);
		free(cpus);
	}
	if (ret)
		goto out;
	/* perf ftrace: without a command or -p, every task */
	if (!o.co.argv && !o.co.pid_list)
		o.co.system_wide = true;
	collect__init(&c);
	collect_say__hook(&c);
	ret = ftrace_run(&o, &c);
out:
	opt_list__free(&o.filters);
	opt_list__free(&o.notrace);
	opt_list__free(&o.graph_funcs);
	opt_list__free(&o.graph_notrace);
	return ret;
}
