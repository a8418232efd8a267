/* pprobe trace --syscalls: each syscall a line as perf trace prints it, from
 * the sys_enter/sys_exit tracepoints (per syscall with -e, raw_syscalls for
 * all), paired per thread, and the summary (see syscall_print.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "collect.h"
#include "collect_say.h"
#include "commands.h"
#include "event_spec.h"
#include "syscall_print.h"
#include "syscalls.h"
#include "tp_format.h"
#include "trace_syscalls.h"
#include "tracefs.h"
#include "util.h"

#define PROG "pprobe trace"

struct sc_event {
	struct tp_format *fmt;
	bool enter;
};

struct sc_trace {
	struct syscalls *sc;
	struct syscall_print sp;
	bool lines;			/* print each call (not --summary alone) */
	bool have_t0;
	pid_t self;
	uint64_t bad;			/* records that did not fit their format */
	struct collect *c;
};

static void on_call(void *arg, const struct syscall_call *call)
{
	struct sc_trace *st = arg;
	if (!st->lines)
		return;
	errno = 0;
	syscall_print__call(&st->sp, call);
	if (ferror(st->sp.out)) {	/* stop: EPIPE, nobody reads on */
		st->lines = false;
		collect__output_error(st->c, stream__write_errno(st->sp.out));
	}
}

static int on_sample(struct collect *c, struct evsel *ev, const struct sample *s, struct thread *t,
		     struct process *p)
{
	struct sc_trace *st = c->priv;
	struct sc_event *se = ev->priv;
	(void)p;
	if (!se || !s->raw || (pid_t)s->pid == st->self)
		return 0;
	if (!st->have_t0) {
		st->sp.t0 = s->time;
		st->have_t0 = true;
	}
	const char *comm = t && t->comm[0] ? t->comm : "?";
	int nr;
	if (se->enter) {
		uint64_t args[SYSCALL_MAX_ARGS];
		if (syscalls__enter_args(se->fmt, s->raw, s->raw_size, &nr, args)) {
			st->bad++;
			return 0;
		}
		syscalls__enter(st->sc, (pid_t)s->pid, (pid_t)s->tid, comm, nr, s->time, args, s->raw, s->raw_size,
				on_call, st);
	} else {
		int64_t ret;
		if (syscalls__exit_ret(se->fmt, s->raw, s->raw_size, &nr, &ret)) {
			st->bad++;
			return 0;
		}
		syscalls__exit(st->sc, (pid_t)s->pid, (pid_t)s->tid, comm, nr, s->time, ret, on_call, st);
	}
	return 0;
}

/* The syscalls -e names (NULL, 0: all of them). 0, or the exit status
 * after saying why. */
static int select_syscalls(const struct trace_syscalls_opts *o, char ***availp, int *nr_availp,
			   const char ***sel, int *nr_sel)
{
	char **avail;
	int nr_avail = syscalls__available(&avail);
	*availp = NULL;
	*nr_availp = 0;
	if (nr_avail < 0) {
		char msg[512];
		tracefs__strerror(nr_avail, msg, sizeof(msg));
		fprintf(stderr, PROG ": cannot list the syscall tracepoints: %s\n", msg);
		return 1;
	}
	*availp = avail;
	*nr_availp = nr_avail;
	if (!nr_avail) {
		fprintf(stderr, PROG ": this kernel has no syscall tracepoints (events/syscalls is empty: "
			"CONFIG_FTRACE_SYSCALLS off)\n");
		return 1;
	}
	for (size_t k = 0; k < o->events->nr; k++) {
		char err[512];
		if (syscalls__select(o->events->v[k].arg, avail, nr_avail, sel, nr_sel, err, sizeof(err))) {
			fprintf(stderr, PROG ": %s\n", err);
			return 2;
		}
	}
	return 0;
}

/* Add SYS:NAME to the event list. 0 or the exit status. */
static int add_spec(struct event_list *evl, const char *sys, const char *name)
{
	char spec[256], err[1024];
	snprintf(spec, sizeof(spec), "%s:%s", sys, name);
	if (event_list__add(evl, spec, err, sizeof(err))) {
		fprintf(stderr, PROG ": %s\n", err);
		return 1;
	}
	return 0;
}

/* The enter and exit events of the syscalls chosen (raw_syscalls for all),
 * each with its format. 0 or the exit status. */
