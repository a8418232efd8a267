/* The aggregation table (src/output/agg_map.c): keys, each op, sorting,
 * clearing, the memory bound, and the printed text against bpftrace 0.17's
 * own output (Debian 12) of the same values, captured with
 *   bpftrace -e 'BEGIN { @c["bash", 12] = count(); @c["bash", 12] = count();
 *     @c["bash", 12] = count(); @c["sh", -4] = count(); @s["x"] = sum(10);
 *     @s["x"] = sum(-25); @s["y"] = sum(7); @mn["a"] = min(5);
 *     @mn["a"] = min(-2); @mn["b"] = min(3); @mx["a"] = max(5);
 *     @mx["a"] = max(-2); @mx["b"] = max(3); @a["p"] = avg(10);
 *     @a["p"] = avg(5); @a["q"] = avg(3); @st["p"] = stats(10);
 *     @st["p"] = stats(5); @st["q"] = stats(3); @h["w"] = hist(3);
 *     @h["w"] = hist(0); @h["v"] = hist(70); @l = lhist(15, 10, 40, 10);
 *     @l = lhist(35, 10, 40, 10); @l = lhist(50, 10, 40, 10); @u = count();
 *     exit(); }'
 * (each map's lines below, as bpftrace printed them). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agg_map.h"
#include "check.h"

static char *print(const struct agg_map *m, const char *name, bool json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (json)
		agg_map__print_json(m, f);
	else
		agg_map__print(m, f, name);
	fclose(f);
	return buf;
}

static void check_text(const struct agg_map *m, const char *name, const char *want)
{
	char *got = print(m, name, false);
	CHECK_STREQ(got, want);
	free(got);
}

static void check_json(const struct agg_map *m, const char *want)
{
	char *got = print(m, NULL, true);
	CHECK_STREQ(got, want);
	free(got);
}

/* one value of key (str, num) */
static void add2(struct agg_map *m, struct agg_key *k, const char *s, int64_t n, int64_t v)
{
	agg_key__reset(k);
	agg_key__str(k, s, strlen(s));
	agg_key__int(k, n);
	CHECK_EQ_INT(agg_map__add(m, k, v), 0);
}

static void add1(struct agg_map *m, struct agg_key *k, const char *s, int64_t v)
{
	agg_key__reset(k);
	agg_key__str(k, s, strlen(s));
	CHECK_EQ_INT(agg_map__add(m, k, v), 0);
}

static struct agg_map *map1(enum agg_op op, const char *k1, const int64_t *v1, int n1, const char *k2, int64_t v2,
			    struct agg_key *k)
{
	struct agg_map *m = agg_map__new(op, NULL, true, 0);
	for (int i = 0; i < n1; i++)
		add1(m, k, k1, v1[i]);
	add1(m, k, k2, v2);
	return m;
}

