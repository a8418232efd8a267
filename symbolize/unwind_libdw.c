/* libdw backend: one Dwfl per process, modules reported from the maps when
 * the executable mappings change, thread state attached once; every sample
 * only swaps the per-sample context the callbacks read from. */
#include <dwarf.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pprobe/safe_open.h"
#include "sym_internal.h"
#include "unwind_internal.h"

#define CFI_CACHE 4096

struct udw {
	Dwfl *dwfl;
	Elf *ebl_elf;		/* tiny in-memory x86-64 ELF header for the backend */
	Elf64_Ehdr ehdr;
	struct { const struct ufile *file; uint64_t bias; } *rep;	/* reported modules */
	int nr_rep, cap_rep;
	/* pc -> has CFI (0 unknown, 1 yes, 2 no), direct mapped */
	uint64_t cfi_pc[CFI_CACHE];
	uint8_t cfi_has[CFI_CACHE];
};

/* Modules are reported with dwfl_report_module and get their ELF here: an
 * in-memory Elf over the unwinder's one mapping of the file, so no process
 * holds a file descriptor per module and all processes share the pages. */
static int cb_find_elf(Dwfl_Module *mod, void **userdata, const char *modname,
		       Dwarf_Addr base, char **file_name, Elf **elfp)
{
	const struct ufile *f = *userdata;
	*elfp = NULL;
	if (!f || !f->data)
		return -1;
	*elfp = elf_memory((char *)f->data, f->size);
	if (*elfp && f->open_path && strncmp(f->open_path, "/proc/self/fd/", 14))
		*file_name = strdup(f->open_path);	/* for .gnu_debuglink lookups */
	return -1;
}

static bool has_debug_frame(int fd, const char *path)
{
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	GElf_Shdr sh;
	struct stat st = { 0 };
	char why[160];
	bool found = e && elf_file__section(e, ".debug_frame", &sh) && sh.sh_type == SHT_PROGBITS;
	/* libdw inflates every compressed section of the file it is given */
	if (found && (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
		      !elf_file__compressed_sane(e, (uint64_t)st.st_size, why, sizeof(why)))) {
		if (S_ISREG(st.st_mode))
			safe_open__note(path ? path : "a separate debug file", why);
		found = false;
	}
	elf_end(e);
	return found;
}

/* The separate debug file of f as the symbolizer finds it (build-id,
 * debuglink, debuginfod: debuginfo.c), opened as a file the target may
 * control: libdwfl's own lookup opens candidates under /proc/PID/root with a
 * blocking open(2), which a FIFO there would hang. */
static int find_debug_file(struct ufile *f, char **name)
{
	const char *how = NULL;
	const void *id = NULL;
	char *path = NULL;
	int fd = -1;

	*name = NULL;
	if (!f || !f->data)
		return -1;
	Elf *e = elf_memory((char *)f->data, f->size);
	if (!e)
		return -1;
	ssize_t idlen = dwelf_elf_gnu_build_id(e, &id);
	const char *at = f->open_path && strncmp(f->open_path, "/proc/self/fd/", 14) ? f->open_path : f->path;
	path = debuginfo__find(at, f->path, e, id,
			       idlen > 0 ? (size_t)idlen : 0, &how);
	elf_end(e);
	if (path && (fd = safe_open_file(path)) >= 0)
		*name = path;
	else
		free(path);
	return fd;
}

/* The unwinder wants a separate debug file only for its .debug_frame
 * (.eh_frame is in the loaded file). Distributions' debug files usually
 * have none, and opening one makes libdw inflate every compressed
 * .debug_* section of it, once per process: libc6-dbg's took 90% of the
 * unwinder's time on a compiler build, where each cc1 is a new process.
 * So a debug file without .debug_frame is looked at once per file and
 * then never given to libdw. */
static int cb_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			     Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			     GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	struct ufile *f = *userdata;
	if (f && f->debug_file_cfi < 0)
		return -1;
	int fd = find_debug_file(f, debuginfo_file_name);
	if (!f || f->debug_file_cfi > 0)
		return fd;
	f->debug_file_cfi = fd >= 0 && has_debug_frame(fd, *debuginfo_file_name) ? 1 : -1;
	if (f->debug_file_cfi < 0 && fd >= 0) {
		close(fd);
		free(*debuginfo_file_name);
		*debuginfo_file_name = NULL;
		fd = -1;
	}
	return fd;
}

