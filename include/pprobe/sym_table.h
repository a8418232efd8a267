/* Every symbol name of one object, for tools that look symbols up by name
 * as well as by address (the probe room: -F listings, FUNC[+OFF] without
 * DWARF, @SYM globals, the symbol around a probe address). Part of the
 * symbolize library; it reads ELF symbol tables and /proc/kallsyms with the
 * same readers as the symbolizer, whose own table keeps one best name per
 * address where this one keeps them all (aliases such as malloc and
 * __libc_malloc).
 *
 * Ownership: a struct sym_table owns its entries and their names; the
 * array sym_table__syms() returns stays valid until the next
 * sym_table__add_*() or sym_table__delete(). Functions return >= 0 or
 * -errno and print nothing. */
#ifndef PPROBE_SYM_TABLE_H
#define PPROBE_SYM_TABLE_H

#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sym_entry {
	const char *name;	/* ELF: without a version suffix ("memcpy", not
				 * "memcpy@GLIBC_2.2.5") */
	uint64_t addr;		/* link-time address (kallsyms: the running kernel's) */
	uint64_t size;		/* st_size, 0 unknown; kallsyms: up to the next symbol */
	bool func;		/* STT_FUNC/STT_GNU_IFUNC or a kallsyms text symbol;
				 * else an STT_OBJECT */
	bool global;		/* not STB_LOCAL; kallsyms: an upper-case type */
};

struct sym_table;

struct sym_table *sym_table__new(void);		/* NULL + errno */
void sym_table__delete(struct sym_table *t);	/* accepts NULL */

/* Adds the function and data object symbols of elf's .symtab and .dynsym
 * (defined ones, not SHN_ABS). Call it for an object and for its separate
 * debug file: a name at one address is kept once (the larger size, global
 * when either is). */
int sym_table__add_elf(struct sym_table *t, Elf *elf);

/* Adds the text symbols (t T w W) of path (NULL: /proc/kallsyms) of one
 * kernel module, or of the kernel itself when module is NULL. Each symbol
 * extends to the next one; the last has size 0. Meant for an empty table.
 * -errno when path cannot be read. */
int sym_table__add_kallsyms(struct sym_table *t, const char *path, const char *module);

/* The symbols sorted by address, then name; *n is their count. */
const struct sym_entry *sym_table__syms(const struct sym_table *t, size_t *n);

#endif
