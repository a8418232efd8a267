/* What the collect engine (src/engine/collect.h) hands the commands that
 * run it to say, since it prints nothing itself: its errors, its notes, the
 * live status line and the prose about lost records, said on stderr. */
#ifndef PPROBE_COLLECT_SAY_H
#define PPROBE_COLLECT_SAY_H

#include "collect.h"

/* Set c's on_note ("pprobe: MSG") and on_status (the status line, on a
 * terminal only). Call after collect__init, before collect__prepare. */
void collect_say__hook(struct collect *c);
/* An error from collect__prepare, collect__start or collect__run:
 * "pprobe: ERR"; nothing when err is empty (a stop signal). */
void collect_say__error(const char *err);
/* The command's exit status for RET, what collect__prepare, collect__start
 * or collect__run returned (collect.h): 0 for 0; 2 for -EINVAL (a bad
 * target); for -EINTR (stopped before the run began) CMD_EXIT_BY_SIGNAL +
 * the first stop signal, main() then dying of it; for -ECHILD 127 when the
 * command was not found, 126 when it could not be run (as a shell); 1 for
 * any other failure. */
int collect_say__status(const struct collect *c, int ret);
/* collect__lost_text's lines, each prefixed with prog. */
void collect_say__lost(const struct collect *c, const char *prog);

#endif
