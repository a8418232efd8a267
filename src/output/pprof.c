/* Writing pprof: one event's stacks as profile.proto, gzip-compressed.
 *
 * Each unique stack (comm, pid, tid, frames) is one Sample with labels pid,
 * tid (numbers) and comm (a string); each frame one Location at its runtime
 * address (the exact ip for a leaf, the return address for a caller, as Go's
 * own profiles store them; the lines are already those of the call), its
 * lines callee first (line[0] the innermost inlined function, the last the
 * physical one); functions deduplicated by (name, system_name, file), with
 * the start line DWARF declares (DW_AT_decl_line, an inlined one's from its
 * abstract origin); one Mapping per (pid, mapping) with the object's build
 * id, and one "[kernel.kallsyms]" mapping over the kernel addresses seen. Special frames
 * ("[truncated]", "[off-cpu: blocked]") are functions of that name in no
 * mapping. */
#define _GNU_SOURCE
#include "pprof.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "pprobe/debuginfo.h"
#include "profile.pb-c.h"
#include "util.h"

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__Mapping Mapping;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Line Line;
typedef Perftools__Profiles__Function Function;
typedef Perftools__Profiles__Sample Sample;
typedef Perftools__Profiles__Label Label;
typedef Perftools__Profiles__ValueType ValueType;

struct mapent {
	pid_t pid;
	const struct map *map;	/* NULL: the kernel mapping */
};

struct funcent {
	const char *name, *system_name, *file;
};

struct pw {
	const struct frametab *ft;
	struct strtab strs;
	/* mappings: (pid, map) -> index + 1 */
	struct u64map map_index;
	struct mapent *maps;
	Mapping *mappings;
	size_t nr_maps, alloc_maps;
	struct u64map buildid_by_path;	/* hash(path) -> strtab id + 1 of its hex build id ("" unknown) */
	/* functions */
	struct u64map fn_index;
	struct funcent *fns;
	Function *functions;
	size_t nr_fns, alloc_fns;
	/* locations: frame id -> index + 1 */
	uint32_t *loc_of_frame;
	Location *locations;
	Line *lines;
	Line **line_ptrs;
	size_t nr_locs, alloc_locs, nr_lines, alloc_lines;
	size_t *line_start;	/* location i's lines: [line_start[i], line_start[i] + locations[i].n_line) */
	int64_t kernel_map;	/* index + 1 of the kernel mapping, 0 none */
	uint64_t kmin, kmax;
};

static int64_t str(struct pw *w, const char *s)
{
	return s ? (int64_t)strtab__intern(&w->strs, s) : 0;
}

static void hex(char *out, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
	out[2 * n] = 0;
}

/* The kernel's build id from /sys/kernel/notes (its ELF notes as is). */
static void kernel_build_id(char *out)
{
	uint8_t buf[4096];
	out[0] = 0;
	int fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t n = read(fd, buf, sizeof(buf));
	close(fd);
	for (size_t off = 0; n > 0 && off + 12 <= (size_t)n;) {
		uint32_t namesz, descsz, type;
		memcpy(&namesz, buf + off, 4);
		memcpy(&descsz, buf + off + 4, 4);
		memcpy(&type, buf + off + 8, 4);
		size_t name_off = off + 12, desc_off = name_off + ((namesz + 3) & ~3U);
		size_t next = desc_off + ((descsz + 3) & ~3U);
		if (namesz > 64 || descsz > 256 || next > (size_t)n)
			return;
		if (type == 3 && namesz == 4 && !memcmp(buf + name_off, "GNU", 4) && descsz <= MAP_BUILD_ID_MAX) {
			hex(out, buf + desc_off, descsz);	/* NT_GNU_BUILD_ID */
			return;
		}
		off = next;
	}
}

/* The build id of a mapping: the one the kernel gave with the mapping, else
 * the file's own (read once per path). */
