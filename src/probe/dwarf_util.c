/* DWARF helpers shared by the probe room: names, entries, declaration
 * files, compilation units, types as -V prints them, prologue ends. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include "pprobe/probe_finder.h"
#include "probe_finder_internal.h"

/* ---- names, entries, files, units ---- */
bool die_entry(Dwarf_Die *d, Dwarf_Addr *entry)
{
	if (dwarf_entrypc(d, entry) == 0)
		return true;
	Dwarf_Addr base, start, end;
	if (dwarf_ranges(d, 0, &base, &start, &end) > 0) {
		*entry = start;
		return true;
	}
	return false;
}

/* dwarf_decl_file(), also for DWARF 5's file 0 (the CU's primary file, as
 * clang writes it), which elfutils before 0.189 reports as "no file". */
const char *decl_file(Dwarf_Die *d)
{
	const char *f = dwarf_decl_file(d);
	Dwarf_Attribute a;
	Dwarf_Word idx;
	Dwarf_Die cu;
	Dwarf_Files *files;
	size_t nfiles;
	if (f || dwarf_formudata(dwarf_attr_integrate(d, DW_AT_decl_file, &a), &idx) || idx != 0 ||
	    !dwarf_diecu(d, &cu, NULL, NULL) || dwarf_getsrcfiles(&cu, &files, &nfiles) || !nfiles)
		return f;
	return dwarf_filesrc(files, 0, NULL, NULL);
}

const char *die_name(Dwarf_Die *d)
{
	Dwarf_Attribute a;
	if (!dwarf_attr_integrate(d, DW_AT_name, &a))
		return NULL;
	return dwarf_formstring(&a);
}

/* Iterates the compilation units: for (Dwarf_Off o = 0; next_cu(dw, &o, &cu);) */
bool next_cu(Dwarf *dw, Dwarf_Off *off, Dwarf_Die *cu)
{
	for (;;) {
		Dwarf_Off cur = *off, next;
		size_t hs;
		if (cur == (Dwarf_Off)-1 ||
		    dwarf_next_unit(dw, cur, &next, &hs, NULL, NULL, NULL, NULL, NULL, NULL) != 0)
			return false;
		*off = next;
		if (dwarf_offdie(dw, cur + hs, cu))
			return true;
	}
}

/* ---- types ---- */
bool die_type(Dwarf_Die *d, Dwarf_Die *t)
{
	Dwarf_Attribute a;
	return dwarf_attr_integrate(d, DW_AT_type, &a) && dwarf_formref_die(&a, t);
}

void type_name(Dwarf_Die *t, struct sbuf *b, int depth)
{
	Dwarf_Die in;
	bool has = die_type(t, &in);
	const char *name = die_name(t);
	if (depth > 16) {
		pf__sb_add(b, "...");
		return;
	}
	switch (dwarf_tag(t)) {
	case DW_TAG_base_type:
	case DW_TAG_typedef:
	case DW_TAG_unspecified_type:
		pf__sb_add(b, "%s", name ? name : "?");
		break;
	case DW_TAG_structure_type:
		pf__sb_add(b, "struct %s", name ? name : "{...}");
		break;
	case DW_TAG_union_type:
		pf__sb_add(b, "union %s", name ? name : "{...}");
		break;
	case DW_TAG_enumeration_type:
		pf__sb_add(b, "enum %s", name ? name : "{...}");
		break;
	case DW_TAG_class_type:
		pf__sb_add(b, "class %s", name ? name : "{...}");
		break;
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type: {
		const char *suf = dwarf_tag(t) == DW_TAG_pointer_type ? "*" :
				  dwarf_tag(t) == DW_TAG_reference_type ? "&" : "&&";
		if (!has)
			pf__sb_add(b, "void%s", suf);
		else if (dwarf_tag(&in) == DW_TAG_subroutine_type) {
			Dwarf_Die rt;
			if (die_type(&in, &rt))
				type_name(&rt, b, depth + 1);
			else
				pf__sb_add(b, "void");
			pf__sb_add(b, " (%s)()", suf);
		} else {
			type_name(&in, b, depth + 1);
			pf__sb_add(b, "%s", suf);
		}
		break;
	}
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_atomic_type: {
		const char *q = dwarf_tag(t) == DW_TAG_const_type ? "const" :
				dwarf_tag(t) == DW_TAG_volatile_type ? "volatile" : "_Atomic";
		if (has && (dwarf_tag(&in) == DW_TAG_pointer_type)) {
			type_name(&in, b, depth + 1);
			pf__sb_add(b, " %s", q);
		} else {
			struct sbuf ib = { 0 };
			if (has)
				type_name(&in, &ib, depth + 1);
			else
				pf__sb_add(&ib, "void");
			char *inner = sb_take(&ib);
			size_t ql = strlen(q);
			/* const over an array of const: say it once */
			if (!(inner && !strncmp(inner, q, ql) && inner[ql] == ' '))
				pf__sb_add(b, "%s ", q);
			pf__sb_add(b, "%s", inner ? inner : "?");
			free(inner);
		}
		break;
	}
	case DW_TAG_restrict_type:
		if (has)
			type_name(&in, b, depth + 1);
		else
			pf__sb_add(b, "void");
		break;
	case DW_TAG_array_type: {
		if (has)
			type_name(&in, b, depth + 1);
		Dwarf_Die c;
		if (dwarf_child(t, &c) == 0) {
			do {
				if (dwarf_tag(&c) != DW_TAG_subrange_type)
					continue;
				Dwarf_Attribute a;
				Dwarf_Word v;
				if (dwarf_attr(&c, DW_AT_count, &a) && !dwarf_formudata(&a, &v))
					pf__sb_add(b, "[%" PRIu64 "]", (uint64_t)v);
				else if (dwarf_attr(&c, DW_AT_upper_bound, &a) && !dwarf_formudata(&a, &v))
					pf__sb_add(b, "[%" PRIu64 "]", (uint64_t)v + 1);
				else
					pf__sb_add(b, "[]");
			} while (dwarf_siblingof(&c, &c) == 0);
		}
		break;
	}
	case DW_TAG_subroutine_type:
		pf__sb_add(b, "(function)");
		break;
	default:
		pf__sb_add(b, "%s", name ? name : "(unknown type)");
	}
}

