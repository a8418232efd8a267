/* pprobe flamegraph: folded stacks (files or stdin) -> SVG on stdout, with
 * flamegraph.pl's options. pprobe diff: difffolded.pl, and with --svg the
 * differential flame graph. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "pprobe/flamegraph.h"

enum {
	OPT_TITLE = 1000, OPT_SUBTITLE, OPT_WIDTH, OPT_HEIGHT, OPT_MINWIDTH, OPT_FONTTYPE,
	OPT_FONTSIZE, OPT_FONTWIDTH, OPT_COUNTNAME, OPT_NAMETYPE, OPT_COLORS, OPT_BGCOLORS,
	OPT_HASH, OPT_RANDOM, OPT_REVERSE, OPT_INVERTED, OPT_FLAMECHART, OPT_NEGATE,
	OPT_NOTES, OPT_TOTAL, OPT_FACTOR, OPT_ENCODING, OPT_CP, OPT_NAMEATTR, OPT_HELP,
	OPT_SVG, OPT_NORMALIZE, OPT_STRIPHEX,
};

#define FG_LONG_OPTIONS \
	{ "title", required_argument, NULL, OPT_TITLE }, \
	{ "subtitle", required_argument, NULL, OPT_SUBTITLE }, \
	{ "width", required_argument, NULL, OPT_WIDTH }, \
	{ "height", required_argument, NULL, OPT_HEIGHT }, \
	{ "minwidth", required_argument, NULL, OPT_MINWIDTH }, \
	{ "fonttype", required_argument, NULL, OPT_FONTTYPE }, \
	{ "fontsize", required_argument, NULL, OPT_FONTSIZE }, \
	{ "fontwidth", required_argument, NULL, OPT_FONTWIDTH }, \
	{ "countname", required_argument, NULL, OPT_COUNTNAME }, \
	{ "nametype", required_argument, NULL, OPT_NAMETYPE }, \
	{ "colors", required_argument, NULL, OPT_COLORS }, \
	{ "bgcolors", required_argument, NULL, OPT_BGCOLORS }, \
	{ "hash", no_argument, NULL, OPT_HASH }, \
	{ "random", no_argument, NULL, OPT_RANDOM }, \
	{ "reverse", no_argument, NULL, OPT_REVERSE }, \
	{ "inverted", no_argument, NULL, OPT_INVERTED }, \
	{ "flamechart", no_argument, NULL, OPT_FLAMECHART }, \
	{ "negate", no_argument, NULL, OPT_NEGATE }, \
	{ "notes", required_argument, NULL, OPT_NOTES }, \
	{ "total", required_argument, NULL, OPT_TOTAL }, \
	{ "factor", required_argument, NULL, OPT_FACTOR }, \
	{ "encoding", required_argument, NULL, OPT_ENCODING }, \
	{ "cp", no_argument, NULL, OPT_CP }, \
	{ "nameattr", required_argument, NULL, OPT_NAMEATTR }, \
	{ "help", no_argument, NULL, OPT_HELP }

static const char fg_options_help[] =
	"  --title TEXT       change title text (default \"Flame Graph\")\n"
	"  --subtitle TEXT    second level title (optional)\n"
	"  --width NUM        width of image (default 1200)\n"
	"  --height NUM       height of each frame (default 16)\n"
	"  --minwidth NUM     omit smaller functions: pixels, or percent of the\n"
	"                     total with a trailing % (default 0.1)\n"
	"  --fonttype FONT    font type (default \"Verdana\")\n"
	"  --fontsize NUM     font size (default 12)\n"
	"  --fontwidth NUM    average glyph width relative to fontsize (default 0.59)\n"
	"  --countname TEXT   count type label (default \"samples\")\n"
	"  --nametype TEXT    name type label (default \"Function:\")\n"
	"  --colors PALETTE   hot (default), mem, io, wakeup, chain, java, js, perl,\n"
	"                     red, green, blue, aqua, yellow, purple, orange\n"
	"  --bgcolors COLOR   yellow (default), blue, green, grey, or \"#rrggbb\"\n"
	"  --hash             colors are keyed by function name hash\n"
	"  --random           colors are randomly generated\n"
	"  --reverse          generate stack-reversed flame graph\n"
	"  --inverted         icicle graph\n"
	"  --flamechart       produce a flame chart (input order, adjacent stacks merge)\n"
	"  --negate           switch differential hues (blue<->red)\n"
	"  --notes TEXT       add notes comment in SVG\n"
	"  --total NUM        use NUM as the total count (ignored if below the real one)\n"
	"  --factor NUM       scale counts shown in labels by NUM\n"
	"  --encoding NAME    XML encoding declaration\n";

static int parse_double(const char *opt, const char *s, double *v)
{
	char *end;
	errno = 0;
	double d = strtod(s, &end);
	if (errno || end == s || *end) {
		fprintf(stderr, "pprobe: --%s: '%s' is not a number\n", opt, s);
		return -1;
	}
	*v = d;
	return 0;
}

static int parse_uint(const char *opt, const char *s, unsigned *v)
{
	char *end;
	errno = 0;
	long l = strtol(s, &end, 10);
	if (errno || end == s || *end || l <= 0 || l > 1000000) {
		fprintf(stderr, "pprobe: --%s: '%s' is not a positive integer\n", opt, s);
		return -1;
	}
	*v = (unsigned)l;
	return 0;
}

/* Applies one flamegraph option. 1: handled, 0: not a flamegraph option,
 * -1: bad value (message printed). */
