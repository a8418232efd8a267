/* The collect engine's targets: -p's processes and their threads, -t's
 * threads, -C's CPUs (each checked to be online) or every online CPU, what
 * already exists of them put into the session, and whether they are gone. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect_internal.h"

static int parse_id_list(const char *s, pid_t **out)
{
	pid_t *v = NULL;
	int nr = 0;
	const char *p = s;
	while (*p) {
		char *end;
		long x = strtol(p, &end, 10);
		if (end == p || x <= 0 || x > INT_MAX || (*end && *end != ',')) {
			free(v);
			return -EINVAL;
		}
		v = pp_xrealloc(v, (size_t)(nr + 1) * sizeof(*v));
		v[nr++] = (pid_t)x;
		p = *end ? end + 1 : end;
	}
	if (!nr)
		return -EINVAL;
	*out = v;
	return nr;
}

/* All threads of the given processes (collect_internal.h). */
int collect_threads_of(const pid_t *pids, int nr, pid_t **out, pid_t *missing)
{
	pid_t *v = NULL;
	int n = 0;
	for (int i = 0; i < nr; i++) {
		char path[64];
		snprintf(path, sizeof(path), "/proc/%d/task", pids[i]);
		DIR *d = opendir(path);
		if (!d) {
			*missing = pids[i];
			free(v);
			return -ESRCH;
		}
		struct dirent *de;
		while ((de = readdir(d))) {
			pid_t tid = (pid_t)atoi(de->d_name);
			if (tid <= 0)
				continue;
			v = pp_xrealloc(v, (size_t)(n + 1) * sizeof(*v));
			v[n++] = tid;
		}
		closedir(d);
	}
	*out = v;
	return n;
}

/* The CPUs to open on: -C's list, each checked to be online, or every
 * online CPU. 0, or a negative errno (collect.h) with err saying why. */
int collect_target_cpus(const struct collect_opts *opts, int **cpus_out, int *nr_out, char *err, size_t len)
{
	int *cpus = NULL, nr_cpus;

	if (!opts->cpu_list) {
		nr_cpus = cpulist__online(&cpus);
		if (nr_cpus < 0) {
			seterr(err, len, "cannot read the online CPUs: %s", strerror(-nr_cpus));
			return collect_failed(nr_cpus);
		}
		*cpus_out = cpus;
		*nr_out = nr_cpus;
		return 0;
	}
	nr_cpus = cpulist__parse(opts->cpu_list, &cpus);
	if (nr_cpus < 0) {
		seterr(err, len, "bad CPU list '%s' (expected e.g. 0-3,5)", opts->cpu_list);
		return -EINVAL;
	}
	int *online, nr_online = cpulist__online(&online);
	for (int i = 0; i < nr_cpus && nr_online > 0; i++) {
		bool ok = false;
		for (int k = 0; k < nr_online; k++)
			ok |= online[k] == cpus[i];
		if (!ok) {
			seterr(err, len, "CPU %d is not online (online: %d-%d)", cpus[i], online[0],
			       online[nr_online - 1]);
			free(online);
			free(cpus);
			return -EINVAL;
		}
	}
	if (nr_online > 0)
		free(online);
	*cpus_out = cpus;
	*nr_out = nr_cpus;
	return 0;
}

/* The threads to open on: those of -p's processes, -t's threads, -1 (every
 * task) for -a or -C, or none yet when the command to be started is the
 * target (*on_command: its pid comes when it is forked). Sets
 * c->target_pids for -p and -t. 0, or a negative errno (collect.h) with err
 * saying why. */
int collect_target_tasks(struct collect *c, const struct collect_opts *opts, pid_t **tids_out, int *nr_out,
			 bool *on_command, char *err, size_t len)
{
	*tids_out = NULL;
	*on_command = false;
	if (opts->pid_list || opts->tid_list) {
		const char *list = opts->pid_list ? opts->pid_list : opts->tid_list;
		pid_t *ids;
		int n = parse_id_list(list, &ids);
		if (n < 0) {
			seterr(err, len, "bad %s list '%s' (expected e.g. 1234,5678)", opts->pid_list ? "PID" : "TID",
			       list);
			return -EINVAL;
		}
		if (opts->pid_list) {
			pid_t missing = 0;
			*nr_out = collect_threads_of(ids, n, tids_out, &missing);
			if (*nr_out < 0) {
				seterr(err, len, "no such process: %d", missing);
				free(ids);
				return -ESRCH;
			}
			c->target_pids = ids;
			c->nr_target_pids = n;
			return 0;
		}
		for (int i = 0; i < n; i++) {
			char path[64];
			snprintf(path, sizeof(path), "/proc/%d", ids[i]);
			if (access(path, F_OK)) {
				seterr(err, len, "no such thread: %d", ids[i]);
				free(ids);
				return -ESRCH;
			}
		}
		*tids_out = ids;
		*nr_out = n;
		/* A thread is followed on every CPU without inherit. */
		c->target_pids = pp_xmalloc((size_t)n * sizeof(pid_t));
		memcpy(c->target_pids, ids, (size_t)n * sizeof(pid_t));
		c->nr_target_pids = n;
		return 0;
	}
	if (opts->system_wide || opts->cpu_list || !opts->argv) {
		if (!opts->system_wide && !opts->cpu_list && !opts->argv) {
			seterr(err, len, "nothing to record: give a command, -p PID, -t TID, -a or -C CPUS");
			return -EINVAL;
		}
		*tids_out = pp_xmalloc(sizeof(pid_t));
		(*tids_out)[0] = -1;
		*nr_out = 1;
		return 0;
	}
	*on_command = true;
	*nr_out = 1;
	return 0;
}

/* What exists already, into the session: the sideband only tells us about
 * changes. */
void collect_synthesize_targets(struct collect *c, const pid_t *tids, int nr_tids)
{
	const struct collect_opts *opts = &c->opts;

	if (opts->counting)
		return;	/* counting needs no process table */
	if (opts->system_wide || opts->cpu_list) {
		session__synthesize_all(&c->session);
	} else if (opts->pid_list) {
		for (int i = 0; i < c->nr_target_pids; i++)
			session__synthesize_pid(&c->session, c->target_pids[i]);
	} else if (opts->tid_list) {
		for (int i = 0; i < nr_tids; i++) {
			char path[64], buf[256];
			/* The thread's process: Tgid from status. */
			snprintf(path, sizeof(path), "/proc/%d/status", tids[i]);
			FILE *f = fopen(path, "re");
			pid_t tgid = tids[i];
			while (f && fgets(buf, sizeof(buf), f))
				if (!strncmp(buf, "Tgid:", 5))
					tgid = atoi(buf + 5);
			if (f)
				fclose(f);
			session__synthesize_pid(&c->session, tgid);
		}
	}
}

bool collect_targets_gone(struct collect *c)
{
	if (!c->nr_target_pids)
		return false;
	for (int i = 0; i < c->nr_target_pids; i++) {
		char path[64];
		snprintf(path, sizeof(path), "/proc/%d/stat", c->target_pids[i]);
		FILE *f = fopen(path, "re");
		if (!f)
			continue;
		char buf[512];
		char *ok = fgets(buf, sizeof(buf), f);
		fclose(f);
		char *rp = ok ? strrchr(buf, ')') : NULL;
		if (rp && rp[1] == ' ' && rp[2] != 'Z' && rp[2] != 'X')
			return false;
	}
	return true;
}
