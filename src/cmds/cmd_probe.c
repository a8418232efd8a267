/* pprobe [-x BINARY | -m MODULE | -k VMLINUX] -F | -L SPEC | -V SPEC
 * The DWARF inspector, in perf probe's syntax. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands.h"
#include "options.h"
#include "probe_spec.h"
#include "probe_tracefs.h"
#include "tracefs.h"
#include "util.h"
#include "pprobe/probe_finder.h"

/* Runs argv, returns its first output line (malloc'd) or NULL. */
static char *run_line(char *const argv[])
{
	int p[2];
	if (pipe(p))
		return NULL;
	pid_t pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return NULL;
	}
	if (pid == 0) {
		dup2(p[1], 1);
		int devnull = open("/dev/null", 0);
		if (devnull >= 0)
			dup2(devnull, 2);
		close(p[0]);
		close(p[1]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(p[1]);
	char buf[4096];
	size_t len = 0;
	ssize_t r;
	while (len < sizeof(buf) - 1 && (r = read(p[0], buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t)r;
	buf[len] = '\0';
	close(p[0]);
	int st;
	waitpid(pid, &st, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || !len)
		return NULL;
	char *nl = strchr(buf, '\n');
	if (nl)
		*nl = '\0';
	return strdup(buf);
}

/* The Debian package owning path ("libc6"), or NULL. */
static char *owning_package(const char *path)
{
	char real[PATH_MAX], alt[PATH_MAX];
	const char *cands[3] = { path, NULL, NULL };
	if (realpath(path, real)) {
		cands[1] = real;
		if (!strncmp(real, "/usr/", 5)) {
			snprintf(alt, sizeof(alt), "%s", real + 4);	/* merged /usr: dpkg knows /lib/... */
			cands[2] = alt;
		}
	}
	for (int i = 0; i < 3; i++) {
		if (!cands[i])
			continue;
		char *argv[] = { "dpkg", "-S", (char *)cands[i], NULL };
		char *line = run_line(argv);
		if (!line)
			continue;
		char *colon = strstr(line, ": ");
		if (colon) {
			*colon = '\0';
			char *arch = strchr(line, ':');
			if (arch)
				*arch = '\0';
			if (!strchr(line, ','))
				return line;
		}
		free(line);
	}
	return NULL;
}

static void no_debuginfo(struct probe_finder *pf)
{
	const char *msg = probe_finder__strerror(pf);
	fprintf(stderr, "pprobe: %s\n", msg);
	/* a file whose DWARF lies about its size: no package advice */
	if (probe_finder__is_kernel(pf) || strstr(msg, ": compressed section "))
		return;
	char *pkg = owning_package(probe_finder__path(pf));
	if (pkg) {
		const char *dbg = strcmp(pkg, "libc6") ? "-dbgsym" : "-dbg";
		fprintf(stderr, "pprobe: %s is from package %s: install %s%s (Debian's dbgsym packages come "
			"from the debian-debug archive)\n", probe_finder__path(pf), pkg,
			!strcmp(pkg, "libc6") ? "libc6" : pkg, dbg);
		free(pkg);
	} else {
		fprintf(stderr, "pprobe: %s is from no Debian package: rebuild it with -g, or put its "
			"debug file in /usr/lib/debug/.build-id/\n", probe_finder__path(pf));
	}
}

static int do_funcs(struct probe_finder *pf, const char *filter)
{
	char **names;
	int n = probe_finder__functions(pf, filter, &names);
	if (n < 0) {
		fprintf(stderr, "pprobe: %s\n", n == -EINVAL ? probe_finder__strerror(pf) : strerror(-n));
		return n == -EINVAL ? 2 : 1;
	}
	for (int i = 0; i < n; i++)
		printf("%s\n", names[i]);
	probe_finder__free_names(names, n);
	return 0;
}

static int do_lines(struct probe_finder *pf, const char *spec, bool with_asm, const char *srcdir)
{
	struct line_listing *l;
	if (!probe_finder__has_dwarf(pf)) {
		no_debuginfo(pf);
		return 1;
	}
	int ret = probe_finder__lines(pf, spec, with_asm, &l);
	if (ret) {
		fprintf(stderr, "pprobe: %s\n", probe_finder__strerror(pf));
		return ret == -EINVAL ? 2 : 1;
	}
	int first = l->first;
	if (l->function)
		printf("<%s@%s:%d>\n", l->function, l->file, first - l->offset);
	else
		printf("<%s:%d>\n", l->file, first);
	if (!l->source)
		fprintf(stderr, "pprobe: source file %s not found%s%s%s%s; showing the probe-able lines "
			"from the line table (use --source DIR)\n", l->file,
			srcdir ? " under " : "", srcdir ? srcdir : "", srcdir ? " either" : "",
			l->file[0] != '/' ? " (the path is relative to the directory it was built in)" : "");
	for (int i = 0; i < l->nlines; i++) {
		const struct pf_line *pl = &l->lines[i];
		if (pl->probeable)
			printf("%7d  %s\n", pl->lineno - l->offset, pl->text ? pl->text : "");
		else
			printf("         %s\n", pl->text ? pl->text : "");
		for (int j = 0; j < pl->ninsns; j++) {
			const struct pf_insn *in = &pl->insns[j];
			if (in->symbol)
				printf("                 <%s+%" PRIu64 ">:\t%s\n", in->symbol, in->sym_offset, in->text);
			else
				printf("                 0x%" PRIx64 ":\t%s\n", in->addr, in->text);
		}
	}
	line_listing__delete(l);
	return 0;
}

static const char *base_name(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;
	return s ? s + 1 : p ? p : "?";
}

static int do_vars(struct probe_finder *pf, const char *spec, unsigned flags, const char *filter)
{
	struct pf_points *pts;
	if (!probe_finder__has_dwarf(pf)) {
		no_debuginfo(pf);
		return 1;
	}
	if (filter && probe_filter__match(filter, "x") < 0) {
		fprintf(stderr, "pprobe: bad filter '%s': globs joined by & and |, ! negates, ( ) groups\n", filter);
		return 2;
	}
	int ret = probe_finder__find(pf, spec, flags | PF_VARS, &pts);
	if (ret) {
		fprintf(stderr, "pprobe: %s\n", probe_finder__strerror(pf));
		return ret == -EINVAL ? 2 : 1;
	}
	printf("Available variables at %s\n", spec);
	for (int i = 0; i < pts->n; i++) {
		const struct pf_point *p = &pts->pts[i];
		printf("\t@<%s+%" PRIu64 ">", p->symbol ? p->symbol : p->function, p->sym_offset);
		if (p->file)
			printf(" %s:%d", base_name(p->file), p->line);
		if (p->inlined)
			printf(" inlined into %s at %s:%d", p->caller ? p->caller : "?",
			       base_name(p->call_file), p->call_line);
		printf("\n");
		if (p->retprobe) {
			printf("\t\t$retval\t(a return probe fetches the return value; "
			       "the variables below are those at the entry)\n");
		}
		int shown = 0;
		for (int j = 0; j < p->nvars; j++) {
			const struct pf_var *v = &p->vars[j];
			if (filter && probe_filter__match(filter, v->name) != 1)
				continue;
			shown++;
			printf("\t\t%s\t%s", v->type, v->name);
			switch (v->state) {
			case PF_VAR_LOCATION:
				printf("\t%s", v->where ? v->where : "");
				break;
			case PF_VAR_CONST:
				printf("\t= %s", v->where ? v->where : "?");
				break;
			case PF_VAR_COMPUTED:
				printf("\t<not fetchable: %s>", v->where ? v->where : "DWARF expression");
				break;
			case PF_VAR_OPTIMIZED_OUT:
				printf("\t<optimized out>");
				break;
			}
			if (v->before_prologue)
				printf("\t(not stored yet: valid from @<%s+%" PRIu64 ">)",
				       p->symbol ? p->symbol : p->function, v->valid_from);
			if (v->external)
				printf("\t(global)");
			if (v->range)
				printf("\t%s", v->range);
			printf("\n");
		}
		if (!shown)
			printf("\t\t(No matched variables)\n");
	}
	pf_points__delete(pts);
	return 0;
}

/* A def as a string joined from --add's value and the words after it. */
struct add_def {
	char *text;
};

static int do_add(const char *binary, struct add_def *defs, int ndefs, bool force, bool quiet)
{
	char err[4096];
	char **all = NULL;
	int nall = 0, ret = 0;
	char real[PATH_MAX];
	const char *where = binary && realpath(binary, real) ? real : binary;

	(void)probe_tracefs__sweep_stale();	/* tracefs trouble: the add says it */
	char *report = NULL;
	size_t rlen = 0;
	FILE *m = open_memstream(&report, &rlen);
	if (!m)
		return 1;
	for (int i = 0; i < ndefs; i++) {
		char **names = NULL;
		err[0] = '\0';
		int n = force ? probe_tracefs__add_forced(binary, defs[i].text, &names, err, sizeof(err))
			      : probe_tracefs__add(binary, defs[i].text, &names, err, sizeof(err));
		if (n < 0) {
			fprintf(stderr, "pprobe: %s\n", err[0] ? err : strerror(-n));
			ret = n == -EINVAL ? 2 : 1;
			break;
		}
		struct probe_def d;
		if (probe_def__parse(defs[i].text, &d, NULL, 0))
			memset(&d, 0, sizeof(d));
		for (int j = 0; j < n; j++) {
			fprintf(m, "  %-20s (on %s%s%s", names[j], d.point ? d.point : "?", where ? " in " : "",
				where ? where : "");
			for (int a = 0; a < d.nargs; a++)
				fprintf(m, "%s%s", a ? " " : " with ", d.args[a]);
			fprintf(m, ")\n");
		}
		probe_def__exit(&d);
		char **v = realloc(all, (size_t)(nall + n) * sizeof(*v));
		if (!v) {
			probe_tracefs__free_names(names, n);
			ret = 1;
			break;
		}
		all = v;
		memcpy(all + nall, names, (size_t)n * sizeof(*names));
		nall += n;
		free(names);
	}
	fclose(m);
	if (ret) {
		/* several --add go in together or not at all */
		for (int i = 0; i < nall; i++) {
			char **gone = NULL;
			int ng = 0;
			probe_tracefs__del(all[i], &gone, &ng, err, sizeof(err));
			probe_tracefs__free_names(gone, ng);
		}
	} else if (!quiet) {
		fprintf(stderr, "Added new event%s:\n%s\nYou can now use %s in pprobe record, trace and stat, "
			"such as:\n\n\tpprobe trace -e %s -a sleep 1\n\n",
			nall > 1 ? "s" : "", report, nall > 1 ? "them" : "it", nall ? all[0] : "?");
	}
	free(report);
	probe_tracefs__free_names(all, nall);
	return ret;
}

static int do_list(const char *pattern)
{
	struct probe_event *ev;
	(void)probe_tracefs__sweep_stale();	/* temporary probes of dead pprobes are no one's */
	int n = probe_tracefs__list(pattern, &ev);
	if (n < 0) {
		char err[512];
		tracefs__strerror(n, err, sizeof(err));
		fprintf(stderr, "pprobe: %s\n", err);
		return 1;
	}
	struct probe_finder *pf = NULL;
	for (int i = 0; i < n; i++) {
		char name[160];
		snprintf(name, sizeof(name), "%s:%s", ev[i].group, ev[i].event);
		char *d = probe_event__describe(&ev[i], &pf);
		printf("  %-20s (%s)\n", name, d ? d : "?");
		free(d);
	}
	probe_finder__delete(pf);
	probe_events__free(ev, n);
	return 0;
}

static int do_del(const char **patterns, int npatterns, bool quiet)
{
	int ret = 0;
	(void)probe_tracefs__sweep_stale();
	for (int i = 0; i < npatterns; i++) {
		char err[1024] = "", **names = NULL;
		int n = 0;
		int r = probe_tracefs__del(patterns[i], &names, &n, err, sizeof(err));
		for (int j = 0; j < n && !quiet; j++)
			fprintf(stderr, "Removed event: %s\n", names[j]);
		probe_tracefs__free_names(names, n);
		if (r < 0) {
			fprintf(stderr, "pprobe: %s\n", err[0] ? err : strerror(-r));
			ret = 1;
		}
	}
	return ret;
}

/* ---- options ---- */

struct probe_opts {
	struct probe_finder_opts pf;	/* -x, -m, -k, --source */
	const char *filter, *line, *vars;
	bool funcs, with_asm, list, externs, range, no_inlines;
	bool force, quiet;		/* -f, -q */
	struct add_def *adds;		/* --add, with the words after each */
	int nadds;
	const char **dels;		/* -d */
	int ndels;
	const char *list_pattern;	/* -l [PATTERN] */
	int nmodes;			/* of -F, -L, -V, --add, -l, -d given */
};

static int add_def(struct probe_opts *po, const char *text)
{
	po->adds = pp_xrealloc(po->adds, (size_t)(po->nadds + 1) * sizeof(*po->adds));
	po->adds[po->nadds].text = pp_xstrdup(text);
	if (!po->nadds++)
		po->nmodes++;
	return 0;
}

static int parse_add(const struct opt *o, void *opts, const char *arg, char *err, size_t errlen)
{
	(void)o, (void)err, (void)errlen;
	return add_def(opts, arg);
}

static int parse_del(const struct opt *o, void *opts, const char *arg, char *err, size_t errlen)
{
	(void)o, (void)err, (void)errlen;
	struct probe_opts *po = opts;
	po->dels = pp_xrealloc(po->dels, (size_t)(po->ndels + 1) * sizeof(*po->dels));
	po->dels[po->ndels] = arg;
	if (!po->ndels++)
		po->nmodes++;
	return 0;
}

/* -l [PATTERN], -F, -L SPEC, -V SPEC: one mode each. */
static int parse_mode(const struct opt *o, void *opts, const char *arg, char *err, size_t errlen)
{
	(void)err, (void)errlen;
	struct probe_opts *po = opts;
	switch (o->key) {
	case 'l': po->list = true; po->list_pattern = arg; break;
	case 'F': po->funcs = true; if (arg) po->filter = arg; break;
	case 'L': po->line = arg; break;
	case 'V': po->vars = arg; break;
	}
	po->nmodes++;
	return 0;
}

/* Words among the options, in order: the args of the last --add ('--add
 * func a b'), -l's PATTERN, more -d PATTERNs, or perf's bare PROBE form
 * ('pprobe -x BIN "func arg"'). */
static int probe_word(void *opts, const char *word, char *err, size_t errlen)
{
	struct probe_opts *po = opts;
	if (po->nadds) {
		struct add_def *a = &po->adds[po->nadds - 1];
		char *t;
		if (asprintf(&t, "%s %s", a->text, word) < 0)
			return -ENOMEM;
		free(a->text);
		a->text = t;
	} else if (po->list && !po->list_pattern) {
		po->list_pattern = word;
	} else if (po->ndels) {
		parse_del(NULL, opts, word, err, errlen);
	} else if (!po->nmodes) {
		add_def(po, word);
	} else {
		return seterr(err, errlen, "unexpected argument '%s'", word), -EINVAL;
	}
	return 0;
}

#define P struct probe_opts
static const struct opt probe_table[] = {
	OPT_GROUP("Probe events in tracefs:"),
	OPT_FN('a', "add", "DEF", P, adds, parse_add,
	       "add a tracefs probe event (uprobe_events with -x, else kprobe_events) for every instance of "
	       "the point; several --add may be given, and the words after one are its args ('--add func a b').\n"
	       "DEF: [[GROUP:]EVENT=]POINT [ARG...]; POINT: FUNC[@SRC][:RLN|+OFFS|%return|;PTN], SRC:ALN, "
	       "SRC;PTN, or 0xADDR in BINARY.\n"
	       "ARG: [NAME=]VAR[->MEMBER|.MEMBER|[N]]...[:TYPE], $retval, $params, $vars, or a tracefs "
	       "fetch-arg: %REG, @SYM, +OFF(ARG), $argN, $stackN, $comm. TYPE: string, u8..u64, s8..s64, "
	       "x8..x64. An unnamed VAR->MEMBER is named MEMBER, as perf (req->path: path).\n"
	       "Group: probe (kernel), probe_BINNAME (-x); event: the function (FUNC_L<RLN> for a line, "
	       "FUNC__return), _1, _2... when taken."),
	OPT_FN_OPTARG('l', "list", "PATTERN", P, list, parse_mode,
		      "list the probe events (GROUP:EVENT globs)"),
	OPT_FN('d', "del", "PATTERN", P, dels, parse_del,
	       "remove probe events: GROUP:EVENT globs ('probe_app:*'), or EVENT in any group"),
	OPT_FLAG('f', "force", P, force,
		 "--add with an EVENT name that is taken: name it EVENT_1, EVENT_2, ... (perf probe -f) "
		 "instead of refusing"),
	OPT_FLAG('q', "quiet", P, quiet, "--add/-d: no 'Added new event'/'Removed event' lines (errors still said)"),
	OPT_GROUP("What to inspect or probe:"),
	OPT_STRING('x', "exec", "BINARY", P, pf.binary,
		   "an executable or shared library, a path or a bare name found as the loader would (libc.so.6, libc; "
		   "default: the kernel)"),
	OPT_STRING('m', "module", "MODULE", P, pf.module, "a kernel module (name or .ko path)"),
	OPT_STRING('k', "vmlinux", "FILE", P, pf.vmlinux,
		   "the kernel image with DWARF (default: /usr/lib/debug/boot/vmlinux-$(uname -r); else -F "
		   "uses /proc/kallsyms)"),
	OPT_GROUP("Inspect (perf probe -F/-L/-V):"),
	OPT_FN_OPTARG('F', "funcs", "FILTER", P, funcs, parse_mode,
		      "list probe-able functions: DWARF subprograms (inlined-only ones too), ELF function symbols "
		      "(clones as .constprop.N ...), kallsyms; --funcs=FILTER (-FFILTER) as perf: the same as "
		      "--filter FILTER"),
	OPT_STRING(0, "filter", "GLOB", P, filter,
		   "-F: filter names (default \"" PROBE_FILTER_DEFAULT "\"); -V: filter variable names. Globs "
		   "with & | ! ( )"),
	OPT_FN('L', "line", "SPEC", P, line, parse_mode,
	       "show source lines; probe-able ones carry a line number (relative to the function's first "
	       "line in the FUNC form). Without the source, the probe-able lines of the line table."),
	OPT_STRING('s', "source", "DIR", P, pf.source_dir, "look for source files under DIR"),
	OPT_FLAG(0, "asm", P, with_asm, "-L: the instructions (capstone) under each line"),
	OPT_FN('V', "vars", "SPEC", P, vars, parse_mode,
	       "variables available at the probe point(s): every out-of-line copy and clone, every inlined "
	       "copy with its call site; each with its location at that address, its constant value, or "
	       "<optimized out> when the location list has nothing there"),
	OPT_FLAG(0, "externs", P, externs, "-V: CU-level (global and static) variables too"),
	OPT_FLAG(0, "range", P, range, "-V: where each variable is available (offsets and lines)"),
	OPT_FLAG(0, "no-inlines", P, no_inlines, "-V: out-of-line copies only"),
	OPT_END(),
};
#undef P

const struct cmd_def probe_cmd = {
	.name = "probe",
	.prog = "pprobe probe",
	.summary = "probes as perf probe: -F/-L/-V inspect, --add/-l/-d tracefs probe events",
	.usage = "pprobe [-x BINARY | -m MODULE | -k VMLINUX] -F [--filter GLOB]\n"
		 "pprobe [-x BINARY | -m MODULE | -k VMLINUX] -L 'FUNC[@SRC][:RLN[+NUM|-RLN2]]' [--source DIR] [--asm]\n"
		 "pprobe [-x BINARY | -m MODULE | -k VMLINUX] -L 'SRC[:ALN[+NUM|-ALN2]]' [--source DIR] [--asm]\n"
		 "pprobe [-x BINARY | -m MODULE | -k VMLINUX] -V 'FUNC[@SRC][:RLN|+OFFS|%return|;PTN]'\n"
		 "       [--externs] [--range] [--no-inlines] [--filter GLOB]\n"
		 "pprobe [-x BINARY] --add '[[GROUP:]EVENT=]FUNC[@SRC][:RLN|+OFFS|%return|;PTN] [ARG...]' ...\n"
		 "pprobe -l [[GROUP:]EVENT]      pprobe -d [GROUP:]EVENT ...   (globs)\n"
		 "(also as 'pprobe probe ...')",
	.about = "Inspect where probes can go, and make probes, as 'perf probe' does, from DWARF debug info.",
	.opts = probe_table,
	.word = probe_word,
	.footer =
"Temporary probes for one run: -e 'SPEC ARG...' in record, trace and stat\n"
"(pprobe trace -x ./server -e 'probe:handle req->path:string'), removed at exit.\n"
"\n"
"Debug info is looked up in the file itself, /usr/lib/debug/.build-id/ and by\n"
".gnu_debuglink. Exit status: 0 ok, 1 not found / no debug info / refused, 2 usage.\n"
"\n"
"Examples:\n"
"  pprobe -x ./server --add 'handle req->path:string len'\n"
"  pprobe trace -e probe_server:handle -a -d 10\n"
"  pprobe -x ./server --add 'handle%return $retval'\n"
"  pprobe -l 'probe_server:*'\n"
"  pprobe -d 'probe_server:*'\n",
};

/* ---- the command ---- */

/* The combinations the table cannot say: one mode, and the options that go
 * with it. 0, or 2 after the one-line usage error. */
static int check_modes(const struct cmd_def *cmd, const struct probe_opts *o, int first, int argc, char **argv)
{
	bool vflags = o->externs || o->range || o->no_inlines;
	if (first < argc)
		return opts__usage_error(cmd, "unexpected argument '%s'", argv[first]);
	if (o->nmodes != 1)
		return opts__usage_error(cmd, "give exactly one of -F, -L SPEC, -V SPEC, --add DEF, -l, -d PATTERN");
	if ((o->nadds || o->list || o->ndels) &&
	    (o->pf.module || o->pf.vmlinux || o->filter || o->with_asm || vflags || o->pf.source_dir))
		return opts__usage_error(cmd, "--add, -l and -d take only -x BINARY");
	if (o->nadds || o->list || o->ndels)
		return 0;
	if (o->pf.binary && (o->pf.module || o->pf.vmlinux))
		return opts__usage_error(cmd, "-x inspects a user binary; it does not go with -m or -k");
	if (o->with_asm && !o->line)
		return opts__usage_error(cmd, "--asm goes with -L");
	if (vflags && !o->vars)
		return opts__usage_error(cmd, "--externs, --range and --no-inlines go with -V");
	return 0;
}

/* -F, -L or -V on the binary, module or kernel. */
static int inspect(const struct probe_opts *o)
{
	char err[1024] = "";
	unsigned flags = (o->externs ? PF_EXTERNS : 0) | (o->range ? PF_RANGE : 0) |
			 (o->no_inlines ? PF_NO_INLINES : 0);
	struct probe_finder *pf = probe_finder__new(&o->pf, err, sizeof(err));
	if (!pf) {
		fprintf(stderr, "pprobe: %s\n", err[0] ? err : strerror(errno));
		return 1;
	}
	int ret;
	if (o->funcs)
		ret = do_funcs(pf, o->filter);
	else if (o->line)
		ret = do_lines(pf, o->line, o->with_asm, o->pf.source_dir);
	else
		ret = do_vars(pf, o->vars, flags, o->filter);
	probe_finder__delete(pf);
	return ret;
}

int cmd_probe(int argc, char **argv)
{
	/* 'pprobe -x BIN -F' (perf probe's form) or 'pprobe probe -x BIN -F' */
	struct cmd_def cmd = probe_cmd;
	if (strcmp(argv[0], "probe"))
		cmd.prog = "pprobe";
	struct probe_opts o = { .nmodes = 0 };
	int ret, first = opts__parse(&cmd, argc, argv, &o);
	/* a bare library name as record takes it: -x libc.so.6, -x libc */
	char bin[PATH_MAX];
	if (first >= 0 && o.pf.binary && probe_spec__find_binary(o.pf.binary, NULL, bin, sizeof(bin)) == 0)
		o.pf.binary = bin;
	if (first < 0)
		ret = opts__exit_status(first);
	else if ((ret = check_modes(&cmd, &o, first, argc, argv)))
		;	/* said */
	else if (o.nadds)
		ret = do_add(o.pf.binary, o.adds, o.nadds, o.force, o.quiet);
	else if (o.list)
		ret = do_list(o.list_pattern);
	else if (o.ndels)
		ret = do_del(o.dels, o.ndels, o.quiet);
	else
		ret = inspect(&o);
	for (int i = 0; i < o.nadds; i++)
		free(o.adds[i].text);
	free(o.adds);
	free(o.dels);
	return ret;
}
