/* sigguard.h: stop signals counted by the watcher thread; the second one
 * ends the process from that thread, after the undo functions, last
 * registered first, and after a held section is released; the process dies
 * of the signal. An outfile's temporary goes with it. Each case runs in a
 * child process of its own, which the test watches through a pipe. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sigguard.h"
#include "util.h"

#include "check.h"

static int report_fd = -1;

static void say(const char *what)
{
	if (write(report_fd, what, strlen(what)) < 0)
		_exit(99);
}

static void undo_a(void *arg)
{
	(void)arg;
	say("a");
}

static void undo_b(void *arg)
{
	(void)arg;
	say("b");
}

static void undo_forgotten(void *arg)
{
	(void)arg;
	say("F");
}

static bool wait_count(unsigned n)
{
	for (int i = 0; i < 400; i++) {
		if (sigguard__count() >= n)
			return true;
		usleep(5000);
	}
	return false;
}

/* The child: two stop signals; between them it looks at what the first did. */
static void child(const char *tmpdir)
{
	if (sigguard__start(2))
		_exit(98);
	sigguard__on_exit_now(undo_a, NULL);
	sigguard__on_exit_now(undo_forgotten, NULL);
	sigguard__on_exit_now(undo_b, NULL);
	sigguard__forget(undo_forgotten, NULL);
	char path[256];
	snprintf(path, sizeof(path), "%s/out.txt", tmpdir);
	struct outfile of;
	if (outfile__open(&of, path))
		_exit(97);
	fputs("partial\n", of.f);
	fflush(of.f);

	kill(getpid(), SIGTERM);
	if (!wait_count(1))
		_exit(96);
	uint64_t v = 0;
	struct pollfd p = { .fd = sigguard__fd(), .events = POLLIN };
	bool readable = poll(&p, 1, 1000) == 1 && read(sigguard__fd(), &v, sizeof(v)) == (ssize_t)sizeof(v);
	say(readable && v == 1 && sigguard__first() == SIGTERM ? "1" : "x");

	sigguard__hold();
	usleep(150000);	/* closer than 0.1 s it would be the same request */
	kill(getpid(), SIGINT);
	if (!wait_count(2))
		_exit(95);
	usleep(200000);
	say("h");	/* still alive while held */
	sigguard__release();
	sleep(10);	/* the watcher ends us meanwhile */
	say("z");
	_exit(0);
}

int main(void)
{
	char dir[] = "/tmp/pprobe-sigguard.XXXXXX";
	if (!mkdtemp(dir))
		return check_skip("no temporary directory: %s", strerror(errno));
	alarm(30);
	int p[2];
	if (pipe(p))
		return check_skip("pipe: %s", strerror(errno));
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		report_fd = p[1];
		child(dir);
	}
	close(p[1]);
	char got[32] = "";
	size_t len = 0;
	ssize_t r;
	while (len < sizeof(got) - 1 && (r = read(p[0], got + len, sizeof(got) - 1 - len)) > 0)
		len += (size_t)r;
	got[len] = '\0';
	int st = 0;
	waitpid(pid, &st, 0);

	/* "1": the first signal counted, said on the eventfd, the process alive;
	 * "h": the second waited for the release; "ba": undo, last first, the
	 * forgotten one not run; no "z": it never woke from its sleep. */
	CHECK_STREQ(got, "1hba");
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGINT, "died of the second signal (SIGINT): status 0x%x",
	      (unsigned)st);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "ls %s | grep -c out.txt > /dev/null", dir);
	CHECK(system(cmd) != 0, "neither out.txt nor its temporary left in %s", dir);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd)) {
		/* a leftover directory in /tmp is not the test's failure */
	}
	return check_summary();
}
