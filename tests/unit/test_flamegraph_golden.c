/* Golden SVGs for small inputs: the whole document, byte for byte, so any
 * change in geometry, colours (deterministic name hashes: the default and
 * --hash), escaping or script shows up in review. Regenerate with
 * scripts/regen-flamegraph-golden.sh after an intended change, and read the
 * diff. Runs in tests/unit (golden/ is relative), under LC_ALL=C. */
#include "flamegraph_test_util.h"

struct golden {
	const char *file;
	void (*opts)(struct flamegraph_opts *o);
	const char *const *lines;
};

static const char *const basic[] = {
	"app;main;parse;std::map<K, V&>::find 120", "app;main;parse 40",
	"app;main;compute;heavy_loop 700", "app;main;compute;memcpy_[k] 80",
	"app;main;compute 20", "app;start_thread;worker;do_syscall_64_[k] 150",
	"app;start_thread;worker;inline_helper_[i] 50", "other;jit_code_[j] 20", NULL,
};
static const char *const diff[] = {
	"app;main;parse 160 100", "app;main;compute;heavy_loop 500 700",
	"app;main;compute 20 20", "app;gone 50 0", "app;new 0 30", NULL,
};
static const char *const chart[] = {
	"app;init;load 100", "app;run;step 300", "app;run;step 200", "app;init;load 50",
	"app;run 100", NULL,
};

static void o_default(struct flamegraph_opts *o) { (void)o; }
static void o_java_hash(struct flamegraph_opts *o)
{
	o->colors = "java";
	o->hash = true;
	o->title = "Java & <friends>";
	o->countname = "events";
	o->width = 800;
}
static void o_icicle(struct flamegraph_opts *o)
{
	o->inverted = true;
	o->subtitle = "inverted, with a subtitle";
	o->fontsize = 10;
	o->height = 14;
	o->minwidth = 2;
	o->notes = "golden";
}
static void o_reverse(struct flamegraph_opts *o)
{
	o->reverse = true;
	o->colors = "mem";
	o->bgcolors = "#ffffff";
}
static void o_chart(struct flamegraph_opts *o)
{
	o->flamechart = true;
	o->colors = "aqua";
}

static const struct golden goldens[] = {
	{ "golden/flamegraph_basic.svg", o_default, basic },
	{ "golden/flamegraph_java_hash.svg", o_java_hash, basic },
	{ "golden/flamegraph_icicle.svg", o_icicle, basic },
	{ "golden/flamegraph_reverse.svg", o_reverse, basic },
	{ "golden/flamegraph_diff.svg", o_default, diff },
	{ "golden/flamegraph_chart.svg", o_chart, chart },
};

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = NULL;
	size_t cap = 0;
	FILE *m = open_memstream(&buf, &cap);
	char chunk[65536];
	size_t n;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		fwrite(chunk, 1, n, m);
	fclose(f);
	fclose(m);
	*len = cap;
	return buf;
}

int main(void)
{
	setlocale(LC_ALL, "C");
	bool regen = getenv("PPROBE_REGEN_GOLDEN") && *getenv("PPROBE_REGEN_GOLDEN") == '1';
	for (size_t i = 0; i < sizeof(goldens) / sizeof(goldens[0]); i++) {
		const struct golden *g = &goldens[i];
		struct flamegraph_opts o;
		flamegraph_opts__init(&o);
		g->opts(&o);
		struct svg s;
		CHECK(render_lines(&o, g->lines, &s) == 0, "%s: render", g->file);
		if (regen) {
			FILE *f = fopen(g->file, "wb");
			CHECK(f && fwrite(s.text, 1, s.len, f) == s.len && fclose(f) == 0,
			      "%s: write: %s", g->file, strerror(errno));
			printf("wrote %s\n", g->file);
		} else {
			size_t len = 0;
			char *want = slurp(g->file, &len);
			CHECK(want, "%s missing (run scripts/regen-flamegraph-golden.sh)", g->file);
			if (want && (len != s.len || memcmp(want, s.text, len))) {
				size_t at = 0, line = 1;
				while (at < len && at < s.len && want[at] == s.text[at])
					line += want[at++] == '\n';
				CHECK(false, "%s differs from line %zu (run the test with "
				      "PPROBE_REGEN_GOLDEN=1 to see, scripts/regen-flamegraph-golden.sh "
				      "to accept)", g->file, line);
			}
			free(want);
		}
		svg_free(&s);
	}
	return check_summary();
}
