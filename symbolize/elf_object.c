/* One ELF object: load segments (for runtime -> ELF address translation),
 * build-id, and a symbol table merged from .symtab, .dynsym, a separate
 * debug file and MiniDebugInfo. */
#include <pthread.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pprobe/safe_open.h"
#include "elf_zsec.h"
#include "gopclntab.h"
#include "sym_internal.h"

static void elf_version_once(void)
{
	elf_version(EV_CURRENT);
}

static void elf_init(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;	/* unwinding threads */

	pthread_once(&once, elf_version_once);
}

static int elf_build_id(Elf *elf, uint8_t *out, size_t max)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;
		size_t off = 0, noff, doff;
		GElf_Nhdr nh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d)
			continue;
		while ((off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((char *)d->d_buf + noff, "GNU", 4)) {
				size_t n = nh.n_descsz < max ? nh.n_descsz : max;

				memcpy(out, (char *)d->d_buf + doff, n);
				return (int)n;
			}
		}
	}
	/* no section headers (e.g. some stripped objects): PT_NOTE */
	size_t phnum;
	if (elf_getphdrnum(elf, &phnum))
		return 0;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		Elf_Data *d;
		size_t off = 0, noff, doff;
		GElf_Nhdr nh;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE)
			continue;
		d = elf_getdata_rawchunk(elf, ph.p_offset, ph.p_filesz, ELF_T_NHDR);
		if (!d)
			continue;
		while ((off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0)
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((char *)d->d_buf + noff, "GNU", 4)) {
				size_t n = nh.n_descsz < max ? nh.n_descsz : max;

				memcpy(out, (char *)d->d_buf + doff, n);
				return (int)n;
			}
	}
	return 0;
}

int elf_fd__build_id(int fd, uint8_t *out, size_t max)
{
	int n = 0;
	Elf *elf;

	elf_init();
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf) {
		if (elf_kind(elf) == ELF_K_ELF)
			n = elf_build_id(elf, out, max);
		elf_end(elf);
	}
	return n;
}

int elf_file__build_id(const char *path, uint8_t *out, size_t max)
{
	int fd = safe_open_file(path), n;

	if (fd < 0)
		return 0;
	n = elf_fd__build_id(fd, out, max);
	close(fd);
	return n;
}

int elf_file__foreach_symbol(Elf *elf, elf_sym_fn *fn, void *arg)
{
	return elf_file__foreach_symbol_of(elf, false, fn, arg);
}

int elf_file__foreach_symbol_of(Elf *elf, bool symtab_only, elf_sym_fn *fn, void *arg)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int found = 0, err;

	size_t fsize = 0;

	elf_rawfile(elf, &fsize);
	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;
		Elf_Scn *strscn;
		GElf_Shdr ssh;
		size_t n, i;
		bool in_file;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		found++;
		if (symtab_only && sh.sh_type != SHT_SYMTAB)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !sh.sh_entsize)
			continue;
		/* names read back from the file later (symtab__add_ref) only
		 * where they are there as libelf reads them now */
		strscn = elf_getscn(elf, sh.sh_link);
		in_file = strscn && gelf_getshdr(strscn, &ssh) && ssh.sh_type == SHT_STRTAB &&
			  !(ssh.sh_flags & SHF_COMPRESSED) && ssh.sh_offset <= fsize && ssh.sh_size <= fsize - ssh.sh_offset;
		n = sh.sh_size / sh.sh_entsize;
		for (i = 0; i < n; i++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(d, (int)i, &sym) || sym.st_shndx == SHN_UNDEF)
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (!name || !*name)
				continue;
			struct elf_sym_at at = { sh.sh_type == SHT_SYMTAB,
						 in_file && sym.st_name < ssh.sh_size ? ssh.sh_offset + sym.st_name : UINT64_MAX };
			err = fn(arg, elf, &sym, name, &at);
			if (err)
				return err;
		}
	}
	return found;
}

struct add_symbols {
	struct symtab *t;
	uint32_t bonus;
	uint8_t src;		/* SYMTAB_SRC_COPY: names copied; else left in that file */
	/* the section of the last symbol: most follow one another's */
	size_t shndx;
	bool sh_ok;
	GElf_Shdr sh;
};

