/* Tracepoint formats through libtraceevent; raw records decoded with them. */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <trace-seq.h>
#include <tracefs/tracefs.h>

#include "tp_format.h"
#include "tracefs.h"
#include "pprobe/symbolize.h"

void tp_format__free(struct tp_format *fmt)
{
	if (!fmt)
		return;
	for (size_t i = 0; i < fmt->nr_fields; i++) {
		free(fmt->fields[i].name);
		free(fmt->fields[i].type);
	}
	free(fmt->fields);
	free(fmt->name);
	free(fmt->sys);
	free(fmt->print_fmt);
	tep_free(fmt->tep);	/* and its event */
	free(fmt);
}

/* Size and signedness of a C integer type name; 0 if unknown. */
static unsigned type_size(const char *type, int *is_signed)
{
	static const struct { const char *name; unsigned size; int sign; } types[] = {
		{ "char", 1, 1 }, { "signed char", 1, 1 }, { "unsigned char", 1, 0 },
		{ "short", 2, 1 }, { "short int", 2, 1 }, { "unsigned short", 2, 0 },
		{ "unsigned short int", 2, 0 }, { "int", 4, 1 }, { "signed int", 4, 1 }, { "signed", 4, 1 },
		{ "unsigned int", 4, 0 }, { "unsigned", 4, 0 }, { "long", 8, 1 }, { "long int", 8, 1 },
		{ "unsigned long", 8, 0 }, { "unsigned long int", 8, 0 }, { "long long", 8, 1 },
		{ "long long int", 8, 1 }, { "unsigned long long", 8, 0 }, { "unsigned long long int", 8, 0 },
		{ "bool", 1, 0 }, { "_Bool", 1, 0 },
		{ "u8", 1, 0 }, { "s8", 1, 1 }, { "__u8", 1, 0 }, { "__s8", 1, 1 }, { "uint8_t", 1, 0 }, { "int8_t", 1, 1 },
		{ "u16", 2, 0 }, { "s16", 2, 1 }, { "__u16", 2, 0 }, { "__s16", 2, 1 }, { "uint16_t", 2, 0 },
		{ "int16_t", 2, 1 }, { "__le16", 2, 0 }, { "__be16", 2, 0 }, { "umode_t", 2, 0 },
		{ "u32", 4, 0 }, { "s32", 4, 1 }, { "__u32", 4, 0 }, { "__s32", 4, 1 }, { "uint32_t", 4, 0 },
		{ "int32_t", 4, 1 }, { "__le32", 4, 0 }, { "__be32", 4, 0 }, { "pid_t", 4, 1 }, { "uid_t", 4, 0 },
		{ "gid_t", 4, 0 }, { "key_serial_t", 4, 1 }, { "qid_t", 4, 0 }, { "clockid_t", 4, 1 },
		{ "mqd_t", 4, 1 }, { "key_t", 4, 1 }, { "rwf_t", 4, 1 }, { "dev_t", 4, 0 },
		{ "u64", 8, 0 }, { "s64", 8, 1 }, { "__u64", 8, 0 }, { "__s64", 8, 1 }, { "uint64_t", 8, 0 },
		{ "int64_t", 8, 1 }, { "size_t", 8, 0 }, { "ssize_t", 8, 1 }, { "off_t", 8, 1 },
		{ "loff_t", 8, 1 }, { "time_t", 8, 1 }, { "__kernel_old_time_t", 8, 1 }, { "aio_context_t", 8, 0 },
		{ "sector_t", 8, 0 }, { "gfp_t", 4, 0 }, { "cap_user_header_t", 8, 0 },
	};
	char buf[128];
	const char *t = type;
	for (;;) {
		while (*t == ' ')
			t++;
		if (!strncmp(t, "const ", 6))
			t += 6;
		else if (!strncmp(t, "volatile ", 9))
			t += 9;
		else if (!strncmp(t, "enum ", 5))
			return *is_signed = 0, 4;
		else
			break;
	}
	snprintf(buf, sizeof(buf), "%s", t);
	size_t n = strlen(buf);
	while (n && buf[n - 1] == ' ')
		buf[--n] = 0;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (!strcmp(buf, types[i].name)) {
			*is_signed = types[i].sign;
			return types[i].size;
		}
	return 0;
}

