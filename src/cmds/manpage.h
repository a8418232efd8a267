/* Man pages from the option tables (manpage.c). */
#ifndef PPROBE_MANPAGE_H
#define PPROBE_MANPAGE_H

#include <stddef.h>
#include <stdio.h>

#include "options.h"

/* pprobe-CMD(1) in roff: NAME, SYNOPSIS, DESCRIPTION, OPTIONS (from the
 * table, as --help), EXAMPLES (the footer), SEE ALSO. */
void manpage__command(const struct cmd_def *cmd, FILE *f);
/* pprobe(1): the commands of CMDS with their summaries. */
void manpage__top(const struct cmd_def *const *cmds, size_t n, FILE *f);
/* pprobe.1 and pprobe-CMD.1 for each of CMDS into DIR. 0, or 1 after
 * saying why. */
int manpage__write_all(const struct cmd_def *const *cmds, size_t n, const char *dir);
/* The page of CMD (NULL: pprobe(1)) through 'man -l': man's exit status,
 * or -1 where man cannot be run (the caller prints the help instead). */
int manpage__show(const struct cmd_def *cmd, const struct cmd_def *const *cmds, size_t n);

#endif
