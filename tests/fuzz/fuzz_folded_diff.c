/* `pprobe diff`: two folded profiles, the input split at the first line
 * "---" into BEFORE and AFTER (no such line: all BEFORE), each line through
 * folded_diff__add_line, then folded_diff__write (to /dev/null) and
 * folded_diff__to_flamegraph + flamegraph__write_svg (the --svg path). The
 * first byte picks -n, -s and --no-comm. */
#include <pprobe/flamegraph.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t mode = size ? data[0] : 0;
	struct folded_diff_opts o = { .normalize = mode & 1, .strip_hex = mode & 2,
				      .no_comm = mode & 4 };
	struct folded_diff *d = folded_diff__new(&o);
	if (!d)
		abort();
	char *text = fuzz_str(data + (size ? 1 : 0), size ? size - 1 : 0);
	int side = 0;
	for (char *line = text, *nl; line; line = nl) {
		nl = strchr(line, '\n');
		if (nl)
			*nl++ = 0;
		if (!strcmp(line, "---")) {
			side = 1;
			continue;
		}
		if (folded_diff__add_line(d, side, line) < 0)
			break;
	}
	(void)folded_diff__write(d, fuzz_devnull());
	struct flamegraph_opts fo;
	flamegraph_opts__init(&fo);
	fo.negate = mode & 8;
	struct flamegraph *fg = flamegraph__new(&fo);
	if (!fg)
		abort();
	if (folded_diff__to_flamegraph(d, fg) == 0)
		(void)flamegraph__write_svg(fg, fuzz_devnull());
	flamegraph__delete(fg);
	free(text);
	folded_diff__delete(d);
	return 0;
}
