/* The option-table module (src/cmds/options.c): a table parses into its
 * struct in order, a usage error stops with OPTS_USAGE and one line, an
 * option whose long spelling takes the next word only when it is one
 * (arg_if: accepted, refused, absent, --opt=value, "--" and the command's
 * words never taken, the short letter always taking one), and
 * --help of every real command lists each option within 80 columns. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "commands.h"
#include "options.h"
#include "util.h"

struct toy {
	bool flag;
	int mode;
	const char *out;
	long n;
	struct opt_list items;		/* -e and --filter, in order */
	const char *pattern;
	bool listed, given;
	int words;
	const char *id;		/* --id N */
	int id_alone;		/* --id without one */
};

static bool is_number(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

static int parse_id(const struct opt *o, void *opts, const char *arg, char *err, size_t errlen)
{
	(void)o, (void)err, (void)errlen;
	struct toy *t = opts;
	if (arg)
		t->id = arg;
	else
		t->id_alone++;
	return 0;
}

static int parse_list(const struct opt *o, void *opts, const char *arg, char *err, size_t errlen)
{
	(void)o, (void)err, (void)errlen;
	struct toy *t = opts;
	t->listed = true;
	t->pattern = arg;
	return 0;
}

static int toy_word(void *opts, const char *word, char *err, size_t errlen)
{
	struct toy *t = opts;
	if (!strcmp(word, "bad"))
		return seterr(err, errlen, "unexpected argument '%s'", word), -EINVAL;
	t->words++;
	return 0;
}

static const struct opt toy_table[] = {
	OPT_GROUP("Group:"),
	OPT_FLAG('f', "flag", struct toy, flag, "a flag"),
	OPT_SET('g', NULL, struct toy, mode, 7, "short only"),
	OPT_STRING('o', "output", "FILE", struct toy, out, "a string"),
	OPT_FN('n', "count", "N", struct toy, n, opt_parse_positive_long, "a number"),
	OPT_LIST('e', "event", "EVENT", struct toy, items, "a list"),
	OPT_LIST(0, "filter", "EXPR", struct toy, items, "long only, same list"),
	OPT_FN_OPTARG('l', "list", "PATTERN", struct toy, pattern, parse_list, "optional argument"),
	{ .kind = OPT_KIND_FLAG, .name = "marked", .off = offsetof(struct toy, flag),
	  .given_off = offsetof(struct toy, given) + 1, .help = "sets given" },
	OPT_FN_ARG_IF('i', "id", "N", struct toy, id, parse_id, is_number, "a number after it, or alone"),
	OPT_END(),
};

static const struct cmd_def toy_cmd = {
	.name = "toy", .prog = "pprobe toy", .usage = "pprobe toy [options] [command]", .opts = toy_table,
};
static const struct cmd_def toy_words_cmd = {
	.name = "toy", .prog = "pprobe toy", .usage = "pprobe toy [options]", .opts = toy_table, .word = toy_word,
};

static int parse(const struct cmd_def *cmd, struct toy *t, ...)
{
	char *argv[32];
	int argc = 0;
	va_list ap;
	va_start(ap, t);
	argv[argc++] = "toy";
	for (char *a; (a = va_arg(ap, char *));)
		argv[argc++] = a;
	va_end(ap);
	argv[argc] = NULL;
	memset(t, 0, sizeof(*t));
	return opts__parse(cmd, argc, argv, t);
}

static void test_parse(void)
{
	struct toy t;
	int r = parse(&toy_cmd, &t, "-fg", "-o", "x", "--count=3", "-e", "a", "--filter", "f", "-e", "b",
		      "--", "cmd", "arg", NULL);
	CHECK(r == 12, "first word at %d", r);
	CHECK(t.flag && t.mode == 7 && t.out && !strcmp(t.out, "x") && t.n == 3, "values");
	CHECK(t.items.nr == 3 && t.items.v[0].key == 'e' && !strcmp(t.items.v[0].arg, "a") &&
	      t.items.v[1].key == 0 && !strcmp(t.items.v[1].name, "filter") && !strcmp(t.items.v[2].arg, "b"),
	      "-e and --filter in order");
	CHECK(!t.given, "given untouched");
	opt_list__free(&t.items);

	/* options end at the first word without .word */
	r = parse(&toy_cmd, &t, "-f", "cmd", "-g", NULL);
	CHECK(r == 2 && t.flag && t.mode == 0, "stops at cmd: %d", r);

	/* optional argument: -lPAT, --list=PAT, -l alone; given_off */
	r = parse(&toy_cmd, &t, "-lpat", "--marked", NULL);
	CHECK(r == 3 && t.listed && t.pattern && !strcmp(t.pattern, "pat") && t.given && t.flag, "-lpat");
	r = parse(&toy_cmd, &t, "-l", NULL);
	CHECK(r == 2 && t.listed && !t.pattern, "-l alone");

	/* words among the options with .word, in order */
	r = parse(&toy_words_cmd, &t, "w1", "-f", "w2", NULL);
	CHECK(r == 4 && t.words == 2 && t.flag, "words: %d %d", r, t.words);
}

/* --id takes the next word only when it is a number */
static void test_arg_if(void)
{
	struct toy t;
	int r = parse(&toy_cmd, &t, "--id", "12", "cmd", NULL);
	CHECK(r == 3 && t.id && !strcmp(t.id, "12") && !t.id_alone, "--id 12 cmd: %d", r);
	r = parse(&toy_cmd, &t, "--id", "cmd", "12", NULL);
	CHECK(r == 2 && !t.id && t.id_alone == 1, "--id cmd: the command is not taken: %d", r);
	r = parse(&toy_cmd, &t, "-f", "--id", NULL);
	CHECK(r == 3 && t.flag && !t.id && t.id_alone == 1, "--id last: %d", r);
	r = parse(&toy_cmd, &t, "--id", "-f", NULL);
	CHECK(r == 3 && t.flag && t.id_alone == 1, "--id -f: an option is not taken: %d", r);
	r = parse(&toy_cmd, &t, "--id=x", "7", NULL);
	CHECK(r == 2 && t.id && !strcmp(t.id, "x") && !t.id_alone, "--id=x: the value as given: %d", r);
	r = parse(&toy_cmd, &t, "--id", "--", "12", NULL);
	CHECK(r == 3 && !t.id && t.id_alone == 1, "--id -- 12: '--' ends the options, 12 is the command: %d", r);
	r = parse(&toy_cmd, &t, "--id", "5", "--id", "--", "cmd", NULL);
	CHECK(r == 5 && t.id && !strcmp(t.id, "5") && t.id_alone == 1, "twice: %d", r);
	/* the short letter always takes its argument, as getopt */
	r = parse(&toy_cmd, &t, "-i", "cmd", NULL);
	CHECK(r == 3 && t.id && !strcmp(t.id, "cmd"), "-i cmd: %d", r);
	r = parse(&toy_cmd, &t, "-i9", NULL);
	CHECK(r == 2 && t.id && !strcmp(t.id, "9"), "-i9: %d", r);
	/* words among the options (.word): a refused word is a word */
	r = parse(&toy_words_cmd, &t, "--id", "w", "-f", "--id", "3", NULL);
	CHECK(r == 6 && t.words == 1 && t.flag && t.id_alone == 1 && t.id && !strcmp(t.id, "3"), "words: %d", r);
	/* --list-opts and --help show the argument as optional */
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	opts__help(&toy_cmd, f);
	fclose(f);
	CHECK(strstr(buf, "-i, --id [N]") != NULL, "--help: %s", buf);
	free(buf);
}

static void test_errors(void)
{
	struct toy t;
	/* stderr to a file: each error is one line */
	char path[] = "/tmp/test_options.XXXXXX";
	int fd = mkstemp(path);
	fflush(stderr);
	int saved = dup(2);
	dup2(fd, 2);
	static const char *const bad[][4] = {
		{ "--nope" }, { "-z" }, { "-fz" }, { "-o" }, { "--output" }, { "-n", "0" }, { "--count=x" },
		{ "--flag=1" }, { "--f" }, { "--outptu", "x" }, { "--help=1" }, { "-f", "-i" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int r = parse(&toy_cmd, &t, bad[i][0], bad[i][1], bad[i][2], bad[i][3], NULL);
		CHECK(r == OPTS_USAGE, "%s: %d", bad[i][0], r);
		opt_list__free(&t.items);
	}
	int r = parse(&toy_words_cmd, &t, "-f", "bad", NULL);
	CHECK(r == OPTS_USAGE, "word refused: %d", r);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);

	FILE *f = fdopen(fd, "r");
	rewind(f);
	char line[512];
	const char *want[] = {
		"pprobe toy: unknown option '--nope' (see 'pprobe toy --help')\n",
		"pprobe toy: unknown option '-z' (see 'pprobe toy --help')\n",
		"pprobe toy: unknown option '-z' (see 'pprobe toy --help')\n",
		"pprobe toy: option '-o' needs a value: FILE (see 'pprobe toy --help')\n",
		"pprobe toy: option '--output' needs a value: FILE (see 'pprobe toy --help')\n",
		"pprobe toy: -n wants a positive whole number, not '0' (see 'pprobe toy --help')\n",
		"pprobe toy: -n wants a positive whole number, not 'x' (see 'pprobe toy --help')\n",
		"pprobe toy: option '--flag' takes no value (see 'pprobe toy --help')\n",
		"pprobe toy: ambiguous option '--f': --flag, --filter (see 'pprobe toy --help')\n",
		"pprobe toy: unknown option '--outptu'; did you mean '--output'? (see 'pprobe toy --help')\n",
		"pprobe toy: option '--help' takes no value (see 'pprobe toy --help')\n",
		"pprobe toy: option '-i' needs a value: N (see 'pprobe toy --help')\n",
		"pprobe toy: unexpected argument 'bad' (see 'pprobe toy --help')\n",
	};
	size_t n = 0;
	while (fgets(line, sizeof(line), f)) {
		if (n < sizeof(want) / sizeof(want[0]))
			CHECK_STREQ(line, want[n]);
		n++;
	}
	CHECK(n == sizeof(want) / sizeof(want[0]), "%zu lines", n);
	fclose(f);
	unlink(path);
}

/* Every command's help: each option of its table, no line over 80 columns
 * but the usage lines and examples written by hand. */
static void test_help(void)
{
	const struct cmd_def *cmds[] = { &record_cmd, &stat_cmd, &trace_cmd, &flamegraph_cmd, &diff_cmd,
					 &probe_cmd, &list_cmd };
	for (size_t c = 0; c < sizeof(cmds) / sizeof(cmds[0]); c++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		opts__help(cmds[c], f);
		fclose(f);
		CHECK(!strncmp(buf, "usage: pprobe ", 14), "%s: %.40s", cmds[c]->name, buf);
		CHECK(cmds[c]->summary && cmds[c]->summary[0], "%s: summary", cmds[c]->name);
		for (const struct opt *o = cmds[c]->opts; o->kind != OPT_KIND_END; o++) {
			char sp[80];
			if (o->kind == OPT_KIND_GROUP)
				continue;
			if (o->name)
				snprintf(sp, sizeof(sp), "--%s", o->name);
			else
				snprintf(sp, sizeof(sp), "  -%c ", o->key);
			CHECK(strstr(buf, sp) != NULL, "%s: %s not in --help", cmds[c]->name, sp);
			CHECK(o->help && o->help[0], "%s: %s has no help", cmds[c]->name, sp);
		}
		/* the option part: after the usage and before the footer */
		const char *opts = strstr(buf, "\n\n") + 2;
		const char *end = cmds[c]->footer ? strstr(buf, cmds[c]->footer) : buf + len;
		for (const char *l = opts; l && l < end;) {
			const char *nl = strchr(l, '\n');
			size_t w = nl ? (size_t)(nl - l) : strlen(l);
			CHECK(w <= 80, "%s: %zu columns: %.*s", cmds[c]->name, w, (int)w, l);
			l = nl ? nl + 1 : NULL;
		}
		free(buf);
	}
}

int main(void)
{
	test_arg_if();
	test_parse();
	test_errors();
	test_help();
	return check_summary();
}
