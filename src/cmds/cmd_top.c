/* pprobe top: a live view of the hottest functions, as perf top. The run is
 * record's (record_run with a record_view: the same events, unwinding,
 * stack table and cost); each refresh reads the stack table into a report
 * (report__add_stacks: the aggregation pprobe report shows a profile with).
 * On a terminal a full-screen view with keys (raw mode and the alternate
 * screen, restored on every way out), else one plain table per refresh. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "collect_say.h"
#include "commands.h"
#include "options.h"
#include "record_internal.h"
#include "report.h"
#include "sigguard.h"
#include "target_opts.h"
#include "util.h"

struct top_opts {
	struct record_opts rec;		/* first: record's parsers take the whole struct as one */
	double delay;			/* -d: seconds between refreshes */
	long iterations;		/* -n: stop after this many refreshes (0: never) */
	bool zero, stdio, no_children;
	const char *sort;
	double percent_limit;
};

#define T struct top_opts
static const struct opt top_table[] = {
	OPT_GROUP("Target (default: all CPUs, as perf top):"),
	OPT_FLAG('a', "all-cpus", T, rec.co.system_wide,
		 "all online CPUs (the default without -C, -p, -t or a command; with a command, it then only "
		 "bounds the duration)"),
	OPT_STRING('C', "cpu", "LIST", T, rec.co.cpu_list, "these CPUs only, e.g. 0-1,3"),
	OPT_STRING('p', "pid", "PID[,PID...]", T, rec.co.pid_list, "existing processes, all their threads"),
	OPT_STRING('t', "tid", "TID[,TID...]", T, rec.co.tid_list, "existing threads"),
	OPT_FN(0, "duration", "SECS", T, rec.co.duration, opt_parse_duration,
	       "stop after SECS seconds (record's -d; top's -d is the refresh delay, as perf top's)"),
	OPT_GROUP("Events and stacks (as record's):"),
	OPT_LIST('e', "event", "EVENT", T, rec.events, "one event, as record -e takes it (default cpu-clock)"),
	OPT_FN('F', "freq", "HZ", T, rec.freq, record_parse_freq,
	       "samples per second (default 999 for clock events); max: kernel.perf_event_max_sample_rate"),
	OPT_SET('g', NULL, T, rec.cg, CG_DWARF,
		"kernel callchains and DWARF-unwound user stacks: Children and Self columns, the callers and "
		"callees of a function"),
	OPT_FN(0, "call-graph", "MODE", T, rec.cg, record_parse_call_graph,
	       "dwarf[,SIZE] or fp, as record's --call-graph"),
	RING_OPTS(T, rec.co, "default sized to lose nothing"),
	OPT_GROUP("View:"),
	OPT_FN('d', "delay", "SECS", T, delay, opt_parse_duration,
	       "seconds between refreshes (default 2), as perf top's -d"),
	OPT_FN('n', "iterations", "N", T, iterations, opt_parse_positive_long,
	       "stop after N refreshes (as top -b -n)"),
	OPT_FLAG('z', "zero", T, zero,
		 "each refresh shows the samples since the previous one, as perf top -z (default: since the "
		 "start)"),
	OPT_FLAG(0, "stdio", T, stdio, "plain tables even on a terminal, as when stdout is not one"),
	OPT_FLAG(0, "no-children", T, no_children, "with -g: the Self column alone, sorted by it"),
	OPT_STRING('s', "sort", "KEYS", T, sort, "the columns, from: comm, pid, tid, dso, sym (default dso,sym)"),
	OPT_FN(0, "percent-limit", "PCT", T, percent_limit, opt_parse_double, "hide rows under PCT percent"),
	OPT_FLAG('q', "quiet", T, rec.co.quiet, "no summary at the end"),
	OPT_END(),
};
#undef T

const struct cmd_def top_cmd = {
	.name = "top",
	.prog = "pprobe top",
	.summary = "a live, refreshing view of the hottest functions, as perf top",
	.usage = "pprobe top [options] [--] [command [args...]]",
	.about = "Samples as record does (the same events, unwinding and cost) and shows the functions by "
		 "their share of the samples, hottest first, refreshed every -d seconds: Self (the function "
		 "at the leaf) and, with -g, Children (anywhere on the stack), as pprobe report. On a terminal "
		 "a full-screen view: q quits, p or space pauses the view (the sampling goes on), j/k or the "
		 "arrows select, Enter shows the callers of the selected function (c: its callees), Esc goes "
		 "back, h shows the keys; a command's input and output go to /dev/null there. When stdout is "
		 "not a terminal (or with --stdio), a plain table per refresh, and a last one at the end.",
	.opts = top_table,
	.footer = "Examples:\n"
		  "  pprobe top -g -n 3                         # the whole machine, three refreshes\n"
		  "  pprobe top -g -p 1234 -n 2\n"
		  "  pprobe top -g -d 1 -- ./app\n"
		  "  pprobe top -g -n 2 -d 1 -- ./app > top.txt  # plain text: one table a refresh\n",
};

