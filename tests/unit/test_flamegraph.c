/* Flame graph library: frame widths add up, the folded grammar as
 * flamegraph.pl reads it, shapes (reverse, inverted, flamechart, minwidth,
 * total), XML escaping, streaming memory, difffolded semantics. */
#include "flamegraph_test_util.h"

#define PPS 1.0  /* tests use 1180 samples on 1200 px: one pixel per sample */

/* --- widths: every frame's width is its count; its children tile it after
 * its own samples; tooltips agree with the input. */

struct gen_line {
	char stack[128];
	unsigned count;
};

static unsigned lcg(unsigned *s)
{
	*s = *s * 1103515245u + 12345u;
	return (*s >> 16) & 0x7fff;
}

/* the frame's full path, rebuilt from geometry (parents are one level down
 * and contain the frame) */
static void path_of(const struct svg *s, size_t i, char *buf, size_t size)
{
	const struct frame *f = &s->f[i];
	if (!strcmp(f->name, "all")) {
		buf[0] = '\0';
		return;
	}
	for (size_t j = 0; j < s->n; j++) {
		const struct frame *p = &s->f[j];
		if (p->y == f->y + 16 && p->x <= f->x + 0.05 && p->x + p->w + 0.15 >= f->x + f->w) {
			path_of(s, j, buf, size);
			size_t l = strlen(buf);
			snprintf(buf + l, size - l, "%s%s", l ? ";" : "", f->name);
			return;
		}
	}
	snprintf(buf, size, "?orphan?");
}

static void test_widths(void)
{
	static const char *names[] = { "a", "b", "c", "dd", "e<f>" };
	struct gen_line lines[300];
	unsigned seed = 42, total = 0;
	size_t nl = 0;
	while (nl < 300) {
		struct gen_line *g = &lines[nl];
		unsigned depth = 1 + lcg(&seed) % 5;
		size_t o = 0;
		for (unsigned d = 0; d < depth; d++)
			o += snprintf(g->stack + o, sizeof(g->stack) - o, "%s%s", d ? ";" : "",
				      names[lcg(&seed) % 5]);
		g->count = 1 + lcg(&seed) % 9;
		if (total + g->count > 1180)
			break;
		total += g->count;
		nl++;
	}
	lines[nl].count = 1180 - total;  /* pad to exactly 1180 */
	snprintf(lines[nl].stack, sizeof(lines[nl].stack), "pad");
	nl++;

	const char **text = calloc(nl + 1, sizeof(*text));
	for (size_t i = 0; i < nl; i++) {
		char *l;
		if (asprintf(&l, "%s %u", lines[i].stack, lines[i].count) < 0)
			abort();
		text[i] = l;
	}
	struct flamegraph_opts o;
	flamegraph_opts__init(&o);
	o.minwidth = 0;
	struct svg s;
	CHECK(render_lines(&o, text, &s) == 0, "render");
	CHECK(s.n > 50, "%zu frames", s.n);
	for (size_t i = 0; i < s.n; i++) {
		const struct frame *f = &s.f[i];
		char path[512];
		path_of(&s, i, path, sizeof(path));
		/* expected total and self of this path from the input */
		double tot = 0, self = 0;
		size_t pl = strlen(path);
		for (size_t k = 0; k < nl; k++) {
			const char *st = lines[k].stack;
			if (!pl || (!strncmp(st, path, pl) && (st[pl] == ';' || !st[pl])))
				tot += lines[k].count;
			if (pl && !strcmp(st, path))
				self += lines[k].count;
		}
		CHECK(f->count == tot, "'%s': tooltip %g, input %g", path, f->count, tot);
		CHECK(fabs(f->w - tot * PPS) <= 0.1 + 1e-9, "'%s': width %g for %g samples", path,
		      f->w, tot);
		/* children: tile the frame after its self samples, in order */
		double cursor = f->x + self * PPS, sum = 0;
		size_t nchild = 0;
		for (;;) {
			const struct frame *next = NULL;
			for (size_t j = 0; j < s.n; j++) {
				const struct frame *c = &s.f[j];
				if (c->y == f->y - 16 && fabs(c->x - cursor) <= 0.15 &&
				    c->x + c->w <= f->x + f->w + 0.15 && c->w > 0) {
					next = c;
					break;
				}
			}
			if (!next)
				break;
			sum += next->count;
			cursor = next->x + next->w;
			nchild++;
		}
		CHECK(self + sum == tot, "'%s': self %g + children %g (%zu) != %g", path, self, sum,
		      nchild, tot);
	}
	svg_free(&s);
	for (size_t i = 0; i < nl; i++)
		free((char *)text[i]);
	free(text);
}

