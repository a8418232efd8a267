/* The checks every unit test uses. A failed check prints where and why and
 * the test goes on; the test ends with `return check_summary();` (0 all
 * passed, 1 any failed) or, when it cannot run, `return check_skip(...)`
 * (77, which ctest counts as skipped, or 1 if a check already failed).
 *
 *   CHECK(cond, fmt, ...)     cond must hold; fmt says what was expected
 *   CHECK_FAIL(fmt, ...)      a failure that is not a condition (setup)
 *   CHECK_EQ_INT(a, b)        signed integers, both values printed
 *   CHECK_EQ_U64(a, b)        unsigned integers, both values printed
 *   CHECK_STREQ(a, b)         strings (NULL is a failure, not a crash)
 *
 * Each is an expression worth true when it held, so a test can stop
 * following a path that already failed: `if (!CHECK(p, "...")) return;`. */
#ifndef PPROBE_CHECK_H
#define PPROBE_CHECK_H
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static int check_count, check_failures;

__attribute__((format(printf, 4, 5)))
static inline void check__fail(const char *file, int line, const char *expr, const char *fmt, ...)
{
	va_list ap;

	check_failures++;
	if (expr)
		fprintf(stderr, "FAIL %s:%d: %s: ", file, line, expr);
	else
		fprintf(stderr, "FAIL %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* The condition first, the message's arguments only when it failed (they
 * may read what the condition just checked, e.g. CHECK(p, "%s", p->name)). */
#define CHECK(cond, ...)                                                                      \
	({                                                                                    \
		bool check__ok = (cond);                                                      \
		check_count++;                                                                \
		if (!check__ok)                                                               \
			check__fail(__FILE__, __LINE__, #cond, __VA_ARGS__);                  \
		check__ok;                                                                    \
	})
#define CHECK_FAIL(...)                                                                       \
	({                                                                                    \
		check_count++;                                                                \
		check__fail(__FILE__, __LINE__, NULL, __VA_ARGS__);                           \
		false;                                                                        \
	})

#define CHECK_EQ_INT(a, b)                                                                    \
	({                                                                                    \
		long long check__a = (a), check__b = (b);                                     \
		check_count++;                                                                \
		if (check__a != check__b)                                                     \
			check__fail(__FILE__, __LINE__, #a " == " #b, "%lld, expected %lld",  \
				    check__a, check__b);                                      \
		check__a == check__b;                                                         \
	})
#define CHECK_EQ_U64(a, b)                                                                    \
	({                                                                                    \
		unsigned long long check__a = (a), check__b = (b);                            \
		check_count++;                                                                \
		if (check__a != check__b)                                                     \
			check__fail(__FILE__, __LINE__, #a " == " #b,                         \
				    "%llu (%#llx), expected %llu (%#llx)", check__a, check__a, \
				    check__b, check__b);                                      \
		check__a == check__b;                                                         \
	})
#define CHECK_STREQ(a, b)                                                                     \
	({                                                                                    \
		const char *check__a = (a), *check__b = (b);                                  \
		bool check__ok = check__a && check__b && !strcmp(check__a, check__b);         \
		check_count++;                                                                \
		if (!check__ok)                                                               \
			check__fail(__FILE__, __LINE__, #a " == " #b, "\"%s\", expected \"%s\"", \
				    check__a ? check__a : "(null)",                           \
				    check__b ? check__b : "(null)");                          \
		check__ok;                                                                    \
	})

/* The test cannot run here: say why (one line on stdout) and return 77. */
__attribute__((format(printf, 1, 2)))
static inline int check_skip(const char *fmt, ...)
{
	va_list ap;

	fputs("SKIP: ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	return check_failures ? 1 : 77;
}

static inline int check_summary(void)
{
	printf("%d checks, %d failed\n", check_count, check_failures);
	return check_failures ? 1 : 0;
}
#endif
