/* The JSON writer: see json.h. */
#include "json.h"

#include <inttypes.h>
#include <math.h>

/* Length of the valid UTF-8 sequence at s (at most n bytes), 0 if none:
 * no overlong forms, no surrogates, nothing over U+10FFFF. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len;
	unsigned min;
	unsigned c = s[0];
	if (c >= 0xc2 && c <= 0xdf)
		len = 2, min = 0x80;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, min = 0x800;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, min = 0x10000;
	else
		return 0;
	if (n < len)
		return 0;
	unsigned cp = c & (0x7f >> len);
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

void json__string_n(FILE *f, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	fputc('"', f);
	for (size_t i = 0; i < n && s[i]; i++) {
		unsigned char c = s[i];
		size_t u;
		switch (c) {
		case '"': fputs("\\\"", f); continue;
		case '\\': fputs("\\\\", f); continue;
		case '\b': fputs("\\b", f); continue;
		case '\f': fputs("\\f", f); continue;
		case '\n': fputs("\\n", f); continue;
		case '\r': fputs("\\r", f); continue;
		case '\t': fputs("\\t", f); continue;
		default: break;
		}
		if (c < 0x20 || c == 0x7f) {
			fprintf(f, "\\u%04x", c);
		} else if (c < 0x80) {
			fputc(c, f);
		} else if ((u = utf8_len(s + i, n - i)) > 0) {
			fwrite(s + i, 1, u, f);
			i += u - 1;
		} else {
			fprintf(f, "\\u%04x", c);
		}
	}
	fputc('"', f);
}

void json__key(FILE *f, const char *key, int *first)
{
	if (first && !*first)
		fputc(',', f);
	if (first)
		*first = 0;
	json__string(f, key);
	fputc(':', f);
}

void json__u64(FILE *f, uint64_t v)
{
	fprintf(f, "%" PRIu64, v);
}

void json__i64(FILE *f, int64_t v)
{
	fprintf(f, "%" PRId64, v);
}

void json__double(FILE *f, double v, int prec)
{
	if (isfinite(v))
		fprintf(f, "%.*f", prec, v);
	else
		fputs("null", f);
}
