/* Go's pclntab parser (symbolize/gopclntab.c) on real Go binaries: a small
 * program built here by the go toolchain (skipped without one), with its
 * symbols, stripped (-ldflags='-s -w'), as a PIE, and linked externally
 * where a C compiler is there, and the system's own Go compiler
 * (/usr/lib/go-*, stripped by Debian) when installed. The reference is
 * `go tool nm` of the unstripped build. Then the ELF symbolizer: a stripped
 * Go program's functions get their names. */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "../../symbolize/gopclntab.h"
#include "../../symbolize/sym_internal.h"

static const char go_main[] =
	"package main\n"
	"\n"
	"import \"fmt\"\n"
	"\n"
	"//go:noinline\n"
	"func spin(n int) int {\n"
	"\ts := 0\n"
	"\tfor i := 0; i < n; i++ {\n"
	"\t\ts += i * i % 7\n"
	"\t}\n"
	"\treturn s\n"
	"}\n"
	"\n"
	"func main() {\n"
	"\tfmt.Println(spin(1000))\n"
	"}\n";

/* `go tool nm` of the unstripped build: text symbols. */
struct nm_sym {
	uint64_t addr;
	char name[256];
};

static struct nm_sym *nm_syms;
static size_t nm_n;

/* A file in the work directory. */
static int put_file(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	fputs(text, f);
	return fclose(f) ? -errno : 0;
}

/* Runs cmd through sh; its output on stderr when it fails. */
static bool run(const char *cmd)
{
	char buf[512];
	FILE *p = popen(cmd, "r");
	size_t n;
	int st;

	if (!p)
		return false;
	char *out = NULL;
	size_t len = 0;
	while ((n = fread(buf, 1, sizeof(buf), p)) > 0) {
		char *o = realloc(out, len + n + 1);
		if (!o)
			break;
		out = o;
		memcpy(out + len, buf, n);
		len += n;
		out[len] = 0;
	}
	st = pclose(p);
	if (st)
		fprintf(stderr, "%s: status %d\n%s", cmd, st, out ? out : "");
	free(out);
	return st == 0;
}

static bool read_nm(const char *dir)
{
	char cmd[600], line[512];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "cd '%s' && go tool nm plain", dir);
	p = popen(cmd, "r");
	if (!p)
		return false;
	while (fgets(line, sizeof(line), p)) {
		unsigned long long a;
		char type, name[256];

		if (sscanf(line, "%llx %c %255s", &a, &type, name) != 3 || (type != 'T' && type != 't'))
			continue;
		if (!(nm_n & (nm_n + 1)) || !nm_syms) {
			struct nm_sym *v = realloc(nm_syms, (nm_n + 1) * 2 * sizeof(*v));
			if (!v)
				break;
			nm_syms = v;
		}
		nm_syms[nm_n].addr = a;
		snprintf(nm_syms[nm_n].name, sizeof(nm_syms[nm_n].name), "%s", name);
		nm_n++;
	}
	return pclose(p) == 0 && nm_n > 0;
}

static uint64_t nm_addr(const char *name)
{
	for (size_t i = 0; i < nm_n; i++)
		if (!strcmp(nm_syms[i].name, name))
			return nm_syms[i].addr;
	return 0;
}

/* One Go binary opened through libelf, its table found and parsed. */
struct gobin {
	int fd;
	Elf *elf;
	struct gopclntab *t;
};

static bool gobin__open(struct gobin *b, const char *path)
{
	const uint8_t *data;
	size_t size;
	uint64_t vaddr, text;

	memset(b, 0, sizeof(*b));
	elf_version(EV_CURRENT);
	b->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (!CHECK(b->fd >= 0, "open %s: %s", path, strerror(errno)))
		return false;
	b->elf = elf_begin(b->fd, ELF_C_READ_MMAP, NULL);
	if (!CHECK(b->elf, "elf_begin %s", path))
		return false;
	if (!CHECK(gopclntab__find(b->elf, &data, &size, &vaddr, &text) == 0, "%s: no pclntab found", path))
		return false;
	b->t = gopclntab__new(data, size, vaddr, text);
	return CHECK(b->t, "%s: gopclntab__new: %s", path, strerror(errno));
}

