/* The stacks under a traced event: kernel frames from the callchain, user
 * frames unwound with DWARF from the sampled stack; printed, or folded into
 * one line for trace --by kstack/ustack. See trace_print.h. */
#include "trace_print.h"

#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect.h"
#include "json.h"
#include "sample.h"
#include "session.h"
#include "stack.h"
#include "util.h"
#include "pprobe/maps.h"
#include "pprobe/symbolize.h"
#include "pprobe/unwind.h"

#define MAX_USER_FRAMES 512

/* The frames at one address, its inlined ones too (at least one: a name
 * NULL, its object, where nothing is known). */
static int frames_at(const struct trace_print *tp, pid_t pid, const struct map *m, uint64_t ip, bool kernel,
		     bool ret, struct sym_frame sf[16])
{
	int n = kernel ? symbolizer__kernel(tp->sym, ip, ret, sf, 16)
		       : (m ? symbolizer__user(tp->sym, pid, m, ip, ret, sf, 16) : -1);
	if (n > 0)
		return n;
	sf[0] = (struct sym_frame){ .dso = kernel ? "[kernel.kallsyms]" : m && m->path ? m->path : "[unknown]" };
	return 1;
}

/* One address, with its inlined frames: text lines, or JSON strings. */
static void print_frame(const struct trace_print *tp, pid_t pid, const struct map *m, uint64_t ip, bool kernel,
			bool ret, int *first_json)
{
	struct sym_frame sf[16];
	int n = frames_at(tp, pid, m, ip, kernel, ret, sf);
	for (int i = 0; i < n; i++) {
		const char *name = sf[i].name ? sf[i].name : "[unknown]";
		const char *dso = sf[i].dso ? sf[i].dso : "?";
		if (tp->json) {
			char line[1024];
			snprintf(line, sizeof(line), "%s%s (%s)", name, sf[i].inlined ? " (inlined)" : "", dso);
			if (!*first_json)
				fputc(',', tp->out);
			*first_json = 0;
			json__string(tp->out, line);
		} else {
			fprintf(tp->out, "\t%16llx %s%s+0x%llx (%s)\n", (unsigned long long)ip, name,
				sf[i].inlined ? " (inlined)" : "", (unsigned long long)sf[i].offset, dso);
		}
	}
}

/* Room for a user stack unwound (engine/stack.h): its frames and their maps. */
struct ustack_buf {
	uint64_t ips[MAX_USER_FRAMES];
	const struct map *maps[MAX_USER_FRAMES];
};

static void user_stack(const struct trace_print *tp, const struct sample *s, const struct process *p,
		       int *first_json)
{
	struct ustack_buf b;
	struct ustack us;
	collect__ustack(tp->collect, tp->unwinder, s, p, b.ips, MAX_USER_FRAMES, b.maps, &us);
	for (uint32_t i = 0; i < us.nr; i++)
		print_frame(tp, (pid_t)s->pid, ustack__map(&us, i), us.ips[i], false, ustack__is_return(i),
			    first_json);
	if (us.res.end == UNWIND_COMPLETE)
		return;
	char why[300];
	unwind_result__label(&us.res, why, sizeof(why));
	if (tp->json) {
		if (!*first_json)
			fputc(',', tp->out);
		*first_json = 0;
		json__string(tp->out, why);
	} else {
		fprintf(tp->out, "\t%16s %s\n", "", why);
	}
}

void trace_print__stacks(const struct trace_print *tp, const struct sample *s, const struct process *p)
{
	int first_json = 1;
	struct callchain_iter it;
	uint64_t ip, ctx;
	bool ret;

	if (tp->json)
		fputs(",\"stack\":[", tp->out);
	callchain_iter__init(&it, s);
	while (callchain_iter__next(&it, &ip, &ctx, &ret))
		if (ctx == (uint64_t)PERF_CONTEXT_KERNEL)
			print_frame(tp, (pid_t)s->pid, NULL, ip, true, ret, &first_json);
	if (tp->ustack && s->regs_abi && s->regs && p)
		user_stack(tp, s, p, &first_json);
	if (tp->json)
		fputc(']', tp->out);
}

/* The frames' names, innermost first, into *names (grown; *cap its size). */
static size_t frame_names(const struct trace_print *tp, pid_t pid, const struct map *m, uint64_t ip, bool kernel,
			  bool ret, const char ***names, size_t n, size_t *cap)
{
	struct sym_frame sf[16];
	int nf = frames_at(tp, pid, m, ip, kernel, ret, sf);
	for (int i = 0; i < nf; i++) {
		if (n == *cap) {
			*cap = *cap ? *cap * 2 : 64;
			*names = pp_xrealloc(*names, *cap * sizeof(**names));
		}
		(*names)[n++] = sf[i].name ? sf[i].name : "[unknown]";
	}
	return n;
}

size_t trace_print__folded(const struct trace_print *tp, const struct sample *s, const struct process *p, bool user,
			   char **buf, size_t *cap)
{
	const char **names = NULL;
	size_t n = 0, ncap = 0, len = 0;
	char whybuf[300];
	const char *why = NULL;

	if (!user) {
		struct callchain_iter it;
		uint64_t ip, ctx;
		bool ret;
		callchain_iter__init(&it, s);
		while (callchain_iter__next(&it, &ip, &ctx, &ret))
			if (ctx == (uint64_t)PERF_CONTEXT_KERNEL)
				n = frame_names(tp, (pid_t)s->pid, NULL, ip, true, ret, &names, n, &ncap);
	} else if (tp->unwinder && s->regs_abi && s->regs && p) {
		struct ustack_buf b;
		struct ustack us;
		collect__ustack(tp->collect, tp->unwinder, s, p, b.ips, MAX_USER_FRAMES, b.maps, &us);
		for (uint32_t i = 0; i < us.nr; i++)
			n = frame_names(tp, (pid_t)s->pid, ustack__map(&us, i), us.ips[i], false, ustack__is_return(i),
					&names, n, &ncap);
		/* an incomplete stack says why at its outer end, as record's */
		if (us.res.end != UNWIND_COMPLETE)
			why = unwind_result__label(&us.res, whybuf, sizeof(whybuf));
	}
	/* outermost first, as folded stacks are written: the end label, then
	 * the frames */
	for (size_t i = n + !!why; i-- > 0;) {
		const char *name = i == n ? why : names[i];
		size_t w = strlen(name) + 2;
		if (len + w > *cap) {
			*cap = (len + w) * 2;
			*buf = pp_xrealloc(*buf, *cap);
		}
		len += (size_t)sprintf(*buf + len, "%s%s", len ? ";" : "", name);
	}
	if (!*cap) {
		*cap = 64;
		*buf = pp_xrealloc(*buf, *cap);
	}
	(*buf)[len] = 0;
	free(names);
	return len;
}
