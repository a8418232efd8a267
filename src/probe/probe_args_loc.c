/* Where a variable of the probe point lives (the fetch-arg translator's
 * half that reads locations): the scope at the address, variable lookup,
 * DWARF location expressions, CFA and frame-base slots, and the x86-64
 * calling convention at a function's entry. See probe_args.c. */
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

enum aclass abi_class(Dwarf_Die *t, int64_t *size)
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
int select_piece(struct ctx *c, struct val *v, int64_t off, int64_t size, const char *what)
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
int whole(struct ctx *c, struct val *v, const char *what)
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

int setup_scope(struct ctx *c)
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
Dwarf_Die *decl_of(Dwarf_Die *inst, Dwarf_Die *buf)
{
	Dwarf_Attribute a;
	if (dwarf_attr(inst, DW_AT_abstract_origin, &a) && dwarf_formref_die(&a, buf))
		return buf;
	return inst;
}

/* Resolve a variable name at the point into a val. */
int lookup_var(struct ctx *c, const char *name, struct val *v)
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
