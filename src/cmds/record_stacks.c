/* record: a sample into its stack: the kernel's callchain, the user stack
 * unwound here or by the workers (--workers, engine/unwind_pool.h: taken
 * back in the order given, so the tables fill as with one thread), and the
 * unwinding's quality, said at the end. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event_spec.h"
#include "record_internal.h"
#include "stack.h"
#include "util.h"

static const char *basename_of(const char *path)
{
	const char *b = strrchr(path, '/');
	return b ? b + 1 : path;
}

/* A user stack unwound: on this thread (unwind_user) or a worker's (a job
 * of r->pool). */
struct unwound {
	const uint64_t *ips;
	int nr;
	struct unwind_result res;
};

/* The user part of a sample, unwound from its registers and stack copy,
 * here or by a worker (done). */
static uint32_t unwind_user(struct record *r, struct collect *c, const struct sample *s,
			    const struct process *p, const struct unwound *done,
			    uint32_t *fr, uint32_t room)
{
	struct ustack us;
	pid_t pid = (pid_t)s->pid;

	if (!done) {
		uint64_t t0 = now_ns();
		collect__ustack(c, r->unwinder, s, p, r->ips, (int)(room - 1 < MAX_FRAMES ? room - 1 : MAX_FRAMES),
				r->maps, &us);
		r->unwind_ns += now_ns() - t0;	/* with workers: their CPU clocks */
	} else {
		collect__note_unwound(c, &done->res);
		ustack__init(&us, p->maps, done->ips, done->nr, &done->res, r->maps);
	}
	r->unwound++;
	r->stack_bytes += s->stack_dyn_size;
	frametab__user_stack(r->frames, pid, (pid_t)s->tid, &us, fr);
	uint32_t n = us.nr;
	if (us.res.used_live_stack)
		r->live_stack++;
	if (us.res.used_history && us.res.end == UNWIND_COMPLETE)
		r->history++;

	const struct map *leaf = n > 0 ? ustack__map(&us, 0) : NULL;
	uint32_t obj = strtab__intern(&r->objs, leaf && leaf->path ? basename_of(leaf->path) : "[unknown]");
	if (obj >= r->nr_quality) {
		size_t nq = (obj + 1) * 2;
		r->quality = pp_xrealloc(r->quality, nq * sizeof(*r->quality));
		memset(r->quality + r->nr_quality, 0, (nq - r->nr_quality) * sizeof(*r->quality));
		r->nr_quality = nq;
	}
	r->quality[obj].samples++;
	r->quality[obj].ends[us.res.end]++;
	if (us.res.end == UNWIND_COMPLETE) {
		r->quality[obj].complete++;
		r->complete++;
		return n;
	}
	/* An incomplete stack says why at its outer end. */
	char why[300];
	fr[n++] = frametab__special(r->frames, unwind_result__label(&us.res, why, sizeof(why)));
	return n;
}

static int quality_cmp(const void *a, const void *b, void *arg)
{
	const struct quality *q = arg;
	uint64_t x = q[*(const uint32_t *)a].samples, y = q[*(const uint32_t *)b].samples;
	return x < y ? 1 : x > y ? -1 : 0;
}

