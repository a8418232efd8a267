/* pprobe stat: counting mode. Totals and rates per event; multiplexed
 * counters scaled by time_enabled/time_running; tracepoints counted exactly;
 * -I interval output, -r repeats with spread, -x CSV, --json. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "event_spec.h"

struct counter {
	struct event_spec *spec;
	int *fds;                 /* [cpu * nr_tids + tid], -1 if not open */
	bool unsupported;
	int err;                  /* errno of the failed open */
	uint64_t val, ena, run;   /* summed over fds at the last read */
	uint64_t pval, pena, prun;/* at the previous interval */
	double sum, sumsq;        /* -r: of the scaled values */
	int runs;
};

struct stat_opts {
	int all_cpus;
	char *cpu_list;
	char *pids, *tids;
	long interval_ms;
	int repeat;
	const char *sep;
	int json;
	FILE *out;
};

static volatile sig_atomic_t stop;
static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: pprobe stat [-e EVENTS]... [-a] [-C CPUS] [-p PID[,PID]] [-t TID] [-I MS] [-r N]\n"
		"                   [-x SEP | --json] [-o FILE] [--] [command [args...]]\n"
		"Counts events (default: task-clock, context-switches, cpu-migrations, page-faults):\n"
		"  -e EVENTS   as for record: cpu-clock, sched:*, {cycles,instructions}, ...\n"
		"  -a, -C      all CPUs, or these CPUs (0-3,6); -p/-t processes or threads\n"
		"  -I MS       print the counts of every MS milliseconds\n"
		"  -r N        run the command N times; mean and spread\n"
		"  -x SEP      CSV: value,unit,event,running-ns,percent-running\n"
		"  --json      one JSON object per event\n"
		"With -a/-p a command only bounds the duration; without one, Ctrl-C stops.\n");
}

static int perf_open(struct perf_event_attr *a, pid_t pid, int cpu, int group_fd)
{
	return (int)syscall(SYS_perf_event_open, a, pid, cpu, group_fd, PERF_FLAG_FD_CLOEXEC);
}

/* "0-3,6" -> array; returns count or -1 */
static int parse_list(const char *s, int **out)
{
	int *v = NULL, n = 0, cap = 0;
	const char *p = s;
	while (*p) {
		char *end;
		long a = strtol(p, &end, 10), b = a;
		if (end == p || a < 0)
			goto bad;
		p = end;
		if (*p == '-') {
			b = strtol(p + 1, &end, 10);
			if (end == p + 1 || b < a)
				goto bad;
			p = end;
		}
		for (long i = a; i <= b; i++) {
			if (n == cap) {
				cap = cap ? cap * 2 : 16;
				int *nv = realloc(v, cap * sizeof(*v));
				if (!nv)
					goto bad;
				v = nv;
			}
			v[n++] = (int)i;
		}
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			goto bad;
		else
			break;
	}
	*out = v;
	return n;
bad:
	free(v);
	return -1;
}

static int online_cpus(int **out)
{
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");
	char buf[1024];
	if (!f || !fgets(buf, sizeof(buf), f)) {
		if (f)
			fclose(f);
		return -1;
	}
	fclose(f);
	return parse_list(buf, out);
}

/* All threads of the processes in "PID,PID" */
static int threads_of(const char *pids, int **out)
{
	int *p, np = parse_list(pids, &p), *v = NULL, n = 0;
	if (np <= 0)
		return -1;
	for (int i = 0; i < np; i++) {
		char path[64];
		snprintf(path, sizeof(path), "/proc/%d/task", p[i]);
		DIR *d = opendir(path);
		if (!d) {
			int *nv = realloc(v, (n + 1) * sizeof(*v));
			if (!nv)
				break;
			v = nv;
			v[n++] = p[i];   /* let perf_event_open say ESRCH */
			continue;
		}
		struct dirent *de;
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			int *nv = realloc(v, (n + 1) * sizeof(*v));
			if (!nv)
				break;
			v = nv;
			v[n++] = atoi(de->d_name);
		}
		closedir(d);
	}
	free(p);
	*out = v;
	return n;
}

