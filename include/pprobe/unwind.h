/* User-stack unwinding from a sampled register set and a copy of the stack.
 * Part of the symbolize library: it knows nothing of perf_event.
 *
 * One unwinder serves many processes. Per process it keeps (and reuses for
 * every sample) a libdw Dwfl with its modules attached to a thread-state
 * callback set, or a libunwind address space; both are rebuilt only when the
 * process's maps change (maps__generation), and then only if the set of
 * executable file mappings changed. ELF files are opened once per cache
 * (pprobe/objcache.h, shared with the symbolizer) and shared by all
 * processes that map them.
 *
 * Beyond the copy: when the copied bytes end before the outermost frame, the
 * unwinder reads the live stack of the (still running) process with
 * process_vm_readv, only inside the mapping that holds the sampled sp and
 * only above the copy, and only after checking that the code and stack
 * addresses in the last 256 bytes of the copy are still there live (the frames above the
 * sampled sp have not been popped since the sample was taken; other words
 * may change, as a callee fills its caller's buffer), and that no later
 * sample of the thread had its sp above the end of the copy (live_floor:
 * popped frames can leave their old bytes behind, which the first check
 * alone would take for live ones).
 *
 * Frames stepped without CFI (Go's tables, the code emulated to its return,
 * the frame-pointer chain: unwind_step.c) are counted in res->fp_frames; their return addresses must lie in executable mappings or
 * the walk stops there with UNWIND_NO_CFI. A walk is UNWIND_COMPLETE only
 * where the CFI marks the return address undefined (_start, clone's thread
 * start) or in the ELF entry code (_start of the executable or ld.so).
 *
 * Usage from a sampling loop: unwind each sample while the process still
 * runs (online), with the maps as known at that moment (MMAP2-only maps
 * without stack mappings are fine: the stack's extent is then read from
 * /proc/PID/maps once per thread stack); call unwinder__forget() on EXIT and
 * on exec (COMM with misc & PERF_RECORD_MISC_COMM_EXEC). [vdso] frames are
 * unwound with this kernel's vdso image. Not thread-safe: one unwinder per
 * thread. */
#ifndef PPROBE_UNWIND_H
#define PPROBE_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pprobe/maps.h"

enum unwind_backend { UNWIND_LIBDW, UNWIND_LIBUNWIND };

/* x86-64 DWARF register numbering:
 * 0 rax, 1 rdx, 2 rcx, 3 rbx, 4 rsi, 5 rdi, 6 rbp, 7 rsp, 8-15 r8-r15, 16 rip */
#define UNWIND_NR_REGS 17
#define UNWIND_REG_BP 6
#define UNWIND_REG_SP 7
#define UNWIND_REG_IP 16
struct unwind_regs {
	uint64_t r[UNWIND_NR_REGS];
	uint32_t valid;		/* bit i: r[i] valid */
};

/* Default PERF_SAMPLE_STACK_USER size for events that fire on every
 * occurrence (tracepoints, probes, --off-cpu's switch-outs): perf's 8 KB.
 * On our own recursions (tests/unit/test_unwind --sweep, -O2 without frame
 * pointers) 2 KB plus the live stack already completed 100% of stacks at
 * depths 10..1000. Real programs keep frames of KBs: a malloc uprobe on
 * one gcc -O2 -c (cc1's range analysis, 2-4 KB a frame, 234,490 mallocs)
 * completed 96.9% with 4 KB, 98.7% with 8 KB, 98.9% with 16 KB; the
 * compile took 0.46 s alone, 2.5 s traced with 4 KB copies, 3.05 s with 8,
 * 4.6 s with 16 (perf record --call-graph dwarf, 8 KB: 2.8 s). Where the
 * thread has moved on before its sample is unwound, no sample holds the
 * bytes beyond a copy: a larger copy is the only cure, and it is paid by
 * the traced program at every hit. */
#define UNWIND_DEFAULT_STACK_COPY 8192

/* The copy for events sampled at a rate (cpu-clock, cycles: a sample per
 * ms per CPU, never a burst): the most the kernel allows. Real programs
 * keep their stacks' lower part moving: on a make -j2 of C sources (cc1
 * stacks of 6 to 14 KB, frames of KBs) the live stack beyond a 4 KB copy
 * had moved on for 7% of the samples; copies of 16, 32, 48 and 64 KB
 * completed 98.0, 99.3, 99.5 and 99.8%. The kernel copies only up to the
 * top of the stack (dyn_size), and pprobe keeps only those bytes, so the
 * cost follows the stack's real depth, not this size. */
#define UNWIND_RATED_STACK_COPY 65528

/* Bytes copied from [sp, sp + size) at sample time (not owned).
 * live_floor: the highest sp the thread is known to have reached since the
 * sample (from its later samples), 0 if unknown. The frames below it have
 * returned, even where memory still holds their bytes: the live stack is
 * not used when the copy ends below live_floor. */
struct unwind_stack {
	uint64_t sp;
	const void *data;
	size_t size;
	uint64_t live_floor;
	/* the sampled thread: its earlier samples' stack bytes may complete a
	 * copy that ends short (every sample of it must come here, in time
	 * order); 0: none kept */
	pid_t tid;
};

