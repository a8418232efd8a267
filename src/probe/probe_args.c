/* perf probe arguments -> tracefs fetch-args, through DWARF at one probe
 * point. See probe_finder__fetch_args() in include/pprobe/probe_finder.h.
 *
 * A DWARF argument is evaluated into a struct val: the value is in a
 * register (V_REG), in memory at base+off where base is itself a fetch
 * expression or an absolute link-time address (V_MEM), or a constant
 * (V_IMM). Member access, indexing and dereferences transform the val; the
 * last step renders it as a tracefs fetch string with a type. No tracefs
 * and no perf_event here: strings out only. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pprobe/probe_finder.h"
#include "probe_finder_internal.h"

#define MAX_TRACEFS_ARRAY 64	/* the kernel's MAX_ARRAY_LEN */

/* DWARF x86-64 register numbers -> tracefs (pt_regs) names */
static const char *const tf_reg[17] = { "%ax", "%dx", "%cx", "%bx", "%si", "%di", "%bp", "%sp", "%r8",
					"%r9", "%r10", "%r11", "%r12", "%r13", "%r14", "%r15", "%ip" };
/* SysV x86-64 integer argument registers */
static const char *const abi_reg[6] = { "%di", "%si", "%dx", "%cx", "%r8", "%r9" };

static char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

/* ---- context of one call ---- */
struct ctx {
	struct probe_finder *pf;
	const struct pf_point *pt;
	bool kernel;
	bool dwarf;		/* a scope was found at the point */
	Dwarf_Die cu;
	Dwarf_Die *scopes;
	int nscopes;
	int k;			/* index of the instance in scopes */
	int lo;			/* scopes[lo..k]: the instance and its blocks holding addr */
	int phys;		/* index of the physical subprogram in scopes (frame base) */
	bool at_prologue;	/* out-of-line instance, addr in [entry, prologue end) */
	Dwarf_Addr entry;
	Dwarf_CFI *eh_cfi;	/* owned (dwarf_getcfi_elf) */
	bool eh_tried;
	const char *arg;	/* the argument being translated (for messages) */
	struct sbuf notes;
	/* results */
	struct pf_fetch_arg *out;
	int nout;
};

enum vkind { V_REG, V_MEM, V_IMM, V_PIECES };

struct piece;

struct val {
	enum vkind kind;
	char *fetch;		/* V_REG: the register ("%di", "$retval"); V_MEM: the base
				 * address's fetch, NULL for an absolute address */
	int64_t off;		/* V_MEM: offset from base (absolute: the link-time address) */
	int bitoff;		/* V_REG: a sub-field of a register-held struct */
	int64_t imm;		/* V_IMM */
	Dwarf_Die type;
	bool has_type;
	int dim;		/* arrays: the dimension the next [i] indexes */
	int bit_size, bit_off, container;	/* a bitfield member (bit_size > 0) */
	struct piece *pieces;	/* V_PIECES: the parts of a value split by DW_OP_piece */
	int npieces;
};

struct piece {
	struct val v;
	int64_t start, size;	/* bytes of the value this piece holds */
	char *why;		/* not available: why; NULL: v holds it */
};

static void val_free(struct val *v)
{
	free(v->fetch);
	v->fetch = NULL;
	for (int i = 0; i < v->npieces; i++) {
		val_free(&v->pieces[i].v);
		free(v->pieces[i].why);
	}
	free(v->pieces);
	v->pieces = NULL;
	v->npieces = 0;
}

static int fail(struct ctx *c, int ret, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(struct ctx *c, int ret, const char *fmt, ...)
{
	char msg[1536];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	const struct pf_point *pt = c->pt;
	return pf_fail(c->pf, ret, "argument '%s' at %s+%" PRIu64 "%s: %s", c->arg ? c->arg : "?",
			pt->symbol ? pt->symbol : pt->function ? pt->function : "?", pt->sym_offset,
			pt->retprobe ? "%return" : "", msg);
}

/* ---- types ---- */
/* typedefs and qualifiers off; false for void */
static bool peel(const struct val *v, Dwarf_Die *out)
{
	if (!v->has_type)
		return false;
	Dwarf_Die t = v->type;
	return dwarf_peel_type(&t, out) == 0;
}

static int64_t tsize(Dwarf_Die *t)
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
static char *type_str(const struct val *v)
{
	if (!v->has_type)
		return strdup("void");
	Dwarf_Die t = v->type;
	char *s = pf__type_name(&t);
	return s ? s : strdup("?");
}

static bool base_encoding(Dwarf_Die *p, Dwarf_Word *enc)
{
	Dwarf_Attribute a;
	return dwarf_tag(p) == DW_TAG_base_type && dwarf_attr(p, DW_AT_encoding, &a) && !dwarf_formudata(&a, enc);
}

static bool is_char_type(Dwarf_Die *t)
{
	Dwarf_Die p;
	Dwarf_Word enc;
	if (dwarf_peel_type(t, &p) || !base_encoding(&p, &enc))
		return false;
	return (enc == DW_ATE_signed_char || enc == DW_ATE_unsigned_char ||
		enc == DW_ATE_signed || enc == DW_ATE_unsigned || enc == DW_ATE_UTF) && tsize(&p) == 1;
}

/* The array's subranges: counts (-1 unknown); returns how many. */
static int array_dims(Dwarf_Die *arr, int64_t *counts, int max)
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
static const char *scalar_type(Dwarf_Die *t, char *buf, size_t len, const char **why)
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
static char *mem_fetch(struct ctx *c, const struct val *v)
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
static char *value_fetch(struct ctx *c, const struct val *v, const char *what)
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

/* ---- CFA and frame base ---- */
static int cfa_rule(struct ctx *c, Dwarf_CFI *cfi, unsigned *reg, int64_t *off)
{
	Dwarf_Frame *fr = NULL;
	Dwarf_Op *ops;
	size_t n;
	int ret = -ENOENT;
	if (!cfi || dwarf_cfi_addrframe(cfi, c->pt->addr, &fr) != 0)
		return -ENOENT;
	if (dwarf_frame_cfa(fr, &ops, &n) == 0 && n == 1) {
		if (ops[0].atom == DW_OP_bregx) {
			*reg = (unsigned)ops[0].number;
			*off = (int64_t)ops[0].number2;
			ret = 0;
		} else if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
			*reg = ops[0].atom - DW_OP_breg0;
			*off = (int64_t)ops[0].number;
			ret = 0;
		} else {
			ret = -EINVAL;
		}
	} else {
		ret = -EINVAL;
	}
	free(fr);
	return ret;
}

/* CFA at the point = %reg + off, from .eh_frame, else .debug_frame */
static int cfa(struct ctx *c, unsigned *reg, int64_t *off)
{
	if (!c->eh_tried) {
		c->eh_tried = true;
		c->eh_cfi = dwarf_getcfi_elf(pf__elf(c->pf));
	}
	int ret = cfa_rule(c, c->eh_cfi, reg, off);
	if (ret == -ENOENT && pf__dwarf(c->pf))
		ret = cfa_rule(c, dwarf_getcfi(pf__dwarf(c->pf)), reg, off);
	if (ret == -ENOENT)
		return fail(c, -ENOENT, "no call frame information (.eh_frame/.debug_frame) covers this address, "
			    "so its stack frame cannot be located");
	if (ret)
		return fail(c, ret, "the call frame address here is computed by a DWARF expression");
	if (*reg > 16)
		return fail(c, -EINVAL, "the call frame address here is based on DWARF register %u", *reg);
	return 0;
}

static int mem_at_reg(struct ctx *c, unsigned reg, int64_t off, struct val *v)
{
	if (reg > 16)
		return fail(c, -EINVAL, "based on DWARF register %u, which tracefs cannot read", reg);
	v->kind = V_MEM;
	v->fetch = strdup(tf_reg[reg]);
	v->off = off;
	return v->fetch ? 0 : -ENOMEM;
}

/* v = memory at frame base + off */
static int frame_slot(struct ctx *c, int64_t off, struct val *v, const char *name)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t n;
	if (c->phys < 0 || !dwarf_attr(&c->scopes[c->phys], DW_AT_frame_base, &a) ||
	    dwarf_getlocation_addr(&a, c->pt->addr, &ops, &n, 1) != 1 || n != 1)
		return fail(c, -EINVAL, "%s is relative to a frame base the function does not describe here", name);
	if (ops[0].atom == DW_OP_call_frame_cfa) {
		unsigned reg;
		int64_t k;
		int ret = cfa(c, &reg, &k);
		return ret ? ret : mem_at_reg(c, reg, k + off, v);
	}
	if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31)
		return mem_at_reg(c, ops[0].atom - DW_OP_breg0, (int64_t)ops[0].number + off, v);
	if (ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31)
		return mem_at_reg(c, ops[0].atom - DW_OP_reg0, off, v);
	return fail(c, -EINVAL, "%s is relative to a frame base computed by a DWARF expression", name);
}