char *pf__type_name(Dwarf_Die *type)
{
	struct sbuf b = { 0 };
	type_name(type, &b, 0);
	return sb_take(&b);
}

int64_t type_size(struct probe_finder *pf, Dwarf_Die *t)
{
	Dwarf_Die p;
	if (dwarf_peel_type(t, &p))
		return -1;
	int tag = dwarf_tag(&p);
	if (tag == DW_TAG_pointer_type || tag == DW_TAG_reference_type || tag == DW_TAG_rvalue_reference_type)
		return pf->ehdr.e_ident[EI_CLASS] == ELFCLASS64 ? 8 : 4;
	Dwarf_Word sz;
	if (dwarf_aggregate_size(&p, &sz))
		return -1;
	return (int64_t)sz;
}

bool type_signed(Dwarf_Die *t)
{
	Dwarf_Die p;
	Dwarf_Attribute a;
	Dwarf_Word enc;
	if (dwarf_peel_type(t, &p) || dwarf_tag(&p) != DW_TAG_base_type)
		return dwarf_tag(&p) == DW_TAG_enumeration_type;
	if (!dwarf_attr(&p, DW_AT_encoding, &a) || dwarf_formudata(&a, &enc))
		return false;
	return enc == DW_ATE_signed || enc == DW_ATE_signed_char;
}

bool type_float(Dwarf_Die *t)
{
	Dwarf_Die p;
	Dwarf_Attribute a;
	Dwarf_Word enc;
	return !dwarf_peel_type(t, &p) && dwarf_tag(&p) == DW_TAG_base_type &&
	       dwarf_attr(&p, DW_AT_encoding, &a) && !dwarf_formudata(&a, &enc) && enc == DW_ATE_float;
}

/* The first line-table statement of fn after its entry: where GCC's -O0
 * prologue ends (what gdb's breakpoints skip to). */
bool prologue_end(Dwarf_Die *fn, Dwarf_Die *cu, Dwarf_Addr entry, Dwarf_Addr *out)
{
	Dwarf_Lines *lines;
	size_t n;
	bool found = false;
	if (dwarf_getsrclines(cu, &lines, &n))
		return false;
	for (size_t i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr a;
		bool stmt;
		if (dwarf_lineaddr(l, &a) || a <= entry || dwarf_linebeginstatement(l, &stmt) || !stmt ||
		    dwarf_haspc(fn, a) <= 0)
			continue;
		if (!found || a < *out)
			*out = a;
		found = true;
	}
	return found;
}

bool is_fn_tag(int tag)
{
	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine;
}

bool is_var_tag(int tag)
{
	return tag == DW_TAG_formal_parameter || tag == DW_TAG_variable;
}
