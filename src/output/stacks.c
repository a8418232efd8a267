#define _GNU_SOURCE
#include "stacks.h"

#include <stdlib.h>
#include <string.h>

#include "stack.h"
#include "util.h"

#define FK_USER FRAME_USER
#define FK_KERNEL FRAME_KERNEL
#define FK_SPECIAL FRAME_SPECIAL

struct mapref {
	pid_t pid;
	struct map map;		/* path owned */
};

struct frame {
	uint8_t kind;
	bool is_return;
	bool symbolized;
	uint32_t mapref;	/* FK_USER: index into maprefs, UINT32_MAX = unmapped; FK_SPECIAL: strtab id */
	uint64_t addr;
	/* outermost first (physical function, then inlined); strings in names */
	struct frame_sym *syms;
	const char **labels;	/* the folded names */
	uint32_t nr_syms;
	uint32_t file;		/* FK_USER in a mapped file: its fileref + 1; else 0 */
	uint64_t off;		/* with file: the address's offset in it */
};

/* A mapped file, whoever maps it: one per file however many processes
 * map it, so that their frames at one offset of it are one frame. Known by
 * its build id (MMAP2 records since 5.12) or its device and inode (read
 * from /proc/PID/maps), never one against the other, and its path. */
struct fileref {
	char *path;
	uint32_t maj, min;
	uint64_t ino;
	uint8_t build_id[MAP_BUILD_ID_MAX];
	uint8_t build_id_size;
};

/* The frame table's indexes: a hash of an entry's identity to its index,
 * open addressing over slots that hold both, so that a probe reads one
 * slot (not a key, a value and a used byte apart) and the full hash is
 * compared before the entry it names is read. Every sample's every frame
 * is looked up here. */
struct hslot {
	uint64_t h;
	uint32_t v;		/* index + 1; 0: empty */
};

struct hidx {
	struct hslot *s;
	size_t cap, nr;
};

/* The slots that may hold hash h, from its home on, while not empty:
 * for (size_t i = hidx__home(x, h); hidx__more(x, i); i = hidx__step(x, i)) */
static size_t hidx__home(const struct hidx *x, uint64_t h)
{
	return x->cap ? (size_t)h & (x->cap - 1) : 0;
}

static bool hidx__more(const struct hidx *x, size_t i)
{
	return x->cap && x->s[i].v;
}

static size_t hidx__step(const struct hidx *x, size_t i)
{
	return (i + 1) & (x->cap - 1);
}

static void hidx__put(struct hidx *x, uint64_t h, size_t index)
{
	if ((x->nr + 1) * 4 >= x->cap * 3) {
		struct hidx n = { .cap = x->cap ? x->cap * 2 : 1024 };
		n.s = pp_xcalloc(n.cap, sizeof(*n.s));
		for (size_t i = 0; i < x->cap; i++)
			if (x->s[i].v)
				hidx__put(&n, x->s[i].h, x->s[i].v - 1);
		free(x->s);
		*x = n;
	}
	size_t i = hidx__home(x, h);
	while (x->s[i].v)
		i = hidx__step(x, i);
	x->s[i] = (struct hslot){ h, (uint32_t)(index + 1) };
	x->nr++;
}

static void hidx__free(struct hidx *x)
{
	free(x->s);
	memset(x, 0, sizeof(*x));
}

/* A thread's last user stack, its addresses and frame ids (leaf first):
 * the next sample of the thread shares most of its outer frames (a
 * compiler's main, driver and pass frames under a changing leaf), which
 * then need no map lookup and no index probe (11% of record's CPU in a
 * clang compile: every frame of every sample). Valid while the process's
 * maps are those it was taken under (the maps and their generation) and
 * the process is the same (frametab__forget at its end or exec). */
struct last_stack {
	pid_t pid, tid;
	const struct maps *maps;
	uint64_t gen;
	uint32_t nr, cap;
	uint64_t *ips;
	uint32_t *ids;
};

#define LAST_STACKS 256	/* threads, by tid's hash: a miss costs what no cache did */

struct frametab {
	struct frame *frames;
	size_t nr, alloc;
	struct hidx index;	/* hash(kind, mapref, addr, ret) -> frame id */
	struct mapref *maprefs;
	size_t nr_maprefs, alloc_maprefs;
	struct hidx map_index;		/* hash of map identity -> mapref index */
	struct fileref *files;
	size_t nr_files, alloc_files;
	struct hidx file_index;		/* hash of file identity -> fileref index */
	uint32_t last_file;		/* the fileref last found + 1 */
	struct hidx offset_index;	/* hash(file, offset, ret) -> frame id */
	struct last_stack *last;	/* LAST_STACKS, frametab__user_stack's */
	struct strtab names;
	bool srcline_names;
	/* per object, its code addresses symbolized and those left unnamed */
	struct unnamed_obj {
		char *dso;
		const char *why;
		size_t unnamed, total;
	} *objs;
	size_t nr_objs;
};

struct frametab *frametab__new(void)
{
	struct frametab *ft = pp_xcalloc(1, sizeof(*ft));
	strtab__init(&ft->names);
	return ft;
}

