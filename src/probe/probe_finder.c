/* The DWARF inspector behind -F/-L/-V and the probe point resolver.
 * See include/pprobe/probe_finder.h. */
#define _GNU_SOURCE
#include <capstone/capstone.h>
#include <ctype.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "util.h"
#include "pprobe/debuginfo.h"
#include "pprobe/maps.h"
#include "pprobe/probe_finder.h"
#include "pprobe/sym_table.h"
#include "probe_finder_internal.h"

/* A DWARF function instance with code: out-of-line or inlined. */
struct fn {
	const char *name;	/* owned by libdw */
	Dwarf_Off off;		/* the instance's DIE */
	Dwarf_Addr entry;
	bool inlined;
};

struct probe_finder {
	char *path;
	char *debug_path;
	char *debuglink;
	char build_id[130];
	int fd, dfd;
	Elf *elf, *delf;
	Dwarf *dw;
	bool kernel, kallsyms;
	char *module;
	char *source_dir;
	struct sym_table *symtab;
	const struct sym_entry *syms;	/* in symtab: by address, then name */
	size_t nsyms;
	struct fn *fns;
	size_t nfns;
	bool fns_loaded;
	GElf_Ehdr ehdr;
	csh cs;
	bool cs_ok;
	char err[2048];
	char nodwarf[2048];	/* why there is no DWARF (kept: err is overwritten) */
};

static int pf_fail(struct probe_finder *pf, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int pf_fail(struct probe_finder *pf, int ret, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(pf->err, sizeof(pf->err), fmt, ap);
	va_end(ap);
	return ret;
}

static const char *base_name(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;
	return s ? s + 1 : p;
}

/* ---- string buffer (struct sbuf: probe_finder_internal.h) ---- */
void pf__sb_add(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || b->oom)
		return;
	if (b->len + (size_t)n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 64;
		while (cap < b->len + (size_t)n + 1)
			cap *= 2;
		char *s = realloc(b->s, cap);
		if (!s) {
			b->oom = true;	/* the rest would be a torn string */
			return;
		}
		b->s = s;
		b->cap = cap;
	}
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

static char *sb_take(struct sbuf *b)
{
	char *s = b->s ? b->s : strdup("");
	b->s = NULL;
	b->len = b->cap = 0;
	return s;
}

/* ---- filter (perf's strfilter) ---- */
struct fparse {
	const char *p;
	const char *name;
	int err;
};

static int f_or(struct fparse *f);

static void f_ws(struct fparse *f)
{
	while (isspace((unsigned char)*f->p))
		f->p++;
}

static int f_atom(struct fparse *f)
{
	f_ws(f);
	if (*f->p == '!') {
		f->p++;
		return !f_atom(f);
	}
	if (*f->p == '(') {
		f->p++;
		int v = f_or(f);
		f_ws(f);
		if (*f->p != ')')
			f->err = 1;
		else
			f->p++;
		return v;
	}
	const char *s = f->p;
	while (*f->p && !strchr("&|()!", *f->p) && !isspace((unsigned char)*f->p))
		f->p++;
	if (f->p == s) {
		f->err = 1;
		return 0;
	}
	char pat[256];
	size_t n = (size_t)(f->p - s) < sizeof(pat) - 1 ? (size_t)(f->p - s) : sizeof(pat) - 1;
	memcpy(pat, s, n);
	pat[n] = '\0';
	return fnmatch(pat, f->name, 0) == 0;
}

static int f_and(struct fparse *f)
{
	int v = f_atom(f);
	for (;;) {
		f_ws(f);
		if (*f->p != '&')
			return v;
		f->p++;
		int w = f_atom(f);
		v = v && w;
	}
}

static int f_or(struct fparse *f)
{
	int v = f_and(f);
	for (;;) {
		f_ws(f);
		if (*f->p != '|')
			return v;
		f->p++;
		int w = f_and(f);
		v = v || w;
	}
}

int probe_filter__match(const char *filter, const char *name)
{
	struct fparse f = { filter, name, 0 };
	int v = f_or(&f);
	f_ws(&f);
	if (f.err || *f.p)
		return -EINVAL;
	return v;
}

/* ---- opening ---- */
static Elf *elf_open(const char *path, int *fd)
{
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return NULL;
	Elf *e = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		elf_end(e);
		close(*fd);
		*fd = -1;
		errno = ENOEXEC;
		return NULL;
	}
	return e;
}

