/* Unwinder front end: process and file caches, memory access for the
 * backends (stack copy, validated live stack, ELF file contents). */
#define _GNU_SOURCE
#include <dwarf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <unistd.h>

#include "pprobe/objcache.h"
#include "pprobe/safe_open.h"
#include "sym_internal.h"
#include "unwind_internal.h"

#define LIVE_OVERLAP 256	/* bytes at the end of the copy compared with the live stack */
#define LIVE_CHUNK (16 * 1024)
#define LIVE_SNAPSHOT_MAX (4 * 1024 * 1024)	/* read at once beyond the copy */

static const char *const end_names[] = {
	[UNWIND_COMPLETE] = "complete",
	[UNWIND_TRUNCATED] = "truncated",
	[UNWIND_NO_CFI] = "no-cfi",
	[UNWIND_UNMAPPED] = "unmapped",
	[UNWIND_MAX_DEPTH] = "max-depth",
	[UNWIND_NO_STACK] = "no-stack",
	[UNWIND_ERROR] = "error",
};

const char *unwind_end__str(enum unwind_end e)
{
	if ((unsigned)e < sizeof(end_names) / sizeof(end_names[0]))
		return end_names[e];
	return "unknown";
}

const char *unwind_result__label(const struct unwind_result *res, char *buf, size_t len)
{
	const char *dso = res->end_dso;
	switch (res->end) {
	case UNWIND_COMPLETE:
		snprintf(buf, len, "%s", "");
		break;
	case UNWIND_NO_CFI:
		snprintf(buf, len, "[no-cfi %s]", dso ? dso : "?");
		break;
	case UNWIND_UNMAPPED:
		snprintf(buf, len, "[unmapped]");
		break;
	case UNWIND_NO_STACK:
		snprintf(buf, len, "[no-stack]");
		break;
	case UNWIND_ERROR:
		snprintf(buf, len, "[unwind-error%s%s]", dso ? " " : "", dso ? dso : "");
		break;
	default:	/* truncated, max-depth */
		snprintf(buf, len, "[truncated]");
		break;
	}
	return buf;
}

const char *unwind_backend__str(enum unwind_backend b)
{
	return b == UNWIND_LIBUNWIND ? "libunwind" : "libdw";
}

int unwind_backend__parse(const char *s, enum unwind_backend *b)
{
	if (!strcmp(s, "libdw"))
		*b = UNWIND_LIBDW;
	else if (!strcmp(s, "libunwind"))
		*b = UNWIND_LIBUNWIND;
	else
		return -EINVAL;
	return 0;
}

void unwind_regs__from_x86_sample(struct unwind_regs *out, uint64_t mask,
				  const uint64_t *vals)
{
	/* sample register bit -> DWARF number (-1: not a DWARF register) */
	static const int8_t to_dwarf[24] = {
		0, 3, 2, 1, 4, 5, 6, 7, 16, -1, -1, -1, -1, -1, -1, -1,
		8, 9, 10, 11, 12, 13, 14, 15,
	};
	int n = 0;

	memset(out, 0, sizeof(*out));
	for (int bit = 0; bit < 64; bit++) {
		if (!(mask & (1ULL << bit)))
			continue;
		uint64_t v = vals[n++];
		if (bit < 24 && to_dwarf[bit] >= 0) {
			out->r[to_dwarf[bit]] = v;
			out->valid |= 1u << to_dwarf[bit];
		}
	}
}

/* ---- files ---- */

static unsigned hash_str(const char *s, uint64_t x)
{
	uint64_t h = 1469598103934665603ULL ^ x;
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211ULL;
	return (unsigned)(h ^ (h >> 29));
}

void ufile__free(struct ufile *f)
{
	if (!f)
		return;
	ufile__go_free(f);	/* what reads data first */
	dwarf_cfi_end(f->eh_cfi);
	elf_end(f->cfi_elf);
	if (f->cfi_view)
		munmap(f->cfi_view, f->cfi_view_size);
	elf_end(f->elf);
	if (f->data && !f->data_borrowed)
		munmap((void *)f->data, f->size);
	ufile__free_rows(f);
	free(f->path);
	free(f->open_path);
	free(f->interp_name);
	free(f->soname);
	free(f);
}

/* A shared object's DT_SONAME, from PT_DYNAMIC (the section headers may be
 * stripped). ld.so is mapped under its file's name (bullseye's ld-2.31.so)
 * where a program's PT_INTERP names its soname (ld-linux-x86-64.so.2). */
static char *ufile__soname(Elf *elf, const struct ufile *f, const GElf_Phdr *dyn)
{
	uint64_t strtab = 0, soname = UINT64_MAX;
	GElf_Dyn e;

	if (!dyn->p_filesz || dyn->p_offset >= f->size || dyn->p_filesz > f->size - dyn->p_offset)
		return NULL;
	Elf_Data *d = elf_getdata_rawchunk(elf, (int64_t)dyn->p_offset, dyn->p_filesz, ELF_T_DYN);
	if (!d)
		return NULL;
	for (int i = 0; gelf_getdyn(d, i, &e) && e.d_tag != DT_NULL; i++) {
		if (e.d_tag == DT_STRTAB)
			strtab = e.d_un.d_ptr;
		else if (e.d_tag == DT_SONAME)
			soname = e.d_un.d_val;
	}
	if (!strtab || soname == UINT64_MAX)
		return NULL;
	for (int k = 0; k < f->nr_loads; k++) {
		uint64_t v = f->loads[k].vaddr, off;
		if (strtab < v || strtab - v >= f->loads[k].filesz)
			continue;
		off = f->loads[k].offset + (strtab - v);
		if (off >= f->size || soname >= f->size - off)
			return NULL;
		const char *str = (const char *)f->data + off + soname;
		size_t max = f->size - off - soname, len = strnlen(str, max);
		return len && len < max ? strndup(str, len) : NULL;
	}
	return NULL;
}

static void eh_view_map(struct ufile *f, int fd, size_t size);

