/* A separate debug file as the symbolizer opens it (symbolize/debug_image.c):
 * the input is the file; its image with the compressed sections inflated,
 * the unread ones hidden, is built with and without the line table, then
 * read as the symbolizer reads it: libelf's headers, every section's data,
 * libdw's units, their DIEs and (with lines) line tables. The image must
 * be an ELF file whose sections lie inside it, but for those of the input
 * that did not (passed through untouched, for libelf to refuse as before).
 * Seeds (corpus/debug_image): tiny_O2's debug file made by objcopy
 * --only-keep-debug, with -gz DWARF compressed by zlib (d_gz), zstd (d_zstd),
 * GNU's .zdebug (d_zdebug), and as it is (d_plain). */
#include <elfutils/libdw.h>
#include <gelf.h>
#include <sys/stat.h>

#include "fuzz.h"
#include "../../symbolize/elf_zsec.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_isolate();
	elf_version(EV_CURRENT);
	return 0;
}

static void read_image(int fd, const uint8_t *data, size_t size)
{
	struct stat st;
	Elf64_Ehdr in;
	if (fstat(fd, &st))
		abort();
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		/* only where libelf refuses the input too (its header is the
		 * input's: an EI_VERSION libelf does not know) */
		Elf *ie = elf_memory((char *)data, size);
		if (ie && elf_kind(ie) == ELF_K_ELF)
			abort();
		elf_end(ie);
		elf_end(e);
		return;
	}
	if (!zsec__header(data, size, &in))
		abort();	/* an image is made of a 64-bit native ELF only */
	for (Elf_Scn *s = NULL; (s = elf_nextscn(e, s));) {
		GElf_Shdr sh;
		size_t i = elf_ndxscn(s);
		if (!gelf_getshdr(s, &sh))
			continue;
		if (sh.sh_type != SHT_NOBITS && !(sh.sh_flags & SHF_COMPRESSED) &&
		    (sh.sh_offset > (uint64_t)st.st_size || sh.sh_size > (uint64_t)st.st_size - sh.sh_offset) &&
		    (i >= in.e_shnum || zsec__shdr(data, &in, (unsigned)i)->sh_offset != sh.sh_offset ||
		     zsec__shdr(data, &in, (unsigned)i)->sh_size != sh.sh_size))
			abort();	/* data of ours outside the image */
		elf_getdata(s, NULL);
	}
	Dwarf *dw = dwarf_begin_elf(e, DWARF_C_READ, NULL);
	Dwarf_Off off = 0, next;
	size_t hsize;
	for (int n = 0; dw && n < 64 && !dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL); off = next, n++) {
		Dwarf_Die cu, child;
		Dwarf_Lines *lines;
		size_t nl;
		if (!dwarf_offdie(dw, off + hsize, &cu))
			continue;
		dwarf_getsrclines(&cu, &lines, &nl);
		if (dwarf_child(&cu, &child) == 0)
			for (int k = 0; k < 256 && dwarf_siblingof(&child, &child) == 0; k++)
				dwarf_diename(&child);
	}
	dwarf_end(dw);
	elf_end(e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd = fuzz_memfd(data, size, path, sizeof(path));
	if (fd < 0)
		abort();
	for (int lines = 0; lines < 2; lines++) {
		int img = debug_image__open(fd, lines);
		if (img >= 0) {
			read_image(img, data, size);
			close(img);
		}
	}
	close(fd);
	return 0;
}
