/* One step out of a frame that has no CFI, for both backends, which then
 * go on from the caller with CFI again (mixed stacks: JIT code,
 * CPython's perf trampolines, Go without .debug_frame, assembly). In order:
 *   - Go code: the frame size from .gopclntab's pcsp table (unwind_go.c);
 *   - straight-line epilogue code at the pc (pops, add to %rsp, leave, then
 *     ret), emulated: CPython 3.12's trampoline after its call is
 *     "add $8,%rsp; ret", 3.13's "pop %rbp; ret";
 *   - the frame-pointer chain, checked: %rbp above %rsp inside the stack,
 *     the return address in executable code (JIT code and V8's builtins
 *     keep it; emulating those first cost node 55 -> 150 us a stack);
 *   - code in a file (assembly, crt's _init and frame_dummy), emulated
 *     from the pc to its return: any path out of a function meets the
 *     same stack layout at each instruction, so one path's pushes, pops
 *     and %rsp arithmetic give the return address; taken when it follows a
 *     call;
 *   - code that is gone: a perf trampoline's layout, if the return address
 *     it gives follows a call. */
#define _GNU_SOURCE
#include <capstone/capstone.h>
#include <string.h>

#include "pprobe/lazylib.h"
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

/* ---- emulation to the return ---- */

#define EMU_INSNS 512		/* instructions followed, at most */
#define EMU_SEEN 1024		/* the addresses met, a hash set (power of 2) */
#define EMU_CODE 64		/* bytes of code read at a time */

/* x86 register (any width) -> DWARF number, -1 for others */
static int gpr_dwarf(unsigned reg)
{
	static const unsigned short regs[16][4] = {
		{ X86_REG_RAX, X86_REG_EAX, X86_REG_AX, X86_REG_AL },
		{ X86_REG_RDX, X86_REG_EDX, X86_REG_DX, X86_REG_DL },
		{ X86_REG_RCX, X86_REG_ECX, X86_REG_CX, X86_REG_CL },
		{ X86_REG_RBX, X86_REG_EBX, X86_REG_BX, X86_REG_BL },
		{ X86_REG_RSI, X86_REG_ESI, X86_REG_SI, X86_REG_SIL },
		{ X86_REG_RDI, X86_REG_EDI, X86_REG_DI, X86_REG_DIL },
		{ X86_REG_RBP, X86_REG_EBP, X86_REG_BP, X86_REG_BPL },
		{ X86_REG_RSP, X86_REG_ESP, X86_REG_SP, X86_REG_SPL },
		{ X86_REG_R8, X86_REG_R8D, X86_REG_R8W, X86_REG_R8B },
		{ X86_REG_R9, X86_REG_R9D, X86_REG_R9W, X86_REG_R9B },
		{ X86_REG_R10, X86_REG_R10D, X86_REG_R10W, X86_REG_R10B },
		{ X86_REG_R11, X86_REG_R11D, X86_REG_R11W, X86_REG_R11B },
		{ X86_REG_R12, X86_REG_R12D, X86_REG_R12W, X86_REG_R12B },
		{ X86_REG_R13, X86_REG_R13D, X86_REG_R13W, X86_REG_R13B },
		{ X86_REG_R14, X86_REG_R14D, X86_REG_R14W, X86_REG_R14B },
		{ X86_REG_R15, X86_REG_R15D, X86_REG_R15W, X86_REG_R15B },
	};
	if (reg == X86_REG_AH || reg == X86_REG_BH || reg == X86_REG_CH || reg == X86_REG_DH)
		return reg == X86_REG_AH ? 0 : reg == X86_REG_BH ? 3 : reg == X86_REG_CH ? 2 : 1;
	for (int i = 0; i < 16; i++)
		for (int w = 0; w < 4; w++)
			if (regs[i][w] == reg)
				return i;
	return -1;
}

static bool cs_ready(struct unwinder *u)
{
	if (!u->cs_state) {
		csh h;
		u->cs_state = -1;
		if (capstone__load() && CS(cs_open)(CS_ARCH_X86, CS_MODE_64, &h) == CS_ERR_OK) {
			if (CS(cs_option)(h, CS_OPT_DETAIL, CS_OPT_ON) == CS_ERR_OK) {
				u->cs = h;
				u->cs_state = 1;
			} else {
				CS(cs_close)(&h);
			}
		}
	}
	return u->cs_state > 0;
}

void unwinder__free_step(struct unwinder *u)
{
	if (u->cs_state > 0) {
		csh h = u->cs;
		CS(cs_close)(&h);
	}
	u->cs_state = 0;
}

struct emu {
	struct uctx *c;
	csh h;
	cs_insn *insn;
	uint64_t sp, bp;
	bool bp_known;
	unsigned clobbered;	/* callee-saved registers written, not restored */
	uint64_t seen[EMU_SEEN];
	uint8_t code[EMU_CODE];
	uint64_t code_at;
	size_t code_len;
};

