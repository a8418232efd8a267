/* The libdw backend's fast path: the CFI rows a walk meets, compiled once
 * per file into the rules x86-64 code uses (CFA = register + offset or a
 * small arithmetic expression; each register undefined, unchanged, saved
 * at CFA + n, CFA + n itself, or another register), then stepped without
 * libdw. libdw looks every row up again in its FDE tree for every frame of
 * every sample and allocates it (45% of record's CPU on a clang compile,
 * for 40-frame stacks).
 *
 * A step here computes what libdw's handle_cfi computes from the same row
 * (every register 0-16, in order, read through the same memory callback),
 * so the frames are libdw's. A row in other forms is stepped by libdw alone
 * (udw__step) and the walk goes on here. A signal frame, Go code, an
 * unmapped return address, the depth limit, an end other than an undefined
 * return address or a failed read: handed to libdw at the frame where it
 * arises, with that frame's registers, and libdw walks on from there as it
 * would have. PPROBE_UNWIND_CHECK=1 walks every sample both ways and counts
 * the walks that differ. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "unwind_internal.h"

enum { RULE_UNDEF, RULE_SAME, RULE_OFFSET, RULE_VALOFF, RULE_REG };

static bool fits32(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

/* A CFA given by an expression of registers and arithmetic (GNU ld's
 * PLT: rsp + 8 + ((rip & 15) >= 11) << 3), evaluated as libdw's expr_eval
 * does; another one is libdw's. */
#define CFA_EXPR_OPS 16
#define CFA_EXPR_STACK 8
struct cfa_expr {
	int nops;
	struct { uint8_t atom; uint64_t number; } op[CFA_EXPR_OPS];
};

static bool expr_op_known(const Dwarf_Op *op)
{
	switch (op->atom) {
	case DW_OP_lit0 ... DW_OP_lit31:
	case DW_OP_const1u: case DW_OP_const1s: case DW_OP_const2u: case DW_OP_const2s:
	case DW_OP_const4u: case DW_OP_const4s: case DW_OP_const8u: case DW_OP_const8s:
	case DW_OP_constu: case DW_OP_consts:
	case DW_OP_plus_uconst: case DW_OP_and: case DW_OP_minus: case DW_OP_or:
	case DW_OP_plus: case DW_OP_xor: case DW_OP_ge: case DW_OP_gt: case DW_OP_le:
	case DW_OP_lt: case DW_OP_eq: case DW_OP_ne: case DW_OP_nop:
		return true;
	case DW_OP_shl: case DW_OP_shr:
		return true;	/* a count of 64 or more: left to libdw */
	case DW_OP_breg0 ... DW_OP_breg16:
		return true;
	case DW_OP_bregx:
		return op->number < UNWIND_NR_REGS;
	default:
		return false;
	}
}

static struct cfa_expr *compile_cfa_expr(const Dwarf_Op *ops, size_t nops)
{
	if (!nops || nops > CFA_EXPR_OPS)
		return NULL;
	for (size_t i = 0; i < nops; i++)
		if (!expr_op_known(&ops[i]))
			return NULL;
	struct cfa_expr *e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->nops = (int)nops;
	for (size_t i = 0; i < nops; i++) {
		e->op[i].atom = ops[i].atom;
		/* bregx: its register in number, its offset in number2 */
		e->op[i].number = ops[i].atom == DW_OP_bregx ? ops[i].number2 : ops[i].number;
		if (ops[i].atom == DW_OP_bregx)
			e->op[i].atom = (uint8_t)(DW_OP_breg0 + ops[i].number);
	}
	return e;
}

