/* The recording engine shared by record and trace: resolves the target
 * (command, -p, -t, -a, -C), opens the events with a sideband tracker, runs
 * the poll loop over the per-CPU rings, keeps the session (processes, threads,
 * maps) current and hands each sample, in timestamp order, to the caller.
 * It prints nothing: errors come back in the caller's buffer, notes and the
 * live status line through on_note and on_status, the loss prose as text
 * (collect__lost_text). */
#ifndef PPROBE_COLLECT_H
#define PPROBE_COLLECT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "drain.h"
#include "evlist.h"
#include "ordered.h"
#include "sample.h"
#include "session.h"

struct collect;
typedef int (*collect_sample_fn)(struct collect *c, struct evsel *ev, const struct sample *s,
				 struct thread *t, struct process *p);

struct collect_opts {
	bool system_wide;		/* -a */
	const char *cpu_list;		/* -C */
	const char *pid_list;		/* -p */
	const char *tid_list;		/* -t */
	char **argv;			/* command, NULL-terminated, or NULL */
	double duration;		/* -d, 0 = none */
	size_t ring_pages;		/* per CPU, a power of two */
	uint64_t extra_sample_type;	/* CALLCHAIN, REGS_USER, STACK_USER, RAW... */
	uint64_t regs_user_mask;
	uint32_t stack_user_size;	/* an event's stack-size=N term wins */
	uint32_t stack_user_size_rated;	/* for events sampled at a rate
					 * (collect__rated), when not 0 */
	uint16_t max_stack;		/* sample_max_stack (collect__kernel_max_stack);
					 * an event's max-stack=N term wins */
	bool exclude_callchain_user;
	bool quiet;
	bool counting;			/* stat: no rings, no sideband; read_format with times */
	uint32_t order_slack_us;	/* how long a record waits for older ones still
					 * being written on other CPUs (0: 2000). Records
					 * that depend on each other (a sample and the
					 * MMAP2 of its code) are ordered by causality, so
					 * any slack keeps them right; only unrelated
					 * records of different CPUs may then come late. */
	bool child_stdout_to_stderr;	/* the command's stdout is our stderr: our
					 * stdout carries our output (record -o -) */
	bool child_stdio_null;		/* the command's stdin, stdout and stderr are
					 * /dev/null: our terminal is a live view
					 * (top), its keys ours */
	bool hold_exits;		/* a command's threads wait at exit until their
					 * samples are processed (ptrace exit-stops), so
					 * the live stack beyond a copy is still there */
	const char *status_prefix;	/* live status line label */
	uint64_t max_queue;		/* --max-queue: bytes of records read from the
					 * rings and not yet processed (0: the default,
					 * drain__default_max()) */
	bool context_switch;		/* PERF_RECORD_SWITCH records to on_switch
					 * (attr.context_switch on the sideband event):
					 * the target's threads' switches, or every
					 * switch on the CPUs with -a/-C */
};

