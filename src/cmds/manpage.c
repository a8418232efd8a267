/* Man pages made from the commands' option tables (options.h), so that
 * pprobe-record(1) and 'pprobe record --help' can never say different
 * things: the build writes them with 'pprobe --man-pages DIR' and installs
 * them; 'pprobe help CMD' shows the same page through man -l. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands.h"
#include "manpage.h"

/* TEXT as roff: backslashes and minus signs escaped, a line that would
 * start with a control character ('.' or '\'') guarded. */
static void roff_text(FILE *f, const char *text, size_t len)
{
	bool line_start = true;
	for (size_t i = 0; i < len; i++) {
		char ch = text[i];
		if (line_start && (ch == '.' || ch == '\''))
			fputs("\\&", f);
		if (ch == '\\')
			fputs("\\e", f);
		else if (ch == '-')
			fputs("\\-", f);
		else
			fputc(ch, f);
		line_start = ch == '\n';
	}
}

static void roff_str(FILE *f, const char *text)
{
	roff_text(f, text, strlen(text));
}

/* Lines of TEXT as paragraphs of filled text, each line its own ('.br'). */
static void roff_lines(FILE *f, const char *text)
{
	for (const char *l = text; l;) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l);
		if (l != text)
			fputs(".br\n", f);
		roff_text(f, l, len);
		fputc('\n', f);
		l = nl && nl[1] ? nl + 1 : NULL;
	}
}

static void roff_option(FILE *f, const struct opt *o)
{
	fputs(".TP\n", f);
	if (o->key)
		fprintf(f, "\\fB\\-%c\\fR%s", o->key, o->name ? ", " : "");
	if (o->name) {
		fputs("\\fB\\-\\-", f);
		roff_str(f, o->name);
		fputs("\\fR", f);
	}
	if (o->arg) {
		fputs(o->optional_arg || o->arg_if ? " [\\fI" : " \\fI", f);
		roff_str(f, o->arg);
		fputs(o->optional_arg || o->arg_if ? "\\fR]" : "\\fR", f);
	}
	fputc('\n', f);
	roff_lines(f, o->help ? o->help : "");
}

static void upper(char *dst, size_t len, const char *src)
{
	size_t i = 0;
	for (; src[i] && i + 1 < len; i++)
		dst[i] = (src[i] >= 'a' && src[i] <= 'z') ? (char)(src[i] - 32) : src[i];
	dst[i] = 0;
}

static const char see_also_common[] = "pprobe(1), perf(1); each command by example: /usr/share/doc/pprobe/guide.md";

void manpage__command(const struct cmd_def *cmd, FILE *f)
{
	static const struct opt help = { .kind = OPT_KIND_FLAG, .key = 'h', .name = "help",
					 .help = "this help (the page 'pprobe help CMD' shows), on stdout" };
	char up[64];
	upper(up, sizeof(up), cmd->name);
	fprintf(f, ".\\\" made by 'pprobe --man-pages' from the option table of pprobe %s\n", cmd->name);
	fprintf(f, ".TH PPROBE\\-%s 1 \"\" \"pprobe %s\" \"pprobe manual\"\n", up, PPROBE_VERSION);
	fprintf(f, ".SH NAME\npprobe\\-%s \\- ", cmd->name);
	roff_str(f, cmd->summary);
	fputs("\n.SH SYNOPSIS\n.nf\n", f);
	roff_str(f, cmd->usage);
	fputs("\n.fi\n", f);
	if (cmd->about) {
		fputs(".SH DESCRIPTION\n", f);
		roff_lines(f, cmd->about);
	}
	fputs(".SH OPTIONS\n", f);
	for (const struct opt *o = cmd->opts; o->kind != OPT_KIND_END; o++) {
		if (o->kind == OPT_KIND_GROUP) {
			fputs(".SS ", f);
			roff_str(f, o->help);
			fputc('\n', f);
		} else {
			roff_option(f, o);
		}
	}
	roff_option(f, &help);
	if (cmd->footer) {
		/* what comes before "Examples:" as NOTES, what follows it as EXAMPLES,
		 * each as written */
		const char *ex = strstr(cmd->footer, "Examples:\n");
		size_t notes = ex ? (size_t)(ex - cmd->footer) : strlen(cmd->footer);
		while (notes && cmd->footer[notes - 1] == '\n')
			notes--;
		if (notes) {
			fputs(".SH NOTES\n.nf\n", f);
			roff_text(f, cmd->footer, notes);
			fputs("\n.fi\n", f);
		}
		if (ex) {
			const char *body = ex + strlen("Examples:\n");
			fputs(".SH EXAMPLES\n.nf\n", f);
			roff_str(f, body);
			fputs(body[0] && body[strlen(body) - 1] == '\n' ? ".fi\n" : "\n.fi\n", f);
		}
	}
	fprintf(f, ".SH SEE ALSO\n%s\n", see_also_common);
}