static void gobin__close(struct gobin *b)
{
	gopclntab__delete(b->t);
	if (b->elf)
		elf_end(b->elf);
	if (b->fd >= 0)
		close(b->fd);
}

struct walk {
	const struct gopclntab *t;
	size_t n, bad_entry_sp, unordered, bad_lookup;
	uint64_t prev_end;
	const char *want;
	struct gopclntab_func found;
};

/* Every function: pcsp 0 at its entry, lookups of its entry and last byte
 * give it back, ranges ascend without overlap. */
static int walk_fn(const struct gopclntab_func *f, void *arg)
{
	struct walk *w = arg;
	struct gopclntab_func g;
	int64_t d = -1;

	w->n++;
	if (f->entry < w->prev_end || f->end < f->entry)
		w->unordered++;
	w->prev_end = f->end;
	if (f->end > f->entry) {
		if (gopclntab__pcsp(w->t, f->entry, &d) || d != 0)
			w->bad_entry_sp++;
		if (gopclntab__lookup(w->t, f->entry, &g) || g.entry != f->entry || strcmp(g.name, f->name) ||
		    gopclntab__lookup(w->t, f->end - 1, &g) || g.entry != f->entry)
			w->bad_lookup++;
	}
	if (w->want && !strcmp(f->name, w->want))
		w->found = *f;
	return 0;
}

static struct walk walk_all(const struct gopclntab *t, const char *want)
{
	struct walk w = { .t = t, .want = want };

	CHECK_EQ_INT(gopclntab__foreach(t, walk_fn, &w), 0);
	CHECK(w.n > 0 && w.n <= gopclntab__count(t), "%zu functions named of %zu", w.n, gopclntab__count(t));
	CHECK_EQ_U64(w.bad_entry_sp, 0);
	CHECK_EQ_U64(w.unordered, 0);
	CHECK_EQ_U64(w.bad_lookup, 0);
	return w;
}

/* Deepest sp delta inside [entry, end): a function that calls has a frame. */
static int64_t max_sp(const struct gopclntab *t, const struct gopclntab_func *f)
{
	int64_t max = -1, d;

	for (uint64_t pc = f->entry; pc < f->end; pc++)
		if (gopclntab__pcsp(t, pc, &d) == 0 && d > max)
			max = d;
	return max;
}

static int stop_at_second(const struct gopclntab_func *f, void *arg)
{
	(void)f;
	return ++*(int *)arg == 2 ? 42 : 0;
}

/* The unstripped build against go tool nm, exactly. */
static void test_plain(const char *dir)
{
	char path[600];
	struct gobin b;
	struct gopclntab_func f;

	snprintf(path, sizeof(path), "%s/plain", dir);
	if (!gobin__open(&b, path))
		goto out;
	static const char *const known[] = { "main.main",	    "main.spin",	"runtime.main",
					     "runtime.goexit.abi0", "runtime.mallocgc", "fmt.Fprintln" };
	for (size_t i = 0; i < sizeof(known) / sizeof(*known); i++) {
		uint64_t a = nm_addr(known[i]);
		char want[128];

		if (!CHECK(a, "go tool nm lists %s", known[i]))
			continue;
		/* the table names assembly functions without nm's ".abi0" */
		snprintf(want, sizeof(want), "%s", known[i]);
		if (strstr(want, ".abi0"))
			*strstr(want, ".abi0") = 0;
		if (CHECK(gopclntab__lookup(b.t, a + 1, &f) == 0, "lookup %s+1", known[i])) {
			CHECK_STREQ(f.name, want);
			CHECK_EQ_U64(f.entry, a);
		}
	}
	struct walk w = walk_all(b.t, "main.main");
	/* nm lists the table's functions and a few markers of its own
	 * (runtime.text, runtime.etext...): the same within 1% */
	CHECK(w.n <= nm_n && w.n * 100 >= nm_n * 99, "%zu functions, go tool nm lists %zu text symbols", w.n, nm_n);
	printf("plain: %zu functions, go tool nm: %zu text symbols\n", w.n, nm_n);
	int64_t sp = max_sp(b.t, &w.found);
	CHECK(sp > 0 && sp % 8 == 0, "main.main (calls fmt.Println) has a frame: deepest sp delta %lld", (long long)sp);
	CHECK(gopclntab__lookup(b.t, 0x1000, &f) == -ENOENT, "no function below the text");
	int64_t d;
	CHECK(gopclntab__pcsp(b.t, UINT64_MAX, &d) == -ENOENT, "no sp delta past the text");
	int calls = 0;
	CHECK_EQ_INT(gopclntab__foreach(b.t, stop_at_second, &calls), 42);
	CHECK_EQ_INT(calls, 2);
out:
	gobin__close(&b);
}

