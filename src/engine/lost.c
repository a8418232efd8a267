/* The collect engine's losses: PERF_RECORD_LOST counted under the event it
 * names, the events' own counts for what the kernel lost without a word,
 * and the prose that says what was lost and which option keeps it. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "collect_internal.h"

/* A PERF_RECORD_LOST: counted at once (it needs no ordering) under the
 * event it names. The kernel names the event that wrote next into the ring
 * after the loss, under its own id; an inherited copy of an event has an id
 * of its own, its parent's (ours) is in the sample_id trailer. */
void collect_note_lost(struct collect *c, const struct perf_event_header *hdr, unsigned flags)
{
	const struct lost_record *r = (const void *)hdr;
	struct sample s;
	if (hdr->size < sizeof(*r)) {
		c->bad_records++;
		return;
	}
	struct evsel *ev = evlist__evsel_by_id(&c->evlist, r->id);
	if (!ev && !sample__parse_id(hdr, &c->layout, &s))
		ev = evlist__evsel_by_id(&c->evlist, s.id);
	c->lost += r->lost;
	if (flags & DRAIN_LOST_QUEUE_FULL)
		c->lost_queue_full += r->lost;
	if (!ev) {
		c->lost_no_event += r->lost;
		return;
	}
	ev->lost += r->lost;
	if (flags & DRAIN_LOST_QUEUE_FULL)
		ev->lost_queue_full += r->lost;
}

/* The samples of an event the kernel wrote and pprobe received: those
 * processed and those of pprobe itself left out on the drain thread. */
static uint64_t received(const struct evsel *ev)
{
	return ev->samples + __atomic_load_n(&ev->own_left, __ATOMIC_ACQUIRE);
}

/* How many times each event with a sample period fired, as the kernel
 * counted (inherited copies included): the samples it should have given.
 * The kernel reports a loss (PERF_RECORD_LOST) only with the next record it
 * manages to write, so a ring that was still full when the events stopped
 * loses silently: this count tells. */
void collect_count_events(struct collect *c)
{
	struct evlist *el = &c->evlist;
	uint64_t missing = 0;
	for (int e = 0; e < el->nr_evsels; e++) {
		struct evsel *ev = el->evsels[e];
		if (ev->tracking || ev->attr.freq || !ev->attr.sample_period || ev->attr.read_format)
			continue;
		uint64_t sum = 0;
		bool ok = true;
		for (int ci = 0; ci < el->nr_cpus && ok; ci++)
			for (int ti = 0; ti < el->nr_tids && ok; ti++) {
				int fd = evlist__fd_of(el, ci, ti, e);
				uint64_t v;
				if (fd < 0)
					continue;
				if (read(fd, &v, sizeof(v)) == (ssize_t)sizeof(v))
					sum += v;
				else
					ok = false;
			}
		ev->counted = ok ? sum / ev->attr.sample_period : 0;
		uint64_t got = received(ev);
		missing += ev->counted > got ? ev->counted - got : 0;
	}
	/* Missing beyond what PERF_RECORD_LOST said: lost silently, counted here. */
	if (missing > c->lost) {
		c->lost_unreported = missing - c->lost;
		c->lost += c->lost_unreported;
	}
}