/* Adds a function symbol (or an assembler label in code) to the symtab. */
static int add_symbol(void *arg, Elf *elf, const GElf_Sym *sym, const char *name, const struct elf_sym_at *at)
{
	bool symtab = at->symtab;
	struct add_symbols *a = arg;
	int type = GELF_ST_TYPE(sym->st_info), bind = GELF_ST_BIND(sym->st_info);
	uint64_t limit = 0;
	uint32_t prio;

	if (sym->st_shndx >= SHN_LORESERVE || !sym->st_value)
		return 0;
	if (sym->st_shndx != a->shndx) {
		Elf_Scn *sscn = elf_getscn(elf, sym->st_shndx);
		a->shndx = sym->st_shndx;
		a->sh_ok = sscn && gelf_getshdr(sscn, &a->sh);
	}
	if (!a->sh_ok)
		return 0;
	const GElf_Shdr ssh = a->sh;
	if (type == STT_FUNC || type == STT_GNU_IFUNC) {
		prio = 2;
	} else if (type == STT_NOTYPE && (ssh.sh_flags & SHF_EXECINSTR)) {
		prio = 0;	/* assembler labels: only when nothing better */
	} else {
		return 0;
	}
	/* an object without the section's contents (a .debug file's
	 * NOBITS .text) still tells the section's address range */
	if (ssh.sh_flags & SHF_ALLOC)
		limit = ssh.sh_addr + ssh.sh_size;
	if (name[0] == '$')
		return 0;
	/* .symtab entries win over .dynsym ones at the same address */
	prio = prio * 8 + (bind == STB_GLOBAL ? 4 : bind == STB_WEAK ? 2 : 0) + a->bonus + symtab;
	if (a->src != SYMTAB_SRC_COPY && at->name_off != UINT64_MAX
		    ? symtab__add_ref(a->t, sym->st_value, sym->st_size, limit, name, at->name_off, a->src, prio)
		    : symtab__add(a->t, sym->st_value, sym->st_size, limit, name, strlen(name), prio))
		return -ENOMEM;
	return 0;
}

/* .symtab and .dynsym of elf, the names left in the file for src (until
 * symtab__release; SYMTAB_SRC_COPY: copied). Returns how many symbol
 * sections were read, or -errno. */
static int elf_symbols(struct symtab *t, Elf *elf, uint32_t bonus, uint8_t src)
{
	struct add_symbols a = { t, bonus, src, SHN_UNDEF, false, { 0 } };
	Elf_Scn *scn = NULL;
	size_t n = 0;

	/* room for every symbol at once: a table grown by doubling copied
	 * and faulted in its pages twice (libLLVM: 45,000 symbols) */
	size_t fsize = 0, n_symtab = 0, n_dynsym = 0;
	elf_rawfile(elf, &fsize);
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || !sh.sh_entsize)
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			n_symtab += sh.sh_size / sh.sh_entsize;
		else if (sh.sh_type == SHT_DYNSYM)
			n_dynsym += sh.sh_size / sh.sh_entsize;
	}
	/* A linker writes every exported (.dynsym) symbol into .symtab too,
	 * where there is one, so it alone is read (as perf does): node's
	 * .dynsym was 67,000 of its 153,000 functions, none at an address of
	 * its own. A .symtab smaller than .dynsym is not the whole table. */
	bool symtab_only = n_symtab && n_symtab >= n_dynsym;
	n = n_symtab + (symtab_only ? 0 : n_dynsym);
	/* what the file can hold: a header may claim any size */
	if (n > fsize / sizeof(Elf32_Sym))
		n = fsize / sizeof(Elf32_Sym);
	if (symtab__reserve(t, n))
		return -ENOMEM;
	return elf_file__foreach_symbol_of(elf, symtab_only, add_symbol, &a);
}

Elf_Scn *elf_file__section(Elf *elf, const char *want, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh->sh_name);
		if (name && !strcmp(name, want))
			return scn;
	}
	return NULL;
}

