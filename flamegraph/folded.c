/* The folded-stack line grammar and text helpers (number format, UTF-8,
 * XML escaping). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static bool is_perl_space(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* The count is the text after the last whitespace character and must match
 * \d+(\.\d*)? exactly; the stack is everything before that one whitespace
 * character (Perl's greedy (.*) keeps any further whitespace in the stack).
 * Only the count's characters are looked at: a line without a second count
 * column costs a few bytes, not a scan of the stack. */
int folded__parse_count(const char *line, size_t len, size_t *stack_len, double *count)
{
	size_t i = len;
	while (i > 0 && ((line[i - 1] >= '0' && line[i - 1] <= '9') || line[i - 1] == '.'))
		i--;
	if (i == 0 || !is_perl_space((unsigned char)line[i - 1]))
		return -EINVAL;
	size_t j = i, digits = 0;
	uint64_t v = 0;
	while (j < len && line[j] >= '0' && line[j] <= '9') {
		v = v * 10 + (uint64_t)(line[j] - '0');
		j++, digits++;
	}
	if (digits == 0)
		return -EINVAL;
	if (j == len && digits <= 15) {
		*count = (double)v;  /* exact: below 2^53 */
		*stack_len = i - 1;
		return 0;
	}
	if (j < len && line[j] == '.') {
		j++;
		while (j < len && line[j] >= '0' && line[j] <= '9')
			j++;
	}
	if (j != len)
		return -EINVAL;
	char buf[64];
	size_t n = len - i;
	if (n < sizeof(buf)) {
		memcpy(buf, line + i, n);
		buf[n] = '\0';
		*count = strtod(buf, NULL);
	} else {
		char *tmp = strndup(line + i, n);
		if (!tmp)
			return -ENOMEM;
		*count = strtod(tmp, NULL);
		free(tmp);
	}
	*stack_len = i - 1;
	return 0;
}

int folded__parse(const char *line, size_t len, size_t *stack_len,
		  double *count1, double *count2, bool *has2)
{
	size_t sl;
	double c;
	int err = folded__parse_count(line, len, &sl, &c);
	if (err)
		return err;
	size_t sl2;
	double c1;
	if (folded__parse_count(line, sl, &sl2, &c1) == 0) {
		*stack_len = sl2;
		*count1 = c1;
		*count2 = c;
		*has2 = true;
	} else {
		*stack_len = sl;
		*count1 = c;
		*count2 = 0;
		*has2 = false;
	}
	return 0;
}

int folded_line__parse(const char *line, size_t len, size_t *stack_len, double *count1, double *count2,
		       bool *has2)
{
	return folded__parse(line, len, stack_len, count1, count2, has2);
}

void fmt_num(char *buf, size_t size, double v)
{
	if (v == 0)
		v = 0;  /* no "-0" */
	/* Whole numbers below 1e15 are what %.15g prints as plain digits */
	if (v > -1e15 && v < 1e15 && v == (double)(int64_t)v && size >= 18) {
		char tmp[20];
		int64_t x = (int64_t)v;
		uint64_t u = x < 0 ? (uint64_t)-x : (uint64_t)x;
		size_t n = 0;
		do {
			tmp[n++] = (char)('0' + u % 10);
			u /= 10;
		} while (u);
		size_t o = 0;
		if (x < 0)
			buf[o++] = '-';
		while (n)
			buf[o++] = tmp[--n];
		buf[o] = '\0';
		return;
	}
	snprintf(buf, size, "%.15g", v);
}

uint32_t utf8_next(const unsigned char *s, size_t n, size_t *adv, bool *valid)
{
	unsigned char c = s[0];
	*adv = 1;
	*valid = true;
	if (c < 0x80)
		return c;
	size_t need;
	uint32_t cp, min;
	if ((c & 0xe0) == 0xc0)
		need = 1, cp = c & 0x1f, min = 0x80;
	else if ((c & 0xf0) == 0xe0)
		need = 2, cp = c & 0x0f, min = 0x800;
	else if ((c & 0xf8) == 0xf0)
		need = 3, cp = c & 0x07, min = 0x10000;
	else
		goto bad;
	if (need >= n)
		goto bad;
	for (size_t k = 1; k <= need; k++) {
		if ((s[k] & 0xc0) != 0x80)
			goto bad;
		cp = (cp << 6) | (s[k] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		goto bad;
	*adv = need + 1;
	return cp;
bad:
	*valid = false;
	return c;
}

void xml_escape(FILE *out, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, run = 0;  /* [i - run, i) is a pending literal run */
	while (i < len) {
		unsigned char c = p[i];
		const char *rep = NULL;
		size_t adv = 1;
		if (c == '&')
			rep = "&amp;";
		else if (c == '<')
			rep = "&lt;";
		else if (c == '>')
			rep = "&gt;";
		else if (c == '"')
			rep = "&quot;";
		else if (c == '\'')
			rep = "&apos;";
		else if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
			rep = "\xef\xbf\xbd";
		else if (c >= 0x80) {
			bool valid;
			uint32_t cp = utf8_next(p + i, len - i, &adv, &valid);
			if (!valid || cp == 0xfffe || cp == 0xffff)
				rep = "\xef\xbf\xbd";
		}
		if (rep) {
			if (run)
				fwrite(p + i - run, 1, run, out);
			run = 0;
			fputs(rep, out);
		} else {
			run += adv;
		}
		i += adv;
	}
	if (run)
		fwrite(p + i - run, 1, run, out);
}
