/* symbolize.h on real data: every N-th /proc/kallsyms text symbol, this
 * program's own functions (return addresses at pc-1), libc, the vdso,
 * a JIT perf map, build-id mismatch, the demanglers, and the entry point of
 * a stripped system executable (named _start from e_entry). */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pprobe/maps.h"
#include "pprobe/objcache.h"
#include "pprobe/symbolize.h"
#include "pprobe/unwind.h"
#include "../../symbolize/sym_internal.h"
#include "../../symbolize/unwind_internal.h"

#include "check.h"

struct ksym {
	uint64_t addr;
	char name[128], dso[64];
};

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Is name one of the kallsyms names at addr? (aliases share addresses) */
static bool ksym_is(const struct ksym *v, size_t n, size_t i, const char *name)
{
	size_t j = i;

	while (j > 0 && v[j - 1].addr == v[i].addr)
		j--;
	for (; j < n && v[j].addr == v[i].addr; j++)
		if (!strcmp(v[j].name, name))
			return true;
	return false;
}

static void test_kallsyms(struct symbolizer *s)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	struct ksym *v = NULL;
	size_t n = 0, cap = 0, checked = 0, modules = 0, markers = 0;
	char line[512];

	if (!f) {
		printf("skip kallsyms: %s\n", strerror(errno));
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a;
		char t, name[128], mod[64] = "";

		if (sscanf(line, "%llx %c %127s %63s", &a, &t, name, mod) < 3 || !strchr("tTwW", t))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 4096;
			v = realloc(v, cap * sizeof(*v));
		}
		v[n].addr = a;
		snprintf(v[n].name, sizeof(v[n].name), "%s", name);
		if (mod[0] == '[')
			snprintf(v[n].dso, sizeof(v[n].dso), "%s", mod);
		else
			snprintf(v[n].dso, sizeof(v[n].dso), "[kernel.kallsyms]");
		n++;
	}
	fclose(f);
	if (!n || !v[0].addr) {
		printf("skip kallsyms: addresses hidden (kptr_restrict; run as root)\n");
		free(v);
		return;
	}
	qsort(v, n, sizeof(*v), ksym_cmp);
	for (size_t i = 0; i + 1 < n; i++) {
		size_t next = i + 1;
		struct sym_frame fr;

		if (v[i].addr == v[next].addr)
			continue;
		/* section-end markers name nothing after them (checked below) */
		size_t len = strlen(v[i].name);
		if (!strcmp(v[i].name, "_etext") || !strcmp(v[i].name, "_einittext") ||
		    (len > 11 && !strncmp(v[i].name, "__", 2) && !strcmp(v[i].name + len - 9, "_text_end"))) {
			struct sym_frame m;

			if (i && v[i - 1].addr == v[i].addr)
				continue;	/* a real symbol at the same address wins */
			markers++;
			CHECK(symbolizer__kernel(s, v[i].addr, false, &m, 1) == 1 && !m.name,
			      "marker %s names %s", v[i].name, m.name);
			continue;
		}
		bool mod = strcmp(v[i].dso, "[kernel.kallsyms]") != 0;
		if (i % 37 && !mod)
			continue;
		modules += mod;
		uint64_t mid = v[i].addr + (v[next].addr - v[i].addr) / 2;
		CHECK(symbolizer__kernel(s, v[i].addr, false, &fr, 1) == 1 && fr.name && fr.kernel &&
		      ksym_is(v, n, i, fr.name) && !strcmp(fr.dso, v[i].dso) && fr.offset == 0,
		      "%#" PRIx64 " %s %s: got %s %s+%#" PRIx64, v[i].addr, v[i].name, v[i].dso,
		      fr.name, fr.dso, fr.offset);
		CHECK(symbolizer__kernel(s, mid, false, &fr, 1) == 1 && fr.name && ksym_is(v, n, i, fr.name) &&
		      fr.offset == mid - v[i].addr, "mid of %s: got %s", v[i].name, fr.name);
		/* a return address equal to the next symbol's start belongs to this one */
		CHECK(symbolizer__kernel(s, v[next].addr, true, &fr, 1) == 1 && fr.name &&
		      ksym_is(v, n, i, fr.name) && fr.offset == v[next].addr - 1 - v[i].addr,
		      "return to %#" PRIx64 ": got %s", v[next].addr, fr.name);
		checked++;
	}
	printf("kallsyms: %zu symbols checked (%zu in modules, %zu end markers) of %zu\n", checked, modules,
	       markers, n);
	CHECK(checked > 1000, "only %zu kallsyms checked", checked);
	free(v);
}

/* Module names and symbol types on a kallsyms file of known content
 * (this kernel has no loadable modules to check against). */
static void test_kallsyms_modules(void)
{
	char fn[] = "/tmp/pprobe-kallsyms-XXXXXX";
	int fd = mkstemp(fn);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	struct symbolizer *s;
	struct sym_frame fr;

	if (!f) {
		CHECK(0, "mkstemp");
		return;
	}
	fputs("ffffffff81000000 T _text\n"
	      "ffffffff81000000 T startup_64\n"
	      "ffffffff81000100 t helper\n"
	      "ffffffff81000200 D some_data\n"	/* data: never names code */
	      "ffffffff81000300 T last_core\n"
	      "ffffffff81000400 T _etext\n"
	      "ffffffffc0001000 t ext4_thing\t[ext4]\n"
	      "ffffffffc0001080 T ext4_other\t[ext4]\n"
	      "ffffffffc0002000 t xfs_fn\t[xfs]\n", f);
	fclose(f);
	setenv("PPROBE_KALLSYMS", fn, 1);
	s = symbolizer__new(NULL);
	CHECK(symbolizer__kernel(s, 0xffffffff81000280, false, &fr, 1) == 1 && fr.name &&
	      !strcmp(fr.name, "helper") && fr.offset == 0x180 && !strcmp(fr.dso, "[kernel.kallsyms]"),
	      "data symbol skipped: %s+%#" PRIx64, fr.name, fr.offset);
	unsetenv("PPROBE_KALLSYMS");	/* read on first use */
	CHECK(symbolizer__kernel(s, 0xffffffff81000410, false, &fr, 1) == 1 && !fr.name,
	      "after the _etext marker: unknown (%s)", fr.name);
	CHECK(symbolizer__kernel(s, 0xffffffff81000310, false, &fr, 1) == 1 && fr.name && !strcmp(fr.name, "last_core"),
	      "before _etext: %s", fr.name);
	CHECK(symbolizer__kernel(s, 0xffffffff81000010, false, &fr, 1) == 1 && fr.name &&
	      (!strcmp(fr.name, "_text") || !strcmp(fr.name, "startup_64")), "alias: %s", fr.name);
	CHECK(symbolizer__kernel(s, 0xffffffffc0001090, false, &fr, 1) == 1 && fr.name &&
	      !strcmp(fr.name, "ext4_other") && !strcmp(fr.dso, "[ext4]") && fr.offset == 0x10 && fr.kernel,
	      "module: %s %s", fr.name, fr.dso);
	CHECK(symbolizer__kernel(s, 0xffffffffc0001080, true, &fr, 1) == 1 && fr.name &&
	      !strcmp(fr.name, "ext4_thing") && !strcmp(fr.dso, "[ext4]"), "module return: %s", fr.name);
	CHECK(symbolizer__kernel(s, 0xffffffffc0001080 + 65536, false, &fr, 1) == 1 && !fr.name,
	      "a module's last symbol does not cover the gap to the next module: %s", fr.name);
	CHECK(symbolizer__kernel(s, 0xffffffffc0002010, false, &fr, 1) == 1 && fr.name &&
	      !strcmp(fr.name, "xfs_fn") && !strcmp(fr.dso, "[xfs]"), "last module: %s %s", fr.name, fr.dso);
	CHECK(symbolizer__kernel(s, 0xffffffffc0003000, false, &fr, 1) == 1 && !fr.name &&
	      !strcmp(fr.dso, "[kernel.kallsyms]"), "past the last symbol's page: unknown (%s)", fr.name);
	CHECK(symbolizer__kernel(s, 0xffffffff80000000, false, &fr, 1) == 1 && !fr.name, "before the first: %s", fr.name);
	symbolizer__delete(s);
	unlink(fn);
}

