/* Reading pprof: gzip (or raw) profile.proto into the sample stream of
 * profile_in.h. Input may come from anywhere: the decompressed size is
 * capped and every index (string table, location, function and mapping ids,
 * value counts) is checked before it is used, an error rather than a crash. */
#define _GNU_SOURCE
#include "pprof.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "profile.pb-c.h"
#include "util.h"

#define PPROF_MAX_INFLATED (1ULL << 30)	/* 1 GiB of protobuf */
#define PPROF_MAX_FRAMES (1U << 20)	/* frames in one sample, inline frames included */

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Function Function;
typedef Perftools__Profiles__Mapping Mapping;

/* What decoding may spend, bounded before protobuf-c is let at the bytes:
 * its unpack keeps a record per field it scans (32 bytes), allocates
 * every message and string (a pointer in an array, the object, malloc's
 * overhead) and 8 bytes per element of a packed array. A 65 KB .pb.gz of
 * 32M empty strings inflated to 64 MiB and took 2.44 GB to decode. */
#define PPROF_MAX_DECODED (1ULL << 30)
#define PB_FIELD_COST 32
#define PB_OBJECT_COST 104
#define PB_STRING_COST 56	/* and the string's bytes */

struct pb_cost {
	uint64_t bytes;
	bool bad;	/* not a protobuf: unpack refuses it (at a cost we bound too) */
};

static bool pb_varint(const uint8_t *p, size_t n, size_t *i, uint64_t *v)
{
	*v = 0;
	for (int shift = 0; shift < 64 && *i < n; shift += 7) {
		uint8_t b = p[(*i)++];
		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return true;
	}
	return false;
}

/* The message p[0..n) of type kind (0 Profile, 1 Sample, 2 Location, 3
 * another), its fields and what they decode to, added to c. */
static void pb_walk(const uint8_t *p, size_t n, int kind, struct pb_cost *c)
{
	size_t i = 0;
	while (i < n && !c->bad && c->bytes <= PPROF_MAX_DECODED) {
		uint64_t tag, v;
		if (!pb_varint(p, n, &i, &tag)) {
			c->bad = true;
			return;
		}
		uint64_t field = tag >> 3;
		c->bytes += PB_FIELD_COST;
		switch (tag & 7) {
		case 0:
			if (!pb_varint(p, n, &i, &v))
				c->bad = true;
			c->bytes += 8;	/* an element of a repeated number, or a number */
			break;
		case 1:
			i += 8;
			break;
		case 5:
			i += 4;
			break;
		case 2: {
			if (!pb_varint(p, n, &i, &v) || v > n - i) {
				c->bad = true;
				return;
			}
			const uint8_t *sub = p + i;
			i += v;
			/* Sample's location_id and value, Profile's comment */
			bool packed = (kind == 1 && (field == 1 || field == 2)) || (kind == 0 && field == 13);
			if (packed) {
				c->bytes += 8 * v;	/* at most a number per byte */
			} else if (kind == 0 && field == 6) {
				c->bytes += PB_STRING_COST + v;
			} else if (kind == 0 && field >= 1 && field <= 5) {
				c->bytes += PB_OBJECT_COST;
				pb_walk(sub, v, field == 2 ? 1 : field == 4 ? 2 : 3, c);
			} else if ((kind == 1 && field == 3) || (kind == 2 && field == 4) || (kind == 0 && field == 11)) {
				c->bytes += PB_OBJECT_COST;
				pb_walk(sub, v, 3, c);
			} else {
				c->bytes += PB_STRING_COST + v;	/* unknown: kept as bytes */
			}
			break;
		}
		default:
			c->bad = true;	/* groups: not in profile.proto */
			return;
		}
		if (i > n)
			c->bad = true;
	}
}

