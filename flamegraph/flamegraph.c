/* The streaming side of flame graphs: folded lines and stacks are merged at
 * once into a tree of frames (interned names, hashed child lookup, and a
 * cache of the previous stack's path since folded input is usually sorted),
 * so memory grows with distinct frames, not with input lines. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

struct fg_chunk {
	struct fg_chunk *next;
	size_t size, used;
	char data[];
};

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

static uint32_t hash_bytes(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ULL;
	}
	return (uint32_t)(h ^ (h >> 32));
}

static uint32_t hash_child(uint32_t parent, uint32_t name)
{
	uint64_t h = ((uint64_t)parent << 32 | name) * 0x9e3779b97f4a7c15ULL;
	return (uint32_t)(h >> 32);
}

static int grow(void **arr, uint32_t *cap, size_t elem, uint32_t need)
{
	if (need <= *cap)
		return 0;
	uint32_t n = *cap ? *cap : 64;
	while (n < need) {
		if (n > UINT32_MAX / 2)
			return -ENOMEM;
		n *= 2;
	}
	void *p = realloc(*arr, (size_t)n * elem);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = n;
	return 0;
}

static const char *arena_copy(struct flamegraph *fg, const char *s, size_t len)
{
	struct fg_chunk *c = fg->chunks;
	if (!c || c->size - c->used < len + 1) {
		size_t size = len + 1 > 65536 ? len + 1 : 65536;
		c = malloc(sizeof(*c) + size);
		if (!c)
			return NULL;
		c->size = size;
		c->used = 0;
		c->next = fg->chunks;
		fg->chunks = c;
	}
	char *p = c->data + c->used;
	memcpy(p, s, len);
	p[len] = '\0';
	c->used += len + 1;
	return p;
}

static int rehash_strs(struct flamegraph *fg, uint32_t size)
{
	uint32_t *tab = calloc(size, sizeof(*tab));
	if (!tab)
		return -ENOMEM;
	for (uint32_t i = 0; i < fg->nr_strs; i++) {
		uint32_t slot = fg->strs[i].hash & (size - 1);
		while (tab[slot])
			slot = (slot + 1) & (size - 1);
		tab[slot] = i + 1;
	}
	free(fg->str_tab);
	fg->str_tab = tab;
	fg->str_tab_mask = size - 1;
	return 0;
}

/* Returns the string's index, or -ENOMEM. */
static int64_t intern(struct flamegraph *fg, const char *s, size_t len)
{
	if (len > UINT32_MAX)
		len = UINT32_MAX;
	uint32_t h = hash_bytes(s, len);
	uint32_t slot = h & fg->str_tab_mask;
	for (uint32_t e; (e = fg->str_tab[slot]); slot = (slot + 1) & fg->str_tab_mask) {
		const struct fg_str *st = &fg->strs[e - 1];
		if (st->hash == h && st->len == len && !memcmp(st->s, s, len))
			return e - 1;
	}
	if (grow((void **)&fg->strs, &fg->cap_strs, sizeof(*fg->strs), fg->nr_strs + 1))
		return -ENOMEM;
	const char *copy = arena_copy(fg, s, len);
	if (!copy)
		return -ENOMEM;
	uint32_t id = fg->nr_strs++;
	fg->strs[id] = (struct fg_str){ copy, (uint32_t)len, h };
	fg->str_tab[slot] = id + 1;
	if ((uint64_t)fg->nr_strs * 2 > fg->str_tab_mask + 1ULL &&
	    rehash_strs(fg, (fg->str_tab_mask + 1) * 2))
		return -ENOMEM;
	return id;
}

static int rehash_children(struct flamegraph *fg, uint32_t size)
{
	struct fg_slot *tab = calloc(size, sizeof(*tab));
	if (!tab)
		return -ENOMEM;
	uint32_t old = fg->child_tab ? fg->child_tab_mask + 1 : 0;
	for (uint32_t i = 0; i < old; i++) {
		const struct fg_slot *e = &fg->child_tab[i];
		if (!e->node)
			continue;
		uint32_t slot = hash_child(e->parent, e->name) & (size - 1);
		while (tab[slot].node)
			slot = (slot + 1) & (size - 1);
		tab[slot] = *e;
	}
	free(fg->child_tab);
	fg->child_tab = tab;
	fg->child_tab_mask = size - 1;
	return 0;
}

/* Side arrays follow the nodes array's capacity. */
static int grow_side(double **arr, uint32_t cap, uint32_t old_cap)
{
	double *p = realloc(*arr, (size_t)cap * sizeof(*p));
	if (!p)
		return -ENOMEM;
	memset(p + old_cap, 0, (size_t)(cap - old_cap) * sizeof(*p));
	*arr = p;
	return 0;
}

static int64_t new_node(struct flamegraph *fg, uint32_t parent, uint32_t name)
{
	uint32_t old_cap = fg->cap_nodes;
	if (grow((void **)&fg->nodes, &fg->cap_nodes, sizeof(*fg->nodes), fg->nr_nodes + 1))
		return -ENOMEM;
	if (fg->cap_nodes != old_cap &&
	    ((fg->deltas && grow_side(&fg->deltas, fg->cap_nodes, old_cap)) ||
	     (fg->o.flamechart && grow_side(&fg->starts, fg->cap_nodes, old_cap))))
		return -ENOMEM;
	uint32_t id = fg->nr_nodes++;
	struct fg_node *n = &fg->nodes[id];
	memset(n, 0, sizeof(*n));
	n->name = name;
	n->parent = parent;
	if (fg->starts)
		fg->starts[id] = fg->time;
	if (id) {
		struct fg_node *p = &fg->nodes[parent];
		n->depth = p->depth + 1;
		n->next_sibling = p->first_child;
		p->first_child = id;
	}
	return id;
}

