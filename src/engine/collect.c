#define _GNU_SOURCE
#include "collect.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <asm/perf_regs.h>
#include <elf.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "event_spec.h"
#include "probe_spec.h"
#include "probe_tracefs.h"
#include "sigguard.h"
#include "pprobe/unwind.h"

/* Records newer than (read time - slack) may still be followed by older
 * records from another CPU that were being written while we read: hold them
 * one more round. */
#define ORDER_SLACK_NS 2000000ULL
#define POLL_MS 10
#define POLL_MS_STACKS 1	/* small DWARF stack copies: unwind while the stacks are live */
/* A stack copy up to this size is completed from the live stack when the
 * walk reaches its end (per-occurrence events copy 4 KB); a larger one (a
 * rate-sampled event's 64 KB) rarely needs it and is not hurried. */
#define LIVE_STACK_COPY 16384

/* SIGINT, SIGTERM and SIGHUP belong to the guard's thread (sigguard.h);
 * the signalfd here takes SIGCHLD. */
static sigset_t collect_sigs(void)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	return set;
}

static void raise_nofile_limit(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

static int parse_id_list(const char *s, pid_t **out)
{
	pid_t *v = NULL;
	int nr = 0;
	const char *p = s;
	while (*p) {
		char *end;
		long x = strtol(p, &end, 10);
		if (end == p || x <= 0 || x > INT_MAX || (*end && *end != ',')) {
			free(v);
			return -EINVAL;
		}
		v = pp_xrealloc(v, (size_t)(nr + 1) * sizeof(*v));
		v[nr++] = (pid_t)x;
		p = *end ? end + 1 : end;
	}
	if (!nr)
		return -EINVAL;
	*out = v;
	return nr;
}

/* All threads of the given processes. */
static int threads_of(const pid_t *pids, int nr, pid_t **out, pid_t *missing)
{
	pid_t *v = NULL;
	int n = 0;
	for (int i = 0; i < nr; i++) {
		char path[64];
		snprintf(path, sizeof(path), "/proc/%d/task", pids[i]);
		DIR *d = opendir(path);
		if (!d) {
			*missing = pids[i];
			free(v);
			return -ESRCH;
		}
		struct dirent *de;
		while ((de = readdir(d))) {
			pid_t tid = (pid_t)atoi(de->d_name);
			if (tid <= 0)
				continue;
			v = pp_xrealloc(v, (size_t)(n + 1) * sizeof(*v));
			v[n++] = tid;
		}
		closedir(d);
	}
	*out = v;
	return n;
}

/* ---- user sp of later samples ---- */

/* A ring of (time, sp), oldest at head, and the running maximum of its sps
 * (a monotonic queue: the seqs of entries each with a higher sp than every
 * later one), so that asking for the highest sp after a time costs no scan
 * of a long backlog (a switch-heavy --off-cpu queues 100,000s of samples
 * of one thread). Entry k from head has seq first + k. */
struct sp_history {
	uint64_t *time, *sp;
	size_t head, nr, cap;
	uint64_t first;		/* seq of the entry at head */
	uint64_t *maxq;		/* seqs, decreasing sps; a ring of cap, like the entries */
	size_t mhead, mnr;
};

static uint64_t sp_at(const struct sp_history *h, uint64_t seq)
{
	return h->sp[(h->head + (seq - h->first)) % h->cap];
}

static void sp_note(struct collect *c, pid_t tid, uint64_t time, uint64_t sp)
{
	struct sp_history *h = u64map__get(&c->sp_seen, (uint64_t)tid);
	if (!h) {
		h = pp_xcalloc(1, sizeof(*h));
		u64map__put(&c->sp_seen, (uint64_t)tid, h);
	}
	if (h->nr == h->cap) {
		size_t cap = h->cap ? h->cap * 2 : 64;
		uint64_t *t = pp_xmalloc(cap * sizeof(*t)), *v = pp_xmalloc(cap * sizeof(*v));
		uint64_t *q = pp_xmalloc(cap * sizeof(*q));
		for (size_t i = 0; i < h->nr; i++) {
			t[i] = h->time[(h->head + i) % h->cap];
			v[i] = h->sp[(h->head + i) % h->cap];
		}
		for (size_t i = 0; i < h->mnr; i++)
			q[i] = h->maxq[(h->mhead + i) % h->cap];
		free(h->time);
		free(h->sp);
		free(h->maxq);
		h->time = t;
		h->sp = v;
		h->maxq = q;
		h->head = h->mhead = 0;
		h->cap = cap;
	}
	uint64_t seq = h->first + h->nr;
	size_t i = (h->head + h->nr++) % h->cap;
	h->time[i] = time;
	h->sp[i] = sp;
	while (h->mnr && sp_at(h, h->maxq[(h->mhead + h->mnr - 1) % h->cap]) <= sp)
		h->mnr--;
	h->maxq[(h->mhead + h->mnr++) % h->cap] = seq;
}

static void sp_history__free(struct sp_history *h)
{
	if (!h)
		return;
	free(h->time);
	free(h->sp);
	free(h->maxq);
	free(h);
}

uint64_t collect__sp_high_after(struct collect *c, pid_t tid, uint64_t time,
				uint64_t lo, uint64_t hi)
{
	struct sp_history *h = u64map__get(&c->sp_seen, (uint64_t)tid);
	if (!h)
		return 0;
	while (h->nr && h->time[h->head] <= time) {
		h->head = (h->head + 1) % h->cap;
		h->nr--;
		h->first++;
	}
	while (h->mnr && h->maxq[h->mhead] < h->first) {
		h->mhead = (h->mhead + 1) % h->cap;
		h->mnr--;
	}
	if (!h->mnr)
		return 0;
	/* The highest of all: the answer when in [lo, hi); none is when it is
	 * below lo. Above hi (another stack: sigaltstack), look at each. */
	uint64_t top = sp_at(h, h->maxq[h->mhead]);
	if (top < hi)
		return top >= lo ? top : 0;
	uint64_t high = 0;
	for (size_t i = 0; i < h->nr; i++) {
		uint64_t sp = h->sp[(h->head + i) % h->cap];
		if (sp >= lo && sp < hi && sp > high)
			high = sp;
	}
	return high;
}

int collect__unwind_user(struct collect *c, struct unwinder *u, const struct sample *s,
			 const struct process *p, uint64_t *ips, int max, struct unwind_result *res)
{
	struct unwind_regs regs;
	unwind_regs__from_x86_sample(&regs, UNWIND_X86_SAMPLE_REGS_MASK, s->regs);
	struct unwind_stack st = { regs.r[UNWIND_REG_SP], s->stack, (size_t)s->stack_dyn_size, 0 };
	const struct map *m = maps__find(p->maps, st.sp);
	st.live_floor = collect__sp_high_after(c, (pid_t)s->tid, s->time, st.sp, m ? m->end : UINT64_MAX);
	return unwinder__unwind(u, (pid_t)s->pid, p->maps, &regs, &st, ips, max, res);
}

/* On the drain thread: where a sample's stack copy size is (drain.h). */
static size_t stack_field_of(void *arg, const struct perf_event_header *hdr)
{
	const struct collect *c = arg;
	struct sample s;
	if (sample__parse(hdr, &c->layout, &s) || !s.stack || !s.stack_size)
		return 0;
	return (size_t)((const unsigned char *)s.stack - 8 - (const unsigned char *)hdr);
}

/* A sample just read from a ring: remember its thread's user sp. */
static void sp_note_sample(struct collect *c, const struct perf_event_header *hdr)
{
	uint64_t mask = c->layout.regs_user_mask;
	struct sample s;
	if (!(mask & (1ULL << PERF_REG_X86_SP)) || sample__parse(hdr, &c->layout, &s) || !s.regs_abi)
		return;
	sp_note(c, (pid_t)s.tid, s.time, s.regs[__builtin_popcountll(mask & ((1ULL << PERF_REG_X86_SP) - 1))]);
}

/* ---- holding exits ----
 * A DWARF sample copies a few KB of user stack; the unwinder reads the rest
 * from the live process. Samples wait a few ms in the ring, so those taken
 * just before a thread exits would find its stack gone. With hold_exits the
 * command is seized with ptrace for its exit-stops only (PTRACE_O_TRACEEXIT,
 * inherited by the threads and processes it creates): an exiting thread
 * waits, memory intact, until the rings are read and every record up to
 * that moment is processed. Signals and group-stops pass through as they
 * would without us. When ptrace is refused (Yama scope 3, already traced),
 * the command runs untraced. */
static void hold_exits_of(struct collect *c, pid_t pid)
{
	long o = PTRACE_O_TRACEEXIT | PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK;
	c->traced = ptrace(PTRACE_SEIZE, pid, NULL, (void *)o) == 0;
}

static void drain_until(struct collect *c, uint64_t limit);

/* A tracee stopped (status st): let it go on as it would untraced. An
 * exiting thread notes its sp (samples still queued must not trust the
 * stack below it: those frames have returned) and, when hold, waits in
 * c->held until release_held(). */
static void tracee_stopped(struct collect *c, pid_t pid, int st, bool hold)
{
	int ev = st >> 16, sig = WSTOPSIG(st);
	long inject = 0;
	int req = PTRACE_CONT;
	if (ev == PTRACE_EVENT_EXIT) {
		struct user_regs_struct regs;
		struct iovec io = { &regs, sizeof(regs) };
		if (ptrace(PTRACE_GETREGSET, pid, (void *)NT_PRSTATUS, &io) == 0)
			sp_note(c, pid, now_ns(), regs.rsp);
		c->exits_held++;
		if (hold) {
			if (c->nr_held == c->cap_held) {
				c->cap_held = c->cap_held ? 2 * c->cap_held : 16;
				c->held = pp_xrealloc(c->held, (size_t)c->cap_held * sizeof(*c->held));
			}
			c->held[c->nr_held++] = pid;
			return;
		}
	} else if (ev == PTRACE_EVENT_STOP) {
		if (sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU)
			req = PTRACE_LISTEN;	/* a group-stop: stay stopped, as untraced */
	} else if (ev == 0) {
		inject = sig;		/* signal-delivery-stop: deliver the signal */
	}
	ptrace(req, pid, NULL, (void *)inject);
}

/* Handle the status changes of our command (and, traced, of its tracees):
 * all pending ones, or (block) until the command has exited. hold: keep
 * exiting threads stopped for release_held(). Safe while records are being
 * processed (it processes none itself). */
static void reap(struct collect *c, bool hold, bool block)
{
	if (!c->child)
		return;
	int flags = (block ? 0 : WNOHANG) | (c->traced ? __WALL : 0);
	int st;
	pid_t pid;
	while (!(block && c->child_exited) &&
	       (pid = waitpid(c->traced ? -1 : c->child, &st, flags)) > 0) {
		if (WIFSTOPPED(st)) {
			tracee_stopped(c, pid, st, hold);
		} else if (pid == c->child && !c->child_exited) {
			c->child_status = st;
			c->child_exited = true;
			c->stop = true;
		}
	}
}

/* Let the held threads finish exiting; first (when drain) process every
 * record taken before now, while their stacks are still there. */
static void release_held(struct collect *c, bool drain)
{
	if (!c->nr_held)
		return;
	if (drain)
		drain_until(c, now_ns());
	for (int i = 0; i < c->nr_held; i++)
		ptrace(PTRACE_CONT, c->held[i], NULL, NULL);
	c->nr_held = 0;
}

/* Ending at once (sigguard.h): the command is asked to end, as
 * collect__cleanup asks first; held, it exits without running anyway. */
static void child_exit_now(void *arg)
{
	const struct collect *c = arg;
	if (c->child > 0 && !c->child_exited)
		kill(c->child, SIGTERM);
}

static int start_child(struct collect *c, bool hold_until_go)
{
	int go[2], errp[2];
	if (pipe2(go, O_CLOEXEC) || pipe2(errp, O_CLOEXEC)) {
		fprintf(stderr, "pprobe: pipe: %s\n", strerror(errno));
		return 1;
	}
	sigset_t sigs = collect_sigs();
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, "pprobe: fork: %s\n", strerror(errno));
		return 1;
	}
	if (pid == 0) {
		sigprocmask(SIG_UNBLOCK, &sigs, NULL);
		sigguard__unblock_in_child();
		close(go[1]);
		close(errp[0]);
		if (c->opts.child_stdout_to_stderr && dup2(2, 1) < 0)
			_exit(126);
		if (hold_until_go) {
			char b;
			/* EOF without a byte: pprobe gave up; do not run the command. */
			if (read(go[0], &b, 1) != 1)
				_exit(127);
		}
		execvp(c->opts.argv[0], c->opts.argv);
		int e = errno;
		if (write(errp[1], &e, sizeof(e)) < 0) {
			/* nothing more to tell */
		}
		_exit(e == ENOENT ? 127 : 126);
	}
	close(go[0]);
	close(errp[1]);
	if (c->opts.hold_exits)
		hold_exits_of(c, pid);
	c->child = pid;
	c->child_go_fd = go[1];
	c->child_err_fd = errp[0];
	sigguard__on_exit_now(child_exit_now, c);
	return 0;
}