void frametab__clear(struct frametab *ft)
{
	for (size_t i = 0; i < ft->nr; i++) {
		free(ft->frames[i].syms);
		free(ft->frames[i].labels);
	}
	ft->nr = 0;
	for (size_t i = 0; i < ft->nr_maprefs; i++)
		free(ft->maprefs[i].map.path);
	ft->nr_maprefs = 0;
	hidx__free(&ft->index);
	hidx__free(&ft->map_index);
	for (size_t i = 0; i < ft->nr_files; i++)
		free(ft->files[i].path);
	ft->nr_files = 0;
	ft->last_file = 0;
	hidx__free(&ft->file_index);
	hidx__free(&ft->offset_index);
	for (size_t i = 0; ft->last && i < LAST_STACKS; i++)
		ft->last[i].nr = 0;
	strtab__free(&ft->names);
	strtab__init(&ft->names);
}

void frametab__delete(struct frametab *ft)
{
	if (!ft)
		return;
	for (size_t i = 0; i < ft->nr; i++) {
		free(ft->frames[i].syms);
		free(ft->frames[i].labels);
	}
	free(ft->frames);
	for (size_t i = 0; i < ft->nr_maprefs; i++)
		free(ft->maprefs[i].map.path);
	free(ft->maprefs);
	for (size_t i = 0; i < ft->nr_files; i++)
		free(ft->files[i].path);
	free(ft->files);
	hidx__free(&ft->file_index);
	hidx__free(&ft->offset_index);
	for (size_t i = 0; i < ft->nr_objs; i++)
		free(ft->objs[i].dso);
	free(ft->objs);
	hidx__free(&ft->index);
	hidx__free(&ft->map_index);
	for (size_t i = 0; ft->last && i < LAST_STACKS; i++) {
		free(ft->last[i].ips);
		free(ft->last[i].ids);
	}
	free(ft->last);
	strtab__free(&ft->names);
	free(ft);
}

size_t frametab__count(const struct frametab *ft)
{
	return ft->nr;
}

size_t frametab__bytes(const struct frametab *ft)
{
	/* a frame, its slots in two indexes (at half load), its symbols and
	 * labels once symbolized (about 64) */
	return ft->nr * (sizeof(struct frame) + 2 * 2 * sizeof(struct hslot) + 64) + ft->nr_maprefs * sizeof(struct mapref) +
	       ft->nr_files * sizeof(struct fileref);
}

static bool mapref_eq(const struct mapref *r, pid_t pid, const struct map *m)
{
	return r->pid == pid && r->map.start == m->start && r->map.end == m->end &&
	       r->map.pgoff == m->pgoff && r->map.ino == m->ino &&
	       r->map.build_id_size == m->build_id_size &&
	       !memcmp(r->map.build_id, m->build_id, m->build_id_size) &&
	       !strcmp(r->map.path ? r->map.path : "", m->path ? m->path : "");
}

static uint32_t frametab__mapref(struct frametab *ft, pid_t pid, const struct map *m)
{
	uint64_t h = hash_u64((uint64_t)pid ^ hash_u64(m->start ^ hash_u64(m->pgoff ^ m->ino)));
	const struct hidx *x = &ft->map_index;
	for (size_t i = hidx__home(x, h); hidx__more(x, i); i = hidx__step(x, i))
		if (x->s[i].h == h && mapref_eq(&ft->maprefs[x->s[i].v - 1], pid, m))
			return x->s[i].v - 1;
	if (ft->nr_maprefs == ft->alloc_maprefs) {
		ft->alloc_maprefs = ft->alloc_maprefs ? ft->alloc_maprefs * 2 : 64;
		ft->maprefs = pp_xrealloc(ft->maprefs, ft->alloc_maprefs * sizeof(*ft->maprefs));
	}
	struct mapref *r = &ft->maprefs[ft->nr_maprefs];
	r->pid = pid;
	r->map = *m;
	r->map.path = pp_xstrdup(m->path ? m->path : "");
	hidx__put(&ft->map_index, h, ft->nr_maprefs);
	return (uint32_t)ft->nr_maprefs++;
}

static uint32_t frametab__intern(struct frametab *ft, uint8_t kind, uint32_t mapref,
				 uint64_t addr, bool is_return)
{
	uint64_t h = hash_u64(addr ^ hash_u64(((uint64_t)mapref << 8) | ((uint64_t)kind << 1) | is_return));
	const struct hidx *x = &ft->index;
	for (size_t i = hidx__home(x, h); hidx__more(x, i); i = hidx__step(x, i)) {
		if (x->s[i].h != h)
			continue;
		const struct frame *f = &ft->frames[x->s[i].v - 1];
		if (f->kind == kind && f->mapref == mapref && f->addr == addr && f->is_return == is_return)
			return x->s[i].v - 1;
	}
	if (ft->nr == ft->alloc) {
		ft->alloc = ft->alloc ? ft->alloc * 2 : 1024;
		ft->frames = pp_xrealloc(ft->frames, ft->alloc * sizeof(*ft->frames));
	}
	struct frame *f = &ft->frames[ft->nr];
	memset(f, 0, sizeof(*f));
	f->kind = kind;
	f->mapref = mapref;
	f->addr = addr;
	f->is_return = is_return;
	hidx__put(&ft->index, h, ft->nr);
	return (uint32_t)ft->nr++;
}

