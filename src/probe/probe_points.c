/* Probe points: a spec (FUNC[@SRC][:RLN|+OFFS|%return|;PTN], SRC:ALN,
 * SRC;PTN, 0xADDR) resolved to every address it names, with the symbol,
 * file offset, source line and inline context of each. */
#include <ctype.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fnmatch.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pprobe/probe_finder.h"
#include "probe_finder_internal.h"

/* ---- spec parsing ---- */
static bool looks_like_file(const char *s)
{
	if (strchr(s, '/'))
		return true;
	const char *dot = strrchr(s, '.');
	if (!dot)
		return false;
	static const char *ext[] = { ".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".S", ".s",
				     ".y", ".l", ".rs", ".go", ".inc", ".def" };
	for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++)
		if (!strcmp(dot, ext[i]))
			return true;
	return false;
}

int parse_spec(struct probe_finder *pf, const char *s, struct spec *sp, bool range_ok)
{
	memset(sp, 0, sizeof(*sp));
	if (!strncmp(s, "0x", 2)) {
		char *end;
		sp->raw = true;
		sp->raw_addr = strtoull(s, &end, 16);
		if (*end)
			return pf_fail(pf, -EINVAL, "bad address '%s'", s);
		return 0;
	}
	size_t n = strcspn(s, ":+%;");
	if (n == 0 || n >= sizeof(sp->name))
		return pf_fail(pf, -EINVAL, "bad probe point '%s': expected FUNC[@SRC][:RLN|+OFFS|%%return|;PTN] or SRC:LINE", s);
	memcpy(sp->name, s, n);
	char *at = strchr(sp->name, '@');
	if (at) {
		*at = '\0';
		snprintf(sp->src, sizeof(sp->src), "%s", at + 1);
	} else {
		sp->file_form = looks_like_file(sp->name);
	}
	const char *p = s + n;
	char *end;
	if (*p == ':') {
		sp->has_line = true;
		sp->line = (int)strtol(p + 1, &end, 10);
		if (end == p + 1)
			return pf_fail(pf, -EINVAL, "bad line number in '%s'", s);
		p = end;
		if (range_ok && (*p == '+' || *p == '-')) {
			char c = *p;
			long v = strtol(p + 1, &end, 10);
			if (end == p + 1 || v < 0)
				return pf_fail(pf, -EINVAL, "bad line range in '%s'", s);
			sp->line_end = c == '+' ? sp->line + (int)v : (int)v;
			if (sp->line_end < sp->line)
				return pf_fail(pf, -EINVAL, "line range in '%s' ends before it starts", s);
			p = end;
		}
	} else if (*p == '+' && !range_ok) {
		sp->has_off = true;
		sp->off = strtoull(p + 1, &end, 0);
		if (end == p + 1)
			return pf_fail(pf, -EINVAL, "bad offset in '%s'", s);
		p = end;
	} else if (*p == '%' && !range_ok) {
		if (strcmp(p, "%return"))
			return pf_fail(pf, -EINVAL, "bad probe point '%s': only %%return may follow '%%'", s);
		sp->ret = true;
		p += strlen(p);
	} else if (*p == ';' && !range_ok) {
		snprintf(sp->lazy, sizeof(sp->lazy), "%s", p + 1);
		p += strlen(p);
	}
	if (*p)
		return pf_fail(pf, -EINVAL, "bad probe point '%s': unexpected '%s'", s, p);
	if (sp->file_form && !sp->has_line && !range_ok && !sp->lazy[0])
		return pf_fail(pf, -EINVAL, "'%s' names a source file: give a line (%s:LINE)", s, s);
	return 0;
}

/* The PT_LOAD whose file bytes hold x: a file offset (by_off), else an
 * address. 0 or -ENOENT. */
static int load_holding(struct probe_finder *pf, uint64_t x, bool by_off, GElf_Phdr *ph)
{
	size_t n;
	if (!pf->elf || elf_getphdrnum(pf->elf, &n))
		return -ENOENT;
	for (size_t i = 0; i < n; i++) {
		if (!gelf_getphdr(pf->elf, (int)i, ph) || ph->p_type != PT_LOAD)
			continue;
		uint64_t lo = by_off ? ph->p_offset : ph->p_vaddr;
		if (x >= lo && x - lo < ph->p_filesz)
			return 0;
	}
	return -ENOENT;
}

int probe_finder__file_offset(struct probe_finder *pf, uint64_t addr, uint64_t *off)
{
	GElf_Phdr ph;
	if (load_holding(pf, addr, false, &ph))
		return -ENOENT;
	*off = addr - ph.p_vaddr + ph.p_offset;
	return 0;
}

