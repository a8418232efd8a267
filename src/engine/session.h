/* Sideband state: processes, threads and their mappings, kept current from
 * COMM/MMAP2/FORK/EXIT records and seeded from /proc for processes that
 * existed before recording started. */
#ifndef PPROBE_SESSION_H
#define PPROBE_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "pprobe/maps.h"
#include "util.h"

struct process {
	pid_t pid;
	struct maps *maps;
	bool exited;
	uint64_t exit_gen;		/* session's gen when it exited */
};

struct thread {
	pid_t tid, pid;
	char comm[16];
	bool exited;
	uint64_t exit_gen;
};

struct session {
	struct u64map threads;		/* tid -> struct thread */
	struct u64map processes;	/* pid -> struct process */
	uint64_t gen;			/* session__reap calls so far */
};

void session__init(struct session *s);
void session__exit(struct session *s);

/* Look up, creating from /proc when unknown (NULL if the process is gone and
 * was never seen). */
struct thread *session__thread(struct session *s, pid_t pid, pid_t tid);
struct process *session__process(struct session *s, pid_t pid);

/* Seed from /proc: one process (all its threads), or every process. */
int session__synthesize_pid(struct session *s, pid_t pid);
int session__synthesize_all(struct session *s);

/* Sideband records. */
void session__comm(struct session *s, pid_t pid, pid_t tid, const char *comm, bool exec);
void session__mmap(struct session *s, pid_t pid, const struct map *m);
void session__fork(struct session *s, pid_t pid, pid_t ppid, pid_t tid, pid_t ptid);
void session__task_exit(struct session *s, pid_t pid, pid_t tid);

/* Forget the threads and processes that exited before the previous call
 * (so that a sample queued behind an exit still finds its process); gone,
 * if given, hears of each process forgotten. Called now and then, it keeps
 * a long run's memory to the processes alive, not all that ever ran. */
void session__reap(struct session *s, void (*gone)(void *ctx, pid_t pid), void *ctx);

#endif
