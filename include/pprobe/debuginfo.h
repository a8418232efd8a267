/* Build-ids and separate debug files, for tools that open an ELF object
 * themselves (the probe room's inspector). Part of the symbolize library,
 * whose symbolizer finds debug info the same way:
 *   1. the file itself when it has .debug_info
 *   2. /usr/lib/debug/.build-id/xx/yyyy.debug (build-id; PPROBE_DEBUG_DIR
 *      replaces /usr/lib/debug)
 *   3. .gnu_debuglink: same directory, .debug/, /usr/lib/debug/DIR (CRC or
 *      build-id checked)
 *   4. debuginfod, only when DEBUGINFOD_URLS is set (and see
 *      debuginfo__debuginfod below) */
#ifndef PPROBE_DEBUGINFO_H
#define PPROBE_DEBUGINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Reads the NT_GNU_BUILD_ID of an ELF file into out (at most max bytes;
 * MAP_BUILD_ID_MAX of pprobe/maps.h holds any); returns its size or 0. */
int elf_file__build_id(const char *path, uint8_t *out, size_t max);

/* The separate debug file of the object at path (mapped as map_path; the
 * same path when not mapped), whose open libelf handle is elf (an Elf *):
 * a malloc'ed path the caller frees, or NULL. *how is set to a static
 * string: "build-id", "debuglink", "debuginfod", "self" (NULL returned: the
 * object has its own DWARF), or NULL (nothing found). */
char *debuginfo__find(const char *path, const char *map_path, void *elf, const uint8_t *build_id,
		      size_t build_id_size, const char **how);

/* A debuginfod fetch goes over the network and may wait its
 * DEBUGINFOD_TIMEOUT (90 s by default) on each server. For the whole
 * process: whether it may run now (a recorder says not while the command
 * runs, where it would stall reading the rings; the symbolizer asks later,
 * when a frame of the object is named), and what cancels one under way
 * (polled about once a second: a stop signal, a deadline; NULL: nothing).
 * While it may not, debuginfo__find sets *how to "debuginfod-later" where
 * it would have asked. The default: now, nothing cancels. */
void debuginfo__debuginfod(bool now, bool (*cancel)(void *arg), void *arg);
bool debuginfo__debuginfod_now(void);
/* debuginfod alone, where DEBUGINFOD_URLS is set and it may run now: the
 * debug file's path (malloc'ed, in debuginfod's cache) or NULL. */
char *debuginfo__fetch(const uint8_t *build_id, size_t build_id_size);

#endif
