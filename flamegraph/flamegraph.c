/* The reading side of flame graphs: each folded line or stack is kept once
 * per distinct stack, as varint-encoded indices of interned names (a few
 * bytes a frame) with its summed counts. No tree is built while reading:
 * which frames are wide enough to draw is known only once the total is, and
 * layout.c then builds just those. Reading costs about what scanning the
 * bytes costs; memory follows the distinct stacks. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

void flamegraph_opts__init(struct flamegraph_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->width = 1200;
	o->height = 16;
	o->minwidth = 0.1;
	o->fonttype = "Verdana";
	o->fontsize = 12;
	o->fontwidth = 0.59;
	o->countname = "samples";
	o->nametype = "Function:";
	o->colors = "hot";
	o->factor = 1;
}

static int own(struct flamegraph *fg, int slot, const char **s)
{
	if (!*s)
		return 0;
	fg->strs_owned[slot] = strdup(*s);
	if (!fg->strs_owned[slot])
		return -ENOMEM;
	*s = fg->strs_owned[slot];
	return 0;
}

static bool valid_bgcolors(const char *s)
{
	static const char *const names[] = { "yellow", "blue", "green", "grey" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i]))
			return true;
	return strlen(s) == 7 && s[0] == '#';
}

struct flamegraph *flamegraph__new(const struct flamegraph_opts *opts)
{
	struct flamegraph_opts def;
	if (!opts) {
		flamegraph_opts__init(&def);
		opts = &def;
	}
	struct flamegraph *fg = calloc(1, sizeof(*fg));
	int err = -ENOMEM;
	if (!fg)
		goto err;
	fg->o = *opts;
	err = -EINVAL;
	if (!fg->o.colors)
		fg->o.colors = "hot";
	fg->palette = fg_palette__parse(fg->o.colors);
	if (fg->palette < 0)
		goto err;
	if (fg->o.bgcolors && *fg->o.bgcolors && !valid_bgcolors(fg->o.bgcolors))
		goto err;
	if (!fg->o.width || !fg->o.height || !(fg->o.fontsize > 0) || !(fg->o.fontwidth > 0) ||
	    !(fg->o.minwidth >= 0) || !(fg->o.factor > 0) || !(fg->o.total >= 0))
		goto err;
	if (fg->o.notes && strpbrk(fg->o.notes, "<>"))
		goto err;
	if (fg->o.encoding && (!*fg->o.encoding ||
			       fg->o.encoding[strspn(fg->o.encoding, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
						     "abcdefghijklmnopqrstuvwxyz0123456789._-")]))
		goto err;
	err = -ENOMEM;
	if (own(fg, 0, &fg->o.title) || own(fg, 1, &fg->o.subtitle) ||
	    own(fg, 2, &fg->o.fonttype) || own(fg, 3, &fg->o.countname) ||
	    own(fg, 4, &fg->o.nametype) || own(fg, 5, &fg->o.colors) ||
	    own(fg, 6, &fg->o.bgcolors) || own(fg, 7, &fg->o.notes) ||
	    own(fg, 8, &fg->o.encoding))
		goto err;
	if (!fg->o.fonttype)
		fg->o.fonttype = "Verdana";
	if (!fg->o.countname)
		fg->o.countname = "samples";
	if (!fg->o.nametype)
		fg->o.nametype = "Function:";
	if (fg_store__init(&fg->st, fg->o.flamechart))
		goto err;
	fg->maxdelta = 1;
	fg_rng__seed(&fg->rng, (uint32_t)(opts->random_seed ? opts->random_seed
					  : (uint64_t)time(NULL) ^ (uint64_t)clock()));
	return fg;
err:
	flamegraph__delete(fg);
	errno = -err;
	return NULL;
}

void flamegraph__delete(struct flamegraph *fg)
{
	if (!fg)
		return;
	for (size_t i = 0; i < sizeof(fg->strs_owned) / sizeof(fg->strs_owned[0]); i++)
		free(fg->strs_owned[i]);
	fg_store__exit(&fg->st);
	free(fg->sflags);
	free(fg->sstarts);
	free(fg->order);
	free(fg->frames);
	free(fg->lens);
	free(fg->scratch);
	free(fg);
}

/* Side arrays follow the store's stacks. */
static int grow_side(struct flamegraph *fg)
{
	uint32_t need = fg->st.nr_stacks;
	if (need <= fg->cap_side)
		return 0;
	uint32_t cap = fg->st.cap_stacks > need ? fg->st.cap_stacks : need;
	if (fg->sflags) {
		uint8_t *f = realloc(fg->sflags, cap);
		if (!f)
			return -ENOMEM;
		memset(f + fg->cap_side, 0, cap - fg->cap_side);
		fg->sflags = f;
	}
	if (fg->o.flamechart) {
		double *t = realloc(fg->sstarts, cap * sizeof(*t));
		if (!t)
			return -ENOMEM;
		fg->sstarts = t;
	}
	fg->cap_side = cap;
	return 0;
}

