/* Decoding perf records. pprobe gives every event of a session the same
 * sample_type, so one layout decodes every ring. */
#ifndef PPROBE_SAMPLE_H
#define PPROBE_SAMPLE_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>

/* What every event of a session samples, before -g and trace extras. */
#define SAMPLE_TYPE_BASE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
			  PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)

struct sample_layout {
	uint64_t sample_type;
	uint64_t regs_user_mask;	/* attr.sample_regs_user */
};

struct sample {
	uint64_t id;
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu;
	uint64_t period;
	uint64_t callchain_nr;
	const uint64_t *callchain;
	uint32_t raw_size;
	const void *raw;
	uint64_t regs_abi;		/* PERF_SAMPLE_REGS_ABI_*; 0 = no regs (kernel thread) */
	const uint64_t *regs;		/* popcount(regs_user_mask) values when abi != 0 */
	uint64_t stack_size;		/* bytes of stack copied (the buffer size) */
	const void *stack;
	uint64_t stack_dyn_size;	/* bytes actually valid */
	uint16_t misc;
};

/* PERF_RECORD_SAMPLE body -> s. Returns 0 or -EBADMSG when the record is
 * shorter than its layout says. */
int sample__parse(const struct perf_event_header *hdr, const struct sample_layout *l,
		  struct sample *s);

/* The sample_id_all trailer of a non-sample record (pid, tid, time, cpu, id).
 * Returns 0 or -EBADMSG. */
int sample__parse_id(const struct perf_event_header *hdr, const struct sample_layout *l,
		     struct sample *s);

/* Timestamp of any record (sample or sideband); 0 when it has none. */
uint64_t sample__record_time(const struct perf_event_header *hdr, const struct sample_layout *l);
/* A PERF_RECORD_SAMPLE's pid without a full parse; -1 if it has none. */
int64_t sample__record_pid(const struct perf_event_header *hdr, const struct sample_layout *l);

/* A walk over a sample's callchain: the kernel writes a context marker
 * (PERF_CONTEXT_KERNEL, PERF_CONTEXT_USER, ...) before each context's
 * addresses; the first address of a context is the exact ip, the rest are
 * return addresses. */
struct callchain_iter {
	const struct sample *s;
	uint64_t i;
	uint64_t ctx;		/* the marker the last address came under; 0 before one */
	bool first;		/* no address of this context returned yet */
};

static inline void callchain_iter__init(struct callchain_iter *it, const struct sample *s)
{
	*it = (struct callchain_iter){ .s = s, .first = true };
}

/* The next address (markers skipped), its context, and whether it is a
 * return address. false at the end. */
static inline bool callchain_iter__next(struct callchain_iter *it, uint64_t *ip, uint64_t *ctx, bool *is_return)
{
	while (it->i < it->s->callchain_nr) {
		uint64_t v = it->s->callchain[it->i++];
		if (v >= (uint64_t)PERF_CONTEXT_MAX) {
			it->ctx = v;
			it->first = true;
			continue;
		}
		*ip = v;
		*ctx = it->ctx;
		*is_return = !it->first;
		it->first = false;
		return true;
	}
	return false;
}

#endif