static void test_bpftrace_text(void)
{
	struct agg_key k = { 0 };
	struct agg_map *m = agg_map__new(AGG_COUNT, NULL, true, 0);
	add2(m, &k, "bash", 12, 0);
	add2(m, &k, "sh", -4, 0);
	add2(m, &k, "bash", 12, 0);
	add2(m, &k, "bash", 12, 0);
	CHECK_EQ_U64(agg_map__nr(m), 2);
	check_text(m, "@c", "@c[sh, -4]: 1\n@c[bash, 12]: 3\n");
	check_json(m, "[{\"key\":[\"sh\",-4],\"value\":1},{\"key\":[\"bash\",12],\"value\":3}]");
	agg_map__delete(m);

	m = map1(AGG_SUM, "x", (const int64_t[]){ 10, -25 }, 2, "y", 7, &k);
	check_text(m, "@s", "@s[x]: -15\n@s[y]: 7\n");
	agg_map__delete(m);
	m = map1(AGG_MIN, "a", (const int64_t[]){ 5, -2 }, 2, "b", 3, &k);
	check_text(m, "@mn", "@mn[a]: -2\n@mn[b]: 3\n");
	agg_map__delete(m);
	m = map1(AGG_MAX, "a", (const int64_t[]){ 5, -2 }, 2, "b", 3, &k);
	check_text(m, "@mx", "@mx[b]: 3\n@mx[a]: 5\n");
	agg_map__delete(m);
	m = map1(AGG_AVG, "p", (const int64_t[]){ 10, 5 }, 2, "q", 3, &k);
	check_text(m, "@a", "@a[q]: 3\n@a[p]: 7\n\n");
	agg_map__delete(m);
	m = map1(AGG_STATS, "p", (const int64_t[]){ 10, 5 }, 2, "q", 3, &k);
	check_text(m, "@st", "@st[q]: count 1, average 3, total 3\n@st[p]: count 2, average 7, total 15\n\n");
	check_json(m, "[{\"key\":[\"q\"],\"value\":{\"count\":1,\"average\":3,\"total\":3}},"
		      "{\"key\":[\"p\"],\"value\":{\"count\":2,\"average\":7,\"total\":15}}]");
	agg_map__delete(m);

	m = map1(AGG_HIST, "w", (const int64_t[]){ 3, 0 }, 2, "v", 70, &k);
	check_text(m, "@h",
		   "@h[v]: \n"
		   "[64, 128)              1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		   "\n"
		   "@h[w]: \n"
		   "[0]                    1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		   "[1]                    0 |                                                    |\n"
		   "[2, 4)                 1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		   "\n");
	check_json(m, "[{\"key\":[\"v\"],\"value\":[{\"min\":64,\"max\":127,\"count\":1}]},"
		      "{\"key\":[\"w\"],\"value\":[{\"min\":0,\"max\":0,\"count\":1},"
		      "{\"min\":2,\"max\":3,\"count\":1}]}]");
	agg_map__delete(m);

	/* unkeyed */
	const struct agg_linear lin = { .min = 10, .max = 40, .step = 10 };
	m = agg_map__new(AGG_LHIST, &lin, false, 0);
	agg_key__reset(&k);
	agg_map__add(m, &k, 15);
	agg_map__add(m, &k, 35);
	agg_map__add(m, &k, 50);
	check_text(m, "@l",
		   "@l: \n"
		   "[10, 20)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		   "[20, 30)               0 |                                                    |\n"
		   "[30, 40)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		   "[40, ...)              1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		   "\n");
	check_json(m, "[{\"key\":[],\"value\":[{\"min\":10,\"max\":19,\"count\":1},{\"min\":30,\"max\":39,\"count\":1},"
		      "{\"min\":40,\"count\":1}]}]");
	agg_map__add(m, &k, 9);
	check_json(m, "[{\"key\":[],\"value\":[{\"max\":9,\"count\":1},{\"min\":10,\"max\":19,\"count\":1},"
		      "{\"min\":30,\"max\":39,\"count\":1},{\"min\":40,\"count\":1}]}]");
	agg_map__delete(m);

	m = agg_map__new(AGG_COUNT, NULL, false, 0);
	check_text(m, "@u", "@u: 0\n");	/* nothing counted: bpftrace's @u: 0 too */
	struct agg_key empty = { 0 };	/* never used: no buffer (UBSan: no memcpy from NULL) */
	CHECK_EQ_INT(agg_map__add(m, &empty, 0), 0);
	CHECK_EQ_INT(agg_map__add(m, &empty, 0), 0);
	check_text(m, "@u", "@u: 2\n");
	agg_map__delete(m);
	agg_key__exit(&k);
}

/* Equal values: in key order, numbers as numbers, strings bytewise, a
 * shorter string first; signed and unsigned parts as their type says. */
static void test_ties_and_keys(void)
{
	struct agg_key k = { 0 };
	struct agg_map *m = agg_map__new(AGG_COUNT, NULL, true, 0);
	add2(m, &k, "b", 10, 0);
	add2(m, &k, "b", 9, 0);
	add2(m, &k, "b", -1, 0);
	add2(m, &k, "ab", 1, 0);
	add2(m, &k, "a", 100, 0);
	check_text(m, "@", "@[a, 100]: 1\n@[ab, 1]: 1\n@[b, -1]: 1\n@[b, 9]: 1\n@[b, 10]: 1\n");
	agg_map__delete(m);

	m = agg_map__new(AGG_SUM, NULL, true, 0);
	agg_key__reset(&k);
	agg_key__uint(&k, UINT64_MAX);
	agg_key__str(&k, "comm\0junk", 9);	/* a char[16] field: up to its NUL */
	agg_map__add(m, &k, 5);
	agg_key__reset(&k);
	agg_key__uint(&k, 7);
	agg_key__str(&k, "comm", 4);
	agg_map__add(m, &k, 5);
	check_text(m, "@", "@[7, comm]: 5\n@[18446744073709551615, comm]: 5\n");
	check_json(m, "[{\"key\":[7,\"comm\"],\"value\":5},{\"key\":[18446744073709551615,\"comm\"],\"value\":5}]");
	/* the same key again: one entry */
	agg_map__add(m, &k, -1);
	CHECK_EQ_U64(agg_map__nr(m), 2);
	check_text(m, "@", "@[7, comm]: 4\n@[18446744073709551615, comm]: 5\n");

	/* clear: bpftrace's clear(); the next interval starts empty */
	agg_map__clear(m);
	CHECK_EQ_U64(agg_map__nr(m), 0);
	check_text(m, "@", "");
	agg_map__add(m, &k, 3);
	check_text(m, "@", "@[7, comm]: 3\n");
	agg_map__delete(m);
	agg_key__exit(&k);
}

/* Many keys: the table grows and finds each again. */
static void test_many(void)
{
	struct agg_key k = { 0 };
	struct agg_map *m = agg_map__new(AGG_COUNT, NULL, true, 0);
	for (int round = 0; round < 3; round++)
		for (int i = 0; i < 5000; i++) {
			agg_key__reset(&k);
			agg_key__int(&k, i);
			agg_map__add(m, &k, 0);
		}
	CHECK_EQ_U64(agg_map__nr(m), 5000);
	CHECK_EQ_U64(agg_map__dropped(m), 0);
	char *out = print(m, "@", false);
	CHECK(strstr(out, "@[0]: 3\n@[1]: 3\n") == out, "first lines: %.40s", out);
	CHECK(strstr(out, "@[4999]: 3\n") != NULL, "last key printed");
	free(out);
	agg_map__delete(m);

	/* the bound: keys past it are dropped and counted, old keys count on */
	m = agg_map__new(AGG_HIST, NULL, true, 16384);
	int added = 0;
	for (int i = 0; i < 1000; i++) {
		agg_key__reset(&k);
		agg_key__int(&k, i);
		if (agg_map__add(m, &k, i) == 0)
			added++;
	}
	CHECK(added > 0 && added < 1000, "added %d of 1000 keys in 16 KiB", added);
	CHECK_EQ_U64(agg_map__nr(m), (uint64_t)added);
	CHECK_EQ_U64(agg_map__dropped(m), (uint64_t)(1000 - added));
	agg_key__reset(&k);
	agg_key__int(&k, 0);
	CHECK_EQ_INT(agg_map__add(m, &k, 1), 0);
	agg_key__reset(&k);
	agg_key__int(&k, 999);
	CHECK_EQ_INT(agg_map__add(m, &k, 1), -ENOSPC);
	agg_map__delete(m);
	agg_key__exit(&k);
}

int main(void)
{
	CHECK_STREQ(agg_op__name(AGG_LHIST), "lhist");
	test_bpftrace_text();
	test_ties_and_keys();
	test_many();
	return check_summary();
}
