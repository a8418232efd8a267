/* The unwinder against ground truth, on the real kernel, without the record
 * command: this driver opens perf_event_open itself (cpu-clock, user
 * registers + user stack) on a workload child from tests/workloads/unwind.cmake
 * (-O2 -fomit-frame-pointer), reads the rings, and unwinds every sample with
 * both backends while the child still runs. It asserts, per scenario and
 * backend, that >= 99% of the stacks are complete and hold exactly the
 * expected frames (checked by the workload's ELF symbol table), and that the
 * two backends agree, and that the libdw backend's fast path gives libdw's
 * own walk, sample by sample. Unwind cost per sample is printed (never
 * asserted).
 *
 *   test_unwind                      all scenarios (the ctest)
 *   test_unwind --sweep              stack copy size x depth table, no asserts
 *   test_unwind MODE DEPTH COPY LIVE one scenario (LIVE 0/1), no asserts
 * PPROBE_WORKLOADS overrides the workload directory. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pprobe/maps.h"
#include "pprobe/unwind.h"
#include "check.h"

#define MAX_CPUS 64
#define RING_PAGES 512
#define MAX_IPS 2048

static char wl_dir[4096];
static int only_backend = -1;	/* custom mode: UNWIND_BACKEND=libdw|libunwind */

/* ---- tiny symbol table lookup ---- */
struct sym { uint64_t addr, size; char *name; };
struct symtab { char *path; struct sym *syms; size_t n; uint64_t x_vaddr, x_offset; /* PF_X PT_LOAD */ };

static int sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int symtab__load(struct symtab *st, const char *path)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	size_t cap = 0;
	for (Elf_Scn *scn = NULL; elf && (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t cnt = sh.sh_size / sh.sh_entsize;
		for (size_t i = 0; d && i < cnt; i++) {
			GElf_Sym s;
			if (!gelf_getsym(d, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC || !s.st_value)
				continue;
			if (st->n == cap) {
				cap = cap ? 2 * cap : 256;
				st->syms = realloc(st->syms, cap * sizeof(*st->syms));
			}
			st->syms[st->n].addr = s.st_value;
			st->syms[st->n].size = s.st_size;
			st->syms[st->n].name = strdup(elf_strptr(elf, sh.sh_link, s.st_name));
			st->n++;
		}
	}
	size_t phnum;
	for (size_t i = 0; elf && !elf_getphdrnum(elf, &phnum) && i < phnum; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
			st->x_vaddr = ph.p_vaddr;
			st->x_offset = ph.p_offset;
			break;
		}
	}
	elf_end(elf);
	close(fd);
	qsort(st->syms, st->n, sizeof(*st->syms), sym_cmp);
	st->path = strdup(path);
	return st->n ? 0 : -ENOENT;
}

static void symtab__free(struct symtab *st)
{
	for (size_t i = 0; i < st->n; i++)
		free(st->syms[i].name);
	free(st->syms);
	free(st->path);
	memset(st, 0, sizeof(*st));
}

static const char *symtab__find(const struct symtab *st, uint64_t vaddr)
{
	size_t lo = 0, hi = st->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (st->syms[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	const struct sym *s = &st->syms[lo - 1];
	return vaddr < s->addr + (s->size ? s->size : 1) ? s->name : NULL;
}

/* Where to put a uprobe: vaddr and file offset of a function's first
 * instruction, or of the PLT stub of an imported function ("name@plt"). */
static int probe_location(const char *path, const char *what, uint64_t *vaddr, uint64_t *offset)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	size_t shstrndx;
	char name[128];
	const char *at = strstr(what, "@plt");
	snprintf(name, sizeof(name), "%.*s", at ? (int)(at - what) : (int)strlen(what), what);
	*vaddr = 0;
	if (!elf || elf_getshdrstrndx(elf, &shstrndx))
		goto out;
	uint64_t plt = 0, plt_sec = 0;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			continue;
		const char *sn = elf_strptr(elf, shstrndx, sh.sh_name);
		if (sn && !strcmp(sn, ".plt"))
			plt = sh.sh_addr;
		else if (sn && !strcmp(sn, ".plt.sec"))
			plt_sec = sh.sh_addr;
	}
	for (Elf_Scn *scn = NULL; !*vaddr && (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		const char *sn = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!d || !sh.sh_entsize)
			continue;
		size_t cnt = sh.sh_size / sh.sh_entsize;
		if (!at && sh.sh_type == SHT_SYMTAB) {
			for (size_t i = 0; i < cnt; i++) {
				GElf_Sym sym;
				if (gelf_getsym(d, (int)i, &sym) && GELF_ST_TYPE(sym.st_info) == STT_FUNC &&
				    !strcmp(elf_strptr(elf, sh.sh_link, sym.st_name), name))
					*vaddr = sym.st_value;
			}
		} else if (at && sh.sh_type == SHT_RELA && sn && !strcmp(sn, ".rela.plt")) {
			Elf_Scn *dyns = elf_getscn(elf, sh.sh_link);
			Elf_Data *dd = dyns ? elf_getdata(dyns, NULL) : NULL;
			GElf_Shdr dsh;
			if (!dd || !gelf_getshdr(dyns, &dsh))
				continue;
			for (size_t i = 0; i < cnt; i++) {
				GElf_Rela r;
				GElf_Sym sym;
				if (!gelf_getrela(d, (int)i, &r) ||
				    !gelf_getsym(dd, (int)GELF_R_SYM(r.r_info), &sym))
					continue;
				if (!strcmp(elf_strptr(elf, dsh.sh_link, sym.st_name), name))
					*vaddr = plt_sec ? plt_sec + 16 * i : plt + 16 * (i + 1);
			}
		}
	}
	size_t phnum;
	if (!*vaddr || elf_getphdrnum(elf, &phnum))
		goto out;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && *vaddr >= ph.p_vaddr &&
		    *vaddr < ph.p_vaddr + ph.p_filesz)
			*offset = *vaddr - ph.p_vaddr + ph.p_offset;
	}