/* Ends the stack encoded in the store (its first `keep` bytes) and adds
 * the line's counts to it. */
static int store(struct flamegraph *fg, size_t keep, double before, double after, bool diff)
{
	bool is_new;
	int64_t idx = fg_store__end(&fg->st, keep, &is_new);
	if (idx < 0)
		return (int)idx;
	if (diff && !fg->sflags) {
		fg->sflags = calloc(fg->cap_side ? fg->cap_side : 1, 1);
		if (!fg->sflags)
			return -ENOMEM;
	}
	if (is_new) {
		if (grow_side(fg))
			return -ENOMEM;
		if (fg->sstarts)
			fg->sstarts[idx] = fg->time;
	}
	struct fg_stack *s = &fg->st.stacks[idx];
	s->v[0] += after;
	if (diff) {
		double d = after - before;
		s->v[1] += d;
		fg->sflags[idx] |= NODE_HAS_DELTA;
		fg->any_delta = true;
		if (fabs(d) > fg->maxdelta)
			fg->maxdelta = fabs(d);
	}
	fg->time += after;
	return 0;
}

/* Interns and encodes frames f[0..n) (already reversed/annotated as the
 * options want), then stores the stack. */
static int insert(struct flamegraph *fg, const char *const *f, const size_t *fl, size_t n,
		  double before, double after, bool diff)
{
	fg->st.enc_len = 0;
	for (size_t i = 0; i < n; i++) {
		int64_t name = fg_store__intern(&fg->st, f[i], fl[i]);
		if (name < 0 || fg_store__add(&fg->st, (uint32_t)name))
			return -ENOMEM;
	}
	return store(fg, fg->st.enc_len, before, after, diff);
}

static int frames_reserve(struct flamegraph *fg, size_t n)
{
	if (n <= fg->frames_cap)
		return 0;
	size_t cap = fg->frames_cap ? fg->frames_cap : 64;
	while (cap < n)
		cap *= 2;
	const char **f = realloc(fg->frames, cap * sizeof(*f));
	if (!f)
		return -ENOMEM;
	fg->frames = f;
	size_t *l = realloc(fg->lens, cap * sizeof(*l));
	if (!l)
		return -ENOMEM;
	fg->lens = l;
	fg->frames_cap = cap;
	return 0;
}

static void reverse_frames(struct flamegraph *fg, size_t n)
{
	for (size_t i = 0; i < n / 2; i++) {
		const char *t = fg->frames[i];
		fg->frames[i] = fg->frames[n - 1 - i];
		fg->frames[n - 1 - i] = t;
		size_t tl = fg->lens[i];
		fg->lens[i] = fg->lens[n - 1 - i];
		fg->lens[n - 1 - i] = tl;
	}
}

/* --colors=chain: frames after a "--" separator (not the first frame) are
 * the waker's, and get "_[w]" for colouring, as flamegraph.pl does. */