void ufile__look_for_debug_frame(struct ufile *f)
{
	if (f->debug_file_cfi || f->has_debug_frame || f->has_dwarf)
		return;
	char *name = NULL;
	int fd = find_debug_file(f, &name);
	f->debug_file_cfi = fd >= 0 && has_debug_frame(fd, name) ? 1 : -1;
	if (fd >= 0)
		close(fd);
	free(name);
}

static char *debuginfo_path;	/* unused: find_debug_file looks */
static const Dwfl_Callbacks dwfl_cbs = {
	.find_elf = cb_find_elf,
	.find_debuginfo = cb_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

static pid_t cb_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct uproc *p = arg;
	if (*thread_argp)
		return 0;
	*thread_argp = p;
	return p->pid;
}

static bool cb_get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	*thread_argp = arg;
	return true;
}

static bool cb_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct uproc *p = arg;
	uint64_t v;
	if (!p->ctx || !uctx__read_word(p->ctx, addr, &v))
		return false;
	*result = v;
	return true;
}

static bool cb_set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct uproc *p = arg;
	const struct unwind_regs *r = p->ctx->init_regs ? p->ctx->init_regs : p->ctx->regs;

	/* rip is also DWARF register 16: the .plt CFA expression reads it */
	for (unsigned i = 0; i <= UNWIND_REG_IP; i++) {
		if (!(r->valid & (1u << i)))
			continue;
		Dwarf_Word v = r->r[i];
		if (!dwfl_thread_state_registers(thread, (int)i, 1, &v))
			return false;
	}
	dwfl_thread_state_register_pc(thread, p->ctx->init_regs && p->ctx->init_pc ? p->ctx->init_pc
								  : r->r[UNWIND_REG_IP]);
	return true;
}

static const Dwfl_Thread_Callbacks thread_cbs = {
	.next_thread = cb_next_thread,
	.get_thread = cb_get_thread,
	.memory_read = cb_memory_read,
	.set_initial_registers = cb_set_initial_registers,
};

void udw__free(struct uproc *p)
{
	struct udw *d = p->backend;
	if (!d)
		return;
	dwfl_end(d->dwfl);
	elf_end(d->ebl_elf);
	free(d->rep);
	free(d);
	p->backend = NULL;
}

static bool reported(const struct udw *d, const struct ufile *f, uint64_t bias)
{
	for (int i = 0; i < d->nr_rep; i++)
		if (d->rep[i].file == f && d->rep[i].bias == bias)
			return true;
	return false;
}

static bool still_mapped(const struct uproc *p, const struct ufile *f, uint64_t bias)
{
	for (int i = 0; i < p->nr_mods; i++)
		if (p->mods[i].file == f && p->mods[i].bias == bias)
			return true;
	return false;
}

static int udw__create(struct udw *d, struct uproc *p)
{
	d->dwfl = dwfl_begin(&dwfl_cbs);
	if (!d->dwfl)
		return -ENOMEM;
	if (!dwfl_attach_state(d->dwfl, d->ebl_elf, p->pid, &thread_cbs, p)) {
		dwfl_end(d->dwfl);
		d->dwfl = NULL;
		return -EIO;
	}
	d->nr_rep = 0;
	return 0;
}

/* Modules are added with dwfl_report_begin_add: libdw cannot re-report an
 * existing module (dwfl_report_elf then fails with "overlaps an existing
 * module" and drops it), so a process whose maps lost a module (dlclose,
 * munmap) gets a fresh Dwfl instead; new mappings only add modules. */
