#define _GNU_SOURCE
#include "evlist.h"
#include "event_spec.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
			unsigned long flags)
{
	return (int)syscall(__NR_perf_event_open, attr, pid, cpu, group_fd, flags);
}

void evlist__init(struct evlist *el)
{
	memset(el, 0, sizeof(*el));
	u64map__init(&el->ids);
	el->ring_pages = 256;
}

struct evsel *evlist__add(struct evlist *el, const char *name, const struct perf_event_attr *attr)
{
	struct evsel *ev = pp_xcalloc(1, sizeof(*ev));
	ev->name = pp_xstrdup(name);
	ev->attr = *attr;
	ev->attr.size = sizeof(ev->attr);
	ev->idx = el->nr_evsels;
	ev->group_leader = -1;
	el->evsels = pp_xrealloc(el->evsels, (size_t)(el->nr_evsels + 1) * sizeof(*el->evsels));
	el->evsels[el->nr_evsels++] = ev;
	return ev;
}

void evlist__set_targets(struct evlist *el, int *cpus, int nr_cpus, pid_t *tids, int nr_tids)
{
	free(el->cpus);
	free(el->tids);
	el->cpus = cpus;
	el->nr_cpus = nr_cpus;
	el->tids = tids;
	el->nr_tids = nr_tids;
}

static int *evlist__fd(struct evlist *el, int c, int t, int e)
{
	return &el->fds[((size_t)c * el->nr_tids + t) * el->nr_evsels + e];
}

static int evlist__fail(struct evlist *el, struct evsel *ev, int c, int t, int err)
{
	el->failed_evsel = ev;
	el->failed_cpu = el->cpus[c];
	el->failed_tid = el->tids[t];
	el->failed_errno = err;
	el->failed_mmap = false;
	return -err;
}

/* Refused with kernel space counted (perf_event_paranoid 2 without
 * CAP_PERFMON), an event that also happens in user space is opened for
 * user space only, as perf does. Not a tracepoint or kprobe: they fire in
 * the kernel, and with exclude_kernel the kernel drops every one. */
static bool may_drop_kernel(const struct evsel *ev)
{
	if (ev->attr.exclude_kernel || ev->attr.exclude_user)
		return false;
	return !ev->spec || (ev->spec->kind != EVENT_KIND_TRACEPOINT && ev->spec->kind != EVENT_KIND_PROBE);
}

static int open_user_only(struct evsel *ev, pid_t tid, int cpu, int group_fd)
{
	struct perf_event_attr a = ev->attr;
	int err = errno;

	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.exclude_callchain_kernel = 1;
	int fd = sys_perf_event_open(&a, tid, cpu, group_fd, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		errno = err;	/* the refusal of what was asked is the one to explain */
		return fd;
	}
	ev->attr = a;
	ev->user_only = true;
	return fd;
}