static char *find_module(const char *name)
{
	struct utsname u;
	char path[PATH_MAX * 2], line[PATH_MAX];
	if (strchr(name, '/'))
		return strdup(name);
	uname(&u);
	snprintf(path, sizeof(path), "/lib/modules/%s/modules.dep", u.release);
	FILE *f = fopen(path, "re");
	if (!f)
		return NULL;
	char *ret = NULL;
	size_t nl = strlen(name);
	while (!ret && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = '\0';
		const char *b = base_name(line);
		/* foo.ko, foo.ko.xz; '-' and '_' are the same in module names */
		bool same = strlen(b) > nl;
		for (size_t i = 0; same && i < nl; i++) {
			char a = b[i] == '-' ? '_' : b[i], c = name[i] == '-' ? '_' : name[i];
			same = a == c;
		}
		if (same && !strncmp(b + nl, ".ko", 3)) {
			snprintf(path, sizeof(path), "/lib/modules/%s/%s", u.release, line);
			ret = strdup(path);
		}
	}
	fclose(f);
	return ret;
}

struct probe_finder *probe_finder__new(const struct probe_finder_opts *o, char *err, size_t errlen)
{
	struct probe_finder *pf = calloc(1, sizeof(*pf));
	char dpath[PATH_MAX];

	if (!pf)
		return NULL;
	pf->fd = pf->dfd = -1;
	elf_version(EV_CURRENT);
	if (o->source_dir && !(pf->source_dir = strdup(o->source_dir)))
		goto nomem;
	if (!o->binary) {
		struct utsname u;
		uname(&u);
		pf->kernel = true;
		if (o->module) {
			pf->module = strdup(base_name(o->module));
			char *dot = pf->module ? strstr(pf->module, ".ko") : NULL;
			if (dot)
				*dot = '\0';
			pf->path = find_module(o->module);
		} else if (o->vmlinux) {
			pf->path = strdup(o->vmlinux);
		} else {
			snprintf(dpath, sizeof(dpath), "/usr/lib/debug/boot/vmlinux-%s", u.release);
			if (!access(dpath, R_OK))
				pf->path = strdup(dpath);
		}
		if (!pf->path) {
			pf->kallsyms = true;
			if (o->module && !pf->module)
				goto nomem;
			pf->path = strdup(o->module ? pf->module : "[kernel.kallsyms]");
			if (!pf->path || !(pf->symtab = sym_table__new()))
				goto nomem;
			int ret = sym_table__add_kallsyms(pf->symtab, NULL, pf->module);
			if (ret) {
				errno = -ret;
				if (ret != -ENOMEM)
					pf_fail(pf, ret, "cannot read /proc/kallsyms: %s", strerror(errno));
				goto err;
			}
			pf->syms = sym_table__syms(pf->symtab, &pf->nsyms);
			if (o->module)
				pf_fail(pf, -ENOENT, "no file for kernel module %s of kernel %s "
					"(not in /lib/modules/%s/modules.dep): pass its .ko path with -m PATH",
					pf->module, u.release, u.release);
			else
				pf_fail(pf, -ENOENT, "no DWARF for the running kernel %s: "
					"/usr/lib/debug/boot/vmlinux-%s does not exist; install the kernel's "
					"debug image (Debian: linux-image-%s-dbg) or pass -k VMLINUX",
					u.release, u.release, u.release);
			snprintf(pf->nodwarf, sizeof(pf->nodwarf), "%s", pf->err);
			return pf;
		}
	} else {
		pf->path = strdup(o->binary);
	}
	if (!pf->path)
		goto nomem;
	pf->elf = elf_open(pf->path, &pf->fd);
	if (!pf->elf) {
		snprintf(err, errlen, "cannot open %s: %s", pf->path,
			 errno == ENOEXEC ? "not an ELF file" : strerror(errno));
		goto err_keep;
	}
	gelf_getehdr(pf->elf, &pf->ehdr);
	{
		uint8_t id[MAP_BUILD_ID_MAX];
		int idlen = elf_file__build_id(pf->path, id, sizeof(id));
		for (int i = 0; i < idlen; i++)
			snprintf(pf->build_id + 2 * i, sizeof(pf->build_id) - 2 * (size_t)i, "%02x", id[i]);
		GElf_Shdr sh;
		size_t shstr;
		if (!elf_getshdrstrndx(pf->elf, &shstr))
			for (Elf_Scn *s = elf_nextscn(pf->elf, NULL); s; s = elf_nextscn(pf->elf, s)) {
				const char *n = gelf_getshdr(s, &sh) ? elf_strptr(pf->elf, shstr, sh.sh_name) : NULL;
				Elf_Data *d;
				if (n && !strcmp(n, ".gnu_debuglink") && (d = elf_getdata(s, NULL)) &&
				    d->d_size > 4 && memchr(d->d_buf, '\0', d->d_size))
					pf->debuglink = strdup(d->d_buf);
			}
		/* the symbolizer's lookup: self, build-id, debuglink, debuginfod */
		const char *how = NULL;
		char *dbg = debuginfo__find(pf->path, pf->path, pf->elf, id, idlen > 0 ? (size_t)idlen : 0, &how);
		if (dbg) {
			pf->debug_path = dbg;
			pf->delf = elf_open(dbg, &pf->dfd);
		} else if (how && !strcmp(how, "self")) {
			pf->debug_path = strdup(pf->path);
			if (!pf->debug_path)
				goto nomem;
		}
	}
	if (pf->debug_path) {
		pf->dw = dwarf_begin_elf(pf->delf ? pf->delf : pf->elf, DWARF_C_READ, NULL);
		if (!pf->dw)
			pf_fail(pf, -ENOENT, "cannot read the DWARF of %s in %s: %s", pf->path, pf->debug_path,
				dwarf_errmsg(-1));
	} else {
		struct sbuf b = { 0 };
		if (pf->build_id[0])
			pf__sb_add(&b, "no debug info for %s (build-id %s): /usr/lib/debug/.build-id/%.2s/%s.debug",
			       pf->path, pf->build_id, pf->build_id, pf->build_id + 2);
		else
			pf__sb_add(&b, "no debug info for %s (it has no build-id)", pf->path);
		if (pf->debuglink)
			pf__sb_add(&b, "%s .gnu_debuglink %s", pf->build_id[0] ? " and" : ":", pf->debuglink);
		pf__sb_add(&b, " not found");
		char *m = sb_take(&b);
		pf_fail(pf, -ENOENT, "%s", m);
		free(m);
	}
	if (!(pf->symtab = sym_table__new()) || (pf->delf && sym_table__add_elf(pf->symtab, pf->delf)) ||
	    sym_table__add_elf(pf->symtab, pf->elf))
		goto nomem;
	pf->syms = sym_table__syms(pf->symtab, &pf->nsyms);

