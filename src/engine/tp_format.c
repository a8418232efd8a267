/* Tracepoint format parsing and raw record decoding. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp_format.h"
#include "tracefs.h"

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
	free(fmt->print_fmt);
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

/* "field:DECL;" with DECL "TYPE NAME", "TYPE NAME[N]", "__data_loc TYPE[] NAME". */
static int parse_decl(struct tp_field *f, const char *decl)
{
	char d[512];
	snprintf(d, sizeof(d), "%s", decl);
	size_t n = strlen(d);
	while (n && isspace((unsigned char)d[n - 1]))
		d[--n] = 0;
	char arr[64] = "";
	char *br = strchr(d, '[');
	char *name_end = d + n;
	/* NAME[N]: the bracket comes after the name; "char[] name": before it */
	if (br && d[n - 1] == ']' && br > d && !isspace((unsigned char)br[-1]) &&
	    (isalnum((unsigned char)br[-1]) || br[-1] == '_') && strrchr(d, '[') == br &&
	    strncmp(d, "__data_loc", 10) && strncmp(d, "__rel_loc", 9)) {
		snprintf(arr, sizeof(arr), "%s", br);
		*br = 0;
		name_end = br;
	}
	char *p = name_end;
	while (p > d && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))
		p--;
	if (p == name_end)
		return -EINVAL;
	f->name = strndup(p, name_end - p);
	/* the type: everything before the name, trimmed, plus the array suffix */
	char *te = p;
	while (te > d && isspace((unsigned char)te[-1]))
		te--;
	if (te == d)
		return -EINVAL;   /* "field:int;" has a name but no type */
	char type[600];
	snprintf(type, sizeof(type), "%.*s%s", (int)(te - d), d, arr);
	f->type = strdup(type);
	if (!f->name || !f->type)
		return -ENOMEM;

	f->is_pointer = strchr(type, '*') != NULL;
	if (!strncmp(type, "__data_loc ", 11) || !strncmp(type, "__rel_loc ", 10)) {
		f->is_dynamic = f->is_array = true;
		f->is_rel = type[2] == 'r';
	} else if (arr[0]) {
		f->is_array = true;
		char *end;
		unsigned long len = strtoul(arr + 1, &end, 0);
		if (*end == ']' && len > 0)
			f->array_len = len;   /* else a macro name: derived from size below */
	}
	return 0;
}

