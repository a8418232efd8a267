/* -L: source lines of a function or file with the probe-able ones (the
 * line table's is_stmt rows), source files, and the disassembly under each
 * line (--asm); instruction-start checks for probe offsets. */
#define _GNU_SOURCE
#include <capstone/capstone.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pprobe/probe_finder.h"
#include "probe_finder_internal.h"

static int need_dwarf(struct probe_finder *pf)
{
	if (pf->dw)
		return 0;
	return -ENOENT;	/* pf->err already says why */
}

/* ---- source files ---- */
void source_free(struct source *s)
{
	free(s->path);
	free(s->buf);
	free(s->lines);
	memset(s, 0, sizeof(*s));
}

static int source_load_one(const char *path, struct source *s)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return -errno;
	size_t cap = 0, len = 0;
	char tmp[65536];
	size_t r;
	while ((r = fread(tmp, 1, sizeof(tmp), f)) > 0) {
		if (len + r + 1 > cap) {
			cap = (len + r + 1) * 2;
			char *nb = realloc(s->buf, cap);
			if (!nb) {
				fclose(f);
				return -ENOMEM;
			}
			s->buf = nb;
		}
		memcpy(s->buf + len, tmp, r);
		len += r;
	}
	fclose(f);
	if (!s->buf && !(s->buf = calloc(1, 1)))
		return -ENOMEM;
	s->buf[len] = '\0';
	int cnt = 1;
	for (size_t i = 0; i < len; i++)
		cnt += s->buf[i] == '\n';
	s->lines = calloc((size_t)cnt + 1, sizeof(char *));
	if (!s->lines)
		return -ENOMEM;
	char *p = s->buf;
	s->n = 0;
	while (*p) {
		s->lines[s->n++] = p;
		char *nl = strchr(p, '\n');
		if (!nl)
			break;
		*nl = '\0';
		p = nl + 1;
	}
	s->path = strdup(path);
	return 0;
}

/* A relative source path of the line table, made absolute with the CU's
 * DW_AT_comp_dir ("./malloc/malloc.c" -> "/build/glibc-X/malloc/malloc.c"). */
static char *abs_src(Dwarf_Die *cu, const char *path)
{
	Dwarf_Attribute a;
	const char *dir;
	char *out;
	if (!path)
		return NULL;
	/* libdw usually joined them already; a relative comp_dir (a build
	 * with -fdebug-prefix-map=DIR=.) cannot be made absolute */
	if (path[0] == '/' || !cu || !dwarf_attr(cu, DW_AT_comp_dir, &a) || !(dir = dwarf_formstring(&a)) ||
	    dir[0] != '/' || !strncmp(path, dir, strlen(dir)))
		return strdup(path);
	while (path[0] == '.' && path[1] == '/')
		path += 2;
	if (asprintf(&out, "%s/%s", dir, path) < 0)
		return NULL;
	return out;
}

static int source_load(struct probe_finder *pf, const char *path, struct source *s)
{
	char cand[PATH_MAX * 2];
	memset(s, 0, sizeof(*s));
	if (!pf->source_dir)
		return source_load_one(path, s);
	/* --source DIR: DIR/PATH, then DIR/ with leading components stripped */
	for (const char *p = path; p; ) {
		while (*p == '/')
			p++;
		snprintf(cand, sizeof(cand), "%s/%s", pf->source_dir, p);
		if (!source_load_one(cand, s))
			return 0;
		source_free(s);
		p = strchr(p, '/');
	}
	return -ENOENT;
}

int load_abs(struct probe_finder *pf, Dwarf_Die *cu, const char *file, struct source *s)
{
	char *path = abs_src(cu, file);
	int ret = path ? source_load(pf, path, s) : -ENOMEM;
	free(path);
	return ret;
}

/* ---- disassembly ---- */
const uint8_t *pf__code_at(struct probe_finder *pf, uint64_t addr, size_t *avail)
{
	for (Elf_Scn *s = elf_nextscn(pf->elf, NULL); s; s = elf_nextscn(pf->elf, s)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(s, &sh) || sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		if (addr < sh.sh_addr || addr >= sh.sh_addr + sh.sh_size)
			continue;
		Elf_Data *d = elf_getdata(s, NULL);
		if (!d || !d->d_buf || d->d_size < sh.sh_size)
			return NULL;
		*avail = sh.sh_size - (addr - sh.sh_addr);
		return (const uint8_t *)d->d_buf + (addr - sh.sh_addr);
	}
	return NULL;
}

