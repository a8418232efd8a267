/* Internal to the symbolize library's symbol lookup (not a public header).
 * symtab: sorted address ranges -> names, shared by ELF objects, kallsyms and
 * JIT perf maps. elf_object: one mapped file with its symbols, load segments,
 * build-id, separate debug info and (lazily) its DWARF. */
#ifndef PPROBE_SYM_INTERNAL_H
#define PPROBE_SYM_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <gelf.h>

#include "pprobe/debuginfo.h"
#include "pprobe/maps.h"
#include "pprobe/symbolize.h"

/* ---- string pool: strings live as long as the pool ---- */
struct strpool {
	struct strchunk *head;
};
const char *strpool__add(struct strpool *p, const char *s, size_t len);
void strpool__free(struct strpool *p);

/* ---- symtab ---- */
struct symtab_entry {
	uint64_t start, end;	/* [start, end) */
	const char *name;	/* raw (mangled) name; NULL: not read yet (symtab__name) */
	const char *pretty;	/* demangled, filled lazily; NULL until asked */
	uint64_t name_off;	/* src != 0: where the name is in the file of name_fd[src] */
	uint32_t prio;		/* which duplicate at one address wins */
	uint8_t src;		/* 0: name copied into the pool; else a file (SYMTAB_SRC_*) */
	bool sized;		/* end came from st_size */
};

/* Where a name left in its file is read from (symtab__release). */
enum { SYMTAB_SRC_COPY, SYMTAB_SRC_FILE, SYMTAB_SRC_DEBUG, SYMTAB_SRC_NR };

struct symtab {
	struct symtab_entry *v;
	size_t n, cap;
	size_t *cover;		/* cover[i]: index in 0..i with the largest end */
	struct strpool strings;
	int name_fd[SYMTAB_SRC_NR];	/* not owned; 0 until symtab__release says */
};

/* size 0: the symbol extends to the next symbol, at most to limit. The name
 * is copied. */
int symtab__add(struct symtab *t, uint64_t start, uint64_t size, uint64_t limit,
		const char *name, size_t namelen, uint32_t prio);
/* The same with a name not copied: name (NUL-terminated) must stay valid
 * until symtab__release(t, src, ...), after which the entry's name is read
 * again, at first use, from name_off in the file open at that fd. A big
 * program's names are most of its table (node: 7.5 MB) and few are ever
 * looked up: copying them was a quarter of loading its symbols. */
int symtab__add_ref(struct symtab *t, uint64_t start, uint64_t size, uint64_t limit,
		    const char *name, uint64_t name_off, uint8_t src, uint32_t prio);
/* The names added with src are read from fd from now on (fd stays the
 * caller's and open as long as t; -1: they are not found again). */
void symtab__release(struct symtab *t, uint8_t src, int fd);
/* e's name: read from its file the first time (then kept), NULL when it
 * cannot be read back (the file shrank, or holds no NUL there). */
const char *symtab__name(struct symtab *t, const struct symtab_entry *e);
/* Room for more entries at once (0, or -ENOMEM). */
int symtab__reserve(struct symtab *t, size_t more);
int symtab__finish(struct symtab *t);	/* sort, dedupe, fix ends. O(n) + names of ties */
const struct symtab_entry *symtab__find(const struct symtab *t, uint64_t addr); /* O(log n) */
void symtab__free(struct symtab *t);

/* ---- numbers in text lines (maps.c) ---- */
/* sscanf's %llx and %llu without its cost: blanks skipped, then (hex) an
 * optional 0x before a digit, then digits, at least one; UINT64_MAX past
 * 64 bits. The first character after them, or NULL where there is no
 * digit. No sign is taken. */
const char *pp_scan_hex(const char *p, uint64_t *v);
int pp_hexdig(char c);	/* a hex digit's value, -1 for any other character */
const char *pp_scan_dec(const char *p, uint64_t *v);
/* One line of /proc/PID/maps into m (its path points into line, whose
 * trailing newline and blanks are cut): 0, or -EINVAL. */