/* Element type of an array type "char[16]" / "__data_loc unsigned long[]". */
static void elem_type(const struct tp_field *f, char *buf, size_t len)
{
	const char *t = f->type;
	if (f->is_dynamic)
		t = strchr(t, ' ') + 1;
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

struct tp_format *tp_format__parse(const char *text)
{
	struct tp_format *fmt = calloc(1, sizeof(*fmt));
	size_t cap = 0;
	int err = -EINVAL, in_common = 1, seen_format = 0;
	char *copy = strdup(text);

	if (!fmt || !copy) {
		err = -ENOMEM;
		goto err;
	}
	for (char *line = copy, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		char *l = line;
		while (*l == ' ' || *l == '\t')
			l++;
		if (!*l) {
			if (seen_format && fmt->nr_fields)
				in_common = 0;   /* the blank line after the common fields */
			continue;
		}
		if (!strncmp(l, "name:", 5)) {
			char *v = l + 5;
			while (*v == ' ')
				v++;
			free(fmt->name);
			if (!(fmt->name = strdup(v))) {
				err = -ENOMEM;
				goto err;
			}
		} else if (!strncmp(l, "ID:", 3)) {
			fmt->id = strtoul(l + 3, NULL, 10);
		} else if (!strncmp(l, "format:", 7)) {
			seen_format = 1;
		} else if (!strncmp(l, "print fmt:", 10)) {
			char *v = l + 10;
			while (*v == ' ')
				v++;
			free(fmt->print_fmt);
			if (!(fmt->print_fmt = strdup(v))) {
				err = -ENOMEM;
				goto err;
			}
			/* print fmt is the last thing; it may not span lines, but be safe */
			break;
		} else if (!strncmp(l, "field:", 6)) {
			char *semi = strchr(l, ';');
			if (!semi)
				goto err;
			*semi = 0;
			if (fmt->nr_fields == cap) {
				cap = cap ? cap * 2 : 16;
				struct tp_field *n = realloc(fmt->fields, cap * sizeof(*n));
				if (!n) {
					err = -ENOMEM;
					goto err;
				}
				fmt->fields = n;
			}
			struct tp_field *f = &fmt->fields[fmt->nr_fields];
			memset(f, 0, sizeof(*f));
			fmt->nr_fields++;
			int e = parse_decl(f, l + 6);
			if (e) {
				err = e;
				goto err;
			}
			char *o = strstr(semi + 1, "offset:"), *s = strstr(semi + 1, "size:"),
			     *g = strstr(semi + 1, "signed:");
			if (!o || !s)
				goto err;
			f->offset = strtoul(o + 7, NULL, 10);
			f->size = strtoul(s + 5, NULL, 10);
			f->is_signed = g && strtol(g + 7, NULL, 10) == 1;
			f->is_common = in_common && !strncmp(f->name, "common_", 7);
			if (f->is_common)
				fmt->nr_common++;
			finish_field(f);
		}
	}
	if (!seen_format || !fmt->nr_fields)
		goto err;
	/* probe args typed x8..x64 are u8..u64 fields the print fmt shows as
	 * "NAME=0x%x": keep them hex */
	for (size_t i = 0; fmt->print_fmt && i < fmt->nr_fields; i++) {
		struct tp_field *f = &fmt->fields[i];
		size_t n = strlen(f->name);
		for (const char *p = fmt->print_fmt; (p = strstr(p, f->name)); p += n)
			if ((p == fmt->print_fmt || p[-1] == ' ' || p[-1] == '"' || p[-1] == '(') &&
			    !strncmp(p + n, "=0x%", 4) && !f->is_dynamic && !f->is_array)
				f->is_hex = true;
	}
	free(copy);
	return fmt;
err:
	free(copy);
	tp_format__free(fmt);
	errno = -err;
	return NULL;
}

struct tp_format *tp_format__load(const char *sys, const char *name)
{
	char rel[512];
	if (strchr(sys, '/') || strchr(name, '/') || !strcmp(sys, "..") || !strcmp(name, "..")) {
		errno = EINVAL;
		return NULL;
	}
	if ((size_t)snprintf(rel, sizeof(rel), "events/%s/%s/format", sys, name) >= sizeof(rel)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	char *text = tracefs__read_file(rel, NULL);
	if (!text)
		return NULL;
	struct tp_format *fmt = tp_format__parse(text);
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
	if (size >= 8)
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

static int hexish_name(const char *name)
{
	static const char *const names[] = { "ip", "call_site", "ptr", "addr", "caller", "pc", "function",
					     "parent", "func", "page", "__probe_func" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return 1;
	size_t n = strlen(name);
	return (n > 5 && !strcmp(name + n - 5, "_addr")) || (n > 4 && !strcmp(name + n - 4, "_ptr")) ||
	       (n > 3 && !strcmp(name + n - 3, "_ip"));
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
	if (f->is_pointer || f->is_hex || (!f->elem_signed && hexish_name(f->name)))
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

int tp_format__decode(const struct tp_format *fmt, const void *data, size_t size, unsigned flags,
		      char *buf, size_t len)
{
	struct out o = { buf, len, 0 };
	int first = 1;

	if (len)
		buf[0] = 0;
	for (size_t i = 0; i < fmt->nr_fields; i++) {
		const struct tp_field *f = &fmt->fields[i];
		if ((size_t)f->offset + f->size > size)
			return -ERANGE;
	}
	for (size_t i = 0; i < fmt->nr_fields; i++) {
		const struct tp_field *f = &fmt->fields[i];
		if (f->is_common && !(flags & TP_DECODE_COMMON))
			continue;
		put(&o, "%s%s=", first ? "" : " ", f->name);
		first = 0;
		format_field(&o, f, data, size);
	}
	return (int)o.pos;
}