static uint32_t fileref_find(struct frametab *ft, const struct map *m);

static bool fileref_eq(const struct fileref *f, const struct map *m)
{
	if (f->build_id_size != m->build_id_size)
		return false;
	if (f->build_id_size ? memcmp(f->build_id, m->build_id, m->build_id_size)
			     : f->maj != m->maj || f->min != m->min || f->ino != m->ino)
		return false;
	return !strcmp(f->path, m->path);
}

/* The file m maps (map__is_file): its index, a new one if unseen. The
 * last one found is tried first: a stack's frames come in runs of one
 * file. */
static uint32_t frametab__fileref(struct frametab *ft, const struct map *m)
{
	if (ft->last_file && ft->last_file <= ft->nr_files && fileref_eq(&ft->files[ft->last_file - 1], m))
		return ft->last_file - 1;
	uint32_t id = fileref_find(ft, m);
	ft->last_file = id + 1;
	return id;
}

static uint32_t fileref_find(struct frametab *ft, const struct map *m)
{
	uint64_t h = hash_bytes(m->path, strlen(m->path),
				m->build_id_size ? hash_bytes(m->build_id, m->build_id_size, 1)
						 : hash_u64(((uint64_t)m->maj << 32 | m->min) ^ hash_u64(m->ino)));
	const struct hidx *x = &ft->file_index;
	for (size_t i = hidx__home(x, h); hidx__more(x, i); i = hidx__step(x, i))
		if (x->s[i].h == h && fileref_eq(&ft->files[x->s[i].v - 1], m))
			return x->s[i].v - 1;
	if (ft->nr_files == ft->alloc_files) {
		ft->alloc_files = ft->alloc_files ? ft->alloc_files * 2 : 64;
		ft->files = pp_xrealloc(ft->files, ft->alloc_files * sizeof(*ft->files));
	}
	struct fileref *f = &ft->files[ft->nr_files];
	*f = (struct fileref){ .path = pp_xstrdup(m->path), .maj = m->maj, .min = m->min, .ino = m->ino,
			       .build_id_size = m->build_id_size };
	memcpy(f->build_id, m->build_id, m->build_id_size);
	hidx__put(&ft->file_index, h, ft->nr_files);
	return (uint32_t)ft->nr_files++;
}

static uint64_t file_offset_of(const struct map *m, uint64_t addr)
{
	return addr - m->start + m->pgoff;
}

/* A code address in a mapped file is one frame for every process that maps
 * that file, at whatever address: the first one seen stands for all (its
 * process and mapping name it; pprof's address is its). So that a machine
 * whose processes come and go (-a: every compiler a new process) keeps one
 * frame per code address, not one per process, and names each once. */
uint32_t frametab__user(struct frametab *ft, pid_t pid, const struct map *m, uint64_t addr, bool is_return)
{
	if (!m)
		return frametab__intern(ft, FK_USER, UINT32_MAX, addr, is_return);
	if (!map__is_file(m))
		return frametab__intern(ft, FK_USER, frametab__mapref(ft, pid, m), addr, is_return);
	uint32_t file = frametab__fileref(ft, m);
	uint64_t off = file_offset_of(m, addr);
	uint64_t h = hash_u64(off ^ hash_u64(((uint64_t)file << 1) | is_return));
	const struct hidx *x = &ft->offset_index;
	for (size_t i = hidx__home(x, h); hidx__more(x, i); i = hidx__step(x, i)) {
		if (x->s[i].h != h)
			continue;
		const struct frame *f = &ft->frames[x->s[i].v - 1];
		if (f->file == file + 1 && f->is_return == is_return && f->off == off)
			return x->s[i].v - 1;
	}
	size_t had = ft->nr;
	uint32_t id = frametab__intern(ft, FK_USER, frametab__mapref(ft, pid, m), addr, is_return);
	if (ft->nr > had) {
		ft->frames[id].file = file + 1;
		ft->frames[id].off = off;
		hidx__put(&ft->offset_index, h, id);
	}
	return id;
}