static bool eval_cfa_expr(const struct cfa_expr *e, const struct unwind_regs *r, uint64_t *out)
{
	uint64_t st[CFA_EXPR_STACK], a, b;
	int n = 0;

	for (int i = 0; i < e->nops; i++) {
		uint8_t atom = e->op[i].atom;
		uint64_t num = e->op[i].number;
		if (atom >= DW_OP_lit0 && atom <= DW_OP_lit31) {
			a = atom - DW_OP_lit0;
		} else if (atom >= DW_OP_breg0 && atom <= DW_OP_breg16) {
			unsigned reg = atom - DW_OP_breg0;
			if (!(r->valid & (1u << reg)))
				return false;
			a = r->r[reg] + num;
		} else if (atom == DW_OP_nop) {
			continue;
		} else if (atom == DW_OP_plus_uconst) {
			if (n < 1)
				return false;
			st[n - 1] += num;
			continue;
		} else if (atom >= DW_OP_const1u && atom <= DW_OP_consts) {
			a = num;
		} else {	/* binary */
			if (n < 2)
				return false;
			b = st[--n];
			a = st[--n];
			switch (atom) {
			case DW_OP_and: a &= b; break;
			case DW_OP_minus: a -= b; break;
			case DW_OP_or: a |= b; break;
			case DW_OP_plus: a += b; break;
			case DW_OP_xor: a ^= b; break;
			case DW_OP_shl: if (b >= 64) return false; a <<= b; break;
			case DW_OP_shr: if (b >= 64) return false; a >>= b; break;
			case DW_OP_ge: a = (int64_t)a >= (int64_t)b; break;
			case DW_OP_gt: a = (int64_t)a > (int64_t)b; break;
			case DW_OP_le: a = (int64_t)a <= (int64_t)b; break;
			case DW_OP_lt: a = (int64_t)a < (int64_t)b; break;
			case DW_OP_eq: a = (int64_t)a == (int64_t)b; break;
			case DW_OP_ne: a = (int64_t)a != (int64_t)b; break;
			default: return false;
			}
		}
		if (n == CFA_EXPR_STACK)
			return false;
		st[n++] = a;
	}
	if (n < 1)
		return false;
	*out = st[n - 1];
	return true;
}

/* The rules of row fr in the forms above; false if any is another. */
static bool compile_rules(Dwarf_Frame *fr, struct cfi_row *row)
{
	Dwarf_Op *ops, mem[3];
	size_t nops;

	if (dwarf_frame_cfa(fr, &ops, &nops))
		return false;
	if (nops == 1 && ops[0].atom == DW_OP_bregx && ops[0].number < UNWIND_NR_REGS &&
	    fits32((int64_t)ops[0].number2)) {
		row->cfa_reg = (uint8_t)ops[0].number;
		row->cfa_off = (int32_t)(int64_t)ops[0].number2;
	} else if (!(row->cfa_expr = compile_cfa_expr(ops, nops))) {
		return false;
	}
	for (int r = 0; r < UNWIND_NR_REGS; r++) {
		int64_t off = 0;
		uint8_t kind;
		if (dwarf_frame_register(fr, r, mem, &ops, &nops))
			return false;
		if (nops == 0) {
			if (ops == mem)
				kind = RULE_UNDEF;
			else if (!ops)
				kind = RULE_SAME;
			else
				return false;
		} else if (ops[0].atom == DW_OP_call_frame_cfa) {
			size_t i = 1;
			if (i < nops && ops[i].atom == DW_OP_plus_uconst)
				off = (int64_t)ops[i++].number;
			kind = RULE_OFFSET;
			if (i < nops && ops[i].atom == DW_OP_stack_value) {
				kind = RULE_VALOFF;
				i++;
			}
			if (i != nops || off < INT16_MIN || off > INT16_MAX)
				return false;
		} else if (nops == 1 && ops[0].atom == DW_OP_regx && ops[0].number < UNWIND_NR_REGS) {
			kind = RULE_REG;
			off = (int64_t)ops[0].number;
		} else {
			return false;
		}
		row->kind[r] = kind;
		row->off[r] = (int16_t)off;
	}
	/* the return address: read from the stack, or undefined (outermost) */
	return row->kind[UNWIND_REG_IP] == RULE_OFFSET || row->kind[UNWIND_REG_IP] == RULE_UNDEF;
}