/* --- the folded grammar, quirks included */
static void test_grammar(void)
{
	const char *lines[] = {
		"a;b  5\n",            /* greedy stack: frame "b " */
		"a\t7",                /* tab separates the count */
		"a;c 3\r",             /* CR: flamegraph.pl ignores the line */
		"a;d 1.",              /* "1." is a count */
		"a;e .5",              /* ".5" is not */
		"a;;f 2",              /* empty frame kept */
		"a;g;; 4",             /* trailing empty frames dropped */
		" 6",                  /* empty stack: the root's own samples */
		"no count here",
		"a;h 1 3",             /* two columns: differential, width 3 */
		"",
		NULL,
	};
	struct flamegraph_opts o;
	flamegraph_opts__init(&o);
	o.minwidth = 0;
	struct flamegraph *fg = flamegraph__new(&o);
	for (size_t i = 0; lines[i]; i++)
		CHECK(flamegraph__add_line(fg, lines[i]) == 0, "line %zu", i);
	CHECK(flamegraph__ignored(fg) == 4, "ignored %llu", (unsigned long long)flamegraph__ignored(fg));
	CHECK(flamegraph__total(fg) == 5 + 7 + 1 + 2 + 4 + 6 + 3, "total %g", flamegraph__total(fg));
	flamegraph__delete(fg);

	struct svg s;
	render_lines(&o, lines, &s);
	CHECK(find(&s, "b ") && find(&s, "b ")->count == 5, "frame 'b ' with 5");
	CHECK(!find(&s, "b"), "no frame 'b'");
	CHECK(find(&s, "a") && find(&s, "a")->count == 22, "a = 5+7+1+2+4+3");
	CHECK(!find(&s, "c"), "CR line ignored");
	CHECK(find(&s, "d") && find(&s, "d")->count == 1, "d = 1");
	CHECK(find(&s, "") && find(&s, "")->count == 2, "empty frame");
	CHECK(find(&s, "f") && find(&s, "f")->y == find(&s, "")->y - 16, "f above the empty frame");
	CHECK(find(&s, "g") && find(&s, "g")->count == 4 && count_named(&s, "") == 1,
	      "trailing empties dropped");
	CHECK(find(&s, "all")->count == 28, "root %g", find(&s, "all")->count);
	const struct frame *h = find(&s, "h");
	CHECK(h && !strcmp(h->title, "h (3 samples, 10.71%; +7.14%)"), "%s", h ? h->title : "-");
	CHECK(h && !strcmp(h->fill, "255,0,0"), "h grew by the max delta: red, got %s", h->fill);
	/* the root's own samples come first: a starts after 6 */
	CHECK(fabs(find(&s, "a")->x - (10 + 6 * 1180.0 / 28)) < 0.06, "a.x %g", find(&s, "a")->x);
	svg_free(&s);
}

