/* bpftrace's histograms and statistics: see agg_hist.h. */
#include "agg_hist.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#define BAR_WIDTH 52

int agg_log2__bucket(int64_t v)
{
	if (v < 0)
		return 0;
	if (v == 0)
		return 1;
	return 2 + (63 - __builtin_clzll((uint64_t)v));
}

/* 2^power as bpftrace writes it: 512, 1K, 2M, 4E */
static void power_str(int power, char *buf, size_t len)
{
	static const char suffix[] = "KMGTPE";
	int unit = power / 10;
	if (unit > 6)
		unit = 6;
	uint64_t v = 1ull << (power - unit * 10);
	if (unit)
		snprintf(buf, len, "%" PRIu64 "%c", v, suffix[unit - 1]);
	else
		snprintf(buf, len, "%" PRIu64, v);
}

const char *agg_log2__label(int bucket, char *buf, size_t len)
{
	if (bucket <= 0) {
		snprintf(buf, len, "(..., 0)");
	} else if (bucket == 1) {
		snprintf(buf, len, "[0]");
	} else if (bucket == 2) {
		snprintf(buf, len, "[1]");
	} else {
		char lo[24], hi[24];
		int k = bucket - 2;
		power_str(k, lo, sizeof(lo));
		power_str(k + 1, hi, sizeof(hi));
		snprintf(buf, len, "[%s, %s)", lo, hi);
	}
	return buf;
}

void agg_log2__bounds(int bucket, int64_t *lo, bool *has_lo, int64_t *hi, bool *has_hi)
{
	*has_lo = bucket > 0;
	*has_hi = true;
	if (bucket <= 0) {
		*lo = 0;
		*hi = -1;
	} else if (bucket <= 2) {
		*lo = *hi = bucket - 1;
	} else {
		*lo = (int64_t)1 << (bucket - 2);
		*hi = bucket - 2 >= 62 ? INT64_MAX : ((int64_t)1 << (bucket - 1)) - 1;
	}
}

int agg_linear__check(const struct agg_linear *l, char *err, size_t len)
{
	if (l->step <= 0 || l->min >= l->max) {
		snprintf(err, len, "a linear histogram needs min < max and a step above 0 (got %" PRId64 ", %" PRId64
			 ", %" PRId64 ")", l->min, l->max, l->step);
		return -EINVAL;
	}
	/* max - min may overflow int64: in unsigned, exact */
	uint64_t span = (uint64_t)l->max - (uint64_t)l->min;
	if (span / (uint64_t)l->step > 1000) {
		snprintf(err, len, "a linear histogram of at most 1000 buckets: (%" PRId64 " - %" PRId64 ") / %" PRId64
			 " is more", l->max, l->min, l->step);
		return -EINVAL;
	}
	return 0;
}

size_t agg_linear__nr_buckets(const struct agg_linear *l)
{
	uint64_t span = (uint64_t)l->max - (uint64_t)l->min;
	/* below min, the steps (a last partial one too), at or past max */
	return (size_t)((span + (uint64_t)l->step - 1) / (uint64_t)l->step) + 2;
}

size_t agg_linear__bucket(const struct agg_linear *l, int64_t v)
{
	if (v < l->min)
		return 0;
	if (v >= l->max)
		return agg_linear__nr_buckets(l) - 1;
	return (size_t)(((uint64_t)v - (uint64_t)l->min) / (uint64_t)l->step) + 1;
}

void agg_linear__bounds(const struct agg_linear *l, size_t bucket, int64_t *lo, bool *has_lo, int64_t *hi,
			bool *has_hi)
{
	size_t n = agg_linear__nr_buckets(l);
	*has_lo = *has_hi = true;
	if (bucket == 0) {			/* below min */
		*has_lo = false;
		*lo = 0;
		*hi = l->min - 1;
	} else if (bucket >= n - 1) {		/* at or past max */
		*has_hi = false;
		*lo = l->max;
		*hi = 0;
	} else {				/* a step; the last may be cut at max */
		*lo = (int64_t)((uint64_t)l->min + (uint64_t)(bucket - 1) * (uint64_t)l->step);
		*hi = bucket == n - 2 ? l->max - 1 : (int64_t)((uint64_t)*lo + (uint64_t)l->step - 1);
	}
}

const char *agg_linear__label(const struct agg_linear *l, size_t bucket, char *buf, size_t len)
{
	int64_t lo, hi;
	bool has_lo, has_hi;
	agg_linear__bounds(l, bucket, &lo, &has_lo, &hi, &has_hi);
	if (!has_lo)
		snprintf(buf, len, "(..., %" PRId64 ")", l->min);
	else if (!has_hi)
		snprintf(buf, len, "[%" PRId64 ", ...)", l->max);
	else	/* bpftrace's upper bound is exclusive */
		snprintf(buf, len, "[%" PRId64 ", %" PRId64 ")", lo, (int64_t)((uint64_t)hi + 1));
	return buf;
}

void agg_hist__print(FILE *out, const uint64_t *buckets, size_t nr, agg_label_fn label, const void *arg)
{
	size_t first = nr, last = 0;
	uint64_t top = 0;
	for (size_t i = 0; i < nr; i++) {
		if (!buckets[i])
			continue;
		if (first == nr)
			first = i;
		last = i;
		if (buckets[i] > top)
			top = buckets[i];
	}
	for (size_t i = first; i < nr && i <= last; i++) {
		char lb[64], bar[BAR_WIDTH + 1];
		/* the bar: count / top of the width, as bpftrace rounds (down) */
		size_t w = (size_t)((unsigned __int128)buckets[i] * BAR_WIDTH / top);
		memset(bar, '@', w);
		memset(bar + w, ' ', BAR_WIDTH - w);
		bar[BAR_WIDTH] = 0;
		fprintf(out, "%-16s%8" PRIu64 " |%s|\n", label(arg, i, lb, sizeof(lb)), buckets[i], bar);
	}
}

void agg_stats__add(struct agg_stats *s, int64_t v)
{
	if (!s->count || v < s->min)
		s->min = v;
	if (!s->count || v > s->max)
		s->max = v;
	s->count++;
	s->sum = (int64_t)((uint64_t)s->sum + (uint64_t)v);	/* wraps as bpftrace's does */
}

int64_t agg_stats__avg(const struct agg_stats *s)
{
	return s->count ? s->sum / (int64_t)s->count : 0;
}