/* gzip -> *out (malloc'd). 0 or -errno with the reason in err. */
static int inflate_all(const uint8_t *buf, size_t len, uint8_t **out, size_t *out_len, char *err, size_t errlen)
{
	z_stream zs;
	memset(&zs, 0, sizeof(zs));
	if (inflateInit2(&zs, 15 + 32) != Z_OK)	/* zlib or gzip header */
		return seterr(err, errlen, "cannot start zlib"), -ENOMEM;
	size_t cap = len * 4 + 4096, n = 0;
	if (cap > PPROF_MAX_INFLATED)
		cap = PPROF_MAX_INFLATED;
	uint8_t *o = pp_xmalloc(cap);
	int zr = Z_OK, ret = 0;
	zs.next_in = (Bytef *)buf;
	while (zr != Z_STREAM_END) {
		if (n == cap) {
			if (cap >= PPROF_MAX_INFLATED) {
				ret = (seterr(err, errlen, "pprof data inflates to more than %llu MiB: not read",
					     PPROF_MAX_INFLATED >> 20), -EFBIG);
				break;
			}
			cap = cap * 2 > PPROF_MAX_INFLATED ? PPROF_MAX_INFLATED : cap * 2;
			o = pp_xrealloc(o, cap);
		}
		/* avail_in and avail_out are 32-bit: feed at most 1 GiB at a time */
		size_t in_left = len - (size_t)(zs.next_in - buf);
		zs.avail_in = (uInt)(in_left > (1U << 30) ? 1U << 30 : in_left);
		size_t room = cap - n;
		zs.next_out = o + n;
		zs.avail_out = (uInt)(room > (1U << 30) ? 1U << 30 : room);
		zr = inflate(&zs, Z_NO_FLUSH);
		n = (size_t)(zs.next_out - o);
		if (zr == Z_BUF_ERROR && zs.avail_in == 0 && n < cap) {
			ret = (seterr(err, errlen, "truncated gzip data"), -EINVAL);
			break;
		}
		if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR) {
			ret = (seterr(err, errlen, "bad gzip data (%s)", zs.msg ? zs.msg : "zlib error"), -EINVAL);
			break;
		}
	}
	inflateEnd(&zs);
	if (ret) {
		free(o);
		return ret;
	}
	*out = o;
	*out_len = n;
	return 0;
}

struct reader {
	const Profile *p;
	char *err;
	size_t errlen;
	struct u64map loc_by_id, fn_by_id, map_by_id;	/* id -> index + 1 */
	struct pmapping *maps;	/* of each Mapping, by index */
	/* each location's frames, outermost first: [loc_start[i], loc_start[i + 1]) */
	size_t *loc_start;
	struct pframe *frames;
	size_t nr_frames;
};

/* Index of the string table; 0 is "" even in a profile without a table. */
static int str_at(struct reader *r, int64_t i, const char *what, const char **out)
{
	if (i == 0 && r->p->n_string_table == 0) {
		*out = "";
		return 0;
	}
	if (i < 0 || (uint64_t)i >= r->p->n_string_table)
		return seterr(r->err, r->errlen, "bad pprof: %s names string %lld of a table of %zu", what,
			      (long long)i, r->p->n_string_table), -EINVAL;
	*out = r->p->string_table[i];
	return 0;
}

static int index_ids(struct reader *r, struct u64map *m, size_t n, const uint64_t *(*id_of)(const Profile *, size_t),
		     const char *what)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t id = *id_of(r->p, i);
		if (!id || u64map__get(m, id))
			return seterr(r->err, r->errlen, "bad pprof: %s id %llu is %s", what, (unsigned long long)id,
				      id ? "used twice" : "zero"), -EINVAL;
		u64map__put(m, id, (void *)(uintptr_t)(i + 1));
	}
	return 0;
}

static const uint64_t *loc_id(const Profile *p, size_t i) { return &p->location[i]->id; }
static const uint64_t *fn_id(const Profile *p, size_t i) { return &p->function[i]->id; }
static const uint64_t *map_id(const Profile *p, size_t i) { return &p->mapping[i]->id; }

static const char *basename_of(const char *path)
{
	const char *b = strrchr(path, '/');
	return b && b[1] ? b + 1 : path;
}

