/* What a fetch-arg reads from a value (the fetch-arg translator's half
 * that follows types): tracefs types for DWARF types, members, bitfields,
 * indexing and dereferences, and the fetch strings for memory and
 * registers. See probe_args.c. */
#define _GNU_SOURCE
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pprobe/probe_finder.h"
#include "probe_args_internal.h"

/* ---- types ---- */
/* typedefs and qualifiers off; false for void */
bool peel(const struct val *v, Dwarf_Die *out)
{
	if (!v->has_type)
		return false;
	Dwarf_Die t = v->type;
	return dwarf_peel_type(&t, out) == 0;
}

int64_t tsize(Dwarf_Die *t)
{
	Dwarf_Die p;
	Dwarf_Word sz;
	if (dwarf_peel_type(t, &p))
		return -1;
	int tag = dwarf_tag(&p);
	if (tag == DW_TAG_pointer_type || tag == DW_TAG_reference_type || tag == DW_TAG_rvalue_reference_type)
		return 8;
	return dwarf_aggregate_size(&p, &sz) ? -1 : (int64_t)sz;
}

/* The value's type as -V shows it. */
char *type_str(const struct val *v)
{
	if (!v->has_type)
		return strdup("void");
	Dwarf_Die t = v->type;
	char *s = pf__type_name(&t);
	return s ? s : strdup("?");
}

bool base_encoding(Dwarf_Die *p, Dwarf_Word *enc)
{
	Dwarf_Attribute a;
	return dwarf_tag(p) == DW_TAG_base_type && dwarf_attr(p, DW_AT_encoding, &a) && !dwarf_formudata(&a, enc);
}

bool is_char_type(Dwarf_Die *t)
{
	Dwarf_Die p;
	Dwarf_Word enc;
	if (dwarf_peel_type(t, &p) || !base_encoding(&p, &enc))
		return false;
	return (enc == DW_ATE_signed_char || enc == DW_ATE_unsigned_char ||
		enc == DW_ATE_signed || enc == DW_ATE_unsigned || enc == DW_ATE_UTF) && tsize(&p) == 1;
}

/* The array's subranges: counts (-1 unknown); returns how many. */
int array_dims(Dwarf_Die *arr, int64_t *counts, int max)
{
	Dwarf_Die c;
	int n = 0;
	if (dwarf_child(arr, &c) != 0)
		return 0;
	do {
		if (dwarf_tag(&c) != DW_TAG_subrange_type || n >= max)
			continue;
		Dwarf_Attribute a;
		Dwarf_Word w;
		if (dwarf_attr(&c, DW_AT_count, &a) && !dwarf_formudata(&a, &w))
			counts[n] = (int64_t)w;
		else if (dwarf_attr(&c, DW_AT_upper_bound, &a) && !dwarf_formudata(&a, &w))
			counts[n] = (int64_t)w + 1;
		else
			counts[n] = -1;
		n++;
	} while (dwarf_siblingof(&c, &c) == 0);
	return n;
}

/* The scalar type name tracefs knows for a DWARF type, or an error why not
 * (returns NULL; *why set). */
const char *scalar_type(Dwarf_Die *t, char *buf, size_t len, const char **why)
{
	Dwarf_Die p;
	Dwarf_Word enc;
	if (dwarf_peel_type(t, &p)) {
		*why = "its type is unknown";
		return NULL;
	}
	int64_t sz = tsize(&p);
	int tag = dwarf_tag(&p);
	if (tag == DW_TAG_pointer_type || tag == DW_TAG_reference_type || tag == DW_TAG_rvalue_reference_type)
		return "x64";
	if (tag == DW_TAG_unspecified_type)	/* assembly functions' results, nullptr_t: a machine word */
		return "x64";
	if (tag == DW_TAG_enumeration_type) {
		Dwarf_Die u;
		bool sgn = false;
		if (die_type(&p, &u) && !dwarf_peel_type(&u, &u) && base_encoding(&u, &enc))
			sgn = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
		if (sz != 1 && sz != 2 && sz != 4 && sz != 8) {
			*why = "an enum of an odd size";
			return NULL;
		}
		snprintf(buf, len, "%c%d", sgn ? 's' : 'u', (int)sz * 8);
		return buf;
	}
	if (!base_encoding(&p, &enc)) {
		*why = tag == DW_TAG_structure_type || tag == DW_TAG_class_type ? "a struct" :
		       tag == DW_TAG_union_type ? "a union" : tag == DW_TAG_array_type ? "an array" :
		       "not a scalar";
		return NULL;
	}
	if (enc == DW_ATE_float || enc == DW_ATE_complex_float || enc == DW_ATE_decimal_float) {
		*why = "a floating-point value: tracefs fetches integers only (give :x32 or :x64 for its bits)";
		return NULL;
	}
	if (sz != 1 && sz != 2 && sz != 4 && sz != 8) {
		*why = "wider than 64 bits: tracefs fetches at most 64 bits (give :x64 for the low half)";
		return NULL;
	}
	bool sgn = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
	snprintf(buf, len, "%c%d", sgn ? 's' : 'u', (int)sz * 8);
	return buf;
}

