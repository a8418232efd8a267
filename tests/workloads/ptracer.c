/* ptracer: makes an exact number of ptrace(2) calls, for the syscall tracer
 * (trace --syscalls -e ptrace) and the function tracer (ftrace -T
 * '*sys_ptrace') to count.
 *
 *   ptracer N    fork a child that stops itself; attach (PTRACE_SEIZE), stop
 *                it (PTRACE_INTERRUPT), then N PTRACE_PEEKDATA calls on a
 *                known word, then PTRACE_DETACH; kill and reap the child.
 *
 * So the parent makes N + 3 ptrace calls: SEIZE, INTERRUPT, N PEEKDATA,
 * DETACH. It prints "ptracer: pid P child C peeks N" on stderr. Linked
 * statically so no loader runs first. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile long word = 0x5050726f6265L;	/* "PProbe" */

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 100;
	int st;
	pid_t child = fork();

	if (child < 0)
		return perror("fork"), 1;
	if (child == 0) {
		for (;;)
			pause();
	}
	if (ptrace(PTRACE_SEIZE, child, NULL, NULL) != 0)
		return perror("PTRACE_SEIZE"), 1;
	if (ptrace(PTRACE_INTERRUPT, child, NULL, NULL) != 0)
		return perror("PTRACE_INTERRUPT"), 1;
	if (waitpid(child, &st, 0) != child)
		return perror("waitpid"), 1;
	for (long i = 0; i < n; i++) {
		errno = 0;
		long v = ptrace(PTRACE_PEEKDATA, child, (void *)&word, NULL);
		if (errno != 0 || v != word)
			return fprintf(stderr, "ptracer: PEEKDATA %ld failed\n", i), 1;
	}
	if (ptrace(PTRACE_DETACH, child, NULL, NULL) != 0)
		return perror("PTRACE_DETACH"), 1;
	kill(child, SIGKILL);
	waitpid(child, &st, 0);
	fprintf(stderr, "ptracer: pid %d child %d peeks %ld\n", (int)getpid(), (int)child, n);
	return 0;
}