int probe_finder__vaddr(struct probe_finder *pf, uint64_t off, uint64_t *addr)
{
	GElf_Phdr ph;
	if (load_holding(pf, off, true, &ph))
		return -ENOENT;
	*addr = off - ph.p_offset + ph.p_vaddr;
	return 0;
}

/* ---- probe points ---- */
static void point_free(struct pf_point *p)
{
	for (int i = 0; i < p->nvars; i++)
		var_free(&p->vars[i]);
	free(p->vars);
	free(p->function);
	free(p->symbol);
	free(p->file);
	free(p->call_file);
	free(p->caller);
}

void pf_points__delete(struct pf_points *p)
{
	if (!p)
		return;
	for (int i = 0; i < p->n; i++)
		point_free(&p->pts[i]);
	free(p->pts);
	free(p);
}

static const char *call_file(Dwarf_Die *inst)
{
	Dwarf_Attribute a;
	Dwarf_Word idx;
	Dwarf_Die cu;
	Dwarf_Files *files;
	size_t nf;
	if (!dwarf_attr(inst, DW_AT_call_file, &a) || dwarf_formudata(&a, &idx) ||
	    !dwarf_diecu(inst, &cu, NULL, NULL) || dwarf_getsrcfiles(&cu, &files, &nf) || idx >= nf)
		return NULL;
	return dwarf_filesrc(files, idx, NULL, NULL);
}

static int add_point_line(struct probe_finder *pf, struct pf_points *pts, Dwarf_Die *inst,
			  const char *fname, const char *want, Dwarf_Addr addr, bool ret, unsigned flags,
			  const char *file, int line);

static int add_point(struct probe_finder *pf, struct pf_points *pts, Dwarf_Die *inst,
		     const char *fname, const char *want, Dwarf_Addr addr, bool ret, unsigned flags)
{
	return add_point_line(pf, pts, inst, fname, want, addr, ret, flags, NULL, 0);
}

/* line > 0: the point was asked for by that line of the file the line
 * table names at addr (several rows may share an address). */
