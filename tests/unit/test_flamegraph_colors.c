/* Frame colours match flamegraph.pl's exactly, for every palette, with and
 * without --hash: the expected values in flamegraph_colors.inc were produced
 * by FlameGraph's flamegraph.pl on the same input (annotated kernel, inline
 * and JIT frames, Java/JS/Perl/C++ names, a module`function name, UTF-8). */
#include <stdbool.h>

#include "flamegraph_test_util.h"
#include "flamegraph_colors.inc"

static const char *const input[] = {
	"main 1", "java/lang/Thread.run_[j] 1", "foo_[i] 1", "org/x/Y.z 1", "Lcom/a 1",
	"Foo:::bar 1", "std::vector<int> 1", "do_syscall_64_[k] 1", "libc.so`malloc 1",
	"Perl_pp_add 1", "x.pl 1", "/app/main.js:1_[j] 1", "LazyCompile_[j] 1", "  1",
	"\xc3\xbcn\xc3\xaf" "c\xc3\xb6" "d\xc3\xa9 1", NULL,
};

int main(void)
{
	setlocale(LC_ALL, "C");
	size_t n = sizeof(expected_colors) / sizeof(expected_colors[0]), checked = 0;
	for (size_t i = 0; i < n; i++) {
		const struct expected_color *e = &expected_colors[i];
		struct flamegraph_opts o;
		flamegraph_opts__init(&o);
		o.colors = e->palette;
		o.hash = e->hash;
		o.minwidth = 0;
		struct svg s;
		CHECK(render_lines(&o, input, &s) == 0, "render %s", e->palette);
		const struct frame *f = find(&s, e->name);
		CHECK(f, "no frame '%s'", e->name);
		if (f) {
			CHECK(!strcmp(f->fill, e->rgb), "--colors=%s%s '%s': rgb(%s), flamegraph.pl rgb(%s)",
			      e->palette, e->hash ? " --hash" : "", e->name, f->fill, e->rgb);
			checked++;
		}
		svg_free(&s);
	}
	CHECK(checked == 392, "%zu colours checked", checked);

	/* differential hues: flamegraph.pl's color_scale() */
	const char *diff[] = { "a 0 10", "b 10 5", "c 4 4", NULL };
	struct flamegraph_opts o;
	flamegraph_opts__init(&o);
	struct svg s;
	render_lines(&o, diff, &s);
	CHECK(!strcmp(find(&s, "a")->fill, "255,0,0"), "a %s", find(&s, "a")->fill);
	CHECK(!strcmp(find(&s, "b")->fill, "105,105,255"), "b %s", find(&s, "b")->fill);
	CHECK(!strcmp(find(&s, "c")->fill, "255,255,255"), "c %s", find(&s, "c")->fill);
	svg_free(&s);
	o.negate = true;
	render_lines(&o, diff, &s);
	CHECK(!strcmp(find(&s, "a")->fill, "0,0,255"), "negated a %s", find(&s, "a")->fill);
	CHECK(!strcmp(find(&s, "a")->title, "a (10 samples, 52.63%; -52.63%)"), "%s", find(&s, "a")->title);
	svg_free(&s);

	/* chain (values from flamegraph.pl): frames after "--" are the waker's,
	 * aqua; the others blue; "--" and "-" separators grey */
	const char *sep[] = { "a;--;b 5", "a;-;c 5", NULL };
	o.negate = false;
	o.colors = "chain";
	render_lines(&o, sep, &s);
	CHECK(!strcmp(find(&s, "--")->fill, "160,160,160"), "-- %s", find(&s, "--")->fill);
	CHECK(!strcmp(find(&s, "-")->fill, "200,200,200"), "- %s", find(&s, "-")->fill);
	CHECK(!strcmp(find(&s, "b")->fill, "55,169,169"), "waker b %s", find(&s, "b")->fill);
	CHECK(!strcmp(find(&s, "a")->fill, "118,118,236"), "a %s", find(&s, "a")->fill);
	CHECK(!strcmp(find(&s, "c")->fill, "102,102,224"), "c %s", find(&s, "c")->fill);
	CHECK(!strcmp(find(&s, "all")->fill, "90,90,213"), "root %s", find(&s, "all")->fill);
	svg_free(&s);

	/* --random: deterministic for a fixed seed, different from the default */
	o.colors = "hot";
	o.random = true;
	o.random_seed = 7;
	struct svg r1, r2;
	render_lines(&o, input, &r1);
	render_lines(&o, input, &r2);
	CHECK(r1.len == r2.len && !memcmp(r1.text, r2.text, r1.len), "seeded --random repeats");
	svg_free(&r1);
	svg_free(&r2);
	return check_summary();
}
