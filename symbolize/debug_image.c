/* A separate debug file as libdw may read it without inflating: libdw
 * inflates every compressed debug section of a file when it opens its DWARF
 * (dwarf_begin_elf), through zlib, whether or not it is read after. For
 * libc6-dbg's libc that is 10 MB, 40 ms here, once per run; with ld.so and
 * libm 81 ms, a fixed cost that was the largest of a profile.
 *
 * The image (a memfd, so libdwfl opens it like a file) is the file's bytes
 * where they are, each needed compressed section inflated after the file's
 * end (libdeflate: elf_zsec.c), its header pointing there, and the section
 * headers after that. Sections the symbolizer never reads are not inflated
 * but hidden (SHT_NOBITS, which libdw skips): location lists, macros,
 * public names, and the line table where no line is asked for. The
 * compressed bytes are not copied (the memfd's holes cost no memory), so the
 * image costs what libdw's own buffers would have.
 *
 * Each image is also kept on disk for the next run, as perf keeps its
 * ~/.debug: $PPROBE_CACHE_DIR (empty: none), else $XDG_CACHE_HOME/pprobe,
 * else ~/.cache/pprobe, in debug/, one sparse file per debug file, named by
 * the file's identity (device, inode, size, mtime) and what was hidden, so
 * a changed file is a new name. The next run maps it and inflates nothing
 * (libc6-dbg's libc: ~60 ms of every run). Written whole to an unnamed
 * file that is named only once complete; used only from a directory of our
 * own user that no one else may write; the least recently used go past
 * DEBUG_CACHE_MAX. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf_zsec.h"
#include "pprobe/safe_open.h"
#include "sym_internal.h"

static bool hidden(const char *name, bool lines)
{
	static const char *const never[] = {
		".debug_loclists", ".debug_loc", ".debug_macro", ".debug_macinfo", ".debug_pubnames",
		".debug_pubtypes", ".debug_gnu_pubnames", ".debug_gnu_pubtypes",
	};
	if (!name)
		return false;
	if (!lines && !strcmp(name, ".debug_line"))
		return true;
	for (size_t i = 0; i < sizeof(never) / sizeof(never[0]); i++)
		if (!strcmp(name, never[i]))
			return true;
	return false;
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

/* What becomes of each section: kept (its bytes where they are), inflated
 * (after the file's end, in section order) or hidden. */
struct plan {
	struct zsec_stream *z;	/* per section; z[i].out_len 0: not inflated */
	bool *hide;
	uint64_t shoff, size;	/* the section headers' offset; the image's size */
};

/* Returns the image's size, 0 where the file is better given as it is. */
static uint64_t plan(const uint8_t *data, size_t size, const Elf64_Ehdr *eh, bool lines, struct plan *p)
{
	uint64_t off = align_up(size, 4096), inflated = 0;
	unsigned n = 0;

	for (unsigned i = 0; i < eh->e_shnum; i++) {
		const Elf64_Shdr *sh = zsec__shdr(data, eh, i);
		const char *nm = zsec__name(data, size, eh, sh);
		if (!zsec__compressed(sh, nm) || (nm && !strncmp(nm, ".zdebug", 7)))
			continue;	/* GNU's .zdebug_*: libdw inflates them as before */
		if (hidden(nm, lines)) {
			p->hide[i] = true;
			n++;
			continue;
		}
		struct zsec_stream *z = &p->z[i];
		if (!zsec__stream(data, size, sh, false, z) || (z->align & (z->align - 1)) || z->align > 4096)
			return 0;	/* libelf says what it makes of it */
		inflated += z->out_len;
		if (inflated > elf_file__decompressed_cap(size))
			return 0;
		off = align_up(off, z->align < 8 ? 8 : z->align) + z->out_len;
		n++;
	}
	if (!n)
		return 0;
	p->shoff = align_up(off, 8);
	p->size = p->shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr);
	return p->size;
}

/* Copies what libdw reads of the file as it is: the ELF and program
 * headers, and every section that keeps its bytes. */
