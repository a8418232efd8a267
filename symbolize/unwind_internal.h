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
	/* the separate debug file libdw finds: 0 not looked at yet, 1 it has
	 * a .debug_frame, -1 none or no file (then libdw is not given it) */
	int8_t debug_file_cfi;
	/* .eh_frame read by libdw, opened on first need (popped slots) */
	Elf *elf;		/* over data, on first need (ufile__elf) */
	Dwarf_CFI *eh_cfi;
	bool cfi_tried;
	/* what .eh_frame covers, direct-mapped by 16-byte granule, made on
	 * first need (every sample's leaf asks): a covered row [lo, hi) (has
	 * 1), or an address it does not cover (has 2, lo) */
#define UFILE_EH_HAS 1024
	struct ufile_eh_has { uint64_t lo, hi; uint8_t has; } *eh_has;
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
	uint64_t stack_end;		/* end of the mapping holding sp; 0 if unknown */
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
	bool cfi_miss;			/* libunwind: a find_proc_info found nothing */
	bool go_known, has_go;		/* the process maps a Go file (uctx__is_go_pc) */
	/* Go: the goroutine stack a walk went on to from the system stack
	 * past runtime.asmcgocall (cgo), [alt_lo, alt_lo + alt_len) read
	 * live from the process in one snapshot; malloc'd, one per walk */
	uint64_t alt_lo, alt_len;
	uint8_t *alt;
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
};

struct unwinder {
	enum unwind_backend backend;
	bool live_allowed;
	struct uproc *procs[256];
	struct objcache *cache;		/* the files (shared with a symbolizer, maybe) */
	uint8_t *live_buf;		/* reused between samples */
	uint64_t live_cap;
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
/* len bytes of code at addr: from the mapped file, else (anonymous code, a
 * JIT's) from the live process */
bool uctx__read_code(const struct uctx *c, uint64_t addr, void *buf, size_t len);
/* Does a call instruction end at ra? */
bool uctx__after_call(const struct uctx *c, uint64_t ra);
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

/* unwind_step.c: one step from a frame without CFI (r: its registers, the
 * pc exact), r becomes the caller's; 0 when no way is sure enough, else
 * the way taken */
enum { UNWIND_STEP_GO = 1, UNWIND_STEP_EPILOGUE, UNWIND_STEP_FP, UNWIND_STEP_LAYOUT };
int uctx__nocfi_step(struct uctx *c, struct unwind_regs *r);

/* unwind_libdw.c */
int udw__sync(struct uproc *p);		/* (re)report modules; 0 or -errno */
void udw__free(struct uproc *p);
int udw__unwind(struct uctx *c, uint64_t *ips, int max, struct unwind_result *res);

/* unwind_libunwind.c */
int uun__sync(struct uproc *p);
void uun__free(struct uproc *p);
int uun__unwind(struct uctx *c, uint64_t *ips, int max, struct unwind_result *res);

#endif
