/* The collect engine's events: each perf_event_attr set for the run
 * (sample type, stacks, clock, inherit, enable-on-exec, watermark), the
 * sideband tracking event added first, and the events opened, an open
 * error explained. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "collect_internal.h"
#include "event_spec.h"
#include "probe_spec.h"
#include "pprobe/unwind.h"

void collect_raise_nofile_limit(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* An inherited uprobe/kprobe PMU event breaks the program it follows
 * (probe_spec__follow_tasks): refuse to open one. 0, or -EOPNOTSUPP with err
 * saying why. */
static int refuse_inherited_pmu_probe(const struct evsel *ev, char *err, size_t len)
{
	if (!ev->attr.inherit || !probe_spec__is_pmu_probe_attr(&ev->attr))
		return 0;
	seterr(err, len, "internal error: %s would be opened as an inherited %s PMU event, which makes "
	       "the followed program's fork() fail; not opened", ev->name, ev->spec ? ev->spec->pmu : "probe");
	return -EOPNOTSUPP;
}

int collect_normalize_attr(struct collect *c, struct evsel *ev, bool on_command, char *err, size_t len)
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
		return refuse_inherited_pmu_probe(ev, err, len);
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
	 * time went from 2.8 to 4.1 s). Large copies: collect_set_wakeups. */
	a->watermark = 1;
	size_t ring_bytes = c->opts.ring_pages * (size_t)sysconf(_SC_PAGESIZE);
	a->wakeup_watermark = (uint32_t)(ring_bytes / 16 < 65536 ? ring_bytes / 16 : 65536);
	return refuse_inherited_pmu_probe(ev, err, len);
}

bool collect_live_stacks(const struct collect *c)
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
 * was a wakeup of both of pprobe's threads per sample (30,000 polls in a
 * loaded 10 s clang compile at 999 Hz, 1,600 after). Every event gets it:
 * a ring takes its owner's, the first event opened on it. */
void collect_set_wakeups(struct collect *c)
{
	size_t ring_bytes = c->opts.ring_pages * (size_t)sysconf(_SC_PAGESIZE);
	if (!(c->layout.sample_type & PERF_SAMPLE_STACK_USER) || collect_live_stacks(c) || ring_bytes / 8 > UINT32_MAX)
		return;
	for (int i = 0; i < c->evlist.nr_evsels; i++) {
		struct perf_event_attr *a = &c->evlist.evsels[i]->attr;
		if (a->watermark && ring_bytes / 8 > a->wakeup_watermark)
			a->wakeup_watermark = (uint32_t)(ring_bytes / 8);
	}
}

void collect_add_tracking(struct collect *c)
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
	/* Sideband only: the dummy never samples. Put it first: it owns each
	 * CPU's sideband ring (evlist side_pages), or the one shared ring. */
	struct evsel *ev = evlist__add(&c->evlist, "dummy:sideband", &a);
	ev->tracking = true;
	struct evlist *el = &c->evlist;
	memmove(el->evsels + 1, el->evsels, (size_t)(el->nr_evsels - 1) * sizeof(*el->evsels));
	el->evsels[0] = ev;
	for (int i = 0; i < el->nr_evsels; i++)
		el->evsels[i]->idx = i;
}

static size_t ring_kib(size_t pages)
{
	return pages * (size_t)sysconf(_SC_PAGESIZE) / 1024;
}

/* A ring's mmap refused (EPERM): beyond the locked memory an unprivileged
 * user may map (perf_event_mlock_kb a CPU, then RLIMIT_MEMLOCK). Halve the
 * sample rings down to 256 KiB, then the sideband rings to 64 KiB, as perf sizes its
 * rings to that limit; the watermarks follow. false: nothing left to halve. */
