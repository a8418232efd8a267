/* How the unwinder maps an ELF file for libdw: never with a compressed
 * section in it. libdw inflates compressed sections in place (elf_compress
 * rewrites the section header and hands the Elf a new buffer); over our
 * shared read-only mapping that is a write fault (Go binaries, gcc -gz), and
 * over a writable one each Elf on the same pages would see the others'
 * half-rewritten headers. So, once per file:
 *   - a compressed .debug_frame (SHF_COMPRESSED with zlib or zstd, or GNU's
 *     .zdebug_frame) is inflated here into anonymous pages just after the file's image, and its
 *     section header points there, uncompressed (.zdebug_frame is renamed
 *     .debug_frame in our copy of the name table);
 *   - every other compressed section outside the loaded image becomes
 *     SHT_NOBITS (libdw skips it: the unwinder reads no other DWARF);
 * all in private copy-on-write pages: the file is never written. */
#define _GNU_SOURCE
#include <errno.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "elf_zsec.h"
#include "unwind_internal.h"

struct zsec {
	int idx;		/* section index of the frame section, -1 none */
	struct zsec_stream s;	/* its stream */
	int nr_compressed;	/* compressed sections outside the image */
};

/* A section libelf would inflate if libdw asked, in libelf's own view of
 * the file (its section count, names and headers). */
static bool lib_compressed(Elf *e, Elf_Scn *s, bool have_str, size_t shstr, GElf_Shdr *sh)
{
	if (!gelf_getshdr(s, sh) || sh->sh_type == SHT_NOBITS || (sh->sh_flags & SHF_ALLOC))
		return false;
	if (sh->sh_flags & SHF_COMPRESSED)
		return true;
	const char *nm = have_str ? elf_strptr(e, shstr, sh->sh_name) : NULL;
	return nm && !strncmp(nm, ".zdebug", 7);
}

/* Every section libelf would inflate is one our hand-read view (zsec__*,
 * what edit() changes) sees at the same index with the same header, and
 * counts compressed. A file where the two differ (extended section
 * numbering, an e_shentsize or unaligned e_shoff that libelf reads past,
 * a name only libelf resolves) cannot be edited safely: libelf would
 * inflate a section we did not see, in place, over read-only pages. */
static bool views_agree(Elf *e, const uint8_t *data, size_t size)
{
	size_t shnum, shstr;
	Elf64_Ehdr eh;
	if (elf_getshdrnum(e, &shnum))
		return true;	/* libelf sees no sections: libdw none either */
	bool have_str = !elf_getshdrstrndx(e, &shstr);
	bool hand = zsec__header(data, size, &eh);
	for (Elf_Scn *s = NULL; (s = elf_nextscn(e, s));) {
		GElf_Shdr sh;
		if (!lib_compressed(e, s, have_str, shstr, &sh))
			continue;
		size_t i = elf_ndxscn(s);
		if (!hand || eh.e_shnum != shnum || !have_str || eh.e_shstrndx != shstr || i >= eh.e_shnum)
			return false;
		const Elf64_Shdr *h = zsec__shdr(data, &eh, (unsigned)i);
		if (h->sh_name != sh.sh_name || h->sh_type != sh.sh_type || h->sh_flags != sh.sh_flags ||
		    h->sh_offset != sh.sh_offset || h->sh_size != sh.sh_size ||
		    !zsec__compressed(h, zsec__name(data, size, &eh, h)))
			return false;
	}
	return true;
}

/* 0: the file can be given to libdw as it is or after ufile_map's edits,
 * z says which; -EFBIG: it has compressed sections we cannot edit (another
 * class or byte order, or a header libelf reads otherwise than we do: the
 * file is not used). libelf's view decides what is compressed, as libdw
 * will read the file through it. */
