/* Syscall tracing (pprobe trace --syscalls), the kernel side: the
 * architecture's syscall numbers and names, which syscalls have tracepoints
 * (tracefs events/syscalls/sys_enter_NAME), each syscall's argument names
 * and types from its sys_enter format, the pairing of a thread's enter with
 * its exit, and the per-thread summary (calls, errors, times), as perf trace
 * keeps them.
 *
 * Enter and exit records come from either the per-syscall tracepoints
 * (syscalls:sys_enter_NAME/sys_exit_NAME, for chosen syscalls) or the two
 * raw_syscalls:sys_enter/sys_exit (all of them): the caller decodes the
 * record's number and arguments (syscalls__enter_args) and hands them here.
 * A call is passed on (syscall_call_fn) when it ends: its exit came, it
 * never returns (exit, exit_group: at its enter), an exit came without its
 * enter (the call began before tracing did: perf's "[continued]"; also a
 * new task's return from the fork or clone that made it, which the summary
 * counts once, in the parent, as strace -c does), or tracing ended first
 * (syscalls__flush). */
#ifndef PPROBE_SYSCALLS_H
#define PPROBE_SYSCALLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util.h"

struct tp_format;
struct tp_field;

#define SYSCALL_MAX_ARGS 6

/* The build architecture's name of syscall NR (NULL: unknown), and the
 * number of NAME (-ENOENT). */
const char *syscall__name(int nr);
int syscall__nr(const char *name);

/* The syscalls this kernel has tracepoints for (events/syscalls/
 * sys_enter_NAME), sorted: a malloc'ed array of malloc'ed names, freed with
 * syscalls__free_names(). Returns the count or -errno (the tracefs error). */
int syscalls__available(char ***names);
void syscalls__free_names(char **names, int nr);

/* -e LIST: comma-separated syscall names and globs ('open*'), matched
 * against avail. Appends the matches, each once, to *out (malloc'ed array
 * of borrowed pointers into avail, *nr_out elements). 0, or -ENOENT with
 * "no syscall matches 'xyz' (did you mean 'ptrace'?)" in err; a syscall the
 * architecture has but the kernel gives no tracepoint says so. */
int syscalls__select(const char *list, char **avail, int nr_avail, const char ***out, int *nr_out,
		     char *err, size_t errlen);

/* What is known of one syscall: its arguments from the sys_enter format. */
struct syscall_desc {
	int nr;
	const char *name;		/* "openat"; "syscall_NR" when the table has none */
	struct tp_format *fmt;		/* sys_enter_NAME's format; NULL: none (no tracepoint) */
	int nargs;
	const struct tp_field *args[SYSCALL_MAX_ARGS];	/* in fmt, in order */
	/* What the tracepoint itself copied from user memory for argument
	 * i (6.19 and later: "__data_loc char[] __filename_val" for
	 * filename, a string, or the bytes of a buffer), or NULL. */
	const struct tp_field *strs[SYSCALL_MAX_ARGS];
};

/* Fill d's arguments from FMT, a sys_enter_NAME format (d owns it; NULL:
 * none). */
void syscall_desc__set_format(struct syscall_desc *d, struct tp_format *fmt);

enum syscall_end {
	SYSCALL_RETURNED,		/* enter and exit seen */
	SYSCALL_NO_RETURN,		/* exit, exit_group: "= ?" */
	SYSCALL_CONTINUED,		/* exit without its enter (begun before tracing) */
	SYSCALL_UNFINISHED,		/* entered, tracing ended before it returned */
};

/* A call that ended, lent to syscall_call_fn for the call's duration. */
struct syscall_call {
	const struct syscall_desc *desc;
	pid_t pid, tid;
	const char *comm;
	enum syscall_end end;
	uint64_t t_enter, t_exit;	/* ns, sample clock; t_enter 0 when CONTINUED */
	int64_t ret;			/* RETURNED, CONTINUED */
	uint64_t args[SYSCALL_MAX_ARGS];	/* as stored in the record: 8 bytes each */
	const void *raw;		/* the enter record (per-syscall tracepoints: its
					 * string fields), or NULL */
	size_t raw_size;
};

typedef void (*syscall_call_fn)(void *arg, const struct syscall_call *call);

/* Per thread, per syscall: what --summary prints. */
struct syscall_stats {
	int nr;
	const char *name;
	uint64_t calls, errors;
	uint64_t timed;			/* calls with a duration (enter and exit seen) */
	double total_ms, min_ms, max_ms;
	double mean_ms, m2;		/* Welford: stddev of the durations */
};

struct syscall_thread {
	pid_t pid, tid;
	char comm[16];
	uint64_t events;		/* enter and exit records */
	struct syscall_stats *stats;	/* sorted by total time, most first */
	int nr_stats;
};

struct syscalls;

/* NULL + errno. Loads formats from tracefs as syscalls are first met. */
struct syscalls *syscalls__new(void);
void syscalls__delete(struct syscalls *sc);

/* The description of NR, its format loaded on first use (never NULL). */
const struct syscall_desc *syscalls__desc(struct syscalls *sc, int nr);

/* A sys_enter record's syscall number and arguments: fmt is the record's
 * format (raw_syscalls:sys_enter's "id" and "args[6]", or sys_enter_NAME's
 * "__syscall_nr" and argument fields). 0, or -ERANGE/-EINVAL for a record
 * that does not fit its format. */
int syscalls__enter_args(const struct tp_format *fmt, const void *raw, size_t size, int *nr,
			 uint64_t args[SYSCALL_MAX_ARGS]);
/* A sys_exit record's number and return value ("id"/"__syscall_nr", "ret"). */
int syscalls__exit_ret(const struct tp_format *fmt, const void *raw, size_t size, int *nr, int64_t *ret);

/* A thread entered NR at TIME (raw: the enter record, copied when kept). An
 * earlier call of tid still pending is ended as UNFINISHED first; exit and
 * exit_group end at once as NO_RETURN. */
void syscalls__enter(struct syscalls *sc, pid_t pid, pid_t tid, const char *comm, int nr, uint64_t time,
		     const uint64_t args[SYSCALL_MAX_ARGS], const void *raw, size_t raw_size,
		     syscall_call_fn fn, void *arg);
/* A thread returned from NR at TIME with RET. */
void syscalls__exit(struct syscalls *sc, pid_t pid, pid_t tid, const char *comm, int nr, uint64_t time,
		    int64_t ret, syscall_call_fn fn, void *arg);
/* Tracing ended: the calls still pending, in the order they were entered. */
void syscalls__flush(struct syscalls *sc, syscall_call_fn fn, void *arg);

/* The summary: threads sorted by events, most first. Valid until the next
 * call into sc. */
const struct syscall_thread *syscalls__summary(struct syscalls *sc, int *nr, uint64_t *total_events);

/* A failed call's return: -4095..-1 (the kernel's IS_ERR_VALUE). */
static inline bool syscall__failed(int64_t ret)
{
	return ret < 0 && ret >= -4095;
}

#endif