static int annotate_chain(struct flamegraph *fg, size_t n)
{
	size_t sep = 0;
	for (size_t i = 1; i < n && !sep; i++)
		if (fg->lens[i] == 2 && !memcmp(fg->frames[i], "--", 2))
			sep = i;
	if (!sep)
		return 0;
	size_t need = 0;
	for (size_t i = sep + 1; i < n; i++)
		need += fg->lens[i] + 4;
	if (need > fg->scratch_cap) {
		char *s = realloc(fg->scratch, need);
		if (!s)
			return -ENOMEM;
		fg->scratch = s;
		fg->scratch_cap = need;
	}
	char *p = fg->scratch;
	for (size_t i = sep + 1; i < n; i++) {
		if (fg->lens[i] == 2 && !memcmp(fg->frames[i], "--", 2))
			continue;
		memcpy(p, fg->frames[i], fg->lens[i]);
		memcpy(p + fg->lens[i], "_[w]", 4);
		fg->frames[i] = p;
		fg->lens[i] += 4;
		p += fg->lens[i];
	}
	return 0;
}

static int add_frames(struct flamegraph *fg, size_t n, double before, double after, bool diff)
{
	if (fg->o.reverse)
		reverse_frames(fg, n);
	if (fg->palette == PAL_CHAIN) {
		int err = annotate_chain(fg, n);
		if (err)
			return err;
	}
	return insert(fg, fg->frames, fg->lens, n, before, after, diff);
}

/* The common case, split and encoded in one pass: no reversing, no
 * annotations. Trailing empty fields are dropped, as split(";") does. */
static int add_plain(struct flamegraph *fg, const char *line, size_t sl, double before,
		     double after, bool diff)
{
	size_t kept = 0;
	const char *p = line, *end = line + sl;
	fg->st.enc_len = 0;
	for (;;) {
		const char *semi = memchr(p, ';', (size_t)(end - p));
		const char *e = semi ? semi : end;
		int64_t name = fg_store__intern(&fg->st, p, (size_t)(e - p));
		if (name < 0 || fg_store__add(&fg->st, (uint32_t)name))
			return -ENOMEM;
		if (name)  /* index 0 is "" */
			kept = fg->st.enc_len;
		if (!semi)
			break;
		p = semi + 1;
	}
	return store(fg, kept, before, after, diff);
}

int flamegraph__add_line(struct flamegraph *fg, const char *line)
{
	size_t len = strlen(line);
	if (len && line[len - 1] == '\n')
		len--;
	size_t sl;
	double c1, c2;
	bool has2;
	if (folded__parse(line, len, &sl, &c1, &c2, &has2)) {
		fg->ignored++;
		return 0;
	}
	if (!fg->o.reverse && fg->palette != PAL_CHAIN)
		return has2 ? add_plain(fg, line, sl, c1, c2, true) : add_plain(fg, line, sl, 0, c1, false);
	/* split(";", $stack): trailing empty fields are dropped */
	size_t n = 0;
	const char *p = line, *end = line + sl;
	while (p <= end) {
		const char *semi = memchr(p, ';', end - p);
		const char *e = semi ? semi : end;
		int err = frames_reserve(fg, n + 1);
		if (err)
			return err;
		fg->frames[n] = p;
		fg->lens[n] = e - p;
		n++;
		if (!semi)
			break;
		p = semi + 1;
	}
	while (n && fg->lens[n - 1] == 0)
		n--;
	if (fg->o.reverse) {
		/* flamegraph.pl re-joins and re-splits the reversed stack, which
		 * drops what were leading empty fields */
		size_t lead = 0;
		while (lead < n && fg->lens[lead] == 0)
			lead++;
		if (lead) {
			memmove(fg->frames, fg->frames + lead, (n - lead) * sizeof(*fg->frames));
			memmove(fg->lens, fg->lens + lead, (n - lead) * sizeof(*fg->lens));
			n -= lead;
		}
	}
	return has2 ? add_frames(fg, n, c1, c2, true) : add_frames(fg, n, 0, c1, false);
}

