/* The encoded stack store shared by flame graphs and diffs: interned names
 * and every distinct stack once, as varint(name index + 1)... then 0. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct fg_chunk {
	struct fg_chunk *next;
	size_t size, used;
	char data[];
};

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

int fg_grow(void **arr, uint32_t *cap, size_t elem, uint32_t need)
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
static const char *arena_copy(struct fg_store *st, const char *s, size_t len)
{
	size_t size = (len + 8) & ~(size_t)7;
	char *p = chunk_alloc(&st->chunks, size, 65536);
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
int64_t fg_store__intern(struct fg_store *st, const char *s, size_t len)
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
	uint32_t slot = h & st->str_tab_mask;
	for (uint64_t e; (e = st->str_tab[slot]); slot = (slot + 1) & st->str_tab_mask) {
		if ((uint32_t)(e >> 32) != h)
			continue;
		const struct fg_str *e_str = &st->strs[(uint32_t)e - 1];
		if (e_str->len != len)
			continue;
		if (len <= 16) {
			uint64_t s0, s1 = 0;
			memcpy(&s0, e_str->s, 8);
			if (len > 8)
				memcpy(&s1, e_str->s + 8, 8);
			if (s0 == w0 && s1 == w1)
				return (uint32_t)e - 1;
		} else if (!memcmp(e_str->s, s, len)) {
			return (uint32_t)e - 1;
		}
	}
	if (st->nr_strs == UINT32_MAX - 1 ||
	    fg_grow((void **)&st->strs, &st->cap_strs, sizeof(*st->strs), st->nr_strs + 1))
		return -ENOMEM;
	const char *copy = arena_copy(st, s, len);
	if (!copy)
		return -ENOMEM;
	uint32_t id = st->nr_strs++;
	st->strs[id] = (struct fg_str){ copy, (uint32_t)len, h };
	st->str_tab[slot] = (uint64_t)h << 32 | (id + 1);
	if ((uint64_t)st->nr_strs * 2 > st->str_tab_mask + 1ULL &&
	    rehash(&st->str_tab, &st->str_tab_mask, (st->str_tab_mask + 1) * 2))
		return -ENOMEM;
	return id;
}

int fg_store__reserve(struct fg_store *st, size_t more)
{
	if (st->enc_len + more <= st->enc_cap)
		return 0;
	size_t cap = st->enc_cap ? st->enc_cap : 256;
	while (cap < st->enc_len + more)
		cap *= 2;
	uint8_t *e = realloc(st->enc, cap);
	if (!e)
		return -ENOMEM;
	st->enc = e;
	st->enc_cap = cap;
	return 0;
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

int64_t fg_store__end(struct fg_store *st, size_t keep, bool *is_new)
{
	*is_new = false;
	if (fg_store__reserve(st, 1))
		return -ENOMEM;
	st->enc[keep] = 0;
	size_t len = keep + 1;
	uint32_t h = 0, slot = 0;
	if (!st->stack_tab) {
		if (st->nr_stacks && same_stack(st->stacks[st->nr_stacks - 1].ids, st->enc, len))
			return st->nr_stacks - 1;
	} else {
		h = hash_bytes(st->enc, len);
		slot = h & st->stack_tab_mask;
		for (uint64_t e; (e = st->stack_tab[slot]); slot = (slot + 1) & st->stack_tab_mask)
			if ((uint32_t)(e >> 32) == h &&
			    same_stack(st->stacks[(uint32_t)e - 1].ids, st->enc, len))
				return (uint32_t)e - 1;
	}
	if (st->nr_stacks == UINT32_MAX - 1 ||
	    fg_grow((void **)&st->stacks, &st->cap_stacks, sizeof(*st->stacks), st->nr_stacks + 1))
		return -ENOMEM;
	uint8_t *ids = chunk_alloc(&st->id_chunks, len, 1 << 20);
	if (!ids)
		return -ENOMEM;
	memcpy(ids, st->enc, len);
	uint32_t idx = st->nr_stacks++;
	st->stacks[idx] = (struct fg_stack){ ids, { 0, 0 } };
	if (st->stack_tab) {
		st->stack_tab[slot] = (uint64_t)h << 32 | (idx + 1);
		if ((uint64_t)st->nr_stacks * 2 > st->stack_tab_mask + 1ULL &&
		    rehash(&st->stack_tab, &st->stack_tab_mask, (st->stack_tab_mask + 1) * 2))
			return -ENOMEM;
	}
	*is_new = true;
	return idx;
}

int fg_store__init(struct fg_store *st, bool adjacent_only)
{
	memset(st, 0, sizeof(*st));
	if (rehash(&st->str_tab, &st->str_tab_mask, 1024) ||
	    (!adjacent_only && rehash(&st->stack_tab, &st->stack_tab_mask, 1024)) ||
	    fg_store__intern(st, "", 0) != 0) {
		fg_store__exit(st);
		return -ENOMEM;
	}
	return 0;
}

void fg_store__exit(struct fg_store *st)
{
	free_chunks(&st->chunks);
	free_chunks(&st->id_chunks);
	free(st->strs);
	free(st->str_tab);
	free(st->stacks);
	free(st->stack_tab);
	free(st->enc);
	memset(st, 0, sizeof(*st));
}