static int64_t map_build_id(struct pw *w, const struct map *m)
{
	char h[2 * MAP_BUILD_ID_MAX + 1] = "";
	if (m->build_id_size) {
		hex(h, m->build_id, m->build_id_size);
		return str(w, h);
	}
	if (!map__is_file(m))
		return 0;
	uint64_t key = hash_bytes(m->path, strlen(m->path), 0x9e3779b97f4a7c15ULL);
	uintptr_t id = (uintptr_t)u64map__get(&w->buildid_by_path, key);
	if (id)
		return (int64_t)id - 1;
	uint8_t b[MAP_BUILD_ID_MAX];
	int n = elf_file__build_id(m->path, b, sizeof(b));
	if (n > 0)
		hex(h, b, (size_t)n);
	int64_t s = str(w, h);
	u64map__put(&w->buildid_by_path, key, (void *)(uintptr_t)(s + 1));
	return s;
}

static Mapping *new_mapping(struct pw *w, pid_t pid, const struct map *m)
{
	if (w->nr_maps == w->alloc_maps) {
		w->alloc_maps = w->alloc_maps ? w->alloc_maps * 2 : 16;
		w->maps = pp_xrealloc(w->maps, w->alloc_maps * sizeof(*w->maps));
		w->mappings = pp_xrealloc(w->mappings, w->alloc_maps * sizeof(*w->mappings));
	}
	Mapping init = PERFTOOLS__PROFILES__MAPPING__INIT;
	Mapping *mp = &w->mappings[w->nr_maps];
	*mp = init;
	mp->id = w->nr_maps + 1;
	w->maps[w->nr_maps++] = (struct mapent){ .pid = pid, .map = m };
	return mp;
}

/* The mapping of a user frame: index + 1, 0 for an address in no mapping. */
static uint64_t mapping_of(struct pw *w, pid_t pid, const struct map *m)
{
	if (!m)
		return 0;
	uint64_t key = hash_u64((uint64_t)(uintptr_t)m ^ hash_u64((uint64_t)pid));
	for (;; key++) {	/* probe on the rare hash collision */
		uintptr_t i = (uintptr_t)u64map__get(&w->map_index, key);
		if (!i)
			break;
		if (w->maps[i - 1].pid == pid && w->maps[i - 1].map == m)
			return i;
	}
	Mapping *mp = new_mapping(w, pid, m);
	mp->memory_start = m->start;
	mp->memory_limit = m->end;
	mp->file_offset = m->pgoff;
	mp->filename = str(w, m->path ? m->path : "[unknown]");
	mp->build_id = map_build_id(w, m);
	u64map__put(&w->map_index, key, (void *)(uintptr_t)w->nr_maps);
	return w->nr_maps;
}

static uint64_t function_of(struct pw *w, const char *name, const char *system_name, const char *file,
			    int start_line)
{
	uint64_t key = hash_bytes(name, strlen(name), 1);
	key = hash_bytes(system_name, strlen(system_name), key);
	if (file)
		key = hash_bytes(file, strlen(file), key);
	for (;; key++) {
		uintptr_t i = (uintptr_t)u64map__get(&w->fn_index, key);
		if (!i)
			break;
		const struct funcent *f = &w->fns[i - 1];
		if (!strcmp(f->name, name) && !strcmp(f->system_name, system_name) &&
		    (f->file == file || (f->file && file && !strcmp(f->file, file)))) {
			if (!w->functions[i - 1].start_line && start_line > 0)
				w->functions[i - 1].start_line = start_line;
			return i;
		}
	}
	if (w->nr_fns == w->alloc_fns) {
		w->alloc_fns = w->alloc_fns ? w->alloc_fns * 2 : 256;
		w->fns = pp_xrealloc(w->fns, w->alloc_fns * sizeof(*w->fns));
		w->functions = pp_xrealloc(w->functions, w->alloc_fns * sizeof(*w->functions));
	}
	Function init = PERFTOOLS__PROFILES__FUNCTION__INIT;
	Function *fn = &w->functions[w->nr_fns];
	*fn = init;
	fn->id = w->nr_fns + 1;
	fn->name = str(w, name);
	fn->system_name = str(w, system_name);
	fn->filename = str(w, file);
	fn->start_line = start_line > 0 ? start_line : 0;
	w->fns[w->nr_fns++] = (struct funcent){ name, system_name, file };
	u64map__put(&w->fn_index, key, (void *)(uintptr_t)w->nr_fns);
	return w->nr_fns;
}

