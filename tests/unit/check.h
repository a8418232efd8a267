/* Minimal checks for unit tests: CHECK() records a failure with its
 * location and goes on; check_done() prints the tally and returns the exit
 * status (0 all passed, 1 any failed). */
#ifndef PPROBE_CHECK_H
#define PPROBE_CHECK_H
#include <stdio.h>
#include <string.h>

static int check_passed, check_failed;

#define CHECK(cond, ...)                                                        \
	do {                                                                    \
		if (cond) {                                                     \
			check_passed++;                                         \
		} else {                                                        \
			check_failed++;                                         \
			fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__,  \
				__LINE__, #cond);                               \
			fprintf(stderr, __VA_ARGS__);                           \
			fputc('\n', stderr);                                    \
		}                                                               \
	} while (0)

#define CHECK_EQ_U64(a, b)                                                        \
	CHECK((unsigned long long)(a) == (unsigned long long)(b), "%s = %llu, expected %llu", \
	      #a, (unsigned long long)(a), (unsigned long long)(b))
#define CHECK_STR(a, b)                                                          \
	CHECK(strcmp((a), (b)) == 0, "%s = \"%s\", expected \"%s\"", #a, (a), (b))

static inline int check_done(void)
{
	printf("%d passed, %d failed\n", check_passed, check_failed);
	return check_failed ? 1 : 0;
}
#endif
