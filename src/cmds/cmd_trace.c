/* pprobe trace: one line per event as it happens, decoded from the event's
 * format, in timestamp order across CPUs. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "collect.h"
#include "commands.h"
#include "event_spec.h"
#include "probe_spec.h"
#include "tp_format.h"
#include "trace_filter.h"
#include "trace_print.h"
#include "pprobe/symbolize.h"
#include "pprobe/unwind.h"

struct trace_event {
	const struct event_spec *spec;
	struct tp_format *fmt;		/* NULL for events without a format */
	const char *filter;
	uint64_t count;
};

struct trace {
	FILE *out;
	bool json, kstack, ustack;
	struct symbolizer *sym;
	struct unwinder *unwinder;
};

static void usage(FILE *f)
{
	fprintf(f,
"usage: pprobe trace -e EVENT [--filter EXPR] [-e EVENT ...] [options] [--] [command [args...]]\n"
"\n"
"Print each event as it happens, in timestamp order across CPUs:\n"
"  comm-tid [cpu] seconds: subsys:event: the fields as the kernel prints them (trace_pipe)\n"
"\n"
"  -e, --event EVENT     tracepoint (subsys:name, globs), probe, or any other event;\n"
"                        probes print their address: 'uprobe:BIN:FUNC: (0x401136)',\n"
"                        return probes '(0xRETURN_ADDRESS <- 0xFUNC)':\n"
PROBE_SPEC_HELP("                          ")
"  -x, --exec BIN        probe:FUNC[+OFF|:LINE|%%return] means a uprobe in BIN\n"
"      --filter EXPR     kernel filter for the preceding -e, as perf: 'sig == 5 && pid == 42'\n"
"  -a, -C LIST, -p PID, -t TID   all CPUs, some CPUs, processes, threads\n"
"                        (default: the command; with -a/-p a command bounds the duration)\n"
"  -d, --duration SECS   stop after SECS seconds (SIGINT/SIGTERM stop too)\n"
"  -H, --header          print a header line first\n"
"  -s, --kstack          the kernel stack under each event\n"
"  -g                    kernel and user stacks (user stacks unwound with DWARF)\n"
"  -o, --output FILE     write there instead of stdout\n"
"      --json            one JSON object per line\n"
"  -m, --mmap-pages N    ring pages per CPU\n"
"      --max-queue SIZE  memory for events read and not yet printed, e.g. 64M, 2G\n"
"                        (default 512M, or a quarter of RAM if less)\n"
"\n"
"Examples:\n"
"  pprobe trace -a -e signal:signal_generate --filter 'sig == 5 && pid == 3073758'\n"
"  pprobe trace -e 'syscalls:sys_enter_open*' -- ls\n"
"  pprobe trace -s -e sched:sched_process_exec -a -d 10\n"
"  pprobe trace -e uretprobe:/bin/bash:readline -p 4242\n");
}

static int on_sample(struct collect *c, struct evsel *ev, const struct sample *s,
		     struct thread *t, struct process *p)
{
	struct trace *tr = c->priv;
	struct trace_event *te = ev->priv;
	if (!te)
		return 0;
	te->count++;
	const struct trace_print tp = { .out = tr->out, .json = tr->json, .kstack = tr->kstack, .ustack = tr->ustack,
					.sym = tr->sym, .unwinder = tr->unwinder, .collect = c };
	trace_print__sample(&tp, te->spec, te->fmt, s, t, p);
	return 0;
}

/* Apply each event's filter to all its fds; explain a refusal. */
static int apply_filters(struct collect *c)
{
	struct evlist *el = &c->evlist;
	size_t per_cpu_tid = (size_t)el->nr_evsels;
	for (int e = 0; e < el->nr_evsels; e++) {
		struct evsel *ev = el->evsels[e];
		struct trace_event *te = ev->priv;
		if (!te || !te->filter)
			continue;
		for (size_t k = 0; k < (size_t)el->nr_cpus * el->nr_tids; k++) {
			int fd = el->fds[k * per_cpu_tid + (size_t)e];
			if (fd < 0 || ioctl(fd, PERF_EVENT_IOC_SET_FILTER, te->filter) == 0)
				continue;
			int err = errno;
			char msg[2048];
			if (trace_filter__kernel_error(te->spec->tp_sys, te->spec->tp_name, te->filter, msg,
						       sizeof(msg)) == 0)
				fprintf(stderr, "pprobe trace: the kernel refused the filter for %s:\n%s\n",
					te->spec->name, msg);
			else
				fprintf(stderr, "pprobe trace: the kernel refused the filter for %s: %s\n",
					te->spec->name, strerror(err));
			return 2;
		}
	}
	return 0;
}