static Line *new_line(struct pw *w)
{
	if (w->nr_lines == w->alloc_lines) {
		w->alloc_lines = w->alloc_lines ? w->alloc_lines * 2 : 256;
		w->lines = pp_xrealloc(w->lines, w->alloc_lines * sizeof(*w->lines));
	}
	Line init = PERFTOOLS__PROFILES__LINE__INIT;
	w->lines[w->nr_lines] = init;
	return &w->lines[w->nr_lines++];
}

/* The name a frame's function gets: the symbolizer's, else the folded label
 * ("[libc.so.6]", "[unknown]", "[truncated]"), so that pprof and folded
 * output name the same things. */
static const char *sym_name(const struct frame_view *v, uint32_t k)
{
	const char *n = v->syms[k].name;
	return n ? n : v->labels[k];
}

/* Frame id -> location index + 1, made on first use. */
static uint64_t location_of(struct pw *w, uint32_t id)
{
	if (w->loc_of_frame[id])
		return w->loc_of_frame[id];
	struct frame_view v;
	frametab__get(w->ft, id, &v);
	if (w->nr_locs == w->alloc_locs) {
		w->alloc_locs = w->alloc_locs ? w->alloc_locs * 2 : 256;
		w->locations = pp_xrealloc(w->locations, w->alloc_locs * sizeof(*w->locations));
		w->line_start = pp_xrealloc(w->line_start, w->alloc_locs * sizeof(*w->line_start));
	}
	Location init = PERFTOOLS__PROFILES__LOCATION__INIT;
	Location *l = &w->locations[w->nr_locs];
	*l = init;
	l->id = w->nr_locs + 1;
	l->address = v.addr;
	Mapping *mp = NULL;
	if (v.kind == FRAME_USER) {
		l->mapping_id = mapping_of(w, v.pid, v.map);
		mp = l->mapping_id ? &w->mappings[l->mapping_id - 1] : NULL;
	} else if (v.kind == FRAME_KERNEL) {
		if (!w->kernel_map) {
			new_mapping(w, -1, NULL);
			w->kernel_map = (int64_t)w->nr_maps;
			w->kmin = v.addr, w->kmax = v.addr;
		}
		l->mapping_id = (uint64_t)w->kernel_map;
		mp = &w->mappings[w->kernel_map - 1];
		w->kmin = v.addr < w->kmin ? v.addr : w->kmin;
		w->kmax = v.addr > w->kmax ? v.addr : w->kmax;
	}
	w->line_start[w->nr_locs] = w->nr_lines;
	/* syms are outermost first; pprof's lines innermost first */
	for (uint32_t k = v.nr_syms; k-- > 0;) {
		const struct frame_sym *s = &v.syms[k];
		const char *name = sym_name(&v, k);
		Line *ln = new_line(w);
		ln->function_id = function_of(w, name, s->system_name ? s->system_name : name, s->file, s->start_line);
		ln->line = s->line;
		if (mp) {
			mp->has_functions |= s->name != NULL;
			mp->has_filenames |= s->file != NULL;
			mp->has_line_numbers |= s->line > 0;
			mp->has_inline_frames |= s->inlined;
		}
	}
	l->n_line = v.nr_syms;
	w->nr_locs++;
	return w->loc_of_frame[id] = (uint32_t)w->nr_locs;
}

static void pw_free(struct pw *w)
{
	strtab__free(&w->strs);
	u64map__free(&w->map_index);
	u64map__free(&w->buildid_by_path);
	u64map__free(&w->fn_index);
	free(w->maps);
	free(w->mappings);
	free(w->fns);
	free(w->functions);
	free(w->loc_of_frame);
	free(w->locations);
	free(w->lines);
	free(w->line_ptrs);
	free(w->line_start);
}

/* The pointer arrays protobuf-c wants, once every table has stopped growing. */
static void **ptrs(void *base, size_t n, size_t size)
{
	void **p = pp_xmalloc((n ? n : 1) * sizeof(*p));
	for (size_t i = 0; i < n; i++)
		p[i] = (char *)base + i * size;
	return p;
}

struct values {
	ValueType vt[2], *vtp[2], period_type;
	size_t n;
	uint64_t mult;		/* value[1] = weight * mult (0: weight as is) */
};

/* sample_type: [samples/count, cpu|wall/nanoseconds] for time, [samples/count,
 * EVENT/count] for events, [samples/count] when the events per sample vary. */