/* Release the child; returns 0 once it has exec'd, or the exit status
 * (127 command not found, 126 not executable) after saying why. */
static int release_child(struct collect *c)
{
	if (c->child_go_fd >= 0) {
		if (write(c->child_go_fd, "g", 1) != 1) {
			/* the child is gone; the error pipe tells */
		}
		close(c->child_go_fd);
		c->child_go_fd = -1;
	}
	int e = 0;
	ssize_t n = read(c->child_err_fd, &e, sizeof(e));
	close(c->child_err_fd);
	c->child_err_fd = -1;
	if (n == (ssize_t)sizeof(e)) {
		fprintf(stderr, "pprobe: cannot run '%s': %s\n", c->opts.argv[0], strerror(e));
		reap(c, false, true);
		c->child = 0;
		c->child_exited = false;
		return e == ENOENT ? 127 : 126;
	}
	return 0;
}

/* An inherited uprobe/kprobe PMU event breaks the program it follows
 * (probe_spec__follow_tasks): refuse to open one. 0, or 1 said. */
static int refuse_inherited_pmu_probe(const struct evsel *ev)
{
	if (!ev->attr.inherit || !probe_spec__is_pmu_probe_attr(&ev->attr))
		return 0;
	fprintf(stderr, "pprobe: internal error: %s would be opened as an inherited %s PMU event, which makes "
		"the followed program's fork() fail; not opened\n", ev->name, ev->spec ? ev->spec->pmu : "probe");
	return 1;
}