int evlist__open(struct evlist *el)
{
	size_t nfds = (size_t)el->nr_cpus * el->nr_tids * el->nr_evsels;
	int err = 0;

	el->fds = pp_xmalloc(nfds * sizeof(int));
	for (size_t i = 0; i < nfds; i++)
		el->fds[i] = -1;
	bool side = el->ring_pages && el->side_pages;
	el->nr_rings = el->nr_cpus * (side ? 2 : 1);
	el->rings = pp_xcalloc((size_t)el->nr_rings, sizeof(*el->rings));
	bool *tid_gone = pp_xcalloc((size_t)el->nr_tids, 1);
	int live_tids = el->nr_tids;

	for (int c = 0; c < el->nr_cpus; c++) {
		int ring_fd = -1, side_fd = -1;
		for (int t = 0; t < el->nr_tids; t++) {
			if (tid_gone[t])
				continue;
			for (int e = 0; e < el->nr_evsels; e++) {
				struct evsel *ev = el->evsels[e];
				if (ev->open_errno)
					continue;
				if (ev->group_leader >= 0 && ev->group_leader != e &&
				    el->evsels[ev->group_leader]->open_errno) {
					/* A member cannot be scheduled without its leader. */
					ev->open_errno = el->evsels[ev->group_leader]->open_errno;
					continue;
				}
				int group_fd = ev->group_leader >= 0 && ev->group_leader != e
					       ? *evlist__fd(el, c, t, ev->group_leader) : -1;
				int fd = sys_perf_event_open(&ev->attr, el->tids[t], el->cpus[c], group_fd,
							     PERF_FLAG_FD_CLOEXEC);
				if (fd < 0 && (errno == EACCES || errno == EPERM) && may_drop_kernel(ev))
					fd = open_user_only(ev, el->tids[t], el->cpus[c], group_fd);
				if (fd < 0 && group_fd >= 0 && ev->weak_group && errno != ESRCH && errno != EMFILE) {
					/* :W: the group cannot be had; this member counts on its own,
					 * started as its leader is (perf's weak group) */
					struct perf_event_attr alone = ev->attr;
					alone.disabled = el->evsels[ev->group_leader]->attr.disabled;
					alone.enable_on_exec = el->evsels[ev->group_leader]->attr.enable_on_exec;
					fd = sys_perf_event_open(&alone, el->tids[t], el->cpus[c], -1, PERF_FLAG_FD_CLOEXEC);
				}
				if (fd < 0 && errno == ESRCH && el->tids[t] > 0 && live_tids > 1) {
					/* A thread of -p exited while we opened: forget it. */
					tid_gone[t] = true;
					live_tids--;
					for (int k = 0; k < e; k++) {
						close(*evlist__fd(el, c, t, k));
						*evlist__fd(el, c, t, k) = -1;
					}
					break;
				}
				if (fd < 0 && el->tolerant && errno != EMFILE && errno != ESRCH) {
					/* This event cannot be counted here: forget all of its fds. */
					ev->open_errno = errno;
					for (int cc = 0; cc <= c; cc++)
						for (int tt = 0; tt < el->nr_tids; tt++) {
							int *f = evlist__fd(el, cc, tt, e);
							if (*f >= 0)
								close(*f);
							*f = -1;
						}
					continue;
				}
				if (fd < 0) {
					err = evlist__fail(el, ev, c, t, errno);
					goto out;
				}
				*evlist__fd(el, c, t, e) = fd;
				if (!el->ring_pages)
					continue;	/* counting: no rings */
				/* Sideband in a ring of its own where asked: a full
				 * samples' ring then never costs an mmap, comm or
				 * fork record (DESIGN.md). */
				bool to_side = side && ev->tracking;
				int *owner = to_side ? &side_fd : &ring_fd;
				struct ring *r = to_side ? &el->rings[el->nr_cpus + c] : &el->rings[c];
				if (*owner < 0) {
					err = ring__mmap(r, fd, el->cpus[c], to_side ? el->side_pages : el->ring_pages);
					if (err) {
						err = evlist__fail(el, ev, c, t, -err);
						el->failed_mmap = true;
						goto out;
					}
					r->sideband = to_side;
					*owner = fd;
				} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, *owner)) {
					err = evlist__fail(el, ev, c, t, errno);
					goto out;
				}
				uint64_t id;
				if (ioctl(fd, PERF_EVENT_IOC_ID, &id) == 0)
					u64map__put(&el->ids, id, ev);
			}
		}
	}
out:
	free(tid_gone);
	if (err)
		evlist__close(el);
	return err;
}

static int evlist__ioctl_all(struct evlist *el, unsigned long req)
{
	size_t nfds = (size_t)el->nr_cpus * el->nr_tids * el->nr_evsels;
	int err = 0;
	for (size_t i = 0; el->fds && i < nfds; i++)
		if (el->fds[i] >= 0 && ioctl(el->fds[i], req, 0) && !err)
			err = -errno;
	return err;
}

int evlist__enable(struct evlist *el)
{
	return evlist__ioctl_all(el, PERF_EVENT_IOC_ENABLE);
}

int evlist__disable(struct evlist *el)
{
	return evlist__ioctl_all(el, PERF_EVENT_IOC_DISABLE);
}

int evlist__fd_of(const struct evlist *el, int c, int t, int e)
{
	return el->fds ? el->fds[((size_t)c * el->nr_tids + t) * el->nr_evsels + e] : -1;
}

struct evsel *evlist__evsel_by_id(const struct evlist *el, uint64_t id)
{
	return u64map__get(&el->ids, id);
}

void evlist__close(struct evlist *el)
{
	if (el->rings) {
		for (int c = 0; c < el->nr_rings; c++)
			if (el->rings[c].meta)
				ring__unmap(&el->rings[c]);
		free(el->rings);
		el->rings = NULL;
	}
	if (el->fds) {
		size_t nfds = (size_t)el->nr_cpus * el->nr_tids * el->nr_evsels;
		for (size_t i = 0; i < nfds; i++)
			if (el->fds[i] >= 0)
				close(el->fds[i]);
		free(el->fds);
		el->fds = NULL;
	}
}

void evlist__exit(struct evlist *el)
{
	evlist__close(el);
	for (int e = 0; e < el->nr_evsels; e++) {
		free(el->evsels[e]->name);
		free(el->evsels[e]);
	}
	free(el->evsels);
	free(el->cpus);
	free(el->tids);
	u64map__free(&el->ids);
	memset(el, 0, sizeof(*el));
}
