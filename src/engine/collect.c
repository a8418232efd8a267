/* The collect engine's main loop, shared by record, trace and stat: set up
 * (targets, events, the command), then poll the drain thread and the
 * signals, put the records in timestamp order and process them, until the
 * command exits, -d expires, the targets are gone or a stop signal; and the
 * cleanup. Its other jobs are in target.c, sp_history.c, workload.c,
 * attrs.c, sideband.c and lost.c (collect_internal.h). */
#define _GNU_SOURCE
#include "collect.h"

#include <errno.h>
#include <stdarg.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "collect_internal.h"
#include "probe_spec.h"
#include "probe_tracefs.h"
#include "sigguard.h"
#include "trace_filter.h"

/* Records newer than (read time - slack) may still be followed by older
 * records from another CPU that were being written while we read: hold them
 * one more round. */
#define ORDER_SLACK_NS 2000000ULL
/* The main loop's tick where nothing asks for sooner: the rings wake the
 * drain thread at their watermarks in between. Each tick is two wakeups
 * (~80 us in this VM): at 10 ms they were a third of a 99 Hz -a run's CPU
 * (1.26, 0.96 s -> 0.68, 0.66 s at 50 ms, every object's completeness the
 * same: cc1 99.4-99.9%). */
#define POLL_MS 50
/* The sideband's own ring per CPU (1 MiB): a process that starts maps
 * some 30 objects (5 KB of MMAP2), read every POLL_MS at most (and at the
 * ring's watermark). */
#define SIDE_RING_PAGES 256
#define POLL_MS_STACKS 1	/* small DWARF stack copies: unwind while the stacks are live */
/* Large stack copies (64 KB) of a program whose stacks go deeper: their
 * rest is read live, trusted only as far as later samples did not return
 * past it, so it is read soon, though not at every sample (collect__run). */
#define POLL_MS_DEEP 2
#define PACE_PERIOD_S 0.5

void collect_note(struct collect *c, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (!c->on_note)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	c->on_note(c, msg);
}

void collect__init(struct collect *c)
{
	memset(c, 0, sizeof(*c));
	c->sigfd = -1;
	c->out_fd = -1;
	/* From here a stop signal asks (c->stop; before the run: the command
	 * never starts), a second one ends pprobe at once. */
	if (sigguard__start(2))
		c->guard_errno = errno;	/* said by collect__prepare, once on_note is set */
	c->child_go_fd = c->child_err_fd = -1;
	evlist__init(&c->evlist);
	session__init(&c->session);
	ordered__init(&c->queue);
	c->queue.release = drain__release;
	u64map__init(&c->sp_seen);
}

