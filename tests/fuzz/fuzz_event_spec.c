/* -e event specs: the input (after a mode byte: -x tiny_O2 given or not,
 * stat's counting rules or record's) through event_list__add, as record,
 * trace and stat parse -e: symbolic and raw events, cache events, PMU
 * terms (cpu/event=...,period=.../), modifiers, groups, tracepoints and
 * their globs, probe forms (uprobe:BIN:FUNC, probe:FUNC in -x, sdt:...).
 * It reads sysfs and tracefs as pprobe does (mounting tracefs if it is
 * not), and creates nothing there: an input with whitespace, which would
 * give a probe arguments and so a temporary tracefs probe, is skipped. */
#include <ctype.h>

#include "event_spec.h"
#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_isolate();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	for (size_t i = 1; i < size; i++)
		if (isspace(data[i]))
			return 0;
	char *spec = fuzz_str(data + 1, size - 1), err[2048];
	struct event_list l;
	event_list__init(&l);
	if (data[0] & 1)
		l.ctx.exec = PPROBE_FUZZ_ELF_DIR "/tiny_O2";
	l.ctx.counting = data[0] & 2;
	if (event_list__add(&l, spec, err, sizeof(err)) == 0) {
		event_list__set_sampling(&l, 99, 0);
		for (size_t i = 0; i < l.nr; i++) {
			char buf[512];
			(void)event_spec__file_name(l.v[i].name, buf, sizeof(buf));
			(void)event_spec__explain_open_error(&l.v[i], EINVAL, 0, buf, sizeof(buf));
		}
	} else if (!err[0]) {
		abort();	/* an error must say why */
	}
	event_list__exit(&l);
	free(spec);
	return 0;
}