/* ---- rendering ---- */
char *mem_fetch(struct ctx *c, const struct val *v)
{
	if (v->fetch)
		return xasprintf("%+" PRId64 "(%s)", v->off, v->fetch);
	uint64_t addr = (uint64_t)v->off;
	if (!c->kernel) {
		/* the kernel adds this to the probed file's load base: bp_addr - probe offset */
		uint64_t base = c->pt->addr - c->pt->file_offset;
		if (addr < base) {
			fail(c, -EINVAL, "address %#" PRIx64 " lies before the probed file's load base", addr);
			return NULL;
		}
		return xasprintf("@+%#" PRIx64, addr - base);
	}
	const char *sym;
	uint64_t start;
	if (!pf__sym_at(c->pf, addr, &sym, &start)) {
		fail(c, -ENOENT, "no kernel symbol covers address %#" PRIx64 " (KASLR moves it: kprobes need @SYM)", addr);
		return NULL;
	}
	return addr == start ? xasprintf("@%s", sym) : xasprintf("@%s+%" PRIu64, sym, addr - start);
}

/* The fetch that yields v's value (a scalar); NULL + error otherwise. */
char *value_fetch(struct ctx *c, const struct val *v, const char *what)
{
	switch (v->kind) {
	case V_REG:
		if (v->bitoff) {
			fail(c, -EINVAL, "%s is bits %d.. of the register %s: only a bitfield type can fetch it", what,
			     v->bitoff, v->fetch);
			return NULL;
		}
		return strdup(v->fetch);
	case V_MEM:
		return mem_fetch(c, v);
	case V_IMM:
		return xasprintf("\\%" PRId64, v->imm);
	case V_PIECES:
		fail(c, -EINVAL, "%s is split into pieces here", what);
		return NULL;
	}
	return NULL;
}

/* ---- members, indexing, dereference ---- */
bool member_offset(Dwarf_Die *m, int64_t *off)
{
	Dwarf_Attribute a;
	Dwarf_Word w;
	Dwarf_Op *ops;
	size_t n;
	*off = 0;
	if (!dwarf_attr(m, DW_AT_data_member_location, &a))
		return true;	/* union members, bitfields with data_bit_offset */
	if (!dwarf_formudata(&a, &w)) {
		*off = (int64_t)w;
		return true;
	}
	if (dwarf_getlocation(&a, &ops, &n) == 0 && n == 1 && ops[0].atom == DW_OP_plus_uconst) {
		*off = (int64_t)ops[0].number;
		return true;
	}
	return false;
}

/* Finds member name in struct/union st (anonymous members searched too);
 * *off accumulates the byte offset. */
static bool find_member(Dwarf_Die *st, const char *name, Dwarf_Die *out, int64_t *off, int depth)
{
	Dwarf_Die ch;
	if (depth > 8 || dwarf_child(st, &ch) != 0)
		return false;
	do {
		if (dwarf_tag(&ch) != DW_TAG_member)
			continue;
		const char *n = die_name(&ch);
		int64_t mo;
		if (!member_offset(&ch, &mo))
			continue;
		if (n && !strcmp(n, name)) {
			*out = ch;
			*off += mo;
			return true;
		}
		Dwarf_Die t, p;
		if (!n && die_type(&ch, &t) && !dwarf_peel_type(&t, &p) &&
		    (dwarf_tag(&p) == DW_TAG_structure_type || dwarf_tag(&p) == DW_TAG_union_type)) {
			int64_t o = *off + mo;
			if (find_member(&p, name, out, &o, depth + 1)) {
				*off = o;
				return true;
			}
		}
	} while (dwarf_siblingof(&ch, &ch) == 0);
	return false;
}

