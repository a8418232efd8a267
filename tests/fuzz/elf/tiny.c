/* The seed ELF of the inspect, usdt and fetch_args fuzzers (tests/fuzz/):
 * small, with DWARF for -F/-L/-V, parameters of struct and pointer types,
 * an inlined static helper, a function without variables and USDT notes
 * with a semaphore, helpers -O2 folds away (twice: no code;
 * widen: inlined without a line row). How it is built: tests/fuzz/README.md. */
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>

struct point {
	int x, y;
	const char *name;
	unsigned flags : 3;
};

unsigned short tiny_hit_semaphore __attribute__((section(".probes"), used));
unsigned short tiny_start_semaphore __attribute__((section(".probes"), used));
int tiny_global = 7;
long tiny_table[4] = { 1, 2, 3, 4 };

void noargs(void)
{
}

/* at -O2 folded away: its one call is a constant */
static int twice(int v)
{
	return v * 2;
}

/* at -O2 inlined into w() without a line row of its own: -L finds none */
static long widen(int v)
{
	return (long)v;
}

static int zero(int v)
{
	return v - v;
}

static int sign_of(int v)
{
	return v < 0 ? -1 : v > 0;
}

__attribute__((noinline)) long w(int x)
{
	return widen(x) + zero(x) + sign_of(x);
}

static inline int clamp(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

__attribute__((noinline)) int area(const struct point *a, struct point b, const char *label)
{
	int w = clamp(b.x - a->x, 0, 100);
	int h = clamp(b.y - a->y, 0, 100);
	STAP_PROBE3(tiny, hit, w, h, label);
	return w * h + (int)tiny_table[b.flags & 3];
}

int main(int argc, char **argv)
{
	struct point a = { 1, 2, "a", 1 }, b = { argc * 10, argc * 20, "b", 2 };
	noargs();
	STAP_PROBE1(tiny, start, argc);
	return area(&a, b, argv[0]) + tiny_global + twice(21) + (int)w(argc);
}
