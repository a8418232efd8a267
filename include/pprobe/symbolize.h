/* Address -> function names (with inline frames), for user processes and the
 * kernel. Part of the symbolize library: knows nothing of perf_event.
 *
 * Ownership: strings in a struct sym_frame belong to the symbolizer and stay
 * valid until symbolizer__delete(). ELF files come from the object cache
 * (pprobe/objcache.h: by path and build id, else device and inode); debug
 * info and kallsyms are loaded once. */
#ifndef PPROBE_SYMBOLIZE_H
#define PPROBE_SYMBOLIZE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "pprobe/maps.h"

struct symbolizer;

struct symbolizer_opts {
	bool inlines;		/* expand inline frames from DWARF (default true) */
	bool srcline;		/* fill srcfile/line */
	bool demangle;		/* C++/Rust demangling (default true) */
};

struct sym_frame {
	const char *name;	/* function name; NULL when unknown. PLT stubs are "func@plt" */
	const char *system_name;	/* the linkage name as the object spells it (mangled
					 * "_ZN3foo3barEv"); NULL: not known, or name itself */
	/* short name of the object: the file's basename ("libc.so.6"), "[vdso]",
	 * "[kernel.kallsyms]", a module in brackets as perf writes it ("[ext4]"),
	 * "perf-PID.map" or "jit-PID.dump" for JIT code, else the mapping's path ("//anon", "[heap]") */
	const char *dso;
	const char *srcfile;	/* NULL unless srcline */
	int line;
	int decl_line;		/* the function's own line (DW_AT_decl_line; an inlined
				 * instance's from its abstract origin); 0 unless srcline
				 * and DWARF has it */
	uint64_t offset;	/* address - function start */
	bool inlined;		/* an inlined instance (not the physical function) */
	bool kernel;
	bool jit;		/* from /tmp/perf-PID.map or a jitdump */
	bool build_id_mismatch;	/* the file on disk is not the one that was mapped
				 * (inode or build-id differ): name is then NULL */
	/* name NULL in a mapped file: why the object names nothing there
	 * (static text: "no .symtab, no debug file", ...); else NULL */
	const char *lacks;
};

struct objcache;

void symbolizer_opts__init(struct symbolizer_opts *opts);
/* NULL + errno. Its ELF files are those of cache (pprobe/objcache.h:
 * shared with an unwinder, each file opened once for both; the symbolizer
 * holds a reference), or of a cache of its own (symbolizer__new, or cache
 * NULL). */
struct symbolizer *symbolizer__new(const struct symbolizer_opts *opts);
struct symbolizer *symbolizer__new_cached(const struct symbolizer_opts *opts, struct objcache *cache);
void symbolizer__delete(struct symbolizer *s);	/* accepts NULL */

/* Symbolize a user address of process pid that lies in mapping m.
 * is_return: addr is a return address; it is looked up at addr - 1.
 * Fills out[0..n) innermost first: inlined frames first, the physical
 * function last. Returns n >= 1 (out[0].name NULL when unknown), or -errno. */
int symbolizer__user(struct symbolizer *s, pid_t pid, const struct map *m,
		     uint64_t addr, bool is_return, struct sym_frame *out, int max);

/* Open and cache the object behind mapping m of pid now, while the process
 * lives: a deleted file (/proc/PID/map_files) or one in another mount
 * namespace (/proc/PID/root) is then still symbolized after the process
 * exited. Optional; symbolizer__user does the same lazily. Call it for
 * executable mappings (e.g. on MMAP2 or before EXIT). A mapping of a
 * jitdump ("jit-*.dump", which JIT runtimes map executable to be found) is
 * noted as the process's jitdump, not opened; it and anonymous executable
 * memory (JIT code) make the process's JIT facts read now
 * (symbolizer__note_process, less the mappings). 0 or -errno. */
int symbolizer__prepare(struct symbolizer *s, pid_t pid, const struct map *m);

/* Read what finding and trusting pid's JIT map (/tmp/perf-PID.map) and
 * jitdump (/tmp/jit-PID.dump, or the jit-*.dump it mapped) need while the
 * process lives: its real and effective uid (the files must be theirs, ours
 * or root's), the pid it sees itself as and its root (a container's map is
 * /proc/PID/root/tmp/perf-NSPID.map, as perf reads it; so is that of a
 * process in a pid namespace alone, whose root is ours), and a jitdump
 * among its mappings.
 * symbolizer__prepare reads all but the mappings when a process maps JIT
 * code or its jitdump (a jitdump it maps later comes as a mapping too); call
 * this for a process attached to (-p), whose mappings were read, not
 * reported. Once per pid; later calls do nothing. Otherwise a process is
 * read at its first JIT lookup, if it still lives. */
void symbolizer__note_process(struct symbolizer *s, pid_t pid);

/* Bounding a long run's cache (record --push): symbolizer__keep marks the
 * object of a mapping still in use (it opens nothing); symbolizer__sweep
 * closes the objects neither kept nor used since the previous sweep, and
 * returns how many. Strings of frames already returned from a swept object
 * are gone with it: copy them before sweeping. The same as objcache__keep
 * and objcache__sweep of its cache. */
void symbolizer__keep(struct symbolizer *s, pid_t pid, const struct map *m);
size_t symbolizer__sweep(struct symbolizer *s);

/* Kernel address through /proc/kallsyms (module names in dso). */
int symbolizer__kernel(struct symbolizer *s, uint64_t addr, bool is_return,
		       struct sym_frame *out, int max);

#endif
