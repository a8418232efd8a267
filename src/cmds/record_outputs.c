/* record's output formats and the files they are written to. */
#include "record_outputs.h"

#include <stdio.h>
#include <string.h>

#include "event_spec.h"
#include "util.h"

const struct out_format_def out_formats[OUT_NR] = {
	[OUT_FOLDED] = { "folded", { ".folded" } },
	[OUT_SVG] = { "svg", { ".svg" } },
	[OUT_PPROF] = { "pprof", { ".pb.gz", ".pb", ".pprof" } },	/* gzipped, each */
	[OUT_SPEEDSCOPE] = { "speedscope", { ".speedscope.json" } },
};

/* The extension of fmt that name ends with, or NULL. */
static const char *format_ext(enum out_format fmt, const char *name)
{
	size_t len = strlen(name);
	for (int k = 0; k < 3 && out_formats[fmt].exts[k]; k++) {
		size_t el = strlen(out_formats[fmt].exts[k]);
		if (len > el && !strcmp(name + len - el, out_formats[fmt].exts[k]))
			return out_formats[fmt].exts[k];
	}
	return NULL;
}

enum out_format format_of_name(const char *name)
{
	for (int f = 0; f < OUT_NR; f++)
		if (format_ext((enum out_format)f, name))
			return (enum out_format)f;
	return OUT_FOLDED;
}

void out_format_exts(char *buf, size_t len)
{
	size_t at = 0;
	buf[0] = 0;
	for (int f = 0; f < OUT_NR && at < len; f++) {
		const char *const *e = out_formats[f].exts;
		at += (size_t)snprintf(buf + at, len - at, "%s%s", f == 0 ? "" : f == OUT_NR - 1 ? " and " : ", ", e[0]);
		for (int k = 1; k < 3 && e[k] && at < len; k++)
			at += (size_t)snprintf(buf + at, len - at, "%s%s%s", k == 1 ? " (" : ", ", e[k],
					       k == 2 || !e[k + 1] ? ")" : "");
	}
}

bool name_has_other_ext(const char *name)
{
	const char *base = strrchr(name, '/');
	base = base ? base + 1 : name;
	const char *dot = strrchr(base, '.');
	if (!dot || dot == base || !dot[1])	/* none, a dot file, "x." */
		return false;
	for (int f = 0; f < OUT_NR; f++)
		if (format_ext((enum out_format)f, name))
			return false;
	return true;
}

char *output_name(const struct output *out, const char *event, bool several)
{
	if (!several)
		return pp_xstrdup(out->name);
	char ev[256];
	event_spec__file_name(event, ev, sizeof(ev));
	size_t len = strlen(out->name);
	const char *ext = format_ext(out->fmt, out->name);
	size_t stem = ext ? len - strlen(ext) : len;
	if (!ext)
		ext = out_formats[out->fmt].exts[0];
	size_t sz = stem + strlen(ev) + strlen(ext) + 3;
	char *name = pp_xmalloc(sz);
	snprintf(name, sz, "%.*s.%s%s", (int)stem, out->name, ev, ext);
	return name;
}
