/* Internal to the symbolize library: what probe_args.c (the fetch-arg
 * translator) needs from probe_finder.c's opaque struct probe_finder. Not a
 * public header. */
#ifndef PPROBE_PROBE_FINDER_INTERNAL_H
#define PPROBE_PROBE_FINDER_INTERNAL_H

#include <elfutils/libdw.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>

#include "pprobe/probe_finder.h"

Dwarf *pf__dwarf(struct probe_finder *pf);
Elf *pf__elf(struct probe_finder *pf);		/* the object itself (.eh_frame, symbols) */
Elf *pf__debug_elf(struct probe_finder *pf);	/* the separate debug file, NULL none */
unsigned pf__machine(struct probe_finder *pf);	/* e_machine */
const char *pf__nodwarf(struct probe_finder *pf);	/* why there is no DWARF */

/* Sets the message probe_finder__strerror() returns; returns ret. */
int pf__fail(struct probe_finder *pf, int ret, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* An ELF symbol (function or object) by name: its address and size. */
bool pf__sym_by_name(struct probe_finder *pf, const char *name, uint64_t *addr, uint64_t *size);
/* The symbol (function or object) containing addr: name and start. */
bool pf__sym_at(struct probe_finder *pf, uint64_t addr, const char **name, uint64_t *start);
/* The first is_stmt line-table address of fn past its entry (where GCC's
 * -O0 prologue has stored the parameters). */
bool pf__prologue_end(Dwarf_Die *fn, Dwarf_Die *cu, Dwarf_Addr entry, Dwarf_Addr *out);

/* A growing string: pf__sb_add appends printf-style; after a failed
 * allocation oom is set and nothing more is added. Zero-initialize. */
struct sbuf {
	char *s;
	size_t len, cap;
	bool oom;
};
void pf__sb_add(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A type as -V shows it ("const char*", "struct req*"): malloc'ed, or
 * NULL when out of memory. */
char *pf__type_name(Dwarf_Die *type);

#endif
