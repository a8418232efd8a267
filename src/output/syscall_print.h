/* pprobe trace --syscalls' writer: one line per call as perf trace prints
 * it, and the summary (perf trace -s).
 *
 *   TIME ( DUR ms): comm/tid name(arg: value, ...)              = RET
 *
 * TIME is milliseconds since the first event, DUR the call's duration;
 * "= -1 ENOENT (No such file or directory)" for a failed call; "= ?" for a
 * call that never returns (exit, exit_group) with an empty duration; an
 * exit whose enter came before tracing began as perf prints it ("? (   ):
 * comm/tid  ... [continued]: execve()) = 0"); a call still in progress when
 * tracing ended "= ? <unfinished ...>" (strace's words). Every argument is
 * printed, by its name in the sys_enter format, with symbolic values where
 * the meaning is known (O_RDONLY|O_CLOEXEC, AT_FDCWD, SIGTERM, PEEKDATA,
 * PROT_READ, MAP_PRIVATE, R_OK), pointers in hex, and strings only where the
 * tracepoint itself copied them (from 6.19, "__ARG_val" fields): user memory
 * is never read afterwards. */
#ifndef PPROBE_SYSCALL_PRINT_H
#define PPROBE_SYSCALL_PRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "syscalls.h"

struct syscall_print {
	FILE *out;
	uint64_t t0;			/* ns: TIME 0 (the first event's time) */
	bool failure_only;		/* --failure: only calls that failed */
};

/* One ended call (see syscalls.h), as a line on sp->out. */
void syscall_print__call(const struct syscall_print *sp, const struct syscall_call *call);

/* Argument i of d with value v (raw: the enter record for strings, may be
 * NULL), "PEEKDATA", "O_RDONLY|O_CLOEXEC", "0x7ffd1234", "42". Returns what
 * snprintf returns. */
int syscall_print__arg(const struct syscall_desc *d, int i, uint64_t v, const void *raw, size_t raw_size,
		       char *buf, size_t len);
/* The return value: "3", "0x7f0000000000" (mmap, brk), "-1 ENOENT (No such
 * file or directory)". */
int syscall_print__ret(const struct syscall_desc *d, int64_t ret, char *buf, size_t len);
/* "ENOENT" for 2, "ERESTARTSYS" for 512 (the kernel's own), NULL unknown. */
const char *syscall_print__errno_name(int err);

/* The summary, per thread, as perf trace -s prints it. */
void syscall_print__summary(FILE *out, const struct syscall_thread *threads, int nr, uint64_t total_events);

#endif
