/* -V: the variables at a probe point, with their types, locations,
 * constant values or why they cannot be fetched, and (--range) where each
 * is available. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pprobe/probe_finder.h"
#include "probe_finder_internal.h"

/* ---- locations ---- */
static const char *regname(struct probe_finder *pf, unsigned r, char *buf, size_t len)
{
	static const char *x86_64[] = { "rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp",
					"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rip" };
	static const char *x86[] = { "eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi" };
	if (pf->ehdr.e_machine == EM_X86_64 && r < 17)
		snprintf(buf, len, "%%%s", x86_64[r]);
	else if (pf->ehdr.e_machine == EM_X86_64 && r >= 17 && r <= 32)
		snprintf(buf, len, "%%xmm%u", r - 17);
	else if (pf->ehdr.e_machine == EM_386 && r < 8)
		snprintf(buf, len, "%%%s", x86[r]);
	else if (pf->ehdr.e_machine == EM_AARCH64 && r <= 30)
		snprintf(buf, len, "%%x%u", r);
	else if (pf->ehdr.e_machine == EM_AARCH64 && r == 31)
		snprintf(buf, len, "%%sp");
	else
		snprintf(buf, len, "%%reg%u", r);
	return buf;
}

static const char *data_sym(struct probe_finder *pf, uint64_t addr, char *buf, size_t len)
{
	for (size_t i = 0; i < pf->nsyms; i++) {
		const struct sym_entry *s = &pf->syms[i];
		if (s->addr <= addr && addr < s->addr + (s->size ? s->size : 1)) {
			if (addr == s->addr)
				snprintf(buf, len, "@%s", s->name);
			else
				snprintf(buf, len, "@%s+%" PRIu64, s->name, addr - s->addr);
			return buf;
		}
	}
	snprintf(buf, len, "@0x%" PRIx64, addr);
	return buf;
}

static void fmt_value(Dwarf_Die *type, int64_t size, const uint8_t *bytes, size_t n, struct sbuf *b)
{
	if (n == 0 || n > 8) {
		pf__sb_add(b, "{");
		for (size_t i = 0; i < n && i < 32; i++)
			pf__sb_add(b, "%s%02x", i ? " " : "", bytes[i]);
		pf__sb_add(b, "%s}", n > 32 ? " ..." : "");
		return;
	}
	uint64_t v = 0;
	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)bytes[i] << (8 * i);
	(void)size;
	if (type && type_float(type) && (n == 4 || n == 8)) {
		if (n == 4) {
			float f;
			uint32_t w = (uint32_t)v;
			memcpy(&f, &w, 4);
			pf__sb_add(b, "%.9g", (double)f);
		} else {
			double d;
			memcpy(&d, &v, 8);
			pf__sb_add(b, "%.17g", d);
		}
		return;
	}
	if (type && type_signed(type) && n < 8 && (v >> (8 * n - 1)) & 1)
		v |= ~0ULL << (8 * n);
	if (type && type_signed(type))
		pf__sb_add(b, "%" PRId64, (int64_t)v);
	else
		pf__sb_add(b, "%" PRIu64, v);
}