void manpage__top(const struct cmd_def *const *cmds, size_t n, FILE *f)
{
	fputs(".\\\" made by 'pprobe --man-pages' from pprobe's command table\n", f);
	fprintf(f, ".TH PPROBE 1 \"\" \"pprobe %s\" \"pprobe manual\"\n", PPROBE_VERSION);
	fputs(".SH NAME\npprobe \\- a Linux profiler and tracer: sample, count and trace events, "
	      "unwind stacks, write folded stacks and flame graphs\n"
	      ".SH SYNOPSIS\n.nf\npprobe \\fICOMMAND\\fR [options]\npprobe help \\fICOMMAND\\fR\n"
	      "pprobe [\\-x \\fIBINARY\\fR] \\-F | \\-L \\fISPEC\\fR | \\-V \\fISPEC\\fR\n.fi\n"
	      ".SH COMMANDS\n", f);
	for (size_t i = 0; i < n; i++) {
		fprintf(f, ".TP\n\\fBpprobe\\-%s\\fR(1)\n", cmds[i]->name);
		roff_str(f, cmds[i]->summary);
		fputc('\n', f);
	}
	fputs(".SH WITHOUT ROOT\n"
	      "At kernel.perf_event_paranoid 2 (the kernel's default) an ordinary user records, counts and "
	      "follows their own processes with user\\-space\\-only events, said once. What stays refused "
	      "is said once, with the sysctl or capability that allows it: kernel frames need paranoid 1, "
	      "\\-a paranoid 0, tracepoints paranoid \\-1 and read access to tracefs; "
	      "\\fBsetcap cap_perfmon+ep pprobe\\fR allows all but probes.\n"
	      ".SH SEE ALSO\n", f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "pprobe\\-%s(1), ", cmds[i]->name);
	fputs("perf(1), bpftrace(8), trace\\-cmd(1); each command by example: /usr/share/doc/pprobe/guide.md\n", f);
}

int manpage__write_all(const struct cmd_def *const *cmds, size_t n, const char *dir)
{
	char path[4096];
	for (size_t i = 0; i <= n; i++) {
		snprintf(path, sizeof(path), "%s/pprobe%s%s.1", dir, i < n ? "-" : "", i < n ? cmds[i]->name : "");
		FILE *f = fopen(path, "we");
		if (!f) {
			fprintf(stderr, "pprobe: cannot write %s: %s\n", path, strerror(errno));
			return 1;
		}
		if (i < n)
			manpage__command(cmds[i], f);
		else
			manpage__top(cmds, n, f);
		if (fclose(f)) {
			fprintf(stderr, "pprobe: writing %s failed: %s\n", path, strerror(errno));
			return 1;
		}
	}
	return 0;
}

int manpage__show(const struct cmd_def *cmd, const struct cmd_def *const *cmds, size_t n)
{
	int fd = memfd_create("pprobe.1", MFD_CLOEXEC);
	FILE *f = fd >= 0 ? fdopen(dup(fd), "w") : NULL;
	if (f) {
		if (cmd)
			manpage__command(cmd, f);
		else
			manpage__top(cmds, n, f);
		fclose(f);
		fflush(stdout);
		pid_t pid = fork();
		if (pid == 0) {
			char path[64];
			int keep = dup(fd);	/* the page without FD_CLOEXEC, for man */
			snprintf(path, sizeof(path), "/proc/self/fd/%d", keep);
			execlp("man", "man", "-l", path, (char *)NULL);
			_exit(127);
		}
		int st = 0;
		if (pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) != 127) {
			close(fd);
			return WEXITSTATUS(st);
		}
	}
	if (fd >= 0)
		close(fd);
	return -1;	/* no man here: the caller prints the help */
}