int map__parse_line(char *line, struct map *m);

/* ---- the cache's directories (debug_image.c) ---- */
/* The cache's directory sub ("debug", "symtab") under $PPROBE_CACHE_DIR
 * (empty: none), else $XDG_CACHE_HOME/pprobe, else ~/.cache/pprobe, made
 * 0700 where missing: its fd, or -1 (none asked, or not the user's alone). */
int pp_cache_subdir(const char *sub);
/* dir (relative to at) the user's and closed to others (not a link, no
 * write for group or others), made 0700 if missing: its fd, or -1. */
int pp_own_dir(int at, const char *dir);
/* The files of dir named 16 hex digits + suffix, least recently used
 * (mtime) first, removed while all of them together are past the cache's
 * bound ($PPROBE_CACHE_MAX bytes, default 1 GiB). */
void pp_cache_trim(int dir, const char *suffix);

/* ---- finished tables kept on disk (symtab_cache.c) ---- */
/* All of len read from / written to fd, EINTR retried: true / 0, else
 * false / -errno (-EIO for a short write). */
bool pp_read_all(int fd, void *buf, size_t len);
int pp_write_all(int fd, const void *buf, size_t len);
enum {
	SYMTAB_CACHE_DEBUG = 1,		/* names in the debug file (SYMTAB_SRC_DEBUG) */
	SYMTAB_CACHE_MINI = 2,		/* symbols from MiniDebugInfo */
	SYMTAB_CACHE_FLAGS = 3,
};
/* Tables of fewer entries are read each time (well under a millisecond).
 * libc with libc6-dbg's symbols (3,759 entries) took ~2.7 ms a load
 * without the cache, ~0.8 with it. */
#define SYMTAB_CACHE_MIN 1024
/* The cache file's name for the object whose file is file and whose debug
 * file (NULL: none) is debug: a hash of their identities and the layout. */
void symtab_cache__name(const struct stat *file, const struct stat *debug, char *name, size_t len);
/* t (finished) written to dir as name, whole or not at all (then the
 * directory trimmed to the cache's bound): 0 or -errno. */
int symtab_cache__save(const struct symtab *t, int dir, const char *name, uint32_t flags);
/* name in dir into t (empty), finished: its flags in *flags; the names
 * left in files are read from the descriptors symtab__release then gives.
 * -ENOENT where there is none; -EINVAL (the file removed) where it is not
 * exactly what save writes; -ENOMEM. t is left empty on failure. */
int symtab_cache__load(struct symtab *t, int dir, const char *name, uint32_t *flags);

/* ---- demangling (demangle.c): malloc'ed string or NULL if not mangled ---- */
char *pprobe_demangle(const char *name);
/* An Itanium (C++, Rust legacy) or Rust v0 mangled name. */
bool pprobe_mangled(const char *name);

/* ---- the file behind a mapping (mapped_file.c) ---- */
/* What tells one mapped file from another, for the symbolizer's and the
 * unwinder's caches (each keys on it with the mapped path, never on the
 * path alone): the build id where the mapping carries one, else device and
 * inode, else the process (only its own view of the path names the file). */
struct file_id {
	uint8_t build_id[MAP_BUILD_ID_MAX];
	uint8_t build_id_size;
	uint32_t maj, min;
	uint64_t ino;
	pid_t pid;
};
void file_id__from_map(struct file_id *id, pid_t pid, const struct map *m);
uint64_t file_id__hash(const struct file_id *id, const char *path);
bool file_id__equal(const struct file_id *a, const struct file_id *b);
/* The mapped path without the kernel's " (deleted)" suffix. */
void mapped_file__clean_path(const char *path, char *out, size_t size);
/* Opens the file behind mapping m of process pid with safe_open, trying
 * /proc/PID/root/PATH (resolved inside the process's root), then
 * /proc/PID/map_files/START-END (a deleted or replaced file), then PATH as
 * we see it (pid <= 0: only that); a candidate is taken only when it is the
 * mapped file: its NT_GNU_BUILD_ID where m carries a build id, else its
 * inode and device where m has them. Returns the fd (the caller's to close)
 * with *opened_path the way in (malloc'ed), or -ESTALE (only other files
 * under that name), -ENOENT (none), -ENOMEM; the first two are noted in
 * safe_open's list (pprobe/safe_open.h) when m said which file it was. */