/* Classify a location expression; fills where. */
static enum pf_var_state classify(struct probe_finder *pf, Dwarf_Die *type, int64_t size,
				  Dwarf_Attribute *attr, Dwarf_Op *ops, size_t n, struct sbuf *where,
				  const char *fbase)
{
	char r[32], s[256];
	if (n == 0)
		return PF_VAR_OPTIMIZED_OUT;
	uint8_t op = ops[0].atom;
	if (n == 1 && op >= DW_OP_reg0 && op <= DW_OP_reg31) {
		pf__sb_add(where, "%s", regname(pf, op - DW_OP_reg0, r, sizeof(r)));
		return PF_VAR_LOCATION;
	}
	if (n == 1 && op == DW_OP_regx) {
		pf__sb_add(where, "%s", regname(pf, (unsigned)ops[0].number, r, sizeof(r)));
		return PF_VAR_LOCATION;
	}
	if (n == 1 && op >= DW_OP_breg0 && op <= DW_OP_breg31) {
		pf__sb_add(where, "%" PRId64 "(%s)", (int64_t)ops[0].number, regname(pf, op - DW_OP_breg0, r, sizeof(r)));
		return PF_VAR_LOCATION;
	}
	if (n == 1 && op == DW_OP_fbreg) {
		pf__sb_add(where, "%s%+" PRId64, fbase ? fbase : "frame_base", (int64_t)ops[0].number);
		return PF_VAR_LOCATION;
	}
	if (n == 1 && op == DW_OP_addr) {
		pf__sb_add(where, "%s", data_sym(pf, ops[0].number, s, sizeof(s)));
		return PF_VAR_LOCATION;
	}
	if (n == 1 && op == DW_OP_implicit_value) {
		Dwarf_Block blk;
		if (dwarf_getlocation_implicit_value(attr, &ops[0], &blk) == 0) {
			fmt_value(type, size, blk.data, blk.length, where);
			return PF_VAR_CONST;
		}
	}
	if (n == 2 && ops[1].atom == DW_OP_stack_value) {
		uint64_t v;
		bool isconst = true;
		if (op >= DW_OP_lit0 && op <= DW_OP_lit31)
			v = op - DW_OP_lit0;
		else if (op == DW_OP_constu || op == DW_OP_const1u || op == DW_OP_const2u ||
			 op == DW_OP_const4u || op == DW_OP_const8u || op == DW_OP_consts ||
			 op == DW_OP_const1s || op == DW_OP_const2s || op == DW_OP_const4s ||
			 op == DW_OP_const8s)
			v = ops[0].number;
		else
			isconst = false;
		if (isconst) {
			uint8_t bytes[8];
			size_t nb = size > 0 && size <= 8 ? (size_t)size : 8;
			for (size_t i = 0; i < 8; i++)
				bytes[i] = (uint8_t)(v >> (8 * i));
			fmt_value(type, size, bytes, nb, where);
			return PF_VAR_CONST;
		}
		if (op >= DW_OP_breg0 && op <= DW_OP_breg31 && ops[0].number == 0) {
			/* the value is a register's content: fetchable as the register */
			pf__sb_add(where, "%s", regname(pf, op - DW_OP_breg0, r, sizeof(r)));
			return PF_VAR_LOCATION;
		}
	}
	for (size_t i = 0; i < n; i++)
		if (ops[i].atom == DW_OP_entry_value || ops[i].atom == DW_OP_GNU_entry_value) {
			Dwarf_Attribute ea;
			Dwarf_Op *eops;
			size_t en;
			if (dwarf_getlocation_attr(attr, &ops[i], &ea) == 0 &&
			    dwarf_getlocation(&ea, &eops, &en) == 0 && en == 1 &&
			    eops[0].atom >= DW_OP_reg0 && eops[0].atom <= DW_OP_reg31)
				pf__sb_add(where, "computed from the entry value of %s",
				       regname(pf, eops[0].atom - DW_OP_reg0, r, sizeof(r)));
			else
				pf__sb_add(where, "computed from entry values");
			return PF_VAR_COMPUTED;
		}
	for (size_t i = 0; i < n; i++)
		if (ops[i].atom == DW_OP_GNU_parameter_ref) {
			pf__sb_add(where, "not passed to this clone: the compiler passed only what it uses");
			return PF_VAR_COMPUTED;
		}
	for (size_t i = 0; i < n; i++)
		if (ops[i].atom == DW_OP_piece || ops[i].atom == DW_OP_bit_piece) {
			pf__sb_add(where, "split into pieces");
			return PF_VAR_COMPUTED;
		}
	pf__sb_add(where, "computed by a %zu-operation DWARF expression", n);
	return PF_VAR_COMPUTED;
}

/* The frame base of the subprogram enclosing scopes, described. */
static char *frame_base(struct probe_finder *pf, Dwarf_Die *scopes, int nscopes, Dwarf_Addr addr)
{
	for (int i = 0; i < nscopes; i++) {
		if (dwarf_tag(&scopes[i]) != DW_TAG_subprogram || !dwarf_hasattr(&scopes[i], DW_AT_frame_base))
			continue;
		Dwarf_Attribute a;
		Dwarf_Op *ops;
		size_t n;
		char r[32], buf[64];
		if (!dwarf_attr(&scopes[i], DW_AT_frame_base, &a) ||
		    dwarf_getlocation_addr(&a, addr, &ops, &n, 1) != 1 || n != 1)
			return NULL;
		if (ops[0].atom == DW_OP_call_frame_cfa)
			return strdup("CFA");
		if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
			snprintf(buf, sizeof(buf), "%s%+" PRId64, regname(pf, ops[0].atom - DW_OP_breg0, r, sizeof(r)),
				 (int64_t)ops[0].number);
			return strdup(buf);
		}
		if (ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31)
			return strdup(regname(pf, ops[0].atom - DW_OP_reg0, r, sizeof(r)));
		return NULL;
	}
	return NULL;
}

