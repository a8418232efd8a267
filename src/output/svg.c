/* Folded stacks -> SVG flame graph: each folded line fed to flamegraph/ as
 * flamegraph.pl would read it from a file. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pprobe/flamegraph.h"
#include "spill.h"
#include "svg.h"
#include "util.h"

struct svg_feed {
	struct flamegraph *fg;
	char *line;
	size_t cap;
	int err;
};

static void feed_line(void *ctx, const char *stack, size_t len, uint64_t weight)
{
	struct svg_feed *f = ctx;
	size_t need = len + 32;
	if (need > f->cap) {
		f->cap = need * 2;
		f->line = pp_xrealloc(f->line, f->cap);
	}
	snprintf(f->line, f->cap, "%s %llu", stack, (unsigned long long)weight);
	int err = flamegraph__add_line(f->fg, f->line);
	if (err < 0 && !f->err)
		f->err = err;
}

int stacktab__write_svg(struct stacktab *st, struct spill *sp, const char *title, const char *countname, FILE *out,
			size_t *lines)
{
	struct flamegraph_opts o;
	flamegraph_opts__init(&o);
	o.title = title;
	o.countname = countname;
	*lines = 0;
	struct svg_feed f = { .fg = flamegraph__new(&o) };
	if (!f.fg)
		return -errno;
	int err;
	*lines = spill__folded(sp, st, feed_line, &f, &err);
	if (!err)
		err = f.err ? f.err : flamegraph__write_svg(f.fg, out);
	flamegraph__delete(f.fg);
	free(f.line);
	return err;
}
