/* DWARF inspector behind `pprobe -F/-L/-V` (perf probe's syntax), and the
 * resolver the probe-creation code uses to turn FUNC[+OFF], FUNC:LINE and
 * FUNC%return into addresses and file offsets. The probe room's library
 * (src/probe/, split by job: probe_functions.c -F, probe_lines.c -L,
 * probe_vars.c -V, probe_points.c probe points, probe_args*.c fetch
 * arguments); it uses symbolize's public headers and knows nothing of
 * perf_event or tracefs.
 *
 * Ownership: every object returned is owned by the caller and freed with
 * its __delete(); strings inside it belong to it. Functions return >= 0 or
 * -errno; after a failure probe_finder__strerror() says what failed and why
 * in a sentence fit for the user. */
#ifndef PPROBE_PROBE_FINDER_H
#define PPROBE_PROBE_FINDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct probe_finder;

struct probe_finder_opts {
	const char *binary;	/* -x: executable or shared library; NULL: the kernel */
	const char *vmlinux;	/* -k: kernel image with DWARF (default:
				 * /usr/lib/debug/boot/vmlinux-$(uname -r) when present) */
	const char *module;	/* -m: kernel module name or .ko path */
	const char *source_dir;	/* --source: prefix for source file paths */
};

/* Opens the object and finds its debug info. Without debug info the finder
 * still works for -F (ELF symbols, or /proc/kallsyms for the kernel) and
 * has_dwarf() is false. NULL + errno when the object cannot be opened;
 * then err (if not NULL) holds the reason. */
struct probe_finder *probe_finder__new(const struct probe_finder_opts *opts,
				       char *err, size_t errlen);
void probe_finder__delete(struct probe_finder *pf);	/* accepts NULL */

const char *probe_finder__strerror(const struct probe_finder *pf);
const char *probe_finder__path(const struct probe_finder *pf);	/* object inspected ("[kernel.kallsyms]" for kallsyms) */
const char *probe_finder__build_id(const struct probe_finder *pf);	/* hex, "" unknown */
const char *probe_finder__debug_path(const struct probe_finder *pf);	/* file with the DWARF, NULL none */
bool probe_finder__has_dwarf(const struct probe_finder *pf);
bool probe_finder__is_kernel(const struct probe_finder *pf);

/* perf's strfilter syntax: globs joined by '&' and '|', negated by '!',
 * grouped by '(' ')'. Returns 1 match, 0 no match, -EINVAL bad filter. */
int probe_filter__match(const char *filter, const char *name);
#define PROBE_FILTER_DEFAULT "!_* & !*@plt"	/* perf probe -F's default */

/* -F: sorted, unique probe-able function names: DWARF subprograms with code
 * (out-of-line and inlined-only ones), ELF function symbols (compiler clones
 * under their symbol names), or kallsyms text symbols. filter NULL: default.
 * Returns the count and *names (free with probe_finder__free_names). */
int probe_finder__functions(struct probe_finder *pf, const char *filter, char ***names);
void probe_finder__free_names(char **names, int n);

/* -L */
struct pf_insn {
	uint64_t addr;
	char *symbol;		/* ELF function symbol containing addr; NULL none */
	uint64_t sym_offset;
	char *text;		/* "movq %rdi, %rax" (AT&T on x86) */
};

struct pf_line {
	int lineno;		/* absolute line number */
	bool probeable;		/* an is_stmt line-table row lies in the range */
	const char *text;	/* source line without '\n'; NULL without source */
	struct pf_insn *insns;	/* with_asm: instructions attributed to the line */
	int ninsns;
};

struct line_listing {
	char *function;		/* FUNC form: the function; NULL for SRC form */
	char *file;		/* source path as the line table names it */
	char *source;		/* file actually read; NULL when not found */
	int offset;		/* FUNC form: decl line (printed numbers are lineno - offset) */
	int first;		/* first line of the range asked for (absolute) */
	struct pf_line *lines;
	int nlines;
};

/* spec: FUNC[@SRC][:RLN[+NUM|-RLN2]] or SRC[:ALN[+NUM|-ALN2]].
 * Without the source file the listing still holds the probe-able lines
 * (text NULL, source NULL). */
