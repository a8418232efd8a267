/* Go's function table, .gopclntab (layout: Go's runtime/symtab.go and
 * debug/gosym; four versions by their magic):
 *   0xfffffffb Go 1.2-1.15: functab after an 8+ptrsize header, entries
 *              (entry pc, _func offset from the table) in pointer words;
 *   0xfffffffa Go 1.16-1.17: a header of offsets to the name table, the
 *              pc-value tables and the functab, whose pairs are words;
 *   0xfffffff0 Go 1.18-1.19, 0xfffffff1 Go 1.20+: the same with the text
 *              start in the header, functab pairs of uint32 (entry as an
 *              offset from the text start, _func offset).
 * A _func holds its name's offset and its pcsp table's; a pc-value table
 * is a run of (zig-zag value delta, pc delta / quantum) varint pairs.
 * Everything read is checked against the table's size: the bytes are the
 * profiled binary's. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "gopclntab.h"

enum { GO_12 = 12, GO_116 = 116, GO_118 = 118 };

struct gopclntab {
	const uint8_t *d;
	size_t size;
	int ver;
	unsigned ptr, quantum;
	uint64_t nfunc, text;
	uint64_t funcnames, pctab, functab;	/* offsets in d */
	uint64_t funcbase;	/* what a _func offset is relative to */
};

static bool rd(const struct gopclntab *t, uint64_t off, unsigned len, uint64_t *v)
{
	if (off > t->size || len > t->size - off)
		return false;
	if (len == 4) {
		uint32_t x;
		memcpy(&x, t->d + off, 4);
		*v = x;
	} else {
		memcpy(v, t->d + off, 8);
	}
	return true;
}

static bool rdw(const struct gopclntab *t, uint64_t off, uint64_t *v)
{
	return rd(t, off, t->ptr, v);
}

struct gopclntab *gopclntab__new(const uint8_t *data, size_t size, uint64_t vaddr, uint64_t text_start)
{
	struct gopclntab h = { .d = data, .size = size };
	uint64_t magic;
	(void)vaddr;

	if (!data || size < 16 || !rd(&h, 0, 4, &magic) || data[4] || data[5]) {
		errno = EINVAL;
		return NULL;
	}
	h.quantum = data[6];
	h.ptr = data[7];
	h.ver = magic == 0xfffffffb ? GO_12 : magic == 0xfffffffa ? GO_116 :
		magic == 0xfffffff0 || magic == 0xfffffff1 ? GO_118 : 0;
	/* little-endian, 64-bit pointers: what this profiler unwinds */
	if (!h.ver || h.ptr != 8 || !h.quantum || h.quantum > 4 || !rdw(&h, 8, &h.nfunc)) {
		errno = EINVAL;
		return NULL;
	}
	bool ok = true;
	if (h.ver == GO_12) {
		h.functab = 8 + h.ptr;
	} else {
		unsigned base = h.ver == GO_118 ? 3 : 2;	/* 1.18 added textStart before the offsets */
		if (h.ver == GO_118)
			ok = rdw(&h, 8 + 2 * h.ptr, &h.text);
		ok = ok && rdw(&h, 8 + base * h.ptr, &h.funcnames) && rdw(&h, 8 + (base + 3) * h.ptr, &h.pctab) &&
		     rdw(&h, 8 + (base + 4) * h.ptr, &h.functab);
		h.funcbase = h.functab;
		if (!h.text)
			h.text = text_start;	/* relocated at run time: the section's address */
	}
	/* the functab, with its closing entry, must lie in the table */
	uint64_t esz = h.ver == GO_118 ? 8 : 2ull * h.ptr;
	if (!ok || !h.nfunc || h.nfunc > size / esz || h.functab > size || (h.nfunc + 1) * esz > size - h.functab) {
		errno = EINVAL;
		return NULL;
	}
	struct gopclntab *t = malloc(sizeof(*t));
	if (!t) {
		errno = ENOMEM;
		return NULL;
	}
	*t = h;
	return t;
}

void gopclntab__delete(struct gopclntab *t)
{
	free(t);
}

/* Function i's entry and its _func's offset in d. */
static bool func_at(const struct gopclntab *t, uint64_t i, uint64_t *entry, uint64_t *func)
{
	uint64_t e, f = 0;
	if (t->ver == GO_118) {
		if (!rd(t, t->functab + 8 * i, 4, &e) || (i < t->nfunc && !rd(t, t->functab + 8 * i + 4, 4, &f)))
			return false;
		e += t->text;
	} else {
		if (!rdw(t, t->functab + 2 * t->ptr * i, &e) ||
		    (i < t->nfunc && !rdw(t, t->functab + 2 * t->ptr * i + t->ptr, &f)))
			return false;
	}
	*entry = e;
	*func = t->funcbase + f;
	return *func >= t->funcbase;
}