void record_print_unwind_quality(const struct record *r)
{
	if (!r->unwound)
		return;
	char hist[96] = "";
	if (r->history)
		snprintf(hist, sizeof(hist), ", %llu from the thread's earlier samples", (unsigned long long)r->history);
	/* workers: their CPU (wall time there includes waiting for a CPU) */
	uint64_t ns = r->pool ? r->workers_cpu_ns : r->unwind_ns;
	record_say(r, "%s unwinding: %llu user stacks, %.1f%% complete, %.1f us per stack, %.1f KiB of stack copied each%s%s\n",
		unwind_backend__str(r->backend), (unsigned long long)r->unwound,
		100.0 * (double)r->complete / (double)r->unwound, (double)ns / 1e3 / (double)r->unwound,
		(double)r->stack_bytes / 1024.0 / (double)r->unwound,
		r->live_stack ? ", some completed from the live stack" : "", hist);
	if (r->pool)
		record_say(r, "unwound on %d threads: %.2f s of their CPU; the main thread's %.2f s in the run\n",
			unwind_pool__workers(r->pool), (double)r->workers_cpu_ns / 1e9, (double)r->main_cpu_ns / 1e9);
	/* PPROBE_UNWIND_CHECK=1, or a file the line is also added to (tests) */
	struct unwind_check sum;
	const struct unwind_check *chk = r->pool ? (unwind_pool__check(r->pool, &sum) ? &sum : NULL)
						 : unwinder__check(r->unwinder);
	const char *log = getenv("PPROBE_UNWIND_CHECK");
	FILE *f = chk && log && strchr(log, '/') ? fopen(log, "ae") : NULL;
	for (int k = 0; chk && k < (f ? 2 : 1); k++)
		fprintf(k ? f : stderr, "pprobe record: unwind check: %llu of %llu walks differ without the fast path%s%s\n",
			(unsigned long long)chk->differ, (unsigned long long)chk->walks, chk->differ ? "; first: " : "",
			chk->first);
	if (f)
		fclose(f);
	if (r->pool && r->unwinder)
		record_say(r, "workers check: %llu of %llu stacks differ from this thread's%s%s\n",
			(unsigned long long)r->wcheck_differ, (unsigned long long)r->wcheck_walks,
			r->wcheck_differ ? "; first: " : "", r->wcheck_first);
	uint32_t *ids = pp_xmalloc(r->objs.nr * sizeof(*ids) + 1);
	for (uint32_t i = 0; i < r->objs.nr; i++)
		ids[i] = i;
	qsort_r(ids, r->objs.nr, sizeof(*ids), quality_cmp, r->quality);
	for (size_t k = 0; k < r->objs.nr && k < 8; k++) {
		const struct quality *q = &r->quality[ids[k]];
		char reasons[256] = "";
		size_t len = 0;
		for (int e = UNWIND_TRUNCATED; e <= UNWIND_ERROR; e++)
			if (q->ends[e])
				len += (size_t)snprintf(reasons + len, sizeof(reasons) - len, "%s %llu %s",
							len ? "," : " (", (unsigned long long)q->ends[e],
							unwind_end__str((enum unwind_end)e));
		fprintf(stderr, "  %-28s %8llu stacks %6.1f%% complete%s%s\n", strtab__str(&r->objs, ids[k]),
			(unsigned long long)q->samples, 100.0 * (double)q->complete / (double)q->samples,
			reasons, len ? ")" : "");
	}
	free(ids);
}

/* At most this many frames a stack of EV: its max-stack=N term, else
 * --max-stack's (the kernel's callchain is cut there too, see
 * collect__kernel_max_stack). */
uint32_t record_frame_limit(const struct record *r, const struct evsel *ev)
{
	if (ev->spec && ev->spec->max_stack)
		return ev->spec->max_stack < MAX_FRAMES ? ev->spec->max_stack : MAX_FRAMES;
	return r->frame_limit;
}

/* A sample's stack into fr (leaf first): the kernel's callchain, with fp
 * its user frames too, with dwarf the user stack unwound here; without -g
 * the sampled address alone. Returns the number of frames. */
uint32_t record_sample_stack(struct record *r, struct collect *c, const struct evsel *ev, const struct sample *s,
			     struct process *p, const struct unwound *done, uint32_t *fr, uint32_t room)
{
	uint32_t n = 0;
	pid_t pid = (pid_t)s->pid;

	if (r->cg != CG_NONE) {
		/* The kernel's callchain: kernel frames, and with fp the user
		 * frames too. Each context starts with its exact ip; the rest are
		 * return addresses. */
		struct callchain_iter it;
		uint64_t ip, ctx;
		bool ret;
		callchain_iter__init(&it, s);
		while (n < room && callchain_iter__next(&it, &ip, &ctx, &ret)) {
			if (ctx == (uint64_t)PERF_CONTEXT_KERNEL)
				fr[n++] = frametab__kernel(r->frames, ip, ret);
			else if (ctx == (uint64_t)PERF_CONTEXT_USER && r->cg == CG_FP)
				fr[n++] = frametab__user(r->frames, pid, p ? maps__find(p->maps, ip) : NULL, ip, ret);
			/* hypervisor/guest contexts: not ours */
		}
		/* The kernel stops at sample_max_stack addresses (its context
		 * markers not counted): a chain that long may have been cut. */
		if (r->cg == CG_FP && n < room && stack__callchain_full(s, ev->attr.sample_max_stack)) {
			char why[32];
			unwind_result__label(&stack__chain_cut, why, sizeof(why));
			fr[n++] = frametab__special(r->frames, why);
			r->truncated++;
		}
		if (r->cg == CG_DWARF && s->regs_abi && s->regs && p && n < room)
			n += unwind_user(r, c, s, p, done, fr + n, room - n);
	} else {
		uint16_t mode = s->misc & PERF_RECORD_MISC_CPUMODE_MASK;
		if (mode == PERF_RECORD_MISC_KERNEL)
			fr[n++] = frametab__kernel(r->frames, s->ip, false);
		else
			fr[n++] = frametab__user(r->frames, pid, p ? maps__find(p->maps, s->ip) : NULL, s->ip, false);
	}
	return n;
}

