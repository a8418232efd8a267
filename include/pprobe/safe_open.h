/* Opening files that a traced program controls: its JIT map
 * (/tmp/perf-PID.map), its binaries and debug files through /proc/PID/root
 * and /proc/PID/map_files, compressed debug sections. pprobe usually runs as
 * root; such a file may be a FIFO (an open or a read that never returns), a
 * link, another user's file, or claim gigabytes. Part of the symbolize
 * library (the lowest room that reads them); every room above uses it.
 *
 * Refusals are kept in one process-wide list (deduplicated by path, thread
 * safe) so that a command says each once in its summary: a refused file is
 * never dropped silently. */
#ifndef PPROBE_SAFE_OPEN_H
#define PPROBE_SAFE_OPEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <gelf.h>

struct safe_open_rules {
	bool nofollow;		/* O_NOFOLLOW: the last name is ours to choose (perf-PID.map) */
	int nr_owners;		/* 0: any owner; else the owner must be one of owners[] */
	uid_t owners[4];
	uint64_t max_size;	/* 0: no cap on st_size */
	int root_fd;		/* >= 0: path is relative to this directory and resolved
				 * inside it (openat2 RESOLVE_IN_ROOT: a container's root) */
	const char *name;	/* how a refusal names the file; NULL: path */
};

/* Open path read-only, O_NONBLOCK (a FIFO cannot block the open; the flag is
 * cleared again for a regular file), O_CLOEXEC, then fstat: a regular file of
 * an allowed owner and size only. Returns the fd (st filled when not NULL);
 * -errno of the open for a file that is not there or not readable (nothing
 * noted); -EPERM for a refusal, which is noted (safe_open__refusals) with
 * its reason. */
int safe_open(const char *path, const struct safe_open_rules *rules, struct stat *st);
/* The same with the default rules: any owner, no size cap, links followed
 * (the path names the file the target chose: /proc/PID/root/usr/bin/x). */
int safe_open_file(const char *path);

/* Note a refusal of path (why: a short phrase, "not a regular file"). The
 * first reason given for a path is kept. */
void safe_open__note(const char *path, const char *why);
/* The refusals noted so far, in order: calls fn for each; returns how many
 * (those beyond the list's cap are counted, not kept: nr_dropped). */
size_t safe_open__refusals(void (*fn)(void *arg, const char *path, const char *why), void *arg,
			   size_t *nr_dropped);
/* Each refusal as "PROG: ignored PATH: why" on stderr, and how many more
 * there were: the summary's words (record, trace, stat). */
void safe_open__say(const char *prog);
/* Forget the list (tests). */
void safe_open__reset(void);

/* Compressed sections (SHF_COMPRESSED's Elf*_Chdr, or .zdebug's "ZLIB" header)
 * whose claimed size is past what the file could hold: more than
 * max(1 GiB, 16 x file_size) each (DWARF compresses well under 16x; a
 * claim beyond is a lie that would make libelf allocate it). Returns true
 * when every section is within it; otherwise fills why ("section .debug_info
 * claims 1099511627776 bytes") and returns false. */
bool elf_file__compressed_sane(Elf *elf, uint64_t file_size, char *why, size_t len);
/* The cap elf_file__compressed_sane applies for a file of file_size bytes. */
uint64_t elf_file__decompressed_cap(uint64_t file_size);

#endif