static bool shrink_rings(struct collect *c)
{
	struct evlist *el = &c->evlist;
	size_t psz = (size_t)sysconf(_SC_PAGESIZE);

	if (el->ring_pages > (256u << 10) / psz)	/* room for a few 64 KB stack copies */
		el->ring_pages /= 2;
	else if (el->side_pages > (64u << 10) / psz)
		el->side_pages /= 2;
	else
		return false;
	c->opts.ring_pages = el->ring_pages;
	size_t bytes = el->ring_pages * psz;
	for (int i = 0; i < el->nr_evsels; i++) {
		struct perf_event_attr *a = &el->evsels[i]->attr;
		if (a->watermark && a->wakeup_watermark > bytes / 8)
			a->wakeup_watermark = (uint32_t)(bytes / 8);
	}
	return true;
}

/* Events opened for user space only (evlist__open's fallback), said once
 * for the process (stat -r opens its events each run), with what would
 * allow more. */
static void collect_say_user_only(struct collect *c)
{
	static bool said;
	char names[256] = "";
	size_t o = 0;
	int n = 0;

	if (said)
		return;
	for (int i = 0; i < c->evlist.nr_evsels; i++) {
		const struct evsel *ev = c->evlist.evsels[i];
		if (!ev->user_only || !ev->spec)
			continue;
		if (o < sizeof(names))
			o += (size_t)snprintf(names + o, sizeof(names) - o, "%s%s", n ? ", " : "", ev->name);
		n++;
	}
	if (!n && !(c->evlist.nr_evsels && c->evlist.evsels[0]->user_only))
		return;
	said = true;
	collect_note(c, "user space only (kernel.perf_event_paranoid is %ld and no CAP_PERFMON)%s%s: "
		     "kernel samples and frames need paranoid <= 1, or the capability ('sudo setcap cap_perfmon+ep pprobe')",
		     perf_paranoid(), n ? " for " : "", names);
}

int collect_open_events(struct collect *c, char *err, size_t len)
{
	int ret = evlist__open(&c->evlist);
	if (ret == -EINVAL && c->evlist.failed_evsel && c->evlist.failed_evsel->tracking &&
	    c->evlist.failed_evsel->attr.build_id) {
		/* Kernels before 5.12 have no build ids in MMAP2. */
		c->evlist.failed_evsel->attr.build_id = 0;
		ret = evlist__open(&c->evlist);
	}
	if (ret == -EMFILE) {
		collect_raise_nofile_limit();
		ret = evlist__open(&c->evlist);
	}
	size_t asked = c->evlist.ring_pages;
	while (ret == -EPERM && c->evlist.failed_mmap && shrink_rings(c))
		ret = evlist__open(&c->evlist);
	if (!ret) {
		collect_say_user_only(c);
		if (c->evlist.ring_pages != asked)
			collect_note(c, "rings of %zu KiB a CPU, not %zu: what an unprivileged user may lock "
				     "(kernel.perf_event_mlock_kb per CPU, then 'ulimit -l'); records may be lost "
				     "at high rates (-F less, or root or CAP_IPC_LOCK for more)",
				     ring_kib(c->evlist.ring_pages), ring_kib(asked));
		return 0;
	}
	char msg[1024];
	const struct evsel *ev = c->evlist.failed_evsel;
	struct event_spec sideband = { .kind = EVENT_KIND_SOFTWARE };
	if (!ev->spec) {
		/* The sideband dummy fails for the reasons any software event would
		 * (permissions, limits): explain it as one. */
		snprintf(sideband.name, sizeof(sideband.name), "dummy (sideband tracking)");
		sideband.attr = ev->attr;
	}
	event_spec__explain_open_error(ev->spec ? ev->spec : &sideband, c->evlist.failed_errno, c->evlist.failed_tid,
				       msg, sizeof(msg));
	if (c->evlist.failed_tid > 0 && c->evlist.failed_errno == ESRCH)
		seterr(err, len, "no such process: %d", c->evlist.failed_tid);
	else
		seterr(err, len, "%s", msg);
	return collect_failed(ret);
}

