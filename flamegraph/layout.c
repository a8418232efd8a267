/* Which frames to draw, and where: only the frames at least minwidth wide
 * (and whose parents are) are ever built. The distinct stacks are split by
 * their next frame, depth by depth, as a radix sort would: a node's stacks
 * are counted per child, the children sorted by name (flamegraph.pl's line
 * order), and only the stacks of children wide enough go on. A stack is
 * looked at once per drawn frame on its path, so the work is bounded by the
 * input and usually far below it: the drawn frames are few (thousands) even
 * when the distinct frames are millions.
 *
 * x positions are summed exactly as a merged tree would sum them: a frame
 * starts where its parent starts plus the parent's own count plus the
 * totals of the siblings sorted before it, narrow ones included. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int fg_name_cmp(const struct fg_str *a, const struct fg_str *b)
{
	size_t m = a->len < b->len ? a->len : b->len;
	int r = memcmp(a->s, b->s, m);
	if (r)
		return r;
	if (a->len == b->len)
		return 0;
	if (a->len < b->len)
		return ';' < (unsigned char)b->s[m] ? -1 : 1;
	return (unsigned char)a->s[m] < ';' ? -1 : 1;
}

/* A stack on its way down: where its next frame is, its count, which
 * stack it is, and (while its node is split) which child it goes to. */
struct ent {
	const uint8_t *p;
	double count;
	uint32_t stack;
	uint32_t kid;           /* kid index + 1; 0: the stack ends here */
};

/* A frame to draw, waiting for its stacks to be split. */
struct work {
	uint32_t name, depth, flags, lo, hi;
	double total, start;
};

/* A child of the node being split. */
struct kid {
	uint32_t name, flags, n, at;
	double total, start;
};

struct layout_state {
	const struct flamegraph *fg;
	double minwidth_time;
	struct ent *ents, *tmp;
	struct work *work;
	uint32_t nr_work, cap_work;
	struct kid *kids;
	uint32_t nr_kids, cap_kids;
	uint32_t *order;        /* kids indices, sorted */
	uint32_t cap_order;
	uint32_t *kid_of;       /* name -> kid index + 1 (never a flame chart) */
	struct fg_node *nodes;
	uint32_t nr_nodes, cap_nodes;
	uint32_t depthmax;
};

static int push_work(struct layout_state *st, const struct kid *k, uint32_t depth, uint32_t lo)
{
	if (fg_grow((void **)&st->work, &st->cap_work, sizeof(*st->work), st->nr_work + 1))
		return -ENOMEM;
	st->work[st->nr_work++] = (struct work){ k->name, depth, k->flags, lo, lo + k->n,
						 k->total, k->start };
	return 0;
}

static int new_kid(struct layout_state *st, uint32_t name, double start)
{
	if (fg_grow((void **)&st->kids, &st->cap_kids, sizeof(*st->kids), st->nr_kids + 1))
		return -ENOMEM;
	st->kids[st->nr_kids] = (struct kid){ .name = name, .start = start };
	return (int)st->nr_kids++;
}

static int kid_cmp(const void *pa, const void *pb, void *arg)
{
	const struct layout_state *st = arg;
	const struct fg_str *strs = st->fg->st.strs;
	return fg_name_cmp(&strs[st->kids[*(const uint32_t *)pa].name],
			   &strs[st->kids[*(const uint32_t *)pb].name]);
}

/* A flame chart: children are runs of adjacent stacks with the same next
 * frame (a stack ending here breaks a run), already in time order and in
 * place; they start when their first stack came. */
static int split_chart(struct layout_state *st, const struct work *w, struct fg_node *node)
{
	const struct flamegraph *fg = st->fg;
	int open = -1;
	for (uint32_t i = w->lo; i < w->hi; i++) {
		struct ent *e = &st->ents[i];
		const uint8_t *p = e->p;
		uint32_t id = fg_next_id(&p);
		if (!id) {
			node->delta += fg->st.stacks[e->stack].v[1];
			open = -1;
			continue;
		}
		if (open < 0 || st->kids[open].name != id - 1) {
			open = new_kid(st, id - 1, fg->sstarts[e->stack]);
			if (open < 0)
				return -ENOMEM;
			st->kids[open].at = i;
		}
		struct kid *k = &st->kids[open];
		k->total += e->count;
		k->n++;
		if (fg->sflags)
			k->flags |= fg->sflags[e->stack];
		e->p = p;
	}
	for (size_t j = st->nr_kids; j-- > 0;) {
		const struct kid *k = &st->kids[j];
		if (k->total >= st->minwidth_time && push_work(st, k, w->depth + 1, k->at))
			return -ENOMEM;
	}
	return 0;
}

/* A flame graph: children merge by name and are sorted by it; the stacks of
 * the wide ones are moved, in order, to the front of the node's range. */
