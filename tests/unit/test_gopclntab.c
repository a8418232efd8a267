/* Go's function table (symbolize/gopclntab.c) against the truth of the same
 * program: tests/workloads/go_wl built here by the system's go (skipped,
 * saying so, without one) with its .symtab and stripped (-s -w), and
 * Debian's own stripped Go compiler when it is installed.
 *   - every Go function of .symtab is found at its address, with its name
 *     (assembly functions' ".abi0" suffix aside), in the unstripped build;
 *   - the stripped build lists as many functions;
 *   - the frame size is 0 at every entry, and main.mid (which calls and so
 *     has a frame) has one of at least 16 bytes inside;
 *   - every table cut short, or with a byte changed in its header, is
 *     refused or read without reading past it (ASan build);
 *   - the four layouts (Go 1.2, 1.16, 1.18, 1.20), from the fuzzer's seeds,
 *     read with their names, ranges and frame sizes. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <gelf.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../symbolize/gopclntab.h"
#include "check.h"

struct bin {
	int fd;
	void *map;
	size_t size;
	Elf *elf;
	struct gopclntab *t;
	const uint8_t *data;
	size_t tsize;
	uint64_t vaddr, text;
};

static bool bin_open(struct bin *b, const char *path)
{
	struct stat st;
	memset(b, 0, sizeof(*b));
	b->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (b->fd < 0 || fstat(b->fd, &st))
		return false;
	b->size = (size_t)st.st_size;
	b->map = mmap(NULL, b->size, PROT_READ, MAP_PRIVATE, b->fd, 0);
	if (b->map == MAP_FAILED)
		return false;
	b->elf = elf_memory(b->map, b->size);
	if (!b->elf || gopclntab__find(b->elf, &b->data, &b->tsize, &b->vaddr, &b->text))
		return false;
	b->t = gopclntab__new(b->data, b->tsize, b->vaddr, b->text);
	return b->t != NULL;
}

static void bin_close(struct bin *b)
{
	gopclntab__delete(b->t);
	if (b->elf)
		elf_end(b->elf);
	if (b->map && b->map != MAP_FAILED)
		munmap(b->map, b->size);
	if (b->fd > 0)
		close(b->fd);
}

static int count_cb(const struct gopclntab_func *f, void *arg)
{
	int64_t d;
	size_t *n = arg;
	n[0]++;
	if (gopclntab__pcsp(NULL, f->entry, &d) == 0)
		n[1]++;	/* a NULL table answers nothing */
	return 0;
}

static int entry_sp_cb(const struct gopclntab_func *f, void *arg)
{
	size_t *n = arg;
	int64_t d = -1;
	struct gopclntab_func g;
	const struct gopclntab *t = *(const struct gopclntab **)(n + 3);
	if (gopclntab__pcsp(t, f->entry, &d) == 0 && d == 0)
		n[0]++;
	if (gopclntab__lookup(t, f->entry, &g) == 0 && g.entry == f->entry && g.end == f->end && g.name == f->name)
		n[1]++;
	if (gopclntab__lookup(t, f->end - 1, &g) == 0 && g.entry == f->entry)
		n[2]++;
	return 0;
}

/* every entry's frame size 0, each function found by its first and last byte */
static size_t check_table(const char *what, const struct gopclntab *t)
{
	size_t n[4] = { 0 }, total[2] = { 0 };
	*(const struct gopclntab **)(n + 3) = t;
	gopclntab__foreach(t, count_cb, total);
	gopclntab__foreach(t, entry_sp_cb, n);
	printf("%s: %zu functions; %zu with frame size 0 at entry, %zu found by entry, %zu by last byte\n", what,
	       total[0], n[0], n[1], n[2]);
	CHECK(total[0] > 1000, "%s: %zu functions", what, total[0]);
	CHECK(total[1] == 0, "%s: a NULL table answered", what);
	CHECK(n[0] * 100 >= total[0] * 99, "%s: frame size 0 at entry for %zu of %zu", what, n[0], total[0]);
	CHECK(n[1] == total[0], "%s: found by entry: %zu of %zu", what, n[1], total[0]);
	CHECK(n[2] == total[0], "%s: found by last byte: %zu of %zu", what, n[2], total[0]);
	return total[0];
}

/* .symtab's Go functions against the table */
static void check_symtab(struct bin *b)
{
	size_t funcs = 0, same = 0;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(b->elf, scn));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < d->d_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *nm;
			struct gopclntab_func f;
			if (!gelf_getsym(d, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC || !s.st_size ||
			    !(nm = elf_strptr(b->elf, sh.sh_link, s.st_name)) || (strncmp(nm, "main.", 5) &&
										 strncmp(nm, "runtime.", 8)))
				continue;
			funcs++;
			size_t len = strlen(nm);
			if (len > 5 && !strcmp(nm + len - 5, ".abi0"))
				len -= 5;
			if (gopclntab__lookup(b->t, s.st_value, &f) == 0 && f.entry == s.st_value &&
			    strlen(f.name) == len && !strncmp(f.name, nm, len))
				same++;
			else if (funcs - same <= 3)
				printf("  %s at %#lx: table says %s\n", nm, (unsigned long)s.st_value,
				       gopclntab__lookup(b->t, s.st_value, &f) ? "nothing" : f.name);
		}
	}
	printf(".symtab: %zu main. and runtime. functions, %zu found at their address with their name\n", funcs, same);
	CHECK(funcs > 500, "%zu functions in .symtab", funcs);
	CHECK(same * 1000 >= funcs * 999, "%zu of %zu", same, funcs);
}