static double now_sec(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static bool is_clock(const struct event_spec *s)
{
	return s->attr.type == PERF_TYPE_SOFTWARE &&
	       (s->attr.config == PERF_COUNT_SW_CPU_CLOCK || s->attr.config == PERF_COUNT_SW_TASK_CLOCK);
}

static void read_counter(struct counter *c, int nfds)
{
	c->val = c->ena = c->run = 0;
	for (int i = 0; i < nfds; i++) {
		uint64_t v[3];
		if (c->fds[i] < 0 || read(c->fds[i], v, sizeof(v)) != sizeof(v))
			continue;
		c->val += v[0];
		c->ena += v[1];
		c->run += v[2];
	}
}

/* value scaled for multiplexing; false if never running */
static bool scaled(uint64_t val, uint64_t ena, uint64_t run, double *out)
{
	if (!run)
		return false;
	*out = run < ena ? (double)val * ena / run : (double)val;
	return true;
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

/* One event line. VAL/ENA/RUN are this period's (or the total); ELAPSED the
 * wall time of the period. ts >= 0: interval mode prefix. */
static void print_line(const struct stat_opts *o, struct counter *c, struct counter *all, int nr,
		       uint64_t val, uint64_t ena, uint64_t run, double elapsed, double ts, double spread)
{
	FILE *f = o->out;
	double v = 0;
	/* an interval in which a task's counter did not run (it slept) counts 0 */
	bool counted = !c->unsupported && (scaled(val, ena, run, &v) || (ts >= 0 && c->run > 0));
	double pct = ena ? 100.0 * run / ena : 0;
	bool clk = is_clock(c->spec);
	const char *unit = clk ? "msec" : "";
	double shown = clk ? v / 1e6 : v;

	if (o->json) {
		fprintf(f, "{");
		if (ts >= 0)
			fprintf(f, "\"interval\": %.9f, ", ts);
		fprintf(f, "\"event\": ");
		json_str(f, c->spec->name);
		if (c->unsupported) {
			fprintf(f, ", \"counter-value\": \"<not supported>\", \"error\": ");
			json_str(f, strerror(c->err));
		} else if (!counted) {
			fprintf(f, ", \"counter-value\": \"<not counted>\"");
		} else {
			if (clk)
				fprintf(f, ", \"counter-value\": %.6f", shown);
			else
				fprintf(f, ", \"counter-value\": %.0f", shown);
			fprintf(f, ", \"unit\": \"%s\", \"event-runtime\": %llu, \"pcnt-running\": %.2f", unit,
				(unsigned long long)run, pct);
			if (elapsed > 0)
				fprintf(f, ", \"rate-per-sec\": %.3f", v / elapsed);
			if (spread >= 0)
				fprintf(f, ", \"stddev-pct\": %.2f", spread);
		}
		fprintf(f, "}\n");
		return;
	}
	if (o->sep) {
		if (ts >= 0)
			fprintf(f, "%.9f%s", ts, o->sep);
		if (c->unsupported)
			fprintf(f, "<not supported>");
		else if (!counted)
			fprintf(f, "<not counted>");
		else if (clk)
			fprintf(f, "%.2f", shown);
		else
			fprintf(f, "%.0f", shown);
		fprintf(f, "%s%s%s%s%s%llu%s%.2f", o->sep, unit, o->sep, c->spec->name, o->sep,
			(unsigned long long)run, o->sep, counted ? pct : 0.0);
		if (spread >= 0)
			fprintf(f, "%s%.2f", o->sep, spread);
		fprintf(f, "\n");
		return;
	}
	if (ts >= 0)
		fprintf(f, "%15.9f ", ts);
	if (c->unsupported) {
		fprintf(f, "%20s      %s\n", "<not supported>", c->spec->name);
		return;
	}
	if (!counted) {
		fprintf(f, "%20s      %s\n", "<not counted>", c->spec->name);
		return;
	}
	if (clk)
		fprintf(f, "%20.2f msec %-30s", shown, c->spec->name);
	else
		fprintf(f, "%20.0f      %-30s", shown, c->spec->name);
	/* derived: CPUs utilized, IPC, rate */
	if (clk && elapsed > 0) {
		fprintf(f, " # %8.3f CPUs utilized", v / 1e9 / elapsed);
	} else {
		const struct counter *cyc = NULL;
		if (c->spec->attr.type == PERF_TYPE_HARDWARE && c->spec->attr.config == PERF_COUNT_HW_INSTRUCTIONS)
			for (int i = 0; i < nr; i++)
				if (all[i].spec->attr.type == PERF_TYPE_HARDWARE &&
				    all[i].spec->attr.config == PERF_COUNT_HW_CPU_CYCLES && !all[i].unsupported)
					cyc = &all[i];
		double cv;
		if (cyc && scaled(cyc->val, cyc->ena, cyc->run, &cv) && cv > 0 && ts < 0)
			fprintf(f, " # %8.2f insn per cycle", v / cv);
		else if (elapsed > 0) {
			double r = v / elapsed;
			const char *u = "/sec";
			if (r >= 1e9) {
				r /= 1e9;
				u = " G/sec";
			} else if (r >= 1e6) {
				r /= 1e6;
				u = " M/sec";
			} else if (r >= 1e3) {
				r /= 1e3;
				u = " K/sec";
			}
			fprintf(f, " # %8.3f%s", r, u);
		}
	}
	if (run < ena)
		fprintf(f, "  (%.2f%%)", pct);
	if (spread >= 0)
		fprintf(f, "  ( +- %.2f%% )", spread);
	fprintf(f, "\n");
}

/* Fork the command, stopped before exec until a byte arrives on *go_fd.
 * *err_fd reads EOF once exec succeeded, or the exec errno. */
static pid_t start_command(char **argv, int *go_fd, int *err_fd)
{
	int p[2], e[2];
	if (pipe2(p, O_CLOEXEC))
		return -1;
	if (pipe2(e, O_CLOEXEC)) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	pid_t pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		close(e[0]);
		close(e[1]);
		return -1;
	}
	if (pid == 0) {
		char c;
		close(p[1]);
		close(e[0]);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		/* wait until the counters are open; EOF without a byte: abort */
		if (read(p[0], &c, 1) != 1)
			_exit(127);
		execvp(argv[0], argv);
		int en = errno;
		if (write(e[1], &en, sizeof(en)) < 0)
			_exit(127);
		_exit(en == ENOENT ? 127 : 126);
	}
	close(p[0]);
	close(e[1]);
	*go_fd = p[1];
	*err_fd = e[0];
	return pid;
}

/* Release the command; 0 if it exec'd, else its exec errno. */
static int release_command(int *go, int *errfd)
{
	int en = 0;
	if (write(*go, "g", 1) != 1)
		en = errno;
	close(*go);
	*go = -1;
	if (!en && read(*errfd, &en, sizeof(en)) != sizeof(en))
		en = 0;
	close(*errfd);
	*errfd = -1;
	return en;
}

static int run_once(const struct stat_opts *o, struct event_list *l, struct counter *cs, char **cmd,
		    int *cpus, int nr_cpus, int *tids, int nr_tids, int *status, double *elapsed)
{
	int go = -1, errfd = -1, ret = 0, opened = 0;
	pid_t child = -1;
	int per_cpu = nr_cpus > 0;
	int ncpu = per_cpu ? nr_cpus : 1, ntid = nr_tids > 0 ? nr_tids : 1;
	int nfds = ncpu * ntid;
	bool target_cmd = cmd && !per_cpu && nr_tids == 0;

	*status = 0;
	if (target_cmd) {
		child = start_command(cmd, &go, &errfd);
		if (child < 0) {
			fprintf(stderr, "pprobe stat: cannot start '%s': %s\n", cmd[0], strerror(errno));
			return 1;
		}
	}
	for (size_t e = 0; e < l->nr; e++) {
		struct counter *c = &cs[e];
		c->spec = &l->v[e];
		c->fds = malloc(nfds * sizeof(int));
		if (!c->fds) {
			ret = 1;
			goto out;
		}
		for (int i = 0; i < nfds; i++)
			c->fds[i] = -1;
		c->unsupported = false;
		/* a {group} member is scheduled with its leader: group_fd */
		int leader = c->spec->group_leader;
		struct counter *lc = leader >= 0 && leader != (int)e ? &cs[leader] : NULL;
		if (lc && lc->unsupported) {
			fprintf(stderr, "pprobe stat: '%s' is not counted either: its group leader '%s' could not be opened\n",
				c->spec->name, lc->spec->name);
			c->unsupported = true;
			c->err = lc->err;
		}
		for (int ci = 0; ci < ncpu && !c->unsupported; ci++)
			for (int ti = 0; ti < ntid && !c->unsupported; ti++) {
				struct perf_event_attr a = c->spec->attr;
				a.freq = 0;
				a.sample_period = 0;
				a.sample_type = 0;
				a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
				a.disabled = 1;
				a.inherit = !per_cpu || nr_tids > 0;
				a.enable_on_exec = target_cmd;
				pid_t pid = target_cmd ? child : nr_tids > 0 ? tids[ti] : -1;
				int cpu = per_cpu ? cpus[ci] : -1;
				int gfd = lc ? lc->fds[ci * ntid + ti] : -1;
				if (lc && gfd < 0)
					continue;   /* the leader skipped this thread */
				if (lc)
					a.disabled = 0;   /* follows the leader */
				int fd = perf_open(&a, pid, cpu, gfd);
				if (fd < 0 && errno == ESRCH && nr_tids > 1)
					continue;   /* a thread exited while we opened */
				if (fd < 0) {
					char msg[1024];
					c->err = errno;
					event_spec__explain_open_error(c->spec, errno, msg, sizeof(msg));
					if (errno == ESRCH || errno == EMFILE || errno == EACCES || errno == EPERM) {
						fprintf(stderr, "pprobe stat: %s\n", msg);
						ret = 1;
						goto out;
					}
					fprintf(stderr, "pprobe stat: %s\n", msg);
					c->unsupported = true;
					for (int i = 0; i < nfds; i++)
						if (c->fds[i] >= 0) {
							close(c->fds[i]);
							c->fds[i] = -1;
						}
					break;
				}
				c->fds[ci * ntid + ti] = fd;
			}
		if (!c->unsupported)
			opened++;
	}
	if (!opened) {
		fprintf(stderr, "pprobe stat: no event could be counted\n");
		ret = 1;
		goto out;
	}

	double t0 = now_sec(), last = t0;
	if (!target_cmd)
		for (size_t e = 0; e < l->nr; e++)
			for (int i = 0; i < nfds; i++)
				if (cs[e].fds[i] >= 0)
					ioctl(cs[e].fds[i], PERF_EVENT_IOC_ENABLE, 0);
	if (cmd && !target_cmd) {
		/* -a/-p with a command: the command bounds the duration */
		child = start_command(cmd, &go, &errfd);
		if (child < 0) {
			fprintf(stderr, "pprobe stat: cannot start '%s': %s\n", cmd[0], strerror(errno));
			ret = 1;
			goto out;
		}
	}
	if (cmd) {
		int en = release_command(&go, &errfd);
		if (en) {
			fprintf(stderr, "pprobe stat: cannot run '%s': %s%s\n", cmd[0], strerror(en),
				en == ENOENT ? " (not found in PATH)" : "");
			ret = en == ENOENT ? 127 : 126;
			goto out;
		}
	}

	for (size_t e = 0; e < l->nr; e++)
		cs[e].pval = cs[e].pena = cs[e].prun = 0;
	for (;;) {
		int done = 0;
		if (child > 0) {
			int st;
			pid_t w = waitpid(child, &st, o->interval_ms ? WNOHANG : 0);
			if (w == child) {
				*status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
				child = -1;
				done = 1;
			} else if (w < 0 && errno != EINTR) {
				done = 1;
			}
		}
		if (stop)
			done = 1;
		if (!done && !o->interval_ms && child < 0) {
			pause();   /* until SIGINT/SIGTERM */
			continue;
		}
		if (o->interval_ms) {
			double t = now_sec();
			if (done || t - last >= o->interval_ms / 1000.0) {
				for (size_t e = 0; e < l->nr; e++) {
					struct counter *c = &cs[e];
					read_counter(c, nfds);
					print_line(o, c, cs, (int)l->nr, c->val - c->pval, c->ena - c->pena, c->run - c->prun,
						   t - last, t - t0, -1);
					c->pval = c->val;
					c->pena = c->ena;
					c->prun = c->run;
				}
				fflush(o->out);
				last = t;
			}
			if (!done) {
				double wait = o->interval_ms / 1000.0 - (now_sec() - last);
				if (wait > 0.02)
					wait = 0.02;   /* poll the child */
				if (wait > 0)
					usleep((useconds_t)(wait * 1e6));
			}
		}
		if (done)
			break;
	}
	*elapsed = now_sec() - t0;
	for (size_t e = 0; e < l->nr; e++)
		read_counter(&cs[e], nfds);
out:
	if (go >= 0)
		close(go);   /* the child sees EOF and exits 127 */
	if (errfd >= 0)
		close(errfd);
	if (child > 0) {
		int st;
		if (ret)
			kill(child, SIGKILL);
		waitpid(child, &st, 0);
		if (!ret)
			*status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	}
	for (size_t e = 0; e < l->nr; e++) {
		if (!cs[e].fds)
			continue;
		for (int i = 0; i < nfds; i++)
			if (cs[e].fds[i] >= 0)
				close(cs[e].fds[i]);
		free(cs[e].fds);
		cs[e].fds = NULL;
	}
	return ret;
}

int cmd_stat(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "event", required_argument, NULL, 'e' }, { "all-cpus", no_argument, NULL, 'a' },
		{ "cpu", required_argument, NULL, 'C' }, { "pid", required_argument, NULL, 'p' },
		{ "tid", required_argument, NULL, 't' }, { "interval-print", required_argument, NULL, 'I' },
		{ "repeat", required_argument, NULL, 'r' }, { "field-separator", required_argument, NULL, 'x' },
		{ "json", no_argument, NULL, 'j' }, { "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	struct stat_opts o = { .repeat = 1, .out = stderr };
	struct event_list l;
	char err[2048];
	const char *outpath = NULL;
	int c, ret = 2, nr_cpus = 0, nr_tids = 0, *cpus = NULL, *tids = NULL;
	struct counter *cs = NULL;

	event_list__init(&l);
	optind = 1;
	while ((c = getopt_long(argc, argv, "+e:aC:p:t:I:r:x:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'e':
			if (event_list__add(&l, optarg, err, sizeof(err))) {
				fprintf(stderr, "pprobe stat: %s\n", err);
				goto out;
			}
			break;
		case 'a': o.all_cpus = 1; break;
		case 'C': o.cpu_list = optarg; break;
		case 'p': o.pids = optarg; break;
		case 't': o.tids = optarg; break;
		case 'I':
			o.interval_ms = atol(optarg);
			if (o.interval_ms < 10) {
				fprintf(stderr, "pprobe stat: -I needs at least 10 (milliseconds)\n");
				goto out;
			}
			break;
		case 'r':
			o.repeat = atoi(optarg);
			if (o.repeat < 1) {
				fprintf(stderr, "pprobe stat: -r needs a positive count\n");
				goto out;
			}
			break;
		case 'x': o.sep = optarg; break;
		case 'j': o.json = 1; break;
		case 'o': outpath = optarg; break;
		case 'h':
			usage(stdout);
			ret = 0;
			goto out;
		default:
			usage(stderr);
			goto out;
		}
	}
	char **cmd = optind < argc ? argv + optind : NULL;
	if (!cmd && !o.all_cpus && !o.cpu_list && !o.pids && !o.tids) {
		fprintf(stderr, "pprobe stat: nothing to count: give a command, -a, -C, -p or -t\n");
		usage(stderr);
		goto out;
	}
	if (o.repeat > 1 && (!cmd || o.all_cpus || o.cpu_list || o.pids || o.tids)) {
		fprintf(stderr, "pprobe stat: -r repeats a command (without -a/-C/-p/-t)\n");
		goto out;
	}
	if (o.sep && o.json) {
		fprintf(stderr, "pprobe stat: -x and --json exclude each other\n");
		goto out;
	}
	if (!l.nr && event_list__add(&l, "task-clock,context-switches,cpu-migrations,page-faults", err, sizeof(err))) {
		fprintf(stderr, "pprobe stat: %s\n", err);
		goto out;
	}
	if (o.cpu_list && (nr_cpus = parse_list(o.cpu_list, &cpus)) <= 0) {
		fprintf(stderr, "pprobe stat: bad CPU list '%s' (e.g. 0-3,6)\n", o.cpu_list);
		goto out;
	}
	if (o.all_cpus && !o.cpu_list && (nr_cpus = online_cpus(&cpus)) <= 0) {
		fprintf(stderr, "pprobe stat: cannot read /sys/devices/system/cpu/online\n");
		ret = 1;
		goto out;
	}
	if ((o.pids && (nr_tids = threads_of(o.pids, &tids)) <= 0) ||
	    (o.tids && (nr_tids = parse_list(o.tids, &tids)) <= 0)) {
		fprintf(stderr, "pprobe stat: bad pid/tid list '%s'\n", o.pids ? o.pids : o.tids);
		goto out;
	}
	if (nr_tids && nr_cpus) {
		fprintf(stderr, "pprobe stat: -p/-t and -a/-C exclude each other\n");
		goto out;
	}
	if (outpath && !(o.out = fopen(outpath, "we"))) {
		fprintf(stderr, "pprobe stat: cannot write %s: %s\n", outpath, strerror(errno));
		o.out = stderr;
		ret = 1;
		goto out;
	}
	cs = calloc(l.nr, sizeof(*cs));
	if (!cs) {
		ret = 1;
		goto out;
	}

	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	int status = 0;
	double elapsed = 0, el_sum = 0;
	for (int r = 0; r < o.repeat && !stop; r++) {
		int r1 = run_once(&o, &l, cs, cmd, cpus, nr_cpus, tids, nr_tids, &status, &elapsed);
		if (r1) {
			ret = r1;
			goto out;
		}
		el_sum += elapsed;
		for (size_t e = 0; e < l.nr; e++) {
			double v;
			if (!cs[e].unsupported && scaled(cs[e].val, cs[e].ena, cs[e].run, &v)) {
				cs[e].sum += v;
				cs[e].sumsq += v * v;
				cs[e].runs++;
			}
		}
	}
	if (!o.interval_ms) {
		if (!o.sep && !o.json) {
			fprintf(o.out, "\n Performance counter stats for ");
			if (nr_cpus) {
				if (o.all_cpus && !o.cpu_list)
					fprintf(o.out, "'system wide'");
				else
					fprintf(o.out, "CPU(s) %s", o.cpu_list);
			} else if (nr_tids) {
				fprintf(o.out, "%s %s", o.pids ? "process id" : "thread id", o.pids ? o.pids : o.tids);
			} else {
				fprintf(o.out, "'");
				for (char **a = cmd; *a; a++)
					fprintf(o.out, "%s%s", a == cmd ? "" : " ", *a);
				fprintf(o.out, "'");
			}
			if (o.repeat > 1)
				fprintf(o.out, " (%d runs)", o.repeat);
			fprintf(o.out, ":\n\n");
		}
		for (size_t e = 0; e < l.nr; e++) {
			struct counter *ct = &cs[e];
			double spread = -1;
			uint64_t val = ct->val, ena = ct->ena, run = ct->run;
			if (o.repeat > 1 && ct->runs) {
				double mean = ct->sum / ct->runs;
				double var = ct->runs > 1 ? (ct->sumsq - ct->runs * mean * mean) / (ct->runs - 1) : 0;
				double sd = var > 0 ? sqrt(var) / sqrt(ct->runs) : 0;   /* of the mean, as perf */
				spread = mean > 0 ? 100.0 * sd / mean : 0;
				val = (uint64_t)(mean + 0.5);
				ena = run = 1;
			}
			print_line(&o, ct, cs, (int)l.nr, val, ena, run, el_sum / o.repeat, -1, spread);
		}
		if (!o.sep && !o.json)
			fprintf(o.out, "\n%17.9f seconds time elapsed\n\n", el_sum / o.repeat);
	}
	ret = cmd ? status : 0;
out:
	if (o.out && o.out != stderr)
		fclose(o.out);
	free(cs);
	free(cpus);
	free(tids);
	event_list__exit(&l);
	return ret;
}
