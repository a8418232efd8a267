/* /proc/kallsyms lines: the input as a file (a memfd) through
 * kallsyms__load (the kernel symbolizer's table, looked up at every
 * address read) and sym_table__add_kallsyms (what -F and probes of the
 * kernel list), with and without a module filter. */
#include <pprobe/sym_table.h>

#include "fuzz.h"
#include "../../symbolize/sym_internal.h"

static int note(void *arg, uint64_t addr, char type, const char *name, const char *mod, size_t modlen)
{
	uint64_t *v = arg;
	if (v[0] < 64)
		v[1 + v[0]++] = addr;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd = fuzz_memfd(data, size, path, sizeof(path));
	if (fd < 0)
		return 0;
	uint64_t addrs[65] = { 0 };
	(void)kallsyms__foreach(path, note, addrs);
	struct kallsyms *k = kallsyms__load(path);
	if (k) {
		for (uint64_t i = 0; i < addrs[0]; i++) {
			struct kallsyms_sym e;
			if (kallsyms__find(k, addrs[1 + i], &e) && (!e.name || !e.dso || e.start > addrs[1 + i]))
				abort();
			(void)kallsyms__find(k, addrs[1 + i] + 1, &e);
		}
		kallsyms__delete(k);
	}
	for (int m = 0; m < 2; m++) {
		struct sym_table *t = sym_table__new();
		if (!t)
			abort();
		if (sym_table__add_kallsyms(t, path, m ? "ext4" : NULL) == 0) {
			size_t n;
			const struct sym_entry *e = sym_table__syms(t, &n);
			for (size_t i = 0; i < n; i++)
				if (!e[i].name)
					abort();
		}
		sym_table__delete(t);
	}
	close(fd);
	return 0;
}