__attribute__((noinline)) int pprobe_test_target(int x)
{
	return x * 7 + 1;
}

__attribute__((noinline)) int pprobe_test_after(int x)
{
	return pprobe_test_target(x) + 2;
}

/* The per-boot cache of the core kernel's symbols (kallsyms.c): written
 * from the first whole read, answering the core's addresses as the whole
 * table does without reading it again, reading it for a module's address,
 * and refused whole when its key or any byte of its form is wrong. */
static const char fake_kallsyms[] =
	"ffffffff81000000 T _text\n"
	"ffffffff81000000 T startup_64\n"
	"ffffffff81000100 t helper\n"
	"ffffffff81000200 D some_data\n"
	"ffffffff81000300 T last_core\n"
	"ffffffff81000400 T _etext\n"
	"ffffffff81000800 T init_fn\n"
	"ffffffff81000900 T _einittext\n"
	"ffffffffc0001000 t ext4_thing\t[ext4]\n"
	"ffffffffc0001080 T ext4_other\t[ext4]\n";

static bool sym_same(bool fa, const struct kallsyms_sym *a, bool fb, const struct kallsyms_sym *b)
{
	return fa == fb && (!fa || (a->start == b->start && !strcmp(a->name, b->name) && !strcmp(a->dso, b->dso)));
}

/* One damaged form of a cache file: len bytes of v at off, or the file cut
 * to trunc bytes. */
struct damage {
	const char *what;
	size_t off;
	const void *v;
	size_t len, trunc;
};

/* The whole of path (malloc'd), its length in *len. */
static char *slurp(const char *path, size_t *len)
{
	struct stat st;
	int fd = open(path, O_RDONLY);
	char *b = NULL;

	if (fd >= 0 && !fstat(fd, &st) && (b = malloc((size_t)st.st_size + 1)) &&
	    read(fd, b, (size_t)st.st_size) == st.st_size) {
		*len = (size_t)st.st_size;
	} else {
		free(b);
		b = NULL;
		CHECK_FAIL("read %s", path);
	}
	if (fd >= 0)
		close(fd);
	return b;
}

/* Rewrite the cache file at off with len bytes of v (a copy of good first). */
static void cache_patch(const char *good, size_t good_len, const char *file, size_t off, const void *v, size_t len,
			size_t truncate_to)
{
	int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return;
	char *b = malloc(good_len);
	memcpy(b, good, good_len);
	if (v)
		memcpy(b + off, v, len);
	if (write(fd, b, truncate_to ? truncate_to : good_len) < 0)
		CHECK_FAIL("write %s", file);
	close(fd);
	free(b);
}

static void test_kallsyms_cache(void)
{
	char dir[] = "/tmp/pprobe-kcache-XXXXXX", src[4200], cache[4200];
	struct kallsyms_sym a, b;
	struct stat st;

	if (!CHECK(mkdtemp(dir), "mkdtemp"))
		return;
	snprintf(src, sizeof(src), "%s/kallsyms", dir);
	snprintf(cache, sizeof(cache), "%s/kallsyms-core", dir);
	FILE *f = fopen(src, "w");
	fputs(fake_kallsyms, f);
	fclose(f);

	struct kallsyms *whole = kallsyms__load(src);
	if (!CHECK(whole, "load %s", src))
		return;
	/* the first: no cache to read, the whole file read once, the cache
	 * written at the end, not while the run goes on */
	struct ksyms *ks = ksyms__new(src, cache, "boot-A");
	CHECK(ksyms__find(ks, 0xffffffff81000180, &a) && !strcmp(a.name, "helper"), "first: %s", a.name);
	CHECK_EQ_INT(ksyms__nr_full_loads(ks), 1);
	CHECK(stat(cache, &st) && errno == ENOENT, "no cache written during the run");
	ksyms__delete(ks);
	CHECK(!stat(cache, &st) && (st.st_mode & 0777) == 0600, "cache written 0600 at the end (%o)", st.st_mode & 0777);

	/* the second: every core address as the whole table says, no read */
	ks = ksyms__new(src, cache, "boot-A");
	uint64_t probe[] = { 0xffffffff80ffffff, 0xffffffff81000000, 0xffffffff81000010, 0xffffffff810000ff,
			     0xffffffff81000100, 0xffffffff81000250, 0xffffffff81000300, 0xffffffff810003ff,
			     0xffffffff81000400, 0xffffffff81000700, 0xffffffff81000800, 0xffffffff810008ff,
			     0xffffffff81000900 };
	const char *kept = NULL;
	for (size_t i = 0; i < sizeof(probe) / sizeof(probe[0]); i++) {
		bool fa = ksyms__find(ks, probe[i], &a), fb = kallsyms__find(whole, probe[i], &b);
		CHECK(sym_same(fa, &a, fb, &b), "%#" PRIx64 ": cache %s, whole %s", probe[i], fa ? a.name : "-",
		      fb ? b.name : "-");
		if (fa && !kept)
			kept = a.name;
	}
	/* below the first symbol the core does not answer: the whole file
	 * does (it says nothing there either) */
	CHECK_EQ_INT(ksyms__nr_full_loads(ks), 1);
	ksyms__delete(ks);
	ks = ksyms__new(src, cache, "boot-A");
	CHECK(ksyms__find(ks, 0xffffffff81000110, &a) && !strcmp(a.name, "helper"), "cached: %s", a.name);
	kept = a.name;
	CHECK_EQ_INT(ksyms__nr_full_loads(ks), 0);
	/* a module's address: the whole file, once; the core's names stay */
	CHECK(ksyms__find(ks, 0xffffffffc0001090, &a) && !strcmp(a.name, "ext4_other") && !strcmp(a.dso, "[ext4]"),
	      "module from the whole file: %s %s", a.name, a.dso);
	CHECK(ksyms__find(ks, 0xffffffffc0001010, &a) && !strcmp(a.name, "ext4_thing"), "again: %s", a.name);
	CHECK_EQ_INT(ksyms__nr_full_loads(ks), 1);
	CHECK_STREQ(kept, "helper");
	ksyms__delete(ks);

	/* another boot: not used, and written anew for this one */
	ks = ksyms__new(src, cache, "boot-B");
	CHECK(ksyms__find(ks, 0xffffffff81000110, &a) && !strcmp(a.name, "helper"), "boot-B: %s", a.name);
	CHECK_EQ_INT(ksyms__nr_full_loads(ks), 1);
	ksyms__delete(ks);
	struct kallsyms *c = kallsyms__load_core(cache, "boot-B");
	CHECK(c && kallsyms__covers(c, 0xffffffff81000900) && !kallsyms__covers(c, 0xffffffff81000901) &&
	      !kallsyms__covers(c, 0xffffffffc0001000), "rewritten for boot-B, covering the core only");
	kallsyms__delete(c);
	CHECK(!kallsyms__load_core(cache, "boot-A"), "boot-A's key refused");

	/* every damaged form refused */
	size_t len = 0;
	char *good = slurp(cache, &len);
	if (!good)
		return;
	const size_t hdr = 8 + 40 + 16, ent = 16;
	uint64_t n;
	memcpy(&n, good + 48, 8);
	CHECK_EQ_U64(n, 6);	/* _text and startup_64 one; helper, last_core, _etext, init_fn, _einittext */
	uint64_t big = 1ull << 40, one = 1;
	uint32_t far = 1u << 30;
	uint8_t bad = 2;
	struct damage dmg[] = {
		{ "magic", 0, "PPKSYM0", 8, 0 },
		{ "count past the file", 48, &big, 8, 0 },
		{ "count one less", 48, &(uint64_t){ 5 }, 8, 0 },
		{ "names length", 56, &one, 8, 0 },
		{ "truncated", 0, NULL, 0, len - 1 },
		{ "header only", 0, NULL, 0, hdr },
		{ "name offset past the names", hdr + 8, &far, 4, 0 },
		{ "a module's entry", hdr + ent + 12, &(uint16_t){ 1 }, 2, 0 },
		{ "marker not 0/1", hdr + 14, &bad, 1, 0 },
		{ "pad", hdr + 15, &bad, 1, 0 },
		{ "unsorted", hdr + ent, good + hdr, 8, 0 },
		{ "names not NUL-terminated", len - 1, "x", 1, 0 },
	};
	for (size_t i = 0; i < sizeof(dmg) / sizeof(dmg[0]); i++) {
		cache_patch(good, len, cache, dmg[i].off, dmg[i].v, dmg[i].len, dmg[i].trunc);
		c = kallsyms__load_core(cache, "boot-B");
		CHECK(!c, "damaged (%s) refused", dmg[i].what);
		kallsyms__delete(c);
	}
	cache_patch(good, len, cache, 0, NULL, 0, 0);
	c = kallsyms__load_core(cache, "boot-B");
	CHECK(c, "the good copy loads");
	kallsyms__delete(c);
	chmod(cache, 0644);
	CHECK(!kallsyms__load_core(cache, "boot-B"), "readable by others: refused");
	chmod(cache, 0600);
	char link[4300];
	snprintf(link, sizeof(link), "%s/link", dir);
	CHECK(!symlink(cache, link) && !kallsyms__load_core(link, "boot-B"), "a link: refused");
	unlink(link);
	free(good);

	/* a core symbol above a module's: not one span, not cached */
	f = fopen(src, "w");
	fputs("ffffffff81000000 T _text\n"
	      "ffffffffc0001000 t ext4_thing\t[ext4]\n"
	      "ffffffffd0000000 T odd_core\n", f);
	fclose(f);
	struct kallsyms *mixed = kallsyms__load(src);
	CHECK(mixed && kallsyms__save_core(mixed, cache, "boot-C") == -ENOENT, "mixed core and modules: not cached");
	kallsyms__delete(mixed);
	kallsyms__delete(whole);
	unlink(cache);
	unlink(src);
	rmdir(dir);
}

