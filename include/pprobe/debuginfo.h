/* Where the DWARF of an ELF file lives. Part of the symbolize library.
 * (A small finder written for the -F/-L/-V inspector; to be unified with
 * the symbolizer's own lookup when that lands.) */
#ifndef PPROBE_DEBUGINFO_H
#define PPROBE_DEBUGINFO_H

#include <stddef.h>

/* Find a file holding .debug_info for the ELF file at path: the file itself
 * when it has DWARF, else /usr/lib/debug/.build-id/xx/rest.debug, else the
 * .gnu_debuglink name in the file's directory, its .debug/ subdirectory and
 * /usr/lib/debug/DIR. Separate files are accepted only when their build-id
 * (if both have one) matches. Writes the path into out.
 * Returns 0, -ENOENT when there is none, or another -errno. */
int debuginfo__find(const char *path, char *out, size_t len);

/* The GNU build-id of the ELF file at path as lowercase hex.
 * Returns the number of bytes of the id (>0), -ENOENT if it has none, or -errno. */
int debuginfo__build_id(const char *path, char *hex, size_t len);

#endif
