/* The ELF files behind processes' mappings, opened once: one cache that a
 * symbolizer and an unwinder share. Part of the symbolize library.
 *
 * One search order: the file a mapping names is opened as the process sees
 * it (/proc/PID/root/PATH, then /proc/PID/map_files/START-END, then PATH),
 * and taken only when it is the mapped file. One identity rule: an entry is
 * the mapped path with the file's build id when the mapping carries one,
 * else its device and inode (a container's /usr/lib/.../libc.so.6 and the
 * host's are two entries). Each entry holds, made on first need from the
 * one open file, what the symbolizer reads (symbols, DWARF) and what the
 * unwinder reads (the mapped image, CFI); the vdso is copied once. One sweep
 * closes what no one used since the previous one.
 *
 * Without a shared cache, symbolizer__new() and unwinder__new() each make
 * their own. Not thread-safe: the symbolizer and unwinder that share one
 * run in one thread. */
#ifndef PPROBE_OBJCACHE_H
#define PPROBE_OBJCACHE_H

#include <stddef.h>
#include <sys/types.h>

#include "pprobe/maps.h"

struct objcache;

/* An empty cache, one reference held by the caller; NULL + errno. */
struct objcache *objcache__new(void);
/* Drops the caller's reference (a symbolizer or unwinder made on the cache
 * holds its own); the last one closes everything. Accepts NULL. */
void objcache__put(struct objcache *c);

/* Bounding a long run (record --push): objcache__keep marks the file of a
 * mapping still in use (it opens nothing); objcache__sweep closes the files
 * neither kept, nor used since the previous sweep, nor mapped by a process
 * an unwinder of the cache still knows, and returns how many. Strings of
 * frames a symbolizer returned from a closed file are gone with it. */
void objcache__keep(struct objcache *c, pid_t pid, const struct map *m);
size_t objcache__sweep(struct objcache *c);

#endif
