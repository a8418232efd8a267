/* SIGINT, SIGTERM and SIGHUP, taken by a thread of their own.
 *
 * pprobe blocks these signals in every thread and reads them from a
 * signalfd in a watcher thread, so that they act at every stage, whatever
 * the main thread is doing: inside libdw, writing into a pipe nobody reads,
 * making probes. The first stop signal asks pprobe to stop (commands poll
 * sigguard__count() or sigguard__fd()); the at_once'th one ends pprobe at
 * once: the watcher runs the registered undo functions (temporary output
 * files, the followed command, temporary probes), says so on stderr and
 * dies of the signal. Sections that must not be cut in the middle
 * (writing a set of probe definitions) hold the guard: an ending signal
 * waits for the release. */
#ifndef PPROBE_SIGGUARD_H
#define PPROBE_SIGGUARD_H

#include <stdbool.h>

/* Block the three signals in the calling thread (call it before any other
 * thread starts: they inherit the mask) and start the watcher. at_once:
 * the stop signal that ends pprobe at once (1: the first, for commands
 * that never look; 2: the second). Again: only sets at_once. 0, or
 * -errno (the signals then keep their default action). */
int sigguard__start(int at_once);

/* Stop signals received so far, and the first of them (0: none). */
unsigned sigguard__count(void);
/* sigguard__count() > 0, as a cancel predicate (arg unused). */
bool sigguard__asked(void *arg);
int sigguard__first(void);
/* An eventfd that becomes readable at each stop signal (read it to clear
 * it); -1 without a guard. */
int sigguard__fd(void);

/* The signals that a child should get back unblocked after fork(). */
void sigguard__unblock_in_child(void);

/* No ending at once between hold and release (nested). Never hold for
 * long: the user's second ^C waits for it. */
void sigguard__hold(void);
void sigguard__release(void);

/* Run fn(arg) when a signal ends pprobe at once, from the watcher thread,
 * while the main thread may be anywhere: fn may only do what is safe
 * against that (unlink, kill, fork a helper). Last registered runs first.
 * Forget it when what it undoes is gone. 0, or -ENOSPC. */
int sigguard__on_exit_now(void (*fn)(void *), void *arg);
void sigguard__forget(void (*fn)(void *), void *arg);

#endif