void member_names(Dwarf_Die *st, struct sbuf *b, int *cnt, int depth)
{
	Dwarf_Die ch;
	if (depth > 8 || dwarf_child(st, &ch) != 0)
		return;
	do {
		if (dwarf_tag(&ch) != DW_TAG_member)
			continue;
		const char *n = die_name(&ch);
		Dwarf_Die t, p;
		if (n)
			pf__sb_add(b, "%s%s", (*cnt)++ ? ", " : "", n);
		else if (die_type(&ch, &t) && !dwarf_peel_type(&t, &p))
			member_names(&p, b, cnt, depth + 1);
	} while (dwarf_siblingof(&ch, &ch) == 0);
}

/* The bitfield layout of member m at byte offset moff: the container (the
 * member type's size) holding it, and the bit offset inside. */
int bitfield(struct ctx *c, Dwarf_Die *m, int64_t *moff, struct val *v, const char *what)
{
	Dwarf_Attribute a;
	Dwarf_Word bits, w;
	if (!dwarf_attr(m, DW_AT_bit_size, &a) || dwarf_formudata(&a, &bits))
		return 0;
	int64_t csize = v->has_type ? tsize(&v->type) : -1;
	if (csize != 1 && csize != 2 && csize != 4 && csize != 8)
		return fail(c, -EINVAL, "%s is a bitfield of an odd container size", what);
	int64_t dbo;	/* bits from the start of the containing struct (moff already has the parents) */
	int64_t base = *moff;
	if (dwarf_attr(m, DW_AT_data_bit_offset, &a) && !dwarf_formudata(&a, &w)) {
		dbo = (int64_t)w;
		/* moff holds only the enclosing anonymous members' offsets here */
	} else if (dwarf_attr(m, DW_AT_bit_offset, &a) && !dwarf_formudata(&a, &w)) {
		/* DWARF 2/3, little-endian: counted from the storage unit's MSB */
		Dwarf_Word bsz = (Dwarf_Word)csize;
		Dwarf_Attribute ba;
		if (dwarf_attr(m, DW_AT_byte_size, &ba))
			dwarf_formudata(&ba, &bsz);
		int64_t mo = 0;
		member_offset(m, &mo);
		base -= mo;	/* recompute from the unit start below */
		dbo = mo * 8 + (int64_t)bsz * 8 - (int64_t)w - (int64_t)bits;
	} else {
		return fail(c, -EINVAL, "%s is a bitfield without a bit offset in DWARF", what);
	}
	int64_t cstart = (dbo / 8) & ~(csize - 1);
	int64_t bo = dbo - cstart * 8;
	if (bo + (int64_t)bits > csize * 8) {
		csize = 8;
		cstart = (dbo / 8) & ~7;
		bo = dbo - cstart * 8;
		if (bo + (int64_t)bits > 64)
			return fail(c, -EINVAL, "%s is a bitfield straddling 64-bit words", what);
	}
	*moff = base + cstart;
	v->bit_size = (int)bits;
	v->bit_off = (int)bo;
	v->container = (int)csize * 8;
	return 0;
}

int do_member(struct ctx *c, struct val *v, const char *name, const char *what)
{
	Dwarf_Die p, m;
	if (!peel(v, &p))
		return fail(c, -EINVAL, "%s has no type with members", what);
	int tag = dwarf_tag(&p);
	if (tag == DW_TAG_reference_type || tag == DW_TAG_rvalue_reference_type) {
		/* C++: a reference's members are the referent's */
		int ret = do_deref(c, v, 0, what);
		if (ret)
			return ret;
		if (!peel(v, &p))
			return fail(c, -EINVAL, "%s has no type with members", what);
		tag = dwarf_tag(&p);
	}
	if (tag == DW_TAG_pointer_type) {
		char *ts = type_str(v);
		int ret = fail(c, -EINVAL, "%s is a pointer (%s): use -> to reach %s", what, ts ? ts : "?", name);
		free(ts);
		return ret;
	}
	if (tag != DW_TAG_structure_type && tag != DW_TAG_union_type && tag != DW_TAG_class_type) {
		char *ts = type_str(v);
		int ret = fail(c, -EINVAL, "%s is not a struct or union (%s): it has no member %s", what, ts ? ts : "?",
			       name);
		free(ts);
		return ret;
	}
	int64_t moff = 0;
	if (!find_member(&p, name, &m, &moff, 0)) {
		struct sbuf b = { 0 };
		int cnt = 0;
		member_names(&p, &b, &cnt, 0);
		char *ts = type_str(v);
		int ret = fail(c, -ENOENT, "%s (%s) has no member '%s' (members: %s)", what, ts ? ts : "?", name,
			       b.s ? b.s : "none");
		free(ts);
		free(b.s);
		return ret;
	}
	v->has_type = die_type(&m, &v->type);
	v->dim = 0;
	int ret = bitfield(c, &m, &moff, v, what);
	if (ret)
		return ret;
	switch (v->kind) {
	case V_MEM:
		v->off += moff;
		return 0;
	case V_REG: {
		int64_t sz = v->bit_size ? v->container / 8 : v->has_type ? tsize(&v->type) : -1;
		if (sz <= 0 || moff + sz > 8 || v->bitoff + moff * 8 + sz * 8 > 64)
			return fail(c, -EINVAL, "%s is a struct held in the register %s here; its member %s lies "
				    "outside the register's 64 bits", what, v->fetch, name);
		v->bitoff += (int)moff * 8;
		return 0;
	}
	case V_IMM:
		return fail(c, -EINVAL, "%s is a constant here; tracefs cannot take its member %s", what, name);
	case V_PIECES: {
		char w[300];
		snprintf(w, sizeof(w), "%s.%s", what, name);
		return select_piece(c, v, moff, v->bit_size ? v->container / 8 : v->has_type ? tsize(&v->type) : 8, w);
	}
	}
	return 0;
}

