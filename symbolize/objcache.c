/* pprobe/objcache.h: the one cache of mapped ELF files. An entry is opened
 * once (mapped_file__open: the one search order and identity check) and
 * holds the two views made from that one open file on first need: the
 * symbolizer's elf_object (symbols, DWARF; it keeps the descriptor, as
 * DWARF is read from it later) and the unwinder's ufile (the mapped image
 * libdw and libunwind read CFI from). The vdso is copied once, into a memfd
 * that both views read. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pprobe/objcache.h"
#include "sym_internal.h"
#include "unwind_internal.h"

#define NBUCKETS 1024
#define MAX_MARKERS 4

struct objcache_entry {
	struct objcache_entry *next;
	uint64_t hash;
	struct file_id id;	/* with path: the key */
	char *path;		/* the mapped path (without " (deleted)") */
	char *open_path;	/* the way it was opened (/proc/PID/root/..., map_files), or NULL */
	pid_t tried_pid;	/* the last process it was looked for through */
	int err;		/* the open's: 0, or -ESTALE (only other files), -ENOENT */
	int fd;			/* open file not yet handed to a view; -1 */
	uint64_t used_gen;	/* the cache's gen when last used or kept */
	bool have_obj, have_ufile;	/* the views were made (maybe failed ones) */
	struct elf_object *obj;
	struct ufile *ufile;
	/* The same file under another key (objcache__entry): its views are
	 * alias's, which stays while aliases of it do. */
	struct objcache_entry *alias;
	int alias_refs;
	dev_t dev;			/* the open file's, where err is 0 */
	ino_t ino;
	struct objcache_entry *inode_next;	/* in by_inode (not aliases) */
};

struct objcache {
	int refs;
	int sym_users;		/* symbolizers on the cache: they want each file's descriptor */
	uint64_t gen;		/* sweeps so far */
	size_t opens;		/* files looked for (mapped_file__open calls) */
	struct objcache_entry *buckets[NBUCKETS];
	struct objcache_entry *by_inode[NBUCKETS];	/* opened files by device and inode */
	struct {
		objcache_mark_fn *fn;
		void *arg;
	} markers[MAX_MARKERS];
	int nr_markers;
	/* our own vdso, copied once into a memfd (libdw opens it by name) */
	bool vdso_tried;
	int vdso_fd;
	void *vdso_image;
	size_t vdso_size;
	char vdso_path[32];
	bool vdso_obj_tried, vdso_ufile_tried;
	struct elf_object *vdso_obj;
	struct ufile *vdso_ufile;
};

struct objcache *objcache__new(void)
{
	struct objcache *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->refs = 1;
	c->vdso_fd = -1;
	return c;
}

struct objcache *objcache__get(struct objcache *c)
{
	c->refs++;
	return c;
}

static size_t inode_bucket(dev_t dev, ino_t ino)
{
	return (size_t)(((uint64_t)dev * 0x9e3779b97f4a7c15ULL) ^ (uint64_t)ino) % NBUCKETS;
}

static void entry_free(struct objcache *c, struct objcache_entry *e)
{
	if (e->alias) {
		e->alias->alias_refs--;
	} else if (e->dev || e->ino) {
		for (struct objcache_entry **pe = &c->by_inode[inode_bucket(e->dev, e->ino)]; *pe;
		     pe = &(*pe)->inode_next)
			if (*pe == e) {
				*pe = e->inode_next;
				break;
			}
	}
	elf_object__delete(e->obj);
	ufile__free(e->ufile);
	if (e->fd >= 0)
		close(e->fd);
	free(e->open_path);
	free(e->path);
	free(e);
}

void objcache__put(struct objcache *c)
{
	if (!c || --c->refs > 0)
		return;
	/* aliases first: each tells its entry it is gone */
	for (int aliases = 1; aliases >= 0; aliases--)
		for (size_t b = 0; b < NBUCKETS; b++)
			for (struct objcache_entry **pe = &c->buckets[b]; *pe;) {
				struct objcache_entry *e = *pe;

				if (!e->alias != !aliases) {
					pe = &e->next;
					continue;
				}
				*pe = e->next;
				entry_free(c, e);
			}
	elf_object__delete(c->vdso_obj);
	ufile__free(c->vdso_ufile);
	if (c->vdso_image)
		munmap(c->vdso_image, c->vdso_size);
	if (c->vdso_fd >= 0)
		close(c->vdso_fd);
	free(c);
}

void objcache__add_symbolizer(struct objcache *c)
{
	c->sym_users++;
}