/* An IRELATIVE stub (a call within the object to one of its own IFUNCs:
 * libc's internal strlen, memcpy...) and what names it: the IFUNC symbol
 * at the resolver's address, the relocation's addend. */
struct irel_stub {
	uint64_t at, resolver;
	const char *name;
};

static int irel_cmp(const void *a, const void *b)
{
	const struct irel_stub *x = a, *y = b;

	return x->resolver < y->resolver ? -1 : x->resolver > y->resolver;
}

/* Each stub's name: an IFUNC symbol of .dynsym at its resolver, one
 * without a leading underscore preferred (strnlen, not __strnlen); else
 * "*ABS*+0xADDEND@plt" as perf writes it. The stubs sorted by resolver,
 * each symbol found by a binary search: a crafted file's counts cannot
 * make it symbols times stubs. */
static int irel_symbols(struct symtab *t, Elf *elf, Elf_Data *dd, const GElf_Shdr *dsh,
			struct irel_stub *v, size_t nv)
{
	size_t nsyms = dsh->sh_entsize ? dsh->sh_size / dsh->sh_entsize : 0;
	char name[512];

	qsort(v, nv, sizeof(*v), irel_cmp);
	for (size_t i = 0; i < nsyms && i <= INT32_MAX; i++) {
		GElf_Sym sym;
		const char *sn;
		size_t lo = 0, hi = nv;

		if (!gelf_getsym(dd, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_GNU_IFUNC ||
		    !(sn = elf_strptr(elf, dsh->sh_link, sym.st_name)) || !*sn)
			continue;
		while (lo < hi) {	/* the first stub at or above the symbol */
			size_t mid = lo + (hi - lo) / 2;
			if (v[mid].resolver < sym.st_value)
				lo = mid + 1;
			else
				hi = mid;
		}
		/* the group's first stub holds its name; the rest get it below */
		if (lo < nv && v[lo].resolver == sym.st_value && (!v[lo].name || (v[lo].name[0] == '_' && sn[0] != '_')))
			v[lo].name = sn;
	}
	for (size_t k = 1; k < nv; k++)
		if (v[k].resolver == v[k - 1].resolver)
			v[k].name = v[k - 1].name;
	for (size_t k = 0; k < nv; k++) {
		if (v[k].name)
			snprintf(name, sizeof(name), "%s@plt", v[k].name);
		else
			snprintf(name, sizeof(name), "*ABS*+0x%" PRIx64 "@plt", v[k].resolver);
		if (symtab__add(t, v[k].at, 16, 0, name, strlen(name), 0))
			return -ENOMEM;
	}
	return 0;
}

/* x86-64 PLT stubs as "name@plt", as objdump and perf name them. A jump
 * slot relocation patches .got.plt slot 3+k (three reserved slots), and the
 * k-th 16-byte stub of .plt.sec (IBT) or of .plt after its header entry
 * jumps through that slot. The relocations' order is not the stubs' order
 * (libc mixes in IRELATIVE slots), the GOT slot is. An IRELATIVE slot's
 * stub is named by the IFUNC it calls (irel_symbols). */
static int plt_symbols(struct symtab *t, Elf *elf)
{
	GElf_Shdr rsh, psh, dsh, gsh;
	GElf_Ehdr eh;
	Elf_Scn *rela, *plt, *dyn, *got;
	Elf_Data *rd, *dd;
	uint64_t base;
	size_t i, n;
	char name[512];

	if (!gelf_getehdr(elf, &eh) || eh.e_machine != EM_X86_64)
		return 0;
	rela = elf_file__section(elf, ".rela.plt", &rsh);
	if (!rela || rsh.sh_type != SHT_RELA || !rsh.sh_entsize)
		return 0;
	if ((plt = elf_file__section(elf, ".plt.sec", &psh)) && psh.sh_type == SHT_PROGBITS) {
		base = psh.sh_addr;
	} else if ((plt = elf_file__section(elf, ".plt", &psh)) && psh.sh_type == SHT_PROGBITS) {
		base = psh.sh_addr + 16;
	} else {
		return 0;
	}
	got = elf_file__section(elf, ".got.plt", &gsh);
	if (!got)
		return 0;
	dyn = elf_getscn(elf, rsh.sh_link);
	if (!dyn || !gelf_getshdr(dyn, &dsh) || !(rd = elf_getdata(rela, NULL)) || !(dd = elf_getdata(dyn, NULL)))
		return 0;
	n = rsh.sh_size / rsh.sh_entsize;
	struct irel_stub *irel = NULL;
	size_t nirel = 0;
	int err = 0;
	for (i = 0; i < n && !err; i++) {
		GElf_Rela r;
		GElf_Sym sym;
		const char *sn;
		uint64_t at, slot;

		if (!gelf_getrela(rd, (int)i, &r))
			continue;
		if (GELF_R_TYPE(r.r_info) != R_X86_64_JUMP_SLOT && GELF_R_TYPE(r.r_info) != R_X86_64_IRELATIVE)
			continue;
		if (r.r_offset < gsh.sh_addr + 24 || (r.r_offset - gsh.sh_addr) % 8)
			continue;
		slot = (r.r_offset - gsh.sh_addr) / 8 - 3;
		at = base + 16 * slot;
		if (at + 16 > psh.sh_addr + psh.sh_size)
			continue;
		if (GELF_R_TYPE(r.r_info) == R_X86_64_IRELATIVE) {
			if (!irel && !(irel = calloc(n, sizeof(*irel))))	/* at most one per relocation */
				err = -ENOMEM;
			else
				irel[nirel++] = (struct irel_stub){ .at = at, .resolver = (uint64_t)r.r_addend };
			continue;
		}
		if (!gelf_getsym(dd, (int)GELF_R_SYM(r.r_info), &sym))
			continue;
		sn = elf_strptr(elf, dsh.sh_link, sym.st_name);
		if (!sn || !*sn)
			continue;
		snprintf(name, sizeof(name), "%s@plt", sn);
		if (symtab__add(t, at, 16, 0, name, strlen(name), 0))
			err = -ENOMEM;
	}
	if (!err && nirel)
		err = irel_symbols(t, elf, dd, &dsh, irel, nirel);
	free(irel);
	return err;
}

static bool elf_has_symtab(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			return true;
	return false;
}

static int read_segments(struct elf_object *o, Elf *elf)
{
	GElf_Ehdr eh;
	size_t phnum, i;

	if (!gelf_getehdr(elf, &eh) || elf_getphdrnum(elf, &phnum))
		return -EINVAL;
	o->is_exec = eh.e_type == ET_EXEC;
	o->segs = calloc(phnum ? phnum : 1, sizeof(*o->segs));
	if (!o->segs)
		return -ENOMEM;
	for (i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		o->segs[o->nsegs++] = (struct load_seg){ ph.p_offset, ph.p_vaddr, ph.p_filesz, ph.p_memsz };
	}
	return 0;
}

bool elf_file__is_program(Elf *elf)
{
	GElf_Ehdr eh;
	size_t phnum;

	if (!gelf_getehdr(elf, &eh) || elf_getphdrnum(elf, &phnum))
		return false;
	if (eh.e_type == ET_EXEC)
		return true;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph))
			continue;
		if (ph.p_type == PT_INTERP)
			return true;
		if (ph.p_type != PT_DYNAMIC)
			continue;
		Elf_Data *d = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz, ELF_T_DYN);
		GElf_Dyn dyn;
		for (int k = 0; d && gelf_getdyn(d, k, &dyn) && dyn.d_tag != DT_NULL; k++)
			if (dyn.d_tag == DT_FLAGS_1 && (dyn.d_un.d_val & DF_1_PIE))
				return true;	/* static-pie */
	}
	return false;
}