static void row_compile(Dwarf_CFI *cfi, uint64_t a, struct cfi_row *row)
{
	Dwarf_Frame *fr;
	Dwarf_Addr lo, hi;
	bool signal;

	memset(row, 0, sizeof(*row));
	row->lo = a;
	row->hi = a + 1;
	row->state = CFI_ROW_ABSENT;
	if (!cfi || dwarf_cfi_addrframe(cfi, a, &fr))
		return;
	row->state = CFI_ROW_LIBDW;
	/* The row holds from a to the next advance (hi), not always from the
	 * start libdw gives (lo): a DW_CFA_restore_state takes back the
	 * remembered row whole, its start too, so after an epilogue's
	 * restore_state (glibc's early returns) lo is the remembered row's,
	 * before the epilogue's own rows. */
	int ra = dwarf_frame_info(fr, &lo, &hi, &signal);
	if (ra >= 0 && lo <= a && hi > a)
		row->hi = hi;
	row->signal = signal;
	if (ra == UNWIND_REG_IP && !signal && compile_rules(fr, row))
		row->state = CFI_ROW_FAST;
	if (row->state != CFI_ROW_FAST) {
		free(row->cfa_expr);
		row->cfa_expr = NULL;
	}
	free(fr);
}

bool cfi_row__ra_undefined(const struct cfi_row *row)
{
	return row->kind[UNWIND_REG_IP] == RULE_UNDEF;
}

/* Every row a file's walks compiled, kept whole: a row covers a range (a
 * function's body after its prologue, all its call sites), and the slots
 * below keep one address each. In a clang compile 32,000 of libdw's row
 * lookups found 7,600 distinct rows: the same row again for another return
 * address of its function, or for the same address again after its slot
 * was taken by another. The pool finds them by their FDE (its index in
 * .eh_frame_hdr's sorted table, a binary search in the mapped file; where
 * a file has no table, by the address's page). Rows own their CFA
 * expressions; the slots hold copies that borrow them. */
struct pooled_row {
	struct cfi_row row;
	uint64_t key;
	uint32_t next;		/* index + 1 of the next row of its bucket, 0: none */
};

struct cfi_pool {
	struct pooled_row *rows;
	uint32_t nr, alloc;
	uint32_t *heads;	/* bucket (key's hash) -> index + 1 of its first row */
	uint32_t nr_heads;	/* a power of two */
	/* .eh_frame_hdr's table by address range: range i (1 << range_shift
	 * bytes from range_base) has the FDEs from ranges[i] on; made on
	 * first need (a pass over the table), so that each search is within
	 * a few entries, not a binary search of the whole table (libLLVM's
	 * is 1 MiB: 17 steps, most of them a cache miss, at every address
	 * the slots miss; 3% of record's CPU for a clang compile) */
	uint32_t *ranges;	/* nr_ranges + 1 entries */
	uint32_t nr_ranges;
	uint8_t range_shift;
	bool ranges_tried;
	uint64_t range_base;
};

/* Rows per file: a clang compile keeps 7,600, most of them in libLLVM. At
 * the bound the pool and the slots start again. */
#define POOL_MAX_ROWS (1u << 16)

static uint32_t pool_bucket(const struct cfi_pool *p, uint64_t key)
{
	return (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> 32) & (p->nr_heads - 1);
}

static void pool_free(struct cfi_pool *p)
{
	if (!p)
		return;
	for (uint32_t i = 0; i < p->nr; i++)
		free(p->rows[i].row.cfa_expr);
	free(p->rows);
	free(p->heads);
	free(p->ranges);
	free(p);
}

static uint64_t fde_loc(const struct ufile *f, const uint8_t *t, uint64_t i)
{
	int32_t loc;
	memcpy(&loc, t + i * 8, 4);
	return f->eh_hdr_vaddr + (uint64_t)(int64_t)loc;
}

/* p's ranges over the table t: about one range per two FDEs, each range's
 * first FDE the first whose location is at or above the range's start. */