static void copy_kept(uint8_t *img, const uint8_t *data, size_t size, const Elf64_Ehdr *eh, const struct plan *p)
{
	memcpy(img, data, sizeof(*eh));
	if (eh->e_phoff && eh->e_phoff <= size &&
	    (uint64_t)eh->e_phnum * eh->e_phentsize <= size - eh->e_phoff)
		memcpy(img + eh->e_phoff, data + eh->e_phoff, (size_t)eh->e_phnum * eh->e_phentsize);
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		const Elf64_Shdr *sh = zsec__shdr(data, eh, i);
		if (p->hide[i] || p->z[i].out_len || sh->sh_type == SHT_NOBITS || sh->sh_type == SHT_NULL ||
		    sh->sh_offset > size || sh->sh_size > size - sh->sh_offset)
			continue;
		memcpy(img + sh->sh_offset, data + sh->sh_offset, sh->sh_size);
	}
}

/* Inflates the planned sections and writes the section headers; false
 * where a stream does not inflate to what it claims. */
static bool fill(uint8_t *img, const uint8_t *data, size_t size, const Elf64_Ehdr *eh, const struct plan *p)
{
	Elf64_Shdr *out = (Elf64_Shdr *)(img + p->shoff);
	uint64_t off = align_up(size, 4096);

	for (unsigned i = 0; i < eh->e_shnum; i++) {
		const struct zsec_stream *z = &p->z[i];
		out[i] = *zsec__shdr(data, eh, i);
		if (p->hide[i]) {
			out[i].sh_type = SHT_NOBITS;
			out[i].sh_flags &= ~(uint64_t)SHF_COMPRESSED;
			continue;
		}
		if (!z->out_len)
			continue;
		off = align_up(off, z->align < 8 ? 8 : z->align);
		if (!zsec__inflate(data, z, img + off))
			return false;
		out[i].sh_flags &= ~(uint64_t)SHF_COMPRESSED;
		out[i].sh_offset = off;
		out[i].sh_size = z->out_len;
		out[i].sh_addralign = z->align;
		off += z->out_len;
	}
	Elf64_Ehdr *neh = (Elf64_Ehdr *)img;
	neh->e_shoff = p->shoff;
	return true;
}

/* ---- the images kept on disk ---- */

#define DEBUG_CACHE_MAX (1ULL << 30)	/* bytes on disk, all images together
					 * ($PPROBE_CACHE_MAX: another bound) */
#define IMAGE_FORMAT 1			/* in the name: a new layout, new names */

