/* maps.h: MAP_FIXED-style insert, munmap-style remove, clone, /proc loader.
 * The randomized part checks every operation against a page-array model. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <dirent.h>

#include "pprobe/maps.h"
#include "../../symbolize/sym_internal.h"

#include "check.h"

static struct map mk(uint64_t s, uint64_t e, uint64_t off, const char *path)
{
	struct map m = { .start = s, .end = e, .pgoff = off, .prot = PROT_READ, .path = (char *)path };
	return m;
}

static void expect(const struct maps *maps, int line, size_t n, const uint64_t *se, const char **paths, const uint64_t *offs)
{
	if (!CHECK(maps__count(maps) == n, "line %d: count %zu, want %zu", line, maps__count(maps), n))
		return;
	for (size_t i = 0; i < n; i++) {
		const struct map *m = maps__at(maps, i);
		CHECK(m->start == se[2 * i] && m->end == se[2 * i + 1] && !strcmp(m->path, paths[i]) &&
		      (!offs || m->pgoff == offs[i]),
		      "line %d: map %zu = [%#" PRIx64 ",%#" PRIx64 ") off %#" PRIx64 " %s",
		      line, i, m->start, m->end, m->pgoff, m->path);
	}
}

static void test_fixed(void)
{
	struct maps *maps = maps__new();
	struct map a = mk(0x1000, 0x5000, 0, "/a"), b = mk(0x2000, 0x3000, 0x7000, "/b");

	CHECK(maps, "maps__new");
	CHECK(maps__insert(maps, &a) == 0, "insert a");
	CHECK(maps__insert(maps, &(struct map){ .start = 5, .end = 5 }) == -EINVAL, "empty range");
	uint64_t g = maps__generation(maps);
	/* split */
	CHECK(maps__insert(maps, &b) == 0, "insert b");
	CHECK(maps__generation(maps) > g, "generation bumped");
	expect(maps, __LINE__, 3, (uint64_t[]){ 0x1000, 0x2000, 0x2000, 0x3000, 0x3000, 0x5000 },
	       (const char *[]){ "/a", "/b", "/a" }, (uint64_t[]){ 0, 0x7000, 0x2000 });
	/* covers the tail of b, all of the second a piece, none beyond */
	struct map c = mk(0x2800, 0x6000, 0, "/c");
	CHECK(maps__insert(maps, &c) == 0, "insert c");
	expect(maps, __LINE__, 3, (uint64_t[]){ 0x1000, 0x2000, 0x2000, 0x2800, 0x2800, 0x6000 },
	       (const char *[]){ "/a", "/b", "/c" }, (uint64_t[]){ 0, 0x7000, 0 });
	/* covers head of a piece: front trim moves pgoff */
	struct map d = mk(0x0, 0x1800, 0, "/d");
	CHECK(maps__insert(maps, &d) == 0, "insert d");
	expect(maps, __LINE__, 4, (uint64_t[]){ 0, 0x1800, 0x1800, 0x2000, 0x2000, 0x2800, 0x2800, 0x6000 },
	       (const char *[]){ "/d", "/a", "/b", "/c" }, (uint64_t[]){ 0, 0x800, 0x7000, 0 });
	/* find */
	CHECK(maps__find(maps, 0x1800) && !strcmp(maps__find(maps, 0x1800)->path, "/a"), "find boundary");
	CHECK(maps__find(maps, 0x17ff) && !strcmp(maps__find(maps, 0x17ff)->path, "/d"), "find end-1");
	CHECK(!maps__find(maps, 0x6000), "find past end");
	/* exact replacement */
	struct map e = mk(0x2000, 0x2800, 0, "/e");
	CHECK(maps__insert(maps, &e) == 0, "insert e");
	CHECK(!strcmp(maps__find(maps, 0x2000)->path, "/e"), "exact replace");
	CHECK(maps__count(maps) == 4, "count after exact replace");
	/* clone is independent */
	struct maps *cl = maps__clone(maps);
	CHECK(cl && maps__count(cl) == 4, "clone");
	maps__remove(maps, 0x1000, 0x3000);	/* hole in d,a,e and start of c */
	expect(maps, __LINE__, 2, (uint64_t[]){ 0, 0x1000, 0x3000, 0x6000 },
	       (const char *[]){ "/d", "/c" }, (uint64_t[]){ 0, 0x800 });
	maps__remove(maps, 0x4000, 0x5000);	/* split by remove */
	expect(maps, __LINE__, 3, (uint64_t[]){ 0, 0x1000, 0x3000, 0x4000, 0x5000, 0x6000 },
	       (const char *[]){ "/d", "/c", "/c" }, (uint64_t[]){ 0, 0x800, 0x2800 });
	expect(cl, __LINE__, 4, (uint64_t[]){ 0, 0x1800, 0x1800, 0x2000, 0x2000, 0x2800, 0x2800, 0x6000 },
	       (const char *[]){ "/d", "/a", "/e", "/c" }, NULL);
	maps__clear(maps);
	CHECK(maps__count(maps) == 0 && !maps__find(maps, 0), "clear");
	maps__delete(cl);
	maps__delete(maps);
	maps__delete(NULL);
}

