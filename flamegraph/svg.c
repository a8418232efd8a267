/* Drawing the frames as flamegraph.pl does: the same canvas, paddings,
 * frame geometry (x rounded to 0.1 px, Perl's number format for y), labels,
 * tooltips, colours and --minwidth pruning (layout.c picks the frames and
 * their places). Frames are written in depth-first order of the sorted
 * tree, so the output is deterministic. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct layout {
	double xpad, ypad1, ypad2, ypad3, framepad;
	double imageheight;
	double timemax, widthpertime, minwidth_time;
	uint32_t depthmax;
};

static const char *default_title(const struct flamegraph_opts *o)
{
	if (o->title && *o->title)
		return o->title;
	if (o->flamechart)
		return "Flame Chart";
	return o->inverted ? "Icicle Graph" : "Flame Graph";
}

static void bg_colors(const struct flamegraph *fg, const char **c1, const char **c2)
{
	const char *bg = fg->o.bgcolors;
	if (!bg || !*bg) {
		switch (fg->palette) {
		case PAL_MEM:
			bg = "green";
			break;
		case PAL_IO: case PAL_WAKEUP: case PAL_CHAIN:
			bg = "blue";
			break;
		case PAL_RED: case PAL_GREEN: case PAL_BLUE: case PAL_AQUA:
		case PAL_YELLOW: case PAL_PURPLE: case PAL_ORANGE:
			bg = "grey";
			break;
		default:
			bg = "yellow";
		}
	}
	if (!strcmp(bg, "yellow"))
		*c1 = "#eeeeee", *c2 = "#eeeeb0";
	else if (!strcmp(bg, "blue"))
		*c1 = "#eeeeee", *c2 = "#e0e0ff";
	else if (!strcmp(bg, "green"))
		*c1 = "#eef2ee", *c2 = "#e0ffe0";
	else if (!strcmp(bg, "grey"))
		*c1 = "#f8f8f8", *c2 = "#e8e8e8";
	else
		*c1 = *c2 = bg;  /* "#rrggbb", checked by flamegraph__new() */
}

static void write_header(const struct flamegraph *fg, FILE *out, double w, double h)
{
	char ws[32], hs[32];
	fmt_num(ws, sizeof(ws), w);
	fmt_num(hs, sizeof(hs), h);
	fputs("<?xml version=\"1.0\"", out);
	if (fg->o.encoding) {
		fputs(" encoding=\"", out);
		xml_escape(out, fg->o.encoding, strlen(fg->o.encoding));
		fputs("\"", out);
	}
	fprintf(out, " standalone=\"no\"?>\n"
		"<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" "
		"\"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n"
		"<svg version=\"1.1\" width=\"%s\" height=\"%s\" onload=\"init(evt)\" "
		"viewBox=\"0 0 %s %s\" xmlns=\"http://www.w3.org/2000/svg\" "
		"xmlns:xlink=\"http://www.w3.org/1999/xlink\">\n"
		"<!-- Flame graph stack visualization drawn by pprobe, after Brendan Gregg's "
		"FlameGraph (https://github.com/brendangregg/FlameGraph). -->\n",
		ws, hs, ws, hs);
	fputs("<!-- NOTES: ", out);
	/* a comment may not contain "--" nor end in '-' */
	for (const char *p = fg->o.notes ? fg->o.notes : ""; *p; p++) {
		if ((unsigned char)*p < 0x20 && *p != '\t' && *p != '\n')
			fputc(' ', out);
		else if (*p == '-' && (p[1] == '-' || p[1] == '\0'))
			fputs("- ", out);
		else
			fputc(*p, out);
	}
	fputs(" -->\n", out);
}

/* text: x with %.2f, y as Perl prints it */
static void text_el(FILE *out, const char *id, double x, double y, const char *extra,
		    const char *s)
{
	char ys[32];
	fmt_num(ys, sizeof(ys), y);
	fputs("<text", out);
	if (id)
		fprintf(out, " id=\"%s\"", id);
	fprintf(out, " x=\"%.2f\" y=\"%s\"%s%s>", x, ys, extra ? " " : "", extra ? extra : "");
	xml_escape(out, s, strlen(s));
	fputs("</text>\n", out);
}