int pp_own_dir(int at, const char *dir)
{
	struct stat st;
	if (mkdirat(at, dir, 0700) && errno != EEXIST)
		return -1;
	int fd = openat(at, dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || st.st_uid != geteuid() || (st.st_mode & 022)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The cache's top directory's path, from the environment; false: none. */
static bool cache_top(char *path, size_t len, bool *home)
{
	const char *env = getenv("PPROBE_CACHE_DIR");
	*home = false;
	if (env)
		return *env && (size_t)snprintf(path, len, "%s", env) < len;
	if ((env = getenv("XDG_CACHE_HOME")) && *env == '/')
		return (size_t)snprintf(path, len, "%s/pprobe", env) < len;
	if ((env = getenv("HOME")) && *env == '/') {
		*home = true;
		return (size_t)snprintf(path, len, "%s/.cache/pprobe", env) < len;
	}
	return false;
}

/* Each subdirectory's fd, found once per process (every object a run
 * loads and saves asks: the path walks were 6 syscalls each): kept while
 * the environment names the same directory and it is still there, ours
 * and closed to others. */
static struct cached_dir {
	char top[4096], sub[16];
	int fd;
} cached_dirs[4];
static pthread_mutex_t cached_dirs_lock = PTHREAD_MUTEX_INITIALIZER;

static int find_subdir(const char *top, bool home, const char *sub)
{
	if (home) {	/* ~/.cache made if missing, as the XDG layout has it */
		char parent[4096];
		snprintf(parent, sizeof(parent), "%s", top);
		*strrchr(parent, '/') = 0;
		int c = pp_own_dir(AT_FDCWD, parent);
		if (c < 0)
			return -1;
		close(c);
	}
	int t = pp_own_dir(AT_FDCWD, top);
	if (t < 0)
		return -1;
	int d = pp_own_dir(t, sub);
	close(t);
	return d;
}

int pp_cache_subdir(const char *sub)
{
	char top[4096];
	bool home;
	struct stat st;

	if (!cache_top(top, sizeof(top), &home) || strlen(sub) >= sizeof(cached_dirs[0].sub))
		return -1;
	pthread_mutex_lock(&cached_dirs_lock);
	struct cached_dir *c = NULL, *slot = NULL;
	for (size_t i = 0; i < sizeof(cached_dirs) / sizeof(cached_dirs[0]) && !c; i++) {
		struct cached_dir *e = &cached_dirs[i];
		if (e->sub[0] && !strcmp(e->sub, sub))
			c = e;
		else if (!e->sub[0] && !slot)
			slot = e;
	}
	if (c && (strcmp(c->top, top) || fstat(c->fd, &st) || !st.st_nlink || st.st_uid != geteuid() ||
		  (st.st_mode & 022))) {
		close(c->fd);
		c->sub[0] = 0;
		slot = c;
		c = NULL;
	}
	if (!c && slot) {
		int fd = find_subdir(top, home, sub);
		if (fd >= 0) {
			c = slot;
			c->fd = fd;
			snprintf(c->top, sizeof(c->top), "%s", top);
			snprintf(c->sub, sizeof(c->sub), "%s", sub);
		}
	}
	int d = c ? fcntl(c->fd, F_DUPFD_CLOEXEC, 0) : !slot ? find_subdir(top, home, sub) : -1;
	pthread_mutex_unlock(&cached_dirs_lock);
	return d;
}

static void image_name(const struct stat *st, bool lines, char *name, size_t len)
{
	uint64_t h = 1469598103934665603ULL;	/* FNV-1a over the identity */
	const uint64_t v[] = { (uint64_t)st->st_dev, (uint64_t)st->st_ino, (uint64_t)st->st_size,
			       (uint64_t)st->st_mtim.tv_sec, (uint64_t)st->st_mtim.tv_nsec, lines, IMAGE_FORMAT };
	const uint8_t *b = (const uint8_t *)v;
	for (size_t i = 0; i < sizeof(v); i++)
		h = (h ^ b[i]) * 1099511628211ULL;
	snprintf(name, len, "%016llx.img", (unsigned long long)h);
}

/* The kept image named name, if it is the one this run would make: ours,
 * of the planned size, its header the one planned. Marked used (mtime). */
static int cached_image(int dir, const char *name, const Elf64_Ehdr *eh, const struct plan *p)
{
	struct stat st;
	Elf64_Ehdr got;
	int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	Elf64_Ehdr want = *eh;
	want.e_shoff = p->shoff;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid() || (uint64_t)st.st_size != p->size ||
	    pread(fd, &got, sizeof(got), 0) != (ssize_t)sizeof(got) || memcmp(&got, &want, sizeof(got))) {
		close(fd);
		unlinkat(dir, name, 0);	/* not what we would write: made again */
		return -1;
	}
	(void)utimensat(dir, name, NULL, AT_SYMLINK_NOFOLLOW);	/* used now: kept longest */
	return fd;
}

struct kept {
	char name[32];
	uint64_t used;	/* mtime, ns */
	uint64_t bytes;
};

static int by_use(const void *a, const void *b)
{
	const struct kept *x = a, *y = b;
	return x->used < y->used ? -1 : x->used > y->used;
}

void pp_cache_trim(int dir, const char *suffix)
{
	const char *env = getenv("PPROBE_CACHE_MAX");
	char *end;
	unsigned long long max = env && *env ? strtoull(env, &end, 10) : DEBUG_CACHE_MAX;
	if (env && *env && *end)
		max = DEBUG_CACHE_MAX;
	int d = dup(dir);
	DIR *dp = d >= 0 ? fdopendir(d) : NULL;
	struct kept *v = NULL;
	size_t n = 0, cap = 0;
	uint64_t total = 0;
	struct dirent *de;
	if (!dp) {
		if (d >= 0)
			close(d);
		return;
	}
	rewinddir(dp);	/* dir's fds share one offset (pp_cache_subdir's are dups) */
	while ((de = readdir(dp))) {
		struct stat st;
		size_t l = strlen(de->d_name);
		if (l != 16 + strlen(suffix) || strcmp(de->d_name + 16, suffix) ||
		    fstatat(dir, de->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
			continue;
		if (n == cap) {
			struct kept *nv = realloc(v, (cap = cap ? cap * 2 : 16) * sizeof(*v));
			if (!nv)
				break;
			v = nv;
		}
		snprintf(v[n].name, sizeof(v[n].name), "%s", de->d_name);
		v[n].used = (uint64_t)st.st_mtim.tv_sec * 1000000000ULL + (uint64_t)st.st_mtim.tv_nsec;
		v[n].bytes = (uint64_t)st.st_blocks * 512;
		total += v[n++].bytes;
	}
	closedir(dp);
	if (total > max) {
		qsort(v, n, sizeof(*v), by_use);
		for (size_t i = 0; i < n && total > max; i++)
			if (!unlinkat(dir, v[i].name, 0))
				total -= v[i].bytes;
	}
	free(v);
}

/* The image in img (size bytes, mapped from a memfd whose holes are
 * skipped) written to the cache as name: whole, or not at all. */
static void keep_image(int dir, const char *name, int img_fd, uint64_t size)
{
	int fd = openat(dir, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
	bool ok = fd >= 0 && !ftruncate(fd, (off_t)size);
	for (off_t at = 0; ok && (uint64_t)at < size;) {
		off_t data = lseek(img_fd, at, SEEK_DATA);
		if (data < 0)
			break;	/* ENXIO: holes to the end */
		off_t hole = lseek(img_fd, data, SEEK_HOLE);
		if (hole < 0)
			hole = (off_t)size;
		for (off_t o = data; ok && o < hole;) {
			ssize_t w = copy_file_range(img_fd, &o, fd, &(off_t){ o }, (size_t)(hole - o), 0);
			if (w <= 0) {	/* across file systems on older kernels: by hand */
				char buf[65536];
				ssize_t r = pread(img_fd, buf, sizeof(buf) < (size_t)(hole - o) ? sizeof(buf) : (size_t)(hole - o), o);
				ok = r > 0 && pwrite(fd, buf, (size_t)r, o) == r;
				o += ok ? r : 0;
			}
		}
		at = hole;
	}
	if (ok) {
		char proc[64];
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
		if (!linkat(AT_FDCWD, proc, dir, name, AT_SYMLINK_FOLLOW))
			pp_cache_trim(dir, ".img");
	}
	if (fd >= 0)
		close(fd);
}

int debug_image__open(int fd, bool lines)
{
	struct stat st;
	Elf64_Ehdr eh;
	struct plan p = { 0 };
	uint8_t *data = MAP_FAILED, *img = MAP_FAILED;
	int out = -1, err = -ENODATA, dir = -1;
	char name[32];

	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size <= 0)
		return -EINVAL;
	size_t size = (size_t)st.st_size;
	data = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (data == MAP_FAILED)
		return -errno;
	if (!zsec__header(data, size, &eh))
		goto out;
	p.z = calloc(eh.e_shnum ? eh.e_shnum : 1, sizeof(*p.z));
	p.hide = calloc(eh.e_shnum ? eh.e_shnum : 1, sizeof(*p.hide));
	if (!p.z || !p.hide) {
		err = -ENOMEM;
		goto out;
	}
	if (!plan(data, size, &eh, lines, &p))
		goto out;
	dir = pp_cache_subdir("debug");
	if (dir >= 0) {
		image_name(&st, lines, name, sizeof(name));
		out = cached_image(dir, name, &eh, &p);
		if (out >= 0) {
			err = 0;
			goto out;
		}
	}
	out = memfd_create("pprobe-debuginfo", MFD_CLOEXEC);
	if (out < 0 || ftruncate(out, (off_t)p.size)) {
		err = -errno;
		goto out;
	}
	img = mmap(NULL, p.size, PROT_READ | PROT_WRITE, MAP_SHARED, out, 0);
	if (img == MAP_FAILED) {
		err = -errno;
		goto out;
	}
	copy_kept(img, data, size, &eh, &p);
	if (!fill(img, data, size, &eh, &p)) {
		err = -EINVAL;
		goto out;
	}
	err = 0;
	if (dir >= 0)
		keep_image(dir, name, out, p.size);
out:
	if (dir >= 0)
		close(dir);
	if (img != MAP_FAILED)
		munmap(img, p.size);
	munmap(data, size);
	free(p.z);
	free(p.hide);
	if (err) {
		if (out >= 0)
			close(out);
		return err;
	}
	return out;
}
