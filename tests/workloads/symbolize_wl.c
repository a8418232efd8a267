/* Symbolization workload: known functions, always-inline helpers nested two
 * deep, a static function, and a long-running loop so that tests can
 * symbolize its addresses while it runs. Prints "ready" once set up.
 * Built PIE, non-PIE, and stripped (see symbolize.cmake). */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

volatile unsigned long sink;

static inline __attribute__((always_inline)) unsigned long sym_inner(unsigned long x)
{
	/* the volatile load keeps instructions that belong to this inline
	 * instance with any compiler (clang folds the pure arithmetic) */
	for (int i = 0; i < 3; i++)
		x = x * 2654435761u + (x >> 7) + sink;
	return x;
}

static inline __attribute__((always_inline)) unsigned long sym_middle(unsigned long x)
{
	x = sym_inner(x) ^ sym_inner(x + 1);
	return x + 3;
}

__attribute__((noinline)) unsigned long sym_outer(unsigned long x)
{
	for (int i = 0; i < 100; i++)
		x = sym_middle(x + (unsigned long)i);
	return x;
}

__attribute__((noinline)) static unsigned long sym_static(unsigned long x)
{
	sink += x;
	return sym_outer(x) + 1;
}

__attribute__((noinline)) int sym_visible_dyn(int v)
{
	return v * 3 + (int)sink;
}

int main(int argc, char **argv)
{
	unsigned long x = (unsigned long)argc;

	printf("ready %d\n", getpid());
	fflush(stdout);
	for (;;) {
		x = sym_static(x);
		sink += (unsigned long)sym_visible_dyn((int)x);
		if (argc > 1 && x == 1)	/* never: keeps the loop observable */
			break;
		usleep(1000);
	}
	return 0;
}
