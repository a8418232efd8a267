/* pprobe flamegraph: folded stacks (files or stdin) -> SVG on stdout, with
 * flamegraph.pl's options. pprobe diff: difffolded.pl, and with --svg the
 * differential flame graph. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "options.h"
#include "profile_in.h"
#include "report.h"
#include "util.h"
#include "pprobe/flamegraph.h"

/* The flame graph options of flamegraph and diff (flamegraph.pl's). Both
 * commands' options structs start with a struct fg_cli. */
struct fg_cli {
	struct flamegraph_opts fo;
	bool given;		/* any of them */
};

static int parse_uint(const struct opt *o, void *opts, const char *arg, char *err, size_t errlen)
{
	char *end;
	errno = 0;
	long l = strtol(arg, &end, 10);
	if (errno || end == arg || *end || l <= 0 || l > 1000000)
		return seterr(err, errlen, "--%s: '%s' is not a positive integer", o->name, arg), -EINVAL;
	*OPT_FIELD(o, opts, unsigned) = (unsigned)l;
	return 0;
}

static int parse_number(const struct opt *o, void *opts, const char *arg, char *err, size_t errlen)
{
	char *end;
	errno = 0;
	double d = strtod(arg, &end);
	if (errno || end == arg || *end)
		return seterr(err, errlen, "--%s: '%s' is not a number", o->name, arg), -EINVAL;
	*OPT_FIELD(o, opts, double) = d;
	return 0;
}

static int parse_minwidth(const struct opt *o, void *opts, const char *arg, char *err, size_t errlen)
{
	(void)o;
	struct fg_cli *fg = opts;
	/* /^([0-9.]+)%?$/ */
	size_t n = strlen(arg);
	bool pct = n && arg[n - 1] == '%';
	size_t digits = strspn(arg, "0123456789.");
	char *end;
	double v = strtod(arg, &end);
	if (!n || digits != n - pct || end != arg + digits || !digits)
		return seterr(err, errlen, "--minwidth: '%s' is not a number of pixels or a percentage like 0.5%%",
			      arg), -EINVAL;
	fg->fo.minwidth = v;
	fg->fo.minwidth_percent = pct;
	return 0;
}

static int unsupported(const struct opt *o, void *opts, const char *arg, char *err, size_t errlen)
{
	(void)opts, (void)arg;
	return seterr(err, errlen, "--%s (a palette or attribute file) is not supported; use --hash for colours "
		      "that are stable across graphs", o->name), -EINVAL;
}

#define FG_GIVEN .given_off = offsetof(struct fg_cli, given) + 1
#define FG_STRING(n, a, field, h) \
	{ .kind = OPT_KIND_STRING, .name = n, .arg = a, .off = offsetof(struct fg_cli, fo.field), FG_GIVEN, .help = h }
#define FG_FLAG(n, field, h) \
	{ .kind = OPT_KIND_FLAG, .name = n, .off = offsetof(struct fg_cli, fo.field), FG_GIVEN, .help = h }
#define FG_FN(n, a, field, f, h) \
	{ .kind = OPT_KIND_FN, .name = n, .arg = a, .off = offsetof(struct fg_cli, fo.field), .fn = f, FG_GIVEN, \
	  .help = h }