char *collect__lost_text(const struct collect *c, const char *prog)
{
	char *text = NULL;
	size_t text_len = 0;
	FILE *m = open_memstream(&text, &text_len);
	if (!m)
		return NULL;
	if (c->stop_left)
		fprintf(m, "%s: stopped by signal: %llu samples queued at the stop left out (processed for "
			"%.1f s after it)\n", prog, (unsigned long long)c->stop_left, STOP_GRACE_NS / 1e9);
	size_t ring_kib = c->opts.ring_pages * (size_t)sysconf(_SC_PAGESIZE) / 1024;
	char qsize[32];
	drain__size_str(c->drain.max_bytes, qsize, sizeof(qsize));
	/* A ring that kept k of k + lost needed about (k + lost) / k times its size. */
	size_t more = c->opts.ring_pages * 2;
	while (c->nr_samples && (double)more < (double)c->opts.ring_pages *
	       (double)(c->nr_samples + c->lost) / (double)c->nr_samples)
		more *= 2;
	/* Lost while the queue had room (the ring was too small for the time
	 * the drain thread was off the CPU), then at the queue's bound. */
	for (int full = 0; full < 2; full++) {
		char who[1024];
		size_t len = 0;
		uint64_t total = 0;
		who[0] = 0;
		if (full == 0 && c->lost == c->lost_unreported)
			continue;	/* said below */
		for (int i = -1; i < c->evlist.nr_evsels; i++) {
			const struct evsel *ev = i >= 0 ? c->evlist.evsels[i] : NULL;
			uint64_t all = ev ? ev->lost : c->lost_no_event;
			uint64_t n = full ? (ev ? ev->lost_queue_full : 0) : all - (ev ? ev->lost_queue_full : 0);
			if (!n)
				continue;
			total += n;
			const char *name = !ev ? "an unknown event" : ev->tracking ? "the sideband" : ev->name;
			if (len < sizeof(who))
				len += (size_t)snprintf(who + len, sizeof(who) - len, "%s%s %llu", len ? ", " : "",
							name, (unsigned long long)n);
		}
		if (!total)
			continue;
		if (!full)
			fprintf(m, "%s: %llu records lost (%s; the kernel names the event that wrote next to "
				"the ring): the ring (-m %zu, %zu KiB per CPU) overflowed while pprobe's queue had "
				"room; a bigger -m (e.g. -m %zu) keeps them\n", prog, (unsigned long long)total, who,
				c->opts.ring_pages, ring_kib, more);
		else
			fprintf(m, "%s: %llu records lost (%s; the kernel names the event that wrote next to "
				"the ring): pprobe's queue was full (--max-queue %s), so the ring overflowed; a "
				"bigger --max-queue keeps them\n", prog, (unsigned long long)total, who, qsize);
	}
	if (c->lost_samples)
		fprintf(m, "%s: the kernel dropped %llu samples it could not write "
			"(PERF_RECORD_LOST_SAMPLES)\n", prog, (unsigned long long)c->lost_samples);
	/* Each event's own count: exact where it samples every Nth event. */
	for (int i = 0; i < c->evlist.nr_evsels; i++) {
		const struct evsel *ev = c->evlist.evsels[i];
		uint64_t got = received(ev);
		if (ev->counted <= got)
			continue;
		uint64_t missing = ev->counted - got;
		char own[64] = "";
		if (ev->own_left)
			snprintf(own, sizeof(own), " (and %llu of pprobe's own left out)",
				 (unsigned long long)ev->own_left);
		fprintf(m, "%s: %s: %llu samples%s of %llu events counted by the kernel, %llu lost\n", prog,
			ev->name, (unsigned long long)ev->samples, own, (unsigned long long)ev->counted,
			(unsigned long long)missing);
	}
	if (c->lost_unreported) {
		bool full = false;
		for (int i = 0; i < c->drain.nr_rings && c->drain.stalled; i++)
			full |= c->drain.stalled[i];
		fprintf(m, "%s: %llu of them never reported by the kernel (its ring was still full when the "
			"events stopped): %s\n", prog, (unsigned long long)c->lost_unreported,
			full ? "pprobe's queue was full; a bigger --max-queue keeps them"
			     : "a bigger -m keeps them");
	}
	if (fclose(m) || !text_len) {
		free(text);
		return NULL;
	}
	return text;
}

void collect__queue_summary(struct collect *c, char *buf, size_t len)
{
	char max[32];
	drain__size_str(c->drain.max_bytes, max, sizeof(max));
	snprintf(buf, len, "queue peak %.1f MiB (--max-queue %s)", (double)drain__peak(&c->drain) / 1048576.0, max);
}