/* A finished table through the disk cache (symtab_cache.c) and back:
 * every entry and lookup the same, names copied and names left in a file
 * alike, and each damaged form refused (and removed). */
static void test_symtab_cache(void)
{
	char dir[] = "/tmp/pprobe-symt-XXXXXX", names[4200];
	struct symtab t = { 0 }, u = { 0 };
	uint32_t flags = 0;
	enum { N = 6000 };

	if (!CHECK(mkdtemp(dir), "mkdtemp"))
		return;
	/* a file of names, as an object's string table */
	snprintf(names, sizeof(names), "%s/names", dir);
	FILE *f = fopen(names, "w");
	fputs("\0", f);
	long offs[N / 2];
	for (int i = 0; i < N / 2; i++) {
		offs[i] = ftell(f);
		fprintf(f, "file_fn_%d%c", i, 0);
	}
	fclose(f);
	int nfd = open(names, O_RDONLY);
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);
	/* out of order, with ties, zero sizes, nested symbols and a NULL-named copy */
	for (int i = N - 1; i >= 0; i--) {
		uint64_t start = 0x10000 + (uint64_t)i * 32;
		char nm[32];
		if (i % 2) {
			snprintf(nm, sizeof(nm), "copy_fn_%d", i);
			symtab__add(&t, start, i % 5 ? 16 : 0, 0x10000 + N * 32, nm, strlen(nm), (uint32_t)(i % 3));
		} else {
			char ref[32];
			snprintf(ref, sizeof(ref), "file_fn_%d", i / 2);
			symtab__add_ref(&t, start, 24, 0, ref, (uint64_t)offs[i / 2], SYMTAB_SRC_FILE, 0);
		}
		if (i % 97 == 0)	/* a tie at one address, lower priority */
			symtab__add(&t, start, 8, 0, "tie_loser", 9, 0);
	}
	symtab__add(&t, 0x10000, (uint64_t)N * 32, 0, "outer", 5, 0);	/* encloses everything */
	CHECK(!symtab__finish(&t), "finish");
	symtab__release(&t, SYMTAB_SRC_FILE, nfd);

	struct stat a, b;
	char name[32], name2[32];
	stat(names, &a);
	stat(dir, &b);
	symtab_cache__name(&a, NULL, name, sizeof(name));
	symtab_cache__name(&a, &b, name2, sizeof(name2));
	CHECK(strlen(name) == 20 && strcmp(name, name2), "names: %s %s (the debug file's identity counts)", name, name2);
	struct stat a2 = a;
	char name3[32];
	a2.st_ctim.tv_nsec ^= 1;	/* rewritten in place, its mtime set back */
	symtab_cache__name(&a2, NULL, name3, sizeof(name3));
	CHECK(strcmp(name, name3), "the ctime counts: %s %s", name, name3);
	CHECK_EQ_INT(symtab_cache__load(&u, dfd, name, &flags), -ENOENT);
	CHECK_EQ_INT(symtab_cache__save(&t, dfd, name, SYMTAB_CACHE_MINI), 0);
	CHECK_EQ_INT(symtab_cache__load(&u, dfd, name, &flags), 0);
	CHECK_EQ_INT(flags, SYMTAB_CACHE_MINI);
	symtab__release(&u, SYMTAB_SRC_FILE, nfd);
	CHECK_EQ_U64(u.n, t.n);
	size_t bad = 0;
	for (size_t i = 0; i < t.n && i < u.n; i++) {
		const struct symtab_entry *x = &t.v[i], *y = &u.v[i];
		const char *nx = symtab__name(&t, x), *ny = symtab__name(&u, y);
		if (x->start != y->start || x->end != y->end || x->prio != y->prio || x->src != y->src ||
		    x->sized != y->sized || !nx != !ny || (nx && strcmp(nx, ny)))
			bad++;
	}
	CHECK(!bad, "%zu of %zu entries differ after the round trip", bad, t.n);
	for (uint64_t addr = 0xff00; addr < 0x10000 + N * 32 + 64; addr += 7) {
		const struct symtab_entry *x = symtab__find(&t, addr), *y = symtab__find(&u, addr);
		if (!x != !y || (x && (x->start != y->start || strcmp(symtab__name(&t, x), symtab__name(&u, y)))))
			bad++;
	}
	CHECK(!bad, "%zu lookups differ", bad);
	symtab__free(&u);

	/* damaged forms: each refused and removed */
	char path[4300];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	size_t len = 0;
	char *good = slurp(path, &len);
	if (!good)
		return;
	const size_t hdr = 32, ent = 32;
	struct damage dmg[] = {
		{ "magic", 0, "PPSYMT0", 8, 0 },
		{ "count", 8, &(uint64_t){ 1 }, 8, 0 },
		{ "pool length", 16, &(uint64_t){ 3 }, 8, 0 },
		{ "unknown flag", 24, &(uint32_t){ 4 }, 4, 0 },
		{ "entry size", 28, &(uint32_t){ 40 }, 4, 0 },
		{ "truncated", 0, NULL, 0, len - 1 },
		{ "unsorted", hdr + ent, good + hdr, 8, 0 },
		{ "end before start", hdr + 8, &(uint64_t){ 0 }, 8, 0 },
		{ "source", hdr + 28, &(uint8_t){ SYMTAB_SRC_NR }, 1, 0 },
		{ "debug names without the flag", hdr + 28, &(uint8_t){ SYMTAB_SRC_DEBUG }, 1, 0 },
		{ "sized not 0/1", hdr + 29, &(uint8_t){ 2 }, 1, 0 },
		{ "pad", hdr + 30, &(uint16_t){ 1 }, 2, 0 },
		{ "pool without its last NUL", len - 1, "x", 1, 0 },
	};
	for (size_t i = 0; i < sizeof(dmg) / sizeof(dmg[0]); i++) {
		cache_patch(good, len, path, dmg[i].off, dmg[i].v, dmg[i].len, dmg[i].trunc);
		CHECK(symtab_cache__load(&u, dfd, name, &flags) == -EINVAL && !u.n && !u.v && access(path, F_OK),
		      "damaged (%s): refused and removed", dmg[i].what);
	}
	/* a copied name's offset past the pool: the first copy-named entry */
	size_t k = 0;
	while (k < t.n && t.v[k].src != SYMTAB_SRC_COPY)
		k++;
	uint64_t past = len;
	cache_patch(good, len, path, hdr + k * ent + 16, &past, 8, 0);
	CHECK(symtab_cache__load(&u, dfd, name, &flags) == -EINVAL, "a copied name past the pool: refused");
	/* writable by others: refused */
	cache_patch(good, len, path, 0, NULL, 0, 0);
	chmod(path, 0666);
	CHECK(symtab_cache__load(&u, dfd, name, &flags) == -EINVAL, "writable by others: refused");
	free(good);
	symtab__free(&t);
	close(nfd);
	close(dfd);
	char cmd[4300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CHECK(!system(cmd), "rm");
}