/* Was pc met before? With mark, it is now. */
static bool emu_seen(struct emu *e, uint64_t pc, bool mark)
{
	for (unsigned i = (unsigned)((pc * 0x9e3779b97f4a7c15ull) >> 54) & (EMU_SEEN - 1);; i = (i + 1) & (EMU_SEEN - 1)) {
		if (e->seen[i] == pc)
			return true;
		if (!e->seen[i]) {
			if (mark)
				e->seen[i] = pc;
			return false;
		}
	}
}

static bool emu_decode(struct emu *e, uint64_t pc)
{
	if (pc < e->code_at || pc + 15 > e->code_at + e->code_len) {
		e->code_len = 0;
		for (size_t len = EMU_CODE; len >= 16 && !e->code_len; len /= 2)
			if (uctx__read_code(e->c, pc, e->code, len))
				e->code_len = len;
		e->code_at = pc;
		if (!e->code_len)
			return false;
	}
	const uint8_t *p = e->code + (pc - e->code_at);
	size_t n = e->code_len - (pc - e->code_at);
	uint64_t a = pc;
	return CS(cs_disasm_iter)(e->h, &p, &n, &a, e->insn);
}

static bool is_reg(const cs_x86_op *op, unsigned reg)
{
	return op->type == X86_OP_REG && op->reg == reg;
}

/* The value of a base register in an address: %rsp and a known %rbp. */
static bool base_value(const struct emu *e, unsigned reg, uint64_t *v)
{
	if (reg == X86_REG_RSP)
		*v = e->sp;
	else if (reg == X86_REG_RBP && e->bp_known)
		*v = e->bp;
	else
		return false;
	return true;
}

/* %rsp := what the instruction computes from %rsp or %rbp: add, sub, lea,
 * mov from %rbp; false for anything else (alignment, alloca: unknown). */
static bool emu_set_sp(struct emu *e, const cs_x86 *x)
{
	const cs_x86_op *src = &x->operands[1];
	uint64_t v;
	switch (e->insn->id) {
	case X86_INS_ADD:
	case X86_INS_SUB:
		if (src->type != X86_OP_IMM || src->imm < -(1 << 24) || src->imm > (1 << 24))
			return false;
		e->sp += (uint64_t)(e->insn->id == X86_INS_ADD ? src->imm : -src->imm);
		return true;
	case X86_INS_LEA:
		if (src->mem.index != X86_REG_INVALID || src->mem.segment != X86_REG_INVALID ||
		    !base_value(e, src->mem.base, &v))
			return false;
		e->sp = v + (uint64_t)src->mem.disp;
		return true;
	case X86_INS_MOV:
		if (!is_reg(src, X86_REG_RBP) || !e->bp_known)
			return false;
		e->sp = e->bp;
		return true;
	default:
		return false;
	}
}

/* Registers the instruction writes, other than by the stack operations
 * handled before: %rsp (false: the walk cannot follow), %rbp (known only
 * when set from %rsp), the other callee-saved registers (clobbered until
 * a pop restores them). */
static bool emu_writes(struct emu *e, const cs_x86 *x)
{
	cs_regs rd, wr;
	uint8_t nrd = 0, nwr = 0;
	if (CS(cs_regs_access)(e->h, e->insn, rd, &nrd, wr, &nwr) != CS_ERR_OK)
		return false;
	for (unsigned i = 0; i < nwr; i++) {
		int d = gpr_dwarf(wr[i]);
		if (d == R_SP) {
			if (x->op_count != 2 || !is_reg(&x->operands[0], X86_REG_RSP) || !emu_set_sp(e, x))
				return false;
		} else if (d == R_BP) {
			e->bp_known = e->insn->id == X86_INS_MOV && x->op_count == 2 &&
				      is_reg(&x->operands[0], X86_REG_RBP) && is_reg(&x->operands[1], X86_REG_RSP);
			e->bp = e->sp;
			e->clobbered |= 1u << R_BP;
		} else if (d == 3 || (d >= 12 && d <= 15)) {
			e->clobbered |= 1u << d;
		}
	}
	return true;
}

static bool is_jcc(unsigned id)
{
	switch (id) {
	case X86_INS_JAE: case X86_INS_JA: case X86_INS_JBE: case X86_INS_JB: case X86_INS_JCXZ:
	case X86_INS_JECXZ: case X86_INS_JE: case X86_INS_JGE: case X86_INS_JG: case X86_INS_JLE:
	case X86_INS_JL: case X86_INS_JNE: case X86_INS_JNO: case X86_INS_JNP: case X86_INS_JNS:
	case X86_INS_JO: case X86_INS_JP: case X86_INS_JRCXZ: case X86_INS_JS: case X86_INS_LOOP:
	case X86_INS_LOOPE: case X86_INS_LOOPNE:
		return true;
	default:
		return false;
	}
}

