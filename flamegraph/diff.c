/* difffolded.pl: join two folded profiles on the stack string. Output is
 * sorted (difffolded.pl prints in Perl hash order), counts print as Perl
 * prints numbers, -n scales BEFORE by total2/total1 with int(), -s turns
 * every 0x<hex> into "0x..." before joining, --no-comm drops the root frame
 * (the program name) before joining. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct fd_entry {
	char *stack;
	size_t len;
	uint32_t hash;
	double count[2];
};

struct folded_diff {
	struct folded_diff_opts o;
	struct fd_entry *e;
	size_t nr, cap;
	uint32_t *tab;          /* entry index + 1 */
	size_t mask;
	double total[2];
	uint64_t ignored;
	char *buf;
	size_t buf_cap;
};

static uint32_t fd_hash(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ULL;
	}
	return (uint32_t)(h ^ (h >> 32));
}

static int fd_rehash(struct folded_diff *d, size_t size)
{
	uint32_t *tab = calloc(size, sizeof(*tab));
	if (!tab)
		return -ENOMEM;
	for (size_t i = 0; i < d->nr; i++) {
		size_t slot = d->e[i].hash & (size - 1);
		while (tab[slot])
			slot = (slot + 1) & (size - 1);
		tab[slot] = (uint32_t)i + 1;
	}
	free(d->tab);
	d->tab = tab;
	d->mask = size - 1;
	return 0;
}

struct folded_diff *folded_diff__new(const struct folded_diff_opts *opts)
{
	struct folded_diff *d = calloc(1, sizeof(*d));
	if (!d)
		goto err;
	if (opts)
		d->o = *opts;
	if (fd_rehash(d, 1024))
		goto err;
	return d;
err:
	folded_diff__delete(d);
	errno = ENOMEM;
	return NULL;
}

void folded_diff__delete(struct folded_diff *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->nr; i++)
		free(d->e[i].stack);
	free(d->e);
	free(d->tab);
	free(d->buf);
	free(d);
}

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* s/0x[0-9a-fA-F]+/0x.../g into d->buf; returns the new length or -ENOMEM */
static long strip_hex(struct folded_diff *d, const char *s, size_t len)
{
	if (len + 1 > d->buf_cap) {
		size_t cap = (len + 1) * 2;
		char *b = realloc(d->buf, cap);
		if (!b)
			return -ENOMEM;
		d->buf = b;
		d->buf_cap = cap;
	}
	/* "0x" + at least one hex digit never grows when replaced by "0x..."
	 * unless it had exactly one digit: 3 chars -> 5. Bound: len * 5 / 3. */
	size_t need = len / 3 * 5 + 5;
	if (need > d->buf_cap) {
		char *b = realloc(d->buf, need);
		if (!b)
			return -ENOMEM;
		d->buf = b;
		d->buf_cap = need;
	}
	size_t o = 0;
	for (size_t i = 0; i < len;) {
		if (s[i] == '0' && i + 2 < len && s[i + 1] == 'x' && is_hex(s[i + 2])) {
			i += 2;
			while (i < len && is_hex(s[i]))
				i++;
			memcpy(d->buf + o, "0x...", 5);
			o += 5;
		} else {
			d->buf[o++] = s[i++];
		}
	}
	return (long)o;
}

