/* A process's address space as a sorted, non-overlapping set of mappings.
 * Built from /proc/PID/maps at start and from MMAP2 records afterwards.
 * Part of the symbolize library: it knows nothing of perf_event. */
#ifndef PPROBE_MAPS_H
#define PPROBE_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define MAP_BUILD_ID_MAX 20

struct map {
	uint64_t start, end;	/* [start, end) */
	uint64_t pgoff;		/* file offset that start maps */
	uint32_t prot;		/* PROT_* */
	uint32_t flags;		/* MAP_* */
	uint32_t maj, min;
	uint64_t ino;
	uint8_t build_id[MAP_BUILD_ID_MAX];
	uint8_t build_id_size;	/* 0: not known */
	char *path;		/* owned: "/usr/lib/...", "[vdso]", "[heap]", "//anon" */
};

struct maps;

/* Constructors return an owned object or NULL with errno set. */
struct maps *maps__new(void);
struct maps *maps__clone(const struct maps *src);	/* for fork */
void maps__delete(struct maps *maps);			/* accepts NULL */

/* Copies m (and its path). Any existing mapping overlapping [m->start, m->end)
 * is trimmed or split, as mmap(MAP_FIXED) does. Returns 0 or -errno. */
int maps__insert(struct maps *maps, const struct map *m);
/* Removes [start, end) (munmap semantics). */
void maps__remove(struct maps *maps, uint64_t start, uint64_t end);
void maps__clear(struct maps *maps);			/* exec */

/* O(log n). NULL if addr is not mapped. Valid until the next modification. */
const struct map *maps__find(const struct maps *maps, uint64_t addr);
size_t maps__count(const struct maps *maps);
const struct map *maps__at(const struct maps *maps, size_t i);
/* Bumped by every modification: lets callers cache derived state. */
uint64_t maps__generation(const struct maps *maps);

/* Replace the contents with /proc/PID/maps. Returns 0 or -errno (-ESRCH for
 * a process that does not exist). */
int maps__load_proc(struct maps *maps, pid_t pid);
/* The same from f, read to its end in /proc/PID/maps' format (lines that
 * are not mappings are skipped): the parser behind maps__load_proc, for
 * the fuzzer. Returns 0 or -errno. */
int maps__load_file(struct maps *maps, FILE *f);

/* The mapping of pid that holds addr: its bounds and PROT_* bits, from
 * the kernel's PROCMAP_QUERY where it has it (6.11+: no text for every
 * mapping), else from /proc/PID/maps' text. 0, -ENOENT (none holds addr),
 * -ESRCH (no such process, or a zombie: its memory gone) or -errno. */
int maps__proc_vma(pid_t pid, uint64_t addr, uint64_t *start, uint64_t *end, uint32_t *prot);

/* True for file-backed mappings whose path names a file (not [vdso], //anon...). */
bool map__is_file(const struct map *m);

#endif
