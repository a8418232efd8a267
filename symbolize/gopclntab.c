/* Go's pclntab (gopclntab.h): the header of each format, the function
 * table (entry pcs and offsets of _func records), names and the pcsp
 * pc-value table; and where an ELF keeps it. The layout is taken from Go's
 * src/debug/gosym/pclntab.go, src/runtime/symtab.go (pcHeader, step) and
 * src/runtime/runtime2.go (_func). The table comes from a file: every read
 * is bounds checked against it. */
#include <errno.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "gopclntab.h"
#include "sym_internal.h"

enum {
	GO_MAGIC_12 = 0xfffffffb,	/* Go 1.2-1.15 */
	GO_MAGIC_116 = 0xfffffffa,	/* Go 1.16-1.17 */
	GO_MAGIC_118 = 0xfffffff0,	/* Go 1.18-1.19 */
	GO_MAGIC_120 = 0xfffffff1,	/* Go 1.20+: the 1.18 layout */
};

struct gopclntab {
	const uint8_t *data;
	size_t size;
	uint64_t vaddr;
	uint64_t text_start;	/* added to 1.18+ entry offsets */
	uint64_t nfunc;
	bool entry_off;		/* 1.18+: functab holds uint32 offsets from text_start */
	uint8_t ptrsize, quantum;
	size_t fieldsz;		/* one functab field: ptrsize, or 4 for 1.18+ */
	size_t functab;		/* nfunc (entry, funcoff) pairs, then the end pc */
	size_t funcdata;	/* base of funcoff */
	size_t nametab;		/* base of _func.nameoff */
	size_t pctab;		/* base of _func.pcsp */
};

/* Little-endian reads at off, false past the end. */
static bool rd32(const struct gopclntab *t, uint64_t off, uint32_t *v)
{
	const uint8_t *p;

	if (off > t->size || t->size - off < 4)
		return false;
	p = t->data + off;
	*v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
	return true;
}

static bool rdword(const struct gopclntab *t, uint64_t off, size_t sz, uint64_t *v)
{
	uint32_t lo, hi = 0;

	if (!rd32(t, off, &lo) || (sz == 8 && !rd32(t, off + 4, &hi)))
		return false;
	*v = (uint64_t)hi << 32 | lo;
	return true;
}

/* Word k of the header after magic, pad, quantum and ptrsize. */
static bool header_word(const struct gopclntab *t, unsigned k, uint64_t *v)
{
	return rdword(t, 8 + (uint64_t)k * t->ptrsize, t->ptrsize, v);
}

/* Entry pc of function i (i == nfunc: the end of the last one). The
 * functab was checked in full by gopclntab__new. */
static uint64_t func_pc(const struct gopclntab *t, uint64_t i)
{
	uint64_t v = 0;

	rdword(t, t->functab + 2 * i * t->fieldsz, t->fieldsz, &v);
	return t->entry_off ? t->text_start + v : v;
}

/* Offset of function i's _func record in the table, false if it would
 * not hold the fields up to pcsp. */
static bool func_rec(const struct gopclntab *t, uint64_t i, uint64_t *rec)
{
	uint64_t off = 0;
	size_t sz0 = t->entry_off ? 4 : t->ptrsize;	/* entry: uint32 offset, or a pc */

	rdword(t, t->functab + (2 * i + 1) * t->fieldsz, t->fieldsz, &off);
	if (off > t->size - t->funcdata)
		return false;
	off += t->funcdata;
	/* entry, then int32 nameoff, args, deferreturn, pcsp */
	if (t->size - off < sz0 + 16)
		return false;
	*rec = off;
	return true;
}

/* Name of function i, NULL if it does not end inside the table. */
static const char *func_name(const struct gopclntab *t, uint64_t rec)
{
	size_t sz0 = t->entry_off ? 4 : t->ptrsize;
	uint32_t nameoff;
	uint64_t at;

	if (!rd32(t, rec + sz0, &nameoff) || nameoff >= t->size - t->nametab)
		return NULL;
	at = t->nametab + nameoff;
	if (!memchr(t->data + at, 0, t->size - at))
		return NULL;
	return (const char *)t->data + at;
}

