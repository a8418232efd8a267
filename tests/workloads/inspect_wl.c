/* Workload with known DWARF for the -F/-L/-V inspector tests
 * (tests/e2e/inspect.sh). Built twice: -O0 and -O2. Line numbers matter:
 * the golden files in tests/golden/inspect/ refer to them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct point {
	int x;
	int y;
	const char *name;
};

struct rect {
	struct point tl;
	struct point br;
	unsigned int flags;
};

int wl_global_counter;
static volatile int wl_sink;
static volatile int wl_clamps;

/* static inline, inlined twice into rect_area */
static inline int clamp(int v, int lo, int hi)
{
	wl_clamps++;
	if (v < lo)
		return lo;
	if (v > hi)
		return hi;
	return v;
}

__attribute__((noinline)) int rect_area(const struct rect *r)
{
	int w = clamp(r->br.x - r->tl.x, 0, 1000);
	int h = clamp(r->br.y - r->tl.y, 0, 1000);
	return w * h;
}

/* Every caller passes factor == 3: at -O2 GCC makes scale.constprop.0 */
static __attribute__((noinline)) long scale(long v, int factor, const char *tag)
{
	long r = v * factor;

	for (const char *p = tag; *p; p++)
		r += *p;
	return r;
}

/* Uses only p->x: at -O2 IPA-SRA makes point_x.isra.0 taking an int */
static __attribute__((noinline)) int point_x(const struct point *p)
{
	wl_sink = p->x;
	return p->x * 2;
}

/* 'limit' is a constant: at -O2 it has DW_AT_const_value.
 * 'doubled' is dead after the call: no location at the return line at -O2. */
__attribute__((noinline)) int sum_to(int n)
{
	const int limit = 100;
	int doubled = n * 2;
	int total = 0;

	wl_sink = doubled;
	for (int i = 0; i < n && i < limit; i++)
		total += i;
	wl_global_counter += total;
	return total;
}

static __attribute__((noinline)) int next_value(void)
{
	return wl_sink + 1;
}

/* 'got' is dead after its store: at -O2 it has no location at the return */
__attribute__((noinline)) int lost_value(int n)
{
	int got = next_value();

	wl_sink = got;
	next_value();
	return n + wl_sink;
}

int main(int argc, char **argv)
{
	struct rect r = {
		.tl = { 1, 2, "top-left" },
		.br = { 11 + argc, 22, "bottom-right" },
		.flags = 3,
	};
	long s = scale(argc, 3, argv[0]) + scale(argc + 1, 3, "x");
	int a = rect_area(&r);
	int x = point_x(&r.tl) + point_x(&r.br);

	printf("%d %ld %d %d %d\n", a, s, x, sum_to(argc + 9), lost_value(argc));
	return 0;
}

/* Constants of other shapes: a double (DW_AT_const_value as a block) and a
 * 64-bit pattern; at -O2 neither has a location, only a value. Run from a
 * constructor so nothing above moves. */
__attribute__((noinline)) double const_shapes(int n)
{
	double factor = 1.5;
	long pattern = 0x1122334455667788L;

	wl_sink = n;
	return n * factor + (double)(pattern & n);
}

__attribute__((constructor)) static void wl_ctor(void)
{
	wl_sink = (int)const_shapes(wl_sink);
}
