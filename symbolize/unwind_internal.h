/* Private to symbolize/unwind*.c: state shared by the libdw and libunwind
 * backends. */
#ifndef PPROBE_UNWIND_INTERNAL_H
#define PPROBE_UNWIND_INTERNAL_H

#include <elfutils/libdw.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "pprobe/unwind.h"
#include "sym_internal.h"

#define UNW_MAX_LOADS 16

/* The unwinder's view of one ELF file of the object cache (objcache.c),
 * shared by every process that maps the same file (by identity, not by
 * name). */
struct ufile {
	struct objcache_entry *cached;	/* its entry in the cache (NULL: the vdso) */
	char *path;		/* as in the maps */
	char *open_path;	/* what was opened (maybe /proc/PID/root/...) */
	const char *name;	/* basename of path */
	int err;		/* 0, or -errno: the file could not be had or read */
	const uint8_t *data;	/* whole file, mmap'd */
	size_t size;
	bool data_borrowed;	/* the cache's vdso copy: not ours to unmap */
	uint16_t e_type;
	uint64_t entry;		/* e_entry */
	uint64_t entry_size;	/* its code: _start's FDE, else 64; 0 not known yet */
	bool program;		/* elf_file__is_program (uctx__is_entry) */
	char *interp_name;	/* a program's PT_INTERP, basename */
	char *soname;		/* a shared object's DT_SONAME */
	int nr_loads;
	struct {
		uint64_t vaddr, memsz, offset, filesz;
		uint32_t flags;
	} loads[UNW_MAX_LOADS];
	uint64_t align;		/* page alignment used for bias */
	uint64_t first_load;	/* first PT_LOAD's p_vaddr & -p_align (libdw's module start) */
	/* .eh_frame_hdr (binary search table) for libunwind */
	uint64_t eh_hdr_vaddr;	/* 0: none */
	uint64_t eh_table_vaddr;
	uint64_t eh_fde_count;
	bool has_eh_frame, has_debug_frame;
	/* .debug_info or .debug_line: libdw reads its DWARF (and so its
	 * .debug_frame, or none) from the file itself, never a debug file's */
	bool has_dwarf;
	/* the separate debug file libdw finds: 0 not looked at yet, 1 it has
	 * a .debug_frame, -1 none or no file (then libdw is not given it) */
	int8_t debug_file_cfi;
	/* .eh_frame read by libdw, opened on first need (popped slots) */
	Elf *elf;		/* over data, on first need (ufile__elf) */
	Dwarf_CFI *eh_cfi;
	uint64_t eh_hdr_offset, eh_hdr_size;		/* PT_GNU_EH_FRAME */
	uint64_t eh_frame_offset, eh_frame_size, eh_frame_addr;	/* the .eh_frame section */
	bool eh_hdr_late;	/* .eh_frame_hdr's section after .eh_frame's */
	uint8_t *cfi_view;	/* eh_cfi's image where eh_hdr_late: the file, mapped again */
	size_t cfi_view_size;
	Elf *cfi_elf;
	bool cfi_tried;
	/* the .eh_frame rows walks met, compiled (unwind_fast.c), all of
	 * them in the pool, by FDE; and copies hashed by address, 1 <<
	 * cfi_rows_bits slots; made on first need */
	struct cfi_pool *cfi_pool;
	struct cfi_row *cfi_rows;
	uint8_t cfi_rows_bits;
	uint32_t cfi_misses;	/* lookups the slots missed since the table was made */
	/* Go (unwind_go.c): a Go file, its root functions found on first need */
	bool is_go, go_ready;
#define UFILE_GO_ROOTS 16
	int nr_go_roots;
	struct { uint64_t lo, hi; } go_roots[UFILE_GO_ROOTS];
	int nr_go_cgo;
	struct { uint64_t lo, hi; } go_cgo[2];	/* runtime.asmcgocall */
	struct gopclntab *go_table;	/* .gopclntab, if any */
};

/* An ELF file placed in a process: addresses [low, high) = file vaddr + bias. */
struct umod {
	struct ufile *file;
	uint64_t bias;
	uint64_t low, high;
	uint64_t text_low, text_high;	/* union of the executable mappings */
	bool in_dwfl;		/* libdw has it as a module (udw__sync) */
};

/* One .eh_frame row, [lo, hi) in file addresses: absent (no row), one only
 * libdw evaluates, or one in the forms the fast path steps (unwind_fast.c:
 * CFA = cfa_reg + cfa_off, each register's rule kind[i] with off[i]). */