static void compress_lines(int *v, int n, struct sbuf *b)
{
	for (int i = 0; i < n;) {
		int j = i;
		while (j + 1 < n && v[j + 1] <= v[j] + 1)
			j++;
		if (v[j] > v[i])
			pf__sb_add(b, "%s%d-%d", i ? "," : "", v[i], v[j]);
		else
			pf__sb_add(b, "%s%d", i ? "," : "", v[i]);
		i = j + 1;
	}
}

static int int_cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* "@<sym+[a-b,...]> lines ..." for where var has a location inside fn. */
static char *var_range(struct probe_finder *pf, Dwarf_Die *var, Dwarf_Die *fn, Dwarf_Die *cu,
		       const struct sym_entry *s)
{
	struct sbuf b = { 0 };
	Dwarf_Attribute a;
	Dwarf_Addr base, start, end;
	Dwarf_Op *ops;
	size_t n;
	ptrdiff_t off = 0;
	int *lines = NULL, nlines = 0;
	bool any = false;
	uint64_t sbase = s ? s->addr : 0;

	if (dwarf_attr_integrate(var, DW_AT_const_value, &a)) {
		pf__sb_add(&b, "whole scope (constant)");
		return sb_take(&b);
	}
	if (!dwarf_attr(var, DW_AT_location, &a)) {
		pf__sb_add(&b, "nowhere");
		return sb_take(&b);
	}
	Dwarf_Lines *lt = NULL;
	size_t nlt = 0;
	dwarf_getsrclines(cu, &lt, &nlt);
	pf__sb_add(&b, "@<%s+[", s ? s->name : "?");
	while ((off = dwarf_getlocations(&a, off, &base, &start, &end, &ops, &n)) > 0) {
		if (n == 0)
			continue;
		if (start == 0 && end == (Dwarf_Addr)-1) {
			/* a single expression: the variable's scope; use fn's ranges */
			Dwarf_Addr rb, rs, re;
			ptrdiff_t ro = 0;
			while ((ro = dwarf_ranges(fn, ro, &rb, &rs, &re)) > 0) {
				pf__sb_add(&b, "%s%" PRIu64 "-%" PRIu64, any ? "," : "", rs - sbase, re - sbase);
				any = true;
				for (size_t i = 0; lt && i < nlt; i++) {
					Dwarf_Addr la;
					int ln;
					if (!dwarf_lineaddr(dwarf_onesrcline(lt, i), &la) && la >= rs && la < re &&
					    !dwarf_lineno(dwarf_onesrcline(lt, i), &ln) && ln > 0) {
						int *v = realloc(lines, (size_t)(nlines + 1) * sizeof(int));
						if (v) {
							lines = v;
							lines[nlines++] = ln;
						}
					}
				}
			}
			break;
		}
		pf__sb_add(&b, "%s%" PRIu64 "-%" PRIu64, any ? "," : "", start - sbase, end - sbase);
		any = true;
		const char *fnfile = decl_file(fn);
		for (size_t i = 0; lt && i < nlt; i++) {
			Dwarf_Line *l = dwarf_onesrcline(lt, i);
			Dwarf_Addr la;
			int ln;
			bool stmt;
			const char *f = dwarf_linesrc(l, NULL, NULL);
			if (!dwarf_lineaddr(l, &la) && la >= start && la < end && !dwarf_lineno(l, &ln) &&
			    ln > 0 && !dwarf_linebeginstatement(l, &stmt) && stmt && f && fnfile &&
			    !strcmp(f, fnfile) && dwarf_haspc(fn, la) > 0) {
				int *v = realloc(lines, (size_t)(nlines + 1) * sizeof(int));
				if (v) {
					lines = v;
					lines[nlines++] = ln;
				}
			}
		}
	}
	pf__sb_add(&b, "]>");
	if (nlines) {
		qsort(lines, (size_t)nlines, sizeof(int), int_cmp);
		int o = 0;
		for (int i = 0; i < nlines; i++)
			if (!o || lines[o - 1] != lines[i])
				lines[o++] = lines[i];
		pf__sb_add(&b, " lines ");
		compress_lines(lines, o, &b);
	}
	free(lines);
	return sb_take(&b);
}

static bool have_var(struct pf_point *p, const char *name)
{
	for (int i = 0; i < p->nvars; i++)
		if (!strcmp(p->vars[i].name, name))
			return true;
	return false;
}