static int fg_option(struct flamegraph_opts *o, int c, const char *arg)
{
	switch (c) {
	case OPT_TITLE: o->title = arg; return 1;
	case OPT_SUBTITLE: o->subtitle = arg; return 1;
	case OPT_WIDTH: return parse_uint("width", arg, &o->width) ? -1 : 1;
	case OPT_HEIGHT: return parse_uint("height", arg, &o->height) ? -1 : 1;
	case OPT_MINWIDTH: {
		/* /^([0-9.]+)%?$/ */
		size_t n = strlen(arg);
		bool pct = n && arg[n - 1] == '%';
		size_t digits = strspn(arg, "0123456789.");
		char *end;
		double v = strtod(arg, &end);
		if (!n || digits != n - pct || end != arg + digits || !digits) {
			fprintf(stderr, "pprobe: --minwidth: '%s' is not a number of pixels "
				"or a percentage like 0.5%%\n", arg);
			return -1;
		}
		o->minwidth = v;
		o->minwidth_percent = pct;
		return 1;
	}
	case OPT_FONTTYPE: o->fonttype = arg; return 1;
	case OPT_FONTSIZE: return parse_double("fontsize", arg, &o->fontsize) ? -1 : 1;
	case OPT_FONTWIDTH: return parse_double("fontwidth", arg, &o->fontwidth) ? -1 : 1;
	case OPT_COUNTNAME: o->countname = arg; return 1;
	case OPT_NAMETYPE: o->nametype = arg; return 1;
	case OPT_COLORS: o->colors = arg; return 1;
	case OPT_BGCOLORS: o->bgcolors = arg; return 1;
	case OPT_HASH: o->hash = true; return 1;
	case OPT_RANDOM: o->random = true; return 1;
	case OPT_REVERSE: o->reverse = true; return 1;
	case OPT_INVERTED: o->inverted = true; return 1;
	case OPT_FLAMECHART: o->flamechart = true; return 1;
	case OPT_NEGATE: o->negate = true; return 1;
	case OPT_NOTES: o->notes = arg; return 1;
	case OPT_TOTAL: return parse_double("total", arg, &o->total) ? -1 : 1;
	case OPT_FACTOR: return parse_double("factor", arg, &o->factor) ? -1 : 1;
	case OPT_ENCODING: o->encoding = arg; return 1;
	case OPT_CP:
	case OPT_NAMEATTR:
		fprintf(stderr, "pprobe: --%s (a palette or attribute file) is not supported; "
			"use --hash for colours that are stable across graphs\n",
			c == OPT_CP ? "cp" : "nameattr");
		return -1;
	}
	return 0;
}