/* Page model: owner id per page (0 = unmapped) and the page's file offset. */
#define PAGES 64
static int model[PAGES];
static uint64_t model_off[PAGES];

static void test_random(void)
{
	struct maps *maps = maps__new();
	char names[256][8];
	unsigned seed = 12345;

	memset(model, 0, sizeof(model));
	for (int iter = 0; iter < 20000; iter++) {
		int s = rand_r(&seed) % PAGES, len = 1 + rand_r(&seed) % 12, e = s + len;
		if (e > PAGES)
			e = PAGES;
		if (rand_r(&seed) % 3) {
			int id = 1 + iter % 255;
			snprintf(names[id], sizeof(names[id]), "/%d", id);
			struct map m = mk((uint64_t)s << 12, (uint64_t)e << 12, (uint64_t)(id * 100) << 12, names[id]);
			if (!CHECK(!maps__insert(maps, &m), "iter %d: insert [%d,%d)", iter, s, e))
				break;
			for (int p = s; p < e; p++) {
				model[p] = id;
				model_off[p] = (uint64_t)(id * 100 + p - s) << 12;
			}
		} else {
			maps__remove(maps, (uint64_t)s << 12, (uint64_t)e << 12);
			for (int p = s; p < e; p++)
				model[p] = 0;
		}
		/* compare: every page, and the array is sorted and disjoint */
		for (int p = 0; p < PAGES; p++) {
			const struct map *m = maps__find(maps, ((uint64_t)p << 12) + 7);
			int id = m ? atoi(m->path + 1) : 0;
			uint64_t off = m ? m->pgoff + (((uint64_t)p << 12) - m->start) : 0;
			if (id != model[p] || (m && off != model_off[p])) {
				CHECK_FAIL("iter %d page %d: have %d off %#" PRIx64 ", want %d off %#" PRIx64,
					   iter, p, id, off, model[p], model_off[p]);
				goto out;
			}
		}
		for (size_t i = 0; i + 1 < maps__count(maps); i++)
			if (maps__at(maps, i)->end > maps__at(maps, i + 1)->start ||
			    maps__at(maps, i)->start >= maps__at(maps, i)->end) {
				CHECK_FAIL("iter %d: unsorted or empty at %zu", iter, i);
				goto out;
			}
	}
out:
	maps__delete(maps);
}

static int count_lines(void)
{
	char line[8192];
	int n = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && fgets(line, sizeof(line), f))
		n++;
	if (f)
		fclose(f);
	return n;
}

static void test_proc(void)
{
	struct maps *maps = maps__new();
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int stackvar = 0, lines = 0;

	exe[n > 0 ? n : 0] = 0;
	/* Sanitizers map memory as they go: retry until the line count before
	 * and after the load agree, then the count must be exact. */
	for (int tries = 0; tries < 20; tries++) {
		int before = count_lines();
		CHECK(maps__load_proc(maps, getpid()) == 0, "load self");
		lines = count_lines();
		if (before == lines)
			break;
	}
	CHECK((int)maps__count(maps) == lines, "count %zu vs %d lines", maps__count(maps), lines);
	const struct map *m = maps__find(maps, (uint64_t)(uintptr_t)&test_proc);
	CHECK(m && !strcmp(m->path, exe) && (m->prot & PROT_EXEC) && map__is_file(m) && m->ino,
	      "own code in %s", m ? m->path : "(none)");
	m = maps__find(maps, (uint64_t)(uintptr_t)&stackvar);
	CHECK(m && !strcmp(m->path, "[stack]") && !map__is_file(m), "stack var in %s", m ? m->path : "(none)");
	m = NULL;
	for (size_t i = 0; i < maps__count(maps); i++)
		if (strstr(maps__at(maps, i)->path, "/libc.so") && (maps__at(maps, i)->prot & PROT_EXEC))
			m = maps__at(maps, i);
	CHECK(m && m->pgoff > 0 && maps__find(maps, m->start + 100) == m, "libc text with offset: %s", m ? m->path : "(none)");
	CHECK(maps__load_proc(maps, 0x7ffffff0) == -ESRCH, "no such pid");

	/* an anonymous map and a path with a space */
	char tmpl[] = "/tmp/pprobe maps XXXXXX";
	int fd = mkstemp(tmpl);
	CHECK(fd >= 0, "mkstemp");
	if (fd >= 0 && ftruncate(fd, 8192) == 0) {
		void *p = mmap(NULL, 8192, PROT_READ, MAP_SHARED, fd, 4096 * 0);
		unlink(tmpl);
		CHECK(maps__load_proc(maps, getpid()) == 0, "reload");
		m = maps__find(maps, (uint64_t)(uintptr_t)p);
		char want[64];
		snprintf(want, sizeof(want), "%s (deleted)", tmpl);
		CHECK(m && !strcmp(m->path, want) && (m->flags & MAP_SHARED), "deleted path %s", m ? m->path : "(none)");
		munmap(p, 8192);
		close(fd);
	}
	maps__delete(maps);
}

