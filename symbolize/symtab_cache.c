/* A big object's finished symbol table kept on disk for the next run.
 *
 * Loading a table is reading every symbol (gelf_getsym), sorting them and
 * fixing their ends: node's 154,000 functions took 58 ms of every run, a
 * system-wide run's objects together ~110 ms of its 0.65 s at 99 Hz. The
 * table that comes out depends only on the object's file and its debug
 * file, so it is kept, as the debug images are (debug_image.c), in the
 * cache's symtab/ directory, named by a hash of both files' identity
 * (device, inode, size, mtime, ctime) and the layout; a changed file is a
 * new name.
 *
 * The file is the table as it is used: its entries in order, each name
 * either where it is in the object or debug file (read from there at first
 * use, as a loaded table does) or, for names made here (PLT stubs, _start,
 * MiniDebugInfo's, Go's), in a pool after the entries. Loading it checks
 * everything a lookup relies on (entries in order, names inside the pool,
 * the pool NUL-terminated, sizes) and recomputes the cover index; anything
 * else is not used and is written anew. Written to an unnamed file, named
 * only when whole. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf_zsec.h"
#include "sym_internal.h"

#define SYMT_MAGIC "PPSYMT1"

struct symt_hdr {
	char magic[8];
	uint64_t n;		/* entries */
	uint64_t pool_len;	/* bytes of copied names after them */
	uint32_t flags;		/* SYMTAB_CACHE_* */
	uint32_t entry_size;	/* sizeof(struct symt_ent) */
};

struct symt_ent {
	uint64_t start, end;
	uint64_t name_off;	/* in the pool (SYMTAB_SRC_COPY) or in its file */
	uint32_t prio;
	uint8_t src, sized;
	uint16_t pad;
};

void symtab_cache__name(const struct stat *file, const struct stat *debug, char *name, size_t len)
{
	uint64_t h = 1469598103934665603ULL;	/* FNV-1a over both identities */
	/* ctime too: a file rewritten in place with its mtime set back (which
	 * a traced program may do to its own files) still gets a new name */
	const uint64_t v[] = {
		(uint64_t)file->st_dev, (uint64_t)file->st_ino, (uint64_t)file->st_size,
		(uint64_t)file->st_mtim.tv_sec, (uint64_t)file->st_mtim.tv_nsec,
		(uint64_t)file->st_ctim.tv_sec, (uint64_t)file->st_ctim.tv_nsec,
		debug ? (uint64_t)debug->st_dev : 0, debug ? (uint64_t)debug->st_ino : 0,
		debug ? (uint64_t)debug->st_size : 0, debug ? (uint64_t)debug->st_mtim.tv_sec : 0,
		debug ? (uint64_t)debug->st_mtim.tv_nsec : 0, debug ? (uint64_t)debug->st_ctim.tv_sec : 0,
		debug ? (uint64_t)debug->st_ctim.tv_nsec : 0, sizeof(struct symt_ent), sizeof(struct symt_hdr), 1,
	};
	const uint8_t *b = (const uint8_t *)v;
	for (size_t i = 0; i < sizeof(v); i++)
		h = (h ^ b[i]) * 1099511628211ULL;
	snprintf(name, len, "%016llx.sym", (unsigned long long)h);
}

bool pp_read_all(int fd, void *buf, size_t len)
{
	for (size_t done = 0; done < len;) {
		ssize_t r = read(fd, (char *)buf + done, len - done);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		done += (size_t)r;
	}
	return true;
}