static int ufile__parse(struct ufile *f)
{
	Elf *elf = elf_memory((char *)f->data, f->size);
	GElf_Ehdr eh;
	size_t phnum, shstrndx;
	int err = -ENOEXEC;

	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh) ||
	    elf_getphdrnum(elf, &phnum))
		goto out;
	f->e_type = eh.e_type;
	f->entry = eh.e_entry;
	f->align = 4096;
	f->program = elf_file__is_program(elf);
	GElf_Phdr dyn = { .p_type = PT_NULL };
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph))
			goto out;
		if (ph.p_type == PT_DYNAMIC)
			dyn = ph;
		if (ph.p_type == PT_INTERP && ph.p_offset < f->size && ph.p_filesz <= f->size - ph.p_offset) {
			/* the loader's name: its e_entry is an entry too */
			const char *in = (const char *)f->data + ph.p_offset;
			size_t len = strnlen(in, ph.p_filesz);
			const char *base = memrchr(in, '/', len);
			base = base ? base + 1 : in;
			free(f->interp_name);
			f->interp_name = strndup(base, len - (size_t)(base - in));
		}
		if (ph.p_type == PT_LOAD && !f->nr_loads)
			f->first_load = ph.p_vaddr & -(ph.p_align ? ph.p_align : 1);
		if (ph.p_type == PT_LOAD && f->nr_loads < UNW_MAX_LOADS) {
			f->loads[f->nr_loads].vaddr = ph.p_vaddr;
			f->loads[f->nr_loads].memsz = ph.p_memsz;
			f->loads[f->nr_loads].offset = ph.p_offset;
			f->loads[f->nr_loads].filesz = ph.p_filesz;
			f->loads[f->nr_loads].flags = ph.p_flags;
			f->nr_loads++;
		} else if (ph.p_type == PT_GNU_EH_FRAME) {
			f->eh_hdr_vaddr = ph.p_vaddr;
			f->eh_hdr_offset = ph.p_offset;
			f->eh_hdr_size = ph.p_filesz;
			/* version, eh_frame_ptr_enc, fde_count_enc, table_enc */
			if (ph.p_offset > f->size || f->size - ph.p_offset < 12)
				continue;
			const uint8_t *h = f->data + ph.p_offset;
			size_t ptrsz = (h[1] & 0x0f) == 0x0b || (h[1] & 0x0f) == 0x03 ? 4 :
				       (h[1] & 0x0f) == 0x0c || (h[1] & 0x0f) == 0x04 ? 8 : 0;
			if (h[0] != 1 || !ptrsz || h[2] != 0x03 || h[3] != 0x3b ||
			    f->size - ph.p_offset < 4 + ptrsz + 4) {
				f->eh_hdr_vaddr = 0;	/* unusual encoding: no table */
				continue;
			}
			uint32_t cnt;
			memcpy(&cnt, h + 4 + ptrsz, 4);
			f->eh_fde_count = cnt;
			f->eh_table_vaddr = ph.p_vaddr + 4 + ptrsz + 4;
		}
	}
	if (dyn.p_type == PT_DYNAMIC && eh.e_type == ET_DYN && !f->program)
		f->soname = ufile__soname(elf, f, &dyn);
	if (!elf_getshdrstrndx(elf, &shstrndx)) {
		bool hdr_seen = false;
		for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
			GElf_Shdr sh;
			const char *nm;
			if (!gelf_getshdr(scn, &sh) ||
			    !(nm = elf_strptr(elf, shstrndx, sh.sh_name)))
				continue;
			if (!strcmp(nm, ".eh_frame_hdr"))
				hdr_seen = true;
			if (!strcmp(nm, ".eh_frame") && sh.sh_type != SHT_NOBITS && !f->has_eh_frame) {
				f->has_eh_frame = true;
				/* libdw uses .eh_frame_hdr's table only when it
				 * comes first (ufile__eh_cfi) */
				f->eh_hdr_late = !hdr_seen;
				f->eh_frame_offset = sh.sh_offset;
				f->eh_frame_addr = sh.sh_addr;
				f->eh_frame_size = sh.sh_size;
			}
			else if (!strcmp(nm, ".debug_frame") && sh.sh_type != SHT_NOBITS)
				f->has_debug_frame = true;
			else if ((!strcmp(nm, ".debug_info") || !strcmp(nm, ".debug_line")) && sh.sh_type != SHT_NOBITS)
				f->has_dwarf = true;
			else if (!strcmp(nm, ".gopclntab") || !strcmp(nm, ".note.go.buildid") ||
				 !strcmp(nm, ".go.buildinfo"))
				f->is_go = true;
		}
	}
	/* an object file would have libdw relocate it in place: not unwound */
	err = f->nr_loads && f->e_type != ET_REL ? 0 : -ENOEXEC;
out:
	elf_end(elf);
	return err;
}

static struct ufile *ufile__new(const char *path, const char *open_path)
{
	struct ufile *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->path = strdup(path);
	f->open_path = open_path ? strdup(open_path) : NULL;
	if (!f->path || (open_path && !f->open_path)) {
		ufile__free(f);
		return NULL;
	}
	const char *slash = strrchr(f->path, '/');
	f->name = slash && slash[1] ? slash + 1 : f->path;
	return f;
}

struct ufile *ufile__open(const char *path, const char *open_path, int fd, int err)
{
	struct ufile *f = ufile__new(path, open_path);
	struct stat st;

	if (!f)
		return NULL;
	if (fd < 0)
		f->err = err < 0 ? err : -ENOENT;
	else if (fstat(fd, &st) || st.st_size <= 0)
		f->err = -ENOEXEC;
	else if (!(f->err = ufile__map(f, fd, (size_t)st.st_size)) && !(f->err = ufile__parse(f)))
		eh_view_map(f, fd, (size_t)st.st_size);
	return f;
}

struct ufile *ufile__open_image(const char *path, const char *open_path, const void *data, size_t size)
{
	struct ufile *f = ufile__new(path, open_path);

	if (!f)
		return NULL;
	f->data = data;
	f->size = size;
	f->data_borrowed = true;
	f->err = ufile__parse(f);
	return f;
}

/* ---- processes and their modules ---- */

static uint64_t exec_maps_sig(const struct maps *maps)
{
	uint64_t h = 1469598103934665603ULL;
	size_t n = maps__count(maps);

	for (size_t i = 0; i < n; i++) {
		const struct map *m = maps__at(maps, i);
		if (!(m->prot & PROT_EXEC) || !m->path)
			continue;
		uint64_t v[4] = { m->start, m->end, m->pgoff, m->ino };
		for (int k = 0; k < 4; k++)
			h = (h ^ v[k]) * 1099511628211ULL;
		for (int k = 0; k < m->build_id_size; k++)	/* ino is 0 where the kernel gave it */
			h = (h ^ m->build_id[k]) * 1099511628211ULL;
		h ^= hash_str(m->path, 0);
	}
	return h;
}

