/* The subcommands. Each cmd_*() takes argv as main() got it minus "pprobe"
 * (argv[0] is the subcommand name) and returns the process exit status:
 * 0 ok, 1 runtime failure, 2 usage error, or a traced command's own status. */
#ifndef PPROBE_COMMANDS_H
#define PPROBE_COMMANDS_H

int cmd_record(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_flamegraph(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_list(int argc, char **argv);

#endif
