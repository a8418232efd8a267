/* The probe finder's object: opening a binary, a module or the kernel,
 * finding its debug info and symbols; shared bits of the room (messages,
 * string buffers). The jobs live beside it: probe_functions.c (-F),
 * probe_lines.c (-L), probe_vars.c (-V), probe_points.c (probe points),
 * strfilter.c, dwarf_util.c. See include/pprobe/probe_finder.h. */
#define _GNU_SOURCE
#include <capstone/capstone.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "pprobe/debuginfo.h"
#include "pprobe/maps.h"
#include "pprobe/probe_finder.h"
#include "pprobe/safe_open.h"
#include "pprobe/sym_table.h"
#include "probe_finder_internal.h"

int pf_fail(struct probe_finder *pf, int ret, const char *fmt, ...)
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

char *sb_take(struct sbuf *b)
{
	char *s = b->s ? b->s : strdup("");
	b->s = NULL;
	b->len = b->cap = 0;
	return s;
}

/* ---- opening ---- */
static Elf *elf_open(const char *path, int *fd)
{
	*fd = safe_open_file(path);	/* a FIFO would block: refused as not ELF */
	if (*fd < 0) {
		errno = *fd == -EPERM ? ENOEXEC : -*fd;
		*fd = -1;
		return NULL;
	}
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

/* The DWARF file's compressed sections claim no more than it could hold
 * (libdw would allocate what they claim); said when not. */
static bool dwarf_sizes_sane(struct probe_finder *pf)
{
	char why[192] = "cannot stat it";
	struct stat st;
	if (!fstat(pf->delf ? pf->dfd : pf->fd, &st) &&
	    elf_file__compressed_sane(pf->delf ? pf->delf : pf->elf, (uint64_t)st.st_size, why, sizeof(why)))
		return true;
	pf_fail(pf, -EFBIG, "cannot read the DWARF of %s in %s: %s", pf->path, pf->debug_path, why);
	return false;
}

/* Where libdw found no DWARF: the first .debug_* section compressed other
 * than with zlib (zstd, which elfutils inflates from 0.189), or NULL. libdw
 * says only "no DWARF information" then, and cmd_probe would advise a
 * rebuild with -g. */
static const char *uninflated_debug(Elf *elf, unsigned *type)
{
	size_t shstr;
	if (elf_getshdrstrndx(elf, &shstr))
		return NULL;
	for (Elf_Scn *s = elf_nextscn(elf, NULL); s; s = elf_nextscn(elf, s)) {
		GElf_Shdr sh;
		GElf_Chdr ch;
		const char *n = gelf_getshdr(s, &sh) ? elf_strptr(elf, shstr, sh.sh_name) : NULL;
		if (n && !strncmp(n, ".debug_", 7) && sh.sh_type != SHT_NOBITS && (sh.sh_flags & SHF_COMPRESSED) &&
		    gelf_getchdr(s, &ch) && ch.ch_type != ELFCOMPRESS_ZLIB) {
			*type = ch.ch_type;
			return n;
		}
	}
	return NULL;
}

/* pf->dw from the debug file, or the failure said */
static void open_dwarf(struct probe_finder *pf)
{
	Elf *e = pf->delf ? pf->delf : pf->elf;
	unsigned ztype = 0;
	const char *zsec;
	pf->dw = dwarf_begin_elf(e, DWARF_C_READ, NULL);
	if (pf->dw)
		return;
	if ((zsec = uninflated_debug(e, &ztype)))
		pf_fail(pf, -ENOENT, "cannot read the DWARF of %s in %s: compressed section %s is in a "
			"form this libelf cannot inflate (type %u; zstd, 2, needs elfutils 0.189 or later)",
			pf->path, pf->debug_path, zsec, ztype);
	else
		pf_fail(pf, -ENOENT, "cannot read the DWARF of %s in %s: %s", pf->path, pf->debug_path,
			dwarf_errmsg(-1));
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
	if (pf->debug_path && !dwarf_sizes_sane(pf)) {
		/* said */
	} else if (pf->debug_path) {
		open_dwarf(pf);
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
	if (known && capstone__load() && CS(cs_open)(arch, mode, &pf->cs) == CS_ERR_OK) {
		pf->cs_ok = true;
		if (arch == CS_ARCH_X86)
			CS(cs_option)(pf->cs, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
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
		CS(cs_close)(&pf->cs);
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

/* ---- for probe_args.c (probe_finder_internal.h) ---- */
Dwarf *pf__dwarf(struct probe_finder *pf) { return pf->dw; }
Elf *pf__elf(struct probe_finder *pf) { return pf->elf; }
Elf *pf__debug_elf(struct probe_finder *pf) { return pf->delf; }
unsigned pf__machine(struct probe_finder *pf) { return pf->ehdr.e_machine; }
const char *pf__nodwarf(struct probe_finder *pf) { return pf->nodwarf[0] ? pf->nodwarf : "no DWARF"; }

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
