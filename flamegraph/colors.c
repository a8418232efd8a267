/* Frame colours as flamegraph.pl picks them, reproduced exactly: the same
 * palettes, the same name hashes, and Perl's own drand48 (srand seeded with
 * the sum of the name's code points) for the default "random-looking but
 * stable" colours. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static const char *const palette_names[PAL_NR] = {
	[PAL_HOT] = "hot", [PAL_MEM] = "mem", [PAL_IO] = "io", [PAL_WAKEUP] = "wakeup",
	[PAL_CHAIN] = "chain", [PAL_JAVA] = "java", [PAL_JS] = "js", [PAL_PERL] = "perl",
	[PAL_RED] = "red", [PAL_GREEN] = "green", [PAL_BLUE] = "blue", [PAL_AQUA] = "aqua",
	[PAL_YELLOW] = "yellow", [PAL_PURPLE] = "purple", [PAL_ORANGE] = "orange",
};

int fg_palette__parse(const char *name)
{
	for (int i = 0; i < PAL_NR; i++)
		if (!strcmp(name, palette_names[i]))
			return i;
	return -EINVAL;
}

const char *fg_palette__name(int pal)
{
	return pal >= 0 && pal < PAL_NR ? palette_names[pal] : "?";
}

/* Perl >= 5.20: FreeBSD's drand48 with a 48-bit state, srand(s) sets
 * state = s << 16 | 0x330e. */
void fg_rng__seed(struct fg_rng *r, uint32_t seed)
{
	r->x = ((uint64_t)seed << 16) + 0x330e;
}

double fg_rng__next(struct fg_rng *r)
{
	r->x = (r->x * 0x5deece66dULL + 0xb) & 0xffffffffffffULL;
	return (double)r->x / 281474976710656.0;  /* 2^48 */
}

/* Decoded code points of a name, at most `max`; returns how many. */
static size_t codepoints(const char *s, size_t len, uint32_t *cps, size_t max)
{
	size_t n = 0, i = 0;
	while (i < len && n < max) {
		size_t adv;
		bool valid;
		cps[n++] = utf8_next((const unsigned char *)s + i, len - i, &adv, &valid);
		i += adv;
	}
	return n;
}

/* random_namehash(): srand(unpack("%32W*", name)); rand(1) */
static double random_namehash(const char *s, size_t len)
{
	uint32_t sum = 0;
	size_t i = 0;
	while (i < len) {
		size_t adv;
		bool valid;
		sum += utf8_next((const unsigned char *)s + i, len - i, &adv, &valid);
		i += adv;
	}
	struct fg_rng r;
	fg_rng__seed(&r, sum);
	return fg_rng__next(&r);
}

/* namehash(): the first three characters, weighted, after dropping a
 * "module`" prefix (everything up to the first backtick past the start). */
static double namehash(const uint32_t *cp, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (cp[i] == '`') {
			cp += i + 1;
			n -= i + 1;
			break;
		}
	double vector = 0, weight = 1, max = 1;
	unsigned mod = 10;
	for (size_t i = 0; i < n; i++) {
		unsigned v = cp[i] % mod;
		vector += ((double)v / (mod++ - 1)) * weight;
		max += 1 * weight;
		weight *= 0.70;
		if (mod > 12)
			break;
	}
	return 1 - vector / max;
}

static bool ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);
	return len >= n && !memcmp(s + len - n, suffix, n);
}

static bool contains(const char *s, size_t len, const char *needle)
{
	size_t n = strlen(needle);
	if (n > len)
		return false;
	for (size_t i = 0; i + n <= len; i++)
		if (!memcmp(s + i, needle, n))
			return true;
	return false;
}

/* m:^L?(java|javax|jdk|net|org|com|io|sun)/: */
static bool java_package(const char *s, size_t len)
{
	static const char *const pkgs[] = { "java/", "javax/", "jdk/", "net/", "org/",
					    "com/", "io/", "sun/" };
	for (int skip = 0; skip <= 1; skip++) {
		if (skip && !(len > 0 && s[0] == 'L'))
			break;
		for (size_t i = 0; i < sizeof(pkgs) / sizeof(pkgs[0]); i++) {
			size_t n = strlen(pkgs[i]);
			if (len >= skip + n && !memcmp(s + skip, pkgs[i], n))
				return true;
		}
	}
	return false;
}

/* m:/.*\.js: — a '/' followed somewhere later by ".js" */
static bool js_path(const char *s, size_t len)
{
	const char *slash = memchr(s, '/', len);
	if (!slash)
		return false;
	size_t off = slash - s + 1;
	return contains(s + off, len - off, ".js");
}