int folded_diff__add_line(struct folded_diff *d, int side, const char *line)
{
	if (side != 0 && side != 1)
		return -EINVAL;
	size_t len = strlen(line);
	if (len && line[len - 1] == '\n')
		len--;
	/* difffolded.pl takes one count column: the last one */
	size_t sl;
	double c;
	if (folded__parse_count(line, len, &sl, &c)) {
		d->ignored++;
		return 0;
	}
	const char *stack = line;
	if (d->o.no_comm) {
		const char *semi = memchr(line, ';', sl);
		if (semi) {
			sl -= (size_t)(semi + 1 - line);
			stack = semi + 1;
		}
	}
	if (d->o.strip_hex) {
		long n = strip_hex(d, stack, sl);
		if (n < 0)
			return (int)n;
		stack = d->buf;
		sl = (size_t)n;
	}
	uint32_t h = fd_hash(stack, sl);
	size_t slot = h & d->mask;
	for (uint32_t e; (e = d->tab[slot]); slot = (slot + 1) & d->mask) {
		struct fd_entry *en = &d->e[e - 1];
		if (en->hash == h && en->len == sl && !memcmp(en->stack, stack, sl)) {
			en->count[side] += c;
			d->total[side] += c;
			return 0;
		}
	}
	if (d->nr == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 256;
		struct fd_entry *e = realloc(d->e, cap * sizeof(*e));
		if (!e)
			return -ENOMEM;
		d->e = e;
		d->cap = cap;
	}
	char *copy = malloc(sl + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, stack, sl);
	copy[sl] = '\0';
	struct fd_entry *en = &d->e[d->nr];
	*en = (struct fd_entry){ copy, sl, h, { 0, 0 } };
	en->count[side] = c;
	d->total[side] += c;
	d->tab[slot] = (uint32_t)++d->nr;
	if (d->nr * 2 > d->mask + 1)
		return fd_rehash(d, (d->mask + 1) * 2);
	return 0;
}

uint64_t folded_diff__ignored(const struct folded_diff *d)
{
	return d->ignored;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct fd_entry *x = a, *y = b;
	size_t m = x->len < y->len ? x->len : y->len;
	int r = memcmp(x->stack, y->stack, m);
	if (r)
		return r;
	return x->len < y->len ? -1 : x->len > y->len;
}

/* Sorts the entries (the hash table is rebuilt) and applies -n. */
static int finish(struct folded_diff *d, double *c1, size_t i)
{
	double v = d->e[i].count[0];
	if (d->o.normalize && d->total[0] != d->total[1] && d->total[0] != 0) {
		double t = v * d->total[1] / d->total[0];
		v = t < 0 ? -(double)(long long)-t : (double)(long long)t;
	}
	*c1 = v;
	return 0;
}

static int sort_entries(struct folded_diff *d)
{
	if (d->nr)	/* d->e is NULL when no line was valid */
		qsort(d->e, d->nr, sizeof(*d->e), entry_cmp);
	return fd_rehash(d, d->mask + 1);
}

int folded_diff__write(struct folded_diff *d, FILE *out)
{
	int err = sort_entries(d);
	if (err)
		return err;
	for (size_t i = 0; i < d->nr; i++) {
		double c1;
		finish(d, &c1, i);
		char a[32], b[32];
		fmt_num(a, sizeof(a), c1);
		fmt_num(b, sizeof(b), d->e[i].count[1]);
		fwrite(d->e[i].stack, 1, d->e[i].len, out);
		fprintf(out, " %s %s\n", a, b);
	}
	return fflush(out) || ferror(out) ? -EIO : 0;
}

int folded_diff__to_flamegraph(struct folded_diff *d, struct flamegraph *fg)
{
	int err = sort_entries(d);
	if (err)
		return err;
	char *line = NULL;
	size_t cap = 0;
	for (size_t i = 0; i < d->nr; i++) {
		double c1;
		finish(d, &c1, i);
		char a[32], b[32];
		fmt_num(a, sizeof(a), c1);
		fmt_num(b, sizeof(b), d->e[i].count[1]);
		size_t need = d->e[i].len + strlen(a) + strlen(b) + 3;
		if (need > cap) {
			char *l = realloc(line, need * 2);
			if (!l) {
				err = -ENOMEM;
				goto out;
			}
			line = l;
			cap = need * 2;
		}
		memcpy(line, d->e[i].stack, d->e[i].len);
		snprintf(line + d->e[i].len, cap - d->e[i].len, " %s %s", a, b);
		/* the same text flamegraph.pl would read from difffolded.pl */
		err = flamegraph__add_line(fg, line);
		if (err)
			goto out;
	}
out:
	free(line);
	return err;
}