/* A kernel address on x86-64 and arm64: the upper half. */
static bool kernel_addr(uint64_t a)
{
	return a >= 0xffff800000000000ULL;
}

/* The frames of location i, outermost first: the physical function (the
 * last line), then the functions inlined into it. */
static int expand_location(struct reader *r, size_t i, size_t *cap)
{
	const Location *l = r->p->location[i];
	const char *dso = NULL;
	const struct pmapping *pm = NULL;
	bool kernel = kernel_addr(l->address), jit = false;
	if (l->mapping_id) {
		uintptr_t mi = (uintptr_t)u64map__get(&r->map_by_id, l->mapping_id);
		if (!mi)
			return seterr(r->err, r->errlen, "bad pprof: location %llu is in mapping %llu, which is not in "
				      "the profile", (unsigned long long)l->id, (unsigned long long)l->mapping_id),
			       -EINVAL;
		pm = &r->maps[mi - 1];
		const char *file;
		int err = str_at(r, r->p->mapping[mi - 1]->filename, "a mapping's filename", &file);
		if (err)
			return err;
		if (*file) {
			dso = basename_of(file);
			kernel |= !strcmp(file, "[kernel.kallsyms]") || !strncmp(file, "[kernel.kallsyms]", 17);
			jit = !strncmp(dso, "perf-", 5) && strlen(dso) > 4 && !strcmp(dso + strlen(dso) - 4, ".map");
		}
	}
	size_t need = r->nr_frames + (l->n_line ? l->n_line : 1);
	if (need > *cap) {
		*cap = need * 2;
		r->frames = pp_xrealloc(r->frames, *cap * sizeof(*r->frames));
	}
	if (!l->n_line) {
		/* not symbolized: the object, as folded names an unknown frame */
		struct pframe *f = &r->frames[r->nr_frames++];
		*f = (struct pframe){ .name = NULL, .dso = dso, .kernel = kernel, .jit = jit, .addr = l->address,
				      .map = pm };
		return 0;
	}
	for (size_t k = l->n_line; k-- > 0;) {
		uintptr_t fi = (uintptr_t)u64map__get(&r->fn_by_id, l->line[k]->function_id);
		if (!fi)
			return seterr(r->err, r->errlen, "bad pprof: location %llu names function %llu, which is not "
				      "in the profile", (unsigned long long)l->id,
				      (unsigned long long)l->line[k]->function_id), -EINVAL;
		const char *name;
		int err = str_at(r, r->p->function[fi - 1]->name, "a function's name", &name);
		if (err)
			return err;
		struct pframe *f = &r->frames[r->nr_frames++];
		*f = (struct pframe){ .name = name, .dso = dso, .kernel = kernel, .inlined = k + 1 < l->n_line, .jit = jit,
				      .addr = l->address, .map = pm };
	}
	return 0;
}

/* Frames without a name get the folded spelling: "[libc.so.6]", "[unknown]". */
static void name_unknown(struct reader *r, struct strtab *names)
{
	for (size_t i = 0; i < r->nr_frames; i++) {
		struct pframe *f = &r->frames[i];
		if (f->name && *f->name)
			continue;
		char buf[512];
		snprintf(buf, sizeof(buf), "[%s]", f->dso ? f->dso : "unknown");
		f->name = strtab__str(names, strtab__intern(names, buf));
	}
}