static void sample_types(struct pw *w, const struct pprof_opts *o, struct values *v, Profile *p)
{
	for (int i = 0; i < 2; i++) {
		ValueType init = PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
		v->vt[i] = init;
		v->vtp[i] = &v->vt[i];
	}
	ValueType init = PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
	v->period_type = init;
	v->vt[0].type = str(w, "samples");
	v->vt[0].unit = str(w, "count");
	const char *type = o->time ? (o->wall ? "wall" : "cpu") : o->event;
	const char *unit = o->time ? "nanoseconds" : "count";
	v->period_type.type = str(w, type);
	v->period_type.unit = str(w, unit);
	v->n = 1;
	if (o->weight_is_value || o->period) {
		v->vt[1].type = v->period_type.type;
		v->vt[1].unit = v->period_type.unit;
		v->n = 2;
	}
	v->mult = o->weight_is_value ? 0 : o->period;
	p->n_sample_type = v->n;
	p->sample_type = v->vtp;
	p->period_type = &v->period_type;
	p->period = (int64_t)o->period;
	p->default_sample_type = v->vt[v->n - 1].type;
}

/* A program's name (comm, at most 15 characters) names its executable. */
static bool comm_names(const char *comm, const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t n = strlen(comm);
	return n && (n >= 15 ? !strncmp(base, comm, n) : !strcmp(base, comm));
}

struct vote {
	struct u64map by_path;	/* hash(path) -> samples */
	uint64_t best_n;
	const struct map *best;
	pid_t best_pid;
};

static void vote(struct vote *v, const struct frame_view *fv, uint64_t samples)
{
	uint64_t key = hash_bytes(fv->map->path, strlen(fv->map->path), 7);
	uint64_t c = (uint64_t)(uintptr_t)u64map__get(&v->by_path, key) + samples;
	u64map__put(&v->by_path, key, (void *)(uintptr_t)c);
	if (c > v->best_n)
		v->best_n = c, v->best = fv->map, v->best_pid = fv->pid;
}

/* mapping[0] is the main binary, by convention (go tool pprof prints its
 * name and build id in the header): the object named as the program (its
 * comm) that most samples pass through, else the object at the outer end of
 * most samples' user stacks. */
static void main_mapping_first(struct pw *w, const struct stacktab *st)
{
	struct vote named = { 0 }, outer = { 0 };
	u64map__init(&named.by_path);
	u64map__init(&outer.by_path);
	size_t n = stacktab__count(st);
	for (size_t i = 0; i < n; i++) {
		struct stack_view sv;
		struct frame_view fv;
		bool seen_outer = false;
		stacktab__get(st, i, &sv);
		for (uint32_t k = sv.nr; k-- > 0;) {
			frametab__get(w->ft, sv.frames[k], &fv);
			if (fv.kind != FRAME_USER || !fv.map || !fv.map->path)
				continue;
			if (!seen_outer)
				vote(&outer, &fv, sv.samples);
			seen_outer = true;
			if (sv.comm && comm_names(sv.comm, fv.map->path)) {
				vote(&named, &fv, sv.samples);
				break;
			}
		}
	}
	u64map__free(&named.by_path);
	u64map__free(&outer.by_path);
	if (named.best)
		mapping_of(w, named.best_pid, named.best);
	else if (outer.best)
		mapping_of(w, outer.best_pid, outer.best);
}

struct samples {
	Sample *s;
	Sample **sp;
	int64_t *values;
	uint64_t *loc_ids;
	Label *labels;
	Label **label_ptrs;
};