/* The _func's name (NUL-terminated in d) and pcsp table offset in d. */
static bool func_fields(const struct gopclntab *t, uint64_t func, const char **name, uint64_t *pcsp)
{
	/* 1.18+: entryOff, nameOff, args, deferreturn, pcsp (uint32 each);
	 * before: entry (a word), nameoff, args, frame/deferreturn, pcsp */
	uint64_t fields = t->ver == GO_118 ? func + 4 : func + t->ptr;
	uint64_t nameoff, sp;
	if (!rd(t, fields, 4, &nameoff) || !rd(t, fields + 12, 4, &sp))
		return false;
	uint64_t noff = (t->ver == GO_12 ? 0 : t->funcnames) + (uint64_t)(int32_t)nameoff;
	if (name) {
		if (noff >= t->size || !memchr(t->d + noff, 0, t->size - noff))
			return false;
		*name = (const char *)t->d + noff;
	}
	*pcsp = sp ? (t->ver == GO_12 ? 0 : t->pctab) + sp : 0;
	return true;
}

static int find(const struct gopclntab *t, uint64_t pc, uint64_t *idx, uint64_t *entry, uint64_t *end,
		uint64_t *func)
{
	uint64_t lo = 0, hi = t->nfunc, e, f;
	if (!func_at(t, 0, &e, &f) || pc < e || !func_at(t, t->nfunc, &e, &f) || pc >= e)
		return -ENOENT;
	while (hi - lo > 1) {	/* entries ascend: the last one <= pc */
		uint64_t mid = lo + (hi - lo) / 2;
		if (!func_at(t, mid, &e, &f))
			return -ENOENT;
		if (e <= pc)
			lo = mid;
		else
			hi = mid;
	}
	if (!func_at(t, lo, entry, func) || !func_at(t, lo + 1, end, &f) || *end <= pc || *entry > pc)
		return -ENOENT;
	*idx = lo;
	return 0;
}

int gopclntab__lookup(const struct gopclntab *t, uint64_t pc, struct gopclntab_func *out)
{
	uint64_t i, func, sp;
	if (!t || find(t, pc, &i, &out->entry, &out->end, &func) || !func_fields(t, func, &out->name, &sp))
		return -ENOENT;
	return 0;
}

static bool uvarint(const struct gopclntab *t, uint64_t *off, uint64_t *v)
{
	*v = 0;
	for (unsigned shift = 0; shift < 64; shift += 7) {
		if (*off >= t->size)
			return false;
		uint8_t b = t->d[(*off)++];
		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return true;
	}
	return false;
}

int gopclntab__pcsp(const struct gopclntab *t, uint64_t pc, int64_t *delta)
{
	uint64_t i, entry, end, func, off;
	if (!t || find(t, pc, &i, &entry, &end, &func) || !func_fields(t, func, NULL, &off) || !off)
		return -ENOENT;
	int32_t val = -1;	/* int32, wrapping, as Go's pcvalue */
	uint64_t at = entry;
	for (uint64_t step = 0;; step++) {
		uint64_t uv, pcd;
		if (step >= end - entry || !uvarint(t, &off, &uv) || (!uv && step) || !uvarint(t, &off, &pcd))
			return -ENOENT;	/* ended, or more steps than the function has bytes */
		uint32_t u = (uint32_t)uv;
		val = (int32_t)((uint32_t)val + (-(u & 1) ^ (u >> 1)));
		if (pcd > (end - at) / t->quantum)	/* past the function */
			return -ENOENT;
		at += pcd * t->quantum;
		if (pc < at)
			break;
	}
	if (val < 0 || val > (1 << 24))
		return -ENOENT;
	*delta = val;
	return 0;
}

int gopclntab__foreach(const struct gopclntab *t, int (*cb)(const struct gopclntab_func *f, void *arg), void *arg)
{
	uint64_t entry, end, func, next_func, sp;
	if (!t || !func_at(t, 0, &entry, &func))
		return 0;
	for (uint64_t i = 0; i < t->nfunc; i++, entry = end, func = next_func) {
		struct gopclntab_func f;
		if (!func_at(t, i + 1, &end, &next_func))
			return 0;
		if (end <= entry || !func_fields(t, func, &f.name, &sp))
			continue;
		f.entry = entry;
		f.end = end;
		int rc = cb(&f, arg);
		if (rc)
			return rc;
	}
	return 0;
}

int gopclntab__find(Elf *elf, const uint8_t **data, size_t *size, uint64_t *vaddr, uint64_t *text_start)
{
	size_t shstrndx;
	bool found = false;
	*text_start = 0;
	if (elf_getshdrstrndx(elf, &shstrndx))
		return -ENOENT;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		const char *nm;
		if (!gelf_getshdr(scn, &sh) || !(nm = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		if (!strcmp(nm, ".text")) {
			*text_start = sh.sh_addr;
		} else if (!strcmp(nm, ".gopclntab") && sh.sh_type == SHT_PROGBITS && !found) {
			Elf_Data *d = elf_rawdata(scn, NULL);
			if (!d || !d->d_buf || d->d_size < 16)
				continue;
			*data = d->d_buf;
			*size = d->d_size;
			*vaddr = sh.sh_addr;
			found = true;
		}
	}
	return found ? 0 : -ENOENT;
}
