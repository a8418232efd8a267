/* probe_finder.h: the filter, and the resolver the probe-creation code
 * uses (file offsets, %return, clones, inlined copies, instruction checks)
 * on the inspect_wl_O2 workload. The -V/-L text is covered by
 * tests/e2e/inspect.sh. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pprobe/probe_finder.h"
#include "pprobe/sym_table.h"

#include "check.h"

/* The file offset of vaddr through the section headers (the finder uses
 * the program headers): an independent answer. */
static int64_t section_offset(const char *path, uint64_t vaddr)
{
	int fd = open(path, O_RDONLY);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	int64_t ret = -1;
	for (Elf_Scn *s = elf_nextscn(e, NULL); s; s = elf_nextscn(e, s)) {
		GElf_Shdr sh;
		if (gelf_getshdr(s, &sh) && sh.sh_type == SHT_PROGBITS && vaddr >= sh.sh_addr &&
		    vaddr < sh.sh_addr + sh.sh_size)
			ret = (int64_t)(sh.sh_offset + vaddr - sh.sh_addr);
	}
	elf_end(e);
	close(fd);
	return ret;
}

static void filters(void)
{
	CHECK(probe_filter__match(PROBE_FILTER_DEFAULT, "malloc") == 1, "malloc");
	CHECK(probe_filter__match(PROBE_FILTER_DEFAULT, "_IO_new_fopen") == 0, "_IO_new_fopen");
	CHECK(probe_filter__match(PROBE_FILTER_DEFAULT, "puts@plt") == 0, "puts@plt");
	CHECK(probe_filter__match("a* | b*", "bar") == 1, "or");
	CHECK(probe_filter__match("!(a* | b*) & *z", "quiz") == 1, "not/and/parens");
	CHECK(probe_filter__match("!(a* | b*) & *z", "baz") == 0, "not/and/parens 2");
	CHECK(probe_filter__match("(a*", "a") == -EINVAL, "unbalanced");
	CHECK(probe_filter__match("a & ", "a") == -EINVAL, "dangling &");
}

static void resolve(const char *wl)
{
	char err[512];
	struct probe_finder_opts o = { .binary = wl };
	struct probe_finder *pf = probe_finder__new(&o, err, sizeof(err));
	struct pf_points *p = NULL;
	if (!pf) {
		CHECK(pf, "open %s: %s", wl, err);
		return;
	}
	CHECK(probe_finder__has_dwarf(pf), "%s", probe_finder__strerror(pf));

	/* FUNC: one out-of-line copy; its file offset agrees with the sections */
	CHECK(!probe_finder__find(pf, "sum_to", 0, &p) && p->n == 1, "sum_to: %s", probe_finder__strerror(pf));
	if (p && p->n == 1) {
		CHECK(!strcmp(p->pts[0].symbol, "sum_to") && p->pts[0].sym_offset == 0, "%s+%" PRIu64,
		      p->pts[0].symbol, p->pts[0].sym_offset);
		int64_t so = section_offset(wl, p->pts[0].addr);
		CHECK(so >= 0 && (uint64_t)so == p->pts[0].file_offset, "file offset %#" PRIx64 " vs %#" PRIx64,
		      p->pts[0].file_offset, (uint64_t)so);
		CHECK(!p->pts[0].retprobe && !p->pts[0].inlined, "flags");
	}
	pf_points__delete(p);
	p = NULL;

	/* %return */
	CHECK(!probe_finder__find(pf, "sum_to%return", 0, &p) && p->n == 1 && p->pts[0].retprobe, "%%return");
	pf_points__delete(p);
	p = NULL;

#ifndef __clang__
	/* GCC-specific code generation (the workload is built by the same CC
	 * as this test): a clone under its source name and under its symbol */
	CHECK(!probe_finder__find(pf, "scale", 0, &p) && p->n == 1 && !strcmp(p->pts[0].symbol, "scale.constprop.0"),
	      "scale -> %s", p && p->n ? p->pts[0].symbol : probe_finder__strerror(pf));
	pf_points__delete(p);
	p = NULL;
	CHECK(!probe_finder__find(pf, "scale.constprop.0+0", 0, &p) && p->n == 1, "scale.constprop.0+0");
	pf_points__delete(p);
	p = NULL;

	/* an inlined-only function: two copies with call sites; no %return */
	CHECK(!probe_finder__find(pf, "clamp", 0, &p) && p->n == 2, "clamp copies: %d", p ? p->n : -1);
	if (p && p->n == 2) {
		CHECK(p->pts[0].inlined && p->pts[0].call_line == 37 && !strcmp(p->pts[0].caller, "rect_area"),
		      "first copy: %d %s", p->pts[0].call_line, p->pts[0].caller);
		CHECK(p->pts[1].inlined && p->pts[1].call_line == 38, "second copy: %d", p->pts[1].call_line);
	}
	pf_points__delete(p);
	p = NULL;
	CHECK(probe_finder__find(pf, "clamp%return", 0, &p) == -EINVAL, "clamp%%return must be refused");
	CHECK(probe_finder__find(pf, "clamp", PF_NO_INLINES, &p) == -ENOENT, "clamp --no-inlines");

	/* offsets: the middle of an instruction refused */
	CHECK(probe_finder__find(pf, "sum_to+1", 0, &p) == -EINVAL, "sum_to+1 is mid-instruction");
	CHECK(strstr(probe_finder__strerror(pf), "middle of the instruction"), "%s", probe_finder__strerror(pf));
#else
	printf("SKIP GCC clone/inline checks: built with clang\n");
#endif
	/* a function without parameters or locals: no variables, no error */
	p = NULL;
	CHECK(!probe_finder__find(pf, "next_value", PF_VARS, &p) && p->n == 1 && p->pts[0].nvars == 0,
	      "next_value -V: %s", probe_finder__strerror(pf));
	pf_points__delete(p);
	p = NULL;
	CHECK(probe_finder__find(pf, "no_such_function", 0, &p) == -ENOENT, "missing function");
	CHECK(probe_finder__find(pf, "sum_to+100000", 0, &p) == -EINVAL, "past the end");
	probe_finder__delete(pf);
}

