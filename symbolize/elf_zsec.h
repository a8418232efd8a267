/* Internal to symbolize: compressed sections of a 64-bit native-order ELF
 * image read by hand (elf_zsec.c), for the two places that inflate them
 * without libelf: the unwinder's mapping (ufile_map.c: .debug_frame) and the
 * symbolizer's debug files (debug_image: everything libdw reads for names,
 * inline frames and lines). Every offset and size is checked against the
 * image's size before it is read. */
#ifndef PPROBE_ELF_ZSEC_H
#define PPROBE_ELF_ZSEC_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ZSEC_NATIVE_DATA (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB)

/* A compressed section's stream: what it claims, where it is. */
struct zsec_stream {
	bool gnu;		/* .zdebug_* ("ZLIB" + 8 bytes big-endian size) */
	bool zstd;		/* ELFCOMPRESS_ZSTD (2): one zstd frame; else zlib */
	uint64_t in_off, in_len;	/* the stream in the image */
	uint64_t out_len;	/* what it inflates to */
	uint64_t align;		/* the section's alignment once inflated */
};

/* The ELF header of data when it is 64-bit, native order, and its section
 * header table lies in the image (copied into *eh); else false. */
bool zsec__header(const uint8_t *data, size_t size, Elf64_Ehdr *eh);
const Elf64_Shdr *zsec__shdr(const uint8_t *data, const Elf64_Ehdr *eh, unsigned i);
/* The section's name, if it is NUL-terminated inside the image; else NULL. */
const char *zsec__name(const uint8_t *data, size_t size, const Elf64_Ehdr *eh, const Elf64_Shdr *sh);
/* A section libdw would inflate: SHF_COMPRESSED or .zdebug_*, not loaded. */
bool zsec__compressed(const Elf64_Shdr *sh, const char *name);
/* The stream of compressed section sh; false when it is not one we inflate
 * (another compression, a lie, out of the image, over
 * elf_file__decompressed_cap). */
bool zsec__stream(const uint8_t *data, size_t size, const Elf64_Shdr *sh, bool gnu, struct zsec_stream *z);
/* Inflates z's stream from data into out: exactly z->out_len bytes or
 * false (a stream that says more or less than its header is refused). */
bool zsec__inflate(const uint8_t *data, const struct zsec_stream *z, uint8_t *out);

/* The separate debug file open at fd (borrowed) as libdw may read it
 * without inflating anything: a new fd (memfd, the caller's to close) whose
 * image is the file's with each compressed section it needs inflated, and
 * those it does not (location lists, macros, and without lines the line
 * table) hidden (SHT_NOBITS, which libdw skips). Returns -errno where the
 * file should be given as it is: nothing compressed (-ENODATA), not a
 * 64-bit native ELF, a stream that does not inflate to what it says. */
int debug_image__open(int fd, bool lines);

#endif