#define FG_OPTIONS \
	FG_STRING("title", "TEXT", title, "change title text (default \"Flame Graph\")"), \
	FG_STRING("subtitle", "TEXT", subtitle, "second level title (optional)"), \
	FG_FN("width", "NUM", width, parse_uint, "width of image (default 1200)"), \
	FG_FN("height", "NUM", height, parse_uint, "height of each frame (default 16)"), \
	FG_FN("minwidth", "NUM", minwidth, parse_minwidth, \
	      "omit smaller functions: pixels, or percent of the total with a trailing % (default 0.1)"), \
	FG_STRING("fonttype", "FONT", fonttype, "font type (default \"Verdana\")"), \
	FG_FN("fontsize", "NUM", fontsize, parse_number, "font size (default 12)"), \
	FG_FN("fontwidth", "NUM", fontwidth, parse_number, \
	      "average glyph width relative to fontsize (default 0.59)"), \
	FG_STRING("countname", "TEXT", countname, "count type label (default \"samples\")"), \
	FG_STRING("nametype", "TEXT", nametype, "name type label (default \"Function:\")"), \
	FG_STRING("colors", "PALETTE", colors, "hot (default), mem, io, wakeup, chain, java, js, perl, red, " \
		  "green, blue, aqua, yellow, purple, orange"), \
	FG_STRING("bgcolors", "COLOR", bgcolors, "yellow (default), blue, green, grey, or \"#rrggbb\""), \
	FG_FLAG("hash", hash, "colors are keyed by function name hash"), \
	FG_FLAG("random", random, "colors are randomly generated"), \
	FG_FLAG("reverse", reverse, "generate stack-reversed flame graph"), \
	FG_FLAG("inverted", inverted, "icicle graph"), \
	FG_FLAG("flamechart", flamechart, "produce a flame chart (input order, adjacent stacks merge)"), \
	FG_FLAG("negate", negate, "switch differential hues (blue<->red)"), \
	FG_STRING("notes", "TEXT", notes, "add notes comment in SVG"), \
	FG_FN("total", "NUM", total, parse_number, "use NUM as the total count (ignored if below the real one)"), \
	FG_FN("factor", "NUM", factor, parse_number, "scale counts shown in labels by NUM"), \
	FG_STRING("encoding", "NAME", encoding, "XML encoding declaration"), \
	FG_FN("cp", NULL, hash, unsupported, "not supported (flamegraph.pl's palette file): --hash instead"), \
	FG_FN("nameattr", "FILE", hash, unsupported, "not supported (flamegraph.pl's attribute file)")

/* flamegraph__new() failed with EINVAL: say which option is wrong. Returns 2. */
static int explain_opts(const struct cmd_def *cmd, const struct flamegraph_opts *o)
{
	static const char *const pals[] = { "hot", "mem", "io", "wakeup", "chain", "java",
					    "js", "perl", "red", "green", "blue", "aqua",
					    "yellow", "purple", "orange" };
	bool known = false;
	for (size_t i = 0; i < sizeof(pals) / sizeof(pals[0]); i++)
		known |= !strcmp(o->colors, pals[i]);
	if (!known)
		return opts__usage_error(cmd, "--colors: unknown palette '%s' (hot, mem, io, wakeup, "
					 "chain, java, js, perl, red, green, blue, aqua, yellow, purple, orange)",
					 o->colors);
	if (o->notes && strpbrk(o->notes, "<>"))
		return opts__usage_error(cmd, "--notes: the notes text can't contain < or >");
	if (o->bgcolors && *o->bgcolors)
		return opts__usage_error(cmd, "--bgcolors: '%s' is not yellow, blue, green, grey or #rrggbb",
					 o->bgcolors);
	return opts__usage_error(cmd, "invalid flame graph option (sizes must be positive, --encoding a plain "
				 "name like UTF-8)");
}

/* A profile read back (profile_in.h): folded lines go to the flame graph as
 * they are read, pprof samples as the folded lines record writes. */
struct fg_reader {
	int (*add_line)(void *obj, int side, const char *line);
	void *obj;
	int side;
	char *buf;
	size_t cap;
};

static int fg_reader__line(void *ctx, const char *line)
{
	struct fg_reader *r = ctx;
	return r->add_line(r->obj, r->side, line);
}

static int fg_reader__sample(void *ctx, const struct psample *s)
{
	struct fg_reader *r = ctx;
	size_t n = psample__folded(s, &r->buf, &r->cap);
	char num[40];
	int l = snprintf(num, sizeof(num), " %.15g", s->weight);
	if (n + (size_t)l + 1 > r->cap) {
		r->cap = n + (size_t)l + 1;
		r->buf = pp_xrealloc(r->buf, r->cap);
	}
	memcpy(r->buf + n, num, (size_t)l + 1);
	return r->add_line(r->obj, r->side, r->buf);
}

/* Reads path ("-": stdin) into obj; says why not as WHAT. Lines the reader
 * itself refused (a NUL byte in them) are added to *ignored. */
static int read_profile(const char *what, const char *path, int (*add_line)(void *, int, const char *), void *obj,
			int side, uint64_t *ignored)
{
	struct fg_reader r = { .add_line = add_line, .obj = obj, .side = side };
	struct profile_info info;
	char err[512];
	int e = profile_in__read_lines(path, fg_reader__line, fg_reader__sample, &r, &info, err, sizeof(err));
	*ignored += info.ignored;
	free(r.buf);
	if (e > 0)
		snprintf(err, sizeof(err), "reading %s: %s", path, strerror(e));
	if (e)
		fprintf(stderr, "pprobe %s: %s\n", what, err);
	return e;
}