static int disasm(struct probe_finder *pf, uint64_t start, uint64_t end, struct pf_insn **out, int *nout)
{
	size_t avail;
	const uint8_t *code = pf->cs_ok ? pf__code_at(pf, start, &avail) : NULL;
	if (!code)
		return -ENOENT;
	size_t size = end - start < avail ? end - start : avail;
	uint64_t a = start;
	cs_insn *insn = CS(cs_malloc)(pf->cs);
	if (!insn)
		return -ENOMEM;
	while (size && CS(cs_disasm_iter)(pf->cs, &code, &size, &a, insn)) {
		struct pf_insn *v = realloc(*out, (size_t)(*nout + 1) * sizeof(**out));
		if (!v)
			break;
		*out = v;
		char buf[256];
		snprintf(buf, sizeof(buf), "%s%s%s", insn->mnemonic, insn->op_str[0] ? " " : "", insn->op_str);
		const struct sym_entry *s = sym_at(pf, insn->address, NULL, NULL);
		if (!s)
			break;	/* padding between functions */
		v[*nout].addr = insn->address;
		v[*nout].symbol = s ? strdup(s->name) : NULL;
		v[*nout].sym_offset = s ? insn->address - s->addr : 0;
		v[*nout].text = strdup(buf);
		(*nout)++;
	}
	CS(cs_free)(insn, 1);
	return 0;
}

int probe_finder__check_insn(struct probe_finder *pf, uint64_t addr)
{
	const struct sym_entry *s = sym_at(pf, addr, NULL, NULL);
	if (!s || !s->size)
		return pf_fail(pf, -EINVAL, "0x%" PRIx64 " is not inside a function of %s", addr, pf->path);
	if (pf->kallsyms)
		return 0;	/* no code bytes to decode; the kernel checks kprobes itself */
	size_t avail;
	const uint8_t *code = pf->cs_ok ? pf__code_at(pf, s->addr, &avail) : NULL;
	if (!code)
		return pf_fail(pf, -EINVAL, "cannot decode the code of %s in %s", s->name, pf->path);
	size_t size = s->size < avail ? s->size : avail;
	uint64_t a = s->addr;
	cs_insn *insn = CS(cs_malloc)(pf->cs);
	if (!insn)
		return -ENOMEM;
	uint64_t prev = a;
	int ret = -EINVAL;
	while (a < addr && size) {
		prev = a;
		if (!CS(cs_disasm_iter)(pf->cs, &code, &size, &a, insn))
			break;
	}
	CS(cs_free)(insn, 1);
	if (a == addr)
		ret = 0;
	else if (a > addr)
		pf_fail(pf, ret, "%s+%#" PRIx64 " is in the middle of the instruction at %s+%#" PRIx64
			" (a probe there would corrupt it)", s->name, addr - s->addr, s->name, prev - s->addr);
	else
		pf_fail(pf, ret, "%s+%#" PRIx64 " cannot be decoded as an instruction start", s->name,
			addr - s->addr);
	return ret;
}

/* ---- line tables ---- */
static int row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	if (x->line != y->line)
		return x->line - y->line;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Rows (is_stmt) of cudie's line table in a file, optionally only those
 * inside die's code. */
static int collect_rows_x(Dwarf_Die *cudie, const char *file, bool file_suffix, Dwarf_Die *inside,
			  struct row **rows, int *n, const char **matched, bool stmt_only)
{
	Dwarf_Lines *lines;
	size_t nl;
	if (dwarf_getsrclines(cudie, &lines, &nl))
		return 0;
	for (size_t i = 0; i < nl; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		bool stmt, endseq;
		Dwarf_Addr a;
		int ln;
		if (dwarf_linebeginstatement(l, &stmt) || (stmt_only && !stmt) ||
		    dwarf_lineendsequence(l, &endseq) || endseq)
			continue;
		const char *src = dwarf_linesrc(l, NULL, NULL);
		if (!src || (file_suffix ? !src_match(src, file) : strcmp(src, file)))
			continue;
		if (dwarf_lineaddr(l, &a) || dwarf_lineno(l, &ln) || ln <= 0)
			continue;
		if (inside && dwarf_haspc(inside, a) <= 0)
			continue;
		Dwarf_Addr end = a, na;
		/* for code ranges, the last row at an address owns it */
		if (!stmt_only && i + 1 < nl && !dwarf_lineaddr(dwarf_onesrcline(lines, i + 1), &na) && na == a)
			continue;
		for (size_t j = i + 1; j < nl; j++) {
			Dwarf_Addr b;
			if (!dwarf_lineaddr(dwarf_onesrcline(lines, j), &b) && b > a) {
				end = b;
				break;
			}
		}
		if (matched && !*matched)
			*matched = src;
		struct row *v = realloc(*rows, (size_t)(*n + 1) * sizeof(**rows));
		if (!v)
			return -ENOMEM;
		*rows = v;
		v[(*n)++] = (struct row){ a, end, ln };
	}
	return 0;
}

