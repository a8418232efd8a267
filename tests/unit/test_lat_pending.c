/* The pending starts of trace --latency (src/output/lat_pending.c):
 * pairing by key, a second start replacing the first, ends without a
 * start counted, the bound, the key bytes carried from start to end, and
 * many keys through the table's growth. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "lat_pending.h"

static struct lat_start start(uint64_t time, int32_t tid, const char *key)
{
	struct lat_start st = { .time = time, .pid = 100, .tid = tid, .key = (const unsigned char *)key,
				.key_len = key ? strlen(key) : 0, .key_nr = key ? 1 : 0 };
	strcpy(st.comm, "wl");
	return st;
}

static void test_pairs(void)
{
	struct lat_pending *p = lat_pending__new(0);
	struct lat_start st, out;
	struct lat_pending_counts c;

	st = start(1000, 7, "seven");
	CHECK_EQ_INT(lat_pending__start(p, 7, &st), 0);
	st = start(2000, 8, NULL);
	CHECK_EQ_INT(lat_pending__start(p, 8, &st), 0);
	CHECK_EQ_U64(lat_pending__nr(p), 2);

	/* an end without a start */
	CHECK_EQ_INT(lat_pending__end(p, 9, &out), 0);

	CHECK_EQ_INT(lat_pending__end(p, 7, &out), 1);
	CHECK_EQ_U64(out.time, 1000);
	CHECK_EQ_INT(out.tid, 7);
	CHECK_EQ_INT(out.pid, 100);
	CHECK_STREQ(out.comm, "wl");
	CHECK(out.key_len == 5 && out.key_nr == 1 && !memcmp(out.key, "seven", 5), "the key bytes carried");
	/* taken out: a second end of 7 finds nothing */
	CHECK_EQ_INT(lat_pending__end(p, 7, &out), 0);

	/* a second start of 8 replaces the first */
	st = start(3000, 8, "x");
	CHECK_EQ_INT(lat_pending__start(p, 8, &st), 1);
	CHECK_EQ_U64(lat_pending__nr(p), 1);
	CHECK_EQ_INT(lat_pending__end(p, 8, &out), 1);
	CHECK_EQ_U64(out.time, 3000);
	CHECK(out.key_len == 1 && out.key[0] == 'x', "the replacing start's key");
	CHECK_EQ_U64(lat_pending__nr(p), 0);

	lat_pending__counts(p, &c);
	CHECK_EQ_U64(c.replaced, 1);
	CHECK_EQ_U64(c.unmatched, 2);
	CHECK_EQ_U64(c.full, 0);
	lat_pending__delete(p);
}

static void test_bound(void)
{
	struct lat_pending *p = lat_pending__new(3);
	struct lat_start st = start(1, 1, "k"), out;
	struct lat_pending_counts c;
	for (uint64_t k = 0; k < 3; k++)
		CHECK_EQ_INT(lat_pending__start(p, k, &st), 0);
	CHECK_EQ_INT(lat_pending__start(p, 3, &st), -ENOSPC);
	/* a key already there is still replaced when full */
	CHECK_EQ_INT(lat_pending__start(p, 2, &st), 1);
	CHECK_EQ_INT(lat_pending__end(p, 3, &out), 0);
	/* an end makes room */
	CHECK_EQ_INT(lat_pending__end(p, 0, &out), 1);
	CHECK_EQ_INT(lat_pending__start(p, 3, &st), 0);
	lat_pending__counts(p, &c);
	CHECK_EQ_U64(c.full, 1);
	CHECK_EQ_U64(c.replaced, 1);
	CHECK_EQ_U64(lat_pending__nr(p), 3);
	lat_pending__delete(p);	/* frees what is pending */
}

static void test_many(void)
{
	struct lat_pending *p = lat_pending__new(0);
	struct lat_start st, out;
	int ok = 1;
	for (uint64_t k = 0; k < 100000; k++) {
		st = start(k * 10, (int32_t)k, (k & 1) ? "odd" : NULL);
		ok &= lat_pending__start(p, k * 0x1000 + 0xffff800000000000ULL, &st) == 0;
	}
	CHECK(ok, "100000 starts added");
	CHECK_EQ_U64(lat_pending__nr(p), 100000);
	for (uint64_t k = 0; k < 100000; k += 2) {
		ok &= lat_pending__end(p, k * 0x1000 + 0xffff800000000000ULL, &out) == 1 && out.time == k * 10 &&
		      out.tid == (int32_t)k && out.key_len == 0;
	}
	CHECK(ok, "each even key's own start, after the table grew");
	CHECK_EQ_U64(lat_pending__nr(p), 50000);
	lat_pending__delete(p);
}

int main(void)
{
	test_pairs();
	test_bound();
	test_many();
	return check_summary();
}
