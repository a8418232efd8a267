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
#include "util.h"

/* The code point of the UTF-8 sequence at S (N bytes left) and its length
 * in *LEN; 0 for a byte that starts none (written as '?'). */
static unsigned utf8_point(const unsigned char *s, size_t n, size_t *len)
{
	unsigned c = s[0], need = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : c >= 0xc0 ? 1 : 0;
	*len = 1;
	if (!need || need >= n)
		return 0;
	unsigned cp = c & (0x3f >> need);
	for (unsigned k = 1; k <= need; k++) {
		if ((s[k] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[k] & 0x3f);
	}
	*len = need + 1;
	return cp;
}

/* TEXT as roff: backslashes and minus signs escaped, a line that would
 * start with a control character ('.' or '\'') guarded, other than ASCII
 * as groff's \[uXXXX] (the pages are read without a declared encoding). */
static void roff_text(FILE *f, const char *text, size_t len)
{
	bool line_start = true;
	for (size_t i = 0; i < len; i++) {
		char ch = text[i];
		if ((unsigned char)ch >= 0x80) {
			size_t n;
			unsigned cp = utf8_point((const unsigned char *)text + i, len - i, &n);
			if (cp)
				fprintf(f, "\\[u%04X]", cp);
			else
				fputc('?', f);
			i += n - 1;
			line_start = false;
			continue;
		}
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

/* Markdown's inline marks as roff: `code` and **bold** in bold, a link
 * [text](url) as its text (and the url where it is a web address). */
static void roff_inline(FILE *f, const char *s, size_t len)
{
	size_t i = 0, plain = 0;
	while (i < len) {
		const char *close = NULL;
		size_t mark = 0;
		if (s[i] == '`')
			mark = 1;
		else if (s[i] == '*' && i + 1 < len && s[i + 1] == '*')
			mark = 2;
		if (mark && (close = memmem(s + i + mark, len - i - mark, s + i, mark))) {
			roff_text(f, s + plain, i - plain);
			fputs("\\fB", f);
			for (const char *c = s + i + mark, *run = c; c <= close; c++)	/* a table's \| is | in code too */
				if (c == close || (c[0] == '\\' && c + 1 < close && c[1] == '|')) {
					roff_text(f, run, (size_t)(c - run));
					run = c + 1;
				}
			fputs("\\fR", f);
			i = plain = (size_t)(close - s) + mark;
			continue;
		}
		if (s[i] == '\\' && i + 1 < len && strchr("\\`*_[]()|#+-.!<>", s[i + 1])) {	/* \| -> | */
			roff_text(f, s + plain, i - plain);
			plain = i + 1;
			i += 2;
			continue;
		}
		const char *mid, *end;
		if (s[i] == '[' && (mid = memmem(s + i, len - i, "](", 2)) && (end = memchr(mid, ')', len - (size_t)(mid - s)))) {
			roff_text(f, s + plain, i - plain);
			roff_inline(f, s + i + 1, (size_t)(mid - s) - i - 1);
			if (!strncmp(mid + 2, "http", 4)) {
				fputs(" <", f);
				roff_text(f, mid + 2, (size_t)(end - mid) - 2);
				fputc('>', f);
			}
			i = plain = (size_t)(end - s) + 1;
			continue;
		}
		i++;
	}
	roff_text(f, s + plain, len - plain);
}

/* One part of the guide (docs/guide.md, built in: guide_md.c), from its
 * '## ' heading to the next, as roff: headings as .SS, paragraphs filled,
 * code blocks (fenced or indented) and tables as written, lists as .IP. */
extern const char pprobe_guide_md[];
extern const unsigned long pprobe_guide_md_len;

enum md_block { MD_NONE, MD_PARA, MD_ITEM, MD_CODE, MD_FENCE, MD_TABLE };

/* A paragraph or list item is kept until it ends, so that a `code span`
 * or a link may run over its lines. */
struct md_para {
	char *buf;
	size_t len, cap;
};
static struct md_para para;

static void para_add(const char *l, size_t len)
{
	if (para.len + len + 1 > para.cap) {
		para.cap = (para.len + len + 1) * 2;
		para.buf = pp_xrealloc(para.buf, para.cap);
	}
	if (para.len)
		para.buf[para.len++] = '\n';
	memcpy(para.buf + para.len, l, len);
	para.len += len;
}

static enum md_block md_end(FILE *f, enum md_block b)
{
	if (b == MD_CODE || b == MD_FENCE || b == MD_TABLE)
		fputs(".fi\n", f);
	if ((b == MD_PARA || b == MD_ITEM) && para.len) {
		roff_inline(f, para.buf, para.len);
		fputc('\n', f);
	}
	para.len = 0;
	return MD_NONE;
}

static void roff_guide_line(FILE *f, const char *l, size_t len, enum md_block *b)
{
	bool blank = len == 0;
	if (*b == MD_FENCE) {
		if (len >= 3 && !strncmp(l, "```", 3))
			*b = md_end(f, *b);
		else
			roff_text(f, l, len), fputc('\n', f);
		return;
	}
	if (*b == MD_CODE && (blank || (len > 4 && !strncmp(l, "    ", 4)))) {
		roff_text(f, blank ? l : l + 4, blank ? 0 : len - 4);
		fputc('\n', f);
		return;
	}
	if (*b == MD_TABLE && len && l[0] == '|') {
		if (strspn(l, "|-: ") != len)	/* not the |---| rule */
			roff_inline(f, l, len), fputc('\n', f);
		return;
	}
	if (*b == MD_CODE || *b == MD_TABLE || (*b == MD_PARA && len > 2 && !strncmp(l, "- ", 2)) ||
	    (*b == MD_ITEM && len > 2 && !strncmp(l, "- ", 2)) || (*b != MD_NONE && l[0] == '#'))
		*b = md_end(f, *b);
	if (blank) {
		*b = md_end(f, *b);
		return;
	}
	if (!strncmp(l, "```", 3)) {
		fputs(".PP\n.nf\n", f);
		*b = MD_FENCE;
	} else if (l[0] == '#') {
		size_t h = strspn(l, "#");
		fputs(".SS ", f);
		roff_inline(f, l + h + 1, len > h + 1 ? len - h - 1 : 0);
		fputc('\n', f);
		*b = MD_NONE;
	} else if (*b == MD_NONE && len > 4 && !strncmp(l, "    ", 4)) {
		fputs(".PP\n.nf\n", f);
		roff_text(f, l + 4, len - 4);
		fputc('\n', f);
		*b = MD_CODE;
	} else if (l[0] == '|') {
		fputs(".PP\n.nf\n", f);
		roff_inline(f, l, len);
		fputc('\n', f);
		*b = MD_TABLE;
	} else if (len > 2 && !strncmp(l, "- ", 2)) {
		fputs(".IP \\(bu 2\n", f);
		para_add(l + 2, len - 2);
		*b = MD_ITEM;
	} else {
		if (*b == MD_NONE)
			fputs(".PP\n", f);
		size_t lead = strspn(l, " ");
		para_add(l + lead, len - lead);
		if (*b == MD_NONE)
			*b = MD_PARA;
	}
}

/* The guide's part whose '## ' heading starts with HEADING; false if none. */
static bool roff_guide_part(FILE *f, const char *heading)
{
	const char *g = pprobe_guide_md, *end = g + pprobe_guide_md_len;
	size_t hl = strlen(heading);
	bool in = false;
	enum md_block b = MD_NONE;
	for (const char *l = g; l < end;) {
		const char *nl = memchr(l, '\n', (size_t)(end - l));
		size_t len = nl ? (size_t)(nl - l) : (size_t)(end - l);
		bool top = len > 3 && !strncmp(l, "## ", 3);
		if (top && in)
			break;
		if (top && len >= hl && !strncmp(l, heading, hl))
			in = true;
		if (in)
			roff_guide_line(f, l, len, &b);
		l = nl ? nl + 1 : end;
	}
	md_end(f, b);
	return in;
}

/* Which parts of the guide each command's page carries. */
static const struct {
	const char *cmd, *heading;
} guide_parts[] = {
	{ "record", "## record:" },	{ "record", "## probes in -e" },
	{ "trace", "## trace:" },	{ "trace", "## probes in -e" },
	{ "stat", "## stat:" },		{ "stat", "## probes in -e" },
	{ "ftrace", "## ftrace:" },	{ "flamegraph", "## flamegraph and diff" },
	{ "diff", "## flamegraph and diff" }, { "report", "## report:" },
	{ "top", "## top:" },
	{ "annotate", "## annotate:" },
	{ "probe", "## probe inspector" }, { "probe", "## probes: --add" },
};

static void roff_guide(FILE *f, const char *cmd)
{
	bool head = false;
	for (size_t i = 0; i < sizeof(guide_parts) / sizeof(guide_parts[0]); i++) {
		if (strcmp(guide_parts[i].cmd, cmd))
			continue;
		if (!head)
			fputs(".SH GUIDE\n", f);
		head = true;
		roff_guide_part(f, guide_parts[i].heading);
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
					 .help = "this help, on stdout" };
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
	roff_guide(f, cmd->name);
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
