/* probe_finder__fetch_args(): perf probe arguments -> tracefs fetch-args.
 *
 * 1. Exact fetch strings where the ABI fixes them (function entries of the
 *    probeargs_wl workload at -O0 and -O2: registers, struct layout,
 *    bitfields, stack-passed parameters; globals against the ELF symbols),
 *    and the errors (unknown variable, unknown member, $retval on an entry,
 *    optimized out, floats).
 * 2. The real proof: the fetch-args go into tracefs uprobe_events on both
 *    builds (entry, %return, a mid-function line with $vars), the workload
 *    runs, and the values in the trace buffer (a tracefs instance of our
 *    own) equal the values the workload passed. Probes and the instance are
 *    removed on every path (atexit, SIGINT/SIGTERM).
 * 3. libc with libc6-dbg: $params of malloc, fopen, strtol.
 * The workload's values are computed here with the same formulas as in
 * tests/workloads/probeargs_wl.c. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "pprobe/probe_finder.h"
#include "tracefs.h"

static char wl_dir[4096];
static char libc_path[4096];	/* with DWARF (libc6-dbg); "" otherwise */
static char src_path[4096];

/* ---- helpers ---- */
static struct probe_finder *open_pf(const char *bin)
{
	char err[512];
	struct probe_finder_opts o = { .binary = bin };
	struct probe_finder *pf = probe_finder__new(&o, err, sizeof(err));
	CHECK(pf != NULL, "open %s: %s", bin, err);
	return pf;
}

/* args at the n-th point of spec; returns the count or -errno (message in *msg) */
static int fetch(struct probe_finder *pf, const char *spec, int pt, const char *const *args, int nargs,
		 struct pf_fetch_arg **out, struct pf_points **pts)
{
	*out = NULL;
	if (probe_finder__find(pf, spec, 0, pts)) {
		CHECK(0, "find %s: %s", spec, probe_finder__strerror(pf));
		*pts = NULL;
		return -ENOENT;
	}
	if (pt >= (*pts)->n) {
		CHECK(0, "%s has %d points, wanted #%d", spec, (*pts)->n, pt);
		return -ENOENT;
	}
	return probe_finder__fetch_args(pf, &(*pts)->pts[pt], args, nargs, out);
}

/* "name=fetch:type name=fetch:type ..." */
static char *joined(const struct pf_fetch_arg *a, int n)
{
	size_t len = 1;
	for (int i = 0; i < n; i++)
		len += strlen(a[i].name) + strlen(a[i].fetch) + strlen(a[i].type) + 3;
	char *s = calloc(1, len);
	for (int i = 0; s && i < n; i++)
		sprintf(s + strlen(s), "%s%s=%s:%s", i ? " " : "", a[i].name, a[i].fetch, a[i].type);
	return s;
}

static void expect_args(struct probe_finder *pf, const char *spec, const char *const *args, int nargs,
			const char *want, const char *what)
{
	struct pf_fetch_arg *a;
	struct pf_points *pts;
	int n = fetch(pf, spec, 0, args, nargs, &a, &pts);
	CHECK(n >= 0, "%s: %s: %s", what, spec, probe_finder__strerror(pf));
	if (n >= 0) {
		char *s = joined(a, n);
		CHECK(s && !strcmp(s, want), "%s: %s\n  got:  %s\n  want: %s", what, spec, s, want);
		free(s);
	}
	pf_fetch_args__free(a, n);
	pf_points__delete(pts);
}

static void expect_err(struct probe_finder *pf, const char *spec, int pt, const char *arg, int err,
		       const char *const *frags, const char *what)
{
	struct pf_fetch_arg *a;
	struct pf_points *pts;
	const char *args[1] = { arg };
	int n = fetch(pf, spec, pt, args, 1, &a, &pts);
	const char *m = probe_finder__strerror(pf);
	CHECK(n == err, "%s: %s %s returned %d (want %d): %s", what, spec, arg, n, err, m);
	for (int i = 0; frags && frags[i]; i++)
		CHECK(strstr(m, frags[i]) != NULL, "%s: message lacks \"%s\": %s", what, frags[i], m);
	if (n >= 0)
		pf_fetch_args__free(a, n);
	pf_points__delete(pts);
}

