/* Tracepoint formats (tracefs events/SYS/NAME/format), parsed by
 * libtraceevent, and raw records decoded with them.
 *
 * The raw data a decoder takes is what follows the u32 size of
 * PERF_SAMPLE_RAW (the same bytes as an event in the tracefs ring buffer):
 * it starts with common_type.
 *
 * tp_format__print() writes what the kernel's trace_pipe writes for the
 * event after its name: the event's print fmt, interpreted by libtraceevent
 * as perf script and trace-cmd do (hex where the kernel prints hex, grp= and
 * res= where the kernel says so, flags and symbols by name). No
 * libtraceevent plugins are loaded: they print some events otherwise than
 * the kernel (sched_switch), they are code from system and home directories
 * loaded into a root process, and the VM test's guest has only the
 * libraries ldd shows. Two kinds of event the kernel prints with code of
 * its own rather than their print fmt: syscalls (trace_pipe, 6.18:
 * "sys_openat(dfd: 0xffffff9c, ..., mode: 0)", 5.10: "dfd: ffffff9c"),
 * where pprobe prints the print fmt, the same values on every kernel
 * ("dfd: 0xffffff9c, ..., mode: 0x00000000", as perf script); and probe
 * events, whose address the kernel prints with 0x ("(0x401136)") where
 * their print fmt says "(%lx)": pprobe prints "(0x401136)" (kprobes too,
 * where trace_pipe prints the symbol, as pprobe's PMU kprobes do).
 *
 * The fields, one by one, keep their C types (tp_field__int(), for JSON and
 * filters): syscall arguments, stored in 8 bytes, are read as their
 * declared type (int dfd -> -100).
 */
#ifndef PPROBE_TP_FORMAT_H
#define PPROBE_TP_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tep_handle;
struct tep_event;

struct tp_field {
	char *name;            /* "prev_comm" */
	char *type;            /* declaration without the name: "char[16]", "const char *",
	                          "__data_loc char[]", "pid_t" */
	unsigned offset;       /* in the raw data */
	unsigned size;         /* bytes of the field in the record (4 for __data_loc) */
	bool is_signed;        /* the format's signed: flag */
	bool is_common;        /* common_type, common_pid, ... */
	bool is_pointer;       /* '*' in the type */
	bool is_array;         /* name[N] (fixed) or __data_loc/__rel_loc (dynamic) */
	bool is_dynamic;       /* __data_loc or __rel_loc */
	bool is_rel;           /* __rel_loc: offset relative to the end of this field */
	bool is_string;        /* char array (fixed or dynamic) */
	unsigned array_len;    /* fixed arrays: elements (0 if dynamic) */
	unsigned elem_size;    /* arrays: bytes per element; scalars: the value's
	                          size (declared type, <= size) */
	bool elem_signed;      /* arrays and scalars: signedness of the value */
};

struct tp_format {
	char *name;            /* "sched_switch" (the "name:" line) */
	char *sys;             /* "sched" */
	unsigned id;           /* the "ID:" line */
	struct tp_field *fields;   /* common fields first, in file order */
	size_t nr_fields;
	size_t nr_common;
	char *print_fmt;       /* the "print fmt:" text, or NULL */
	size_t min_size;       /* bytes a record needs for its fixed fields */
	/* libtraceevent's parse of the format, one handle per format */
	struct tep_handle *tep;
	struct tep_event *event;
	bool print_failed;     /* libtraceevent could not parse the print fmt */
};

/* Parse a format file's text, of an event of system sys. NULL + errno
 * (EINVAL: not a format file). */
struct tp_format *tp_format__parse(const char *text, const char *sys);

struct symbolizer;
/* Kernel addresses the print fmt shows as functions (%pS, %ps, %pF, %pf:
 * timer and workqueue callbacks, kmalloc call sites) are named through sym,
 * as the kernel's trace_pipe names them ("hrtimer_wakeup",
 * "kmem_cache_alloc+0x5c"; libtraceevent leaves out the kernel's "/0xSIZE"
 * and " [module]"). Without it, or where sym cannot name one (kallsyms
 * hidden from a non-root user), they print in hex. sym is borrowed: it
 * must outlive every tp_format__print() of fmt. */
void tp_format__set_kernel_symbols(struct tp_format *fmt, struct symbolizer *sym);

/* Load and parse tracefs events/SYS/NAME/format. NULL + errno. */
struct tp_format *tp_format__load(const char *sys, const char *name);

void tp_format__free(struct tp_format *fmt);

const struct tp_field *tp_format__field(const struct tp_format *fmt, const char *name);
/* " NAME" for each of fmt's own fields (not the common ones) appended to
 * buf at n, cut short where len is reached (snprintf's NUL there); the
 * new n. For messages naming what an event has: "...; its fields: a b c". */
size_t tp_format__list_fields(const struct tp_format *fmt, char *buf, size_t len, size_t n);

/* The integer value of a scalar field (sign-extended if signed) or the
 * address of a pointer field. -ERANGE if the record is too short, -EINVAL
 * for arrays. */
int tp_field__int(const struct tp_field *f, const void *data, size_t size, int64_t *value);

/* A dynamic (__data_loc/__rel_loc) field's payload: *ptr and *len within
 * data. -ERANGE if it points outside the record. */
int tp_field__dynamic(const struct tp_field *f, const void *data, size_t size,
		      const void **ptr, size_t *len);

/* One field's value as text (no "name="): integers in decimal, pointers in
 * hex, strings quoted with C escapes, other arrays as {a,b,...} (unsigned
 * elements in hex). Returns the length snprintf would have written. */
int tp_field__format(const struct tp_field *f, const void *data, size_t size, char *out, size_t len);

/* What trace_pipe prints for the record after "NAME: " (see above). Returns
 * the length snprintf would have written (>= len: truncated), or -ERANGE if
 * the record is shorter than the format's fixed fields or a dynamic field
 * points outside it (nothing is read outside the record). */
int tp_format__print(const struct tp_format *fmt, const void *data, size_t size, char *out, size_t len);

#endif