/* --- stacks given as arrays draw exactly like their folded lines */
static void test_add_stack(void)
{
	const char *lines[] = { "comm;main;work 10", "comm;main 5", "other;x_[k] 3", NULL };
	struct flamegraph_opts o;
	flamegraph_opts__init(&o);
	struct svg a, b = { 0 };
	render_lines(&o, lines, &a);
	struct flamegraph *fg = flamegraph__new(&o);
	const char *s1[] = { "other", "x_[k]" }, *s2[] = { "comm", "main" },
		   *s3[] = { "comm", "main", "work" };
	CHECK(flamegraph__add_stack(fg, s1, 2, 3) == 0, "add");
	CHECK(flamegraph__add_stack(fg, s2, 2, 5) == 0, "add");
	CHECK(flamegraph__add_stack(fg, s3, 3, 10) == 0, "add");
	FILE *m = open_memstream(&b.text, &b.len);
	CHECK(flamegraph__write_svg(fg, m) == 0, "write");
	fclose(m);
	CHECK(a.len == b.len && !memcmp(a.text, b.text, a.len), "add_stack output differs");
	CHECK(flamegraph__nr_stacks(fg) == 3, "stacks %zu", flamegraph__nr_stacks(fg));

	/* writing is repeatable, and more input after a write is merged as if
	 * it had all come first */
	const char *more[] = { "comm;main;work 10", "comm;main 5", "other;x_[k] 3", "comm;aaa 7",
			       "comm;main;work 1", NULL };
	struct svg c, d = { 0 };
	render_lines(&o, more, &c);
	CHECK(flamegraph__add_line(fg, "comm;aaa 7") == 0 && flamegraph__add_line(fg, "comm;main;work 1") == 0,
	      "add after write");
	m = open_memstream(&d.text, &d.len);
	CHECK(flamegraph__write_svg(fg, m) == 0, "second write");
	fclose(m);
	CHECK(c.len == d.len && !memcmp(c.text, d.text, c.len), "write, add, write differs");
	flamegraph__delete(fg);
	svg_free(&a);
	svg_free(&b);
	svg_free(&c);
	svg_free(&d);

	/* differential stacks: same as two-column lines */
	const char *dl[] = { "comm;main;work 10 4", "comm;main 5 9", NULL };
	render_lines(&o, dl, &a);
	fg = flamegraph__new(&o);
	CHECK(flamegraph__add_diff_stack(fg, s3, 3, 10, 4) == 0, "add diff");
	CHECK(flamegraph__add_diff_stack(fg, s2, 2, 5, 9) == 0, "add diff");
	CHECK(flamegraph__add_diff_stack(fg, s2, 2, -1, 9) == -EINVAL, "negative count");
	memset(&b, 0, sizeof(b));
	m = open_memstream(&b.text, &b.len);
	CHECK(flamegraph__write_svg(fg, m) == 0, "write");
	fclose(m);
	CHECK(a.len == b.len && !memcmp(a.text, b.text, a.len), "add_diff_stack output differs");
	CHECK(strstr(b.text, "<title>work (4 samples, 30.77%; -46.15%)</title>"), "diff tooltip");
	flamegraph__delete(fg);
	svg_free(&a);
	svg_free(&b);
}

