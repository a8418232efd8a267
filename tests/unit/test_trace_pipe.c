/* pprobe's decoder against the kernel's own text: in a private tracefs
 * instance, events of different shapes are enabled (a syscall entry with
 * pointer and int args and its exit, signal:signal_generate with its
 * grp=/res=, sched:sched_process_exec with a __data_loc string,
 * sched:sched_switch with its state flags, timer:hrtimer_start with its
 * callback as a function name (%ps, named through the symbolizer's
 * kallsyms), a uprobe on this program with an s32, a string and an x64
 * argument), this test makes them happen, then
 * reads the instance's text (what trace_pipe prints) and the raw records of
 * the same events (trace_pipe_raw), decodes each record with
 * tp_format__print() and compares it with the kernel's line for it, CPU by
 * CPU in order. Syscall events the kernel prints with code of its own
 * ("sys_openat(dfd: ...)"): their argument names and values must agree.
 *
 * Root and tracefs, else skipped (77). The instance and the uprobe are
 * removed on every path (exit, SIGINT/SIGTERM, the 60 s alarm). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <tracefs/tracefs.h>

#include "check.h"
#include "pprobe/symbolize.h"
#include "tp_format.h"
#include "tracefs.h"

static char inst_name[64], group[64];
static struct tracefs_instance *inst;
static pid_t owner;

static void cleanup(void)
{
	static volatile sig_atomic_t done;
	if (done || getpid() != owner)	/* a forked child's exit or signal */
		return;
	done = 1;
	if (inst) {
		tracefs_trace_off(inst);
		tracefs_event_disable(inst, NULL, NULL);
		tracefs_instance_destroy(inst);
		tracefs_instance_free(inst);
		inst = NULL;
	}
	if (group[0]) {
		char cmd[128];
		snprintf(cmd, sizeof(cmd), "-:%s/probe_me", group);
		tracefs_instance_file_append(NULL, "uprobe_events", cmd);
	}
}

static void on_signal(int sig)
{
	cleanup();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* The uprobe's target: its arguments are what the kernel fetches. */
__attribute__((noinline)) int probe_me(int n, const char *s, unsigned long x)
{
	__asm__ volatile("" ::"r"(n), "r"(s), "r"(x) : "memory");
	return n + (int)strlen(s);
}

/* File offset of this program's code at addr: what a uprobe names. */
static long exe_offset(const void *addr, char *path, size_t len)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[4200];
	long off = -1;
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long lo, hi, foff;
		char perm[8];
		int pos = 0;
		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %n", &lo, &hi, perm, &foff, &pos) < 4 || !pos)
			continue;
		if ((unsigned long)addr < lo || (unsigned long)addr >= hi)
			continue;
		snprintf(path, len, "%s", line + pos);
		path[strcspn(path, "\n")] = 0;
		off = (long)((unsigned long)addr - lo + foff);
		break;
	}
	if (f)
		fclose(f);
	return off;
}

/* ---- the kernel's lines ---- */

struct kline {
	int cpu;
	char *text;	/* after "TIMESTAMP: " */
};

static int parse_trace(char *text, struct kline **out)
{
	int n = 0;
	*out = NULL;
	for (char *l = text, *next; l && *l; l = next) {
		next = strchr(l, '\n');
		if (next)
			*next++ = 0;
		if (*l == '#' || strstr(l, "[LOST "))
			continue;
		char *b = strstr(l, "] ");
		char *open = b ? b : NULL;
		while (open && open > l && open[-1] != '[')
			open--;
		if (!b || open == l)
			continue;
		int cpu = atoi(open);
		/* flags (with irq-info), then the timestamp ending in ':' */
		char *p = b + 2, *rest = NULL;
		while (*p && !rest) {
			while (*p == ' ')
				p++;
			char *tok = p;
			p += strcspn(p, " ");
			if (p > tok && p[-1] == ':' && strchr(tok, '.') && tok[0] >= '0' && tok[0] <= '9')
				rest = *p ? p + 1 : p;
		}
		if (!rest)
			continue;
		*out = realloc(*out, (size_t)(n + 1) * sizeof(**out));
		(*out)[n].cpu = cpu;
		(*out)[n].text = rest;
		n++;
	}
	return n;
}