/* The terminal as it was, restored on every way out: the view's end, exit
 * (atexit) and the second stop signal (sigguard's watcher thread: write
 * and tcsetattr only). */
static struct termios saved_tio;
static int tio_fd = -1;
static volatile sig_atomic_t screen_on;

#define SCREEN_ENTER "\033[?1049h\033[?25l\033[H\033[2J"
#define SCREEN_LEAVE "\033[?25h\033[?1049l"

static void restore_terminal(void)
{
	if (!screen_on)
		return;
	screen_on = 0;
	if (write(1, SCREEN_LEAVE, sizeof(SCREEN_LEAVE) - 1) < 0) {
		/* the terminal is gone: nothing to restore on it */
	}
	if (tio_fd >= 0)
		tcsetattr(tio_fd, TCSANOW, &saved_tio);
}

static void restore_now(void *arg)
{
	(void)arg;
	restore_terminal();
}

struct top {
	const struct top_opts *o;
	struct report_opts ro;
	struct report_print rp;
	bool tty;
	int keys;			/* the terminal's fd for keys, or -1 */
	struct collect *c;
	struct record *r;
	struct report *rep;		/* the last refresh's */
	struct report_row *rows;
	size_t nr_rows;
	char *tree_text;		/* the tree view's lines */
	size_t tree_lines;
	char *tree_func;		/* the function of the tree view, NULL: the table */
	bool callers;			/* the tree: callers (else callees) */
	bool paused, quit, help, started, ended;
	size_t sel, first, tree_first;
	int rows_n, cols_n;		/* the terminal's size */
	long refreshes;
	double t0, next_refresh, next_keys, at_refresh;
	uint64_t samples, lost;		/* at the last refresh: since the start, or with -z since the one before */
	uint64_t samples_then;		/* -z: nr_samples at the refresh before */
	char note[160];
	char *scr;			/* the frame being drawn */
	size_t scr_len, scr_cap;
};

/* The event's stack table: top's one event. */
static struct stacktab *top_table_of(struct collect *c)
{
	for (int i = 0; i < c->evlist.nr_evsels; i++) {
		struct evstate *es = c->evlist.evsels[i]->priv;
		if (es && !es->shared && es->stacks)
			return es->stacks;
	}
	return NULL;
}

static const struct evsel *top_event(struct collect *c)
{
	for (int i = 0; i < c->evlist.nr_evsels; i++)
		if (c->evlist.evsels[i]->priv)
			return c->evlist.evsels[i];
	return NULL;
}

/* The table and, in the tree view, the tree, from the samples so far. */
static void refresh(struct top *t)
{
	struct stacktab *st = top_table_of(t->c);
	/* the selection stays on its function as the rows move */
	char *sel = t->sel < t->nr_rows ? pp_xstrdup(t->rows[t->sel].func) : NULL;
	record_sync(t->c, t->r);
	report__delete(t->rep);
	free(t->rows);
	t->ro.tree_func = t->tree_func;
	t->ro.tree_callers = t->callers;
	t->rep = report__new(&t->ro);
	if (st)
		report__add_stacks(t->rep, st, t->r->frames);
	t->rows = report__rows(t->rep, &t->rp, &t->nr_rows);
	for (size_t i = 0; sel && i < t->nr_rows; i++)
		if (!strcmp(t->rows[i].func, sel)) {
			t->sel = i;
			break;
		}
	free(sel);
	free(t->tree_text);
	t->tree_text = NULL;
	t->tree_lines = 0;
	if (t->tree_func) {
		size_t len = 0;
		FILE *f = open_memstream(&t->tree_text, &len);
		if (f) {
			report__write_tree(t->rep, f, t->o->percent_limit);
			fclose(f);
			for (size_t i = 0; i < len; i++)
				t->tree_lines += t->tree_text[i] == '\n';
		}
	}
	t->samples = t->c->nr_samples - (t->o->zero ? t->samples_then : 0);
	t->samples_then = t->c->nr_samples;
	t->lost = t->c->lost + t->c->lost_samples;
	t->at_refresh = now_seconds();
	t->refreshes++;
	if (t->o->zero)	/* the next refresh: the samples since this one */
		record_clear(t->c, t->r);
}