static int scan(const uint8_t *data, size_t size, struct zsec *z)
{
	Elf64_Ehdr eh;
	z->idx = -1;
	z->nr_compressed = 0;
	if (size < sizeof(eh) || memcmp(data, ELFMAG, SELFMAG))
		return 0;	/* ufile__parse says what it is */
	Elf *e = elf_memory((char *)data, size);
	if (!e)
		return 0;	/* libdw is given no Elf either */
	bool agree = views_agree(e, data, size);
	elf_end(e);
	if (!agree)
		return -EFBIG;
	if (!zsec__header(data, size, &eh))
		return 0;	/* nothing compressed in libelf's view */
	for (unsigned i = 0; i < eh.e_shnum; i++) {
		const Elf64_Shdr *sh = zsec__shdr(data, &eh, i);
		const char *nm = zsec__name(data, size, &eh, sh);
		if (!zsec__compressed(sh, nm))
			continue;
		z->nr_compressed++;
		bool gnu = nm && !strcmp(nm, ".zdebug_frame");
		if (z->idx < 0 && nm && (gnu || !strcmp(nm, ".debug_frame")) && zsec__stream(data, size, sh, gnu, &z->s))
			z->idx = (int)i;
	}
	return 0;
}

/* ".zdebug_frame" becomes ".debug_frame" in our copy of the section name
 * table, unless another section's name shares those bytes (a linker may
 * merge name tails): then the section is hidden instead. */
static bool rename_zdebug(uint8_t *p, size_t size, const Elf64_Ehdr *eh, const Elf64_Shdr *zs)
{
	static const char to[] = ".debug_frame\0";	/* 14 bytes, as ".zdebug_frame" */
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		const Elf64_Shdr *sh = (const Elf64_Shdr *)(p + eh->e_shoff) + i;
		if (sh != zs && sh->sh_name >= zs->sh_name && sh->sh_name < zs->sh_name + sizeof(to))
			return false;
	}
	const Elf64_Shdr *st = zsec__shdr(p, eh, eh->e_shstrndx);
	if (!zsec__name(p, size, eh, zs) || zs->sh_name + sizeof(to) > st->sh_size)
		return false;
	memcpy(p + st->sh_offset + zs->sh_name, to, sizeof(to));
	return true;
}

/* The edits over the writable private mapping p (the file's image, then
 * room for the inflated frame section at out_off). */
static void edit(uint8_t *p, size_t size, const struct zsec *z, uint64_t out_off)
{
	Elf64_Ehdr eh;
	memcpy(&eh, p, sizeof(eh));
	for (unsigned i = 0; i < eh.e_shnum; i++) {
		Elf64_Shdr *sh = (Elf64_Shdr *)(p + eh.e_shoff) + i;
		const char *nm = zsec__name(p, size, &eh, sh);
		if (!zsec__compressed(sh, nm))
			continue;
		if ((int)i == z->idx && (!z->s.gnu || rename_zdebug(p, size, &eh, sh)) &&
		    zsec__inflate(p, &z->s, p + out_off)) {
			sh->sh_flags &= ~(uint64_t)SHF_COMPRESSED;
			sh->sh_offset = out_off;
			sh->sh_size = z->s.out_len;
			sh->sh_addralign = z->s.align;
			continue;
		}
		sh->sh_type = SHT_NOBITS;
	}
}

int ufile__map(struct ufile *f, int fd, size_t size)
{
	long pg = sysconf(_SC_PAGESIZE);
	uint8_t *p = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	struct zsec z = { .idx = -1 };
	int err = scan(p, size, &z);
	if (err || !z.nr_compressed) {
		f->data = p;
		f->size = size;
		return err;
	}
	munmap(p, size);
	/* the image, then the inflated section on the next page boundary */
	uint64_t out_off = ((uint64_t)size + (uint64_t)pg - 1) & ~((uint64_t)pg - 1);
	uint64_t total = z.idx >= 0 ? out_off + z.s.out_len : size;
	p = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	if (mmap(p, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fd, 0) == MAP_FAILED) {
		err = -errno;
		munmap(p, total);
		return err;
	}
	edit(p, size, &z, out_off);
	mprotect(p, total, PROT_READ);
	f->data = p;
	f->size = total;
	return 0;
}