/* A JavaScript string literal holding s: everything but plain ASCII
 * letters, digits and a few punctuation characters as \uXXXX, so neither
 * quotes nor "]]>" nor "</script" can end up in the script. */
static void js_string(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = strlen(s), i = 0;
	fputc('"', out);
	while (i < len) {
		size_t adv;
		bool valid;
		uint32_t cp = utf8_next(p + i, len - i, &adv, &valid);
		if (!valid)
			cp = 0xfffd;
		i += adv;
		if ((cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') ||
		    (cp >= '0' && cp <= '9') || (cp && strchr(" :_.,-()", (int)cp)))
			fputc((int)cp, out);
		else if (cp > 0xffff)
			fprintf(out, "\\u%04x\\u%04x", 0xd800 + ((cp - 0x10000) >> 10),
				0xdc00 + ((cp - 0x10000) & 0x3ff));
		else
			fprintf(out, "\\u%04x", cp);
	}
	fputc('"', out);
}

/* CSS font-family: XML-escaped, without what could end the declaration */
static void css_font(FILE *out, const char *s)
{
	for (; *s; s++)
		if (!strchr("{};\\", *s))
			xml_escape(out, s, 1);
}

static void write_defs(const struct flamegraph *fg, FILE *out, const struct layout *L)
{
	const char *c1, *c2;
	bg_colors(fg, &c1, &c2);
	char fs[32], ts[32];
	fmt_num(fs, sizeof(fs), fg->o.fontsize);
	fmt_num(ts, sizeof(ts), fg->o.fontsize + 5);
	fprintf(out, "<defs>\n"
		"\t<linearGradient id=\"background\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\" >\n"
		"\t\t<stop stop-color=\"%s\" offset=\"5%%\" />\n"
		"\t\t<stop stop-color=\"%s\" offset=\"95%%\" />\n"
		"\t</linearGradient>\n"
		"</defs>\n"
		"<style type=\"text/css\">\n"
		"\ttext { font-family:", c1, c2);
	css_font(out, fg->o.fonttype);
	fprintf(out, "; font-size:%spx; fill:rgb(0,0,0); }\n"
		"\t#search, #ignorecase { opacity:0.1; cursor:pointer; }\n"
		"\t#search:hover, #search.show, #ignorecase:hover, #ignorecase.show { opacity:1; }\n"
		"\t#subtitle { text-anchor:middle; fill:rgb(160,160,160); }\n"
		"\t#title { text-anchor:middle; font-size:%spx; }\n"
		"\t#unzoom { cursor:pointer; }\n"
		"\t#frames > *:hover { stroke:black; stroke-width:0.5; cursor:pointer; }\n"
		"\t.hide { display:none; }\n"
		"\t.parent { opacity:0.5; }\n"
		"</style>\n"
		"<script type=\"text/ecmascript\">\n<![CDATA[\n"
		"var cfg = { nametype: ", fs, ts);
	js_string(out, fg->o.nametype);
	char xp[32], fw[32];
	fmt_num(xp, sizeof(xp), L->xpad);
	fmt_num(fw, sizeof(fw), fg->o.fontwidth);
	fprintf(out, ", fontsize: %s, fontwidth: %s, xpad: %s, inverted: %d, "
		"searchcolor: \"rgb(230,0,230)\" };\n", fs, fw, xp, fg->o.inverted ? 1 : 0);
	fputs(fg_script, out);
	fputs("]]>\n</script>\n", out);
}

static int write_error_svg(const struct flamegraph *fg, FILE *out)
{
	double h = fg->o.fontsize * 5;
	write_header(fg, out, fg->o.width, h);
	text_el(out, NULL, (double)(fg->o.width / 2), fg->o.fontsize * 2, NULL,
		"ERROR: No valid input provided to pprobe flamegraph.");
	fputs("</svg>\n", out);
	return fflush(out) || ferror(out) ? -EIO : -ENODATA;
}

static void write_commas(char *dst, size_t size, double v)
{
	char raw[64];
	snprintf(raw, sizeof(raw), "%.0f", v);
	const char *p = raw;
	size_t o = 0;
	if (*p == '-' || *p == '+')
		dst[o++] = *p++;
	size_t digits = strlen(p);
	for (size_t i = 0; i < digits && o + 2 < size; i++) {
		dst[o++] = p[i];
		size_t left = digits - i - 1;
		if (left && left % 3 == 0)
			dst[o++] = ',';
	}
	dst[o] = '\0';
}

static size_t strip_annotation(const char *s, size_t len)
{
	if (len >= 4 && s[len - 4] == '_' && s[len - 3] == '[' && s[len - 1] == ']' &&
	    s[len - 2] && strchr("kwij", s[len - 2]))
		return len - 4;
	return len;
}

static void write_frame(struct flamegraph *fg, FILE *out, const struct layout *L,
			const struct fg_node *n, bool root)
{
	const struct flamegraph_opts *o = &fg->o;
	const struct fg_str *name = &fg->st.strs[n->name];
	double stime = n->start;
	double etime = root ? L->timemax : stime + n->total;
	double delta = n->delta;
	double x1 = L->xpad + stime * L->widthpertime;
	double x2 = L->xpad + etime * L->widthpertime;
	double y1, y2;
	if (!o->inverted) {
		y1 = L->imageheight - L->ypad2 - (n->depth + 1.0) * o->height + L->framepad;
		y2 = L->imageheight - L->ypad2 - (double)n->depth * o->height;
	} else {
		double top = L->ypad1 + (o->subtitle && *o->subtitle ? L->ypad3 : 0);
		y1 = top + (double)n->depth * o->height;
		y2 = top + (n->depth + 1.0) * o->height - L->framepad;
	}

	double samples = nearbyint((etime - stime) * o->factor);
	char stxt[64];
	write_commas(stxt, sizeof(stxt), samples);
	size_t shown = strip_annotation(name->s, name->len);

	fputs("<g>\n<title>", out);
	if (root) {
		fprintf(out, "all (%s ", stxt);
		xml_escape(out, o->countname, strlen(o->countname));
		fputs(", 100%)", out);
	} else {
		xml_escape(out, name->s, shown);
		fprintf(out, " (%s ", stxt);
		xml_escape(out, o->countname, strlen(o->countname));
		fprintf(out, ", %.2f%%", 100 * samples / (L->timemax * o->factor));
		if (n->flags & NODE_HAS_DELTA) {
			double d = o->negate ? -delta : delta;
			if (d == 0)
				d = 0;  /* Perl prints no "-0.00" */
			fprintf(out, "; %s%.2f%%", d > 0 ? "+" : "",
				100 * d / (L->timemax * o->factor));
		}
		fputc(')', out);
	}
	fputs("</title>", out);

	int rgb[3];
	if (name->len == 2 && !memcmp(name->s, "--", 2))
		rgb[0] = rgb[1] = rgb[2] = 160;
	else if (name->len == 1 && name->s[0] == '-')
		rgb[0] = rgb[1] = rgb[2] = 200;
	else if (n->flags & NODE_HAS_DELTA)
		fg_color_scale(delta, fg->maxdelta, o->negate, rgb);
	else
		fg_color(fg->palette, o->hash, o->random ? &fg->rng : NULL, name->s, name->len,
			 rgb);
	char x1s[32], x2s[32], y1s[32];
	snprintf(x1s, sizeof(x1s), "%.1f", x1);
	snprintf(x2s, sizeof(x2s), "%.1f", x2);
	fmt_num(y1s, sizeof(y1s), y1);
	fprintf(out, "<rect x=\"%s\" y=\"%s\" width=\"%.1f\" height=\"%.1f\" "
		"fill=\"rgb(%d,%d,%d)\" rx=\"2\" ry=\"2\" />\n",
		x1s, y1s, strtod(x2s, NULL) - strtod(x1s, NULL), y2 - y1, rgb[0], rgb[1], rgb[2]);

	/* label: as many characters as fit, ".." when cut */
	double cw = (x2 - x1) / (o->fontsize * o->fontwidth);
	/* counts past 2^53 (or inf) can make the width NaN: no label then */
	long chars = cw > 1e9 ? 1000000000L : cw >= 0 ? (long)cw : 0;
	char ty[32];
	fmt_num(ty, sizeof(ty), 3 + (y1 + y2) / 2);
	fprintf(out, "<text x=\"%.2f\" y=\"%s\">", x1 + 3, ty);
	if (chars >= 3) {
		const char *s = root ? "all" : name->s;
		size_t len = root ? 3 : shown, i = 0;
		long ncp = 0;
		size_t cut = len;  /* byte offset after chars - 2 code points */
		while (i < len) {
			size_t adv;
			bool valid;
			utf8_next((const unsigned char *)s + i, len - i, &adv, &valid);
			i += adv;
			ncp++;
			if (ncp == chars - 2)
				cut = i;
		}
		if (chars < ncp) {
			xml_escape(out, s, cut);
			fputs("..", out);
		} else {
			xml_escape(out, s, len);
		}
	}
	fputs("</text>\n</g>\n", out);
}

int fg_write_svg(struct flamegraph *fg, FILE *out)
{
	const struct flamegraph_opts *o = &fg->o;
	if (!(fg->time > 0))
		return write_error_svg(fg, out);

	struct layout L = {
		.xpad = 10, .framepad = 1,
		.ypad1 = o->fontsize * 3, .ypad2 = o->fontsize * 2 + 10, .ypad3 = o->fontsize * 2,
	};
	L.timemax = o->total >= fg->time ? o->total : fg->time;
	L.widthpertime = (o->width - 2 * L.xpad) / L.timemax;
	L.minwidth_time = o->minwidth_percent ? L.timemax * o->minwidth / 100
					      : o->minwidth / L.widthpertime;
	struct fg_node *nodes;
	size_t nr;
	int err = fg_layout(fg, L.minwidth_time, &nodes, &nr, &L.depthmax);
	if (err)
		return err;
	bool subtitle = o->subtitle && *o->subtitle;
	L.imageheight = (L.depthmax + 1.0) * o->height + L.ypad1 + L.ypad2;
	if (subtitle)
		L.imageheight += L.ypad3;

	write_header(fg, out, o->width, L.imageheight);
	write_defs(fg, out, &L);
	fprintf(out, "<rect x=\"0.0\" y=\"0\" width=\"%.1f\" height=\"%.1f\" "
		"fill=\"url(#background)\" />\n", (double)o->width, L.imageheight);
	double mid = (double)(o->width / 2);
	text_el(out, "title", mid, o->fontsize * 2, NULL, default_title(o));
	if (subtitle)
		text_el(out, "subtitle", mid, o->fontsize * 4, NULL, o->subtitle);
	text_el(out, "details", L.xpad, L.imageheight - L.ypad2 / 2, NULL, " ");
	text_el(out, "unzoom", L.xpad, o->fontsize * 2, "class=\"hide\"", "Reset Zoom");
	text_el(out, "search", o->width - L.xpad - 100, o->fontsize * 2, NULL, "Search");
	text_el(out, "ignorecase", o->width - L.xpad - 16, o->fontsize * 2, NULL, "ic");
	text_el(out, "matched", o->width - L.xpad - 100, L.imageheight - L.ypad2 / 2, NULL, " ");

	fputs("<g id=\"frames\">\n", out);
	for (size_t i = 0; i < nr; i++)
		write_frame(fg, out, &L, &nodes[i], i == 0);
	free(nodes);
	fputs("</g>\n</svg>\n", out);
	if (fflush(out) || ferror(out))
		return -EIO;
	return 0;
}