/* "1234 samples of cpu-clock (999 Hz), 0 lost, 2.0 s" */
static void summary_line(struct top *t, char *buf, size_t len)
{
	const struct evsel *ev = top_event(t->c);
	const struct evstate *es = ev ? ev->priv : NULL;
	snprintf(buf, len, "%llu samples of %s (%s), %llu lost, %.1f s%s", (unsigned long long)t->samples,
		 ev ? ev->name : "?", es ? es->rate_buf : "?", (unsigned long long)t->lost, t->at_refresh - t->t0,
		 t->o->zero ? ", since the last refresh" : "");
}

/* ---- plain text ---- */

static void print_table(struct top *t, const char *what)
{
	char line[256];
	summary_line(t, line, sizeof(line));
	printf("# pprobe top: %s: %s\n", what, line);
	report__write_table(t->rep, stdout, &t->rp);
	putchar('\n');
	if (fflush(stdout) || ferror(stdout))
		collect__output_error(t->c, stream__write_errno(stdout));
}

/* ---- the full-screen view ---- */

static void put(struct top *t, const char *s, size_t n)
{
	if (t->scr_len + n + 1 > t->scr_cap) {
		t->scr_cap = (t->scr_len + n + 1) * 2;
		t->scr = pp_xrealloc(t->scr, t->scr_cap);
	}
	memcpy(t->scr + t->scr_len, s, n);
	t->scr_len += n;
}

/* One screen line: text cut to the width, the rest of the line cleared. */
static void put_line(struct top *t, const char *text, bool reverse)
{
	size_t n = strlen(text);
	if (n > (size_t)t->cols_n)
		n = (size_t)t->cols_n;
	if (reverse)
		put(t, "\033[7m", 4);
	put(t, text, n);
	if (reverse)
		put(t, "\033[m", 3);
	put(t, "\033[K\r\n", 5);
}

static void window_size(struct top *t)
{
	struct winsize ws;
	if (!ioctl(1, TIOCGWINSZ, &ws) && ws.ws_row > 0 && ws.ws_col > 0) {
		t->rows_n = ws.ws_row;
		t->cols_n = ws.ws_col;
	} else {
		t->rows_n = 24;
		t->cols_n = 80;
	}
}

static const char *const help_lines[] = {
	"pprobe top: keys",
	"",
	"  q                 quit",
	"  p, space          pause the view (the sampling goes on); again: resume",
	"  j, k, arrows      select a row; PgUp, PgDn: a page",
	"  Enter, l, Right   the callers of the selected function (a tree)",
	"  c                 callers or callees, in the tree",
	"  Esc, Left, b      back to the table",
	"  h, ?              this help; any key closes it",
	NULL,
};

/* The table's rows from row first, the selected one reversed. */
static void draw_rows(struct top *t, int room)
{
	char line[1024];
	const char *titles[REPORT_NR_KEYS];
	size_t nk = report__titles(t->rep, titles);
	int w[REPORT_NR_KEYS];
	for (size_t k = 0; k < nk; k++) {
		w[k] = (int)strlen(titles[k]);
		for (size_t i = 0; i < t->nr_rows; i++)
			w[k] = (int)strlen(t->rows[i].col[k]) > w[k] ? (int)strlen(t->rows[i].col[k]) : w[k];
		w[k] = w[k] > 40 ? 40 : w[k];
	}
	size_t at = (size_t)(t->rp.children ? snprintf(line, sizeof(line), "%10s  %9s  ", "Children", "Self")
					    : snprintf(line, sizeof(line), "%10s  ", "Overhead"));
	for (size_t k = 0; k < nk && at < sizeof(line); k++)
		at += (size_t)snprintf(line + at, sizeof(line) - at, "%-*s  ", k + 1 < nk ? w[k] : 0, titles[k]);
	put_line(t, line, true);
	if (t->sel >= t->nr_rows)
		t->sel = t->nr_rows ? t->nr_rows - 1 : 0;
	if (t->sel < t->first)
		t->first = t->sel;
	if (room > 0 && t->sel >= t->first + (size_t)room)
		t->first = t->sel - (size_t)room + 1;
	double total = report__total(t->rep);
	for (int i = 0; i < room; i++) {
		size_t r = t->first + (size_t)i;
		if (r >= t->nr_rows) {
			put_line(t, "", false);
			continue;
		}
		const struct report_row *row = &t->rows[r];
		double pc = total > 0 ? 100.0 * row->children / total : 0, ps = total > 0 ? 100.0 * row->self / total : 0;
		at = (size_t)(t->rp.children ? snprintf(line, sizeof(line), "%9.2f%%  %8.2f%%  ", pc, ps)
					     : snprintf(line, sizeof(line), "%9.2f%%  ", ps));
		for (size_t k = 0; k < nk && at < sizeof(line); k++)
			at += (size_t)snprintf(line + at, sizeof(line) - at, "%-*.*s  ", k + 1 < nk ? w[k] : 0,
					       k + 1 < nk ? w[k] : 500, row->col[k]);
		put_line(t, line, r == t->sel);
	}
}

