/* Tracepoint formats and raw records. The first byte picks the system
 * name (its low bits: syscalls and probe events print otherwise than the
 * rest) and where the format comes from (its top bit):
 *  - clear, with PPROBE_FUZZ_TEP_FORMATS=1 (fuzz.h; the seeds and
 *    regression inputs run so): the input, a format file's text up to a
 *    NUL byte, without its
 *    "print fmt:" line (libtraceevent 1.7.1 itself crashes on some
 *    malformed print fmts, tests/fuzz/known/tp_format/; formats come from
 *    the kernel's tracefs alone, so that parser is not pprobe's to fuzz);
 *  - set, or without that variable: one of the real formats of the seeds (tests/fuzz/corpus/tp_format/,
 *    read once), picked by the next byte, print fmt and all.
 * The rest is a raw record (what follows PERF_SAMPLE_RAW's size). The
 * format goes through tp_format__parse; the record through tp_format__print
 * (the kernel's print fmt, by libtraceevent) and each field through
 * tp_field__int, tp_field__dynamic and tp_field__format. The record's
 * common_type is set to the format's ID, as the kernel writes it. */
#include <dirent.h>

#include "fuzz.h"
#include "tp_format.h"

static const char *const systems[] = { "sched", "syscalls", "uprobes", "kprobes", "probe_libc", "irq", "ftrace",
				       "pprobe_1" };
/* The common fields as every kernel from 5.10 to 6.18 writes them. A
 * fuzzed format keeps them: libtraceevent 1.7.1 itself crashes (strcmp of
 * NULL in tep_parse_format) on a misspelt common field type
 * (tests/fuzz/known/tp_format/). */
static const char common_fields[] =
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n";
static char *real[64];
static int nreal;

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The seeds that hold a format with its print fmt, in name order (so a
 * seed's index byte always picks the same one). */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	DIR *d = opendir(PPROBE_FUZZ_CORPUS_DIR "/tp_format");
	struct dirent *e;
	char *names[256];
	int n = 0;
	while (d && (e = readdir(d)) && n < 256)
		if (e->d_name[0] != '.')
			names[n++] = strdup(e->d_name);
	if (d)
		closedir(d);
	qsort(names, (size_t)n, sizeof(*names), name_cmp);
	for (int i = 0; i < n; i++) {
		char path[4096], *text = NULL;
		size_t cap = 0;
		snprintf(path, sizeof(path), "%s/tp_format/%s", PPROBE_FUZZ_CORPUS_DIR, names[i]);
		FILE *f = fopen(path, "re");
		if (f && getdelim(&text, &cap, 0, f) > 1 && strstr(text, "\nprint fmt: ") && nreal < 64)
			real[nreal++] = strdup(text + 1);	/* after the system byte, up to the NUL */
		free(text);
		free(names[i]);
		if (f)
			fclose(f);
	}
	if (!nreal) {
		fprintf(stderr, "fuzz_tp_format: no formats in %s/tp_format\n", PPROBE_FUZZ_CORPUS_DIR);
		abort();
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	const char *sys = systems[data[0] % (sizeof(systems) / sizeof(systems[0]))];
	char *text;
	uint8_t *rec;
	size_t len;
	if ((data[0] & 0x80) || !fuzz_tep_formats()) {
		text = strdup(real[data[1] % nreal]);
		rec = (uint8_t *)fuzz_str(data + 2, size - 2);
		len = size - 2;
	} else {
		fuzz_split(data + 1, size - 1, 0, &text, &rec, &len);
		char *pf = strstr(text, "\nprint fmt:");
		if (pf)
			pf[1] = 0;
		if (!strstr(text, common_fields)) {	/* libtraceevent's own crash, known/ */
			free(text);
			free(rec);
			return 0;
		}
	}
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
