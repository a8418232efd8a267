/* The subcommands. Each cmd_*() takes argv as main() got it minus "pprobe"
 * (argv[0] is the subcommand name) and returns the process exit status:
 * 0 ok, 1 runtime failure, 2 usage error, or a traced command's own status.
 * Each *_cmd describes its command: summary, usage and option table
 * (options.h), from which its --help and main's command list come. */
#ifndef PPROBE_COMMANDS_H
#define PPROBE_COMMANDS_H

#include "options.h"

int cmd_record(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_flamegraph(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_annotate(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_ftrace(int argc, char **argv);

/* A streaming command's output pipe was closed by its reader, and the
 * command has cleaned up: die of SIGPIPE, as a filter in a pipeline does
 * (perf, coreutils), so the shell sees status 141. What the command returns
 * for main() to return: CMD_EXIT_SIGPIPE. */
#define CMD_EXIT_SIGPIPE 1000
/* A second SIGINT/SIGTERM after the first ended the run: the command has
 * removed its kernel state and stops at once; main() dies of that signal
 * after the exit handlers (status 128 + SIG). Returned as
 * CMD_EXIT_BY_SIGNAL + SIG. */
#define CMD_EXIT_BY_SIGNAL 1100

/* pprobe --version, and the exporter named in the files it writes: the
 * project's VERSION in CMakeLists.txt (the package's too). */
#ifndef PPROBE_VERSION
#define PPROBE_VERSION "0.1"
#endif

extern const struct cmd_def record_cmd, trace_cmd, stat_cmd, flamegraph_cmd, diff_cmd, probe_cmd, list_cmd;

extern const struct cmd_def ftrace_cmd;
extern const struct cmd_def report_cmd;
extern const struct cmd_def top_cmd;
extern const struct cmd_def annotate_cmd;

#endif
