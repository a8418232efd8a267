/* libunwind backend: one remote address space per process whose accessors
 * read the stack copy, the validated live stack and the ELF files' contents
 * (.eh_frame_hdr binary search table and .eh_frame at their mapped
 * addresses). libunwind has no exported .debug_frame lookup in Debian's
 * build: objects without .eh_frame_hdr get the frame-pointer fallback only. */
#include <errno.h>
#include <libunwind.h>
#include <stdlib.h>
#include <string.h>

#include "unwind_internal.h"

extern int UNW_OBJ(dwarf_search_unwind_table)(unw_addr_space_t as, unw_word_t ip,
					      unw_dyn_info_t *di, unw_proc_info_t *pi,
					      int need_unwind_info, void *arg);

static int a_find_proc_info(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t *pi,
			    int need_unwind_info, void *arg)
{
	struct uctx *c = arg;
	const struct umod *m = uproc__find_mod(c->proc, ip);

	if (!m || !m->file->eh_hdr_vaddr || ip < m->text_low || ip >= m->text_high) {
		c->cfi_miss = true;
		return -UNW_ENOINFO;
	}
	unw_dyn_info_t di;
	memset(&di, 0, sizeof(di));
	di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
	di.start_ip = m->text_low;
	di.end_ip = m->text_high;
	di.u.rti.segbase = m->file->eh_hdr_vaddr + m->bias;
	di.u.rti.table_data = m->file->eh_table_vaddr + m->bias;
	di.u.rti.table_len = m->file->eh_fde_count * 8 / sizeof(unw_word_t);
	int ret = UNW_OBJ(dwarf_search_unwind_table)(as, ip, &di, pi, need_unwind_info, arg);
	if (ret == -UNW_ENOINFO)
		c->cfi_miss = true;
	return ret;
}

static void a_put_unwind_info(unw_addr_space_t as, unw_proc_info_t *pi, void *arg)
{
}

static int a_get_dyn_info_list_addr(unw_addr_space_t as, unw_word_t *dil, void *arg)
{
	return -UNW_ENOINFO;
}

static int a_access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *valp,
			int write, void *arg)
{
	uint64_t v;
	if (write)
		return -UNW_EREADONLYREG;
	if (!uctx__read_word(arg, addr, &v))
		return -UNW_EINVAL;
	*valp = v;
	return 0;
}

static int a_access_reg(unw_addr_space_t as, unw_regnum_t reg, unw_word_t *valp,
			int write, void *arg)
{
	const struct uctx *c = arg;
	if (write)
		return -UNW_EREADONLYREG;
	/* libunwind's x86-64 numbering is the DWARF one */
	if (reg < 0 || reg >= UNWIND_NR_REGS || !(c->regs->valid & (1u << reg)))
		return -UNW_EBADREG;
	*valp = c->regs->r[reg];
	return 0;
}

static int a_access_fpreg(unw_addr_space_t as, unw_regnum_t reg, unw_fpreg_t *val,
			  int write, void *arg)
{
	return -UNW_EINVAL;
}

static int a_resume(unw_addr_space_t as, unw_cursor_t *cu, void *arg)
{
	return -UNW_EINVAL;
}

static int a_get_proc_name(unw_addr_space_t as, unw_word_t addr, char *buf, size_t len,
			   unw_word_t *offp, void *arg)
{
	return -UNW_EINVAL;
}

static unw_accessors_t accessors = {
	.find_proc_info = a_find_proc_info,
	.put_unwind_info = a_put_unwind_info,
	.get_dyn_info_list_addr = a_get_dyn_info_list_addr,
	.access_mem = a_access_mem,
	.access_reg = a_access_reg,
	.access_fpreg = a_access_fpreg,
	.resume = a_resume,
	.get_proc_name = a_get_proc_name,
};

void uun__free(struct uproc *p)
{
	if (p->backend)
		unw_destroy_addr_space(p->backend);
	p->backend = NULL;
}