/* ---- the x86-64 calling convention at a function's entry ---- */
enum aclass { A_INT, A_INT2, A_SSE, A_MEM, A_UNSURE };

static bool member_offset(Dwarf_Die *m, int64_t *off);

/* An aggregate of integers only (no float, no misaligned member): its
 * eightbytes are class INTEGER. */
static bool int_only(Dwarf_Die *t, int depth)
{
	Dwarf_Die p, ch, mt;
	Dwarf_Word enc;
	if (depth > 8 || dwarf_peel_type(t, &p))
		return false;
	int tag = dwarf_tag(&p);
	if (tag == DW_TAG_pointer_type || tag == DW_TAG_enumeration_type)
		return true;
	if (base_encoding(&p, &enc))
		return enc != DW_ATE_float && enc != DW_ATE_complex_float && enc != DW_ATE_decimal_float;
	if (tag == DW_TAG_array_type)
		return die_type(&p, &mt) && int_only(&mt, depth + 1);
	if (tag != DW_TAG_structure_type && tag != DW_TAG_union_type && tag != DW_TAG_class_type)
		return false;
	if (dwarf_child(&p, &ch) != 0)
		return true;
	do {
		if (dwarf_tag(&ch) != DW_TAG_member)
			continue;
		int64_t off, sz;
		if (!die_type(&ch, &mt) || !int_only(&mt, depth + 1) || !member_offset(&ch, &off))
			return false;
		sz = tsize(&mt);
		if (!dwarf_hasattr(&ch, DW_AT_bit_size) && sz > 0 && sz <= 8 && (off % sz) != 0)
			return false;	/* packed: the ABI passes it in memory */
	} while (dwarf_siblingof(&ch, &ch) == 0);
	return true;
}

static enum aclass abi_class(Dwarf_Die *t, int64_t *size)
{
	Dwarf_Die p;
	Dwarf_Word enc;
	*size = t ? tsize(t) : -1;
	if (!t || dwarf_peel_type(t, &p))
		return A_UNSURE;
	int tag = dwarf_tag(&p);
	if (tag == DW_TAG_pointer_type || tag == DW_TAG_reference_type || tag == DW_TAG_rvalue_reference_type ||
	    tag == DW_TAG_enumeration_type)
		return A_INT;
	if (base_encoding(&p, &enc)) {
		if (enc == DW_ATE_float || enc == DW_ATE_complex_float)
			return *size == 16 ? A_MEM : A_SSE;	/* long double: memory */
		return *size <= 8 ? A_INT : *size == 16 ? A_INT2 : A_UNSURE;
	}
	if ((tag == DW_TAG_structure_type || tag == DW_TAG_union_type || tag == DW_TAG_class_type) && *size > 16)
		return A_MEM;
	if ((tag == DW_TAG_structure_type || tag == DW_TAG_union_type || tag == DW_TAG_class_type) && *size > 0 &&
	    int_only(&p, 0))
		return *size <= 8 ? A_INT : A_INT2;
	return A_UNSURE;	/* small aggregates with floating-point members: not attempted */
}

/* Where param (a formal parameter of the subprogram scopes[phys]) is at
 * the function's entry, before the prologue stores it. */
static int abi_param(struct ctx *c, Dwarf_Die *param, const char *name, struct val *v)
{
	Dwarf_Die *fn = &c->scopes[c->phys], ch, rt;
	Dwarf_Off want = dwarf_dieoffset(param);
	int64_t sz;
	int gp = 0, stack = 0, sse = 0;
	bool unsure = false;
	if (die_type(fn, &rt) && abi_class(&rt, &sz) == A_MEM)
		gp = 1;	/* a struct returned in memory: its address comes in %rdi */
	if (dwarf_child(fn, &ch) != 0)
		return -ENOENT;
	do {
		if (dwarf_tag(&ch) != DW_TAG_formal_parameter)
			continue;
		Dwarf_Die t;
		enum aclass k = abi_class(die_type(&ch, &t) ? &t : NULL, &sz);
		if (dwarf_dieoffset(&ch) == want) {
			if (unsure || k == A_SSE || k == A_UNSURE)
				return fail(c, -EINVAL, "%s is stored to its stack slot by the prologue, which has not run "
					    "at this address, and where the calling convention passes it cannot be told "
					    "(%s); probe a line past the prologue", name,
					    unsure ? "an earlier parameter is a small struct with floating-point members" :
					    k == A_SSE ? "in a vector register" : "a small struct with floating-point members");
			if (k == A_INT && gp < 6) {
				v->kind = V_REG;
				v->fetch = strdup(abi_reg[gp]);
				return v->fetch ? 0 : -ENOMEM;
			}
			if (k == A_INT2 && gp < 5) {
				/* two eightbytes in two registers: pieces */
				v->pieces = calloc(2, sizeof(*v->pieces));
				if (!v->pieces)
					return -ENOMEM;
				v->kind = V_PIECES;
				v->npieces = 2;
				for (int i = 0; i < 2; i++) {
					v->pieces[i].start = 8 * i;
					v->pieces[i].size = i ? sz - 8 : 8;
					v->pieces[i].v.kind = V_REG;
					if (!(v->pieces[i].v.fetch = strdup(abi_reg[gp + i])))
						return -ENOMEM;
				}
				return 0;
			}
			/* in memory: the first stack argument is at the CFA */
			unsigned reg;
			int64_t k0;
			int ret = cfa(c, &reg, &k0);
			return ret ? ret : mem_at_reg(c, reg, k0 + 8 * stack, v);
		}
		switch (k) {
		case A_INT:
			if (gp < 6)
				gp++;
			else
				stack++;
			break;
		case A_INT2:
			if (gp < 5)
				gp += 2;
			else
				stack += 2;
			break;
		case A_SSE:
			if (sse < 8)
				sse++;
			else
				stack++;
			break;
		case A_MEM:
			stack += (int)((sz + 7) / 8);
			break;
		case A_UNSURE:
			unsure = true;
			break;
		}
	} while (dwarf_siblingof(&ch, &ch) == 0);
	return -ENOENT;
}

/* ---- variable locations ---- */
static int const_value(struct ctx *c, Dwarf_Attribute *a, struct val *v, const char *name)
{
	Dwarf_Block blk;
	Dwarf_Sword sv;
	Dwarf_Word uv;
	int64_t sz = v->has_type ? tsize(&v->type) : 8;
	unsigned form = dwarf_whatform(a);
	if (form == DW_FORM_sdata || form == DW_FORM_implicit_const) {
		if (dwarf_formsdata(a, &sv))
			return fail(c, -EINVAL, "cannot read the constant value of %s", name);
		v->imm = sv;
	} else if (form == DW_FORM_block || form == DW_FORM_block1 || form == DW_FORM_block2 ||
		   form == DW_FORM_block4 || form == DW_FORM_exprloc) {
		if (dwarf_formblock(a, &blk) || blk.length > 8)
			return fail(c, -EINVAL, "%s is a constant of %zu bytes here: tracefs takes immediates of at "
				    "most 8 bytes", name, (size_t)blk.length);
		uv = 0;
		for (size_t i = 0; i < blk.length; i++)
			uv |= (uint64_t)blk.data[i] << (8 * i);
		v->imm = (int64_t)uv;
		sz = (int64_t)blk.length;
	} else {
		if (dwarf_formudata(a, &uv))
			return fail(c, -EINVAL, "cannot read the constant value of %s", name);
		v->imm = (int64_t)uv;
	}
	/* sign-extend through the type */
	Dwarf_Die p;
	Dwarf_Word enc;
	if (sz > 0 && sz < 8 && v->has_type && !dwarf_peel_type(&v->type, &p) && base_encoding(&p, &enc) &&
	    (enc == DW_ATE_signed || enc == DW_ATE_signed_char)) {
		uint64_t u = (uint64_t)v->imm & ((1ULL << (8 * sz)) - 1);
		if (u >> (8 * sz - 1))
			u |= ~0ULL << (8 * sz);
		v->imm = (int64_t)u;
	} else if (sz > 0 && sz < 8) {
		v->imm = (int64_t)((uint64_t)v->imm & ((1ULL << (8 * sz)) - 1));
	}
	v->kind = V_IMM;
	return 0;
}

