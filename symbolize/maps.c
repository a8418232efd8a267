/* A process's address space: a sorted array of non-overlapping mappings.
 * Insert follows mmap(MAP_FIXED): whatever it overlaps is trimmed or split.
 * Lookups are binary searches. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pprobe/maps.h"
#include "sym_internal.h"

struct maps {
	struct map *v;
	size_t n, cap;
	uint64_t gen;
};

struct maps *maps__new(void)
{
	struct maps *maps = calloc(1, sizeof(*maps));

	return maps;
}

static void map__release(struct map *m)
{
	free(m->path);
	m->path = NULL;
}

void maps__clear(struct maps *maps)
{
	for (size_t i = 0; i < maps->n; i++)
		map__release(&maps->v[i]);
	maps->n = 0;
	maps->gen++;
}

void maps__delete(struct maps *maps)
{
	if (!maps)
		return;
	maps__clear(maps);
	free(maps->v);
	free(maps);
}

static int maps__reserve(struct maps *maps, size_t want)
{
	struct map *v;
	size_t cap;

	if (want <= maps->cap)
		return 0;
	cap = maps->cap ? maps->cap * 2 : 16;
	while (cap < want)
		cap *= 2;
	v = realloc(maps->v, cap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	maps->v = v;
	maps->cap = cap;
	return 0;
}

static int map__copy(struct map *dst, const struct map *src)
{
	*dst = *src;
	dst->path = NULL;
	if (src->path) {
		dst->path = strdup(src->path);
		if (!dst->path)
			return -ENOMEM;
	}
	return 0;
}

struct maps *maps__clone(const struct maps *src)
{
	struct maps *maps = maps__new();

	if (!maps)
		return NULL;
	if (maps__reserve(maps, src->n) < 0)
		goto err;
	for (size_t i = 0; i < src->n; i++) {
		if (map__copy(&maps->v[i], &src->v[i]) < 0)
			goto err;
		maps->n = i + 1;
	}
	maps->gen = src->gen;
	return maps;
err:
	maps__delete(maps);
	errno = ENOMEM;
	return NULL;
}

/* First index whose end > addr (the only candidate containing addr). */
static size_t maps__lower(const struct maps *maps, uint64_t addr)
{
	size_t lo = 0, hi = maps->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (maps->v[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Cut [start, end) out of the array. If a mapping strictly contains the
 * range it is split in two, which needs one extra slot (and a path copy):
 * that is the only way this can fail. */
static int maps__punch(struct maps *maps, uint64_t start, uint64_t end)
{
	size_t i = maps__lower(maps, start), j;

	if (i >= maps->n || maps->v[i].start >= end)
		return 0;

	struct map *m = &maps->v[i];
	if (m->start < start && m->end > end) {
		/* split: m -> [m->start, start) + [end, m->end) */
		struct map tail;
		int err = maps__reserve(maps, maps->n + 1);

		if (err)
			return err;
		m = &maps->v[i];
		err = map__copy(&tail, m);
		if (err)
			return err;
		tail.pgoff += end - m->start;	/* the kernel's vma split does the same */
		tail.start = end;
		m->end = start;
		memmove(&maps->v[i + 2], &maps->v[i + 1], (maps->n - i - 1) * sizeof(*m));
		maps->v[i + 1] = tail;
		maps->n++;
		return 0;
	}
	if (m->start < start) {		/* trim the head's tail */
		m->end = start;
		i++;
	}
	/* remove all entirely covered, trim the front of a last partial one */
	for (j = i; j < maps->n && maps->v[j].end <= end; j++)
		map__release(&maps->v[j]);
	if (j < maps->n && maps->v[j].start < end) {
		struct map *t = &maps->v[j];

		t->pgoff += end - t->start;
		t->start = end;
	}
	if (j > i) {
		memmove(&maps->v[i], &maps->v[j], (maps->n - j) * sizeof(*m));
		maps->n -= j - i;
	}
	return 0;
}

int maps__insert(struct maps *maps, const struct map *m)
{
	struct map copy;
	size_t i;
	int err;

	if (m->end <= m->start)
		return -EINVAL;
	/* Reserve first so that after punching, the insert cannot fail. */
	err = maps__reserve(maps, maps->n + 2);
	if (err)
		return err;
	err = map__copy(&copy, m);
	if (err)
		return err;
	err = maps__punch(maps, m->start, m->end);
	if (err) {
		map__release(&copy);
		return err;
	}
	i = maps__lower(maps, m->start);
	memmove(&maps->v[i + 1], &maps->v[i], (maps->n - i) * sizeof(copy));
	maps->v[i] = copy;
	maps->n++;
	maps->gen++;
	return 0;
}

void maps__remove(struct maps *maps, uint64_t start, uint64_t end)
{
	if (end <= start)
		return;
	/* A split needs memory; if that fails, drop the whole mapping rather
	 * than keep a range that is no longer mapped. */
	if (maps__punch(maps, start, end) < 0) {
		size_t i = maps__lower(maps, start);

		if (i < maps->n && maps->v[i].start < start && maps->v[i].end > end) {
			map__release(&maps->v[i]);
			memmove(&maps->v[i], &maps->v[i + 1], (maps->n - i - 1) * sizeof(struct map));
			maps->n--;
		}
	}
	maps->gen++;
}

const struct map *maps__find(const struct maps *maps, uint64_t addr)
{
	size_t i = maps__lower(maps, addr);

	if (i < maps->n && maps->v[i].start <= addr)
		return &maps->v[i];
	return NULL;
}

size_t maps__count(const struct maps *maps)
{
	return maps->n;
}

const struct map *maps__at(const struct maps *maps, size_t i)
{
	return i < maps->n ? &maps->v[i] : NULL;
}

uint64_t maps__generation(const struct maps *maps)
{
	return maps->gen;
}

bool map__is_file(const struct map *m)
{
	return m->path && m->path[0] == '/' && m->path[1] != '/';
}

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

int pp_hexdig(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

const char *pp_scan_hex(const char *p, uint64_t *v)
{
	uint64_t x = 0;
	bool over = false;

	while (blank(*p))
		p++;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && pp_hexdig(p[2]) >= 0)
		p += 2;
	const char *s = p;
	for (int d; (d = pp_hexdig(*p)) >= 0; p++) {
		over |= x >> 60 != 0;
		x = x << 4 | (unsigned)d;
	}
	if (p == s)
		return NULL;
	*v = over ? UINT64_MAX : x;
	return p;
}

const char *pp_scan_dec(const char *p, uint64_t *v)
{
	uint64_t x = 0;
	bool over = false;

	while (blank(*p))
		p++;
	const char *s = p;
	for (; *p >= '0' && *p <= '9'; p++) {
		unsigned d = (unsigned)(*p - '0');
		over |= x > (UINT64_MAX - d) / 10;
		x = x * 10 + d;
	}
	if (p == s)
		return NULL;
	*v = over ? UINT64_MAX : x;
	return p;
}

/* One line of /proc/PID/maps:
 * 7f...-7f... r-xp 00001000 08:01 1234    /usr/lib/x86_64-linux-gnu/libc.so.6
 * The path may contain spaces and ends with " (deleted)" for unlinked files.
 * Read by hand: sscanf was most of the time of reading a process's maps
 * (every process's, at the start of a system-wide run). */
int map__parse_line(char *line, struct map *m)
{
	uint64_t start, end, pgoff, maj, min, ino;
	const char *p = line, *perms;
	size_t plen = 0;
	char *path;
	size_t len;

	memset(m, 0, sizeof(*m));
	if (!(p = pp_scan_hex(p, &start)) || *p++ != '-' || !(p = pp_scan_hex(p, &end)))
		return -EINVAL;
	while (blank(*p))
		p++;
	perms = p;
	while (plen < 7 && p[plen] && !blank(p[plen]))
		plen++;
	if (!plen)
		return -EINVAL;
	p += plen;
	if (!(p = pp_scan_hex(p, &pgoff)) || !(p = pp_scan_hex(p, &maj)) || *p++ != ':' ||
	    !(p = pp_scan_hex(p, &min)) || !(p = pp_scan_dec(p, &ino)))
		return -EINVAL;
	while (blank(*p))
		p++;
	m->start = start;
	m->end = end;
	m->pgoff = pgoff;
	m->maj = (uint32_t)maj;
	m->min = (uint32_t)min;
	m->ino = ino;
	if (perms[0] == 'r')
		m->prot |= PROT_READ;
	if (plen > 1 && perms[1] == 'w')
		m->prot |= PROT_WRITE;
	if (plen > 2 && perms[2] == 'x')
		m->prot |= PROT_EXEC;
	m->flags = plen > 3 && perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
	path = line + (p - line);
	len = strlen(path);
	while (len && (path[len - 1] == '\n' || path[len - 1] == ' '))
		path[--len] = 0;
	if (!len)
		path = "//anon";
	m->path = path;
	return 0;
}

int maps__load_proc(struct maps *maps, pid_t pid)
{
	char fn[64];
	FILE *f;
	int err;

	snprintf(fn, sizeof(fn), "/proc/%d/maps", (int)pid);
	f = fopen(fn, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	err = maps__load_file(maps, f);
	fclose(f);
	return err;
}

/* PROCMAP_QUERY (Linux 6.11, include/uapi/linux/fs.h): one mapping of
 * /proc/PID/maps by address, without the kernel printing all of them.
 * Declared here: the build's headers may be older than the kernel. */
struct pp_procmap_query {
	uint64_t size;
	uint64_t query_flags;
	uint64_t query_addr;
	uint64_t vma_start;
	uint64_t vma_end;
	uint64_t vma_flags;
	uint64_t vma_page_size;
	uint64_t vma_offset;
	uint64_t inode;
	uint32_t dev_major;
	uint32_t dev_minor;
	uint32_t vma_name_size;
	uint32_t build_id_size;
	uint64_t vma_name_addr;
	uint64_t build_id_addr;
};
#define PP_PROCMAP_QUERY _IOWR('f', 17, struct pp_procmap_query)
#define PP_PROCMAP_READABLE 0x01
#define PP_PROCMAP_WRITABLE 0x02
#define PP_PROCMAP_EXECUTABLE 0x04

static int proc_vma_text(FILE *f, uint64_t addr, uint64_t *start, uint64_t *end, uint32_t *prot)
{
	char *line = NULL;
	size_t cap = 0;
	int err = -ESRCH;	/* no line: a zombie's, its memory gone (as the ioctl says) */

	while (getline(&line, &cap, f) > 0) {
		struct map m;

		err = -ENOENT;
		if (map__parse_line(line, &m) < 0 || addr >= m.end)
			continue;
		if (addr >= m.start) {
			*start = m.start;
			*end = m.end;
			*prot = m.prot;
			err = 0;
		}
		break;	/* in order: past addr */
	}
	free(line);
	return err;
}

int maps__proc_vma(pid_t pid, uint64_t addr, uint64_t *start, uint64_t *end, uint32_t *prot)
{
	struct pp_procmap_query q = { .size = sizeof(q), .query_addr = addr };
	char fn[64];
	int fd, err;
	FILE *f;

	snprintf(fn, sizeof(fn), "/proc/%d/maps", (int)pid);
	fd = open(fn, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	if (ioctl(fd, PP_PROCMAP_QUERY, &q) == 0) {
		close(fd);
		*start = q.vma_start;
		*end = q.vma_end;
		*prot = (q.vma_flags & PP_PROCMAP_READABLE ? PROT_READ : 0) |
			(q.vma_flags & PP_PROCMAP_WRITABLE ? PROT_WRITE : 0) |
			(q.vma_flags & PP_PROCMAP_EXECUTABLE ? PROT_EXEC : 0);
		return 0;
	}
	if (errno != ENOTTY && errno != EINVAL) {	/* ENOENT: nothing holds addr */
		err = -errno;
		close(fd);
		return err;
	}
	f = fdopen(fd, "re");	/* a kernel before 6.11: its text */
	if (!f) {
		err = -errno;
		close(fd);
		return err;
	}
	err = proc_vma_text(f, addr, start, end, prot);
	fclose(f);
	return err;
}

int maps__load_file(struct maps *maps, FILE *f)
{
	char *line = NULL;
	size_t cap = 0;
	int err = 0;

	maps__clear(maps);
	while (getline(&line, &cap, f) > 0) {
		struct map m;

		if (map__parse_line(line, &m) < 0)
			continue;
		/* /proc lists in order without overlap: append directly. */
		err = maps__reserve(maps, maps->n + 1);
		if (!err)
			err = map__copy(&maps->v[maps->n], &m);
		if (err)
			goto out;
		maps->n++;
	}
	if (ferror(f))
		err = -EIO;
out:
	maps->gen++;
	free(line);
	return err;
}