/* maps__proc_vma asks for one mapping (PROCMAP_QUERY on 6.11+, the text
 * before): the same bounds and protection as the whole table read, for a
 * stack variable, our code, a fresh anonymous mapping carved in three by
 * mprotect, and -ENOENT in the hole after it. */
static void test_proc_vma(void)
{
	struct maps *maps = maps__new();
	int stackvar = 0;
	long pg = sysconf(_SC_PAGESIZE);
	char *a = mmap(NULL, (size_t)pg * 4, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t s, e;
	uint32_t prot;

	if (!CHECK(maps && a != MAP_FAILED, "mmap"))
		return;
	/* a guard after it, so the hole is ours: unmap the last page */
	munmap(a + 3 * pg, (size_t)pg);
	mprotect(a + pg, (size_t)pg, PROT_READ);
	uint64_t addrs[] = { (uint64_t)(uintptr_t)&stackvar, (uint64_t)(uintptr_t)&test_proc_vma,
			     (uint64_t)(uintptr_t)a, (uint64_t)(uintptr_t)(a + pg + 8),
			     (uint64_t)(uintptr_t)(a + 2 * pg + 100) };
	for (size_t i = 0; i < sizeof(addrs) / sizeof(addrs[0]); i++) {
		int err = maps__proc_vma(getpid(), addrs[i], &s, &e, &prot);
		CHECK(maps__load_proc(maps, getpid()) == 0, "load self");
		const struct map *m = maps__find(maps, addrs[i]);
		CHECK(!err && m && s == m->start && e == m->end && prot == m->prot,
		      "address %zu: %d %" PRIx64 "-%" PRIx64 " prot %u vs %" PRIx64 "-%" PRIx64 " prot %u", i, err,
		      s, e, prot, m ? m->start : 0, m ? m->end : 0, m ? m->prot : 99u);
	}
	CHECK(maps__proc_vma(getpid(), (uint64_t)(uintptr_t)(a + pg + 8), &s, &e, &prot) == 0 &&
	      s == (uint64_t)(uintptr_t)(a + pg) && e == s + (uint64_t)pg && prot == PROT_READ,
	      "the read-only page alone");
	/* the hole, unless something was mapped there since (the table says) */
	CHECK(maps__load_proc(maps, getpid()) == 0, "load self");
	if (!maps__find(maps, (uint64_t)(uintptr_t)(a + 3 * pg))) {
		int err = maps__proc_vma(getpid(), (uint64_t)(uintptr_t)(a + 3 * pg), &s, &e, &prot);
		CHECK(err == -ENOENT, "the unmapped page: %d", err);
	}
	CHECK(maps__proc_vma(0x7ffffff0, 4096, &s, &e, &prot) == -ESRCH, "no such pid");
	/* a zombie: its /proc is there, its memory gone (as a process whose
	 * samples are unwound after it exited): the same answer */
	pid_t z = fork();
	if (z == 0)
		_exit(0);
	if (CHECK(z > 0, "fork")) {
		char fn[64], st[256] = "";
		snprintf(fn, sizeof(fn), "/proc/%d/stat", (int)z);
		for (int tries = 0; tries < 500 && !strstr(st, ") Z"); tries++) {
			FILE *f = fopen(fn, "re");
			if (f) {
				if (!fgets(st, sizeof(st), f))
					st[0] = 0;
				fclose(f);
			}
			usleep(10000);
		}
		int err = maps__proc_vma(z, (uint64_t)(uintptr_t)&test_proc_vma, &s, &e, &prot);
		CHECK(strstr(st, ") Z") && err == -ESRCH, "a zombie's mapping: %d (%s)", err, st);
		waitpid(z, NULL, 0);
	}
	munmap(a, (size_t)pg * 3);
	maps__delete(maps);
}

/* The parser as it was (sscanf), the reference for the hand-written one. */
static int ref_parse(char *line, struct map *m)
{
	char perms[8] = "";
	unsigned long long start, end, pgoff, ino;
	unsigned maj, min;
	int pos = 0;

	memset(m, 0, sizeof(*m));
	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &pgoff, &maj, &min, &ino, &pos) < 7)
		return -EINVAL;
	m->start = start, m->end = end, m->pgoff = pgoff, m->maj = maj, m->min = min, m->ino = ino;
	m->prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) | (perms[2] == 'x' ? PROT_EXEC : 0);
	m->flags = perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
	char *path = line + pos;
	size_t len = strlen(path);
	while (len && (path[len - 1] == '\n' || path[len - 1] == ' '))
		path[--len] = 0;
	m->path = len ? path : "//anon";
	return 0;
}