int mapped_file__open(pid_t pid, const struct map *m, char **opened_path);

/* ---- the one cache of mapped files (objcache.c, pprobe/objcache.h) ---- */
struct objcache;
struct objcache_entry;
struct elf_object;
struct objcache *objcache__get(struct objcache *c);	/* one more reference */
/* A symbolizer uses the cache: each file's descriptor is kept for its object. */
void objcache__add_symbolizer(struct objcache *c);
/* Called by objcache__sweep before it closes anything: fn marks
 * (objcache__mark) the entries its owner still uses. 0, or -ENOSPC. */
typedef void objcache_mark_fn(struct objcache *c, void *arg);
int objcache__add_marker(struct objcache *c, objcache_mark_fn *fn, void *arg);
void objcache__remove_marker(struct objcache *c, objcache_mark_fn *fn, void *arg);
void objcache__mark(struct objcache *c, struct objcache_entry *e);
size_t objcache__opens(const struct objcache *c);	/* files looked for so far */
/* The entry of mapping m of process pid (pid <= 0: the path as we see it):
 * found by the mapped path and struct file_id; made, with its file opened
 * by mapped_file__open, when open; looked for again through pid when retry
 * (pid is alive) and the last open, through another process, found no
 * file. NULL: not cached and !open, or ENOMEM. */
struct objcache_entry *objcache__entry(struct objcache *c, pid_t pid, const struct map *m, bool open, bool retry);
/* The symbolizer's view of e, made from the open file on first need (m: the
 * mapping, for its inode and build id). Not loaded where the file was not
 * found; build_id_mismatch where only another was. NULL only on ENOMEM. */
struct elf_object *objcache__object(struct objcache *c, struct objcache_entry *e, const struct map *m);
/* The vdso's, from the one copy (NULL: none for m's ABI, or ENOMEM). */
struct elf_object *objcache__vdso_object(struct objcache *c, const struct map *m);

/* ---- ELF objects ---- */
struct load_seg {
	uint64_t offset, vaddr, filesz, memsz;
};

struct elf_object {
	char *path;		/* the file as opened (/proc/PID/root/..., map_files/...) */
	char *map_path;		/* the path in the mapping (cache key) */
	const char *dso;	/* basename of map_path */
	uint32_t maj, min;
	uint64_t ino;
	uint8_t build_id[MAP_BUILD_ID_MAX];
	uint8_t build_id_size;
	bool build_id_mismatch;	/* map said one build-id, the file has another */
	bool loaded;		/* the file was read (otherwise every lookup is unknown) */
	bool is_exec;		/* ET_EXEC */
	struct load_seg *segs;
	size_t nsegs;
	struct symtab syms;
	char *debug_path;	/* separate debug file in use, or NULL */
	const char *debug_how;	/* "build-id", "debuglink", "debuginfod", "self", NULL */
	bool has_symtab;	/* its own .symtab: a debug file's adds nothing */
	bool debuginfod_later;	/* only debuginfod could say, and it could not run yet */
	bool minidebuginfo;	/* symbols from .gnu_debugdata were added */
	char syms_save[32];	/* its name there, to be written when the object goes; "" none */
	uint32_t syms_save_flags;
	bool dwarf_refused;	/* a compressed section claims too much: no DWARF (said) */
	uint64_t file_size;
	/* DWARF, set up on first use (dwarf_frames.c) */
	struct dwarf_state *dw;
	bool dw_tried;
	int elf_fd;
	int debug_fd;		/* debug_path opened by dwarf__prepare, or -1 */
	const void *mem_image;	/* the vdso (the cache's copy), or NULL */
	size_t mem_size;
};

