/* Aggregating stacks online, symbolizing once at the end.
 *
 * A frame is interned at sample time as (kind, mapping snapshot, address):
 * the mapping is copied then, so later exec/munmap/exit cannot change what an
 * address meant. Each event has its own stack table over the shared frame
 * table; at the end every unique frame is symbolized once and the stacks are
 * written as sorted, merged folded lines. */
#ifndef PPROBE_STACKS_H
#define PPROBE_STACKS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "pprobe/maps.h"
#include "pprobe/symbolize.h"

struct frametab;
struct stacktab;

struct frametab *frametab__new(void);
void frametab__delete(struct frametab *ft);

/* m may be NULL (address not mapped): the frame prints as "[unknown]". */
uint32_t frametab__user(struct frametab *ft, pid_t pid, const struct map *m,
			uint64_t addr, bool is_return);
/* A thread's user stack (engine/stack.h: leaf first, us->maps pid's),
 * each frame as frametab__user gives it, into ids[0..us->nr). The frames
 * the thread's previous stack had at the same depth from the root, under
 * the same maps, are taken from it without a lookup (their mappings not
 * asked of us). */
struct ustack;
void frametab__user_stack(struct frametab *ft, pid_t pid, pid_t tid, struct ustack *us, uint32_t *ids);
/* pid exited or exec'd: its threads' previous stacks are not used again
 * (a new process may have the same pid and an equal maps pointer). */
void frametab__forget(struct frametab *ft, pid_t pid);
uint32_t frametab__kernel(struct frametab *ft, uint64_t addr, bool is_return);
/* A synthetic frame printed as is, e.g. "[truncated]", "[no-cfi libfoo.so]". */
uint32_t frametab__special(struct frametab *ft, const char *name);
size_t frametab__count(const struct frametab *ft);
/* About the memory its frames hold (with their index entries and names). */
size_t frametab__bytes(const struct frametab *ft);
/* Forget every frame: ids given before are invalid after. For long runs
 * (record --push) whose stack tables were all cleared, so that memory
 * follows one interval, not the whole run. */
void frametab__clear(struct frametab *ft);

/* Symbolize every frame not yet symbolized. */
void frametab__symbolize(struct frametab *ft, struct symbolizer *sym);
/* The same, asking stop(arg) before each frame: once it says true, the
 * frames left are named without the symbolizer (their object, "[libc.so.6]",
 * as an unknown address is). Returns how many were left so. */
size_t frametab__symbolize_until(struct frametab *ft, struct symbolizer *sym, bool (*stop)(void *arg), void *arg);

/* After symbolizing: each object with code addresses left without a name,
 * most first: cb(object, why, unnamed, of how many symbolized). Returns how
 * many objects. */
size_t frametab__unnamed(struct frametab *ft, void (*cb)(const char *dso, const char *why, size_t unnamed,
							    size_t total, void *arg), void *arg);

struct stacktab *stacktab__new(struct frametab *ft);
void stacktab__delete(struct stacktab *st);

/* Whose stack it is: part of each stack's identity, so that pprof can label
 * samples and folded output can put pid/tid in the root frame. */
struct stack_owner {
	const char *comm;	/* NULL: "[unknown]" */
	pid_t pid, tid;		/* -1: not known */
};

/* The root frame of each folded line. */
enum stack_root {
	STACK_ROOT_COMM,	/* comm (the default, as stackcollapse-perf.pl) */
	STACK_ROOT_PID,		/* comm-PID (stackcollapse-perf.pl --pid) */
	STACK_ROOT_TID,		/* comm-PID/TID (stackcollapse-perf.pl --tid) */
	STACK_ROOT_THREAD,	/* comm/TID (perf's --per-thread) */
};
void stacktab__set_root(struct stacktab *st, enum stack_root root);

/* Keep no pid and tid with the stacks (stack_view's are -1): one comm's
 * stacks are one however many processes and threads ran them, for outputs
 * that show neither (folded and svg rooted at comm); call before the first
 * add. So that a machine whose processes come and go keeps a table the size
 * of its distinct stacks, not of its processes. */