static int fg_add(void *fg, int side, const char *line)
{
	(void)side;
	return flamegraph__add_line(fg, line);
}

static int diff_add(void *d, int side, const char *line)
{
	return folded_diff__add_line(d, side, line);
}

static int write_svg(struct flamegraph *fg, const char *what)
{
	int err = flamegraph__write_svg(fg, stdout);
	if (err == -ENODATA) {
		fprintf(stderr, "pprobe %s: no stack counts found in the input; expected folded "
			"lines like 'comm;outer;inner 42'\n", what);
		return 1;
	}
	if (err) {
		fprintf(stderr, "pprobe %s: writing the SVG: %s\n", what, strerror(-err));
		return 1;
	}
	return 0;
}

static const struct opt flamegraph_table[] = {
	FG_OPTIONS,
	OPT_END(),
};

const struct cmd_def flamegraph_cmd = {
	.name = "flamegraph",
	.prog = "pprobe flamegraph",
	.summary = "draw folded stacks as an interactive SVG flame graph",
	.usage = "pprobe flamegraph [options] [FILE...] > graph.svg",
	.about = "Draws folded stacks ('comm;outer;...;leaf COUNT' lines, or two counts '... BEFORE AFTER' "
		 "for a differential) as an interactive SVG flame graph, like flamegraph.pl. Reads stdin when "
		 "no FILE is given.",
	.opts = flamegraph_table,
};

int cmd_flamegraph(int argc, char **argv)
{
	struct fg_cli cli = { .given = false };
	flamegraph_opts__init(&cli.fo);
	int first = opts__parse(&flamegraph_cmd, argc, argv, &cli);
	if (first < 0)
		return opts__exit_status(first);
	struct flamegraph *fg = flamegraph__new(&cli.fo);
	if (!fg) {
		if (errno == EINVAL)
			return explain_opts(&flamegraph_cmd, &cli.fo);
		fprintf(stderr, "pprobe flamegraph: %s\n", strerror(errno));
		return 1;
	}
	static char obuf[1 << 16];
	setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
	int status = 0;
	uint64_t ignored = 0;
	if (first == argc && read_profile("flamegraph", "-", fg_add, fg, 0, &ignored))
		status = 1;
	for (int i = first; i < argc && !status; i++)
		if (read_profile("flamegraph", argv[i], fg_add, fg, 0, &ignored))
			status = 1;
	if (!status) {
		ignored += flamegraph__ignored(fg);
		if (ignored)
			fprintf(stderr, "pprobe flamegraph: ignored %llu lines with invalid format "
				"(not 'stack COUNT')\n", (unsigned long long)ignored);
		status = write_svg(fg, "flamegraph");
	}
	flamegraph__delete(fg);
	return status;
}

struct diff_opts {
	struct fg_cli fg;	/* first: FG_OPTIONS' offsets are into it */
	struct folded_diff_opts d;
	bool svg, table;
};

static const struct opt diff_table[] = {
	OPT_FLAG('n', "normalize", struct diff_opts, d.normalize, "scale BEFORE's counts so both totals match"),
	OPT_FLAG('s', "strip-hex", struct diff_opts, d.strip_hex, "replace hex numbers (addresses) 0x... before joining"),
	OPT_FLAG(0, "no-comm", struct diff_opts, d.no_comm,
		 "ignore the program name (the root frame), so ./app.orig and ./app compare"),
	OPT_FLAG(0, "svg", struct diff_opts, svg, "write the red/blue differential flame graph"),
	OPT_FLAG(0, "table", struct diff_opts, table,
		 "perf diff's view instead: per function (object, symbol) its self share of each total "
		 "(Baseline, New) and the change (Delta), by the size of the change"),
	OPT_GROUP("Flame graph options (with --svg):"),
	FG_OPTIONS,
	OPT_END(),
};