/* ---- pprobe's decode of the raw records ---- */

struct rec {
	int cpu;
	char sys[64], name[128];
	char *text;	/* tp_format__print() */
};

struct raw {
	struct rec *v;
	int n;
	struct tp_format *fmts[64];
	int nfmts;
	struct symbolizer *sym;
};

static int on_record(struct tep_event *ev, struct tep_record *r, int cpu, void *ctx)
{
	struct raw *raw = ctx;
	struct tp_format *fmt = NULL;
	for (int i = 0; i < raw->nfmts && !fmt; i++)
		if ((int)raw->fmts[i]->id == ev->id)
			fmt = raw->fmts[i];
	if (!fmt && raw->nfmts < 64) {
		fmt = tp_format__load(ev->system, ev->name);
		CHECK(fmt != NULL, "load %s:%s: %s", ev->system, ev->name, strerror(errno));
		if (!fmt)
			return 0;
		raw->fmts[raw->nfmts++] = fmt;
		tp_format__set_kernel_symbols(fmt, raw->sym);
	}
	char buf[4096];
	int n = tp_format__print(fmt, r->data, (size_t)r->size, buf, sizeof(buf));
	CHECK(n >= 0 && n < (int)sizeof(buf), "%s: print %d", ev->name, n);
	raw->v = realloc(raw->v, (size_t)(raw->n + 1) * sizeof(*raw->v));
	struct rec *x = &raw->v[raw->n++];
	x->cpu = cpu;
	snprintf(x->sys, sizeof(x->sys), "%s", ev->system);
	snprintf(x->name, sizeof(x->name), "%s", ev->name);
	x->text = strdup(n >= 0 ? buf : "");
	return 0;
}

/* "a: 0x1, b: 0" -> names and values; the kernel's syscall text and the
 * print fmt's agree on these. Returns the count. */
static int args_of(const char *s, char names[][32], unsigned long long *vals, int max)
{
	int n = 0;
	while (*s && n < max) {
		while (*s == ' ' || *s == ',')
			s++;
		const char *colon = strstr(s, ": ");
		if (!colon)
			break;
		snprintf(names[n], 32, "%.*s", (int)(colon - s), s);
		vals[n] = strtoull(colon + 2, (char **)&s, 16);
		n++;
	}
	return n;
}

/* Kernel text k and ours o for syscall event name: the same args. */
static int same_syscall(const char *name, const char *k, const char *o)
{
	if (!strncmp(name, "sys_exit_", 9)) {
		const char *arrow = strstr(k, " -> ");
		return arrow && strtoull(arrow + 4, NULL, 16) == strtoull(o, NULL, 16);
	}
	const char *paren = strchr(k, '(');
	if (!paren)
		return 0;
	char kn[8][32], on[8][32];
	unsigned long long kv[8], ov[8];
	int nk = args_of(paren + 1, kn, kv, 8), no = args_of(o, on, ov, 8);
	if (nk != no || !nk)
		return 0;
	for (int i = 0; i < nk; i++)
		if (strcmp(kn[i], on[i]) || kv[i] != ov[i])
			return 0;
	return 1;
}

/* hrtimer_start: the kernel prints its hrtimer=%p hashed and its mode
 * through enum names libtraceevent does not know (0x1 for REL, as perf
 * script prints it); its function=%ps must agree. */
static int same_function(const char *k, const char *o)
{
	const char *kf = strstr(k, "function="), *of = strstr(o, "function=");
	if (!kf || !of)
		return 0;
	size_t kn = strcspn(kf, " "), on = strcspn(of, " ");
	return kn == on && !strncmp(kf, of, kn);
}

