/* One step out of a frame that has no CFI, for both backends, which then
 * go on from the caller with CFI again (mixed stacks: JIT code,
 * CPython's perf trampolines, Go without .debug_frame, assembly). In order:
 *   - Go code: the frame size from .gopclntab's pcsp table (unwind_go.c);
 *   - straight-line epilogue code at the pc (pops, add to %rsp, leave, then
 *     ret), emulated: CPython 3.12's trampoline after its call is
 *     "add $8,%rsp; ret", 3.13's "pop %rbp; ret";
 *   - the frame-pointer chain, checked: %rbp above %rsp inside the stack,
 *     the return address in executable code;
 *   - code that is gone: a perf trampoline's layout, if the return address
 *     it gives follows a call. */
#define _GNU_SOURCE
#include <string.h>

#include "unwind_internal.h"

enum { R_AX = 0, R_BP = 6, R_SP = 7, R_IP = UNWIND_REG_IP };

/* x86 register encoding (rax rcx rdx rbx rsp rbp rsi rdi) -> DWARF number */
static const uint8_t x86_to_dwarf[8] = { 0, 2, 1, 3, 7, 6, 4, 5 };

#define EPILOGUE_BYTES 24

static bool pop(struct uctx *c, uint64_t *sp, uint64_t *val)
{
	if (!uctx__read_word(c, *sp, val))
		return false;
	*sp += 8;
	return true;
}

static int32_t le32(const uint8_t *p)
{
	int32_t v;
	memcpy(&v, p, 4);
	return v;
}

/* Over 60 lines: one decoder loop, a case per instruction form. */
static bool emulate_epilogue(struct uctx *c, struct unwind_regs *r)
{
	uint8_t b[EPILOGUE_BYTES];
	size_t n = 0;
	uint64_t pc = r->r[R_IP], sp = r->r[R_SP], v;

	for (size_t len = EPILOGUE_BYTES; len >= 4 && !n; len /= 2)
		if (uctx__read_code(c, pc, b, len))
			n = len;
	for (size_t i = 0; i < n;) {
		unsigned rex = 0;
		if ((b[i] & 0xf0) == 0x40 && i + 1 < n)
			rex = b[i++];
		uint8_t op = b[i];
		if (op == 0xc3 || (op == 0xf3 && i + 1 < n && b[i + 1] == 0xc3)) {	/* ret, rep ret */
			if (rex || !pop(c, &sp, &v))
				return false;
			r->r[R_IP] = v;
			r->r[R_SP] = sp;
			return true;
		} else if (op >= 0x58 && op <= 0x5f) {	/* pop reg */
			unsigned reg = (rex & 1) ? 8u + (op - 0x58u) : x86_to_dwarf[op - 0x58];
			if (reg == R_SP || (rex & ~1u) != 0x40 * !!rex || !pop(c, &sp, &v))
				return false;
			r->r[reg] = v;
			r->valid |= 1u << reg;
			i++;
		} else if (op == 0x90 && !rex) {	/* nop */
			i++;
		} else if (op == 0xc9 && !rex) {	/* leave */
			if (!(r->valid & (1u << R_BP)) || r->r[R_BP] < sp)
				return false;
			sp = r->r[R_BP];
			if (!pop(c, &sp, &v))
				return false;
			r->r[R_BP] = v;
			i++;
		} else if (rex == 0x48 && op == 0x83 && i + 2 < n && b[i + 1] == 0xc4) {	/* add $imm8,%rsp */
			int8_t imm = (int8_t)b[i + 2];
			if (imm < 0)
				return false;
			sp += (uint64_t)imm;
			i += 3;
		} else if (rex == 0x48 && op == 0x81 && i + 5 < n && b[i + 1] == 0xc4) {	/* add $imm32,%rsp */
			int32_t imm = le32(b + i + 2);
			if (imm < 0 || imm > (1 << 20))
				return false;
			sp += (uint64_t)imm;
			i += 6;
		} else {
			return false;	/* not straight-line epilogue code */
		}
	}
	return false;
}

static bool fp_chain(struct uctx *c, struct unwind_regs *r)
{
	uint64_t bp = r->r[R_BP], sp = r->r[R_SP], nbp, ra;
	if (!(r->valid & (1u << R_BP)) || bp < sp || (bp & 7) || bp - sp > (1u << 24) ||
	    (c->stack_end && bp + 16 > c->stack_end))
		return false;
	if (!uctx__read_word(c, bp, &nbp) || !uctx__read_word(c, bp + 8, &ra) || !uctx__is_exec(c, ra))
		return false;
	r->r[R_IP] = ra;
	r->r[R_SP] = bp + 16;
	r->r[R_BP] = nbp;
	return true;
}

/* Code that can no longer be read (the process exited, its JIT code went
 * with it): the layout of a call through a perf trampoline, one word pushed
 * (3.13's %rbp) or reserved (3.12's alignment) above the return address,
 * taken only when that word is the address right after a call. */
static bool trampoline_layout(struct uctx *c, struct unwind_regs *r)
{
	uint8_t b[1];
	uint64_t sp = r->r[R_SP], ra;
	if (uctx__read_code(c, r->r[R_IP], b, 1) || !uctx__read_word(c, sp + 8, &ra) ||
	    !uctx__is_exec(c, ra) || !uctx__after_call(c, ra))
		return false;
	r->r[R_IP] = ra;
	r->r[R_SP] = sp + 16;
	return true;
}

int uctx__nocfi_step(struct uctx *c, struct unwind_regs *r)
{
	uint64_t sp = r->r[R_SP];
	struct unwind_regs t = *r;
	int how = 0;

	if (!(r->valid & (1u << R_SP)) || !(r->valid & (1u << R_IP)))
		return 0;
	int go = uctx__go_step(c, &t);
	if (go > 0)
		how = UNWIND_STEP_GO;
	else if (go == 0 && (t = *r, emulate_epilogue(c, &t)))
		how = UNWIND_STEP_EPILOGUE;
	else if (go == 0 && (t = *r, fp_chain(c, &t)))
		how = UNWIND_STEP_FP;
	else if (go == 0 && (t = *r, trampoline_layout(c, &t)))
		how = UNWIND_STEP_LAYOUT;
	if (!how || t.r[R_SP] <= sp || !uctx__is_exec(c, t.r[R_IP]))
		return 0;
	/* what a callee may clobber is unknown in the caller */
	for (unsigned reg = R_AX; reg < UNWIND_NR_REGS; reg++)
		if (reg != 3 && reg != R_BP && reg != R_SP && !(reg >= 12 && reg <= R_IP))
			t.valid &= ~(1u << reg);
	*r = t;
	return how;
}
