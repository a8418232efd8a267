/* ftrace: the function and function_graph tracers in a tracefs instance or
 * at the top level, the global state saved and restored, and a guard
 * process that restores it when pprobe cannot (kill -9). See ftrace.h. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <tracefs/tracefs.h>

#include "ftrace.h"
#include "tracefs.h"
#include "util.h"

/* How a saved file is written back. */
enum saved_kind {
	SAVED_VALUE,	/* the value as read (current_tracer, options/X, max_graph_depth) */
	SAVED_LIST,	/* filter lists: "#### all functions enabled ####" is empty */
	SAVED_PIDS,	/* set_ftrace_pid: "no pid" is empty */
	SAVED_NUMBER,	/* buffer_size_kb: "7 (expanded: 1408)" is its first number */
};

/* Every top-level file pprobe may change, in the order they are restored
 * (after the tracer is set to nop, which stops ours): the tracer found
 * comes back once its filters are in place, tracing_on last. */
static const struct {
	const char *rel;
	enum saved_kind kind;
} top_files[] = {
	{ "set_ftrace_pid", SAVED_PIDS },
	{ "set_ftrace_notrace_pid", SAVED_PIDS },
	{ "set_ftrace_filter", SAVED_LIST },
	{ "set_ftrace_notrace", SAVED_LIST },
	{ "set_graph_function", SAVED_LIST },
	{ "set_graph_notrace", SAVED_LIST },
	{ "max_graph_depth", SAVED_VALUE },
	{ "tracing_cpumask", SAVED_VALUE },
	{ "buffer_size_kb", SAVED_NUMBER },
	{ "options/function-fork", SAVED_VALUE },
	{ "options/funcgraph-proc", SAVED_VALUE },
	{ "current_tracer", SAVED_VALUE },
	{ "tracing_on", SAVED_VALUE },
};
#define TOP_CURRENT_TRACER (NR_TOP_FILES - 2)
#define NR_TOP_FILES (sizeof(top_files) / sizeof(top_files[0]))

struct ftrace {
	struct tracefs_instance *inst;	/* NULL: the top level */
	char inst_name[64];
	char *saved[NR_TOP_FILES];	/* top-level contents as found; NULL: absent or unreadable */
	int saved_errno[NR_TOP_FILES];
	int pipe_fd;
	pid_t guard;
	int guard_fd;			/* write end: 't' top level in use, 'd' done */
	char where[128];
};

#define ALL_ENABLED "#### all functions enabled ####"

/* ---- files ---- */

static char *read_rel(struct tracefs_instance *inst, const char *rel, int *errp)
{
	char rel2[256];
	if (inst)
		snprintf(rel2, sizeof(rel2), "instances/%s/%s", tracefs_instance_get_name(inst), rel);
	else
		snprintf(rel2, sizeof(rel2), "%s", rel);
	char *s = tracefs__read_file(rel2, NULL);
	if (!s && errp)
		*errp = errno;
	return s;
}

static bool exists_rel(struct tracefs_instance *inst, const char *rel)
{
	char *p = tracefs_instance_get_file(inst, rel);
	bool ok = p && !access(p, F_OK);
	tracefs_put_tracing_file(p);
	return ok;
}

/* Write DATA (append: O_APPEND, else O_TRUNC). 0 or -errno. */
static int write_rel(struct tracefs_instance *inst, const char *rel, const char *data, bool append)
{
	errno = 0;
	int w = append ? tracefs_instance_file_append(inst, rel, data) : tracefs_instance_file_write(inst, rel, data);
	if (w < 0)
		return errno ? -errno : -EIO;
	return (size_t)w == strlen(data) ? 0 : -EIO;
}

/* Empty list file REL: opened with O_TRUNC and closed, nothing written (a
 * write of nothing to set_ftrace_pid leaves an empty pid list, which reads
 * "" where the reset file reads "no pid"). */