int objcache__add_marker(struct objcache *c, objcache_mark_fn *fn, void *arg)
{
	if (c->nr_markers == MAX_MARKERS)
		return -ENOSPC;
	c->markers[c->nr_markers].fn = fn;
	c->markers[c->nr_markers].arg = arg;
	c->nr_markers++;
	return 0;
}

void objcache__remove_marker(struct objcache *c, objcache_mark_fn *fn, void *arg)
{
	for (int i = 0; i < c->nr_markers; i++)
		if (c->markers[i].fn == fn && c->markers[i].arg == arg) {
			c->markers[i] = c->markers[--c->nr_markers];
			return;
		}
}

/* Opens e's file through pid into e (fd, open_path, err). 0, or -ENOMEM. */
static int entry_open(struct objcache *c, struct objcache_entry *e, pid_t pid, const struct map *m)
{
	char *opened = NULL;
	int fd = mapped_file__open(pid, m, &opened);

	c->opens++;
	if (fd == -ENOMEM)
		return -ENOMEM;
	e->tried_pid = pid;
	e->fd = fd >= 0 ? fd : -1;
	e->err = fd >= 0 ? 0 : fd;
	e->open_path = opened;
	return 0;
}

/* A file the last open could not give is looked for again through pid
 * (alive: its mapping is being prepared, or a sample of it unwound); the
 * views made of the failed open are dropped only when this one finds it. */
static void entry_retry(struct objcache *c, struct objcache_entry *e, pid_t pid, const struct map *m)
{
	struct objcache_entry again = { .fd = -1 };

	e->tried_pid = pid;
	if (entry_open(c, &again, pid, m) || again.err) {
		free(again.open_path);
		return;
	}
	elf_object__delete(e->obj);
	ufile__free(e->ufile);
	free(e->open_path);
	e->obj = NULL;
	e->ufile = NULL;
	e->have_obj = e->have_ufile = false;
	e->open_path = again.open_path;
	e->fd = again.fd;
	e->err = 0;
}

/* One file, two keys: the processes there before the run are known by
 * inode, those after by build id (never matched against each other), and
 * a file has several paths (/lib and /usr/lib). A new entry whose open
 * file is one already open uses that entry's views: a system-wide run
 * opened libc, inflated libc6-dbg's DWARF and compiled its CFI rows twice. */
static void entry_dedup(struct objcache *c, struct objcache_entry *e)
{
	struct stat st;

	if (e->err || e->fd < 0 || fstat(e->fd, &st) || (!st.st_dev && !st.st_ino))
		return;
	size_t b = inode_bucket(st.st_dev, st.st_ino);
	for (struct objcache_entry *p = c->by_inode[b]; p; p = p->inode_next)
		if (p->dev == st.st_dev && p->ino == st.st_ino) {
			e->alias = p;
			p->alias_refs++;
			p->used_gen = c->gen;
			close(e->fd);
			e->fd = -1;
			return;
		}
	e->dev = st.st_dev;
	e->ino = st.st_ino;
	e->inode_next = c->by_inode[b];
	c->by_inode[b] = e;
}

struct objcache_entry *objcache__entry(struct objcache *c, pid_t pid, const struct map *m, bool open, bool retry)
{
	char path[PATH_MAX];
	struct objcache_entry *e;
	struct file_id id;
	uint64_t h;

	mapped_file__clean_path(m->path, path, sizeof(path));
	file_id__from_map(&id, pid, m);
	h = file_id__hash(&id, path);
	for (e = c->buckets[h % NBUCKETS]; e; e = e->next)
		if (e->hash == h && file_id__equal(&e->id, &id) && !strcmp(e->path, path))
			break;
	if (e) {
		if (retry && e->err && pid > 0 && e->tried_pid != pid)
			entry_retry(c, e, pid, m);
		e->used_gen = c->gen;
		if (e->alias)
			e->alias->used_gen = c->gen;
		return e;
	}
	if (!open)
		return NULL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->fd = -1;
	e->path = strdup(path);
	if (!e->path || entry_open(c, e, pid, m)) {
		entry_free(c, e);
		return NULL;
	}
	e->hash = h;
	e->id = id;
	e->used_gen = c->gen;
	e->next = c->buckets[h % NBUCKETS];
	c->buckets[h % NBUCKETS] = e;
	entry_dedup(c, e);
	return e;
}

size_t objcache__opens(const struct objcache *c)
{
	return c->opens;
}

void objcache__mark(struct objcache *c, struct objcache_entry *e)
{
	if (e)
		e->used_gen = c->gen;
	if (e && e->alias)
		e->alias->used_gen = c->gen;
}