static int index_profile(struct reader *r, struct strtab *names)
{
	const Profile *p = r->p;
	int err = index_ids(r, &r->loc_by_id, p->n_location, loc_id, "location");
	if (!err)
		err = index_ids(r, &r->fn_by_id, p->n_function, fn_id, "function");
	if (!err)
		err = index_ids(r, &r->map_by_id, p->n_mapping, map_id, "mapping");
	if (err)
		return err;
	r->maps = pp_xcalloc(p->n_mapping + 1, sizeof(*r->maps));
	for (size_t i = 0; i < p->n_mapping; i++) {
		const Mapping *m = p->mapping[i];
		struct pmapping *pm = &r->maps[i];
		*pm = (struct pmapping){ .start = m->memory_start, .limit = m->memory_limit, .offset = m->file_offset };
		/* a bad index is an error where a location uses the mapping
		 * (expand_location), as before mappings were read for annotate */
		pm->file = m->filename >= 0 && (uint64_t)m->filename < p->n_string_table ? p->string_table[m->filename] : "";
		pm->build_id = m->build_id >= 0 && (uint64_t)m->build_id < p->n_string_table ?
				       p->string_table[m->build_id] : "";
	}
	r->loc_start = pp_xcalloc(p->n_location + 1, sizeof(*r->loc_start));
	size_t cap = 0;
	for (size_t i = 0; i < p->n_location; i++) {
		r->loc_start[i] = r->nr_frames;
		err = expand_location(r, i, &cap);
		if (err)
			return err;
	}
	r->loc_start[p->n_location] = r->nr_frames;
	name_unknown(r, names);
	return 0;
}

/* pid, tid and comm from the labels ("pid", "tid" as pprobe writes them;
 * "thread_id" as Pyroscope's agents do), numbers or numeric strings. */
static int sample_labels(struct reader *r, const Perftools__Profiles__Sample *s, struct psample *ps)
{
	for (size_t i = 0; i < s->n_label; i++) {
		const Perftools__Profiles__Label *l = s->label[i];
		const char *key, *str;
		int err = str_at(r, l->key, "a label's key", &key);
		if (!err)
			err = str_at(r, l->str, "a label's value", &str);
		if (err)
			return err;
		int64_t num = l->num;
		if (*str) {
			char *end;
			long long v = strtoll(str, &end, 10);
			num = *end ? -1 : v;
		}
		if (!strcmp(key, "comm") && *str)
			ps->comm = str;
		else if (!strcmp(key, "pid"))
			ps->pid = num;
		else if (!strcmp(key, "tid") || !strcmp(key, "thread_id"))
			ps->tid = num;
	}
	return 0;
}

/* Which value is the weight: default_sample_type's, else the last (as go
 * tool pprof); and which counts samples (samples/count, as pprobe, Go and
 * Pyroscope write it), *ci, if any. */
static int pick_value(struct reader *r, struct profile_info *info, size_t *vi, size_t *ci)
{
	const Profile *p = r->p;
	*vi = p->n_sample_type ? p->n_sample_type - 1 : 0;
	const char *want = "";
	int err = str_at(r, p->default_sample_type, "default_sample_type", &want);
	if (err)
		return err;
	for (size_t i = 0; i < p->n_sample_type; i++) {
		const char *type, *unit;
		err = str_at(r, p->sample_type[i]->type, "a sample type", &type);
		if (!err)
			err = str_at(r, p->sample_type[i]->unit, "a sample unit", &unit);
		if (err)
			return err;
		if (*want && !strcmp(type, want))
			*vi = i;
		if (!info->has_samples && !strcmp(type, "samples") && !strcmp(unit, "count")) {
			info->has_samples = true;
			*ci = i;
		}
	}
	const char *type = "samples", *unit = "count";
	if (p->n_sample_type) {
		err = str_at(r, p->sample_type[*vi]->type, "a sample type", &type);
		if (!err)
			err = str_at(r, p->sample_type[*vi]->unit, "a sample unit", &unit);
		if (err)
			return err;
	}
	snprintf(info->sample_type, sizeof(info->sample_type), "%s", type);
	snprintf(info->sample_unit, sizeof(info->sample_unit), "%s", unit);
	return 0;
}