/* The child of `parent` called `name`: found, or created. */
static int64_t child(struct flamegraph *fg, uint32_t parent, uint32_t name)
{
	if (fg->o.flamechart)  /* only the open path merges, and it did not match */
		return new_node(fg, parent, name);
	uint32_t slot = hash_child(parent, name) & fg->child_tab_mask;
	for (struct fg_slot *e; (e = &fg->child_tab[slot])->node;
	     slot = (slot + 1) & fg->child_tab_mask)
		if (e->parent == parent && e->name == name)
			return e->node;
	int64_t id = new_node(fg, parent, name);
	if (id < 0)
		return id;
	fg->child_tab[slot] = (struct fg_slot){ parent, name, (uint32_t)id };
	/* load factor 0.7 */
	if ((uint64_t)fg->nr_nodes * 10 > (fg->child_tab_mask + 1ULL) * 7 &&
	    rehash_children(fg, (fg->child_tab_mask + 1) * 2))
		return -ENOMEM;
	return id;
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
	    own(fg, 6, &fg->o.bgcolors) || own(fg, 7, &fg->o.notes))
		goto err;
	/* encoding is validated and used only by the writer; it points into
	 * the caller's options, so copy it into the arena. */
	if (!fg->o.fonttype)
		fg->o.fonttype = "Verdana";
	if (!fg->o.countname)
		fg->o.countname = "samples";
	if (!fg->o.nametype)
		fg->o.nametype = "Function:";
	if (rehash_strs(fg, 1024) || rehash_children(fg, 1024) ||
	    grow((void **)&fg->nodes, &fg->cap_nodes, sizeof(*fg->nodes), 1024))
		goto err;
	if (fg->o.encoding && !(fg->o.encoding = arena_copy(fg, fg->o.encoding,
							    strlen(fg->o.encoding))))
		goto err;
	if (fg->o.flamechart && grow_side(&fg->starts, fg->cap_nodes, 0))
		goto err;
	int64_t root_name = intern(fg, "", 0);
	if (root_name < 0 || new_node(fg, 0, (uint32_t)root_name) < 0)
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
	while (fg->chunks) {
		struct fg_chunk *next = fg->chunks->next;
		free(fg->chunks);
		fg->chunks = next;
	}
	free(fg->strs);
	free(fg->str_tab);
	free(fg->nodes);
	free(fg->child_tab);
	free(fg->deltas);
	free(fg->starts);
	free(fg->path);
	free(fg->frames);
	free(fg->lens);
	free(fg->scratch);
	free(fg);
}

/* Merges one stack (already reversed/annotated as the options want). */
static int insert(struct flamegraph *fg, const char *const *f, const size_t *fl, size_t n,
		  double before, double after, bool diff)
{
	if (n > fg->path_cap) {
		size_t cap = fg->path_cap ? fg->path_cap : 64;
		while (cap < n)
			cap *= 2;
		uint32_t *p = realloc(fg->path, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		fg->path = p;
		fg->path_cap = cap;
	}
	uint32_t flag = diff ? NODE_HAS_DELTA : 0;
	uint32_t cur = 0;
	fg->nodes[0].total += after;
	fg->nodes[0].flags |= flag;
	size_t i = 0;
	for (; i < n && i < fg->path_len; i++) {
		struct fg_node *node = &fg->nodes[fg->path[i]];
		const struct fg_str *st = &fg->strs[node->name];
		if (st->len != fl[i] || memcmp(st->s, f[i], fl[i]))
			break;
		node->total += after;
		node->flags |= flag;
		cur = fg->path[i];
	}
	fg->path_len = i;
	for (; i < n; i++) {
		int64_t name = intern(fg, f[i], fl[i]);
		if (name < 0)
			return (int)name;
		int64_t c = child(fg, cur, (uint32_t)name);
		if (c < 0)
			return (int)c;
		cur = (uint32_t)c;
		fg->nodes[cur].total += after;
		fg->nodes[cur].flags |= flag;
		fg->path[fg->path_len++] = cur;
	}
	fg->nodes[cur].self += after;
	if (diff) {
		double d = after - before;
		if (!fg->deltas && grow_side(&fg->deltas, fg->cap_nodes, 0))
			return -ENOMEM;
		fg->deltas[cur] += d;
		if (fabs(d) > fg->maxdelta)
			fg->maxdelta = fabs(d);
	}
	fg->time += after;
	return 0;
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

uint64_t flamegraph__ignored(const struct flamegraph *fg)
{
	return fg->ignored;
}

double flamegraph__total(const struct flamegraph *fg)
{
	return fg->time;
}

size_t flamegraph__nr_frames(const struct flamegraph *fg)
{
	return fg->nr_nodes;
}

int flamegraph__write_svg(struct flamegraph *fg, FILE *out)
{
	return fg_write_svg(fg, out);
}
