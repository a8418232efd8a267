/* Each thread's stack as its last sample saw it, for the samples after it
 * whose copy ends short (events that fire on every occurrence get 4 KB;
 * a compiler's stacks are 6-64 KB deep). The live stack cannot help there
 * when the thread is busy: a malloc uprobe system-wide during a build had
 * 14,000 of 20,000 live reads refused, a later sample of the thread having
 * been above the copy's end (the frames there had returned since).
 *
 * The bytes of the thread's previous sample at addresses above both its sp
 * and this sample's sp lie in frames that were live at both samples (as far
 * as samples show: the same trust the live stack's floor gives), so their
 * saved registers and return addresses, all a walk reads there, are what
 * this sample would have seen. Taken where they join this copy and agree
 * with its last 256 bytes (every code and stack address there the same,
 * as the live stack is checked), and given up if the walk goes astray in
 * them. Each sample's stack then becomes the thread's: its copy, and what
 * is still valid of the old one above it. Not for Go (goroutine stacks are
 * switched, moved and reused without a return), nor across stacks
 * (sigaltstack): the stack mapping must be the same (where it can no longer
 * be asked, the process gone, the one the image was taken in, or none). */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "unwind_internal.h"

#define HIST_OVERLAP 256
#define HIST_MAX_BYTES ((uint64_t)512 * 1024)	/* a thread's image, at most */
#define HIST_BUDGET ((uint64_t)64 << 20)	/* all images of an unwinder */
#define HIST_PER_PROC 64			/* threads with an image, per process */
#define HIST_SMALL_COPY 16384			/* a copy's bytes always kept up to this */

struct ustack_img {
	struct ustack_img *next;
	pid_t tid;
	uint64_t lo, hi;	/* bytes [lo, hi) known; lo is the last sample's sp */
	uint64_t stack_end;	/* of the mapping they lie in */
	uint64_t base;		/* buf[0]'s address: buf holds [base, base + cap) */
	uint8_t *buf;
	uint64_t cap;
	bool joined;		/* this sample's copy was joined to it */
};

static void img_free(struct unwinder *u, struct ustack_img *im)
{
	u->hist_bytes -= im->cap;
	free(im->buf);
	free(im);
}

void uhist__free(struct unwinder *u, struct uproc *p)
{
	for (struct ustack_img *im = p->imgs, *n; im; im = n) {
		n = im->next;
		img_free(u, im);
	}
	p->imgs = NULL;
	p->nr_imgs = 0;
}

/* tid's image, moved to the front; NULL if none */
static struct ustack_img *img_find(struct uproc *p, pid_t tid)
{
	for (struct ustack_img **pp = &p->imgs; *pp; pp = &(*pp)->next) {
		struct ustack_img *im = *pp;
		if (im->tid == tid) {
			*pp = im->next;
			im->next = p->imgs;
			p->imgs = im;
			return im;
		}
	}
	return NULL;
}

/* im's buffer covers [lo, hi), keeping what it holds of [keep_lo,
 * keep_hi): grown downwards (a thread goes deeper), room to spare. */
static bool img_cover(struct unwinder *u, struct ustack_img *im, uint64_t lo, uint64_t hi,
		      uint64_t keep_lo, uint64_t keep_hi)
{
	if (im->buf && lo >= im->base && hi <= im->base + im->cap)
		return true;
	uint64_t cap = im->cap ? im->cap : 16384;
	while (cap < hi - lo + 4096)
		cap *= 2;
	if (u->hist_bytes - im->cap + cap > HIST_BUDGET)
		return false;
	uint8_t *b = malloc(cap);
	if (!b)
		return false;
	uint64_t base = hi + 4096 > cap ? hi - cap + 4096 : 0;	/* room below lo to grow */
	if (base > lo)
		base = lo;
	if (keep_lo < keep_hi && keep_lo >= base && keep_hi <= base + cap)
		memcpy(b + (keep_lo - base), im->buf + (keep_lo - im->base), keep_hi - keep_lo);
	free(im->buf);
	u->hist_bytes += cap - im->cap;
	im->buf = b;
	im->cap = cap;
	im->base = base;
	return true;
}

