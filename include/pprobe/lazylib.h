/* A shared library loaded at its first use (dlopen), not at pprobe's start.
 * libcurl (record --push), libdebuginfod (which brings a second libcurl) and
 * capstone (the unwinder's emulator, probe -L) were a start-up cost of every
 * command, 24 of its 28 ms of CPU, in relocations and constructors of some
 * forty libraries, for the few runs that use them. Implemented in
 * symbolize/lazylib.c; the headers of each library still type its calls:
 *
 *   #define CURL_FNS(X) X(curl_easy_init) X(curl_easy_perform)
 *   static struct { CURL_FNS(LAZYLIB_PTR) } cu;
 *   static const char *const cu_names[] = { CURL_FNS(LAZYLIB_NAME) };
 *   static struct lazylib curl = LAZYLIB_INIT("libcurl.so.4", cu_names, cu);
 *   if (!lazylib__load(&curl)) ... curl.why;
 *   LAZYLIB_CALL(cu, curl_easy_init)();
 */
#ifndef PPROBE_LAZYLIB_H
#define PPROBE_LAZYLIB_H

#include <stdbool.h>
#include <stddef.h>

struct lazylib {
	const char *soname;
	const char *const *names;	/* the functions, in the order of fns */
	void **fns;			/* filled by the first load */
	size_t n;
	int state;			/* 0: not tried; 1: loaded; -1: failed, why says */
	char why[256];
};

#define LAZYLIB_PTR(f) __typeof__(&f) p_##f;
#define LAZYLIB_NAME(f) #f,
#define LAZYLIB_INIT(soname, names, table) { soname, names, (void **)&(table), sizeof(table) / sizeof(void *), 0, "" }
/* the function through the table: p_ pasted, so a function-like macro of
 * the same name (curl's typecheck of curl_easy_setopt) is not expanded */
#define LAZYLIB_CALL(table, f) ((table).p_##f)

/* Loads l once (thread-safe; later calls return the first answer): true
 * when the library and every function of it were found; false with l->why
 * saying what was missing. */
bool lazylib__load(struct lazylib *l);

/* capstone, shared by the unwinder (symbolize/unwind_step.c) and probe -L
 * (src/probe): CS(cs_open)(...) once capstone__load() said true. */
#include <capstone/capstone.h>
#define CAPSTONE_FNS(X) X(cs_open) X(cs_option) X(cs_close) X(cs_malloc) X(cs_free) X(cs_disasm_iter) \
	X(cs_regs_access)
struct capstone_fns {
	CAPSTONE_FNS(LAZYLIB_PTR)
};
extern struct capstone_fns capstone_fns;
bool capstone__load(void);
#define CS(f) LAZYLIB_CALL(capstone_fns, f)

#endif
