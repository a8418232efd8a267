/* -F: the index of DWARF function instances (out-of-line and inlined),
 * ELF function symbols by name and address, the instances of a function
 * asked for by name, and "did you mean" when there is none. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "pprobe/probe_finder.h"
#include "probe_finder_internal.h"

/* ---- DWARF function index ---- */
static int add_fn(struct probe_finder *pf, const char *name, Dwarf_Off off, Dwarf_Addr entry, bool inl)
{
	if (!(pf->nfns & (pf->nfns + 1)) || pf->nfns == 0) {
		size_t cap = pf->nfns ? (pf->nfns + 1) * 2 : 1024;
		struct fn *f = realloc(pf->fns, cap * sizeof(*f));
		if (!f)
			return -ENOMEM;
		pf->fns = f;
	}
	pf->fns[pf->nfns++] = (struct fn){ name, off, entry, inl };
	return 0;
}

static void walk_fns(struct probe_finder *pf, Dwarf_Die *die)
{
	Dwarf_Die c;
	if (dwarf_child(die, &c) != 0)
		return;
	do {
		int tag = dwarf_tag(&c);
		switch (tag) {
		case DW_TAG_subprogram:
		case DW_TAG_inlined_subroutine: {
			Dwarf_Addr entry;
			const char *name;
			if (!dwarf_hasattr(&c, DW_AT_declaration) && die_entry(&c, &entry) &&
			    (name = die_name(&c)))
				add_fn(pf, name, dwarf_dieoffset(&c), entry, tag == DW_TAG_inlined_subroutine);
			walk_fns(pf, &c);
			break;
		}
		case DW_TAG_lexical_block:
		case DW_TAG_namespace:
		case DW_TAG_class_type:
		case DW_TAG_structure_type:
			walk_fns(pf, &c);
			break;
		default:
			break;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
}

static void load_fns(struct probe_finder *pf)
{
	if (pf->fns_loaded || !pf->dw)
		return;
	pf->fns_loaded = true;
	Dwarf_Die cu;
	for (Dwarf_Off o = 0; next_cu(pf->dw, &o, &cu);) {
		if (dwarf_tag(&cu) == DW_TAG_compile_unit || dwarf_tag(&cu) == DW_TAG_partial_unit)
			walk_fns(pf, &cu);
	}
}

/* The ELF function symbol containing addr: prefer the name `want`, then the
 * DWARF name, then a global one. */
const struct sym_entry *sym_at(struct probe_finder *pf, uint64_t addr, const char *want,
			       const char *dwname)
{
	const struct sym_entry *best = NULL;
	int bestscore = -1;
	for (size_t i = 0; i < pf->nsyms; i++) {
		const struct sym_entry *s = &pf->syms[i];
		if (s->addr > addr)
			break;
		if (!s->func || addr >= s->addr + (s->size ? s->size : 1))
			continue;
		int score = (s->addr == addr ? 8 : 0) + (want && !strcmp(s->name, want) ? 4 : 0) +
			    (dwname && !strcmp(s->name, dwname) ? 2 : 0) + (s->global ? 1 : 0);
		/* prefer the innermost (latest-starting) symbol */
		if (!best || s->addr > best->addr || score > bestscore) {
			best = s;
			bestscore = score;
		}
	}
	return best;
}

const struct sym_entry *sym_named(struct probe_finder *pf, const char *name)
{
	for (size_t i = 0; i < pf->nsyms; i++)
		if (pf->syms[i].func && !strcmp(pf->syms[i].name, name))
			return &pf->syms[i];
	return NULL;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int probe_finder__functions(struct probe_finder *pf, const char *filter, char ***names)
{
	if (!filter)
		filter = PROBE_FILTER_DEFAULT;
	if (probe_filter__match(filter, "x") < 0)
		return pf_fail(pf, -EINVAL, "bad filter '%s': globs joined by & and |, ! negates, ( ) groups", filter);
	load_fns(pf);
	size_t n = 0, cap = pf->nfns + pf->nsyms + 1;
	char **v = calloc(cap, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < pf->nfns; i++)
		if (probe_filter__match(filter, pf->fns[i].name) == 1)
			v[n++] = (char *)pf->fns[i].name;
	for (size_t i = 0; i < pf->nsyms; i++)
		if (pf->syms[i].func && probe_filter__match(filter, pf->syms[i].name) == 1)
			v[n++] = (char *)pf->syms[i].name;
	qsort(v, n, sizeof(*v), str_cmp);
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		if (o && !strcmp(v[o - 1], v[i]))
			continue;
		v[o++] = v[i];
	}
	for (size_t i = 0; i < o; i++)
		if (!(v[i] = strdup(v[i]))) {
			probe_finder__free_names(v, (int)i);
			return -ENOMEM;
		}
	*names = v;
	return (int)o;
}

void probe_finder__free_names(char **names, int n)
{
	for (int i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
}

/* ---- suggestions ---- */
static void suggest(struct probe_finder *pf, const char *name, struct sbuf *b)
{
	char **names;
	int n = probe_finder__functions(pf, "*", &names);
	if (n <= 0)
		return;
	const char *best[6];
	int bd[6], nb = 0;
	int maxd = strlen(name) > 8 ? 2 : 1;
	for (int i = 0; i < n; i++) {
		if (!strcmp(name, names[i]))
			continue;
		int d = edit_distance(name, names[i], maxd);
		if (d > maxd && !(strlen(name) >= 4 && strstr(names[i], name) &&
				  strlen(names[i]) <= strlen(name) + 12))
			continue;
		if (d > maxd)
			d = maxd + 1;
		int k = nb < 6 ? nb++ : 5;
		if (k == 5 && bd[5] <= d)
			continue;
		while (k > 0 && bd[k - 1] > d) {
			best[k] = best[k - 1];
			bd[k] = bd[k - 1];
			k--;
		}
		best[k] = names[i];
		bd[k] = d;
	}
	if (nb) {
		pf__sb_add(b, "; did you mean:");
		for (int i = 0; i < nb; i++)
			pf__sb_add(b, "%s %s", i ? "," : "", best[i]);
	}
	probe_finder__free_names(names, n);
}

/* ---- instances of a function ---- */
bool src_match(const char *path, const char *want)
{
	if (!want || !*want)
		return true;
	if (!path)
		return false;
	size_t lp = strlen(path), lw = strlen(want);
	if (lp < lw)
		return false;
	return !strcmp(path + lp - lw, want) && (lp == lw || path[lp - lw - 1] == '/');
}

/* Fills idx[] with indexes into pf->fns for name; returns the count. */
int find_instances(struct probe_finder *pf, const char *name, const char *src, bool no_inlines,
		   size_t **idx)
{
	load_fns(pf);
	size_t *v = calloc(pf->nfns + 1, sizeof(*v));
	int n = 0;
	if (!v)
		return -ENOMEM;
	char base[512];
	snprintf(base, sizeof(base), "%s", name);
	char *dot = strchr(base, '.');
	if (dot)
		*dot = '\0';
	const struct sym_entry *alias = sym_named(pf, name);
	for (size_t i = 0; i < pf->nfns; i++) {
		struct fn *f = &pf->fns[i];
		if (no_inlines && f->inlined)
			continue;
		bool match = !strcmp(f->name, name);
		if (!match && dot && !strcmp(f->name, base) && !f->inlined) {
			const struct sym_entry *s = sym_at(pf, f->entry, name, NULL);
			match = s && s->addr == f->entry && !strcmp(s->name, name);
		}
		if (!match && alias && !f->inlined && f->entry == alias->addr)
			match = true;
		if (!match)
			continue;
		if (src[0]) {
			Dwarf_Die d;
			if (!dwarf_offdie(pf->dw, f->off, &d) || !src_match(decl_file(&d), src))
				continue;
		}
		v[n++] = i;
	}
	*idx = v;
	return n;
}

/* DWARF 5's DW_AT_dwo_name, or GNU's DWARF 4 form */
bool split_dwarf(struct probe_finder *pf)
{
	Dwarf_Die cu;
	for (Dwarf_Off o = 0; pf->dw && next_cu(pf->dw, &o, &cu);)
		if (dwarf_hasattr(&cu, DW_AT_dwo_name) || dwarf_hasattr(&cu, DW_AT_GNU_dwo_name))
			return true;
	return false;
}

int no_function(struct probe_finder *pf, const char *name, const char *src)
{
	load_fns(pf);
	for (size_t i = 0; i < pf->nfns; i++)
		if (pf->fns[i].inlined && !strcmp(pf->fns[i].name, name))
			return pf_fail(pf, -ENOENT, "%s in %s has only inlined copies (--no-inlines leaves them out)",
				       name, pf->path);
	struct sbuf b = { 0 };
	pf__sb_add(&b, "no function %s%s%s in %s", name, src[0] ? "@" : "", src, pf->path);
	if (sym_named(pf, name) && split_dwarf(pf))
		pf__sb_add(&b, ": its symbol is there, but its DWARF is split (-gsplit-dwarf) and pprobe reads "
			   "only the skeleton units in the binary, not the .dwo or .dwp files");
	else
		suggest(pf, name, &b);
	char *m = sb_take(&b);
	pf_fail(pf, -ENOENT, "%s", m);
	free(m);
	return -ENOENT;
}
