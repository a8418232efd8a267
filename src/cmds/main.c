/* pprobe: the subcommand table, and nothing else. */
#include <malloc.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "manpage.h"
#include "pprobe/debuginfo.h"
#include "sigguard.h"
#include "util.h"

struct command {
	const struct cmd_def *def;	/* name, summary, options: its --help */
	int (*fn)(int argc, char **argv);
};

static const struct command commands[] = {
	{ &record_cmd,     cmd_record },
	{ &stat_cmd,       cmd_stat },
	{ &trace_cmd,      cmd_trace },
	{ &flamegraph_cmd, cmd_flamegraph },
	{ &diff_cmd,       cmd_diff },
	{ &report_cmd,     cmd_report },
	{ &top_cmd,        cmd_top },
	{ &annotate_cmd,   cmd_annotate },
	{ &probe_cmd,      cmd_probe },
	{ &list_cmd,       cmd_list },
	{ &ftrace_cmd,     cmd_ftrace },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: pprobe <command> [options]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-11s %s\n", commands[i].def->name, commands[i].def->summary);
	fprintf(f, "\nperf probe's forms work at the top level too: pprobe [-x BINARY] -F | -L SPEC | -V SPEC |\n"
		   "--add 'SPEC [ARG...]' | -l [PATTERN] | -d PATTERN.\n"
		   "'pprobe <command> --help' describes a command's options, 'pprobe help <command>' in full.\n"
		   "Without root (kernel.perf_event_paranoid 2): record and stat of your own processes,\n"
		   "user space only, said once; what stays refused says which sysctl or capability allows it.\n");
}

#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))

/* The commands' definitions, for the man pages; the one named NAME. */
static const struct cmd_def *command_defs(const struct cmd_def **defs, const char *name)
{
	const struct cmd_def *named = NULL;
	for (size_t i = 0; i < NR_COMMANDS; i++) {
		defs[i] = commands[i].def;
		if (name && !strcmp(name, defs[i]->name))
			named = defs[i];
	}
	return named;
}

static int write_man_pages(const char *dir)
{
	const struct cmd_def *defs[NR_COMMANDS];
	command_defs(defs, NULL);
	return manpage__write_all(defs, NR_COMMANDS, dir);
}

/* pprobe help [CMD]: the man page (pprobe(1), pprobe-CMD(1)) as man shows
 * it, made from the option tables, so the one of this binary; where man
 * cannot be run, the --help text. */
static int help(int argc, char **argv)
{
	const struct cmd_def *defs[NR_COMMANDS];
	const struct cmd_def *cmd = command_defs(defs, argc > 2 ? argv[2] : NULL);
	if (argc > 3) {
		fprintf(stderr, "pprobe help: one command at a time, not '%s' too (see 'pprobe --help')\n", argv[3]);
		return 2;
	}
	if (argc == 3 && !cmd) {
		fprintf(stderr, "pprobe help: '%s' is not a pprobe command (see 'pprobe --help')\n", argv[2]);
		return 2;
	}
	int st = manpage__show(cmd, defs, NR_COMMANDS);
	if (st >= 0)
		return st;
	if (cmd)
		opts__help(cmd, stdout);
	else
		usage(stdout);
	return 0;
}

static int signal_at_exit;

/* Registered first, so it runs last: after every exit handler (the removal
 * of temporary probes, tracer state) has run, die of SIGPIPE (a closed
 * output) or of the SIGINT/SIGTERM that asked twice. */
static void exit_by_signal(void)
{
	if (!signal_at_exit)
		return;
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, signal_at_exit);
	fflush(stderr);
	signal(signal_at_exit, SIG_DFL);
	sigprocmask(SIG_UNBLOCK, &s, NULL);
	raise(signal_at_exit);
}

/* Memory freed stays with pprobe for its next use, not handed back to
 * the kernel and faulted in again: glibc trims the heap's top past 128 KiB
 * free and serves 128 KiB and more from mmap, unmapped at free. A clang
 * compile under record -g made 929 brk and 316 munmap calls, each page
 * faulted in again after (on this project's VM a fresh page costs ~5 us):
 * these settings took 13% off pprobe's CPU there (0.99 -> 0.86 s, six
 * pairs). What is kept is pprobe's own high-water mark. */
static void malloc_keeps_memory(void)
{
#ifdef __GLIBC__
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 128 << 20);
	mallopt(M_TOP_PAD, 16 << 20);
#endif
}

int main(int argc, char **argv)
{
	malloc_keeps_memory();
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	const char *name = argv[1];
	if (!strcmp(name, "-h") || !strcmp(name, "--help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(name, "help"))
		return help(argc, argv);
	if (!strcmp(name, "--man-pages") && argc == 3)	/* the build's: the pages into argv[2] */
		return write_man_pages(argv[2]);
	if (!strcmp(name, "--version") || !strcmp(name, "version")) {
		printf("pprobe %s\n", PPROBE_VERSION);
		return 0;
	}
	/* SIGINT/SIGTERM/SIGHUP from here on go to the guard's thread: by
	 * default the first one ends pprobe at once, without its temporary
	 * files; commands that watch for it (collect.c) ask for a second. */
	sigguard__start(1);
	/* a debuginfod fetch (probe resolution, symbolization) gives up at a
	 * stop signal, within about a second, instead of its 90 s timeout */
	debuginfo__debuginfod(true, sigguard__asked, NULL);
	/* perf probe's top-level form: pprobe [-x BIN] -F|-L|-V ... */
	if (name[0] == '-')
		return cmd_probe(argc, argv);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(name, commands[i].def->name)) {
			atexit(exit_by_signal);
			int st = commands[i].fn(argc - 1, argv + 1);
			if (st == CMD_EXIT_SIGPIPE) {
				signal_at_exit = SIGPIPE;
				st = 128 + SIGPIPE;	/* if the signal cannot kill us */
			} else if (st > CMD_EXIT_BY_SIGNAL && st < CMD_EXIT_BY_SIGNAL + 65) {
				signal_at_exit = st - CMD_EXIT_BY_SIGNAL;
				st = 128 + signal_at_exit;
			}
			return st;
		}
	const char *close = NULL;
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (edit_distance(name, commands[i].def->name, 2) <= 2 && !close)
			close = commands[i].def->name;
	if (close)
		fprintf(stderr, "pprobe: '%s' is not a pprobe command; did you mean '%s'? (see 'pprobe --help')\n",
			name, close);
	else
		fprintf(stderr, "pprobe: '%s' is not a pprobe command (see 'pprobe --help')\n", name);
	return 2;
}
