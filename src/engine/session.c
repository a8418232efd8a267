#define _GNU_SOURCE
#include "session.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void session__init(struct session *s)
{
	memset(s, 0, sizeof(*s));
	u64map__init(&s->threads);
	u64map__init(&s->processes);
}

void session__exit(struct session *s)
{
	for (size_t i = 0; i < s->threads.cap; i++)
		if (s->threads.used[i])
			free(s->threads.vals[i]);
	for (size_t i = 0; i < s->processes.cap; i++)
		if (s->processes.used[i]) {
			struct process *p = s->processes.vals[i];
			maps__delete(p->maps);
			free(p);
		}
	u64map__free(&s->threads);
	u64map__free(&s->processes);
}

static void read_comm(pid_t pid, pid_t tid, char comm[16])
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", pid, tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, comm, 15) : -1;
	if (fd >= 0)
		close(fd);
	if (n <= 0) {
		snprintf(comm, 16, ":%d", tid);
		return;
	}
	comm[n] = 0;
	char *nl = strchr(comm, '\n');
	if (nl)
		*nl = 0;
}

static struct process *process__new(struct session *s, pid_t pid)
{
	struct process *p = pp_xcalloc(1, sizeof(*p));
	p->pid = pid;
	p->maps = maps__new();
	if (!p->maps)
		pp_oom(0);
	u64map__put(&s->processes, (uint64_t)pid, p);
	return p;
}

static struct thread *thread__new(struct session *s, pid_t pid, pid_t tid)
{
	struct thread *t = pp_xcalloc(1, sizeof(*t));
	t->tid = tid;
	t->pid = pid;
	u64map__put(&s->threads, (uint64_t)tid, t);
	return t;
}

struct process *session__process(struct session *s, pid_t pid)
{
	struct process *p = u64map__get(&s->processes, (uint64_t)pid);
	if (p)
		return p;
	p = process__new(s, pid);
	/* First sight of a process that existed before us: its maps from
	 * /proc. If it is already gone we keep an empty table. */
	if (pid > 0)
		maps__load_proc(p->maps, pid);
	return p;
}

struct thread *session__thread(struct session *s, pid_t pid, pid_t tid)
{
	struct thread *t = u64map__get(&s->threads, (uint64_t)tid);
	if (t) {
		if (pid > 0 && t->pid != pid)	/* tid reused */
			t->pid = pid;
		return t;
	}
	t = thread__new(s, pid, tid);
	if (tid == 0)
		strcpy(t->comm, "swapper");
	else
		read_comm(pid, tid, t->comm);
	return t;
}

int session__synthesize_pid(struct session *s, pid_t pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	DIR *d = opendir(path);
	if (!d)
		return -errno;
	struct process *p = u64map__get(&s->processes, (uint64_t)pid);
	if (!p) {
		p = process__new(s, pid);
		maps__load_proc(p->maps, pid);
	}
	struct dirent *de;
	while ((de = readdir(d))) {
		pid_t tid = (pid_t)atoi(de->d_name);
		if (tid > 0 && !u64map__get(&s->threads, (uint64_t)tid)) {
			struct thread *t = thread__new(s, pid, tid);
			read_comm(pid, tid, t->comm);
		}
	}
	closedir(d);
	return 0;
}

int session__synthesize_all(struct session *s)
{
	DIR *d = opendir("/proc");
	if (!d)
		return -errno;
	struct dirent *de;
	while ((de = readdir(d))) {
		pid_t pid = (pid_t)atoi(de->d_name);
		if (pid > 0)
			session__synthesize_pid(s, pid);	/* a process may vanish meanwhile */
	}
	closedir(d);
	return 0;
}

void session__comm(struct session *s, pid_t pid, pid_t tid, const char *comm, bool exec)
{
	struct thread *t = u64map__get(&s->threads, (uint64_t)tid);
	if (!t)
		t = thread__new(s, pid, tid);
	t->pid = pid;
	t->exited = false;
	snprintf(t->comm, sizeof(t->comm), "%s", comm);
	if (exec) {
		/* A new image: the old mappings are gone; MMAP2 records of the
		 * new ones follow. */
		struct process *p = u64map__get(&s->processes, (uint64_t)pid);
		if (!p)
			p = process__new(s, pid);
		maps__clear(p->maps);
		p->exited = false;
	}
}

void session__mmap(struct session *s, pid_t pid, const struct map *m)
{
	struct process *p = u64map__get(&s->processes, (uint64_t)pid);
	if (!p)
		p = session__process(s, pid);
	maps__insert(p->maps, m);
}

void session__fork(struct session *s, pid_t pid, pid_t ppid, pid_t tid, pid_t ptid)
{
	struct thread *parent = session__thread(s, ppid, ptid);
	struct thread *t = u64map__get(&s->threads, (uint64_t)tid);
	if (!t)
		t = thread__new(s, pid, tid);
	t->pid = pid;
	t->exited = false;
	memcpy(t->comm, parent->comm, sizeof(t->comm));
	if (pid != ppid) {
		/* A new process: a copy of the parent's address space. */
		struct process *pp = session__process(s, ppid);
		struct process *p = u64map__get(&s->processes, (uint64_t)pid);
		if (p) {
			maps__delete(p->maps);
		} else {
			p = pp_xcalloc(1, sizeof(*p));
			p->pid = pid;
			u64map__put(&s->processes, (uint64_t)pid, p);
		}
		p->maps = maps__clone(pp->maps);
		if (!p->maps)
			pp_oom(0);
		p->exited = false;
	}
}

void session__task_exit(struct session *s, pid_t pid, pid_t tid)
{
	struct thread *t = u64map__get(&s->threads, (uint64_t)tid);
	if (t) {
		t->exited = true;
		t->exit_gen = s->gen;
	}
	if (pid == tid) {
		struct process *p = u64map__get(&s->processes, (uint64_t)pid);
		if (p) {
			p->exited = true;
			p->exit_gen = s->gen;
		}
	}
}

void session__reap(struct session *s, void (*gone)(void *ctx, pid_t pid), void *ctx)
{
	/* Deleting from an open-addressing map moves entries: collect the
	 * keys first. */
	size_t nr = 0, cap = s->threads.nr + s->processes.nr;
	uint64_t *keys = cap ? pp_xcalloc(cap, sizeof(*keys)) : NULL;
	for (size_t i = 0; i < s->threads.cap; i++) {
		const struct thread *t = s->threads.vals[i];
		if (s->threads.used[i] && t->exited && t->exit_gen < s->gen)
			keys[nr++] = s->threads.keys[i];
	}
	for (size_t k = 0; k < nr; k++)
		free(u64map__del(&s->threads, keys[k]));
	nr = 0;
	for (size_t i = 0; i < s->processes.cap; i++) {
		const struct process *p = s->processes.vals[i];
		if (s->processes.used[i] && p->exited && p->exit_gen < s->gen)
			keys[nr++] = s->processes.keys[i];
	}
	for (size_t k = 0; k < nr; k++) {
		struct process *p = u64map__del(&s->processes, keys[k]);
		if (gone)
			gone(ctx, p->pid);
		maps__delete(p->maps);
		free(p);
	}
	free(keys);
	s->gen++;
}