static int truncate_rel(struct tracefs_instance *inst, const char *rel)
{
	int fd = tracefs_instance_file_open(inst, rel, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return errno ? -errno : -EIO;
	return close(fd) ? -errno : 0;
}

/* A list file (filters, pids): truncated, then each entry written on its own
 * line so that the kernel checks it at write() (an entry without a
 * trailing separator is only parsed at close, where errors are lost). On
 * failure *bad is the entry refused. */
static int write_list(struct tracefs_instance *inst, const char *rel, const char *const *v, size_t n,
		      const char **bad)
{
	int err = truncate_rel(inst, rel);
	char line[1024];
	for (size_t i = 0; !err && i < n; i++) {
		snprintf(line, sizeof(line), "%s\n", v[i]);
		err = write_rel(inst, rel, line, true);
		if (err && bad)
			*bad = v[i];
	}
	return err;
}

/* "a\nb\n" without comment lines, "no pid" and the all-enabled banner,
 * one entry a line. */
static char *list_entries(const char *s)
{
	size_t len = strlen(s);
	char *out = pp_xmalloc(len + 1), *o = out;
	for (const char *line = s; *line;) {
		const char *nl = strchr(line, '\n');
		size_t n = nl ? (size_t)(nl - line) : strlen(line);
		if (n && line[0] != '#' && strncmp(line, "no pid", 6)) {
			memcpy(o, line, n);
			o += n;
			*o++ = '\n';
		}
		line += n + (nl ? 1 : 0);
	}
	*o = 0;
	return out;
}

/* Does the current content of top-level file i differ from the saved one? */
static bool differs(const struct ftrace *f, size_t i)
{
	char *now = read_rel(NULL, top_files[i].rel, NULL);
	if (!now)
		return true;
	bool d;
	/* set_ftrace_pid: "no pid" (no list) is not "" (an empty list, as the
	 * kernel leaves it when the last traced task exits) */
	if (top_files[i].kind == SAVED_LIST) {
		char *a = list_entries(now), *b = list_entries(f->saved[i]);
		d = strcmp(a, b) != 0;
		free(a);
		free(b);
	} else if (top_files[i].kind == SAVED_NUMBER) {
		d = strtoul(now, NULL, 10) != strtoul(f->saved[i], NULL, 10);
	} else {
		d = strcmp(now, f->saved[i]) != 0;
	}
	free(now);
	return d;
}

/* Write the saved top-level state back where it differs. Async-signal
 * context is not needed: pprobe calls it, and so does the guard (a
 * single-threaded child). Returns the first error. */
static int restore_top(const struct ftrace *f)
{
	int ret = 0;
	/* our tracer stops first: the filters found must not apply to it, nor
	 * ours to the tracer found */
	if (f->saved[TOP_CURRENT_TRACER] && differs(f, TOP_CURRENT_TRACER))
		ret = write_rel(NULL, "current_tracer", "nop\n", false);
	for (size_t i = 0; i < NR_TOP_FILES; i++) {
		if (!f->saved[i] || !differs(f, i))
			continue;
		const char *rel = top_files[i].rel;
		int err;
		if (top_files[i].kind == SAVED_LIST || top_files[i].kind == SAVED_PIDS) {
			char *e = list_entries(f->saved[i]);
			err = truncate_rel(NULL, rel);
			/* one write per entry: a refused one (a function gone with its
			 * module) does not keep the others out */
			for (char *line = e, *nl; !err && *line; line = nl + 1) {
				nl = strchr(line, '\n');
				char c = nl[1];
				nl[1] = 0;
				int e2 = write_rel(NULL, rel, line, true);
				nl[1] = c;
				if (e2 && !ret)
					ret = e2;
			}
			free(e);
		} else if (top_files[i].kind == SAVED_NUMBER) {
			char num[32];
			snprintf(num, sizeof(num), "%lu\n", strtoul(f->saved[i], NULL, 10));
			err = write_rel(NULL, rel, num, false);
		} else {
			err = write_rel(NULL, rel, f->saved[i], false);
		}
		if (err && !ret)
			ret = err;
	}
	return ret;
}

static void remove_instance(const char *name)
{
	if (!tracefs_instance_exists(name))
		return;
	struct tracefs_instance *inst = tracefs_instance_alloc(NULL, name);
	if (!inst)
		return;
	/* rmdir is refused (EBUSY) while a reader still holds trace_pipe: the
	 * reader is gone with its process, give the kernel a moment */
	for (int i = 0; i < 100 && tracefs_instance_destroy(inst) < 0 && errno == EBUSY; i++)
		usleep(10000);
	tracefs_instance_free(inst);
}

/* ---- the guard ---- */

/* In the guard: wait for pprobe's word; on EOF (pprobe died) undo. */
static void guard_main(struct ftrace *f, int rfd)
{
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	sigset_t all;
	sigemptyset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	prctl(PR_SET_NAME, "pprobe-ftguard");
	bool top = false;
	for (;;) {
		char b;
		ssize_t n = read(rfd, &b, 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 1 && b == 't') {
			top = true;
			continue;
		}
		if (n == 1 && b == 'd')
			_exit(0);	/* the child's exit, not pprobe's */
		break;	/* EOF or error: pprobe is gone */
	}
	if (top)
		restore_top(f);
	remove_instance(f->inst_name);
	_exit(0);	/* the child's exit, not pprobe's */
}

static int guard_start(struct ftrace *f)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC))
		return -errno;
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(p[0]);
		close(p[1]);
		return -e;
	}
	if (pid == 0) {
		/* Only the pipe's read end and stderr: no fd of pprobe's (a pipe
		 * to a reader, the traced command's) may outlive it here. */
		for (int fd = 3; fd < 1024; fd++)
			if (fd != p[0])
				close(fd);
		int null = open("/dev/null", O_RDWR);
		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
			if (null > 2)
				close(null);
		}
		guard_main(f, p[0]);
	}
	close(p[0]);
	f->guard = pid;
	f->guard_fd = p[1];
	return 0;
}

