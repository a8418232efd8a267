/* The JSON writer: RFC 8259 strings (every control character escaped, UTF-8
 * kept, bytes that are not UTF-8 still valid JSON), numbers, keys; and what
 * it writes parses as JSON (python3's json module, when there is one). */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "json.h"

static char *str(const char *s, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	json__string_n(f, s, n);
	fclose(f);
	return buf;
}

static void expect(const char *s, size_t n, const char *want)
{
	char *got = str(s, n);
	CHECK(!strcmp(got, want), "\n got  %s\n want %s", got, want);
	free(got);
}

int main(void)
{
	expect("plain", (size_t)-1, "\"plain\"");
	expect("", (size_t)-1, "\"\"");
	expect("q\"b\\s/", (size_t)-1, "\"q\\\"b\\\\s/\"");
	expect("\b\f\n\r\t", (size_t)-1, "\"\\b\\f\\n\\r\\t\"");
	expect("\x01\x1f\x7f", (size_t)-1, "\"\\u0001\\u001f\\u007f\"");
	/* every control character, none left raw */
	char all[32];
	for (int i = 1; i < 32; i++)
		all[i - 1] = (char)i;
	all[31] = 0;
	char *got = str(all, sizeof(all));
	for (const char *p = got; *p; p++)
		CHECK((unsigned char)*p >= 0x20, "raw 0x%02x", *p);
	free(got);
	/* n bytes, or up to a NUL: a fixed char[16] comm */
	expect("bash\0garbage", 16, "\"bash\"");
	expect("abcdef", 3, "\"abc\"");
	/* UTF-8 passes; a broken sequence, an overlong form, a surrogate and a
	 * lone continuation byte become \u00XX each */
	expect("gr\xc3\xbc\xc3\x9f \xe2\x82\xac \xf0\x9f\x94\xa5", (size_t)-1,
	       "\"gr\xc3\xbc\xc3\x9f \xe2\x82\xac \xf0\x9f\x94\xa5\"");
	expect("a\xc3", (size_t)-1, "\"a\\u00c3\"");
	expect("\xc0\xaf", (size_t)-1, "\"\\u00c0\\u00af\"");
	expect("\xed\xa0\x80", (size_t)-1, "\"\\u00ed\\u00a0\\u0080\"");
	expect("\x80x", (size_t)-1, "\"\\u0080x\"");
	expect("\xe2\x82", 2, "\"\\u00e2\\u0082\"");	/* cut by n */

	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int first = 1;
	fputc('{', f);
	json__key(f, "u", &first);
	json__u64(f, 18446744073709551615ull);
	json__key(f, "i", &first);
	json__i64(f, -9223372036854775807ll - 1);
	json__key(f, "d", &first);
	json__double(f, 2.5, 2);
	json__key(f, "nan", &first);
	json__double(f, NAN, 2);
	json__key(f, "inf", &first);
	json__double(f, INFINITY, 2);
	json__key(f, "s\x01", &first);
	json__string(f, "\x01\xff");
	fputs("}\n", f);
	fclose(f);
	CHECK_STREQ(buf, "{\"u\":18446744073709551615,\"i\":-9223372036854775808,\"d\":2.50,\"nan\":null,"
		       "\"inf\":null,\"s\\u0001\":\"\\u0001\\u00ff\"}\n");

	/* a JSON parser agrees */
	FILE *py = popen("python3 -c 'import json,sys; o = json.loads(sys.stdin.read()); "
			 "sys.exit(0 if o[\"s\\x01\"] == \"\\x01\\xff\" and o[\"nan\"] is None else 3)' 2>/dev/null",
			 "w");
	if (py) {
		fputs(buf, py);
		int st = pclose(py);
		if (st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 127)
			printf("python3 missing: output not parsed\n");
		else
			CHECK(st == 0, "python3's json refused or misread %s (status %d)", buf, st);
	}
	free(buf);
	return check_summary();
}
