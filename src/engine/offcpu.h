/* Off-CPU intervals (record --off-cpu): the time from each switch-out of a
 * thread to its next switch-in, with what the thread was doing when it left
 * the CPU. Without BPF, as perf does it from userspace: a sched:sched_switch
 * sample fires in the task that leaves (its stack, and prev_state: blocked
 * or still runnable, i.e. preempted), and the switch-in is a
 * PERF_RECORD_SWITCH (attr.context_switch; per task or CPU-wide).
 *
 * The tracker is fed in timestamp order and knows nothing of stacks: a
 * switch-out carries an opaque array of 32-bit words (record's frame ids),
 * copied, and given back with the interval it opens. */
#ifndef PPROBE_OFFCPU_H
#define PPROBE_OFFCPU_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "util.h"

enum offcpu_kind {
	OFFCPU_BLOCKED,		/* left the CPU asleep: S, D, T, ... */
	OFFCPU_PREEMPTED,	/* left the CPU still runnable (preempted, or yielded) */
	OFFCPU_EXITING,		/* its last switch-out (exit state Z/X): no interval */
};

/* What sched_switch's prev_state says. The kernel reports 0 for a runnable
 * task, TASK_REPORT_MAX (0x100 since 4.14) added when it was preempted, and
 * 1 << (index - 1) of its state otherwise: S 0x1, D 0x2, T 0x4, t 0x8,
 * X 0x10, Z 0x20, P 0x40, I 0x80 (the same on 5.10 to 6.18). */
enum offcpu_kind offcpu__kind_of_prev_state(int64_t prev_state);
const char *offcpu_kind__frame(enum offcpu_kind k);	/* "[off-cpu: blocked]", ... */

struct offcpu_interval {
	pid_t pid, tid;
	const char *label;	/* as given at switch-out: the comm */
	enum offcpu_kind kind;
	uint64_t start, end;	/* ns, the records' clock */
	const uint32_t *words;	/* as given at switch-out */
	uint32_t nr;
	bool open;		/* not switched in before the end: counted up to it */
};
/* Valid during the call only. */
typedef void (*offcpu_fn)(void *ctx, const struct offcpu_interval *iv);

struct offcpu_stats {
	uint64_t intervals;	/* closed by a switch-in */
	uint64_t open_at_end;	/* still off-CPU at the end, counted up to it */
	uint64_t ns[2];		/* time by kind (blocked, preempted), both of the above */
	uint64_t first_in;	/* a thread's first record is a switch-in: new, or off-CPU
				 * since before recording began (that wait is not counted) */
	uint64_t unmatched_in;	/* a later switch-in with no switch-out before it
				 * (its sched_switch sample lost): not counted */
	uint64_t unmatched_out;	/* a switch-out while one was open (a switch-in lost):
				 * the earlier one is not counted */
	uint64_t backwards;	/* a switch-in older than its switch-out: not counted */
};

struct offcpu {
	struct u64map threads;	/* tid -> struct offcpu_thread */
	struct offcpu_stats st;
};

void offcpu__init(struct offcpu *o);
void offcpu__exit(struct offcpu *o);
/* Thread TID of process PID left the CPU at TIME. An OFFCPU_EXITING
 * switch-out forgets the thread. words[0..nr) and label are copied. */
void offcpu__switch_out(struct offcpu *o, pid_t pid, pid_t tid, const char *label, uint64_t time,
			enum offcpu_kind kind, const uint32_t *words, uint32_t nr);
/* Thread TID came back on a CPU at TIME: the interval it closes, if any,
 * goes to fn. Returns 1 if one did, 0 if not. */
int offcpu__switch_in(struct offcpu *o, pid_t tid, uint64_t time, offcpu_fn fn, void *ctx);
/* The end of recording: every thread still off-CPU gives an open interval
 * up to END (one that began after END gives none). Returns how many. */
uint64_t offcpu__finish(struct offcpu *o, uint64_t end, offcpu_fn fn, void *ctx);

#endif
