/* The ring reader on synthetic buffers: in-order delivery, records and
 * headers that wrap past the end, tail publication, LOST records, corrupt
 * sizes. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ring.h"
#include "sample.h"

#define SIZE 256

struct got {
	int n;
	uint32_t types[64];
	uint16_t sizes[64];
	uint64_t payload[64];
};

static int collect_cb(void *ctx, const struct perf_event_header *h, int cpu)
{
	struct got *g = ctx;
	g->types[g->n] = h->type;
	g->sizes[g->n] = h->size;
	memcpy(&g->payload[g->n], h + 1, 8);
	g->n++;
	return 0;
}

static int aligned;

static int aligned_cb(void *ctx, const struct perf_event_header *h, int cpu)
{
	aligned += ((uintptr_t)h & 7) == 0;
	struct perf_event_header copy;
	memcpy(&copy, h, sizeof(copy));
	struct got *g = ctx;
	g->types[g->n] = copy.type;
	g->sizes[g->n] = copy.size;
	g->n++;
	return 0;
}

struct leave_ctx {
	struct got g;
	int room;
};

static int leave_cb(void *ctx, const struct perf_event_header *h, int cpu)
{
	struct leave_ctx *l = ctx;
	if (l->g.n == l->room)
		return RING_LEAVE;
	return collect_cb(&l->g, h, cpu);
}

/* Write a record of `size` bytes (header + repeated u64 value) at byte
 * position pos (mod SIZE), as the kernel would. */
static void put(unsigned char *data, uint64_t pos, uint32_t type, uint16_t size, uint64_t value)
{
	unsigned char rec[SIZE];
	struct perf_event_header h = { .type = type, .misc = 0, .size = size };
	memcpy(rec, &h, sizeof(h));
	for (size_t o = sizeof(h); o + 8 <= size; o += 8)
		memcpy(rec + o, &value, 8);
	for (uint16_t i = 0; i < size; i++)
		data[(pos + i) % SIZE] = rec[i];
}