/* JIT map lines as writers write them (perf's "START SIZE name", hex, the
 * name to the end of the line with its spaces) and as they should not be. */
static void test_jitmap_lines(void)
{
	char fn[] = "/tmp/pprobe-jitmap-XXXXXX";
	int fd = mkstemp(fn);
	const char text[] = "10000 40 plain\n"
			    "0x20000 0x10 prefixed\n"
			    "30000\t20\tLazyCompile:*fib /tmp/x.js:1 with spaces\n"
			    "  40000 8   leading blanks\n"
			    "50000 10\n"		/* no name: left out */
			    "zz 10 not_hex\n"
			    "60000 1x0 bad_size\n"
			    "70000 8 last_without_newline";
	struct symtab t = { 0 };
	char why[64];

	if (!CHECK(fd >= 0 && write(fd, text, sizeof(text) - 1) == (ssize_t)sizeof(text) - 1, "write %s", fn))
		return;
	lseek(fd, 0, SEEK_SET);
	CHECK_EQ_INT(jitmap__read(&t, fd, why, sizeof(why)), 0);
	CHECK(!symtab__finish(&t), "finish");
	struct { uint64_t a; const char *name; } want[] = {
		{ 0x10010, "plain" }, { 0x20008, "prefixed" }, { 0x30000, "LazyCompile:*fib /tmp/x.js:1 with spaces" },
		{ 0x40004, "leading blanks" }, { 0x50000, NULL }, { 0x60000, NULL }, { 0x70007, "last_without_newline" },
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct symtab_entry *e = symtab__find(&t, want[i].a);
		const char *got = e ? symtab__name(&t, e) : NULL;
		CHECK(want[i].name ? got && !strcmp(got, want[i].name) : !got, "%#" PRIx64 ": %s, expected %s",
		      want[i].a, got ? got : "(none)", want[i].name ? want[i].name : "(none)");
	}
	CHECK_EQ_U64(t.n, 5);
	symtab__free(&t);
	close(fd);
	unlink(fn);
}

static void test_self(struct symbolizer *s, struct maps *maps)
{
	struct sym_frame fr[8];
	uint64_t a = (uint64_t)(uintptr_t)&pprobe_test_target;
	uint64_t b = (uint64_t)(uintptr_t)&pprobe_test_after;
	const struct map *m = maps__find(maps, a);
	int n;

	CHECK(m, "own text mapped");
	if (!m)
		return;
	n = symbolizer__user(s, getpid(), m, a, false, fr, 8);
	CHECK(n >= 1 && fr[n - 1].name && !strcmp(fr[n - 1].name, "pprobe_test_target") && fr[n - 1].offset == 0 &&
	      !fr[n - 1].inlined, "target: %s+%#" PRIx64, fr[n - 1].name, fr[n - 1].offset);
	CHECK(!strcmp(fr[0].dso, "test_symbolize"), "dso %s", fr[0].dso);
	n = symbolizer__user(s, getpid(), m, a + 1, true, fr, 8);
	CHECK(n >= 1 && fr[n - 1].name && !strcmp(fr[n - 1].name, "pprobe_test_target") && fr[n - 1].offset == 0,
	      "return to target+1 is target+0: %s", fr[n - 1].name);
	/* a return address at a function's first byte belongs to what precedes it */
	if (b > a) {
		n = symbolizer__user(s, getpid(), maps__find(maps, b - 1), b, true, fr, 8);
		CHECK(n >= 1 && (!fr[n - 1].name || strcmp(fr[n - 1].name, "pprobe_test_after")),
		      "return to start of after: %s", fr[n - 1].name);
	}
	/* build-id: the right one symbolizes, a wrong one says mismatch */
	struct map copy = *m;
	copy.build_id_size = (uint8_t)elf_file__build_id("/proc/self/exe", copy.build_id, sizeof(copy.build_id));
	CHECK(copy.build_id_size == 20, "own build-id size %d", copy.build_id_size);
	n = symbolizer__user(s, getpid(), &copy, a, false, fr, 8);
	CHECK(n >= 1 && !fr[0].build_id_mismatch && fr[n - 1].name && !strcmp(fr[n - 1].name, "pprobe_test_target"),
	      "right build-id: %s", fr[n - 1].name);
	copy.build_id[0] ^= 0xff;
	copy.ino = 0;	/* a different cache key: only the build-id can tell */
	n = symbolizer__user(s, getpid(), &copy, a, false, fr, 8);
	CHECK(n == 1 && fr[0].build_id_mismatch && !fr[0].name, "wrong build-id: n %d mismatch %d name %s", n,
	      fr[0].build_id_mismatch, fr[0].name);
	/* the inode of another file: the mapped file is not on disk any more */
	copy = *m;
	copy.ino ^= 0x5a5a5a;
	n = symbolizer__user(s, 0, &copy, a, false, fr, 8);
	CHECK(n == 1 && fr[0].build_id_mismatch && !fr[0].name, "wrong inode: mismatch %d name %s",
	      fr[0].build_id_mismatch, fr[0].name);
}

static void test_libc(struct symbolizer *s, struct maps *maps)
{
	struct sym_frame fr[8];
	const struct map *m = NULL;

	for (size_t i = 0; i < maps__count(maps); i++)
		if (strstr(maps__at(maps, i)->path, "/libc.so.6") && (maps__at(maps, i)->prot & PROT_EXEC))
			m = maps__at(maps, i);
	CHECK(m, "libc mapped");
	if (!m)
		return;
	/* every 4 KiB of libc's text has a name (libc6-dbg or .dynsym) */
	size_t named = 0, total = 0;
	for (uint64_t p = m->start + 0x800; p < m->end; p += 4096) {
		int n = symbolizer__user(s, getpid(), m, p, false, fr, 8);

		total++;
		named += n >= 1 && fr[n - 1].name;
		CHECK(n >= 1 && !strcmp(fr[0].dso, "libc.so.6"), "libc dso %s", fr[0].dso);
	}
	printf("libc: %zu of %zu pages named\n", named, total);
	CHECK(named * 100 >= total * 98, "libc named %zu of %zu", named, total);
	/* Aliases: the name the library exports, as users know it and perf
	 * chooses (global, then fewest leading underscores), not glibc's
	 * hidden __GI___libc_malloc (libc6-dbg's DWARF gives it as the
	 * function's linkage name) nor the equally global __libc_malloc. */
	static const char *const want[] = { "malloc", "free", "prctl", "qsort_r" };
	/* libc's own (a sanitizer's interceptors are what RTLD_DEFAULT finds) */
	void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	CHECK(libc, "libc.so.6 loaded: %s", libc ? "" : dlerror());
	for (size_t i = 0; libc && i < sizeof(want) / sizeof(want[0]); i++) {
		void *a = dlsym(libc, want[i]);
		int n = a ? symbolizer__user(s, getpid(), m, (uint64_t)(uintptr_t)a, false, fr, 8) : 0;
		CHECK(n >= 1 && fr[n - 1].name && !strcmp(fr[n - 1].name, want[i]), "%s's entry named %s", want[i],
		      n >= 1 && fr[n - 1].name ? fr[n - 1].name : "(none)");
	}
	if (libc)
		dlclose(libc);
}

/* record --push's bounded cache: objects untouched for a whole sweep
 * period are closed, kept ones stay, a closed one opens again on use. */