/* The kernel's line for event sys:name starts with... */
static int line_is(const struct rec *r, const char *k, const char **info)
{
	char want[160];
	size_t n;
	if (!strcmp(r->sys, "syscalls")) {
		const char *sc = r->name + (strncmp(r->name, "sys_enter_", 10) ? 9 : 10);
		n = (size_t)snprintf(want, sizeof(want), "sys_%s", sc);
		*info = k;
		return !strncmp(k, want, n) && (k[n] == '(' || !strncmp(k + n, " -> ", 4));
	}
	n = (size_t)snprintf(want, sizeof(want), "%s: ", r->name);
	*info = k + n;
	if (!strncmp(k, want, n))
		return 1;
	/* an event with nothing to print: "name: " may end the line trimmed */
	return !strncmp(k, want, n - 1) && !k[n - 1] && (*info = k + n - 1);
}

static void generate(void)
{
	for (int i = 0; i < 3; i++) {
		int fd = open("/etc/hostname", O_RDONLY | O_CLOEXEC);
		if (fd >= 0)
			close(fd);
		open("/nonexistent/pprobe-test", O_RDONLY);	/* -ENOENT */
	}
	pid_t pid = fork();
	if (pid == 0) {
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);	/* SIGCHLD: signal_generate */
	pid = fork();
	if (pid == 0) {
		pause();
		_exit(0);
	}
	if (pid > 0) {
		kill(pid, SIGTERM);
		waitpid(pid, NULL, 0);
	}
	for (int i = 0; i < 3; i++)	/* hrtimer_start, function=hrtimer_wakeup */
		nanosleep(&(struct timespec){ .tv_nsec = 100000 }, NULL);
	static const char *const strs[] = { "hello", "tab\tand \"quote\"", "" };
	for (int i = 0; i < 3; i++)
		probe_me(i == 2 ? -7 : 40 + i, strs[i], 0xdeadbeefUL << i);
}

