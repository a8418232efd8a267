/* difffolded.pl: join two folded profiles on the stack string. Output is
 * sorted (difffolded.pl prints in Perl hash order), counts print as Perl
 * prints numbers, -n scales BEFORE by total2/total1 with int(), -s turns
 * every 0x<hex> into "0x..." before joining, --no-comm drops the root frame
 * (the program name) before joining. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Stacks are kept in the flame graph's encoded store, split at every ';'
 * (empty fields included, so equal encodings are equal strings); v is
 * (BEFORE, AFTER). */
struct folded_diff {
	struct folded_diff_opts o;
	struct fg_store st;
	double total[2];
	uint64_t ignored;
	char *buf;
	size_t buf_cap;
	uint32_t *order;        /* the stacks in bytewise order of their strings */
	uint32_t nr_order;
};

struct folded_diff *folded_diff__new(const struct folded_diff_opts *opts)
{
	struct folded_diff *d = calloc(1, sizeof(*d));
	if (!d)
		goto err;
	if (opts)
		d->o = *opts;
	if (fg_store__init(&d->st, false))
		goto err;
	return d;
err:
	free(d);
	errno = ENOMEM;
	return NULL;
}

void folded_diff__delete(struct folded_diff *d)
{
	if (!d)
		return;
	fg_store__exit(&d->st);
	free(d->order);
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
	d->st.enc_len = 0;
	for (const char *p = stack, *end = stack + sl;;) {
		const char *semi = memchr(p, ';', (size_t)(end - p));
		const char *e = semi ? semi : end;
		int64_t name = fg_store__intern(&d->st, p, (size_t)(e - p));
		if (name < 0 || fg_store__add(&d->st, (uint32_t)name))
			return -ENOMEM;
		if (!semi)
			break;
		p = semi + 1;
	}
	bool is_new;
	int64_t idx = fg_store__end(&d->st, d->st.enc_len, &is_new);
	if (idx < 0)
		return (int)idx;
	d->st.stacks[idx].v[side] += c;
	d->total[side] += c;
	d->nr_order = 0;  /* sort again */
	return 0;
}

uint64_t folded_diff__ignored(const struct folded_diff *d)
{
	return d->ignored;
}

/* Sorting the stacks bytewise by their strings without building them: a
 * most-significant-field radix sort. At each level the stacks of a range are
 * grouped by their next field, the field's string followed by ';' or, for a
 * stack's last field, by its end (which sorts first); groups are ordered
 * bytewise by that and split further. A group of one stack is placed at
 * once, so a stack is looked at about as many times as the fields it
 * shares with another, and never compared as a string. */
struct sort_ent {
	const uint8_t *p;       /* its next field */
	uint32_t stack;
	uint32_t key;           /* key index + 1 */
};

struct sort_key {
	uint32_t name;
	bool last;
	uint32_t n, at;
};

/* A range to split, or (lo == hi) one stack to place. */
struct sort_job {
	uint32_t lo, hi, stack;
};

struct sorter {
	const struct fg_store *st;
	struct sort_ent *ents, *tmp;
	struct sort_key *keys;
	uint32_t nr_keys, cap_keys;
	uint32_t *kid_of;       /* name -> key index + 1, for fields that go on */
	uint32_t *sorted;
	uint32_t cap_sorted;
	struct sort_job *jobs;
	uint32_t nr_jobs, cap_jobs;
};

static int key_cmp(const void *pa, const void *pb, void *arg)
{
	const struct sorter *so = arg;
	const struct sort_key *a = &so->keys[*(const uint32_t *)pa], *b = &so->keys[*(const uint32_t *)pb];
	const struct fg_str *x = &so->st->strs[a->name], *y = &so->st->strs[b->name];
	size_t m = x->len < y->len ? x->len : y->len;
	int r = memcmp(x->s, y->s, m);
	if (r)
		return r;
	int cx = x->len > m ? (unsigned char)x->s[m] : a->last ? -1 : ';';
	int cy = y->len > m ? (unsigned char)y->s[m] : b->last ? -1 : ';';
	return cx < cy ? -1 : cx > cy;
}

static int push_job(struct sorter *so, uint32_t lo, uint32_t hi, uint32_t stack)
{
	if (fg_grow((void **)&so->jobs, &so->cap_jobs, sizeof(*so->jobs), so->nr_jobs + 1))
		return -ENOMEM;
	so->jobs[so->nr_jobs++] = (struct sort_job){ lo, hi, stack };
	return 0;
}