/* Another build of the same program: the same functions, main.main found. */
static void test_variant(const char *dir, const char *name)
{
	char path[600];
	struct gobin b;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (!gobin__open(&b, path))
		goto out;
	struct walk w = walk_all(b.t, "main.main");
	CHECK(w.n * 100 >= nm_n * 98 && w.n <= nm_n + nm_n / 50, "%s: %zu functions, plain's nm %zu", name, w.n, nm_n);
	CHECK(w.found.name, "%s: main.main is in the table", name);
	printf("%s: %zu functions\n", name, w.n);
out:
	gobin__close(&b);
}

/* A stripped Go program through the ELF symbolizer: the names come from the table. */
static void test_elf_object(const char *dir)
{
	char path[600];
	struct gobin b;
	struct gopclntab_func f;

	snprintf(path, sizeof(path), "%s/stripped", dir);
	if (!gobin__open(&b, path))
		goto out;
	struct walk w = walk_all(b.t, "main.spin");
	struct elf_object *o = elf_object__open(path, path, NULL);
	if (!CHECK(o && o->loaded, "elf_object__open %s", path))
		goto out;
	CHECK(o->syms.n >= w.n, "%zu symbols for %zu functions", o->syms.n, w.n);
	const struct symtab_entry *e = symtab__find(&o->syms, w.found.entry + 1);
	if (CHECK(e, "a symbol at main.spin+1")) {
		CHECK_STREQ(symtab__name(&o->syms, e), "main.spin");
		CHECK_EQ_U64(e->start, w.found.entry);
		CHECK_EQ_U64(e->end, w.found.end);
	}
	if (CHECK(gopclntab__lookup(b.t, w.found.end, &f) == 0, "a function after main.spin"))
		CHECK(symtab__find(&o->syms, f.entry) && symtab__name(&o->syms, symtab__find(&o->syms, f.entry)) &&
			      !strcmp(symtab__name(&o->syms, symtab__find(&o->syms, f.entry)), f.name),
		      "%s named", f.name);
	elf_object__delete(o);
out:
	gobin__close(&b);
}

/* Damaged tables are refused, and never read past their end (ASan). */
static void test_corrupt(const char *dir)
{
	char path[600];
	struct gobin b;
	const uint8_t *data;
	size_t size;
	uint64_t vaddr, text;

	snprintf(path, sizeof(path), "%s/stripped", dir);
	if (!gobin__open(&b, path))
		goto out;
	CHECK(gopclntab__find(b.elf, &data, &size, &vaddr, &text) == 0, "found again");
	uint8_t *copy = malloc(size);
	if (!CHECK(copy, "malloc"))
		goto out;
	memcpy(copy, data, size);
	errno = 0;
	CHECK(!gopclntab__new(copy, 100, vaddr, text) && errno == EINVAL, "the header alone: EINVAL");
	copy[0] ^= 0x55;
	errno = 0;
	CHECK(!gopclntab__new(copy, size, vaddr, text) && errno == EINVAL, "a wrong magic: EINVAL");
	copy[0] ^= 0x55;
	copy[7] = 3;
	errno = 0;
	CHECK(!gopclntab__new(copy, size, vaddr, text) && errno == EINVAL, "pointer size 3: EINVAL");
	free(copy);
out:
	gobin__close(&b);
}

