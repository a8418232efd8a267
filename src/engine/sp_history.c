/* The unwinder's stack-pointer history: each thread's user sp in its later
 * samples (read from the rings, not yet processed) and at its held exit, so
 * that a sample's unwinding trusts the live stack beyond its copy only as
 * far as the thread has not returned since (collect__sp_high_after). */
#define _GNU_SOURCE
#include <stdlib.h>
#include <asm/perf_regs.h>

#include "collect_internal.h"
#include "pprobe/unwind.h"
#include "unwind_pool.h"

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

void collect_sp_note(struct collect *c, pid_t tid, uint64_t time, uint64_t sp)
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

void sp_history__free(struct sp_history *h)
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
	int n = unwind_sample(u, s, p->maps, collect__unwind_floor(c, s, p), ips, max, res);
	if (res)
		collect__note_unwound(c, res);
	return n;
}

/* A sample's user sp: its value among the sampled user registers (mask). */
static uint64_t user_sp(uint64_t mask, const uint64_t *regs)
{
	return regs[__builtin_popcountll(mask & ((1ULL << PERF_REG_X86_SP) - 1))];
}

uint64_t collect__unwind_floor(struct collect *c, const struct sample *s, const struct process *p)
{
	uint64_t sp = user_sp(c->layout.regs_user_mask, s->regs);
	const struct map *m = maps__find(p->maps, sp);
	return collect__sp_high_after(c, (pid_t)s->tid, s->time, sp, m ? m->end : UINT64_MAX);
}

void collect__note_unwound(struct collect *c, const struct unwind_result *res)
{
	if (res->used_live_stack || res->used_history || res->end == UNWIND_TRUNCATED)
		c->deep_stacks++;	/* the run's pace: collect__run */
}

/* On the drain thread: where a sample's stack copy size is (drain.h). */
size_t collect_stack_field_of(void *arg, const struct perf_event_header *hdr)
{
	const struct collect *c = arg;
	struct sample s;
	if (sample__parse(hdr, &c->layout, &s) || !s.stack || !s.stack_size)
		return 0;
	return (size_t)((const unsigned char *)s.stack - 8 - (const unsigned char *)hdr);
}

/* A sample just read from a ring: remember its thread's user sp. */
void collect_sp_note_sample(struct collect *c, const struct perf_event_header *hdr)
{
	uint64_t mask = c->layout.regs_user_mask;
	struct sample s;
	if (!(mask & (1ULL << PERF_REG_X86_SP)) || sample__parse(hdr, &c->layout, &s) || !s.regs_abi)
		return;
	collect_sp_note(c, (pid_t)s.tid, s.time, user_sp(mask, s.regs));
}
