/* The option table entries record, trace and stat share: the target (-a,
 * -C, -p, -t, -d), the rings (-m, --max-queue), the help text of -e's
 * probe forms, and the one reading of -e and --filter. Each command keeps a struct collect_opts in its options
 * struct; TYPE is that struct and CO the collect_opts member's name. */
#ifndef PPROBE_TARGET_OPTS_H
#define PPROBE_TARGET_OPTS_H

#include "collect.h"
#include "options.h"

int opt_parse_duration(const struct opt *o, void *opts, const char *arg, char *err, size_t errlen);
int opt_parse_ring_pages(const struct opt *o, void *opts, const char *arg, char *err, size_t errlen);
int opt_parse_max_queue(const struct opt *o, void *opts, const char *arg, char *err, size_t errlen);

struct event_list;
/* -e and --filter (an opt_list of both, in the order given) into evl: each
 * --filter for the events of the -e before it (event_list__add_filter);
 * dflt the event where no -e was given (NULL: none). 0, or -errno with err
 * saying why. */
int event_opts__add(struct event_list *evl, const struct opt_list *events, const char *dflt, char *err,
		    size_t errlen);
/* Their usage error, NULL if none: a --filter before any -e
 * (EVENT_FILTER_NEEDS_E, the same words for every command). */
const char *event_opts__check(const struct opt_list *events);

#define TARGET_OPTS(type, co) \
	TARGET_OPTS_IDS(type, co, \
			OPT_STRING('p', "pid", "PID[,PID...]", type, co.pid_list, \
				   "existing processes, all their threads"), \
			OPT_STRING('t', "tid", "TID[,TID...]", type, co.tid_list, "existing threads"))
/* The same with the command's own -p/--pid and -t/--tid entries (record's:
 * --pid alone also has stackcollapse-perf.pl's meaning). */
#define TARGET_OPTS_IDS(type, co, pid_entry, tid_entry) \
	OPT_FLAG('a', "all-cpus", type, co.system_wide, \
		 "all online CPUs (a command then only bounds the duration)"), \
	OPT_STRING('C', "cpu", "LIST", type, co.cpu_list, "these CPUs only, e.g. 0-1,3"), \
	pid_entry, \
	tid_entry, \
	OPT_FN('d', "duration", "SECS", type, co.duration, opt_parse_duration, \
	       "stop the events after SECS seconds, then process what is queued (SIGINT/SIGTERM also stop cleanly)")

#define RING_OPTS(type, co, pages_help) \
	OPT_FN('m', "mmap-pages", "N", type, co.ring_pages, opt_parse_ring_pages, \
	       "ring pages per CPU, a power of two (" pages_help ")"), \
	OPT_FN(0, "max-queue", "SIZE", type, co.max_queue, opt_parse_max_queue, \
	       "memory for records read and not yet processed, e.g. 64M, 2G (default 512M, or a quarter " \
	       "of RAM if less); when full, the rings fill and the kernel counts the loss")

/* The probe forms of -e; X is how the command spells the binary of
 * probe:FUNC ("-x" or "--exec"). */
#define PROBE_FORMS_HELP(X) \
	"  uprobe:BIN:FUNC[+OFF]   uprobe:BIN:FUNC:LINE\n" \
	"  uprobe:BIN:0xADDR       uretprobe:BIN:FUNC\n" \
	"  sdt:BIN:PROVIDER:NAME   (USDT)\n" \
	"  kprobe:FUNC[+OFF]   kprobe:0xADDR   kretprobe:FUNC\n" \
	"  kprobe:GLOB   kretprobe:GLOB   (each function, at most 64)\n" \
	"  probe:FUNC[+OFF|:LINE|%return]   sdt_PROVIDER:NAME\n" \
	"    (in BIN of " X "; probe: alone is the kernel's)\n" \
	"  'SPEC ARG...': a temporary tracefs probe with args\n" \
	"With -a/-C/-t the uprobe/kprobe PMU; with a command or -p a temporary tracefs probe in group " \
	"pprobe_<pid>, removed at exit (the kernel cannot inherit PMU probes into children and threads)"

#endif