/* Opens path (falling back to alt_path when not NULL and path fails) and
 * reads program headers, build-id and symbols (symtab, dynsym, separate debug
 * file, MiniDebugInfo). Never fails for a missing file: the object then has
 * loaded=false, so lookups say unknown. NULL only on ENOMEM. */
struct elf_object *elf_object__open(const char *path, const char *map_path,
				    const struct map *m);
/* The same from fd, opened as path (mapped_file__open): the object owns fd. */
struct elf_object *elf_object__open_fd(int fd, const char *path, const char *map_path, const struct map *m);
/* Same for an in-memory image (the vdso), which must outlive the object. */
struct elf_object *elf_object__open_mem(const void *image, size_t size, const char *name);
void elf_object__delete(struct elf_object *o);
/* An object whose debug file only debuginfod could give, looked up while
 * debuginfod could not run (a recording): asks it now, once, if it may
 * (pprobe/debuginfo.h), and takes the file's symbols and DWARF. */
void elf_object__debuginfod_late(struct elf_object *o);
/* Why an address of o has no symbol (static text). */
const char *elf_object__lacks(const struct elf_object *o);
/* runtime address in mapping m -> ELF virtual address. false if not in a segment. */
bool elf_object__to_vaddr(const struct elf_object *o, const struct map *m, uint64_t addr, uint64_t *vaddr);
/* elf_file__build_id() and debuginfo__find() (debuginfo.c): pprobe/debuginfo.h */
/* The NT_GNU_BUILD_ID of the ELF file open at fd into out; its size, or 0. */
int elf_fd__build_id(int fd, uint8_t *out, size_t max);

/* Calls fn for every defined (not SHN_UNDEF), named symbol of elf's .symtab
 * and .dynsym sections, in section order; at->symtab says which section it
 * came from, at->name_off where its name is in the file as it is there
 * (NUL-terminated in an uncompressed SHT_STRTAB inside the file), or
 * UINT64_MAX. Stops at fn's first nonzero return and returns it; otherwise
 * returns how many symbol sections were read. The one reader of ELF symbol
 * tables: elf_object's symtab and pprobe/sym_table.h both use it. */
struct elf_sym_at {
	bool symtab;
	uint64_t name_off;
};
typedef int elf_sym_fn(void *arg, Elf *elf, const GElf_Sym *sym, const char *name, const struct elf_sym_at *at);
int elf_file__foreach_symbol(Elf *elf, elf_sym_fn *fn, void *arg);
/* The same, with .dynsym skipped when symtab_only (counted all the same). */
int elf_file__foreach_symbol_of(Elf *elf, bool symtab_only, elf_sym_fn *fn, void *arg);
/* The first section named want (its header in *sh), or NULL. */
Elf_Scn *elf_file__section(Elf *elf, const char *want, GElf_Shdr *sh);
/* A program, whose e_entry is where the kernel starts its main thread:
 * ET_EXEC, an interpreter (PT_INTERP: PIE), or DF_1_PIE (static-pie). The
 * symbolizer names a stripped program's entry _start, and the unwinder
 * ends a walk there (with the e_entry of the loader the program names). */
bool elf_file__is_program(Elf *elf);
/* MiniDebugInfo: decompressed .gnu_debugdata ELF image (malloc'ed) or NULL;
 * an image past elf_file__decompressed_cap of the file's size is refused
 * and said under path. */
void *debuginfo__minidebuginfo(void *elf, uint64_t file_size, const char *path, size_t *size);

/* ---- DWARF (dwarf_frames.c) ---- */
/* Fills out[0..n) with inline frames innermost first and the physical
 * function last, for ELF address vaddr. Returns n, 0 if no DWARF covers the
 * address, or -errno. Strings live in the object's pool. */
