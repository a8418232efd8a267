#include "sample.h"

#include <errno.h>
#include <string.h>

struct cursor {
	const unsigned char *p, *end;
	bool bad;
};

static uint64_t cur_u64(struct cursor *c)
{
	uint64_t v = 0;
	if (c->end - c->p < 8) {
		c->bad = true;
		return 0;
	}
	memcpy(&v, c->p, 8);
	c->p += 8;
	return v;
}

static const void *cur_skip(struct cursor *c, uint64_t n)
{
	const void *p = c->p;
	if ((uint64_t)(c->end - c->p) < n) {
		c->bad = true;
		return NULL;
	}
	c->p += n;
	return p;
}

int sample__parse(const struct perf_event_header *hdr, const struct sample_layout *l, struct sample *s)
{
	uint64_t t = l->sample_type;
	struct cursor c = { (const unsigned char *)(hdr + 1), (const unsigned char *)hdr + hdr->size, false };

	memset(s, 0, sizeof(*s));
	s->misc = hdr->misc;
	if (t & PERF_SAMPLE_IDENTIFIER)
		s->id = cur_u64(&c);
	if (t & PERF_SAMPLE_IP)
		s->ip = cur_u64(&c);
	if (t & PERF_SAMPLE_TID) {
		uint64_t v = cur_u64(&c);
		s->pid = (uint32_t)v;
		s->tid = (uint32_t)(v >> 32);
	}
	if (t & PERF_SAMPLE_TIME)
		s->time = cur_u64(&c);
	if (t & PERF_SAMPLE_ADDR)
		cur_u64(&c);
	if (t & PERF_SAMPLE_ID)
		s->id = cur_u64(&c);
	if (t & PERF_SAMPLE_STREAM_ID)
		cur_u64(&c);
	if (t & PERF_SAMPLE_CPU)
		s->cpu = (uint32_t)cur_u64(&c);
	if (t & PERF_SAMPLE_PERIOD)
		s->period = cur_u64(&c);
	if (t & PERF_SAMPLE_READ)
		return -EOPNOTSUPP;	/* never requested by pprobe record */
	if (t & PERF_SAMPLE_CALLCHAIN) {
		s->callchain_nr = cur_u64(&c);
		if (s->callchain_nr > (1u << 16))
			return -EBADMSG;
		s->callchain = cur_skip(&c, s->callchain_nr * 8);
	}
	if (t & PERF_SAMPLE_RAW) {
		uint32_t sz = 0;
		if (c.end - c.p < 4)
			return -EBADMSG;
		memcpy(&sz, c.p, 4);
		c.p += 4;
		s->raw_size = sz;
		s->raw = cur_skip(&c, sz);
		/* The u32 size plus data are padded to 8 bytes by the kernel. */
		size_t used = 4 + sz;
		if (used & 7)
			cur_skip(&c, 8 - (used & 7));
	}
	if (t & PERF_SAMPLE_BRANCH_STACK)
		return -EOPNOTSUPP;
	if (t & PERF_SAMPLE_REGS_USER) {
		s->regs_abi = cur_u64(&c);
		if (s->regs_abi)
			s->regs = cur_skip(&c, 8 * (uint64_t)__builtin_popcountll(l->regs_user_mask));
	}
	if (t & PERF_SAMPLE_STACK_USER) {
		s->stack_size = cur_u64(&c);
		if (s->stack_size) {
			s->stack = cur_skip(&c, s->stack_size);
			s->stack_dyn_size = cur_u64(&c);
			if (s->stack_dyn_size > s->stack_size)
				s->stack_dyn_size = s->stack_size;
		}
	}
	return c.bad ? -EBADMSG : 0;
}

int sample__parse_id(const struct perf_event_header *hdr, const struct sample_layout *l, struct sample *s)
{
	uint64_t t = l->sample_type;
	int n = 0;

	memset(s, 0, sizeof(*s));
	s->misc = hdr->misc;
	n += !!(t & PERF_SAMPLE_TID);
	n += !!(t & PERF_SAMPLE_TIME);
	n += !!(t & PERF_SAMPLE_ID);
	n += !!(t & PERF_SAMPLE_STREAM_ID);
	n += !!(t & PERF_SAMPLE_CPU);
	n += !!(t & PERF_SAMPLE_IDENTIFIER);
	if (hdr->size < sizeof(*hdr) + 8u * n)
		return -EBADMSG;
	struct cursor c = { (const unsigned char *)hdr + hdr->size - 8u * n,
			    (const unsigned char *)hdr + hdr->size, false };
	if (t & PERF_SAMPLE_TID) {
		uint64_t v = cur_u64(&c);
		s->pid = (uint32_t)v;
		s->tid = (uint32_t)(v >> 32);
	}
	if (t & PERF_SAMPLE_TIME)
		s->time = cur_u64(&c);
	if (t & PERF_SAMPLE_ID)
		s->id = cur_u64(&c);
	if (t & PERF_SAMPLE_STREAM_ID)
		cur_u64(&c);
	if (t & PERF_SAMPLE_CPU)
		s->cpu = (uint32_t)cur_u64(&c);
	if (t & PERF_SAMPLE_IDENTIFIER)
		s->id = cur_u64(&c);
	return 0;
}

uint64_t sample__record_time(const struct perf_event_header *hdr, const struct sample_layout *l)
{
	struct sample s;
	if (hdr->type == PERF_RECORD_SAMPLE) {
		/* TIME comes after IDENTIFIER, IP and TID: no need for a full parse. */
		uint64_t t = l->sample_type;
		const unsigned char *p = (const unsigned char *)(hdr + 1);
		size_t off = 8u * (!!(t & PERF_SAMPLE_IDENTIFIER) + !!(t & PERF_SAMPLE_IP) + !!(t & PERF_SAMPLE_TID));
		uint64_t v = 0;
		if (!(t & PERF_SAMPLE_TIME) || hdr->size < sizeof(*hdr) + off + 8)
			return 0;
		memcpy(&v, p + off, 8);
		return v;
	}
	if (hdr->type >= PERF_RECORD_MAX || sample__parse_id(hdr, l, &s))
		return 0;
	return s.time;
}

int64_t sample__record_pid(const struct perf_event_header *hdr, const struct sample_layout *l)
{
	/* TID comes after IDENTIFIER and IP */
	uint64_t t = l->sample_type;
	size_t off = 8u * (!!(t & PERF_SAMPLE_IDENTIFIER) + !!(t & PERF_SAMPLE_IP));
	uint32_t pid;
	if (hdr->type != PERF_RECORD_SAMPLE || !(t & PERF_SAMPLE_TID) || hdr->size < sizeof(*hdr) + off + 8)
		return -1;
	memcpy(&pid, (const unsigned char *)(hdr + 1) + off, 4);
	return pid;
}
