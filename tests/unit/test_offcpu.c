/* The off-CPU interval bookkeeping (record --off-cpu): switch-outs paired
 * with the same thread's next switch-in, what prev_state means, open
 * intervals at the end, and every way a record can be missing. The kernel
 * side (which records come, in which task) is tests/e2e/record_offcpu.sh. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "offcpu.h"

struct got {
	int n;
	struct {
		pid_t pid, tid;
		char label[32];
		enum offcpu_kind kind;
		uint64_t start, end;
		uint32_t words[4];
		uint32_t nr;
		bool open;
	} v[16];
};

static void got_fn(void *ctx, const struct offcpu_interval *iv)
{
	struct got *g = ctx;
	if (g->n >= 16)
		return;
	g->v[g->n].pid = iv->pid;
	g->v[g->n].tid = iv->tid;
	snprintf(g->v[g->n].label, sizeof(g->v[g->n].label), "%s", iv->label);
	g->v[g->n].kind = iv->kind;
	g->v[g->n].start = iv->start;
	g->v[g->n].end = iv->end;
	g->v[g->n].nr = iv->nr;
	memcpy(g->v[g->n].words, iv->words, (iv->nr < 4 ? iv->nr : 4) * sizeof(uint32_t));
	g->v[g->n].open = iv->open;
	g->n++;
}

/* The encodings of 5.10 to 6.18 (__trace_sched_switch_state). */
static void test_prev_state(void)
{
	CHECK_EQ_INT(offcpu__kind_of_prev_state(0), OFFCPU_PREEMPTED);		/* R (yield) */
	CHECK_EQ_INT(offcpu__kind_of_prev_state(0x100), OFFCPU_PREEMPTED);	/* R+ (preempted) */
	CHECK_EQ_INT(offcpu__kind_of_prev_state(0x1), OFFCPU_BLOCKED);		/* S */
	CHECK_EQ_INT(offcpu__kind_of_prev_state(0x2), OFFCPU_BLOCKED);		/* D */
	CHECK_EQ_INT(offcpu__kind_of_prev_state(0x4), OFFCPU_BLOCKED);		/* T */
	CHECK_EQ_INT(offcpu__kind_of_prev_state(0x8), OFFCPU_BLOCKED);		/* t */
	CHECK_EQ_INT(offcpu__kind_of_prev_state(0x40), OFFCPU_BLOCKED);		/* P */
	CHECK_EQ_INT(offcpu__kind_of_prev_state(0x80), OFFCPU_BLOCKED);		/* I */
	CHECK_EQ_INT(offcpu__kind_of_prev_state(0x10), OFFCPU_EXITING);		/* X */
	CHECK_EQ_INT(offcpu__kind_of_prev_state(0x20), OFFCPU_EXITING);		/* Z */
	CHECK_STREQ(offcpu_kind__frame(OFFCPU_BLOCKED), "[off-cpu: blocked]");
	CHECK_STREQ(offcpu_kind__frame(OFFCPU_PREEMPTED), "[off-cpu: preempted]");
}

/* Out, in: one interval of exactly the time between, with the stack and
 * label of the switch-out (copied: the caller's buffers change). */
static void test_pairs(void)
{
	struct offcpu o;
	struct got g = { 0 };
	uint32_t w[3] = { 7, 8, 9 };
	char label[32] = "wl/12";
	offcpu__init(&o);
	offcpu__switch_out(&o, 10, 12, label, 1000, OFFCPU_BLOCKED, w, 3);
	w[0] = 99;
	strcpy(label, "changed");
	CHECK_EQ_INT(offcpu__switch_in(&o, 13, 1500, got_fn, &g), 0);	/* another thread */
	CHECK_EQ_INT(offcpu__switch_in(&o, 12, 4000, got_fn, &g), 1);
	if (CHECK_EQ_INT(g.n, 1)) {
		CHECK_EQ_INT(g.v[0].pid, 10);
		CHECK_EQ_INT(g.v[0].tid, 12);
		CHECK_STREQ(g.v[0].label, "wl/12");
		CHECK_EQ_U64(g.v[0].end - g.v[0].start, 3000);
		CHECK_EQ_INT(g.v[0].nr, 3);
		CHECK_EQ_INT(g.v[0].words[0], 7);
		CHECK_EQ_INT(g.v[0].words[2], 9);
		CHECK(!g.v[0].open, "closed by a switch-in");
	}
	/* the next round: preempted, a longer stack, then a shorter one */
	uint32_t w5[5] = { 1, 2, 3, 4, 5 };
	offcpu__switch_out(&o, 10, 12, "wl/12", 5000, OFFCPU_PREEMPTED, w5, 5);
	CHECK_EQ_INT(offcpu__switch_in(&o, 12, 5200, got_fn, &g), 1);
	offcpu__switch_out(&o, 10, 12, "wl/12", 6000, OFFCPU_BLOCKED, w5 + 3, 2);
	CHECK_EQ_INT(offcpu__switch_in(&o, 12, 6100, got_fn, &g), 1);
	if (CHECK_EQ_INT(g.n, 3)) {
		CHECK_EQ_INT(g.v[1].kind, OFFCPU_PREEMPTED);
		CHECK_EQ_INT(g.v[1].nr, 5);
		CHECK_EQ_U64(g.v[1].end - g.v[1].start, 200);
		CHECK_EQ_INT(g.v[2].nr, 2);
		CHECK_EQ_INT(g.v[2].words[0], 4);
	}
	CHECK_EQ_U64(o.st.intervals, 3);
	CHECK_EQ_U64(o.st.ns[OFFCPU_BLOCKED], 3100);
	CHECK_EQ_U64(o.st.ns[OFFCPU_PREEMPTED], 200);
	CHECK_EQ_U64(o.st.first_in, 1);	/* thread 13 */
	CHECK_EQ_U64(o.st.unmatched_in + o.st.unmatched_out + o.st.backwards, 0);
	offcpu__exit(&o);
}

