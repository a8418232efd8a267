/* The option tables of the commands -> optstring, struct option[], parsing
 * and --help. See options.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "util.h"

#define HELP_WIDTH 80
#define HELP_MAX_COLUMN 28	/* option spellings wider than this get a line of their own */
#define KEY_LONG_ONLY 256	/* + the entry's index: getopt's val of a long-only option */
#define KEY_HELP 'h'
#define KEY_LIST_OPTS 255	/* neither a letter nor KEY_LONG_ONLY + i */

void opt_list__free(struct opt_list *l)
{
	free(l->v);
	l->v = NULL;
	l->nr = 0;
}

static bool is_option(const struct opt *o)
{
	return o->kind != OPT_KIND_END && o->kind != OPT_KIND_GROUP;
}

static int key_of(const struct opt *table, const struct opt *o)
{
	return o->key ? o->key : KEY_LONG_ONLY + (int)(o - table);
}

/* "-e, --event EVENT", "    --call-graph MODE", "-l, --list [PATTERN]" */
static void spelling(const struct opt *o, char *buf, size_t len)
{
	size_t n = 0;
	if (o->key)
		n += (size_t)snprintf(buf + n, len - n, "-%c%s", o->key, o->name ? ", " : "");
	else
		n += (size_t)snprintf(buf + n, len - n, "    ");
	if (o->name && n < len)
		n += (size_t)snprintf(buf + n, len - n, "--%s", o->name);
	if (o->arg && n < len)
		snprintf(buf + n, len - n, o->optional_arg || o->arg_if ? " [%s]" : " %s", o->arg);
}

/* Writes TEXT from column COL (the cursor is there) to HELP_WIDTH: lines
 * split at '\n', words wrapped; a line's leading spaces indent its wrapped
 * continuation too. */
static void wrap(FILE *f, const char *text, int col)
{
	const char *line = text;
	bool first_line = true;
	while (line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		int indent = (int)strspn(line, " ");
		int at = col;
		if (!first_line)
			fprintf(f, "%*s", col, "");
		first_line = false;
		size_t i = 0;
		bool start = true;
		while (i < len) {
			size_t sp = i;
			while (sp < len && line[sp] == ' ')
				sp++;
			size_t w = sp;
			while (w < len && line[w] != ' ')
				w++;
			if (w == sp)
				break;	/* trailing spaces */
			int gap = (int)(sp - i);	/* the line's indent, or the spaces between words */
			if (!start && at + gap + (int)(w - sp) > HELP_WIDTH) {
				fprintf(f, "\n%*s", col + indent, "");
				at = col + indent;
				gap = 0;
			}
			fprintf(f, "%*s%.*s", gap, "", (int)(w - sp), line + sp);
			at += gap + (int)(w - sp);
			start = false;
			i = w;
		}
		fputc('\n', f);
		line = nl ? nl + 1 : NULL;
	}
}

static const struct opt help_opt = {
	.kind = OPT_KIND_FLAG, .key = KEY_HELP, .name = "help", .help = "this help, on stdout",
};

static void print_opt(FILE *f, const struct opt *o, int col)
{
	char sp[128];
	spelling(o, sp, sizeof(sp));
	int w = fprintf(f, "  %s", sp);
	if (w + 2 > col) {
		fputc('\n', f);
		w = 0;
	}
	fprintf(f, "%*s", col - w, "");
	wrap(f, o->help ? o->help : "", col);
}

void opts__help(const struct cmd_def *cmd, FILE *f)
{
	int col = 0;
	for (const struct opt *o = cmd->opts; o->kind != OPT_KIND_END; o++) {
		char sp[128];
		if (!is_option(o))
			continue;
		spelling(o, sp, sizeof(sp));
		int w = 2 + (int)strlen(sp) + 2;
		if (w > col && w <= HELP_MAX_COLUMN)
			col = w;
	}
	if (col < 20)
		col = 20;
	fprintf(f, "usage: ");
	for (const char *u = cmd->usage; u;) {
		const char *nl = strchr(u, '\n');
		int len = nl ? (int)(nl - u) : (int)strlen(u);
		fprintf(f, "%s%.*s\n", u == cmd->usage ? "" : "       ", len, u);
		u = nl ? nl + 1 : NULL;
	}
	if (cmd->about) {
		fputc('\n', f);
		wrap(f, cmd->about, 0);
	}
	fputc('\n', f);
	for (const struct opt *o = cmd->opts; o->kind != OPT_KIND_END; o++) {
		if (o->kind == OPT_KIND_GROUP)
			wrap(f, o->help, 0);
		else
			print_opt(f, o, col);
	}
	print_opt(f, &help_opt, col);
	if (cmd->footer) {
		fputc('\n', f);
		fputs(cmd->footer, f);
	}
}

