/* What the fuzzers of tests/fuzz/ share: the input as a C string or split
 * in two, the input as a file (a memfd, for parsers that read a path), and
 * an environment that keeps a parser from reaching outside the process
 * (no debuginfod, no /usr/lib/debug). Header-only: each fuzzer is one file. */
#ifndef PPROBE_FUZZ_H
#define PPROBE_FUZZ_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The input as a NUL-terminated string (owned: free()); bytes after an
 * embedded NUL are invisible to the parser, as on a command line. */
static inline char *fuzz_str(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = 0;
	return s;
}

/* Split at the first byte sep: *a gets what is before (a string), *b and
 * *blen what follows (raw bytes, also NUL-terminated). No sep: all of it
 * in *a, *b empty. Both owned: free(). */
static inline void fuzz_split(const uint8_t *data, size_t size, uint8_t sep, char **a, uint8_t **b, size_t *blen)
{
	const uint8_t *p = memchr(data, sep, size);
	size_t n = p ? (size_t)(p - data) : size;
	*a = fuzz_str(data, n);
	*blen = p ? size - n - 1 : 0;
	*b = (uint8_t *)fuzz_str(p ? p + 1 : data, *blen);
}

/* The input as a file: a memfd holding the bytes, its path
 * (/proc/self/fd/N) in path. Returns the fd (close it), -1 on failure. */
static inline int fuzz_memfd(const uint8_t *data, size_t size, char *path, size_t len)
{
	int fd = memfd_create("pprobe-fuzz", MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	for (size_t off = 0; off < size;) {
		ssize_t w = write(fd, data + off, size - off);
		if (w <= 0) {
			close(fd);
			return -1;
		}
		off += (size_t)w;
	}
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

/* A sink for writers: /dev/null, opened once. */
static inline FILE *fuzz_devnull(void)
{
	static FILE *f;
	if (!f && !(f = fopen("/dev/null", "we")))
		abort();
	return f;
}

/* Whether fuzzed tracepoint format text may reach libtraceevent's parser:
 * libtraceevent 1.7.1 crashes by itself on malformed formats within seconds
 * of fuzzing (tests/fuzz/known/tp_format/), and formats come from the
 * kernel's tracefs alone. The seeds and regression inputs run with it
 * (ctest's fuzz/NAME/inputs sets PPROBE_FUZZ_TEP_FORMATS=1); fuzzing does
 * not unless asked (PPROBE_FUZZ_TEP_FORMATS=1 scripts/fuzz.sh tp_format N). */
static inline int fuzz_tep_formats(void)
{
	const char *e = getenv("PPROBE_FUZZ_TEP_FORMATS");
	return e && *e == '1';
}

/* Keep parsers inside the process: no debuginfod downloads, no separate
 * debug files from the system's /usr/lib/debug (a fuzzed build-id must
 * not pull in a real library's DWARF). */
static inline void fuzz_isolate(void)
{
	unsetenv("DEBUGINFOD_URLS");
	setenv("PPROBE_DEBUG_DIR", "/nonexistent/pprobe-fuzz", 1);
	setenv("PPROBE_CACHE_DIR", "", 1);	/* no image kept per input (debug_image.c) */
}

#endif