void stacktab__drop_ids(struct stacktab *st);

/* Keep every add in a timeline (for time-ordered outputs such as
 * speedscope); call before the first add. */
void stacktab__keep_timeline(struct stacktab *st);

/* frames[0] is the leaf (innermost), frames[n-1] the outermost. time: the
 * sample's time (perf clock, ns); only kept with a timeline. */
void stacktab__add(struct stacktab *st, const struct stack_owner *o, const uint32_t *frames,
		   uint32_t n, uint64_t weight, uint64_t time);
size_t stacktab__count(const struct stacktab *st);
/* The memory its stacks hold (the arrays' used parts, two hash slots a
 * stack): 0 when empty. */
size_t stacktab__bytes(const struct stacktab *st);
/* Forget every stack (and tick), keeping the root and timeline settings:
 * the next interval starts empty (record --push). */
void stacktab__clear(struct stacktab *st);
uint64_t stacktab__total(const struct stacktab *st);

/* Unique stack i, 0 <= i < stacktab__count(), in order of first add. */
struct stack_view {
	const char *comm;
	pid_t pid, tid;
	const uint32_t *frames;	/* frame ids, leaf first */
	uint32_t nr;
	uint64_t weight;	/* sum of the adds' weights */
	uint64_t samples;	/* number of adds */
};
void stacktab__get(const struct stacktab *st, size_t i, struct stack_view *v);

/* The timeline: one tick per add, sorted by time (stable). */
struct stack_tick {
	uint64_t time;
	uint32_t stack;		/* index for stacktab__get */
	uint64_t weight;
};
size_t stacktab__timeline(struct stacktab *st, const struct stack_tick **ticks);

/* A symbolized frame. One address may stand for several functions: the
 * physical function and those inlined into it. */
struct frame_sym {
	const char *name;	/* demangled function name; NULL: not known */
	const char *system_name;	/* the linkage (mangled) name; == name when none */
	const char *dso;	/* "libc.so.6", "[kernel.kallsyms]"; NULL: not known */
	const char *file;	/* source file; NULL: not known */
	int line;		/* 0: not known */
	int start_line;		/* the function's declaration line; 0: not known */
	bool inlined;
};
enum frame_kind { FRAME_USER, FRAME_KERNEL, FRAME_SPECIAL };
struct frame_view {
	enum frame_kind kind;
	uint64_t addr;		/* runtime address (0 for FRAME_SPECIAL) */
	bool is_return;		/* a return address (callers): the call is at addr - 1 */
	pid_t pid;		/* FRAME_USER */
	const struct map *map;	/* FRAME_USER inside a mapping; else NULL */
	const struct frame_sym *syms;	/* outermost first: the physical function, then inlined ones */
	const char *const *labels;	/* the folded name of each sym ("fn_[k]", "[libc.so.6]", "[truncated]") */
	uint32_t nr_syms;	/* >= 1 once symbolized */
};
void frametab__get(const struct frametab *ft, uint32_t id, struct frame_view *v);
/* Folded names carry func:file.c:LINE (--srcline) when the symbolizer gave
 * lines; off by default (the symbolizer may give lines for pprof alone). */
void frametab__srcline_names(struct frametab *ft, bool on);

/* Folded lines "comm;outer;...;leaf WEIGHT", sorted, identical lines merged.
 * The frame table must be symbolized. Calls fn for each line (no newline;
 * len is strlen(stack)); returns the number of lines. */
typedef void (*folded_line_fn)(void *ctx, const char *stack, size_t len, uint64_t weight);
size_t stacktab__folded(struct stacktab *st, folded_line_fn fn, void *ctx);
/* A folded_line_fn: "STACK WEIGHT\n" to the FILE * ctx. */
void folded__write_line(void *ctx, const char *stack, size_t len, uint64_t weight);

#endif