/* Missing records: each is counted, none makes an interval it cannot know. */
static void test_missing(void)
{
	struct offcpu o;
	struct got g = { 0 };
	uint32_t w = 1;
	offcpu__init(&o);
	/* a thread's first record is a switch-in (new thread, or asleep since
	 * before recording): not an interval, not a loss */
	CHECK_EQ_INT(offcpu__switch_in(&o, 5, 100, got_fn, &g), 0);
	CHECK_EQ_U64(o.st.first_in, 1);
	/* later a switch-in without its switch-out: the sample was lost */
	CHECK_EQ_INT(offcpu__switch_in(&o, 5, 200, got_fn, &g), 0);
	CHECK_EQ_U64(o.st.unmatched_in, 1);
	/* two switch-outs in a row: the switch-in between was lost; the
	 * second one opens the interval */
	offcpu__switch_out(&o, 5, 5, "a", 300, OFFCPU_BLOCKED, &w, 1);
	offcpu__switch_out(&o, 5, 5, "a", 400, OFFCPU_BLOCKED, &w, 1);
	CHECK_EQ_U64(o.st.unmatched_out, 1);
	CHECK_EQ_INT(offcpu__switch_in(&o, 5, 450, got_fn, &g), 1);
	CHECK(g.n == 1 && g.v[0].start == 400 && g.v[0].end == 450, "the second switch-out's interval");
	/* a switch-in older than its switch-out (delivered out of order) */
	offcpu__switch_out(&o, 5, 5, "a", 1000, OFFCPU_BLOCKED, &w, 1);
	CHECK_EQ_INT(offcpu__switch_in(&o, 5, 900, got_fn, &g), 0);
	CHECK_EQ_U64(o.st.backwards, 1);
	CHECK_EQ_INT(g.n, 1);
	/* a thread's last switch-out (exiting): forgotten, no interval */
	offcpu__switch_out(&o, 5, 6, "b", 2000, OFFCPU_BLOCKED, &w, 1);
	offcpu__switch_out(&o, 5, 6, "b", 2100, OFFCPU_EXITING, NULL, 0);
	CHECK_EQ_INT(offcpu__switch_in(&o, 6, 2200, got_fn, &g), 0);
	CHECK_EQ_U64(o.st.first_in, 2);	/* 6 is new again (its tid reused) */
	CHECK_EQ_U64(offcpu__finish(&o, 5000, got_fn, &g), 0);
	CHECK_EQ_INT(g.n, 1);
	offcpu__exit(&o);
}

/* The end: threads still off-CPU are counted up to it, once. */
static void test_finish(void)
{
	struct offcpu o;
	struct got g = { 0 };
	uint32_t w = 3;
	offcpu__init(&o);
	offcpu__switch_out(&o, 1, 1, "a", 100, OFFCPU_BLOCKED, &w, 1);
	offcpu__switch_out(&o, 1, 2, "a", 300, OFFCPU_PREEMPTED, &w, 1);
	offcpu__switch_out(&o, 1, 3, "a", 400, OFFCPU_BLOCKED, &w, 1);
	CHECK_EQ_INT(offcpu__switch_in(&o, 3, 450, got_fn, &g), 1);
	offcpu__switch_out(&o, 1, 4, "a", 2000, OFFCPU_BLOCKED, &w, 1);	/* after the end */
	CHECK_EQ_U64(offcpu__finish(&o, 1000, got_fn, &g), 2);
	uint64_t sum = 0;
	int open = 0;
	for (int i = 0; i < g.n; i++) {
		sum += g.v[i].end - g.v[i].start;
		open += g.v[i].open;
	}
	CHECK_EQ_INT(g.n, 3);
	CHECK_EQ_INT(open, 2);
	CHECK_EQ_U64(sum, 900 + 700 + 50);
	CHECK_EQ_U64(o.st.open_at_end, 2);
	CHECK_EQ_U64(o.st.ns[OFFCPU_BLOCKED], 950);
	CHECK_EQ_U64(o.st.ns[OFFCPU_PREEMPTED], 700);
	CHECK_EQ_U64(offcpu__finish(&o, 1000, got_fn, &g), 0);	/* not twice */
	offcpu__exit(&o);
}

/* Many threads: the table grows and keeps each thread's own interval. */
static void test_many(void)
{
	struct offcpu o;
	offcpu__init(&o);
	uint64_t total = 0;
	for (pid_t t = 1; t <= 5000; t++) {
		uint32_t w = (uint32_t)t;
		offcpu__switch_out(&o, 1, t, "x", (uint64_t)t, OFFCPU_BLOCKED, &w, 1);
	}
	for (pid_t t = 5000; t >= 1; t--)
		total += (uint64_t)offcpu__switch_in(&o, t, 10000 + (uint64_t)t * 2, NULL, NULL);
	CHECK_EQ_U64(total, 5000);
	/* each lasted 10000 + t: the sum of t over 1..5000 plus 5000 * 10000 */
	CHECK_EQ_U64(o.st.ns[OFFCPU_BLOCKED], 5000ULL * 10000 + 5000ULL * 5001 / 2);
	offcpu__exit(&o);
}

int main(void)
{
	test_prev_state();
	test_pairs();
	test_missing();
	test_finish();
	test_many();
	return check_summary();
}