/* The code at e_entry is where the kernel (or ld.so) starts a program's main
 * thread: glibc's crt1 _start. A stripped executable (as, the gcc driver) has
 * no symbol there, so its complete stacks would end in "[as]" where every
 * other program's end in "_start", and a reader could not tell them from a
 * frame of unknown code. perf leaves it unnamed; we name it "_start", as the
 * unwinder already treats it as the outermost frame (uctx__is_entry). Only
 * for programs (elf_file__is_program; also runnable libraries like
 * libc.so.6, whose e_entry is their entry when run). A shared library's
 * e_entry is merely the start of .text, some function.
 * Called on a finished symtab; a real symbol covering e_entry, from any
 * source (.symtab, .dynsym, debug file, MiniDebugInfo), always wins. The
 * range is _start's FDE (glibc's start.S has CFI), else 64 bytes, the
 * unwinder's entry window; a sized symbol starting inside it still wins. */
static int entry_symbol(struct symtab *t, Elf *elf)
{
	GElf_Ehdr eh;
	uint64_t size = 64;

	if (!gelf_getehdr(elf, &eh) || !eh.e_entry || !elf_file__is_program(elf))
		return 0;
	if (symtab__find(t, eh.e_entry))
		return 0;
	Dwarf_CFI *cfi = dwarf_getcfi_elf(elf);
	Dwarf_Frame *fr;
	Dwarf_Addr start, end;

	if (cfi && dwarf_cfi_addrframe(cfi, eh.e_entry, &fr) == 0) {
		if (dwarf_frame_info(fr, &start, &end, NULL) >= 0 && start == eh.e_entry && end > start)
			size = end - start;
		free(fr);
	}
	if (cfi)
		dwarf_cfi_end(cfi);
	if (symtab__add(t, eh.e_entry, size, 0, "_start", strlen("_start"), 0))
		return -ENOMEM;
	return symtab__finish(t);
}