static void test_sweep(struct maps *maps)
{
	struct symbolizer *s = symbolizer__new(NULL);
	struct sym_frame fr[8];
	uint64_t a = (uint64_t)(uintptr_t)&pprobe_test_target;
	const struct map *self = maps__find(maps, a), *libc = NULL;

	for (size_t i = 0; i < maps__count(maps); i++)
		if (strstr(maps__at(maps, i)->path, "/libc.so.6") && (maps__at(maps, i)->prot & PROT_EXEC))
			libc = maps__at(maps, i);
	CHECK(s && self && libc, "symbolizer, own text and libc");
	if (!s || !self || !libc) {
		symbolizer__delete(s);
		return;
	}
	CHECK(symbolizer__prepare(s, getpid(), self) == 0 && symbolizer__prepare(s, getpid(), libc) == 0, "prepared");
	CHECK(symbolizer__sweep(s) == 0, "both used since the last sweep: none closed");
	symbolizer__keep(s, getpid(), libc);
	size_t n = symbolizer__sweep(s);
	CHECK(n == 1, "libc kept, the program's own object closed: %zu", n);
	n = symbolizer__sweep(s);
	CHECK(n == 1, "then libc, neither kept nor used: %zu", n);
	CHECK(symbolizer__sweep(s) == 0, "nothing left");
	int k = symbolizer__user(s, getpid(), self, a, false, fr, 8);
	CHECK(k >= 1 && fr[k - 1].name && !strcmp(fr[k - 1].name, "pprobe_test_target"),
	      "opened again after the sweep: %s", k >= 1 ? fr[k - 1].name : "(none)");
	symbolizer__keep(s, getpid(), NULL);	/* no mapping: nothing */
	symbolizer__delete(s);
}

/* How many of our descriptors are the vdso's copy (memfd:pprobe-vdso). */
static int vdso_copies(void)
{
	char fn[64], link[256];
	int n = 0;

	for (int fd = 0; fd < 4096; fd++) {
		snprintf(fn, sizeof(fn), "/proc/self/fd/%d", fd);
		ssize_t k = readlink(fn, link, sizeof(link) - 1);
		if (k > 0) {
			link[k] = 0;
			n += strstr(link, "pprobe-vdso") != NULL;
		}
	}
	return n;
}

/* A symbolizer and an unwinder on one object cache (record, trace): each
 * file is looked for and opened once for both, the vdso copied once, one
 * sweep keeps what the unwinder's processes map and closes the rest. */
static void test_shared_cache(struct maps *maps)
{
	struct objcache *c = objcache__new();
	struct symbolizer *s = c ? symbolizer__new_cached(NULL, c) : NULL;
	struct unwinder *u = c ? unwinder__new_cached(UNWIND_LIBDW, c) : NULL;
	uint64_t a = (uint64_t)(uintptr_t)&pprobe_test_target, ips[8];
	const struct map *self = maps__find(maps, a), *libc = NULL;
	const struct map *vdso = maps__find(maps, getauxval(AT_SYSINFO_EHDR));
	struct sym_frame fr[8];
	size_t files = 0;
	int copies = vdso_copies();	/* other symbolizers' */

	objcache__put(c);	/* the symbolizer and the unwinder hold it */
	for (size_t i = 0; i < maps__count(maps); i++) {
		const struct map *m = maps__at(maps, i);
		if (!(m->prot & PROT_EXEC) || !map__is_file(m))
			continue;
		files++;	/* our maps: one executable mapping per file */
		if (strstr(m->path, "/libc.so.6"))
			libc = m;
	}
	CHECK(s && u && self && libc && vdso, "a symbolizer and an unwinder on one cache; own text, libc, vdso");
	if (!s || !u || !self || !libc || !vdso)
		goto out;
	CHECK(symbolizer__prepare(s, getpid(), self) == 0 && symbolizer__prepare(s, getpid(), libc) == 0,
	      "prepared");
	CHECK(objcache__opens(c) == 2, "the symbolizer looked for 2 files: %zu", objcache__opens(c));
	/* any walk sets up the process's modules: every executable file */
	struct unwind_regs r = { .valid = 1u << UNWIND_REG_IP | 1u << UNWIND_REG_SP };
	r.r[UNWIND_REG_IP] = a;
	r.r[UNWIND_REG_SP] = (uint64_t)(uintptr_t)&r;
	struct unwind_result res;
	int n = unwinder__unwind(u, getpid(), maps, &r, NULL, ips, 8, &res);
	CHECK(n >= 1, "unwound: %d", n);
	CHECK(objcache__opens(c) == files, "%zu executable files, looked for once each for both: %zu", files,
	      objcache__opens(c));
	int k = symbolizer__user(s, getpid(), vdso, getauxval(AT_SYSINFO_EHDR) + 0x10, false, fr, 8);
	CHECK(k >= 1 && !strcmp(fr[0].dso, "[vdso]"), "vdso symbolized");
	CHECK(vdso_copies() == copies + 1, "the vdso copied once: %d", vdso_copies() - copies);
	CHECK(objcache__sweep(c) == 0, "all used since the last sweep: none closed");
	CHECK(objcache__sweep(c) == 0, "the unwinder's process maps them all: none closed");
	unwinder__forget(u, getpid());
	size_t closed = objcache__sweep(c);
	CHECK(closed == files, "forgotten: the sweep closed all %zu: %zu", files, closed);
	printf("shared cache: %zu executable files, %zu looked for, %zu closed by the sweep\n", files,
	       objcache__opens(c), closed);
	k = symbolizer__user(s, getpid(), self, a, false, fr, 8);
	CHECK(k >= 1 && fr[k - 1].name && !strcmp(fr[k - 1].name, "pprobe_test_target"),
	      "opened again after the sweep: %s", k >= 1 ? fr[k - 1].name : "(none)");
	CHECK(objcache__opens(c) == files + 1, "once more: %zu", objcache__opens(c));
out:
	unwinder__delete(u);
	symbolizer__delete(s);
	CHECK(vdso_copies() == copies, "the cache went with the last of them: %d vdso copies", vdso_copies() - copies);
}

/* One file under three keys (its inode; its build id, as an MMAP2 record
 * gives it; another path to it, /lib for /usr/lib): each is looked for,
 * and all share the first entry's symbolizer and unwinder views; the
 * sweeps and the cache's end free each once (ASan builds check). */
static void test_file_aliases(struct maps *maps)
{
	const struct map *libc = NULL;
	for (size_t i = 0; i < maps__count(maps) && !libc; i++) {
		const struct map *m = maps__at(maps, i);
		if ((m->prot & PROT_EXEC) && map__is_file(m) && strstr(m->path, "/libc.so.6"))
			libc = m;
	}
	if (!libc || !libc->ino) {
		printf("skip file aliases: no libc mapping with an inode\n");
		return;
	}
	struct map by_id = *libc, by_path = *libc;
	int fd = open(libc->path, O_RDONLY | O_CLOEXEC);
	int n = fd >= 0 ? elf_fd__build_id(fd, by_id.build_id, sizeof(by_id.build_id)) : 0;
	if (fd >= 0)
		close(fd);
	CHECK(n > 0, "libc's build id read: %d bytes", n);
	if (n <= 0)
		return;
	by_id.build_id_size = (uint8_t)n;
	by_id.ino = 0;
	by_id.maj = by_id.min = 0;
	/* the other way to it: /lib <-> /usr/lib (a merged /usr), else the
	 * same path through /proc/self/root */
	char other[PATH_MAX];
	struct stat a, b;
	if (!strncmp(libc->path, "/usr/lib/", 9))
		snprintf(other, sizeof(other), "%s", libc->path + 4);
	else
		snprintf(other, sizeof(other), "/usr%s", libc->path);
	if (stat(other, &a) || stat(libc->path, &b) || a.st_ino != b.st_ino || a.st_dev != b.st_dev)
		snprintf(other, sizeof(other), "/proc/self/root%s", libc->path);
	by_path.path = other;

	struct objcache *c = objcache__new();
	struct objcache_entry *e1 = c ? objcache__entry(c, getpid(), libc, true, false) : NULL;
	struct objcache_entry *e2 = c ? objcache__entry(c, getpid(), &by_id, true, false) : NULL;
	struct objcache_entry *e3 = c ? objcache__entry(c, getpid(), &by_path, true, false) : NULL;
	CHECK(e1 && e2 && e3 && e1 != e2 && e1 != e3 && e2 != e3, "three keys, three entries");
	if (!e1 || !e2 || !e3)
		goto out;
	CHECK(objcache__opens(c) == 3, "each looked for: %zu", objcache__opens(c));
	struct elf_object *o1 = objcache__object(c, e2, &by_id);	/* an alias asked first */
	struct elf_object *o2 = objcache__object(c, e1, libc);
	struct elf_object *o3 = objcache__object(c, e3, &by_path);
	CHECK(o1 && o1->loaded && o1 == o2 && o1 == o3, "one symbolizer view for the three: %p %p %p", (void *)o1,
	      (void *)o2, (void *)o3);
	struct ufile *u1 = objcache__ufile(c, e3), *u2 = objcache__ufile(c, e1);
	CHECK(u1 && u1 == u2 && u1 == objcache__ufile(c, e2), "one unwinder view for the three");
	/* the entry aliased stays while an alias is used */
	objcache__sweep(c);
	objcache__mark(c, e3);
	CHECK(objcache__sweep(c) == 1, "used through an alias: only the unused alias closed");
	size_t closed = objcache__sweep(c);
	closed += objcache__sweep(c);	/* the aliased one goes after its alias */
	CHECK(closed == 2, "unused: both closed (%zu)", closed);
	CHECK(!objcache__entry(c, getpid(), libc, false, false) && !objcache__entry(c, getpid(), &by_path, false, false),
	      "none left");
	/* aliases to the end of the cache */
	e1 = objcache__entry(c, getpid(), libc, true, false);
	e2 = objcache__entry(c, getpid(), &by_id, true, false);
	CHECK(e1 && e2 && objcache__object(c, e2, &by_id) == objcache__object(c, e1, libc), "aliased again");
out:
	objcache__put(c);
}