/* Element type of an array type "char[16]" / "__data_loc unsigned long[]". */
static void elem_type(const struct tp_field *f, char *buf, size_t len)
{
	const char *t = f->type, *sp = f->is_dynamic ? strchr(t, ' ') : NULL;
	if (sp)		/* "__data_loc char[]" -> "char[]"; a bare "__data_loc" has none */
		t = sp + 1;
	snprintf(buf, len, "%s", t);
	char *b = strchr(buf, '[');
	if (b)
		*b = 0;
	size_t n = strlen(buf);
	while (n && buf[n - 1] == ' ')
		buf[--n] = 0;
}

static void finish_field(struct tp_field *f)
{
	int sgn = f->is_signed;
	if (f->is_array) {
		char et[256];
		elem_type(f, et, sizeof(et));
		unsigned es = type_size(et, &sgn);
		f->is_string = !strcmp(et, "char") || !strcmp(et, "const char") || !strcmp(et, "unsigned char") ||
			       !strcmp(et, "signed char");
		f->is_string = f->is_string && (es == 1);
		if (strchr(et, '*')) {
			es = 8;
			sgn = 0;
		}
		if (!f->is_dynamic) {
			if (f->array_len && f->size % f->array_len == 0)
				es = f->size / f->array_len;
			else if (!es)
				es = 1;
			if (!f->array_len)
				f->array_len = f->size / es;
		} else if (!es) {
			es = 1;
		}
		f->elem_size = es;
		f->elem_signed = es == 1 && f->is_string ? 0 : (type_size(et, &sgn) ? sgn : f->is_signed);
		return;
	}
	if (f->is_pointer) {
		f->elem_size = f->size;
		f->elem_signed = false;
		return;
	}
	unsigned ts = type_size(f->type, &sgn);
	if (ts && ts < f->size) {
		/* syscall arguments: an int in an 8-byte slot */
		f->elem_size = ts;
		f->elem_signed = sgn;
	} else {
		f->elem_size = f->size;
		f->elem_signed = f->is_signed;
	}
}

/* The kernel prints a probe event's address with its own code (trace_probe.c,
 * trace_uprobe.c: "(0x%lx)", "(0x%lx <- 0x%lx)"), while the print fmt its
 * format file shows says "(%lx)": pprobe prints what trace_pipe prints.
 * NULL when text is not a probe event's format (or no memory: the format
 * as it is then). */
static char *probe_print_fmt(const char *text)
{
	static const struct { const char *from, *to; } fix[] = {
		{ "\nprint fmt: \"(%lx <- %lx)", "\nprint fmt: \"(0x%lx <- 0x%lx)" },
		{ "\nprint fmt: \"(%lx)", "\nprint fmt: \"(0x%lx)" },
	};
	if (!strstr(text, " __probe_ip;") && !strstr(text, " __probe_func;"))
		return NULL;
	for (size_t i = 0; i < sizeof(fix) / sizeof(fix[0]); i++) {
		const char *p = strstr(text, fix[i].from);
		char *out = NULL;
		if (p && asprintf(&out, "%.*s%s%s", (int)(p - text), text, fix[i].to, p + strlen(fix[i].from)) < 0)
			out = NULL;
		if (p)
			return out;
	}
	return NULL;
}