static void build_samples(struct pw *w, const struct stacktab *st, const struct values *v, struct samples *out)
{
	size_t n = stacktab__count(st), nr_ids = 0;
	struct stack_view sv;
	for (size_t i = 0; i < n; i++) {
		stacktab__get(st, i, &sv);
		nr_ids += sv.nr;
	}
	out->s = pp_xcalloc(n ? n : 1, sizeof(*out->s));
	out->values = pp_xcalloc(n * v->n + 1, sizeof(*out->values));
	out->loc_ids = pp_xcalloc(nr_ids + 1, sizeof(*out->loc_ids));
	out->labels = pp_xcalloc(n * 3 + 1, sizeof(*out->labels));
	out->label_ptrs = pp_xcalloc(n * 3 + 1, sizeof(*out->label_ptrs));
	int64_t k_pid = str(w, "pid"), k_tid = str(w, "tid"), k_comm = str(w, "comm");
	size_t id_at = 0;
	for (size_t i = 0; i < n; i++) {
		stacktab__get(st, i, &sv);
		Sample init = PERFTOOLS__PROFILES__SAMPLE__INIT;
		Sample *s = &out->s[i];
		*s = init;
		s->location_id = out->loc_ids + id_at;
		for (uint32_t k = 0; k < sv.nr; k++)	/* leaf first, as pprof */
			out->loc_ids[id_at++] = location_of(w, sv.frames[k]);
		s->n_location_id = sv.nr;
		s->value = out->values + i * v->n;
		s->n_value = v->n;
		s->value[0] = (int64_t)sv.samples;
		if (v->n > 1)
			s->value[1] = (int64_t)(v->mult ? sv.weight * v->mult : sv.weight);
		s->label = out->label_ptrs + i * 3;
		Label *lab = out->labels + i * 3;
		Label linit = PERFTOOLS__PROFILES__LABEL__INIT;
		if (sv.pid >= 0) {
			lab[s->n_label] = linit;
			lab[s->n_label].key = k_pid;
			lab[s->n_label].num = sv.pid;
			s->label[s->n_label] = &lab[s->n_label];
			s->n_label++;
		}
		if (sv.tid >= 0) {
			lab[s->n_label] = linit;
			lab[s->n_label].key = k_tid;
			lab[s->n_label].num = sv.tid;
			s->label[s->n_label] = &lab[s->n_label];
			s->n_label++;
		}
		lab[s->n_label] = linit;
		lab[s->n_label].key = k_comm;
		lab[s->n_label].str = str(w, sv.comm ? sv.comm : "[unknown]");
		s->label[s->n_label] = &lab[s->n_label];
		s->n_label++;
	}
	out->sp = (Sample **)ptrs(out->s, n, sizeof(*out->s));
}

static void samples_free(struct samples *s)
{
	free(s->s);
	free(s->sp);
	free(s->values);
	free(s->loc_ids);
	free(s->labels);
	free(s->label_ptrs);
}

/* pprof's has_functions/filenames/line_numbers/inline_frames say how far a
 * file was symbolized, so they are the file's, not one process's mapping's:
 * OR'd over every mapping of the same path and build id, then given to each.
 * (Which process's mapping a shared frame's location names depends on
 * which process hit it first.) */
static void share_symbolization_flags(struct pw *w)
{
	struct u64map first;	/* hash(filename, build id) -> index + 1 of the first such mapping */
	u64map__init(&first);
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < w->nr_maps; i++) {
			Mapping *mp = &w->mappings[i];
			if (w->maps[i].map == NULL)
				continue;	/* the kernel's */
			uint64_t key = hash_u64(((uint64_t)mp->filename << 32) ^ (uint64_t)mp->build_id);
			for (;; key++) {	/* probe on the rare hash collision */
				uintptr_t j = (uintptr_t)u64map__get(&first, key);
				if (!j) {
					u64map__put(&first, key, (void *)(uintptr_t)(i + 1));
					break;
				}
				Mapping *f = &w->mappings[j - 1];
				if (f->filename != mp->filename || f->build_id != mp->build_id)
					continue;
				if (pass == 0) {
					f->has_functions |= mp->has_functions;
					f->has_filenames |= mp->has_filenames;
					f->has_line_numbers |= mp->has_line_numbers;
					f->has_inline_frames |= mp->has_inline_frames;
				} else {
					mp->has_functions = f->has_functions;
					mp->has_filenames = f->has_filenames;
					mp->has_line_numbers = f->has_line_numbers;
					mp->has_inline_frames = f->has_inline_frames;
				}
				break;
			}
		}
	}
	u64map__free(&first);
}

