/* The stacks under a traced event: kernel frames from the callchain, user
 * frames unwound with DWARF from the sampled stack. See trace_print.h. */
#include "trace_print.h"

#include <linux/perf_event.h>
#include <stdint.h>

#include "collect.h"
#include "json.h"
#include "sample.h"
#include "session.h"
#include "pprobe/maps.h"
#include "pprobe/symbolize.h"
#include "pprobe/unwind.h"

#define MAX_USER_FRAMES 512

/* One address, with its inlined frames: text lines, or JSON strings. */
static void print_frame(const struct trace_print *tp, pid_t pid, const struct map *m, uint64_t ip, bool kernel,
			bool ret, int *first_json)
{
	struct sym_frame sf[16];
	int n = kernel ? symbolizer__kernel(tp->sym, ip, ret, sf, 16)
		       : (m ? symbolizer__user(tp->sym, pid, m, ip, ret, sf, 16) : -1);
	if (n <= 0) {
		sf[0] = (struct sym_frame){ .dso = kernel ? "[kernel.kallsyms]" : m && m->path ? m->path : "[unknown]" };
		n = 1;
	}
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

static void user_stack(const struct trace_print *tp, const struct sample *s, const struct process *p,
		       int *first_json)
{
	uint64_t ips[MAX_USER_FRAMES];
	struct unwind_result res;
	int nr = collect__unwind_user(tp->collect, tp->unwinder, s, p, ips, MAX_USER_FRAMES, &res);
	for (int i = 0; i < nr; i++)
		print_frame(tp, (pid_t)s->pid, maps__find(p->maps, ips[i]), ips[i], false, i > 0, first_json);
	if (nr < 0 || res.end == UNWIND_COMPLETE)
		return;
	char why[300];
	unwind_result__label(&res, why, sizeof(why));	/* record's words */
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
