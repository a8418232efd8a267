/* The one JSON writer of pprobe's output (trace --json, stat -j): strings
 * escaped per RFC 8259, numbers, the punctuation between members. Writes to
 * a stdio stream; write errors show in ferror() as with any stdio output. */
#ifndef PPROBE_JSON_H
#define PPROBE_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* s as a JSON string, quotes included: '"' and '\\' escaped, \b \f \n \r \t
 * as such, every other control character (and DEL) as \u00XX; valid UTF-8
 * passes through, a byte that is not part of valid UTF-8 becomes \u00XX
 * (read as Latin-1) so the output stays valid JSON. Stops at n bytes or a
 * NUL (fixed-size C strings in tracepoint records end at either). */
void json__string_n(FILE *f, const char *s, size_t n);
static inline void json__string(FILE *f, const char *s)
{
	json__string_n(f, s, (size_t)-1);
}

/* "key": with the comma before it unless *first (then clears it). */
void json__key(FILE *f, const char *key, int *first);

void json__u64(FILE *f, uint64_t v);
void json__i64(FILE *f, int64_t v);
/* %.*f with prec digits; NaN and infinities (no JSON number) as null. */
void json__double(FILE *f, double v, int prec);

#endif