/* --- shapes */
static void test_shapes(void)
{
	const char *lines[] = { "a;b;c 590", "a;b 295", "x 295", NULL };
	struct flamegraph_opts o;
	flamegraph_opts__init(&o);
	struct svg s;

	/* flame graph: root at the bottom, height = (depth+1)*16 + 36 + 34 */
	render_lines(&o, lines, &s);
	CHECK(strstr(s.text, "height=\"134\""), "image height");
	CHECK(find(&s, "all")->y == 85 && find(&s, "a")->y == 69 && find(&s, "c")->y == 37,
	      "upright y: %g %g %g", find(&s, "all")->y, find(&s, "a")->y, find(&s, "c")->y);
	CHECK(find(&s, "a")->x == 10 && find(&s, "a")->w == 885 && find(&s, "x")->x == 895,
	      "x: %g %g %g", find(&s, "a")->x, find(&s, "a")->w, find(&s, "x")->x);
	CHECK(find(&s, "c")->x == 305, "c after b's own 295: %g", find(&s, "c")->x);
	CHECK(strstr(s.text, ">Flame Graph</text>"), "title");
	svg_free(&s);

	/* icicle: root on top at ypad1, children below */
	o.inverted = true;
	render_lines(&o, lines, &s);
	CHECK(find(&s, "all")->y == 36 && find(&s, "a")->y == 52 && find(&s, "c")->y == 84,
	      "inverted y: %g %g %g", find(&s, "all")->y, find(&s, "a")->y, find(&s, "c")->y);
	CHECK(strstr(s.text, ">Icicle Graph</text>"), "icicle title");
	CHECK(strstr(s.text, "inverted: 1"), "script knows it is inverted");
	svg_free(&s);
	/* a subtitle pushes the icicle down instead of overlapping it */
	o.subtitle = "sub";
	render_lines(&o, lines, &s);
	CHECK(find(&s, "all")->y == 60, "inverted+subtitle y %g", find(&s, "all")->y);
	CHECK(strstr(s.text, "height=\"158\""), "subtitle adds 24");
	svg_free(&s);
	o.subtitle = NULL;
	o.inverted = false;

	/* reverse: leaves become roots, merging c and b and x at depth 1 */
	o.reverse = true;
	render_lines(&o, lines, &s);
	bool b_on_c = false;
	for (size_t i = 0; i < s.n; i++)
		b_on_c |= !strcmp(s.f[i].name, "b") && s.f[i].y == 53 && s.f[i].x == find(&s, "c")->x;
	CHECK(find(&s, "c")->y == 69 && b_on_c, "reversed depth: b on c");
	CHECK(count_named(&s, "b") == 2, "b under c and as a root: %zu", count_named(&s, "b"));
	CHECK(count_named(&s, "a") == 2 && find(&s, "a")->y == 53, "a at depth 2");
	svg_free(&s);
	o.reverse = false;

	/* flame chart: time order kept, only adjacent stacks merge */
	const char *chart[] = { "a;x 295", "b 295", "a;x 295", "a;y 295", NULL };
	o.flamechart = true;
	render_lines(&o, chart, &s);
	CHECK(count_named(&s, "a") == 2, "two separate a: %zu", count_named(&s, "a"));
	CHECK(s.f[1].x == 10 && !strcmp(s.f[1].name, "a") && s.f[1].w == 295, "first a");
	CHECK(find(&s, "b")->x == 305, "b in time order: %g", find(&s, "b")->x);
	const struct frame *a2 = NULL;
	for (size_t i = 0; i < s.n; i++)
		if (!strcmp(s.f[i].name, "a") && s.f[i].x > 10)
			a2 = &s.f[i];
	CHECK(a2 && a2->x == 600 && a2->w == 590, "second a spans two adjacent stacks");
	CHECK(strstr(s.text, ">Flame Chart</text>"), "chart title");
	svg_free(&s);
	o.flamechart = false;
	render_lines(&o, chart, &s);
	CHECK(count_named(&s, "a") == 1 && find(&s, "a")->w == 885, "graph merges all a");
	svg_free(&s);

	/* minwidth: 1180 samples, 1 px each; frames under 2 px disappear */
	const char *thin[] = { "a 1170", "a;t 1", "b 9", NULL };
	o.minwidth = 2;
	render_lines(&o, thin, &s);
	CHECK(!find(&s, "t") && find(&s, "b"), "1 px frame dropped, 9 px kept");
	CHECK(strstr(s.text, "height=\"102\""), "height counts drawn depth only");
	svg_free(&s);
	o.minwidth = 1;  /* percent: 11.8 samples */
	o.minwidth_percent = true;
	render_lines(&o, thin, &s);
	CHECK(!find(&s, "b") && find(&s, "a"), "under 1%% dropped");
	svg_free(&s);
	o.minwidth = 0.1;
	o.minwidth_percent = false;

	/* --total: a larger total shrinks frames, the root still spans all */
	o.total = 2360;
	render_lines(&o, lines, &s);
	CHECK(find(&s, "a")->w == 442.5 && find(&s, "all")->w == 1180, "total: %g",
	      find(&s, "a")->w);
	CHECK(!strcmp(find(&s, "a")->title, "a (885 samples, 37.50%)"), "%s", find(&s, "a")->title);
	svg_free(&s);
	o.total = 10;  /* smaller than the real total: ignored */
	render_lines(&o, lines, &s);
	CHECK(find(&s, "a")->w == 885, "small total ignored");
	svg_free(&s);
	o.total = 0;

	/* --factor scales counts in tooltips, not geometry; commas */
	o.factor = 1000;
	o.countname = "bytes";
	render_lines(&o, lines, &s);
	CHECK(!strcmp(find(&s, "a")->title, "a (885,000 bytes, 75.00%)"), "%s", find(&s, "a")->title);
	CHECK(!strcmp(find(&s, "all")->title, "all (1,180,000 bytes, 100%)"), "%s",
	      find(&s, "all")->title);
	svg_free(&s);
}

/* --- labels: as many characters as fit, ".." when cut, annotation dropped */
static void test_labels(void)
{
	/* 7.08 px per character at fontsize 12: 70 px -> 9 characters */
	const char *lines[] = { "abcdefghijklmnop 70", "short_[k] 70", "xy 1040", NULL };
	struct flamegraph_opts o;
	flamegraph_opts__init(&o);
	struct svg s;
	render_lines(&o, lines, &s);
	CHECK(!strcmp(find(&s, "abcdefghijklmnop")->label, "abcdefg.."), "'%s'",
	      find(&s, "abcdefghijklmnop")->label);
	CHECK(!strcmp(find(&s, "short")->label, "short"), "'%s'", find(&s, "short")->label);
	CHECK(!strcmp(find(&s, "all")->label, "all"), "root label");
	svg_free(&s);
	/* multibyte characters are counted, never split */
	const char *uni[] = { "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9 70", "z 1110", NULL };
	render_lines(&o, uni, &s);
	const struct frame *e = find(&s, "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9");
	CHECK(e && !strcmp(e->label, "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9.."),
	      "'%s'", e ? e->label : "-");
	svg_free(&s);
}