static int mod_cmp(const void *a, const void *b)
{
	const struct umod *x = a, *y = b;
	return x->low < y->low ? -1 : x->low > y->low;
}

static int uproc__build_mods(struct unwinder *u, struct uproc *p, const struct maps *maps)
{
	size_t n = maps__count(maps);

	p->nr_mods = 0;
	for (size_t i = 0; i < n; i++) {
		const struct map *m = maps__at(maps, i);
		if (!(m->prot & PROT_EXEC))
			continue;
		struct ufile *f;
		struct objcache_entry *e;
		if (map__is_file(m))	/* looked for again through a live process */
			f = (e = objcache__entry(u->cache, p->pid, m, true, true)) ? objcache__ufile(u->cache, e) : NULL;
		else if (m->path && !strcmp(m->path, "[vdso]"))
			f = objcache__vdso_ufile(u->cache, m);
		else
			continue;
		if (!f)
			continue;
		/* the PT_LOAD this mapping's file offset falls in; executable
		 * ones first: lld lets segments share a file page, so the
		 * page at pgoff may also start a read-only segment */
		uint64_t bias = 0;
		bool found = false;
		for (int pass = 0; pass < 2 && !found; pass++) {
			for (int k = 0; k < f->nr_loads && !found; k++) {
				uint64_t off = f->loads[k].offset & ~(f->align - 1);
				if (!pass && !(f->loads[k].flags & PF_X))
					continue;
				if (m->pgoff >= off && m->pgoff < f->loads[k].offset + f->loads[k].filesz) {
					bias = m->start - (f->loads[k].vaddr + m->pgoff - f->loads[k].offset);
					found = true;
				}
			}
		}
		if (!found)
			continue;
		if (f->e_type == ET_EXEC)
			bias = 0;
		/* merge with a module of the same file and bias */
		struct umod *um = NULL;
		for (int k = 0; k < p->nr_mods; k++)
			if (p->mods[k].file == f && p->mods[k].bias == bias)
				um = &p->mods[k];
		if (um) {
			if (m->start < um->text_low)
				um->text_low = m->start;
			if (m->end > um->text_high)
				um->text_high = m->end;
			continue;
		}
		if (p->nr_mods == p->cap_mods) {
			int cap = p->cap_mods ? 2 * p->cap_mods : 32;
			struct umod *nm = realloc(p->mods, cap * sizeof(*nm));
			if (!nm)
				return -ENOMEM;
			p->mods = nm;
			p->cap_mods = cap;
		}
		um = &p->mods[p->nr_mods++];
		um->file = f;
		um->bias = bias;
		um->low = UINT64_MAX;
		um->high = 0;
		for (int k = 0; k < f->nr_loads; k++) {
			uint64_t lo = (f->loads[k].vaddr & ~(f->align - 1)) + bias;
			uint64_t hi = f->loads[k].vaddr + f->loads[k].memsz + bias;
			if (lo < um->low)
				um->low = lo;
			if (hi > um->high)
				um->high = hi;
		}
		um->text_low = m->start;
		um->text_high = m->end;
	}
	if (p->nr_mods > 1)	/* p->mods is NULL for a process without file mappings */
		qsort(p->mods, (size_t)p->nr_mods, sizeof(*p->mods), mod_cmp);
	return 0;
}

const struct umod *uproc__find_mod(const struct uproc *p, uint64_t addr)
{
	int lo = 0, hi = p->nr_mods - 1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2;
		const struct umod *m = &p->mods[mid];
		if (addr < m->low)
			hi = mid - 1;
		else if (addr >= m->high)
			lo = mid + 1;
		else
			return m;
	}
	return NULL;
}

static void uproc__free(struct unwinder *u, struct uproc *p)
{
	if (!p)
		return;
	if (p->backend) {
		if (u->backend == UNWIND_LIBDW)
			udw__free(p);
		else
			uun__free(p);
	}
	uhist__free(u, p);
	free(p->mods);
	free(p);
}

static struct uproc *unwinder__proc(struct unwinder *u, pid_t pid, const struct maps *maps,
				    int *err)
{
	unsigned h = (unsigned)pid % 256;
	struct uproc *p;

	for (p = u->procs[h]; p; p = p->next)
		if (p->pid == pid)
			break;
	if (!p) {
		p = calloc(1, sizeof(*p));
		if (!p) {
			*err = -ENOMEM;
			return NULL;
		}
		p->pid = pid;
		p->next = u->procs[h];
		u->procs[h] = p;
	}
	if (!p->have_sig || p->maps != maps || p->maps_gen != maps__generation(maps)) {
		uint64_t sig = exec_maps_sig(maps);
		p->maps = maps;
		p->maps_gen = maps__generation(maps);
		if (!p->have_sig || sig != p->sig) {
			*err = uproc__build_mods(u, p, maps);
			if (*err)
				return NULL;
			p->sig = sig;
			p->have_sig = true;
			p->backend_stale = true;
		}
	}
	if (p->backend_stale || !p->backend) {
		*err = u->backend == UNWIND_LIBDW ? udw__sync(p) : uun__sync(p);
		if (*err)
			return NULL;
		p->backend_stale = false;
	}
	return p;
}

void unwinder__forget(struct unwinder *u, pid_t pid)
{
	if (!u)
		return;
	for (struct uproc **pp = &u->procs[(unsigned)pid % 256]; *pp; pp = &(*pp)->next) {
		if ((*pp)->pid == pid) {
			struct uproc *p = *pp;
			*pp = p->next;
			uproc__free(u, p);
			return;
		}
	}
}

/* objcache__sweep's marker: the files of the processes known here stay */
static void unwinder__mark(struct objcache *c, void *arg)
{
	struct unwinder *u = arg;

	for (int i = 0; i < 256; i++)
		for (struct uproc *p = u->procs[i]; p; p = p->next)
			for (int k = 0; k < p->nr_mods; k++)
				objcache__mark(c, p->mods[k].file->cached);
}