static void guard_say(struct ftrace *f, char b)
{
	if (f->guard_fd >= 0 && write(f->guard_fd, &b, 1) != 1) {
		/* the guard is gone; nothing to tell */
	}
}

/* ---- setup ---- */

static bool tracer_listed(const char *avail, const char *tracer)
{
	size_t n = strlen(tracer);
	for (const char *p = avail; (p = strstr(p, tracer)); p += n)
		if ((p == avail || p[-1] == ' ' || p[-1] == '\n') && (!p[n] || p[n] == ' ' || p[n] == '\n'))
			return true;
	return false;
}

/* Can instance INST run what O asks: the tracer, and every file it needs? */
static bool instance_suits(struct tracefs_instance *inst, const struct ftrace_opts *o)
{
	char *avail = read_rel(inst, "available_tracers", NULL);
	bool ok = avail && tracer_listed(avail, o->tracer);
	free(avail);
	if (ok && (o->nr_graph_funcs || o->nr_graph_notrace))
		ok = exists_rel(inst, "set_graph_function") && exists_rel(inst, "set_graph_notrace");
	if (ok && o->depth)
		ok = exists_rel(inst, "max_graph_depth");
	return ok;
}

/* A file of the top level that pprobe would write but could not save. */
static int top_unsaved(const struct ftrace *f, const char *rel, char *err, size_t errlen)
{
	for (size_t i = 0; i < NR_TOP_FILES; i++)
		if (!strcmp(top_files[i].rel, rel) && !f->saved[i]) {
			int e = f->saved_errno[i] ? f->saved_errno[i] : ENOENT;
			seterr(err, errlen, "cannot read the global %s to restore it afterwards: %s", rel, strerror(e));
			return -e;
		}
	return 0;
}

static int say_write(int e, const struct ftrace *f, const char *rel, const char *what, char *err, size_t errlen)
{
	if (e == -EINVAL && what)
		seterr(err, errlen, "no kernel function matches '%s' (%s, %s; available_filter_functions lists them)",
		       what, rel, f->where);
	else if (what)
		seterr(err, errlen, "writing '%s' to %s (%s): %s", what, rel, f->where, strerror(-e));
	else
		seterr(err, errlen, "writing %s (%s): %s", rel, f->where, strerror(-e));
	return e;
}