int udw__sync(struct uproc *p)
{
	struct udw *d = p->backend;
	int err;

	if (!d) {
		d = calloc(1, sizeof(*d));
		if (!d)
			return -ENOMEM;
		memcpy(d->ehdr.e_ident, ELFMAG, SELFMAG);
		d->ehdr.e_ident[EI_CLASS] = ELFCLASS64;
		d->ehdr.e_ident[EI_DATA] = ELFDATA2LSB;
		d->ehdr.e_ident[EI_VERSION] = EV_CURRENT;
		d->ehdr.e_type = ET_EXEC;
		d->ehdr.e_machine = EM_X86_64;
		d->ehdr.e_version = EV_CURRENT;
		d->ehdr.e_ehsize = sizeof(Elf64_Ehdr);
		d->ebl_elf = elf_memory((char *)&d->ehdr, sizeof(d->ehdr));
		if (!d->ebl_elf) {
			free(d);
			return -ENOMEM;
		}
		p->backend = d;
	}
	for (int i = 0; d->dwfl && i < d->nr_rep; i++) {
		if (!still_mapped(p, d->rep[i].file, d->rep[i].bias)) {
			dwfl_end(d->dwfl);
			d->dwfl = NULL;
		}
	}
	if (!d->dwfl && (err = udw__create(d, p)))
		return err;
	dwfl_report_begin_add(d->dwfl);
	for (int i = 0; i < p->nr_mods; i++) {
		const struct umod *m = &p->mods[i];
		if (reported(d, m->file, m->bias))
			continue;
		if (d->nr_rep == d->cap_rep) {
			int cap = d->cap_rep ? 2 * d->cap_rep : 32;
			void *n = realloc(d->rep, cap * sizeof(*d->rep));
			if (!n)
				return -ENOMEM;
			d->rep = n;
			d->cap_rep = cap;
		}
		d->rep[d->nr_rep].file = m->file;
		d->rep[d->nr_rep].bias = m->bias;
		d->nr_rep++;
		/* a module that fails is simply absent: its frames end as no-cfi */
		Dwfl_Module *mod = dwfl_report_module(d->dwfl, m->file->name,
						      m->bias + m->file->first_load, m->high);
		void **ud;
		if (mod && dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL))
			*ud = m->file;
	}
	if (dwfl_report_end(d->dwfl, NULL, NULL))
		return -EIO;
	/* the fast path steps only where libdw has the module as we do */
	for (int i = 0; i < p->nr_mods; i++) {
		struct umod *m = &p->mods[i];
		Dwfl_Module *mod = dwfl_addrmodule(d->dwfl, m->low);
		void **ud;
		Dwarf_Addr start, end;
		m->in_dwfl = mod && dwfl_module_info(mod, &ud, &start, &end, NULL, NULL, NULL, NULL) &&
			     *ud == m->file && start == m->low && end == m->high;
	}
	memset(d->cfi_has, 0, sizeof(d->cfi_has));
	return 0;
}

struct walk {
	struct uctx *c;
	struct udw *d;
	uint64_t *ips;
	int max, n, fp;
	bool prev_nocfi;	/* the previous frame's pc had no CFI */
	bool prev_memfail;
	uint64_t prev_pc, prev_lpc;
	bool forced;
	enum unwind_end end;
	const char *end_dso;
	/* a step of ours past a frame without CFI: the walk is resumed from
	 * the caller's registers (pc: return address - 1, for its CFI row) */
	bool resume, resumed_first;
	int nr_resumes;
	uint64_t resume_ra;
	struct unwind_regs resume_regs;
};

/* The registers libdw knows of frame st, at pc; false where it may not be
 * stepped any more (too many resumes) or its sp is unknown */
static bool frame_regs(const struct walk *w, Dwfl_Frame *st, uint64_t pc, struct unwind_regs *r)
{
	r->valid = 0;
	if (w->nr_resumes >= UNWIND_MAX_NOCFI_STEPS)
		return false;
	for (unsigned i = 0; i < UNWIND_REG_IP; i++) {
		Dwarf_Word v;
		if (dwfl_frame_reg(st, i, &v) == 0) {
			r->r[i] = v;
			r->valid |= 1u << i;
		}
	}
	r->r[UNWIND_REG_IP] = pc;
	r->valid |= 1u << UNWIND_REG_IP;
	return r->valid & (1u << UNWIND_REG_SP);
}

/* Have the walk resumed from r, the caller's registers (pc: a return
 * address) */
static bool resume_at(struct walk *w, struct unwind_regs *r)
{
	w->resume_ra = r->r[UNWIND_REG_IP];
	r->r[UNWIND_REG_IP] -= 1;	/* inside the call: the caller's CFI row */
	w->resume_regs = *r;
	w->resume = true;
	return true;
}

/* The frame st at pc (exact for the sampled frame, else a return address)
 * has no CFI: step out of it ourselves, and have the walk resumed from the
 * caller. */