size_t unwinder__sweep(struct unwinder *u)
{
	return u ? objcache__sweep(u->cache) : 0;
}

struct unwinder *unwinder__new_cached(enum unwind_backend backend, struct objcache *cache)
{
	if (backend != UNWIND_LIBDW && backend != UNWIND_LIBUNWIND) {
		errno = EINVAL;
		return NULL;
	}
	elf_version(EV_CURRENT);
	struct unwinder *u = calloc(1, sizeof(*u));
	if (!u)
		return NULL;
	u->backend = backend;
	const char *fast = getenv("PPROBE_UNWIND_FAST"), *check = getenv("PPROBE_UNWIND_CHECK");
	u->fast = !fast || strcmp(fast, "0");
	u->check = check && strcmp(check, "0") && u->fast && backend == UNWIND_LIBDW;
	/* tests: PPROBE_LIVE_STACK=0, PPROBE_UNWIND_HISTORY=0 turn either off */
	const char *live = getenv("PPROBE_LIVE_STACK"), *hist = getenv("PPROBE_UNWIND_HISTORY");
	u->live_allowed = !live || strcmp(live, "0");
	u->history = !hist || strcmp(hist, "0");
	u->cache = cache ? objcache__get(cache) : objcache__new();
	if (!u->cache || objcache__add_marker(u->cache, unwinder__mark, u)) {
		int err = u->cache ? EBUSY : ENOMEM;	/* EBUSY: too many unwinders on one cache */

		objcache__put(u->cache);
		free(u);
		errno = err;
		return NULL;
	}
	return u;
}

struct unwinder *unwinder__new(enum unwind_backend backend)
{
	return unwinder__new_cached(backend, NULL);
}

void unwinder__delete(struct unwinder *u)
{
	if (!u)
		return;
	for (int i = 0; i < 256; i++)
		for (struct uproc *p = u->procs[i], *n; p; p = n) {
			n = p->next;
			uproc__free(u, p);
		}
	objcache__remove_marker(u->cache, unwinder__mark, u);
	objcache__put(u->cache);
	unwinder__free_step(u);
	free(u->live_buf);
	free(u->code);
	free(u);
}

void unwinder__set_live_stack(struct unwinder *u, bool allow)
{
	u->live_allowed = allow;
}

const struct unwind_check *unwinder__check(const struct unwinder *u)
{
	return u && u->check ? &u->check_stats : NULL;
}

/* ---- memory ---- */

/* Room for len bytes of live stack in c->live (kept between samples). */
static bool live_reserve(struct uctx *c, uint64_t len)
{
	if (len <= c->live_cap)
		return true;
	uint64_t cap = c->live_cap ? c->live_cap : LIVE_CHUNK;
	while (cap < len)
		cap *= 2;
	uint8_t *b = realloc(c->live, cap);
	if (!b)
		return false;
	c->live = b;
	c->live_cap = cap;
	return true;
}

static bool live_fetch(struct uctx *c, uint64_t want_end)
{
	uint64_t copy_end = c->sp + c->size;

	if (c->live_state < 0)
		return false;
	uint64_t stack_end = c->live_allowed ? uctx__stack_end(c, NULL) : 0;
	if (c->live_state == 0) {
		/* The frames above the sampled sp stay put while the callee runs:
		 * if the code and stack addresses (return addresses, saved frame
		 * pointers and code pointers) in the copy's last bytes are still
		 * there, the thread has not returned past them, and what lies
		 * beyond is what the sample would have seen. Other words there
		 * may change without a return (a callee filling its caller's
		 * buffer), so they are not held to equality. */
		c->live_state = -1;
		uint64_t ov = c->size < LIVE_OVERLAP ? c->size : LIVE_OVERLAP;
		ov &= ~7ULL;
		if (!c->live_allowed || ov < 8 || !stack_end || copy_end >= stack_end)
			return false;
		/* The thread has been seen above the end of the copy since: the
		 * frames there returned (their bytes may linger). */
		if (c->live_floor > copy_end - ov && c->live_floor < stack_end)
			return false;
		/* The end of the copy and everything above it up to the top of
		 * the stack, in one read: the walk then sees one moment of the
		 * thread, not one that drifts while it goes on (unwinding 1000
		 * frames takes ms). */
		uint64_t all = stack_end - copy_end;
		if (all > LIVE_SNAPSHOT_MAX)
			all = LIVE_SNAPSHOT_MAX;
		if (!live_reserve(c, all))
			return false;
		uint8_t tail[LIVE_OVERLAP];
		struct iovec l[2] = { { tail, ov }, { c->live, all } };
		struct iovec r = { (void *)(uintptr_t)(copy_end - ov), ov + all };
		ssize_t got = process_vm_readv(c->proc->pid, l, 2, &r, 1, 0);
		if (got < (ssize_t)ov)
			return false;
		const uint8_t *was_tail = c->data + c->size - ov;
		for (uint64_t off = 0; off < ov; off += 8) {
			uint64_t was, now;
			memcpy(&was, was_tail + off, 8);
			memcpy(&now, tail + off, 8);
			if (was != now && ((was >= c->sp && was < stack_end) || uctx__is_exec(c, was)))
				return false;
		}
		c->live_len = (uint64_t)got - ov;
		if (c->live_len)
			c->used_live = true;
		c->live_state = 1;
	}
	if (want_end > stack_end)
		return false;
	while (copy_end + c->live_len < want_end) {
		uint64_t need = want_end - copy_end;
		uint64_t len = c->live_len + LIVE_CHUNK;
		if (len < need)
			len = (need + LIVE_CHUNK - 1) / LIVE_CHUNK * LIVE_CHUNK;
		if (copy_end + len > stack_end)
			len = stack_end - copy_end;
		if (!live_reserve(c, len))
			return false;
		struct iovec l = { c->live + c->live_len, len - c->live_len };
		struct iovec r = { (void *)(uintptr_t)(copy_end + c->live_len), len - c->live_len };
		ssize_t got = process_vm_readv(c->proc->pid, &l, 1, &r, 1, 0);
		if (got <= 0)
			return false;
		c->live_len += got;
		c->used_live = true;
	}
	return true;
}