void frametab__user_stack(struct frametab *ft, pid_t pid, pid_t tid, struct ustack *us, uint32_t *ids)
{
	if (!ft->last)
		ft->last = pp_xcalloc(LAST_STACKS, sizeof(*ft->last));
	struct last_stack *l = &ft->last[hash_u64((uint64_t)(uint32_t)tid) & (LAST_STACKS - 1)];
	const struct maps *maps = us->maps;
	const uint64_t *ips = us->ips;
	uint32_t nr = us->nr;
	uint64_t gen = maps ? maps__generation(maps) : 0;
	uint32_t same = 0;
	if (l->nr && l->pid == pid && l->tid == tid && l->maps == maps && l->gen == gen) {
		/* from the root: the same address at the same depth, and a
		 * return address both times (not the leaf's exact ip) */
		while (same < nr && same < l->nr && ips[nr - 1 - same] == l->ips[l->nr - 1 - same] &&
		       (nr - 1 - same > 0) == (l->nr - 1 - same > 0)) {
			ids[nr - 1 - same] = l->ids[l->nr - 1 - same];
			same++;
		}
	}
	for (uint32_t i = 0; i < nr - same; i++)
		ids[i] = frametab__user(ft, pid, ustack__map(us, i), ips[i], ustack__is_return(i));
	if (nr > l->cap) {
		l->cap = nr < 64 ? 64 : nr;
		l->ips = pp_xrealloc(l->ips, l->cap * sizeof(*l->ips));
		l->ids = pp_xrealloc(l->ids, l->cap * sizeof(*l->ids));
	}
	*l = (struct last_stack){ .pid = pid, .tid = tid, .maps = maps, .gen = gen, .nr = nr, .cap = l->cap,
				  .ips = l->ips, .ids = l->ids };
	memcpy(l->ips, ips, nr * sizeof(*ips));
	memcpy(l->ids, ids, nr * sizeof(*ids));
}

void frametab__forget(struct frametab *ft, pid_t pid)
{
	for (size_t i = 0; ft->last && i < LAST_STACKS; i++)
		if (ft->last[i].pid == pid)
			ft->last[i].nr = 0;
}

uint32_t frametab__kernel(struct frametab *ft, uint64_t addr, bool is_return)
{
	return frametab__intern(ft, FK_KERNEL, 0, addr, is_return);
}

uint32_t frametab__special(struct frametab *ft, const char *name)
{
	uint32_t id = strtab__intern(&ft->names, name);
	return frametab__intern(ft, FK_SPECIAL, id, 0, false);
}

/* Folded output uses ';' between frames and the last blank before the count:
 * keep names from breaking either. */
static void sanitize(char *s)
{
	for (; *s; s++)
		if (*s == ';')
			*s = ':';
		else if (*s == '\n' || *s == '\r' || *s == '\t')
			*s = ' ';
}

static const char *basename_of(const char *path)
{
	const char *b = strrchr(path, '/');
	return b ? b + 1 : path;
}

static const char *intern_or_null(struct frametab *ft, const char *str)
{
	return str ? strtab__str(&ft->names, strtab__intern(&ft->names, str)) : NULL;
}

static void frame__set_names(struct frametab *ft, struct frame *f, struct sym_frame *sf, int n)
{
	char buf[4096];
	f->syms = pp_xcalloc((size_t)(n > 0 ? n : 1), sizeof(*f->syms));
	f->labels = pp_xcalloc((size_t)(n > 0 ? n : 1), sizeof(*f->labels));
	f->nr_syms = 0;
	/* sf[] is innermost first; folded order is outermost first. */
	for (int i = n - 1; i >= 0; i--) {
		const char *suffix = "";
		if (f->kind == FK_KERNEL)
			suffix = "_[k]";
		else if (sf[i].inlined)
			suffix = "_[i]";
		else if (sf[i].jit)
			suffix = "_[j]";
		const char *dso = sf[i].dso ? sf[i].dso : "unknown";
		if (sf[i].name && sf[i].srcfile && sf[i].line > 0 && ft->srcline_names)	/* --srcline */
			snprintf(buf, sizeof(buf), "%s:%s:%d%s", sf[i].name, basename_of(sf[i].srcfile),
				 sf[i].line, suffix);
		else if (sf[i].name)
			snprintf(buf, sizeof(buf), "%s%s", sf[i].name, suffix);
		else if (dso[0] == '[')	/* already bracketed: [vdso], [kernel.kallsyms] */
			snprintf(buf, sizeof(buf), "%s%s", dso, suffix);
		else
			snprintf(buf, sizeof(buf), "[%s]%s", dso, suffix);
		sanitize(buf);
		struct frame_sym *fs = &f->syms[f->nr_syms];
		fs->name = intern_or_null(ft, sf[i].name);
		fs->system_name = sf[i].system_name ? intern_or_null(ft, sf[i].system_name) : fs->name;
		fs->dso = intern_or_null(ft, sf[i].dso);
		fs->file = intern_or_null(ft, sf[i].srcfile);
		fs->line = sf[i].srcfile ? sf[i].line : 0;
		fs->start_line = sf[i].srcfile ? sf[i].decl_line : 0;
		fs->inlined = sf[i].inlined;
		f->labels[f->nr_syms++] = intern_or_null(ft, buf);
	}
}

void frametab__srcline_names(struct frametab *ft, bool on)
{
	ft->srcline_names = on;
}