/* Where the sections of each format start: the header's words. */
static int parse_header(struct gopclntab *t, uint32_t magic)
{
	uint64_t w[8] = { 0 };
	unsigned nw = magic == GO_MAGIC_12 ? 1 : magic == GO_MAGIC_116 ? 7 : 8;

	for (unsigned k = 0; k < nw; k++)
		if (!header_word(t, k, &w[k]))
			return -EINVAL;
	t->nfunc = w[0];
	t->fieldsz = t->ptrsize;
	switch (magic) {
	case GO_MAGIC_12:	/* offsets from the table's start; functab after nfunc */
		t->functab = 8 + t->ptrsize;
		break;
	case GO_MAGIC_116:	/* nfunc, nfiles, funcname, cu, file, pc, func tables */
		t->nametab = w[2];
		t->pctab = w[5];
		t->functab = t->funcdata = w[6];
		break;
	default:		/* nfunc, nfiles, textStart, funcname, cu, file, pc, func */
		t->entry_off = true;
		t->fieldsz = 4;
		if (w[2])
			t->text_start = w[2];
		t->nametab = w[3];
		t->pctab = w[6];
		t->functab = t->funcdata = w[7];
		break;
	}
	if (t->nametab >= t->size || t->pctab >= t->size || t->functab >= t->size)
		return -EINVAL;
	/* nfunc pairs and the end pc */
	if (!t->nfunc || t->nfunc > (t->size - t->functab) / t->fieldsz / 2 ||
	    (2 * t->nfunc + 1) * t->fieldsz > t->size - t->functab)
		return -EINVAL;
	return 0;
}

/* Entries ascend (lookups are binary searches) and every record is in the table. */
static int check_functab(const struct gopclntab *t)
{
	uint64_t prev = 0, rec;

	for (uint64_t i = 0; i <= t->nfunc; i++) {
		uint64_t pc = func_pc(t, i);

		if (pc < prev || (i < t->nfunc && !func_rec(t, i, &rec)))
			return -EINVAL;
		prev = pc;
	}
	return 0;
}

struct gopclntab *gopclntab__new(const uint8_t *data, size_t size, uint64_t vaddr, uint64_t text_start)
{
	struct gopclntab *t;
	uint32_t magic;
	int err;