/* Symbols from the separate debug file at path, their names left in it:
 * *elfp is the file open, which the names point into until the caller has
 * finished the table, released SYMTAB_SRC_DEBUG to o->debug_fd (the file's
 * descriptor, kept: DWARF is read from it later too) and ended *elfp. */
static int symbols_from_file(struct elf_object *o, const char *path, uint32_t bonus, Elf **elfp)
{
	int fd = safe_open_file(path), err;
	Elf *elf;

	*elfp = NULL;
	if (fd < 0)
		return 0;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf) {
		close(fd);
		return 0;
	}
	if (o->debug_fd >= 0)
		close(o->debug_fd);
	o->debug_fd = fd;
	err = elf_symbols(&o->syms, elf, bonus, SYMTAB_SRC_DEBUG);
	*elfp = elf;
	return err < 0 ? err : 0;
}

/* The table finished while the files its names point into are open, then
 * the names left to be read from the descriptors. */
static int finish_and_release(struct elf_object *o, Elf *debug_elf)
{
	int err = symtab__finish(&o->syms);

	symtab__release(&o->syms, SYMTAB_SRC_FILE, o->elf_fd);
	symtab__release(&o->syms, SYMTAB_SRC_DEBUG, o->debug_fd);
	if (debug_elf)
		elf_end(debug_elf);
	return err;
}

/* A separate debug file whose compressed sections claim no more than it
 * could hold (said when not). */
static bool debug_file_sane(const char *path)
{
	struct stat st;
	char why[160];
	int fd = safe_open(path, NULL, &st);
	bool ok = false;

	if (fd < 0)
		return false;
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf) {
		ok = elf_file__compressed_sane(elf, (uint64_t)st.st_size, why, sizeof(why));
		if (!ok)
			safe_open__note(path, why);
		elf_end(elf);
	}
	close(fd);
	return ok;
}

struct go_add {
	struct symtab *t;
	uint64_t lo, hi;	/* the table's text */
	size_t have;		/* function symbols already there */
};

static int count_go_range(const struct gopclntab_func *f, void *arg)
{
	struct go_add *g = arg;

	if (!g->lo || f->entry < g->lo)
		g->lo = f->entry;
	if (f->end > g->hi)
		g->hi = f->end;
	return 0;
}

static int add_go_func(const struct gopclntab_func *f, void *arg)
{
	struct go_add *g = arg;

	if (f->end <= f->entry)
		return 0;
	/* below every .symtab and .dynsym function (prio 16 and up) */
	return symtab__add(g->t, f->entry, f->end - f->entry, 0, f->name, strlen(f->name), 15) ? -ENOMEM : 0;
}

