/* Private to symbolize/: Go's function table (.gopclntab), which every Go
 * binary keeps even stripped: function names and ranges, and the frame
 * size at each pc (pcsp), which is how Go's own runtime unwinds. */
#ifndef PPROBE_GOPCLNTAB_H
#define PPROBE_GOPCLNTAB_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

struct gopclntab;

struct gopclntab_func {
	uint64_t entry, end;	/* [entry, end): file vaddrs */
	const char *name;	/* borrowed: in the table's bytes, NUL-terminated */
};

/* data/size: the table (borrowed: must outlive it); vaddr: its address;
 * text_start: the .text section's address (tables before Go 1.18 hold
 * absolute entries and do not need it). NULL with errno: EINVAL (not a
 * table of a known version, or inconsistent), ENOMEM. Never reads outside
 * data. */
struct gopclntab *gopclntab__new(const uint8_t *data, size_t size, uint64_t vaddr, uint64_t text_start);
void gopclntab__delete(struct gopclntab *t);	/* accepts NULL */

/* The table of elf (section .gopclntab): 0, or -ENOENT. */
int gopclntab__find(Elf *elf, const uint8_t **data, size_t *size, uint64_t *vaddr, uint64_t *text_start);

/* The function holding pc: 0, or -ENOENT. O(log n). */
int gopclntab__lookup(const struct gopclntab *t, uint64_t pc, struct gopclntab_func *out);

/* The frame size at pc: bytes from sp to the slot of the return address
 * (amd64: the caller's sp is sp + delta + 8). 0, or -ENOENT. */
int gopclntab__pcsp(const struct gopclntab *t, uint64_t pc, int64_t *delta);

/* cb for each function in address order; a non-zero return stops and is
 * returned. */
int gopclntab__foreach(const struct gopclntab *t, int (*cb)(const struct gopclntab_func *f, void *arg), void *arg);

#endif