enum { CFI_ROW_EMPTY, CFI_ROW_ABSENT, CFI_ROW_LIBDW, CFI_ROW_FAST };
struct cfi_row {
	uint64_t lo, hi;
	uint8_t state;
	bool signal;		/* a signal frame's (its caller's pc is exact) */
	uint8_t cfa_reg;
	uint8_t kind[UNWIND_NR_REGS];
	int32_t cfa_off;
	int16_t off[UNWIND_NR_REGS];
	struct cfa_expr *cfa_expr;	/* the CFA by an expression (unwind_fast.c), or NULL */
};

struct uproc;

/* Per-sample context, reachable from the backends' memory callbacks. */
struct uctx {
	struct unwinder *u;
	struct uproc *proc;
	const struct maps *maps;
	const struct unwind_regs *regs;
	uint64_t sp;			/* stack copy */
	const uint8_t *data;
	uint64_t size;
	/* end of the mapping holding sp (0: unknown), and whether it is
	 * unknown because the process is gone: uctx__stack_end's, found at
	 * the first need */
	uint64_t stack_end_;
	bool stack_gone_, stack_end_known;
	uint64_t live_floor;		/* see struct unwind_stack */
	/* live stack beyond the copy: bytes [sp + size, live_end) in live */
	uint8_t *live;
	uint64_t live_len, live_cap;
	int live_state;			/* 0 untried, 1 usable, -1 refused */
	bool used_live;
	bool mem_fail;			/* a stack read failed (truncation) */
	uint64_t fail_addr;
	bool live_allowed;
	/* libdw: the registers a walk starts from, when not the sample's
	 * (a walk resumed past a frame without CFI) */
	const struct unwind_regs *init_regs;
	uint64_t init_pc;		/* with init_regs: the pc libdw starts at, if not their ip */
	bool cfi_miss;			/* libunwind: a find_proc_info found nothing */
	bool go_known, has_go;		/* the process maps a Go file (uctx__is_go_pc) */
	/* Go: the goroutine stack a walk went on to from the system stack
	 * past runtime.asmcgocall (cgo), [alt_lo, alt_lo + alt_len) read
	 * live from the process in one snapshot; malloc'd, one per walk */
	uint64_t alt_lo, alt_len;
	uint8_t *alt;
	/* a walk done again (unwind_libdw.c's check): the first one's */
	uint8_t *alt_again;
	uint64_t alt_again_lo, alt_again_len;
	/* data's first exact bytes are the sample's copy, the rest the
	 * thread's earlier samples' (unwind_history.c); 0: all the copy */
	uint64_t exact;
	bool used_history;		/* the walk read past exact */
	/* the sampled frame's register save slots below sp, which its
	 * epilogue already popped, with the values the pops restored */
	bool popped_done;
	int nr_popped;
	struct { uint64_t addr, val; } popped[UNWIND_NR_REGS];
};

struct uproc {
	struct uproc *next;
	pid_t pid;
	const struct maps *maps;	/* last seen */
	uint64_t maps_gen;
	uint64_t sig;			/* hash of the executable file mappings */
	bool have_sig;
	struct umod *mods;
	int nr_mods, cap_mods;
	void *backend;			/* Dwfl * or unw_addr_space_t */
	bool backend_stale;		/* modules changed since the backend saw them */
	struct uctx *ctx;		/* current sample */
	/* stack mappings found in /proc/PID/maps when maps lacked them */
#define UPROC_STACKS 16
	struct { uint64_t start, end; } stacks[UPROC_STACKS];
	int next_stack;
	bool gone;			/* /proc/PID is gone: not asked again */
	struct ustack_img *imgs;	/* threads' last stacks, most recent first */
	int nr_imgs;
};

struct code_cache;

struct unwinder {
	enum unwind_backend backend;
	bool live_allowed;
	struct uproc *procs[256];
	struct objcache *cache;		/* the files (shared with a symbolizer, maybe) */
	uint8_t *live_buf;		/* reused between samples */
	uint64_t live_cap;
	bool fast;			/* libdw backend: the fast path first (unwind_fast.c) */
	bool check;			/* PPROBE_UNWIND_CHECK: every walk also without it */
	bool history;			/* threads' earlier stacks kept (unwind_history.c) */
	struct unwind_check check_stats;
	uint64_t hist_bytes;		/* of all threads' images */
	size_t cs;			/* capstone's handle (unwind_step.c), */
	int cs_state;			/* once cs_state is 1 (-1: refused) */
	struct code_cache *code;	/* anonymous code read in this walk (uctx__read_code) */
};

