/* The collect engine's workload: the command forked and held before its
 * exec until the events are open, released (or said not found), its exit
 * status, and with hold_exits its threads held at their exit (ptrace
 * exit-stops) until their samples are processed. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <elf.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collect_internal.h"
#include "sigguard.h"

/* SIGINT, SIGTERM and SIGHUP belong to the guard's thread (sigguard.h);
 * the signalfd here takes SIGCHLD. */
sigset_t collect_sigs(void)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	return set;
}

/* ---- holding exits ----
 * A DWARF sample copies a few KB of user stack; the unwinder reads the rest
 * from the live process. Samples wait a few ms in the ring, so those taken
 * just before a thread exits would find its stack gone. With hold_exits the
 * command is seized with ptrace for its exit-stops only (PTRACE_O_TRACEEXIT,
 * inherited by the threads and processes it creates): an exiting thread
 * waits, memory intact, until the rings are read and every record up to
 * that moment is processed. Signals and group-stops pass through as they
 * would without us. When ptrace is refused (Yama scope 3, already traced),
 * the command runs untraced. */
static void hold_exits_of(struct collect *c, pid_t pid)
{
	long o = PTRACE_O_TRACEEXIT | PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK;
	c->traced = ptrace(PTRACE_SEIZE, pid, NULL, (void *)o) == 0;
}
/* A tracee stopped (status st): let it go on as it would untraced. An
 * exiting thread notes its sp (samples still queued must not trust the
 * stack below it: those frames have returned) and, when hold, waits in
 * c->held until collect_release_held(). */
static void tracee_stopped(struct collect *c, pid_t pid, int st, bool hold)
{
	int ev = st >> 16, sig = WSTOPSIG(st);
	long inject = 0;
	int req = PTRACE_CONT;
	if (ev == PTRACE_EVENT_EXIT) {
		struct user_regs_struct regs;
		struct iovec io = { &regs, sizeof(regs) };
		if (ptrace(PTRACE_GETREGSET, pid, (void *)NT_PRSTATUS, &io) == 0)
			collect_sp_note(c, pid, now_ns(), regs.rsp);
		c->exits_held++;
		if (hold) {
			if (c->nr_held == c->cap_held) {
				c->cap_held = c->cap_held ? 2 * c->cap_held : 16;
				c->held = pp_xrealloc(c->held, (size_t)c->cap_held * sizeof(*c->held));
			}
			c->held[c->nr_held++] = pid;
			return;
		}
	} else if (ev == PTRACE_EVENT_STOP) {
		if (sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU)
			req = PTRACE_LISTEN;	/* a group-stop: stay stopped, as untraced */
	} else if (ev == 0) {
		inject = sig;		/* signal-delivery-stop: deliver the signal */
	}
	ptrace(req, pid, NULL, (void *)inject);
}

/* Handle the status changes of our command (and, traced, of its tracees):
 * all pending ones, or (block) until the command has exited. hold: keep
 * exiting threads stopped for collect_release_held(). Safe while records are being
 * processed (it processes none itself). */
void collect_reap(struct collect *c, bool hold, bool block)
{
	if (!c->child)
		return;
	int flags = (block ? 0 : WNOHANG) | (c->traced ? __WALL : 0);
	int st;
	pid_t pid;
	while (!(block && c->child_exited) &&
	       (pid = waitpid(c->traced ? -1 : c->child, &st, flags)) > 0) {
		if (WIFSTOPPED(st)) {
			tracee_stopped(c, pid, st, hold);
		} else if (pid == c->child && !c->child_exited) {
			c->child_status = st;
			c->child_exited = true;
			c->stop = true;
		}
	}
}

/* Let the held threads finish exiting; first (when drain) process every
 * record taken before now, while their stacks are still there. */
void collect_release_held(struct collect *c, bool drain)
{
	if (!c->nr_held)
		return;
	if (drain)
		collect_drain_until(c, now_ns());
	if (c->before_task)	/* samples still being unwound elsewhere */
		c->before_task(c, -1);
	for (int i = 0; i < c->nr_held; i++)
		ptrace(PTRACE_CONT, c->held[i], NULL, NULL);
	c->nr_held = 0;
}