int probe_finder__lines(struct probe_finder *pf, const char *spec, bool with_asm,
			struct line_listing **out);
void line_listing__delete(struct line_listing *l);

/* -V and probe resolution */
enum pf_var_state {
	PF_VAR_LOCATION,	/* fetchable: register, memory, global */
	PF_VAR_CONST,		/* DW_AT_const_value, implicit or literal value */
	PF_VAR_COMPUTED,	/* a DWARF expression (e.g. entry value) a probe cannot fetch */
	PF_VAR_OPTIMIZED_OUT,	/* no location at this address */
};

struct pf_var {
	char *name;
	char *type;		/* "const char*", "struct rect*", "size_t" */
	int64_t byte_size;	/* of the type; -1 unknown */
	enum pf_var_state state;
	char *where;		/* LOCATION: "%di", "-20(%bp)", "CFA-20", "@sym";
				 * CONST: the value; COMPUTED: what it is; else NULL */
	bool param;
	bool external;		/* --externs: a CU-level variable */
	bool before_prologue;	/* LOCATION is a stack slot the prologue has not
				 * filled yet (-O0 code at the function's entry) */
	uint64_t valid_from;	/* before_prologue: first address past the
				 * prologue, as an offset from the symbol */
	char *range;		/* PF_RANGE: "@<sym+[a-b,...]> lines L1-L2,..." */
};

struct pf_point {
	char *function;		/* source name of the function (DWARF) */
	char *symbol;		/* ELF symbol containing addr ("scale.constprop.0") */
	uint64_t addr;		/* link-time virtual address */
	uint64_t sym_offset;	/* addr - symbol start */
	uint64_t file_offset;	/* offset in the binary's file (uprobes); 0 kernel */
	bool retprobe;
	char *file;		/* source file of addr (line table) */
	int line;
	bool inlined;		/* an inlined instance */
	char *call_file;	/* inlined: where it was inlined */
	int call_line;
	char *caller;		/* inlined: the function it was inlined into */
	struct pf_var *vars;
	int nvars;
};

struct pf_points {
	struct pf_point *pts;
	int n;
};

enum {
	PF_VARS = 1 << 0,	/* collect variables */
	PF_EXTERNS = 1 << 1,	/* with CU-level variables */
	PF_RANGE = 1 << 2,	/* with where each variable is available */
	PF_NO_INLINES = 1 << 3,	/* out-of-line instances only */
};

/* spec: FUNC[@SRC][:RLN|+OFFS|%return|;PTN] or SRC:ALN / SRC;PTN, or
 * 0xADDR. Every instance: out-of-line copies and clones, inlined copies
 * (unless PF_NO_INLINES); every address of a line. Offsets are checked to
 * start an instruction inside the function (-EINVAL otherwise).
 * Without DWARF, FUNC[+OFFS] and FUNC%return resolve through ELF symbols. */
int probe_finder__find(struct probe_finder *pf, const char *spec, unsigned flags,
		       struct pf_points **out);
void pf_points__delete(struct pf_points *p);

/* 0 when addr (link-time) starts an instruction inside an ELF function
 * symbol (decoded with capstone from the symbol's start); -EINVAL with a
 * reason in strerror otherwise. */
int probe_finder__check_insn(struct probe_finder *pf, uint64_t addr);

/* Link-time address -> offset in the file (for uprobes); -ENOENT when no
 * PT_LOAD segment maps it. */
int probe_finder__file_offset(struct probe_finder *pf, uint64_t addr, uint64_t *off);

/* Offset in the file -> link-time address (a profile's sampled address made
 * link-time: address - mapping start + mapping offset, then this); -ENOENT
 * when no PT_LOAD segment maps it. */
int probe_finder__vaddr(struct probe_finder *pf, uint64_t off, uint64_t *addr);

/* ---- annotate (src/probe/probe_annotate.c) ---- */
struct pf_asm_insn {
	uint64_t addr;		/* link-time */
	char *text;		/* "idivl %ecx" (AT&T on x86) */
	char *file;		/* the line table's file of addr: an inlined function's
				 * own file for its code; NULL unknown */
	int line;		/* 0 unknown */
	char *inlined;		/* the innermost function inlined at addr; NULL: the
				 * function's own code */
	char *src;		/* the text of file:line; NULL when the file is unreadable */
};