static bool step_nocfi(struct walk *w, Dwfl_Frame *st, uint64_t pc)
{
	struct unwind_regs r;
	if (uctx__is_entry(w->c, w->prev_lpc) || uctx__is_root(w->c, w->prev_lpc) ||
	    !frame_regs(w, st, pc, &r) || !uctx__nocfi_step(w->c, &r))
		return false;
	return resume_at(w, &r);
}

/* The frame st at return address pc is runtime.asmcgocall's, which ran C
 * on the system stack: the walk resumes from its caller on the
 * goroutine's stack (unwind_go.c). */
static bool step_cgo(struct walk *w, Dwfl_Frame *st, uint64_t pc)
{
	struct unwind_regs r;
	if (!frame_regs(w, st, pc, &r) || uctx__go_cgo_step(w->c, &r) <= 0)
		return false;
	return resume_at(w, &r);
}

/* The frame st at return address pc is runtime.systemstack_switch's
 * entry (no call left it: cgocallback's frame on the goroutine's stack
 * returns there): stepped by Go's table at pc itself, its frame size 0,
 * and recorded at pc + 1 so that it is named by its own function. */
static bool step_switch(struct walk *w, Dwfl_Frame *st, uint64_t pc)
{
	struct unwind_regs r;
	if (!frame_regs(w, st, pc, &r) || uctx__go_step(w->c, &r) <= 0 || !uctx__is_exec(w->c, r.r[UNWIND_REG_IP]))
		return false;
	w->ips[w->n - 1] = pc + 1;
	return resume_at(w, &r);
}

/* pc's .eh_frame row in its file's compiled rows (unwind_fast.c), where
 * libdw has the module as we do; else NULL (ask libdw). */
static const struct cfi_row *row_at(const struct uctx *c, uint64_t pc)
{
	const struct umod *um = uproc__find_mod(c->proc, pc);
	return um && um->in_dwfl ? ufile__cfi_row(um->file, pc - um->bias) : NULL;
}

/* Does pc have CFI? .eh_frame is asked through the file's compiled rows
 * (unwind_fast.c), where libdw has the module as we do: libdw's own view of
 * a file is made per process, and its first lookup in a library whose
 * .eh_frame_hdr follows .eh_frame (lld's layout: libdw then reads every
 * FDE) costs 50-100 ms in libLLVM. */
static bool has_cfi(struct udw *d, const struct uctx *c, Dwfl *dwfl, uint64_t pc)
{
	unsigned h = (unsigned)((pc ^ (pc >> 12)) % CFI_CACHE);
	if (d->cfi_has[h] && d->cfi_pc[h] == pc)
		return d->cfi_has[h] == 1;

	bool has = false;
	const struct umod *um = uproc__find_mod(c->proc, pc);
	const struct cfi_row *row = um && um->in_dwfl ? ufile__cfi_row(um->file, pc - um->bias) : NULL;
	/* libdw has found no .debug_frame for the file (in another process:
	 * its view is per process, and looking again reads the file's
	 * sections again) */
	bool no_debug_frame = um && ufile__no_debug_frame(um->file);
	Dwfl_Module *mod;
	if (row && row->state != CFI_ROW_ABSENT) {
		has = true;
	} else if ((mod = dwfl_addrmodule(dwfl, pc))) {
		Dwarf_Addr bias;
		Dwarf_Frame *fr;
		Dwarf_CFI *cfi = row ? NULL : dwfl_module_eh_cfi(mod, &bias);
		if (cfi && dwarf_cfi_addrframe(cfi, pc - bias, &fr) == 0) {
			free(fr);
			has = true;
		}
		if (!has && !no_debug_frame && (cfi = dwfl_module_dwarf_cfi(mod, &bias)) &&
		    dwarf_cfi_addrframe(cfi, pc - bias, &fr) == 0) {
			free(fr);
			has = true;
		}
	}
	d->cfi_pc[h] = pc;
	d->cfi_has[h] = has ? 1 : 2;
	return has;
}

/* Does the CFI at lookup pc say the return address is undefined (the ABI's
 * mark of the outermost frame)? libdw also ends a walk "normally" when it
 * cannot evaluate a CFA expression; that is no complete stack. */