static int split_graph(struct layout_state *st, const struct work *w, struct fg_node *node)
{
	const struct flamegraph *fg = st->fg;
	double self = 0;
	for (uint32_t i = w->lo; i < w->hi; i++) {
		struct ent *e = &st->ents[i];
		uint32_t id = fg_next_id(&e->p);
		if (!id) {
			self += e->count;
			node->delta += fg->st.stacks[e->stack].v[1];
			e->kid = 0;
			continue;
		}
		uint32_t k = st->kid_of[id - 1];
		if (!k) {
			int n = new_kid(st, id - 1, 0);
			if (n < 0)
				return -ENOMEM;
			k = st->kid_of[id - 1] = (uint32_t)n + 1;
		}
		e->kid = k;
		struct kid *kd = &st->kids[k - 1];
		kd->total += e->count;
		kd->n++;
		if (fg->sflags)
			kd->flags |= fg->sflags[e->stack];
	}
	if (!st->nr_kids)
		return 0;
	if (fg_grow((void **)&st->order, &st->cap_order, sizeof(*st->order), st->nr_kids))
		return -ENOMEM;
	for (size_t j = 0; j < st->nr_kids; j++)
		st->order[j] = (uint32_t)j;
	qsort_r(st->order, st->nr_kids, sizeof(*st->order), kid_cmp, st);
	double pos = w->start + self;
	uint32_t at = w->lo;
	size_t wide = 0;
	for (size_t j = 0; j < st->nr_kids; j++) {
		struct kid *k = &st->kids[st->order[j]];
		k->start = pos;
		pos += k->total;
		if (k->total >= st->minwidth_time) {
			k->at = at;
			at += k->n;
			st->order[wide++] = st->order[j];
		} else {
			k->n = 0;  /* its stacks go no further */
		}
	}
	if (wide) {
		for (uint32_t i = w->lo; i < w->hi; i++) {
			const struct ent *e = &st->ents[i];
			if (!e->kid)
				continue;
			struct kid *k = &st->kids[e->kid - 1];
			if (k->n)
				st->tmp[k->at++] = *e;
		}
		memcpy(st->ents + w->lo, st->tmp + w->lo, (at - w->lo) * sizeof(*st->ents));
	}
	for (size_t j = 0; j < st->nr_kids; j++)
		st->kid_of[st->kids[j].name] = 0;
	at = w->lo;
	for (size_t j = 0; j < wide; j++) {
		struct kid *k = &st->kids[st->order[j]];
		k->at = at;
		at += k->n;
	}
	for (size_t j = wide; j-- > 0;) {
		const struct kid *k = &st->kids[st->order[j]];
		if (push_work(st, k, w->depth + 1, k->at))
			return -ENOMEM;
	}
	return 0;
}

int fg_layout(const struct flamegraph *fg, double minwidth_time, struct fg_node **nodes,
	      size_t *nr, uint32_t *depthmax)
{
	struct layout_state st = { .fg = fg, .minwidth_time = minwidth_time };
	int err = -ENOMEM;
	*nodes = NULL;
	*nr = 0;
	*depthmax = 0;
	if (!(fg->time >= minwidth_time))
		return 0;  /* not even the root is wide enough */
	size_t n = fg->st.nr_stacks ? fg->st.nr_stacks : 1;
	st.ents = malloc(n * sizeof(*st.ents));
	if (!st.ents)
		goto out;
	for (uint32_t i = 0; i < fg->st.nr_stacks; i++) {
		uint32_t s = i < fg->nr_order ? fg->order[i] : i;
		st.ents[i] = (struct ent){ fg->st.stacks[s].ids, fg->st.stacks[s].v[0], s, 0 };
	}
	if (!fg->o.flamechart &&
	    (!(st.tmp = malloc(n * sizeof(*st.tmp))) ||
	     !(st.kid_of = calloc(fg->st.nr_strs, sizeof(*st.kid_of)))))
		goto out;
	/* The root: every stack, the total of every line, in input order. */
	struct kid root = { .name = 0, .flags = fg->any_delta ? NODE_HAS_DELTA : 0,
			    .n = fg->st.nr_stacks, .total = fg->time, .start = 0 };
	if (push_work(&st, &root, 0, 0))
		goto out;
	while (st.nr_work) {
		struct work w = st.work[--st.nr_work];
		if (fg_grow((void **)&st.nodes, &st.cap_nodes, sizeof(*st.nodes), st.nr_nodes + 1))
			goto out;
		struct fg_node *node = &st.nodes[st.nr_nodes++];
		*node = (struct fg_node){ w.name, w.depth, w.flags, w.total, w.start, 0 };
		if (w.depth > st.depthmax)
			st.depthmax = w.depth;
		st.nr_kids = 0;
		if ((fg->o.flamechart ? split_chart : split_graph)(&st, &w, node))
			goto out;
	}
	*nodes = st.nodes;
	*nr = st.nr_nodes;
	*depthmax = st.depthmax;
	st.nodes = NULL;
	err = 0;
out:
	free(st.ents);
	free(st.tmp);
	free(st.work);
	free(st.kids);
	free(st.order);
	free(st.kid_of);
	free(st.nodes);
	return err;
}