static int add_events(struct collect *c, struct event_list *evl, const char **sel, int nr_sel)
{
	int ret = 0;
	if (!nr_sel) {
		ret = add_spec(evl, "raw_syscalls", "sys_enter");
		if (!ret)
			ret = add_spec(evl, "raw_syscalls", "sys_exit");
	}
	for (int i = 0; i < nr_sel && !ret; i++) {
		char name[128];
		snprintf(name, sizeof(name), "sys_enter_%s", sel[i]);
		ret = add_spec(evl, "syscalls", name);
		snprintf(name, sizeof(name), "sys_exit_%s", sel[i]);
		if (!ret)
			ret = add_spec(evl, "syscalls", name);
	}
	if (ret)
		return ret;
	/* Every call is traced: one sample per occurrence. */
	event_list__set_sampling(evl, 0, 1);
	for (size_t i = 0; i < evl->nr; i++) {
		const struct event_spec *spec = &evl->v[i];
		struct sc_event *se = pp_xcalloc(1, sizeof(*se));
		se->enter = strstr(spec->tp_name, "sys_enter") == spec->tp_name;
		se->fmt = tp_format__load(spec->tp_sys, spec->tp_name);
		if (!se->fmt) {
			fprintf(stderr, PROG ": cannot read the format of %s: %s\n", spec->name, strerror(errno));
			free(se);
			return 1;
		}
		struct evsel *ev = evlist__add(&c->evlist, spec->name, &spec->attr);
		ev->spec = spec;
		ev->priv = se;
	}
	return 0;
}

static void free_events(struct collect *c)
{
	for (int i = 0; i < c->evlist.nr_evsels; i++) {
		struct sc_event *se = c->evlist.evsels[i]->priv;
		if (se) {
			tp_format__free(se->fmt);
			free(se);
		}
		c->evlist.evsels[i]->priv = NULL;
	}
}

int trace_syscalls(const struct trace_syscalls_opts *o)
{
	struct collect c;
	struct event_list evl;
	struct outfile of = { 0 };
	struct sc_trace st = { .self = getpid(), .lines = !o->summary, .c = &c };
	char **avail = NULL;
	int nr_avail = 0, nr_sel = 0;
	const char **sel = NULL;
	char err[4096] = "";

	collect__init(&c);
	collect_say__hook(&c);
	event_list__init(&evl);
	int ret = select_syscalls(o, &avail, &nr_avail, &sel, &nr_sel);
	if (!ret)
		ret = add_events(&c, &evl, sel, nr_sel);
	if (ret)
		goto out;
	st.sc = syscalls__new();
	st.sp.failure_only = o->failure;
	o->co->extra_sample_type = PERF_SAMPLE_RAW;
	if (!o->co->ring_pages)
		o->co->ring_pages = 1024;
	o->co->quiet = true;
	c.priv = &st;
	c.on_sample = on_sample;
	if (o->output) {
		if (outfile__open_or_say(&of, o->output, PROG)) {
			ret = 1;
			goto out;
		}
		st.sp.out = of.f;
	} else {
		st.sp.out = stdout;
		setvbuf(stdout, NULL, _IOLBF, 0);	/* live: a line as it happens */
	}
	ret = collect_say__status(&c, collect__prepare(&c, o->co, err, sizeof(err)));
	collect_say__error(err);
	/* system-wide, pprobe's own syscalls (writing these lines, reading the
	 * rings) would trace themselves: collect__run filters its threads out
	 * in the kernel, as perf trace does; a later one's are dropped in
	 * on_sample */
	if (ret)
		goto out;
	collect__watch_output(&c, fileno(st.sp.out));
	ret = collect_say__status(&c, collect__run(&c, err, sizeof(err)));
	collect_say__error(err);
	if (c.out_err == EPIPE)
		st.lines = false;	/* the reader went away while nothing was printed */
	syscalls__flush(st.sc, on_call, &st);
	if ((o->summary || o->with_summary) && !c.out_err) {
		int nr;
		uint64_t total;
		const struct syscall_thread *th = syscalls__summary(st.sc, &nr, &total);
		syscall_print__summary(st.sp.out, th, nr, total);
	}
	if (c.lost || c.lost_samples) {
		char queue[96];
		collect__queue_summary(&c, queue, sizeof(queue));
		fprintf(stderr, PROG ": %llu events lost (calls may show as [continued] or unfinished); %s\n",
			(unsigned long long)(c.lost + c.lost_samples), queue);
	}
	if (c.lost || c.lost_samples || c.stop_left)
		collect_say__lost(&c, PROG);
	if (c.out_err && c.out_err != EPIPE) {
		fprintf(stderr, PROG ": writing %s failed: %s\n", o->output ? o->output : "the output",
			strerror(c.out_err));
		ret = 1;
	}
	if (st.bad)
		fprintf(stderr, PROG ": %llu records did not fit their format and were skipped\n",
			(unsigned long long)st.bad);
out:
	if (of.f) {
		if (ret)
			outfile__abort(&of);
		else if ((ret = -outfile__commit(&of))) {
			fprintf(stderr, PROG ": writing %s failed: %s\n", o->output, strerror(ret));
			ret = 1;
		}
	}
	free_events(&c);
	collect__cleanup(&c);
	if (!ret)
		ret = c.out_err == EPIPE ? CMD_EXIT_SIGPIPE : collect__exit_status(&c);
	syscalls__delete(st.sc);
	free(sel);
	syscalls__free_names(avail, nr_avail);
	event_list__exit(&evl);
	return ret;
}