static int normalize_attr(struct collect *c, struct evsel *ev, bool on_command)
{
	struct perf_event_attr *a = &ev->attr;
	a->size = sizeof(*a);
	/* perf's per-event terms (cpu-clock/max-stack=3,no-inherit/) win over
	 * the run's options; their period and freq are in the spec's attr. */
	const struct event_spec *sp = ev->spec;
	/* no-inherit: this event follows the task it is opened on, not its
	 * children; inherit is what pprobe does anyway where it follows tasks */
	bool inherit = (on_command || c->opts.pid_list) && !(sp && sp->inherit < 0);
	if (c->opts.counting) {
		a->sample_type = 0;
		a->sample_period = 0;
		a->freq = 0;
		a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
		/* Group members follow their leader; only a leader starts disabled. */
		a->disabled = ev->group_leader < 0 || ev->group_leader == ev->idx;
		a->inherit = inherit;
		a->enable_on_exec = on_command && a->disabled ? 1 : 0;
		return refuse_inherited_pmu_probe(ev);
	}
	a->sample_type = c->layout.sample_type;
	a->sample_regs_user = c->layout.regs_user_mask;
	if (c->opts.extra_sample_type & PERF_SAMPLE_STACK_USER) {
		a->sample_stack_user = sp && sp->stack_size ? sp->stack_size
				     : collect__rated(a) && c->opts.stack_user_size_rated ? c->opts.stack_user_size_rated
				     : c->opts.stack_user_size;
	}
	if (c->opts.extra_sample_type & PERF_SAMPLE_CALLCHAIN) {
		a->sample_max_stack = sp && sp->max_stack ? collect__kernel_max_stack(sp->max_stack) : c->opts.max_stack;
		a->exclude_callchain_user = c->opts.exclude_callchain_user;
	}
	a->sample_id_all = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->disabled = 1;
	a->inherit = inherit;
	a->enable_on_exec = on_command ? 1 : 0;
	/* Woken by the kernel at a watermark (bursts); with small DWARF stack
	 * copies also every 1 ms by poll's timeout (see collect__run): a
	 * sample unwound late may find its live stack gone. A wakeup at every
	 * sample cost the sampled program dearly instead (at 9,999 Hz its run
	 * time went from 2.8 to 4.1 s). Large copies: see set_wakeups. */
	a->watermark = 1;
	size_t ring_bytes = c->opts.ring_pages * (size_t)sysconf(_SC_PAGESIZE);
	a->wakeup_watermark = (uint32_t)(ring_bytes / 16 < 65536 ? ring_bytes / 16 : 65536);
	return refuse_inherited_pmu_probe(ev);
}

/* Do samples need unwinding while their thread's stack is live: a small
 * stack copy (per-occurrence events), completed from the live stack? */
static bool live_stacks(const struct collect *c)
{
	for (int i = 0; i < c->evlist.nr_evsels; i++) {
		const struct evsel *ev = c->evlist.evsels[i];
		if (!ev->tracking && (ev->attr.sample_type & PERF_SAMPLE_STACK_USER) &&
		    ev->attr.sample_stack_user <= LIVE_STACK_COPY)
			return true;
	}
	return false;
}

/* Where every stack copy is large (rate-sampled events: 64 KB), the rings
 * wake the drain thread at an eighth of their size, the rest left for the
 * POLL_MS between its passes. A copy reserves its whole size in the ring
 * (64 KB for the few KB a thread's stack has): at the 64 KiB watermark that
 * was a wakeup of both of pprobe's threads per sample (19,000 polls in a
 * 10 s clang compile at 999 Hz). The ring's owner (the sideband dummy)
 * sets it for the ring. */
static void set_wakeups(struct collect *c)
{
	size_t ring_bytes = c->opts.ring_pages * (size_t)sysconf(_SC_PAGESIZE);
	if (!(c->layout.sample_type & PERF_SAMPLE_STACK_USER) || live_stacks(c) || ring_bytes / 8 > UINT32_MAX)
		return;
	for (int i = 0; i < c->evlist.nr_evsels; i++) {
		struct perf_event_attr *a = &c->evlist.evsels[i]->attr;
		if (a->watermark && ring_bytes / 8 > a->wakeup_watermark)
			a->wakeup_watermark = (uint32_t)(ring_bytes / 8);
	}
}

static void add_tracking(struct collect *c)
{
	struct perf_event_attr a = { 0 };
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.sample_period = 1;
	a.mmap = 1;
	a.mmap2 = 1;
	a.comm = 1;
	a.comm_exec = 1;
	a.task = 1;
	a.build_id = 1;
	a.context_switch = c->opts.context_switch;
	/* Sideband only: the dummy never samples. Put it first so it owns each
	 * CPU's ring. */
	struct evsel *ev = evlist__add(&c->evlist, "dummy:sideband", &a);
	ev->tracking = true;
	struct evlist *el = &c->evlist;
	memmove(el->evsels + 1, el->evsels, (size_t)(el->nr_evsels - 1) * sizeof(*el->evsels));
	el->evsels[0] = ev;
	for (int i = 0; i < el->nr_evsels; i++)
		el->evsels[i]->idx = i;
}

static int open_events(struct collect *c)
{
	int err = evlist__open(&c->evlist);
	if (err == -EINVAL && c->evlist.failed_evsel && c->evlist.failed_evsel->tracking &&
	    c->evlist.failed_evsel->attr.build_id) {
		/* Kernels before 5.12 have no build ids in MMAP2. */
		c->evlist.failed_evsel->attr.build_id = 0;
		err = evlist__open(&c->evlist);
	}
	if (err == -EMFILE) {
		raise_nofile_limit();
		err = evlist__open(&c->evlist);
	}
	if (!err)
		return 0;
	char msg[1024];
	const struct evsel *ev = c->evlist.failed_evsel;
	struct event_spec sideband = { .kind = EVENT_KIND_SOFTWARE };
	if (!ev->spec) {
		/* The sideband dummy fails for the reasons any software event would
		 * (permissions, limits): explain it as one. */
		snprintf(sideband.name, sizeof(sideband.name), "dummy (sideband tracking)");
		sideband.attr = ev->attr;
	}
	event_spec__explain_open_error(ev->spec ? ev->spec : &sideband, c->evlist.failed_errno, msg, sizeof(msg));
	if (c->evlist.failed_tid > 0 && c->evlist.failed_errno == ESRCH)
		fprintf(stderr, "pprobe: no such process: %d\n", c->evlist.failed_tid);
	else
		fprintf(stderr, "pprobe: %s\n", msg);
	return 1;
}

