/* jitdump.h: reading a JIT runtime's jitdump file (/tmp/jit-PID.dump), the
 * format of tools/perf/util/jitdump.h, bounded: the file is the traced
 * program's, so every size is checked against what was read and the number
 * of records is capped. Either byte order (the magic says which). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jitdump.h"

#define JITDUMP_MAGIC 0x4A695444u	/* "JiTD" as the writer's u32 */
#define JITDUMP_MAGIC_SWAPPED 0x4454694Au
#define JITDUMP_VERSION 1
#define HEADER_SIZE 40		/* magic, version, total_size, elf_mach, pad1, pid, timestamp, flags */
#define PREFIX_SIZE 16		/* id, total_size, timestamp */
#define LOAD_SIZE 40		/* after the prefix: pid, tid, vma, code_addr, code_size, code_index */
#define MOVE_SIZE 48		/* pid, tid, vma, old_code_addr, new_code_addr, code_size, code_index */

enum { JIT_CODE_LOAD, JIT_CODE_MOVE, JIT_CODE_DEBUG_INFO, JIT_CODE_CLOSE, JIT_CODE_UNWINDING_INFO };

struct reader {
	FILE *f;
	bool swap;
	bool cut;	/* the file ended inside a record */
};

static uint32_t get32(const struct reader *r, const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return r->swap ? __builtin_bswap32(v) : v;
}

static uint64_t get64(const struct reader *r, const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return r->swap ? __builtin_bswap64(v) : v;
}

/* n bytes or nothing: 1 read, 0 end of file (cut: some were there), -errno. */
static int read_full(struct reader *r, void *buf, size_t n)
{
	size_t got = fread(buf, 1, n, r->f);

	if (got == n)
		return 1;
	if (ferror(r->f))
		return -EIO;
	r->cut = got > 0;
	return 0;
}

/* Skips n bytes: 1, or 0 when the file ends first. */
static int skip(struct reader *r, uint64_t n)
{
	char buf[4096];

	/* fseeko past the end succeeds: read what is skipped of a short
	 * tail, seek over the rest after checking the size */
	while (n) {
		size_t k = n < sizeof(buf) ? (size_t)n : sizeof(buf);
		int ok;

		if (n > (1u << 20)) {
			off_t here = ftello(r->f), end;

			if (here < 0 || fseeko(r->f, 0, SEEK_END) || (end = ftello(r->f)) < 0)
				return -EIO;
			if ((uint64_t)(end - here) < n) {
				r->cut = true;
				return 0;
			}
			return fseeko(r->f, here + (off_t)n, SEEK_SET) ? -EIO : 1;
		}
		ok = read_full(r, buf, k);
		if (ok <= 0) {
			r->cut = ok == 0;
			return ok;
		}
		n -= k;
	}
	return 1;
}

/* The name after a code load's fields: up to its NUL within left bytes
 * (cut at JITDUMP_MAX_NAME), the record's rest skipped. 1, 0 (end of
 * file), -EINVAL (no NUL in the record), -errno. */
static int read_name(struct reader *r, uint64_t left, char *name, size_t *len)
{
	uint64_t used = 0;
	size_t n = 0;
	int c;

	while (used < left && (c = getc(r->f)) != EOF) {
		used++;
		if (!c) {
			name[n] = 0;
			*len = n;
			return skip(r, left - used);
		}
		if (n < JITDUMP_MAX_NAME)
			name[n++] = (char)c;
	}
	if (used < left) {
		r->cut = true;
		return ferror(r->f) ? -EIO : 0;
	}
	return -EINVAL;
}

static int read_header(struct reader *r, char *why, size_t whylen)
{
	unsigned char h[HEADER_SIZE];
	uint32_t magic, version, size;
	int ok = read_full(r, h, sizeof(h));

	if (ok < 0)
		return ok;
	if (!ok) {
		snprintf(why, whylen, "shorter than a jitdump header");
		return -EINVAL;
	}
	memcpy(&magic, h, sizeof(magic));
	if (magic != JITDUMP_MAGIC && magic != JITDUMP_MAGIC_SWAPPED) {
		snprintf(why, whylen, "no jitdump magic");
		return -EINVAL;
	}
	r->swap = magic == JITDUMP_MAGIC_SWAPPED;
	version = get32(r, h + 4);
	size = get32(r, h + 8);
	if (version != JITDUMP_VERSION) {
		snprintf(why, whylen, "jitdump version %u, not %d", version, JITDUMP_VERSION);
		return -EINVAL;
	}
	if (size < HEADER_SIZE) {
		snprintf(why, whylen, "jitdump header of %u bytes, under %d", size, HEADER_SIZE);
		return -EINVAL;
	}
	ok = skip(r, size - HEADER_SIZE);	/* a later writer's fields */
	if (ok <= 0) {
		snprintf(why, whylen, "jitdump header cut short");
		return ok < 0 ? ok : -EINVAL;
	}
	return 0;
}

