/* User stacks unwound on worker threads (record --workers N), results taken
 * back in the order the samples were given, so that what the consumer
 * builds from them is what one thread builds.
 *
 * The consumer (collect's main thread) takes a free job, copies a sample
 * into it and submits it; a worker unwinds it; the consumer takes the oldest
 * job back when it is done. Each worker has its own unwinder, with its own
 * cache of ELF files and CFI; a thread's samples always go to the same
 * worker, in order (the thread's earlier samples, unwind_history.c, live
 * there). Workers read a process's maps (the session's) and nothing else of
 * the consumer's: before a sideband record changes a process, the consumer
 * takes back every job of it still out (unwind_pool__out_through), so the
 * maps never change under a worker. */
#ifndef PPROBE_UNWIND_POOL_H
#define PPROBE_UNWIND_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pprobe/unwind.h"
#include "sample.h"

struct evsel;
struct thread;
struct process;
struct maps;

struct unwind_job {
	/* set by the consumer before unwind_pool__submit */
	struct sample s;		/* a copy (unwind_pool__copy_sample) */
	struct evsel *ev;
	struct thread *t;
	struct process *p;
	bool unwind;			/* false: nothing to unwind, done at once */
	uint64_t live_floor;		/* collect__sp_high_after's answer */
	int max;			/* frames at most, <= the pool's max_frames */
	/* the worker's answer */
	uint64_t *ips;
	int nr;				/* unwinder__unwind's return */
	struct unwind_result res;	/* res.end_dso points into end_dso */
	char end_dso[128];
	/* the pool's */
	unsigned char *buf;		/* the sample's data */
	size_t cap;
	int done;			/* atomic */
};

struct unwind_pool;

/* NULL with err said when a worker cannot start (their unwinders made with
 * backend; PPROBE_* environment knobs as unwinder__new reads them). */
struct unwind_pool *unwind_pool__new(int workers, enum unwind_backend backend, int max_frames, char *err,
				     size_t len);
/* Every job must have been taken back. Accepts NULL. */
void unwind_pool__delete(struct unwind_pool *p);
int unwind_pool__workers(const struct unwind_pool *p);
/* The default: one worker per 16 online CPUs, 1 to 16. */
int unwind_pool__default_workers(void);

/* A free job, or NULL when all are out (take the oldest back first). */
struct unwind_job *unwind_pool__next(struct unwind_pool *p);
/* s and what it points to (callchain, nregs user registers, the valid part
 * of the stack copy, raw data) into the job. */
void unwind_pool__copy_sample(struct unwind_job *j, const struct sample *s, int nregs);
/* Submitted jobs wait for a batch, a wait for one, or unwind_pool__kick
 * (call it when a pass over the queue is done) before a worker wakes. */
void unwind_pool__submit(struct unwind_pool *p, struct unwind_job *j);
void unwind_pool__kick(struct unwind_pool *p);
/* The oldest job out, once done (with wait, waiting for it), or NULL: none
 * out, or not done and !wait. unwind_pool__pop frees it. */
struct unwind_job *unwind_pool__oldest(struct unwind_pool *p, bool wait);
void unwind_pool__pop(struct unwind_pool *p);
/* How many jobs, oldest first, must be taken back for no job of process pid
 * (-1: of any) to be out. */
size_t unwind_pool__out_through(const struct unwind_pool *p, pid_t pid);

/* Messages to every worker, handled after the jobs given before them. */
void unwind_pool__forget(struct unwind_pool *p, pid_t pid);	/* unwinder__forget */
void unwind_pool__sweep(struct unwind_pool *p);			/* unwinder__sweep */

/* The CPU time the workers used so far, in ns. */
uint64_t unwind_pool__cpu_ns(const struct unwind_pool *p);

/* The workers' unwind checks summed (PPROBE_UNWIND_CHECK); false: not
 * checking. Call with no job out. */
bool unwind_pool__check(struct unwind_pool *p, struct unwind_check *out);

/* One sample's user stack: its registers and stack copy, the live stack
 * trusted up to live_floor (collect__sp_high_after). What
 * unwinder__unwind returns. */
int unwind_sample(struct unwinder *u, const struct sample *s, const struct maps *maps, uint64_t live_floor,
		  uint64_t *ips, int max, struct unwind_result *res);

#endif