/* Whose stack: the stack table puts comm, pid and tid in the root frame as
 * asked (--per-thread, --pid, --tid) and in pprof's labels. */
struct stack_owner record_stack_owner(const struct sample *s, const struct thread *t)
{
	return (struct stack_owner){ .comm = t ? t->comm : "[unknown]", .pid = (pid_t)s->pid, .tid = (pid_t)s->tid };
}

/* A sample's stack into its event's table; done: its user stack unwound by
 * a worker. */
void record_add_sample(struct record *r, struct collect *c, struct evsel *ev, const struct sample *s,
		       struct thread *t, struct process *p, const struct unwound *done)
{
	struct evstate *es = ev->priv;
	uint32_t n = record_sample_stack(r, c, ev, s, p, done, r->frame_buf, record_frame_limit(r, ev));
	struct stack_owner o = record_stack_owner(s, t);
	stacktab__add(es->stacks, &o, r->frame_buf, n, r->weight_period ? s->period : 1, s->time);
}

/* PPROBE_WORKERS_CHECK: the job's stack unwound again on this thread. */
static void check_worker(struct record *r, const struct unwind_job *j)
{
	struct unwind_result res;
	int nr = unwind_sample(r->unwinder, &j->s, j->p->maps, j->live_floor, r->ips, j->max, &res);
	r->wcheck_walks++;
	bool same = nr == j->nr && (nr < 0 || res.end == j->res.end);
	for (int i = 0; same && i < nr; i++)
		same = r->ips[i] == j->ips[i];
	if (same)
		return;
	if (!r->wcheck_differ++)
		snprintf(r->wcheck_first, sizeof(r->wcheck_first),
			 "tid %u: %d frames, %s here; %d frames, %s by the worker", j->s.tid, nr,
			 unwind_end__str(res.end), j->nr, unwind_end__str(j->res.end));
}

/* --workers: the oldest job back, waiting for it or not; false when none
 * (done) was there. Jobs are taken back in the order they were given, so
 * the tables are filled as one thread fills them. */
static bool take_back(struct record *r, struct collect *c, bool wait)
{
	struct unwind_job *j = unwind_pool__oldest(r->pool, wait);
	if (!j)
		return false;
	struct unwound u = { .ips = j->ips, .nr = j->nr, .res = j->res };
	if (j->unwind && r->unwinder)
		check_worker(r, j);
	record_add_sample(r, c, j->ev, &j->s, j->t, j->p, j->unwind ? &u : NULL);
	unwind_pool__pop(r->pool);
	return true;
}

/* Every job of process pid (-1: every job) back, and those before them. */
void record_take_back(struct record *r, struct collect *c, pid_t pid)
{
	for (size_t k = unwind_pool__out_through(r->pool, pid); k > 0; k--)
		take_back(r, c, true);
}

/* The session is about to change pid (collect.h): its jobs first. */
void record_before_task(struct collect *c, pid_t pid)
{
	struct record *r = c->priv;
	record_take_back(r, c, pid);
}

/* How many user frames sample_stack will let the unwinder find for S:
 * the room its kernel frames leave, as sample_stack counts them; -1: none
 * left, not unwound. */
static int user_room(const struct record *r, const struct evsel *ev, const struct sample *s)
{
	uint32_t room = record_frame_limit(r, ev), n = 0;
	struct callchain_iter it;
	uint64_t ip, ctx;
	bool ret;
	callchain_iter__init(&it, s);
	while (n < room && callchain_iter__next(&it, &ip, &ctx, &ret))
		n += ctx == (uint64_t)PERF_CONTEXT_KERNEL;
	if (n >= room)
		return -1;
	room -= n;
	return (int)(room - 1 < MAX_FRAMES ? room - 1 : MAX_FRAMES);
}

/* --workers: every sample in the one order, those with a user stack to
 * unwind by a worker; the samples done before it taken back first. */
void record_to_workers(struct record *r, struct collect *c, struct evsel *ev, const struct sample *s,
		       struct thread *t, struct process *p)
{
	while (take_back(r, c, false))
		;
	struct unwind_job *j = unwind_pool__next(r->pool);
	if (!j) {
		take_back(r, c, true);
		j = unwind_pool__next(r->pool);
	}
	unwind_pool__copy_sample(j, s, __builtin_popcountll(c->layout.regs_user_mask));
	j->ev = ev;
	j->t = t;
	j->p = p;
	j->max = user_room(r, ev, s);
	j->unwind = r->cg == CG_DWARF && s->regs_abi && s->regs && p && j->max >= 0;
	if (j->unwind)
		j->live_floor = collect__unwind_floor(c, s, p);
	unwind_pool__submit(r->pool, j);
}