void collect__init(struct collect *c)
{
	memset(c, 0, sizeof(*c));
	c->sigfd = -1;
	c->out_fd = -1;
	/* From here a stop signal asks (c->stop; before the run: the command
	 * never starts), a second one ends pprobe at once. */
	if (sigguard__start(2))
		fprintf(stderr, "pprobe: no signal guard (%s): SIGINT/SIGTERM end pprobe without its cleanup\n",
			strerror(errno));
	c->child_go_fd = c->child_err_fd = -1;
	evlist__init(&c->evlist);
	session__init(&c->session);
	ordered__init(&c->queue);
	u64map__init(&c->sp_seen);
}

/* The CPUs to open on: -C's list, each checked to be online, or every
 * online CPU. 0, or the exit status after saying why. */
static int target_cpus(const struct collect_opts *opts, int **cpus_out, int *nr_out)
{
	int *cpus = NULL, nr_cpus;

	if (!opts->cpu_list) {
		nr_cpus = cpulist__online(&cpus);
		if (nr_cpus < 0) {
			fprintf(stderr, "pprobe: cannot read the online CPUs: %s\n", strerror(-nr_cpus));
			return 1;
		}
		*cpus_out = cpus;
		*nr_out = nr_cpus;
		return 0;
	}
	nr_cpus = cpulist__parse(opts->cpu_list, &cpus);
	if (nr_cpus < 0) {
		fprintf(stderr, "pprobe: bad CPU list '%s' (expected e.g. 0-3,5)\n", opts->cpu_list);
		return 2;
	}
	int *online, nr_online = cpulist__online(&online);
	for (int i = 0; i < nr_cpus && nr_online > 0; i++) {
		bool ok = false;
		for (int k = 0; k < nr_online; k++)
			ok |= online[k] == cpus[i];
		if (!ok) {
			fprintf(stderr, "pprobe: CPU %d is not online (online: %d-%d)\n", cpus[i],
				online[0], online[nr_online - 1]);
			free(online);
			free(cpus);
			return 2;
		}
	}
	if (nr_online > 0)
		free(online);
	*cpus_out = cpus;
	*nr_out = nr_cpus;
	return 0;
}

/* The threads to open on: those of -p's processes, -t's threads, -1 (every
 * task) for -a or -C, or none yet when the command to be started is the
 * target (*on_command: its pid comes when it is forked). Sets
 * c->target_pids for -p and -t. 0, or the exit status after saying why. */
static int target_tasks(struct collect *c, const struct collect_opts *opts, pid_t **tids_out, int *nr_out,
			bool *on_command)
{
	*tids_out = NULL;
	*on_command = false;
	if (opts->pid_list || opts->tid_list) {
		const char *list = opts->pid_list ? opts->pid_list : opts->tid_list;
		pid_t *ids;
		int n = parse_id_list(list, &ids);
		if (n < 0) {
			fprintf(stderr, "pprobe: bad %s list '%s' (expected e.g. 1234,5678)\n",
				opts->pid_list ? "PID" : "TID", list);
			return 2;
		}
		if (opts->pid_list) {
			pid_t missing = 0;
			*nr_out = threads_of(ids, n, tids_out, &missing);
			if (*nr_out < 0) {
				fprintf(stderr, "pprobe: no such process: %d\n", missing);
				free(ids);
				return 1;
			}
			c->target_pids = ids;
			c->nr_target_pids = n;
			return 0;
		}
		for (int i = 0; i < n; i++) {
			char path[64];
			snprintf(path, sizeof(path), "/proc/%d", ids[i]);
			if (access(path, F_OK)) {
				fprintf(stderr, "pprobe: no such thread: %d\n", ids[i]);
				free(ids);
				return 1;
			}
		}
		*tids_out = ids;
		*nr_out = n;
		/* A thread is followed on every CPU without inherit. */
		c->target_pids = pp_xmalloc((size_t)n * sizeof(pid_t));
		memcpy(c->target_pids, ids, (size_t)n * sizeof(pid_t));
		c->nr_target_pids = n;
		return 0;
	}
	if (opts->system_wide || opts->cpu_list || !opts->argv) {
		if (!opts->system_wide && !opts->cpu_list && !opts->argv) {
			fprintf(stderr, "pprobe: nothing to record: give a command, -p PID, -t TID, -a or -C CPUS\n");
			return 2;
		}
		*tids_out = pp_xmalloc(sizeof(pid_t));
		(*tids_out)[0] = -1;
		*nr_out = 1;
		return 0;
	}
	*on_command = true;
	*nr_out = 1;
	return 0;
}

/* What exists already, into the session: the sideband only tells us about
 * changes. */
static void synthesize_targets(struct collect *c, const pid_t *tids, int nr_tids)
{
	const struct collect_opts *opts = &c->opts;

	if (opts->counting)
		return;	/* counting needs no process table */
	if (opts->system_wide || opts->cpu_list) {
		session__synthesize_all(&c->session);
	} else if (opts->pid_list) {
		for (int i = 0; i < c->nr_target_pids; i++)
			session__synthesize_pid(&c->session, c->target_pids[i]);
	} else if (opts->tid_list) {
		for (int i = 0; i < nr_tids; i++) {
			char path[64], buf[256];
			/* The thread's process: Tgid from status. */
			snprintf(path, sizeof(path), "/proc/%d/status", tids[i]);
			FILE *f = fopen(path, "re");
			pid_t tgid = tids[i];
			while (f && fgets(buf, sizeof(buf), f))
				if (!strncmp(buf, "Tgid:", 5))
					tgid = atoi(buf + 5);
			if (f)
				fclose(f);
			session__synthesize_pid(&c->session, tgid);
		}
	}
}