static void check_mid(struct bin *b)
{
	struct gopclntab_func f;
	int64_t d = -1;
	bool found = false;
	for (Elf_Scn *scn = NULL; !found && (scn = elf_nextscn(b->elf, scn));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		for (size_t i = 0; data && i < data->d_size / sh.sh_entsize && !found; i++) {
			GElf_Sym s;
			const char *nm;
			if (gelf_getsym(data, (int)i, &s) && (nm = elf_strptr(b->elf, sh.sh_link, s.st_name)) &&
			    !strcmp(nm, "main.mid")) {
				found = CHECK(gopclntab__lookup(b->t, s.st_value + 4, &f) == 0, "main.mid not found");
				int64_t most = -1;
				for (uint64_t pc = f.entry; found && pc < f.end; pc++)
					if (gopclntab__pcsp(b->t, pc, &d) == 0 && d > most)
						most = d;
				if (found)
					CHECK(most >= 16, "main.mid's largest frame size: %lld", (long long)most);
			}
		}
	}
	CHECK(found, "main.mid in .symtab");
}

/* cut short and corrupted copies: refused, or read inside their bytes */
static void check_hostile(const struct bin *b)
{
	size_t sizes[] = { 0, 8, 16, 40, 64, 100, 4096, b->tsize / 2, b->tsize - 1 };
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		if (sizes[k] > b->tsize)
			continue;
		uint8_t *cp = malloc(sizes[k] ? sizes[k] : 1);
		memcpy(cp, b->data, sizes[k]);
		struct gopclntab *t = gopclntab__new(cp, sizes[k], b->vaddr, b->text);
		size_t n[4] = { 0 };
		*(const struct gopclntab **)(n + 3) = t;
		gopclntab__foreach(t, entry_sp_cb, n);
		gopclntab__delete(t);
		for (int byte = 8; byte < 64 && (size_t)byte < sizes[k]; byte += 3) {
			cp[byte] ^= 0x5a;
			t = gopclntab__new(cp, sizes[k], b->vaddr, b->text);
			*(const struct gopclntab **)(n + 3) = t;
			gopclntab__foreach(t, entry_sp_cb, n);
			gopclntab__delete(t);
			cp[byte] ^= 0x5a;
		}
		free(cp);
	}
	CHECK(true, "hostile copies read");
}

static int layout_cb(const struct gopclntab_func *f, void *arg)
{
	size_t *n = arg;
	int64_t d0 = -1, d8 = -1, d26 = -1;
	const struct gopclntab *t = *(const struct gopclntab **)(n + 1);
	if (f->end - f->entry == 0x40 && !strncmp(f->name, "main.f", 6) &&
	    !gopclntab__pcsp(t, f->entry, &d0) && !gopclntab__pcsp(t, f->entry + 8, &d8) &&
	    !gopclntab__pcsp(t, f->entry + 26, &d26) && d0 == 0 && d8 == 16 && d26 == 0)
		n[0]++;
	return 0;
}

/* the four layouts, as tests/fuzz/make-gopclntab-seeds.sh writes them */
static void check_layouts(void)
{
	const char *vers[] = { "12", "116", "118", "120" };
	for (int i = 0; i < 4; i++) {
		char path[128];
		uint8_t buf[4096];
		snprintf(path, sizeof(path), "../fuzz/corpus/gopclntab/layout-go%s", vers[i]);
		FILE *f = fopen(path, "rb");
		size_t len = f ? fread(buf, 1, sizeof(buf), f) : 0;
		if (f)
			fclose(f);
		struct gopclntab *t = gopclntab__new(buf, len, 0, 0x401000);
		size_t n[2] = { 0 };
		*(const struct gopclntab **)(n + 1) = t;
		gopclntab__foreach(t, layout_cb, n);
		CHECK(n[0] == 8, "%s: %zu of 8 functions with their names, ranges and frame sizes", path, n[0]);
		gopclntab__delete(t);
	}
}

int main(void)
{
	char dir[] = "/tmp/pprobe-gopclntab.XXXXXX", cmd[1024], path[512];
	struct bin b;

	elf_version(EV_CURRENT);
	check_layouts();
	if (system("command -v go >/dev/null 2>&1"))
		return check_skip("no go toolchain (Debian's golang-go) to build tests/workloads/go_wl");
	if (!mkdtemp(dir))
		return check_skip("no temporary directory");
	snprintf(cmd, sizeof(cmd),
		 "cp -r ../workloads/go_wl %s/src && cd %s/src && export GOCACHE=%s/cache GOFLAGS=-mod=mod && "
		 "go build -o ../g . && go build -ldflags='-s -w' -o ../gs .", dir, dir, dir);
	if (system(cmd)) {
		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		(void)!system(cmd);
		return CHECK_FAIL("go build of tests/workloads/go_wl failed"), check_summary();
	}
	snprintf(path, sizeof(path), "%s/g", dir);
	size_t with = 0, stripped = 0;
	if (CHECK(bin_open(&b, path), "%s: no table", path)) {
		with = check_table("go_wl", b.t);
		check_symtab(&b);
		check_mid(&b);
		check_hostile(&b);
	}
	bin_close(&b);
	snprintf(path, sizeof(path), "%s/gs", dir);
	if (CHECK(bin_open(&b, path), "%s: no table", path))
		stripped = check_table("go_wl -s -w", b.t);
	bin_close(&b);
	CHECK(with == stripped, "stripped: %zu functions, with .symtab %zu", stripped, with);
	glob_t g;
	if (!glob("/usr/lib/go-*/pkg/tool/linux_amd64/compile", 0, NULL, &g) && g.gl_pathc) {
		if (CHECK(bin_open(&b, g.gl_pathv[0]), "%s: no table", g.gl_pathv[0]))
			check_table(g.gl_pathv[0], b.t);
		bin_close(&b);
	} else {
		printf("no Debian Go compiler: its table not read\n");
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	(void)!system(cmd);
	return check_summary();
}