static void pool_ranges(struct cfi_pool *p, const struct ufile *f, const uint8_t *t)
{
	uint64_t n = f->eh_fde_count, lo = fde_loc(f, t, 0), hi = fde_loc(f, t, n - 1);
	p->ranges_tried = true;
	if (hi < lo || n > UINT32_MAX - 1)
		return;	/* not sorted: the binary search alone */
	unsigned shift = 4;
	while (shift < 63 && ((hi - lo) >> shift) + 1 > n / 2 + 1)
		shift++;
	uint64_t nr = ((hi - lo) >> shift) + 1;
	if (!(p->ranges = malloc((nr + 1) * sizeof(*p->ranges))))
		return;
	uint64_t i = 0;
	for (uint64_t r = 0; r <= nr; r++) {
		uint64_t start = lo + (r << shift);
		while (i < n && fde_loc(f, t, i) < start)
			i++;
		p->ranges[r] = (uint32_t)i;
	}
	p->nr_ranges = (uint32_t)nr;
	p->range_shift = (uint8_t)shift;
	p->range_base = lo;
}

/* The index of the FDE whose initial location is the greatest at or below
 * file address a, from .eh_frame_hdr's table (sdata4 pairs, relative to the
 * header: ufile__parse takes only that encoding); else a's page. */