/* --- escaping: nothing from the input or options can break the XML */
static bool valid_xml_text(const char *s, size_t len)
{
	for (size_t i = 0; i < len;) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
			return false;
		size_t n = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 :
			   (c & 0xf8) == 0xf0 ? 4 : 0;
		if (!n || i + n > len)
			return false;
		for (size_t k = 1; k < n; k++)
			if (((unsigned char)s[i + k] & 0xc0) != 0x80)
				return false;
		i += n;
	}
	return true;
}

static void test_escaping(void)
{
	const char *lines[] = {
		"app;std::map<K, V&>::find(\"k\") 10",
		"app;a'b]]></script><!-- 20",
		"app;bad\xff\xc3(\x01\x1b 30",
		NULL,
	};
	struct flamegraph_opts o;
	flamegraph_opts__init(&o);
	o.title = "T<&>\"";
	o.subtitle = "S<>";
	o.countname = "c&n";
	o.nametype = "N\"]]></script>";
	o.fonttype = "F<x>;}";
	o.notes = "a--b-";
	o.minwidth = 0;
	struct svg s;
	render_lines(&o, lines, &s);
	CHECK(valid_xml_text(s.text, s.len), "output is not clean UTF-8 XML text");
	CHECK(strstr(s.text, "<title>std::map&lt;K, V&amp;&gt;::find(&quot;k&quot;) (10 c&amp;n, 16.67%)</title>"),
	      "template tooltip");
	CHECK(strstr(s.text, ">std::map&lt;K, V&amp;&gt;::find(&quot;k&quot;)</text>"), "template label");
	CHECK(strstr(s.text, "a&apos;b]]&gt;&lt;/script&gt;&lt;!-- (20"), "markup in a name");
	CHECK(strstr(s.text, "bad\xef\xbf\xbd\xef\xbf\xbd(\xef\xbf\xbd\xef\xbf\xbd (30"), "bad bytes");
	CHECK(strstr(s.text, ">T&lt;&amp;&gt;&quot;</text>") && strstr(s.text, ">S&lt;&gt;</text>"),
	      "titles");
	CHECK(strstr(s.text, "nametype: \"N\\u0022\\u005d\\u005d\\u003e\\u003c\\u002fscript\\u003e\""),
	      "nametype as a JS string");
	CHECK(strstr(s.text, "font-family:F&lt;x&gt;; font-size"), "font");
	CHECK(strstr(s.text, "<!-- NOTES: a- -b-  -->"), "notes comment");
	/* exactly one CDATA end and one "</script>": ours */
	const char *p = s.text;
	int cdata = 0, script = 0;
	while ((p = strstr(p, "]]>")))
		cdata++, p++;
	for (p = s.text; (p = strstr(p, "</script>")); p++)
		script++;
	CHECK(cdata == 1 && script == 1, "cdata %d script %d", cdata, script);
	/* the parsed name round-trips */
	CHECK(find(&s, "std::map<K, V&>::find(\"k\")"), "round trip");
	svg_free(&s);

	/* options the library refuses */
	o.notes = "<b>";
	errno = 0;
	CHECK(!flamegraph__new(&o) && errno == EINVAL, "notes with <");
	o.notes = NULL;
	o.colors = "plaid";
	CHECK(!flamegraph__new(&o) && errno == EINVAL, "unknown palette");
	o.colors = "hot";
	o.bgcolors = "pink";
	CHECK(!flamegraph__new(&o) && errno == EINVAL, "unknown bgcolors");
	o.bgcolors = "#123456";
	struct flamegraph *fg = flamegraph__new(&o);
	CHECK(fg, "flat bgcolor");
	flamegraph__delete(fg);
	o.encoding = "UTF-8\"";
	CHECK(!flamegraph__new(&o) && errno == EINVAL, "bad encoding");
	flamegraph__delete(NULL);
}