/* Ending at once (sigguard.h): the command is asked to end, as
 * collect__cleanup asks first; held, it exits without running anyway. */
void collect_child_exit_now(void *arg)
{
	const struct collect *c = arg;
	if (c->child > 0 && !c->child_exited)
		kill(c->child, SIGTERM);
}

int collect_start_child(struct collect *c, bool hold_until_go, char *err, size_t len)
{
	int go[2], errp[2];
	if (pipe2(go, O_CLOEXEC)) {
		int e = errno;
		seterr(err, len, "pipe: %s", strerror(e));
		return collect_failed(-e);
	}
	if (pipe2(errp, O_CLOEXEC)) {
		int e = errno;
		close(go[0]);
		close(go[1]);
		seterr(err, len, "pipe: %s", strerror(e));
		return collect_failed(-e);
	}
	sigset_t sigs = collect_sigs();
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		for (int i = 0; i < 2; i++) {
			close(go[i]);
			close(errp[i]);
		}
		seterr(err, len, "fork: %s", strerror(e));
		return collect_failed(-e);
	}
	if (pid == 0) {
		sigprocmask(SIG_UNBLOCK, &sigs, NULL);
		sigguard__unblock_in_child();
		close(go[1]);
		close(errp[0]);
		if (c->opts.child_stdout_to_stderr && dup2(2, 1) < 0)
			_exit(126);	/* the child's exit, not pprobe's */
		if (c->opts.child_stdio_null) {
			int nul = open("/dev/null", O_RDWR | O_CLOEXEC);
			if (nul < 0 || dup2(nul, 0) < 0 || dup2(nul, 1) < 0 || dup2(nul, 2) < 0)
				_exit(126);	/* the child's exit, not pprobe's */
		}
		if (hold_until_go) {
			char b;
			/* EOF without a byte: pprobe gave up; do not run the command. */
			if (read(go[0], &b, 1) != 1)
				_exit(127);	/* the child's exit, not pprobe's */
		}
		execvp(c->opts.argv[0], c->opts.argv);
		int e = errno;
		if (write(errp[1], &e, sizeof(e)) < 0) {
			/* nothing more to tell */
		}
		_exit(e == ENOENT ? 127 : 126);	/* the child's exit, not pprobe's */
	}
	close(go[0]);
	close(errp[1]);
	if (c->opts.hold_exits)
		hold_exits_of(c, pid);
	c->child = pid;
	c->child_go_fd = go[1];
	c->child_err_fd = errp[0];
	sigguard__on_exit_now(collect_child_exit_now, c);
	return 0;
}

/* Release the child; returns 0 once it has exec'd, or -ECHILD with err
 * saying why and c->exec_errno the exec's errno (ENOENT: not found). */
int collect_release_child(struct collect *c, char *err, size_t len)
{
	if (c->child_go_fd >= 0) {
		if (write(c->child_go_fd, "g", 1) != 1) {
			/* the child is gone; the error pipe tells */
		}
		close(c->child_go_fd);
		c->child_go_fd = -1;
	}
	int e = 0;
	ssize_t n = read(c->child_err_fd, &e, sizeof(e));
	close(c->child_err_fd);
	c->child_err_fd = -1;
	if (n == (ssize_t)sizeof(e)) {
		seterr(err, len, "cannot run '%s': %s", c->opts.argv[0], strerror(e));
		collect_reap(c, false, true);
		c->child = 0;
		c->child_exited = false;
		c->exec_errno = e;
		return -ECHILD;
	}
	return 0;
}

int collect__exit_status(const struct collect *c)
{
	if (!c->child || !c->child_exited)
		return 0;
	if (WIFEXITED(c->child_status))
		return WEXITSTATUS(c->child_status);
	if (WIFSIGNALED(c->child_status))
		return 128 + WTERMSIG(c->child_status);
	return 1;
}