/* Over 60 lines: one loop, a case per kind of instruction. */
static bool emulate_to_return(struct uctx *c, struct unwind_regs *r)
{
	if (!uproc__find_mod(c->proc, r->r[R_IP]) || !cs_ready(c->u))
		return false;	/* JIT code: its frame pointers or nothing */
	struct emu *e = calloc(1, sizeof(*e));
	if (!e || !(e->insn = CS(cs_malloc)((csh)c->u->cs))) {
		free(e);
		return false;
	}
	e->c = c;
	e->h = (csh)c->u->cs;
	e->sp = r->r[R_SP];
	e->bp = r->r[R_BP];
	e->bp_known = r->valid & (1u << R_BP);
	struct unwind_regs t = *r;
	uint64_t pc = r->r[R_IP], v;
	bool ok = false;

	for (int n = 0; n < EMU_INSNS && !ok; n++) {
		if (!pc || !emu_decode(e, pc))
			break;
		emu_seen(e, pc, true);
		const cs_x86 *x = &e->insn->detail->x86;
		const cs_x86_op *op = &x->operands[0];
		uint64_t next = pc + e->insn->size;
		unsigned id = e->insn->id;
		if (x->prefix[2] == 0x66 && (id == X86_INS_PUSH || id == X86_INS_POP))
			break;	/* 2-byte stack operations */
		if (id == X86_INS_RET) {
			if (!pop(c, &e->sp, &v))
				break;
			if (x->op_count == 1 && op->type == X86_OP_IMM)
				e->sp += (uint64_t)op->imm;
			t.r[R_IP] = v;
			ok = true;
		} else if (id == X86_INS_JMP && x->op_count == 1 && op->type == X86_OP_IMM) {
			next = (uint64_t)op->imm;
		} else if (id == X86_INS_JMP) {
			/* a tail call (or a jump table, which the check of
			 * the return address rejects) */
			if (!uctx__read_word(c, e->sp, &v))
				break;
			e->sp += 8;
			t.r[R_IP] = v;
			ok = true;
		} else if (is_jcc(id)) {
			/* on along straight code, and out of a loop the second
			 * time round (a loop with no way out ends at EMU_INSNS) */
			if (emu_seen(e, next, false))
				next = (uint64_t)op->imm;
		} else if (id == X86_INS_PUSH || id == X86_INS_PUSHFQ) {
			e->sp -= 8;
		} else if (id == X86_INS_POP || id == X86_INS_POPFQ) {
			if (!uctx__read_word(c, e->sp, &v))
				break;
			int d = id == X86_INS_POP && op->type == X86_OP_REG ? gpr_dwarf(op->reg) : -1;
			if (d == R_SP)
				break;
			if (d >= 0) {
				t.r[d] = v;
				t.valid |= 1u << d;
				e->clobbered &= ~(1u << d);
				if (d == R_BP) {
					e->bp = v;
					e->bp_known = true;
				}
			}
			e->sp += 8;
		} else if (id == X86_INS_LEAVE) {
			if (!e->bp_known || e->bp < e->sp)
				break;
			e->sp = e->bp;
			if (!pop(c, &e->sp, &v))
				break;
			e->bp = t.r[R_BP] = v;
			t.valid |= 1u << R_BP;
			e->clobbered &= ~(1u << R_BP);
		} else if (id == X86_INS_CALL) {
			/* the callee returns to next with %rsp as it was */
		} else if (id == X86_INS_UD2 || id == X86_INS_INT3 || id == X86_INS_HLT || id == X86_INS_INT ||
			   id == X86_INS_ENTER || id == X86_INS_IRET || id == X86_INS_IRETQ || id == X86_INS_SYSRET ||
			   !emu_writes(e, x)) {
			break;
		}
		pc = next;
	}
	if (ok) {
		t.r[R_SP] = e->sp;
		t.valid &= ~e->clobbered;
		ok = uctx__after_call(c, t.r[R_IP]);
	}
	CS(cs_free)(e->insn, 1);
	free(e);
	if (ok)
		*r = t;
	return ok;
}

static bool fp_chain(struct uctx *c, struct unwind_regs *r)
{
	uint64_t bp = r->r[R_BP], sp = r->r[R_SP], nbp, ra, end;
	if (!(r->valid & (1u << R_BP)) || bp < sp || (bp & 7) || bp - sp > (1u << 24) ||
	    ((end = uctx__stack_end(c, NULL)) && bp + 16 > end))
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
	else if (go == 0 && (t = *r, emulate_to_return(c, &t)))
		how = UNWIND_STEP_EMULATED;
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