/* The finished tables into p (pointer arrays owned by the caller: *to_free). */
static void link_tables(struct pw *w, Profile *p, void ***to_free)
{
	share_symbolization_flags(w);
	if (w->kernel_map) {
		Mapping *k = &w->mappings[w->kernel_map - 1];
		char bid[2 * MAP_BUILD_ID_MAX + 1];
		kernel_build_id(bid);
		k->memory_start = w->kmin;
		k->memory_limit = w->kmax + 1;
		k->filename = str(w, "[kernel.kallsyms]");
		k->build_id = str(w, bid);
	}
	w->line_ptrs = (Line **)ptrs(w->lines, w->nr_lines, sizeof(*w->lines));
	for (size_t i = 0; i < w->nr_locs; i++)
		w->locations[i].line = w->line_ptrs + w->line_start[i];
	to_free[0] = ptrs(w->mappings, w->nr_maps, sizeof(*w->mappings));
	to_free[1] = ptrs(w->locations, w->nr_locs, sizeof(*w->locations));
	to_free[2] = ptrs(w->functions, w->nr_fns, sizeof(*w->functions));
	p->n_mapping = w->nr_maps;
	p->mapping = (Mapping **)to_free[0];
	p->n_location = w->nr_locs;
	p->location = (Location **)to_free[1];
	p->n_function = w->nr_fns;
	p->function = (Function **)to_free[2];
	p->n_string_table = w->strs.nr;
	p->string_table = w->strs.strs;
}

static int gzip_buf(const uint8_t *in, size_t len, uint8_t **out, size_t *out_len)
{
	z_stream zs;
	memset(&zs, 0, sizeof(zs));
	/* level 1, as Go's runtime/pprof: the profile is written once, read rarely */
	if (deflateInit2(&zs, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	size_t cap = deflateBound(&zs, len) + 64, done = 0;
	uint8_t *o = malloc(cap);
	if (!o) {
		deflateEnd(&zs);
		return -ENOMEM;
	}
	zs.next_in = (Bytef *)in;
	zs.next_out = o;
	int zr = Z_OK;
	while (zr == Z_OK) {	/* avail_in/avail_out are 32-bit: 1 GiB at a time */
		size_t in_left = len - (size_t)(zs.next_in - in), out_left = cap - (size_t)(zs.next_out - o);
		zs.avail_in = (uInt)(in_left > (1U << 30) ? 1U << 30 : in_left);
		zs.avail_out = (uInt)(out_left > (1U << 30) ? 1U << 30 : out_left);
		zr = deflate(&zs, in_left > zs.avail_in ? Z_NO_FLUSH : Z_FINISH);
	}
	done = (size_t)(zs.next_out - o);
	deflateEnd(&zs);
	if (zr != Z_STREAM_END) {
		free(o);
		return -EIO;
	}
	*out = o;
	*out_len = done;
	return 0;
}

int pprof__encode(const struct stacktab *st, const struct frametab *ft, const struct pprof_opts *o, uint8_t **buf,
		  size_t *len)
{
	struct pw w = { .ft = ft };
	strtab__init(&w.strs);
	strtab__intern(&w.strs, "");	/* string_table[0] must be "" */
	u64map__init(&w.map_index);
	u64map__init(&w.buildid_by_path);
	u64map__init(&w.fn_index);
	w.loc_of_frame = pp_xcalloc(frametab__count(ft) + 1, sizeof(*w.loc_of_frame));

	Profile p = PERFTOOLS__PROFILES__PROFILE__INIT;
	struct values v;
	struct samples s;
	void **to_free[3];
	sample_types(&w, o, &v, &p);
	main_mapping_first(&w, st);
	build_samples(&w, st, &v, &s);
	p.n_sample = stacktab__count(st);
	p.sample = s.sp;
	p.time_nanos = o->time_nanos;
	p.duration_nanos = o->duration_nanos;
	link_tables(&w, &p, to_free);

	size_t raw_len = perftools__profiles__profile__get_packed_size(&p);
	uint8_t *raw = malloc(raw_len ? raw_len : 1);
	int ret = raw ? 0 : -ENOMEM;
	if (raw) {
		perftools__profiles__profile__pack(&p, raw);
		ret = gzip_buf(raw, raw_len, buf, len);
	}
	free(raw);
	for (int i = 0; i < 3; i++)
		free(to_free[i]);
	samples_free(&s);
	pw_free(&w);
	return ret;
}

int pprof__write(const struct stacktab *st, const struct frametab *ft, const struct pprof_opts *o, FILE *f)
{
	uint8_t *buf;
	size_t len;
	int ret = pprof__encode(st, ft, o, &buf, &len);
	if (ret)
		return ret;
	if (fwrite(buf, 1, len, f) != len)
		ret = -EIO;
	free(buf);
	return ret;
}