static void test_vdso(struct symbolizer *s, struct maps *maps)
{
	const struct map *m = maps__find(maps, getauxval(AT_SYSINFO_EHDR));
	struct sym_frame fr[4];
	bool seen = false;

	if (!m) {
		printf("skip vdso: none\n");
		return;
	}
	for (uint64_t p = m->start; p < m->end; p += 4) {
		int n = symbolizer__user(s, getpid(), m, p, false, fr, 4);

		if (n >= 1 && fr[n - 1].name && strstr(fr[n - 1].name, "clock_gettime"))
			seen = true;
	}
	CHECK(seen, "vdso clock_gettime found");
}

static void test_jit(struct symbolizer *s)
{
	char fn[64];
	struct map m = { .start = 0x10000, .end = 0x20000, .prot = PROT_READ | PROT_EXEC, .path = "//anon" };
	struct sym_frame fr[2];
	FILE *f;

	snprintf(fn, sizeof(fn), "/tmp/perf-%d.map", (int)getpid());
	f = fopen(fn, "w");
	if (!f) {
		CHECK(0, "write %s", fn);
		return;
	}
	fprintf(f, "10000 40 jitted_one\n10040 20 Interpreter::run(int)\n");
	fclose(f);
	int n = symbolizer__user(s, getpid(), &m, 0x10040, true, fr, 2);
	CHECK(n == 1 && fr[0].jit && fr[0].name && !strcmp(fr[0].name, "jitted_one") && fr[0].offset == 0x3f &&
	      !strcmp(fr[0].dso, fn + 5), "jit return: %s %s+%#" PRIx64, fr[0].name, fr[0].dso, fr[0].offset);
	n = symbolizer__user(s, getpid(), &m, 0x10045, false, fr, 2);
	CHECK(n == 1 && fr[0].jit && fr[0].name && !strcmp(fr[0].name, "Interpreter::run(int)"), "jit 2: %s", fr[0].name);
	n = symbolizer__user(s, getpid(), &m, 0x10060, false, fr, 2);
	CHECK(n == 1 && !fr[0].jit && !fr[0].name && !strcmp(fr[0].dso, "//anon"), "past jit: %s", fr[0].name);
	unlink(fn);
}

/* What the test needs to know of an ELF file, read with libelf apart from
 * the code under test: e_type, e_entry, PT_INTERP, .symtab, the PT_LOAD
 * holding e_entry, and whether a .dynsym symbol covers e_entry. */
struct elf_facts {
	bool ok, interp, symtab, dynsym_covers;
	int type;
	uint64_t entry, seg_vaddr, seg_offset, seg_filesz;
};

static struct elf_facts elf_facts(const char *path)
{
	struct elf_facts f = { 0 };
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf;
	GElf_Ehdr eh;
	size_t phnum;

	if (fd < 0)
		return f;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && gelf_getehdr(elf, &eh) && !elf_getphdrnum(elf, &phnum)) {
		f.ok = true;
		f.type = eh.e_type;
		f.entry = eh.e_entry;
		for (size_t i = 0; i < phnum; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(elf, (int)i, &ph))
				continue;
			f.interp |= ph.p_type == PT_INTERP;
			if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X) && f.entry >= ph.p_vaddr &&
			    f.entry < ph.p_vaddr + ph.p_filesz) {
				f.seg_vaddr = ph.p_vaddr;
				f.seg_offset = ph.p_offset;
				f.seg_filesz = ph.p_filesz;
			}
		}
		Elf_Scn *scn = NULL;
		GElf_Shdr sh;
		while ((scn = elf_nextscn(elf, scn))) {
			Elf_Data *d;

			if (!gelf_getshdr(scn, &sh))
				continue;
			f.symtab |= sh.sh_type == SHT_SYMTAB;
			if (sh.sh_type != SHT_DYNSYM || !sh.sh_entsize || !(d = elf_getdata(scn, NULL)))
				continue;
			for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
				GElf_Sym sym;

				if (gelf_getsym(d, (int)i, &sym) && sym.st_shndx != SHN_UNDEF && sym.st_value <= f.entry &&
				    f.entry < sym.st_value + (sym.st_size ? sym.st_size : 1))
					f.dynsym_covers = true;
			}
		}
	}
	elf_end(elf);
	close(fd);
	return f;
}

/* A stripped executable's complete stacks end at e_entry, which has no
 * symbol: it is named _start (issue 12), at most over _start's own code,
 * where a library's e_entry (just the start of its .text) is not. */