/* symbol value from .symtab */
static int64_t elf_sym(const char *path, const char *name)
{
	int fd = open(path, O_RDONLY);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	int64_t ret = -1;
	for (Elf_Scn *s = elf_nextscn(e, NULL); s && ret < 0; s = elf_nextscn(e, s)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(s, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		Elf_Data *d = elf_getdata(s, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *n;
			if (gelf_getsym(d, (int)i, &sym) && (n = elf_strptr(e, sh.sh_link, sym.st_name)) &&
			    !strcmp(n, name))
				ret = (int64_t)sym.st_value;
		}
	}
	elf_end(e);
	close(fd);
	return ret;
}

/* file offset of vaddr through the section headers */
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

/* the line of the workload source holding the marker */
static int marker_line(const char *marker)
{
	FILE *f = fopen(src_path, "r");
	char line[1024];
	int n = 0, found = -1;
	while (f && fgets(line, sizeof(line), f)) {
		n++;
		if (strstr(line, marker) && found < 0)
			found = n;
	}
	if (f)
		fclose(f);
	return found;
}

/* ---- 1. exact strings ---- */
static void exact(const char *wl)
{
	struct probe_finder *pf = open_pf(wl);
	if (!pf)
		return;
	static const char *const entry_args[] = {
		"req", "req->path:string", "req->len", "req->codes[2]", "req->kind", "req->urgent", "req->prio",
		"req->in.a", "req->in.b", "req->tag:string", "req->codes", "req->next->len", "n", "scale",
		"len=req->len:x32", "$comm", "%rdi", "+8(%di):u32", "$arg3", "*req->next->next->path:s8",
	};
	expect_args(pf, "handle", entry_args, sizeof(entry_args) / sizeof(*entry_args),
		    "req=%di:x64 req_path=+0(+0(%di)):string req_len=+8(%di):s32 req_codes_2=+20(%di):s32 "
		    "req_kind=+28(%di):b3@0/32 req_urgent=+28(%di):b1@3/32 req_prio=+28(%di):b5@4/32 "
		    "req_in_a=+32(%di):s64 req_in_b=+40(%di):s16 req_tag=+56(%di):string "
		    "req_codes=+12(%di):s32[4] req_next_len=+8(+48(%di)):s32 n=%si:s32 scale=%dx:s64 "
		    "len=+8(%di):x32 comm=$comm:string rdi=%di:x64 arg18=+8(%di):u32 arg3=%dx:x64 "
		    "req_next_next_path=+0(+0(+48(+48(%di)))):s8",
		    "handle entry");

	/* $params: ratio (a double, in %xmm0) is skipped with a note */
	static const char *const params[] = { "$params" };
	expect_args(pf, "handle", params, 1, "req=%di:x64 n=%si:s32 scale=%dx:s64", "handle $params");
	CHECK(strstr(probe_finder__strerror(pf), "skipped ratio: ") != NULL, "note: %s", probe_finder__strerror(pf));
	/* before the first statement locals hold nothing yet */
	static const char *const vars[] = { "$vars" };
	struct pf_fetch_arg *va;
	struct pf_points *vp;
	int nv = fetch(pf, "handle", 0, vars, 1, &va, &vp);
	CHECK(nv >= 3 && !strcmp(va[0].name, "req") && !strcmp(va[1].name, "n") && !strcmp(va[2].name, "scale"),
	      "handle $vars: %d", nv);
	CHECK(strstr(probe_finder__strerror(pf), "skipped sum: sum is a local and this point is before the "
		     "function's first statement") != NULL ||
	      (strstr(wl, "_O2") && strstr(probe_finder__strerror(pf), "skipped sum: sum is optimized out")),
	      "note: %s", probe_finder__strerror(pf));
	pf_fetch_args__free(va, nv);
	pf_points__delete(vp);
	/* the 7th and 8th parameters are on the stack, above the return address */
	expect_args(pf, "many", params, 1,
		    "a1=%di:s32 a2=%si:s32 a3=%dx:s32 a4=%cx:s32 a5=%r8:s32 a6=%r9:s32 a7=+8(%sp):s32 a8=+16(%sp):s64",
		    "many $params");
	CHECK(!strcmp(probe_finder__strerror(pf), ""), "no note: %s", probe_finder__strerror(pf));

	/* a struct passed by value: two registers (pieces at -O2, the ABI at
	 * the -O0 entry); the whole struct is not one location */
	static const char *const inner[] = { "in.a", "in.b", "k", "$params" };
	expect_args(pf, "take_inner", inner, 4, "in_a=%di:s64 in_b=%si:s16 k=%dx:s32 k_1=%dx:s32", "take_inner");
	CHECK(strstr(probe_finder__strerror(pf), "skipped in: in is split into 2 pieces") != NULL, "note: %s",
	      probe_finder__strerror(pf));
	/* span's entry is inside first_code's inlined copy (at -O2): span's
	 * own variables, not first_code's */
	static const char *const span[] = { "req->len", "$vars" };
	expect_args(pf, "span", span, 2, "req_len=+8(%di):s32 req=%di:x64", "span");

	/* globals: @+OFF is what the kernel adds to the probed file's load
	 * base (bp vaddr - probe offset): vaddr - probe vaddr + probe offset */
	int64_t h = elf_sym(wl, "handle"), g = elf_sym(wl, "pa_global"), nm = elf_sym(wl, "pa_name");
	int64_t hoff = section_offset(wl, (uint64_t)h);
	CHECK(h > 0 && g > 0 && nm > 0 && hoff > 0, "symbols of %s", wl);
	char want[512];
	snprintf(want, sizeof(want), "pa_global=@+%#" PRIx64 ":s32 pa_name=+0(@+%#" PRIx64 "):string g=@+%#" PRIx64 ":s32",
		 (uint64_t)(g - h + hoff), (uint64_t)(nm - h + hoff), (uint64_t)(g - h + hoff));
	static const char *const globals[] = { "pa_global", "pa_name:string", "g=@pa_global:s32" };
	expect_args(pf, "handle", globals, 3, want, "globals");

	/* $retval: the return type (int) */
	static const char *const retval[] = { "$retval", "r=$retval:x32" };
	expect_args(pf, "handle%return", retval, 2, "retval=$retval:s32 r=$retval:x32", "handle%return");
	expect_args(pf, "many%return", retval, 1, "retval=$retval:s64", "many%return");
	/* struct results: in %rax:%rdx, or in memory at the address in %rax */
	static const char *const dm[] = { "$retval.q", "$retval.r" };
	expect_args(pf, "divmod%return", dm, 2, "retval_q=$retval:s64 retval_r=%dx:s64", "divmod%return");
	static const char *const bg[] = { "$retval.v[4]" };
	expect_args(pf, "mkbig%return", bg, 1, "retval_v_4=+32($retval):s64", "mkbig%return");

	/* errors */
	static const char *const unknown[] = { "no variable 'nosuch'", "req, n, scale, ratio", NULL };
	expect_err(pf, "handle", 0, "nosuch", -ENOENT, unknown, "unknown variable");
	static const char *const member[] = {
		"has no member 'nosuch' (members: path, len, codes, kind, urgent, prio, in, next, tag)", NULL
	};
	expect_err(pf, "handle", 0, "req->nosuch", -ENOENT, member, "unknown member");
	static const char *const dot[] = { "is a pointer", "use ->", NULL };
	expect_err(pf, "handle", 0, "req.len", -EINVAL, dot, "'.' on a pointer");
	static const char *const retent[] = { "$retval exists only on a return probe", NULL };
	expect_err(pf, "handle", 0, "$retval", -EINVAL, retent, "$retval at an entry");
	static const char *const onret[] = { "only $retval", NULL };
	expect_err(pf, "handle%return", 0, "req", -EINVAL, onret, "a variable on a return probe");
	static const char *const bounds[] = { "out of", "[0, 4)", NULL };
	expect_err(pf, "handle", 0, "req->codes[4]", -EINVAL, bounds, "index out of bounds");
	static const char *const flt[] = { "ratio", NULL };
	expect_err(pf, "handle", 0, "ratio", -EINVAL, flt, "a double");
	static const char *const badtype[] = { "unknown type 'u128'", NULL };
	expect_err(pf, "handle", 0, "n:u128", -EINVAL, badtype, "bad type");
	static const char *const badreg[] = { "unknown register '%xyz'", NULL };
	expect_err(pf, "handle", 0, "%xyz", -EINVAL, badreg, "bad register");
	static const char *const strct[] = { "is a struct", "name a member (a, b)", NULL };
	expect_err(pf, "handle", 0, "req->in", -EINVAL, strct, "a struct without a member");

	/* optimized out: a variable -V calls optimized out at some point of
	 * handle's lines must be refused there, not read */
	struct pf_points *pts = NULL;
	int tested = 0;
	int line = marker_line("/* PROBE_LINE */");
	char spec[64];
	for (int l = line - 4; l <= line + 4 && !tested; l++) {
		snprintf(spec, sizeof(spec), "probeargs_wl.c:%d", l);
		if (probe_finder__find(pf, spec, PF_VARS, &pts))
			continue;
		for (int i = 0; i < pts->n && !tested; i++)
			for (int j = 0; j < pts->pts[i].nvars && !tested; j++) {
				struct pf_var *v = &pts->pts[i].vars[j];
				if (v->state != PF_VAR_OPTIMIZED_OUT)
					continue;
				static const char *const oo[] = { "optimized out", NULL };
				expect_err(pf, spec, i, v->name, -ENOENT, oo, "optimized out");
				tested++;
			}
		pf_points__delete(pts);
		pts = NULL;
	}
	if (!tested)
		printf("note: %s: no variable is optimized out near line %d (nothing to refuse)\n", wl, line);
	probe_finder__delete(pf);
}

/* The kernel's forms: the workload's DWARF posing as a vmlinux (-k) gives
 * @SYM for globals; kallsyms (no DWARF) passes raw forms through. */
static void kernel(const char *wl)
{
	char err[512];
	struct probe_finder_opts o = { .vmlinux = wl };
	struct probe_finder *pf = probe_finder__new(&o, err, sizeof(err));
	CHECK(pf && probe_finder__is_kernel(pf), "open %s as a vmlinux: %s", wl, err);
	if (!pf)
		return;
	static const char *const args[] = { "pa_global", "pa_name:string", "req->path:ustring", "$arg1",
					    "@pa_counter+8", "+u8(%si):u32" };
	expect_args(pf, "handle", args, 6,
		    "pa_global=@pa_global:s32 pa_name=+0(@pa_name):string req_path=+0(+0(%di)):ustring "
		    "arg1=$arg1:x64 pa_counter_8=@pa_counter+8:x64 u8_si=+u8(%si):u32",
		    "kernel forms");
	static const char *const foff[] = { "@+OFFSET (a file offset) is for uprobes", NULL };
	expect_err(pf, "handle", 0, "@+0x10", -EINVAL, foff, "@+OFF on the kernel");
	probe_finder__delete(pf);

	struct probe_finder_opts k = { 0 };
	pf = probe_finder__new(&k, err, sizeof(err));
	if (!pf) {
		printf("SKIP kallsyms forms: %s\n", err);
		return;
	}
	struct pf_points *pts = NULL;
	if (probe_finder__has_dwarf(pf) || probe_finder__find(pf, "vfs_read", 0, &pts)) {
		printf("SKIP kallsyms forms: %s\n", probe_finder__has_dwarf(pf) ? "the kernel has DWARF here"
										 : probe_finder__strerror(pf));
	} else {
		pf_points__delete(pts);
		static const char *const raw[] = { "%di", "+0(%si):ustring", "$comm", "$stack0", "@jiffies" };
		expect_args(pf, "vfs_read", raw, 5,
			    "di=%di:x64 arg2=+0(%si):ustring comm=$comm:string stack0=$stack0:x64 jiffies=@jiffies:x64",
			    "kallsyms forms");
		static const char *const nodw[] = { "variables need DWARF", "linux-image-", NULL };
		expect_err(pf, "vfs_read", 0, "file", -ENOENT, nodw, "no kernel DWARF");
	}
	probe_finder__delete(pf);
}

/* ---- 2. real uprobes ---- */
static char group[64];
static char *events[64];
static int nevents;
static bool instance_made;

static void cleanup(void)
{
	char rel[256];
	if (instance_made) {
		snprintf(rel, sizeof(rel), "instances/%s/events/%s/enable", group, group);
		tracefs__write_file(rel, "0", 0);
		snprintf(rel, sizeof(rel), "instances/%s", group);
		char path[4096];
		if (!tracefs__path(path, sizeof(path), rel))
			rmdir(path);
		instance_made = false;
	}
	for (int i = 0; i < nevents; i++) {
		snprintf(rel, sizeof(rel), "-:%s/%s\n", group, events[i]);
		tracefs__write_file("uprobe_events", rel, 1);
		free(events[i]);
	}
	nevents = 0;
}

/* Probes and instances of an earlier run killed before its cleanup (-9):
 * groups pprobe_test_pa<pid> whose pid is gone. */
static void sweep_stale(void)
{
	char *ev = tracefs__read_file("uprobe_events", NULL), rel[256], path[4096];
	for (char *l = ev ? strtok(ev, "\n") : NULL; l; l = strtok(NULL, "\n")) {
		int pid;
		char name[128];
		if (sscanf(l, "%*c:pprobe_test_pa%d/%127s", &pid, name) != 2 || (kill(pid, 0) && errno != ESRCH) ||
		    !kill(pid, 0))
			continue;
		snprintf(rel, sizeof(rel), "instances/pprobe_test_pa%d", pid);
		if (!tracefs__path(path, sizeof(path), rel))
			rmdir(path);
		snprintf(rel, sizeof(rel), "-:pprobe_test_pa%d/%s\n", pid, name);
		tracefs__write_file("uprobe_events", rel, 1);
	}
	free(ev);
}

static void on_signal(int sig)
{
	cleanup();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Creates event ev at spec's point #pt with args; returns 0 or -errno. */
static int add_probe(const char *wl, const char *ev, const char *spec, int pt, bool ret_probe,
		     const char *const *args, int nargs)
{
	struct probe_finder *pf = open_pf(wl);
	struct pf_fetch_arg *a = NULL;
	struct pf_points *pts = NULL;
	int n = -EINVAL;
	char *def = NULL;
	if (!pf)
		return -ENOENT;
	n = fetch(pf, spec, pt, args, nargs, &a, &pts);
	CHECK(n >= 0, "%s %s: %s", wl, spec, probe_finder__strerror(pf));
	if (n < 0)
		goto out;
	size_t len = strlen(wl) + 256;
	for (int i = 0; i < n; i++)
		len += strlen(a[i].name) + strlen(a[i].fetch) + strlen(a[i].type) + 3;
	def = malloc(len);
	int o = snprintf(def, len, "%c:%s/%s %s:%#" PRIx64, ret_probe ? 'r' : 'p', group, ev, wl,
			 pts->pts[pt].file_offset);
	for (int i = 0; i < n; i++)
		o += snprintf(def + o, len - (size_t)o, " %s=%s:%s", a[i].name, a[i].fetch, a[i].type);
	snprintf(def + o, len - (size_t)o, "\n");
	int ret = tracefs__write_file("uprobe_events", def, 1);
	if (ret) {
		char *log = tracefs__error_log();
		CHECK(0, "uprobe_events rejected %s: %s\n%s", def, strerror(-ret), log ? log : "");
		free(log);
		n = ret;
		goto out;
	}
	events[nevents++] = strdup(ev);
out:
	free(def);
	pf_fetch_args__free(a, n);
	pf_points__delete(pts);
	probe_finder__delete(pf);
	return n < 0 ? n : 0;
}

/* The value of name= in a trace line (after the event's "(0x...)"). */
static bool field(const char *line, const char *name, char *out, size_t len)
{
	const char *p = strstr(line, ") ");
	size_t nl = strlen(name);
	while (p && (p = strstr(p, name))) {
		if ((p[-1] == ' ') && p[nl] == '=') {
			const char *v = p + nl + 1;
			size_t n = v[0] == '"' ? (size_t)(strchr(v + 1, '"') - v + 1) : strcspn(v, " \n");
			snprintf(out, len, "%.*s", (int)n, v);
			return true;
		}
		p += nl;
	}
	return false;
}

static void expect_field(const char *line, const char *name, const char *want, const char *what)
{
	char got[256];
	bool ok = field(line, name, got, sizeof(got));
	CHECK(ok && !strcmp(got, want), "%s: %s = %s, want %s (line: %s)", what, name, ok ? got : "(missing)", want,
	      line);
}

/* The events readback() makes, each named after the function it probes
 * and the workload's tag (O0, O2). */
struct rb_events {
	char entry[32], ret[32], many[32], line[32], inner[32], dm[32], bg[32], vla[32], strtol[32];
};

/* The probes of readback(): arguments of every kind the translator emits.
 * 0, or -1 when one could not be made (said by add_probe). */
static int add_readback_probes(const char *wl, const struct rb_events *e)
{
	static const char *const entry_args[] = {
		"req->path:string", "req->len", "req->codes[2]", "req->kind", "req->urgent", "req->prio", "req->in.a",
		"req->in.b", "req->tag:string", "req->codes", "req->next->len", "n", "scale", "pa_global",
		"pa_name:string", "pa_counter", "req",
	};
	static const char *const ret_args[] = { "$retval" };
	static const char *const many_args[] = { "$params" };
	static const char *const line_args[] = { "$vars", "path=req->path:string" };
	static const char *const inner_args[] = { "in.a", "in.b", "k" };
	static const char *const vla_args[] = { "a[2]" };
	static const char *const dm_args[] = { "$retval.q", "$retval.r" };
	static const char *const bg_args[] = { "$retval.v[4]" };
	char vspec[64], spec[64];
	snprintf(vspec, sizeof(vspec), "probeargs_wl.c:%d", marker_line("/* VLA_LINE */"));
	snprintf(spec, sizeof(spec), "probeargs_wl.c:%d", marker_line("/* PROBE_LINE */"));
	if (add_probe(wl, e->entry, "handle", 0, false, entry_args, sizeof(entry_args) / sizeof(*entry_args)) ||
	    add_probe(wl, e->ret, "handle%return", 0, true, ret_args, 1) ||
	    add_probe(wl, e->many, "many", 0, false, many_args, 1) ||
	    add_probe(wl, e->line, spec, 0, false, line_args, 2) ||
	    add_probe(wl, e->inner, "take_inner", 0, false, inner_args, 3) ||
	    add_probe(wl, e->dm, "divmod%return", 0, true, dm_args, 2) ||
	    add_probe(wl, e->bg, "mkbig%return", 0, true, bg_args, 1))
		return -1;
	/* every address of the line: which one runs depends on the compiler */
	struct probe_finder *pf = open_pf(wl);
	struct pf_points *pts = NULL;
	int npts = pf && !probe_finder__find(pf, vspec, 0, &pts) ? pts->n : 0;
	pf_points__delete(pts);
	probe_finder__delete(pf);
	CHECK(npts > 0 && npts < 32, "%s: %d points", vspec, npts);
	for (int j = 0; j < npts && j < 32; j++) {
		char ev[48];
		snprintf(ev, sizeof(ev), "%s_%d", e->vla, j);
		if (add_probe(wl, ev, vspec, j, false, vla_args, 1))
			return -1;
	}
	/* libc's strtol: system-wide (uprobes are per file); lines of other
	 * processes are told apart by the comm */
	static const char *const strtol_args[] = { "nptr:string", "base", "$comm" };
	if (libc_path[0] && add_probe(libc_path, e->strtol, "strtol", 0, false, strtol_args, 3))
		return -1;
	return 0;
}

/* Runs the workload to its end; its stdout says what it computed. */
static void run_readback_workload(const char *wl)
{
	int fds[2];
	if (!CHECK(pipe(fds) == 0, "pipe: %s", strerror(errno)))
		return;
	pid_t pid = fork();
	if (pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		execl(wl, wl, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	char outbuf[4096] = "";
	size_t ol = 0;
	ssize_t r;
	while ((r = read(fds[0], outbuf + ol, sizeof(outbuf) - 1 - ol)) > 0)
		ol += (size_t)r;
	outbuf[ol] = '\0';
	close(fds[0]);
	int st;
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s exited with %#x", wl, st);
	CHECK(!strcmp(outbuf, "handle 0 -> 1093\nhandle 1 -> 2124\nhandle 2 -> 3157\nmany sum 147000044392\n"
			      "strtol 33519\n"),
	      "workload output: %s", outbuf);
}

/* The I-th hit of handle(): every argument as the workload set it. Keeps
 * the running pa_counter and the req pointer for the line probe. */
static void check_entry_line(const char *line, int i, const char *what, long *counter, char *req_ptr, size_t len)
{
	static const char *const paths[3] = { "\"/index.html\"", "\"/a/b/c\"", "\"/x\"" };
	char want[128];
	expect_field(line, "req_path", paths[i], what);
	snprintf(want, sizeof(want), "%d", 11 + i);
	expect_field(line, "req_len", want, what);
	snprintf(want, sizeof(want), "%d", 30 + i);
	expect_field(line, "req_codes_2", want, what);
	expect_field(line, "req_kind", "5", what);
	snprintf(want, sizeof(want), "%d", i & 1);
	expect_field(line, "req_urgent", want, what);
	snprintf(want, sizeof(want), "%d", 17 + i);
	expect_field(line, "req_prio", want, what);
	snprintf(want, sizeof(want), "%ld", -5000000000L - i);
	expect_field(line, "req_in_a", want, what);
	expect_field(line, "req_in_b", "-7", what);
	snprintf(want, sizeof(want), "\"tag%d\"", i);
	expect_field(line, "req_tag", want, what);
	snprintf(want, sizeof(want), "{%d,20,%d,-40}", 10 + i, 30 + i);
	expect_field(line, "req_codes", want, what);
	/* next is NULL on the first call: tracefs stores 0 for a faulting read */
	snprintf(want, sizeof(want), "%d", i ? 11 + i - 1 : 0);
	expect_field(line, "req_next_len", want, what);
	snprintf(want, sizeof(want), "%d", i + 3);
	expect_field(line, "n", want, what);
	snprintf(want, sizeof(want), "%d", 1000 * (i + 1));
	expect_field(line, "scale", want, what);
	expect_field(line, "pa_global", "1234", what);
	expect_field(line, "pa_name", "\"global-name\"", what);
	snprintf(want, sizeof(want), "%ld", *counter);
	expect_field(line, "pa_counter", want, what);
	*counter += 1000 * (i + 1);
	field(line, "req", req_ptr, len);
}

/* The I-th hit of the $vars line probe: what was emitted must hold the
 * workload's values. */
static void check_vars_line(const char *line, int i, const char *what, const char *req_ptr)
{
	static const char *const paths[3] = { "\"/index.html\"", "\"/a/b/c\"", "\"/x\"" };
	char got[64], want[128];
	expect_field(line, "path", paths[i], what);
	if (field(line, "req", got, sizeof(got)))
		CHECK(!strcmp(got, req_ptr), "%s: req = %s, at the entry %s", what, got, req_ptr);
	snprintf(want, sizeof(want), "%d", i + 3);
	if (field(line, "n", got, sizeof(got)))
		CHECK(!strcmp(got, want), "%s: n = %s, want %s", what, got, want);
	snprintf(want, sizeof(want), "%d", 1000 * (i + 1));
	if (field(line, "scale", got, sizeof(got)))
		CHECK(!strcmp(got, want), "%s: scale = %s, want %s", what, got, want);
	snprintf(want, sizeof(want), "%d", 20 + 2 * i);
	if (field(line, "sum", got, sizeof(got)))
		CHECK(!strcmp(got, want), "%s: sum = %s, want %s", what, got, want);
	/* a stack slot at -O0, the immediate \100 at -O2 */
	expect_field(line, "limit", "100", what);
}

/* The instance's trace after the run: each event's hits, with the values. */
static void check_readback_trace(char *trace, const char *wl, const struct rb_events *e)
{
	int n_entry = 0, n_ret = 0, n_many = 0, n_line = 0, n_inner = 0, n_strtol = 0, n_vla = 0, vla_last = -1;
	int n_dm = 0, n_bg = 0;
	const char *comm = strrchr(wl, '/') + 1;
	char req_ptr[3][64] = { "", "", "" };
	long counter = 0;
	char ev[64], want[128];
	for (char *line = strtok(trace, "\n"); line; line = strtok(NULL, "\n")) {
		if (line[0] == '#')
			continue;
		snprintf(ev, sizeof(ev), " %s: (", e->entry);
		if (strstr(line, ev) && n_entry < 3) {
			int i = n_entry++;
			check_entry_line(line, i, e->entry, &counter, req_ptr[i], sizeof(req_ptr[i]));
			continue;
		}
		snprintf(ev, sizeof(ev), " %s: (", e->ret);
		if (strstr(line, ev) && n_ret < 3) {
			static const char *const rets[3] = { "1093", "2124", "3157" };
			expect_field(line, "retval", rets[n_ret++], e->ret);
			continue;
		}
		snprintf(ev, sizeof(ev), " %s: (", e->many);
		if (strstr(line, ev) && n_many < 3) {
			int i = n_many++;
			snprintf(want, sizeof(want), "%d", i);
			expect_field(line, "a1", want, e->many);
			expect_field(line, "a2", "2", e->many);
			expect_field(line, "a6", "6", e->many);
			snprintf(want, sizeof(want), "%d", 70 + i);
			expect_field(line, "a7", want, e->many);
			snprintf(want, sizeof(want), "%ld", 8000000000L + i);
			expect_field(line, "a8", want, e->many);
			continue;
		}
		snprintf(ev, sizeof(ev), " %s: (", e->strtol);
		char got[64];
		snprintf(want, sizeof(want), "\"%.15s\"", comm);
		if (strstr(line, ev) && field(line, "comm", got, sizeof(got)) && !strcmp(got, want)) {
			n_strtol++;
			expect_field(line, "nptr", "\"12345\"", e->strtol);
			expect_field(line, "base", "13", e->strtol);
			continue;
		}
		snprintf(ev, sizeof(ev), " %s_", e->vla);
		if (strstr(line, ev)) {
			/* a[i] = i * 7 + n with n = 5 + call; one call may pass
			 * several addresses of the line */
			char g[32];
			int v = field(line, "a_2", g, sizeof(g)) ? atoi(g) : -1;
			if (v != vla_last) {
				n_vla++;
				vla_last = v;
			}
			CHECK(v == 14 + 5 + n_vla - 1, "%s: a_2 = %d at call %d (line: %s)", e->vla, v, n_vla, line);
			continue;
		}
		snprintf(ev, sizeof(ev), " %s: (", e->dm);
		if (strstr(line, ev) && n_dm < 3) {
			int i = n_dm++;
			snprintf(want, sizeof(want), "%d", (100 + i) / 7);
			expect_field(line, "retval_q", want, e->dm);
			snprintf(want, sizeof(want), "%d", (100 + i) % 7);
			expect_field(line, "retval_r", want, e->dm);
			continue;
		}
		snprintf(ev, sizeof(ev), " %s: (", e->bg);
		if (strstr(line, ev) && n_bg < 3) {
			snprintf(want, sizeof(want), "%d", (3 + n_bg++) * 5);
			expect_field(line, "retval_v_4", want, e->bg);
			continue;
		}
		snprintf(ev, sizeof(ev), " %s: (", e->inner);
		if (strstr(line, ev) && n_inner < 3) {
			int i = n_inner++;
			snprintf(want, sizeof(want), "%ld", -5000000000L - i);
			expect_field(line, "in_a", want, e->inner);
			expect_field(line, "in_b", "-7", e->inner);
			snprintf(want, sizeof(want), "%d", i + 2);
			expect_field(line, "k", want, e->inner);
			continue;
		}
		snprintf(ev, sizeof(ev), " %s: (", e->line);
		if (strstr(line, ev) && n_line < 3) {
			int i = n_line++;
			check_vars_line(line, i, e->line, req_ptr[i]);
			continue;
		}
	}
	CHECK(n_entry == 3 && n_ret == 3 && n_many == 3 && n_line == 3 && n_inner == 3,
	      "%s: hits entry %d ret %d many %d line %d take_inner %d", wl, n_entry, n_ret, n_many, n_line, n_inner);
	CHECK(n_strtol == (libc_path[0] ? 1 : 0), "%s: strtol hits %d", wl, n_strtol);
	CHECK(n_vla == 3, "%s: vla_sum hits %d", wl, n_vla);
	CHECK(n_dm == 3 && n_bg == 3, "%s: divmod hits %d, mkbig hits %d", wl, n_dm, n_bg);
}

static void readback(const char *wl, const char *tag)
{
	struct rb_events e;
	snprintf(e.entry, sizeof(e.entry), "handle_%s", tag);
	snprintf(e.ret, sizeof(e.ret), "handle_ret_%s", tag);
	snprintf(e.many, sizeof(e.many), "many_%s", tag);
	snprintf(e.line, sizeof(e.line), "line_%s", tag);
	snprintf(e.inner, sizeof(e.inner), "inner_%s", tag);
	snprintf(e.dm, sizeof(e.dm), "divmod_%s", tag);
	snprintf(e.bg, sizeof(e.bg), "mkbig_%s", tag);
	snprintf(e.vla, sizeof(e.vla), "vla_%s", tag);
	snprintf(e.strtol, sizeof(e.strtol), "strtol_%s", tag);
	if (add_readback_probes(wl, &e))
		goto out;

	char rel[512], path[4096];
	snprintf(rel, sizeof(rel), "instances/%s", group);
	if (tracefs__path(path, sizeof(path), rel) || mkdir(path, 0755)) {
		CHECK(0, "mkdir %s: %s", path, strerror(errno));
		goto out;
	}
	instance_made = true;
	snprintf(rel, sizeof(rel), "instances/%s/events/%s/enable", group, group);
	CHECK(tracefs__write_file(rel, "1", 0) == 0, "enable %s", rel);

	run_readback_workload(wl);

	snprintf(rel, sizeof(rel), "instances/%s/trace", group);
	char *trace = tracefs__read_file(rel, NULL);
	CHECK(trace != NULL, "read %s", rel);
	if (trace)
		check_readback_trace(trace, wl, &e);
	free(trace);
out:
	cleanup();
}

/* ---- 3. libc ---- */
static void libc(void)
{
	char path[4096] = "", line[4096];
	FILE *f = fopen("/proc/self/maps", "r");
	while (f && fgets(line, sizeof(line), f)) {
		char *p = strchr(line, '/');
		if (p && strstr(p, "/libc.so.6")) {
			p[strcspn(p, "\n")] = '\0';
			snprintf(path, sizeof(path), "%s", p);
			break;
		}
	}
	if (f)
		fclose(f);
	if (!path[0]) {
		printf("SKIP libc: not mapped\n");
		return;
	}
	struct probe_finder *pf = open_pf(path);
	if (!pf)
		return;
	if (!probe_finder__has_dwarf(pf)) {
		printf("SKIP libc: %s (install libc6-dbg)\n", probe_finder__strerror(pf));
		probe_finder__delete(pf);
		return;
	}
	snprintf(libc_path, sizeof(libc_path), "%s", path);
	static const char *const params[] = { "$params" };
	expect_args(pf, "malloc", params, 1, "bytes=%di:u64", "malloc $params");
	static const char *const strdup_args[] = { "$retval:string" };
	expect_args(pf, "strdup%return", strdup_args, 1, "retval=+0($retval):string", "strdup%return");
	static const char *const fopen_args[] = { "$params", "filename:string" };
	expect_args(pf, "fopen", fopen_args, 2, "filename=%di:x64 mode=%si:x64 filename_1=+0(%di):string",
		    "fopen $params");
	expect_args(pf, "strtol", params, 1, "nptr=%di:x64 endptr=%si:x64 base=%dx:s32", "strtol $params");
	static const char *const fileno_args[] = { "$retval", "$retval->_fileno" };
	expect_args(pf, "fopen%return", fileno_args, 2, "retval=$retval:x64 retval__fileno=+112($retval):s32",
		    "fopen%return");
	probe_finder__delete(pf);
}

int main(void)
{
	char exe[2048];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 64);
	if (n <= 0)
		return 1;
	exe[n] = 0;
	*strrchr(exe, '/') = 0;	/* build/tests */
	snprintf(wl_dir, sizeof(wl_dir), "%s/workloads", exe);
	const char *env = getenv("PPROBE_WORKLOADS");
	if (env)
		snprintf(wl_dir, sizeof(wl_dir), "%s", env);
	/* the source: ctest runs us in tests/unit */
	snprintf(src_path, sizeof(src_path), "../workloads/probeargs_wl.c");
	if (access(src_path, R_OK))
		return check_skip("run from tests/unit (the workload source %s is not there)", src_path);
	elf_version(EV_CURRENT);

	static const char *const builds[2] = { "O0", "O2" };
	char wl[2][4200];
	for (int i = 0; i < 2; i++) {
		snprintf(wl[i], sizeof(wl[i]), "%s/probeargs_wl_%s", wl_dir, builds[i]);
		if (access(wl[i], X_OK))
			return check_skip("%s not built", wl[i]);
		exact(wl[i]);
	}
	kernel(wl[1]);
	libc();

	char up[4096];
	if (geteuid() != 0 || tracefs__path(up, sizeof(up), "uprobe_events") || access(up, W_OK)) {
		printf("SKIP read-back through uprobes: %s\n",
		       geteuid() ? "not root" : "no writable tracefs uprobe_events (CONFIG_UPROBE_EVENTS)");
	} else {
		snprintf(group, sizeof(group), "pprobe_test_pa%d", (int)getpid());
		sweep_stale();
		atexit(cleanup);
		static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGSEGV, SIGBUS, SIGABRT };
		for (size_t i = 0; i < sizeof(sigs) / sizeof(*sigs); i++)
			signal(sigs[i], on_signal);
		for (int i = 0; i < 2; i++)
			readback(wl[i], builds[i]);
		/* nothing of ours is left */
		char *ev = tracefs__read_file("uprobe_events", NULL);
		CHECK(ev && !strstr(ev, group), "left in uprobe_events: %s", ev ? ev : "?");
		free(ev);
	}
	return check_summary();
}