static uint64_t pool_key(struct cfi_pool *p, const struct ufile *f, uint64_t a)
{
	uint64_t off = f->eh_hdr_offset + (f->eh_table_vaddr - f->eh_hdr_vaddr);
	if (!f->eh_hdr_vaddr || !f->eh_fde_count || off > f->size || f->eh_fde_count > (f->size - off) / 8)
		return 1ull << 63 | a >> 12;
	const uint8_t *t = f->data + off;
	uint64_t lo = 0, hi = f->eh_fde_count, best = UINT32_MAX;
	if (!p->ranges_tried)
		pool_ranges(p, f, t);
	if (p->ranges) {
		/* the answer is at or above the FDE before a's range's first
		 * (that one starts below a) and below the next range's first */
		if (a < p->range_base)
			return UINT32_MAX;
		uint64_t r = (a - p->range_base) >> p->range_shift;
		if (r > p->nr_ranges)
			r = p->nr_ranges;
		lo = p->ranges[r] ? p->ranges[r] - 1 : 0;
		if (r < p->nr_ranges)
			hi = p->ranges[r + 1];
	}
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (fde_loc(f, t, mid) <= a) {
			best = mid;
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return best;
}

static const struct cfi_row *pool_find(const struct cfi_pool *p, uint64_t key, uint64_t a)
{
	if (!p || !p->nr_heads)
		return NULL;
	for (uint32_t i = p->heads[pool_bucket(p, key)]; i; i = p->rows[i - 1].next) {
		const struct pooled_row *r = &p->rows[i - 1];
		if (r->key == key && a >= r->row.lo && a < r->row.hi)
			return &r->row;
	}
	return NULL;
}

/* A new row of key's, its place made (NULL: no memory). */
static struct cfi_row *pool_add(struct cfi_pool *p, uint64_t key)
{
	if (p->nr == p->alloc) {
		uint32_t n = p->alloc ? p->alloc * 2 : 256;
		struct pooled_row *rows = realloc(p->rows, n * sizeof(*rows));
		if (!rows)
			return NULL;
		p->rows = rows;
		p->alloc = n;
	}
	if (p->nr >= p->nr_heads) {
		uint32_t n = p->nr_heads ? p->nr_heads * 2 : 256;
		uint32_t *heads = calloc(n, sizeof(*heads));
		if (!heads)
			return NULL;
		free(p->heads);
		p->heads = heads;
		p->nr_heads = n;
		for (uint32_t i = 0; i < p->nr; i++) {
			uint32_t b = pool_bucket(p, p->rows[i].key);
			p->rows[i].next = p->heads[b];
			p->heads[b] = i + 1;
		}
	}
	struct pooled_row *r = &p->rows[p->nr];
	uint32_t b = pool_bucket(p, key);
	r->key = key;
	r->next = p->heads[b];
	p->heads[b] = ++p->nr;
	return &r->row;
}

void ufile__free_rows(struct ufile *f)
{
	free(f->cfi_rows);	/* copies: their expressions are the pool's */
	f->cfi_rows = NULL;
	pool_free(f->cfi_pool);
	f->cfi_pool = NULL;
}

/* Slots per file: 256 at first, doubled (and refilled from the pool as
 * walks ask) each time a table has missed twice its size, up to one per
 * FDE and at most 65536 (5.5 MiB, for a file the size of libLLVM: a clang
 * compile asks for about 15,000 addresses there). */
#define ROWS_MIN_BITS 8
#define ROWS_MAX_BITS 16

static unsigned rows_max_bits(const struct ufile *f)
{
	unsigned bits = ROWS_MIN_BITS;
	while (bits < ROWS_MAX_BITS && (1ull << bits) < f->eh_fde_count)
		bits++;
	return bits;
}

/* The row at a from the pool, compiled into it if not there (NULL: no
 * memory). */
static const struct cfi_row *pool_row(struct ufile *f, uint64_t a)
{
	if (!f->cfi_pool && !(f->cfi_pool = calloc(1, sizeof(*f->cfi_pool))))
		return NULL;
	struct cfi_pool *p = f->cfi_pool;
	uint64_t key = pool_key(p, f, a);
	const struct cfi_row *found = pool_find(p, key, a);
	if (found)
		return found;
	if (p->nr == POOL_MAX_ROWS) {
		/* start again: the slots borrow the rows' expressions */
		memset(f->cfi_rows, 0, sizeof(*f->cfi_rows) << f->cfi_rows_bits);
		for (uint32_t i = 0; i < p->nr; i++)
			free(p->rows[i].row.cfa_expr);
		p->nr = 0;
		memset(p->heads, 0, p->nr_heads * sizeof(*p->heads));
	}
	struct cfi_row *row = pool_add(p, key);
	if (row)
		row_compile(ufile__eh_cfi(f), a, row);
	return row;
}

const struct cfi_row *ufile__cfi_row(struct ufile *f, uint64_t a)
{
	if (!f->cfi_rows || (f->cfi_misses > (2u << f->cfi_rows_bits) && f->cfi_rows_bits < rows_max_bits(f))) {
		unsigned bits = f->cfi_rows ? f->cfi_rows_bits + 1u : ROWS_MIN_BITS;
		struct cfi_row *rows = calloc(1u << bits, sizeof(*rows));
		if (!rows && !f->cfi_rows)
			return NULL;
		if (rows) {
			free(f->cfi_rows);
			f->cfi_rows = rows;
			f->cfi_rows_bits = (uint8_t)bits;
		}
		f->cfi_misses = 0;
	}
	uint64_t h = ((a >> 2) * 0x9e3779b97f4a7c15ull) >> (64 - f->cfi_rows_bits);
	struct cfi_row *row = &f->cfi_rows[h];
	if (row->state != CFI_ROW_EMPTY && a >= row->lo && a < row->hi)
		return row;
	f->cfi_misses++;
	const struct cfi_row *src = pool_row(f, a);
	if (!src)
		return NULL;
	*row = *src;
	return row;
}

enum step_res { STEP_OK, STEP_LIBDW, STEP_TRUNCATED };

/* One step as libdw's handle_cfi takes it with row: every register from r
 * into *out. STEP_LIBDW where libdw must take it (a register the CFA needs
 * is not known; c's failure state is then as before). A read that fails
 * ends libdw's walk there as truncated (its step leaves the register unset
 * and notes the failure, and frame_cb ends the walk at the next frame, or
 * the walk ends with no return address): STEP_TRUNCATED, the failure
 * noted, unless one was noted before (then libdw's). */
static enum step_res step(struct uctx *c, const struct cfi_row *row, const struct unwind_regs *r,
			  struct unwind_regs *out)
{
	uint64_t cfa;
	if (row->cfa_expr) {
		if (!eval_cfa_expr(row->cfa_expr, r, &cfa))
			return STEP_LIBDW;
	} else {
		if (!(r->valid & (1u << row->cfa_reg)))
			return STEP_LIBDW;
		cfa = r->r[row->cfa_reg] + (uint64_t)(int64_t)row->cfa_off;
	}
	bool fail = c->mem_fail;
	uint64_t fail_addr = c->fail_addr;

	out->valid = 0;
	for (int i = 0; i < UNWIND_NR_REGS; i++) {
		uint64_t v;
		switch (row->kind[i]) {
		case RULE_UNDEF:
			continue;
		case RULE_SAME:
			if (!(r->valid & (1u << i)))
				continue;
			v = r->r[i];
			break;
		case RULE_OFFSET:
			if (!uctx__read_word(c, cfa + (uint64_t)(int64_t)row->off[i], &v)) {
				if (!fail)
					return STEP_TRUNCATED;
				c->mem_fail = fail;
				c->fail_addr = fail_addr;
				return STEP_LIBDW;
			}
			break;
		case RULE_VALOFF:
			v = cfa + (uint64_t)(int64_t)row->off[i];
			break;
		default:	/* RULE_REG */
			if (!(r->valid & (1u << row->off[i])))
				continue;
			v = r->r[row->off[i]];
			break;
		}
		out->r[i] = v;
		out->valid |= 1u << i;
	}
	return STEP_OK;
}

/* Go code's row at lpc, as libdw reads it from the .debug_frame Go's linker
 * writes from its pcsp table (CFA = %rsp + frame size + 8, the return
 * address just below it), under the x86-64 ABI's initial rules libdw puts
 * before every CIE (x86_64_abi_cfi: DWARF registers 0, 6 and 12-16 keep
 * their values, %rsp is the CFA): the frame size from the pcsp table
 * itself, without libdw's FDE search and row interpretation, which were
 * most of a Go stack's cost (Go's frames were libdw's walk). */
static bool go_row_at(const struct umod *um, uint64_t lpc, struct cfi_row *row)
{
	int64_t size;

	if (!uctx__go_frame_size(um, lpc, &size))
		return false;
	memset(row, 0, sizeof(*row));
	row->state = CFI_ROW_FAST;
	row->cfa_reg = UNWIND_REG_SP;
	row->cfa_off = (int32_t)(size + 8);
	static const uint8_t same[] = { 0, UNWIND_REG_BP, 12, 13, 14, 15 };
	for (size_t i = 0; i < sizeof(same); i++)
		row->kind[same[i]] = RULE_SAME;
	row->kind[UNWIND_REG_SP] = RULE_VALOFF;
	row->kind[UNWIND_REG_IP] = RULE_OFFSET;
	row->off[UNWIND_REG_IP] = -8;
	return true;
}

/* The caller's frame, at return address next's ip, recorded; false where
 * libdw's walk says how the walk ends there (not code, or no room) */
static bool accept(const struct uctx *c, const struct unwind_regs *next, uint64_t *ips, int max, int *n)
{
	uint64_t ra = next->r[UNWIND_REG_IP];
	const struct map *m = maps__find(c->maps, ra);
	if (!m || !(m->prot & PROT_EXEC) || *n >= max)
		return false;
	ips[(*n)++] = ra;
	return true;
}

/* A step without CFI from frame r, as libdw's walk takes it (step_nocfi,
 * then resumed from the caller, a failed read forgotten), the caller
 * recorded; false where libdw's walk is to take it */
static bool nocfi_step(struct uctx *c, struct unwind_regs *r, uint64_t *ips, int max, int *n,
		       struct unwind_result *res)
{
	if (c->mem_fail || res->fp_frames >= UNWIND_MAX_NOCFI_STEPS)
		return false;
	uint64_t fail_addr = c->fail_addr;
	struct unwind_regs next = *r;
	bool ok = uctx__nocfi_step(c, &next) && accept(c, &next, ips, max, n);
	c->mem_fail = false;
	if (!ok) {
		c->fail_addr = fail_addr;
		return false;
	}
	res->fp_frames++;
	*r = next;
	return true;
}

bool ufast__walk(struct uctx *c, uint64_t *ips, int max, int *n_out, struct unwind_regs *from,
		 struct unwind_result *res)
{
	struct unwind_regs r = *c->regs, next;
	uint64_t pc = r.r[UNWIND_REG_IP];
	bool act = true;	/* the sampled frame: its own pc, not a return address */
	int n = 1;

	for (;;) {
		uint64_t lpc = act ? pc : pc - 1;
		const struct umod *um = uproc__find_mod(c->proc, lpc);
		const struct cfi_row *row;
		struct cfi_row go_row;
		if (!um) {
			/* code of no file (a JIT's) */
			if (!nocfi_step(c, &r, ips, max, &n, res))
				break;
			pc = r.r[UNWIND_REG_IP];
			act = false;
			continue;
		}
		if (!um->in_dwfl || pc < um->low || pc >= um->high)
			break;
		if (um->file->is_go) {
			/* Go's own steps (a cgo call's system stack, the
			 * systemstack switch) are libdw's walk's, and so is a
			 * Go file without .debug_frame (-ldflags=-s), whose
			 * frames libdw's walk steps as frames without CFI */
			if (!um->file->has_debug_frame || (!act && uctx__go_special(c, pc)))
				break;
			if (uctx__is_root(c, lpc)) {	/* where Go's traceback stops */
				res->end = UNWIND_COMPLETE;
				*n_out = n;
				return true;
			}
			if (!go_row_at(um, lpc, &go_row))
				break;
			row = &go_row;
		} else if (!(row = ufile__cfi_row(um->file, lpc - um->bias)) || row->signal) {
			break;
		} else if (row->state == CFI_ROW_ABSENT) {
			/* no CFI in .eh_frame, nor in a .debug_frame (looked
			 * for here where libdw has not looked yet; where there
			 * is one, libdw's walk uses it): V8's builtins in node,
			 * ld.so's _start, libLLVM's code without CFI */
			if (!ufile__no_debug_frame(um->file))
				ufile__look_for_debug_frame(um->file);
			if (!ufile__no_debug_frame(um->file))
				break;
			if (uctx__is_entry(c, lpc)) {
				res->end = UNWIND_COMPLETE;
				*n_out = n;
				return true;
			}
			if (!nocfi_step(c, &r, ips, max, &n, res))
				break;
			pc = r.r[UNWIND_REG_IP];
			act = false;
			continue;
		}
		/* a row in other forms (a CFA expression: PLT entries, realigned
		 * stacks): libdw steps that frame alone, the walk goes on here */
		if (row->state == CFI_ROW_FAST) {
			enum step_res sr = step(c, row, &r, &next);
			if (sr == STEP_TRUNCATED) {
				res->end = UNWIND_TRUNCATED;
				*n_out = n;
				return true;
			}
			if (sr == STEP_LIBDW)
				break;
		} else if (!udw__step(c, &r, act, &next)) {
			break;
		}
		if (!(next.valid & (1u << UNWIND_REG_IP)) || !next.r[UNWIND_REG_IP]) {
			if (row->state != CFI_ROW_FAST || row->kind[UNWIND_REG_IP] != RULE_UNDEF || c->mem_fail)
				break;
			/* the ABI's mark of the outermost frame (_start, clone3) */
			res->end = UNWIND_COMPLETE;
			*n_out = n;
			return true;
		}
		if (!accept(c, &next, ips, max, &n))
			break;
		r = next;
		pc = next.r[UNWIND_REG_IP];
		act = false;
	}
	/* libdw goes on from the frame at ips[n - 1] */
	*n_out = n - 1;
	*from = r;
	return false;
}
