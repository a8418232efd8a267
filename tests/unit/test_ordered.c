/* The ordering queue (engine/ordered.h): records of every size (a 64 KiB
 * one among small ones, more than a chunk's worth queued), pushed out of
 * time order, delivered in (time, arrival) order up to each limit with
 * their bytes intact, a callback that pushes while a flush runs, a flush
 * ended by ORDERED_DROP with the rest handed to ordered__drop, and the
 * memory given back (ASan's leak check in the sanitized build). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ordered.h"

#include "check.h"

#define NR 20000

struct rec {
	struct perf_event_header h;
	uint64_t time;
	uint64_t id;
	unsigned char fill[];
};

static struct perf_event_header *make(uint64_t time, uint64_t id, size_t size)
{
	struct rec *r = calloc(1, size);
	r->h.type = PERF_RECORD_SAMPLE;
	r->h.size = (uint16_t)size;
	r->time = time;
	r->id = id;
	for (size_t i = sizeof(*r); i < size; i++)
		r->fill[i - sizeof(*r)] = (unsigned char)(id + i);
	return &r->h;
}

static size_t size_of(uint64_t id)
{
	if (id % 997 == 5)
		return 65528;	/* a full stack copy */
	return sizeof(struct rec) + (id * 37 % 4000);
}

struct seen {
	struct ordered *q;
	uint64_t last_time, last_id, n, bad, pushed, drop_after;
	bool push_more;
};

static bool intact(const struct perf_event_header *h)
{
	const struct rec *r = (const void *)h;
	if (h->size != size_of(r->id))
		return false;
	for (size_t i = sizeof(*r); i < h->size; i++)
		if (r->fill[i - sizeof(*r)] != (unsigned char)(r->id + i))
			return false;
	return true;
}

static int deliver(void *ctx, const struct perf_event_header *h, int cpu)
{
	struct seen *s = ctx;
	const struct rec *r = (const void *)h;
	if (!intact(h) || r->time < s->last_time || cpu != (int)(r->id % 4))
		s->bad++;
	s->last_time = r->time;
	s->last_id = r->id;
	s->n++;
	if (s->push_more && s->pushed < 500) {	/* as collect's catch_up does */
		uint64_t id = 1000000 + s->pushed++;
		struct perf_event_header *nh = make(r->time + 1000000, id, size_of(id));
		ordered__push(s->q, nh, r->time + 1000000, (int)(id % 4));
		free(nh);
		if (!intact(h))	/* the record being delivered never moves */
			s->bad++;
	}
	if (s->drop_after && s->n == s->drop_after)
		return ORDERED_DROP;
	return 0;
}

static int count(void *ctx, const struct perf_event_header *h, int cpu)
{
	struct seen *s = ctx;
	(void)cpu;
	if (!intact(h))
		s->bad++;
	s->n++;
	return 0;
}

/* Records pushed held (ordered__push_held, as collect holds the drain
 * thread's): not copied, delivered in order among copied ones, each
 * released once, after its delivery or drop, or at the queue's end. */
static int released[64];

static void release(void *hold)
{
	struct perf_event_header *h = hold;
	const struct rec *r = (const void *)h;
	released[r->id]++;
	free(h);
}

static int delivered_held(void *ctx, const struct perf_event_header *h, int cpu)
{
	struct seen *s = ctx;
	const struct rec *r = (const void *)h;
	if (!intact(h) || r->time < s->last_time || cpu != (int)(r->id % 4) || (r->id < 64 && released[r->id]))
		s->bad++;	/* a held record released before it was delivered */
	s->last_time = r->time;
	s->n++;
	return 0;
}

