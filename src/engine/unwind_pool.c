/* User stacks unwound on worker threads, taken back in order
 * (unwind_pool.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pprobe/maps.h"
#include "session.h"
#include "unwind_pool.h"
#include "util.h"

/* Jobs out at most per worker: enough to keep each busy while the consumer
 * takes back the oldest, few enough that the copies stay small (a 64 KiB
 * stack copy each at most). */
#define JOBS_PER_WORKER 64

enum msg_kind { MSG_JOB, MSG_FORGET, MSG_SWEEP, MSG_STOP };

struct msg {
	enum msg_kind kind;
	union {
		struct unwind_job *job;
		pid_t pid;
	};
};

struct worker {
	struct unwind_pool *pool;
	pthread_t thread;
	bool started;
	struct unwinder *u;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct msg *q;		/* a ring of cap messages */
	size_t head, nr, cap;
	bool asleep;		/* waiting for a message */
	size_t unseen;		/* jobs posted since it was last woken (the consumer's) */
};

struct unwind_pool {
	int nr_workers;
	struct worker *w;
	int max_frames;
	struct unwind_job *jobs;	/* a ring: the consumer's alone */
	size_t size, oldest, out;
	pthread_mutex_t done_lock;	/* a job's done, and waiting for it */
	pthread_cond_t done_cond;
};

int unwind_sample(struct unwinder *u, const struct sample *s, const struct maps *maps, uint64_t live_floor,
		  uint64_t *ips, int max, struct unwind_result *res)
{
	struct unwind_regs regs;
	unwind_regs__from_x86_sample(&regs, UNWIND_X86_SAMPLE_REGS_MASK, s->regs);
	/* tid: a thread's samples come here in time order (unwind_history.c) */
	struct unwind_stack st = { .sp = regs.r[UNWIND_REG_SP], .data = s->stack, .size = (size_t)s->stack_dyn_size,
				   .tid = (pid_t)s->tid, .live_floor = live_floor };
	return unwinder__unwind(u, (pid_t)s->pid, maps, &regs, &st, ips, max, res);
}

static void run_job(struct worker *w, struct unwind_job *j)
{
	j->nr = unwind_sample(w->u, &j->s, j->p->maps, j->live_floor, j->ips, j->max, &j->res);
	/* the name lives in the worker's unwinder: copied, for the consumer */
	if (j->res.end_dso) {
		snprintf(j->end_dso, sizeof(j->end_dso), "%s", j->res.end_dso);
		j->res.end_dso = j->end_dso;
	}
	pthread_mutex_lock(&w->pool->done_lock);
	__atomic_store_n(&j->done, 1, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&w->pool->done_cond);
	pthread_mutex_unlock(&w->pool->done_lock);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	for (;;) {
		pthread_mutex_lock(&w->lock);
		while (!w->nr) {
			w->asleep = true;
			pthread_cond_wait(&w->cond, &w->lock);
		}
		w->asleep = false;
		struct msg m = w->q[w->head];
		w->head = (w->head + 1) % w->cap;
		w->nr--;
		pthread_mutex_unlock(&w->lock);
		switch (m.kind) {
		case MSG_JOB:
			run_job(w, m.job);
			break;
		case MSG_FORGET:
			unwinder__forget(w->u, m.pid);
			break;
		case MSG_SWEEP:
			unwinder__sweep(w->u);
			break;
		case MSG_STOP:
			return NULL;
		}
	}
}

/* Jobs are handed over without a wakeup (a futex wake, a syscall each:
 * at 1,000 samples a second a fifth of the main thread's CPU), until a
 * worker has this many waiting, the consumer waits for one, or its loop
 * passes (unwind_pool__kick). */
#define WAKE_BATCH 16

static void wake(struct worker *w)
{
	w->unseen = 0;
	if (w->asleep && w->nr)
		pthread_cond_signal(&w->cond);
}

void unwind_pool__kick(struct unwind_pool *p)
{
	for (int i = 0; i < p->nr_workers; i++) {
		struct worker *w = &p->w[i];
		if (!w->unseen)
			continue;
		pthread_mutex_lock(&w->lock);
		wake(w);
		pthread_mutex_unlock(&w->lock);
	}
}

