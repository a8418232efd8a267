/* record's state, shared by cmd_record.c (options, set-up, the run,
 * outputs) and record_stacks.c (a sample into its stack: the kernel's
 * callchain, the user stack unwound here or by the workers, the
 * unwinding's quality said). */
#ifndef PPROBE_RECORD_INTERNAL_H
#define PPROBE_RECORD_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "collect.h"
#include "offcpu.h"
#include "options.h"
#include "record_outputs.h"
#include "record_push.h"
#include "stacks.h"
#include "tp_format.h"
#include "unwind_pool.h"
#include "pprobe/symbolize.h"
#include "pprobe/unwind.h"

#define MAX_FRAMES 4096

enum callgraph { CG_NONE, CG_FP, CG_DWARF };

/* Unwind quality of the samples whose leaf is in one object. */
struct quality {
	uint64_t samples, complete;
	uint64_t ends[UNWIND_ERROR + 1];
};

struct record;

/* A live view of the run instead of output files (pprobe top): record
 * sets up, collects and unwinds as for files, calls tick after each pass
 * of collect's loop (tick may set c->stop), and at the end, instead of
 * writing files, finish. */
struct record_view {
	void (*tick)(struct collect *c, struct record *r, void *arg);
	/* After the run (events off, everything queued in the tables, the
	 * frames symbolized): the exit status, or -1 for record's (the
	 * command's own where one ran). */
	int (*finish)(struct collect *c, struct record *r, void *arg);
	void *arg;
};

struct record {
	const char *prog;		/* the prefix of its messages: "pprobe record" (NULL), "pprobe top" */
	const struct record_view *view;	/* NULL: output files */
	struct frametab *frames;
	enum callgraph cg;
	bool weight_period;
	uint16_t max_stack;
	uint32_t frame_limit;		/* --max-stack N: at most N frames a stack (MAX_FRAMES: none) */
	uint64_t truncated;
	size_t unsymbolized;		/* frames left to their objects: timeout or signal */
	double symbolize_timeout;
	bool symbolize_timed_out;
	/* DWARF unwinding */
	struct symbolizer *sym;		/* opened up front: files are prepared as they are mapped */
	struct unwinder *unwinder;	/* the main thread's, without workers */
	struct unwind_pool *pool;	/* --workers N > 1: unwinding on N threads */
	struct objcache *files;		/* the ELF files of both: each opened once */
	enum unwind_backend backend;
	bool hold_exits;		/* --hold-exits */
	bool srcline;			/* --srcline: func:file.c:LINE frames */
	uint32_t stack_size;
	uint64_t unwound, complete, live_stack, history, unwind_ns;
	uint64_t stack_bytes;		/* of the stacks unwound: the kernel's copies, their bytes */
	int workers;			/* --workers */
	uint64_t workers_cpu_ns, main_cpu_ns;	/* with workers: their CPU, the main thread's, in the run */
	/* PPROBE_WORKERS_CHECK=1: each worker's stack unwound again here, by
	 * r->unwinder, and compared (tests: live stack off) */
	uint64_t wcheck_walks, wcheck_differ;
	char wcheck_first[200];
	struct strtab objs;		/* leaf object names */
	struct quality *quality;	/* indexed by objs id */
	size_t nr_quality;
	uint64_t ips[MAX_FRAMES];
	const struct map *maps[MAX_FRAMES];	/* their mappings (engine/stack.h) */
	uint32_t frame_buf[MAX_FRAMES + 8];
	enum stack_root root;		/* the folded root frame: comm, comm-PID, comm-PID/TID, comm/TID */
	bool speedscope;		/* --format speedscope: every sample kept in time order */
	bool keep_ids;			/* an output shows pids or tids (stacktab__drop_ids) */
	/* --off-cpu: switch-outs (sched:sched_switch samples) paired with
	 * switch-ins (PERF_RECORD_SWITCH), weighed in ns into off_stacks,
	 * the on-CPU event's table */
	bool off_cpu;
	struct offcpu off;
	struct stacktab *off_stacks;
	struct tp_format *switch_fmt;
	const struct tp_field *prev_state;
	uint64_t bad_prev_state;
	struct output *outs;		/* -o, each with its format */
	size_t nr_outs;
	bool to_stdout;			/* one of them is '-' */
	/* --push: each interval of push_ev's stacks to Pyroscope */
	bool pushing;
	struct record_push push;
	struct evsel *push_ev;
	double next_report;
	/* --max-tables: the stack tables spilled to disk past this many
	 * bytes (0: never: an output needs the whole table, or a spill
	 * failed) */
	uint64_t max_tables, max_tables_asked;
	unsigned spills;
	int spill_err;			/* the spill that failed: -errno */
};