struct pf_asm {
	char *symbol;		/* the ELF function symbol disassembled */
	uint64_t addr, size;	/* its link-time start and st_size */
	struct pf_asm_insn *insns;	/* in address order */
	size_t n;
	bool truncated;		/* stopped early: bytes capstone could not decode, or the cap */
};

#define PF_ASM_MAX_BYTES (1U << 20)	/* a function larger is refused (a hostile st_size) */

/* The ELF function symbol containing link-time addr, disassembled, each
 * instruction with its source line and inline function from DWARF (none
 * without DWARF). -ENOENT: no function symbol holds addr, or its bytes are
 * not in the file; -EFBIG: over PF_ASM_MAX_BYTES; -ENOTSUP: no decoder for
 * the machine. Free with pf_asm__delete(). */
int probe_finder__disasm(struct probe_finder *pf, uint64_t addr, struct pf_asm **out);
void pf_asm__delete(struct pf_asm *a);	/* accepts NULL */

/* ---- fetch arguments (src/probe/probe_args.c) ---- */

/* One tracefs fetch-arg, for uprobe_events/kprobe_events "NAME=FETCH[:TYPE]". */
struct pf_fetch_arg {
	char *name;	/* "path", "req_len", "arg1" (sanitized: [A-Za-z0-9_], unique in the probe) */
	char *fetch;	/* "+0(+16(%di))", "%si", "$retval", "@+0x4010" (uprobe) / "@sym+8" (kprobe) */
	char *type;	/* "string", "u32", "s64", "x64", "b3@4/32", "s32[4]", ...; never NULL */
};

/* Translate perf probe arguments at one resolved point (from probe_finder__find()):
 *   [NAME=]VAR[->MEMBER|.MEMBER|[INDEX]]...[:TYPE]   DWARF variable, members, arrays;
 *   *VAR dereferences; $retval takes members too (only on a %return point)
 *   $params  $vars  (expand to several args; what cannot be fetched is skipped)
 *   %REG  @SYM  +OFF(ARG)  $argN  $stackN  $stack  $comm  \IMM   raw forms, checked
 * TYPE: string, ustring, u8..u64, s8..s64, x8..x64, char, symbol, symstr,
 * b<width>@<offset>/<container>, any of the non-string ones with [N].
 * Default types come from DWARF (char* -> string only when asked; ints by size and
 * signedness; pointers x64; bitfields b<w>@<o>/<c>; arrays of scalars ELEM[N]).
 * Locations: registers by tracefs x86-64 names (%di %si %dx %cx %r8 %r9 %ax %bx %bp %sp
 * %r10..%r15 %ip), stack and CFA-relative slots rewritten to %sp/%bp-relative through
 * CFI at the probe address, globals as @+OFF (uprobe: the offset the kernel adds to
 * the probed file's load base, i.e. vaddr - probe vaddr + probe file offset) or
 * @SYM+OFF (kernel). A parameter whose -O0 stack slot the prologue has not filled
 * yet is fetched where the x86-64 calling convention passes it; a local before
 * the function's first statement holds nothing yet and is refused. A value split
 * into DW_OP_pieces (a struct in two registers) yields the members inside one
 * piece; $retval of a struct is %rax:%rdx or memory at %rax, by the ABI. A constant
 * (DW_AT_const_value, implicit value) becomes the immediate \VALUE. A variable
 * optimized out at that address, only computable (entry value, arithmetic), split
 * into pieces, or a float is an error naming the variable and why (never a
 * garbage fetch).
 * Returns the number of args (>= 0) and *out (free with pf_fetch_args__free), or
 * -errno with probe_finder__strerror() saying which argument and why. On success
 * probe_finder__strerror() holds notes on what $params/$vars skipped and why
 * ("" when nothing was skipped). */
int probe_finder__fetch_args(struct probe_finder *pf, const struct pf_point *pt,
			     const char *const *args, int nargs,
			     struct pf_fetch_arg **out);
void pf_fetch_args__free(struct pf_fetch_arg *args, int n);

#endif
