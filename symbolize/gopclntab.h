/* Private to symbolize/: Go's pclntab, the function table every Go binary
 * keeps for its own runtime (stack traces, GC, unwinding) and that
 * stripping (-ldflags=-s -w, strip) leaves in place. Names and ranges of
 * every Go function, and the SP delta at any pc. Formats of Go 1.2-1.15
 * (magic 0xfffffffb), 1.16-1.17 (0xfffffffa), 1.18-1.19 (0xfffffff0) and
 * 1.20+ (0xfffffff1); little endian, pointers of 8 or 4 bytes. */
#ifndef PPROBE_GOPCLNTAB_H
#define PPROBE_GOPCLNTAB_H

#include <stddef.h>
#include <stdint.h>

#include <libelf.h>

struct gopclntab;

struct gopclntab_func {
	uint64_t entry, end;	/* [entry, end) file vaddrs */
	const char *name;	/* borrowed: points into the table bytes, NUL-terminated (verified) */
};

/* data/size: the pclntab bytes (borrowed; must outlive the table). vaddr:
 * the table's own vaddr (kept; no supported format needs it). text_start:
 * the vaddr of the Go text (runtime.text, else the .text section's start):
 * Go 1.18+ tables give entries as offsets from it, and their header's own
 * copy is used when not 0 (a PIE may leave it to a dynamic relocation).
 * Checks the header, that every function's _func record lies in data and
 * that entries ascend: O(n). NULL with errno (EINVAL unknown magic or
 * corrupt, ENOMEM). Never reads outside data. */
struct gopclntab *gopclntab__new(const uint8_t *data, size_t size, uint64_t vaddr, uint64_t text_start);
void gopclntab__delete(struct gopclntab *t);

/* Finds the table in an ELF: section .gopclntab (or .data.rel.ro.gopclntab
 * of an internally linked PIE); else the section holding the
 * `runtime.pclntab` symbol if .symtab has one; else, in a Go binary (a
 * .go.buildinfo or .note.go.buildid section) linked externally, the bytes
 * starting with a pclntab header inside .data.rel.ro that gopclntab__new
 * accepts. *data points into elf's data (valid while elf is); *size runs
 * to the end of the section (or to runtime.epclntab). 0 or -ENOENT. */
int gopclntab__find(Elf *elf, const uint8_t **data, size_t *size, uint64_t *vaddr, uint64_t *text_start);

/* Function containing pc: 0, or -ENOENT (none, or its name is not in the
 * table). O(log n). */
int gopclntab__lookup(const struct gopclntab *t, uint64_t pc, struct gopclntab_func *out);

/* SP delta at pc inside its function: bytes from sp to the slot holding
 * the return address (so caller's sp = sp + delta + 8, ra = *(sp + delta)
 * on amd64); 0 at a function's entry. 0 or -ENOENT (pc outside any
 * function, a function without a pcsp table, or a corrupt table). Decodes
 * the pcsp pc-value table (varint zig-zag value deltas, pc deltas in
 * units of the pc quantum). */
int gopclntab__pcsp(const struct gopclntab *t, uint64_t pc, int64_t *delta);

/* Calls cb for every function in address order, skipping those whose name
 * is not NUL-terminated inside the table; stops early when cb returns
 * non-zero (returned). 0 at the end. */
int gopclntab__foreach(const struct gopclntab *t, int (*cb)(const struct gopclntab_func *f, void *arg), void *arg);

/* How many functions the table lists (named or not). */
size_t gopclntab__count(const struct gopclntab *t);

#endif
