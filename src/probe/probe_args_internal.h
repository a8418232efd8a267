/* Internal to the fetch-arg translator (probe_args.c, probe_args_loc.c,
 * probe_args_access.c): the context of one probe_finder__fetch_args()
 * call, the value a DWARF argument evaluates to, and what the three files
 * offer each other. Not a public header. */
#ifndef PPROBE_PROBE_ARGS_INTERNAL_H
#define PPROBE_PROBE_ARGS_INTERNAL_H

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pprobe/probe_finder.h"
#include "probe_finder_internal.h"

#define MAX_TRACEFS_ARRAY 64	/* the kernel's MAX_ARRAY_LEN */

/* DWARF x86-64 register numbers -> tracefs (pt_regs) names */
static const char *const tf_reg[17] = { "%ax", "%dx", "%cx", "%bx", "%si", "%di", "%bp", "%sp", "%r8",
					"%r9", "%r10", "%r11", "%r12", "%r13", "%r14", "%r15", "%ip" };
/* SysV x86-64 integer argument registers */
static const char *const abi_reg[6] = { "%di", "%si", "%dx", "%cx", "%r8", "%r9" };

static inline char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

/* ---- context of one call ---- */
struct ctx {
	struct probe_finder *pf;
	const struct pf_point *pt;
	bool kernel;
	bool dwarf;		/* a scope was found at the point */
	Dwarf_Die cu;
	Dwarf_Die *scopes;
	int nscopes;
	int k;			/* index of the instance in scopes */
	int lo;			/* scopes[lo..k]: the instance and its blocks holding addr */
	int phys;		/* index of the physical subprogram in scopes (frame base) */
	bool at_prologue;	/* out-of-line instance, addr in [entry, prologue end) */
	Dwarf_Addr entry;
	Dwarf_CFI *eh_cfi;	/* owned (dwarf_getcfi_elf) */
	bool eh_tried;
	const char *arg;	/* the argument being translated (for messages) */
	struct sbuf notes;
	/* results */
	struct pf_fetch_arg *out;
	int nout;
};

enum vkind { V_REG, V_MEM, V_IMM, V_PIECES };

struct piece;

struct val {
	enum vkind kind;
	char *fetch;		/* V_REG: the register ("%di", "$retval"); V_MEM: the base
				 * address's fetch, NULL for an absolute address */
	int64_t off;		/* V_MEM: offset from base (absolute: the link-time address) */
	int bitoff;		/* V_REG: a sub-field of a register-held struct */
	int64_t imm;		/* V_IMM */
	Dwarf_Die type;
	bool has_type;
	int dim;		/* arrays: the dimension the next [i] indexes */
	int bit_size, bit_off, container;	/* a bitfield member (bit_size > 0) */
	struct piece *pieces;	/* V_PIECES: the parts of a value split by DW_OP_piece */
	int npieces;
};

struct piece {
	struct val v;
	int64_t start, size;	/* bytes of the value this piece holds */
	char *why;		/* not available: why; NULL: v holds it */
};

static inline int fail(struct ctx *c, int ret, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static inline int fail(struct ctx *c, int ret, const char *fmt, ...)
{
	char msg[1536];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	const struct pf_point *pt = c->pt;
	return pf_fail(c->pf, ret, "argument '%s' at %s+%" PRIu64 "%s: %s", c->arg ? c->arg : "?",
			pt->symbol ? pt->symbol : pt->function ? pt->function : "?", pt->sym_offset,
			pt->retprobe ? "%return" : "", msg);
}

/* How the x86-64 calling convention passes a type (probe_args_loc.c). */
enum aclass { A_INT, A_INT2, A_SSE, A_MEM, A_UNSURE };

/* The reason probe_finder__strerror() holds, after "argument '...' at ...: " */
static inline const char *reason(struct ctx *c)
{
	const char *e = probe_finder__strerror(c->pf);
	const char *r = strstr(e, ": ");
	return r ? r + 2 : e;
}

/* ---- probe_args.c ---- */
void val_free(struct val *v);

/* ---- probe_args_loc.c ---- */
enum aclass abi_class(Dwarf_Die *t, int64_t *size);
int select_piece(struct ctx *c, struct val *v, int64_t off, int64_t size, const char *what);
int whole(struct ctx *c, struct val *v, const char *what);
int setup_scope(struct ctx *c);
Dwarf_Die *decl_of(Dwarf_Die *inst, Dwarf_Die *buf);
int lookup_var(struct ctx *c, const char *name, struct val *v);

/* ---- probe_args_access.c ---- */
bool peel(const struct val *v, Dwarf_Die *out);
int64_t tsize(Dwarf_Die *t);
char *type_str(const struct val *v);
bool base_encoding(Dwarf_Die *p, Dwarf_Word *enc);
bool is_char_type(Dwarf_Die *t);
int array_dims(Dwarf_Die *arr, int64_t *counts, int max);
const char *scalar_type(Dwarf_Die *t, char *buf, size_t len, const char **why);
char *mem_fetch(struct ctx *c, const struct val *v);
char *value_fetch(struct ctx *c, const struct val *v, const char *what);
bool member_offset(Dwarf_Die *m, int64_t *off);
void member_names(Dwarf_Die *st, struct sbuf *b, int *cnt, int depth);
int bitfield(struct ctx *c, Dwarf_Die *m, int64_t *moff, struct val *v, const char *what);
int do_member(struct ctx *c, struct val *v, const char *name, const char *what);
int do_deref(struct ctx *c, struct val *v, int64_t off, const char *what);
int do_index(struct ctx *c, struct val *v, int64_t idx, const char *what);

#endif