static bool cfi_marks_outermost(const struct uctx *c, Dwfl *dwfl, uint64_t pc)
{
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, pc);
	const struct cfi_row *row = row_at(c, pc);
	Dwarf_CFI *cfis[2];
	Dwarf_Addr bias[2];
	bool res = false;

	if (!mod)
		return false;
	for (int i = 0; i < 2 && !res; i++) {
		Dwarf_Frame *fr;
		if (!i && row && row->state == CFI_ROW_FAST) {
			res = cfi_row__ra_undefined(row);	/* as has_cfi */
			continue;
		}
		/* .debug_frame (maybe a separate debug file) only if needed */
		cfis[i] = i ? dwfl_module_dwarf_cfi(mod, &bias[i]) : dwfl_module_eh_cfi(mod, &bias[i]);
		if (!cfis[i] || dwarf_cfi_addrframe(cfis[i], pc - bias[i], &fr))
			continue;
		int ra = dwarf_frame_info(fr, NULL, NULL, NULL);
		Dwarf_Op mem[3], *ops;
		size_t nops;
		if (ra >= 0 && dwarf_frame_register(fr, ra, mem, &ops, &nops) == 0)
			res = nops == 0 && ops == mem;
		free(fr);
	}
	return res;
}

static int frame_cb(Dwfl_Frame *st, void *arg)
{
	struct walk *w = arg;
	Dwarf_Addr pc;
	bool act;

	/* This frame was produced (by the previous callback's dwfl_frame_pc,
	 * which unwinds one frame ahead to learn isactivation, or right after
	 * the first callback) before we get here: a stack read that failed
	 * meanwhile means CFI could not read past the available stack and
	 * libdw fell back to its frame-pointer guess, which we do not trust. */
	if (w->resumed_first) {
		/* the first frame of a resumed walk: our step made it */
		w->resumed_first = false;
		if (!dwfl_frame_pc(st, &pc, &act))
			return DWARF_CB_ABORT;
		pc = w->resume_ra;
		act = false;
		goto record;
	}
	if (w->n > 0 && w->prev_nocfi && uctx__is_entry(w->c, w->prev_lpc)) {
		/* the previous frame is _start (no CFI): whatever libdw's
		 * frame-pointer guess found above it is not a frame */
		w->forced = true;
		w->end = UNWIND_COMPLETE;
		return DWARF_CB_ABORT;
	}
	if (w->n > 0 && uctx__is_root(w->c, w->prev_lpc)) {
		/* Go: where the runtime's own traceback stops */
		w->forced = true;
		w->end = UNWIND_COMPLETE;
		return DWARF_CB_ABORT;
	}
	if (w->n > 0 && w->c->mem_fail && !w->prev_memfail && !w->prev_nocfi) {
		w->forced = true;
		w->end = UNWIND_TRUNCATED;
		return DWARF_CB_ABORT;
	}
	w->prev_memfail = w->c->mem_fail;
	if (!dwfl_frame_pc(st, &pc, &act))
		return DWARF_CB_ABORT;
record:
	if (w->n > 0) {
		if (!maps__find(w->c->maps, pc) || !uctx__is_exec(w->c, pc)) {
			w->forced = true;
			if (w->prev_nocfi) {
				w->end = UNWIND_NO_CFI;
				w->end_dso = uctx__dso_name(w->c, w->prev_pc);
			} else {
				w->end = UNWIND_UNMAPPED;
			}
			return DWARF_CB_ABORT;
		}
		if (w->prev_nocfi)
			w->fp++;
		if (w->n >= w->max) {
			w->forced = true;
			w->end = UNWIND_MAX_DEPTH;
			return DWARF_CB_ABORT;
		}
		w->ips[w->n++] = pc;
	} else {
		w->n = 1;	/* ips[0] already holds the sampled ip */
	}
	w->prev_pc = pc;
	w->prev_lpc = act ? pc : pc - 1;
	if (w->n > 1 && !act && uctx__is_go_pc(w->c, pc) &&
	    (step_cgo(w, st, pc) || (uctx__go_switch_pc(w->c, pc) && step_switch(w, st, pc))))
		return DWARF_CB_ABORT;
	w->prev_nocfi = !has_cfi(w->d, w->c, dwfl_thread_dwfl(dwfl_frame_thread(st)), w->prev_lpc);
	if (w->prev_nocfi && step_nocfi(w, st, pc))
		return DWARF_CB_ABORT;
	return DWARF_CB_OK;
}