void collect_opts__set_stacks(struct collect_opts *co, const struct evlist *el, const struct stack_opts *so)
{
	if (so->kind != STACKS_NONE) {
		co->extra_sample_type |= PERF_SAMPLE_CALLCHAIN;
		co->max_stack = collect__kernel_max_stack(so->max_frames ? so->max_frames : 127);
	}
	/* the kernel's user callchain is frame pointers: not with DWARF */
	co->exclude_callchain_user = so->kind == STACKS_KERNEL || so->kind == STACKS_DWARF;
	if (so->kind == STACKS_DWARF) {
		co->extra_sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		co->regs_user_mask = UNWIND_X86_SAMPLE_REGS_MASK;
		/* Events that fire on every occurrence (tracepoints, probes)
		 * come in bursts: 8 KB each, the rest from the live stack and
		 * the thread's earlier samples (see UNWIND_DEFAULT_STACK_COPY).
		 * Events sampled at a rate get all the kernel gives (see
		 * UNWIND_RATED_STACK_COPY). */
		co->stack_user_size = so->stack_size ? so->stack_size : UNWIND_DEFAULT_STACK_COPY;
		co->stack_user_size_rated = so->stack_size ? so->stack_size : UNWIND_RATED_STACK_COPY;
	}
	if (co->ring_pages)	/* -m given */
		return;
	/* Rings sized so a burst is absorbed while the drain thread copies it
	 * out: a sample with a DWARF stack copy weighs stack_size bytes. The
	 * kernel writes stack copies faster than a reader on another CPU can
	 * copy them out (about 1.8 GB/s measured here), so the ring takes the
	 * difference: of a 10,000-prctl burst (41 MB with 4 KB copies), 16 MB
	 * rings kept all in 4 runs of 6 on a loaded 2-CPU machine, 32 MB rings
	 * in 6 of 6, but 0 of 3 right after a compiler build under pprobe and
	 * perf (the drain thread slower then): so rings that hold that burst
	 * whole however late the drain thread comes (128 MB with 8 KB copies),
	 * where an event fires on every occurrence. Events sampled at a rate
	 * keep half a second of their samples (each reserves its whole copy:
	 * 64 KB at a time), 4 MB (99 Hz) to 32 MB (999 Hz and up, or a
	 * period: the rate unknown): a 99 Hz -a run spent 18 ms of its 0.6 s
	 * having the kernel clear two 32 MB rings it filled 1% of. These rings are
	 * per CPU and locked: on a machine with many CPUs the DWARF default
	 * halves until all rings together take at most 512 MB (2048 pages at
	 * least: 8 MB, 64 CPUs). */
	bool bursts = false;
	uint64_t hz = 0;	/* the highest rate asked for; UINT64_MAX: a period, rate unknown */
	for (int i = 0; i < el->nr_evsels; i++) {
		const struct perf_event_attr *a = &el->evsels[i]->attr;
		if (el->evsels[i]->tracking)
			continue;
		bursts |= !collect__rated(a);
		if (collect__rated(a))
			hz = !a->freq ? UINT64_MAX : a->sample_freq > hz ? a->sample_freq : hz;
	}
	switch (so->kind) {
	case STACKS_DWARF:
		co->ring_pages = collect__ring_pages_capped(
			bursts ? COLLECT_BURST_RING_PAGES
			       : collect__rated_ring_pages(hz, co->stack_user_size_rated, (size_t)sysconf(_SC_PAGESIZE)),
			2048);
		break;
	case STACKS_FP:
	case STACKS_KERNEL:
		co->ring_pages = 1024;
		break;
	default:
		co->ring_pages = bursts ? 1024 : 256;
		break;
	}
}

unsigned collect__rated_ring_pages(uint64_t hz, size_t copy, size_t psz)
{
	unsigned pages = 1024;

	if (!psz || hz == UINT64_MAX)
		return 8192;
	/* half a second of samples (each reserves its whole copy), a power of two */
	uint64_t want = hz * (copy + 1024) / 2;
	while (pages < 8192 && (uint64_t)pages * psz < want)
		pages *= 2;
	return pages;
}

unsigned collect__ring_pages_capped(unsigned pages, unsigned floor)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN), psz = sysconf(_SC_PAGESIZE);
	while (pages > floor && ncpu > 0 && psz > 0 && (uint64_t)pages * (uint64_t)psz * (uint64_t)ncpu > (512ULL << 20))
		pages /= 2;
	return pages;
}