const struct cmd_def diff_cmd = {
	.name = "diff",
	.prog = "pprobe diff",
	.summary = "compare two folded profiles (difffolded), optionally as SVG",
	.usage = "pprobe diff [-n] [-s] [--no-comm] BEFORE.folded AFTER.folded > diff.folded\n"
		 "pprobe diff --svg [-n] [-s] [--no-comm] [flame graph options] BEFORE AFTER > diff.svg\n"
		 "pprobe diff --table BEFORE AFTER",
	.about = "Joins two folded profiles like difffolded.pl: one line per stack, 'stack COUNT_BEFORE "
		 "COUNT_AFTER' (0 where a side lacks the stack), sorted. With --svg, draws the differential "
		 "flame graph instead: widths from AFTER, red where a frame grew, blue where it shrank "
		 "(--negate swaps the hues). To see what disappeared, swap the files and add --negate. "
		 "With --table, prints perf diff's per-function table instead. The two-column output stays "
		 "the default, on a terminal too, so that what a pipe to flamegraph.pl gets never depends on "
		 "where stdout goes. Each file is folded or pprof.",
	.opts = diff_table,
};

/* perf diff's table: both profiles aggregated by (dso, sym), self shares. */
static int write_diff_table(const char *before, const char *after)
{
	struct report_opts ro = { .keys = { REPORT_DSO, REPORT_SYM }, .nr_keys = 2 };
	struct report *r[2] = { report__new(&ro), report__new(&ro) };
	const char *path[2] = { before, after };
	char err[512];
	int status = 1;
	for (int i = 0; i < 2; i++) {
		struct profile_info info;
		if (profile_in__read(path[i], report__add, r[i], &info, err, sizeof(err))) {
			fprintf(stderr, "pprobe diff: %s\n", err);
			goto out;
		}
		if (info.ignored)
			fprintf(stderr, "pprobe diff: %s: ignored %llu lines with invalid format (not 'stack COUNT')\n",
				path[i], (unsigned long long)info.ignored);
		if (!report__samples(r[i])) {
			fprintf(stderr, "pprobe diff: no samples in %s\n", path[i]);
			goto out;
		}
	}
	printf("# pprobe diff: Baseline %s (%.15g), New %s (%.15g)\n#\n", before, report__total(r[0]), after,
	       report__total(r[1]));
	report__write_diff(r[0], r[1], stdout, 0);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "pprobe diff: writing: %s\n", strerror(stream__write_errno(stdout)));
		goto out;
	}
	status = 0;
out:
	report__delete(r[0]);
	report__delete(r[1]);
	return status;
}

int cmd_diff(int argc, char **argv)
{
	struct diff_opts o = { .svg = false };
	flamegraph_opts__init(&o.fg.fo);
	int first = opts__parse(&diff_cmd, argc, argv, &o);
	if (first < 0)
		return opts__exit_status(first);
	if (argc - first != 2)
		return opts__usage_error(&diff_cmd, "needs two folded files, BEFORE and AFTER");
	if (o.fg.given && !o.svg)
		return opts__usage_error(&diff_cmd, "flame graph options need --svg");
	if (o.table && (o.svg || o.d.normalize || o.d.strip_hex))
		return opts__usage_error(&diff_cmd, "--table compares each side's own shares: no --svg, -n or -s");
	if (o.table)
		return write_diff_table(argv[first], argv[first + 1]);
	struct flamegraph *fg = NULL;
	struct folded_diff *d = folded_diff__new(&o.d);
	int status = 1;
	if (!d) {
		fprintf(stderr, "pprobe diff: %s\n", strerror(errno));
		goto out;
	}
	uint64_t ignored = 0;
	if (read_profile("diff", argv[first], diff_add, d, 0, &ignored) ||
	    read_profile("diff", argv[first + 1], diff_add, d, 1, &ignored))
		goto out;
	ignored += folded_diff__ignored(d);
	if (ignored)
		fprintf(stderr, "pprobe diff: ignored %llu lines with invalid format "
			"(not 'stack COUNT')\n", (unsigned long long)ignored);
	static char obuf[1 << 16];
	setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
	if (!o.svg) {
		int err = folded_diff__write(d, stdout);
		if (err) {
			fprintf(stderr, "pprobe diff: writing: %s\n", strerror(-err));
			goto out;
		}
		status = 0;
		goto out;
	}
	fg = flamegraph__new(&o.fg.fo);
	if (!fg) {
		if (errno == EINVAL) {
			status = explain_opts(&diff_cmd, &o.fg.fo);
		} else {
			fprintf(stderr, "pprobe diff: %s\n", strerror(errno));
		}
		goto out;
	}
	int err = folded_diff__to_flamegraph(d, fg);
	if (err) {
		fprintf(stderr, "pprobe diff: %s\n", strerror(-err));
		goto out;
	}
	status = write_svg(fg, "diff");
out:
	flamegraph__delete(fg);
	folded_diff__delete(d);
	return status;
}