/* --- no input: flamegraph.pl's error SVG and -ENODATA */
static void test_empty(void)
{
	const char *lines[] = { "nothing", NULL };
	struct svg s;
	CHECK(render_lines(NULL, lines, &s) == -ENODATA, "no data");
	CHECK(strstr(s.text, "ERROR: No valid input") && strstr(s.text, "</svg>"), "error SVG");
	svg_free(&s);
}

/* --- streaming: memory follows distinct stacks, not lines */
static void test_streaming(void)
{
	struct flamegraph *fg = flamegraph__new(NULL);
	char line[128];
	size_t after_first = 0;
	for (unsigned i = 0; i < 200000; i++) {
		unsigned k = i % 50;
		snprintf(line, sizeof(line), "comm;main;f%u;g%u;h%u %u\n", k % 5, k % 10, k, 1 + i % 3);
		CHECK(flamegraph__add_line(fg, line) == 0, "add");
		if (i == 49)
			after_first = flamegraph__nr_stacks(fg);
	}
	/* h0..h49 make every one of the 50 lines of a round distinct */
	CHECK(after_first == 50, "stacks after one round: %zu", after_first);
	CHECK(flamegraph__nr_stacks(fg) == after_first, "stacks grew with lines: %zu",
	      flamegraph__nr_stacks(fg));
	CHECK(flamegraph__total(fg) == 399999, "total %g", flamegraph__total(fg));
	flamegraph__delete(fg);
}

/* --- difffolded */
static char *diff_run(const struct folded_diff_opts *o, const char *const *a, const char *const *b)
{
	struct folded_diff *d = folded_diff__new(o);
	for (size_t i = 0; a[i]; i++)
		folded_diff__add_line(d, 0, a[i]);
	for (size_t i = 0; b[i]; i++)
		folded_diff__add_line(d, 1, b[i]);
	char *out;
	size_t len;
	FILE *m = open_memstream(&out, &len);
	CHECK(folded_diff__write(d, m) == 0, "write");
	fclose(m);
	folded_diff__delete(d);
	return out;
}

static void test_diff(void)
{
	const char *a[] = { "x;y 10\n", "x;0xdeadbeef 3", "x;0xAB 4", "z 1.5", "junk", NULL };
	const char *b[] = { "x;y 30", "x;0x1 6", "w 4", "x;y 2", NULL };
	struct folded_diff_opts o = { 0 };
	char *out = diff_run(&o, a, b);
	CHECK(!strcmp(out, "w 0 4\nx;0x1 0 6\nx;0xAB 4 0\nx;0xdeadbeef 3 0\nx;y 10 32\nz 1.5 0\n"),
	      "plain:\n%s", out);
	free(out);
	o.strip_hex = true;
	out = diff_run(&o, a, b);
	CHECK(!strcmp(out, "w 0 4\nx;0x... 7 6\nx;y 10 32\nz 1.5 0\n"), "-s:\n%s", out);
	free(out);
	o.normalize = true;  /* 18.5 before, 42 after: int(c * 42 / 18.5) */
	out = diff_run(&o, a, b);
	CHECK(!strcmp(out, "w 0 4\nx;0x... 15 6\nx;y 22 32\nz 3 0\n"), "-n -s:\n%s", out);
	free(out);
	/* -n of counts past 2^63: Perl's int() of a float, not an undefined cast
	 * (found by tests/fuzz/fuzz_folded_diff) */
	struct folded_diff_opts n = { .normalize = true };
	const char *big_a[] = { "x 1", "y 100000000000000000000000000000", NULL };
	const char *big_b[] = { "x 300000000000000000000000000000", NULL };
	out = diff_run(&n, big_a, big_b);
	CHECK(!strcmp(out, "x 3 3e+29\ny 3e+29 0\n"), "-n of huge counts:\n%s", out);
	free(out);
	CHECK(folded_diff__add_line(NULL, 2, "x 1") == -EINVAL, "bad side");
	folded_diff__delete(NULL);
}

/* diff --svg hands its stacks over without text (fg_adopt): the SVG must be
 * the one its own text lines give, for every palette and mode. 300 names
 * make multi-byte varints whose last byte looks like the empty name's;
 * trailing and leading empty fields, a bytewise order that differs from the
 * frame order ("a!" < "a" < "a;b"), fractional counts and -n included. */