static int add_point_line(struct probe_finder *pf, struct pf_points *pts, Dwarf_Die *inst,
			  const char *fname, const char *want, Dwarf_Addr addr, bool ret, unsigned flags,
			  const char *file, int line)
{
	for (int i = 0; i < pts->n; i++)
		if (pts->pts[i].addr == addr && pts->pts[i].retprobe == ret)
			return 0;
	struct pf_point *v = realloc(pts->pts, (size_t)(pts->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	pts->pts = v;
	struct pf_point *p = &v[pts->n++];
	memset(p, 0, sizeof(*p));
	p->addr = addr;
	p->retprobe = ret;
	p->function = strdup(fname ? fname : "?");
	const struct sym_entry *s = sym_at(pf, addr, want, fname);
	if (s) {
		p->symbol = strdup(s->name);
		p->sym_offset = addr - s->addr;
	}
	if (!pf->kernel)
		probe_finder__file_offset(pf, addr, &p->file_offset);
	Dwarf_Die cu;
	if (inst && dwarf_diecu(inst, &cu, NULL, NULL)) {
		Dwarf_Line *l = dwarf_getsrc_die(&cu, addr);
		if (l) {
			const char *f = dwarf_linesrc(l, NULL, NULL);
			p->file = f ? strdup(f) : NULL;
			dwarf_lineno(l, &p->line);
		}
		if (line > 0 && file) {
			free(p->file);
			p->file = strdup(file);
			p->line = line;
		}
		if (dwarf_tag(inst) == DW_TAG_inlined_subroutine) {
			Dwarf_Attribute a;
			Dwarf_Word w;
			p->inlined = true;
			const char *cf = call_file(inst);
			p->call_file = cf ? strdup(cf) : NULL;
			if (dwarf_attr(inst, DW_AT_call_line, &a) && !dwarf_formudata(&a, &w))
				p->call_line = (int)w;
			Dwarf_Die *scopes = NULL;
			int ns = dwarf_getscopes_die(inst, &scopes);
			for (int i = 1; i < ns; i++) {
				int tag = dwarf_tag(&scopes[i]);
				if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
					const char *cn = die_name(&scopes[i]);
					p->caller = cn ? strdup(cn) : NULL;
					break;
				}
			}
			free(scopes);
		}
		if (flags & PF_VARS)
			return collect_vars(pf, p, inst, addr, flags, s);
	}
	return 0;
}

static int addr_cmp(const void *a, const void *b)
{
	const struct pf_point *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static bool lazy_match(const char *pat, const char *line)
{
	char a[1024], b[4096];
	size_t o = 0;
	for (const char *p = pat; *p && o + 1 < sizeof(a); p++)
		if (!isspace((unsigned char)*p))
			a[o++] = *p;
	a[o] = '\0';
	o = 0;
	for (const char *p = line; *p && o + 1 < sizeof(b); p++)
		if (!isspace((unsigned char)*p))
			b[o++] = *p;
	b[o] = '\0';
	return fnmatch(a, b, 0) == 0;
}

/* The innermost function instance (subprogram or inlined) at addr. */
static bool instance_at(struct probe_finder *pf, Dwarf_Die *cu, Dwarf_Addr addr, Dwarf_Die *out)
{
	Dwarf_Die *scopes = NULL;
	int ns = dwarf_getscopes(cu, addr, &scopes);
	bool ok = false;
	for (int i = 0; i < ns; i++) {
		int tag = dwarf_tag(&scopes[i]);
		if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
			*out = scopes[i];
			ok = true;
			break;
		}
	}
	free(scopes);
	return ok;
}

static int find_elf_only(struct probe_finder *pf, struct spec *sp, struct pf_points *pts, unsigned flags)
{
	if (sp->has_line || sp->lazy[0] || sp->file_form || (flags & PF_VARS))
		return -ENOENT;
	const struct sym_entry *s = sym_named(pf, sp->name);
	if (!s)
		return no_function(pf, sp->name, "");
	uint64_t addr = s->addr + (sp->has_off ? sp->off : 0);
	if (sp->has_off && sp->off && probe_finder__check_insn(pf, addr))
		return -EINVAL;
	return add_point(pf, pts, NULL, s->name, s->name, addr, sp->ret, flags);
}

/* SRC:ALN or SRC;PTN: the instance around every address of the line (or
 * of each line matching the pattern), in any compilation unit. */
static int find_file_lines(struct probe_finder *pf, const char *specstr, const struct spec *sp,
			   struct pf_points *pts, unsigned flags)
{
	struct row *rows = NULL;
	int nrows = 0, ret = 0;
	struct source src = { 0 };
	Dwarf_Die cu;
	const char *file = NULL;

	for (Dwarf_Off o = 0; next_cu(pf->dw, &o, &cu);) {
		int before = nrows;
		if ((ret = collect_rows(&cu, sp->name, true, NULL, &rows, &nrows, &file)))
			goto out;
		if (sp->lazy[0] && nrows > before && !src.n && file && load_abs(pf, &cu, file, &src)) {
			ret = pf_fail(pf, -ENOENT, "'%s': a ;PATTERN needs the source of %s, not found%s", specstr,
				      file, pf->source_dir ? " under --source" : " (use --source DIR)");
			goto out;
		}
		for (int i = before; i < nrows; i++) {
			bool want = sp->lazy[0] ? (rows[i].line <= src.n && lazy_match(sp->lazy, src.lines[rows[i].line - 1]))
						: rows[i].line == sp->line;
			Dwarf_Die inst;
			if (!want || !instance_at(pf, &cu, rows[i].addr, &inst))
				continue;
			if ((flags & PF_NO_INLINES) && dwarf_tag(&inst) == DW_TAG_inlined_subroutine)
				continue;
			if ((ret = add_point_line(pf, pts, &inst, die_name(&inst), NULL, rows[i].addr, false, flags,
						  file, rows[i].line)))
				goto out;
		}
	}
	if (!pts->n)
		ret = pf_fail(pf, -ENOENT, "no code for %s in %s%s", specstr, pf->path,
			      file ? " (the line has no is_stmt address: see -L for probe-able lines)" : "");
out:
	source_free(&src);
	free(rows);
	return ret;
}

/* FUNC:RLN or FUNC;PTN in one instance d (of CU cu) of the function f:
 * every address of the line, or of the lines matching the pattern (src
 * is read on first use and kept for the other instances). */
static int find_fn_lines(struct probe_finder *pf, const char *specstr, const struct spec *sp,
			 const struct fn *f, Dwarf_Die *d, Dwarf_Die *cu, struct source *src,
			 struct pf_points *pts, unsigned flags)
{
	struct row *rows = NULL;
	int nrows = 0, ret = 0, decl;
	const char *file = decl_file(d);

	if (!file || dwarf_decl_line(d, &decl))
		return 0;
	if ((ret = collect_rows(cu, file, false, d, &rows, &nrows, NULL)))
		goto out;
	if (sp->lazy[0] && !src->n && load_abs(pf, cu, file, src)) {
		ret = pf_fail(pf, -ENOENT, "'%s': a ;PATTERN needs the source %s, not found%s", specstr,
			      file, pf->source_dir ? " under --source" : " (use --source DIR)");
		goto out;
	}
	for (int r = 0; r < nrows; r++) {
		bool want = sp->lazy[0] ? (rows[r].line >= decl && rows[r].line <= src->n &&
					   lazy_match(sp->lazy, src->lines[rows[r].line - 1]))
					: rows[r].line == decl + sp->line;
		if (!want)
			continue;
		/* the innermost instance at the address must be this one or inside it */
		if ((ret = add_point_line(pf, pts, d, f->name, sp->name, rows[r].addr, false, flags,
					  file, rows[r].line)))
			goto out;
	}
out:
	free(rows);
	return ret;
}

int probe_finder__find(struct probe_finder *pf, const char *specstr, unsigned flags, struct pf_points **out)
{
	struct spec sp;
	struct pf_points *pts = calloc(1, sizeof(*pts));
	size_t *idx = NULL;
	int ret;
	struct source src = { 0 };

	if (!pts)
		return -ENOMEM;
	if ((ret = parse_spec(pf, specstr, &sp, false)))
		goto err;
	if (sp.raw) {
		if ((ret = probe_finder__check_insn(pf, sp.raw_addr)))
			goto err;
		Dwarf_Die cu, inst, *instp = NULL;
		if (pf->dw && dwarf_addrdie(pf->dw, sp.raw_addr, &cu) && instance_at(pf, &cu, sp.raw_addr, &inst))
			instp = &inst;
		const struct sym_entry *s = sym_at(pf, sp.raw_addr, NULL, NULL);
		ret = add_point(pf, pts, instp, instp ? die_name(instp) : s ? s->name : NULL, NULL,
				sp.raw_addr, false, flags);
		if (ret)
			goto err;
		goto done;
	}
	if (!pf->dw) {
		char saved[sizeof(pf->err)];
		memcpy(saved, pf->err, sizeof(saved));
		ret = find_elf_only(pf, &sp, pts, flags);
		if (ret == -ENOENT && !strncmp(pf->err, "no function", 11))
			goto err;
		if (ret) {
			memcpy(pf->err, saved, sizeof(saved));
			goto err;
		}
		goto done;
	}
	if (sp.file_form) {
		if ((ret = find_file_lines(pf, specstr, &sp, pts, flags)))
			goto err;
		goto done;
	}
	int n = find_instances(pf, sp.name, sp.src, flags & PF_NO_INLINES, &idx);
	if (n < 0) {
		ret = n;
		goto err;
	}
	if (n == 0) {
		/* an ELF-only function (asm, no DWARF) still takes +OFF and %return;
		 * -V of one whose DWARF is split is refused: it has variables,
		 * in a .dwo we do not read, not none */
		if (!sym_named(pf, sp.name) || ((flags & PF_VARS) && split_dwarf(pf)) ||
		    (ret = find_elf_only(pf, &sp, pts, flags & ~PF_VARS))) {
			ret = no_function(pf, sp.name, sp.src);
			goto err;
		}
		goto done;
	}
	int skipped_inline = 0;
	for (int i = 0; i < n; i++) {
		struct fn *f = &pf->fns[idx[i]];
		Dwarf_Die d, cu;
		if (!dwarf_offdie(pf->dw, f->off, &d) || !dwarf_diecu(&d, &cu, NULL, NULL))
			continue;
		if (sp.ret || sp.has_off) {
			if (f->inlined) {
				skipped_inline++;
				continue;
			}
			Dwarf_Addr a = f->entry + (sp.has_off ? sp.off : 0);
			if (sp.has_off) {
				if (dwarf_haspc(&d, a) <= 0) {
					ret = pf_fail(pf, -EINVAL, "%s is past the end of %s", specstr, sp.name);
					goto err;
				}
				if ((ret = probe_finder__check_insn(pf, a)))
					goto err;
			}
			if ((ret = add_point(pf, pts, &d, f->name, sp.name, a, sp.ret, flags)))
				goto err;
		} else if (sp.has_line || sp.lazy[0]) {
			if ((ret = find_fn_lines(pf, specstr, &sp, f, &d, &cu, &src, pts, flags)))
				goto err;
		} else {
			if ((ret = add_point(pf, pts, &d, f->name, sp.name, f->entry, false, flags)))
				goto err;
		}
	}
	if (!pts->n) {
		if (skipped_inline)
			ret = pf_fail(pf, -EINVAL, "%s: %s is only inlined (%d copies); an inlined copy has no "
				      "%s: probe a line (%s:N) instead", specstr, sp.name, skipped_inline,
				      sp.ret ? "return" : "offsets", sp.name);
		else
			ret = pf_fail(pf, -ENOENT, "%s: no code at that line of %s (see -L %s for the probe-able lines)",
				      specstr, sp.name, sp.name);
		goto err;
	}
done:
	if (pts->n > 1)
		qsort(pts->pts, (size_t)pts->n, sizeof(*pts->pts), addr_cmp);
	source_free(&src);
	free(idx);
	*out = pts;
	return 0;
err:
	source_free(&src);
	free(idx);
	pf_points__delete(pts);
	return ret;
}
