/* Opening the events of a session: per CPU (x per thread for -p/-t), one
 * mmap ring per CPU with every other fd of that CPU redirected into it
 * (PERF_EVENT_IOC_SET_OUTPUT), and a map from sample id to event. */
#ifndef PPROBE_EVLIST_H
#define PPROBE_EVLIST_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "ring.h"
#include "util.h"

struct event_spec;

struct evsel {
	const struct event_spec *spec;	/* what the user asked for; NULL for the sideband dummy */
	char *name;			/* as the user named it: "cpu-clock", "sched:sched_switch" */
	struct perf_event_attr attr;
	bool tracking;			/* the sideband-only dummy event */
	int idx;
	void *priv;			/* the command's per-event state */
	int group_leader;		/* index of its {group}'s leader in the evlist, -1 if none */
	bool weak_group;		/* perf's :W: when opening it in its group fails, it is
					 * opened on its own (enabled and disabled with the leader) */
	int open_errno;			/* with evlist.tolerant: why it could not be opened, 0 if it was */
	bool user_only;			/* refused with kernel space (paranoid 2, no CAP_PERFMON):
					 * opened for user space only, as perf falls back */
	uint64_t samples;
	uint64_t lost;			/* records the kernel lost, PERF_RECORD_LOST under this id */
	uint64_t lost_queue_full;	/* of lost: while pprobe's queue was full */
	uint64_t own_left;		/* -a: its samples of pprobe itself, left out on the
					 * drain thread (atomic) */
	uint64_t counted;		/* events the kernel counted (sample_period events;
					 * 0 if unknown): each one was a sample */
};

struct evlist {
	struct evsel **evsels;
	int nr_evsels;
	int *cpus;			/* CPU numbers; a single -1 for per-thread (any CPU) */
	int nr_cpus;
	pid_t *tids;			/* a single -1 for system-wide */
	int nr_tids;
	int *fds;			/* [(cpu * nr_tids + tid) * nr_evsels + ev] */
	struct ring *rings;		/* one per CPU index, then (side_pages) the
					 * sideband's, one per CPU index: nr_rings */
	int nr_rings;
	size_t ring_pages;		/* 0: no rings (counting) */
	size_t side_pages;		/* the tracking event's ring of its own, per CPU
					 * (0: it shares the samples' ring) */
	bool tolerant;			/* an event that cannot be opened is skipped (open_errno), not fatal */
	struct u64map ids;		/* sample id -> evsel */
	/* On open failure: which event/cpu/tid failed and why. */
	struct evsel *failed_evsel;
	int failed_cpu;
	pid_t failed_tid;
	int failed_errno;
	bool failed_mmap;		/* the failure was mapping a ring (locked memory), not opening */
};

void evlist__init(struct evlist *el);
struct evsel *evlist__add(struct evlist *el, const char *name, const struct perf_event_attr *attr);
/* Targets: cpus (ownership taken) and tids (ownership taken). */
void evlist__set_targets(struct evlist *el, int *cpus, int nr_cpus, pid_t *tids, int nr_tids);

/* Open all fds and mmap the rings. A tid that vanished while we opened
 * (ESRCH) is skipped unless it was the only one. Returns 0, or -errno with
 * failed_* set. */
int evlist__open(struct evlist *el);
int evlist__enable(struct evlist *el);
int evlist__disable(struct evlist *el);
struct evsel *evlist__evsel_by_id(const struct evlist *el, uint64_t id);
/* The fd of event e on CPU index c, thread index t (-1 if none). */
int evlist__fd_of(const struct evlist *el, int c, int t, int e);
/* Close fds and unmap rings; the evsels stay. */
void evlist__close(struct evlist *el);
void evlist__exit(struct evlist *el);

int sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
			unsigned long flags);

#endif