static int set_list(struct ftrace *f, const char *rel, const char *const *v, size_t n, char *err, size_t errlen)
{
	if (!n && !exists_rel(f->inst, rel))
		return 0;	/* nothing asked, nothing to reset */
	if (!f->inst && top_unsaved(f, rel, err, errlen))
		return -EPERM;
	const char *bad = NULL;
	int e = write_list(f->inst, rel, v, n, &bad);
	return e ? say_write(e, f, rel, bad, err, errlen) : 0;
}

static int set_value(struct ftrace *f, const char *rel, const char *val, char *err, size_t errlen)
{
	if (!f->inst) {
		int e = top_unsaved(f, rel, err, errlen);
		if (e)
			return e;
	}
	char v[128];
	snprintf(v, sizeof(v), "%s\n", val);
	int e = write_rel(f->inst, rel, v, false);
	return e ? say_write(e, f, rel, NULL, err, errlen) : 0;
}

/* perf ftrace's order: tracing off, tracer nop, pids reset, filters, depth,
 * options, the tracer. */
static int configure(struct ftrace *f, const struct ftrace_opts *o, char *err, size_t errlen)
{
	char num[32];
	int e = set_value(f, "tracing_on", "0", err, errlen);
	if (!e)
		e = set_value(f, "current_tracer", "nop", err, errlen);
	if (!e)
		e = set_list(f, "set_ftrace_pid", NULL, 0, err, errlen);
	if (!e)
		e = set_list(f, "set_ftrace_notrace_pid", NULL, 0, err, errlen);
	if (!e)
		e = set_list(f, "set_ftrace_filter", o->filters, o->nr_filters, err, errlen);
	if (!e)
		e = set_list(f, "set_ftrace_notrace", o->notrace, o->nr_notrace, err, errlen);
	if (!e && (o->nr_graph_funcs || exists_rel(f->inst, "set_graph_function")))
		e = set_list(f, "set_graph_function", o->graph_funcs, o->nr_graph_funcs, err, errlen);
	if (!e && (o->nr_graph_notrace || exists_rel(f->inst, "set_graph_notrace")))
		e = set_list(f, "set_graph_notrace", o->graph_notrace, o->nr_graph_notrace, err, errlen);
	if (!e && (o->depth || exists_rel(f->inst, "max_graph_depth"))) {
		snprintf(num, sizeof(num), "%d", o->depth);
		e = set_value(f, "max_graph_depth", num, err, errlen);
	}
	if (!e && o->cpu_mask)
		e = set_value(f, "tracing_cpumask", o->cpu_mask, err, errlen);
	if (!e && o->buffer_kb) {
		snprintf(num, sizeof(num), "%lu", o->buffer_kb);
		e = set_value(f, "buffer_size_kb", num, err, errlen);
	}
	if (!e && !strcmp(o->tracer, "function_graph") && exists_rel(f->inst, "options/funcgraph-proc"))
		e = set_value(f, "options/funcgraph-proc", "1", err, errlen);
	if (!e && exists_rel(f->inst, "options/function-fork"))
		e = set_value(f, "options/function-fork", "0", err, errlen);
	if (!e)
		e = set_value(f, "current_tracer", o->tracer, err, errlen);
	return e;
}