/* v (a pointer value) -> the object it points at, plus off bytes */
int do_deref(struct ctx *c, struct val *v, int64_t off, const char *what)
{
	Dwarf_Die p, pointee;
	if (!peel(v, &p) || (dwarf_tag(&p) != DW_TAG_pointer_type && dwarf_tag(&p) != DW_TAG_reference_type &&
			     dwarf_tag(&p) != DW_TAG_rvalue_reference_type)) {
		char *ts = type_str(v);
		int ret = fail(c, -EINVAL, "%s is not a pointer (%s)", what, ts ? ts : "?");
		free(ts);
		return ret;
	}
	if (v->bit_size)
		return fail(c, -EINVAL, "%s is a bitfield, not a pointer", what);
	int ret = whole(c, v, what);
	if (ret)
		return ret;
	if (v->kind == V_IMM)
		return fail(c, -EINVAL, "%s is the constant %" PRId64 " here: tracefs cannot dereference an immediate",
			    what, v->imm);
	char *f = value_fetch(c, v, what);
	if (!f)
		return -EINVAL;
	bool has = die_type(&p, &pointee);
	free(v->fetch);
	v->kind = V_MEM;
	v->fetch = f;
	v->off = off;
	v->bitoff = 0;
	v->has_type = has;
	if (has)
		v->type = pointee;
	v->dim = 0;
	return 0;
}

int do_index(struct ctx *c, struct val *v, int64_t idx, const char *what)
{
	Dwarf_Die p, elem;
	if (!peel(v, &p))
		return fail(c, -EINVAL, "%s has no type to index", what);
	if (dwarf_tag(&p) == DW_TAG_array_type) {
		int64_t counts[8];
		int nd = array_dims(&p, counts, 8);
		if (!die_type(&p, &elem) || nd == 0)
			return fail(c, -EINVAL, "%s is an array of unknown layout", what);
		int64_t stride = tsize(&elem);
		for (int d = v->dim + 1; d < nd; d++)
			stride *= counts[d] > 0 ? counts[d] : 0;
		if (stride <= 0)
			return fail(c, -EINVAL, "%s has elements of unknown size", what);
		if (idx < 0 || (counts[v->dim] > 0 && idx >= counts[v->dim]))
			return fail(c, -EINVAL, "index %" PRId64 " is out of %s's bounds [0, %" PRId64 ")", idx, what,
				    counts[v->dim]);
		if (v->kind != V_MEM && v->kind != V_PIECES)
			return fail(c, -EINVAL, "%s is an array not in memory here", what);
		if (v->kind == V_MEM)
			v->off += idx * stride;
		if (v->dim + 1 < nd) {
			v->dim++;	/* still the array type: the next [] indexes the next dimension */
		} else {
			v->type = elem;
			v->dim = 0;
		}
		if (v->kind == V_PIECES) {
			char w[300];
			snprintf(w, sizeof(w), "%s[%" PRId64 "]", what, idx);
			return select_piece(c, v, idx * stride, stride, w);
		}
		return 0;
	}
	if (dwarf_tag(&p) == DW_TAG_pointer_type) {
		Dwarf_Die t;
		int64_t es = die_type(&p, &t) ? tsize(&t) : -1;
		if (es <= 0)
			return fail(c, -EINVAL, "%s points at elements of unknown size", what);
		return do_deref(c, v, idx * es, what);
	}
	char *ts = type_str(v);
	int ret = fail(c, -EINVAL, "%s is neither an array nor a pointer (%s)", what, ts ? ts : "?");
	free(ts);
	return ret;
}
