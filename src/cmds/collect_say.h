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
/* collect__lost_text's lines, each prefixed with prog. */
void collect_say__lost(const struct collect *c, const char *prog);

#endif
