/* USDT notes: the input as an ELF file (a memfd) through usdt__read, as
 * `pprobe list -x` and sdt: probes read .note.stapsdt. Every probe read
 * must have its strings. */
#include <pprobe/usdt.h>

#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_isolate();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd = fuzz_memfd(data, size, path, sizeof(path));
	if (fd < 0)
		return 0;
	struct usdt_probe *v = NULL;
	int n = usdt__read(path, &v);
	for (int i = 0; i < n; i++)
		if (!v[i].provider || !v[i].name || !v[i].args)
			abort();
	if (n >= 0)
		usdt__free(v, n);
	close(fd);
	return 0;
}