int collect_rows(Dwarf_Die *cudie, const char *file, bool file_suffix, Dwarf_Die *inside,
		 struct row **rows, int *n, const char **matched)
{
	return collect_rows_x(cudie, file, file_suffix, inside, rows, n, matched, true);
}

static void listing_add_asm(struct probe_finder *pf, struct pf_line *pl, const struct row *r)
{
	if (r->end <= r->addr)
		return;
	for (int i = 0; i < pl->ninsns; i++)
		if (pl->insns[i].addr == r->addr)
			return;
	disasm(pf, r->addr, r->end, &pl->insns, &pl->ninsns);
}

static int insn_cmp(const void *a, const void *b)
{
	const struct pf_insn *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Fills l->lines for lines first..last: which are probe-able (rows), the
 * instructions of each (arows, with --asm), the source text. Without the
 * source, only the probe-able lines. */
static int listing_fill(struct probe_finder *pf, struct line_listing *l, int first, int last,
			struct row *rows, int nrows, struct row *arows, int narows,
			const struct source *src)
{
	l->first = first;
	if (nrows)	/* rows is NULL when the function has no line rows (folded away) */
		qsort(rows, (size_t)nrows, sizeof(*rows), row_cmp);
	if (narows)
		qsort(arows, (size_t)narows, sizeof(*arows), row_cmp);
	l->lines = calloc((size_t)(last - first + 1), sizeof(*l->lines));
	if (!l->lines)
		return -ENOMEM;
	for (int ln = first, r = 0, ar = 0; ln <= last; ln++) {
		struct pf_line *pl = &l->lines[l->nlines];
		pl->lineno = ln;
		while (r < nrows && rows[r].line < ln)
			r++;
		for (; r < nrows && rows[r].line == ln; r++)
			pl->probeable = true;
		while (ar < narows && arows[ar].line < ln)
			ar++;
		for (; ar < narows && arows[ar].line == ln; ar++)
			listing_add_asm(pf, pl, &arows[ar]);
		if (pl->ninsns > 1)
			qsort(pl->insns, (size_t)pl->ninsns, sizeof(*pl->insns), insn_cmp);
		if (src->n) {
			if (ln <= src->n && !(pl->text = strdup(src->lines[ln - 1])))
				return -ENOMEM;
		} else if (!pl->probeable) {
			continue;	/* without the source only probe-able lines */
		}
		l->nlines++;
	}
	return 0;
}

int probe_finder__lines(struct probe_finder *pf, const char *specstr, bool with_asm,
			struct line_listing **out)
{
	struct spec sp;
	struct row *rows = NULL, *arows = NULL;
	int nrows = 0, narows = 0, ret;
	size_t *idx = NULL;
	struct source src = { 0 };
	struct line_listing *l = NULL;
	const char *file = NULL;
	Dwarf_Die fcu;
	bool have_fcu = false;
	int first, last, maxline = 0;

	if ((ret = parse_spec(pf, specstr, &sp, true)))
		return ret;
	if ((ret = need_dwarf(pf)))
		return ret;
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	if (!sp.file_form) {
		int n = find_instances(pf, sp.name, sp.src, false, &idx);
		if (n < 0) {
			ret = n;
			goto err;
		}
		if (n == 0) {
			ret = no_function(pf, sp.name, sp.src);
			goto err;
		}
		Dwarf_Die d, cu;
		int decl = 0;
		/* prefer an out-of-line instance for the declaration */
		size_t pick = idx[0];
		for (int i = 0; i < n; i++)
			if (!pf->fns[idx[i]].inlined) {
				pick = idx[i];
				break;
			}
		dwarf_offdie(pf->dw, pf->fns[pick].off, &d);
		file = decl_file(&d);
		have_fcu = dwarf_diecu(&d, &fcu, NULL, NULL) != NULL;
		if (!file || dwarf_decl_line(&d, &decl)) {
			ret = pf_fail(pf, -ENOENT, "%s has no declaration line in its DWARF", sp.name);
			goto err;
		}
		for (int i = 0; i < n; i++) {
			Dwarf_Die di;
			if (!dwarf_offdie(pf->dw, pf->fns[idx[i]].off, &di) || !dwarf_diecu(&di, &cu, NULL, NULL))
				continue;
			const char *f = decl_file(&di);
			if (!f || strcmp(f, file))
				continue;
			if ((ret = collect_rows(&cu, file, false, &di, &rows, &nrows, NULL)))
				goto err;
			if (with_asm && (ret = collect_rows_x(&cu, file, false, &di, &arows, &narows, NULL, false)))
				goto err;
		}
		l->function = strdup(sp.name);
		l->offset = decl;
		first = decl + (sp.has_line ? sp.line : 0);
		for (int i = 0; i < nrows; i++)
			if (rows[i].line > maxline)
				maxline = rows[i].line;
		last = sp.line_end ? decl + sp.line_end : (maxline > first ? maxline : first);
		if (sp.line_end)
			last = decl + sp.line_end;
	} else {
		Dwarf_Die cu;
		for (Dwarf_Off o = 0; next_cu(pf->dw, &o, &cu);) {
			if ((ret = collect_rows(&cu, sp.name, true, NULL, &rows, &nrows, &file)))
				goto err;
			if (file && !have_fcu) {
				fcu = cu;
				have_fcu = true;
			}
			if (with_asm && (ret = collect_rows_x(&cu, sp.name, true, NULL, &arows, &narows, NULL, false)))
				goto err;
		}
		if (!file) {
			ret = pf_fail(pf, -ENOENT, "no source file %s in the line tables of %s", sp.name, pf->path);
			goto err;
		}
		for (int i = 0; i < nrows; i++)
			if (rows[i].line > maxline)
				maxline = rows[i].line;
		first = sp.has_line ? sp.line : 1;
		last = sp.line_end ? sp.line_end : 0;
	}
	l->file = abs_src(have_fcu ? &fcu : NULL, file);
	if (!l->file) {
		ret = -ENOMEM;
		goto err;
	}
	if (!source_load(pf, l->file, &src))
		l->source = strdup(src.path);
	if (!last)
		last = src.n ? src.n : maxline;
	/* FUNC form: through the closing brace when the line table stops short */
	if (l->function && !sp.line_end && src.n)
		for (int ln = last; ln < src.n && ln < last + 20; ln++)
			if (src.lines[ln - 1][0] == '}') {
				last = ln;
				break;
			}
	if (src.n && last > src.n)
		last = src.n;
	if (first < 1)
		first = 1;
	if (last < first) {
		ret = pf_fail(pf, -ENOENT, "line %d is past the end of %s (%d lines)", first, file,
			      src.n ? src.n : maxline);
		goto err;
	}
	if ((ret = listing_fill(pf, l, first, last, rows, nrows, arows, narows, &src)))
		goto err;
	source_free(&src);
	free(rows);
	free(arows);
	free(idx);
	*out = l;
	return 0;
err:
	source_free(&src);
	free(rows);
	free(arows);
	free(idx);
	line_listing__delete(l);
	return ret;
}

void line_listing__delete(struct line_listing *l)
{
	if (!l)
		return;
	for (int i = 0; i < l->nlines; i++) {
		for (int j = 0; j < l->lines[i].ninsns; j++) {
			free(l->lines[i].insns[j].text);
			free(l->lines[i].insns[j].symbol);
		}
		free(l->lines[i].insns);
		free((char *)l->lines[i].text);
	}
	/* lines past nlines may hold insns of skipped lines: none (we only skip non-probeable) */
	free(l->lines);
	free(l->function);
	free(l->file);
	free(l->source);
	free(l);
}