int collect__prepare(struct collect *c, const struct collect_opts *opts)
{
	int *cpus = NULL, nr_cpus = 0;
	pid_t *tids = NULL;
	int nr_tids = 0;
	bool on_command;
	int ret;

	c->opts = *opts;
	c->layout.sample_type = SAMPLE_TYPE_BASE | opts->extra_sample_type;
	c->layout.regs_user_mask = opts->regs_user_mask;
	raise_nofile_limit();
	/* temporary probes of pprobes that were killed (-9) go at the next start */
	(void)probe_tracefs__sweep_stale();

	ret = target_cpus(opts, &cpus, &nr_cpus);
	if (ret)
		return ret;
	ret = target_tasks(c, opts, &tids, &nr_tids, &on_command);
	if (ret)
		goto err;

	/* Probes that follow new tasks are tracefs probes, made before the
	 * command starts: when that cannot be, it does not run. */
	if (on_command || opts->pid_list)
		for (int i = 0; i < c->evlist.nr_evsels; i++) {
			struct evsel *ev = c->evlist.evsels[i];
			char err[4096];
			if (ev->spec && probe_spec__follow_tasks(ev->spec, &ev->attr, err, sizeof(err)) < 0) {
				fprintf(stderr, "pprobe: %s\n", err);
				ret = 1;
				goto err;
			}
		}

	/* SIGCHLD arrives through a signalfd polled with the rings, the stop
	 * signals through the guard's eventfd. */
	sigset_t sigs = collect_sigs();
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	c->sigfd = signalfd(-1, &sigs, SFD_CLOEXEC | SFD_NONBLOCK);
	signal(SIGPIPE, SIG_IGN);

	/* A stop signal while events were resolved: the command never starts. */
	if ((ret = collect__stopped()))
		goto err;
	if (opts->argv) {
		ret = start_child(c, true);
		if (ret)
			goto err;
		if (on_command) {
			tids = pp_xmalloc(sizeof(*tids));
			tids[0] = c->child;
		}
	}

	if (opts->counting && !opts->system_wide && !opts->cpu_list) {
		/* Counting a task: one counter per thread that follows it on every
		 * CPU (as perf stat), so enabled/running mean what they say. */
		free(cpus);
		cpus = pp_xmalloc(sizeof(*cpus));
		cpus[0] = -1;
		nr_cpus = 1;
	}
	if (!opts->counting)
		add_tracking(c);
	for (int i = 0; i < c->evlist.nr_evsels; i++)
		if (normalize_attr(c, c->evlist.evsels[i], on_command)) {
			ret = 1;
			goto err;
		}
	if (!opts->counting)
		set_wakeups(c);
	/* The evlist owns cpus and tids from here. */
	evlist__set_targets(&c->evlist, cpus, nr_cpus, tids, nr_tids);
	c->evlist.ring_pages = opts->counting ? 0 : opts->ring_pages;
	/* Counting goes on without the events this machine cannot count (as
	 * perf stat): the command reports them. */
	c->evlist.tolerant = opts->counting;

	synthesize_targets(c, c->evlist.tids, c->evlist.nr_tids);
	return open_events(c);

err:
	free(cpus);
	free(tids);
	return ret;
}

/* ---- the loop ---- */

static void catch_up(struct collect *c);

/* Processing a sample (unwinding) can take longer than the kernel takes to
 * fill a ring in a burst. The drain thread empties the rings meanwhile; we
 * pull what it staged this often, so later samples' user sps are known
 * (collect__sp_high_after) while we work. */
#define DRAIN_EVERY_NS 1000000ULL

/* A stop signal ends the run, and what is queued is processed for this
 * long after it at most: past it, the samples left are counted and left
 * out (a burst queued over 40 s of unwinding had a SIGINT wait for it all). */
#define STOP_GRACE_NS 500000000ULL

/* A record left out after a stop: a sample is counted (as received, and
 * as left out), nothing else is looked at. */
static int leave_out(void *ctx, const struct perf_event_header *hdr, int cpu)
{
	struct collect *c = ctx;
	struct sample s;
	struct evsel *ev;
	(void)cpu;
	if (hdr->type == PERF_RECORD_SAMPLE && sample__parse(hdr, &c->layout, &s) == 0 &&
	    (ev = evlist__evsel_by_id(&c->evlist, s.id))) {
		ev->samples++;
		c->nr_samples++;
		c->stop_left++;
	}
	return 0;
}

/* A stop signal came more than STOP_GRACE_NS ago: the sample is left out. */
static bool past_stop_grace(struct collect *c)
{
	if (!sigguard__count())
		return false;
	uint64_t t = now_ns();
	if (!c->stop_seen_ns)
		c->stop_seen_ns = t;
	return t - c->stop_seen_ns > STOP_GRACE_NS;
}

static int process_record(void *ctx, const struct perf_event_header *hdr, int cpu)
{
	struct collect *c = ctx;
	struct sample s;

	switch (hdr->type) {
	case PERF_RECORD_SAMPLE: {
		if (sample__parse(hdr, &c->layout, &s)) {
			c->bad_records++;
			return 0;
		}
		struct evsel *ev = evlist__evsel_by_id(&c->evlist, s.id);
		if (!ev) {
			c->unknown_id++;
			return 0;
		}
		ev->samples++;
		c->nr_samples++;
		if (past_stop_grace(c)) {	/* this one and the rest: left out */
			c->stop_left++;
			return ORDERED_DROP;
		}
		struct thread *t = session__thread(&c->session, (pid_t)s.pid, (pid_t)s.tid);
		struct process *p = s.pid > 0 ? session__process(&c->session, (pid_t)s.pid) : NULL;
		int ret = c->on_sample ? c->on_sample(c, ev, &s, t, p) : 0;
		/* after a stop signal the queue only shrinks: what the drain
		 * thread staged is pulled once, at the end */
		if (!sigguard__count() && now_ns() - c->last_read_ns > DRAIN_EVERY_NS) {
			catch_up(c);	/* s points into the queue: not used after this */
			/* A thread that exits meanwhile is held, and its sp
			 * noted for the samples still to come. */
			if (c->traced)
				reap(c, true, false);
		}
		return ret;
	}
	case PERF_RECORD_MMAP2: {
		const struct {
			struct perf_event_header h;
			uint32_t pid, tid;
			uint64_t addr, len, pgoff;
			union {
				struct {
					uint32_t maj, min;
					uint64_t ino, ino_generation;
				};
				struct {
					uint8_t build_id_size, r1;
					uint16_t r2;
					uint8_t build_id[20];
				};
			};
			uint32_t prot, flags;
			char filename[];
		} *r = (const void *)hdr;
		struct map m = { 0 };
		m.start = r->addr;
		m.end = r->addr + r->len;
		m.pgoff = r->pgoff;
		m.prot = r->prot;
		m.flags = r->flags;
		if (hdr->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			m.build_id_size = r->build_id_size > 20 ? 20 : r->build_id_size;
			memcpy(m.build_id, r->build_id, m.build_id_size);
		} else {
			m.maj = r->maj;
			m.min = r->min;
			m.ino = r->ino;
		}
		m.path = (char *)r->filename;
		session__mmap(&c->session, (pid_t)r->pid, &m);
		if (c->on_mmap)
			c->on_mmap(c, (pid_t)r->pid, &m);
		return 0;
	}
	case PERF_RECORD_COMM: {
		const struct {
			struct perf_event_header h;
			uint32_t pid, tid;
			char comm[];
		} *r = (const void *)hdr;
		bool exec = hdr->misc & PERF_RECORD_MISC_COMM_EXEC;
		session__comm(&c->session, (pid_t)r->pid, (pid_t)r->tid, r->comm, exec);
		if (exec && c->on_process_gone)
			c->on_process_gone(c, (pid_t)r->pid);
		return 0;
	}
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT: {
		const struct {
			struct perf_event_header h;
			uint32_t pid, ppid, tid, ptid;
			uint64_t time;
		} *r = (const void *)hdr;
		if (hdr->type == PERF_RECORD_FORK)
			session__fork(&c->session, (pid_t)r->pid, (pid_t)r->ppid, (pid_t)r->tid, (pid_t)r->ptid);
		else {
			sp_history__free(u64map__del(&c->sp_seen, r->tid));
			session__task_exit(&c->session, (pid_t)r->pid, (pid_t)r->tid);
			if (r->pid == r->tid && c->on_process_gone)
				c->on_process_gone(c, (pid_t)r->pid);
		}
		return 0;
	}
	case PERF_RECORD_LOST_SAMPLES: {
		const struct {
			struct perf_event_header h;
			uint64_t lost;
		} *r = (const void *)hdr;
		c->lost_samples += r->lost;
		return 0;
	}
	case PERF_RECORD_THROTTLE:
		c->throttled++;
		return 0;
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		if (!c->on_switch)
			return 0;
		if (sample__parse_id(hdr, &c->layout, &s))
			c->bad_records++;
		else
			c->on_switch(c, &s, hdr->misc);
		return 0;
	default:
		(void)cpu;
		return 0;
	}
}

