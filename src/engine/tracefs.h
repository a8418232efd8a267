/* tracefs: where it is, reading its files, its event list and error_log.
 *
 * The root is found once (first call) and cached, by libtracefs: the
 * tracefs in /proc/mounts; if none and we are root, tracefs is mounted on
 * /sys/kernel/tracing (or debugfs, and tracefs under it, on kernels
 * without that directory). All functions return -errno (or NULL + errno).
 * Code that uses libtracefs directly (instances, dynamic events) calls
 * tracefs__root() first: it finds the same directory.
 */
#ifndef PPROBE_TRACEFS_H
#define PPROBE_TRACEFS_H

#include <stddef.h>

/* The tracefs mount point, or NULL with errno set:
 *   ENOENT  not mounted and mounting failed/was not possible (not root),
 *   EACCES  mounted but not readable by us. */
const char *tracefs__root(void);

/* Use ROOT instead of discovering it (tests; NULL returns to discovery). */
void tracefs__set_root(const char *root);

/* The user-facing message for a tracefs__root()/tracefs__read failure with
 * errno ERR (positive or negative): what failed, why, what to do. */
int tracefs__strerror(int err, char *buf, size_t len);

/* ROOT/REL into buf; -ENAMETOOLONG, or the tracefs__root() error. */
int tracefs__path(char *buf, size_t len, const char *rel);

/* Whole file ROOT/REL, NUL-terminated, malloc'ed (free() it); *lenp gets the
 * length if lenp. NULL + errno. */
char *tracefs__read_file(const char *rel, size_t *lenp);

/* Write DATA to ROOT/REL (O_WRONLY|O_TRUNC, or O_APPEND if append). -errno
 * with the kernel's own error from write(). */
int tracefs__write_file(const char *rel, const char *data, int append);

/* The id of tracepoint SYS:NAME (events/SYS/NAME/id): > 0, or -errno
 * (-ENOENT: no such event). */
int tracefs__event_id(const char *sys, const char *name);

/* All "sys:name" tracepoints, sorted (strcmp). *out is a malloc'ed array of
 * malloc'ed strings; free with tracefs__free_events(). Returns the count or
 * -errno. */
int tracefs__list_events(char ***out);
void tracefs__free_events(char **events, int nr);

/* The kernel's tracing/error_log (what it says about the last rejected
 * filter or probe definition), malloc'ed; NULL + errno (ENOENT: the kernel
 * has no error_log). tracefs__clear_error_log() empties it (root). */
char *tracefs__error_log(void);
int tracefs__clear_error_log(void);
/* Its last entry (the message, the command, the caret), malloc'ed; NULL
 * when empty or unreadable. */
char *tracefs__error_last(void);

#endif
