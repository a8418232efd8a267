/* Internal to the probe room (src/probe/): the finder's state, which its
 * files share, and what each offers the others. Not a public header: the
 * rest of pprobe sees include/pprobe/probe_finder.h. */
#ifndef PPROBE_PROBE_FINDER_INTERNAL_H
#define PPROBE_PROBE_FINDER_INTERNAL_H

#include <capstone/capstone.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pprobe/lazylib.h"
#include "pprobe/probe_finder.h"
#include "pprobe/sym_table.h"

/* A DWARF function instance with code: out-of-line or inlined. */
struct fn {
	const char *name;	/* owned by libdw */
	Dwarf_Off off;		/* the instance's DIE */
	Dwarf_Addr entry;
	bool inlined;
};

struct probe_finder {
	char *path;
	char *debug_path;
	char *debuglink;
	char build_id[130];
	int fd, dfd;
	Elf *elf, *delf;
	Dwarf *dw;
	bool kernel, kallsyms;
	char *module;
	char *source_dir;
	struct sym_table *symtab;
	const struct sym_entry *syms;	/* in symtab: by address, then name */
	size_t nsyms;
	struct fn *fns;
	size_t nfns;
	bool fns_loaded;
	GElf_Ehdr ehdr;
	csh cs;
	bool cs_ok;
	char err[2048];
	char nodwarf[2048];	/* why there is no DWARF (kept: err is overwritten) */
};

/* A parsed probe point or line range (probe_points.c: parse_spec). */
struct spec {
	char name[512];		/* function, or file in file form */
	char src[512];		/* FUNC@SRC */
	bool file_form;
	bool has_line;
	int line, line_end;	/* line_end: 0 none */
	bool has_off;
	uint64_t off;
	bool ret;
	char lazy[256];
	bool raw;
	uint64_t raw_addr;
};

/* A source file read whole, split into lines (probe_lines.c). */
struct source {
	char *path;
	char *buf;
	char **lines;
	int n;
};

/* A line-table row: [addr, end) belongs to line (probe_lines.c). */
struct row {
	Dwarf_Addr addr, end;
	int line;
};

/* ---- probe_finder.c ---- */
/* Sets the message probe_finder__strerror() returns; returns ret. */
int pf_fail(struct probe_finder *pf, int ret, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* A growing string: pf__sb_add appends printf-style; after a failed
 * allocation oom is set and nothing more is added. Zero-initialize. */
struct sbuf {
	char *s;
	size_t len, cap;
	bool oom;
};
void pf__sb_add(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The string built so far (malloc'ed; "" when empty); b is empty again. */
char *sb_take(struct sbuf *b);

/* What the fetch-arg translator (probe_args*.c) reads of the finder. */
Dwarf *pf__dwarf(struct probe_finder *pf);
Elf *pf__elf(struct probe_finder *pf);		/* the object itself (.eh_frame, symbols) */
Elf *pf__debug_elf(struct probe_finder *pf);	/* the separate debug file, NULL none */
unsigned pf__machine(struct probe_finder *pf);	/* e_machine */
const char *pf__nodwarf(struct probe_finder *pf);	/* why there is no DWARF */
/* An ELF symbol (function or object) by name: its address and size. */
bool pf__sym_by_name(struct probe_finder *pf, const char *name, uint64_t *addr, uint64_t *size);
/* The symbol (function or object) containing addr: name and start. */
bool pf__sym_at(struct probe_finder *pf, uint64_t addr, const char **name, uint64_t *start);

/* ---- dwarf_util.c ---- */
bool die_entry(Dwarf_Die *d, Dwarf_Addr *entry);	/* entry pc, else first range start */
const char *decl_file(Dwarf_Die *d);
const char *die_name(Dwarf_Die *d);			/* DW_AT_name, through origins */
/* Iterates the compilation units: for (Dwarf_Off o = 0; next_cu(dw, &o, &cu);) */
bool next_cu(Dwarf *dw, Dwarf_Off *off, Dwarf_Die *cu);
bool die_type(Dwarf_Die *d, Dwarf_Die *t);		/* DW_AT_type, through origins */
void type_name(Dwarf_Die *t, struct sbuf *b, int depth);
/* A type as -V shows it ("const char*", "struct req*"): malloc'ed, or
 * NULL when out of memory. */
char *pf__type_name(Dwarf_Die *type);
int64_t type_size(struct probe_finder *pf, Dwarf_Die *t);	/* bytes; -1 unknown */
bool type_signed(Dwarf_Die *t);
bool type_float(Dwarf_Die *t);
/* The first is_stmt line-table address of fn past its entry (where GCC's
 * -O0 prologue has stored the parameters). */
bool prologue_end(Dwarf_Die *fn, Dwarf_Die *cu, Dwarf_Addr entry, Dwarf_Addr *out);
bool is_fn_tag(int tag);		/* subprogram or inlined subroutine */
bool is_var_tag(int tag);		/* formal parameter or variable */

/* ---- probe_functions.c ---- */
/* The ELF function symbol containing addr (prefer want, then dwname, then
 * a global one), or NULL. */
const struct sym_entry *sym_at(struct probe_finder *pf, uint64_t addr, const char *want,
			       const char *dwname);
const struct sym_entry *sym_named(struct probe_finder *pf, const char *name);	/* a function */
bool src_match(const char *path, const char *want);	/* want is a path suffix of path */
/* Fills *idx with indexes into pf->fns for name; returns the count or -errno. */
int find_instances(struct probe_finder *pf, const char *name, const char *src, bool no_inlines,
		   size_t **idx);
/* Sets the "no function NAME" message (with suggestions); returns -ENOENT. */
int no_function(struct probe_finder *pf, const char *name, const char *src);
/* The DWARF is skeletons of split DWARF (-gsplit-dwarf): the functions'
 * DIEs are in .dwo/.dwp files, which the inspector does not read. */
bool split_dwarf(struct probe_finder *pf);

/* ---- probe_lines.c ---- */
void source_free(struct source *s);
/* Reads file of the line table of cu (made absolute, under --source). */
int load_abs(struct probe_finder *pf, Dwarf_Die *cu, const char *file, struct source *s);
/* Appends the is_stmt rows of cudie's line table in file (or a file ending
 * in it) to *rows, only those inside inside's code when not NULL. */
int collect_rows(Dwarf_Die *cudie, const char *file, bool file_suffix, Dwarf_Die *inside,
		 struct row **rows, int *n, const char **matched);
/* The bytes of the object's executable section at link-time addr, *avail
 * of them up to the section's end; NULL when no such section holds addr. */
const uint8_t *pf__code_at(struct probe_finder *pf, uint64_t addr, size_t *avail);

/* ---- probe_vars.c ---- */
void var_free(struct pf_var *v);
/* Adds the variables visible at addr in the instance inst to p. */
int collect_vars(struct probe_finder *pf, struct pf_point *p, Dwarf_Die *inst, Dwarf_Addr addr,
		 unsigned flags, const struct sym_entry *s);

/* ---- probe_points.c ---- */
/* range_ok: a -L line range rather than a probe point. */
int parse_spec(struct probe_finder *pf, const char *s, struct spec *sp, bool range_ok);

#endif