struct collect {
	struct collect_opts opts;
	struct evlist evlist;
	struct session session;
	struct sample_layout layout;
	struct ordered queue;
	collect_sample_fn on_sample;
	/* A mapping appeared (MMAP2), after the session recorded it. */
	void (*on_mmap)(struct collect *c, pid_t pid, const struct map *m);
	/* A sideband record of process pid (MMAP2, COMM, FORK, EXIT) is about
	 * to change the session (its maps, threads, comm); pid -1: exited
	 * processes are about to be forgotten, or threads held at their exit
	 * let go. For work still out that reads them (record's unwinding
	 * workers, unwind_pool.h): finish it now. */
	void (*before_task)(struct collect *c, pid_t pid);
	/* A process exited or replaced its image (exec): drop state kept for it. */
	void (*on_process_gone)(struct collect *c, pid_t pid);
	/* A context switch (opts.context_switch): id is the record's sample_id
	 * (pid, tid, time, cpu of the task switched in or out), misc its
	 * PERF_RECORD_MISC_SWITCH_OUT[_PREEMPT] bits. */
	void (*on_switch)(struct collect *c, const struct sample *id, uint16_t misc);
	/* Called from collect__run's loop after each pass over the queued
	 * records (at least every few ms): for work at intervals. */
	void (*on_tick)(struct collect *c);
	/* A note for the user while the run goes on (no drain thread, no
	 * signal guard): one line, no prefix, no newline. NULL: not said. */
	void (*on_note)(struct collect *c, const char *msg);
	/* The live status line, about every 0.5 s unless opts.quiet ("[ record:
	 * 1.5s, 1234 samples, 0 lost, 3.2 MB read ]", no newline), and NULL once
	 * at the end when one was given: the caller shows it (on a terminal),
	 * then clears it. NULL: no status line. */
	void (*on_status)(struct collect *c, const char *line);
	void *priv;
	int guard_errno;		/* sigguard__start's failure in collect__init,
					 * a note at collect__prepare */
	int sigfd;
	pid_t child;			/* our command, 0 if none */
	int child_go_fd;		/* write end: releases the child to exec */
	int child_err_fd;		/* read end: errno of a failed exec */
	int child_status;
	int exec_errno;			/* the command's exec failed with this
					 * (collect__start returned -ECHILD) */
	bool child_exited;
	bool traced;			/* hold_exits: the command and its descendants
					 * are ptrace-seized for their exit-stops */
	uint64_t exits_held;		/* thread exits held that way */
	pid_t *held;			/* threads at their exit-stop, released once the */
	int nr_held, cap_held;		/* records up to that moment are processed */
	pid_t *target_pids;		/* -p processes, to notice when they are all gone */
	int nr_target_pids;
	int stop_signal;		/* SIGINT/SIGTERM that stopped us, 0 if none */
	uint64_t stop_seen_ns;		/* when processing first saw a stop signal */
	uint64_t stop_left;		/* samples queued at a stop, left out past its grace */
	uint64_t own_left;		/* -a/-C: samples of pprobe's own threads, left out
					 * before they were queued */
	uint64_t deadline_ns;		/* -d: events stop then (CLOCK_MONOTONIC), 0 if none */
	bool events_off;		/* the events were disabled (at t_stop_ns) */
	uint64_t deep_stacks;		/* samples whose walk reached the end of their stack
					 * copy since the last look (collect__run) */
	int out_fd;			/* collect__watch_output's pipe or socket, or -1 */
	int out_err;			/* errno of the first failed write of our output
					 * (EPIPE: its reader went away), 0 if none */
	bool stop;
	double t_start, t_end;
	uint64_t t_stop_ns;		/* when the events were disabled (now_ns) */
	/* counters */
	uint64_t nr_samples, lost, lost_samples, throttled, bad_records, unknown_id;
	uint64_t lost_queue_full;	/* of lost: while the queue was at max_queue */
	uint64_t lost_no_event;		/* of lost: under an id of no event of ours */
	uint64_t lost_unreported;	/* of lost: in no PERF_RECORD_LOST, found by
					 * the events' own counts at the end */
	struct drain drain;		/* the thread that empties the rings */
	bool status_shown;
	uint64_t last_read_ns;		/* when the rings were last drained */
	struct u64map sp_seen;		/* tid -> struct sp_history (see collect__sp_high_after) */
};

/* Lines saying which events lost records and which option would have kept
 * them, each prefixed with prog and ending in a newline: malloc'd, the
 * caller's to free; NULL when nothing was lost (or on ENOMEM). */
char *collect__lost_text(const struct collect *c, const char *prog);
/* The queue's peak and bound, e.g. "queue peak 41.9 MiB of 512 MiB". */
void collect__queue_summary(struct collect *c, char *buf, size_t len);

/* The highest user sp in [lo, hi) thread TID is known to have reached after
 * TIME: from its later samples already read from the rings (user registers
 * sampled) and, for a thread held at its exit, its sp there. 0 when none is
 * known. Frames of a sample at TIME below that address may have been popped
 * since, even where the memory still holds their old bytes, so the live
 * stack there is no longer the sample's. Call from on_sample with the
 * sample's time: entries up to TIME are dropped. */
uint64_t collect__sp_high_after(struct collect *c, pid_t tid, uint64_t time,
				uint64_t lo, uint64_t hi);

/* The user stack of sample S of process P (user registers and a stack copy
 * sampled) unwound by U into ips (at most max), with the live stack beyond
 * the copy trusted only as far as collect__sp_high_after() allows. Returns
 * what unwinder__unwind() returns; res is always filled. */
struct unwinder;
struct unwind_result;
int collect__unwind_user(struct collect *c, struct unwinder *u, const struct sample *s,
			 const struct process *p, uint64_t *ips, int max, struct unwind_result *res);

/* The two halves of collect__unwind_user, for unwinding elsewhere
 * (unwind_pool.h): on_sample's answer of collect__sp_high_after for S,
 * and, with the unwinding's result, the run's pace told. */
uint64_t collect__unwind_floor(struct collect *c, const struct sample *s, const struct process *p);
void collect__note_unwound(struct collect *c, const struct unwind_result *res);

/* Zero the engine: always first, so collect__cleanup is safe on any path. */
void collect__init(struct collect *c);
/* collect__prepare, collect__start and collect__run return 0 or a negative
 * errno, with err saying why (one line, no prefix); the engine picks no exit
 * status (the command does: src/cmds/collect_say.h). Three errnos have the
 * engine's own meaning there, and a kernel's or libc's error of the same
 * number comes back as -EIO (err has its words):
 *   -EINVAL  the options name a bad target (CPU or PID list, a CPU not
 *            online, nothing to record);
 *   -EINTR   a stop signal came before the run began (err empty);
 *   -ECHILD  the command could not be run: c->exec_errno says why.
 * Anything else is a failure the kernel or the engine said (-ESRCH: a target
 * process is gone, -EACCES/-EPERM: not allowed to open the events, ...). */
