/* Small shared pieces of the pprobe program: hash map, string interning,
 * CPU lists, atomic output files. */
#ifndef PPROBE_UTIL_H
#define PPROBE_UTIL_H

#include <time.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Out of memory in the program (not in a library) ends it with a message.
 * Prefixed: libiberty, linked for demangling, defines xmalloc and friends. */
void *pp_xmalloc(size_t n);
/* What they do then: "pprobe: out of memory" (allocating n bytes, when not
 * 0) on stderr, and exit(1). */
void pp_oom(size_t n) __attribute__((noreturn));
void *pp_xcalloc(size_t n, size_t size);
void *pp_xrealloc(void *p, size_t n);
/* Anonymous memory for a buffer reused all run (a queue's chunks): huge
 * pages where the system gives them on request, and with populate its
 * pages there before the first write (MADV_POPULATE_WRITE, 5.14+; where
 * refused they fault in on use). NULL when the system has none. */
void *pp_map_anon(size_t n, bool populate);
char *pp_xstrdup(const char *s);

/* 64-bit mixing hash (splitmix finaliser) and FNV-1a over bytes. */
uint64_t hash_u64(uint64_t x);
uint64_t hash_bytes(const void *p, size_t n, uint64_t seed);

/* Open-addressing map from a non-zero-agnostic u64 key to a pointer. */
struct u64map {
	uint64_t *keys;
	void **vals;
	unsigned char *used;
	size_t cap, nr;
};
void u64map__init(struct u64map *m);
void u64map__free(struct u64map *m);
void *u64map__get(const struct u64map *m, uint64_t key);
void u64map__put(struct u64map *m, uint64_t key, void *val);
void *u64map__del(struct u64map *m, uint64_t key);
/* Iterate: for (size_t i = 0; i < m->cap; i++) if (m->used[i]) ... */

/* String table: each distinct string gets a stable id (0, 1, ...). */
struct strtab {
	char **strs;
	size_t nr, alloc;
	uint32_t *slots;	/* id + 1, 0 = empty */
	size_t cap;
};
void strtab__init(struct strtab *t);
void strtab__free(struct strtab *t);
uint32_t strtab__intern(struct strtab *t, const char *s);
static inline const char *strtab__str(const struct strtab *t, uint32_t id) { return t->strs[id]; }

/* "0-3,5" -> sorted unique list. Returns count or -errno (-EINVAL on syntax). */
int cpulist__parse(const char *s, int **cpus);
/* Online CPUs from /sys/devices/system/cpu/online. */
int cpulist__online(int **cpus);

/* Write a file atomically: open a temporary beside path, then commit renames
 * it into place; abort removes it. The temporary has no name until commit
 * (O_TMPFILE in path's directory: a kill -9 leaves nothing) where the file
 * system allows; else it is PATH.tmp.XXXXXX, removed on every exit but
 * kill -9. path "-" writes stdout directly; a path naming a device, FIFO or
 * socket is written directly too (tmp NULL, !anon); through a symbolic
 * link, the file it names is replaced. */
struct outfile {
	FILE *f;
	char *path;
	char *tmp;
	bool anon;	/* the temporary is an O_TMPFILE: linked at commit */
	char *buf;	/* a regular file's stdio buffer (OUTFILE_BUF) */
};
int outfile__open(struct outfile *o, const char *path);
/* outfile__open, and on failure "PROG: cannot write PATH: why" on stderr. */
int outfile__open_or_say(struct outfile *o, const char *path, const char *prog);
/* Whether path can be written (0, or -errno), leaving nothing behind: a
 * device, FIFO or socket is not opened, only checked. */
int outfile__check(const char *path);
/* Written at once, not as it happens (record's outputs): a regular file
 * gets a large stdio buffer. Before the first write. */
void outfile__bulk(struct outfile *o);
int outfile__commit(struct outfile *o);	/* returns 0 or -errno; removes tmp on error */
void outfile__abort(struct outfile *o);
/* fd is a pipe or socket whose reader went away (a write would fail with
 * EPIPE); false for anything else, regular files included. */
bool fd__reader_gone(int fd);
/* Why writes to f failed (ferror): EPIPE when its reader went away, else
 * errno, else EIO. */
int stream__write_errno(FILE *f);

/* Format a message into a caller's error buffer (err may be NULL or len 0:
 * nothing is written). Returns 0 so "return seterr(...)" reads as success
 * with a note; callers that fail return their own -errno. */
int seterr(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* "Did you mean": optimal string alignment distance (a swap of two
 * neighbours costs 1), case-insensitive, capped: anything over cap returns
 * cap + 1. The one rule behind -e and -L/-V suggestions. */
/* Sort the nr malloc'd strings of v and free the repeats: returns how many
 * are left, in order, at the front of v. */
int strv__sort_unique(char **v, int nr);
int edit_distance(const char *a, const char *b, int cap);

double now_seconds(void);	/* CLOCK_MONOTONIC */
uint64_t now_ns(void);
uint64_t clock_ns(clockid_t id);	/* clock_gettime(id) in ns; 0 if it fails */

#endif