out:
	elf_end(elf);
	close(fd);
	return *vaddr ? 0 : -ENOENT;
}

/* ---- scenario ---- */
struct scenario {
	const char *name;
	const char *exe;	/* file in wl_dir that runs */
	const char *syms;	/* file whose .symtab describes it (same layout) */
	const char *mode;	/* first argument, NULL for unwind_cxx */
	int depth;
	uint32_t copy;		/* sample_stack_user */
	bool live;
	uint64_t period_ns;
	double seconds;
	bool expect_truncated;	/* copy too small and live off: honest truncation
				 * (no-stack where the copy is empty: copy 0) */
	bool check;		/* assert */
	/* sample with a uprobe instead of cpu-clock: at a function's first
	 * instruction ("cmp_spin") or at a PLT stub ("qsort@plt") */
	const char *probe;
};

struct stats {
	long samples, leaf, complete, ok, agree, used_live, fp_frames;
	long end[UNWIND_ERROR + 1];
	double us;
	double us_max;
	double *t;		/* per-sample µs */
	long nt, capt;
	double med, p99, warm_mean;	/* warm: without the first 10 samples (file loading) */
	long frames;
	char why[256];
};

struct ring {
	int fd;
	uint8_t *base;
	size_t data_size;
};

static long perf_open(struct perf_event_attr *a, pid_t pid, int cpu)
{
	return syscall(SYS_perf_event_open, a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* CPU time of this thread: the unwind cost without the time the driver
 * spends preempted by the workload on a small machine */
static double cpu_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

struct ctx {
	const struct scenario *sc;
	pid_t pid;
	struct maps *maps;
	struct unwinder *uw[2];
	struct stats st[2];
	struct symtab exe, plugin;
	uint64_t exe_bias, plugin_bias;
	bool have_plugin;
	uint64_t probe_vaddr;	/* in the executable; 0: cpu-clock */
	uint64_t ips[2][MAX_IPS];
	uint8_t *scratch;
};

/* name of the function at a runtime address, from the workload's own symtabs */
static const char *addr_name(struct ctx *x, uint64_t a)
{
	const struct map *m = maps__find(x->maps, a);
	if (!m || !m->path)
		return NULL;
	if (strstr(m->path, "libunwind_plugin.so")) {
		if (!x->have_plugin) {
			char p[4200];
			snprintf(p, sizeof(p), "%s/libunwind_plugin.so", wl_dir);
			if (symtab__load(&x->plugin, p))
				return NULL;
			x->have_plugin = true;
		}
		return symtab__find(&x->plugin, a - x->plugin_bias);
	}
	const char *b = strrchr(m->path, '/');
	if (b && !strcmp(b + 1, x->sc->exe))
		return symtab__find(&x->exe, a - x->exe_bias);
	return NULL;
}

static void compute_biases(struct ctx *x, const struct maps *maps)
{
	/* from the executable mapping and the PF_X PT_LOAD (GNU ld and lld) */
	for (size_t i = 0; i < maps__count(maps); i++) {
		const struct map *m = maps__at(maps, i);
		if (!m->path || !(m->prot & PROT_EXEC))
			continue;
		const char *b = strrchr(m->path, '/');
		b = b ? b + 1 : m->path;
		if (!strcmp(b, x->sc->exe))
			x->exe_bias = m->start - (x->exe.x_vaddr + m->pgoff - x->exe.x_offset);
		else if (!strcmp(b, "libunwind_plugin.so"))	/* GNU ld: vaddr == offset */
			x->plugin_bias = m->start - m->pgoff;
	}
}

/* Shallow stacks whose time goes to libc (glibc's msort_with_tmp, its
 * epilogues included): every sample is checked and every stack must be
 * complete, since nothing there is too deep for the copy. */
static bool all_complete(const struct scenario *sc)
{
	return sc->mode && !strcmp(sc->mode, "qsort");
}

static bool is_leaf_fn(const struct scenario *sc, const char *fn)
{
	if (all_complete(sc))
		return true;
	if (!fn)
		return false;
	if (!sc->mode)	/* C++: the comparator or the sort it is inlined into */
		return strstr(fn, "sort") || strstr(fn, "Ul") || strstr(fn, "_Iter_comp");
	if (!strcmp(sc->mode, "signal"))
		return !strcmp(fn, "spin_in_handler");
	if (!strcmp(sc->mode, "inline"))
		return !strcmp(fn, "leaf_inline");
	if (!strcmp(sc->mode, "vdso"))
		return !strcmp(fn, "[vdso]");
	if (!strcmp(sc->mode, "buffer"))
		return !strcmp(fn, "fill_spin");
	return !strcmp(fn, "cmp_spin");
}

/* does the stack hold exactly the expected frames? *why says what not */
static bool check_stack(struct ctx *x, const uint64_t *ips, int n, char *why, size_t len)
{
	const struct scenario *sc = x->sc;
	int rec = 0, mains = 0, thread_mains = 0, plug = 0, leaves = 0, handler = 0, nocfi_pairs = 0;
	const char *outer = NULL, *prev = NULL;
	const char *rec_name = sc->mode ? "recurse" : "_ZN6WalkerIiE7descendEi";

	for (int i = 0; i < n; i++) {
		const char *fn = addr_name(x, i ? ips[i] - 1 : ips[i]);
		if (i == n - 1)
			outer = fn;
		if (!fn)
			continue;
		if (!strcmp(fn, rec_name))
			rec++;
		else if (!strcmp(fn, "main"))
			mains++;
		else if (!strcmp(fn, "thread_main"))
			thread_mains++;
		else if (!strcmp(fn, "plugin_recurse"))
			plug++;
		else if (!strcmp(fn, "leaf_sort") || !strcmp(fn, "leaf_signal") ||
			 !strcmp(fn, "leaf_inline") || !strcmp(fn, "_Z9sort_spinv") ||
			 !strcmp(fn, "leaf_vdso") || !strcmp(fn, "leaf_buffer") ||
			 !strcmp(fn, "leaf_qsort"))
			leaves++;
		else if (!strcmp(fn, "on_usr1"))
			handler++;
		/* the frame stepped without CFI, then its exact caller */
		if (prev && ((!strcmp(prev, "nocfi_call") && !strcmp(fn, "leaf_nocfi")) ||
			     (!strcmp(prev, "nocfi_nofp_call") && !strcmp(fn, "leaf_nofp"))))
			nocfi_pairs++;
		prev = fn;
	}
	bool nocfi = sc->mode && (!strcmp(sc->mode, "nocfi") || !strcmp(sc->mode, "nofp"));
	bool threads = sc->mode && !strcmp(sc->mode, "threads");
	if (rec != sc->depth)
		snprintf(why, len, "%d recursion frames, want %d", rec, sc->depth);
	else if (threads ? thread_mains != 1 : mains != 1)
		snprintf(why, len, "%s missing", threads ? "thread_main" : "main");
	else if (!threads && (!outer || strcmp(outer, "_start")))
		snprintf(why, len, "outermost frame %s, want _start", outer ? outer : "?");
	else if (sc->mode && !strcmp(sc->mode, "dlopen") && plug != 5)
		snprintf(why, len, "%d plugin frames, want 5", plug);
	else if (sc->mode && !strcmp(sc->mode, "signal") && handler != 1)
		snprintf(why, len, "on_usr1 missing");
	else if (leaves < 1)
		snprintf(why, len, "leaf function missing");
	else if (nocfi && nocfi_pairs != 1)
		snprintf(why, len, "the function without CFI and its caller missing");
	else
		return true;
	return false;
}

static void dump(struct ctx *x, int b, const uint64_t *ips, int n, const struct unwind_result *r)
{
	fprintf(stderr, "%s: bias=%#" PRIx64 " xv=%#" PRIx64 " xo=%#" PRIx64 " %s end=%s dso=%s nr=%d fp=%d live=%d\n", x->sc->name, x->exe_bias, x->exe.x_vaddr, x->exe.x_offset,
		b ? "libunwind" : "libdw", unwind_end__str(r->end), r->end_dso ? r->end_dso : "-",
		n, r->fp_frames, r->used_live_stack);
	for (int i = 0; i < n; i++) {
		const struct map *m = maps__find(x->maps, ips[i]);
		const char *fn = addr_name(x, i ? ips[i] - 1 : ips[i]);
		fprintf(stderr, "  #%-3d %#" PRIx64 " %s %s+%#" PRIx64 "\n", i, ips[i], fn ? fn : "?",
			m && m->path ? m->path : "?", m ? ips[i] - m->start + m->pgoff : 0);
		if (i == 6 && n > 12) {
			fprintf(stderr, "  ...\n");
			i = n - 6;
		}
	}
}

static bool is_nofp(const struct scenario *sc)
{
	return sc->mode && !strcmp(sc->mode, "nofp");
}

static bool is_opaque(const struct scenario *sc)
{
	return sc->mode && !strcmp(sc->mode, "opaque");
}

static void handle_sample(struct ctx *x, const uint8_t *p, size_t len)
{
	/* IP | TID | REGS_USER | STACK_USER */
	uint64_t ip;
	uint32_t pid, tid;
	const uint8_t *q = p, *end = p + len;
	memcpy(&ip, q, 8); q += 8;
	memcpy(&pid, q, 4); memcpy(&tid, q + 4, 4); q += 8;
	uint64_t abi;
	memcpy(&abi, q, 8); q += 8;
	if (abi == PERF_SAMPLE_REGS_ABI_NONE)
		return;	/* kernel thread or no user context */
	uint64_t vals[24];
	int nregs = __builtin_popcountll(UNWIND_X86_SAMPLE_REGS_MASK);
	memcpy(vals, q, nregs * 8); q += nregs * 8;
	uint64_t size;
	memcpy(&size, q, 8); q += 8;
	const uint8_t *data = q;
	q += size;
	uint64_t dyn = 0;
	if (size) {
		memcpy(&dyn, q, 8);
		q += 8;
	}
	if (q > end || (pid_t)pid != x->pid)
		return;

	struct unwind_regs regs;
	unwind_regs__from_x86_sample(&regs, UNWIND_X86_SAMPLE_REGS_MASK, vals);
	struct unwind_stack stack = { .sp = regs.r[UNWIND_REG_SP], .data = data, .size = dyn };
	struct unwind_result res[2];
	int n[2];
	for (int b = 0; b < 2; b++) {
		struct stats *st = &x->st[b];
		if (only_backend >= 0 && b != only_backend) {
			n[b] = -1;
			continue;
		}
		double t0 = cpu_us();
		n[b] = unwinder__unwind(x->uw[b], x->pid, x->maps, &regs, &stack, x->ips[b],
					MAX_IPS, &res[b]);
		double dt = cpu_us() - t0;
		st->samples++;
		st->us += dt;
		if (st->nt == st->capt) {
			st->capt = st->capt ? 2 * st->capt : 1024;
			st->t = realloc(st->t, st->capt * sizeof(*st->t));
		}
		st->t[st->nt++] = dt;
		if (dt > st->us_max)
			st->us_max = dt;
		if (n[b] < 0) {
			st->end[UNWIND_ERROR]++;
			continue;
		}
		st->frames += n[b];
		st->end[res[b].end]++;
		st->fp_frames += res[b].fp_frames;
		st->used_live += res[b].used_live_stack;
		if (res[b].end == UNWIND_COMPLETE)
			st->complete++;
		else if (getenv("UNWIND_DEBUG"))
			dump(x, b, x->ips[b], n[b], &res[b]);
		const struct map *im = maps__find(x->maps, ip);
		const char *ifn = im && im->path && !strcmp(im->path, "[vdso]") ? "[vdso]" : addr_name(x, ip);
		if (x->probe_vaddr ? ip != x->exe_bias + x->probe_vaddr : !is_leaf_fn(x->sc, ifn))
			continue;
		st->leaf++;
		char why[200];
		/* nocfi_call (no CFI, a frame pointer) and nocfi_nofp_call (no
		 * CFI, no frame pointer: its code emulated to its return) are
		 * the only frames without CFI: exactly one such step */
		bool nocfi = x->sc->mode && (!strcmp(x->sc->mode, "nocfi") || is_nofp(x->sc));
		bool good = res[b].end == UNWIND_COMPLETE &&
			    check_stack(x, x->ips[b], n[b], why, sizeof(why));
		if (!good && all_complete(x->sc) && res[b].end == UNWIND_COMPLETE && !strncmp(why, "0 recursion", 11))
			good = true;	/* every sample counts here: one before the recursion
					 * began or after it ended (start-up, exit) has none */
		if (good && res[b].fp_frames != (nocfi ? 1 : 0)) {
			snprintf(why, sizeof(why), "%d steps without CFI, want %d",
				 res[b].fp_frames, nocfi ? 1 : 0);
			good = false;
		}
		if (x->sc->expect_truncated)
			good = x->sc->copy ? res[b].end == UNWIND_TRUNCATED
					   : res[b].end == UNWIND_NO_STACK && n[b] == 1;
		if (is_opaque(x->sc)) {
			/* no CFI, no frame pointer, %rsp from a register: stop
			 * there, say where */
			const char *last = addr_name(x, x->ips[b][n[b] - 1] - 1);
			good = res[b].end == UNWIND_NO_CFI && res[b].end_dso &&
			       !strcmp(res[b].end_dso, "unwind_wl") && last &&
			       !strcmp(last, "nocfi_opaque_call") && res[b].fp_frames == 0;
		}
		if (good)
			st->ok++;
		else if (!st->why[0])
			snprintf(st->why, sizeof(st->why), "%s%s%s (%d frames)",
				 unwind_end__str(res[b].end),
				 good || res[b].end == UNWIND_COMPLETE ? ": " : "",
				 good || res[b].end == UNWIND_COMPLETE ? why : "", n[b]);
	}
	if (n[0] > 0 && n[0] == n[1] && !memcmp(x->ips[0], x->ips[1], n[0] * 8) &&
	    res[0].end == res[1].end)
		x->st[0].agree++;
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void finish_times(struct stats *s)
{
	double sum = 0;
	long n = 0;
	for (long i = 10; i < s->nt; i++, n++)
		sum += s->t[i];
	s->warm_mean = n ? sum / n : 0;
	if (s->nt) {
		qsort(s->t, s->nt, sizeof(*s->t), dbl_cmp);
		s->med = s->t[s->nt / 2];
		s->p99 = s->t[s->nt * 99 / 100];
	}
	free(s->t);
	s->t = NULL;
}

static void drain(struct ctx *x, struct ring *r)
{
	struct perf_event_mmap_page *pg = (void *)r->base;
	uint8_t *data = r->base + pg->data_offset;
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = pg->data_tail;

	while (tail < head) {
		struct perf_event_header h;
		size_t off = tail % r->data_size;
		uint8_t *rec;
		if (off + sizeof(h) <= r->data_size) {
			memcpy(&h, data + off, sizeof(h));
		} else {
			uint8_t tmp[sizeof(h)];
			for (size_t i = 0; i < sizeof(h); i++)
				tmp[i] = data[(off + i) % r->data_size];
			memcpy(&h, tmp, sizeof(h));
		}
		if (off + h.size <= r->data_size) {
			rec = data + off;
		} else {
			for (size_t i = 0; i < h.size; i++)
				x->scratch[i] = data[(off + i) % r->data_size];
			rec = x->scratch;
		}
		if (h.type == PERF_RECORD_SAMPLE)
			handle_sample(x, rec + sizeof(h), h.size - sizeof(h));
		tail += h.size;
	}
	__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
}

/* The sampling event of a scenario: cpu-clock on the workload's user
 * code, or a uprobe PMU event at sc->probe. 0, 77 (no uprobe PMU) or 1. */
static int scenario_attr(const struct scenario *sc, struct ctx *x, const char *exe, struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_CPU_CLOCK;
	a->sample_period = sc->period_ns;
	if (sc->probe) {
		uint64_t off = 0;
		int type = -1;
		FILE *tf = fopen("/sys/bus/event_source/devices/uprobe/type", "re");
		if (!tf || fscanf(tf, "%d", &type) != 1)
			type = -1;
		if (tf)
			fclose(tf);
		if (type < 0) {
			printf("SKIP %s: no uprobe PMU (CONFIG_UPROBE_EVENTS off)\n", sc->name);
			return 77;
		}
		if (probe_location(exe, sc->probe, &x->probe_vaddr, &off)) {
			CHECK_FAIL("%s: cannot locate %s in %s", sc->name, sc->probe, exe);
			return 1;
		}
		a->type = (uint32_t)type;
		a->config1 = (uint64_t)(uintptr_t)exe;	/* uprobe_path */
		a->config2 = off;			/* probe_offset */
		a->sample_period = sc->period_ns;	/* here: every Nth hit */
	}
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_REGS_USER |
			 PERF_SAMPLE_STACK_USER;
	a->sample_regs_user = UNWIND_X86_SAMPLE_REGS_MASK;
	a->sample_stack_user = sc->copy;
	a->exclude_kernel = !sc->probe;
	a->exclude_hv = 1;
	a->disabled = 1;
	a->enable_on_exec = 1;
	a->inherit = 1;
	a->wakeup_events = 16;
	return 0;
}

/* Samples the running workload into x's stats: the maps read from /proc
 * as they change (execmaps: the executable ones only, as MMAP2 records give
 * them), every ring drained on each wakeup. */
static void sample(struct ctx *x, struct ring *rings, int nr_rings, struct maps *full, bool exec_only)
{
	const struct scenario *sc = x->sc;

	/* at least sc->seconds, and on until 200 leaf samples (a loaded
	 * machine gives the workload less CPU), at most 20 s */
	double t0 = now_us(), t_end = t0 + sc->seconds * 1e6, t_cap = t0 + 20e6;
	bool maps_loaded = false;
	for (;;) {
		double t = now_us();
		long leaf = x->st[0].leaf > x->st[1].leaf ? x->st[0].leaf : x->st[1].leaf;
		if (t >= t_cap || (t >= t_end && (leaf >= 200 || !sc->check)))
			break;
		struct pollfd pfd[MAX_CPUS];
		for (int i = 0; i < nr_rings; i++)
			pfd[i] = (struct pollfd){ .fd = rings[i].fd, .events = POLLIN };
		poll(pfd, nr_rings, 20);
		/* the child has exec'd once its maps name the workload */
		if (exec_only && maps__load_proc(full, x->pid) == 0) {
			/* what MMAP2 records give without mmap_data: executable
			 * mappings only, no stacks, no heap */
			maps__clear(x->maps);
			for (size_t i = 0; i < maps__count(full); i++)
				if (maps__at(full, i)->prot & PROT_EXEC)
					maps__insert(x->maps, maps__at(full, i));
			compute_biases(x, full);
			maps_loaded = x->exe_bias != 0;
		} else if (!exec_only && maps__load_proc(x->maps, x->pid) == 0) {
			compute_biases(x, x->maps);
			maps_loaded = x->exe_bias != 0;
		}
		if (!maps_loaded)
			continue;
		for (int i = 0; i < nr_rings; i++)
			drain(x, &rings[i]);
	}
}

/* Returns 0, or 77 when perf_event_open is not available. */
static int run_scenario(const struct scenario *sc, struct stats out[2], long *agree)
{
	struct ctx x = { .sc = sc };
	char exe[4200], syms[4200], depth[16];
	int go[2], ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
	struct ring rings[MAX_CPUS];
	int nr_rings = 0, ret = 1;

	snprintf(exe, sizeof(exe), "%s/%s", wl_dir, sc->exe);
	snprintf(syms, sizeof(syms), "%s/%s", wl_dir, sc->syms);
	snprintf(depth, sizeof(depth), "%d", sc->depth);
	if (symtab__load(&x.exe, syms)) {
		CHECK_FAIL("%s: no symbols in %s (build the workloads)", sc->name, syms);
		return 1;
	}
	x.scratch = malloc(1 << 17);
	x.maps = maps__new();
	bool exec_only = !strncmp(sc->name, "execmaps", 8);
	struct maps *full = maps__new();
	for (int b = 0; b < 2; b++) {
		x.uw[b] = unwinder__new(b ? UNWIND_LIBUNWIND : UNWIND_LIBDW);
		unwinder__set_live_stack(x.uw[b], sc->live);
	}
	if (pipe(go)) {
		CHECK_FAIL("%s: pipe: %s", sc->name, strerror(errno));
		goto out;
	}
	x.pid = fork();
	if (x.pid == 0) {
		char c;
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(126);
		if (sc->mode)
			execl(exe, exe, sc->mode, depth, "30", (char *)NULL);
		else
			execl(exe, exe, depth, "30", (char *)NULL);
		_exit(127);
	}
	close(go[0]);

	struct perf_event_attr a;
	ret = scenario_attr(sc, &x, exe, &a);
	if (ret) {
		kill(x.pid, SIGKILL);
		waitpid(x.pid, NULL, 0);
		goto out;
	}
	ret = 1;
	for (int cpu = 0; cpu < ncpu && cpu < MAX_CPUS; cpu++) {
		long fd = perf_open(&a, x.pid, cpu);
		if (fd < 0) {
			int e = errno;
			kill(x.pid, SIGKILL);
			waitpid(x.pid, NULL, 0);
			printf("SKIP: perf_event_open(cpu-clock, user regs+stack): %s\n", strerror(e));
			ret = 77;
			goto out;
		}
		size_t sz = (size_t)(RING_PAGES + 1) * 4096;
		void *base = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_SHARED, (int)fd, 0);
		if (base == MAP_FAILED) {
			CHECK_FAIL("mmap ring: %s", strerror(errno));
			kill(x.pid, SIGKILL);
			waitpid(x.pid, NULL, 0);
			goto out;
		}
		rings[nr_rings++] = (struct ring){ (int)fd, base, (size_t)RING_PAGES * 4096 };
	}
	if (write(go[1], "g", 1) != 1) {
		CHECK_FAIL("%s: starting the workload: %s", sc->name, strerror(errno));
		goto out;
	}
	close(go[1]);

	sample(&x, rings, nr_rings, full, exec_only);
	if (getenv("UNWIND_DEBUG")) {
		char cmd[256];
		snprintf(cmd, sizeof(cmd), "ls -l /proc/%d/fd | sed -n 's/.*-> //p' | sort | uniq -c; grep VmRSS /proc/%d/status", (int)getpid(), (int)getpid());
		if (system(cmd))
			fprintf(stderr, "(fd count failed)\n");
	}
	/* record --push's bounded cache: a live process keeps its files
	 * through sweeps; once it is forgotten, the next sweep closes them. */
	size_t kept[2] = { 0, 0 };
	for (int b = 0; b < 2; b++)
		kept[b] = unwinder__sweep(x.uw[b]) + unwinder__sweep(x.uw[b]);
	kill(x.pid, SIGKILL);
	waitpid(x.pid, NULL, 0);
	/* the libdw backend's fast path against libdw alone, walk by walk */
	const struct unwind_check *chk = unwinder__check(x.uw[0]);
	if (chk)
		CHECK(chk->walks > 0 && chk->differ == 0, "%s: %llu of %llu libdw walks differ without the fast path; first: %s",
		      sc->name, (unsigned long long)chk->differ, (unsigned long long)chk->walks, chk->first);
	for (int b = 0; b < 2 && sc->check; b++) {
		if (!x.st[b].samples)
			continue;
		unwinder__forget(x.uw[b], x.pid);
		size_t closed = unwinder__sweep(x.uw[b]);
		CHECK(kept[b] == 0 && closed >= 3 && unwinder__sweep(x.uw[b]) == 0,
		      "%s %s: sweeps while it ran closed %zu files, after it %zu (exe, libc, ld.so: >= 2)", sc->name,
		      b ? "libunwind" : "libdw", kept[b], closed);
	}
	finish_times(&x.st[0]);
	finish_times(&x.st[1]);
	out[0] = x.st[0];
	out[1] = x.st[1];
	*agree = x.st[0].agree;
	ret = 0;
out:
	for (int i = 0; i < nr_rings; i++) {
		munmap(rings[i].base, (size_t)(RING_PAGES + 1) * 4096);
		close(rings[i].fd);
	}
	for (int b = 0; b < 2; b++)
		unwinder__delete(x.uw[b]);
	maps__delete(x.maps);
	maps__delete(full);
	symtab__free(&x.exe);
	if (x.have_plugin)
		symtab__free(&x.plugin);
	free(x.scratch);
	return ret;
}

static void print_stats(const struct scenario *sc, const struct stats st[2], long agree)
{
	for (int b = 0; b < 2; b++) {
		const struct stats *s = &st[b];
		if (only_backend >= 0 && b != only_backend)
			continue;
		printf("%-16s %-9s copy=%-5u live=%d samples=%-5ld complete=%6.2f%% leaf=%-5ld "
		       "ok=%6.2f%% us/sample: median=%.1f warm-mean=%.1f p99=%.0f first=%.0f frames/sample=%.1f live_used=%ld fp=%ld",
		       sc->name, b ? "libunwind" : "libdw", sc->copy, sc->live, s->samples,
		       s->samples ? 100.0 * s->complete / s->samples : 0, s->leaf,
		       s->leaf ? 100.0 * s->ok / s->leaf : 0, s->med, s->warm_mean, s->p99,
		       s->us_max, s->samples ? (double)s->frames / s->samples : 0, s->used_live,
		       s->fp_frames);
		printf(" ends:");
		for (int e = 0; e <= UNWIND_ERROR; e++)
			if (s->end[e] && e != UNWIND_COMPLETE)
				printf(" %s=%ld", unwind_end__str(e), s->end[e]);
		if (b == 1)
			printf(" agree=%.2f%%", st[0].samples ? 100.0 * agree / st[0].samples : 0);
		if (s->why[0])
			printf(" first-bad: %s", s->why);
		printf("\n");
	}
	fflush(stdout);
}

static void check_stats(const struct scenario *sc, const struct stats st[2], long agree)
{
	for (int b = 0; b < 2; b++) {
		const struct stats *s = &st[b];
		const char *be = b ? "libunwind" : "libdw";
		if (!CHECK(s->leaf >= 100, "%s/%s: only %ld samples in the leaf function (want >= 100)",
			   sc->name, be, s->leaf))
			continue;
		CHECK(s->ok * 100 >= s->leaf * 99, "%s/%s: %.2f%% of leaf stacks %s (want >= 99%%); first bad: %s",
		      sc->name, be, 100.0 * s->ok / s->leaf,
		      sc->expect_truncated ? (sc->copy ? "end truncated" : "end no-stack at the leaf") :
		      is_opaque(sc) ? "end no-cfi in nocfi_opaque_call" : "complete and exact", s->why);
		if (all_complete(sc)) {
			/* every sample counts here, also one taken while the
			 * thread leaves or enters the recursion: 1 in 500 of
			 * those was seen truncated by both backends alike */
			CHECK((s->leaf - s->ok) * 500 <= s->leaf,
			      "%s/%s: %ld of %ld stacks not complete and exact (want all but 0.2%%); first bad: %s",
			      sc->name, be, s->leaf - s->ok, s->leaf, s->why);
			CHECK((s->samples - s->complete) * 500 <= s->samples,
			      "%s/%s: %ld of %ld stacks not complete (want all but 0.2%%)",
			      sc->name, be, s->samples - s->complete, s->samples);
		}
		if (!sc->expect_truncated && !is_opaque(sc))
			CHECK(s->complete * 100 >= s->samples * 99, "%s/%s: %.2f%% of all stacks complete (want >= 99%%)",
			      sc->name, be, 100.0 * s->complete / s->samples);
	}
	CHECK(agree * 100 >= st[0].samples * 99, "%s: libdw and libunwind agree on %.2f%% of stacks (want >= 99%%)",
	      sc->name, 100.0 * agree / st[0].samples);
}

#define DEFAULT_COPY UNWIND_DEFAULT_STACK_COPY

int main(int argc, char **argv)
{
	/* every libdw walk also without the fast path, compared (its printed
	 * cost includes that second walk; PPROBE_UNWIND_CHECK=0 leaves it out) */
	setenv("PPROBE_UNWIND_CHECK", "1", 0);
	const char *env = getenv("PPROBE_WORKLOADS");
	if (env) {
		snprintf(wl_dir, sizeof(wl_dir), "%s", env);
	} else {
		ssize_t n = readlink("/proc/self/exe", wl_dir, sizeof(wl_dir) - 32);
		if (n <= 0)
			return 1;
		wl_dir[n] = 0;
		*strrchr(wl_dir, '/') = 0;	/* build/tests */
		strcat(wl_dir, "/workloads");
	}
	elf_version(EV_CURRENT);
	setvbuf(stdout, NULL, _IOLBF, 0);

	static const struct scenario all[] = {
		{ "sort-10", "unwind_wl", "unwind_wl", "sort", 10, DEFAULT_COPY, true, 1000000, 1.5, false, true, NULL },
		{ "sort-60", "unwind_wl", "unwind_wl", "sort", 60, DEFAULT_COPY, true, 1000000, 1.5, false, true, NULL },
		{ "sort-200", "unwind_wl", "unwind_wl", "sort", 200, DEFAULT_COPY, true, 1000000, 1.5, false, true, NULL },
		{ "sort-1000", "unwind_wl", "unwind_wl", "sort", 1000, DEFAULT_COPY, true, 2000000, 2.0, false, true, NULL },
		/* shallow: every stack complete, samples in libc's epilogues too */
		{ "qsort-10", "unwind_wl", "unwind_wl", "qsort", 10, DEFAULT_COPY, true, 1000000, 1.5, false, true, NULL },
		{ "signal-10", "unwind_wl", "unwind_wl", "signal", 10, DEFAULT_COPY, true, 1000000, 1.5, false, true, NULL },
		{ "threads-60", "unwind_wl", "unwind_wl", "threads", 60, DEFAULT_COPY, true, 1000000, 1.5, false, true, NULL },
		{ "dlopen-10", "unwind_wl", "unwind_wl", "dlopen", 10, DEFAULT_COPY, true, 1000000, 1.5, false, true, NULL },
		{ "vdso-10", "unwind_wl", "unwind_wl", "vdso", 10, DEFAULT_COPY, true, 1000000, 1.5, false, true, NULL },
		{ "nocfi-10", "unwind_wl", "unwind_wl", "nocfi", 10, DEFAULT_COPY, true, 1000000, 1.5, false, true, NULL },
		{ "nofp-10", "unwind_wl", "unwind_wl", "nofp", 10, DEFAULT_COPY, true, 1000000, 1.0, false, true, NULL },
		{ "opaque-10", "unwind_wl", "unwind_wl", "opaque", 10, DEFAULT_COPY, true, 1000000, 1.0, false, true, NULL },
		{ "inline-10", "unwind_wl", "unwind_wl", "inline", 10, DEFAULT_COPY, true, 1000000, 1.5, false, true, NULL },
		/* the copy ends in a buffer the leaf keeps rewriting */
		{ "buffer-60", "unwind_wl", "unwind_wl", "buffer", 60, DEFAULT_COPY, true, 1000000, 1.5, false, true, NULL },
		{ "lld-60", "unwind_wl_lld", "unwind_wl_lld", "sort", 60, DEFAULT_COPY, true, 1000000, 1.5, false, true, NULL },
		{ "stripped-60", "unwind_wl_stripped", "unwind_wl", "sort", 60, DEFAULT_COPY, true, 1000000, 1.5, false, true, NULL },
		{ "cxx-60", "unwind_cxx", "unwind_cxx", NULL, 60, DEFAULT_COPY, true, 1000000, 1.5, false, true, NULL },
		/* maps as perf's MMAP2 records give them: no stack mapping */
		{ "execmaps-200", "unwind_wl", "unwind_wl", "threads", 200, DEFAULT_COPY, true, 1000000, 1.5, false, true, NULL },
		{ "nolive-200", "unwind_wl", "unwind_wl", "sort", 200, DEFAULT_COPY, false, 1000000, 1.0, true, true, NULL },
		/* no stack bytes at all (the kernel's empty copy: 0.2% of a gcc
		 * build's samples): said as no-stack, not truncated */
		{ "nostack-60", "unwind_wl", "unwind_wl", "sort", 60, 0, true, 1000000, 1.0, true, true, NULL },
		/* period = every Nth probe hit */
		{ "entry-60", "unwind_wl", "unwind_wl", "sort", 60, DEFAULT_COPY, true, 100, 1.5, false, true, "cmp_spin" },
		{ "plt-60", "unwind_wl", "unwind_wl", "sort", 60, DEFAULT_COPY, true, 1, 1.5, false, true, "qsort@plt" },
	};
	struct stats st[2];
	long agree;

	if (argc == 5) {
		/* UNWIND_SECONDS, UNWIND_PERIOD_NS: for scripts/bench/unwind.sh */
		const char *secs = getenv("UNWIND_SECONDS"), *period = getenv("UNWIND_PERIOD_NS");
		struct scenario sc = { "custom", "unwind_wl", "unwind_wl", argv[1], atoi(argv[2]),
				       (uint32_t)atoi(argv[3]), atoi(argv[4]) != 0,
				       period ? strtoull(period, NULL, 10) : 1000000,
				       secs ? atof(secs) : 1.5, false, false, NULL };
		sc.probe = getenv("UNWIND_PROBE");
		if (!strcmp(argv[1], "cxx")) {
			sc.exe = sc.syms = "unwind_cxx";
			sc.mode = NULL;
		} else if (!strcmp(argv[1], "stripped")) {
			sc.exe = "unwind_wl_stripped";
			sc.mode = "sort";
		}
		const char *be = getenv("UNWIND_BACKEND");
		enum unwind_backend ub;
		if (be && !unwind_backend__parse(be, &ub))
			only_backend = ub == UNWIND_LIBUNWIND;
		int rc = run_scenario(&sc, st, &agree);
		if (!rc) {
			print_stats(&sc, st, agree);
			struct rusage ru;
			getrusage(RUSAGE_SELF, &ru);
			printf("driver_cpu_s=%.2f (ring reading, unwinding, checks)\n",
			       ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
			       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
		}
		return rc;
	}
	if (argc == 2 && !strcmp(argv[1], "--sweep")) {
		static const int depths[] = { 10, 60, 200, 1000 };
		static const uint32_t copies[] = { 1024, 2048, 4096, 8192, 16384, 32768, 65528 };
		for (size_t c = 0; c < sizeof(copies) / sizeof(copies[0]); c++)
			for (int live = 0; live < 2; live++)
				for (size_t d = 0; d < 4; d++) {
					char name[32];
					snprintf(name, sizeof(name), "sort-%d", depths[d]);
					struct scenario sc = { name, "unwind_wl", "unwind_wl", "sort",
							       depths[d], copies[c], live, 2000000, 1.0, false, false, NULL };
					if (run_scenario(&sc, st, &agree) == 0)
						print_stats(&sc, st, agree);
				}
		return 0;
	}
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		const char *only = getenv("UNWIND_ONLY");	/* one scenario by name */
		if (only && strcmp(only, all[i].name))
			continue;
		char path[4200];
		snprintf(path, sizeof(path), "%s/%s", wl_dir, all[i].exe);
		if (!strncmp(all[i].name, "lld", 3) && access(path, X_OK)) {
			printf("SKIP %s: no %s (ld.lld not installed: apt-get install lld)\n", all[i].name, path);
			continue;
		}
		int rc = run_scenario(&all[i], st, &agree);
		if (rc == 77)
			return check_failures ? 1 : 77;
		if (rc)
			continue;
		print_stats(&all[i], st, agree);
		check_stats(&all[i], st, agree);
	}
	return check_summary();
}
