/* Go code for the unwinder: where a Go stack ends. A goroutine's stack
 * starts in runtime.goexit (its return address is the goroutine's
 * "caller"), a thread's g0 stack in runtime.mstart or runtime.rt0_go, and
 * the runtime's stack switches (systemstack, mcall, morestack, asmcgocall)
 * start a g0 stack whose caller is on another stack: Go's own traceback
 * stops at each of them (funcFlag_TOPFRAME / SPWRITE), and so does ours,
 * calling the stack complete. Their addresses come from .symtab, else
 * from Go's own table (.gopclntab), found once per file and only in Go
 * files. Go code without .debug_frame (stripped, -s -w) is stepped with
 * that table's frame sizes (pcsp), as Go's runtime unwinds itself. */
#define _GNU_SOURCE
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "gopclntab.h"
#include "unwind_internal.h"

static const char *const go_roots[] = {
	"runtime.goexit", "runtime.mstart", "runtime.rt0_go", "runtime.systemstack",
	"runtime.mcall", "runtime.morestack", "runtime.asmcgocall",
};

/* name is a root, maybe with the assembler's ABI suffix (".abi0") */
static bool root_name(const char *name)
{
	for (size_t i = 0; i < sizeof(go_roots) / sizeof(go_roots[0]); i++) {
		size_t n = strlen(go_roots[i]);
		if (!strncmp(name, go_roots[i], n) && (!name[n] || !strcmp(name + n, ".abi0")))
			return true;
	}
	return false;
}

static void add_root(struct ufile *f, const char *name, uint64_t lo, uint64_t hi)
{
	if (!strncmp(name, "runtime.asmcgocall", 18) && (!name[18] || !strcmp(name + 18, ".abi0"))) {
		/* and its ABIInternal wrapper, named without .abi0 */
		if (f->nr_go_cgo < 2) {
			f->go_cgo[f->nr_go_cgo].lo = lo;
			f->go_cgo[f->nr_go_cgo].hi = hi;
			f->nr_go_cgo++;
		}
	}
	if (f->nr_go_roots < UFILE_GO_ROOTS && hi > lo) {
		f->go_roots[f->nr_go_roots].lo = lo;
		f->go_roots[f->nr_go_roots].hi = hi;
		f->nr_go_roots++;
	}
}

static void roots_from_symtab(struct ufile *f, Elf *elf)
{
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t n = d ? d->d_size / sh.sh_entsize : 0;
		for (size_t i = 0; i < n; i++) {
			GElf_Sym s;
			const char *nm;
			if (!gelf_getsym(d, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC ||
			    !(nm = elf_strptr(elf, sh.sh_link, s.st_name)) || strncmp(nm, "runtime.", 8) ||
			    !root_name(nm))
				continue;
			add_root(f, nm, s.st_value, s.st_value + (s.st_size ? s.st_size : 1));
		}
	}
}

static int root_from_table(const struct gopclntab_func *fn, void *arg)
{
	if (!strncmp(fn->name, "runtime.", 8) && root_name(fn->name))
		add_root(arg, fn->name, fn->entry, fn->end);
	return 0;
}

static void ufile__go_setup(struct ufile *f)
{
	const uint8_t *data;
	size_t size;
	uint64_t vaddr, text;

	f->go_ready = true;
	Elf *elf = ufile__elf(f);
	if (!elf)
		return;
	roots_from_symtab(f, elf);
	/* the table's bytes are the Elf's over our mapping: kept with it */
	if (!gopclntab__find(elf, &data, &size, &vaddr, &text))
		f->go_table = gopclntab__new(data, size, vaddr, text);
	if (!f->nr_go_roots && f->go_table)
		gopclntab__foreach(f->go_table, root_from_table, f);
}

void ufile__go_free(struct ufile *f)
{
	gopclntab__delete(f->go_table);
}

bool uctx__is_root(const struct uctx *c, uint64_t lpc)
{
	const struct umod *um = uproc__find_mod(c->proc, lpc);
	if (!um || !um->file->is_go)
		return false;
	struct ufile *f = um->file;
	if (!f->go_ready)
		ufile__go_setup(f);
	uint64_t va = lpc - um->bias;
	for (int i = 0; i < f->nr_go_roots; i++)
		if (va >= f->go_roots[i].lo && va < f->go_roots[i].hi)
			return true;
	return false;
}

int uctx__go_step(struct uctx *c, struct unwind_regs *r)
{
	uint64_t pc = r->r[UNWIND_REG_IP], sp = r->r[UNWIND_REG_SP], ra, bp;
	const struct umod *um = uproc__find_mod(c->proc, pc);
	int64_t delta;

	if (!um || !um->file->is_go)
		return 0;
	struct ufile *f = um->file;
	if (!f->go_ready)
		ufile__go_setup(f);
	if (!f->go_table)
		return 0;
	if (gopclntab__pcsp(f->go_table, pc - um->bias, &delta) || !uctx__read_word(c, sp + (uint64_t)delta, &ra))
		return -1;
	r->r[UNWIND_REG_IP] = ra;
	r->r[UNWIND_REG_SP] = sp + (uint64_t)delta + 8;
	/* a frame that has one keeps the caller's %rbp just below the return
	 * address (Go's frame pointer); a frameless one left %rbp alone */
	if (delta >= 16 && uctx__read_word(c, sp + (uint64_t)delta - 8, &bp))
		r->r[UNWIND_REG_BP] = bp;
	return 1;
}