int main(void)
{
	static struct perf_event_mmap_page meta;
	static unsigned char data[SIZE];
	struct ring r;
	struct got g;

	CHECK(ring__init_synthetic(&r, &meta, data, 100) < 0, "non power-of-two size accepted");
	CHECK(ring__init_synthetic(&r, &meta, data, SIZE) == 0, "init");

	/* 1. Three records in order, no wrap. */
	put(data, 0, PERF_RECORD_SAMPLE, 24, 1);
	put(data, 24, PERF_RECORD_COMM, 32, 2);
	put(data, 56, PERF_RECORD_SAMPLE, 16, 3);
	meta.data_head = 72;
	memset(&g, 0, sizeof(g));
	CHECK(ring__read(&r, collect_cb, &g) == 0, "read");
	CHECK_EQ_U64(g.n, 3);
	CHECK_EQ_U64(g.payload[0], 1);
	CHECK_EQ_U64(g.payload[1], 2);
	CHECK_EQ_U64(g.payload[2], 3);
	CHECK_EQ_U64(meta.data_tail, 72);
	CHECK_EQ_U64(ring__pending(&r), 0);

	/* 2. A record whose body wraps past the end of the data area. */
	uint64_t pos = 72;
	while (pos + 64 <= SIZE) {	/* fill up to near the end */
		put(data, pos, PERF_RECORD_SAMPLE, 64, 10);
		pos += 64;
	}
	uint64_t wrap_at = pos;		/* 200: 56 bytes left before the end */
	put(data, wrap_at, PERF_RECORD_MMAP2, 80, 0xabcdef);
	meta.data_head = wrap_at + 80;
	memset(&g, 0, sizeof(g));
	CHECK(ring__read(&r, collect_cb, &g) == 0, "read wrap");
	CHECK_EQ_U64(g.n, 3);
	CHECK_EQ_U64(g.types[2], PERF_RECORD_MMAP2);
	CHECK_EQ_U64(g.sizes[2], 80);
	CHECK_EQ_U64(g.payload[2], 0xabcdef);
	CHECK_EQ_U64(meta.data_tail, wrap_at + 80);

	/* 3. The 8-byte header itself split across the end. */
	uint64_t head = meta.data_head;	/* 280 -> offset 24 */
	uint64_t split = head + (SIZE - (head % SIZE)) - 4;	/* 4 bytes before the end */
	put(data, head, PERF_RECORD_SAMPLE, (uint16_t)(split - head), 7);
	put(data, split, PERF_RECORD_LOST, 24, 99);
	meta.data_head = split + 24;
	memset(&g, 0, sizeof(g));
	CHECK(ring__read(&r, collect_cb, &g) == 0, "read split header");
	CHECK_EQ_U64(g.n, 2);
	CHECK_EQ_U64(g.types[1], PERF_RECORD_LOST);
	CHECK_EQ_U64(g.sizes[1], 24);
	CHECK_EQ_U64(g.payload[1], 99);

	/* 4. A corrupt size is reported and the ring resynchronises at head. */
	head = meta.data_head;
	put(data, head, PERF_RECORD_SAMPLE, 8, 0);
	struct perf_event_header bad = { .type = PERF_RECORD_SAMPLE, .size = 4 };
	memcpy(&data[head % SIZE], &bad, sizeof(bad));
	meta.data_head = head + 16;
	memset(&g, 0, sizeof(g));
	CHECK(ring__read(&r, collect_cb, &g) == -EBADMSG, "corrupt size not reported");
	CHECK_EQ_U64(meta.data_tail, head + 16);
	/* A record of a size that is not a multiple of 8 (the kernel writes
	 * 8-byte units: corrupt) is delivered, and the next one too, but never
	 * at a misaligned address (fuzz_ring). */
	head = meta.data_head;
	put(data, head, PERF_RECORD_SAMPLE, 20, 7);
	put(data, head + 20, PERF_RECORD_COMM, 12, 8);
	meta.data_head = head + 32;
	memset(&g, 0, sizeof(g));
	aligned = 0;
	CHECK(ring__read(&r, aligned_cb, &g) == 0, "odd sizes read");
	CHECK_EQ_U64(g.n, 2);
	CHECK_EQ_U64(aligned, 2);
	CHECK_EQ_U64(g.sizes[1], 12);
	CHECK_EQ_U64(meta.data_tail, head + 32);

	/* 5. Many laps: 1000 records of varying sizes through a 256-byte ring,
	 * read in batches, arrive complete and in order. */
	uint64_t w = meta.data_head;
	int seen = 0, expect = 0, bad_payload = 0;
	for (int i = 0; i < 1000; i++) {
		uint16_t sz = (uint16_t)(16 + 8 * (i % 9));
		if (w + sz - meta.data_tail > SIZE) {
			memset(&g, 0, sizeof(g));
			meta.data_head = w;
			ring__read(&r, collect_cb, &g);
			for (int k = 0; k < g.n; k++, expect++)
				bad_payload += g.payload[k] != (uint64_t)expect;
			seen += g.n;
		}
		put(data, w, PERF_RECORD_SAMPLE, sz, (uint64_t)i);
		w += sz;
	}
	meta.data_head = w;
	memset(&g, 0, sizeof(g));
	ring__read(&r, collect_cb, &g);
	for (int k = 0; k < g.n; k++, expect++)
		bad_payload += g.payload[k] != (uint64_t)expect;
	seen += g.n;
	CHECK_EQ_U64(seen, 1000);
	CHECK_EQ_U64(bad_payload, 0);

	/* 6. RING_LEAVE: the reader has room for two records only; the third
	 * stays in the ring, tail before it, and comes first the next time. */
	head = meta.data_head;
	for (int i = 0; i < 4; i++)
		put(data, head + 16u * (unsigned)i, PERF_RECORD_SAMPLE, 16, 500 + (uint64_t)i);
	meta.data_head = head + 64;
	struct leave_ctx lc = { .room = 2 };
	CHECK(ring__read(&r, leave_cb, &lc) == RING_LEAVE, "RING_LEAVE returned");
	CHECK_EQ_U64(lc.g.n, 2);
	CHECK_EQ_U64(meta.data_tail, head + 32);
	CHECK_EQ_U64(ring__pending(&r), 32);
	memset(&g, 0, sizeof(g));
	CHECK(ring__read(&r, collect_cb, &g) == 0, "read the rest");
	CHECK_EQ_U64(g.n, 2);
	CHECK_EQ_U64(g.payload[0], 502);
	CHECK_EQ_U64(g.payload[1], 503);

	/* 7. LOST record decoding through the sample_id_all trailer. */
	struct {
		struct perf_event_header h;
		uint64_t id, lost;
		uint64_t tid, time, cpu, ident;
	} lost = { { PERF_RECORD_LOST, 0, sizeof(lost) }, 5, 42, (7ULL << 32) | 6, 123456, 1, 5 };
	struct sample_layout l = { .sample_type = SAMPLE_TYPE_BASE };
	struct sample s;
	CHECK(sample__parse_id(&lost.h, &l, &s) == 0, "parse id");
	CHECK_EQ_U64(s.pid, 6);
	CHECK_EQ_U64(s.tid, 7);
	CHECK_EQ_U64(s.time, 123456);
	CHECK_EQ_U64(s.cpu, 1);
	CHECK_EQ_U64(s.id, 5);
	CHECK_EQ_U64(sample__record_time(&lost.h, &l), 123456);

	ring__unmap(&r);
	return check_summary();
}
