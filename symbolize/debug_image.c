/* A separate debug file as libdw may read it without inflating: libdw
 * inflates every compressed debug section of a file when it opens its DWARF
 * (dwarf_begin_elf), through zlib, whether or not it is read after. For
 * libc6-dbg's libc that is 10 MB, 40 ms here, once per run; with ld.so and
 * libm 81 ms, a fixed cost that was the largest of a profile.
 *
 * The image (a memfd, so libdwfl opens it like a file) is the file's bytes
 * where they are, each needed compressed section inflated after the file's
 * end (libdeflate: elf_zsec.c), its header pointing there, and the section
 * headers after that. Sections the symbolizer never reads are not inflated
 * but hidden (SHT_NOBITS, which libdw skips): location lists, macros,
 * public names, and the line table where no line is asked for. The
 * compressed bytes are not copied (the memfd's holes cost no memory), so the
 * image costs what libdw's own buffers would have. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf_zsec.h"
#include "pprobe/safe_open.h"

static bool hidden(const char *name, bool lines)
{
	static const char *const never[] = {
		".debug_loclists", ".debug_loc", ".debug_macro", ".debug_macinfo", ".debug_pubnames",
		".debug_pubtypes", ".debug_gnu_pubnames", ".debug_gnu_pubtypes",
	};
	if (!name)
		return false;
	if (!lines && !strcmp(name, ".debug_line"))
		return true;
	for (size_t i = 0; i < sizeof(never) / sizeof(never[0]); i++)
		if (!strcmp(name, never[i]))
			return true;
	return false;
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

/* What becomes of each section: kept (its bytes where they are), inflated
 * (after the file's end, in section order) or hidden. */
struct plan {
	struct zsec_stream *z;	/* per section; z[i].out_len 0: not inflated */
	bool *hide;
	uint64_t shoff, size;	/* the section headers' offset; the image's size */
};

/* Returns the image's size, 0 where the file is better given as it is. */
static uint64_t plan(const uint8_t *data, size_t size, const Elf64_Ehdr *eh, bool lines, struct plan *p)
{
	uint64_t off = align_up(size, 4096), inflated = 0;
	unsigned n = 0;

	for (unsigned i = 0; i < eh->e_shnum; i++) {
		const Elf64_Shdr *sh = zsec__shdr(data, eh, i);
		const char *nm = zsec__name(data, size, eh, sh);
		if (!zsec__compressed(sh, nm) || (nm && !strncmp(nm, ".zdebug", 7)))
			continue;	/* GNU's .zdebug_*: libdw inflates them as before */
		if (hidden(nm, lines)) {
			p->hide[i] = true;
			n++;
			continue;
		}
		struct zsec_stream *z = &p->z[i];
		if (!zsec__stream(data, size, sh, false, z) || (z->align & (z->align - 1)) || z->align > 4096)
			return 0;	/* libelf says what it makes of it */
		inflated += z->out_len;
		if (inflated > elf_file__decompressed_cap(size))
			return 0;
		off = align_up(off, z->align < 8 ? 8 : z->align) + z->out_len;
		n++;
	}
	if (!n)
		return 0;
	p->shoff = align_up(off, 8);
	p->size = p->shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr);
	return p->size;
}

/* Copies what libdw reads of the file as it is: the ELF and program
 * headers, and every section that keeps its bytes. */
static void copy_kept(uint8_t *img, const uint8_t *data, size_t size, const Elf64_Ehdr *eh, const struct plan *p)
{
	memcpy(img, data, sizeof(*eh));
	if (eh->e_phoff && eh->e_phoff <= size &&
	    (uint64_t)eh->e_phnum * eh->e_phentsize <= size - eh->e_phoff)
		memcpy(img + eh->e_phoff, data + eh->e_phoff, (size_t)eh->e_phnum * eh->e_phentsize);
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		const Elf64_Shdr *sh = zsec__shdr(data, eh, i);
		if (p->hide[i] || p->z[i].out_len || sh->sh_type == SHT_NOBITS || sh->sh_type == SHT_NULL ||
		    sh->sh_offset > size || sh->sh_size > size - sh->sh_offset)
			continue;
		memcpy(img + sh->sh_offset, data + sh->sh_offset, sh->sh_size);
	}
}

/* Inflates the planned sections and writes the section headers; false
 * where a stream does not inflate to what it claims. */
static bool fill(uint8_t *img, const uint8_t *data, size_t size, const Elf64_Ehdr *eh, const struct plan *p)
{
	Elf64_Shdr *out = (Elf64_Shdr *)(img + p->shoff);
	uint64_t off = align_up(size, 4096);

	for (unsigned i = 0; i < eh->e_shnum; i++) {
		const struct zsec_stream *z = &p->z[i];
		out[i] = *zsec__shdr(data, eh, i);
		if (p->hide[i]) {
			out[i].sh_type = SHT_NOBITS;
			out[i].sh_flags &= ~(uint64_t)SHF_COMPRESSED;
			continue;
		}
		if (!z->out_len)
			continue;
		off = align_up(off, z->align < 8 ? 8 : z->align);
		if (!zsec__inflate(data, z, img + off))
			return false;
		out[i].sh_flags &= ~(uint64_t)SHF_COMPRESSED;
		out[i].sh_offset = off;
		out[i].sh_size = z->out_len;
		out[i].sh_addralign = z->align;
		off += z->out_len;
	}
	Elf64_Ehdr *neh = (Elf64_Ehdr *)img;
	neh->e_shoff = p->shoff;
	return true;
}

int debug_image__open(int fd, bool lines)
{
	struct stat st;
	Elf64_Ehdr eh;
	struct plan p = { 0 };
	uint8_t *data = MAP_FAILED, *img = MAP_FAILED;
	int out = -1, err = -ENODATA;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size <= 0)
		return -EINVAL;
	size_t size = (size_t)st.st_size;
	data = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (data == MAP_FAILED)
		return -errno;
	if (!zsec__header(data, size, &eh))
		goto out;
	p.z = calloc(eh.e_shnum ? eh.e_shnum : 1, sizeof(*p.z));
	p.hide = calloc(eh.e_shnum ? eh.e_shnum : 1, sizeof(*p.hide));
	if (!p.z || !p.hide) {
		err = -ENOMEM;
		goto out;
	}
	if (!plan(data, size, &eh, lines, &p))
		goto out;
	out = memfd_create("pprobe-debuginfo", MFD_CLOEXEC);
	if (out < 0 || ftruncate(out, (off_t)p.size)) {
		err = -errno;
		goto out;
	}
	img = mmap(NULL, p.size, PROT_READ | PROT_WRITE, MAP_SHARED, out, 0);
	if (img == MAP_FAILED) {
		err = -errno;
		goto out;
	}
	copy_kept(img, data, size, &eh, &p);
	if (!fill(img, data, size, &eh, &p)) {
		err = -EINVAL;
		goto out;
	}
	err = 0;
out:
	if (img != MAP_FAILED)
		munmap(img, p.size);
	munmap(data, size);
	free(p.z);
	free(p.hide);
	if (err) {
		if (out >= 0)
			close(out);
		return err;
	}
	return out;
}
