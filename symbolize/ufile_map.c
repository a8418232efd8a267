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
#include <zlib.h>
#include <zstd.h>

#include "pprobe/safe_open.h"
#include "unwind_internal.h"

#define NATIVE_DATA (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB)

struct zsec {
	int idx;		/* section index of the frame section, -1 none */
	bool gnu;		/* .zdebug_frame ("ZLIB" + 8 bytes big-endian size) */
	bool zstd;		/* ELFCOMPRESS_ZSTD (2): one zstd frame; else zlib */
	uint64_t in_off, in_len;	/* the deflate stream in the file */
	uint64_t out_len;	/* what it inflates to */
	uint64_t align;
	int nr_compressed;	/* compressed sections outside the image */
};

static const Elf64_Shdr *shdr_at(const uint8_t *data, const Elf64_Ehdr *eh, unsigned i)
{
	return (const Elf64_Shdr *)(data + eh->e_shoff) + i;
}

/* The section's name, if it is NUL-terminated inside the file; else NULL. */
static const char *sec_name(const uint8_t *data, size_t size, const Elf64_Ehdr *eh, const Elf64_Shdr *sh)
{
	if (eh->e_shstrndx >= eh->e_shnum)
		return NULL;
	const Elf64_Shdr *st = shdr_at(data, eh, eh->e_shstrndx);
	if (st->sh_type == SHT_NOBITS || st->sh_offset > size || st->sh_size > size - st->sh_offset ||
	    sh->sh_name >= st->sh_size)
		return NULL;
	const char *s = (const char *)data + st->sh_offset + sh->sh_name;
	return memchr(s, 0, st->sh_size - sh->sh_name) ? s : NULL;
}

static bool is_compressed(const Elf64_Shdr *sh, const char *name)
{
	if (sh->sh_type == SHT_NOBITS || (sh->sh_flags & SHF_ALLOC))
		return false;
	return (sh->sh_flags & SHF_COMPRESSED) || (name && !strncmp(name, ".zdebug", 7));
}

#ifndef ELFCOMPRESS_ZSTD
#define ELFCOMPRESS_ZSTD 2	/* glibc's elf.h has it from 2.37 */
#endif

/* Where the compressed frame section's stream is and what it claims; false
 * when it is not one we inflate (another compression, a lie, out of the
 * file). */
static bool frame_stream(const uint8_t *data, size_t size, const Elf64_Shdr *sh, bool gnu, struct zsec *z)
{
	if (sh->sh_offset > size || sh->sh_size > size - sh->sh_offset)
		return false;
	const uint8_t *p = data + sh->sh_offset;
	uint64_t hdr;
	if (gnu) {
		hdr = 12;
		if (sh->sh_size < hdr || memcmp(p, "ZLIB", 4))
			return false;
		z->out_len = 0;
		z->zstd = false;
		for (int i = 4; i < 12; i++)
			z->out_len = z->out_len << 8 | p[i];
		z->align = 8;
	} else {
		Elf64_Chdr ch;
		hdr = sizeof(ch);
		if (sh->sh_size < hdr)
			return false;
		memcpy(&ch, p, sizeof(ch));
		if (ch.ch_type != ELFCOMPRESS_ZLIB && ch.ch_type != ELFCOMPRESS_ZSTD)
			return false;
		z->zstd = ch.ch_type == ELFCOMPRESS_ZSTD;
		z->out_len = ch.ch_size;
		z->align = ch.ch_addralign ? ch.ch_addralign : 1;
	}
	z->in_off = sh->sh_offset + hdr;
	z->in_len = sh->sh_size - hdr;
	return z->out_len && z->out_len <= elf_file__decompressed_cap(size) && z->out_len <= UINT32_MAX &&
	       z->in_len <= UINT32_MAX;
}

/* 0: the file can be given to libdw as it is or after ufile_map's edits,
 * z says which; -EFBIG: it has compressed sections we cannot edit (another
 * class or byte order: the file is not used). */
static int scan(const uint8_t *data, size_t size, struct zsec *z)
{
	Elf64_Ehdr eh;
	z->idx = -1;
	z->nr_compressed = 0;
	if (size < sizeof(eh) || memcmp(data, ELFMAG, SELFMAG))
		return 0;	/* ufile__parse says what it is */
	memcpy(&eh, data, sizeof(eh));
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != NATIVE_DATA) {
		/* read it with libelf, which knows every class and order */
		Elf *e = elf_memory((char *)data, size);
		int err = 0;
		for (Elf_Scn *s = NULL; e && !err && (s = elf_nextscn(e, s));) {
			GElf_Shdr sh;
			if (gelf_getshdr(s, &sh) && sh.sh_type != SHT_NOBITS && !(sh.sh_flags & SHF_ALLOC) &&
			    (sh.sh_flags & SHF_COMPRESSED))
				err = -EFBIG;
		}
		elf_end(e);
		return err;
	}
	if (!eh.e_shoff || eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shoff > size ||
	    (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr) > size - eh.e_shoff || eh.e_shoff % 8)
		return 0;	/* libelf refuses it the same way */
	for (unsigned i = 0; i < eh.e_shnum; i++) {
		const Elf64_Shdr *sh = shdr_at(data, &eh, i);
		const char *nm = sec_name(data, size, &eh, sh);
		if (!is_compressed(sh, nm))
			continue;
		z->nr_compressed++;
		bool gnu = nm && !strcmp(nm, ".zdebug_frame");
		if (z->idx < 0 && nm && (gnu || !strcmp(nm, ".debug_frame")) && frame_stream(data, size, sh, gnu, z)) {
			z->idx = (int)i;
			z->gnu = gnu;
		}
	}
	return 0;
}

/* Exactly out_len bytes or nothing: a stream that says more or less than
 * its header is refused (the section is hidden then). */
static bool inflate_into(const uint8_t *in, uint64_t in_len, uint8_t *out, uint64_t out_len, bool zstd)
{
	if (zstd) {
		size_t n = ZSTD_decompress(out, out_len, in, in_len);
		return !ZSTD_isError(n) && n == out_len;
	}
	z_stream zs;
	memset(&zs, 0, sizeof(zs));
	if (inflateInit(&zs) != Z_OK)
		return false;
	zs.next_in = (Bytef *)in;
	zs.avail_in = (uInt)in_len;
	zs.next_out = out;
	zs.avail_out = (uInt)out_len;
	int rc = inflate(&zs, Z_FINISH);
	bool ok = rc == Z_STREAM_END && zs.total_out == out_len;
	inflateEnd(&zs);
	return ok;
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
	const Elf64_Shdr *st = shdr_at(p, eh, eh->e_shstrndx);
	if (!sec_name(p, size, eh, zs) || zs->sh_name + sizeof(to) > st->sh_size)
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
		const char *nm = sec_name(p, size, &eh, sh);
		if (!is_compressed(sh, nm))
			continue;
		if ((int)i == z->idx && (!z->gnu || rename_zdebug(p, size, &eh, sh)) &&
		    inflate_into(p + z->in_off, z->in_len, p + out_off, z->out_len, z->zstd)) {
			sh->sh_flags &= ~(uint64_t)SHF_COMPRESSED;
			sh->sh_offset = out_off;
			sh->sh_size = z->out_len;
			sh->sh_addralign = z->align;
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
	uint64_t total = z.idx >= 0 ? out_off + z.out_len : size;
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