/* runtime.asmcgocall (asm_amd64.s) switches to the thread's system (g0)
 * stack and calls C there, after saving, on that stack, its g and its
 * depth in the goroutine's stack (g.stack.hi - its sp at entry, where the
 * return address into runtime.cgocall lies): 48(SP) and 40(SP) since Go
 * 1.13 (room for Win64's home slots), 8(SP) and 0(SP) where a release
 * drops that room. g.stack {lo, hi} is g's first field in every release.
 * The goroutine's stack holds still while it runs C (the runtime copies
 * no stack of a goroutine in a syscall), so it is read live, in one go,
 * and the pick is checked: a return address right after a call, in
 * runtime.cgocall (the one caller of asmcgocall on a goroutine's stack;
 * the runtime's others call it on the system stack, where it saves no g). */
bool uctx__has_go(struct uctx *c)
{
	if (!c->go_known) {	/* once a sample: most processes map no Go code */
		c->go_known = true;
		for (int i = 0; i < c->proc->nr_mods && !c->has_go; i++)
			c->has_go = c->proc->mods[i].file->is_go;
	}
	return c->has_go;
}

bool uctx__is_go_pc(struct uctx *c, uint64_t pc)
{
	if (!uctx__has_go(c))
		return false;
	const struct umod *um = uproc__find_mod(c->proc, pc);
	return um && um->file->is_go;
}

int uctx__go_cgo_step(struct uctx *c, struct unwind_regs *r)
{
	static const struct { uint8_t g, depth; } saved[] = { { 48, 40 }, { 8, 0 } };
	uint64_t pc = r->r[UNWIND_REG_IP], sp = r->r[UNWIND_REG_SP];
	const struct umod *um = uproc__find_mod(c->proc, pc);

	if (!um || !um->file->is_go || c->alt || !c->live_allowed)
		return 0;
	struct ufile *f = um->file;
	if (!f->go_ready)
		ufile__go_setup(f);
	uint64_t va = pc - um->bias;
	int k = 0;
	while (k < f->nr_go_cgo && (va < f->go_cgo[k].lo || va >= f->go_cgo[k].hi))
		k++;
	if (k == f->nr_go_cgo)
		return 0;
	for (size_t i = 0; i < sizeof(saved) / sizeof(saved[0]); i++) {
		uint64_t g, depth, st[2], ra;
		if (!uctx__read_word(c, sp + saved[i].g, &g) || !g || (g & 7) ||
		    !uctx__read_word(c, sp + saved[i].depth, &depth) || !depth || (depth & 7) ||
		    !uctx__read_live(c, g, st, sizeof(st)))
			continue;
		uint64_t lo = st[0], hi = st[1];
		if (lo >= hi || hi - lo > (1ULL << 30) || depth > hi - lo)
			continue;
		uint64_t gsp = hi - depth;
		if (!uctx__take_alt_stack(c, gsp, hi))
			continue;
		const struct umod *rm;
		struct gopclntab_func fn;
		if (!uctx__read_word(c, gsp, &ra) || !(rm = uproc__find_mod(c->proc, ra)) || rm->file != f ||
		    !uctx__is_exec(c, ra) || !uctx__after_call(c, ra) ||
		    (f->go_table && (gopclntab__lookup(f->go_table, ra - 1 - um->bias, &fn) ||
				     strcmp(fn.name, "runtime.cgocall")))) {
			free(c->alt);
			c->alt = NULL;
			c->alt_len = 0;
			continue;
		}
		r->r[UNWIND_REG_IP] = ra;
		r->r[UNWIND_REG_SP] = gsp + 8;
		/* C kept asmcgocall's %rbp, runtime.cgocall's frame pointer */
		r->valid &= (1u << UNWIND_REG_IP) | (1u << UNWIND_REG_SP) | (1u << UNWIND_REG_BP);
		return 1;
	}
	return 0;
}

bool uctx__go_frame_size(const struct umod *um, uint64_t lpc, int64_t *size)
{
	struct ufile *f = um->file;

	if (!f->is_go)
		return false;
	if (!f->go_ready)
		ufile__go_setup(f);
	return f->go_table && !gopclntab__pcsp(f->go_table, lpc - um->bias, size) && *size >= 0 &&
	       *size < (1 << 30);
}

bool uctx__go_special(const struct uctx *c, uint64_t pc)
{
	const struct umod *um = uproc__find_mod(c->proc, pc);

	if (!um || !um->file->is_go)
		return false;
	struct ufile *f = um->file;
	if (!f->go_ready)
		ufile__go_setup(f);
	uint64_t va = pc - um->bias;
	for (int k = 0; k < f->nr_go_cgo; k++)
		if (va >= f->go_cgo[k].lo && va < f->go_cgo[k].hi)
			return true;
	return uctx__go_switch_pc(c, pc);
}

/* runtime.systemstack_switch's entry is a return address only the runtime
 * makes: the pc it saves for a goroutine whose stack it left for the
 * system stack (asmcgocall, systemstack), which runtime.cgocallback's
 * frame returns to when C calls Go back. Go's traceback looks it up as
 * is, not as pc - 1, which lies in the function before (runtime.mcall, a
 * root). */
bool uctx__go_switch_pc(const struct uctx *c, uint64_t pc)
{
	const struct umod *um = uproc__find_mod(c->proc, pc);
	struct gopclntab_func fn;

	if (!um || !um->file->is_go)
		return false;
	struct ufile *f = um->file;
	if (!f->go_ready)
		ufile__go_setup(f);
	return f->go_table && !gopclntab__lookup(f->go_table, pc - um->bias, &fn) && fn.entry == pc - um->bias &&
	       !strncmp(fn.name, "runtime.systemstack_switch", 26) &&
	       (!fn.name[26] || !strcmp(fn.name + 26, ".abi0"));
}