void frametab__get(const struct frametab *ft, uint32_t id, struct frame_view *v)
{
	const struct frame *f = &ft->frames[id];
	memset(v, 0, sizeof(*v));
	v->kind = f->kind;
	v->is_return = f->is_return;
	if (f->kind == FK_SPECIAL)
		v->addr = 0;
	else
		v->addr = f->addr;
	if (f->kind == FK_USER && f->mapref != UINT32_MAX) {
		v->pid = ft->maprefs[f->mapref].pid;
		v->map = &ft->maprefs[f->mapref].map;
	}
	v->syms = f->syms;
	v->labels = f->labels;
	v->nr_syms = f->nr_syms;
}

void frametab__symbolize(struct frametab *ft, struct symbolizer *sym)
{
	frametab__symbolize_until(ft, sym, NULL, NULL);
}

/* One more code address of a mapped file symbolized: named or not (why). */
static void count_named(struct frametab *ft, const char *dso, const char *why)
{
	struct unnamed_obj *o = NULL;
	for (size_t i = 0; i < ft->nr_objs && !o; i++)
		if (!strcmp(ft->objs[i].dso, dso))
			o = &ft->objs[i];
	if (!o) {
		ft->objs = pp_xrealloc(ft->objs, (ft->nr_objs + 1) * sizeof(*ft->objs));
		o = &ft->objs[ft->nr_objs++];
		*o = (struct unnamed_obj){ .dso = pp_xstrdup(dso) };
	}
	o->total++;
	if (why) {
		o->unnamed++;
		o->why = why;
	}
}

static int unnamed_cmp(const void *a, const void *b)
{
	const struct unnamed_obj *x = a, *y = b;
	return x->unnamed != y->unnamed ? (x->unnamed < y->unnamed ? 1 : -1) : strcmp(x->dso, y->dso);
}

size_t frametab__unnamed(struct frametab *ft, void (*cb)(const char *dso, const char *why, size_t unnamed,
							    size_t total, void *arg), void *arg)
{
	size_t n = 0;
	if (ft->nr_objs > 1)
		qsort(ft->objs, ft->nr_objs, sizeof(*ft->objs), unnamed_cmp);
	for (size_t i = 0; i < ft->nr_objs && ft->objs[i].unnamed; i++, n++)
		cb(ft->objs[i].dso, ft->objs[i].why, ft->objs[i].unnamed, ft->objs[i].total, arg);
	return n;
}

size_t frametab__symbolize_until(struct frametab *ft, struct symbolizer *sym, bool (*stop)(void *arg), void *arg)
{
	struct sym_frame sf[64];
	char buf[4096];
	size_t left = 0;

	for (size_t i = 0; i < ft->nr; i++) {
		struct frame *f = &ft->frames[i];
		int n = 0;
		if (f->symbolized)
			continue;
		f->symbolized = true;
		if (sym && f->kind != FK_SPECIAL && stop && stop(arg))
			sym = NULL;	/* stopped: the rest by their objects */
		if (!sym && f->kind != FK_SPECIAL && stop)
			left++;
		switch (f->kind) {
		case FK_SPECIAL:
			f->syms = pp_xcalloc(1, sizeof(*f->syms));
			f->labels = pp_xcalloc(1, sizeof(*f->labels));
			f->syms[0].name = f->syms[0].system_name = strtab__str(&ft->names, f->mapref);
			f->labels[0] = f->syms[0].name;
			f->nr_syms = 1;
			continue;
		case FK_KERNEL:
			n = sym ? symbolizer__kernel(sym, f->addr, f->is_return, sf, 64) : -1;
			if (n <= 0) {
				sf[0] = (struct sym_frame){ .dso = "kernel.kallsyms", .kernel = true };
				n = 1;
			}
			break;
		case FK_USER:
			if (f->mapref == UINT32_MAX) {
				sf[0] = (struct sym_frame){ .dso = "unknown" };
				n = 1;
				break;
			}
			{
				struct mapref *r = &ft->maprefs[f->mapref];
				n = sym ? symbolizer__user(sym, r->pid, &r->map, f->addr, f->is_return, sf, 64) : -1;
				if (n <= 0) {
					snprintf(buf, sizeof(buf), "%s", basename_of(r->map.path));
					sf[0] = (struct sym_frame){ .dso = buf };
					n = 1;
				} else {
					for (int j = 0; j < n; j++)
						if (!sf[j].name && !sf[j].dso)
							sf[j].dso = basename_of(r->map.path);
					if (map__is_file(&r->map) && sf[n - 1].dso)
						count_named(ft, sf[n - 1].dso, sf[n - 1].name ? NULL : sf[n - 1].lacks);
				}
			}
			break;
		}
		frame__set_names(ft, f, sf, n);
	}
	return left;
}

/* ---- stack tables ---- */

/* A stack's words: [comm, pid, tid, n, frames leaf first...] */
enum { W_COMM, W_PID, W_TID, W_N, W_HDR };

struct stackent {
	uint32_t off;		/* into words */
	uint64_t count;		/* sum of weights */
	uint64_t samples;
};