struct record_opts {
	struct collect_opts co;
	struct opt_list events;		/* -e, in order */
	const char *exec;		/* -x */
	struct opt_list outputs;	/* -o, in order */
	int format;			/* --format: enum out_format + 1; 0: from each output's name */
	long freq;
	unsigned long long period;
	int cg;				/* enum callgraph */
	uint32_t stack_size;		/* --call-graph dwarf,SIZE; 0: the default */
	enum unwind_backend backend;
	int workers;			/* --workers; 0: the default */
	bool hold_exits, srcline, weight_period;
	bool weight_given;		/* --weight was given */
	bool off_cpu, per_thread, root_pid, root_tid;
	struct record_push_opts push;	/* --push, --interval, --app, --label */
	bool freq_max;			/* -F max */
	long max_stack;			/* --max-stack N; 0: the default depth */
	double symbolize_timeout;	/* --symbolize-timeout (s); 0: 60 */
	uint64_t max_tables;		/* --max-tables; 0: DEFAULT_MAX_TABLES */
};

/* -F and --call-graph's parsers, for top's table too (opts: a struct
 * record_opts, or a struct that starts with one). */
int record_parse_freq(const struct opt *o, void *opts, const char *arg, char *err, size_t errlen);
int record_parse_call_graph(const struct opt *o, void *opts, const char *arg, char *err, size_t errlen);

struct evstate {
	struct stacktab *stacks;
	struct spill *spill;	/* --max-tables: its stacks spilled so far, or NULL */
	char **paths;		/* its file for each -o, tried before the command starts */
	bool shared;		/* another site of a probe: stacks are the first site's */
	bool switch_out;	/* --off-cpu's sched:sched_switch: switch-outs, not an output */
	char rate_buf[64];	/* "999 Hz", "every event", "every 1000 events" */
};

/* A user stack unwound by a worker (record_stacks.c); NULL: unwind here. */
struct unwound;

/* At most this many frames a stack of EV: its max-stack=N term, else
 * --max-stack's. */
uint32_t record_frame_limit(const struct record *r, const struct evsel *ev);
/* A sample's stack into fr (leaf first), at most room frames; done: its
 * user stack as a worker unwound it, NULL: unwound here. */
uint32_t record_sample_stack(struct record *r, struct collect *c, const struct evsel *ev, const struct sample *s,
			     struct process *p, const struct unwound *done, uint32_t *fr, uint32_t room);
/* Whose stack: comm, pid, tid for the stack table's root and labels. */
struct stack_owner record_stack_owner(const struct sample *s, const struct thread *t);
/* A sample's stack into its event's table. */
void record_add_sample(struct record *r, struct collect *c, struct evsel *ev, const struct sample *s,
		       struct thread *t, struct process *p, const struct unwound *done);
/* --workers: the sample handed over, and the jobs done before it added. */
void record_to_workers(struct record *r, struct collect *c, struct evsel *ev, const struct sample *s,
		       struct thread *t, struct process *p);
/* --workers: every job of process pid (-1: every job) back and added,
 * those before them too; collect's before_task hook. */
void record_take_back(struct record *r, struct collect *c, pid_t pid);
void record_before_task(struct collect *c, pid_t pid);
/* A message on stderr after "PROG: " (r->prog): record's, or top's. */
void record_say(const struct record *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Every sample taken so far in its table (the workers' jobs taken back)
 * and every frame symbolized: the tables can be read. */
void record_sync(struct collect *c, struct record *r);
/* The stack tables emptied, the frames too (not with --off-cpu, whose open
 * waits hold frame ids), the files no live process maps closed: the next
 * interval starts empty (--push, top -z). */
void record_clear(struct collect *c, struct record *r);
/* record once its options are parsed and checked (choose_outputs done, or
 * rec->view set): set up, run, write the outputs or finish the view, say
 * the summary. The exit status; o's lists stay the caller's to free. */
int record_run(struct record_opts *o, struct record *rec);

/* The summary's lines on the user stacks unwound. */
void record_print_unwind_quality(const struct record *r);

#endif