static int split_range(struct sorter *so, uint32_t lo, uint32_t hi)
{
	so->nr_keys = 0;
	for (uint32_t i = lo; i < hi; i++) {
		struct sort_ent *e = &so->ents[i];
		uint32_t name = fg_next_id(&e->p) - 1;  /* every stack has a field here */
		bool last = !*e->p;
		uint32_t k = last ? 0 : so->kid_of[name];
		if (!k) {
			if (fg_grow((void **)&so->keys, &so->cap_keys, sizeof(*so->keys), so->nr_keys + 1))
				return -ENOMEM;
			so->keys[so->nr_keys] = (struct sort_key){ name, last, 0, 0 };
			k = ++so->nr_keys;
			if (!last)
				so->kid_of[name] = k;
		}
		so->keys[k - 1].n++;
		e->key = k;
	}
	if (fg_grow((void **)&so->sorted, &so->cap_sorted, sizeof(*so->sorted), so->nr_keys))
		return -ENOMEM;
	for (uint32_t j = 0; j < so->nr_keys; j++) {
		so->sorted[j] = j;
		if (!so->keys[j].last)
			so->kid_of[so->keys[j].name] = 0;
	}
	qsort_r(so->sorted, so->nr_keys, sizeof(*so->sorted), key_cmp, so);
	uint32_t at = lo;
	for (uint32_t j = 0; j < so->nr_keys; j++) {
		struct sort_key *k = &so->keys[so->sorted[j]];
		k->at = at;
		at += k->n;
	}
	for (uint32_t i = lo; i < hi; i++)
		so->tmp[so->keys[so->ents[i].key - 1].at++] = so->ents[i];
	memcpy(so->ents + lo, so->tmp + lo, (hi - lo) * sizeof(*so->ents));
	/* jobs are popped last first: push the groups in reverse order */
	for (uint32_t j = so->nr_keys; j-- > 0;) {
		const struct sort_key *k = &so->keys[so->sorted[j]];
		uint32_t start = k->at - k->n;
		int err = k->n == 1 ? push_job(so, start, start, so->ents[start].stack)
				    : push_job(so, start, k->at, 0);
		if (err)
			return err;
	}
	return 0;
}

static int sort_stacks(struct folded_diff *d)
{
	uint32_t n = d->st.nr_stacks;
	if (d->nr_order == n && (d->order || !n))
		return 0;
	struct sorter so = { .st = &d->st };
	size_t m = n ? n : 1;
	int err = -ENOMEM;
	uint32_t *order = malloc(m * sizeof(*order));
	so.ents = malloc(m * sizeof(*so.ents));
	so.tmp = malloc(m * sizeof(*so.tmp));
	so.kid_of = calloc(d->st.nr_strs, sizeof(*so.kid_of));
	if (!order || !so.ents || !so.tmp || !so.kid_of)
		goto out;
	for (uint32_t i = 0; i < n; i++)
		so.ents[i] = (struct sort_ent){ d->st.stacks[i].ids, i, 0 };
	uint32_t placed = 0;
	if (n && push_job(&so, 0, n, 0))
		goto out;
	if (n == 1)
		so.jobs[0].hi = 0;  /* one stack: placed as it is */
	while (so.nr_jobs) {
		struct sort_job j = so.jobs[--so.nr_jobs];
		if (j.lo == j.hi)
			order[placed++] = j.stack;
		else if (split_range(&so, j.lo, j.hi))
			goto out;
	}
	free(d->order);
	d->order = order;
	d->nr_order = placed;
	order = NULL;
	err = 0;
out:
	free(order);
	free(so.ents);
	free(so.tmp);
	free(so.kid_of);
	free(so.keys);
	free(so.sorted);
	free(so.jobs);
	return err;
}

/* BEFORE's count with -n applied. */
static double before_count(const struct folded_diff *d, uint32_t stack)
{
	double v = d->st.stacks[stack].v[0];
	if (d->o.normalize && d->total[0] != d->total[1] && d->total[0] != 0) {
		double t = v * d->total[1] / d->total[0];
		v = trunc(t);  /* Perl's int(), for any size (a cast of 2^63 is undefined) */
	}
	return v;
}