/* Set up: targets, signal handling, the child (stopped before exec), and the
 * open fds. Events the command wants are added to c->evlist and on_note is
 * set before this. 0, or a negative errno (above). */
int collect__prepare(struct collect *c, const struct collect_opts *opts, char *err, size_t len);
/* Start counting/sampling: enable the events (or release the command, whose
 * exec enables them). 0, -EINTR, or -ECHILD (the command's exec failed,
 * err saying why). */
int collect__start(struct collect *c, char *err, size_t len);
/* Wait up to timeout_ms for a signal (SIGCHLD, SIGINT, SIGTERM): sets
 * c->stop, c->child_exited, c->stop_signal. For loops that have no rings. */
void collect__wait(struct collect *c, int timeout_ms);
/* Run until the command exits, -d expires, the targets are gone, or
 * SIGINT/SIGTERM. 0, or a negative errno as collect__start's (or
 * eventfd's, for the drain thread). */
int collect__run(struct collect *c, char *err, size_t len);
/* -EINTR once a stop signal came (sigguard__first() says which), else 0. */
int collect__stopped(void);
/* Our output is a pipe or socket (else nothing is done): when its reader
 * goes away (POLLERR/POLLHUP), collecting stops as if our next write had
 * failed with EPIPE, even when nothing is being written. */
void collect__watch_output(struct collect *c, int fd);
/* A write of our output failed with err: collecting stops. With EPIPE (the
 * reader went away) the command, if one runs, is left to run on untraced
 * (collect__cleanup neither kills nor waits for it), as it would if it had
 * been started without pprobe in front of the closed pipe. */
void collect__output_error(struct collect *c, int err);
/* The exit status for pprobe: the command's own status where one ran. */
int collect__exit_status(const struct collect *c);
/* Close everything; kills and reaps a child that is still running, unless
 * our output's reader went away (out_err EPIPE): then it is let go. */
void collect__cleanup(struct collect *c);

/* Sampled at a rate (a frequency, or a period above 1: cpu-clock, cycles),
 * not on every occurrence (tracepoints, probes): such an event never comes
 * in a burst. */
static inline bool collect__rated(const struct perf_event_attr *a)
{
	return a->freq || a->sample_period > 1;
}

/* Rings that hold a burst of 10,000 per-occurrence samples with DWARF
 * stack copies (UNWIND_DEFAULT_STACK_COPY) however late the reader comes:
 * 128 MB a CPU. */
#define COLLECT_BURST_RING_PAGES 32768

/* The ring for events sampled at hz (the highest; UINT64_MAX: a period,
 * the rate unknown) whose samples each reserve copy bytes of stack: half a
 * second of them, a power of two of pages from 1024 to 8192 (4 to 32 MB);
 * 8192 for a period. */
unsigned collect__rated_ring_pages(uint64_t hz, size_t copy, size_t psz);

/* pages, halved until the rings of every CPU together take at most 512 MB
 * (they are per CPU and locked), but not below floor. */
unsigned collect__ring_pages_capped(unsigned pages, unsigned floor);

/* How a command's events take their stacks: one configuration for record,
 * trace and those after them. */
enum stack_kind {
	STACKS_NONE,
	STACKS_KERNEL,		/* the kernel's callchain, kernel frames only (trace -s) */
	STACKS_FP,		/* the kernel's callchain, user frames by frame pointers */
	STACKS_DWARF,		/* kernel frames from the callchain, user frames unwound
				 * here from the registers and a copy of the stack */
};

struct stack_opts {
	enum stack_kind kind;
	uint32_t max_frames;	/* frames a stack (sample_max_stack at most 127) */
	uint32_t stack_size;	/* DWARF: bytes of user stack a sample; 0: 8 KB for
				 * events that fire on every occurrence, all the kernel
				 * gives (64 KB) for events sampled at a rate */
};

/* so applied to co for the events of el (added before): sample type,
 * callchain depth, user registers and stack copy sizes, and, where -m was
 * not given (co->ring_pages 0), rings that take the bursts of el's events
 * (DWARF: 128 MB a CPU where an event fires on every occurrence, else
 * half a second of samples, 4 to 32 MB; all CPUs' rings at most 512 MB
 * together; frame pointers 4 MB; no
 * stacks 4 MB with per-occurrence events, else 1 MB). */
void collect_opts__set_stacks(struct collect_opts *co, const struct evlist *el, const struct stack_opts *so);

/* sample_max_stack for at most FRAMES frames a stack, as perf sets it:
 * the kernel stops at that many addresses, kernel and user together; its
 * context markers (PERF_CONTEXT_KERNEL, _USER) are not counted (since 4.8,
 * perf_callchain_store_context). At most 127, the default of
 * kernel.perf_event_max_stack (more is EOVERFLOW). */
static inline uint16_t collect__kernel_max_stack(uint32_t frames)
{
	return (uint16_t)(frames < 127 ? frames : 127);
}

#endif
