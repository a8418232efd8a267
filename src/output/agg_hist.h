/* Aggregations as bpftrace keeps and prints them (issue 29): log2 and
 * linear histograms of signed 64-bit values, and count/sum/min/max/avg/
 * stats, with bpftrace 0.17's text (`[4, 8)   12 |@@@@   |`) so that a
 * user reads pprobe's maps as they read bpftrace's. No kernel here: the
 * values come from the event pipeline; this is the arithmetic and the
 * printing, tested against bpftrace's own output (tests/unit/test_agg_hist.c). */
#ifndef PPROBE_AGG_HIST_H
#define PPROBE_AGG_HIST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* hist(): bucket 0 holds the negative values, 1 holds 0, 2 holds 1, and
 * bucket k + 2 holds [2^k, 2^(k+1)) for k = 1..62: 65 buckets. */
#define AGG_LOG2_BUCKETS 65

int agg_log2__bucket(int64_t v);
/* "(..., 0)", "[0]", "[1]", "[2, 4)", ..., "[1K, 2K)" (powers of 1024 as
 * K M G T P E), into buf; returns buf. */
const char *agg_log2__label(int bucket, char *buf, size_t len);

/* lhist(v, min, max, step): bucket 0 below min ("(..., MIN)"), then
 * [min + i*step, min + (i+1)*step), then the last at or past max
 * ("[MAX, ...)"). */
struct agg_linear {
	int64_t min, max, step;
};

/* 0, or -EINVAL with why in err: step > 0, min < max, at most 1,000
 * buckets (bpftrace's own limit). */
int agg_linear__check(const struct agg_linear *l, char *err, size_t len);
size_t agg_linear__nr_buckets(const struct agg_linear *l);
size_t agg_linear__bucket(const struct agg_linear *l, int64_t v);
const char *agg_linear__label(const struct agg_linear *l, size_t bucket, char *buf, size_t len);

/* A bucket's values, both bounds inclusive; has_lo/has_hi false at an open
 * end ("(..., 0)", "[MAX, ...)"): what bpftrace's JSON says of it. */
void agg_log2__bounds(int bucket, int64_t *lo, bool *has_lo, int64_t *hi, bool *has_hi);
void agg_linear__bounds(const struct agg_linear *l, size_t bucket, int64_t *lo, bool *has_lo, int64_t *hi,
			bool *has_hi);

/* Prints a histogram's buckets as bpftrace does: from its first to its
 * last non-empty bucket (none when all are empty), each
 * `LABEL(16, left) COUNT(8, right) |BAR(52)|`, the bar scaled to the
 * largest bucket. labels: the label of bucket i. */
typedef const char *(*agg_label_fn)(const void *arg, size_t bucket, char *buf, size_t len);
void agg_hist__print(FILE *out, const uint64_t *buckets, size_t nr, agg_label_fn label, const void *arg);

/* count, sum, min, max, avg of one key: stats() prints them as bpftrace's
 * "count N, average A, total T"; avg() as bpftrace's integer average. */
struct agg_stats {
	uint64_t count;
	int64_t sum, min, max;
};

void agg_stats__add(struct agg_stats *s, int64_t v);
/* bpftrace's average: the sum divided by the count, toward zero; 0 empty. */
int64_t agg_stats__avg(const struct agg_stats *s);

#endif
