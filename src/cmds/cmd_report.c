/* pprobe report: perf report --stdio's view of a profile read back (folded
 * or pprof): functions by total (children) and self, a chosen sort, the
 * callers or callees tree of one function, pid/tid filters. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "options.h"
#include "profile_in.h"
#include "report.h"
#include "util.h"

struct idlist {
	int64_t *v;
	size_t nr;
};

struct report_cli {
	const char *input;
	const char *sort;
	bool stdio, children, no_children;
	const char *callers, *callees;
	struct idlist pids, tids;
	double percent_limit;
};

/* "PID[,PID...]" */
static int parse_ids(const struct opt *o, void *opts, const char *arg, char *err, size_t errlen)
{
	struct idlist *l = OPT_FIELD(o, opts, struct idlist);
	char nm[64];
	const char *p = arg;
	for (;;) {
		char *end;
		errno = 0;
		long long v = strtoll(p, &end, 10);
		if (errno || end == p || v < 0 || (*end && *end != ','))
			return seterr(err, errlen, "%s wants numbers separated by commas, not '%s'",
				      opt__name(o, nm, sizeof(nm)), arg), -EINVAL;
		l->v = pp_xrealloc(l->v, (l->nr + 1) * sizeof(*l->v));
		l->v[l->nr++] = v;
		if (!*end)
			return 0;
		p = end + 1;
	}
}

static int parse_percent(const struct opt *o, void *opts, const char *arg, char *err, size_t errlen)
{
	char *end, nm[64];
	errno = 0;
	double v = strtod(arg, &end);
	if (*end == '%')
		end++;
	if (errno || end == arg || *end || v < 0 || v > 100)
		return seterr(err, errlen, "%s wants a percentage from 0 to 100, not '%s'",
			      opt__name(o, nm, sizeof(nm)), arg), -EINVAL;
	*OPT_FIELD(o, opts, double) = v;
	return 0;
}

static const struct opt report_table[] = {
	OPT_STRING('i', "input", "FILE", struct report_cli, input,
		   "the profile to read (default pprobe.folded; - is stdin), as the FILE operand"),
	OPT_FLAG(0, "stdio", struct report_cli, stdio, "text on stdout (the only mode; for perf's spelling)"),
	OPT_FLAG(0, "children", struct report_cli, children,
		 "Children (the function anywhere on the stack) and Self columns, by Children (the default)"),
	OPT_FLAG(0, "no-children", struct report_cli, no_children,
		 "only the self share (the leaf), as perf's Overhead column, sorted by it"),
	OPT_STRING('s', "sort", "KEYS", struct report_cli, sort,
		   "the columns, from: comm, pid, tid, dso, sym (default comm,dso,sym)"),
	OPT_STRING(0, "callers", "FUNC", struct report_cli, callers,
		   "the tree of FUNC's callers (from its innermost call up to the root) instead of the table"),
	OPT_STRING(0, "callees", "FUNC", struct report_cli, callees,
		   "the tree of what FUNC calls (from its outermost call down to the leaf) instead of the table"),
	OPT_FN(0, "pid", "PID[,PID...]", struct report_cli, pids, parse_ids,
	       "only samples of these processes (input with pids: record --pid/--tid)"),
	OPT_FN(0, "tid", "TID[,TID...]", struct report_cli, tids, parse_ids,
	       "only samples of these threads (input with tids: record --tid/--per-thread)"),
	OPT_FN(0, "percent-limit", "PCT", struct report_cli, percent_limit, parse_percent,
	       "hide rows (tree nodes) under PCT percent of the total"),
	OPT_END(),
};

const struct cmd_def report_cmd = {
	.name = "report",
	.prog = "pprobe report",
	.summary = "top functions of a profile by self and total, as perf report --stdio",
	.usage = "pprobe report [options] [FILE]",
	.about = "Reads a profile (folded stacks as record writes them, stackcollapse-perf.pl's output, or pprof) "
		 "and prints its functions as perf report --stdio --children does: Children is the share of the "
		 "total weight in samples with the function anywhere on the stack (once per sample, recursion "
		 "included), Self the share in samples where it is the leaf. [k] marks kernel functions. FILE "
		 "defaults to pprobe.folded; - reads stdin.",
	.footer = "Examples:\n"
		  "  pprobe record -g -- ./app && pprobe report\n"
		  "  pprobe report --no-children --sort sym --percent-limit 1 app.folded\n"
		  "  pprobe report --callees main app.folded\n"
		  "  pprobe record -g --tid -- ./app && pprobe report --tid 4242 --sort tid,sym",
	.opts = report_table,
};