/* A code load or move whose fields (after the prefix) were read into b, its
 * record's remaining bytes in left, given to fn (its answer in *stop).
 * 1 go on, 0 the file ended, -errno. */
static int code_record(struct reader *r, uint32_t id, const unsigned char *b, uint64_t left, char *name,
		       jitdump_fn *fn, void *arg, struct jitdump_stats *st, int *stop)
{
	struct jitdump_code c = { 0 };
	int ok;

	if (id == JIT_CODE_LOAD) {
		c.addr = get64(r, b + 16);
		c.size = get64(r, b + 24);
		c.index = get64(r, b + 32);
		ok = read_name(r, left, name, &c.namelen);
		if (ok == -EINVAL) {
			st->bad++;	/* no NUL: the record is read to its end, go on */
			return 1;
		}
		if (ok <= 0)
			return ok;
		c.name = name;
		st->loads++;
	} else {
		c.old_addr = get64(r, b + 16);
		c.addr = get64(r, b + 24);
		c.size = get64(r, b + 32);
		c.index = get64(r, b + 40);
		c.moved = true;
		ok = skip(r, left);
		if (ok <= 0)
			return ok;
		st->moves++;
	}
	if (!c.size || c.addr + c.size < c.addr) {	/* empty, or past the end of the address space */
		st->bad++;
		return 1;
	}
	*stop = fn(arg, &c);
	return 1;
}

/* One record: 1 read, 0 the end (of the file, a cut record, CLOSE, a size
 * that leads nowhere), -errno. fn's nonzero answer in *stop. */
static int read_record(struct reader *r, char *name, jitdump_fn *fn, void *arg, struct jitdump_stats *st, int *stop)
{
	unsigned char p[PREFIX_SIZE], b[MOVE_SIZE];
	uint32_t id, size;
	uint64_t body;
	size_t fixed;
	int ok = read_full(r, p, sizeof(p));

	if (ok <= 0)
		return ok;
	id = get32(r, p);
	size = get32(r, p + 4);
	if (size < PREFIX_SIZE) {	/* no way to the next record */
		st->bad++;
		return 0;
	}
	body = size - PREFIX_SIZE;
	st->records++;
	if (id == JIT_CODE_CLOSE) {
		st->closed = true;
		return 0;
	}
	fixed = id == JIT_CODE_LOAD ? LOAD_SIZE : id == JIT_CODE_MOVE ? MOVE_SIZE : 0;
	if (!fixed)	/* debug info, unwinding info, a later kind: not names */
		return skip(r, body);
	if (body < fixed) {
		st->bad++;
		return skip(r, body);
	}
	ok = read_full(r, b, fixed);
	if (ok <= 0)
		return ok;
	return code_record(r, id, b, body - fixed, name, fn, arg, st, stop);
}

int jitdump__read(int fd, jitdump_fn *fn, void *arg, struct jitdump_stats *stats, char *why, size_t whylen)
{
	struct jitdump_stats local, *st = stats ? stats : &local;
	struct reader r = { 0 };
	char *name = NULL;
	int dfd, err, stop = 0, ok;

	memset(st, 0, sizeof(*st));
	if (whylen)
		why[0] = 0;
	if (lseek(fd, 0, SEEK_SET) < 0)
		return -errno;
	dfd = dup(fd);
	if (dfd < 0)
		return -errno;
	r.f = fdopen(dfd, "r");
	if (!r.f) {
		err = -errno;
		close(dfd);
		return err;
	}
	name = malloc(JITDUMP_MAX_NAME + 1);
	err = name ? read_header(&r, why, whylen) : -ENOMEM;
	while (!err && !stop) {
		if (st->records >= JITDUMP_MAX_RECORDS) {
			char one;

			st->capped = read_full(&r, &one, 1) == 1;
			break;
		}
		ok = read_record(&r, name, fn, arg, st, &stop);
		if (ok < 0)
			err = ok;
		else if (!ok)
			break;
	}
	st->partial = r.cut;
	free(name);
	fclose(r.f);
	return err ? err : stop;
}

bool jitdump__is_name(const char *path)
{
	const char *base = strrchr(path, '/');
	size_t n;

	base = base ? base + 1 : path;
	n = strlen(base);
	return n > 9 && !strncmp(base, "jit-", 4) && !strcmp(base + n - 5, ".dump");
}