/* Debian's Go compiler, stripped: ~15k functions. */
static void test_system_compile(void)
{
	glob_t g;

	if (glob("/usr/lib/go-*/pkg/tool/linux_amd64/compile", 0, NULL, &g)) {
		printf("no /usr/lib/go-*/pkg/tool/linux_amd64/compile: not checked\n");
		return;
	}
	for (size_t i = 0; i < g.gl_pathc; i++) {
		struct gobin b;

		if (gobin__open(&b, g.gl_pathv[i])) {
			struct walk w = walk_all(b.t, "main.main");
			CHECK(w.n > 5000, "%s: %zu functions", g.gl_pathv[i], w.n);
			CHECK(w.found.name, "%s: main.main", g.gl_pathv[i]);
			printf("%s: %zu functions of %zu\n", g.gl_pathv[i], w.n, gopclntab__count(b.t));
		}
		gobin__close(&b);
	}
	globfree(&g);
}

/* A file of the fuzzer's seeds (tests/fuzz/make-gopclntab-seeds.py), malloc'ed. */
static uint8_t *read_seed(const char *name, size_t *size)
{
	char path[256];
	FILE *f;
	uint8_t *buf = malloc(65536);

	snprintf(path, sizeof(path), "../fuzz/corpus/gopclntab/%s", name);
	f = fopen(path, "rb");
	if (!CHECK(f && buf, "open %s (run from tests/unit): %s", path, strerror(errno))) {
		free(buf);
		return NULL;
	}
	*size = fread(buf, 1, 65536, f);
	fclose(f);
	return buf;
}

struct fn_list {
	struct gopclntab_func f[64];
	int64_t sp[64];
	size_t n;
	const struct gopclntab *t;
};

static int collect(const struct gopclntab_func *f, void *arg)
{
	struct fn_list *l = arg;

	if (l->n < 64) {
		l->sp[l->n] = -1;
		gopclntab__pcsp(l->t, f->entry + (f->end - f->entry) / 3, &l->sp[l->n]);
		l->f[l->n++] = *f;
	}
	return 0;
}

/* The same functions in each format the seeds hold (one real table,
 * trimmed, rewritten): names, ranges and SP deltas agree with go118's. */
static void test_formats(void)
{
	static const char *const fmts[] = { "go118", "go120", "go116", "go12" };
	static struct fn_list ref, l;
	uint8_t *ref_bytes = NULL;	/* ref's names point into it */
	size_t size;

	for (size_t k = 0; k < sizeof(fmts) / sizeof(*fmts); k++) {
		uint8_t *b = read_seed(fmts[k], &size);
		struct gopclntab *t = b ? gopclntab__new(b, size, 0, 0x401000) : NULL;
		struct fn_list *cur = k ? &l : &ref;

		if (!CHECK(t, "%s: gopclntab__new: %s", fmts[k], strerror(errno))) {
			free(b);
			continue;
		}
		memset(cur, 0, sizeof(*cur));
		cur->t = t;
		gopclntab__foreach(t, collect, cur);
		if (!k) {
			CHECK(ref.n > 20, "go118: %zu functions", ref.n);
			size_t sp = 0;
			for (size_t i = 0; i < ref.n; i++)
				sp += ref.sp[i] > 0;
			CHECK(sp > 5, "go118: %zu functions with a frame a third in", sp);
		} else if (CHECK_EQ_U64(l.n, ref.n)) {
			size_t bad = 0;
			for (size_t i = 0; i < l.n; i++)
				bad += l.f[i].entry != ref.f[i].entry || l.f[i].end != ref.f[i].end ||
				       strcmp(l.f[i].name, ref.f[i].name) || l.sp[i] != ref.sp[i];
			CHECK(!bad, "%s: %zu functions differ from go118's", fmts[k], bad);
		}
		/* every shorter copy is refused or parses without reading past its end (ASan) */
		for (size_t cut = 0; cut < size; cut += 7) {
			uint8_t *c = malloc(cut ? cut : 1);
			memcpy(c, b, cut);
			struct gopclntab *tc = gopclntab__new(c, cut, 0, 0x401000);
			gopclntab__delete(tc);
			free(c);
		}
		gopclntab__delete(t);
		if (k)
			free(b);
		else
			ref_bytes = b;
	}
	/* the ELF seeds: in .gopclntab, and inside .data.rel.ro of a Go program */
	static const char *const elfs[] = { "elf_section", "elf_relro" };
	for (size_t k = 0; k < 2; k++) {
		uint8_t *b = read_seed(elfs[k], &size);
		const uint8_t *data;
		size_t n;
		uint64_t vaddr, text;
		Elf *elf = b ? elf_memory((char *)b, size) : NULL;

		if (CHECK(elf, "%s: an ELF", elfs[k]) &&
		    CHECK(gopclntab__find(elf, &data, &n, &vaddr, &text) == 0, "%s: table found", elfs[k])) {
			CHECK_EQ_U64(vaddr, 0x4b0000 + (k ? 40 : 0));
			CHECK_EQ_U64(text, 0x401000);
			struct gopclntab *t = gopclntab__new(data, n, vaddr, text);
			if (CHECK(t, "%s: parsed", elfs[k])) {
				memset(&l, 0, sizeof(l));
				l.t = t;
				gopclntab__foreach(t, collect, &l);
				CHECK_EQ_U64(l.n, ref.n);
			}
			gopclntab__delete(t);
		}
		if (elf)
			elf_end(elf);
		free(b);
	}
	free(ref_bytes);
}