/* The tree's lines from tree_first. */
static void draw_tree(struct top *t, int room)
{
	char line[1024];
	snprintf(line, sizeof(line), "%s of %s", t->callers ? "Callers" : "Callees", t->tree_func);
	put_line(t, line, true);
	if (t->tree_lines && t->tree_first >= t->tree_lines)
		t->tree_first = t->tree_lines - 1;
	const char *p = t->tree_text ? t->tree_text : "";
	for (size_t i = 0; i < t->tree_first && *p; i++)
		p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p);
	for (int i = 0; i < room; i++) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		snprintf(line, sizeof(line), "%.*s", (int)n, p);
		if (!i && !t->tree_lines)
			snprintf(line, sizeof(line), "  (not in the samples %s)", t->o->zero ? "of this refresh" : "so far");
		put_line(t, line, false);
		p = nl ? nl + 1 : p + n;
	}
}

static void draw(struct top *t)
{
	char line[512], sum[300];
	t->scr_len = 0;
	put(t, "\033[H", 3);
	summary_line(t, sum, sizeof(sum));
	snprintf(line, sizeof(line), "pprobe top: %s", sum);
	put_line(t, line, false);
	if (t->ended)
		snprintf(line, sizeof(line), "[ended: %s; q quits]", t->note[0] ? t->note : "the run is over");
	else if (t->paused)
		snprintf(line, sizeof(line), "[PAUSED: p resumes] %s", t->note);
	else
		snprintf(line, sizeof(line), "%s", t->note);
	put_line(t, line, false);
	int room = t->rows_n - 4;	/* two above, the column titles, the keys below */
	if (t->help) {
		for (int i = 0; i < room + 1; i++)
			put_line(t, i < (int)(sizeof(help_lines) / sizeof(help_lines[0])) && help_lines[i] ? help_lines[i]
												: "", false);
	} else if (t->tree_func) {
		draw_tree(t, room);
	} else {
		draw_rows(t, room);
	}
	snprintf(line, sizeof(line), "q quit  p pause  j/k select  Enter %s  c callers/callees  Esc back  h help",
		 t->callers ? "callers" : "callees");
	put(t, "\033[7m", 4);
	put(t, line, strlen(line) > (size_t)t->cols_n ? (size_t)t->cols_n : strlen(line));
	put(t, "\033[K\033[m\033[J", 9);
	for (size_t off = 0; off < t->scr_len;) {
		ssize_t n = write(1, t->scr + off, t->scr_len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		off += (size_t)n;
	}
}

/* Raw keys (no echo, no line editing; ^C still stops), the alternate
 * screen. */
static void enter_screen(struct top *t)
{
	if (t->keys >= 0 && !tcgetattr(t->keys, &saved_tio)) {
		struct termios raw = saved_tio;
		raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
		raw.c_iflag &= ~(tcflag_t)(IXON | ICRNL);
		raw.c_cc[VMIN] = 0;
		raw.c_cc[VTIME] = 0;
		raw.c_cc[VSUSP] = _POSIX_VDISABLE;	/* ^Z would stop us in the alternate screen */
		tio_fd = t->keys;
		tcsetattr(t->keys, TCSANOW, &raw);
	}
	screen_on = 1;
	if (write(1, SCREEN_ENTER, sizeof(SCREEN_ENTER) - 1) < 0) {
		/* draw() finds out again */
	}
	window_size(t);
}

static void select_move(struct top *t, long by)
{
	size_t *at = t->tree_func ? &t->tree_first : &t->sel;
	size_t n = t->tree_func ? t->tree_lines : t->nr_rows;
	if (by < 0)
		*at = (size_t)-by > *at ? 0 : *at - (size_t)-by;
	else
		*at = n && *at + (size_t)by >= n ? n - 1 : *at + (size_t)by;
}

/* One key (an escape sequence's letter, 'E' for Esc alone). */
static void key(struct top *t, int k, bool esc_seq)
{
	long page = t->rows_n > 8 ? t->rows_n - 5 : 1;
	if (t->help && k != 'q') {
		t->help = false;
		return;
	}
	if (esc_seq) {
		switch (k) {
		case 'A': select_move(t, -1); break;
		case 'B': select_move(t, 1); break;
		case 'C': k = '\r'; break;
		case 'D': k = 27; break;
		case '5': select_move(t, -page); break;
		case '6': select_move(t, page); break;
		default: break;
		}
		if (k != '\r' && k != 27)
			return;
	}
	switch (k) {
	case 'q': case 'Q': t->quit = true; break;
	case 'p': case ' ': t->paused = !t->paused && !t->ended; break;
	case 'j': select_move(t, 1); break;
	case 'k': select_move(t, -1); break;
	case 'h': case '?': t->help = true; break;
	case '\r': case '\n': case 'l':
		if (!t->tree_func && t->sel < t->nr_rows && t->rows[t->sel].func[0]) {
			t->tree_func = pp_xstrdup(t->rows[t->sel].func);
			t->tree_first = 0;
			refresh(t);	/* the tree now, even while paused */
		}
		break;
	case 'c':
		t->callers = !t->callers;
		if (t->tree_func) {
			t->tree_first = 0;
			refresh(t);
		}
		break;
	case 27: case 'b': case 127:
		free(t->tree_func);
		t->tree_func = NULL;
		break;
	default: break;
	}
}

/* The keys typed since the last look; the view redrawn when one came or
 * the window changed. */
static void read_keys(struct top *t)
{
	unsigned char b[64];
	int rows = t->rows_n, cols = t->cols_n;
	window_size(t);
	bool redraw = rows != t->rows_n || cols != t->cols_n;
	ssize_t n = t->keys >= 0 ? read(t->keys, b, sizeof(b)) : 0;
	for (ssize_t i = 0; i < n; i++) {
		redraw = true;
		if (b[i] != 27) {
			key(t, b[i], false);
			continue;
		}
		if (i + 2 < n && (b[i + 1] == '[' || b[i + 1] == 'O')) {
			key(t, b[i + 2], true);
			i += 2;
			if (b[i] >= '0' && b[i] <= '9')	/* PgUp "\033[5~": up to the '~' */
				while (i + 1 < n && b[i] != '~')
					i++;
			continue;
		}
		key(t, 27, false);
	}
	if (redraw && !t->quit)
		draw(t);
}

/* ---- record's view ---- */

static void note(struct collect *c, const char *msg)
{
	struct top *t = ((struct record *)c->priv)->view->arg;
	snprintf(t->note, sizeof(t->note), "%s", msg);
}

static void top_tick(struct collect *c, struct record *r, void *arg)
{
	struct top *t = arg;
	double now = now_seconds();
	t->c = c;
	t->r = r;
	if (!t->started) {
		t->started = true;
		t->t0 = t->at_refresh = now;
		t->next_refresh = now + t->o->delay;
		t->rep = report__new(&t->ro);	/* empty until the first refresh */
		t->rows = report__rows(t->rep, &t->rp, &t->nr_rows);
		if (t->tty) {
			c->on_note = note;	/* not over the view */
			c->on_status = NULL;
			enter_screen(t);
			draw(t);
		}
	}
	if (t->tty && now >= t->next_keys) {
		read_keys(t);
		t->next_keys = now + 0.05;
	}
	if (!t->paused && now >= t->next_refresh) {
		refresh(t);
		if (t->tty)
			draw(t);
		else
			print_table(t, "refresh");
		t->next_refresh = now + t->o->delay;
		if (t->o->iterations && t->refreshes >= t->o->iterations)
			c->stop = true;
	}
	if (t->quit)
		c->stop = true;
}

/* The exit status: the command's where it ended by itself (or a stop
 * signal ended the run: as record), else 0: top ended the run (q, -n,
 * --duration). */
static int top_status(const struct collect *c)
{
	return (c->child && c->child_exited) || c->stop_signal ? -1 : 0;
}

/* The run is over: the last table; on a terminal it stays up, its keys
 * working, until q (or a stop signal), unless the user quit or a signal
 * ended it. */
static int top_finish(struct collect *c, struct record *r, void *arg)
{
	struct top *t = arg;
	t->c = c;
	t->r = r;
	bool counted_out = t->o->iterations && t->refreshes >= t->o->iterations;
	if (!t->started)
		t->t0 = now_seconds();
	if (!t->tty) {
		if (!counted_out && c->out_err != EPIPE) {
			refresh(t);
			print_table(t, "final");
		}
		return top_status(c);
	}
	if (!t->quit && !c->stop_signal && !counted_out) {
		if (!t->started)
			enter_screen(t);
		refresh(t);
		t->ended = true;
		t->paused = false;
		if (c->child && c->child_exited)
			snprintf(t->note, sizeof(t->note), "the command exited");
		unsigned sigs = sigguard__count();
		draw(t);
		while (!t->quit && sigguard__count() == sigs && t->keys >= 0) {
			struct pollfd p = { .fd = t->keys, .events = POLLIN };
			poll(&p, 1, 200);
			read_keys(t);
		}
	}
	restore_terminal();
	collect_say__lost(c, "pprobe top");
	return top_status(c);
}

/* ---- the command ---- */

static int check_opts(struct top_opts *o, struct top *t)
{
	char bad[64];
	if (o->rec.events.nr > 1)
		return opts__usage_error(&top_cmd, "one -e: top shows one event");
	if (o->rec.co.pid_list && o->rec.co.tid_list)
		return opts__usage_error(&top_cmd, "give either -p or -t");
	if (o->percent_limit < 0 || o->percent_limit > 100)
		return opts__usage_error(&top_cmd, "--percent-limit wants a percentage from 0 to 100");
	if (o->sort && report_keys__parse(o->sort, t->ro.keys, &t->ro.nr_keys, bad, sizeof(bad)))
		return opts__usage_error(&top_cmd, "--sort: unknown or repeated key '%s' (comm, pid, tid, dso, sym)",
					 bad);
	if (!o->sort) {
		t->ro.keys[0] = REPORT_DSO, t->ro.keys[1] = REPORT_SYM;	/* perf top's columns */
		t->ro.nr_keys = 2;
	}
	for (size_t k = 0; k < t->ro.nr_keys; k++)	/* the stack table keeps ids where shown */
		o->rec.root_tid |= t->ro.keys[k] == REPORT_PID || t->ro.keys[k] == REPORT_TID;
	if (!o->delay)
		o->delay = 2;
	if (!o->rec.co.argv && !o->rec.co.pid_list && !o->rec.co.tid_list && !o->rec.co.cpu_list)
		o->rec.co.system_wide = true;	/* perf top's default */
	return 0;
}

int cmd_top(int argc, char **argv)
{
	struct top_opts o = { 0 };
	struct top t = { .o = &o, .keys = -1 };
	struct record rec = { .prog = "pprobe top" };
	int n = opts__parse(&top_cmd, argc, argv, &o);
	int ret;
	if (n < 0) {
		ret = opts__exit_status(n);
		goto out;
	}
	if (n < argc)
		o.rec.co.argv = argv + n;
	if ((ret = check_opts(&o, &t)))
		goto out;
	t.rp.children = o.rec.cg != CG_NONE && !o.no_children;
	t.rp.percent_limit = o.percent_limit;
	t.callers = true;
	t.tty = !o.stdio && isatty(1);
	if (t.tty) {
		t.keys = isatty(0) ? 0 : -1;
		o.rec.co.child_stdio_null = true;	/* the terminal is the view's, its keys ours */
		o.rec.co.quiet = true;			/* the header says it */
		atexit(restore_terminal);
		sigguard__on_exit_now(restore_now, NULL);
	} else {
		rec.to_stdout = true;	/* the command's stdout to stderr, a closed pipe noticed */
	}
	struct record_view view = { .tick = top_tick, .finish = top_finish, .arg = &t };
	rec.view = &view;
	ret = record_run(&o.rec, &rec);
	restore_terminal();
	sigguard__forget(restore_now, NULL);
out:
	report__delete(t.rep);
	free(t.rows);
	free(t.tree_text);
	free(t.tree_func);
	free(t.scr);
	opt_list__free(&o.rec.events);
	return ret;
}