/* A PERF_RECORD_LOST: counted at once (it needs no ordering) under the
 * event it names. The kernel names the event that wrote next into the ring
 * after the loss, under its own id; an inherited copy of an event has an id
 * of its own, its parent's (ours) is in the sample_id trailer. */
static void note_lost(struct collect *c, const struct perf_event_header *hdr, unsigned flags)
{
	const struct {
		struct perf_event_header h;
		uint64_t id, lost;
	} *r = (const void *)hdr;
	struct sample s;
	if (hdr->size < sizeof(*r)) {
		c->bad_records++;
		return;
	}
	struct evsel *ev = evlist__evsel_by_id(&c->evlist, r->id);
	if (!ev && !sample__parse_id(hdr, &c->layout, &s))
		ev = evlist__evsel_by_id(&c->evlist, s.id);
	c->lost += r->lost;
	if (flags & DRAIN_LOST_QUEUE_FULL)
		c->lost_queue_full += r->lost;
	if (!ev) {
		c->lost_no_event += r->lost;
		return;
	}
	ev->lost += r->lost;
	if (flags & DRAIN_LOST_QUEUE_FULL)
		ev->lost_queue_full += r->lost;
}

/* A record the drain thread staged: into the timestamp-ordered queue. The
 * main thread alone touches the queue and the sp history. */
static void queue_record(void *ctx, const struct perf_event_header *hdr, int cpu, unsigned flags)
{
	struct collect *c = ctx;
	if (hdr->type == PERF_RECORD_LOST) {
		note_lost(c, hdr, flags);
		return;
	}
	if (hdr->type == PERF_RECORD_SAMPLE && past_stop_grace(c)) {
		/* counted, not queued: a backlog pulled after the stop's grace
		 * costs a parse, not a copy */
		leave_out(c, hdr, cpu);
		return;
	}
	ordered__push(&c->queue, hdr, sample__record_time(hdr, &c->layout), cpu);
	if (hdr->type == PERF_RECORD_SAMPLE)
		sp_note_sample(c, hdr);
}

/* Everything staged so far into the queue. */
static void pull(struct collect *c)
{
	c->last_read_ns = now_ns();
	drain__pull(&c->drain, queue_record, c);
	drain__consumer_bytes(&c->drain, c->queue.len);
	c->bad_records += __atomic_exchange_n(&c->drain.bad, 0, __ATOMIC_ACQ_REL);
}

/* Every record in the rings now into the queue, read from this thread. */
static void read_rings(struct collect *c)
{
	drain__read(&c->drain);
	pull(c);
}

/* During long processing: what the drain thread staged (or, without one,
 * the rings themselves). */
static void catch_up(struct collect *c)
{
	if (c->drain.running)
		pull(c);
	else
		read_rings(c);
}

/* Process every queued record older than limit; the memory it held is the
 * drain thread's to use again. */
static void flush_until(struct collect *c, uint64_t limit)
{
	if (ordered__flush(&c->queue, limit, process_record, c) == ORDERED_DROP)
		ordered__drop(&c->queue, leave_out, c);	/* past a stop's grace */
	drain__consumer_bytes(&c->drain, c->queue.len);
}

/* Read the rings and process every record older than limit. */
static void drain_until(struct collect *c, uint64_t limit)
{
	read_rings(c);
	flush_until(c, limit);
}