static int add_stack(struct flamegraph *fg, const char *const *frames, size_t n,
		     double before, double after, bool diff)
{
	int err = frames_reserve(fg, n);
	if (err)
		return err;
	for (size_t i = 0; i < n; i++) {
		fg->frames[i] = frames[i];
		fg->lens[i] = strlen(frames[i]);
	}
	return add_frames(fg, n, before, after, diff);
}

int flamegraph__add_stack(struct flamegraph *fg, const char *const *frames, size_t n,
			  uint64_t count)
{
	return add_stack(fg, frames, n, 0, (double)count, false);
}

int flamegraph__add_diff_stack(struct flamegraph *fg, const char *const *frames, size_t n,
			       double before, double after)
{
	if (!(before >= 0) || !(after >= 0))
		return -EINVAL;
	return add_stack(fg, frames, n, before, after, true);
}

bool fg_can_adopt(const struct flamegraph *fg)
{
	return !fg->st.nr_stacks && !fg->o.reverse && fg->palette != PAL_CHAIN;
}

int fg_adopt(struct flamegraph *fg, struct fg_store *st, uint32_t *order, uint32_t nr)
{
	if (!fg_can_adopt(fg) || nr != st->nr_stacks)
		return -EINVAL;
	uint32_t cap = st->cap_stacks ? st->cap_stacks : 1;
	uint8_t *flags = malloc(cap);
	double *starts = fg->o.flamechart ? malloc(cap * sizeof(*starts)) : NULL;
	if (!flags || (fg->o.flamechart && !starts)) {
		free(flags);
		return -ENOMEM;
	}
	memset(flags, NODE_HAS_DELTA, cap);
	/* Per stack in memory order (the sorted order is all over the heap) */
	for (uint32_t i = 0; i < nr; i++) {
		struct fg_stack *s = &st->stacks[i];
		/* split(";") drops trailing empty fields: "" is name 0, the byte
		 * 1 where it is not the last byte of a longer varint */
		uint8_t *ids = (uint8_t *)s->ids, *end = rawmemchr(ids, 0);
		while (end > ids && end[-1] == 1 && (end - 1 == ids || end[-2] < 0x80))
			*--end = 0;
		double before = s->v[0], after = s->v[1], d = after - before;
		s->v[0] = after;
		s->v[1] = d;
		if (fabs(d) > fg->maxdelta)
			fg->maxdelta = fabs(d);
	}
	/* The total, and a flame chart's times, in the lines' order */
	for (uint32_t i = 0; i < nr; i++) {
		if (i + 16 < nr)
			__builtin_prefetch(&st->stacks[order[i + 16]]);
		if (starts)
			starts[order[i]] = fg->time;
		fg->time += st->stacks[order[i]].v[0];
	}
	fg_store__exit(&fg->st);
	fg->st = *st;
	memset(st, 0, sizeof(*st));
	if (fg->o.flamechart) {
		free(fg->st.stack_tab);  /* a flame chart merges adjacent stacks only */
		fg->st.stack_tab = NULL;
	}
	free(fg->sflags);
	free(fg->sstarts);
	free(fg->order);
	fg->sflags = flags;
	fg->sstarts = starts;
	fg->cap_side = cap;
	fg->order = order;
	fg->nr_order = nr;
	fg->any_delta = fg->any_delta || nr;
	return 0;
}

uint64_t flamegraph__ignored(const struct flamegraph *fg)
{
	return fg->ignored;
}

double flamegraph__total(const struct flamegraph *fg)
{
	return fg->time;
}

size_t flamegraph__nr_stacks(const struct flamegraph *fg)
{
	return fg->st.nr_stacks;
}

int flamegraph__write_svg(struct flamegraph *fg, FILE *out)
{
	return fg_write_svg(fg, out);
}