/* flamegraph__new() failed with EINVAL: say which option is wrong. */
static void explain_opts(const struct flamegraph_opts *o)
{
	static const char *const pals[] = { "hot", "mem", "io", "wakeup", "chain", "java",
					    "js", "perl", "red", "green", "blue", "aqua",
					    "yellow", "purple", "orange" };
	bool known = false;
	for (size_t i = 0; i < sizeof(pals) / sizeof(pals[0]); i++)
		known |= !strcmp(o->colors, pals[i]);
	if (!known)
		fprintf(stderr, "pprobe: --colors: unknown palette '%s' (hot, mem, io, wakeup, "
			"chain, java, js, perl, red, green, blue, aqua, yellow, purple, orange)\n",
			o->colors);
	else if (o->notes && strpbrk(o->notes, "<>"))
		fprintf(stderr, "pprobe: --notes: the notes text can't contain < or >\n");
	else if (o->bgcolors && *o->bgcolors)
		fprintf(stderr, "pprobe: --bgcolors: '%s' is not yellow, blue, green, grey or "
			"#rrggbb\n", o->bgcolors);
	else
		fprintf(stderr, "pprobe: invalid flame graph option (sizes must be positive, "
			"--encoding a plain name like UTF-8)\n");
}

static int read_folded(struct flamegraph *fg, FILE *in, const char *name)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int err = 0;
	while ((n = getline(&line, &cap, in)) > 0) {
		err = flamegraph__add_line(fg, line);
		if (err)
			break;
	}
	if (!err && ferror(in))
		err = -EIO;
	free(line);
	if (err)
		fprintf(stderr, "pprobe flamegraph: reading %s: %s\n", name, strerror(-err));
	return err;
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

static void flamegraph_usage(FILE *f)
{
	fprintf(f, "usage: pprobe flamegraph [options] [FILE...] > graph.svg\n\n"
		"Draws folded stacks ('comm;outer;...;leaf COUNT' lines, or two counts\n"
		"'... BEFORE AFTER' for a differential) as an interactive SVG flame graph,\n"
		"like flamegraph.pl. Reads stdin when no FILE is given.\n\noptions:\n%s"
		"  --help             this message\n", fg_options_help);
}

int cmd_flamegraph(int argc, char **argv)
{
	static const struct option longopts[] = { FG_LONG_OPTIONS, { 0 } };
	struct flamegraph_opts o;
	flamegraph_opts__init(&o);
	optind = 1;
	int c;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (c == OPT_HELP) {
			flamegraph_usage(stdout);
			return 0;
		}
		int r = fg_option(&o, c, optarg);
		if (r < 0)
			return 2;
		if (r == 0) {
			flamegraph_usage(stderr);
			return 2;
		}
	}
	struct flamegraph *fg = flamegraph__new(&o);
	if (!fg) {
		if (errno == EINVAL) {
			explain_opts(&o);
			return 2;
		}
		fprintf(stderr, "pprobe flamegraph: %s\n", strerror(errno));
		return 1;
	}
	static char obuf[1 << 16];
	setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
	int status = 0;
	if (optind == argc) {
		if (read_folded(fg, stdin, "stdin"))
			status = 1;
	}
	for (int i = optind; i < argc && !status; i++) {
		FILE *f = strcmp(argv[i], "-") ? fopen(argv[i], "r") : stdin;
		if (!f) {
			fprintf(stderr, "pprobe flamegraph: cannot open %s: %s\n", argv[i],
				strerror(errno));
			status = 1;
			break;
		}
		if (read_folded(fg, f, argv[i]))
			status = 1;
		if (f != stdin)
			fclose(f);
	}
	if (!status) {
		if (flamegraph__ignored(fg))
			fprintf(stderr, "pprobe flamegraph: ignored %llu lines with invalid format "
				"(not 'stack COUNT')\n", (unsigned long long)flamegraph__ignored(fg));
		status = write_svg(fg, "flamegraph");
	}
	flamegraph__delete(fg);
	return status;
}