/* The stack's string (fields joined by ';') into *buf, with `room` bytes
 * free after it; its length, or SIZE_MAX. */
static size_t stack_string(const struct folded_diff *d, uint32_t stack, char **buf, size_t *cap,
			   size_t room)
{
	size_t len = 0;
	const uint8_t *p = d->st.stacks[stack].ids;
	for (uint32_t id, first = 1; (id = fg_next_id(&p)); first = 0) {
		const struct fg_str *f = &d->st.strs[id - 1];
		if (len + f->len + 1 + room > *cap) {
			size_t c = (len + f->len + 1 + room) * 2;
			char *b = realloc(*buf, c);
			if (!b)
				return SIZE_MAX;
			*buf = b;
			*cap = c;
		}
		if (!first)
			(*buf)[len++] = ';';
		memcpy(*buf + len, f->s, f->len);
		len += f->len;
	}
	return len;
}

/* "stack BEFORE AFTER" into *buf; its length, or SIZE_MAX. */
static size_t diff_line(const struct folded_diff *d, uint32_t stack, char **buf, size_t *cap)
{
	char a[32], b[32];
	fmt_num(a, sizeof(a), before_count(d, stack));
	fmt_num(b, sizeof(b), d->st.stacks[stack].v[1]);
	size_t len = stack_string(d, stack, buf, cap, sizeof(a) + sizeof(b) + 4);
	if (len != SIZE_MAX)
		len += (size_t)snprintf(*buf + len, *cap - len, " %s %s", a, b);
	return len;
}

int folded_diff__write(struct folded_diff *d, FILE *out)
{
	int err = sort_stacks(d);
	if (err)
		return err;
	char *line = NULL;
	size_t cap = 0;
	for (uint32_t i = 0; i < d->nr_order; i++) {
		size_t len = diff_line(d, d->order[i], &line, &cap);
		if (len == SIZE_MAX) {
			free(line);
			return -ENOMEM;
		}
		line[len++] = '\n';
		fwrite(line, 1, len, out);
	}
	free(line);
	return fflush(out) || ferror(out) ? -EIO : 0;
}

/* What a count becomes printed as difffolded.pl prints it and read back as
 * flamegraph.pl reads it; false when the text is no count (1e+20). */
static bool as_text(double v, double *out)
{
	if (v >= 0 && v < 1e15 && v == (double)(uint64_t)v) {
		*out = v;
		return true;
	}
	char buf[40];
	buf[0] = ' ';
	fmt_num(buf + 1, sizeof(buf) - 1, v);
	size_t sl;
	return folded__parse_count(buf, strlen(buf), &sl, out) == 0;
}

/* The --svg path: the flame graph gets what flamegraph.pl would read from
 * difffolded.pl's lines, in sorted order. Usually by taking over the store
 * itself (fg_adopt, no text at all); with --reverse, the chain palette, or
 * a count that does not print as a count, as those text lines. */
int folded_diff__to_flamegraph(struct folded_diff *d, struct flamegraph *fg)
{
	int err = sort_stacks(d);
	if (err)
		return err;
	bool plain = fg_can_adopt(fg);
	double c;
	for (uint32_t i = 0; plain && i < d->nr_order; i++)
		plain = as_text(before_count(d, d->order[i]), &c) &&
			as_text(d->st.stacks[d->order[i]].v[1], &c);
	if (plain) {
		/* v becomes (BEFORE, AFTER) as read back from the text */
		for (uint32_t i = 0; i < d->nr_order; i++) {
			struct fg_stack *s = &d->st.stacks[d->order[i]];
			as_text(before_count(d, d->order[i]), &s->v[0]);
			as_text(s->v[1], &s->v[1]);
		}
		err = fg_adopt(fg, &d->st, d->order, d->nr_order);
		if (err)
			return err;
		d->order = NULL;
		d->nr_order = 0;
		memset(d->total, 0, sizeof(d->total));
		return fg_store__init(&d->st, false);
	}
	char *line = NULL;
	size_t cap = 0;
	for (uint32_t i = 0; i < d->nr_order && !err; i++) {
		size_t len = diff_line(d, d->order[i], &line, &cap);
		err = len == SIZE_MAX ? -ENOMEM : flamegraph__add_line(fg, line);
	}
	free(line);
	return err;
}