static void header(FILE *f, const char *path, const struct profile_info *info, struct report *r,
		   const struct report_cli *o)
{
	char w[64];
	snprintf(w, sizeof(w), "%.15g", report__total(r));
	fprintf(f, "# pprobe report of %s (%s)\n", path, info->format == PROFILE_PPROF ? "pprof" : "folded");
	if (info->format == PROFILE_PPROF) {
		/* perf report's "Samples: N of event E": the value reported, the
		 * samples behind it (where the profile counts them and the value
		 * is not that count), and the stacks (pprof Samples) they were in */
		char n[80] = "";
		if (info->has_samples && strcmp(info->sample_type, "samples"))
			snprintf(n, sizeof(n), ", %.15g sample%s,", report__count(r), report__count(r) == 1 ? "" : "s");
		fprintf(f, "# Total: %s %s/%s%s in %llu stack%s\n", w, info->sample_type, info->sample_unit, n,
			(unsigned long long)report__samples(r), report__samples(r) == 1 ? "" : "s");
	} else
		fprintf(f, "# Total count: %s in %llu stack%s\n", w, (unsigned long long)report__samples(r),
			report__samples(r) == 1 ? "" : "s");
	if (o->pids.nr || o->tids.nr) {
		fprintf(f, "# Only %s", o->pids.nr ? "pid" : "tid");
		const struct idlist *l = o->pids.nr ? &o->pids : &o->tids;
		for (size_t i = 0; i < l->nr; i++)
			fprintf(f, "%s%lld", i ? "," : " ", (long long)l->v[i]);
		if (o->pids.nr && o->tids.nr) {
			fprintf(f, " and tid");
			for (size_t i = 0; i < o->tids.nr; i++)
				fprintf(f, "%s%lld", i ? "," : " ", (long long)o->tids.v[i]);
		}
		fputc('\n', f);
	}
	fputs("#\n", f);
}

/* After the read: what the options asked of the input that it lacks. */
static int check_input(const struct report_cli *o, struct report *r, const char *path)
{
	if (o->pids.nr && !report__has_pids(r))
		return opts__usage_error(&report_cmd, "--pid: %s has no pids (record --pid or --tid writes them)",
					 path);
	if (o->tids.nr && !report__has_tids(r))
		return opts__usage_error(&report_cmd,
					 "--tid: %s has no tids (record --tid or --per-thread writes them)", path);
	const char *fn = o->callers ? o->callers : o->callees;
	if (fn && !report__has_tree(r))
		return opts__usage_error(&report_cmd, "%s: no function '%s' in the samples of %s",
					 o->callers ? "--callers" : "--callees", fn, path);
	return 0;
}

int cmd_report(int argc, char **argv)
{
	struct report_cli o = { .input = NULL };
	int first = opts__parse(&report_cmd, argc, argv, &o);
	int status = 2;
	struct report *r = NULL;
	if (first < 0) {
		status = opts__exit_status(first);
		goto out;
	}
	struct report_opts ro = { .pids = o.pids.v, .nr_pids = o.pids.nr, .tids = o.tids.v, .nr_tids = o.tids.nr };
	char bad[64], err[512];
	if (argc - first > 1) {
		status = opts__usage_error(&report_cmd, "unexpected argument '%s' (one FILE)", argv[first + 1]);
		goto out;
	}
	if (argc - first == 1 && o.input) {
		status = opts__usage_error(&report_cmd, "give the input either as -i FILE or as FILE, not both");
		goto out;
	}
	if (o.children && o.no_children) {
		status = opts__usage_error(&report_cmd, "--children and --no-children exclude each other");
		goto out;
	}
	if (o.callers && o.callees) {
		status = opts__usage_error(&report_cmd, "give either --callers or --callees");
		goto out;
	}
	if (o.sort && report_keys__parse(o.sort, ro.keys, &ro.nr_keys, bad, sizeof(bad))) {
		status = opts__usage_error(&report_cmd,
					   "--sort: unknown or repeated key '%s' (comm, pid, tid, dso, sym)", bad);
		goto out;
	}
	const char *path = argc - first == 1 ? argv[first] : o.input ? o.input : "pprobe.folded";
	ro.tree_func = o.callers ? o.callers : o.callees;
	ro.tree_callers = o.callers != NULL;
	r = report__new(&ro);
	struct profile_info info;
	int e = profile_in__read(path, report__add, r, &info, err, sizeof(err));
	status = 1;
	if (e) {
		fprintf(stderr, "pprobe report: %s\n", err);
		goto out;
	}
	if (info.ignored)
		fprintf(stderr, "pprobe report: ignored %llu lines with invalid format (not 'stack COUNT')\n",
			(unsigned long long)info.ignored);
	if ((status = check_input(&o, r, path)))
		goto out;
	if (!report__samples(r)) {
		fprintf(stderr, "pprobe report: no samples in %s%s\n", path,
			o.pids.nr || o.tids.nr ? " of the pids/tids asked for" : "");
		status = 1;
		goto out;
	}
	header(stdout, path, &info, r, &o);
	if (ro.tree_func) {
		printf("# %s of %s\n#\n", o.callers ? "Callers" : "Callees", ro.tree_func);
		report__write_tree(r, stdout, o.percent_limit);
	} else {
		struct report_print p = { .children = !o.no_children, .percent_limit = o.percent_limit };
		report__write_table(r, stdout, &p);
	}
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "pprobe report: writing: %s\n", strerror(stream__write_errno(stdout)));
		status = 1;
		goto out;
	}
	status = 0;
out:
	report__delete(r);
	free(o.pids.v);
	free(o.tids.v);
	return status;
}