static int reg_val(struct ctx *c, unsigned reg, struct val *v, const char *name)
{
	if (reg >= 17 && reg <= 32)
		return fail(c, -EINVAL, "%s is in the vector register %%xmm%u here: tracefs reads only the "
			    "general-purpose registers", name, reg - 17);
	if (reg > 16)
		return fail(c, -EINVAL, "%s is in DWARF register %u here, which tracefs cannot read", name, reg);
	v->kind = V_REG;
	v->fetch = strdup(tf_reg[reg]);
	return v->fetch ? 0 : -ENOMEM;
}

/* True for a single location expression (not a list) naming a frame slot. */
static bool whole_scope_frame_slot(Dwarf_Attribute *a, Dwarf_Op *ops, size_t n)
{
	if (dwarf_whatform(a) != DW_FORM_exprloc && dwarf_whatform(a) != DW_FORM_block1 &&
	    dwarf_whatform(a) != DW_FORM_block)
		return false;
	return n == 1 && (ops[0].atom == DW_OP_fbreg || ops[0].atom == DW_OP_breg6 || ops[0].atom == DW_OP_breg7);
}

static int pieces_val(struct ctx *c, Dwarf_Attribute *a, Dwarf_Op *ops, size_t n, struct val *v,
		      const char *name);

/* One location expression (ops[0..n)) of var (NULL inside a piece). */
static int loc_val(struct ctx *c, Dwarf_Die *var, Dwarf_Attribute *aa, Dwarf_Op *ops, size_t n, struct val *v,
		   const char *name)
{
	Dwarf_Attribute a = *aa;
	char r[64];
	if (n == 0)
		return fail(c, -ENOENT, "%s is optimized out here", name);
	uint8_t op = ops[0].atom;
	if (n == 1 && op >= DW_OP_reg0 && op <= DW_OP_reg31)
		return reg_val(c, op - DW_OP_reg0, v, name);
	if (n == 1 && op == DW_OP_regx)
		return reg_val(c, (unsigned)ops[0].number, v, name);
	if (n == 1 && (op == DW_OP_fbreg || (op >= DW_OP_breg0 && op <= DW_OP_breg31) || op == DW_OP_bregx)) {
		if (var && c->at_prologue && dwarf_tag(var) == DW_TAG_formal_parameter &&
		    whole_scope_frame_slot(&a, ops, n)) {
			/* -O0: the prologue stores the parameter later; at the
			 * entry it is where the caller passed it */
			int ret = abi_param(c, var, name, v);
			if (ret != -ENOENT)
				return ret;
		}

		if (op == DW_OP_fbreg)
			return frame_slot(c, (int64_t)ops[0].number, v, name);
		if (op == DW_OP_bregx)
			return mem_at_reg(c, (unsigned)ops[0].number, (int64_t)ops[0].number2, v);
		return mem_at_reg(c, op - DW_OP_breg0, (int64_t)ops[0].number, v);
	}
	if (n == 2 && ops[1].atom == DW_OP_deref &&
	    (op == DW_OP_fbreg || (op >= DW_OP_breg0 && op <= DW_OP_breg31))) {
		/* the object's address is stored in a slot (VLAs, objects passed
		 * by invisible reference): load it, the object is there */
		struct val slot = { 0 };
		int ret = op == DW_OP_fbreg ? frame_slot(c, (int64_t)ops[0].number, &slot, name)
					    : mem_at_reg(c, op - DW_OP_breg0, (int64_t)ops[0].number, &slot);
		char *f = ret ? NULL : mem_fetch(c, &slot);
		val_free(&slot);
		if (ret || !f)
			return ret ? ret : -EINVAL;
		v->kind = V_MEM;
		v->fetch = f;
		v->off = 0;
		return 0;
	}
	if (op == DW_OP_implicit_pointer || op == DW_OP_GNU_implicit_pointer)
		return fail(c, -EINVAL, "%s is an implicit pointer here: it points at a value the compiler keeps in "
			    "no memory, so there is no address to fetch (fetch the pointed-at variable instead)", name);
	if (n == 1 && (op == DW_OP_addr || op == DW_OP_addrx || op == DW_OP_GNU_addr_index)) {
		Dwarf_Addr addr = ops[0].number;
		if (op != DW_OP_addr) {
			Dwarf_Attribute aa;
			if (dwarf_getlocation_attr(&a, &ops[0], &aa) || dwarf_formaddr(&aa, &addr))
				return fail(c, -EINVAL, "cannot read the address of %s", name);
		}
		v->kind = V_MEM;
		v->off = (int64_t)addr;
		return 0;
	}
	if (n == 1 && op == DW_OP_implicit_value) {
		Dwarf_Block blk;
		if (dwarf_getlocation_implicit_value(&a, &ops[0], &blk) == 0 && blk.length <= 8) {
			uint64_t u = 0;
			for (size_t i = 0; i < blk.length; i++)
				u |= (uint64_t)blk.data[i] << (8 * i);
			v->kind = V_IMM;
			v->imm = (int64_t)u;
			return 0;
		}
		return fail(c, -EINVAL, "%s is an implicit value of more than 8 bytes here", name);
	}
	if (n == 2 && ops[1].atom == DW_OP_stack_value) {
		if (op >= DW_OP_lit0 && op <= DW_OP_lit31) {
			v->kind = V_IMM;
			v->imm = op - DW_OP_lit0;
			return 0;
		}
		if (op == DW_OP_consts || op == DW_OP_const1s || op == DW_OP_const2s || op == DW_OP_const4s ||
		    op == DW_OP_const8s) {
			v->kind = V_IMM;
			v->imm = (int64_t)ops[0].number;
			return 0;
		}
		if (op == DW_OP_constu || op == DW_OP_const1u || op == DW_OP_const2u || op == DW_OP_const4u ||
		    op == DW_OP_const8u) {
			v->kind = V_IMM;
			v->imm = (int64_t)ops[0].number;
			return 0;
		}
		if (op >= DW_OP_breg0 && op <= DW_OP_breg31 && ops[0].number == 0)
			return reg_val(c, op - DW_OP_breg0, v, name);
		if (op >= DW_OP_breg0 && op <= DW_OP_breg31 && op - DW_OP_breg0 <= 16)
			return fail(c, -EINVAL, "%s is computed here as %s%+" PRId64 ", a value in no register or "
				    "memory: tracefs cannot add", name, tf_reg[op - DW_OP_breg0], (int64_t)ops[0].number);
		if (op == DW_OP_addr)
			return fail(c, -EINVAL, "%s is the constant address %#" PRIx64 " here (it points at a "
				    "global): fetch that global instead", name, (uint64_t)ops[0].number);
	}
	for (size_t i = 0; i < n; i++)
		if (ops[i].atom == DW_OP_entry_value || ops[i].atom == DW_OP_GNU_entry_value) {
			Dwarf_Attribute ea;
			Dwarf_Op *eops;
			size_t en;
			bool reg1 = dwarf_getlocation_attr(&a, &ops[i], &ea) == 0 &&
				    dwarf_getlocation(&ea, &eops, &en) == 0 && en == 1 &&
				    eops[0].atom >= DW_OP_reg0 && eops[0].atom <= DW_OP_reg16;
			/* at the entry itself the entry value is the register */
			if (reg1 && n == 2 && i == 0 && ops[1].atom == DW_OP_stack_value && c->at_prologue &&
			    c->pt->addr == c->entry)
				return reg_val(c, eops[0].atom - DW_OP_reg0, v, name);
			if (reg1)
				snprintf(r, sizeof(r), " of %s", tf_reg[eops[0].atom - DW_OP_reg0]);
			else
				r[0] = '\0';
			return fail(c, -EINVAL, "%s is not in any register or memory here: DWARF computes it from the "
				    "entry value%s (the value the register had when the function was called)", name, r);
		}
	for (size_t i = 0; i < n; i++)
		if (ops[i].atom == DW_OP_form_tls_address || ops[i].atom == DW_OP_GNU_push_tls_address)
			return fail(c, -EINVAL, "%s is thread-local: its address depends on the thread's TLS block, "
				    "which tracefs cannot compute", name);
	for (size_t i = 0; i < n; i++)
		if (ops[i].atom == DW_OP_GNU_parameter_ref)
			return fail(c, -EINVAL, "%s was not passed to this clone of the function (the compiler passed "
				    "only what it uses)", name);
	for (size_t i = 0; i < n; i++)
		if (ops[i].atom == DW_OP_piece || ops[i].atom == DW_OP_bit_piece) {
			if (!var)
				break;
			return pieces_val(c, &a, ops, n, v, name);
		}
	return fail(c, -EINVAL, "%s is computed by a %zu-operation DWARF expression here, not stored anywhere "
		    "tracefs can read", name, n);
}

static const char *reason(struct ctx *c);

/* DW_OP_piece: each part located on its own; a member inside one part can
 * be fetched (see select_piece). */