/* An lld-linked PIE: text vaddr != file offset (symbolize.cmake's sym_lld). */
static void lld_offsets(const char *wl)
{
	char err[512];
	struct probe_finder_opts o = { .binary = wl };
	struct probe_finder *pf = probe_finder__new(&o, err, sizeof(err));
	struct pf_points *p = NULL;
	CHECK(pf, "open %s: %s", wl, err);
	if (!pf)
		return;
	CHECK(!probe_finder__find(pf, "main", 0, &p) && p->n == 1, "main: %s", probe_finder__strerror(pf));
	if (p && p->n == 1) {
		int64_t so = section_offset(wl, p->pts[0].addr);
		CHECK(p->pts[0].addr != p->pts[0].file_offset, "lld layout expected: vaddr %#" PRIx64, p->pts[0].addr);
		CHECK(so >= 0 && (uint64_t)so == p->pts[0].file_offset, "file offset %#" PRIx64 " vs %#" PRIx64,
		      p->pts[0].file_offset, (uint64_t)so);
	}
	pf_points__delete(p);
	probe_finder__delete(pf);
}

/* pprobe/sym_table.h, which the finder's -F and symbol lookups read:
 * kallsyms text symbols of one module (or of the kernel), aliases kept,
 * each up to the next. */
static void sym_tables(void)
{
	char path[] = "/tmp/test_probe_finder.XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		CHECK(0, "mkstemp: %s", strerror(errno));
		return;
	}
	fputs("ffffffff81000100 T start_kernel\n"
	      "ffffffff81000000 t early_init\n"
	      "ffffffff81000000 W early_alias\n"
	      "ffffffff81000080 D some_data\n"
	      "ffffffffc0001000 t ext4_fill_super\t[ext4]\n"
	      "ffffffffc0001040 T ext4_mount\t[ext4]\n"
	      "ffffffffc0002000 t xfs_mount\t[xfs]\n", f);
	fclose(f);
	struct sym_table *t = sym_table__new();
	size_t n = 0;
	CHECK(t && sym_table__add_kallsyms(t, path, NULL) == 0, "kernel");
	const struct sym_entry *s = t ? sym_table__syms(t, &n) : NULL;
	CHECK(n == 3, "3 kernel text symbols, got %zu", n);
	if (n == 3) {
		CHECK(!strcmp(s[0].name, "early_alias") && s[0].global && s[0].size == 0,
		      "alias first by name, no size at its address: %s %" PRIu64, s[0].name, s[0].size);
		CHECK(!strcmp(s[1].name, "early_init") && !s[1].global && s[1].size == 0x100,
		      "early_init up to start_kernel: %s %#" PRIx64, s[1].name, s[1].size);
		CHECK(!strcmp(s[2].name, "start_kernel") && s[2].func && s[2].size == 0, "last: %s", s[2].name);
	}
	sym_table__delete(t);
	t = sym_table__new();
	CHECK(t && sym_table__add_kallsyms(t, path, "ext4") == 0, "module");
	s = t ? sym_table__syms(t, &n) : NULL;
	CHECK(n == 2 && !strcmp(s[0].name, "ext4_fill_super") && s[0].size == 0x40 &&
	      !strcmp(s[1].name, "ext4_mount"), "ext4's two, got %zu", n);
	sym_table__delete(t);
	t = sym_table__new();
	CHECK(t && sym_table__add_kallsyms(t, "/nonexistent/kallsyms", NULL) == -ENOENT, "missing file");
	sym_table__delete(t);
	unlink(path);
}

int main(void)
{
	char dir[4096];
	ssize_t n = readlink("/proc/self/exe", dir, sizeof(dir) - 64);
	if (n <= 0)
		return 1;
	dir[n] = 0;
	*strrchr(dir, '/') = 0;		/* build/tests */
	strcat(dir, "/workloads/inspect_wl_O2");
	elf_version(EV_CURRENT);
	filters();
	sym_tables();
	if (access(dir, R_OK)) {
		printf("SKIP resolver checks: %s not built\n", dir);
	} else {
		resolve(dir);
	}
	strcpy(strrchr(dir, '/'), "/sym_lld");
	if (access(dir, R_OK))
		printf("SKIP lld offsets: %s not built (no ld.lld)\n", dir);
	else
		lld_offsets(dir);
	return check_summary();
}