enum unwind_end {
	UNWIND_COMPLETE,	/* reached the outermost frame (CFI marks the return address undefined) */
	UNWIND_TRUNCATED,	/* ran out of stack bytes (copy ended, live stack unusable) */
	UNWIND_NO_CFI,		/* no CFI for a pc and no valid frame-pointer fallback (end_dso says where) */
	UNWIND_UNMAPPED,	/* a pc outside every mapping */
	UNWIND_MAX_DEPTH,	/* ips[] full */
	UNWIND_NO_STACK,	/* the sample came with no stack bytes (the kernel's
				 * copy was empty: size 0) and its leaf needs them */
	UNWIND_ERROR,		/* anything else (bad CFI, unreadable file...) */
};

struct unwind_result {
	int nr;			/* entries written to ips[] */
	enum unwind_end end;
	const char *end_dso;	/* basename of the object where the walk stopped
				 * (valid until unwinder__delete), NULL if none */
	bool used_live_stack;	/* read beyond the copy with process_vm_readv */
	bool used_history;	/* read beyond the copy in the thread's earlier samples' */
	int fp_frames;		/* frames stepped without CFI (unwind_step.c) */
};

struct unwinder;

struct objcache;

/* Returns an owned unwinder or NULL with errno set. Its ELF files are
 * those of cache (pprobe/objcache.h: shared with a symbolizer, each file
 * opened once for both; the unwinder holds a reference), or of a cache of
 * its own (unwinder__new, or cache NULL). */
struct unwinder *unwinder__new(enum unwind_backend backend);
struct unwinder *unwinder__new_cached(enum unwind_backend backend, struct objcache *cache);
void unwinder__delete(struct unwinder *u);	/* accepts NULL */

/* Unwind one sample of process pid (its tgid; any thread of it) whose
 * address space is maps. regs must hold at least ip and sp (and all the
 * callee-saved registers for exact results); stack may be NULL or empty.
 * ips[0] = sampled ip, then return addresses (not adjusted: symbolize them
 * at pc - 1), innermost first. Returns nr >= 1 (also written to res->nr), or
 * -errno (-EINVAL: no ip). res is always filled when non-NULL. */
int unwinder__unwind(struct unwinder *u, pid_t pid, const struct maps *maps,
		     const struct unwind_regs *regs,
		     const struct unwind_stack *stack, uint64_t *ips, int max,
		     struct unwind_result *res);

/* The process exited or exec'd: drop its cached state. */
void unwinder__forget(struct unwinder *u, pid_t pid);

/* Close the files no process known to the unwinder maps and none used since
 * the previous sweep; returns how many. A long run (record --push) calls it
 * now and then so that the cache follows the live processes. The same as
 * objcache__sweep of its cache (which a shared cache's owner calls once). */
size_t unwinder__sweep(struct unwinder *u);

/* Allow or forbid reading the live stack beyond the copy (default: allowed). */
void unwinder__set_live_stack(struct unwinder *u, bool allow);

/* The libdw backend steps plain CFI rows itself, compiled once per file,
 * and leaves the rest to libdw (PPROBE_UNWIND_FAST=0 in the environment of
 * unwinder__new turns it off). With PPROBE_UNWIND_CHECK=1 there every walk
 * is done both ways and the results compared: unwinder__check says how
 * many differed (a defect of the fast path) and the first one. */
struct unwind_check {
	uint64_t walks, differ;
	char first[512];	/* the first walk that differed, described */
};
const struct unwind_check *unwinder__check(const struct unwinder *u);	/* NULL: not checking */

/* "complete", "truncated", "no-cfi", "unmapped", "max-depth", "error". */
const char *unwind_end__str(enum unwind_end e);
/* What an incomplete stack shows at its outer end, the same in every output
 * (record's folded, pprof and flame graphs; trace's text and JSON):
 * "[no-cfi OBJ]", "[unmapped]", "[no-stack]", "[unwind-error OBJ]", and
 * "[truncated]" for a stack cut short (stack bytes or frames ran out);
 * "" for a complete one. Returns buf. */
const char *unwind_result__label(const struct unwind_result *res, char *buf, size_t len);

/* "libdw" / "libunwind" <-> enum; parse returns 0 or -EINVAL. */
const char *unwind_backend__str(enum unwind_backend b);
int unwind_backend__parse(const char *s, enum unwind_backend *b);

/* x86-64 registers in the order the kernel's sampled user registers use
 * (ascending bit of the mask in asm/perf_regs.h: AX BX CX DX SI DI BP SP IP
 * FLAGS CS SS DS ES FS GS R8..R15) -> DWARF order. vals holds one value per
 * bit set in mask, in ascending bit order. */
#define UNWIND_X86_SAMPLE_REGS_MASK 0xff0fffULL	/* all but DS ES FS GS */
void unwind_regs__from_x86_sample(struct unwind_regs *out, uint64_t mask,
				  const uint64_t *vals);

#endif