int collect__prepare(struct collect *c, const struct collect_opts *opts, char *err, size_t len)
{
	int *cpus = NULL, nr_cpus = 0;
	pid_t *tids = NULL;
	int nr_tids = 0;
	bool on_command;
	int ret;

	seterr(err, len, "%s", "");
	if (c->guard_errno)
		collect_note(c, "no signal guard (%s): SIGINT/SIGTERM end pprobe without its cleanup",
			     strerror(c->guard_errno));
	c->opts = *opts;
	c->layout.sample_type = SAMPLE_TYPE_BASE | opts->extra_sample_type;
	c->layout.regs_user_mask = opts->regs_user_mask;
	collect_raise_nofile_limit();
	/* temporary probes of pprobes that were killed (-9) go at the next start */
	(void)probe_tracefs__sweep_stale();

	ret = collect_target_cpus(opts, &cpus, &nr_cpus, err, len);
	if (ret)
		return ret;
	ret = collect_target_tasks(c, opts, &tids, &nr_tids, &on_command, err, len);
	if (ret)
		goto err;

	/* Probes that follow new tasks are tracefs probes, made before the
	 * command starts: when that cannot be, it does not run. */
	if (on_command || opts->pid_list)
		for (int i = 0; i < c->evlist.nr_evsels; i++) {
			struct evsel *ev = c->evlist.evsels[i];
			if (ev->spec && (ret = probe_spec__follow_tasks(ev->spec, &ev->attr, err, len)) < 0) {
				ret = collect_failed(ret);
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
		ret = collect_start_child(c, true, err, len);
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
		collect_add_tracking(c);
	for (int i = 0; i < c->evlist.nr_evsels; i++)
		if ((ret = collect_normalize_attr(c, c->evlist.evsels[i], on_command, err, len)))
			goto err;
	if (!opts->counting)
		collect_set_wakeups(c);
	/* The evlist owns cpus and tids from here. */
	evlist__set_targets(&c->evlist, cpus, nr_cpus, tids, nr_tids);
	c->evlist.ring_pages = opts->counting ? 0 : opts->ring_pages;
	c->evlist.side_pages = SIDE_RING_PAGES;
	/* Counting goes on without the events this machine cannot count (as
	 * perf stat): the command reports them. */
	c->evlist.tolerant = opts->counting;

	collect_synthesize_targets(c, c->evlist.tids, c->evlist.nr_tids);
	return collect_open_events(c, err, len);

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

/* On the drain thread, system-wide: a sample of pprobe itself is left out
 * before it is queued, let alone unwound. Profiling its own unwinding made
 * more samples to unwind (a 999 Hz -a run on 2 busy CPUs: 45% of the
 * samples were pprobe's, and it fell 12 s behind a 2 s -d). */
static bool own_sample(void *arg, const struct perf_event_header *hdr)
{
	static pid_t self;
	const struct collect *c = arg;
	struct sample s;
	struct evsel *ev;
	if (!self)
		self = getpid();
	if (sample__record_pid(hdr, &c->layout) != self)
		return false;
	/* counted under its event: the kernel's count of it includes it */
	if (sample__parse(hdr, &c->layout, &s) == 0 && (ev = evlist__evsel_by_id(&c->evlist, s.id)))
		__atomic_fetch_add(&ev->own_left, 1, __ATOMIC_RELAXED);
	return true;
}

/* "common_pid != T && ..." for the threads pprobe has now, in buf; false
 * when it has none to name */
static bool own_threads_filter(char *buf, size_t size)
{
	pid_t self = getpid(), missing, *tids = NULL;
	int nr = collect_threads_of(&self, 1, &tids, &missing);
	size_t n = 0;
	buf[0] = '\0';
	for (int i = 0; i < nr; i++) {
		int w = snprintf(buf + n, size - n, "%scommon_pid != %d", n ? " && " : "", (int)tids[i]);
		if (w < 0 || (size_t)w >= size - n) {
			buf[n] = '\0';	/* those that fit: own_sample leaves out the others' */
			break;
		}
		n += (size_t)w;
	}
	free(tids);
	return n > 0;
}

/* Each event's filter (the command's --filter, its spec's filter) is set here, on
 * all of its fds, once the drain thread runs. System-wide, a tracepoint's
 * or probe's occurrences in pprobe's own threads are filtered out too,
 * before they take ring space and stack copies (perf trace filters its own
 * pid the same way): a malloc uprobe under -a hit pprobe's own mallocs
 * 28,000 times a run, each a sample written, copied and then left out by
 * own_sample. That names the threads there now (this one, the drain
 * thread's, the signal watcher's, a push sender's); a thread started later
 * is still left out by own_sample. The kernel takes one filter per event
 * (a second one is EEXIST), so both are set at once; where it refuses the
 * two, the command's alone. 0, or -EINVAL with err said where the kernel
 * refuses the command's filter. */
static int set_filters(struct collect *c, char *err, size_t len)
{
	char own[1024];
	bool wide = (c->opts.system_wide || c->opts.cpu_list) && own_threads_filter(own, sizeof(own));
	struct evlist *el = &c->evlist;
	for (int e = 0; e < el->nr_evsels; e++) {
		struct evsel *ev = el->evsels[e];
		bool tracing = !ev->tracking && (ev->attr.type == PERF_TYPE_TRACEPOINT ||
						 (ev->spec && ev->spec->kind == EVENT_KIND_PROBE));
		const char *filter = ev->spec ? ev->spec->filter : NULL;
		const char *first = filter;
		char *both = NULL;
		if (wide && tracing) {
			if (!filter)
				first = own;
			else if (asprintf(&both, "(%s) && %s", filter, own) >= 0)
				first = both;
			else
				both = NULL;	/* no memory: the command's alone */
		}
		if (!first)
			continue;
		for (int ci = 0; ci < el->nr_cpus; ci++)
			for (int t = 0; t < el->nr_tids; t++) {
				int fd = evlist__fd_of(el, ci, t, e);
				if (fd < 0 || ioctl(fd, PERF_EVENT_IOC_SET_FILTER, first) == 0)
					continue;
				if (first != filter && (!filter || ioctl(fd, PERF_EVENT_IOC_SET_FILTER, filter) == 0))
					continue;
				int errnum = errno;
				char msg[2048];
				const struct event_spec *sp = ev->spec;
				if (sp && trace_filter__kernel_error(sp->tp_sys, sp->tp_name, filter, msg,
								      sizeof(msg)) == 0)
					seterr(err, len, "the kernel refused the filter for %s:\n%s", ev->name, msg);
				else
					seterr(err, len, "the kernel refused the filter for %s: %s", ev->name,
					       strerror(errnum));
				free(both);
				return -EINVAL;
			}
		free(both);
	}
	return 0;
}

/* The events stop: at -d's deadline (on this thread or the drain thread,
 * whichever sees it first), at the end of the run. */
static void events_off(struct collect *c)
{
	if (__atomic_exchange_n(&c->events_off, true, __ATOMIC_ACQ_REL))
		return;
	evlist__disable(&c->evlist);
	__atomic_store_n(&c->t_stop_ns, now_ns(), __ATOMIC_RELEASE);
}

static void events_off_cb(void *arg)
{
	events_off(arg);
}

static int process_record(void *ctx, const struct perf_event_header *hdr, int cpu)
{
	struct collect *c = ctx;
	struct sample s;

	/* A backlog is processed in one flush, which may outlast -d: the
	 * events stop at the deadline all the same (the span recorded is the
	 * one asked for), and what was queued is processed after. */
	if (c->deadline_ns && !__atomic_load_n(&c->events_off, __ATOMIC_RELAXED) && now_ns() >= c->deadline_ns)
		events_off(c);

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
				collect_reap(c, true, false);
		}
		return ret;
	}
	default:
		(void)cpu;
		return collect_sideband(c, hdr);
	}
}
/* A record the drain thread staged: into the timestamp-ordered queue. The
 * main thread alone touches the queue and the sp history. */
