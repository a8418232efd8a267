/* The drain thread's copy of a sample: the part of a PERF_SAMPLE_STACK_USER
 * copy the kernel reserved but did not write (past dyn_size) is not staged,
 * and everything else of the record comes through unchanged; records whose
 * stack copy is full, or not their last field, are staged whole. */
#include <string.h>

#include "check.h"
#include "drain.h"
#include "ring.h"

#define SIZE 4096

/* Samples laid out as: header, u64 ip, u64 stack size, stack bytes, u64 dyn_size. */
static size_t stack_at_16(void *arg, const struct perf_event_header *h)
{
	(void)arg;
	(void)h;
	return sizeof(*h) + 8;
}

static size_t put_sample(unsigned char *data, size_t pos, uint64_t ip, uint64_t size, uint64_t dyn, size_t extra)
{
	unsigned char rec[SIZE];
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .misc = 0,
				       .size = (uint16_t)(sizeof(h) + 8 + 8 + size + 8 + extra) };
	size_t o = 0;
	memcpy(rec + o, &h, sizeof(h));
	o += sizeof(h);
	memcpy(rec + o, &ip, 8);
	o += 8;
	memcpy(rec + o, &size, 8);
	o += 8;
	for (uint64_t i = 0; i < size; i++)
		rec[o + i] = (unsigned char)(i < dyn ? 0x40 + i : 0xee);	/* 0xee: never written */
	o += size;
	memcpy(rec + o, &dyn, 8);
	o += 8;
	memset(rec + o, 0x77, extra);	/* a field after the stack */
	o += extra;
	memcpy(data + pos, rec, o);
	return pos + o;
}

struct got {
	int n;
	unsigned char rec[4][SIZE];
};

static void pull_cb(void *ctx, const struct perf_event_header *h, int cpu, unsigned flags)
{
	struct got *g = ctx;
	(void)cpu;
	(void)flags;
	if (g->n < 4)
		memcpy(g->rec[g->n], h, h->size);
	g->n++;
}

static uint64_t u64_at(const unsigned char *p, size_t off)
{
	uint64_t v;
	memcpy(&v, p + off, 8);
	return v;
}

int main(void)
{
	static struct perf_event_mmap_page meta;
	static unsigned char data[SIZE];
	static struct got g;
	struct ring r;
	struct drain d;

	CHECK(ring__init_synthetic(&r, &meta, data, SIZE) == 0, "ring");
	size_t pos = put_sample(data, 0, 0x401000, 512, 100, 0);	/* 104 of 512 kept */
	pos = put_sample(data, pos, 0x401001, 64, 64, 0);		/* full: whole */
	pos = put_sample(data, pos, 0x401002, 64, 8, 8);		/* not the last field: whole */
	meta.data_head = pos;
	CHECK(drain__init(&d, &r, 1, 1 << 20, 1, false) == 0, "drain init");
	d.stack_field = stack_at_16;
	drain__read(&d);
	CHECK_EQ_U64(drain__pull(&d, pull_cb, &g), 3);

	const unsigned char *a = g.rec[0];
	const struct perf_event_header *ha = (const void *)a;
	CHECK_EQ_U64(ha->size, 8 + 8 + 8 + 104 + 8);
	CHECK_EQ_U64(u64_at(a, 8), 0x401000);
	CHECK_EQ_U64(u64_at(a, 16), 104);		/* the stack size is what is kept */
	CHECK(a[24] == 0x40 && a[24 + 99] == 0x40 + 99, "the written bytes are kept");
	CHECK_EQ_U64(u64_at(a, 24 + 104), 100);	/* dyn_size */

	const struct perf_event_header *hb = (const void *)g.rec[1];
	CHECK_EQ_U64(hb->size, 8 + 8 + 8 + 64 + 8);
	CHECK_EQ_U64(u64_at(g.rec[1], 16), 64);
	const struct perf_event_header *hc = (const void *)g.rec[2];
	CHECK_EQ_U64(hc->size, 8 + 8 + 8 + 64 + 8 + 8);
	CHECK_EQ_U64(u64_at(g.rec[2], 16), 64);
	CHECK(g.rec[2][hc->size - 1] == 0x77, "the field after the stack is kept");
	drain__exit(&d);
	return check_summary();
}