static bool same_parse(const char *text)
{
	char a[4096], b[4096];
	struct map x, y;
	snprintf(a, sizeof(a), "%s", text);
	snprintf(b, sizeof(b), "%s", text);
	int ra = map__parse_line(a, &x), rb = ref_parse(b, &y);
	return ra == rb && (ra || (x.start == y.start && x.end == y.end && x.pgoff == y.pgoff && x.maj == y.maj &&
				   x.min == y.min && x.ino == y.ino && x.prot == y.prot && x.flags == y.flags &&
				   !strcmp(x.path, y.path)));
}

/* The hand-written maps parser against sscanf's: every line of every
 * process's maps on this machine, and odd lines; the scanners' edges. */
static void test_parse_same(void)
{
	static const char *odd[] = {
		"00400000-00401000 r-xp 00000000 08:01 1234 /tmp/a file (deleted)\n",
		"7fff0000-7fff1000 rw-s 00000000 00:00 0\n",
		"ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]\n",
		"7f0000000000-7f0000001000 r 0 8:1 5 /short/perms\n",
		"7f0000000000-7f0000001000 r-xp 0 fe:00 332835   /usr/lib/x86_64-linux-gnu/libc.so.6   \n",
		"0x1000-0x2000 r-xp 0x10 08:01 7 /hex/prefixed\n",
		"1000-2000\tr-xp\t0 8:1 7\t/tabs\n",
		"1000-2000 r-xp 0 8:1 99999999999999999999999 /inode/past/64/bits\n",
		"1000-2000 r-xp 0 8:1\n",
		"1000 2000 r-xp 0 8:1 7 /no/dash\n",
		"-2000 r-xp 0 8:1 7 /no/start\n",
		"1000-2000 r-xp 0 8-1 7 /no/colon\n",
		"\n", "",
	};
	for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++)
		CHECK(same_parse(odd[i]), "as sscanf: %s", odd[i]);

	size_t lines = 0, differ = 0;
	DIR *d = opendir("/proc");
	struct dirent *de;
	while (d && (de = readdir(d))) {
		char fn[300], *line = NULL;
		size_t cap = 0;
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(fn, sizeof(fn), "/proc/%s/maps", de->d_name);
		FILE *f = fopen(fn, "re");
		while (f && getline(&line, &cap, f) > 0) {
			lines++;
			if (!same_parse(line) && differ++ < 5)
				CHECK_FAIL("differs from sscanf: %s", line);
		}
		if (f)
			fclose(f);
		free(line);
	}
	if (d)
		closedir(d);
	printf("maps parser: %zu lines of this machine's processes, %zu differ from sscanf\n", lines, differ);
	CHECK(lines > 100 && !differ, "%zu lines, %zu differ", lines, differ);

	uint64_t v = 0;
	const char *e;
	CHECK((e = pp_scan_hex("  ffffffffffffffff-", &v)) && *e == '-' && v == UINT64_MAX, "16 digits");
	CHECK((e = pp_scan_hex("1ffffffffffffffff ", &v)) && *e == ' ' && v == UINT64_MAX, "past 64 bits: the most");
	CHECK((e = pp_scan_hex("0x1fX", &v)) && *e == 'X' && v == 0x1f, "0x taken");
	CHECK((e = pp_scan_hex("0xg", &v)) && *e == 'x' && v == 0, "0x without a digit: the 0 alone");
	CHECK(!pp_scan_hex("  -1", &v) && !pp_scan_hex("", &v) && !pp_scan_hex("g", &v), "no digit: NULL");
	CHECK((e = pp_scan_dec("18446744073709551615 ", &v)) && v == UINT64_MAX && *e == ' ', "UINT64_MAX");
	CHECK((e = pp_scan_dec("18446744073709551616", &v)) && v == UINT64_MAX && !*e, "past 64 bits");
	CHECK((e = pp_scan_dec("\t42a", &v)) && v == 42 && *e == 'a', "blanks, then digits");
	CHECK(!pp_scan_dec("a1", &v), "no digit: NULL");
}

int main(void)
{
	test_parse_same();
	test_fixed();
	test_random();
	test_proc();
	test_proc_vma();
	return check_summary();
}