static void handle_signals(struct collect *c)
{
	struct signalfd_siginfo si;
	while (c->sigfd >= 0 && read(c->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		reap(c, true, false);
		release_held(c, true);
	}
	uint64_t n;
	if (sigguard__fd() >= 0 && read(sigguard__fd(), &n, sizeof(n)) < 0) {
		/* EAGAIN: no stop signal since the last read */
	}
	if (sigguard__count() && !c->stop_signal) {
		c->stop_signal = sigguard__first();
		c->stop = true;
	}
}

void collect__watch_output(struct collect *c, int fd)
{
	struct stat st;
	if (fd >= 0 && fstat(fd, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
		c->out_fd = fd;
}

void collect__output_error(struct collect *c, int err)
{
	if (!c->out_err)
		c->out_err = err ? err : EIO;
	c->stop = true;
}

/* A pipe's write end polls POLLERR once the read end is closed; a socket's
 * POLLHUP once the peer shut down. */
static void check_output(struct collect *c, short revents)
{
	if (c->out_fd >= 0 && (revents & (POLLERR | POLLHUP)))
		collect__output_error(c, EPIPE);
}

static bool targets_gone(struct collect *c)
{
	if (!c->nr_target_pids)
		return false;
	for (int i = 0; i < c->nr_target_pids; i++) {
		char path[64];
		snprintf(path, sizeof(path), "/proc/%d/stat", c->target_pids[i]);
		FILE *f = fopen(path, "re");
		if (!f)
			continue;
		char buf[512];
		char *ok = fgets(buf, sizeof(buf), f);
		fclose(f);
		char *rp = ok ? strrchr(buf, ')') : NULL;
		if (rp && rp[1] == ' ' && rp[2] != 'Z' && rp[2] != 'X')
			return false;
	}
	return true;
}

static void show_status(struct collect *c, bool final)
{
	if (c->opts.quiet || !isatty(2))
		return;
	if (final) {
		if (c->status_shown)
			fprintf(stderr, "\r\033[K");
		return;
	}
	fprintf(stderr, "\r\033[K[ %s: %.1fs, %llu samples, %llu lost, %.1f MB read ]",
		c->opts.status_prefix ? c->opts.status_prefix : "pprobe", now_seconds() - c->t_start,
		(unsigned long long)c->nr_samples, (unsigned long long)(c->lost + c->lost_samples),
		(double)__atomic_load_n(&c->drain.bytes, __ATOMIC_RELAXED) / 1e6);
	c->status_shown = true;
}

int collect__stopped(void)
{
	return sigguard__count() ? COLLECT_EXIT_BY_SIGNAL + sigguard__first() : 0;
}

int collect__start(struct collect *c)
{
	/* Stopped while attaching: the held command exits without running
	 * (collect__cleanup), pprobe dies of the signal. */
	int st = collect__stopped();
	if (st)
		return st;
	bool on_command = c->evlist.nr_tids == 1 && c->child && c->evlist.tids[0] == c->child;
	c->t_start = now_seconds();
	if (!on_command)
		evlist__enable(&c->evlist);
	/* With a command the events arm themselves at its exec. */
	return c->child ? release_child(c) : 0;
}

/* Checked this often for -p/-t targets that exited (stat waits here with no
 * other deadline: it must notice them as record's ring loop does). */
#define TARGETS_POLL_MS 100

void collect__wait(struct collect *c, int timeout_ms)
{
	struct pollfd p[3] = { { .fd = c->sigfd, .events = POLLIN }, { .fd = c->out_fd },
			       { .fd = sigguard__fd(), .events = POLLIN } };
	if (c->nr_target_pids && (timeout_ms < 0 || timeout_ms > TARGETS_POLL_MS))
		timeout_ms = TARGETS_POLL_MS;
	poll(p, 3, timeout_ms);
	handle_signals(c);
	check_output(c, p[1].revents);
	if (targets_gone(c))
		c->stop = true;
}

/* How many times each event with a sample period fired, as the kernel
 * counted (inherited copies included): the samples it should have given.
 * The kernel reports a loss (PERF_RECORD_LOST) only with the next record it
 * manages to write, so a ring that was still full when the events stopped
 * loses silently: this count tells. */
static void count_events(struct collect *c)
{
	struct evlist *el = &c->evlist;
	uint64_t missing = 0;
	for (int e = 0; e < el->nr_evsels; e++) {
		struct evsel *ev = el->evsels[e];
		if (ev->tracking || ev->attr.freq || !ev->attr.sample_period || ev->attr.read_format)
			continue;
		uint64_t sum = 0;
		bool ok = true;
		for (int ci = 0; ci < el->nr_cpus && ok; ci++)
			for (int ti = 0; ti < el->nr_tids && ok; ti++) {
				int fd = evlist__fd_of(el, ci, ti, e);
				uint64_t v;
				if (fd < 0)
					continue;
				if (read(fd, &v, sizeof(v)) == (ssize_t)sizeof(v))
					sum += v;
				else
					ok = false;
			}
		ev->counted = ok ? sum / ev->attr.sample_period : 0;
		missing += ev->counted > ev->samples ? ev->counted - ev->samples : 0;
	}
	/* Missing beyond what PERF_RECORD_LOST said: lost silently, counted here. */
	if (missing > c->lost) {
		c->lost_unreported = missing - c->lost;
		c->lost += c->lost_unreported;
	}
}

/* Exited threads and processes are forgotten this long after their exit
 * record (at least one period, at most two): -a over hours of process
 * churn keeps the live ones only. */
#define REAP_PERIOD_S 5.0

static void process_reaped(void *ctx, pid_t pid)
{
	struct collect *c = ctx;
	if (c->on_process_gone)	/* said at its exit already; again for one whose exit was lost */
		c->on_process_gone(c, pid);
}

/* The rings are emptied by a thread of their own, into a queue bounded by
 * --max-queue, so a burst never waits for what this thread does with the
 * records (DESIGN.md: draining never waits for anything slow). This thread
 * sleeps on the drain thread's eventfd and the signalfd, pulls the staged
 * records into the timestamp-ordered queue and processes them. */
int collect__run(struct collect *c)
{
	int poll_ms = live_stacks(c) ? POLL_MS_STACKS : POLL_MS;
	uint64_t max_queue = c->opts.max_queue ? c->opts.max_queue : drain__default_max();
	int err = drain__init(&c->drain, c->evlist.rings, c->evlist.nr_cpus, max_queue, poll_ms);
	if (err) {
		fprintf(stderr, "pprobe: eventfd: %s\n", strerror(-err));
		return 1;
	}
	if (c->layout.sample_type & PERF_SAMPLE_STACK_USER) {
		c->drain.stack_field = stack_field_of;
		c->drain.stack_field_arg = c;
	}
	err = drain__start(&c->drain);
	if (err)
		fprintf(stderr, "pprobe: no drain thread (%s): the rings are read between samples, "
			"a burst may overflow them\n", strerror(-err));
	struct pollfd pfd[4] = {
		{ .fd = c->sigfd, .events = POLLIN },
		{ .fd = c->drain.wake_fd, .events = POLLIN },
		{ .fd = c->out_fd },	/* negative: ignored */
		{ .fd = sigguard__fd(), .events = POLLIN },
	};
	uint64_t slack = c->opts.order_slack_us ? c->opts.order_slack_us * 1000ULL : ORDER_SLACK_NS;

	int st = collect__start(c);
	if (st) {
		drain__stop(&c->drain);
		return st;
	}
	double deadline = c->opts.duration > 0 ? c->t_start + c->opts.duration : 0;
	double next_status = c->t_start + 0.5, next_reap = c->t_start + REAP_PERIOD_S;

	while (!c->stop) {
		int timeout = poll_ms;
		if (deadline) {
			double left = deadline - now_seconds();
			if (left <= 0)
				break;
			if (left * 1000 < timeout)
				timeout = (int)(left * 1000) + 1;
		}
		poll(pfd, 4, timeout);
		handle_signals(c);
		check_output(c, pfd[2].revents);
		if (c->out_err == EPIPE)
			break;	/* nothing queued is wanted any more */
		/* Records written before the drain thread's last pass over every
		 * ring are staged: those older than that by the slack can go. */
		uint64_t limit = now_ns();
		if (c->drain.running) {
			uint64_t pass = drain__pass_ns(&c->drain);	/* before the pull */
			limit = pass < limit ? pass : limit;
		}
		catch_up(c);
		flush_until(c, limit > slack ? limit - slack : 0);
		release_held(c, true);	/* threads held while that ran */
		if (c->on_tick)
			c->on_tick(c);
		if (targets_gone(c))
			break;
		double now = now_seconds();
		if (now >= next_status) {
			show_status(c, false);
			next_status = now + 0.5;
		}
		if (now >= next_reap) {
			session__reap(&c->session, process_reaped, c);
			next_reap = now + REAP_PERIOD_S;
		}
	}
	drain__stop(&c->drain);
	c->t_stop_ns = now_ns();
	evlist__disable(&c->evlist);
	/* With nobody reading our output, what is still queued goes unread. */
	if (c->out_err != EPIPE) {
		drain_until(c, UINT64_MAX);
		count_events(c);	/* after every sample is counted */
	}
	release_held(c, false);
	c->t_end = now_seconds();
	show_status(c, true);
	return 0;
}

int collect__exit_status(const struct collect *c)
{
	if (!c->child || !c->child_exited)
		return 0;
	if (WIFEXITED(c->child_status))
		return WEXITSTATUS(c->child_status);
	if (WIFSIGNALED(c->child_status))
		return 128 + WTERMSIG(c->child_status);
	return 1;
}

void collect__cleanup(struct collect *c)
{
	sigguard__forget(child_exit_now, c);
	if (c->child_go_fd >= 0)
		close(c->child_go_fd);	/* EOF: a held child exits without running the command */
	if (c->child_err_fd >= 0)
		close(c->child_err_fd);
	c->child_go_fd = c->child_err_fd = -1;
	if (c->child && !c->child_exited && c->out_err == EPIPE) {
		/* Nobody reads what we print any more: the command goes on as
		 * it would have without us (its own output may well be that
		 * closed pipe too). Our exit detaches it from ptrace. */
		release_held(c, false);
		c->child_exited = true;
	} else if (c->child && !c->child_exited) {
		/* Never leave a child behind: ask, then insist. */
		release_held(c, false);
		reap(c, false, false);
		if (!c->child_exited) {
			kill(c->child, SIGTERM);
			for (int i = 0; i < 200 && !c->child_exited; i++) {
				usleep(10000);
				reap(c, false, false);
			}
			if (!c->child_exited) {
				kill(c->child, SIGKILL);
				reap(c, false, true);
			}
		}
		c->child_exited = true;
	}
	drain__exit(&c->drain);	/* before the rings it reads go */
	evlist__exit(&c->evlist);
	session__exit(&c->session);
	for (size_t i = 0; i < c->sp_seen.cap; i++)
		if (c->sp_seen.used[i])
			sp_history__free(c->sp_seen.vals[i]);
	u64map__free(&c->sp_seen);
	ordered__exit(&c->queue);
	free(c->target_pids);
	c->target_pids = NULL;
	free(c->held);
	c->held = NULL;
	c->nr_held = c->cap_held = 0;
	if (c->sigfd >= 0)
		close(c->sigfd);
	c->sigfd = -1;
}

/* 512M, 1G, 64K, 1000 */
static void size_str(uint64_t v, char *buf, size_t len)
{
	static const char units[] = "KMG";
	int u = -1;
	while (u < 2 && v && !(v & 1023)) {
		v >>= 10;
		u++;
	}
	snprintf(buf, len, "%llu%s", (unsigned long long)v, u >= 0 ? (char[]){ units[u], 0 } : "");
}

void collect__report_lost(const struct collect *c, const char *prog)
{
	if (c->stop_left)
		fprintf(stderr, "%s: stopped by signal: %llu samples queued at the stop left out (processed for "
			"%.1f s after it)\n", prog, (unsigned long long)c->stop_left, STOP_GRACE_NS / 1e9);
	size_t ring_kib = c->opts.ring_pages * (size_t)sysconf(_SC_PAGESIZE) / 1024;
	char qsize[32];
	size_str(c->drain.max_bytes, qsize, sizeof(qsize));
	/* A ring that kept k of k + lost needed about (k + lost) / k times its size. */
	size_t more = c->opts.ring_pages * 2;
	while (c->nr_samples && (double)more < (double)c->opts.ring_pages *
	       (double)(c->nr_samples + c->lost) / (double)c->nr_samples)
		more *= 2;
	/* Lost while the queue had room (the ring was too small for the time
	 * the drain thread was off the CPU), then at the queue's bound. */
	for (int full = 0; full < 2; full++) {
		char who[1024];
		size_t len = 0;
		uint64_t total = 0;
		who[0] = 0;
		if (full == 0 && c->lost == c->lost_unreported)
			continue;	/* said below */
		for (int i = -1; i < c->evlist.nr_evsels; i++) {
			const struct evsel *ev = i >= 0 ? c->evlist.evsels[i] : NULL;
			uint64_t all = ev ? ev->lost : c->lost_no_event;
			uint64_t n = full ? (ev ? ev->lost_queue_full : 0) : all - (ev ? ev->lost_queue_full : 0);
			if (!n)
				continue;
			total += n;
			const char *name = !ev ? "an unknown event" : ev->tracking ? "the sideband" : ev->name;
			if (len < sizeof(who))
				len += (size_t)snprintf(who + len, sizeof(who) - len, "%s%s %llu", len ? ", " : "",
							name, (unsigned long long)n);
		}
		if (!total)
			continue;
		if (!full)
			fprintf(stderr, "%s: %llu records lost (%s; the kernel names the event that wrote next to "
				"the ring): the ring (-m %zu, %zu KiB per CPU) overflowed while pprobe's queue had "
				"room; a bigger -m (e.g. -m %zu) keeps them\n", prog, (unsigned long long)total, who,
				c->opts.ring_pages, ring_kib, more);
		else
			fprintf(stderr, "%s: %llu records lost (%s; the kernel names the event that wrote next to "
				"the ring): pprobe's queue was full (--max-queue %s), so the ring overflowed; a "
				"bigger --max-queue keeps them\n", prog, (unsigned long long)total, who, qsize);
	}
	if (c->lost_samples)
		fprintf(stderr, "%s: the kernel dropped %llu samples it could not write "
			"(PERF_RECORD_LOST_SAMPLES)\n", prog, (unsigned long long)c->lost_samples);
	/* Each event's own count: exact where it samples every Nth event. */
	for (int i = 0; i < c->evlist.nr_evsels; i++) {
		const struct evsel *ev = c->evlist.evsels[i];
		if (ev->counted <= ev->samples)
			continue;
		uint64_t missing = ev->counted - ev->samples;
		fprintf(stderr, "%s: %s: %llu samples of %llu events counted by the kernel, %llu lost\n", prog,
			ev->name, (unsigned long long)ev->samples, (unsigned long long)ev->counted,
			(unsigned long long)missing);
	}
	if (c->lost_unreported) {
		bool full = false;
		for (int i = 0; i < c->drain.nr_rings && c->drain.stalled; i++)
			full |= c->drain.stalled[i];
		fprintf(stderr, "%s: %llu of them never reported by the kernel (its ring was still full when the "
			"events stopped): %s\n", prog, (unsigned long long)c->lost_unreported,
			full ? "pprobe's queue was full; a bigger --max-queue keeps them"
			     : "a bigger -m keeps them");
	}
}

void collect__queue_summary(struct collect *c, char *buf, size_t len)
{
	char max[32];
	size_str(c->drain.max_bytes, max, sizeof(max));
	snprintf(buf, len, "queue peak %.1f MiB (--max-queue %s)", (double)drain__peak(&c->drain) / 1048576.0, max);
}