static int pieces_val(struct ctx *c, Dwarf_Attribute *a, Dwarf_Op *ops, size_t n, struct val *v,
		      const char *name)
{
	int64_t pos = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j < n && ops[j].atom != DW_OP_piece && ops[j].atom != DW_OP_bit_piece)
			j++;
		if (j == n || ops[j].atom == DW_OP_bit_piece)
			return fail(c, -EINVAL, "%s is split into %s here, which a fetch-arg cannot read", name,
				    j == n ? "pieces the DWARF leaves unterminated" : "bit pieces");
		struct piece *p = realloc(v->pieces, (size_t)(v->npieces + 1) * sizeof(*p));
		if (!p)
			return -ENOMEM;
		v->pieces = p;
		p = &v->pieces[v->npieces++];
		memset(p, 0, sizeof(*p));
		p->start = pos;
		p->size = (int64_t)ops[j].number;
		if (j == i) {
			p->why = strdup("optimized out");
		} else {
			int ret = loc_val(c, NULL, a, ops + i, j - i, &p->v, name);
			if (ret == -ENOMEM)
				return ret;
			if (ret)
				p->why = strdup(reason(c));
		}
		pos += p->size;
		i = j + 1;
	}
	v->kind = V_PIECES;
	return 0;
}

/* The location of var at the point. */
static int var_val(struct ctx *c, Dwarf_Die *var, const char *name, struct val *v)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t n;
	memset(v, 0, sizeof(*v));
	v->has_type = die_type(var, &v->type);
	if (dwarf_attr_integrate(var, DW_AT_const_value, &a))
		return const_value(c, &a, v, name);
	if (!dwarf_attr(var, DW_AT_location, &a))
		return fail(c, -ENOENT, "%s is optimized out: it has no location", name);
	int got = dwarf_getlocation_addr(&a, c->pt->addr, &ops, &n, 1);
	if (got <= 0 || n == 0)
		return fail(c, -ENOENT, "%s is optimized out at this address (it has no location here%s)", name,
			    got > 0 ? "" : "; see -V --range for where it has one");
	/* Before the first statement no local has been assigned: an -O0 slot
	 * is not even allocated, and an -O2 location list may already
	 * describe a later statement at the same address (location views) */
	if (c->at_prologue && dwarf_tag(var) == DW_TAG_variable && ops[0].atom != DW_OP_addr &&
	    ops[0].atom != DW_OP_addrx)
		return fail(c, -ENOENT, "%s is a local and this point is before the function's first statement: "
			    "it holds no value yet (probe a line of the function)", name);
	return loc_val(c, var, &a, ops, n, v, name);
}

/* v (V_PIECES) -> the part holding bytes [off, off+size) of the value */
static int select_piece(struct ctx *c, struct val *v, int64_t off, int64_t size, const char *what)
{
	if (v->kind != V_PIECES)
		return 0;
	struct piece *hit = NULL;
	bool overlap = false;
	for (int i = 0; i < v->npieces; i++) {
		struct piece *p = &v->pieces[i];
		if (off >= p->start && off + size <= p->start + p->size)
			hit = p;
		else if (off < p->start + p->size && off + size > p->start)
			overlap = true;
	}
	if (!hit)
		return fail(c, -EINVAL, "%s is %s here (the value is split into pieces%s)", what,
			    overlap ? "split across pieces" : "not described", overlap ? "" : " that do not cover it");
	if (hit->why)
		return fail(c, -ENOENT, "%s: that piece of the value: %s", what, hit->why);
	struct val sub = hit->v;
	memset(&hit->v, 0, sizeof(hit->v));
	int64_t d = off - hit->start;
	switch (sub.kind) {
	case V_REG:
		sub.bitoff += (int)d * 8;
		if (sub.bitoff + size * 8 > 64) {
			val_free(&sub);
			return fail(c, -EINVAL, "%s lies outside its register's 64 bits", what);
		}
		break;
	case V_MEM:
		sub.off += d;
		break;
	case V_IMM:
		sub.imm = d >= 8 ? 0 : (int64_t)((uint64_t)sub.imm >> (8 * d));
		if (size < 8)
			sub.imm = (int64_t)((uint64_t)sub.imm & ((1ULL << (8 * size)) - 1));
		break;
	case V_PIECES:
		break;
	}
	sub.type = v->type;
	sub.has_type = v->has_type;
	sub.dim = v->dim;
	sub.bit_size = v->bit_size;
	sub.bit_off = v->bit_off;
	sub.container = v->container;
	val_free(v);
	*v = sub;
	return 0;
}

/* A whole value split into pieces: fine when one piece holds all of it. */
static int whole(struct ctx *c, struct val *v, const char *what)
{
	if (v->kind != V_PIECES)
		return 0;
	int64_t sz = v->has_type ? tsize(&v->type) : -1;
	if (sz <= 0)
		return fail(c, -EINVAL, "%s is split into pieces of a value of unknown size", what);
	int ret = select_piece(c, v, 0, sz, what);
	if (ret == -EINVAL)
		return fail(c, -EINVAL, "%s is split into %d pieces here (parts in different registers or slots): "
			    "a fetch-arg reads one location; name a member that lies in one piece", what, v->npieces);
	return ret;
}

/* ---- scope ---- */
static bool descend_tag(int tag)
{
	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block ||
	       tag == DW_TAG_try_block || tag == DW_TAG_catch_block || tag == DW_TAG_with_stmt;
}

/* The DIE under parent holding addr (through namespaces and classes). */
static bool child_at(Dwarf_Die *parent, Dwarf_Addr addr, Dwarf_Die *out, int depth)
{
	Dwarf_Die ch;
	if (depth > 8 || dwarf_child(parent, &ch) != 0)
		return false;
	do {
		int tag = dwarf_tag(&ch);
		if (descend_tag(tag)) {
			if (dwarf_haspc(&ch, addr) > 0) {
				*out = ch;
				return true;
			}
		} else if (tag == DW_TAG_namespace || tag == DW_TAG_class_type || tag == DW_TAG_structure_type ||
			   tag == DW_TAG_module) {
			if (child_at(&ch, addr, out, depth + 1))
				return true;
		}
	} while (dwarf_siblingof(&ch, &ch) == 0);
	return false;
}

/* c->scopes: the DIEs holding addr, innermost first, the CU last. */
static int phys_scopes(struct ctx *c, Dwarf_Addr addr)
{
	Dwarf_Die chain[64], cur = c->cu;
	int n = 0;
	chain[n++] = cur;
	while (n < 64 && child_at(&cur, addr, &chain[n], 0))
		cur = chain[n++];
	c->scopes = malloc((size_t)n * sizeof(*c->scopes));
	if (!c->scopes)
		return -ENOMEM;
	for (int i = 0; i < n; i++)
		c->scopes[i] = chain[n - 1 - i];
	c->nscopes = n;
	return 0;
}

/* The CU whose ranges hold addr, without .debug_aranges (clang emits none). */
static bool cu_covering(Dwarf *dw, Dwarf_Addr addr, Dwarf_Die *out)
{
	Dwarf_Off off = 0, next;
	size_t hs;
	while (dwarf_next_unit(dw, off, &next, &hs, NULL, NULL, NULL, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(dw, off + hs, out) && dwarf_haspc(out, addr) > 0)
			return true;
		off = next;
	}
	return false;
}

static int setup_scope(struct ctx *c)
{
	Dwarf *dw = pf__dwarf(c->pf);
	const struct pf_point *pt = c->pt;
	c->k = c->phys = -1;
	if (!dw)
		return 0;
	if (!dwarf_addrdie(dw, pt->addr, &c->cu) && !cu_covering(dw, pt->addr, &c->cu))
		return 0;
	/* the physical nesting (dwarf_getscopes follows an inlined copy to its
	 * abstract origin's scopes and loses the function it was inlined into) */
	int ret = phys_scopes(c, pt->addr);
	if (ret)
		return ret;
	if (c->nscopes <= 1)
		return 0;
	for (int i = 0; i < c->nscopes && c->k < 0; i++) {
		const char *n = is_fn_tag(dwarf_tag(&c->scopes[i])) ? die_name(&c->scopes[i]) : NULL;
		if (n && pt->function && !strcmp(n, pt->function) &&
		    (dwarf_tag(&c->scopes[i]) == DW_TAG_inlined_subroutine) == pt->inlined)
			c->k = i;
	}
	for (int i = 0; i < c->nscopes && c->k < 0; i++)
		if (is_fn_tag(dwarf_tag(&c->scopes[i])))
			c->k = i;
	for (int i = 0; i < c->nscopes && c->phys < 0; i++)
		if (dwarf_tag(&c->scopes[i]) == DW_TAG_subprogram)
			c->phys = i;
	if (c->k < 0)
		return 0;
	/* variables of copies inlined into the instance are not its own */
	c->lo = c->k;
	while (c->lo > 0 && !is_fn_tag(dwarf_tag(&c->scopes[c->lo - 1])))
		c->lo--;
	c->dwarf = true;
	Dwarf_Addr pe;
	if (c->phys == c->k && dwarf_entrypc(&c->scopes[c->k], &c->entry) == 0 && pt->addr >= c->entry &&
	    prologue_end(&c->scopes[c->k], &c->cu, c->entry, &pe) && pt->addr < pe)
		c->at_prologue = true;
	return 0;
}

