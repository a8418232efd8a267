/* Internal to the symbolize library: the jitdump reader (jitdump.c). A
 * jitdump (/tmp/jit-PID.dump, tools/perf/util/jitdump.h in Linux) is what
 * JIT runtimes write for perf inject --jit: CPython 3.13's -X perf_jit,
 * Java's jvmti agent, node --perf-prof. A header, then records; a code load
 * names the code at [code_addr, code_addr + code_size). The file is the
 * traced program's: every size in it is checked against what was read. */
#ifndef PPROBE_JITDUMP_H
#define PPROBE_JITDUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Caps on one dump: a runtime that runs for days appends forever. Records
 * past the cap are left out and said (jitdump_stats.capped); names longer
 * than JITDUMP_MAX_NAME are cut there. */
#define JITDUMP_MAX_RECORDS 1000000
#define JITDUMP_MAX_NAME 4096

/* One named range: a code load (name NUL-terminated, valid during the
 * callback only), or a move of an earlier load's code (moved: true, old_addr
 * where it was, name NULL: the load at old_addr names it). */
struct jitdump_code {
	uint64_t addr, size;
	uint64_t old_addr;
	uint64_t index;		/* the runtime's code_index */
	const char *name;
	size_t namelen;
	bool moved;
};

struct jitdump_stats {
	uint64_t records;	/* records read (all kinds) */
	uint64_t loads, moves;
	uint64_t bad;		/* records skipped as malformed (a size that does not fit) */
	bool capped;		/* stopped at JITDUMP_MAX_RECORDS */
	bool partial;		/* the last record was cut short (a live writer) */
	bool closed;		/* a JIT_CODE_CLOSE record ended it */
};

/* Return nonzero to stop the read (jitdump__read returns it). */
typedef int jitdump_fn(void *arg, const struct jitdump_code *c);

/* Reads the jitdump of fd (from its start; fd is not closed) and calls fn
 * for each code load and move, in file order. Returns 0 at the end, fn's
 * nonzero return, -EINVAL for a file that is not a jitdump (magic, version,
 * header size; why says which), -ENOMEM, or -errno of a read. stats may be
 * NULL. */
int jitdump__read(int fd, jitdump_fn *fn, void *arg, struct jitdump_stats *stats, char *why, size_t whylen);

/* Does the file name (a path's last component) look like a jitdump,
 * "jit-*.dump"? */
bool jitdump__is_name(const char *path);

#endif