/* The end of the stack mapping the thread's bytes lie in: the sample's;
 * else, its process gone before the sample was unwound (nothing to ask
 * /proc any more), the one the thread's image was taken in, else "above"
 * (UINT64_MAX): so that a thread whose process exited before its first
 * sample was unwound still joins its samples, every value at or above sp
 * in the overlap then checked as a stack address. 0: no history. */
static uint64_t hist_end(struct uctx *c, const struct ustack_img *im)
{
	bool gone;
	uint64_t end = uctx__stack_end(c, &gone);
	if (end || !gone)
		return end;
	return im && im->stack_end ? im->stack_end : UINT64_MAX;
}

bool uhist__extend(struct uctx *c, pid_t tid)
{
	struct uproc *p = c->proc;
	uint64_t sp = c->sp, copy_end = c->sp + c->size;
	if (!tid || !c->data || c->size < HIST_OVERLAP)
		return false;
	struct ustack_img *im = img_find(p, tid);
	if (!im)
		return false;
	im->joined = false;
	uint64_t stack_end = hist_end(c, im);
	if (!stack_end || copy_end >= stack_end || im->stack_end != stack_end || im->hi <= copy_end || im->hi - sp > HIST_MAX_BYTES)
		return false;
	/* valid: above the sps of both samples; joined: the overlap within */
	uint64_t valid = im->lo > sp ? im->lo : sp;
	uint64_t ov = copy_end - HIST_OVERLAP;
	if (valid > ov || im->lo > ov)
		return false;
	const uint8_t *was = im->buf + (ov - im->base), *now = c->data + (ov - sp);
	for (uint64_t off = 0; off < HIST_OVERLAP; off += 8) {
		uint64_t a, b;
		memcpy(&a, was + off, 8);
		memcpy(&b, now + off, 8);
		if (a != b && ((a >= sp && a < stack_end) || uctx__is_exec(c, a)))
			return false;
	}
	/* the copy written over the old bytes: the image is the joined stack */
	if (!img_cover(c->u, im, sp, im->hi, copy_end, im->hi))
		return false;
	memcpy(im->buf + (sp - im->base), c->data, c->size);
	im->lo = sp;
	im->joined = true;
	c->exact = c->size;
	c->data = im->buf + (sp - im->base);
	c->size = im->hi - sp;
	return true;
}

void uhist__note(struct uctx *c, pid_t tid, bool keep_extension)
{
	struct uproc *p = c->proc;
	struct unwinder *u = c->u;
	if (!tid)
		return;
	struct ustack_img *im = img_find(p, tid);
	if (im && im->joined) {
		im->joined = false;
		if (!keep_extension)
			im->hi = c->sp + (c->exact ? c->exact : c->size);
		return;
	}
	/* the image becomes this sample's copy; none where a large copy held
	 * the whole stack (rate-sampled events' 64 KB): the next copy will
	 * too, and keeping it would cost its bytes again at every sample. Where
	 * the stack's end is not known at all (UINT64_MAX), a large copy is
	 * taken to hold it, as nearly all do. */
	uint64_t end = c->sp + c->size, stack_end = hist_end(c, im);
	if (!c->data || !c->size || !stack_end || uctx__has_go(c) ||
	    (c->size > HIST_SMALL_COPY && (end >= stack_end || stack_end == UINT64_MAX))) {
		if (im) {
			p->imgs = im->next;
			p->nr_imgs--;
			img_free(u, im);
		}
		return;
	}
	if (!im) {
		if (p->nr_imgs >= HIST_PER_PROC) {	/* the least recent goes */
			struct ustack_img **pp = &p->imgs;
			while ((*pp)->next)
				pp = &(*pp)->next;
			img_free(u, *pp);
			*pp = NULL;
			p->nr_imgs--;
		}
		im = calloc(1, sizeof(*im));
		if (!im)
			return;
		im->tid = tid;
		im->next = p->imgs;
		p->imgs = im;
		p->nr_imgs++;
	}
	if (!img_cover(u, im, c->sp, end, 0, 0)) {
		im->lo = im->hi = 0;	/* none this time; the entry stays */
		return;
	}
	memcpy(im->buf + (c->sp - im->base), c->data, c->size);
	im->lo = c->sp;
	im->hi = end;
	im->stack_end = stack_end;
}