static bool build(const char *dir, const char *out, const char *env, const char *flags)
{
	char cmd[1200];

	snprintf(cmd, sizeof(cmd), "cd '%s' && %s GOTOOLCHAIN=local GOFLAGS=-mod=mod go build %s -o %s . 2>&1", dir,
		 env, flags, out);
	return run(cmd);
}

int main(void)
{
	char dir[] = "/tmp/pprobe-gopclntab-XXXXXX";
	char cmd[600];

	elf_version(EV_CURRENT);
	test_formats();
	if (!run("command -v go >/dev/null 2>&1"))
		return check_skip("no go toolchain in PATH to build a Go program (only the seed tables were checked)");
	if (!mkdtemp(dir))
		return check_skip("mkdtemp: %s", strerror(errno));
	/* go needs a build cache: where HOME is not set, one of its own */
	if (!getenv("GOCACHE") && !getenv("HOME") && !getenv("XDG_CACHE_HOME")) {
		snprintf(cmd, sizeof(cmd), "%s/cache", dir);
		setenv("GOCACHE", cmd, 1);
	}
	if (!CHECK(put_file(dir, "main.go", go_main) == 0 &&
			   put_file(dir, "go.mod", "module gopcltest\n\ngo 1.16\n") == 0,
		   "write the Go program in %s", dir))
		goto out;
	if (!CHECK(build(dir, "plain", "CGO_ENABLED=0", "") &&
			   build(dir, "stripped", "CGO_ENABLED=0", "-ldflags='-s -w'") &&
			   build(dir, "pie", "CGO_ENABLED=0", "-buildmode=pie -ldflags='-s -w'"),
		   "go build in %s", dir))
		goto out;
	if (!CHECK(read_nm(dir), "go tool nm %s/plain", dir))
		goto out;
	test_plain(dir);
	test_variant(dir, "stripped");
	test_variant(dir, "pie");
	/* external linking (a C linker): the table inside .data.rel.ro, found
	 * by runtime.pclntab, or stripped by its header */
	if (run("command -v cc >/dev/null 2>&1") &&
	    build(dir, "extpie", "CGO_ENABLED=1", "-buildmode=pie -ldflags='-s -w -linkmode=external'") &&
	    build(dir, "extpie_sym", "CGO_ENABLED=1", "-buildmode=pie -ldflags='-linkmode=external'")) {
		test_variant(dir, "extpie");
		test_variant(dir, "extpie_sym");
	} else {
		printf("no C compiler for external linking: extpie not checked\n");
	}
	test_elf_object(dir);
	test_corrupt(dir);
	test_system_compile();
out:
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	run(cmd);
	free(nm_syms);
	return check_summary();
}