/* pprobe's view of one of libtraceevent's fields. */
static int add_field(struct tp_format *fmt, const struct tep_format_field *tf, bool common)
{
	struct tp_field *f = &fmt->fields[fmt->nr_fields];
	memset(f, 0, sizeof(*f));
	f->name = strdup(tf->name);
	f->type = strdup(tf->type);
	if (!f->name || !f->type) {
		free(f->name);
		free(f->type);
		return -ENOMEM;
	}
	fmt->nr_fields++;
	f->offset = (unsigned)tf->offset;
	f->size = (unsigned)tf->size;
	f->is_signed = tf->flags & TEP_FIELD_IS_SIGNED;
	f->is_common = common;
	f->is_pointer = strchr(f->type, '*') != NULL;
	f->is_dynamic = tf->flags & TEP_FIELD_IS_DYNAMIC;
	f->is_rel = tf->flags & TEP_FIELD_IS_RELATIVE;
	f->is_array = f->is_dynamic || (tf->flags & TEP_FIELD_IS_ARRAY);
	f->array_len = f->is_dynamic ? 0 : tf->arraylen;
	finish_field(f);
	if (!f->is_dynamic && f->offset + f->size > fmt->min_size)
		fmt->min_size = f->offset + f->size;
	else if (f->is_dynamic && f->offset + 4 > fmt->min_size)
		fmt->min_size = f->offset + 4;
	return 0;
}

struct tp_format *tp_format__parse(const char *text, const char *sys)
{
	struct tp_format *fmt = calloc(1, sizeof(*fmt));
	char *fixed = probe_print_fmt(text);
	const char *t = fixed ? fixed : text;
	struct tep_event *ev = NULL;
	int err = -EINVAL;

	if (!fmt || !(fmt->tep = tep_alloc())) {
		err = -ENOMEM;
		goto err;
	}
	tep_set_long_size(fmt->tep, (int)sizeof(long));
	tep_set_page_size(fmt->tep, (int)sysconf(_SC_PAGESIZE));
	/* Returns 0 with the event flagged FAILED where only the print fmt
	 * failed; NULL where the format itself did. */
	tep_parse_format(fmt->tep, &ev, t, strlen(t), sys ? sys : "");
	if (!ev || !ev->format.nr_common)
		goto err;
	fmt->event = ev;
	fmt->print_failed = ev->flags & TEP_EVENT_FL_FAILED;
	fmt->id = (unsigned)ev->id;
	fmt->name = strdup(ev->name);
	fmt->sys = strdup(sys ? sys : "");
	const char *pf = strstr(text, "\nprint fmt: ");
	if (pf)
		fmt->print_fmt = strndup(pf + 12, strcspn(pf + 12, "\n"));
	/* Sized by the lists walked below, not by nr_common/nr_fields: where a
	 * field line is malformed ("of16prio4;" for "offset:24;") libtraceevent
	 * has linked the field it then fails to count (found by
	 * tests/fuzz/fuzz_tp_format). */
	size_t nr = 0;
	for (const struct tep_format_field *f = ev->format.common_fields; f; f = f->next)
		nr++;
	for (const struct tep_format_field *f = ev->format.fields; f; f = f->next)
		nr++;
	fmt->fields = calloc(nr ? nr : 1, sizeof(*fmt->fields));
	if (!fmt->name || !fmt->sys || (pf && !fmt->print_fmt) || !fmt->fields) {
		err = -ENOMEM;
		goto err;
	}
	for (const struct tep_format_field *f = ev->format.common_fields; f; f = f->next)
		if ((err = add_field(fmt, f, true)))
			goto err;
	fmt->nr_common = fmt->nr_fields;
	for (const struct tep_format_field *f = ev->format.fields; f; f = f->next)
		if ((err = add_field(fmt, f, false)))
			goto err;
	free(fixed);
	return fmt;
err:
	free(fixed);
	tp_format__free(fmt);
	errno = -err;
	return NULL;
}

/* libtraceevent's function resolver: the name of the kernel function
 * around *addrp, and *addrp moved to its start. The name stays owned by the
 * symbolizer. */
