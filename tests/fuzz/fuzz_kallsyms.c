/* /proc/kallsyms lines: the input as a file (a memfd) through
 * kallsyms__load (the kernel symbolizer's table, looked up at every
 * address read) and sym_table__add_kallsyms (what -F and probes of the
 * kernel list), with and without a module filter. The table's core is
 * written to the per-boot cache form and read back: every address it
 * covers must be named as the table names it. The input's own bytes are
 * also read as a cache file. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

static char file[128], dir[64];

static void cache_gone(void)
{
	unlink(file);
	rmdir(dir);
}

static const char *cache_file(void)
{
	if (!file[0]) {
		snprintf(dir, sizeof(dir), "/tmp/pprobe-fuzz-kcache-XXXXXX");
		if (!mkdtemp(dir))
			abort();
		snprintf(file, sizeof(file), "%s/kallsyms-core", dir);
		atexit(cache_gone);
	}
	return file;
}

static bool same(bool fa, const struct kallsyms_sym *a, bool fb, const struct kallsyms_sym *b)
{
	return fa == fb && (!fa || (a->start == b->start && !strcmp(a->name, b->name) && !strcmp(a->dso, b->dso)));
}

/* k's core through the cache file and back */
static void round_trip(const struct kallsyms *k, const uint64_t *addrs)
{
	const char *file = cache_file();
	unlink(file);
	if (kallsyms__save_core(k, file, "fuzz") != 0)
		return;
	struct kallsyms *c = kallsyms__load_core(file, "fuzz");
	if (!c)
		abort();	/* what save wrote must load */
	for (uint64_t i = 0; i < addrs[0]; i++)
		for (uint64_t a = addrs[1 + i] - 1; a <= addrs[1 + i] + 1; a++) {
			struct kallsyms_sym x, y;
			if (kallsyms__covers(c, a) &&
			    !same(kallsyms__find(c, a, &x), &x, kallsyms__find(k, a, &y), &y))
				abort();
		}
	kallsyms__delete(c);
}

/* the input as a cache file: refused, or a table whose finds hold */
static void raw_cache(const uint8_t *data, size_t size, const uint64_t *addrs)
{
	const char *file = cache_file();
	unlink(file);
	int fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	bool whole = write(fd, data, size) == (ssize_t)size;
	close(fd);
	struct kallsyms *c = whole ? kallsyms__load_core(file, "") : NULL;
	if (c) {
		for (uint64_t i = 0; i < addrs[0]; i++) {
			struct kallsyms_sym e;
			if (kallsyms__find(c, addrs[1 + i], &e) && (!e.name || !e.dso || e.start > addrs[1 + i]))
				abort();
		}
		kallsyms__delete(c);
	}
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
		round_trip(k, addrs);
		kallsyms__delete(k);
	}
	raw_cache(data, size, addrs);
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
