/* USDT (SystemTap SDT) probes of an ELF file: the .note.stapsdt notes.
 *
 * Each note holds the probe's address, the link-time address of the
 * .stapsdt.base section (to correct for prelinking), the semaphore's address
 * (0 if none) and "provider\0name\0arguments\0". pc and semaphore here are
 * already corrected; *_offset are file offsets, which is what a uprobe
 * (uprobe_events "BIN:0xOFF", ref_ctr_offset) wants.
 */
#ifndef PPROBE_USDT_H
#define PPROBE_USDT_H

#include <stddef.h>
#include <stdint.h>

struct usdt_probe {
	char *provider;        /* "libstdcxx" */
	char *name;            /* "throw" */
	char *args;            /* "8@%rdi 8@%rsi" (may be "") */
	uint64_t pc;           /* virtual address of the probe site */
	uint64_t pc_offset;    /* its file offset */
	uint64_t semaphore;    /* virtual address of the semaphore, 0 if none */
	uint64_t semaphore_offset;  /* its file offset, 0 if none */
};

/* All probes of PATH in note order. Returns the count (>= 0; 0 when the file
 * has none) or -errno (-ENOENT, -EACCES, -ENOEXEC for a non-ELF file);
 * *out is owned by the caller: usdt__free(). */
int usdt__read(const char *path, struct usdt_probe **out);
void usdt__free(struct usdt_probe *probes, int nr);

#endif