struct ftrace *ftrace__new(const struct ftrace_opts *o, char *err, size_t errlen)
{
	struct ftrace *f = pp_xcalloc(1, sizeof(*f));
	int e;
	f->pipe_fd = f->guard_fd = -1;
	if (!tracefs__root()) {
		e = -errno;
		tracefs__strerror(e, err, errlen);
		goto err;
	}
	char *avail = read_rel(NULL, "available_tracers", &e);
	if (!avail) {
		e = -e;
		seterr(err, errlen, "cannot read available_tracers: %s", strerror(-e));
		goto err;
	}
	bool have = tracer_listed(avail, o->tracer);
	if (!have) {
		char *nl;
		while ((nl = strchr(avail, '\n')))
			*nl = ' ';
		for (size_t l = strlen(avail); l && avail[l - 1] == ' ';)
			avail[--l] = 0;
		seterr(err, errlen, "this kernel has no %s tracer (available_tracers: %s)", o->tracer, avail);
		free(avail);
		e = -ENOENT;
		goto err;
	}
	free(avail);
	/* What the top level holds now, read before anything changes. */
	for (size_t i = 0; i < NR_TOP_FILES; i++) {
		f->saved[i] = read_rel(NULL, top_files[i].rel, &f->saved_errno[i]);
		if (!f->saved[i] && f->saved_errno[i] == EPERM) {
			char why[512];
			ftrace__eperm_reason(why, sizeof(why));
			seterr(err, errlen, "the kernel refuses the %s tracer: reading %s/%s: %s (%s)", o->tracer,
			       tracefs__root(), top_files[i].rel, strerror(EPERM), why);
			e = -EPERM;
			goto err;
		}
	}
	snprintf(f->inst_name, sizeof(f->inst_name), "pprobe_ftrace_%d", (int)getpid());
	e = guard_start(f);
	if (e) {
		seterr(err, errlen, "cannot start the process that restores tracefs if pprobe is killed: %s",
		       strerror(-e));
		goto err;
	}
	f->inst = tracefs_instance_create(f->inst_name);
	if (f->inst && !instance_suits(f->inst, o)) {
		tracefs_instance_destroy(f->inst);
		tracefs_instance_free(f->inst);
		f->inst = NULL;
	}
	if (f->inst) {
		snprintf(f->where, sizeof(f->where), "instance %s", f->inst_name);
	} else {
		snprintf(f->where, sizeof(f->where), "top level: the kernel offers no %s tracer%s in instances",
			 o->tracer, o->depth ? " with max_graph_depth" : o->nr_graph_funcs || o->nr_graph_notrace ?
			 " with set_graph_function" : "");
		guard_say(f, 't');
	}
	e = configure(f, o, err, errlen);
	if (e == -EPERM && !strstr(err, "cannot read")) {
		char why[512];
		size_t l = strlen(err);
		ftrace__eperm_reason(why, sizeof(why));
		snprintf(err + l, errlen > l ? errlen - l : 0, " (%s)", why);
	}
	if (e)
		goto err;
	return f;
err:
	ftrace__delete(f);
	errno = -e;
	return NULL;
}

int ftrace__set_pids(struct ftrace *f, const pid_t *pids, int nr, bool follow, bool *followed, char *err,
		     size_t errlen)
{
	char **v = pp_xcalloc((size_t)nr + 1, sizeof(*v));
	for (int i = 0; i < nr; i++) {
		v[i] = pp_xmalloc(16);
		snprintf(v[i], 16, "%d", (int)pids[i]);
	}
	int e = set_list(f, "set_ftrace_pid", (const char *const *)v, (size_t)nr, err, errlen);
	for (int i = 0; i < nr; i++)
		free(v[i]);
	free(v);
	*followed = false;
	if (!e && follow && exists_rel(f->inst, "options/function-fork")) {
		e = set_value(f, "options/function-fork", "1", err, errlen);
		*followed = !e;
	}
	return e;
}

int ftrace__set_notrace_pid(struct ftrace *f, pid_t pid)
{
	if (!exists_rel(f->inst, "set_ftrace_notrace_pid"))
		return -ENOENT;
	char line[32];
	snprintf(line, sizeof(line), "%d\n", (int)pid);
	int e = truncate_rel(f->inst, "set_ftrace_notrace_pid");
	return e ? e : write_rel(f->inst, "set_ftrace_notrace_pid", line, true);
}

int ftrace__start(struct ftrace *f)
{
	return write_rel(f->inst, "tracing_on", "1\n", false);
}

int ftrace__stop(struct ftrace *f)
{
	return write_rel(f->inst, "tracing_on", "0\n", false);
}

