/* The sideband state's lifetime: FORK/COMM/EXIT as the records give them,
 * and session__reap, which forgets what exited one reap period ago (so a
 * long -a run keeps the live processes only) but nothing still running,
 * nothing that exited since the last reap, and nothing a pid reuse revived.
 * The records themselves come from the kernel in tests/e2e (record_push,
 * record_targets); pids here are made up, above any real one, so that no
 * /proc lookup finds them. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "check.h"
#include "session.h"

#define P 4000001	/* a parent */
#define C 4000002	/* its child */
#define T 4000003	/* a thread of the child */

static int gone[8], nr_gone;

static void on_gone(void *ctx, pid_t pid)
{
	(void)ctx;
	if (nr_gone < 8)
		gone[nr_gone++] = pid;
}

static struct map text(uint64_t start, const char *path)
{
	return (struct map){ .start = start, .end = start + 0x1000, .prot = PROT_READ | PROT_EXEC, .path = (char *)path };
}

int main(void)
{
	struct session s;
	session__init(&s);

	session__comm(&s, P, P, "parent", true);
	struct map m = text(0x400000, "/usr/bin/parent");
	session__mmap(&s, P, &m);
	session__fork(&s, C, P, C, P);		/* a process */
	session__fork(&s, C, C, T, C);		/* its thread */
	CHECK(s.processes.nr == 2 && s.threads.nr == 3, "2 processes, 3 threads: %zu %zu", s.processes.nr,
	      s.threads.nr);
	struct process *c = session__process(&s, C);
	CHECK(maps__count(c->maps) == 1 && maps__find(c->maps, 0x400010), "the child has the parent's mapping");
	CHECK_STREQ(session__thread(&s, C, T)->comm, "parent");

	session__reap(&s, on_gone, NULL);
	CHECK(nr_gone == 0 && s.processes.nr == 2 && s.threads.nr == 3, "nothing exited: nothing reaped");

	/* the thread, then the child exit */
	session__task_exit(&s, C, T);
	session__task_exit(&s, C, C);
	session__reap(&s, on_gone, NULL);
	CHECK(nr_gone == 0 && s.processes.nr == 2 && s.threads.nr == 3,
	      "exited since the last reap: kept one period more (%d gone, %zu threads)", nr_gone, s.threads.nr);
	session__reap(&s, on_gone, NULL);
	CHECK(nr_gone == 1 && gone[0] == C, "then the child is forgotten (%d gone)", nr_gone);
	CHECK(s.processes.nr == 1 && s.threads.nr == 1, "the parent alone is left: %zu processes %zu threads",
	      s.processes.nr, s.threads.nr);
	CHECK(u64map__get(&s.processes, P) && u64map__get(&s.threads, P), "the parent is still known");

	/* pid reuse between an exit and the reap: the new process stays */
	session__fork(&s, C, P, C, P);
	session__task_exit(&s, C, C);
	session__fork(&s, C, P, C, P);		/* reused before the next reap */
	session__reap(&s, on_gone, NULL);
	session__reap(&s, on_gone, NULL);
	CHECK(nr_gone == 1 && s.processes.nr == 2 && s.threads.nr == 2, "a reused pid is not reaped: %zu %zu",
	      s.processes.nr, s.threads.nr);
	/* an exec renames and keeps the process */
	session__comm(&s, C, C, "child", true);
	CHECK(maps__count(session__process(&s, C)->maps) == 0, "exec: the old mappings are gone");
	CHECK_STREQ(session__thread(&s, C, C)->comm, "child");

	/* without a callback, and everything exited */
	session__task_exit(&s, C, C);
	session__task_exit(&s, P, P);
	session__reap(&s, NULL, NULL);
	session__reap(&s, NULL, NULL);
	CHECK(s.processes.nr == 0 && s.threads.nr == 0 && nr_gone == 1, "all reaped: %zu %zu", s.processes.nr,
	      s.threads.nr);
	session__exit(&s);
	return check_summary();
}