	if (!data || size < 16 || data[4] || data[5] || (data[6] != 1 && data[6] != 2 && data[6] != 4) ||
	    (data[7] != 4 && data[7] != 8)) {
		errno = EINVAL;
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->data = data;
	t->size = size;
	t->vaddr = vaddr;
	t->text_start = text_start;
	t->quantum = data[6];
	t->ptrsize = data[7];
	rd32(t, 0, &magic);
	if (magic != GO_MAGIC_12 && magic != GO_MAGIC_116 && magic != GO_MAGIC_118 && magic != GO_MAGIC_120)
		err = -EINVAL;
	else
		err = parse_header(t, magic);
	if (!err)
		err = check_functab(t);
	if (err) {
		free(t);
		errno = -err;
		return NULL;
	}
	return t;
}

void gopclntab__delete(struct gopclntab *t)
{
	free(t);
}

size_t gopclntab__count(const struct gopclntab *t)
{
	return (size_t)t->nfunc;
}

/* Index of the function whose [entry, end) holds pc, or -1. */
static int64_t find_index(const struct gopclntab *t, uint64_t pc)
{
	uint64_t lo = 0, hi = t->nfunc;

	if (pc < func_pc(t, 0) || pc >= func_pc(t, t->nfunc))
		return -1;
	while (hi - lo > 1) {	/* func_pc(lo) <= pc < func_pc(hi) */
		uint64_t mid = lo + (hi - lo) / 2;

		if (func_pc(t, mid) <= pc)
			lo = mid;
		else
			hi = mid;
	}
	return (int64_t)lo;
}

static int fill_func(const struct gopclntab *t, uint64_t i, struct gopclntab_func *out)
{
	uint64_t rec;
	const char *name;

	if (!func_rec(t, i, &rec) || !(name = func_name(t, rec)))
		return -ENOENT;
	out->entry = func_pc(t, i);
	out->end = func_pc(t, i + 1);
	out->name = name;
	return 0;
}

int gopclntab__lookup(const struct gopclntab *t, uint64_t pc, struct gopclntab_func *out)
{
	int64_t i = find_index(t, pc);

	if (i < 0)
		return -ENOENT;
	return fill_func(t, (uint64_t)i, out);
}

/* An unsigned LEB128 of at most 32 bits at *off, advanced past it. */
static bool read_varint(const struct gopclntab *t, uint64_t *off, uint32_t *v)
{
	uint32_t r = 0;

	for (unsigned shift = 0; shift < 35; shift += 7) {
		uint8_t b;

		if (*off >= t->size)
			return false;
		b = t->data[(*off)++];
		r |= (uint32_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = r;
			return true;
		}
	}
	return false;
}

int gopclntab__pcsp(const struct gopclntab *t, uint64_t pc, int64_t *delta)
{
	size_t sz0 = t->entry_off ? 4 : t->ptrsize;
	int64_t i = find_index(t, pc);
	uint64_t rec, off, entry, at, end;
	uint32_t pcsp, val = (uint32_t)-1;

	if (i < 0 || !func_rec(t, (uint64_t)i, &rec) || !rd32(t, rec + sz0 + 12, &pcsp) || !pcsp ||
	    pcsp >= t->size - t->pctab)
		return -ENOENT;
	off = t->pctab + pcsp;
	entry = at = func_pc(t, (uint64_t)i);
	end = func_pc(t, (uint64_t)i + 1);
	/* (value delta, pc delta) pairs from the entry, value -1 before the
	 * first; a value delta of 0 once past the entry ends the table */
	while (at < end) {
		uint32_t uv, pcd;

		if (!read_varint(t, &off, &uv) || (!uv && at != entry) || !read_varint(t, &off, &pcd))
			return -ENOENT;
		val += (uv & 1) ? ~(uv >> 1) : uv >> 1;	/* zig-zag */
		at += (uint64_t)pcd * t->quantum;
		if (pc < at) {
			if ((int32_t)val < 0)
				return -ENOENT;
			*delta = (int32_t)val;
			return 0;
		}
	}
	return -ENOENT;
}

int gopclntab__foreach(const struct gopclntab *t, int (*cb)(const struct gopclntab_func *f, void *arg), void *arg)
{
	struct gopclntab_func f;
	int ret;

	for (uint64_t i = 0; i < t->nfunc; i++) {
		if (fill_func(t, i, &f))
			continue;
		ret = cb(&f, arg);
		if (ret)
			return ret;
	}
	return 0;
}

/* What gopclntab__find learns from one walk of the section headers. */
struct go_sections {
	Elf_Scn *pclntab;	/* .gopclntab, .data.rel.ro.gopclntab */
	Elf_Scn *relro;		/* .data.rel.ro (external linking) */
	uint64_t text;		/* .text's address */
	bool go;		/* .go.buildinfo or .note.go.buildid: built by Go */
};

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

static void scan_sections(Elf *elf, struct go_sections *gs)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		if (!strcmp(name, ".text") && !gs->text)
			gs->text = sh.sh_addr;
		else if (!strcmp(name, ".go.buildinfo") || !strcmp(name, ".note.go.buildid"))
			gs->go = true;
		else if (!strcmp(name, ".data.rel.ro") && sh.sh_type == SHT_PROGBITS && !gs->relro)
			gs->relro = scn;
		else if (ends_with(name, ".gopclntab") && sh.sh_type == SHT_PROGBITS && !gs->pclntab)
			gs->pclntab = scn;
	}
}