/* A Go program stripped of .symtab (Debian's Go tools, -ldflags=-s) still
 * has its runtime's function table, pclntab (gopclntab.h): its functions
 * are added when the symbols already there (from any source) name fewer
 * than half of them. Cheap where it does not apply: a C or C++ object is
 * told by its section names, a Go one with its .symtab costs one pass
 * over its table. Call before symtab__finish. */
static int go_symbols(struct symtab *t, Elf *elf)
{
	const uint8_t *data;
	size_t size, i;
	uint64_t vaddr, text;
	struct gopclntab *pt;
	struct go_add g = { t, 0, 0, 0 };
	int err = 0;

	if (gopclntab__find(elf, &data, &size, &vaddr, &text))
		return 0;
	pt = gopclntab__new(data, size, vaddr, text);
	if (!pt)
		return errno == ENOMEM ? -ENOMEM : 0;
	gopclntab__foreach(pt, count_go_range, &g);
	for (i = 0; i < t->n; i++)
		if (t->v[i].prio >= 16 && t->v[i].start >= g.lo && t->v[i].start < g.hi)
			g.have++;
	if (g.have < gopclntab__count(pt) / 2)
		err = gopclntab__foreach(pt, add_go_func, &g);
	gopclntab__delete(pt);
	return err;
}

/* The table from the cache (symtab_cache.c), where this file and its debug
 * file were read before: true when it came from there. Else *cdir is the
 * cache's directory to keep the table in once made (or -1) and name its
 * name there. */
static bool symtab_from_cache(struct elf_object *o, bool debug_syms, int *cdir, char *name, size_t len)
{
	struct stat fst, dst;
	uint32_t flags = 0;

	*cdir = -1;
	if (o->elf_fd < 0 || o->mem_image || fstat(o->elf_fd, &fst) || (debug_syms && stat(o->debug_path, &dst)))
		return false;
	int d = pp_cache_subdir("symtab");
	if (d < 0)
		return false;
	symtab_cache__name(&fst, debug_syms ? &dst : NULL, name, len);
	if (symtab_cache__load(&o->syms, d, name, &flags)) {
		*cdir = d;
		return false;
	}
	if (flags & SYMTAB_CACHE_DEBUG) {	/* its names are read from there */
		int fd = debug_syms ? safe_open_file(o->debug_path) : -1;
		if (fd < 0) {
			symtab__free(&o->syms);
			close(d);
			return false;
		}
		if (o->debug_fd >= 0)
			close(o->debug_fd);
		o->debug_fd = fd;
	}
	close(d);
	o->minidebuginfo = flags & SYMTAB_CACHE_MINI;
	symtab__release(&o->syms, SYMTAB_SRC_FILE, o->elf_fd);
	symtab__release(&o->syms, SYMTAB_SRC_DEBUG, o->debug_fd);
	return true;
}

