/* Probe definitions as text, three parsers: perf probe's
 * "[[GROUP:]EVENT=]POINT [ARG...]" (probe_def__parse, --add), a line of
 * uprobe_events/kprobe_events (probe_event__parse, -l), and -e's probe
 * forms "GROUP:REST" (probe_spec__parse: uprobe:BIN:FUNC, sdt:BIN:P:N,
 * probe:FUNC...), the input split at its first ':' for the last, with and
 * without a -x binary. Then perf's event names for the point
 * (probe_tracefs__event_base, __unique_name, __default_group). */
#include "fuzz.h"
#include "probe_spec.h"
#include "probe_tracefs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size), err[1024], buf[256];
	struct probe_def d;
	if (probe_def__parse(s, &d, err, sizeof(err)) == 0) {
		if (!d.point)
			abort();
		if (probe_tracefs__event_base(d.point, NULL, buf, sizeof(buf)) == 0) {
			char *taken[2] = { buf, "x" };
			char uniq[256];
			(void)probe_tracefs__unique_name(buf, taken, 2, uniq, sizeof(uniq));
			(void)probe_tracefs__valid_name(uniq);
		}
		for (int i = 0; i < d.nargs; i++)
			if (!d.args[i])
				abort();
		probe_def__exit(&d);
	}
	struct probe_event e;
	if (probe_event__parse(s, &e) == 0)
		probe_event__exit(&e);
	(void)probe_tracefs__default_group(s, buf, sizeof(buf));
	char *colon = strchr(s, ':');
	if (colon) {
		*colon = 0;
		for (int x = 0; x < 2; x++) {
			struct probe_spec ps;
			if (probe_spec__parse(s, colon + 1, x ? "/bin/true" : NULL, &ps, err, sizeof(err)) == 0)
				probe_spec__exit(&ps);
		}
		(void)probe_spec__is_group(s);
	}
	free(s);
	return 0;
}
