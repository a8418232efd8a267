#define _GNU_SOURCE
#include "sigguard.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#define MAX_UNDO 16

static struct {
	pthread_mutex_t lock;
	pthread_cond_t released;
	int sfd, efd;
	atomic_int at_once;
	atomic_uint count;
	atomic_int first;
	int held;
	struct {
		void (*fn)(void *);
		void *arg;
	} undo[MAX_UNDO];
	int nr_undo;
	bool started;
} g = { .lock = PTHREAD_MUTEX_INITIALIZER, .released = PTHREAD_COND_INITIALIZER, .sfd = -1, .efd = -1 };

static sigset_t stop_sigs(void)
{
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGINT);
	sigaddset(&s, SIGTERM);
	sigaddset(&s, SIGHUP);
	return s;
}

static const char *sig_name(int sig)
{
	return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP" : "a signal";
}

/* In the watcher: undo what would outlive us, then die of sig, the n'th
 * stop signal. */
static void exit_now(int sig, unsigned n)
{
	pthread_mutex_lock(&g.lock);
	/* a section that must not be cut: a moment (bounded) to finish it */
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 2;
	while (g.held && pthread_cond_timedwait(&g.released, &g.lock, &until) != ETIMEDOUT)
		;
	/* the undo list stays locked: nothing registers or forgets from now on */
	if (n > 1) {
		char msg[96];
		int len = snprintf(msg, sizeof(msg), "pprobe: %s again: stopping at once\n", sig_name(sig));
		if (len > 0 && write(2, msg, (size_t)len) < 0) {
			/* nothing to be done about stderr */
		}
	}
	for (int i = g.nr_undo - 1; i >= 0; i--)
		g.undo[i].fn(g.undo[i].arg);
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, sig);
	signal(sig, SIG_DFL);
	pthread_sigmask(SIG_UNBLOCK, &s, NULL);
	raise(sig);
	_exit(128 + sig);
}

/* Signals this close to the last one counted are the same request:
 * timeout(1) sends its signal to pprobe and then to pprobe's whole process
 * group, pprobe included, and the two may arrive apart. */
#define SAME_REQUEST_NS 100000000LL

static long long mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void *watch(void *arg)
{
	(void)arg;
	long long last = 0;
	for (;;) {
		struct signalfd_siginfo si;
		ssize_t r = read(g.sfd, &si, sizeof(si));
		if (r != (ssize_t)sizeof(si)) {
			if (r < 0 && errno == EINTR)
				continue;
			return NULL;
		}
		int sig = (int)si.ssi_signo;
		long long now = mono_ns();
		if (last && now - last < SAME_REQUEST_NS)
			continue;
		last = now;
		int expected = 0;
		atomic_compare_exchange_strong(&g.first, &expected, sig);
		unsigned n = atomic_fetch_add(&g.count, 1) + 1;
		uint64_t one = 1;
		if (write(g.efd, &one, sizeof(one)) < 0) {
			/* the counter is full: it is readable anyway */
		}
		if (n >= (unsigned)atomic_load(&g.at_once))
			exit_now(sig, n);
	}
}

int sigguard__start(int at_once)
{
	atomic_store(&g.at_once, at_once < 1 ? 1 : at_once);
	if (g.started)
		return 0;
	sigset_t s = stop_sigs(), old;
	pthread_sigmask(SIG_BLOCK, &s, &old);
	g.sfd = signalfd(-1, &s, SFD_CLOEXEC);
	g.efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	pthread_t t;
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	/* The watcher blocks every signal: what the main thread takes (SIGCHLD
	 * for its own signalfd, SIGPIPE) must never land here instead. */
	sigset_t all, mine;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &mine);
	int err = g.sfd < 0 || g.efd < 0 ? errno : pthread_create(&t, &a, watch, NULL);
	pthread_sigmask(SIG_SETMASK, &mine, NULL);
	pthread_attr_destroy(&a);
	if (err) {
		if (g.sfd >= 0)
			close(g.sfd);
		if (g.efd >= 0)
			close(g.efd);
		g.sfd = g.efd = -1;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		return -err;
	}
	g.started = true;
	return 0;
}

unsigned sigguard__count(void)
{
	return atomic_load(&g.count);
}

bool sigguard__asked(void *arg)
{
	(void)arg;
	return sigguard__count() > 0;
}

int sigguard__first(void)
{
	return atomic_load(&g.first);
}

int sigguard__fd(void)
{
	return g.efd;
}

void sigguard__unblock_in_child(void)
{
	sigset_t s = stop_sigs();
	sigprocmask(SIG_UNBLOCK, &s, NULL);
}

void sigguard__hold(void)
{
	pthread_mutex_lock(&g.lock);
	g.held++;
	pthread_mutex_unlock(&g.lock);
}

void sigguard__release(void)
{
	pthread_mutex_lock(&g.lock);
	if (g.held > 0 && --g.held == 0)
		pthread_cond_broadcast(&g.released);
	pthread_mutex_unlock(&g.lock);
}

int sigguard__on_exit_now(void (*fn)(void *), void *arg)
{
	int ret = 0;
	pthread_mutex_lock(&g.lock);
	if (g.nr_undo < MAX_UNDO) {
		g.undo[g.nr_undo].fn = fn;
		g.undo[g.nr_undo].arg = arg;
		g.nr_undo++;
	} else {
		ret = -ENOSPC;
	}
	pthread_mutex_unlock(&g.lock);
	return ret;
}

void sigguard__forget(void (*fn)(void *), void *arg)
{
	pthread_mutex_lock(&g.lock);
	for (int i = g.nr_undo - 1; i >= 0; i--)
		if (g.undo[i].fn == fn && g.undo[i].arg == arg) {
			memmove(&g.undo[i], &g.undo[i + 1], (size_t)(g.nr_undo - i - 1) * sizeof(g.undo[0]));
			g.nr_undo--;
			break;
		}
	pthread_mutex_unlock(&g.lock);
}