static void test_stripped_entry(struct symbolizer *s, struct maps *maps)
{
	static const char *cands[] = { "/usr/bin/x86_64-linux-gnu-as", "/usr/bin/x86_64-linux-gnu-ld.bfd",
				       "/usr/bin/x86_64-linux-gnu-gcc-12", "/usr/bin/x86_64-linux-gnu-objdump" };
	const char *path = NULL;
	struct elf_facts f = { 0 };
	struct stat st;

	for (size_t i = 0; i < sizeof(cands) / sizeof(cands[0]) && !path; i++) {
		f = elf_facts(cands[i]);
		if (f.ok && !f.symtab && !f.dynsym_covers && f.entry && f.seg_filesz &&
		    (f.type == ET_EXEC || (f.type == ET_DYN && f.interp)))
			path = cands[i];
	}
	if (!path || stat(path, &st)) {
		printf("skip stripped entry: none of as, ld.bfd, gcc-12, objdump is a stripped executable here\n");
		return;
	}
	/* map its text as the kernel would: a PIE at a typical base */
	uint64_t base = f.type == ET_DYN ? 0x555555554000ull : 0;
	struct map m = { .start = base + (f.seg_vaddr & ~0xfffull), .pgoff = f.seg_offset & ~0xfffull,
			 .prot = PROT_READ | PROT_EXEC, .ino = st.st_ino, .path = (char *)path };
	m.end = m.start + ((f.seg_vaddr - (f.seg_vaddr & ~0xfffull) + f.seg_filesz + 0xfff) & ~0xfffull);
	const char *dso = strrchr(path, '/') + 1;
	struct sym_frame fr[4];
	int n = symbolizer__user(s, 0, &m, base + f.entry, false, fr, 4);

	printf("stripped entry: %s e_entry %#" PRIx64 " -> %s+%#" PRIx64 "\n", path, f.entry,
	       n >= 1 && fr[n - 1].name ? fr[n - 1].name : "?", n >= 1 ? fr[n - 1].offset : 0);
	CHECK(n >= 1 && fr[n - 1].name && !strcmp(fr[n - 1].name, "_start") && fr[n - 1].offset == 0 &&
	      !strcmp(fr[0].dso, dso), "%s e_entry: %s+%#" PRIx64 " in %s, want _start+0", path,
	      n >= 1 && fr[n - 1].name ? fr[n - 1].name : "?", n >= 1 ? fr[n - 1].offset : 0, n >= 1 ? fr[0].dso : "?");
	/* the outermost frame of a walk: a return address inside _start */
	n = symbolizer__user(s, 0, &m, base + f.entry + 0x10, true, fr, 4);
	CHECK(n >= 1 && fr[n - 1].name && !strcmp(fr[n - 1].name, "_start") && fr[n - 1].offset == 0xf,
	      "return into _start: %s", n >= 1 && fr[n - 1].name ? fr[n - 1].name : "?");
	/* _start is glibc's crt1 code (34 bytes on x86-64), not everything up to the next .dynsym symbol */
	uint64_t a = f.entry;
	while (a < f.entry + 4096) {
		n = symbolizer__user(s, 0, &m, base + a, false, fr, 4);
		if (n < 1 || !fr[n - 1].name || strcmp(fr[n - 1].name, "_start"))
			break;
		a++;
	}
	CHECK(a > f.entry + 16 && a <= f.entry + 64, "_start covers %" PRIu64 " bytes, want 17 to 64", a - f.entry);

	/* a library's e_entry (no PT_INTERP) is just some function: never _start */
	bool seen = false;
	for (size_t i = 0; i < maps__count(maps) && !seen; i++) {
		const struct map *lm = maps__at(maps, i);
		struct elf_facts lf;

		if (!lm->path || lm->path[0] != '/' || !strstr(lm->path, ".so") || !(lm->prot & PROT_EXEC) ||
		    strstr(lm->path, "/ld-linux"))	/* ld.so's e_entry is its _start */
			continue;
		lf = elf_facts(lm->path);
		if (!lf.ok || lf.type != ET_DYN || lf.interp || !lf.entry || !lf.seg_filesz)
			continue;
		struct elf_object *o = elf_object__open(lm->path, lm->path, NULL);
		const struct symtab_entry *e = o ? symtab__find(&o->syms, lf.entry) : NULL;

		seen = true;
		const char *en = e ? symtab__name(&o->syms, e) : NULL;
		printf("library entry: %s e_entry %#" PRIx64 " -> %s\n", lm->path, lf.entry, en ? en : "(none)");
		CHECK(o && o->loaded && (!en || strcmp(en, "_start")),
		      "%s: library e_entry named _start", lm->path);
		elf_object__delete(o);
	}
	if (!seen)
		printf("library entry: no library mapped here has a nonzero e_entry without PT_INTERP\n");
}

static void test_demangle(void)
{
	static const char *cases[][2] = {
		{ "_ZN9pprobe_wl4spinEld", "pprobe_wl::spin(long, double)" },
		{ "_ZN9pprobe_wl3AccIlE3addEli", "pprobe_wl::Acc<long>::add(long, int)" },
		{ "_ZNSt6vectorIiSaIiEE9push_backERKi", "std::vector<int, std::allocator<int> >::push_back(int const&)" },
		/* Rust legacy: the hash is dropped */
		{ "_ZN4core3fmt5write17h0123456789abcdefE", "core::fmt::write" },
		/* Rust v0 */
		{ "_RNvCs15kBYyAo9fc_7mycrate7example", "mycrate::example" },
		{ "main", NULL },
		{ "_Zfoo_not_valid", NULL },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *d = pprobe_demangle(cases[i][0]);

		CHECK((!d && !cases[i][1]) || (d && cases[i][1] && !strcmp(d, cases[i][1])),
		      "%s -> %s (want %s)", cases[i][0], d ? d : "NULL", cases[i][1] ? cases[i][1] : "NULL");
		free(d);
	}
}

/* The call instructions a return address may follow, as compilers and
 * ld.so emit them, and instructions that are no call. */
static void test_call_forms(void)
{
	static const struct {
		const char *what;
		uint8_t len, bytes[X86_CALL_MAX];
		bool call;
	} t[] = {
		{ "call rel32", 5, { 0xe8, 0x71, 0xfe, 0xff, 0xff }, true },
		{ "call *disp32(%rip)", 6, { 0xff, 0x15, 0xe5, 0x11, 0x03, 0x00 }, true },
		{ "call *%rax", 2, { 0xff, 0xd0 }, true },
		{ "call *%r12", 3, { 0x41, 0xff, 0xd4 }, true },
		{ "call *(%rbx) (ld.so's init loop)", 2, { 0xff, 0x13 }, true },
		{ "call *(%rax)", 2, { 0xff, 0x10 }, true },
		{ "call *(%r12)", 4, { 0x41, 0xff, 0x14, 0x24 }, true },
		{ "call *0x8(%r12)", 5, { 0x41, 0xff, 0x54, 0x24, 0x08 }, true },
		{ "call *0x18(%rbp)", 3, { 0xff, 0x55, 0x18 }, true },
		{ "call *0x100(%rax)", 6, { 0xff, 0x90, 0x00, 0x01, 0x00, 0x00 }, true },
		{ "call *table(,%rax,8)", 7, { 0xff, 0x14, 0xc5, 0x00, 0x10, 0x00, 0x00 }, true },
		{ "call *0x100(%r12)", 8, { 0x41, 0xff, 0x94, 0x24, 0x00, 0x01, 0x00, 0x00 }, true },
		{ "notrack call *%rax", 3, { 0x3e, 0xff, 0xd0 }, true },
		{ "jmp *%rax", 2, { 0xff, 0xe0 }, false },
		{ "jmp *disp32(%rip)", 6, { 0xff, 0x25, 0x92, 0x4c, 0x07, 0x00 }, false },
		{ "mov %rax,%rdi", 3, { 0x48, 0x89, 0xc7 }, false },
		{ "call *%rax; nop", 3, { 0xff, 0xd0, 0x90 }, false },
		{ "push %rbp", 1, { 0x55 }, false },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		uint8_t b[X86_CALL_MAX];
		memset(b, 0x90, sizeof(b));	/* nops before the instruction */
		memcpy(b + sizeof(b) - t[i].len, t[i].bytes, t[i].len);
		CHECK(x86_call_ends(b) == t[i].call, "%s: %s", t[i].what, t[i].call ? "a call" : "no call");
	}
}

/* symtab: names left in a file (symtab__add_ref), read back after
 * symtab__release; the radix sort (and the qsort a table spanning 4 GiB
 * gets) picks at each address the entry the rules prefer: higher prio,
 * sized, longer, then the name strcmp puts first. */
struct lazy_in {
	uint64_t start, size;
	uint32_t prio, name;	/* name: index into lazy_names */
	bool copy;
};
static const char *const lazy_names[] = { "alpha", "beta", "_ZN5LevelILi0EE3runEm", "delta", "epsilon", "zeta" };

/* leading underscores: fewer wins a tie (perf's rule: malloc, not __libc_malloc) */
static size_t lead_(const char *s)
{
	return strspn(s, "_");
}