/* ufile_map.c: maps fd's size bytes into f->data/f->size, as libdw may be
 * given them: compressed sections inflated or hidden (0 or -errno) */
int ufile__map(struct ufile *f, int fd, size_t size);

/* unwind.c: the view of the file open at fd (borrowed: not closed), mapped
 * as path, opened as open_path (NULL: path); fd < 0: a view that says
 * err. Its err is set where the file cannot be read or unwound. NULL only
 * on ENOMEM. */
struct ufile *ufile__open(const char *path, const char *open_path, int fd, int err);
/* The same over an image in memory that outlives it (the vdso's copy),
 * which libdw opens as open_path. */
struct ufile *ufile__open_image(const char *path, const char *open_path, const void *data, size_t size);
void ufile__free(struct ufile *f);	/* accepts NULL */

/* objcache.c: the unwinder's view of e, made on first need; NULL where
 * the file could not be had or read (or ENOMEM). The vdso's, from the
 * cache's one copy: NULL for another ABI's. */
struct ufile *objcache__ufile(struct objcache *c, struct objcache_entry *e);
struct ufile *objcache__vdso_ufile(struct objcache *c, const struct map *m);

/* unwind.c */
const struct umod *uproc__find_mod(const struct uproc *p, uint64_t addr);
/* The end of the mapping holding the sampled sp, 0 if unknown; gone: it
 * is unknown because the process is gone. Asked of /proc (a PROCMAP_QUERY,
 * an open of /proc/PID/maps, once per stack mapping of a process) when a
 * walk first needs it, not for every sample: a short-lived process's
 * samples often need it for none. */
uint64_t uctx__stack_end(struct uctx *c, bool *gone);
/* Reads 8 bytes at addr of the sampled process: stack copy, then the live
 * stack beyond it (validated), then read-only file contents. */
bool uctx__read_word(struct uctx *c, uint64_t addr, uint64_t *val);
bool uctx__is_exec(const struct uctx *c, uint64_t addr);
/* len bytes at addr of the live process (any memory: a Go g) */
bool uctx__read_live(const struct uctx *c, uint64_t addr, void *buf, size_t len);
/* [lo, hi) of the live process, read now, becomes the other stack the
 * walk reads (a goroutine's); false where live reads are not allowed or
 * fail, or one was taken already */
bool uctx__take_alt_stack(struct uctx *c, uint64_t lo, uint64_t hi);
/* The Elf over f's mapping, made on first need, ended with f: .eh_frame's
 * CFI and Go's table read through it */
Elf *ufile__elf(struct ufile *f);
Dwarf_CFI *ufile__eh_cfi(struct ufile *f);

/* unwind_fast.c: f's .eh_frame row at file address a (NULL: no memory) */
const struct cfi_row *ufile__cfi_row(struct ufile *f, uint64_t a);
/* Does a CFI_ROW_FAST row say the return address is undefined (outermost)? */
bool cfi_row__ra_undefined(const struct cfi_row *row);
/* libdw finds no .debug_frame for f: none in it, and its DWARF is its own
 * or the debug file it finds has none (known once libdw has looked) */
static inline bool ufile__no_debug_frame(const struct ufile *f)
{
	return !f->has_debug_frame && (f->has_dwarf || f->debug_file_cfi < 0);
}
/* unwind_libdw.c: whether f's separate debug file has a .debug_frame
 * (debug_file_cfi), found as libdw's walk would find it, for a walk that
 * meets a frame without .eh_frame before libdw has looked: libdw's walk
 * would first make its own view of the file's .eh_frame (50-100 ms for
 * libLLVM, once per process), only to learn that no debug file has one. */
void ufile__look_for_debug_frame(struct ufile *f);
/* The rows' memory (ufile__free). */
void ufile__free_rows(struct ufile *f);
/* Walks from c's registers while the rows are plain, ips[0] already set,
 * and through anonymous code (a JIT's) by steps without CFI, as libdw's
 * walk would step it (counted in res->fp_frames). True: the walk ended
 * there, *n frames, res->end set. False: the backend walks on from frame
 * *n (0: from the sample), whose registers are *from (ips[*n] is their
 * pc). */
/* unwind_libdw.c: libdw's step from frame registers r (pc: the sampled
 * one if initial, else a return address) to its caller's, into *out; false
 * where libdw would end the walk there or a read failed (c as before). */