struct stacktab {
	struct frametab *ft;
	uint32_t *words;
	size_t nr_words, alloc_words;
	struct stackent *ents;
	size_t nr, alloc;
	uint32_t *slots;	/* ent index + 1 */
	size_t cap;
	uint64_t total;
	struct strtab comms;
	enum stack_root root;
	bool timeline, sorted;
	bool no_ids;		/* stacktab__drop_ids */
	struct stack_tick *ticks;
	size_t nr_ticks, alloc_ticks;
};

struct stacktab *stacktab__new(struct frametab *ft)
{
	struct stacktab *st = pp_xcalloc(1, sizeof(*st));
	st->ft = ft;
	strtab__init(&st->comms);
	return st;
}

void stacktab__delete(struct stacktab *st)
{
	if (!st)
		return;
	free(st->words);
	free(st->ents);
	free(st->slots);
	free(st->ticks);
	strtab__free(&st->comms);
	free(st);
}

void stacktab__set_root(struct stacktab *st, enum stack_root root)
{
	st->root = root;
}

void stacktab__drop_ids(struct stacktab *st)
{
	st->no_ids = true;
}

void stacktab__keep_timeline(struct stacktab *st)
{
	st->timeline = true;
}

void stacktab__clear(struct stacktab *st)
{
	st->nr_words = 0;
	st->nr = 0;
	st->total = 0;
	st->nr_ticks = 0;
	st->sorted = false;
	if (st->slots)
		memset(st->slots, 0, st->cap * sizeof(*st->slots));
	/* comms stay interned: few, and reused */
}

size_t stacktab__count(const struct stacktab *st)
{
	return st->nr;
}

size_t stacktab__bytes(const struct stacktab *st)
{
	/* two hash slots a stack (half load), not the slots' capacity: that
	 * stays after stacktab__clear, and an empty table holds nothing */
	return st->nr_words * sizeof(*st->words) + st->nr * sizeof(*st->ents) + 2 * st->nr * sizeof(*st->slots) +
	       st->nr_ticks * sizeof(*st->ticks);
}

uint64_t stacktab__total(const struct stacktab *st)
{
	return st->total;
}

static uint64_t stack_hash(const uint32_t *w, uint32_t nwords)
{
	return hash_bytes(w, nwords * sizeof(uint32_t), 0x5eed);
}

static void stacktab__rehash(struct stacktab *st)
{
	size_t cap = st->cap ? st->cap * 2 : 1024;
	uint32_t *slots = pp_xcalloc(cap, sizeof(*slots));
	for (size_t e = 0; e < st->nr; e++) {
		const uint32_t *w = st->words + st->ents[e].off;
		size_t i = stack_hash(w, w[W_N] + W_HDR) & (cap - 1);
		while (slots[i])
			i = (i + 1) & (cap - 1);
		slots[i] = (uint32_t)e + 1;
	}
	free(st->slots);
	st->slots = slots;
	st->cap = cap;
}

static void stacktab__tick(struct stacktab *st, uint64_t time, uint32_t stack, uint64_t weight)
{
	if (st->nr_ticks == st->alloc_ticks) {
		st->alloc_ticks = st->alloc_ticks ? st->alloc_ticks * 2 : 4096;
		st->ticks = pp_xrealloc(st->ticks, st->alloc_ticks * sizeof(*st->ticks));
	}
	st->ticks[st->nr_ticks++] = (struct stack_tick){ .time = time, .stack = stack, .weight = weight };
	st->sorted = false;
}

void stacktab__add(struct stacktab *st, const struct stack_owner *o, const uint32_t *frames, uint32_t n,
		   uint64_t weight, uint64_t time)
{
	uint32_t key_small[256];
	uint32_t *key = n + W_HDR <= 256 ? key_small : pp_xmalloc((n + W_HDR) * sizeof(uint32_t));
	key[W_COMM] = strtab__intern(&st->comms, o->comm ? o->comm : "[unknown]");
	key[W_PID] = st->no_ids ? (uint32_t)-1 : (uint32_t)o->pid;
	key[W_TID] = st->no_ids ? (uint32_t)-1 : (uint32_t)o->tid;
	key[W_N] = n;
	memcpy(key + W_HDR, frames, n * sizeof(uint32_t));

	st->total += weight;
	if ((st->nr + 1) * 2 >= st->cap)
		stacktab__rehash(st);
	size_t i = stack_hash(key, n + W_HDR) & (st->cap - 1);
	uint32_t ent;
	while (st->slots[i]) {
		struct stackent *e = &st->ents[st->slots[i] - 1];
		const uint32_t *w = st->words + e->off;
		/* the length first: a shorter entry at the end of words has
		 * fewer than n + W_HDR words to compare */
		if (w[W_N] == n && !memcmp(w, key, (n + W_HDR) * sizeof(uint32_t))) {
			e->count += weight;
			e->samples++;
			ent = st->slots[i] - 1;
			goto out;
		}
		i = (i + 1) & (st->cap - 1);
	}
	if (st->nr_words + n + W_HDR > st->alloc_words) {
		st->alloc_words = (st->alloc_words + n + W_HDR) * 2;
		st->words = pp_xrealloc(st->words, st->alloc_words * sizeof(uint32_t));
	}
	if (st->nr == st->alloc) {
		st->alloc = st->alloc ? st->alloc * 2 : 1024;
		st->ents = pp_xrealloc(st->ents, st->alloc * sizeof(*st->ents));
	}
	st->ents[st->nr] = (struct stackent){ .off = (uint32_t)st->nr_words, .count = weight, .samples = 1 };
	memcpy(st->words + st->nr_words, key, (n + W_HDR) * sizeof(uint32_t));
	st->nr_words += n + W_HDR;
	ent = (uint32_t)st->nr;
	st->slots[i] = (uint32_t)++st->nr;
out:
	if (st->timeline)
		stacktab__tick(st, time, ent, weight);
	if (key != key_small)
		free(key);
}