static char *resolve_kernel_function(void *priv, unsigned long long *addrp, char **modp)
{
	struct sym_frame f;
	if (symbolizer__kernel(priv, *addrp, false, &f, 1) < 1 || !f.name)
		return NULL;
	*addrp -= f.offset;
	*modp = NULL;
	return (char *)f.name;
}

void tp_format__set_kernel_symbols(struct tp_format *fmt, struct symbolizer *sym)
{
	if (sym)
		tep_set_function_resolver(fmt->tep, resolve_kernel_function, sym);
	else
		tep_reset_function_resolver(fmt->tep);
}

struct tp_format *tp_format__load(const char *sys, const char *name)
{
	if (strchr(sys, '/') || strchr(name, '/') || !strcmp(sys, "..") || !strcmp(name, "..")) {
		errno = EINVAL;
		return NULL;
	}
	if (!tracefs__root())
		return NULL;
	errno = 0;
	char *text = tracefs_event_file_read(NULL, sys, name, "format", NULL);
	if (!text) {
		if (!errno)
			errno = EINVAL;	/* an empty format */
		return NULL;
	}
	struct tp_format *fmt = tp_format__parse(text, sys);
	int e = errno;
	free(text);
	errno = e;
	return fmt;
}

const struct tp_field *tp_format__field(const struct tp_format *fmt, const char *name)
{
	for (size_t i = 0; i < fmt->nr_fields; i++)
		if (!strcmp(fmt->fields[i].name, name))
			return &fmt->fields[i];
	return NULL;
}

size_t tp_format__list_fields(const struct tp_format *fmt, char *buf, size_t len, size_t n)
{
	for (size_t i = 0; i < fmt->nr_fields && n < len; i++)
		if (!fmt->fields[i].is_common)
			n += (size_t)snprintf(buf + n, len - n, " %s", fmt->fields[i].name);
	return n;
}

static uint64_t load_uint(const unsigned char *p, unsigned size)
{
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64 = 0;
	switch (size) {
	case 1: memcpy(&u8, p, 1); return u8;
	case 2: memcpy(&u16, p, 2); return u16;
	case 4: memcpy(&u32, p, 4); return u32;
	case 8: memcpy(&u64, p, 8); return u64;
	default:
		memcpy(&u64, p, size < 8 ? size : 8);   /* little-endian hosts */
		return u64;
	}
}

static int64_t sign_extend(uint64_t v, unsigned size)
{
	if (size >= 8 || size == 0)	/* size 0: nothing was read, and a shift by 64 is undefined */
		return (int64_t)v;
	unsigned shift = 64 - size * 8;
	return (int64_t)(v << shift) >> shift;
}

int tp_field__int(const struct tp_field *f, const void *data, size_t size, int64_t *value)
{
	if (f->is_array)
		return -EINVAL;
	if ((size_t)f->offset + f->size > size)
		return -ERANGE;
	uint64_t v = load_uint((const unsigned char *)data + f->offset, f->size);
	unsigned es = f->elem_size ? f->elem_size : f->size;
	if (es < 8)
		v &= (1ULL << (es * 8)) - 1;
	*value = f->elem_signed ? sign_extend(v, es) : (int64_t)v;
	return 0;
}

int tp_field__dynamic(const struct tp_field *f, const void *data, size_t size,
		      const void **ptr, size_t *len)
{
	if (!f->is_dynamic)
		return -EINVAL;
	if ((size_t)f->offset + 4 > size)
		return -ERANGE;
	uint32_t loc = (uint32_t)load_uint((const unsigned char *)data + f->offset, 4);
	size_t off = loc & 0xffff, n = loc >> 16;
	if (f->is_rel)
		off += f->offset + f->size;
	if (off > size || n > size - off)
		return -ERANGE;
	*ptr = (const unsigned char *)data + off;
	*len = n;
	return 0;
}

struct out {
	char *buf;
	size_t len, pos;    /* pos may exceed len: snprintf semantics */
};