static bool file_read(const struct uctx *c, uint64_t addr, void *buf, size_t len)
{
	const struct umod *m = uproc__find_mod(c->proc, addr);
	if (!m)
		return false;
	const struct ufile *f = m->file;
	uint64_t va = addr - m->bias;
	for (int k = 0; k < f->nr_loads; k++) {
		uint64_t in = va - f->loads[k].vaddr;
		if (va >= f->loads[k].vaddr && in <= f->loads[k].filesz && len <= f->loads[k].filesz - in) {
			uint64_t off = f->loads[k].offset + in;
			if (off < in || off > f->size || len > f->size - off)
				return false;
			memcpy(buf, f->data + off, len);
			return true;
		}
	}
	return false;
}

/* Anonymous code (a JIT's) read from the live process, a page at a time:
 * the steps without CFI read a few bytes at each JIT frame's pc, and a
 * recursion's frames share pages. A walk's pages only (JIT code is
 * rewritten in place between samples); a page that could not be read is
 * not asked again in that walk. */
#define CODE_PAGE 4096u
#define CODE_PAGES 8

struct code_cache {
	unsigned nr, next;
	struct {
		uint64_t addr;
		bool ok;
		uint8_t data[CODE_PAGE];
	} page[CODE_PAGES];
};

static void code_cache__reset(struct unwinder *u)
{
	if (u->code)
		u->code->nr = 0;
}

static const uint8_t *code_page(const struct uctx *c, uint64_t page)
{
	struct code_cache *cc = c->u->code;
	if (!cc && !(cc = c->u->code = calloc(1, sizeof(*cc))))
		return NULL;
	for (unsigned i = 0; i < cc->nr; i++)
		if (cc->page[i].addr == page)
			return cc->page[i].ok ? cc->page[i].data : NULL;
	unsigned i = cc->nr < CODE_PAGES ? cc->nr++ : cc->next++ % CODE_PAGES;
	struct iovec l = { cc->page[i].data, CODE_PAGE };
	struct iovec r = { (void *)(uintptr_t)page, CODE_PAGE };
	cc->page[i].addr = page;
	cc->page[i].ok = process_vm_readv(c->proc->pid, &l, 1, &r, 1, 0) == (ssize_t)CODE_PAGE;
	return cc->page[i].ok ? cc->page[i].data : NULL;
}

bool uctx__read_code(const struct uctx *c, uint64_t addr, void *buf, size_t len)
{
	if (file_read(c, addr, buf, len))
		return true;
	const struct map *m = maps__find(c->maps, addr);
	if (!m || !(m->prot & PROT_EXEC) || len > m->end - addr || uproc__find_mod(c->proc, addr))
		return false;
	/* anonymous code (a JIT's): only the live process has it */
	uint8_t *out = buf;
	while (len) {
		uint64_t page = addr & ~(uint64_t)(CODE_PAGE - 1), in = addr - page;
		size_t n = len < CODE_PAGE - in ? len : CODE_PAGE - in;
		if (page >= m->start && m->end - page >= CODE_PAGE) {
			const uint8_t *d = code_page(c, page);
			if (!d)
				return false;
			memcpy(out, d + in, n);
		} else {	/* a mapping not made of whole pages: just the bytes */
			struct iovec l = { out, n };
			struct iovec r = { (void *)(uintptr_t)addr, n };
			if (process_vm_readv(c->proc->pid, &l, 1, &r, 1, 0) != (ssize_t)n)
				return false;
		}
		out += n;
		addr += n;
		len -= n;
	}
	return true;
}

Elf *ufile__elf(struct ufile *f)
{
	if (!f->elf)
		f->elf = elf_memory((char *)f->data, f->size);
	return f->elf;
}

/* libdw reads .eh_frame_hdr's binary search table only where that section
 * comes before .eh_frame; lld puts it after (Debian's libLLVM and
 * libclang-cpp), and libdw then parses every FDE of the file at its first
 * lookup (50-100 ms in libLLVM) and keeps them in a tree of 100,000. Given
 * no section headers it finds both through PT_GNU_EH_FRAME, with the
 * table: so its view of such a file is one without them. The view is the
 * file mapped again, privately, its ELF header edited (one page copied on
 * write): a copy of .eh_frame and .eh_frame_hdr into anonymous memory was
 * 10 MB of fresh pages for a clang compile, 8% of pprobe's CPU at 99 Hz. */
static void eh_view_map(struct ufile *f, int fd, size_t size)
{
	if (!f->eh_hdr_late || !f->eh_fde_count || size < sizeof(Elf64_Ehdr) ||
	    f->data[EI_CLASS] != ELFCLASS64)
		return;
	uint8_t *v = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (v == MAP_FAILED)
		return;
	Elf64_Ehdr *h = (Elf64_Ehdr *)v;
	h->e_shoff = 0;
	h->e_shnum = 0;
	h->e_shstrndx = SHN_UNDEF;
	mprotect(v, size, PROT_READ);
	f->cfi_view = v;
	f->cfi_view_size = size;
}

static Dwarf_CFI *eh_cfi_by_table(struct ufile *f)
{
	const uint8_t *v = f->cfi_view;
	size_t size = f->cfi_view_size;
	Elf64_Ehdr eh;

	if (!v)
		return NULL;
	memcpy(&eh, v, sizeof(eh));
	uint64_t ph_end = eh.e_phoff + (uint64_t)eh.e_phnum * eh.e_phentsize;
	/* libdw finds .eh_frame at its address's offset from .eh_frame_hdr's */
	if (f->eh_frame_addr - f->eh_hdr_vaddr != f->eh_frame_offset - f->eh_hdr_offset || ph_end > size ||
	    f->eh_hdr_offset > size || size - f->eh_hdr_offset < f->eh_hdr_size ||
	    f->eh_frame_offset > size || size - f->eh_frame_offset < f->eh_frame_size)
		return NULL;
	Elf *e = elf_memory((char *)v, size);
	Dwarf_CFI *cfi = e ? dwarf_getcfi_elf(e) : NULL;
	if (!cfi) {
		elf_end(e);
		return NULL;
	}
	f->cfi_elf = e;
	return cfi;
}