void stacktab__get(const struct stacktab *st, size_t i, struct stack_view *v)
{
	const uint32_t *w = st->words + st->ents[i].off;
	v->comm = strtab__str(&st->comms, w[W_COMM]);
	v->pid = (pid_t)w[W_PID];
	v->tid = (pid_t)w[W_TID];
	v->nr = w[W_N];
	v->frames = w + W_HDR;
	v->weight = st->ents[i].count;
	v->samples = st->ents[i].samples;
}

/* Bottom-up merge sort by time: stable, so equal times keep the order
 * they were added in. */
static void ticks_sort(struct stack_tick *t, size_t n)
{
	struct stack_tick *tmp = pp_xmalloc((n ? n : 1) * sizeof(*tmp));
	struct stack_tick *src = t, *dst = tmp;
	for (size_t width = 1; width < n; width *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * width) {
			size_t mid = lo + width < n ? lo + width : n;
			size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
			size_t i = lo, j = mid, k = lo;
			while (i < mid && j < hi)
				dst[k++] = src[j].time < src[i].time ? src[j++] : src[i++];
			while (i < mid)
				dst[k++] = src[i++];
			while (j < hi)
				dst[k++] = src[j++];
		}
		struct stack_tick *x = src;
		src = dst;
		dst = x;
	}
	if (src != t)
		memcpy(t, src, n * sizeof(*t));
	free(tmp);
}

size_t stacktab__timeline(struct stacktab *st, const struct stack_tick **ticks)
{
	if (!st->sorted) {
		/* Rings are drained in time order per CPU, mostly sorted overall;
		 * a merge sort keeps equal times in the order they were added. */
		bool in_order = true;
		for (size_t i = 1; i < st->nr_ticks && in_order; i++)
			in_order = st->ticks[i - 1].time <= st->ticks[i].time;
		if (!in_order)
			ticks_sort(st->ticks, st->nr_ticks);
		st->sorted = true;
	}
	*ticks = st->ticks;
	return st->nr_ticks;
}

/* The folded root frame of a stack. */
static size_t root_label(const struct stacktab *st, const uint32_t *w, char *buf, size_t size)
{
	char comm[64];
	snprintf(comm, sizeof(comm), "%s", strtab__str(&st->comms, w[W_COMM]));
	sanitize(comm);
	for (char *p = comm; *p; p++)
		if (*p == ' ')
			*p = '_';	/* as stackcollapse-perf.pl */
	int pid = (int)w[W_PID], tid = (int)w[W_TID];
	int len;
	switch (st->root) {
	case STACK_ROOT_PID:
		len = snprintf(buf, size, "%s-%d", comm, pid);
		break;
	case STACK_ROOT_TID:
		len = snprintf(buf, size, "%s-%d/%d", comm, pid, tid);
		break;
	case STACK_ROOT_THREAD:
		len = snprintf(buf, size, "%s/%d", comm, tid);
		break;
	default:
		len = snprintf(buf, size, "%s", comm);
		break;
	}
	return len < 0 ? 0 : (size_t)len >= size ? size - 1 : (size_t)len;
}

/* A folded line is its root label, then every frame's labels, outermost
 * first, each after a ';'. Lines are sorted and merged by that text without
 * building it: labels are interned (one pointer per text) and never hold
 * ';' (sanitize), so two lines are compared label by label, equal pointers
 * skipped, and where one label is a prefix of the other the next byte of
 * the text is ';' or the line's end. Building every line first (a clang
 * compile's 4,761 lines: 20 MB of strings) was 15% of record's CPU. */
struct fold_ent {
	const uint32_t *w;
	uint64_t count;
	char root[128];
};

struct fold_cur {
	const struct frametab *ft;
	const struct fold_ent *e;
	int64_t i;		/* frame: W_N - 1 down to 0 */
	uint32_t k;		/* its label */
	const char *next;	/* the label after the current one (NULL: none) */
};

static const char *fold_cur__advance(struct fold_cur *c)
{
	const char *cur = c->next;
	c->next = NULL;
	while (c->i >= 0) {
		const struct frame *f = &c->ft->frames[c->e->w[W_HDR + c->i]];
		if (c->k < f->nr_syms) {
			c->next = f->labels[c->k++];
			break;
		}
		c->i--;
		c->k = 0;
	}
	return cur;
}