static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(o->pos < o->len ? o->buf + o->pos : NULL, o->pos < o->len ? o->len - o->pos : 0,
			  fmt, ap);
	va_end(ap);
	if (n > 0)
		o->pos += n;
}

static void put_string(struct out *o, const unsigned char *s, size_t n)
{
	put(o, "\"");
	for (size_t i = 0; i < n && s[i]; i++) {
		unsigned char c = s[i];
		if (c == '"' || c == '\\')
			put(o, "\\%c", c);
		else if (c == '\n')
			put(o, "\\n");
		else if (c == '\t')
			put(o, "\\t");
		else if (c < 0x20 || c >= 0x7f)
			put(o, "\\x%02x", c);
		else
			put(o, "%c", c);
	}
	put(o, "\"");
}

static void put_elems(struct out *o, const struct tp_field *f, const unsigned char *p, size_t n)
{
	unsigned es = f->elem_size ? f->elem_size : 1;
	put(o, "{");
	for (size_t i = 0; i + es <= n; i += es) {
		uint64_t v = load_uint(p + i, es);
		if (i)
			put(o, ",");
		if (f->elem_signed)
			put(o, "%" PRId64, sign_extend(v, es));
		else
			put(o, "0x%" PRIx64, v);
	}
	put(o, "}");
}

static void format_field(struct out *o, const struct tp_field *f, const void *data, size_t size)
{
	const unsigned char *d = data;
	if (f->is_dynamic) {
		const void *p;
		size_t n;
		if (tp_field__dynamic(f, data, size, &p, &n)) {
			put(o, "<bad data_loc>");
			return;
		}
		if (f->is_string)
			put_string(o, p, n);
		else
			put_elems(o, f, p, n);
		return;
	}
	if ((size_t)f->offset + f->size > size) {
		put(o, "<truncated>");
		return;
	}
	if (f->is_array) {
		if (f->is_string)
			put_string(o, d + f->offset, f->size);
		else
			put_elems(o, f, d + f->offset, f->size);
		return;
	}
	int64_t v;
	tp_field__int(f, data, size, &v);
	if (f->is_pointer)
		put(o, "0x%" PRIx64, (uint64_t)v);
	else if (f->elem_signed)
		put(o, "%" PRId64, v);
	else
		put(o, "%" PRIu64, (uint64_t)v);
}

int tp_field__format(const struct tp_field *f, const void *data, size_t size, char *buf, size_t len)
{
	struct out o = { buf, len, 0 };
	if (len)
		buf[0] = 0;
	format_field(&o, f, data, size);
	return (int)o.pos;
}

int tp_format__print(const struct tp_format *fmt, const void *data, size_t size, char *buf, size_t len)
{
	if (len)
		buf[0] = 0;
	/* libtraceevent reads fields where the format says they are: check
	 * the record holds them first */
	if (size < fmt->min_size || size > INT_MAX)
		return -ERANGE;
	for (size_t i = 0; i < fmt->nr_fields; i++) {
		const void *p;
		size_t n;
		if (fmt->fields[i].is_dynamic && tp_field__dynamic(&fmt->fields[i], data, size, &p, &n))
			return -ERANGE;
	}
	/* libtraceevent prints a char array with %s: one without its NUL at
	 * the end of the record was read past it (found by fuzz_tp_format).
	 * It reads a copy followed by NULs. */
	unsigned char *copy = malloc(size + 8);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, data, size);
	memset(copy + size, 0, 8);
	struct tep_record rec = { .data = copy, .size = (int)size };
	struct trace_seq s;
	trace_seq_init(&s);
	tep_print_event(fmt->tep, &s, &rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&s);
	int n = s.state == TRACE_SEQ__GOOD ? snprintf(buf, len, "%s", s.buffer) : -ENOMEM;
	trace_seq_destroy(&s);
	free(copy);
	return n;
}