Dwarf_CFI *ufile__eh_cfi(struct ufile *f)
{
	if (!f->cfi_tried) {
		f->cfi_tried = true;
		f->eh_cfi = eh_cfi_by_table(f);
		Elf *elf = f->eh_cfi ? NULL : ufile__elf(f);
		if (elf)
			f->eh_cfi = dwarf_getcfi_elf(elf);
	}
	return f->eh_cfi;
}

/* The .eh_frame row for pc (free it), or NULL; *mod (if not NULL): pc's module. */
static Dwarf_Frame *eh_frame_at(const struct uctx *c, uint64_t pc, const struct umod **mod)
{
	const struct umod *m = uproc__find_mod(c->proc, pc);
	Dwarf_CFI *cfi;
	Dwarf_Frame *fr;

	if (mod)
		*mod = m;
	if (!m || !(cfi = ufile__eh_cfi(m->file)) || dwarf_cfi_addrframe(cfi, pc - m->bias, &fr))
		return NULL;
	return fr;
}

/* Does .eh_frame cover pc? (*mod: pc's module, or NULL). Answered from the
 * file's compiled rows (unwind_fast.c), which the walk then uses: libdw
 * allocates a row for every lookup, and every sample whose word at sp
 * follows a call asks. */
static bool eh_covers(const struct uctx *c, uint64_t pc, const struct umod **mod)
{
	const struct umod *m = uproc__find_mod(c->proc, pc);
	*mod = m;
	if (!m)
		return false;
	const struct cfi_row *row = ufile__cfi_row(m->file, pc - m->bias);
	if (row)
		return row->state != CFI_ROW_ABSENT;
	Dwarf_Frame *fr = eh_frame_at(c, pc, NULL);	/* no memory for the rows */
	bool has = fr != NULL;
	free(fr);
	return has;
}

/* The length of a ModRM operand (ModRM, SIB, displacement) from its first
 * bytes, as the x86-64 encoding defines it. */
static unsigned modrm_len(uint8_t modrm, uint8_t sib)
{
	unsigned mod = modrm >> 6, rm = modrm & 7, n = 1;
	if (mod == 3)
		return 1;
	if (rm == 4) {
		n++;
		if (mod == 0 && (sib & 7) == 5)
			n += 4;	/* disp32, no base */
	} else if (mod == 0 && rm == 5) {
		n += 4;	/* disp32(%rip) */
	}
	return n + (mod == 1 ? 1 : mod == 2 ? 4 : 0);
}

/* Does a call instruction end at b + N (b: the N bytes before a return
 * address)? call rel32, or call near indirect (FF /2) of any operand form:
 * *%reg, *(%reg), *disp(%reg), *(%base,%index,s) (ld.so's init and fini
 * loops call "*(%rbx)"), *disp32(%rip) through the GOT; with a REX prefix,
 * and CET's notrack prefix. */
bool x86_call_ends(const uint8_t b[X86_CALL_MAX])
{
	enum { N = X86_CALL_MAX };
	if (b[N - 5] == 0xe8)
		return true;
	for (unsigned i = 0; i + 2 <= N; i++) {
		unsigned k = i;
		if (b[k] == 0x3e && k + 3 <= N)
			k++;
		if ((b[k] & 0xf0) == 0x40 && k + 3 <= N)
			k++;
		if (b[k] != 0xff || k + 2 > N || ((b[k + 1] >> 3) & 7) != 2)
			continue;
		if (k + 1 + modrm_len(b[k + 1], k + 2 < N ? b[k + 2] : 0) == N)
			return true;
	}
	return false;
}

bool uctx__after_call(const struct uctx *c, uint64_t ra)
{
	uint8_t b[X86_CALL_MAX];
	return ra >= sizeof(b) && uctx__read_code(c, ra - sizeof(b), b, sizeof(b)) && x86_call_ends(b);
}

/* The sampled pc has no CFI, in a function that has not touched the stack
 * yet: an assembly leaf (GMP's mpn routines), or a system call wrapper past
 * the end of its CFI (glibc's clone3 ends its FDE before the syscall, for
 * the child's sake). Its return address is then the word at sp. Taken only
 * when that word is the address right after a call instruction, in code;
 * otherwise the walk goes on as without (the frame-pointer fallback). */
static bool cfi_less_leaf(struct uctx *c, uint64_t *ra)
{
	uint64_t pc = c->regs->r[UNWIND_REG_IP], sp = c->regs->r[UNWIND_REG_SP];
	const struct umod *m;

	/* every sample comes here: the pc's CFI row first (compiled once per
	 * address and cached, the row the fast path steps the leaf with), so
	 * that the code before the word at sp (a page of the file touched,
	 * for a return address's call) is read only for the rare pc without */
	if (sp < c->sp || sp - c->sp + 8 > c->size)
		return false;
	m = uproc__find_mod(c->proc, pc);
	if (!m || m->file->has_debug_frame || m->file->debug_file_cfi > 0 || eh_covers(c, pc, &m))
		return false;
	memcpy(ra, c->data + (sp - c->sp), 8);
	return uctx__is_exec(c, *ra) && uctx__after_call(c, *ra) && !uctx__is_entry(c, pc);
}

/* gcc's CFI keeps a callee-saved register's offset rule through the
 * epilogue that pops it (only the CFA offset follows the pops), so at a
 * pop, or at a tail call after the pops, the sampled frame's rules place
 * saved registers below sp, where the stack copy (from sp up) has nothing.
 * Each pop restored its register from that slot: the slot holds the
 * register's sampled value. Found from .eh_frame once per sample that reads
 * below sp (both backends read through here). */
static void find_popped(struct uctx *c)
{
	const struct unwind_regs *r = c->regs;
	uint64_t sp = r->r[UNWIND_REG_SP];
	Dwarf_Op *ops, mem[3];
	size_t nops;

	c->popped_done = true;
	Dwarf_Frame *fr = eh_frame_at(c, r->r[UNWIND_REG_IP], NULL);
	if (!fr)
		return;
	if (dwarf_frame_cfa(fr, &ops, &nops) || nops != 1 || ops[0].atom != DW_OP_bregx ||
	    ops[0].number >= UNWIND_NR_REGS || !(r->valid & (1u << ops[0].number)))
		goto out;
	uint64_t cfa = r->r[ops[0].number] + ops[0].number2;
	for (unsigned reg = 0; reg < UNWIND_NR_REGS; reg++) {
		if (reg == UNWIND_REG_SP || reg == UNWIND_REG_IP || !(r->valid & (1u << reg)))
			continue;
		if (dwarf_frame_register(fr, (int)reg, mem, &ops, &nops) || nops < 1 || nops > 2 ||
		    ops[0].atom != DW_OP_call_frame_cfa || (nops == 2 && ops[1].atom != DW_OP_plus_uconst))
			continue;
		uint64_t slot = cfa + (nops == 2 ? ops[1].number : 0);
		if (slot < sp && sp - slot <= 8 * UNWIND_NR_REGS) {
			c->popped[c->nr_popped].addr = slot;
			c->popped[c->nr_popped].val = r->r[reg];
			c->nr_popped++;
		}
	}
out:
	free(fr);
}