	cs_arch arch = CS_ARCH_X86;
	cs_mode mode = CS_MODE_64;
	bool known = true;
	if (pf->ehdr.e_machine == EM_386)
		mode = CS_MODE_32;
	else if (pf->ehdr.e_machine == EM_AARCH64)
		arch = CS_ARCH_ARM64, mode = CS_MODE_ARM;
	else if (pf->ehdr.e_machine != EM_X86_64)
		known = false;
	if (known && cs_open(arch, mode, &pf->cs) == CS_ERR_OK) {
		pf->cs_ok = true;
		if (arch == CS_ARCH_X86)
			cs_option(pf->cs, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
	}
	if (!pf->dw)
		snprintf(pf->nodwarf, sizeof(pf->nodwarf), "%s", pf->err);
	return pf;
nomem:
	errno = ENOMEM;
err:
	snprintf(err, errlen, "%s", pf->err[0] ? pf->err : strerror(errno));
err_keep:
	{
		int e = errno;
		probe_finder__delete(pf);
		errno = e;
	}
	return NULL;
}

void probe_finder__delete(struct probe_finder *pf)
{
	if (!pf)
		return;
	if (pf->cs_ok)
		cs_close(&pf->cs);
	if (pf->dw)
		dwarf_end(pf->dw);
	elf_end(pf->delf);
	elf_end(pf->elf);
	if (pf->dfd >= 0)
		close(pf->dfd);
	if (pf->fd >= 0)
		close(pf->fd);
	sym_table__delete(pf->symtab);
	free(pf->fns);
	free(pf->path);
	free(pf->debug_path);
	free(pf->debuglink);
	free(pf->module);
	free(pf->source_dir);
	free(pf);
}

const char *probe_finder__strerror(const struct probe_finder *pf) { return pf->err; }
const char *probe_finder__path(const struct probe_finder *pf) { return pf->path; }
const char *probe_finder__build_id(const struct probe_finder *pf) { return pf->build_id; }
const char *probe_finder__debug_path(const struct probe_finder *pf) { return pf->dw ? pf->debug_path : NULL; }
bool probe_finder__has_dwarf(const struct probe_finder *pf) { return pf->dw != NULL; }
bool probe_finder__is_kernel(const struct probe_finder *pf) { return pf->kernel; }

/* ---- DWARF function index ---- */
static bool die_entry(Dwarf_Die *d, Dwarf_Addr *entry)
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
static const char *decl_file(Dwarf_Die *d)
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

static const char *die_name(Dwarf_Die *d)
{
	Dwarf_Attribute a;
	if (!dwarf_attr_integrate(d, DW_AT_name, &a))
		return NULL;
	return dwarf_formstring(&a);
}

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

/* Iterates the compilation units: for (Dwarf_Off o = 0; next_cu(dw, &o, &cu);) */
static bool next_cu(Dwarf *dw, Dwarf_Off *off, Dwarf_Die *cu)
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
static const struct sym_entry *sym_at(struct probe_finder *pf, uint64_t addr, const char *want,
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

static const struct sym_entry *sym_named(struct probe_finder *pf, const char *name)
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

/* ---- spec parsing ---- */
struct spec {
	char name[512];		/* function, or file in file form */
	char src[512];		/* FUNC@SRC */
	bool file_form;
	bool has_line;
	int line, line_end;	/* line_end: 0 none */
	bool has_off;
	uint64_t off;
	bool ret;
	char lazy[256];
	bool raw;
	uint64_t raw_addr;
};

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

static int parse_spec(struct probe_finder *pf, const char *s, struct spec *sp, bool range_ok)
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

/* ---- instances of a function ---- */
static bool src_match(const char *path, const char *want)
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
static int find_instances(struct probe_finder *pf, const char *name, const char *src, bool no_inlines,
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

static int no_function(struct probe_finder *pf, const char *name, const char *src)
{
	load_fns(pf);
	for (size_t i = 0; i < pf->nfns; i++)
		if (pf->fns[i].inlined && !strcmp(pf->fns[i].name, name))
			return pf_fail(pf, -ENOENT, "%s in %s has only inlined copies (--no-inlines leaves them out)",
				       name, pf->path);
	struct sbuf b = { 0 };
	pf__sb_add(&b, "no function %s%s%s in %s", name, src[0] ? "@" : "", src, pf->path);
	suggest(pf, name, &b);
	char *m = sb_take(&b);
	pf_fail(pf, -ENOENT, "%s", m);
	free(m);
	return -ENOENT;
}

static int need_dwarf(struct probe_finder *pf)
{
	if (pf->dw)
		return 0;
	return -ENOENT;	/* pf->err already says why */
}

/* ---- source files ---- */
struct source {
	char *path;
	char *buf;
	char **lines;
	int n;
};

static void source_free(struct source *s)
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

static int load_abs(struct probe_finder *pf, Dwarf_Die *cu, const char *file, struct source *s)
{
	char *path = abs_src(cu, file);
	int ret = path ? source_load(pf, path, s) : -ENOMEM;
	free(path);
	return ret;
}

/* ---- disassembly ---- */
static const uint8_t *code_at(struct probe_finder *pf, uint64_t addr, size_t *avail)
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
	const uint8_t *code = pf->cs_ok ? code_at(pf, start, &avail) : NULL;
	if (!code)
		return -ENOENT;
	size_t size = end - start < avail ? end - start : avail;
	uint64_t a = start;
	cs_insn *insn = cs_malloc(pf->cs);
	if (!insn)
		return -ENOMEM;
	while (size && cs_disasm_iter(pf->cs, &code, &size, &a, insn)) {
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
	cs_free(insn, 1);
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
	const uint8_t *code = pf->cs_ok ? code_at(pf, s->addr, &avail) : NULL;
	if (!code)
		return pf_fail(pf, -EINVAL, "cannot decode the code of %s in %s", s->name, pf->path);
	size_t size = s->size < avail ? s->size : avail;
	uint64_t a = s->addr;
	cs_insn *insn = cs_malloc(pf->cs);
	if (!insn)
		return -ENOMEM;
	uint64_t prev = a;
	int ret = -EINVAL;
	while (a < addr && size) {
		prev = a;
		if (!cs_disasm_iter(pf->cs, &code, &size, &a, insn))
			break;
	}
	cs_free(insn, 1);
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

int probe_finder__file_offset(struct probe_finder *pf, uint64_t addr, uint64_t *off)
{
	size_t n;
	if (!pf->elf || elf_getphdrnum(pf->elf, &n))
		return -ENOENT;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(pf->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (addr >= ph.p_vaddr && addr < ph.p_vaddr + ph.p_filesz) {
			*off = addr - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return -ENOENT;
}

/* ---- line tables ---- */
struct row {
	Dwarf_Addr addr, end;
	int line;
};

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

static int collect_rows(Dwarf_Die *cudie, const char *file, bool file_suffix, Dwarf_Die *inside,
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
	l->first = first;
	qsort(rows, (size_t)nrows, sizeof(*rows), row_cmp);
	if (narows)
		qsort(arows, (size_t)narows, sizeof(*arows), row_cmp);
	l->lines = calloc((size_t)(last - first + 1), sizeof(*l->lines));
	if (!l->lines) {
		ret = -ENOMEM;
		goto err;
	}
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
		if (src.n) {
			if (ln <= src.n && !(pl->text = strdup(src.lines[ln - 1]))) {
				ret = -ENOMEM;
				goto err;
			}
		} else if (!pl->probeable) {
			continue;	/* without the source only probe-able lines */
		}
		l->nlines++;
	}
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

/* ---- types ---- */
static bool die_type(Dwarf_Die *d, Dwarf_Die *t)
{
	Dwarf_Attribute a;
	return dwarf_attr_integrate(d, DW_AT_type, &a) && dwarf_formref_die(&a, t);
}

static void type_name(Dwarf_Die *t, struct sbuf *b, int depth)
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

static int64_t type_size(struct probe_finder *pf, Dwarf_Die *t)
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

static bool type_signed(Dwarf_Die *t)
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

static bool type_float(Dwarf_Die *t)
{
	Dwarf_Die p;
	Dwarf_Attribute a;
	Dwarf_Word enc;
	return !dwarf_peel_type(t, &p) && dwarf_tag(&p) == DW_TAG_base_type &&
	       dwarf_attr(&p, DW_AT_encoding, &a) && !dwarf_formudata(&a, &enc) && enc == DW_ATE_float;
}

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

/* The first line-table statement of fn after its entry: where GCC's -O0
 * prologue ends (what gdb's breakpoints skip to). */
static bool prologue_end(Dwarf_Die *fn, Dwarf_Die *cu, Dwarf_Addr entry, Dwarf_Addr *out)
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

static void var_free(struct pf_var *v)
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
	memcpy(p->vars, v, (size_t)o * sizeof(*v));
out:
	free(v);
	free(used);
}

static bool is_var_tag(int tag)
{
	return tag == DW_TAG_formal_parameter || tag == DW_TAG_variable;
}

static int collect_vars(struct probe_finder *pf, struct pf_point *p, Dwarf_Die *inst, Dwarf_Addr addr,
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

int probe_finder__find(struct probe_finder *pf, const char *specstr, unsigned flags, struct pf_points **out)
{
	struct spec sp;
	struct pf_points *pts = calloc(1, sizeof(*pts));
	size_t *idx = NULL;
	struct row *rows = NULL;
	int nrows = 0, ret;
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
		Dwarf_Die cu;
		const char *file = NULL;
		for (Dwarf_Off o = 0; next_cu(pf->dw, &o, &cu);) {
			int before = nrows;
			if ((ret = collect_rows(&cu, sp.name, true, NULL, &rows, &nrows, &file)))
				goto err;
			if (sp.lazy[0] && nrows > before && !src.n && file && load_abs(pf, &cu, file, &src)) {
				ret = pf_fail(pf, -ENOENT, "'%s': a ;PATTERN needs the source of %s, not found%s", specstr,
					      file, pf->source_dir ? " under --source" : " (use --source DIR)");
				goto err;
			}
			for (int i = before; i < nrows; i++) {
				bool want = sp.lazy[0] ? (rows[i].line <= src.n && lazy_match(sp.lazy, src.lines[rows[i].line - 1]))
						       : rows[i].line == sp.line;
				Dwarf_Die inst;
				if (!want || !instance_at(pf, &cu, rows[i].addr, &inst))
					continue;
				if ((flags & PF_NO_INLINES) && dwarf_tag(&inst) == DW_TAG_inlined_subroutine)
					continue;
				if ((ret = add_point_line(pf, pts, &inst, die_name(&inst), NULL, rows[i].addr, false, flags,
							  file, rows[i].line)))
					goto err;
			}
		}
		if (!pts->n) {
			ret = pf_fail(pf, -ENOENT, "no code for %s in %s%s", specstr, pf->path,
				      file ? " (the line has no is_stmt address: see -L for probe-able lines)" : "");
			goto err;
		}
		goto done;
	}
	int n = find_instances(pf, sp.name, sp.src, flags & PF_NO_INLINES, &idx);
	if (n < 0) {
		ret = n;
		goto err;
	}
	if (n == 0) {
		/* an ELF-only function (asm, no DWARF) still takes +OFF and %return */
		if (!sym_named(pf, sp.name) || (ret = find_elf_only(pf, &sp, pts, flags & ~PF_VARS))) {
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
			int decl;
			const char *file = decl_file(&d);
			if (!file || dwarf_decl_line(&d, &decl))
				continue;
			free(rows);
			rows = NULL;
			nrows = 0;
			if ((ret = collect_rows(&cu, file, false, &d, &rows, &nrows, NULL)))
				goto err;
			if (sp.lazy[0] && !src.n && load_abs(pf, &cu, file, &src)) {
				ret = pf_fail(pf, -ENOENT, "'%s': a ;PATTERN needs the source %s, not found%s", specstr,
					      file, pf->source_dir ? " under --source" : " (use --source DIR)");
				goto err;
			}
			for (int r = 0; r < nrows; r++) {
				bool want = sp.lazy[0] ? (rows[r].line >= decl && rows[r].line <= src.n &&
							  lazy_match(sp.lazy, src.lines[rows[r].line - 1]))
						       : rows[r].line == decl + sp.line;
				if (!want)
					continue;
				/* the innermost instance at the address must be this one or inside it */
				if ((ret = add_point_line(pf, pts, &d, f->name, sp.name, rows[r].addr, false, flags,
							  file, rows[r].line)))
					goto err;
			}
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
	free(rows);
	free(idx);
	*out = pts;
	return 0;
err:
	source_free(&src);
	free(rows);
	free(idx);
	pf_points__delete(pts);
	return ret;
}

/* ---- for probe_args.c (symbolize/probe_finder_internal.h) ---- */
Dwarf *pf__dwarf(struct probe_finder *pf) { return pf->dw; }
Elf *pf__elf(struct probe_finder *pf) { return pf->elf; }
Elf *pf__debug_elf(struct probe_finder *pf) { return pf->delf; }
unsigned pf__machine(struct probe_finder *pf) { return pf->ehdr.e_machine; }
const char *pf__nodwarf(struct probe_finder *pf) { return pf->nodwarf[0] ? pf->nodwarf : "no DWARF"; }

int pf__fail(struct probe_finder *pf, int ret, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(pf->err, sizeof(pf->err), fmt, ap);
	va_end(ap);
	return ret;
}

bool pf__sym_by_name(struct probe_finder *pf, const char *name, uint64_t *addr, uint64_t *size)
{
	for (size_t i = 0; i < pf->nsyms; i++)
		if (!strcmp(pf->syms[i].name, name)) {
			*addr = pf->syms[i].addr;
			*size = pf->syms[i].size;
			return true;
		}
	return false;
}

bool pf__sym_at(struct probe_finder *pf, uint64_t addr, const char **name, uint64_t *start)
{
	const struct sym_entry *best = NULL;
	for (size_t i = 0; i < pf->nsyms && pf->syms[i].addr <= addr; i++) {
		const struct sym_entry *s = &pf->syms[i];
		if (addr < s->addr + (s->size ? s->size : 1) && (!best || s->global || !best->global))
			best = s;
	}
	if (!best)
		return false;
	*name = best->name;
	*start = best->addr;
	return true;
}

bool pf__prologue_end(Dwarf_Die *fn, Dwarf_Die *cu, Dwarf_Addr entry, Dwarf_Addr *out)
{
	return prologue_end(fn, cu, entry, out);
}