int uun__sync(struct uproc *p)
{
	if (!p->backend) {
		unw_addr_space_t as = unw_create_addr_space(&accessors, 0);
		if (!as)
			return -ENOMEM;
		/* per address space: a per-thread cache would mix processes */
		unw_set_caching_policy(as, UNW_CACHE_GLOBAL);
		p->backend = as;
	} else {
		unw_flush_cache(p->backend, 0, 0);
	}
	return 0;
}

/* A step out of a frame without CFI (unwind_step.c: Go's pcsp, epilogue
 * code, a checked frame-pointer chain, a trampoline's layout), from the
 * saved cursor's registers; libunwind is restarted on the caller (which
 * then looks its CFI up at the return address itself, not at ra - 1).
 * libunwind 1.6's own frame-pointer fallback leaves the CFA of the guessed
 * frame stale, so the next CFI step would go wrong. */
static bool nocfi_step(struct uctx *c, unw_cursor_t *saved, unw_cursor_t *cur,
		       struct unwind_regs *regs, uint64_t *ra)
{
	unw_word_t v;

	regs->valid = 0;
	/* libunwind's x86-64 numbering is the DWARF one, ip included */
	for (int i = 0; i < UNWIND_NR_REGS; i++) {
		if (unw_get_reg(saved, i, &v) == 0) {
			regs->r[i] = v;
			regs->valid |= 1u << i;
		}
	}
	if (!uctx__nocfi_step(c, regs))
		return false;
	*ra = regs->r[UNWIND_REG_IP];
	c->regs = regs;
	return unw_init_remote(cur, c->proc->backend, c) >= 0;
}

int uun__unwind(struct uctx *c, uint64_t *ips, int max, struct unwind_result *res)
{
	unw_cursor_t cur, saved;
	struct unwind_regs fp_regs[2];
	int n = 1, fp_buf = 0;
	uint64_t ip = ips[0];

	if (unw_init_remote(&cur, c->proc->backend, c) < 0) {
		res->end = UNWIND_ERROR;
		return 1;
	}
	for (;;) {
		c->cfi_miss = false;
		bool fail_before = c->mem_fail;
		saved = cur;
		int ret = unw_step(&cur);
		bool fp = c->cfi_miss;
		unw_word_t nip = 0;
		if (fp && uctx__is_entry(c, n == 1 ? ip : ip - 1)) {
			/* _start of the executable or ld.so (no CFI): outermost */
			res->end = UNWIND_COMPLETE;
			break;
		}
		if (uctx__is_root(c, n == 1 ? ip : ip - 1)) {
			/* Go: where the runtime's own traceback stops */
			res->end = UNWIND_COMPLETE;
			break;
		}
		if (fp) {
			/* regs alternate between two buffers: c->regs of the
			 * saved cursor must stay valid while stepping from it */
			uint64_t ra;
			if (!nocfi_step(c, &saved, &cur, &fp_regs[fp_buf], &ra)) {
				res->end = UNWIND_NO_CFI;
				res->end_dso = uctx__dso_name(c, ip);
				break;
			}
			fp_buf ^= 1;
			nip = ra;
		} else if (ret < 0) {
			if (c->mem_fail && !fail_before) {
				res->end = UNWIND_TRUNCATED;
			} else {
				res->end = UNWIND_ERROR;
				res->end_dso = uctx__dso_name(c, ip);
			}
			break;
		} else if (ret == 0) {
			res->end = UNWIND_COMPLETE;
			break;
		} else if (unw_get_reg(&cur, UNW_REG_IP, &nip) < 0) {
			res->end = UNWIND_ERROR;
			break;
		}
		if (!uctx__is_exec(c, nip)) {
			res->end = UNWIND_UNMAPPED;
			break;
		}
		if (n >= max) {
			res->end = UNWIND_MAX_DEPTH;
			break;
		}
		ips[n++] = nip;
		if (fp)
			res->fp_frames++;
		ip = nip;
	}
	return n;
}