static void usage_line(const struct cmd_def *cmd, const char *fmt, va_list ap)
{
	char msg[1024];
	vsnprintf(msg, sizeof(msg), fmt, ap);
	fprintf(stderr, "%s: %s (see 'pprobe %s --help')\n", cmd->prog, msg, cmd->name);
}

int opts__usage_error(const struct cmd_def *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	usage_line(cmd, fmt, ap);
	va_end(ap);
	return 2;
}

static int usage_error(const struct cmd_def *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int usage_error(const struct cmd_def *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	usage_line(cmd, fmt, ap);
	va_end(ap);
	return OPTS_USAGE;
}

/* --list-opts: each option's spellings and argument, one option a line:
 * "-o --output FILE", "--call-graph MODE", "-g", "-l --list [PATTERN]". */
static void list_opts(const struct cmd_def *cmd)
{
	for (const struct opt *o = cmd->opts;; o++) {
		if (o->kind == OPT_KIND_END)
			o = &help_opt;
		else if (!is_option(o))
			continue;
		if (o->key)
			printf("-%c%s", o->key, o->name ? " " : "");
		if (o->name)
			printf("--%s", o->name);
		if (o->arg)
			printf(o->optional_arg || o->arg_if ? " [%s]" : " %s", o->arg);
		putchar('\n');
		if (o == &help_opt)
			break;
	}
}

/* A '--NAME[=ARG]' getopt refused: unknown, ambiguous, or with a value it
 * takes none of. */
static int bad_long(const struct cmd_def *cmd, const char *arg)
{
	size_t len = strcspn(arg + 2, "=");
	const char *name = arg + 2;
	char cands[256] = "", best[64] = "", given[64];
	const char *match = NULL;
	int nr = 0, bestd = 3;
	snprintf(given, sizeof(given), "%.*s", (int)len, name);
	for (const struct opt *o = cmd->opts;; o++) {
		if (o->kind == OPT_KIND_END)
			o = &help_opt;
		if (is_option(o) && o->name) {
			if (!strcmp(o->name, given)) {
				nr = 1;
				match = o->name;
				break;
			}
			if (!strncmp(o->name, given, len)) {
				size_t n = strlen(cands);
				match = o->name;
				snprintf(cands + n, sizeof(cands) - n, "%s--%s", nr ? ", " : "", o->name);
				nr++;
			}
			int d = edit_distance(given, o->name, 2);
			if (d < bestd) {
				bestd = d;
				snprintf(best, sizeof(best), "%s", o->name);
			}
		}
		if (o == &help_opt)
			break;
	}
	if (nr > 1)
		return usage_error(cmd, "ambiguous option '--%s': %s", given, cands);
	if (nr == 1 && name[len] == '=')	/* the option, or a unique prefix of it, has no value */
		return usage_error(cmd, "option '--%s' takes no value", match);
	if (best[0])
		return usage_error(cmd, "unknown option '--%s'; did you mean '--%s'?", given, best);
	return usage_error(cmd, "unknown option '--%s'", given);
}

static const struct opt *find_key(const struct opt *table, int key)
{
	for (const struct opt *o = table; o->kind != OPT_KIND_END; o++)
		if (is_option(o) && key_of(table, o) == key)
			return o;
	return NULL;
}

static int apply(const struct cmd_def *cmd, const struct opt *o, void *opts, const char *arg)
{
	char err[1024] = "";
	if (o->given_off)
		*(bool *)((char *)opts + o->given_off - 1) = true;
	switch (o->kind) {
	case OPT_KIND_FLAG:
		*OPT_FIELD(o, opts, bool) = true;
		return 0;
	case OPT_KIND_SET:
		*OPT_FIELD(o, opts, int) = o->value;
		return 0;
	case OPT_KIND_STRING:
		*OPT_FIELD(o, opts, const char *) = arg;
		return 0;
	case OPT_KIND_LIST: {
		struct opt_list *l = OPT_FIELD(o, opts, struct opt_list);
		l->v = pp_xrealloc(l->v, (l->nr + 1) * sizeof(*l->v));
		l->v[l->nr++] = (struct opt_item){ .key = o->key, .name = o->name, .arg = arg };
		return 0;
	}
	case OPT_KIND_FN:
		if (o->fn(o, opts, arg, err, sizeof(err)) == 0)
			return 0;
		return usage_error(cmd, "%s", err[0] ? err : "bad option");
	default:
		return 0;
	}
}

int opts__parse(const struct cmd_def *cmd, int argc, char **argv, void *opts)
{
	size_t nr = 0;
	for (const struct opt *o = cmd->opts; o->kind != OPT_KIND_END; o++)
		nr++;
	char *optstring = pp_xmalloc(3 * nr + 8);
	struct option *longopts = pp_xcalloc(nr + 3, sizeof(*longopts));
	size_t s = 0, l = 0;
	optstring[s++] = cmd->word ? '-' : '+';	/* words in order, or options end at the first word */
	optstring[s++] = ':';			/* a missing argument is ':', not '?' */
	for (const struct opt *o = cmd->opts; o->kind != OPT_KIND_END; o++) {
		if (!is_option(o))
			continue;
		int has = !o->arg ? no_argument : o->optional_arg ? optional_argument : required_argument;
		if (o->key) {
			optstring[s++] = (char)o->key;
			if (has != no_argument)
				optstring[s++] = ':';
			if (has == optional_argument)
				optstring[s++] = ':';
		}
		if (o->name)	/* arg_if: --NAME=ARG, or the next word (below) */
			longopts[l++] = (struct option){ o->name, o->arg_if ? optional_argument : has, NULL,
							 key_of(cmd->opts, o) };
	}
	optstring[s++] = KEY_HELP;
	optstring[s] = '\0';
	longopts[l++] = (struct option){ "help", no_argument, NULL, KEY_HELP };
	longopts[l++] = (struct option){ "list-opts", no_argument, NULL, KEY_LIST_OPTS };

	int ret = 0, c;
	char err[1024];
	opterr = 0;
	optind = 0;	/* glibc: start afresh at argv[1] */
	while (!ret && (c = getopt_long(argc, argv, optstring, longopts, NULL)) != -1) {
		const struct opt *o;
		switch (c) {
		case KEY_HELP:
			opts__help(cmd, stdout);
			ret = OPTS_HELP;
			break;
		case KEY_LIST_OPTS:
			list_opts(cmd);
			ret = OPTS_HELP;
			break;
		case 1:		/* a word among the options (cmd->word) */
			err[0] = '\0';
			if (cmd->word(opts, optarg, err, sizeof(err)))
				ret = usage_error(cmd, "%s", err[0] ? err : "unexpected argument");
			break;
		case ':':
			o = find_key(cmd->opts, optopt);
			if (o && o->name && !strncmp(argv[optind - 1], "--", 2))
				ret = usage_error(cmd, "option '--%s' needs a value: %s", o->name, o->arg);
			else
				ret = usage_error(cmd, "option '-%c' needs a value: %s", optopt, o ? o->arg : "?");
			break;
		case '?':
			/* glibc: optopt 0 for an unknown or ambiguous --NAME, the
			 * option's key for --NAME=VALUE of one without a value
			 * (argv[optind - 1] is that word then), else the unknown
			 * letter (of a cluster optind may not have left yet). */
			if (optopt == 0 || optopt == KEY_HELP || optopt == KEY_LIST_OPTS || find_key(cmd->opts, optopt))
				ret = bad_long(cmd, argv[optind - 1]);
			else if (optopt > ' ' && optopt < 127)
				ret = usage_error(cmd, "unknown option '-%c'", optopt);
			else
				ret = usage_error(cmd, "unknown option");
			break;
		default:
			o = find_key(cmd->opts, c);
			/* --NAME without =ARG: the next word, if it is one (getopt
			 * reads on from optind: '+' and '-' orders do not permute) */
			if (o && o->arg_if && !optarg && optind < argc && strcmp(argv[optind], "--") &&
			    o->arg_if(argv[optind]))
				optarg = argv[optind++];
			ret = o ? apply(cmd, o, opts, optarg) : usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
			break;
		}
	}
	free(optstring);
	free(longopts);
	return ret ? ret : optind;
}

/* "-F" or "--max-queue": how messages name an option. */
const char *opt__name(const struct opt *o, char *buf, size_t len)
{
	if (o->key)
		snprintf(buf, len, "-%c", o->key);
	else
		snprintf(buf, len, "--%s", o->name);
	return buf;
}

int opt_parse_positive_long(const struct opt *o, void *opts, const char *arg, char *err, size_t errlen)
{
	char *end, nm[64];
	errno = 0;
	long v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v <= 0)
		return seterr(err, errlen, "%s wants a positive whole number, not '%s'", opt__name(o, nm, sizeof(nm)),
			      arg), -EINVAL;
	*OPT_FIELD(o, opts, long) = v;
	return 0;
}

int opt_parse_double(const struct opt *o, void *opts, const char *arg, char *err, size_t errlen)
{
	char *end, nm[64];
	errno = 0;
	double v = strtod(arg, &end);
	if (errno || end == arg || *end)
		return seterr(err, errlen, "%s wants a number, not '%s'", opt__name(o, nm, sizeof(nm)), arg), -EINVAL;
	*OPT_FIELD(o, opts, double) = v;
	return 0;
}
