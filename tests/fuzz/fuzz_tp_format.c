/* Tracepoint formats and raw records: the input is a format file's text, a
 * NUL byte, then a raw record (what follows PERF_SAMPLE_RAW's size). The
 * format goes through tp_format__parse; the record through
 * tp_format__print (the kernel's print fmt, by libtraceevent) and each
 * field through tp_field__int, tp_field__dynamic and tp_field__format. The
 * record's common_type is set to the format's ID, as the kernel writes it.
 * The first byte picks the system name (syscalls and probe events print
 * otherwise than the rest). */
#include "fuzz.h"
#include "tp_format.h"

static const char *const systems[] = { "sched", "syscalls", "uprobes", "kprobes", "probe_libc", "irq", "ftrace",
				       "pprobe_1" };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	const char *sys = systems[data[0] % (sizeof(systems) / sizeof(systems[0]))];
	char *text;
	uint8_t *rec;
	size_t len;
	fuzz_split(data + 1, size - 1, 0, &text, &rec, &len);
	struct tp_format *fmt = tp_format__parse(text, sys);
	if (fmt) {
		/* 8-byte aligned as in the ring, no slack past the end */
		uint64_t *buf = malloc(len ? len : 1);
		if (!buf)
			abort();
		memcpy(buf, rec, len);
		const struct tp_field *ct = tp_format__field(fmt, "common_type");
		if (ct && ct->size == 2 && ct->offset + 2 <= len) {
			uint16_t id = (uint16_t)fmt->id;
			memcpy((char *)buf + ct->offset, &id, 2);
		}
		char out[4096];
		(void)tp_format__print(fmt, buf, len, out, sizeof(out));
		for (size_t i = 0; i < fmt->nr_fields; i++) {
			const struct tp_field *f = &fmt->fields[i];
			int64_t v;
			const void *p;
			size_t n;
			(void)tp_field__int(f, buf, len, &v);
			if (f->is_dynamic && tp_field__dynamic(f, buf, len, &p, &n) == 0 && n) {
				/* the payload must lie inside the record */
				if ((const char *)p < (const char *)buf || (const char *)p + n > (const char *)buf + len)
					abort();
			}
			(void)tp_field__format(f, buf, len, out, sizeof(out));
			/* a short buffer: truncation, never an overflow */
			(void)tp_field__format(f, buf, len, out, 3);
		}
		(void)tp_format__print(fmt, buf, len, out, 5);
		free(buf);
		tp_format__free(fmt);
	}
	free(text);
	free(rec);
	return 0;
}