bool uctx__read_word(struct uctx *c, uint64_t addr, uint64_t *val)
{
	uint64_t copy_end = c->sp + c->size;

	uint64_t sp = c->regs->r[UNWIND_REG_SP];
	if (addr < sp && sp - addr <= 8 * UNWIND_NR_REGS) {
		if (!c->popped_done)
			find_popped(c);
		for (int i = 0; i < c->nr_popped; i++) {
			if (c->popped[i].addr == addr) {
				*val = c->popped[i].val;
				return true;
			}
		}
		goto fail;
	}

	if (addr >= c->sp && addr + 8 <= copy_end && addr + 8 > addr) {
		memcpy(val, c->data + (addr - c->sp), 8);
		if (c->exact && addr + 8 > c->sp + c->exact)
			c->used_history = true;
		return true;
	}
	uint64_t stack_end;
	if (addr >= c->sp && addr < copy_end + (uint64_t)64 * 1024 * 1024 && (stack_end = uctx__stack_end(c, NULL)) &&
	    addr + 8 <= stack_end) {
		/* beyond (or straddling the end of) the copy */
		if (!live_fetch(c, addr + 8))
			goto fail;
		uint8_t b[8];
		for (int i = 0; i < 8; i++) {
			uint64_t a = addr + i;
			b[i] = a < copy_end ? c->data[a - c->sp] : c->live[a - copy_end];
		}
		memcpy(val, b, 8);
		return true;
	}
	if (c->alt && addr >= c->alt_lo && addr - c->alt_lo < c->alt_len && c->alt_len - (addr - c->alt_lo) >= 8) {
		memcpy(val, c->alt + (addr - c->alt_lo), 8);
		return true;
	}
	if (file_read(c, addr, val, 8))
		return true;
fail:
	if (!c->mem_fail) {
		c->mem_fail = true;
		c->fail_addr = addr;
	}
	return false;
}

bool uctx__read_live(const struct uctx *c, uint64_t addr, void *buf, size_t len)
{
	if (!c->live_allowed)
		return false;
	struct iovec l = { buf, len };
	struct iovec r = { (void *)(uintptr_t)addr, len };
	return process_vm_readv(c->proc->pid, &l, 1, &r, 1, 0) == (ssize_t)len;
}

/* a goroutine's stack is 2 KiB to 1 GiB; the walk needs its frames up to
 * runtime.goexit, seldom more than a few KiB */
#define ALT_STACK_MAX (1u << 20)

bool uctx__take_alt_stack(struct uctx *c, uint64_t lo, uint64_t hi)
{
	if (c->alt || !c->live_allowed || hi <= lo)
		return false;
	if (c->alt_again && c->alt_again_lo == lo) {
		/* the same walk again (PPROBE_UNWIND_CHECK): the same bytes */
		c->alt = c->alt_again;
		c->alt_lo = lo;
		c->alt_len = c->alt_again_len;
		c->alt_again = NULL;
		c->used_live = true;
		return true;
	}
	uint64_t len = hi - lo < ALT_STACK_MAX ? hi - lo : ALT_STACK_MAX;
	uint8_t *b = malloc(len);
	if (!b)
		return false;
	struct iovec l = { b, len };
	struct iovec r = { (void *)(uintptr_t)lo, len };
	ssize_t got = process_vm_readv(c->proc->pid, &l, 1, &r, 1, 0);
	if (got < 8) {
		free(b);
		return false;
	}
	c->alt = b;
	c->alt_lo = lo;
	c->alt_len = (uint64_t)got;
	c->used_live = true;
	return true;
}

bool uctx__is_exec(const struct uctx *c, uint64_t addr)
{
	const struct map *m = maps__find(c->maps, addr);
	return m && (m->prot & PROT_EXEC);
}

/* The kernel starts threads at the e_entry of a program (ET_EXEC, ET_DYN
 * with an interpreter, static-pie) or of the loader a program of this
 * process names (ld.so). A shared library's e_entry is no thread's start:
 * often just the start of its .text, or, as with a plugin linked -e, any
 * function. */
static bool entry_file(const struct uproc *p, const struct ufile *f)
{
	if (f->program)
		return true;
	for (int i = 0; i < p->nr_mods; i++) {
		const char *in = p->mods[i].file->interp_name;
		if (in && (!strcmp(in, f->name) || (f->soname && !strcmp(in, f->soname))))
			return true;
	}
	return false;
}

bool uctx__is_entry(const struct uctx *c, uint64_t addr)
{
	const struct umod *um = uproc__find_mod(c->proc, addr);
	if (!um || !um->file->entry || !entry_file(c->proc, um->file))
		return false;
	uint64_t va = addr - um->bias;
	struct ufile *f = um->file;
	if (!f->entry_size) {
		/* _start's FDE where it has one (glibc's start.S does), as the
		 * symbolizer names it: else a function without CFI just after it
		 * (crtstuff's deregister_tm_clones) would pass for the entry and
		 * end its stack there, unnamed */
		Dwarf_CFI *cfi = ufile__eh_cfi(f);
		Dwarf_Frame *fr;
		Dwarf_Addr start, end;

		f->entry_size = 64;
		if (cfi && dwarf_cfi_addrframe(cfi, f->entry, &fr) == 0) {
			if (dwarf_frame_info(fr, &start, &end, NULL) >= 0 && start == f->entry && end > start)
				f->entry_size = end - start;
			free(fr);
		}
	}
	return va >= f->entry && va < f->entry + f->entry_size;
}