int pp_write_all(int fd, const void *buf, size_t len)
{
	for (size_t done = 0; done < len;) {
		ssize_t w = write(fd, (const char *)buf + done, len - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		done += (size_t)w;
	}
	return 0;
}

static void index_cover(struct symtab *t)
{
	for (size_t i = 0; i < t->n; i++)
		t->cover[i] = (i && t->v[t->cover[i - 1]].end > t->v[i].end) ? t->cover[i - 1] : i;
}

int symtab_cache__load(struct symtab *t, int dir, const char *name, uint32_t *flags)
{
	struct symt_hdr h;
	struct stat st;
	struct symt_ent *e = NULL;
	char *pool = NULL;
	int err = -EINVAL;
	int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (t->n || t->v)
		return -EBUSY;
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022) ||
	    !pp_read_all(fd, &h, sizeof(h)) || memcmp(h.magic, SYMT_MAGIC, 8) || h.entry_size != sizeof(*e) || !h.n ||
	    h.n > (uint64_t)st.st_size / sizeof(*e) || h.pool_len > (uint64_t)st.st_size ||
	    (uint64_t)st.st_size != sizeof(h) + h.n * sizeof(*e) + h.pool_len || (h.flags & ~SYMTAB_CACHE_FLAGS))
		goto out;
	err = -ENOMEM;
	e = malloc(h.n * sizeof(*e));
	pool = h.pool_len ? malloc(h.pool_len) : NULL;
	t->v = malloc(h.n * sizeof(*t->v));
	t->cover = malloc(h.n * sizeof(*t->cover));
	if (!e || (h.pool_len && !pool) || !t->v || !t->cover)
		goto out;
	err = -EINVAL;
	if (!pp_read_all(fd, e, h.n * sizeof(*e)) || (h.pool_len && !pp_read_all(fd, pool, h.pool_len)) ||
	    (h.pool_len && pool[h.pool_len - 1]))
		goto out;
	const char *names = NULL;
	if (h.pool_len) {
		err = -ENOMEM;
		names = strpool__add(&t->strings, pool, h.pool_len - 1);	/* its last NUL added back */
		if (!names)
			goto out;
		err = -EINVAL;
	}
	for (uint64_t i = 0; i < h.n; i++) {
		const struct symt_ent *x = &e[i];
		if (x->src >= SYMTAB_SRC_NR || x->sized > 1 || x->pad || x->end < x->start ||
		    (i && e[i - 1].start >= x->start) ||
		    (x->src == SYMTAB_SRC_COPY && x->name_off >= h.pool_len && x->name_off != UINT64_MAX) ||
		    (x->src == SYMTAB_SRC_DEBUG && !(h.flags & SYMTAB_CACHE_DEBUG)))
			goto out;
		t->v[i] = (struct symtab_entry){
			.start = x->start, .end = x->end,
			.name = x->src == SYMTAB_SRC_COPY && x->name_off != UINT64_MAX ? names + x->name_off : NULL,
			.name_off = x->src == SYMTAB_SRC_COPY ? 0 : x->name_off,
			.prio = x->prio, .src = x->src, .sized = x->sized,
		};
	}
	t->n = t->cap = h.n;
	index_cover(t);
	*flags = h.flags;
	err = 0;
	(void)utimensat(dir, name, NULL, AT_SYMLINK_NOFOLLOW);	/* used now: kept longest */
out:
	if (err) {
		symtab__free(t);
		if (err == -EINVAL)
			unlinkat(dir, name, 0);	/* not what we write: made again */
	}
	free(e);
	free(pool);
	close(fd);
	return err;
}

int symtab_cache__save(const struct symtab *t, int dir, const char *name, uint32_t flags)
{
	struct symt_hdr h = { .n = t->n, .flags = flags, .entry_size = sizeof(struct symt_ent) };
	size_t pool_len = 0;

	if (!t->n || !t->cover)
		return -EINVAL;
	memcpy(h.magic, SYMT_MAGIC, 8);
	for (size_t i = 0; i < t->n; i++) {
		if (t->v[i].src == SYMTAB_SRC_COPY && t->v[i].name)
			pool_len += strlen(t->v[i].name) + 1;
		else if (t->v[i].src == SYMTAB_SRC_DEBUG && !(flags & SYMTAB_CACHE_DEBUG))
			return -EINVAL;
	}
	h.pool_len = pool_len;
	size_t len = sizeof(h) + t->n * sizeof(struct symt_ent) + pool_len;
	char *buf = calloc(1, len);
	if (!buf)
		return -ENOMEM;
	memcpy(buf, &h, sizeof(h));
	struct symt_ent *out = (struct symt_ent *)(buf + sizeof(h));
	char *pool = (char *)(out + t->n), *p = pool;
	for (size_t i = 0; i < t->n; i++) {
		const struct symtab_entry *x = &t->v[i];
		out[i] = (struct symt_ent){ .start = x->start, .end = x->end, .name_off = x->name_off,
					    .prio = x->prio, .src = x->src, .sized = x->sized };
		if (x->src == SYMTAB_SRC_COPY && !x->name) {
			out[i].name_off = UINT64_MAX;	/* none */
		} else if (x->src == SYMTAB_SRC_COPY) {
			size_t l = strlen(x->name);
			out[i].name_off = (uint64_t)(p - pool);
			memcpy(p, x->name, l + 1);
			p += l + 1;
		}
	}
	int err = 0, fd = openat(dir, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
	if (fd < 0) {
		err = -errno;
	} else {
		err = pp_write_all(fd, buf, len);
		char proc[64];
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
		if (!err && linkat(AT_FDCWD, proc, dir, name, AT_SYMLINK_FOLLOW))
			err = -errno;
		close(fd);
		if (!err)
			pp_cache_trim(dir, ".sym");
	}
	free(buf);
	return err;
}