struct elf_object *objcache__object(struct objcache *c, struct objcache_entry *e, const struct map *m)
{
	if (e->alias)
		return objcache__object(c, e->alias, m);
	if (!e->have_obj) {
		/* the object keeps the descriptor: DWARF is read from it later,
		 * when the file may be out of reach (map_files of a process gone) */
		int fd = e->fd;

		e->fd = -1;
		e->obj = elf_object__open_fd(fd, e->open_path ? e->open_path : e->path, e->path, m);
		if (!e->obj)
			return NULL;	/* ENOMEM: the descriptor went with it */
		e->have_obj = true;
		if (e->err == -ESTALE)
			e->obj->build_id_mismatch = true;
	}
	return e->obj;
}

struct ufile *objcache__ufile(struct objcache *c, struct objcache_entry *e)
{
	if (e->alias)
		return objcache__ufile(c, e->alias);
	if (!e->have_ufile) {
		int fd = e->fd >= 0 ? e->fd : e->obj ? e->obj->elf_fd : -1;

		e->ufile = ufile__open(e->path, e->open_path, fd, e->err ? e->err : -ENOENT);
		if (!e->ufile)
			return NULL;
		e->ufile->cached = e;
		e->have_ufile = true;
		/* no symbolizer will want it: the image is all the unwinder reads */
		if (!c->sym_users && e->fd >= 0) {
			close(e->fd);
			e->fd = -1;
		}
	}
	return e->ufile->err ? NULL : e->ufile;
}

void objcache__keep(struct objcache *c, pid_t pid, const struct map *m)
{
	if (c && m && m->path && map__is_file(m))
		objcache__entry(c, pid, m, false, false);
}

size_t objcache__sweep(struct objcache *c)
{
	size_t n = 0;

	if (!c)
		return 0;
	for (int i = 0; i < c->nr_markers; i++)
		c->markers[i].fn(c, c->markers[i].arg);
	for (size_t b = 0; b < NBUCKETS; b++)
		for (struct objcache_entry **pe = &c->buckets[b]; *pe;) {
			struct objcache_entry *e = *pe;

			if (e->used_gen == c->gen || e->alias_refs) {
				pe = &e->next;
				continue;
			}
			*pe = e->next;
			entry_free(c, e);
			n++;
		}
	c->gen++;
	return n;
}

/* The vdso is the kernel's: every process of our ABI maps the same image,
 * so ours is read, once; a process of another ABI (x32, ia32) has another
 * size, and gets none. */
static bool vdso_image(struct objcache *c, const struct map *m)
{
	if (!c->vdso_tried) {
		uint64_t base = getauxval(AT_SYSINFO_EHDR), size = 0;
		char line[256];
		FILE *fp = fopen("/proc/self/maps", "re");

		c->vdso_tried = true;
		while (base && fp && fgets(line, sizeof(line), fp)) {
			unsigned long long s, e;

			if (strstr(line, "[vdso]") && sscanf(line, "%llx-%llx", &s, &e) == 2 && s == base)
				size = e - s;
		}
		if (fp)
			fclose(fp);
		int fd = size ? memfd_create("pprobe-vdso", MFD_CLOEXEC) : -1;
		void *p = MAP_FAILED;

		if (fd >= 0 && write(fd, (const void *)(uintptr_t)base, size) == (ssize_t)size)
			p = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED) {
			if (fd >= 0)
				close(fd);
		} else {
			c->vdso_fd = fd;
			c->vdso_image = p;
			c->vdso_size = size;
			snprintf(c->vdso_path, sizeof(c->vdso_path), "/proc/self/fd/%d", fd);
		}
	}
	return c->vdso_image && c->vdso_size == m->end - m->start;
}

struct elf_object *objcache__vdso_object(struct objcache *c, const struct map *m)
{
	if (!vdso_image(c, m))
		return NULL;
	if (!c->vdso_obj_tried) {
		c->vdso_obj_tried = true;
		c->vdso_obj = elf_object__open_mem(c->vdso_image, c->vdso_size, "[vdso]");
	}
	return c->vdso_obj;
}

struct ufile *objcache__vdso_ufile(struct objcache *c, const struct map *m)
{
	if (!vdso_image(c, m))
		return NULL;
	if (!c->vdso_ufile_tried) {
		c->vdso_ufile_tried = true;
		c->vdso_ufile = ufile__open_image("[vdso]", c->vdso_path, c->vdso_image, c->vdso_size);
	}
	return c->vdso_ufile && !c->vdso_ufile->err ? c->vdso_ufile : NULL;
}
