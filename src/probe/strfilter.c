/* perf's strfilter: globs joined by '&' and '|', negated by '!', grouped
 * by '(' ')' (probe_filter__match in include/pprobe/probe_finder.h). */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <string.h>

#include "pprobe/probe_finder.h"
#include "probe_finder_internal.h"

struct fparse {
	const char *p;
	const char *name;
	int err;
};

static int f_or(struct fparse *f);

static void f_ws(struct fparse *f)
{
	while (isspace((unsigned char)*f->p))
		f->p++;
}

static int f_atom(struct fparse *f)
{
	f_ws(f);
	if (*f->p == '!') {
		f->p++;
		return !f_atom(f);
	}
	if (*f->p == '(') {
		f->p++;
		int v = f_or(f);
		f_ws(f);
		if (*f->p != ')')
			f->err = 1;
		else
			f->p++;
		return v;
	}
	const char *s = f->p;
	while (*f->p && !strchr("&|()!", *f->p) && !isspace((unsigned char)*f->p))
		f->p++;
	if (f->p == s) {
		f->err = 1;
		return 0;
	}
	char pat[256];
	size_t n = (size_t)(f->p - s) < sizeof(pat) - 1 ? (size_t)(f->p - s) : sizeof(pat) - 1;
	memcpy(pat, s, n);
	pat[n] = '\0';
	return fnmatch(pat, f->name, 0) == 0;
}

static int f_and(struct fparse *f)
{
	int v = f_atom(f);
	for (;;) {
		f_ws(f);
		if (*f->p != '&')
			return v;
		f->p++;
		int w = f_atom(f);
		v = v && w;
	}
}

static int f_or(struct fparse *f)
{
	int v = f_and(f);
	for (;;) {
		f_ws(f);
		if (*f->p != '|')
			return v;
		f->p++;
		int w = f_and(f);
		v = v || w;
	}
}

int probe_filter__match(const char *filter, const char *name)
{
	struct fparse f = { filter, name, 0 };
	int v = f_or(&f);
	f_ws(&f);
	if (f.err || *f.p)
		return -EINVAL;
	return v;
}