static void lazy_table(uint64_t span, unsigned seed, const char *what)
{
	char path[] = "/tmp/pprobe-symtab.XXXXXX";
	int fd = mkstemp(path);
	uint64_t off[6];
	char blob[256];
	size_t len = 1;
	enum { N = 6000 };
	struct lazy_in *in = calloc(N, sizeof(*in));
	struct symtab t = { 0 };

	if (!CHECK(fd >= 0 && in, "%s: a names file", what))
		return;
	unlink(path);
	blob[0] = 0;
	for (int i = 0; i < 6; i++) {	/* "\0alpha\0beta\0...": a .strtab */
		off[i] = len;
		memcpy(blob + len, lazy_names[i], strlen(lazy_names[i]) + 1);
		len += strlen(lazy_names[i]) + 1;
	}
	CHECK(write(fd, blob, len) == (ssize_t)len, "%s: names written", what);
	srand(seed);
	for (int i = 0; i < N; i++) {
		struct lazy_in *e = &in[i];
		/* a few hundred addresses: many entries share one */
		e->start = 0x400000 + ((uint64_t)(rand() % 400) * (span / 400));
		e->size = rand() % 3 ? (uint64_t)(rand() % 64) : 0;
		e->prio = (uint32_t)(rand() % 3);
		e->name = (uint32_t)(rand() % 6);
		e->copy = rand() % 5 == 0;
		int r = e->copy ? symtab__add(&t, e->start, e->size, 0, lazy_names[e->name], strlen(lazy_names[e->name]),
					      e->prio)
				: symtab__add_ref(&t, e->start, e->size, 0, blob + off[e->name], off[e->name],
						  SYMTAB_SRC_FILE, e->prio);
		if (r)
			break;
	}
	CHECK(symtab__finish(&t) == 0, "%s: finished", what);
	symtab__release(&t, SYMTAB_SRC_FILE, fd);
	memset(blob, 'X', sizeof(blob));	/* the borrowed names are gone now */
	size_t bad_order = 0, bad_pick = 0, bad_name = 0, starts = 0;
	for (size_t k = 0; k < t.n; k++) {
		const struct symtab_entry *e = &t.v[k];
		if (k && t.v[k - 1].start >= e->start)
			bad_order++;
		/* the best input at e's address, by the rules */
		const struct lazy_in *best = NULL;
		for (int i = 0; i < N; i++) {
			const struct lazy_in *x = &in[i];
			if (x->start != e->start)
				continue;
			if (!best || x->prio != best->prio ? !best || x->prio > best->prio
			    : (x->size != 0) != (best->size != 0) ? x->size != 0
			    : x->size != best->size ? x->size > best->size
			    : lead_(lazy_names[x->name]) != lead_(lazy_names[best->name])
				? lead_(lazy_names[x->name]) < lead_(lazy_names[best->name])
			    : strcmp(lazy_names[x->name], lazy_names[best->name]) < 0)
				best = x;
		}
		starts++;
		const char *nm = symtab__name(&t, e);
		if (!best || e->prio != best->prio || e->sized != (best->size != 0) ||
		    (best->size && e->end != e->start + best->size))
			bad_pick++;
		if (!best || !nm || strcmp(nm, lazy_names[best->name]))
			bad_name++;
	}
	CHECK(starts > 300 && !bad_order, "%s: %zu addresses, in order (%zu out of it)", what, starts, bad_order);
	CHECK(!bad_pick && !bad_name, "%s: the preferred entry at each address (%zu wrong, %zu misnamed)", what,
	      bad_pick, bad_name);
	/* a name not read yet, its file shrunk under us: no name, never another */
	size_t unread = t.n;
	for (size_t k = 0; k < t.n; k++)
		if (t.v[k].src == SYMTAB_SRC_FILE && !t.v[k].name)
			unread = k;
	CHECK(unread == t.n, "%s: every name was read above", what);
	struct symtab_entry probe = t.v[0];
	probe.name = NULL;
	probe.src = SYMTAB_SRC_FILE;
	probe.name_off = off[2];
	CHECK(ftruncate(fd, (off_t)off[2] + 3) == 0, "%s: truncated", what);
	CHECK(symtab__name(&t, &probe) == NULL, "%s: a name cut by the file's end is no name", what);
	symtab__free(&t);
	free(in);
	close(fd);
}

static void test_symtab_lazy(void)
{
	lazy_table(1 << 20, 1, "radix");
	lazy_table(1ULL << 40, 2, "qsort (a 1 TiB span)");
}

/* A function whose early return's epilogue is bracketed by
 * .cfi_remember_state / .cfi_restore_state, as gcc emits them: after the
 * restore, libdw gives the restored row the start remembered with it
 * (cfi_rows_fn + 1), before the epilogue's own row at + 7. */
void cfi_rows_fn(long x);
__asm__(".text\n"
	".globl cfi_rows_fn\n"
	".type cfi_rows_fn, @function\n"
	"cfi_rows_fn:\n"
	".cfi_startproc\n"
	"pushq %rbx\n"			/* + 0 */
	".cfi_def_cfa_offset 16\n"
	".cfi_offset rbx, -16\n"
	"testq %rdi, %rdi\n"		/* + 1 */
	"je 1f\n"			/* + 4 */
	".cfi_remember_state\n"
	"popq %rbx\n"			/* + 6 */
	".cfi_def_cfa_offset 8\n"
	".cfi_restore rbx\n"
	"ret\n"			/* + 7 */
	"1:\n"
	".cfi_restore_state\n"
	"movq %rdi, %rax\n"		/* + 8 */
	"popq %rbx\n"			/* + 11 */
	".cfi_def_cfa_offset 8\n"
	"ret\n"			/* + 12 */
	".cfi_endproc\n"
	".size cfi_rows_fn, . - cfi_rows_fn\n");

/* The compiled rows (unwind_fast.c) of cfi_rows_fn, asked in an order
 * that finds a wrong row if a row is taken to hold from libdw's start:
 * the restored row first, then the epilogue's inside its stale range. */
static void test_cfi_rows(struct maps *maps)
{
	uint64_t fn = (uint64_t)(uintptr_t)cfi_rows_fn;
	const struct map *m = maps__find(maps, fn);
	int fd = m && m->path ? open(m->path, O_RDONLY | O_CLOEXEC) : -1;
	struct ufile *f = fd >= 0 ? ufile__open(m->path, NULL, fd, 0) : NULL;
	CHECK(f && !f->err, "the test binary's unwinding view: %s", m && m->path ? m->path : "no mapping");
	if (fd >= 0)
		close(fd);
	if (!f || f->err) {
		ufile__free(f);
		return;
	}
	uint64_t off = fn - m->start + m->pgoff, a = 0;
	for (int i = 0; i < f->nr_loads; i++)
		if (off >= f->loads[i].offset && off - f->loads[i].offset < f->loads[i].filesz)
			a = off - f->loads[i].offset + f->loads[i].vaddr;
	static const struct {
		unsigned at;
		int32_t cfa_off;
	} order[] = { { 8, 16 }, { 7, 8 }, { 12, 8 }, { 11, 16 }, { 1, 16 }, { 6, 16 }, { 0, 8 }, { 9, 16 } };
	for (int pass = 0; pass < 2; pass++) {	/* compiled, then found again */
		for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
			const struct cfi_row *row = ufile__cfi_row(f, a + order[i].at);
			CHECK(row && row->state == CFI_ROW_FAST && row->cfa_reg == UNWIND_REG_SP &&
			      row->cfa_off == order[i].cfa_off,
			      "pass %d: the row at cfi_rows_fn + %u: state %d, CFA sp + %d (want + %d)", pass,
			      order[i].at, row ? row->state : -1, row ? row->cfa_off : 0, order[i].cfa_off);
		}
	}
	ufile__free(f);
}

int main(void)
{
	struct symbolizer_opts o;
	struct symbolizer *s;
	struct maps *maps = maps__new();

	symbolizer_opts__init(&o);
	CHECK(o.inlines && o.demangle && !o.srcline, "defaults");
	s = symbolizer__new(&o);
	if (!s || !maps || maps__load_proc(maps, getpid()))
		return 1;
	test_demangle();
	test_call_forms();
	test_symtab_lazy();
	test_kallsyms(s);
	test_kallsyms_modules();
	test_kallsyms_cache();
	test_symtab_cache();
	test_jitmap_lines();
	test_self(s, maps);
	test_libc(s, maps);
	test_sweep(maps);
	test_shared_cache(maps);
	test_file_aliases(maps);
	test_vdso(s, maps);
	test_jit(s);
	test_stripped_entry(s, maps);
	test_cfi_rows(maps);
	CHECK(symbolizer__user(s, getpid(), NULL, 0, false, NULL, 0) == -EINVAL, "EINVAL");
	symbolizer__delete(s);
	symbolizer__delete(NULL);
	maps__delete(maps);
	return check_summary();
}
