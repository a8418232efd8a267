/* Reading a profile back (profile_in.h): the format by content, folded lines
 * streamed (one line in memory at a time), pprof handed whole to pprof.c. */
#define _GNU_SOURCE
#include "profile_in.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pprof.h"
#include "util.h"
#include "pprobe/flamegraph.h"

/* Bounds on what a profile file may make pprobe hold, checked before the
 * memory is spent: a folded line (a stack of thousands of frames with long
 * C++ names is a few MiB), and a pprof file's bytes as read (the same cap
 * as on what it inflates to, pprof_read.c). */
#define FOLDED_MAX_LINE (16U << 20)
#define PPROF_MAX_FILE (1ULL << 30)

/* A file read in chunks; [start, end) of buf is not consumed yet. */
struct reader {
	FILE *f;
	char *buf;
	size_t cap, start, end;
	size_t max;	/* cap grows to max + 2 at most: callers stop past max */
	bool eof;
};

/* Reads more into buf after the unconsumed part (moved to the front). */
static int reader__fill(struct reader *r)
{
	if (r->start) {
		memmove(r->buf, r->buf + r->start, r->end - r->start);
		r->end -= r->start;
		r->start = 0;
	}
	if (r->end + 1 >= r->cap) {
		if (r->cap >= r->max + 2)
			return -EOVERFLOW;	/* the caller stops before: never reached */
		r->cap = r->cap * 2 < r->max + 2 ? r->cap * 2 : r->max + 2;
		r->buf = pp_xrealloc(r->buf, r->cap);
	}
	size_t n = fread(r->buf + r->end, 1, r->cap - 1 - r->end, r->f);
	r->end += n;
	if (n == 0) {
		if (ferror(r->f))
			return -(errno ? errno : EIO);
		r->eof = true;
	}
	return 0;
}

/* One varint at p[*i]; false when it runs past n or over 10 bytes. */
static bool varint(const unsigned char *p, size_t n, size_t *i, uint64_t *v)
{
	*v = 0;
	for (int shift = 0; shift < 70 && *i < n; shift += 7) {
		unsigned char b = p[(*i)++];
		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return true;
	}
	return false;
}

/* Whether p[0..n) (the start of a file) reads as profile.proto's Profile
 * message: each field a number it has (1-15) with its wire type (length
 * delimited for the messages and strings, varints for the numbers), as far
 * as the bytes go. Text fails at once: 'a' (0x61) would be field 12 as a
 * fixed64, "python" field 14 then a group. */
static bool walks_as_profile(const unsigned char *p, size_t n)
{
	size_t i = 0, fields = 0;
	while (i < n) {
		uint64_t tag, v;
		if (!varint(p, n, &i, &tag))
			return fields > 0 && i >= n;
		uint64_t field = tag >> 3, wt = tag & 7;
		bool len_field = field <= 6 || field == 11 || field == 15;
		if (field < 1 || field > 15)
			return false;
		if (wt == 2 && (len_field || field == 13)) {	/* comment: packed int64s */
			if (!varint(p, n, &i, &v))
				return fields > 0 && i >= n;
			if (v > n - i)
				return true;	/* beyond what was read */
			i += v;
		} else if (wt == 0 && !len_field) {
			if (!varint(p, n, &i, &v))
				return fields > 0 && i >= n;
		} else {
			return false;
		}
		fields++;
	}
	return fields > 0;
}

/* pprof: gzip, or a protobuf that does not look like text (control bytes,
 * and fields in the shape of profile.proto). Folded text with a stray
 * control byte ("app;ctrl\x01char 2") stays folded. */
static bool looks_pprof(const unsigned char *p, size_t n)
{
	if (n >= 2 && p[0] == 0x1f && p[1] == 0x8b)
		return true;
	if (n > 4096)
		n = 4096;
	bool control = false;
	for (size_t i = 0; i < n && !control; i++)
		control = (p[i] < 0x20 && !strchr("\t\n\r\f\v", p[i])) || p[i] == 0x7f;
	return control && walks_as_profile(p, n);
}