int cmd_trace(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "filter", required_argument, NULL, 'f' },
		COLLECT_TARGET_LONGOPTS,
		{ "header", no_argument, NULL, 'H' },
		{ "kstack", no_argument, NULL, 's' },
		{ "output", required_argument, NULL, 'o' },
		{ "json", no_argument, NULL, 'J' },
		{ "mmap-pages", required_argument, NULL, 'm' },
		COLLECT_QUEUE_LONGOPTS,
		{ "exec", required_argument, NULL, 'X' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct collect_opts co = { 0 };
	struct trace tr = { 0 };
	struct collect c;
	struct event_list evl;
	const char **filters = NULL;	/* per spec index */
	size_t nr_filters = 0;
	const char *output = NULL;
	bool header = false;
	int ret = 0, opt;
	struct outfile of = { 0 };

	collect__init(&c);
	event_list__init(&evl);
	probe_spec__scan_exec_opt(argc, argv, "+e:aC:p:t:d:Hsgo:m:x:h", longopts, false);
	optind = 1;
	while ((opt = getopt_long(argc, argv, "+e:aC:p:t:d:Hsgo:m:x:h", longopts, NULL)) != -1) {
		char err[1024];
		int shared = collect_opts__parse(&co, opt, optarg, "pprobe trace");
		if (shared < 0) {
			ret = 2;
			goto out;
		}
		if (shared)
			continue;
		switch (opt) {
		case 'e': {
			size_t before = evl.nr;
			if (event_list__add(&evl, optarg, err, sizeof(err))) {
				fprintf(stderr, "pprobe trace: %s\n", err);
				ret = 2;
				goto out;
			}
			filters = pp_xrealloc(filters, evl.nr * sizeof(*filters));
			for (size_t i = before; i < evl.nr; i++)
				filters[i] = NULL;
			nr_filters = evl.nr;
			break;
		}
		case 'f':
			if (!evl.nr) {
				fprintf(stderr, "pprobe trace: --filter applies to the -e before it; give -e first\n");
				ret = 2;
				goto out;
			}
			/* As perf: the filter goes with the last -e (all its globbed events). */
			for (size_t i = evl.nr; i-- > 0;) {
				filters[i] = optarg;
				if (i == 0 || strcmp(evl.v[i - 1].tp_sys, evl.v[i].tp_sys) || filters[i - 1])
					break;
			}
			break;
		case 'H': header = true; break;
		case 's': tr.kstack = true; break;
		case 'g': tr.kstack = tr.ustack = true; break;
		case 'o': output = optarg; break;
		case 'J': tr.json = true; break;
		case 'x': case 'X': break;	/* probe_spec__scan_exec_opt() */
		case 'h': usage(stdout); goto out;
		default: usage(stderr); ret = 2; goto out;
		}
	}
	if (!evl.nr) {
		fprintf(stderr, "pprobe trace: no event: give -e EVENT (e.g. -e 'syscalls:sys_enter_open*'; 'pprobe list' shows them)\n");
		ret = 2;
		goto out;
	}
	if (optind < argc)
		co.argv = argv + optind;

	/* Every event is traced: one sample per occurrence. */
	event_list__set_sampling(&evl, 0, 1);
	for (size_t i = 0; i < evl.nr; i++) {
		const struct event_spec *spec = &evl.v[i];
		struct trace_event *te = pp_xcalloc(1, sizeof(*te));
		te->spec = spec;
		te->filter = i < nr_filters ? filters[i] : NULL;
		if ((spec->kind == EVENT_KIND_TRACEPOINT || spec->kind == EVENT_KIND_PROBE) && !spec->pmu[0]) {
			te->fmt = tp_format__load(spec->tp_sys, spec->tp_name);
			if (!te->fmt) {
				fprintf(stderr, "pprobe trace: cannot read the format of %s: %s\n", spec->name,
					strerror(errno));
				free(te);
				ret = 1;
				goto out;
			}
		}
		struct evsel *ev = evlist__add(&c.evlist, spec->name, &spec->attr);
		ev->spec = spec;
		ev->priv = te;
		if (te->filter) {
			char msg[4096];
			if (!te->fmt && spec->pmu[0] && spec->kind == EVENT_KIND_PROBE) {
				fprintf(stderr, "pprobe trace: --filter needs fields; %s is a probe without any "
					"(a tracefs probe made by pprobe --add has them)\n", spec->name);
				ret = 2;
				goto out;
			}
			if (!te->fmt) {
				fprintf(stderr, "pprobe trace: --filter needs a tracepoint or probe; %s is not one\n",
					spec->name);
				ret = 2;
				goto out;
			}
			if (trace_filter__check(te->fmt, spec->tp_sys, te->filter, msg, sizeof(msg))) {
				fprintf(stderr, "pprobe trace: %s\n", msg);
				ret = 2;
				goto out;
			}
		}
	}

	co.extra_sample_type = PERF_SAMPLE_RAW;
	if (tr.kstack || tr.ustack) {
		co.extra_sample_type |= PERF_SAMPLE_CALLCHAIN;
		co.max_stack = 127;
		co.exclude_callchain_user = true;
	}
	if (tr.ustack) {
		co.extra_sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		co.regs_user_mask = UNWIND_X86_SAMPLE_REGS_MASK;
		co.stack_user_size = UNWIND_DEFAULT_STACK_COPY;
		tr.unwinder = unwinder__new(UNWIND_LIBDW);
		if (!tr.unwinder) {
			fprintf(stderr, "pprobe trace: cannot set up the unwinder: %s\n", strerror(errno));
			ret = 1;
			goto out;
		}
	}
	if (tr.kstack || tr.ustack) {
		struct symbolizer_opts so;
		symbolizer_opts__init(&so);
		tr.sym = symbolizer__new(&so);
	}
	if (!co.ring_pages)	/* -m not given */
		co.ring_pages = tr.ustack ? 4096 : 1024;
	co.quiet = true;
	c.priv = &tr;
	c.on_sample = on_sample;

	if (output) {
		if (outfile__open_or_say(&of, output, "pprobe trace")) {
			ret = 1;
			goto out;
		}
		tr.out = of.f;
	} else {
		tr.out = stdout;
		setvbuf(stdout, NULL, _IOLBF, 0);	/* live: a line as it happens */
	}
	ret = collect__prepare(&c, &co);
	if (!ret)
		ret = apply_filters(&c);
	if (ret)
		goto out;
	if (header) {
		const struct trace_print tp = { .out = tr.out, .json = tr.json };
		trace_print__header(&tp);
	}
	ret = collect__run(&c);
	if (c.lost || c.lost_samples) {
		char queue[96];
		collect__queue_summary(&c, queue, sizeof(queue));
		fprintf(stderr, "pprobe trace: %llu events lost; %s\n",
			(unsigned long long)(c.lost + c.lost_samples), queue);
		collect__report_lost(&c, "pprobe trace");
	}
out:
	if (of.f) {
		if (ret)
			outfile__abort(&of);
		else if (outfile__commit(&of)) {
			fprintf(stderr, "pprobe trace: writing %s failed\n", output);
			ret = 1;
		}
	}
	for (int i = 0; i < c.evlist.nr_evsels; i++) {
		struct trace_event *te = c.evlist.evsels[i]->priv;
		if (te) {
			tp_format__free(te->fmt);
			free(te);
		}
	}
	collect__cleanup(&c);
	if (!ret)
		ret = collect__exit_status(&c);
	symbolizer__delete(tr.sym);
	unwinder__delete(tr.unwinder);
	free(filters);
	event_list__exit(&evl);
	return ret;
}