int dwarf__frames(struct elf_object *o, uint64_t vaddr, bool inlines, bool srcline,
		  bool demangle, struct sym_frame *out, int max);
/* Open the debug file now (it may be reachable only while a process
 * lives); its DWARF is read at the first frame that needs it. */
void dwarf__prepare(struct elf_object *o);
/* Source line of vaddr from the line table alone (no function DIE needed). 1 or 0. */
int dwarf__srcline(struct elf_object *o, uint64_t vaddr, const char **file, int *line);
void dwarf__free(struct elf_object *o);

/* ---- JIT perf maps (symbolizer.c) ---- */
/* The lines "START SIZE name" (hex) of the map open at fd into t (not
 * finished), read in pieces of 64 KiB within the caps (1,000,000 lines, 64
 * MiB read; a line over 64 KiB left out): what was left out, if anything,
 * in why ("" if nothing). 0, or -ENOMEM. */
int jitmap__read(struct symtab *t, int fd, char *why, size_t whylen);

/* ---- kallsyms (kallsyms.c) ---- */
/* Calls fn for every line of path (NULL: /proc/kallsyms): address, type
 * letter, name, and the module without brackets (NULL and 0 for the kernel
 * itself; not NUL-terminated). Stops at fn's first nonzero return and
 * returns it; 0 at the end, -errno when path cannot be read. The one
 * kallsyms parser: kallsyms__load and pprobe/sym_table.h both use it. */
typedef int kallsyms_fn(void *arg, uint64_t addr, char type, const char *name, const char *mod,
			size_t modlen);
int kallsyms__foreach(const char *path, kallsyms_fn *fn, void *arg);
struct kallsyms;
struct kallsyms *kallsyms__load(const char *path);	/* NULL + errno */
/* The text symbol covering addr: its name and dso ("[kernel.kallsyms]",
 * "[ext4]"), which live as long as k, and its start. */
struct kallsyms_sym {
	const char *name, *dso;
	uint64_t start;
};
bool kallsyms__find(const struct kallsyms *k, uint64_t addr, struct kallsyms_sym *out);
void kallsyms__delete(struct kallsyms *k);

/* The core kernel's symbols (no "[module]"), cached per boot. save writes
 * those of a table read from kallsyms to file (atomically, 0600) with key
 * (the boot id) in its header: 0, -ENOENT when the core is not one span
 * below every module's symbol, -errno. load_core maps such a file back:
 * NULL when it is missing, not the caller's, or not exactly what save
 * writes for key. Such a table answers only kallsyms__covers(addr):
 * addresses from its first symbol to its last; a whole table covers all. */
int kallsyms__save_core(const struct kallsyms *k, const char *file, const char *key);
struct kallsyms *kallsyms__load_core(const char *file, const char *key);
bool kallsyms__covers(const struct kallsyms *k, uint64_t addr);

/* What the symbolizer asks: the core from cache (when given one and key),
 * the whole of path (NULL: /proc/kallsyms) read at the first address the
 * core does not cover, and the cache written from it by ksyms__delete
 * (after the run) when there was none to read. Names stay valid until
 * ksyms__delete. */
struct ksyms;
struct ksyms *ksyms__new(const char *path, const char *cache, const char *key);
/* path given: that file, no cache. Else /proc/kallsyms with this boot's
 * cache: $PPROBE_RUN_DIR/kallsyms-core (PPROBE_RUN_DIR empty: none), else
 * /run/pprobe (root) or $XDG_RUNTIME_DIR/pprobe; no cache at kptr_restrict
 * 2 or where the directory is not the user's alone. */
struct ksyms *ksyms__new_system(const char *path);
bool ksyms__find(struct ksyms *ks, uint64_t addr, struct kallsyms_sym *out);
int ksyms__nr_full_loads(const struct ksyms *ks);	/* reads of the whole file */
void ksyms__delete(struct ksyms *ks);

#endif