/* The folded root frame: "comm", "comm-PID" (stackcollapse-perf.pl --pid),
 * "comm-PID/TID" (--tid), "comm/TID" (--per-thread), tried in that order
 * from the longest form. A comm of its own ending in "/N" or "-N" (the
 * kernel's per-CPU threads: ksoftirqd/0) cannot be told from those forms. */
static bool all_digits(const char *s, size_t n)
{
	if (!n || n > 18)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

static void parse_root(char *root, struct psample *s)
{
	size_t n = strlen(root);
	char *slash = strrchr(root, '/');
	s->pid = s->tid = -1;
	if (slash && slash > root && all_digits(slash + 1, n - (size_t)(slash + 1 - root))) {
		s->tid = strtoll(slash + 1, NULL, 10);
		*slash = '\0';
		char *dash = strrchr(root, '-');
		if (dash && dash > root && all_digits(dash + 1, (size_t)(slash - dash - 1))) {
			s->pid = strtoll(dash + 1, NULL, 10);
			*dash = '\0';
		}
	} else {
		char *dash = strrchr(root, '-');
		if (dash && dash > root && all_digits(dash + 1, n - (size_t)(dash + 1 - root))) {
			s->pid = strtoll(dash + 1, NULL, 10);
			*dash = '\0';
		}
	}
	s->comm = root;
}

/* "[libc.so.6]" -> "libc.so.6"; "[kernel.kallsyms]", "[vdso]", "[heap]" as
 * they are; frames that say why a stack ends ("[unknown]", "[truncated]",
 * "[no-cfi x]", "[off-cpu: blocked]") have no object. */
static const char *frame_dso(char *name, char *store)
{
	size_t n = strlen(name);
	if (n < 3 || name[0] != '[' || name[n - 1] != ']' || strpbrk(name, " :"))
		return NULL;
	static const char *const why[] = { "[unknown]", "[truncated]", "[unmapped]", "[no-stack]", "[unwind-error]" };
	for (size_t i = 0; i < sizeof(why) / sizeof(why[0]); i++)
		if (!strcmp(name, why[i]))
			return NULL;
	if (!strcmp(name, "[kernel.kallsyms]") || !memchr(name, '.', n))
		return name;	/* perf's spelling: [kernel.kallsyms], [vdso], [heap] */
	memcpy(store, name + 1, n - 2);
	store[n - 2] = '\0';
	return store;
}

struct folded_state {
	struct pframe *frames;
	size_t cap;
	char *line, *store;	/* a copy of the line cut into names; dso names */
	size_t line_cap;
};

char folded__suffix(const char *label, size_t n)
{
	if (n > 4 && label[n - 4] == '_' && label[n - 3] == '[' && label[n - 1] == ']' && strchr("kij", label[n - 2]))
		return label[n - 2];
	return 0;
}

static void parse_frame(struct pframe *f, char *name, char *store)
{
	size_t n = strlen(name);
	char k = folded__suffix(name, n);
	*f = (struct pframe){ .name = name, .kernel = k == 'k', .inlined = k == 'i', .jit = k == 'j' };
	if (k)
		name[n - 4] = '\0';
	f->dso = frame_dso(name, store);
}

/* One folded line (len excludes '\n'): fn's return, or 0 (ignored lines
 * are counted). */
static int folded_line(struct folded_state *st, const char *text, size_t len, psample_fn fn, void *ctx,
		       struct profile_info *info)
{
	size_t sl;
	double c1, c2;
	bool has2;
	info->lines++;
	if (folded_line__parse(text, len, &sl, &c1, &c2, &has2)) {
		info->ignored++;
		return 0;
	}
	if (sl + 1 > st->line_cap) {
		st->line_cap = (sl + 1) * 2;
		st->line = pp_xrealloc(st->line, st->line_cap);
		st->store = pp_xrealloc(st->store, st->line_cap);
	}
	memcpy(st->line, text, sl);
	st->line[sl] = '\0';
	/* Each ';' becomes the end of a name. */
	struct psample s = { .weight = has2 ? c2 : c1 };	/* flamegraph.pl draws the last column */
	char *p = st->line, *semi = strchr(p, ';');
	if (semi)
		*semi = '\0';
	parse_root(p, &s);
	size_t nr = 0, used = 0;
	while (semi) {
		p = semi + 1;
		semi = strchr(p, ';');
		if (semi)
			*semi = '\0';
		if (nr == st->cap) {
			st->cap = st->cap ? st->cap * 2 : 64;
			st->frames = pp_xrealloc(st->frames, st->cap * sizeof(*st->frames));
		}
		parse_frame(&st->frames[nr], p, st->store + used);
		if (st->frames[nr].dso == st->store + used)
			used += strlen(st->store + used) + 1;
		nr++;
	}
	s.frames = st->frames;
	s.nr = nr;
	return fn(ctx, &s);
}

/* Folded input, streamed: each complete line as it arrives. A line with a
 * NUL byte is not folded text (every reader: one grammar), and one longer
 * than FOLDED_MAX_LINE ends the reading (-EOVERFLOW, info->lines its
 * number less one). */
static int read_folded(struct reader *r, pline_fn line_fn, psample_fn fn, void *ctx, struct profile_info *info)
{
	struct folded_state st = { 0 };
	int ret = 0;
	size_t scanned = 0;	/* of [start, end): bytes known to hold no '\n' */
	for (;;) {
		char *nl = memchr(r->buf + r->start + scanned, '\n', r->end - r->start - scanned);
		if (!nl && r->end - r->start > FOLDED_MAX_LINE) {
			ret = -EOVERFLOW;
			break;
		}
		if (!nl && !r->eof) {
			scanned = r->end - r->start;
			if ((ret = reader__fill(r)))
				break;
			continue;
		}
		scanned = 0;
		if (!nl && r->start == r->end)
			break;
		size_t len = nl ? (size_t)(nl - (r->buf + r->start)) : r->end - r->start;
		char *text = r->buf + r->start;
		text[len] = '\0';	/* the '\n', or the byte kept free after the data */
		r->start += len + (nl ? 1 : 0);
		if (len > FOLDED_MAX_LINE) {
			ret = -EOVERFLOW;
			break;
		}
		if (memchr(text, '\0', len)) {
			info->lines++;
			info->ignored++;
			continue;
		}
		if (line_fn) {
			info->lines++;
			ret = line_fn(ctx, text);
		} else {
			ret = folded_line(&st, text, len, fn, ctx, info);
		}
		if (ret)
			break;
	}
	free(st.frames);
	free(st.line);
	free(st.store);
	return ret;
}

static int read_any(const char *path, pline_fn line_fn, psample_fn fn, void *ctx, struct profile_info *info,
		    char *err, size_t errlen)
{
	struct profile_info dummy;
	if (!info)
		info = &dummy;
	*info = (struct profile_info){ .format = PROFILE_FOLDED };
	snprintf(info->sample_type, sizeof(info->sample_type), "samples");
	snprintf(info->sample_unit, sizeof(info->sample_unit), "count");
	bool is_stdin = !strcmp(path, "-");
	struct reader r = { .f = is_stdin ? stdin : fopen(path, "r"), .cap = 1 << 16 };
	if (!r.f) {
		int e = errno;
		seterr(err, errlen, "cannot open %s: %s", path, strerror(e));
		return -e;
	}
	r.buf = pp_xmalloc(r.cap);
	r.max = PPROF_MAX_FILE;
	int ret = 0;
	/* Enough of the start to tell the format. */
	while (!r.eof && r.end < 4096 && !ret)
		ret = reader__fill(&r);
	/* perf record's own file (its magic, either byte order): not read as
	 * folded lines of garbage, said with what to do instead */
	if (!ret && r.end >= 8 && (!memcmp(r.buf, "PERFILE2", 8) || !memcmp(r.buf, "2ELIFREP", 8))) {
		seterr(err, errlen,
		       "%s is a perf.data file (perf record's): pprobe reads folded stacks and pprof; fold it with "
		       "'perf script -i %s | stackcollapse-perf.pl', or profile with 'pprobe record'",
		       path, path);
		ret = -EINVAL;
		goto out;
	}
	if (!ret && looks_pprof((const unsigned char *)r.buf, r.end)) {
		while (!r.eof && !ret && r.end <= PPROF_MAX_FILE)
			ret = reader__fill(&r);
		if (!ret && r.end > PPROF_MAX_FILE) {
			seterr(err, errlen, "%s: more than %llu MiB of pprof data (the cap): not read", path,
			       PPROF_MAX_FILE >> 20);
			ret = -EFBIG;
			goto out;
		}
		if (!ret) {
			char why[400] = "";
			ret = pprof__read((const uint8_t *)r.buf, r.end, fn, ctx, info, why, sizeof(why));
			if (ret < 0)
				seterr(err, errlen, "%s: %s", path, *why ? why : strerror(-ret));
			goto out;
		}
	} else if (!ret) {
		r.max = FOLDED_MAX_LINE;	/* what is not consumed yet: one line */
		ret = read_folded(&r, line_fn, fn, ctx, info);
	}
	if (ret == -EOVERFLOW)
		seterr(err, errlen, "%s: line %llu is longer than %u MiB (the cap on a folded line): not folded stacks",
		       path, (unsigned long long)info->lines + 1, FOLDED_MAX_LINE >> 20);
	else if (ret < 0 && err && errlen)
		seterr(err, errlen, "reading %s: %s", path, strerror(-ret));
out:
	free(r.buf);
	if (!is_stdin)
		fclose(r.f);
	return ret;
}

int profile_in__read(const char *path, psample_fn fn, void *ctx, struct profile_info *info, char *err,
		     size_t errlen)
{
	if (err && errlen)
		*err = '\0';
	return read_any(path, NULL, fn, ctx, info, err, errlen);
}

int profile_in__read_lines(const char *path, pline_fn line_fn, psample_fn fn, void *ctx,
			   struct profile_info *info, char *err, size_t errlen)
{
	if (err && errlen)
		*err = '\0';
	return read_any(path, line_fn, fn, ctx, info, err, errlen);
}

static void put(char **buf, size_t *cap, size_t *len, const char *s, size_t n)
{
	if (*len + n + 1 > *cap) {
		*cap = (*len + n + 1) * 2;
		*buf = pp_xrealloc(*buf, *cap);
	}
	memcpy(*buf + *len, s, n);
	*len += n;
	(*buf)[*len] = '\0';
}

static void put_name(char **buf, size_t *cap, size_t *len, const char *s, bool comm)
{
	size_t from = *len;
	put(buf, cap, len, s, strlen(s));
	for (char *p = *buf + from; *p; p++)
		if (*p == ';')
			*p = ':';
		else if (*p == '\n' || *p == '\r' || *p == '\t' || (comm && *p == ' '))
			*p = comm ? '_' : ' ';
}

size_t psample__folded(const struct psample *s, char **buf, size_t *cap)
{
	size_t len = 0;
	put_name(buf, cap, &len, s->comm ? s->comm : "[unknown]", true);
	for (size_t i = 0; i < s->nr; i++) {
		const struct pframe *f = &s->frames[i];
		put(buf, cap, &len, ";", 1);
		if (f->name) {
			put_name(buf, cap, &len, f->name, false);
		} else if (f->dso && f->dso[0] != '[') {
			put(buf, cap, &len, "[", 1);
			put_name(buf, cap, &len, f->dso, false);
			put(buf, cap, &len, "]", 1);
		} else {
			put_name(buf, cap, &len, f->dso ? f->dso : "[unknown]", false);
		}
		if (f->kernel)
			put(buf, cap, &len, "_[k]", 4);
		else if (f->inlined)
			put(buf, cap, &len, "_[i]", 4);
		else if (f->jit)
			put(buf, cap, &len, "_[j]", 4);
	}
	return len;
}