static int load_elf(struct elf_object *o, Elf *elf, bool search_debug)
{
	int err;
	bool has_symtab;
	Elf *debug_elf = NULL;
	int cdir = -1;
	char cname[32];

	if (elf_kind(elf) != ELF_K_ELF)
		return -ENOEXEC;
	err = read_segments(o, elf);
	if (err)
		return err;
	o->build_id_size = (uint8_t)elf_build_id(elf, o->build_id, sizeof(o->build_id));
	has_symtab = elf_has_symtab(elf);
	o->has_symtab = has_symtab;
	if (search_debug) {
		char why[160];

		if (!elf_file__compressed_sane(elf, o->file_size, why, sizeof(why))) {
			safe_open__note(o->map_path, why);	/* once per file, not per way to it */
			o->dwarf_refused = true;
		}
		o->debug_path = debuginfo__find(o->path, o->map_path, elf, o->build_id, o->build_id_size, &o->debug_how);
		if (o->debug_how && !strcmp(o->debug_how, "debuginfod-later")) {
			o->debuginfod_later = true;
			o->debug_how = NULL;
		}
		if (o->debug_path && !debug_file_sane(o->debug_path)) {
			free(o->debug_path);	/* said; its DWARF is not read */
			o->debug_path = NULL;
			o->debug_how = NULL;
		}
		if (symtab_from_cache(o, o->debug_path && !has_symtab, &cdir, cname, sizeof(cname)))
			return 0;
	}
	/* names stay in a file read through a descriptor, not a memory image */
	err = elf_symbols(&o->syms, elf, 0, o->mem_image || o->elf_fd < 0 ? SYMTAB_SRC_COPY : SYMTAB_SRC_FILE);
	if (err < 0)
		goto out;
	err = plt_symbols(&o->syms, elf);
	if (err < 0)
		goto out;
	/* a debug file's .symtab is the full one: it outranks .dynsym */
	if (o->debug_path && !has_symtab) {
		err = symbols_from_file(o, o->debug_path, 1, &debug_elf);
		if (err)
			goto out;
	}
	if (!has_symtab && !o->debug_path) {
		size_t size;
		void *image = debuginfo__minidebuginfo(elf, o->file_size, o->path, &size);

		if (image) {
			Elf *mini = elf_memory(image, size);

			if (mini) {
				err = elf_symbols(&o->syms, mini, 1, SYMTAB_SRC_COPY);
				o->minidebuginfo = err > 0;
				elf_end(mini);
			}
			free(image);
			if (err < 0)
				goto out;
		}
	}
	err = go_symbols(&o->syms, elf);	/* a stripped Go binary: Go's own table */
	if (err)
		goto out;
	err = finish_and_release(o, debug_elf);
	debug_elf = NULL;
	if (!err)
		err = entry_symbol(&o->syms, elf);
	/* kept when the object goes (elf_object__delete): after the run, not
	 * while the profiled program runs */
	if (!err && cdir >= 0 && o->syms.n >= SYMTAB_CACHE_MIN) {
		bool dbg = false;
		for (size_t i = 0; i < o->syms.n && !dbg; i++)
			dbg = o->syms.v[i].src == SYMTAB_SRC_DEBUG;
		snprintf(o->syms_save, sizeof(o->syms_save), "%s", cname);
		o->syms_save_flags = (dbg ? SYMTAB_CACHE_DEBUG : 0) | (o->minidebuginfo ? SYMTAB_CACHE_MINI : 0);
	}
	if (cdir >= 0)
		close(cdir);
	return err;
out:
	if (cdir >= 0)
		close(cdir);
	if (debug_elf) {
		symtab__release(&o->syms, SYMTAB_SRC_DEBUG, -1);
		elf_end(debug_elf);
	}
	symtab__release(&o->syms, SYMTAB_SRC_FILE, -1);
	return err < 0 ? err : -EINVAL;
}

static struct elf_object *object_new(const char *path, const char *map_path)
{
	struct elf_object *o = calloc(1, sizeof(*o));
	const char *base;

	if (!o)
		return NULL;
	o->elf_fd = -1;
	o->debug_fd = -1;
	o->path = strdup(path);
	o->map_path = strdup(map_path);
	if (!o->path || !o->map_path) {
		elf_object__delete(o);
		return NULL;
	}
	base = strrchr(o->map_path, '/');
	o->dso = base && base[1] ? base + 1 : o->map_path;
	return o;
}

struct elf_object *elf_object__open_fd(int fd, const char *path, const char *map_path, const struct map *m)
{
	struct elf_object *o;
	struct stat st;
	Elf *elf = NULL;
	int err;

	elf_init();
	o = object_new(path, map_path);
	if (!o) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	if (m) {
		o->maj = m->maj;
		o->min = m->min;
		o->ino = m->ino;
	}
	/* keep the descriptor: the mapped file may vanish (map_files of an
	 * exited process, a deleted file), DWARF is read later from it */
	o->elf_fd = fd;
	if (o->elf_fd < 0 || fstat(o->elf_fd, &st))
		return o;
	o->file_size = (uint64_t)st.st_size;
	if (m && m->ino && (uint64_t)st.st_ino != m->ino)
		o->build_id_mismatch = true;
	elf = elf_begin(o->elf_fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return o;
	err = load_elf(o, elf, true);
	elf_end(elf);
	if (err == -ENOMEM) {
		elf_object__delete(o);
		errno = ENOMEM;
		return NULL;
	}
	o->loaded = err == 0;
	if (m && m->build_id_size &&
	    (m->build_id_size != o->build_id_size || memcmp(m->build_id, o->build_id, o->build_id_size)))
		o->build_id_mismatch = true;
	return o;
}

struct elf_object *elf_object__open(const char *path, const char *map_path, const struct map *m)
{
	return elf_object__open_fd(safe_open(path, NULL, NULL), path, map_path, m);
}

struct elf_object *elf_object__open_mem(const void *image, size_t size, const char *name)
{
	struct elf_object *o;
	Elf *elf;
	int err;

