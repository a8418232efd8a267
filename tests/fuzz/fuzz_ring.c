/* Perf records through the ring reader: the input's bytes after two mode
 * bytes are laid into a synthetic perf mmap ring (a control page and a
 * power-of-two data area, as tests/unit/test_ring.c builds), starting at an
 * offset the second mode byte picks so records wrap past the end. The
 * ring is read directly (ring__read) or through the drain (drain__read +
 * drain__pull, with the stack-copy trimming of record -g), and every
 * record decoded with sample__parse / sample__parse_id /
 * sample__record_time under a sample_type the first mode byte picks
 * (callchain, raw, user regs, user stack, addr, id); what a decoder
 * returns must lie inside its record. */
#include "drain.h"
#include "fuzz.h"
#include "ring.h"
#include "sample.h"

#define RING_MAX (1u << 16)

static struct sample_layout layout;

static void check_in(const struct perf_event_header *h, const void *p, uint64_t n)
{
	const unsigned char *b = (const unsigned char *)h, *q = p;
	if (p && (q < b || q > b + h->size || n > (uint64_t)(b + h->size - q)))
		abort();	/* a decoder pointed outside its record */
}

static void decode(const struct perf_event_header *h)
{
	struct sample s;
	if (h->type == PERF_RECORD_SAMPLE) {
		if (sample__parse(h, &layout, &s) == 0) {
			check_in(h, s.callchain, s.callchain_nr * 8);
			check_in(h, s.raw, s.raw_size);
			if (s.regs_abi)
				check_in(h, s.regs, 8 * (uint64_t)__builtin_popcountll(layout.regs_user_mask));
			check_in(h, s.stack, s.stack_size);
			if (s.stack_dyn_size > s.stack_size)
				abort();
			struct callchain_iter it;
			uint64_t ip, ctx;
			bool ret;
			callchain_iter__init(&it, &s);
			while (callchain_iter__next(&it, &ip, &ctx, &ret))
				;
		}
	} else {
		(void)sample__parse_id(h, &layout, &s);
	}
	(void)sample__record_time(h, &layout);
}

static int ring_cb(void *ctx, const struct perf_event_header *h, int cpu)
{
	decode(h);
	return 0;
}

static void drain_cb(void *ctx, const struct perf_event_header *h, int cpu, unsigned flags)
{
	decode(h);
}

/* sp_history.c's collect_stack_field_of: where the user stack copy's size lies */
static size_t stack_field(void *arg, const struct perf_event_header *h)
{
	struct sample s;
	if (sample__parse(h, &layout, &s) || !s.stack || !s.stack_size)
		return 0;
	return (size_t)((const unsigned char *)s.stack - 8 - (const unsigned char *)h);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct perf_event_mmap_page meta;
	static uint64_t area[RING_MAX / 8];
	if (size < 2 || size - 2 > RING_MAX)
		return 0;
	uint8_t mode = data[0], start = data[1];
	data += 2;
	size -= 2;

	layout.sample_type = SAMPLE_TYPE_BASE;
	if (mode & 1)
		layout.sample_type |= PERF_SAMPLE_CALLCHAIN;
	if (mode & 2)
		layout.sample_type |= PERF_SAMPLE_RAW;
	if (mode & 4)
		layout.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	if (mode & 8)
		layout.sample_type |= PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID;
	layout.regs_user_mask = (mode & 16) ? 0xff0fffULL : (1ULL << 6) | (1ULL << 7) | (1ULL << 8);

	size_t ring = 64;
	while (ring < size)
		ring *= 2;
	uint64_t tail = (uint64_t)start * 8 % ring;
	memset(area, 0, ring);
	unsigned char *bytes = (unsigned char *)area;
	for (size_t i = 0; i < size; i++)
		bytes[(tail + i) % ring] = data[i];
	memset(&meta, 0, sizeof(meta));
	meta.data_tail = tail;
	meta.data_head = tail + size;

	struct ring r;
	if (ring__init_synthetic(&r, &meta, area, ring))
		abort();
	if (mode & 32) {
		struct drain d;
		if (drain__init(&d, &r, 1, 1 << 20, 1, false) == 0) {
			d.stack_field = stack_field;
			drain__read(&d);
			(void)drain__pull(&d, drain_cb, NULL);
			drain__exit(&d);
		}
	} else {
		(void)ring__read(&r, ring_cb, NULL);
	}
	ring__unmap(&r);
	return 0;
}