static void test_diff_svg(void)
{
	struct folded_diff_opts dopts[2] = { { 0 }, { .normalize = true } };
	const char *modes[] = { "plain", "flamechart", "reverse", "chain", "minwidth0" };
	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++)
		for (size_t n = 0; n < 2; n++) {
			struct folded_diff *d = folded_diff__new(&dopts[n]);
			char line[256];
			for (unsigned i = 0; i < 900; i++) {
				unsigned k = (i * 7919) % 300;
				snprintf(line, sizeof(line), "%sroot;n%u;n%u%s%s %u%s", i % 50 ? "" : ";", k, (k * 13) % 300,
					 i % 9 ? "" : ";", i % 11 ? "" : ";--;w", 1 + i % 5, i % 7 ? "" : ".25");
				CHECK(folded_diff__add_line(d, (int)(i % 2), line) == 0, "add");
			}
			const char *extra[] = { "a 1", "a! 2", "a;b 3", "a;b; 4", "; 1", NULL };
			for (size_t i = 0; extra[i]; i++)
				folded_diff__add_line(d, (int)(i % 2), extra[i]);
			char *text = NULL;
			size_t len = 0;
			FILE *f = open_memstream(&text, &len);
			CHECK(folded_diff__write(d, f) == 0, "write");
			fclose(f);

			struct flamegraph_opts o;
			flamegraph_opts__init(&o);
			o.flamechart = m == 1;
			o.reverse = m == 2;
			o.colors = m == 3 ? "chain" : "hot";
			o.minwidth = m == 4 ? 0 : 0.1;
			struct flamegraph *a = flamegraph__new(&o), *b = flamegraph__new(&o);
			CHECK(folded_diff__to_flamegraph(d, a) == 0, "to_flamegraph");
			for (char *p = text, *nl; (nl = strchr(p, '\n')); p = nl + 1) {
				*nl = '\0';
				CHECK(flamegraph__add_line(b, p) == 0, "add text");
			}
			struct svg sa = { 0 }, sb = { 0 };
			FILE *ma = open_memstream(&sa.text, &sa.len), *mb = open_memstream(&sb.text, &sb.len);
			CHECK(flamegraph__write_svg(a, ma) == 0 && flamegraph__write_svg(b, mb) == 0, "svg");
			fclose(ma);
			fclose(mb);
			CHECK(sa.len == sb.len && !memcmp(sa.text, sb.text, sa.len),
			      "%s%s: the handed-over stacks draw differently from their text", modes[m],
			      n ? " -n" : "");
			CHECK(strstr(sa.text, "n299") && strstr(sa.text, "a!"), "%s: frames missing", modes[m]);
			free(sa.text);
			free(sb.text);
			free(text);
			flamegraph__delete(a);
			flamegraph__delete(b);
			folded_diff__delete(d);
		}
}

/* Counts past 2^53 and past a double's range: widths become inf or NaN,
 * which must draw (no label) rather than hit an undefined (long) of NaN
 * (found by tests/fuzz/fuzz_flamegraph; UBSan stops the sanitized build). */
static void test_huge_counts(void)
{
	char inf[420] = "a;h ";
	memset(inf + 4, '1', 400);
	inf[404] = '\0';
	const char *lines[] = { "c 3", "a;d 1.", inf, "a;h 18446744073709551616000", NULL };
	struct svg s;
	CHECK(render_lines(NULL, lines, &s) == 0, "huge counts render");
	CHECK(s.text && strstr(s.text, "</svg>"), "huge counts: a whole SVG");
	svg_free(&s);
	/* differential: inf - inf deltas colour as NaN would, without (int) of it */
	char diff[820] = "a;h ";
	memset(diff + 4, '1', 400);
	diff[404] = ' ';
	memset(diff + 405, '2', 400);
	diff[805] = '\0';
	const char *dlines[] = { "a;g 1 2", diff, "a;h 0 1", NULL };
	CHECK(render_lines(NULL, dlines, &s) == 0, "huge differential counts render");
	CHECK(s.text && strstr(s.text, "</svg>"), "huge differential counts: a whole SVG");
	svg_free(&s);
}

int main(void)
{
	setlocale(LC_ALL, "C");
	test_widths();
	test_grammar();
	test_add_stack();
	test_shapes();
	test_labels();
	test_escaping();
	test_empty();
	test_streaming();
	test_diff();
	test_diff_svg();
	test_huge_counts();
	return check_summary();
}
