/* A JIT perf map (/tmp/perf-PID.map, as CPython -X perf, node
 * --perf-basic-prof and Java agents write it; its owner controls it): the
 * input as a file (a memfd) through jitmap__read, the symbolizer's reader,
 * then the table finished and looked up. Asserts what the reader promises:
 * every entry found lies in its range and has a name, and a cap reached is
 * said. */
#include "fuzz.h"
#include "../../symbolize/sym_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64], why[128];
	struct symtab t = { 0 };
	int fd = fuzz_memfd(data, size, path, sizeof(path));

	if (fd < 0)
		return 0;
	int err = jitmap__read(&t, fd, why, sizeof(why));
	if (err && err != -ENOMEM)
		abort();
	if (!err && symtab__finish(&t) == 0) {
		/* the start of every line that looks like one, and its end */
		for (size_t i = 0; i < size && i < 4096; i++) {
			if (i && data[i - 1] != '\n')
				continue;
			unsigned long long a = strtoull((const char *)data + i, NULL, 16);
			for (int k = 0; k < 2; k++) {
				const struct symtab_entry *e = symtab__find(&t, a + (uint64_t)k);
				if (e && (!e->name || a + (uint64_t)k < e->start || a + (uint64_t)k >= e->end))
					abort();
			}
		}
	}
	symtab__free(&t);
	close(fd);
	return 0;
}
