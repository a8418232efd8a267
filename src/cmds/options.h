/* One option table per command: each entry holds an option's letter, long
 * name, argument and help, and from the table come the getopt optstring,
 * the struct option array, the parsing into the command's options struct
 * and --help (after perf's parse-options and uftrace's option table).
 *
 * A command describes itself in a struct cmd_def:
 *
 *	struct rec_opts { const char *output; bool quiet; struct opt_list events; };
 *	static const struct opt rec_table[] = {
 *		OPT_GROUP("Output:"),
 *		OPT_STRING('o', "output", "FILE", struct rec_opts, output, "default pprobe.folded"),
 *		OPT_FLAG('q', "quiet", struct rec_opts, quiet, "no summary"),
 *		OPT_END(),
 *	};
 *
 * and opts__parse() fills the struct from argv before anything else is done:
 * a bad option is one line on stderr, "pprobe record: unknown option '--foo'
 * (see 'pprobe record --help')", and exit status 2; -h/--help prints the
 * help on stdout, status 0. Every table gets -h/--help, and a hidden
 * --list-opts that prints each option's spellings and argument, one option
 * a line (for shell completion, and for tests/e2e/usage.sh, which checks
 * every option against --help and its usage errors). */
#ifndef PPROBE_OPTIONS_H
#define PPROBE_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum opt_kind {
	OPT_KIND_END,
	OPT_KIND_GROUP,		/* a heading in --help (help is the text), no option */
	OPT_KIND_FLAG,		/* bool at off = true */
	OPT_KIND_SET,		/* int at off = value */
	OPT_KIND_STRING,	/* const char * at off = the argument (the last one wins) */
	OPT_KIND_LIST,		/* struct opt_list at off: each occurrence appended, in order */
	OPT_KIND_FN,		/* fn() parses the argument */
};

struct opt;
/* Parses ARG (NULL for an option without one) of option O into OPTS, the
 * command's options struct. 0, or -EINVAL with what is wrong in err
 * ("bad frequency 'x': Hz, e.g. 999"); opts__parse() adds the command's
 * name and where to look. */
typedef int (*opt_fn)(const struct opt *o, void *opts, const char *arg, char *err, size_t errlen);

struct opt {
	enum opt_kind kind;
	int key;		/* the short letter; 0 for a long-only option */
	const char *name;	/* the long name; NULL for a short-only option */
	const char *arg;	/* the argument's name in --help ("FILE"); NULL: no argument */
	bool optional_arg;	/* "-l [PATTERN]": the argument may be left out */
	/* The long spelling's argument is optional and, when not given as
	 * --NAME=ARG, taken from the next word only if arg_if accepts it
	 * (never "--"); else fn gets NULL. The short letter always takes one
	 * (-p PID, -pPID). For one spelling with two meanings: record --pid
	 * PID attaches (perf), --pid alone names the root frame
	 * (stackcollapse-perf.pl). */
	bool (*arg_if)(const char *next);
	size_t off;		/* offset of the field set in the command's options struct */
	int value;		/* OPT_KIND_SET */
	opt_fn fn;		/* OPT_KIND_FN */
	const char *help;	/* lines split at '\n', each wrapped to the terminal's 80 columns */
	size_t given_off;	/* 1 + offset of a bool set when the option is given (0: none;
				   perf's OPT_BOOLEAN_SET): "was any flame graph option given?" */
};

/* The occurrences of a list option (or of several sharing one list: -e
 * and --filter of trace keep their order). key is the entry's key: the
 * short letter, or 256 + the entry's index for a long-only option; name
 * its long name. */
struct opt_item {
	int key;
	const char *name;
	const char *arg;
};
struct opt_list {
	struct opt_item *v;
	size_t nr;
};
void opt_list__free(struct opt_list *l);

#define OPT_FIELD(o, opts, type) ((type *)((char *)(opts) + (o)->off))

#define OPT_END() { .kind = OPT_KIND_END }
#define OPT_GROUP(text) { .kind = OPT_KIND_GROUP, .help = (text) }
#define OPT_FLAG(k, n, type, field, h) \
	{ .kind = OPT_KIND_FLAG, .key = (k), .name = (n), .off = offsetof(type, field), .help = (h) }
#define OPT_SET(k, n, type, field, v, h) \
	{ .kind = OPT_KIND_SET, .key = (k), .name = (n), .off = offsetof(type, field), .value = (v), .help = (h) }
#define OPT_STRING(k, n, a, type, field, h) \
	{ .kind = OPT_KIND_STRING, .key = (k), .name = (n), .arg = (a), .off = offsetof(type, field), .help = (h) }
#define OPT_LIST(k, n, a, type, field, h) \
	{ .kind = OPT_KIND_LIST, .key = (k), .name = (n), .arg = (a), .off = offsetof(type, field), .help = (h) }
#define OPT_FN(k, n, a, type, field, f, h) \
	{ .kind = OPT_KIND_FN, .key = (k), .name = (n), .arg = (a), .off = offsetof(type, field), .fn = (f), \
	  .help = (h) }
/* fn is called with arg NULL when the optional argument is left out. */
#define OPT_FN_OPTARG(k, n, a, type, field, f, h) \
	{ .kind = OPT_KIND_FN, .key = (k), .name = (n), .arg = (a), .optional_arg = true, \
	  .off = offsetof(type, field), .fn = (f), .help = (h) }

/* fn gets the next word when arg_if accepts it, else NULL (see arg_if). */
#define OPT_FN_ARG_IF(k, n, a, type, field, f, pred, h) \
	{ .kind = OPT_KIND_FN, .key = (k), .name = (n), .arg = (a), .off = offsetof(type, field), .fn = (f), \
	  .arg_if = (pred), .help = (h) }

struct cmd_def {
	const char *name;	/* "record"; "probe" */
	const char *prog;	/* the prefix of its messages: "pprobe record" */
	const char *summary;	/* one line, for 'pprobe --help' */
	const char *usage;	/* "pprobe record [options] [--] [command [args...]]"; more lines after '\n' */
	const char *about;	/* what it does, before the options */
	const struct opt *opts;
	const char *footer;	/* after the options: examples, notes */
	/* Words among the options (getopt's '-' order), e.g. the args after
	 * --add; NULL: options end at the first word (the command to run). */
	int (*word)(void *opts, const char *word, char *err, size_t errlen);
};

/* opts__parse() returns the index in argv of the first word after the
 * options (argv[0] is the command's name), or one of these: */
#define OPTS_HELP  (-1)		/* --help was printed: exit 0 */
#define OPTS_USAGE (-2)		/* a usage error was printed: exit 2 */
int opts__parse(const struct cmd_def *cmd, int argc, char **argv, void *opts);
/* The exit status for a negative opts__parse() result. */
static inline int opts__exit_status(int r)
{
	return r == OPTS_HELP ? 0 : 2;
}

/* The whole help: usage, about, the options, footer. */
void opts__help(const struct cmd_def *cmd, FILE *f);
/* A usage error found after parsing (options that exclude each other, a
 * missing operand): "PROG: MESSAGE (see 'pprobe CMD --help')" on stderr.
 * Returns 2, the exit status. */
int opts__usage_error(const struct cmd_def *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* "-F" or "--max-queue": how messages name option O (buf returned). */
const char *opt__name(const struct opt *o, char *buf, size_t len);

/* Value parsers for OPT_FN entries. */
int opt_parse_positive_long(const struct opt *o, void *opts, const char *arg, char *err, size_t errlen);	/* long */
int opt_parse_double(const struct opt *o, void *opts, const char *arg, char *err, size_t errlen);		/* double */

#endif