static void post(struct worker *w, struct msg m)
{
	pthread_mutex_lock(&w->lock);
	if (w->nr == w->cap) {
		size_t cap = w->cap * 2;
		struct msg *q = pp_xmalloc(cap * sizeof(*q));
		for (size_t i = 0; i < w->nr; i++)
			q[i] = w->q[(w->head + i) % w->cap];
		free(w->q);
		w->q = q;
		w->head = 0;
		w->cap = cap;
	}
	w->q[(w->head + w->nr) % w->cap] = m;
	w->nr++;
	if (m.kind != MSG_JOB || ++w->unseen >= WAKE_BATCH)
		wake(w);
	pthread_mutex_unlock(&w->lock);
}

int unwind_pool__default_workers(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN) / 16;
	return n < 1 ? 1 : n > 16 ? 16 : (int)n;
}

struct unwind_pool *unwind_pool__new(int workers, enum unwind_backend backend, int max_frames, char *err,
				     size_t len)
{
	struct unwind_pool *p = pp_xcalloc(1, sizeof(*p));
	p->nr_workers = workers;
	p->max_frames = max_frames;
	p->size = (size_t)workers * JOBS_PER_WORKER;
	p->jobs = pp_xcalloc(p->size, sizeof(*p->jobs));
	for (size_t i = 0; i < p->size; i++)
		p->jobs[i].ips = pp_xmalloc((size_t)max_frames * sizeof(uint64_t));
	pthread_mutex_init(&p->done_lock, NULL);
	pthread_cond_init(&p->done_cond, NULL);
	p->w = pp_xcalloc((size_t)workers, sizeof(*p->w));
	/* the workers take no signal: the main thread's signalfd does */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	for (int i = 0; i < workers; i++) {
		struct worker *w = &p->w[i];
		w->pool = p;
		pthread_mutex_init(&w->lock, NULL);
		pthread_cond_init(&w->cond, NULL);
		w->cap = p->size + 16;
		w->q = pp_xmalloc(w->cap * sizeof(*w->q));
		w->u = unwinder__new(backend);
		if (!w->u) {
			seterr(err, len, "cannot set up the %s unwinder: %s", unwind_backend__str(backend),
			       strerror(errno));
			break;
		}
		int e = pthread_create(&w->thread, NULL, worker_main, w);
		if (e) {
			seterr(err, len, "cannot start an unwinding thread: %s", strerror(e));
			break;
		}
		w->started = true;
		char name[16];
		snprintf(name, sizeof(name), "pprobe-unw%d", i & 63);
		pthread_setname_np(w->thread, name);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	for (int i = 0; i < workers; i++)
		if (!p->w[i].started) {
			unwind_pool__delete(p);
			return NULL;
		}
	return p;
}

void unwind_pool__delete(struct unwind_pool *p)
{
	if (!p)
		return;
	for (int i = 0; i < p->nr_workers; i++) {
		struct worker *w = &p->w[i];
		if (w->started) {
			post(w, (struct msg){ .kind = MSG_STOP });
			pthread_join(w->thread, NULL);
		}
		unwinder__delete(w->u);
		free(w->q);
		pthread_mutex_destroy(&w->lock);
		pthread_cond_destroy(&w->cond);
	}
	for (size_t i = 0; i < p->size; i++) {
		free(p->jobs[i].ips);
		free(p->jobs[i].buf);
	}
	pthread_mutex_destroy(&p->done_lock);
	pthread_cond_destroy(&p->done_cond);
	free(p->jobs);
	free(p->w);
	free(p);
}

int unwind_pool__workers(const struct unwind_pool *p)
{
	return p->nr_workers;
}

struct unwind_job *unwind_pool__next(struct unwind_pool *p)
{
	if (p->out == p->size)
		return NULL;
	struct unwind_job *j = &p->jobs[(p->oldest + p->out) % p->size];
	j->ev = NULL;
	j->t = NULL;
	j->p = NULL;
	j->unwind = false;
	j->live_floor = 0;
	j->max = p->max_frames;
	j->nr = 0;
	memset(&j->res, 0, sizeof(j->res));
	j->done = 0;
	return j;
}

/* n bytes of src into the job's buffer at *off, 8-aligned; where they went */
static const void *put(struct unwind_job *j, size_t *off, const void *src, size_t n)
{
	if (!src || !n)
		return src;
	void *dst = j->buf + *off;
	memcpy(dst, src, n);
	*off += (n + 7) & ~(size_t)7;
	return dst;
}

void unwind_pool__copy_sample(struct unwind_job *j, const struct sample *s, int nregs)
{
	size_t chain = (size_t)s->callchain_nr * 8, regs = s->regs_abi && s->regs ? (size_t)nregs * 8 : 0;
	size_t stack = s->stack ? (size_t)s->stack_dyn_size : 0, raw = s->raw ? s->raw_size : 0;
	size_t need = chain + regs + stack + raw + 4 * 8;
	if (need > j->cap) {
		free(j->buf);
		j->cap = need < 4096 ? 4096 : need;
		j->buf = pp_xmalloc(j->cap);
	}
	size_t off = 0;
	j->s = *s;
	j->s.callchain = put(j, &off, s->callchain, chain);
	j->s.regs = s->regs_abi ? put(j, &off, s->regs, regs) : s->regs;
	j->s.stack = put(j, &off, s->stack, stack);
	j->s.raw = put(j, &off, s->raw, raw);
}

void unwind_pool__submit(struct unwind_pool *p, struct unwind_job *j)
{
	p->out++;
	if (!j->unwind || !j->p) {
		j->unwind = false;
		j->done = 1;	/* the consumer's alone: no worker sees it */
		return;
	}
	if (j->max > p->max_frames)
		j->max = p->max_frames;
	/* a thread to one worker: its earlier samples are there */
	uint32_t h = (uint32_t)j->s.tid * 2654435761u;
	post(&p->w[h % (uint32_t)p->nr_workers], (struct msg){ .kind = MSG_JOB, .job = j });
}

struct unwind_job *unwind_pool__oldest(struct unwind_pool *p, bool wait)
{
	if (!p->out)
		return NULL;
	struct unwind_job *j = &p->jobs[p->oldest];
	if (__atomic_load_n(&j->done, __ATOMIC_ACQUIRE))
		return j;
	if (!wait)
		return NULL;
	unwind_pool__kick(p);
	pthread_mutex_lock(&p->done_lock);
	while (!__atomic_load_n(&j->done, __ATOMIC_ACQUIRE))
		pthread_cond_wait(&p->done_cond, &p->done_lock);
	pthread_mutex_unlock(&p->done_lock);
	return j;
}

void unwind_pool__pop(struct unwind_pool *p)
{
	if (!p->out)
		return;
	p->oldest = (p->oldest + 1) % p->size;
	p->out--;
}

size_t unwind_pool__out_through(const struct unwind_pool *p, pid_t pid)
{
	if (pid < 0)
		return p->out;
	for (size_t k = p->out; k > 0; k--)
		if ((pid_t)p->jobs[(p->oldest + k - 1) % p->size].s.pid == pid)
			return k;
	return 0;
}

void unwind_pool__forget(struct unwind_pool *p, pid_t pid)
{
	for (int i = 0; i < p->nr_workers; i++)
		post(&p->w[i], (struct msg){ .kind = MSG_FORGET, .pid = pid });
}

void unwind_pool__sweep(struct unwind_pool *p)
{
	for (int i = 0; i < p->nr_workers; i++)
		post(&p->w[i], (struct msg){ .kind = MSG_SWEEP });
}

uint64_t unwind_pool__cpu_ns(const struct unwind_pool *p)
{
	uint64_t ns = 0;
	for (int i = 0; i < p->nr_workers; i++) {
		clockid_t id;
		if (!pthread_getcpuclockid(p->w[i].thread, &id))
			ns += clock_ns(id);
	}
	return ns;
}

bool unwind_pool__check(struct unwind_pool *p, struct unwind_check *out)
{
	bool any = false;
	memset(out, 0, sizeof(*out));
	for (int i = 0; i < p->nr_workers; i++) {
		const struct unwind_check *c = unwinder__check(p->w[i].u);
		if (!c)
			continue;
		any = true;
		out->walks += c->walks;
		if (c->differ && !out->differ)
			snprintf(out->first, sizeof(out->first), "%s", c->first);
		out->differ += c->differ;
	}
	return any;
}
