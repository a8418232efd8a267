/* Tracepoint format files (tracefs events/SYS/NAME/format) -> fields, and a
 * decoder from a PERF_SAMPLE_RAW record to "field=value ..." text.
 *
 * The raw data a decoder takes is what follows the u32 size of
 * PERF_SAMPLE_RAW: it starts with common_type. Values:
 *   integers of every size, signed or unsigned (syscall arguments, stored in
 *   8 bytes, are read as their declared type: int dfd -> -100);
 *   pointers and address-like fields (addr, ip, call_site, ptr) in hex;
 *   char arrays and __data_loc/__rel_loc char[] as quoted C strings;
 *   other arrays as {a,b,...} (unsigned elements in hex).
 */
#ifndef PPROBE_TP_FORMAT_H
#define PPROBE_TP_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
	bool is_hex;           /* print fmt shows it as NAME=0x%... (probe args of type x8..x64) */
};

struct tp_format {
	char *name;            /* "sched_switch" (the "name:" line) */
	unsigned id;           /* the "ID:" line */
	struct tp_field *fields;   /* common fields first, in file order */
	size_t nr_fields;
	size_t nr_common;
	char *print_fmt;       /* the "print fmt:" text, or NULL */
};

/* Parse a format file's text. NULL + errno (EINVAL: not a format file). */
struct tp_format *tp_format__parse(const char *text);

/* Load and parse tracefs events/SYS/NAME/format. NULL + errno. */
struct tp_format *tp_format__load(const char *sys, const char *name);

void tp_format__free(struct tp_format *fmt);

const struct tp_field *tp_format__field(const struct tp_format *fmt, const char *name);

/* The integer value of a scalar field (sign-extended if signed) or the
 * address of a pointer field. -ERANGE if the record is too short, -EINVAL
 * for arrays. */
int tp_field__int(const struct tp_field *f, const void *data, size_t size, int64_t *value);

/* A dynamic (__data_loc/__rel_loc) field's payload: *ptr and *len within
 * data. -ERANGE if it points outside the record. */
int tp_field__dynamic(const struct tp_field *f, const void *data, size_t size,
		      const void **ptr, size_t *len);

/* One field's value as text (no "name="). Returns the length snprintf would
 * have written. */
int tp_field__format(const struct tp_field *f, const void *data, size_t size, char *out, size_t len);

#define TP_DECODE_COMMON 1u    /* include common_* fields */

/* "field=value field=value ..." for the record. Returns the length snprintf
 * would have written (>= len: truncated), or -ERANGE if the record is shorter
 * than the format's fixed fields. */
int tp_format__decode(const struct tp_format *fmt, const void *data, size_t size, unsigned flags,
		      char *out, size_t len);

#endif
