/* The collect engine's sideband decoding: the kernel's MMAP2, COMM,
 * FORK/EXIT, LOST_SAMPLES, THROTTLE and SWITCH records (their layouts in
 * collect_internal.h) into the session, the counters and the callbacks. */
#include <string.h>

#include "collect_internal.h"

/* A record other than a sample, in timestamp order. Returns 0. */
int collect_sideband(struct collect *c, const struct perf_event_header *hdr)
{
	struct sample s;

	switch (hdr->type) {
	case PERF_RECORD_MMAP2: {
		const struct mmap2_record *r = (const void *)hdr;
		struct map m = { 0 };
		m.start = r->addr;
		m.end = r->addr + r->len;
		m.pgoff = r->pgoff;
		m.prot = r->prot;
		m.flags = r->flags;
		if (hdr->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			m.build_id_size = r->build_id_size > 20 ? 20 : r->build_id_size;
			memcpy(m.build_id, r->build_id, m.build_id_size);
		} else {
			m.maj = r->maj;
			m.min = r->min;
			m.ino = r->ino;
		}
		m.path = (char *)r->filename;
		if (c->before_task)
			c->before_task(c, (pid_t)r->pid);
		session__mmap(&c->session, (pid_t)r->pid, &m);
		if (c->on_mmap)
			c->on_mmap(c, (pid_t)r->pid, &m);
		return 0;
	}
	case PERF_RECORD_COMM: {
		const struct comm_record *r = (const void *)hdr;
		bool exec = hdr->misc & PERF_RECORD_MISC_COMM_EXEC;
		if (c->before_task)
			c->before_task(c, (pid_t)r->pid);
		session__comm(&c->session, (pid_t)r->pid, (pid_t)r->tid, r->comm, exec);
		if (exec && c->on_process_gone)
			c->on_process_gone(c, (pid_t)r->pid);
		return 0;
	}
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT: {
		const struct task_record *r = (const void *)hdr;
		if (c->before_task)
			c->before_task(c, (pid_t)r->pid);
		if (hdr->type == PERF_RECORD_FORK)
			session__fork(&c->session, (pid_t)r->pid, (pid_t)r->ppid, (pid_t)r->tid, (pid_t)r->ptid);
		else {
			sp_history__free(u64map__del(&c->sp_seen, r->tid));
			session__task_exit(&c->session, (pid_t)r->pid, (pid_t)r->tid);
			if (r->pid == r->tid && c->on_process_gone)
				c->on_process_gone(c, (pid_t)r->pid);
		}
		return 0;
	}
	case PERF_RECORD_LOST_SAMPLES: {
		const struct lost_samples_record *r = (const void *)hdr;
		c->lost_samples += r->lost;
		return 0;
	}
	case PERF_RECORD_THROTTLE:
		c->throttled++;
		return 0;
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		if (!c->on_switch)
			return 0;
		if (sample__parse_id(hdr, &c->layout, &s))
			c->bad_records++;
		else
			c->on_switch(c, &s, hdr->misc);
		return 0;
	default:
		return 0;
	}
}
