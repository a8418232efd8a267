/* Folded stacks -> SVG: flamegraph__add_line on each line of the input and
 * flamegraph__write_svg (to /dev/null), as `pprobe flamegraph` does. The
 * first byte picks options (reverse, inverted, flame chart, hash, palette,
 * minwidth 0 or percent), the rest is the folded text. */
#include <pprobe/flamegraph.h>

#include "fuzz.h"

static const char *const palettes[] = { "hot", "mem", "io", "wakeup", "chain", "java", "js", "perl" };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct flamegraph_opts o;
	flamegraph_opts__init(&o);
	uint8_t mode = size ? data[0] : 0;
	o.reverse = mode & 1;
	o.inverted = mode & 2;
	o.flamechart = mode & 4;
	o.hash = mode & 8;
	o.colors = palettes[(mode >> 4) & 7];
	if (mode & 0x80) {
		o.minwidth = 0.5;
		o.minwidth_percent = true;
	}
	o.random_seed = 1;	/* never time-based: the same input draws the same */
	struct flamegraph *fg = flamegraph__new(&o);
	if (!fg)
		abort();
	char *text = fuzz_str(data + (size ? 1 : 0), size ? size - 1 : 0);
	for (char *line = text, *nl; line; line = nl) {
		nl = strchr(line, '\n');
		if (nl)
			*nl++ = 0;
		if (flamegraph__add_line(fg, line) < 0)
			break;
	}
	(void)flamegraph__write_svg(fg, fuzz_devnull());
	free(text);
	flamegraph__delete(fg);
	return 0;
}