int ftrace__pipe_fd(struct ftrace *f)
{
	if (f->pipe_fd < 0) {
		f->pipe_fd = tracefs_instance_file_open(f->inst, "trace_pipe", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (f->pipe_fd < 0)
			return -errno;
	}
	return f->pipe_fd;
}

uint64_t ftrace__lost(struct ftrace *f)
{
	char *dir = tracefs_instance_get_file(f->inst, "per_cpu");
	uint64_t lost = 0;
	DIR *d = dir ? opendir(dir) : NULL;
	struct dirent *de;
	while (d && (de = readdir(d))) {
		if (strncmp(de->d_name, "cpu", 3))
			continue;
		char rel[300];
		snprintf(rel, sizeof(rel), "per_cpu/%s/stats", de->d_name);
		char *s = read_rel(f->inst, rel, NULL);
		for (char *p = s; p && *p;) {
			unsigned long long v;
			if (sscanf(p, "overrun: %llu", &v) == 1 || sscanf(p, "dropped events: %llu", &v) == 1)
				lost += v;
			p = strchr(p, '\n');
			p = p ? p + 1 : NULL;
		}
		free(s);
	}
	if (d)
		closedir(d);
	tracefs_put_tracing_file(dir);
	return lost;
}

const char *ftrace__where(const struct ftrace *f)
{
	return f->where;
}

const char *ftrace__replaced_tracer(const struct ftrace *f)
{
	const char *t = f->saved[TOP_CURRENT_TRACER];
	return !f->inst && t && strcmp(t, "nop\n") ? t : NULL;
}

void ftrace__delete(struct ftrace *f)
{
	if (!f)
		return;
	if (f->pipe_fd >= 0)
		close(f->pipe_fd);
	if (f->inst) {
		write_rel(f->inst, "tracing_on", "0\n", false);
		tracefs_instance_free(f->inst);
		f->inst = NULL;
		remove_instance(f->inst_name);
	} else if (f->guard > 0) {
		restore_top(f);
	}
	if (f->guard > 0) {
		guard_say(f, 'd');
		close(f->guard_fd);
		while (waitpid(f->guard, NULL, 0) < 0 && errno == EINTR)
			;
	}
	for (size_t i = 0; i < NR_TOP_FILES; i++)
		free(f->saved[i]);
	free(f);
}

static bool func_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
}

int ftrace__line_function(const char *line, char *name, size_t len)
{
	const char *start, *end;
	const char *arrow = strstr(line, " <-");
	if (arrow) {
		/* function tracer: the word before " <-" */
		end = arrow;
		start = end;
		while (start > line && func_char(start[-1]))
			start--;
	} else if (!strchr(line, '|')) {
		/* function tracer without options/print-parent: the last word after
		 * the timestamp's ": " */
		const char *colon = strstr(line, ": ");
		for (const char *p = colon; p; p = strstr(p + 1, ": "))
			colon = p;
		if (!colon)
			return 0;
		start = colon + 2;
		end = start;
		while (func_char(*end))
			end++;
		if (*end && *end != ' ' && *end != '\n')
			return 0;
	} else {
		/* function_graph: after the last '|', "FUNC();" or "FUNC() {" */
		const char *bar = strrchr(line, '|');
		start = bar + 1;
		while (*start == ' ')
			start++;
		end = start;
		while (func_char(*end))
			end++;
		if (strncmp(end, "();", 3) && strncmp(end, "() {", 4))
			return 0;
	}
	if (end == start || (size_t)(end - start) >= len)
		return 0;
	memcpy(name, start, (size_t)(end - start));
	name[end - start] = 0;
	return 1;
}

void ftrace__eperm_reason(char *buf, size_t len)
{
	FILE *fp = fopen("/sys/kernel/security/lockdown", "re");
	char line[256] = "";
	if (fp) {
		if (!fgets(line, sizeof(line), fp))
			line[0] = 0;
		fclose(fp);
	}
	char *o = strchr(line, '['), *c = o ? strchr(o, ']') : NULL;
	if (o && c) {
		*c = 0;
		snprintf(buf, len, "root is refused: kernel lockdown is '%s' (/sys/kernel/security/lockdown); the "
			 "function tracer needs a kernel without lockdown of ftrace", o + 1);
	} else if (fp) {
		snprintf(buf, len, "root is refused although kernel lockdown is off: a security module (SELinux, "
			 "the BPF LSM) or the kernel's build forbids ftrace's function files");
	} else {
		snprintf(buf, len, "root is refused: the kernel forbids ftrace's function files (kernel lockdown or a "
			 "security module; securityfs is not mounted, so /sys/kernel/security/lockdown cannot "
			 "tell which)");
	}
}
