/* Helpers shared by tests/unit/test_flamegraph*.c: render to a string and
 * read the frames back out of the SVG. */
#ifndef FLAMEGRAPH_TEST_UTIL_H
#define FLAMEGRAPH_TEST_UTIL_H

#define _GNU_SOURCE
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pprobe/flamegraph.h"
#include "check.h"

struct frame {
	char *title;            /* unescaped tooltip */
	char *name;             /* tooltip without the " (N samples, ...)" tail */
	double count;           /* N from the tooltip */
	double x, y, w, h;
	char fill[32];
	char *label;            /* unescaped text label */
};

struct svg {
	char *text;
	size_t len;
	struct frame *f;
	size_t n;
};

static char *unescape(const char *s, size_t len)
{
	char *out = malloc(len + 1), *o = out;
	static const struct { const char *ent; char c; } ents[] = {
		{ "&lt;", '<' }, { "&gt;", '>' }, { "&amp;", '&' }, { "&quot;", '"' }, { "&apos;", '\'' },
	};
	for (size_t i = 0; i < len;) {
		size_t k;
		for (k = 0; k < 5; k++) {
			size_t el = strlen(ents[k].ent);
			if (i + el <= len && !memcmp(s + i, ents[k].ent, el)) {
				*o++ = ents[k].c;
				i += el;
				break;
			}
		}
		if (k == 5)
			*o++ = s[i++];
	}
	*o = '\0';
	return out;
}

static double attr(const char *tag, const char *name)
{
	char key[32];
	snprintf(key, sizeof(key), " %s=\"", name);
	const char *p = strstr(tag, key);
	return p ? strtod(p + strlen(key), NULL) : NAN;
}

/* Frames are "<g>\n<title>T</title><rect .../>\n<text ...>L</text>\n</g>" */
static void svg_parse(struct svg *s)
{
	const char *p = s->text;
	while ((p = strstr(p, "<g>\n<title>"))) {
		p += strlen("<g>\n<title>");
		const char *te = strstr(p, "</title>");
		struct frame f = { 0 };
		f.title = unescape(p, te - p);
		char *paren = strrchr(f.title, '(');
		size_t nl = paren && paren > f.title ? (size_t)(paren - f.title - 1) : strlen(f.title);
		f.name = strndup(f.title, nl);
		if (paren) {
			/* "1,234 samples" */
			char num[64] = "";
			size_t k = 0;
			for (const char *q = paren + 1; *q && *q != ' ' && k + 1 < sizeof(num); q++)
				if (*q != ',')
					num[k++] = *q;
			num[k] = '\0';
			f.count = strtod(num, NULL);
		}
		const char *rect = strstr(te, "<rect");
		const char *re = strchr(rect, '>');
		char *tag = strndup(rect, re - rect);
		f.x = attr(tag, "x");
		f.y = attr(tag, "y");
		f.w = attr(tag, "width");
		f.h = attr(tag, "height");
		const char *fill = strstr(tag, "fill=\"rgb(");
		if (fill)
			sscanf(fill + strlen("fill=\"rgb("), "%31[0-9,]", f.fill);
		free(tag);
		const char *text = strchr(strstr(re, "<text"), '>') + 1;
		f.label = unescape(text, strstr(text, "</text>") - text);
		s->f = realloc(s->f, (s->n + 1) * sizeof(*s->f));
		s->f[s->n++] = f;
		p = text;
	}
}

static void svg_free(struct svg *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->f[i].title);
		free(s->f[i].name);
		free(s->f[i].label);
	}
	free(s->f);
	free(s->text);
	memset(s, 0, sizeof(*s));
}

/* Renders NULL-terminated folded lines; returns write_svg's result. */
static int render_lines(const struct flamegraph_opts *o, const char *const *lines, struct svg *s)
{
	memset(s, 0, sizeof(*s));
	struct flamegraph *fg = flamegraph__new(o);
	if (!fg)
		return -errno;
	for (size_t i = 0; lines[i]; i++)
		if (flamegraph__add_line(fg, lines[i]))
			return -ENOMEM;
	FILE *m = open_memstream(&s->text, &s->len);
	int err = flamegraph__write_svg(fg, m);
	fclose(m);
	flamegraph__delete(fg);
	svg_parse(s);
	return err;
}

static inline const struct frame *find(const struct svg *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->f[i].name, name))
			return &s->f[i];
	return NULL;
}

static inline size_t count_named(const struct svg *s, const char *name)
{
	size_t n = 0;
	for (size_t i = 0; i < s->n; i++)
		n += !strcmp(s->f[i].name, name);
	return n;
}

#endif