struct step1 {
	int n;
	bool ok;
	struct unwind_regs *out;
};

static int step1_cb(Dwfl_Frame *st, void *arg)
{
	struct step1 *s = arg;
	Dwarf_Addr pc;

	if (s->n++ == 0)
		return DWARF_CB_OK;	/* the frame stepped from */
	if (!dwfl_frame_pc(st, &pc, NULL))
		return DWARF_CB_ABORT;
	s->out->valid = 0;
	for (unsigned i = 0; i < UNWIND_NR_REGS; i++) {
		Dwarf_Word v;
		if (dwfl_frame_reg(st, i, &v) == 0) {
			s->out->r[i] = v;
			s->out->valid |= 1u << i;
		}
	}
	/* libdw's pc is the return address register's value */
	s->ok = (s->out->valid & (1u << UNWIND_REG_IP)) && s->out->r[UNWIND_REG_IP] == pc;
	return DWARF_CB_ABORT;
}

bool udw__step(struct uctx *c, const struct unwind_regs *r, bool initial, struct unwind_regs *out)
{
	struct udw *d = c->proc->backend;
	struct step1 s = { .out = out };

	if (c->mem_fail)
		return false;	/* a new failure would not show */
	c->init_regs = r;
	c->init_pc = initial ? 0 : r->r[UNWIND_REG_IP] - 1;
	dwfl_getthread_frames(d->dwfl, c->proc->pid, step1_cb, &s);
	c->init_regs = NULL;
	c->init_pc = 0;
	if (c->mem_fail) {
		c->mem_fail = false;
		c->fail_addr = 0;
		return false;
	}
	return s.ok;
}

/* The walk from c's registers (or, after the fast path, from frame n's). */
static int walk(struct uctx *c, uint64_t *ips, int max, struct unwind_result *res, bool fast)
{
	struct udw *d = c->proc->backend;
	struct walk w = { .c = c, .d = d, .ips = ips, .max = max };
	int n = 0;

	if (fast && ufast__walk(c, ips, max, &n, &w.resume_regs, res))
		return n;
	if (n > 0) {
		/* libdw goes on from frame n as from its own step: recorded as
		 * the return address it is, its row looked up at pc - 1 */
		w.n = n;
		w.fp = w.nr_resumes = res->fp_frames;	/* the fast walk's steps without CFI */
		w.resume_ra = w.resume_regs.r[UNWIND_REG_IP];
		w.resumed_first = true;
		c->init_regs = &w.resume_regs;
		c->init_pc = w.resume_ra - 1;
	}
	int rc = dwfl_getthread_frames(d->dwfl, c->proc->pid, frame_cb, &w);
	c->init_regs = NULL;
	c->init_pc = 0;
	while (w.resume) {
		/* go on from the caller of a frame without CFI */
		w.resume = false;
		w.resumed_first = true;
		w.nr_resumes++;
		w.fp++;
		w.prev_nocfi = false;
		w.prev_memfail = false;
		c->mem_fail = false;	/* libdw's look-ahead past that frame */
		c->init_regs = &w.resume_regs;
		rc = dwfl_getthread_frames(d->dwfl, c->proc->pid, frame_cb, &w);
		c->init_regs = NULL;
	}
	res->fp_frames = w.fp;
	if (w.n < 1)
		w.n = 1;
	if (!w.forced && (uctx__is_root(c, w.prev_lpc) || (w.prev_nocfi && uctx__is_entry(c, w.prev_lpc)))) {
		/* stopped in _start of the executable or ld.so: outermost */
		res->end = UNWIND_COMPLETE;
	} else if (w.forced) {
		res->end = w.end;
		res->end_dso = w.end_dso;
	} else if (rc == 0) {
		if (c->mem_fail && !w.prev_memfail && !w.prev_nocfi) {
			/* the last step failed to read the stack and libdw's
			 * frame-pointer guess found a zero return address */
			res->end = UNWIND_TRUNCATED;
		} else if (w.prev_nocfi) {
			res->end = UNWIND_NO_CFI;
			res->end_dso = uctx__dso_name(c, w.prev_pc);
		} else if (!cfi_marks_outermost(c, d->dwfl, w.prev_lpc)) {
			res->end = UNWIND_ERROR;
			res->end_dso = uctx__dso_name(c, w.prev_pc);
		} else {
			res->end = UNWIND_COMPLETE;
		}
	} else if (w.prev_nocfi) {
		res->end = UNWIND_NO_CFI;
		res->end_dso = uctx__dso_name(c, w.prev_pc);
	} else if (c->mem_fail) {
		res->end = UNWIND_TRUNCATED;
	} else {
		res->end = UNWIND_ERROR;
		res->end_dso = uctx__dso_name(c, w.prev_pc);
	}
	return w.n;
}