void var_free(struct pf_var *v)
{
	free(v->name);
	free(v->type);
	free(v->where);
	free(v->range);
}

static void drop_var(struct pf_point *p, const char *name)
{
	for (int i = 0; name && i < p->nvars; i++)
		if (!strcmp(p->vars[i].name, name)) {
			var_free(&p->vars[i]);
			memmove(&p->vars[i], &p->vars[i + 1], (size_t)(p->nvars - i - 1) * sizeof(*p->vars));
			p->nvars--;
			return;
		}
}

static int add_var(struct probe_finder *pf, struct pf_point *p, Dwarf_Die *var, Dwarf_Addr addr,
		   bool external, bool force_out, const char *fbase, Dwarf_Die *fn, Dwarf_Die *cu,
		   unsigned flags, const struct sym_entry *s)
{
	const char *name = die_name(var);
	if (!name || have_var(p, name))
		return 0;
	struct pf_var *v = realloc(p->vars, (size_t)(p->nvars + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	p->vars = v;
	v = &p->vars[p->nvars++];
	memset(v, 0, sizeof(*v));
	struct sbuf tb = { 0 }, wb = { 0 };
	Dwarf_Die t;
	bool ht = die_type(var, &t);
	if (ht)
		type_name(&t, &tb, 0);
	else
		pf__sb_add(&tb, "void");
	v->name = strdup(name);
	v->type = sb_take(&tb);
	v->byte_size = ht ? type_size(pf, &t) : -1;
	v->param = dwarf_tag(var) == DW_TAG_formal_parameter;
	v->external = external;

	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t n;
	if (force_out) {
		v->state = PF_VAR_OPTIMIZED_OUT;
	} else if (dwarf_attr_integrate(var, DW_AT_const_value, &a)) {
		Dwarf_Block blk;
		Dwarf_Sword sv;
		Dwarf_Word uv;
		v->state = PF_VAR_CONST;
		bool got = false;
		if (dwarf_whatform(&a) == DW_FORM_sdata && !dwarf_formsdata(&a, &sv)) {
			uv = (Dwarf_Word)sv;
			got = true;
		} else if (!dwarf_formblock(&a, &blk)) {
			fmt_value(ht ? &t : NULL, v->byte_size, blk.data, blk.length, &wb);
		} else if (!dwarf_formudata(&a, &uv)) {
			got = true;
		}
		if (got) {
			/* through the type: a double may come as an integer form */
			uint8_t bytes[8];
			size_t nb = v->byte_size > 0 && v->byte_size <= 8 ? (size_t)v->byte_size : 8;
			for (size_t i = 0; i < 8; i++)
				bytes[i] = (uint8_t)(uv >> (8 * i));
			fmt_value(ht ? &t : NULL, v->byte_size, bytes, nb, &wb);
		}
	} else if (!dwarf_attr(var, DW_AT_location, &a) ||
		   dwarf_getlocation_addr(&a, addr, &ops, &n, 1) <= 0) {
		v->state = PF_VAR_OPTIMIZED_OUT;
	} else {
		v->state = classify(pf, ht ? &t : NULL, v->byte_size, &a, ops, n, &wb, fbase);
		/* One expression for the whole function naming a stack slot
		 * (-O0): at the entry the prologue has not stored the value. */
		Dwarf_Addr entry = 0, past = 0;
		if (v->state == PF_VAR_LOCATION && v->param && dwarf_whatform(&a) == DW_FORM_exprloc &&
		    (ops[0].atom == DW_OP_fbreg || (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31)) &&
		    dwarf_tag(fn) == DW_TAG_subprogram && die_entry(fn, &entry) && entry == addr &&
		    prologue_end(fn, cu, entry, &past)) {
			v->before_prologue = true;
			v->valid_from = past - (s ? s->addr : 0);
		}
	}
	v->where = wb.s ? sb_take(&wb) : NULL;
	if ((flags & PF_RANGE) && !external)
		v->range = var_range(pf, var, fn, cu, s);
	if (!v->name || !v->type)
		return -ENOMEM;
	return 0;
}

/* Parameters in declaration order (an inlined copy may list them in any
 * order), ahead of the locals. */
static void order_params(struct pf_point *p, Dwarf_Die *inst)
{
	Dwarf_Attribute a;
	Dwarf_Die origin, c, *decl = inst;
	if (dwarf_attr(inst, DW_AT_abstract_origin, &a) && dwarf_formref_die(&a, &origin))
		decl = &origin;
	struct pf_var *v = malloc((size_t)p->nvars * sizeof(*v) + 1);
	bool *used = calloc((size_t)p->nvars + 1, sizeof(bool));
	int o = 0;
	if (!v || !used)
		goto out;
	if (dwarf_child(decl, &c) == 0)
		do {
			const char *nm = dwarf_tag(&c) == DW_TAG_formal_parameter ? die_name(&c) : NULL;
			for (int i = 0; nm && i < p->nvars; i++)
				if (!used[i] && p->vars[i].param && !strcmp(p->vars[i].name, nm)) {
					v[o++] = p->vars[i];
					used[i] = true;
				}
		} while (dwarf_siblingof(&c, &c) == 0);
	for (int i = 0; i < p->nvars; i++)
		if (!used[i] && p->vars[i].param)
			v[o++] = p->vars[i], used[i] = true;
	for (int i = 0; i < p->nvars; i++)
		if (!used[i])
			v[o++] = p->vars[i];
	if (o)	/* p->vars is NULL when there are none */
		memcpy(p->vars, v, (size_t)o * sizeof(*v));
out:
	free(v);
	free(used);
}

int collect_vars(struct probe_finder *pf, struct pf_point *p, Dwarf_Die *inst, Dwarf_Addr addr,
		 unsigned flags, const struct sym_entry *s)
{
	Dwarf_Die cu, *scopes = NULL;
	int ns, k = -1, ret = 0;
	if (!dwarf_diecu(inst, &cu, NULL, NULL))
		return -ENOENT;
	ns = dwarf_getscopes(&cu, addr, &scopes);
	Dwarf_Off ioff = dwarf_dieoffset(inst);
	for (int i = 0; i < ns; i++)
		if (dwarf_dieoffset(&scopes[i]) == ioff) {
			k = i;
			break;
		}
	/* the frame base is the physical function's: an inlined copy's
	 * containing subprogram, not its abstract origin */
	Dwarf_Die *phys = NULL;
	int nphys = dwarf_getscopes_die(inst, &phys);
	char *fbase = frame_base(pf, phys, nphys, addr);
	free(phys);
	if (k < 0) {
		/* addr not inside the instance (e.g. a return probe) */
		Dwarf_Die c;
		if (dwarf_child(inst, &c) == 0)
			do {
				if (is_var_tag(dwarf_tag(&c)) && (ret = add_var(pf, p, &c, addr, false, false, fbase, inst, &cu, flags, s)))
					goto out;
			} while (dwarf_siblingof(&c, &c) == 0);
	} else {
		/* the function's own scope first (parameters in declaration
		 * order), then nested blocks; an inner declaration shadows */
		for (int i = k; i >= 0; i--) {
			Dwarf_Die c;
			if (dwarf_child(&scopes[i], &c) != 0)
				continue;
			do {
				if (!is_var_tag(dwarf_tag(&c)) || dwarf_hasattr(&c, DW_AT_declaration))
					continue;
				drop_var(p, die_name(&c));
				if ((ret = add_var(pf, p, &c, addr, false, false, fbase, inst, &cu, flags, s)))
					goto out;
			} while (dwarf_siblingof(&c, &c) == 0);
		}
	}
	/* parameters and variables the abstract origin has but no concrete DIE
	 * describes: the compiler dropped them (e.g. IPA-SRA, constprop) */
	{
		Dwarf_Attribute a;
		Dwarf_Die origin, c;
		if (dwarf_attr(inst, DW_AT_abstract_origin, &a) && dwarf_formref_die(&a, &origin) &&
		    dwarf_child(&origin, &c) == 0)
			do {
				if (dwarf_tag(&c) == DW_TAG_formal_parameter && die_name(&c) &&
				    !have_var(p, die_name(&c)) &&
				    (ret = add_var(pf, p, &c, addr, false, true, fbase, inst, &cu, flags & ~PF_RANGE, s)))
					goto out;
			} while (dwarf_siblingof(&c, &c) == 0);
	}
	order_params(p, inst);
	if (flags & PF_EXTERNS) {
		Dwarf_Die c;
		if (dwarf_child(&cu, &c) == 0)
			do {
				if (dwarf_tag(&c) == DW_TAG_variable && !dwarf_hasattr(&c, DW_AT_declaration) &&
				    (ret = add_var(pf, p, &c, addr, true, false, fbase, inst, &cu, flags, s)))
					goto out;
			} while (dwarf_siblingof(&c, &c) == 0);
	}
out:
	free(fbase);
	free(scopes);
	return ret;
}