const char *uctx__dso_name(const struct uctx *c, uint64_t addr)
{
	const struct umod *um = uproc__find_mod(c->proc, addr);
	if (um)
		return um->file->name;
	const struct map *m = maps__find(c->maps, addr);
	if (m && m->path) {
		const char *s = strrchr(m->path, '/');
		return s ? s + 1 : m->path;
	}
	return NULL;
}

/* End of the mapping that holds sp: from maps, else from /proc/PID/maps
 * (perf's MMAP2 records carry no stack mappings), cached per process so a
 * sampled thread costs one query of /proc/PID/maps, not one per sample.
 * *gone: 0 because the process has exited (its samples unwound late). */
static uint64_t stack_end_of(struct uproc *p, const struct maps *maps, uint64_t sp, bool *gone)
{
	*gone = false;
	const struct map *m = maps__find(maps, sp);
	if (m)
		return (m->prot & PROT_WRITE) && !(m->prot & PROT_EXEC) ? m->end : 0;
	for (int i = 0; i < UPROC_STACKS; i++)
		if (sp >= p->stacks[i].start && sp < p->stacks[i].end)
			return p->stacks[i].end;
	uint64_t s, e;
	uint32_t prot;
	/* a short-lived process's samples are often unwound after its exit:
	 * one failed open, not one a sample */
	int err = p->gone ? -ESRCH : maps__proc_vma(p->pid, sp, &s, &e, &prot);
	*gone = p->gone = err == -ESRCH;
	if (err || !(prot & PROT_WRITE) || (prot & PROT_EXEC))
		return 0;
	p->stacks[p->next_stack].start = s;
	p->stacks[p->next_stack].end = e;
	p->next_stack = (p->next_stack + 1) % UPROC_STACKS;
	return e;
}

uint64_t uctx__stack_end(struct uctx *c, bool *gone)
{
	if (!c->stack_end_known) {
		c->stack_end_ = stack_end_of(c->proc, c->maps, c->sp, &c->stack_gone_);
		c->stack_end_known = true;
	}
	if (gone)
		*gone = c->stack_gone_;
	return c->stack_end_;
}

static int backend_unwind(const struct unwinder *u, struct uctx *c, uint64_t *ips, int max,
			  struct unwind_result *res)
{
	return u->backend == UNWIND_LIBDW ? udw__unwind(c, ips, max, res) : uun__unwind(c, ips, max, res);
}

int unwinder__unwind(struct unwinder *u, pid_t pid, const struct maps *maps,
		     const struct unwind_regs *regs,
		     const struct unwind_stack *stack, uint64_t *ips, int max,
		     struct unwind_result *res)
{
	struct unwind_result dummy;
	int err;

	if (!res)
		res = &dummy;
	memset(res, 0, sizeof(*res));
	res->end = UNWIND_ERROR;
	if (!u || !maps || !regs || !ips || max < 1 ||
	    !(regs->valid & (1u << UNWIND_REG_IP)))
		return -EINVAL;
	ips[0] = regs->r[UNWIND_REG_IP];
	res->nr = 1;
	if (!maps__find(maps, ips[0])) {
		res->end = UNWIND_UNMAPPED;
		return 1;
	}
	if (!(regs->valid & (1u << UNWIND_REG_SP))) {
		res->end = UNWIND_TRUNCATED;
		return 1;
	}
	struct uproc *p = unwinder__proc(u, pid, maps, &err);
	if (!p)
		return err;

	code_cache__reset(u);
	struct uctx c = {
		.u = u, .proc = p, .maps = maps, .regs = regs,
		.live = u->live_buf, .live_cap = u->live_cap,
		.live_allowed = u->live_allowed,
	};
	if (stack && stack->data && stack->size) {
		c.sp = stack->sp;
		c.data = stack->data;
		c.size = stack->size;
		c.live_floor = stack->live_floor;
	} else {
		c.sp = regs->r[UNWIND_REG_SP];
	}
	pid_t tid = u->history && stack && stack->data && stack->size ? stack->tid : 0;
	uhist__extend(&c, tid);
	p->ctx = &c;
	/* a leaf without CFI: the backends walk from its caller */
	struct unwind_regs caller;
	uint64_t ra;
	int leaf = max > 1 && cfi_less_leaf(&c, &ra);
	if (leaf) {
		caller = *regs;
		caller.r[UNWIND_REG_IP] = ra;
		caller.r[UNWIND_REG_SP] += 8;
		c.regs = &caller;
		ips[1] = ra;
	}
	int n = backend_unwind(u, &c, ips + leaf, max - leaf, res);
	bool astray = (c.used_live || c.used_history) && (res->end == UNWIND_UNMAPPED || res->end == UNWIND_ERROR);
	if (astray) {
		/* Astray beyond the copy: the live stack (or the earlier
		 * samples') there was not the sample's after all (the thread
		 * left and re-entered those frames along the same path, with
		 * other data in them). Keep what the copy alone proves, ending
		 * in truncated. */
		if (c.exact) {
			c.data = stack->data;
			c.size = stack->size;
			c.exact = 0;
		}
		c.used_history = false;
		c.live_allowed = false;
		c.live_state = 0;
		c.live_len = 0;
		c.used_live = c.mem_fail = c.cfi_miss = false;
		free(c.alt);
		c.alt = NULL;
		c.alt_len = 0;
		c.fail_addr = 0;
		memset(res, 0, sizeof(*res));
		res->nr = 1;
		n = backend_unwind(u, &c, ips + leaf, max - leaf, res);
	}
	if (n > 0)
		n += leaf;
	if (leaf)
		res->fp_frames++;	/* a frame found without CFI */
	p->ctx = NULL;
	free(c.alt);
	u->live_buf = c.live;
	u->live_cap = c.live_cap;
	res->used_live_stack = c.used_live;
	res->used_history = c.used_history;
	uhist__note(&c, tid, !astray);
	if (res->end == UNWIND_TRUNCATED && !c.data) {
		/* The kernel copied none of the stack (0.2% of a gcc build's
		 * samples; perf record --call-graph dwarf of the same build
		 * had 0.7% with an empty copy), so the walk never had bytes
		 * to run out of: said apart from a copy that ended. */
		res->end = UNWIND_NO_STACK;
	}
	if (n > 0)
		res->nr = n;
	return n;
}