static int resolve_multi(int pal, const char *s, size_t len)
{
	switch (pal) {
	case PAL_JAVA:
		if (ends_with(s, len, "_[j]"))
			return PAL_GREEN;
		if (ends_with(s, len, "_[i]"))
			return PAL_AQUA;
		if (java_package(s, len))
			return PAL_GREEN;
		if (contains(s, len, ":::"))
			return PAL_GREEN;
		if (contains(s, len, "::"))
			return PAL_YELLOW;
		if (ends_with(s, len, "_[k]"))
			return PAL_ORANGE;
		return PAL_RED;
	case PAL_PERL:
		if (contains(s, len, "::"))
			return PAL_YELLOW;
		if (contains(s, len, "Perl") || contains(s, len, ".pl"))
			return PAL_GREEN;
		if (ends_with(s, len, "_[k]"))
			return PAL_ORANGE;
		return PAL_RED;
	case PAL_JS:
		if (ends_with(s, len, "_[j]"))
			return memchr(s, '/', len) ? PAL_GREEN : PAL_AQUA;
		if (contains(s, len, "::"))
			return PAL_YELLOW;
		if (js_path(s, len))
			return PAL_GREEN;
		if (memchr(s, ':', len))
			return PAL_AQUA;
		if (len == 1 && s[0] == ' ')
			return PAL_GREEN;
		if (contains(s, len, "_[k]"))
			return PAL_ORANGE;
		return PAL_RED;
	case PAL_WAKEUP:
		return PAL_AQUA;
	case PAL_CHAIN:
		return contains(s, len, "_[w]") ? PAL_AQUA : PAL_BLUE;
	default:
		return pal;
	}
}

void fg_color(int pal, bool hash, struct fg_rng *random, const char *name, size_t len,
	      int rgb[3])
{
	double v1, v2, v3;
	if (hash) {
		/* v1 = namehash(name); v2 = v3 = namehash(scalar reverse name) */
		uint32_t stackbuf[256] = { 0 }, *cp = stackbuf;
		if (len > 256) {
			cp = malloc(len * sizeof(*cp));
			if (!cp) {
				cp = stackbuf;
				len = 256;  /* degrade: hash a prefix */
			}
		}
		size_t n = codepoints(name, len, cp, len > 256 ? len : 256);
		v1 = namehash(cp, n);
		for (size_t i = 0; i < n / 2; i++) {
			uint32_t t = cp[i];
			cp[i] = cp[n - 1 - i];
			cp[n - 1 - i] = t;
		}
		v2 = v3 = namehash(cp, n);
		if (cp != stackbuf)
			free(cp);
	} else if (random) {
		v1 = fg_rng__next(random);
		v2 = fg_rng__next(random);
		v3 = fg_rng__next(random);
	} else {
		v1 = v2 = v3 = random_namehash(name, len);
	}

	int r, g, b;
	switch (pal) {
	case PAL_HOT:
		r = 205 + (int)(50 * v3), g = (int)(230 * v1), b = (int)(55 * v2);
		break;
	case PAL_MEM:
		r = 0, g = 190 + (int)(50 * v2), b = (int)(210 * v1);
		break;
	case PAL_IO:
		r = g = 80 + (int)(60 * v1), b = 190 + (int)(55 * v2);
		break;
	default:
		switch (resolve_multi(pal, name, len)) {
		case PAL_RED:
			r = 200 + (int)(55 * v1), g = b = 50 + (int)(80 * v1);
			break;
		case PAL_GREEN:
			g = 200 + (int)(55 * v1), r = b = 50 + (int)(60 * v1);
			break;
		case PAL_BLUE:
			b = 205 + (int)(50 * v1), r = g = 80 + (int)(60 * v1);
			break;
		case PAL_YELLOW:
			r = g = 175 + (int)(55 * v1), b = 50 + (int)(20 * v1);
			break;
		case PAL_PURPLE:
			r = b = 190 + (int)(65 * v1), g = 80 + (int)(60 * v1);
			break;
		case PAL_AQUA:
			r = 50 + (int)(60 * v1), g = b = 165 + (int)(55 * v1);
			break;
		case PAL_ORANGE:
			r = 190 + (int)(65 * v1), g = 90 + (int)(65 * v1), b = 0;
			break;
		default:
			r = g = b = 0;
		}
	}
	rgb[0] = r, rgb[1] = g, rgb[2] = b;
}

/* (int) as Perl's int() prints it, where the cast is defined: deltas of
 * counts past a double's range give inf - inf = NaN (0 here). */
static int scale_int(double x)
{
	if (x > -1e9 && x < 1e9)
		return (int)x;
	return x >= 1e9 ? 1000000000 : x <= -1e9 ? -1000000000 : 0;
}

void fg_color_scale(double delta, double maxdelta, bool negate, int rgb[3])
{
	int r = 255, g = 255, b = 255;
	if (negate)
		delta = -delta;
	if (delta > 0)
		g = b = scale_int(210 * (maxdelta - delta) / maxdelta);
	else if (delta < 0)
		r = g = scale_int(210 * (maxdelta + delta) / maxdelta);
	rgb[0] = r, rgb[1] = g, rgb[2] = b;
}