static void test_held(void)
{
	struct ordered q;
	ordered__init(&q);
	q.release = release;
	for (uint64_t id = 0; id < 60; id++) {
		uint64_t t = (id * 37) % 60;
		struct perf_event_header *h = make(t, id, size_of(id));
		if (id % 3) {
			ordered__push_held(&q, h, t, (int)(id % 4), h);
		} else {
			ordered__push(&q, h, t, (int)(id % 4));
			free(h);
		}
	}
	struct seen s = { .q = &q };
	CHECK(ordered__flush(&q, 30, delivered_held, &s) == 0 && s.n == 30 && !s.bad,
	      "held and copied records delivered in order, none released early: %llu, %llu bad",
	      (unsigned long long)s.n, (unsigned long long)s.bad);
	int once = 0, none = 0;
	for (uint64_t id = 0; id < 60; id++) {
		uint64_t t = (id * 37) % 60;
		if (id % 3 && t < 30)
			once += released[id] == 1;
		else
			none += released[id] == 0;
	}
	CHECK(once == 20 && none == 40, "the 20 held ones delivered released once (%d), the rest not yet (%d)", once,
	      none);
	struct seen rest = { 0 };
	ordered__drop(&q, count, &rest);
	for (uint64_t id = 0; id < 60; id++) {
		struct perf_event_header *h = make(100 + id, id, size_of(id));
		if (id % 2) {
			ordered__push_held(&q, h, 100 + id, (int)(id % 4), h);
		} else {
			ordered__push(&q, h, 100 + id, (int)(id % 4));
			free(h);
		}
	}
	ordered__exit(&q);	/* releases the 30 held ones still queued */
	int twice = 0, bad = 0;
	for (uint64_t id = 0; id < 60; id++) {
		int want = (id % 3 ? 1 : 0) + (id % 2 ? 1 : 0);
		twice += released[id] == want;
		bad += released[id] != want;
	}
	CHECK(!bad && rest.n == 30, "dropped and left-at-the-end held records released once each (%d right, %d "
	      "wrong, %llu dropped)", twice, bad, (unsigned long long)rest.n);
}

int main(void)
{
	struct ordered q;
	ordered__init(&q);
	/* times in a shuffled order: id's time is (id * 7919) % NR * 10 */
	for (uint64_t id = 0; id < NR; id++) {
		uint64_t t = (id * 7919) % NR * 10;
		struct perf_event_header *h = make(t, id, size_of(id));
		ordered__push(&q, h, t, (int)(id % 4));
		free(h);
	}
	CHECK(q.nr == NR, "all queued: %zu", q.nr);
	size_t bytes = q.len;
	CHECK(bytes > (2u << 20), "more than two chunks' worth queued (%zu bytes)", bytes);

	struct seen s = { .q = &q };
	int ret = ordered__flush(&q, NR * 10 / 2, deliver, &s);
	CHECK(ret == 0 && s.n == NR / 2 && !s.bad, "half delivered in order, intact: %llu, %llu bad",
	      (unsigned long long)s.n, (unsigned long long)s.bad);
	CHECK(q.nr == NR / 2 && q.len < bytes, "half left: %zu records, %zu of %zu bytes", q.nr, q.len, bytes);

	/* the rest, while the callback pushes: those wait for the next flush */
	s.push_more = true;
	ret = ordered__flush(&q, UINT64_MAX, deliver, &s);
	CHECK(ret == 0 && s.n == NR && !s.bad, "the rest delivered in order, intact: %llu, %llu bad",
	      (unsigned long long)s.n, (unsigned long long)s.bad);
	CHECK(q.nr == s.pushed && s.pushed == 500, "what the callback pushed is queued: %zu of %llu", q.nr,
	      (unsigned long long)s.pushed);

	/* a flush ended by ORDERED_DROP: the rest goes to ordered__drop */
	struct seen d = { .q = &q, .drop_after = 100 };
	ret = ordered__flush(&q, UINT64_MAX, deliver, &d);
	CHECK(ret == ORDERED_DROP && d.n == 100 && !d.bad, "ORDERED_DROP ends the flush after 100: %llu",
	      (unsigned long long)d.n);
	struct seen rest = { 0 };
	ordered__drop(&q, count, &rest);
	CHECK(rest.n == 400 && !rest.bad && q.nr == 0 && q.len == 0, "the 400 left handed to drop, intact: %llu",
	      (unsigned long long)rest.n);

	/* used again after it emptied */
	struct perf_event_header *h = make(5, 3, size_of(3));
	ordered__push(&q, h, 5, 3);
	free(h);
	struct seen again = { .q = &q };
	CHECK(ordered__flush(&q, UINT64_MAX, deliver, &again) == 0 && again.n == 1 && !again.bad, "reused");
	CHECK(q.nr == 0 && q.len == 0, "empty again");
	/* records still queued at the end are freed with it */
	for (uint64_t id = 0; id < 3000; id++) {
		h = make(id, id, size_of(id));
		ordered__push(&q, h, id, (int)(id % 4));
		free(h);
	}
	ordered__exit(&q);
	test_held();
	return check_summary();
}