static int read_samples(struct reader *r, size_t vi, const size_t *ci, psample_fn fn, void *ctx)
{
	const Profile *p = r->p;
	struct pframe *buf = NULL;
	size_t cap = 0;
	int ret = 0;
	for (size_t i = 0; i < p->n_sample && !ret; i++) {
		const Perftools__Profiles__Sample *s = p->sample[i];
		if (s->n_value != p->n_sample_type) {
			ret = (seterr(r->err, r->errlen, "bad pprof: sample %zu has %zu values for %zu sample types", i,
				     s->n_value, p->n_sample_type), -EINVAL);
			break;
		}
		struct psample ps = { .pid = -1, .tid = -1, .weight = s->n_value ? (double)s->value[vi] : 0,
				      .samples = ci && s->n_value ? (double)s->value[*ci] : 0 };
		size_t n = 0;
		for (size_t k = s->n_location_id; k-- > 0 && !ret;) {	/* leaf first in the profile */
			uintptr_t li = (uintptr_t)u64map__get(&r->loc_by_id, s->location_id[k]);
			if (!li) {
				ret = (seterr(r->err, r->errlen, "bad pprof: sample %zu names location %llu, which is "
					     "not in the profile", i, (unsigned long long)s->location_id[k]), -EINVAL);
				break;
			}
			size_t from = r->loc_start[li - 1], to = r->loc_start[li];
			if (n + (to - from) > PPROF_MAX_FRAMES) {
				ret = (seterr(r->err, r->errlen, "bad pprof: sample %zu has more than %u frames", i,
					     PPROF_MAX_FRAMES), -E2BIG);
				break;
			}
			if (n + (to - from) > cap) {
				cap = (n + (to - from)) * 2;
				buf = pp_xrealloc(buf, cap * sizeof(*buf));
			}
			memcpy(buf + n, r->frames + from, (to - from) * sizeof(*buf));
			n += to - from;
		}
		if (!ret)
			ret = sample_labels(r, s, &ps);
		if (ret)
			break;
		ps.frames = buf;
		ps.nr = n;
		ret = fn(ctx, &ps);
	}
	free(buf);
	return ret;
}

int pprof__read(const uint8_t *buf, size_t len, psample_fn fn, void *ctx,
		struct profile_info *info, char *err, size_t errlen)
{
	uint8_t *raw = NULL;
	size_t raw_len = len;
	int ret;
	if (len >= 2 && buf[0] == 0x1f && buf[1] == 0x8b) {
		ret = inflate_all(buf, len, &raw, &raw_len, err, errlen);
		if (ret)
			return ret;
	} else if (len > PPROF_MAX_INFLATED) {
		return seterr(err, errlen, "pprof data of more than %llu MiB: not read", PPROF_MAX_INFLATED >> 20),
		       -EFBIG;
	}
	struct pb_cost cost = { 0 };
	pb_walk(raw ? raw : buf, raw_len, 0, &cost);
	if (cost.bad) {
		free(raw);
		return seterr(err, errlen, "not a pprof profile (the protobuf does not decode)"), -EINVAL;
	}
	if (cost.bytes > PPROF_MAX_DECODED) {
		free(raw);
		return seterr(err, errlen,
			      "a pprof profile whose decoding takes more than %llu MiB (the cap; %zu bytes of "
			      "protobuf): not read", PPROF_MAX_DECODED >> 20, raw_len),
		       -EFBIG;
	}
	Profile *p = perftools__profiles__profile__unpack(NULL, raw_len, raw ? raw : buf);
	free(raw);
	if (!p)
		return seterr(err, errlen, "not a pprof profile (the protobuf does not decode)"), -EINVAL;

	struct reader r = { .p = p, .err = err, .errlen = errlen };
	struct strtab names;
	strtab__init(&names);
	u64map__init(&r.loc_by_id);
	u64map__init(&r.fn_by_id);
	u64map__init(&r.map_by_id);
	memset(info, 0, sizeof(*info));
	info->format = PROFILE_PPROF;
	size_t vi = 0, ci = 0;
	ret = index_profile(&r, &names);
	if (!ret)
		ret = pick_value(&r, info, &vi, &ci);
	if (!ret)
		ret = read_samples(&r, vi, info->has_samples ? &ci : NULL, fn, ctx);
	u64map__free(&r.loc_by_id);
	u64map__free(&r.fn_by_id);
	u64map__free(&r.map_by_id);
	free(r.loc_start);
	free(r.maps);
	free(r.frames);
	strtab__free(&names);
	perftools__profiles__profile__free_unpacked(p, NULL);
	return ret;
}