/* PPROBE_UNWIND_CHECK: the same sample walked again by libdw alone, from
 * the same bytes (the live stack already read is kept, so whether it was
 * read is not compared), and compared. */
static void check_walk(struct uctx *c, const uint64_t *ips, int n, const struct unwind_result *res,
		       int max, bool fail0, uint64_t fail_addr0, bool live0)
{
	struct unwind_check *st = &c->u->check_stats;
	uint64_t *alt = malloc((size_t)max * sizeof(*alt));
	struct unwind_result r2 = { .nr = 1, .end = UNWIND_ERROR };
	bool fail = c->mem_fail, live = c->used_live;
	uint64_t fail_addr = c->fail_addr;

	if (!alt)
		return;
	alt[0] = ips[0];
	c->mem_fail = fail0;
	c->fail_addr = fail_addr0;
	c->used_live = live0;
	/* a goroutine's stack (cgo), read once a walk: the same bytes again */
	uint8_t *g = c->alt;
	uint64_t g_lo = c->alt_lo, g_len = c->alt_len;
	c->alt_again = g;
	c->alt_again_lo = g_lo;
	c->alt_again_len = g_len;
	c->alt = NULL;
	c->alt_len = 0;
	int n2 = walk(c, alt, max, &r2, false);
	if (c->alt_again) {
		/* not taken: the first walk's again */
		free(c->alt);
		c->alt_again = NULL;
		c->alt = g;
		c->alt_lo = g_lo;
		c->alt_len = g_len;
	}	/* else the second walk has it (or dropped it), freed with c */
	st->walks++;
	int same = n2 == n && r2.end == res->end && r2.fp_frames == res->fp_frames &&
		   !memcmp(alt, ips, (size_t)n * sizeof(*ips)) &&
		   (r2.end_dso == res->end_dso || (r2.end_dso && res->end_dso && !strcmp(r2.end_dso, res->end_dso)));
	if (!same && st->differ++ == 0) {
		int k = 0;
		while (k < n && k < n2 && alt[k] == ips[k])
			k++;
		/* the frame before the first difference: where to look */
		uint64_t at = k > 0 ? alt[k - 1] : alt[0];
		const struct umod *um = uproc__find_mod(c->proc, k > 1 ? at - 1 : at);
		snprintf(st->first, sizeof(st->first),
			 "pid %d: fast %d frames %s (fp %d), libdw %d frames %s (fp %d); "
			 "first difference at frame %d: %#llx vs %#llx, after %s+%#llx%s",
			 (int)c->proc->pid, n, unwind_end__str(res->end), res->fp_frames, n2, unwind_end__str(r2.end),
			 r2.fp_frames, k, k < n ? (unsigned long long)ips[k] : 0ULL,
			 k < n2 ? (unsigned long long)alt[k] : 0ULL, um && um->file->name ? um->file->name : "?",
			 (unsigned long long)(um ? at - um->bias : at), um && !um->in_dwfl ? " (not in libdw's modules)" : "");
	}
	c->mem_fail = fail;
	c->fail_addr = fail_addr;
	c->used_live = live;
	free(alt);
}

int udw__unwind(struct uctx *c, uint64_t *ips, int max, struct unwind_result *res)
{
	bool fail0 = c->mem_fail, live0 = c->used_live;
	uint64_t fail_addr0 = c->fail_addr;
	int n = walk(c, ips, max, res, c->u->fast);
	if (c->u->check)
		check_walk(c, ips, n, res, max, fail0, fail_addr0, live0);
	return n;
}