static void fold_cur__init(struct fold_cur *c, const struct frametab *ft, const struct fold_ent *e)
{
	*c = (struct fold_cur){ .ft = ft, .e = e, .i = (int64_t)e->w[W_N] - 1, .next = e->root };
}

/* Both cursors past the frames the two stacks share from the root: the
 * same frames are the same labels. Deep stacks share most of their
 * frames, and the sort compared them label by label (10% of pprobe's CPU
 * for a clang compile's 7,000 stacks). */
static void fold_cur__skip_shared(struct fold_cur *a, struct fold_cur *b)
{
	const uint32_t *x = a->e->w + W_HDR, *y = b->e->w + W_HDR;
	int64_t i = a->i, j = b->i;
	while (i >= 0 && j >= 0 && x[i] == y[j]) {
		i--;
		j--;
	}
	if (i == a->i)
		return;
	a->i = i;
	b->i = j;
	a->k = b->k = 0;
	a->next = b->next = NULL;
	fold_cur__advance(a);
	fold_cur__advance(b);
}

/* strcmp of the two lines' texts */
static int fold_cmp(const void *pa, const void *pb, void *arg)
{
	const struct frametab *ft = arg;
	const struct fold_ent *ea = pa, *eb = pb;
	struct fold_cur a, b;
	fold_cur__init(&a, ft, ea);
	fold_cur__init(&b, ft, eb);
	if (!strcmp(ea->root, eb->root)) {
		fold_cur__advance(&a);	/* the equal roots */
		fold_cur__advance(&b);
		fold_cur__skip_shared(&a, &b);
	}
	for (;;) {
		const char *x = fold_cur__advance(&a), *y = fold_cur__advance(&b);
		if (!x || !y)	/* the line's end (0) against a ';' */
			return x ? 1 : y ? -1 : 0;
		if (x == y)
			continue;
		size_t j = 0;
		while (x[j] && x[j] == y[j])
			j++;
		int cx = (unsigned char)x[j], cy = (unsigned char)y[j];
		if (!cx && !cy)
			continue;
		if (!cx)
			cx = a.next ? ';' : 0;
		else if (!cy)
			cy = b.next ? ';' : 0;
		return cx - cy;
	}
}

static size_t fold_text(const struct frametab *ft, const struct fold_ent *e, char **buf, size_t *cap)
{
	struct fold_cur c;
	size_t len = 0;
	fold_cur__init(&c, ft, e);
	for (const char *l; (l = fold_cur__advance(&c));) {
		size_t nl = strlen(l);
		if (len + nl + 2 >= *cap) {
			*cap = (len + nl + 2) * 2;
			*buf = pp_xrealloc(*buf, *cap);
		}
		if (len)
			(*buf)[len++] = ';';
		memcpy(*buf + len, l, nl);
		len += nl;
	}
	(*buf)[len] = 0;
	return len;
}

static int fold_cmp_ptr(const void *pa, const void *pb, void *arg)
{
	return fold_cmp(*(const struct fold_ent *const *)pa, *(const struct fold_ent *const *)pb, arg);
}

size_t stacktab__folded(struct stacktab *st, folded_line_fn fn, void *ctx)
{
	struct frametab *ft = st->ft;
	struct fold_ent *v = pp_xcalloc(st->nr ? st->nr : 1, sizeof(*v));
	/* sorted by pointer: a fold_ent is 144 bytes, and the sort moved
	 * each about log2(n) times (21,000 stacks of a clang loop) */
	struct fold_ent **p = pp_xcalloc(st->nr ? st->nr : 1, sizeof(*p));
	size_t cap = 4096;
	char *buf = pp_xmalloc(cap);

	for (size_t e = 0; e < st->nr; e++) {
		v[e].w = st->words + st->ents[e].off;
		v[e].count = st->ents[e].count;
		root_label(st, v[e].w, v[e].root, sizeof(v[e].root));
		p[e] = &v[e];
	}
	qsort_r(p, st->nr, sizeof(*p), fold_cmp_ptr, ft);
	size_t out = 0;
	for (size_t i = 0; i < st->nr;) {
		size_t j = i + 1;
		uint64_t count = p[i]->count;
		while (j < st->nr && !fold_cmp(p[i], p[j], ft))
			count += p[j++]->count;
		size_t len = fold_text(ft, p[i], &buf, &cap);
		fn(ctx, buf, len, count);
		out++;
		i = j;
	}
	free(buf);
	free(p);
	free(v);
	return out;
}

/* "STACK COUNT\n" without printf: 94 MB of folded lines for a clang loop
 * went through vfprintf and a strlen of each. */
void folded__write_line(void *ctx, const char *stack, size_t len, uint64_t weight)
{
	char num[24], *q = num + sizeof(num);
	*--q = '\n';
	do
		*--q = (char)('0' + weight % 10);
	while ((weight /= 10));
	*--q = ' ';
	fwrite(stack, 1, len, (FILE *)ctx);
	fwrite(q, 1, (size_t)(num + sizeof(num) - q), (FILE *)ctx);
}