int main(void)
{
	char msg[512];
	if (geteuid() != 0) {
		return check_skip("not root (tracefs instances and uprobes need it)");
	}
	if (!tracefs__root()) {
		tracefs__strerror(errno, msg, sizeof(msg));
		return check_skip("%s", msg);
	}
	owner = getpid();
	atexit(cleanup);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGALRM, on_signal);	/* never hang: 60 s at most */
	alarm(60);
	snprintf(inst_name, sizeof(inst_name), "pprobe-test-trace-pipe-%d", (int)getpid());
	inst = tracefs_instance_create(inst_name);
	if (!inst) {
		return check_skip("cannot make tracefs instance %s: %s", inst_name, strerror(errno));
	}

	/* the uprobe: s32, string and x64 arguments (x86-64 registers) */
	char exe[4096];
	long off = exe_offset((const void *)probe_me, exe, sizeof(exe));
	CHECK(off > 0, "offset of probe_me");
	snprintf(group, sizeof(group), "pprobe_test_%d", (int)getpid());
	char def[4300];
	snprintf(def, sizeof(def), "p:%s/probe_me %s:0x%lx n=%%di:s32 s=+0(%%si):string x=%%dx:x64", group, exe, off);
	bool uprobe = off > 0 && tracefs_instance_file_append(NULL, "uprobe_events", def) > 0;
	if (!uprobe) {
		printf("no uprobe (%s): probe events not compared\n", strerror(errno));
		group[0] = 0;
	}

	static const char *const evs[][2] = {
		{ "syscalls", "sys_enter_openat" }, { "syscalls", "sys_exit_openat" },
		{ "signal", "signal_generate" },    { "sched", "sched_process_exec" },
		{ "sched", "sched_switch" },        { "timer", "hrtimer_start" },
	};
	for (size_t i = 0; i < sizeof(evs) / sizeof(evs[0]); i++)
		CHECK(tracefs_event_enable(inst, evs[i][0], evs[i][1]) == 0, "enable %s:%s", evs[i][0], evs[i][1]);
	if (uprobe)
		CHECK(tracefs_event_enable(inst, group, "probe_me") == 0, "enable the uprobe");
	tracefs_trace_on(inst);
	generate();
	tracefs_trace_off(inst);

	char *text = tracefs_instance_file_read(inst, "trace", NULL);
	CHECK(text != NULL, "read the instance's trace");
	struct kline *kl = NULL;
	int nk = text ? parse_trace(text, &kl) : 0;

	const char *systems[] = { "syscalls", "signal", "sched", "timer", group[0] ? group : NULL, NULL };
	struct tep_handle *tep = tracefs_local_events_system(NULL, systems);
	CHECK(tep != NULL, "libtracefs loads the events");
	struct raw raw = { 0 };
	struct symbolizer_opts so;
	symbolizer_opts__init(&so);
	raw.sym = symbolizer__new(&so);
	CHECK(raw.sym != NULL, "a symbolizer");
	if (tep)
		tracefs_iterate_raw_events(tep, inst, NULL, 0, on_record, &raw);
	CHECK(raw.n == nk, "%d raw records, %d lines of text", raw.n, nk);

	/* CPU by CPU, in order: the i-th line of a CPU is its i-th record */
	int seen[7] = { 0 }, compared = 0, named = 0;
	int *kpos = calloc(1024, sizeof(int));
	for (int i = 0; i < raw.n; i++) {
		const struct rec *r = &raw.v[i];
		int *pos = &kpos[r->cpu & 1023];
		while (*pos < nk && kl[*pos].cpu != r->cpu)
			(*pos)++;
		if (*pos >= nk) {
			CHECK(0, "record %s on cpu %d: no line of the kernel's for it", r->name, r->cpu);
			break;
		}
		const char *k = kl[(*pos)++].text, *info;
		if (!line_is(r, k, &info)) {
			CHECK(0, "cpu %d: record %s:%s but the kernel's line is '%s'", r->cpu, r->sys, r->name, k);
			break;
		}
		int same = !strcmp(r->sys, "syscalls")	      ? same_syscall(r->name, info, r->text)
			   : !strcmp(r->name, "hrtimer_start") ? same_function(info, r->text)
							       : !strcmp(info, r->text);
		CHECK(same, "%s:%s\n kernel %s\n pprobe %s", r->sys, r->name, info, r->text);
		compared++;
		for (size_t e = 0; e < sizeof(evs) / sizeof(evs[0]); e++)
			if (!strcmp(r->name, evs[e][1]))
				seen[e]++;
		if (group[0] && !strcmp(r->sys, group))
			seen[6]++;
		if (same && !strcmp(r->name, "hrtimer_start") && strstr(r->text, "function=hrtimer_wakeup "))
			named++;
	}
	printf("%d events compared with the kernel's text: openat %d, its exit %d, signal_generate %d, "
	       "sched_process_exec %d, sched_switch %d, hrtimer_start %d (%d naming hrtimer_wakeup), uprobe %d\n",
	       compared, seen[0], seen[1], seen[2], seen[3], seen[4], seen[5], named, seen[6]);
	CHECK(seen[0] >= 6 && seen[1] >= 6, "the openat calls (%d, %d)", seen[0], seen[1]);
	CHECK(seen[2] >= 2 && seen[3] >= 1, "signals (%d), exec (%d)", seen[2], seen[3]);
	CHECK(!uprobe || seen[6] == 3, "the uprobe's 3 calls (%d)", seen[6]);
	CHECK(named >= 3, "hrtimer_start of the 3 sleeps, function=hrtimer_wakeup as the kernel names it (%d)", named);

	free(kpos);
	for (int i = 0; i < raw.n; i++)
		free(raw.v[i].text);
	free(raw.v);
	for (int i = 0; i < raw.nfmts; i++)
		tp_format__free(raw.fmts[i]);
	tep_free(tep);
	symbolizer__delete(raw.sym);
	free(kl);
	free(text);
	cleanup();
	return check_summary();
}
