/* Off-CPU interval bookkeeping: switch-outs paired with the next switch-in
 * of the same thread (see offcpu.h). */
#include <stdlib.h>
#include <string.h>

#include "offcpu.h"

/* TASK_REPORT (0x7f) | TASK_REPORT_IDLE (0x80): the state bits; above
 * them TASK_REPORT_MAX (0x100) says "preempted". */
#define PREV_STATE_MASK 0xffLL
#define PREV_STATE_EXIT (0x10LL | 0x20LL)	/* EXIT_DEAD, EXIT_ZOMBIE */

enum offcpu_kind offcpu__kind_of_prev_state(int64_t prev_state)
{
	int64_t s = prev_state & PREV_STATE_MASK;
	if (s == 0)
		return OFFCPU_PREEMPTED;
	if (s & PREV_STATE_EXIT)
		return OFFCPU_EXITING;
	return OFFCPU_BLOCKED;
}

const char *offcpu_kind__frame(enum offcpu_kind k)
{
	switch (k) {
	case OFFCPU_BLOCKED: return "[off-cpu: blocked]";
	case OFFCPU_PREEMPTED: return "[off-cpu: preempted]";
	default: return "[off-cpu: exiting]";
	}
}

struct offcpu_thread {
	bool out;		/* off-CPU since `time` */
	pid_t pid;
	enum offcpu_kind kind;
	uint64_t time;
	char *label;
	uint32_t *words;
	uint32_t nr, cap;
};

static void thread__free(struct offcpu_thread *t)
{
	if (!t)
		return;
	free(t->label);
	free(t->words);
	free(t);
}

void offcpu__init(struct offcpu *o)
{
	memset(o, 0, sizeof(*o));
	u64map__init(&o->threads);
}

void offcpu__exit(struct offcpu *o)
{
	for (size_t i = 0; i < o->threads.cap; i++)
		if (o->threads.used[i])
			thread__free(o->threads.vals[i]);
	u64map__free(&o->threads);
}

void offcpu__switch_out(struct offcpu *o, pid_t pid, pid_t tid, const char *label, uint64_t time,
			enum offcpu_kind kind, const uint32_t *words, uint32_t nr)
{
	struct offcpu_thread *t = u64map__get(&o->threads, (uint64_t)tid);
	if (kind == OFFCPU_EXITING) {
		thread__free(u64map__del(&o->threads, (uint64_t)tid));
		return;
	}
	if (!t) {
		t = pp_xcalloc(1, sizeof(*t));
		u64map__put(&o->threads, (uint64_t)tid, t);
	} else if (t->out) {
		o->st.unmatched_out++;
	}
	if (nr > t->cap) {
		t->cap = nr;
		t->words = pp_xrealloc(t->words, nr * sizeof(*t->words));
	}
	if (nr)
		memcpy(t->words, words, nr * sizeof(*words));
	t->nr = nr;
	if (!t->label || strcmp(t->label, label)) {
		free(t->label);
		t->label = pp_xstrdup(label);
	}
	t->out = true;
	t->pid = pid;
	t->kind = kind;
	t->time = time;
}

static void emit(struct offcpu *o, pid_t tid, struct offcpu_thread *t, uint64_t end, bool open, offcpu_fn fn,
		 void *ctx)
{
	struct offcpu_interval iv = {
		.pid = t->pid, .tid = tid, .label = t->label, .kind = t->kind,
		.start = t->time, .end = end, .words = t->words, .nr = t->nr, .open = open,
	};
	o->st.ns[t->kind == OFFCPU_PREEMPTED] += end - t->time;
	if (fn)
		fn(ctx, &iv);
}

int offcpu__switch_in(struct offcpu *o, pid_t tid, uint64_t time, offcpu_fn fn, void *ctx)
{
	struct offcpu_thread *t = u64map__get(&o->threads, (uint64_t)tid);
	if (!t) {
		/* Remembered from now on, so that a later unmatched switch-in
		 * tells a lost sample from a thread's first record. */
		t = pp_xcalloc(1, sizeof(*t));
		u64map__put(&o->threads, (uint64_t)tid, t);
		o->st.first_in++;
		return 0;
	}
	if (!t->out) {
		o->st.unmatched_in++;
		return 0;
	}
	t->out = false;
	if (time < t->time) {
		o->st.backwards++;
		return 0;
	}
	o->st.intervals++;
	emit(o, tid, t, time, false, fn, ctx);
	return 1;
}

uint64_t offcpu__finish(struct offcpu *o, uint64_t end, offcpu_fn fn, void *ctx)
{
	uint64_t n = 0;
	for (size_t i = 0; i < o->threads.cap; i++) {
		if (!o->threads.used[i])
			continue;
		struct offcpu_thread *t = o->threads.vals[i];
		if (!t->out || t->time > end)
			continue;
		t->out = false;
		n++;
		emit(o, (pid_t)o->threads.keys[i], t, end, true, fn, ctx);
	}
	o->st.open_at_end += n;
	return n;
}
