/* tracefs: discovery, mounting it when absent (as root, in a private mount
 * namespace so the machine is untouched), the message when it cannot be
 * mounted, files, the event list, error_log. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "event_spec.h"
#include "tracefs.h"

#include "check.h"

#define TRACEFS_MAGIC 0x74726163

/* In a child with a private mount namespace and no tracefs/debugfs mounted:
 * run FN, whose return is the exit status (0 ok). */
static int in_namespace_without_tracefs(int (*fn)(void))
{
	pid_t pid = fork();
	if (pid == 0) {
		if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
			perror("unshare/mount private");
			_exit(77);
		}
		/* debugfs would automount tracefs under debug/tracing: remove both */
		for (int i = 0; i < 8; i++) {
			umount2("/sys/kernel/debug/tracing", MNT_DETACH);
			umount2("/sys/kernel/debug", MNT_DETACH);
			umount2("/sys/kernel/tracing", MNT_DETACH);
		}
		struct statfs sf;
		if (statfs("/sys/kernel/tracing", &sf) == 0 && sf.f_type == TRACEFS_MAGIC) {
			fprintf(stderr, "could not unmount tracefs in the namespace\n");
			_exit(77);
		}
		tracefs__set_root(NULL);   /* forget what the parent discovered */
		_exit(fn());
	}
	int st;
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int mounts_it(void)
{
	const char *root = tracefs__root();
	struct statfs sf;
	if (!root) {
		fprintf(stderr, "tracefs__root: %s\n", strerror(errno));
		return 1;
	}
	if (strcmp(root, "/sys/kernel/tracing") || statfs(root, &sf) || sf.f_type != TRACEFS_MAGIC) {
		fprintf(stderr, "root %s not a tracefs\n", root);
		return 2;
	}
	/* and it is usable right away */
	struct event_list l;
	char err[1024];
	event_list__init(&l);
	int r = event_list__add(&l, "sched:sched_switch", err, sizeof(err));
	event_list__exit(&l);
	if (r) {
		fprintf(stderr, "%s\n", err);
		return 3;
	}
	return 0;
}

static int cannot_mount_as_nobody(void)
{
	if (setgid(65534) || setuid(65534))
		return 77;
	errno = 0;
	if (tracefs__root() || errno != ENOENT) {
		fprintf(stderr, "tracefs__root as nobody: %s\n", strerror(errno));
		return 1;
	}
	char msg[512];
	tracefs__strerror(errno, msg, sizeof(msg));
	if (!strstr(msg, "tracefs is not mounted and only root can mount it") ||
	    !strstr(msg, "mount -t tracefs nodev /sys/kernel/tracing")) {
		fprintf(stderr, "message: %s\n", msg);
		return 2;
	}
	struct event_list l;
	char err[1024];
	event_list__init(&l);
	int r = event_list__add(&l, "cpu-clock,sched:sched_switch", err, sizeof(err));
	if (r != -ENOENT || l.nr != 0 || !strstr(err, "cannot use tracepoint 'sched:sched_switch': tracefs is not mounted")) {
		fprintf(stderr, "event_list__add: %d %s\n", r, err);
		return 3;
	}
	/* non-tracepoint events need no tracefs */
	r = event_list__add(&l, "cpu-clock,cs", err, sizeof(err));
	event_list__exit(&l);
	if (r) {
		fprintf(stderr, "cpu-clock without tracefs: %s\n", err);
		return 4;
	}
	return 0;
}

int main(void)
{
	const char *root = tracefs__root();
	if (!root) {
		char m[512];
		tracefs__strerror(errno, m, sizeof(m));
		return check_skip("%s", m);
	}
	CHECK(!strcmp(root, "/sys/kernel/tracing") || !strcmp(root, "/sys/kernel/debug/tracing"), "%s", root);

	/* files */
	size_t len;
	char *s = tracefs__read_file("events/sched/sched_switch/id", &len);
	CHECK(s && len > 1 && atoi(s) == tracefs__event_id("sched", "sched_switch"), "id file");
	free(s);
	errno = 0;
	CHECK(!tracefs__read_file("events/nosuch/nosuch/id", NULL) && errno == ENOENT, "missing file");
	CHECK(tracefs__event_id("sched", "nosuch") == -ENOENT, "missing event");
	CHECK(tracefs__event_id("..", "sched") == -EINVAL && tracefs__event_id("a/b", "c") == -EINVAL, "no escaping");
	char p[64];
	CHECK(tracefs__path(p, sizeof(p), "events") == 0 && !strncmp(p, root, strlen(root)), "path");
	CHECK(tracefs__path(p, 8, "events/sched/sched_switch") == -ENAMETOOLONG, "short path buffer");

	/* the event list is available_events, sorted, once each */
	char **ev;
	int n = tracefs__list_events(&ev);
	char *avail = tracefs__read_file("available_events", NULL);
	int lines = 0;
	for (char *q = avail; q && *q; q++)
		lines += *q == '\n';
	CHECK(n == lines && n > 100, "%d events, available_events has %d lines", n, lines);
	for (int i = 1; i < n; i++)
		CHECK(strcmp(ev[i - 1], ev[i]) < 0, "sorted: %s %s", ev[i - 1], ev[i]);
	free(avail);
	tracefs__free_events(ev, n);

	/* error_log: written by a rejected filter */
	if (geteuid() == 0) {
		char *log = tracefs__error_log();
		if (!log && errno == ENOENT) {
			printf("kernel without tracing/error_log: not tested\n");
		} else {
			free(log);
			CHECK(tracefs__write_file("events/sched/sched_switch/filter", "nosuchfield == 1", 0) < 0,
			      "bad filter accepted");
			tracefs__write_file("events/sched/sched_switch/filter", "0", 0);
			log = tracefs__error_log();
			CHECK(log && strstr(log, "nosuchfield == 1"), "error_log: %s", log ? log : "(null)");
			free(log);
			/* (tracefs__clear_error_log is not exercised: other tests on this
			 * machine may be reading the log) */
		}
	}

	/* mounting when absent, and the message when we may not */
	if (geteuid() == 0) {
		int r = in_namespace_without_tracefs(mounts_it);
		if (r == 77)
			printf("no private mount namespace: mounting not tested\n");
		else
			CHECK(r == 0, "root mounts tracefs when it is absent (%d)", r);
		r = in_namespace_without_tracefs(cannot_mount_as_nobody);
		if (r != 77)
			CHECK(r == 0, "not root, not mounted: explained (%d)", r);
	} else {
		printf("not root: mounting not tested\n");
	}
	struct statfs sf;
	CHECK(statfs(root, &sf) == 0 && sf.f_type == TRACEFS_MAGIC, "the machine's tracefs untouched");

	return check_summary();
}
