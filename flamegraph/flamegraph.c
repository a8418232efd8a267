/* The reading side of flame graphs: each folded line or stack is kept once
 * per distinct stack, as varint-encoded indices of interned names (a few
 * bytes a frame) with its summed counts. No tree is built while reading:
 * which frames are wide enough to draw is known only once the total is, and
 * layout.c then builds just those. Reading costs about what scanning the
 * bytes costs; memory follows the distinct stacks. */
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

/* Bytes [0, len) of p, len < 8, as a little-endian word (zeros above), by
 * overlapping loads that never read outside [p, p + len). */
static inline uint64_t load_tail(const unsigned char *p, size_t len)
{
	if (len >= 4) {
		uint32_t lo, hi;
		memcpy(&lo, p, 4);
		memcpy(&hi, p + len - 4, 4);
		return lo | (uint64_t)hi << (8 * (len - 4));
	}
	if (!len)
		return 0;
	return p[0] | (uint64_t)p[len / 2] << (8 * (len / 2)) | (uint64_t)p[len - 1] << (8 * (len - 1));
}

static inline uint64_t mix(uint64_t h, uint64_t w)
{
	h = (h ^ w) * 0xbf58476d1ce4e5b9ULL;
	return h ^ (h >> 29);
}

/* A word at a time: names are short, and there are tens of millions. */
static uint32_t hash_bytes(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ len;
	for (; len >= 8; p += 8, len -= 8) {
		uint64_t w;
		memcpy(&w, p, 8);
		h = mix(h, w);
	}
	if (len)
		h = mix(h, load_tail(p, len));
	h *= 0x94d049bb133111ebULL;
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

static void *chunk_alloc(struct fg_chunk **list, size_t len, size_t chunk_size)
{
	struct fg_chunk *c = *list;
	if (!c || c->size - c->used < len) {
		size_t size = len > chunk_size ? len : chunk_size;
		c = malloc(sizeof(*c) + size);
		if (!c)
			return NULL;
		c->size = size;
		c->used = 0;
		c->next = *list;
		*list = c;
	}
	void *p = c->data + c->used;
	c->used += len;
	return p;
}

/* A copy NUL-terminated and zero-padded to whole words, which intern()
 * compares a word at a time. */
static const char *arena_copy(struct flamegraph *fg, const char *s, size_t len)
{
	size_t size = (len + 8) & ~(size_t)7;
	char *p = chunk_alloc(&fg->chunks, size, 65536);
	if (!p)
		return NULL;
	memcpy(p, s, len);
	memset(p + len, 0, size - len);
	return p;
}

static void free_chunks(struct fg_chunk **list)
{
	while (*list) {
		struct fg_chunk *next = (*list)->next;
		free(*list);
		*list = next;
	}
}

/* Open-addressing tables of hash << 32 | (index + 1). */
static int rehash(uint64_t **tab, uint32_t *mask, uint32_t size)
{
	uint64_t *t = calloc(size, sizeof(*t));
	if (!t)
		return -ENOMEM;
	uint32_t old = *tab ? *mask + 1 : 0;
	for (uint32_t i = 0; i < old; i++) {
		uint64_t e = (*tab)[i];
		if (!e)
			continue;
		uint32_t slot = (uint32_t)(e >> 32) & (size - 1);
		while (t[slot])
			slot = (slot + 1) & (size - 1);
		t[slot] = e;
	}
	free(*tab);
	*tab = t;
	*mask = size - 1;
	return 0;
}

/* Returns the string's index, or -ENOMEM. Names of up to 16 bytes (most)
 * are hashed and compared as two words. */
static int64_t intern(struct flamegraph *fg, const char *s, size_t len)
{
	if (len > UINT32_MAX)
		len = UINT32_MAX;
	const unsigned char *u = (const unsigned char *)s;
	uint64_t w0 = 0, w1 = 0;
	uint32_t h;
	if (len <= 16) {
		if (len > 8) {
			memcpy(&w0, u, 8);
			w1 = load_tail(u + 8, len - 8);
		} else if (len == 8) {
			memcpy(&w0, u, 8);
		} else {
			w0 = load_tail(u, len);
		}
		uint64_t x = mix(0x9e3779b97f4a7c15ULL ^ len, w0);
		if (len > 8)
			x = mix(x, w1);
		h = (uint32_t)((x * 0x94d049bb133111ebULL) >> 32);
	} else {
		h = hash_bytes(s, len);
	}
	uint32_t slot = h & fg->str_tab_mask;
	for (uint64_t e; (e = fg->str_tab[slot]); slot = (slot + 1) & fg->str_tab_mask) {
		if ((uint32_t)(e >> 32) != h)
			continue;
		const struct fg_str *st = &fg->strs[(uint32_t)e - 1];
		if (st->len != len)
			continue;
		if (len <= 16) {
			uint64_t s0, s1 = 0;
			memcpy(&s0, st->s, 8);
			if (len > 8)
				memcpy(&s1, st->s + 8, 8);
			if (s0 == w0 && s1 == w1)
				return (uint32_t)e - 1;
		} else if (!memcmp(st->s, s, len)) {
			return (uint32_t)e - 1;
		}
	}
	if (fg->nr_strs == UINT32_MAX - 1 ||
	    grow((void **)&fg->strs, &fg->cap_strs, sizeof(*fg->strs), fg->nr_strs + 1))
		return -ENOMEM;
	const char *copy = arena_copy(fg, s, len);
	if (!copy)
		return -ENOMEM;
	uint32_t id = fg->nr_strs++;
	fg->strs[id] = (struct fg_str){ copy, (uint32_t)len, h };
	fg->str_tab[slot] = (uint64_t)h << 32 | (id + 1);
	if ((uint64_t)fg->nr_strs * 2 > fg->str_tab_mask + 1ULL &&
	    rehash(&fg->str_tab, &fg->str_tab_mask, (fg->str_tab_mask + 1) * 2))
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
	if (rehash(&fg->str_tab, &fg->str_tab_mask, 1024) ||
	    (!fg->o.flamechart && rehash(&fg->stack_tab, &fg->stack_tab_mask, 1024)))
		goto err;
	if (fg->o.encoding && !(fg->o.encoding = arena_copy(fg, fg->o.encoding,
							    strlen(fg->o.encoding))))
		goto err;
	if (intern(fg, "", 0) != 0)  /* the root's name: index 0 */
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
	free_chunks(&fg->chunks);
	free_chunks(&fg->id_chunks);
	free(fg->strs);
	free(fg->str_tab);
	free(fg->stacks);
	free(fg->stack_tab);
	free(fg->sdeltas);
	free(fg->sflags);
	free(fg->sstarts);
	free(fg->enc);
	free(fg->frames);
	free(fg->lens);
	free(fg->scratch);
	free(fg);
}

/* Room for `more` bytes after the `used` of the encoding scratch. */
static int enc_reserve(struct flamegraph *fg, size_t used, size_t more)
{
	if (used + more <= fg->enc_cap)
		return 0;
	size_t cap = fg->enc_cap ? fg->enc_cap : 256;
	while (cap < used + more)
		cap *= 2;
	uint8_t *e = realloc(fg->enc, cap);
	if (!e)
		return -ENOMEM;
	fg->enc = e;
	fg->enc_cap = cap;
	return 0;
}

/* Appends varint(name index + 1) at fg->enc + *used (room for 5 bytes is
 * the caller's). */
static void enc_put(struct flamegraph *fg, size_t *used, uint32_t name)
{
	uint8_t *p = fg->enc + *used;
	uint64_t v = (uint64_t)name + 1;
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	*used = (size_t)(p - fg->enc);
}

/* Encodings hold no 0 byte but their terminator, so this stops at the
 * stored one's end. */
static bool same_stack(const uint8_t *stored, const uint8_t *enc, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (stored[i] != enc[i])
			return false;
	return true;
}

static int grow_stacks(struct flamegraph *fg)
{
	uint32_t old = fg->cap_stacks;
	if (fg->nr_stacks == UINT32_MAX - 1 ||
	    grow((void **)&fg->stacks, &fg->cap_stacks, sizeof(*fg->stacks), fg->nr_stacks + 1))
		return -ENOMEM;
	if (old == fg->cap_stacks)
		return 0;
	size_t n = fg->cap_stacks;
	if (fg->sdeltas) {
		double *d = realloc(fg->sdeltas, n * sizeof(*d));
		if (!d)
			return -ENOMEM;
		fg->sdeltas = d;
		uint8_t *f = realloc(fg->sflags, n);
		if (!f)
			return -ENOMEM;
		fg->sflags = f;
	}
	if (fg->o.flamechart) {
		double *t = realloc(fg->sstarts, n * sizeof(*t));
		if (!t)
			return -ENOMEM;
		fg->sstarts = t;
	}
	return 0;
}

/* The first differential stack: per-stack deltas from now on. */
static int start_deltas(struct flamegraph *fg)
{
	fg->sdeltas = calloc(fg->cap_stacks ? fg->cap_stacks : 1, sizeof(*fg->sdeltas));
	fg->sflags = calloc(fg->cap_stacks ? fg->cap_stacks : 1, 1);
	return fg->sdeltas && fg->sflags ? 0 : -ENOMEM;
}

/* Keeps the stack encoded in fg->enc[0..len) (terminator included): adds
 * to the same stack when there is one (for a flame chart: the one just
 * before), else stores it. */
static int store(struct flamegraph *fg, size_t len, double before, double after, bool diff)
{
	int64_t idx = -1;
	uint32_t h = 0, slot = 0;
	if (fg->o.flamechart) {
		if (fg->nr_stacks && same_stack(fg->stacks[fg->nr_stacks - 1].ids, fg->enc, len))
			idx = fg->nr_stacks - 1;
	} else {
		h = hash_bytes(fg->enc, len);
		slot = h & fg->stack_tab_mask;
		for (uint64_t e; (e = fg->stack_tab[slot]); slot = (slot + 1) & fg->stack_tab_mask)
			if ((uint32_t)(e >> 32) == h &&
			    same_stack(fg->stacks[(uint32_t)e - 1].ids, fg->enc, len)) {
				idx = (uint32_t)e - 1;
				break;
			}
	}
	if (diff && !fg->sdeltas && start_deltas(fg))
		return -ENOMEM;
	if (idx < 0) {
		if (grow_stacks(fg))
			return -ENOMEM;
		uint8_t *ids = chunk_alloc(&fg->id_chunks, len, 1 << 20);
		if (!ids)
			return -ENOMEM;
		memcpy(ids, fg->enc, len);
		idx = fg->nr_stacks++;
		fg->stacks[idx] = (struct fg_stack){ ids, 0 };
		if (fg->sdeltas) {
			fg->sdeltas[idx] = 0;
			fg->sflags[idx] = 0;
		}
		if (fg->sstarts)
			fg->sstarts[idx] = fg->time;
		if (!fg->o.flamechart) {
			fg->stack_tab[slot] = (uint64_t)h << 32 | (uint32_t)(idx + 1);
			if ((uint64_t)fg->nr_stacks * 2 > fg->stack_tab_mask + 1ULL &&
			    rehash(&fg->stack_tab, &fg->stack_tab_mask, (fg->stack_tab_mask + 1) * 2))
				return -ENOMEM;
		}
	}
	fg->stacks[idx].count += after;
	if (diff) {
		double d = after - before;
		fg->sdeltas[idx] += d;
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
	size_t used = 0;
	for (size_t i = 0; i < n; i++) {
		int64_t name = intern(fg, f[i], fl[i]);
		if (name < 0 || enc_reserve(fg, used, 6))
			return -ENOMEM;
		enc_put(fg, &used, (uint32_t)name);
	}
	if (enc_reserve(fg, used, 1))
		return -ENOMEM;
	fg->enc[used++] = 0;
	return store(fg, used, before, after, diff);
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
	size_t used = 0, kept = 0;
	const char *p = line, *end = line + sl;
	for (;;) {
		const char *semi = memchr(p, ';', (size_t)(end - p));
		const char *e = semi ? semi : end;
		int64_t name = intern(fg, p, (size_t)(e - p));
		if (name < 0 || enc_reserve(fg, used, 6))
			return -ENOMEM;
		enc_put(fg, &used, (uint32_t)name);
		if (name)  /* index 0 is "" */
			kept = used;
		if (!semi)
			break;
		p = semi + 1;
	}
	fg->enc[kept++] = 0;
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
	return fg->nr_stacks;
}

int flamegraph__write_svg(struct flamegraph *fg, FILE *out)
{
	return fg_write_svg(fg, out);
}