	elf_init();
	o = object_new(name, name);
	if (!o)
		return NULL;
	o->mem_image = image;
	o->mem_size = size;
	elf = elf_memory((char *)image, size);	/* read only: nothing is compressed in a vdso */
	if (!elf)
		return o;
	err = load_elf(o, elf, false);
	elf_end(elf);
	if (err == -ENOMEM)
		goto err;
	o->loaded = err == 0;
	return o;
err:
	elf_object__delete(o);
	errno = ENOMEM;
	return NULL;
}

void elf_object__delete(struct elf_object *o)
{
	if (!o)
		return;
	if (o->syms_save[0]) {
		int d = pp_cache_subdir("symtab");
		if (d >= 0) {
			(void)symtab_cache__save(&o->syms, d, o->syms_save, o->syms_save_flags);
			close(d);
		}
	}
	dwarf__free(o);
	symtab__free(&o->syms);
	if (o->elf_fd >= 0)
		close(o->elf_fd);
	if (o->debug_fd >= 0)
		close(o->debug_fd);
	free(o->segs);
	free(o->debug_path);
	free(o->path);
	free(o->map_path);
	free(o);
}

void elf_object__debuginfod_late(struct elf_object *o)
{
	if (!o->debuginfod_later || !debuginfo__debuginfod_now())
		return;
	o->debuginfod_later = false;
	char *p = debuginfo__fetch(o->build_id, o->build_id_size);
	if (!p || !debug_file_sane(p)) {
		free(p);
		return;
	}
	o->debug_path = p;
	o->debug_how = "debuginfod";
	o->syms_save[0] = 0;	/* the table is no longer the one its name says */
	/* added to a finished table, then finished again (as entry_symbol) */
	Elf *debug_elf = NULL;
	if (!o->has_symtab && symbols_from_file(o, p, 1, &debug_elf) == 0)
		finish_and_release(o, debug_elf);
	else if (debug_elf) {
		symtab__release(&o->syms, SYMTAB_SRC_DEBUG, -1);
		elf_end(debug_elf);
	}
	dwarf__free(o);		/* opened without it during the run: again, with it */
	o->dw_tried = false;
}

/* The mapping maps file offset pgoff at start; the PT_LOAD that holds that
 * file offset says which virtual address it is linked at. This is right for
 * PIE, shared libraries and segments with any offset/alignment, without
 * assuming where the load base is. */
bool elf_object__to_vaddr(const struct elf_object *o, const struct map *m, uint64_t addr, uint64_t *vaddr)
{
	uint64_t off = addr - m->start + m->pgoff;
	size_t i;

	for (i = 0; i < o->nsegs; i++) {
		const struct load_seg *s = &o->segs[i];

		if (off >= s->offset && off < s->offset + s->filesz) {
			*vaddr = off - s->offset + s->vaddr;
			return true;
		}
	}
	/* past a segment's file contents (bss-like, or a map beyond EOF) */
	for (i = 0; i < o->nsegs; i++) {
		const struct load_seg *s = &o->segs[i];

		if (off >= s->offset && off < s->offset + s->memsz) {
			*vaddr = off - s->offset + s->vaddr;
			return true;
		}
	}
	if (o->is_exec) {	/* fixed addresses */
		*vaddr = addr;
		return true;
	}
	return false;
}

const char *elf_object__lacks(const struct elf_object *o)
{
	if (o->has_symtab || o->debug_path || o->minidebuginfo)
		return "no symbol covers them";
	if (o->debuginfod_later)
		return "no .symtab; its debug file was not fetched";
	return "no .symtab, no debug file (install its debug symbols package, or set DEBUGINFOD_URLS)";
}