static void diff_usage(FILE *f)
{
	fprintf(f, "usage: pprobe diff [-n] [-s] BEFORE.folded AFTER.folded > diff.folded\n"
		"       pprobe diff --svg [-n] [-s] [flamegraph options] BEFORE AFTER > diff.svg\n\n"
		"Joins two folded profiles like difffolded.pl: one line per stack,\n"
		"'stack COUNT_BEFORE COUNT_AFTER' (0 where a side lacks the stack), sorted.\n"
		"With --svg, draws the differential flame graph instead: widths from AFTER,\n"
		"red where a frame grew, blue where it shrank (--negate swaps the hues).\n"
		"To see what disappeared, swap the files and add --negate.\n\n"
		"options:\n"
		"  -n, --normalize    scale BEFORE's counts so both totals match\n"
		"  -s, --strip-hex    replace hex numbers (addresses) 0x... before joining\n"
		"  --svg              write the red/blue differential flame graph\n"
		"  -h, --help         this message\n\n"
		"flame graph options (with --svg):\n%s", fg_options_help);
}

static int read_side(struct folded_diff *d, int side, const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	if (!f) {
		fprintf(stderr, "pprobe diff: cannot open %s: %s\n", path, strerror(errno));
		return -1;
	}
	char *line = NULL;
	size_t cap = 0;
	int err = 0;
	while (getline(&line, &cap, f) > 0)
		if ((err = folded_diff__add_line(d, side, line)))
			break;
	if (!err && ferror(f))
		err = -EIO;
	free(line);
	if (f != stdin)
		fclose(f);
	if (err) {
		fprintf(stderr, "pprobe diff: reading %s: %s\n", path, strerror(-err));
		return -1;
	}
	return 0;
}

int cmd_diff(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "svg", no_argument, NULL, OPT_SVG },
		{ "normalize", no_argument, NULL, 'n' },
		{ "strip-hex", no_argument, NULL, 's' },
		FG_LONG_OPTIONS, { 0 }
	};
	struct flamegraph_opts o;
	flamegraph_opts__init(&o);
	struct folded_diff_opts dopts = { 0 };
	bool svg = false, fgopts = false;
	optind = 1;
	int c;
	while ((c = getopt_long(argc, argv, "nsh", longopts, NULL)) != -1) {
		switch (c) {
		case 'n': dopts.normalize = true; continue;
		case 's': dopts.strip_hex = true; continue;
		case OPT_SVG: svg = true; continue;
		case 'h': case OPT_HELP: diff_usage(stdout); return 0;
		}
		int r = fg_option(&o, c, optarg);
		if (r < 0)
			return 2;
		if (r == 0) {
			diff_usage(stderr);
			return 2;
		}
		fgopts = true;
	}
	if (argc - optind != 2) {
		fprintf(stderr, "pprobe diff: needs two folded files, BEFORE and AFTER\n\n");
		diff_usage(stderr);
		return 2;
	}
	if (fgopts && !svg) {
		fprintf(stderr, "pprobe diff: flame graph options need --svg\n");
		return 2;
	}
	struct flamegraph *fg = NULL;
	struct folded_diff *d = folded_diff__new(&dopts);
	int status = 1;
	if (!d) {
		fprintf(stderr, "pprobe diff: %s\n", strerror(errno));
		goto out;
	}
	if (read_side(d, 0, argv[optind]) || read_side(d, 1, argv[optind + 1]))
		goto out;
	if (folded_diff__ignored(d))
		fprintf(stderr, "pprobe diff: ignored %llu lines with invalid format "
			"(not 'stack COUNT')\n", (unsigned long long)folded_diff__ignored(d));
	static char obuf[1 << 16];
	setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
	if (!svg) {
		int err = folded_diff__write(d, stdout);
		if (err) {
			fprintf(stderr, "pprobe diff: writing: %s\n", strerror(-err));
			goto out;
		}
		status = 0;
		goto out;
	}
	fg = flamegraph__new(&o);
	if (!fg) {
		if (errno == EINVAL) {
			explain_opts(&o);
			status = 2;
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