static void queue_record(void *ctx, const struct perf_event_header *hdr, int cpu, unsigned flags)
{
	struct collect *c = ctx;
	if (hdr->type == PERF_RECORD_LOST) {
		collect_note_lost(c, hdr, flags);
		return;
	}
	if (hdr->type == PERF_RECORD_SAMPLE && past_stop_grace(c)) {
		/* counted, not queued: a backlog pulled after the stop's grace
		 * costs a parse, not a copy */
		leave_out(c, hdr, cpu);
		return;
	}
	/* kept where the drain thread staged it, not copied */
	void *hold = drain__hold(&c->drain);
	if (hold)
		ordered__push_held(&c->queue, hdr, sample__record_time(hdr, &c->layout), cpu, hold);
	else
		ordered__push(&c->queue, hdr, sample__record_time(hdr, &c->layout), cpu);
	if (hdr->type == PERF_RECORD_SAMPLE)
		collect_sp_note_sample(c, hdr);
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
void collect_drain_until(struct collect *c, uint64_t limit)
{
	read_rings(c);
	flush_until(c, limit);
}

/* sig, guard: poll said the signalfd, the guard's eventfd readable (two
 * reads a tick, mostly EAGAIN, otherwise) */
static void handle_signals(struct collect *c, bool sig, bool guard)
{
	struct signalfd_siginfo si;
	while (sig && c->sigfd >= 0 && read(c->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		collect_reap(c, true, false);
		collect_release_held(c, true);
	}
	uint64_t n;
	if (guard && sigguard__fd() >= 0 && read(sigguard__fd(), &n, sizeof(n)) < 0) {
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

static void show_status(struct collect *c, bool final)
{
	char line[256];

	if (c->opts.quiet || !c->on_status)
		return;
	if (final) {
		if (c->status_shown)
			c->on_status(c, NULL);
		return;
	}
	snprintf(line, sizeof(line), "[ %s: %.1fs, %llu samples, %llu lost, %.1f MB read ]",
		c->opts.status_prefix ? c->opts.status_prefix : "pprobe", now_seconds() - c->t_start,
		(unsigned long long)c->nr_samples, (unsigned long long)(c->lost + c->lost_samples),
		(double)__atomic_load_n(&c->drain.bytes, __ATOMIC_RELAXED) / 1e6);
	c->on_status(c, line);
	c->status_shown = true;
}

int collect__stopped(void)
{
	return sigguard__count() ? -EINTR : 0;
}

int collect__start(struct collect *c, char *err, size_t len)
{
	seterr(err, len, "%s", "");
	/* Stopped while attaching: the held command exits without running
	 * (collect__cleanup), and the caller is told (-EINTR). */
	int st = collect__stopped();
	if (st)
		return st;
	bool on_command = c->evlist.nr_tids == 1 && c->child && c->evlist.tids[0] == c->child;
	c->t_start = now_seconds();
	if (!on_command)
		evlist__enable(&c->evlist);
	/* With a command the events arm themselves at its exec. */
	return c->child ? collect_release_child(c, err, len) : 0;
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
	handle_signals(c, p[0].revents, p[2].revents);
	check_output(c, p[1].revents);
	if (collect_targets_gone(c))
		c->stop = true;
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

/* The main loop's tick with DEEP stacks deeper than their copy seen in the
 * last PACE_PERIOD_S: about one tick each, between POLL_MS_DEEP and
 * POLL_MS. */
static int deep_pace(uint64_t deep)
{
	uint64_t per = deep ? (uint64_t)(PACE_PERIOD_S * 1000) / deep : POLL_MS;
	return per < POLL_MS_DEEP ? POLL_MS_DEEP : per > POLL_MS ? POLL_MS : (int)per;
}

/* The rings are emptied by a thread of their own, into a queue bounded by
 * --max-queue, so a burst never waits for what this thread does with the
 * records (DESIGN.md: draining never waits for anything slow). This thread
 * sleeps on the drain thread's eventfd and the signalfd, pulls the staged
 * records into the timestamp-ordered queue and processes them. */
int collect__run(struct collect *c, char *err, size_t len)
{
	int poll_ms = collect_live_stacks(c) ? POLL_MS_STACKS : POLL_MS;
	uint64_t max_queue = c->opts.max_queue ? c->opts.max_queue : drain__default_max();
	/* large stack copies: rate-sampled events (collect_set_wakeups) */
	bool paced = poll_ms == POLL_MS && (c->layout.sample_type & PERF_SAMPLE_STACK_USER);
	int ret = drain__init(&c->drain, c->evlist.rings, c->evlist.nr_rings, max_queue, poll_ms, paced);
	if (ret) {
		seterr(err, len, "eventfd: %s", strerror(-ret));
		return collect_failed(ret);
	}
	if (c->layout.sample_type & PERF_SAMPLE_STACK_USER) {
		c->drain.stack_field = collect_stack_field_of;
		c->drain.stack_field_arg = c;
	}
	if (c->opts.system_wide || c->opts.cpu_list) {
		c->drain.drop_sample = own_sample;
		c->drain.drop_sample_arg = c;
	}
	c->drain.at_deadline = events_off_cb;
	c->drain.at_deadline_arg = c;
	c->drain.consumer_ticks = true;	/* the loop below passes at each wakeup */
	ret = drain__start(&c->drain);
	if (ret)
		collect_note(c, "no drain thread (%s): the rings are read between samples, a burst may overflow them",
			     strerror(-ret));
	struct pollfd pfd[4] = {
		{ .fd = c->sigfd, .events = POLLIN },
		{ .fd = c->drain.wake_fd, .events = POLLIN },
		{ .fd = c->out_fd },	/* negative: ignored */
		{ .fd = sigguard__fd(), .events = POLLIN },
	};
	uint64_t slack = c->opts.order_slack_us ? c->opts.order_slack_us * 1000ULL : ORDER_SLACK_NS;

	int st = set_filters(c, err, len);
	if (!st)
		st = collect__start(c, err, len);
	if (st) {
		drain__stop(&c->drain);
		return st;
	}
	double deadline = c->opts.duration > 0 ? c->t_start + c->opts.duration : 0;
	c->deadline_ns = deadline ? (uint64_t)(deadline * 1e9) : 0;
	/* the drain thread stops the events at the deadline too, when this
	 * thread is still busy with one record (a debug file read, say) */
	__atomic_store_n(&c->drain.deadline_ns, c->deadline_ns, __ATOMIC_RELEASE);
	double next_status = c->t_start + 0.5, next_reap = c->t_start + REAP_PERIOD_S;
	double next_pace = c->t_start + PACE_PERIOD_S, next_targets = 0;

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
		handle_signals(c, pfd[0].revents, pfd[3].revents);
		check_output(c, pfd[2].revents);
		if (c->out_err == EPIPE)
			break;	/* nothing queued is wanted any more */
		/* Records written before the drain thread's last pass over every
		 * ring are staged: those older than that by the slack can go. */
		uint64_t limit = now_ns();
		if (c->drain.running) {
			drain__tick(&c->drain);	/* this wakeup's pass, not the thread's */
			uint64_t pass = drain__pass_ns(&c->drain);	/* before the pull */
			limit = pass < limit ? pass : limit;
		}
		catch_up(c);
		flush_until(c, limit > slack ? limit - slack : 0);
		collect_release_held(c, true);	/* threads held while that ran */
		if (c->on_tick)
			c->on_tick(c);
		double now = now_seconds();
		/* an fopen and a read per target: not at every tick (a -p run
		 * at the 2 ms pace spent 13% of pprobe's CPU here) */
		if (now >= next_targets) {
			if (collect_targets_gone(c))
				break;
			next_targets = now + TARGETS_POLL_MS / 1000.0;
		}
		if (now >= next_status) {
			show_status(c, false);
			next_status = now + 0.5;
		}
		if (paced && now >= next_pace) {
			/* The pace of a run of large stack copies: every POLL_MS
			 * (the drain thread's passes and this thread's wakeups
			 * cost about 80 us each here, in a VM: at every ms that
			 * was more CPU than the unwinding of a clang compile),
			 * faster while stacks deeper than the copy are seen, as
			 * far as one tick a deep stack, down to 2 ms (a clang
			 * compile at 999 Hz: 99.5% of its stacks complete at 1
			 * ms, 98.8% at 10 ms, 99.4% at 2 ms). Not 2 ms whenever
			 * one is seen: at 99 Hz -a most such ticks found nothing
			 * and cost 15% of the run, completeness the same. */
			poll_ms = deep_pace(c->deep_stacks);
			__atomic_store_n(&c->drain.poll_ms, poll_ms, __ATOMIC_RELAXED);
			c->deep_stacks = 0;
			next_pace = now + PACE_PERIOD_S;
		}
		if (now >= next_reap) {
			if (c->before_task)
				c->before_task(c, -1);
			session__reap(&c->session, process_reaped, c);
			next_reap = now + REAP_PERIOD_S;
		}
	}
	/* ^C reaches the command too: where its end ended the loop before a
	 * wakeup read the guard, the run was still stopped by the signal
	 * (top waited for q in its ended view, the signal unseen) */
	handle_signals(c, false, false);
	drain__stop(&c->drain);
	events_off(c);
	/* With nobody reading our output, what is still queued goes unread. */
	if (c->out_err != EPIPE) {
		collect_drain_until(c, UINT64_MAX);
		collect_count_events(c);	/* after every sample is counted */
	}
	collect_release_held(c, false);
	c->own_left = __atomic_load_n(&c->drain.dropped, __ATOMIC_ACQUIRE);
	c->t_end = now_seconds();
	show_status(c, true);
	return 0;
}


void collect__cleanup(struct collect *c)
{
	sigguard__forget(collect_child_exit_now, c);
	if (c->child_go_fd >= 0)
		close(c->child_go_fd);	/* EOF: a held child exits without running the command */
	if (c->child_err_fd >= 0)
		close(c->child_err_fd);
	c->child_go_fd = c->child_err_fd = -1;
	if (c->child && !c->child_exited && c->out_err == EPIPE) {
		/* Nobody reads what we print any more: the command goes on as
		 * it would have without us (its own output may well be that
		 * closed pipe too). Our exit detaches it from ptrace. */
		collect_release_held(c, false);
		c->child_exited = true;
	} else if (c->child && !c->child_exited) {
		/* Never leave a child behind: ask, then insist. */
		collect_release_held(c, false);
		collect_reap(c, false, false);
		if (!c->child_exited) {
			kill(c->child, SIGTERM);
			for (int i = 0; i < 200 && !c->child_exited; i++) {
				usleep(10000);
				collect_reap(c, false, false);
			}
			if (!c->child_exited) {
				kill(c->child, SIGKILL);
				collect_reap(c, false, true);
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