/* The section's bytes in the file (none for NOBITS), and its address. */
static const uint8_t *section_bytes(Elf_Scn *scn, size_t *size, uint64_t *addr)
{
	GElf_Shdr sh;
	Elf_Data *d;

	if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS || !(d = elf_rawdata(scn, NULL)) || !d->d_buf)
		return NULL;
	*size = d->d_size;
	*addr = sh.sh_addr;
	return d->d_buf;
}

/* runtime.text, runtime.pclntab and runtime.epclntab from .symtab. */
struct go_syms {
	uint64_t text, pclntab, epclntab;
	size_t shndx;
};

static int note_go_sym(void *arg, Elf *elf, const GElf_Sym *sym, const char *name, const struct elf_sym_at *at)
{
	struct go_syms *g = arg;

	(void)elf;
	if (!at->symtab || strncmp(name, "runtime.", 8))
		return 0;
	if (!strcmp(name + 8, "text")) {
		g->text = sym->st_value;
	} else if (!strcmp(name + 8, "pclntab")) {
		g->pclntab = sym->st_value;
		g->shndx = sym->st_shndx;
	} else if (!strcmp(name + 8, "epclntab")) {
		g->epclntab = sym->st_value;
	}
	return 0;
}

/* The bytes from runtime.pclntab to the end of its section (or to runtime.epclntab). */
static int from_symbol(Elf *elf, const struct go_syms *g, const uint8_t **data, size_t *size, uint64_t *vaddr)
{
	Elf_Scn *scn;
	const uint8_t *p;
	size_t n;
	uint64_t addr;

	if (!g->pclntab || !g->shndx || g->shndx >= SHN_LORESERVE || !(scn = elf_getscn(elf, g->shndx)) ||
	    !(p = section_bytes(scn, &n, &addr)) || g->pclntab < addr || g->pclntab - addr >= n)
		return -ENOENT;
	*data = p + (g->pclntab - addr);
	*size = n - (g->pclntab - addr);
	if (g->epclntab > g->pclntab && g->epclntab - g->pclntab < *size)
		*size = g->epclntab - g->pclntab;
	*vaddr = g->pclntab;
	return 0;
}

/* A table inside .data.rel.ro (external linking): the first 8-aligned
 * header that parses. */
static int from_relro(Elf_Scn *relro, uint64_t text_start, const uint8_t **data, size_t *size, uint64_t *vaddr)
{
	const uint8_t *p;
	size_t n;
	uint64_t addr;

	if (!relro || !(p = section_bytes(relro, &n, &addr)))
		return -ENOENT;
	for (size_t off = 0; n >= 16 && off <= n - 16; off += 8) {
		const uint8_t *h = p + off;
		struct gopclntab *t;

		if (h[1] != 0xff || h[2] != 0xff || h[3] != 0xff ||
		    (h[0] != 0xfb && h[0] != 0xfa && h[0] != 0xf0 && h[0] != 0xf1) || h[4] || h[5])
			continue;
		t = gopclntab__new(h, n - off, addr + off, text_start);
		if (!t)
			continue;
		gopclntab__delete(t);
		*data = h;
		*size = n - off;
		*vaddr = addr + off;
		return 0;
	}
	return -ENOENT;
}

int gopclntab__find(Elf *elf, const uint8_t **data, size_t *size, uint64_t *vaddr, uint64_t *text_start)
{
	struct go_sections gs = { 0 };
	struct go_syms g = { 0 };

	scan_sections(elf, &gs);
	*text_start = gs.text;
	if (gs.pclntab && (*data = section_bytes(gs.pclntab, size, vaddr)))
		return 0;
	if (!gs.go)
		return -ENOENT;	/* not worth a look through .symtab and .data.rel.ro */
	elf_file__foreach_symbol(elf, note_go_sym, &g);
	if (g.text)
		*text_start = g.text;
	if (!from_symbol(elf, &g, data, size, vaddr))
		return 0;
	return from_relro(gs.relro, *text_start, data, size, vaddr);
}
