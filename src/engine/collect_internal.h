/* Internal to the collect engine (collect.c and the files of its other
 * jobs): the kernel's sideband record layouts, and what each file offers
 * the others. Not for the rest of pprobe, which sees collect.h.
 *
 *   collect.c     the main loop: prepare, start, run, wait, cleanup
 *   target.c      -p/-t/-C/-a: the threads and CPUs to open on
 *   sp_history.c  each thread's later user sps, for the unwinder
 *   workload.c    the command: forked, held, released; held exits
 *   attrs.c       each event's perf_event_attr, the tracking event, opening
 *   sideband.c    MMAP2, COMM, FORK/EXIT, ... into the session
 *   lost.c        what was lost: counted, and said
 */
#ifndef PPROBE_COLLECT_INTERNAL_H
#define PPROBE_COLLECT_INTERNAL_H

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>

#include "collect.h"

/* A stop signal ends the run, and what is queued is processed for this
 * long after it at most: past it, the samples left are counted and left
 * out (a burst queued over 40 s of unwinding had a SIGINT wait for it all). */
#define STOP_GRACE_NS 500000000ULL

/* ---- the kernel's records (perf_event.h describes them in comments),
 * each followed by its sample_id trailer (sample_id_all) ---- */

/* PERF_RECORD_MMAP2: a mapping, with its device and inode or, with
 * PERF_RECORD_MISC_MMAP_BUILD_ID in the header's misc (5.12), the build
 * id of its file. */
struct mmap2_record {
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
};

/* PERF_RECORD_COMM: a thread's new name (PERF_RECORD_MISC_COMM_EXEC: at
 * an exec). */
struct comm_record {
	struct perf_event_header h;
	uint32_t pid, tid;
	char comm[];
};

/* PERF_RECORD_FORK and PERF_RECORD_EXIT. */
struct task_record {
	struct perf_event_header h;
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

/* PERF_RECORD_LOST: records the ring had no room for, reported with the
 * next record written, under that record's event id. */
struct lost_record {
	struct perf_event_header h;
	uint64_t id, lost;
};

/* PERF_RECORD_LOST_SAMPLES: samples the kernel could not write. */
struct lost_samples_record {
	struct perf_event_header h;
	uint64_t lost;
};

/* ---- collect.c ---- */

/* A failure NEG (-errno) that the kernel or libc gave, as the engine returns
 * it: the errnos with a meaning of the engine's own (collect.h: EINVAL,
 * EINTR, ECHILD) become -EIO, err having the words. */
static inline int collect_failed(int neg)
{
	return neg >= 0 || neg == -EINVAL || neg == -EINTR || neg == -ECHILD ? -EIO : neg;
}

/* Read the rings and process every record older than limit. */
void collect_drain_until(struct collect *c, uint64_t limit);
/* A note for the user (c->on_note), formatted. */
void collect_note(struct collect *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- target.c ---- */

/* The CPUs to open on: -C's list, each checked to be online, or every
 * online CPU. 0, or a negative errno (collect.h) with err saying why. */
int collect_target_cpus(const struct collect_opts *opts, int **cpus_out, int *nr_out, char *err, size_t len);
/* The threads of the nr processes in pids, in *out (malloc'd): how many,
 * or -ESRCH with *missing the process that has none (/proc/PID/task). */
int collect_threads_of(const pid_t *pids, int nr, pid_t **out, pid_t *missing);
/* The threads to open on (see target.c). 0, or a negative errno (collect.h)
 * with err saying why. */
int collect_target_tasks(struct collect *c, const struct collect_opts *opts, pid_t **tids_out, int *nr_out,
			 bool *on_command, char *err, size_t len);
/* What exists already, into the session. */
void collect_synthesize_targets(struct collect *c, const pid_t *tids, int nr_tids);
/* Every -p/-t target has exited (false when there are none). */
bool collect_targets_gone(struct collect *c);

/* ---- sp_history.c ---- */

struct sp_history;
/* Thread TID's user sp was SP at TIME. */
void collect_sp_note(struct collect *c, pid_t tid, uint64_t time, uint64_t sp);
/* A sample just read from a ring: remember its thread's user sp. */
void collect_sp_note_sample(struct collect *c, const struct perf_event_header *hdr);
/* On the drain thread: where a sample's stack copy size is (drain.h). */
size_t collect_stack_field_of(void *arg, const struct perf_event_header *hdr);
/* Free one thread's history (c->sp_seen's values); NULL is fine. */
void sp_history__free(struct sp_history *h);

/* ---- workload.c ---- */

/* The signals the signalfd takes (SIGCHLD). */
sigset_t collect_sigs(void);
/* Fork the command (c->opts.argv), held before its exec when
 * hold_until_go. 0, or a negative errno with err saying why. */
int collect_start_child(struct collect *c, bool hold_until_go, char *err, size_t len);
/* Release the child; 0 once it has exec'd, or -ECHILD with err saying why
 * and c->exec_errno set. */
int collect_release_child(struct collect *c, char *err, size_t len);
/* Handle the status changes of the command and its tracees (workload.c). */
void collect_reap(struct collect *c, bool hold, bool block);
/* Let the held threads finish exiting; first (when drain) process every
 * record taken before now. */
void collect_release_held(struct collect *c, bool drain);
/* sigguard__on_exit_now's callback: asks the command to end. */
void collect_child_exit_now(void *arg);

/* ---- attrs.c ---- */

/* RLIMIT_NOFILE's soft limit raised to its hard one. */
void collect_raise_nofile_limit(void);
/* Set EV's attr for the run. 0, or a negative errno with err saying why. */
int collect_normalize_attr(struct collect *c, struct evsel *ev, bool on_command, char *err, size_t len);
/* A stack copy up to this size is completed from the live stack when the
 * walk reaches its end (per-occurrence events copy 4 KB); a larger one (a
 * rate-sampled event's 64 KB) rarely needs it and is not hurried. */
#define LIVE_STACK_COPY 16384
/* Do samples need unwinding while their thread's stack is live (a small
 * stack copy, completed from the live stack)? After normalize_attr. */
bool collect_live_stacks(const struct collect *c);
/* The rings' wakeup watermarks for the run's stack copies. */
void collect_set_wakeups(struct collect *c);
/* The sideband tracking event, first in c->evlist. */
void collect_add_tracking(struct collect *c);
/* Open c->evlist. 0, or a negative errno with err saying why. */
int collect_open_events(struct collect *c, char *err, size_t len);

/* ---- sideband.c ---- */

/* A record other than a sample, in timestamp order. Returns 0. */
int collect_sideband(struct collect *c, const struct perf_event_header *hdr);

/* ---- lost.c ---- */

/* A PERF_RECORD_LOST, counted at once under the event it names. */
void collect_note_lost(struct collect *c, const struct perf_event_header *hdr, unsigned flags);
/* At the end: the events' own counts, the samples lost without a
 * PERF_RECORD_LOST into c->lost_unreported. */
void collect_count_events(struct collect *c);

#endif