static bool child_named(Dwarf_Die *parent, const char *name, bool params_only, Dwarf_Die *out)
{
	Dwarf_Die ch;
	if (dwarf_child(parent, &ch) != 0)
		return false;
	do {
		int tag = dwarf_tag(&ch);
		if ((params_only ? tag == DW_TAG_formal_parameter : is_var_tag(tag)) &&
		    !dwarf_hasattr(&ch, DW_AT_declaration)) {
			const char *n = die_name(&ch);
			if (n && !strcmp(n, name)) {
				*out = ch;
				return true;
			}
		}
	} while (dwarf_siblingof(&ch, &ch) == 0);
	return false;
}

/* A global's definition: a CU-level variable with a location. */
static bool find_global(struct ctx *c, const char *name, Dwarf_Die *out)
{
	Dwarf *dw = pf__dwarf(c->pf);
	Dwarf_Die ch;
	/* this CU first (statics), then every CU */
	if (dwarf_child(&c->cu, &ch) == 0)
		do {
			const char *n;
			if (dwarf_tag(&ch) == DW_TAG_variable && (n = die_name(&ch)) && !strcmp(n, name) &&
			    (dwarf_hasattr(&ch, DW_AT_location) || dwarf_hasattr(&ch, DW_AT_const_value))) {
				*out = ch;
				return true;
			}
		} while (dwarf_siblingof(&ch, &ch) == 0);
	Dwarf_Off off = 0, next;
	size_t hs;
	while (dwarf_next_unit(dw, off, &next, &hs, NULL, NULL, NULL, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		if (dwarf_offdie(dw, off + hs, &cu) && dwarf_child(&cu, &ch) == 0)
			do {
				const char *n;
				if (dwarf_tag(&ch) == DW_TAG_variable && !dwarf_hasattr(&ch, DW_AT_declaration) &&
				    dwarf_hasattr(&ch, DW_AT_location) && (n = die_name(&ch)) && !strcmp(n, name) &&
				    dwarf_hasattr(&ch, DW_AT_external)) {
					*out = ch;
					return true;
				}
			} while (dwarf_siblingof(&ch, &ch) == 0);
		off = next;
	}
	return false;
}

/* A declared-only CU-level variable (extern), for its type. */
static bool find_decl(struct ctx *c, const char *name, Dwarf_Die *out)
{
	Dwarf_Die ch;
	if (dwarf_child(&c->cu, &ch) == 0)
		do {
			const char *n;
			if (dwarf_tag(&ch) == DW_TAG_variable && (n = die_name(&ch)) && !strcmp(n, name)) {
				*out = ch;
				return true;
			}
		} while (dwarf_siblingof(&ch, &ch) == 0);
	return false;
}

/* The names visible at the point, for messages. */
static void visible_names(struct ctx *c, struct sbuf *b)
{
	int cnt = 0;
	for (int i = c->lo; i <= c->k; i++) {
		Dwarf_Die ch;
		if (dwarf_child(&c->scopes[i], &ch) != 0)
			continue;
		do {
			const char *n = is_var_tag(dwarf_tag(&ch)) ? die_name(&ch) : NULL;
			if (n)
				pf__sb_add(b, "%s%s", cnt++ ? ", " : "", n);
		} while (dwarf_siblingof(&ch, &ch) == 0);
	}
	if (!cnt)
		pf__sb_add(b, "none");
}

/* The abstract origin of the instance (or the instance itself). */
static Dwarf_Die *decl_of(Dwarf_Die *inst, Dwarf_Die *buf)
{
	Dwarf_Attribute a;
	if (dwarf_attr(inst, DW_AT_abstract_origin, &a) && dwarf_formref_die(&a, buf))
		return buf;
	return inst;
}

/* Resolve a variable name at the point into a val. */
static int lookup_var(struct ctx *c, const char *name, struct val *v)
{
	Dwarf_Die d, ob;
	for (int i = c->lo; i <= c->k; i++)
		if (child_named(&c->scopes[i], name, false, &d))
			return var_val(c, &d, name, v);
	/* a parameter the abstract function has but this instance lacks */
	if (child_named(decl_of(&c->scopes[c->k], &ob), name, true, &d))
		return fail(c, -ENOENT, "%s is optimized out: this copy of %s has no such parameter (the compiler "
			    "dropped or folded it)", name, c->pt->function);
	if (find_global(c, name, &d))
		return var_val(c, &d, name, v);
	uint64_t addr, size;
	if (find_decl(c, name, &d) && pf__sym_by_name(c->pf, name, &addr, &size)) {
		memset(v, 0, sizeof(*v));
		v->has_type = die_type(&d, &v->type);
		v->kind = V_MEM;
		v->off = (int64_t)addr;
		return 0;
	}
	struct sbuf b = { 0 };
	visible_names(c, &b);
	int ret = fail(c, -ENOENT, "no variable '%s' here (variables in scope: %s; globals of the program are "
		       "found by name too)", name, b.s ? b.s : "?");
	free(b.s);
	return ret;
}

/* ---- members, indexing, dereference ---- */
static bool member_offset(Dwarf_Die *m, int64_t *off)
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

static void member_names(Dwarf_Die *st, struct sbuf *b, int *cnt, int depth)
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
static int bitfield(struct ctx *c, Dwarf_Die *m, int64_t *moff, struct val *v, const char *what)
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

static int do_deref(struct ctx *c, struct val *v, int64_t off, const char *what);

static int do_member(struct ctx *c, struct val *v, const char *name, const char *what)
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
static int do_deref(struct ctx *c, struct val *v, int64_t off, const char *what)
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

static int do_index(struct ctx *c, struct val *v, int64_t idx, const char *what)
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

/* ---- argument syntax ---- */
static bool is_ident(const char *s, size_t n)
{
	if (!n || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return false;
	return true;
}

static bool is_num(const char *s, bool hex_ok)
{
	if (hex_ok && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && s[2]) {
		for (s += 2; *s; s++)
			if (!isxdigit((unsigned char)*s))
				return false;
		return true;
	}
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* an ELF symbol name: foo, foo.isra.0, _$x */
static bool is_symname(const char *s, size_t n)
{
	if (!n || isdigit((unsigned char)s[0]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("_.$", s[i]))
			return false;
	return true;
}

/* TYPE of NAME=FETCH:TYPE; true when tracefs knows it */
static bool valid_type(const char *t)
{
	static const char *const basic[] = { "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "x8", "x16",
					     "x32", "x64", "char", "string", "ustring", "symbol", "symstr" };
	char base[64];
	size_t n = strcspn(t, "[");
	if (n >= sizeof(base))
		return false;
	memcpy(base, t, n);
	base[n] = '\0';
	if (t[n]) {	/* [N] */
		char *end;
		long k = strtol(t + n + 1, &end, 10);
		/* string, ustring, symstr: no arrays of them */
		if (k < 1 || k > MAX_TRACEFS_ARRAY || strcmp(end, "]") || strstr(base, "str"))
			return false;
	}
	for (size_t i = 0; i < sizeof(basic) / sizeof(basic[0]); i++)
		if (!strcmp(base, basic[i]))
			return true;
	int w, o, cs;
	char tail;
	if (sscanf(base, "b%d@%d/%d%c", &w, &o, &cs, &tail) == 3)
		return w > 0 && o >= 0 && (cs == 8 || cs == 16 || cs == 32 || cs == 64) && w + o <= cs;
	return false;
}

static bool is_string_type(const char *t)
{
	return t && (!strcmp(t, "string") || !strcmp(t, "ustring"));
}

static const char *const raw_regs[] = { "ax", "bx", "cx", "dx", "si", "di", "bp", "sp", "r8", "r9", "r10",
					"r11", "r12", "r13", "r14", "r15", "ip", "flags", "cs", "ss", "ds",
					"es", "fs", "gs", "orig_ax" };

/* A raw fetch (perf passes these through); normalizes %rdi -> %di, @SYM
 * -> @+OFF for uprobes, $argN -> the ABI register for uprobes. */
static int raw_fetch(struct ctx *c, const char *s, char **out, int depth)
{
	*out = NULL;
	if (depth > 8)
		return fail(c, -EINVAL, "'%s' nests too deep", s);
	if (s[0] == '%') {
		const char *r = s + 1;
		char norm[16];
		/* %rax %rdi %rsp %rip ... are the 64-bit names of ax di sp ip */
		if (r[0] == 'r' && strlen(r) == 3 && !isdigit((unsigned char)r[1])) {
			snprintf(norm, sizeof(norm), "%s", r + 1);
			r = norm;
		}
		for (size_t i = 0; i < sizeof(raw_regs) / sizeof(raw_regs[0]); i++)
			if (!strcmp(r, raw_regs[i])) {
				*out = xasprintf("%%%s", r);
				return *out ? 0 : -ENOMEM;
			}
		return fail(c, -EINVAL, "unknown register '%s' (tracefs x86-64 names: %%ax %%bx %%cx %%dx %%si %%di "
			    "%%bp %%sp %%r8..%%r15 %%ip %%flags)", s);
	}
	if (s[0] == '@') {
		const char *a = s + 1;
		if (a[0] == '+') {
			if (c->kernel)
				return fail(c, -EINVAL, "@+OFFSET (a file offset) is for uprobes; use @SYM+OFF on the kernel");
			if (!is_num(a + 1, true))
				return fail(c, -EINVAL, "'%s': expected @+OFFSET (a number)", s);
			*out = strdup(s);
			return *out ? 0 : -ENOMEM;
		}
		if (is_num(a, true)) {
			*out = strdup(s);
			return *out ? 0 : -ENOMEM;
		}
		size_t n = strcspn(a, "+-");
		int64_t off = 0;
		if (a[n]) {
			char *end;
			if (!is_num(a + n + 1, true))
				return fail(c, -EINVAL, "'%s': expected @SYM[+|-OFFSET]", s);
			off = strtoll(a + n, &end, 0);
		}
		if (!is_symname(a, n))
			return fail(c, -EINVAL, "'%s': expected @SYM[+|-OFFSET] or @ADDR", s);
		if (c->kernel) {
			*out = strdup(s);
			return *out ? 0 : -ENOMEM;
		}
		char sym[256];
		uint64_t addr, size;
		snprintf(sym, sizeof(sym), "%.*s", (int)n, a);
		if (!pf__sym_by_name(c->pf, sym, &addr, &size))
			return fail(c, -ENOENT, "no symbol '%s' in %s", sym, probe_finder__path(c->pf));
		struct val v = { .kind = V_MEM, .off = (int64_t)(addr + (uint64_t)off) };
		*out = mem_fetch(c, &v);
		return *out ? 0 : -EINVAL;
	}
	if (s[0] == '+' || s[0] == '-') {
		const char *p = s + 1;
		bool user = false;
		if (*p == 'u') {
			user = true;
			p++;
		}
		size_t n = strcspn(p, "(");
		char num[32];
		if (!n || n >= sizeof(num) || !p[n] || s[strlen(s) - 1] != ')')
			return fail(c, -EINVAL, "'%s': expected +|-[u]OFFSET(FETCHARG)", s);
		memcpy(num, p, n);
		num[n] = '\0';
		if (!is_num(num, true))
			return fail(c, -EINVAL, "'%s': the offset '%s' is not a number", s, num);
		size_t il = strlen(p + n + 1) - 1;
		char *inner = strndup(p + n + 1, il);
		if (!inner)
			return -ENOMEM;
		char *in;
		int ret = raw_fetch(c, inner, &in, depth + 1);
		free(inner);
		if (ret)
			return ret;
		*out = xasprintf("%c%s%s(%s)", s[0], user ? "u" : "", num, in);
		free(in);
		return *out ? 0 : -ENOMEM;
	}
	if (s[0] == '$') {
		const char *a = s + 1;
		if (!strcmp(a, "comm") || !strcmp(a, "stack") || (!strncmp(a, "stack", 5) && is_num(a + 5, false))) {
			*out = strdup(s);
			return *out ? 0 : -ENOMEM;
		}
		if (!strcmp(a, "retval")) {
			if (!c->pt->retprobe)
				return fail(c, -EINVAL, "$retval exists only on a return probe (FUNC%%return)");
			*out = strdup(s);
			return *out ? 0 : -ENOMEM;
		}
		if (!strncmp(a, "arg", 3) && is_num(a + 3, false)) {
			long k = strtol(a + 3, NULL, 10);
			if (k < 1)
				return fail(c, -EINVAL, "$argN counts from 1");
			if (c->kernel) {
				*out = strdup(s);
				return *out ? 0 : -ENOMEM;
			}
			/* uprobes have no $argN: the calling convention's registers, valid at the entry */
			if (c->pt->retprobe || c->pt->sym_offset != 0)
				return fail(c, -EINVAL, "$%s is where the caller passed it, so only at a function's entry "
					    "(this point is %s)", a, c->pt->retprobe ? "a return probe" : "past the entry");
			if (k > 6)
				return fail(c, -EINVAL, "$%s is passed on the stack: use +%ld(%%sp)", a, 8 * (k - 6));
			*out = strdup(abi_reg[k - 1]);
			return *out ? 0 : -ENOMEM;
		}
		return fail(c, -EINVAL, "unknown '%s' (known: $retval $params $vars $comm $argN $stackN $stack)", s);
	}
	if (s[0] == '\\') {
		size_t l = strlen(s);
		bool str = s[1] == '"' && l > 2 && s[l - 1] == '"';
		bool num = is_num(s + 1, true) || (s[1] == '-' && is_num(s + 2, false));
		if (str || num) {
			*out = strdup(s);
			return *out ? 0 : -ENOMEM;
		}
		return fail(c, -EINVAL, "'%s': expected \\NUMBER or \\\"STRING\"", s);
	}
	return fail(c, -EINVAL, "'%s' is not a fetch-arg", s);
}

/* ---- output ---- */
static void sanitize(const char *s, char *out, size_t len)
{
	size_t o = 0;
	bool us = false;
	for (; *s && o + 1 < len; s++) {
		if (isalnum((unsigned char)*s) || *s == '_') {
			if (us && o)
				out[o++] = '_';
			us = false;
			if (o + 1 < len)
				out[o++] = *s;
		} else {
			us = true;
		}
	}
	out[o] = '\0';
}

static bool name_taken(struct ctx *c, const char *n)
{
	static const char *const reserved[] = { "common_type", "common_flags", "common_preempt_count",
						"common_pid", "__probe_ip", "__probe_ret_ip", "__probe_func" };
	for (size_t i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++)
		if (!strcmp(n, reserved[i]))
			return true;
	for (int i = 0; i < c->nout; i++)
		if (!strcmp(c->out[i].name, n))
			return true;
	return false;
}

/* Appends one arg; takes fetch (owned). name: given (checked) or NULL to
 * derive from expr. */
static int emit(struct ctx *c, const char *given, const char *expr, char *fetch, const char *type)
{
	char base[128], nm[160];
	int ret = -ENOMEM;
	if (!fetch)
		return -EINVAL;	/* whoever failed to render it said why */
	if (given) {
		if (!is_ident(given, strlen(given))) {
			free(fetch);
			return fail(c, -EINVAL, "'%s' is not a valid argument name ([A-Za-z_][A-Za-z0-9_]*)", given);
		}
		if (name_taken(c, given)) {
			free(fetch);
			return fail(c, -EINVAL, "the argument name '%s' is used twice (or reserved by tracefs)", given);
		}
		snprintf(nm, sizeof(nm), "%s", given);
	} else {
		sanitize(expr, base, sizeof(base));
		if (!base[0] || isdigit((unsigned char)base[0]))
			snprintf(base, sizeof(base), "arg%d", c->nout + 1);
		snprintf(nm, sizeof(nm), "%s", base);
		for (int k = 1; name_taken(c, nm); k++)
			snprintf(nm, sizeof(nm), "%s_%d", base, k);
	}
	struct pf_fetch_arg *o = realloc(c->out, (size_t)(c->nout + 1) * sizeof(*o));
	if (!o)
		goto err;
	c->out = o;
	o = &c->out[c->nout];
	o->name = strdup(nm);
	o->fetch = fetch;
	o->type = strdup(type);
	if (!o->name || !o->type) {
		free(o->name);
		free(o->type);
		goto err;
	}
	c->nout++;
	return 0;
err:
	free(fetch);
	return ret;
}

/* Renders the final value with the user's type (or the DWARF default). */
static int finish(struct ctx *c, const char *given, const char *expr, struct val *v, const char *utype)
{
	Dwarf_Die p;
	char tb[64];
	const char *why = NULL;
	int wret = whole(c, v, expr);
	if (wret)
		return wret;
	bool has = peel(v, &p);
	int tag = has ? dwarf_tag(&p) : 0;

	if (is_string_type(utype)) {
		if (v->kind == V_IMM)
			return fail(c, -EINVAL, "%s is the constant %" PRId64 " here, not a string", expr, v->imm);
		if (tag == DW_TAG_array_type) {
			if (v->kind != V_MEM)
				return fail(c, -EINVAL, "%s is an array not in memory here", expr);
			return emit(c, given, expr, mem_fetch(c, v), utype);
		}
		if (has && tag != DW_TAG_pointer_type && !(tag == DW_TAG_base_type && tsize(&p) == 8)) {
			char *ts = type_str(v);
			int ret = fail(c, -EINVAL, "%s (%s) is neither a pointer nor a char array: it cannot be a %s",
				       expr, ts ? ts : "?", utype);
			free(ts);
			return ret;
		}
		char *f = value_fetch(c, v, expr);
		if (!f)
			return -EINVAL;
		char *s = xasprintf("+0(%s)", f);
		free(f);
		return emit(c, given, expr, s, utype);
	}
	if (v->bit_size) {
		if (utype && utype[0] != 'b')
			return fail(c, -EINVAL, "%s is a bitfield (b%d@%d/%d): give no type or a bitfield type", expr,
				    v->bit_size, v->bit_off + v->bitoff, v->container);
		snprintf(tb, sizeof(tb), "b%d@%d/%d", v->bit_size, v->bit_off, v->container);
		if (v->kind == V_REG) {
			/* inside a register-held struct: the bits of the register */
			snprintf(tb, sizeof(tb), "b%d@%d/64", v->bit_size, v->bit_off + v->bitoff);
			char *f = strdup(v->fetch);
			return emit(c, given, expr, f, utype ? utype : tb);
		}
		return emit(c, given, expr, value_fetch(c, v, expr), utype ? utype : tb);
	}
	if (v->kind == V_REG && v->bitoff) {
		/* a member of a struct held in a register */
		int64_t sz = has ? tsize(&p) : -1;
		if (utype)
			return fail(c, -EINVAL, "%s is bits %d..%d of %s: only its default bitfield type can fetch it", expr,
				    v->bitoff, v->bitoff + (int)sz * 8 - 1, v->fetch);
		if (!scalar_type(&v->type, tb, sizeof(tb), &why))
			return fail(c, -EINVAL, "%s is %s", expr, why);
		snprintf(tb, sizeof(tb), "b%d@%d/64", (int)sz * 8, v->bitoff);
		return emit(c, given, expr, strdup(v->fetch), tb);
	}
	if (utype)
		return emit(c, given, expr, tag == DW_TAG_array_type && v->kind == V_MEM ? mem_fetch(c, v)
							    : value_fetch(c, v, expr), utype);
	if (!v->has_type)
		return fail(c, -EINVAL, "%s has no type (void): give one, e.g. :x64", expr);
	if (tag == DW_TAG_array_type) {
		int64_t counts[8];
		Dwarf_Die elem;
		int nd = array_dims(&p, counts, 8);
		int64_t total = 1;
		for (int d = v->dim; d < nd; d++)
			total = counts[d] > 0 && total > 0 ? total * counts[d] : -1;
		if (!die_type(&p, &elem) || total <= 0)
			return fail(c, -EINVAL, "%s is an array of unknown length: index it or give a type", expr);
		const char *et = scalar_type(&elem, tb, sizeof(tb), &why);
		if (!et)
			return fail(c, -EINVAL, "%s is an array of elements that are %s: index it and name a member", expr,
				    why);
		if (total > MAX_TRACEFS_ARRAY)
			return fail(c, -EINVAL, "%s has %" PRId64 " elements; tracefs arrays hold at most %d: index "
				    "it%s", expr, total, MAX_TRACEFS_ARRAY, is_char_type(&elem) ? " or give :string" : "");
		if (v->kind != V_MEM)
			return fail(c, -EINVAL, "%s is an array not in memory here", expr);
		char at[80];
		snprintf(at, sizeof(at), "%s[%" PRId64 "]", et, total);
		return emit(c, given, expr, mem_fetch(c, v), at);
	}
	const char *st = scalar_type(&v->type, tb, sizeof(tb), &why);
	if (!st) {
		if (tag == DW_TAG_structure_type || tag == DW_TAG_union_type || tag == DW_TAG_class_type) {
			struct sbuf b = { 0 };
			int cnt = 0;
			member_names(&p, &b, &cnt, 0);
			char *ts = type_str(v);
			int ret = fail(c, -EINVAL, "%s is %s (%s): name a member (%s) or give a type", expr, why,
				       ts ? ts : "?", b.s ? b.s : "none");
			free(ts);
			free(b.s);
			return ret;
		}
		return fail(c, -EINVAL, "%s is %s", expr, why);
	}
	return emit(c, given, expr, value_fetch(c, v, expr), st);
}

/* VAR[->m|.m|[i]]... with leading *s, or $retval[...] */
static int dwarf_arg(struct ctx *c, const char *given, const char *expr, const char *utype)
{
	struct val v = { 0 };
	const char *p = expr;
	int stars = 0, ret;
	char what[256];
	while (*p == '*')
		p++, stars++;
	size_t n = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$");
	char name[128];
	if (!n || n >= sizeof(name))
		return fail(c, -EINVAL, "expected a variable name");
	memcpy(name, p, n);
	name[n] = '\0';
	p += n;
	if (name[0] == '$') {
		if (strcmp(name, "$retval"))
			return fail(c, -EINVAL, "'%s' takes no members, indexes or *", name);
		if (!c->pt->retprobe)
			return fail(c, -EINVAL, "$retval exists only on a return probe (%s%%return)", c->pt->function);
		Dwarf_Die fn = c->scopes[c->k];
		v.kind = V_REG;
		v.fetch = strdup("$retval");
		v.has_type = die_type(&fn, &v.type);
		if (!v.fetch)
			return -ENOMEM;
		if (!v.has_type && !utype && !*p && !stars) {
			val_free(&v);
			return fail(c, -EINVAL, "%s returns void", c->pt->function);
		}
		int64_t rsz;
		enum aclass rc = v.has_type ? abi_class(&v.type, &rsz) : A_UNSURE;
		Dwarf_Die rp;
		bool aggr = v.has_type && !dwarf_peel_type(&v.type, &rp) && dwarf_tag(&rp) != DW_TAG_base_type;
		if (rc == A_MEM && aggr) {
			/* returned in memory: %rax holds the address the caller passed */
			free(v.fetch);
			v.kind = V_MEM;
			v.fetch = strdup("$retval");
			if (!v.fetch)
				return -ENOMEM;
		} else if (rc == A_INT2 && aggr) {
			/* two eightbytes: %rax and %rdx */
			v.pieces = calloc(2, sizeof(*v.pieces));
			if (!v.pieces) {
				val_free(&v);
				return -ENOMEM;
			}
			free(v.fetch);
			v.fetch = NULL;
			v.kind = V_PIECES;
			v.npieces = 2;
			for (int i = 0; i < 2; i++) {
				v.pieces[i].start = 8 * i;
				v.pieces[i].size = i ? rsz - 8 : 8;
				v.pieces[i].v.kind = V_REG;
				if (!(v.pieces[i].v.fetch = strdup(i ? "%dx" : "$retval"))) {
					val_free(&v);
					return -ENOMEM;
				}
			}
		}
	} else {
		if (!is_ident(name, n))
			return fail(c, -EINVAL, "'%s' is not a variable name", name);
		if (c->pt->retprobe)
			return fail(c, -EINVAL, "on a return probe the function's variables are gone; only $retval (and "
				    "raw registers) can be fetched");
		if ((ret = lookup_var(c, name, &v)))
			return ret;
	}
	snprintf(what, sizeof(what), "%s", name);
	while (*p) {
		if (p[0] == '-' && p[1] == '>') {
			p += 2;
			n = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
			if (!is_ident(p, n)) {
				ret = fail(c, -EINVAL, "expected a member name after '->' in '%s'", expr);
				goto out;
			}
			snprintf(name, sizeof(name), "%.*s", (int)n, p);
			char pointee[300];
			snprintf(pointee, sizeof(pointee), "what %s points at", what);
			if ((ret = do_deref(c, &v, 0, what)) || (ret = do_member(c, &v, name, pointee)))
				goto out;
			snprintf(what + strlen(what), sizeof(what) - strlen(what), "->%s", name);
			p += n;
		} else if (p[0] == '.') {
			p++;
			n = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
			if (!is_ident(p, n)) {
				ret = fail(c, -EINVAL, "expected a member name after '.' in '%s'", expr);
				goto out;
			}
			snprintf(name, sizeof(name), "%.*s", (int)n, p);
			if ((ret = do_member(c, &v, name, what)))
				goto out;
			snprintf(what + strlen(what), sizeof(what) - strlen(what), ".%s", name);
			p += n;
		} else if (p[0] == '[') {
			char *end;
			long long idx = strtoll(p + 1, &end, 0);
			if (end == p + 1 || *end != ']') {
				ret = fail(c, -EINVAL, "expected [NUMBER] in '%s'", expr);
				goto out;
			}
			if ((ret = do_index(c, &v, idx, what)))
				goto out;
			snprintf(what + strlen(what), sizeof(what) - strlen(what), "[%lld]", idx);
			p = end + 1;
		} else {
			ret = fail(c, -EINVAL, "unexpected '%s' in '%s' (expected ->MEMBER, .MEMBER or [INDEX])", p, expr);
			goto out;
		}
	}
	for (int i = 0; i < stars; i++) {
		if ((ret = do_deref(c, &v, 0, what)))
			goto out;
	}
	ret = finish(c, given, expr, &v, utype);
out:
	val_free(&v);
	return ret;
}

static void note(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct ctx *c, const char *fmt, ...)
{
	char m[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m, sizeof(m), fmt, ap);
	va_end(ap);
	pf__sb_add(&c->notes, "%s%s", c->notes.len ? "; " : "", m);
}

/* The reason probe_finder__strerror() holds, after "argument '...' at ...: " */
static const char *reason(struct ctx *c)
{
	const char *e = probe_finder__strerror(c->pf);
	const char *r = strstr(e, ": ");
	return r ? r + 2 : e;
}

/* One variable of $params/$vars: skipped with a note when it cannot be fetched. */
static int expand_one(struct ctx *c, const char *name, const char *utype)
{
	int ret = dwarf_arg(c, NULL, name, utype);
	if (ret == -ENOMEM)
		return ret;
	if (ret)
		note(c, "skipped %s: %s", name, reason(c));
	return 0;
}

/* Expand NAME and remember it in *seen (a local of that name in an outer
 * scope is then shadowed). */
static int expand_seen(struct ctx *c, const char *name, const char *utype, char ***seen, int *nseen)
{
	char **s = realloc(*seen, (size_t)(*nseen + 1) * sizeof(*s));
	if (!s)
		return -ENOMEM;
	*seen = s;
	s[(*nseen)++] = (char *)name;
	return expand_one(c, name, utype);
}

static int expand(struct ctx *c, bool vars, const char *utype)
{
	if (c->pt->retprobe)
		return fail(c, -EINVAL, "on a return probe the function's %s are gone; only $retval can be fetched",
			    vars ? "variables" : "parameters");
	Dwarf_Die ob, *decl = decl_of(&c->scopes[c->k], &ob), ch;
	char **seen = NULL;
	int nseen = 0, ret = 0;
	/* parameters in declaration order */
	if (dwarf_child(decl, &ch) == 0)
		do {
			const char *n = dwarf_tag(&ch) == DW_TAG_formal_parameter ? die_name(&ch) : NULL;
			if (n && (ret = expand_seen(c, n, utype, &seen, &nseen)))
				goto out;
		} while (dwarf_siblingof(&ch, &ch) == 0);
	if (vars) {
		/* locals, outer scopes first; an inner one shadows an outer one */
		for (int i = c->k; i >= c->lo; i--) {
			if (dwarf_child(&c->scopes[i], &ch) != 0)
				continue;
			do {
				const char *n = dwarf_tag(&ch) == DW_TAG_variable &&
							!dwarf_hasattr(&ch, DW_AT_declaration) ? die_name(&ch) : NULL;
				bool dup = false;
				for (int j = 0; n && j < nseen; j++)
					dup |= !strcmp(seen[j], n);
				if (n && !dup && (ret = expand_seen(c, n, utype, &seen, &nseen)))
					goto out;
			} while (dwarf_siblingof(&ch, &ch) == 0);
		}
	}
out:
	free(seen);
	return ret;
}

static int one_arg(struct ctx *c, const char *arg)
{
	char *dup = strdup(arg), *given = NULL, *expr, *utype = NULL;
	int ret;
	if (!dup)
		return -ENOMEM;
	expr = dup;
	while (isspace((unsigned char)*expr))
		expr++;
	size_t l = strlen(expr);
	while (l && isspace((unsigned char)expr[l - 1]))
		expr[--l] = '\0';
	/* NAME= */
	char *eq = strchr(expr, '=');
	if (eq && expr[0] != '\\' && is_ident(expr, (size_t)(eq - expr))) {
		*eq = '\0';
		given = expr;
		expr = eq + 1;
	}
	/* :TYPE (an immediate string may hold ':') */
	char *colon = expr[0] == '\\' && expr[1] == '"' ? strrchr(expr, '"') : expr;
	colon = colon ? strchr(colon, ':') : NULL;
	if (colon) {
		*colon = '\0';
		utype = colon + 1;
		if (!valid_type(utype)) {
			ret = fail(c, -EINVAL, "unknown type '%s' (string, ustring, u8..u64, s8..s64, x8..x64, char, "
				   "symbol, symstr, b<width>@<offset>/<container>, or TYPE[N])", utype);
			goto out;
		}
	}
	if (!*expr) {
		ret = fail(c, -EINVAL, "empty argument");
		goto out;
	}
	if (!strcmp(expr, "$params") || !strcmp(expr, "$vars")) {
		if (given) {
			ret = fail(c, -EINVAL, "%s expands to several arguments: it takes no NAME=", expr);
			goto out;
		}
		if (!c->dwarf) {
			ret = fail(c, -ENOENT, "%s needs DWARF at this address: %s", expr,
				   pf__dwarf(c->pf) ? "no function's debug info covers it" : pf__nodwarf(c->pf));
			goto out;
		}
		ret = expand(c, !strcmp(expr, "$vars"), utype);
		goto out;
	}
	bool raw = strchr("%@+-\\", expr[0]) || (expr[0] == '$' && strncmp(expr, "$retval", 7));
	if (!strncmp(expr, "$retval", 7) && !c->dwarf) {
		raw = true;
		if (expr[7]) {
			ret = fail(c, -EINVAL, "members of $retval need DWARF for the function's return type");
			goto out;
		}
	}
	if (raw) {
		char *f;
		if ((ret = raw_fetch(c, expr, &f, 0)))
			goto out;
		const char *t = utype ? utype : !strcmp(expr, "$comm") || (expr[0] == '\\' && expr[1] == '"') ? "string"
										  : "x64";
		ret = emit(c, given, expr, f, t);
		goto out;
	}
	if (!c->dwarf) {
		ret = fail(c, -ENOENT, "variables need DWARF at this address: %s",
			   pf__dwarf(c->pf) ? "no function's debug info covers it" : pf__nodwarf(c->pf));
		goto out;
	}
	if (pf__machine(c->pf) != EM_X86_64) {
		ret = fail(c, -EOPNOTSUPP, "DWARF arguments are translated for x86-64 only");
		goto out;
	}
	ret = dwarf_arg(c, given, expr, utype);
out:
	free(dup);
	return ret;
}

void pf_fetch_args__free(struct pf_fetch_arg *args, int n)
{
	if (!args)
		return;
	for (int i = 0; i < n; i++) {
		free(args[i].name);
		free(args[i].fetch);
		free(args[i].type);
	}
	free(args);
}

int probe_finder__fetch_args(struct probe_finder *pf, const struct pf_point *pt, const char *const *args,
			     int nargs, struct pf_fetch_arg **out)
{
	struct ctx c = { .pf = pf, .pt = pt, .kernel = probe_finder__is_kernel(pf) };
	int ret = 0;
	*out = NULL;
	if ((ret = setup_scope(&c)))
		goto err;
	for (int i = 0; i < nargs; i++) {
		c.arg = args[i];
		if ((ret = one_arg(&c, args[i])))
			goto err;
	}
	if (c.notes.oom) {
		ret = -ENOMEM;
		goto err;
	}
	pf_fail(pf, 0, "%s", c.notes.s ? c.notes.s : "");
	free(c.notes.s);
	free(c.scopes);
	if (c.eh_cfi)
		dwarf_cfi_end(c.eh_cfi);
	*out = c.out;
	return c.nout;
err:
	if (ret == -ENOMEM)
		pf_fail(pf, ret, "out of memory");
	pf_fetch_args__free(c.out, c.nout);
	free(c.notes.s);
	free(c.scopes);
	if (c.eh_cfi)
		dwarf_cfi_end(c.eh_cfi);
	return ret;
}
