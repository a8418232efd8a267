/* What the collect engine hands record, trace, stat and ftrace to say: its
 * errors, notes, status line and loss prose, on stderr (collect_say.h). */
#include "collect_say.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "commands.h"
#include "sigguard.h"

static void say_note(struct collect *c, const char *msg)
{
	(void)c;
	fprintf(stderr, "pprobe: %s\n", msg);
}

static void say_status(struct collect *c, const char *line)
{
	(void)c;
	if (!isatty(2))
		return;
	if (line)
		fprintf(stderr, "\r\033[K%s", line);
	else
		fprintf(stderr, "\r\033[K");
}

void collect_say__hook(struct collect *c)
{
	c->on_note = say_note;
	c->on_status = say_status;
}

void collect_say__error(const char *err)
{
	if (err && err[0])
		fprintf(stderr, "pprobe: %s\n", err);
}

int collect_say__status(const struct collect *c, int ret)
{
	switch (ret) {
	case 0:
		return 0;
	case -EINVAL:
		return 2;
	case -EINTR:
		return sigguard__count() ? CMD_EXIT_BY_SIGNAL + sigguard__first() : 1;
	case -ECHILD:
		return c->exec_errno == ENOENT ? 127 : 126;
	default:
		return 1;
	}
}

void collect_say__lost(const struct collect *c, const char *prog)
{
	char *text = collect__lost_text(c, prog);
	if (text)
		fputs(text, stderr);
	free(text);
	if (c->own_left)
		fprintf(stderr, "%s: %llu samples of pprobe's own threads left out\n", prog,
			(unsigned long long)c->own_left);
}
