/* bpftrace's histograms and statistics (src/output/agg_hist.c) against
 * bpftrace 0.17's own output (Debian 12), captured with
 *   bpftrace -e 'BEGIN { @h = hist(0); @h = hist(1); @h = hist(1);
 *     @h = hist(3); @h = hist(5); @h = hist(1500); @h = hist(-3);
 *     @h = hist(1048577); @l = lhist(7, 0, 100, 10); @l = lhist(-1, 0,
 *     100, 10); @l = lhist(250, 0, 100, 10); @l = lhist(55, 0, 100, 10);
 *     @s = stats(5); @s = stats(7); @a = avg(3); @a = avg(4); exit(); }'
 * Past 2^32 bpftrace 0.17 puts every value in [2G, 4G) (5e9 and 1.7e16
 * alike): pprobe's buckets go on to [4E, 8E), checked here by arithmetic. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agg_hist.h"
#include "check.h"

static const char *log2_label(const void *arg, size_t b, char *buf, size_t len)
{
	(void)arg;
	return agg_log2__label((int)b, buf, len);
}

static const char *lin_label(const void *arg, size_t b, char *buf, size_t len)
{
	return agg_linear__label(arg, b, buf, len);
}

static char *print(const uint64_t *b, size_t nr, agg_label_fn fn, const void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	agg_hist__print(f, b, nr, fn, arg);
	fclose(f);
	return buf;
}

static const char BPFTRACE_HIST[] =
	"(..., 0)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n"
	"[0]                    1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n"
	"[1]                    2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
	"[2, 4)                 1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n"
	"[4, 8)                 1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n"
	"[8, 16)                0 |                                                    |\n"
	"[16, 32)               0 |                                                    |\n"
	"[32, 64)               0 |                                                    |\n"
	"[64, 128)              0 |                                                    |\n"
	"[128, 256)             0 |                                                    |\n"
	"[256, 512)             0 |                                                    |\n"
	"[512, 1K)              0 |                                                    |\n"
	"[1K, 2K)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n"
	"[2K, 4K)               0 |                                                    |\n"
	"[4K, 8K)               0 |                                                    |\n"
	"[8K, 16K)              0 |                                                    |\n"
	"[16K, 32K)             0 |                                                    |\n"
	"[32K, 64K)             0 |                                                    |\n"
	"[64K, 128K)            0 |                                                    |\n"
	"[128K, 256K)           0 |                                                    |\n"
	"[256K, 512K)           0 |                                                    |\n"
	"[512K, 1M)             0 |                                                    |\n"
	"[1M, 2M)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n";

static const char BPFTRACE_LHIST[] =
	"(..., 0)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
	"[0, 10)                1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
	"[10, 20)               0 |                                                    |\n"
	"[20, 30)               0 |                                                    |\n"
	"[30, 40)               0 |                                                    |\n"
	"[40, 50)               0 |                                                    |\n"
	"[50, 60)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
	"[60, 70)               0 |                                                    |\n"
	"[70, 80)               0 |                                                    |\n"
	"[80, 90)               0 |                                                    |\n"
	"[90, 100)              0 |                                                    |\n"
	"[100, ...)             1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n";

int main(void)
{
	/* hist(): the same values as bpftrace's run */
	uint64_t h[AGG_LOG2_BUCKETS] = { 0 };
	const int64_t hv[] = { 0, 1, 1, 3, 5, 1500, -3, 1048577 };
	for (size_t i = 0; i < sizeof(hv) / sizeof(*hv); i++)
		h[agg_log2__bucket(hv[i])]++;
	char *s = print(h, AGG_LOG2_BUCKETS, log2_label, NULL);
	CHECK_STREQ(s, BPFTRACE_HIST);
	free(s);

	/* the edges: powers of two, the largest values, the suffixes past G */
	CHECK_EQ_INT(agg_log2__bucket(INT64_MIN), 0);
	CHECK_EQ_INT(agg_log2__bucket(2), 3);
	CHECK_EQ_INT(agg_log2__bucket(3), 3);
	CHECK_EQ_INT(agg_log2__bucket(4), 4);
	CHECK_EQ_INT(agg_log2__bucket(1023), 11);
	CHECK_EQ_INT(agg_log2__bucket(1024), 12);
	CHECK_EQ_INT(agg_log2__bucket(INT64_MAX), AGG_LOG2_BUCKETS - 1);
	char lb[64];
	CHECK_STREQ(agg_log2__label(agg_log2__bucket(5000000000), lb, sizeof(lb)), "[4G, 8G)");
	CHECK_STREQ(agg_log2__label(agg_log2__bucket(1ll << 50), lb, sizeof(lb)), "[1P, 2P)");
	CHECK_STREQ(agg_log2__label(AGG_LOG2_BUCKETS - 1, lb, sizeof(lb)), "[4E, 8E)");

	/* nothing recorded: nothing printed */
	uint64_t none[AGG_LOG2_BUCKETS] = { 0 };
	s = print(none, AGG_LOG2_BUCKETS, log2_label, NULL);
	CHECK_STREQ(s, "");
	free(s);

	/* lhist(v, 0, 100, 10) */
	struct agg_linear l = { .min = 0, .max = 100, .step = 10 };
	char err[256];
	CHECK_EQ_INT(agg_linear__check(&l, err, sizeof(err)), 0);
	CHECK_EQ_U64(agg_linear__nr_buckets(&l), 12);
	uint64_t lb2[12] = { 0 };
	const int64_t lv[] = { 7, -1, 250, 55 };
	for (size_t i = 0; i < sizeof(lv) / sizeof(*lv); i++)
		lb2[agg_linear__bucket(&l, lv[i])]++;
	s = print(lb2, 12, lin_label, &l);
	CHECK_STREQ(s, BPFTRACE_LHIST);
	free(s);
	CHECK_EQ_U64(agg_linear__bucket(&l, 99), 10);
	CHECK_EQ_U64(agg_linear__bucket(&l, 100), 11);

	/* a last step cut short by max: [0, 10) [10, 20) [20, 25) */
	struct agg_linear odd = { .min = 0, .max = 25, .step = 10 };
	CHECK_EQ_U64(agg_linear__nr_buckets(&odd), 5);
	CHECK_STREQ(agg_linear__label(&odd, 3, lb, sizeof(lb)), "[20, 25)");
	CHECK_EQ_U64(agg_linear__bucket(&odd, 24), 3);

	/* refused: no step, min not below max, too many buckets, and no
	 * overflow on the widest range */
	struct agg_linear bad[] = { { 0, 100, 0 }, { 5, 5, 1 }, { 0, 100000, 1 }, { INT64_MIN, INT64_MAX, 1 } };
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		CHECK(agg_linear__check(&bad[i], err, sizeof(err)) == -EINVAL && err[0], "lhist %zu accepted", i);
	struct agg_linear wide = { INT64_MIN, INT64_MAX, INT64_MAX / 10 };
	CHECK_EQ_INT(agg_linear__check(&wide, err, sizeof(err)), 0);
	CHECK_EQ_U64(agg_linear__bucket(&wide, 0), 11);

	/* stats(5), stats(7): "count 2, average 6, total 12"; avg(3), avg(4): 3 */
	struct agg_stats st = { 0 }, av = { 0 };
	agg_stats__add(&st, 5);
	agg_stats__add(&st, 7);
	CHECK(st.count == 2 && agg_stats__avg(&st) == 6 && st.sum == 12 && st.min == 5 && st.max == 7,
	      "stats: count %llu avg %lld sum %lld", (unsigned long long)st.count, (long long)agg_stats__avg(&st),
	      (long long)st.sum);
	agg_stats__add(&av, 3);
	agg_stats__add(&av, 4);
	CHECK_EQ_INT((int)agg_stats__avg(&av), 3);
	struct agg_stats neg = { 0 };
	agg_stats__add(&neg, -7);
	agg_stats__add(&neg, 2);
	CHECK(neg.min == -7 && neg.max == 2 && agg_stats__avg(&neg) == -2, "negative: min %lld max %lld avg %lld",
	      (long long)neg.min, (long long)neg.max, (long long)agg_stats__avg(&neg));
	return check_summary();
}
