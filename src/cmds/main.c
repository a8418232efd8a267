/* pprobe: the subcommand table, and nothing else. */
#include <stdio.h>
#include <string.h>

#include "commands.h"

#ifndef PPROBE_VERSION
#define PPROBE_VERSION "0.1"
#endif

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "record",     cmd_record,     "sample events and write folded stacks (or an SVG)" },
	{ "stat",       cmd_stat,       "count events: exact totals, rates, intervals, repeats" },
	{ "trace",      cmd_trace,      "print events as they happen, fields decoded, kernel-filtered" },
	{ "flamegraph", cmd_flamegraph, "draw folded stacks as an interactive SVG flame graph" },
	{ "diff",       cmd_diff,       "compare two folded profiles (difffolded), optionally as SVG" },
	{ "probe",      cmd_probe,      "probes as perf probe: -F/-L/-V inspect, --add/-l/-d tracefs probe events" },
	{ "list",       cmd_list,       "list the events -e accepts; -v EVENT shows a tracepoint's fields" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: pprobe <command> [options]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-11s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\nperf probe's forms work at the top level too: pprobe [-x BINARY] -F | -L SPEC | -V SPEC |\n"
		   "--add 'SPEC [ARG...]' | -l [PATTERN] | -d PATTERN.\n"
		   "'pprobe <command> --help' describes a command's options.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	const char *name = argv[1];
	if (!strcmp(name, "-h") || !strcmp(name, "--help") || !strcmp(name, "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(name, "--version") || !strcmp(name, "version")) {
		printf("pprobe %s\n", PPROBE_VERSION);
		return 0;
	}
	/* perf probe's top-level form: pprobe [-x BIN] -F|-L|-V ... */
	if (name[0] == '-')
		return cmd_probe(argc, argv);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(name, commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "pprobe: '%s' is not a pprobe command\n\n", name);
	usage(stderr);
	return 2;
}