bool udw__step(struct uctx *c, const struct unwind_regs *r, bool initial, struct unwind_regs *out);
bool ufast__walk(struct uctx *c, uint64_t *ips, int max, int *n, struct unwind_regs *from,
		 struct unwind_result *res);
/* len bytes of code at addr: from the mapped file, else (anonymous code, a
 * JIT's) from the live process */
bool uctx__read_code(const struct uctx *c, uint64_t addr, void *buf, size_t len);
/* Does a call instruction end at ra? */
bool uctx__after_call(const struct uctx *c, uint64_t ra);
/* The longest call instruction: notrack, REX, FF, ModRM, SIB, disp32 */
#define X86_CALL_MAX 9
bool x86_call_ends(const uint8_t b[X86_CALL_MAX]);
/* addr (a lookup pc: return address - 1) lies in the ELF entry point code
 * (_start of the executable or of ld.so, which has no CFI): the kernel
 * started the thread there, so it is the outermost frame. */
bool uctx__is_entry(const struct uctx *c, uint64_t addr);
const char *uctx__dso_name(const struct uctx *c, uint64_t addr);

/* unwind_go.c: lookup pc is in a function where Go's own traceback stops
 * (runtime.goexit, mstart, the stack switches): the stack is complete */
bool uctx__is_root(const struct uctx *c, uint64_t lpc);
void ufile__go_free(struct ufile *f);

/* Go code at r's pc: 1 stepped r to the caller by its pcsp table, 0 not Go
 * code with a table (try another way), -1 Go code that could not be stepped */
int uctx__go_step(struct uctx *c, struct unwind_regs *r);

/* pc lies in a Go file's code (what the Go steps below apply to: the
 * check every frame of a walk can afford) */
bool uctx__is_go_pc(struct uctx *c, uint64_t pc);

/* r: the registers of a frame at a return address in runtime.asmcgocall,
 * which called C on the thread's system stack: 1 stepped r to
 * asmcgocall's caller (runtime.cgocall) on the goroutine's stack, as Go's
 * own traceback joins them; 0 not such a frame or not found */
int uctx__go_cgo_step(struct uctx *c, struct unwind_regs *r);

/* pc, a return address, is runtime.systemstack_switch's entry (a pc the
 * runtime saves, not one a call left): its frame is looked up at pc */
bool uctx__go_switch_pc(const struct uctx *c, uint64_t pc);

/* Go code of mapping um at lookup pc lpc: its frame size there by Go's
 * pcsp table (true), for the fast walk (unwind_fast.c); false: no table,
 * or lpc in none of its functions. */
bool uctx__go_frame_size(const struct umod *um, uint64_t lpc, int64_t *size);

/* pc, a return address in Go code, is where libdw's walk takes Go's own
 * steps (uctx__go_cgo_step's asmcgocall, uctx__go_switch_pc's switch) */
bool uctx__go_special(const struct uctx *c, uint64_t pc);

/* unwind_history.c: c's copy joined with what tid's last sample saw above
 * it (true: c->data, c->size now the joined bytes, c->exact the copy's);
 * after the walk, tid's stack noted from c (without the joined part unless
 * keep_extension); the images of a process freed */
bool uhist__extend(struct uctx *c, pid_t tid);
void uhist__note(struct uctx *c, pid_t tid, bool keep_extension);
void uhist__free(struct unwinder *u, struct uproc *p);
/* unwind_go.c: the process maps Go code */
bool uctx__has_go(struct uctx *c);

/* unwind_step.c: one step from a frame without CFI (r: its registers, the
 * pc exact), r becomes the caller's; 0 when no way is sure enough, else
 * the way taken */
enum { UNWIND_STEP_GO = 1, UNWIND_STEP_EPILOGUE, UNWIND_STEP_FP, UNWIND_STEP_EMULATED, UNWIND_STEP_LAYOUT };
int uctx__nocfi_step(struct uctx *c, struct unwind_regs *r);
/* The steps without CFI one walk takes (libdw's resumes after them, and
 * the fast walk's through anonymous code) */
#define UNWIND_MAX_NOCFI_STEPS 64
void unwinder__free_step(struct unwinder *u);

/* unwind_libdw.c */
int udw__sync(struct uproc *p);		/* (re)report modules; 0 or -errno */
void udw__free(struct uproc *p);
int udw__unwind(struct uctx *c, uint64_t *ips, int max, struct unwind_result *res);

/* unwind_libunwind.c */
int uun__sync(struct uproc *p);
void uun__free(struct uproc *p);
int uun__unwind(struct uctx *c, uint64_t *ips, int max, struct unwind_result *res);

#endif
