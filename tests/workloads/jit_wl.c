/* A JIT in miniature, for the files a profiled program controls (issue 16).
 *
 *   jit_wl MODE SECONDS [PATHFILE]
 *
 * Copies a spin loop (x86-64 machine code: `1: dec %rdi; jnz 1b; ret`) into an
 * anonymous executable mapping and calls it from a second thread for SECONDS,
 * while the main thread forks a child that execs /bin/true (a target with
 * fork, exec and threads). Its JIT map /tmp/perf-PID.map (PID as the process
 * sees itself: 1 as a PID namespace's first process) depends on MODE:
 *   map      "ADDR 40 jitted_spin" (a JIT's ordinary map)
 *   fifo     a FIFO by that name, nothing written (a reader that opens it
 *            blocks until a writer comes: none does)
 *   foreign  the map above, owned by nobody (uid 65534), not by the process
 *   huge     the map's line, then a 3 GB hole: a last line of NUL bytes
 *            with no newline (sparse: it costs the disk nothing)
 *   none     no map
 * The map's path goes to PATHFILE (for the test's cleanup). Exits 0, or 77
 * where the machine code does not run (not x86-64). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double seconds;
static void (*jitted)(unsigned long);

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *spinner(void *arg)
{
	(void)arg;
	for (double end = now() + seconds; now() < end;)
		jitted(1000000);
	return NULL;
}

int main(int argc, char **argv)
{
#if !defined(__x86_64__)
	(void)argc;
	(void)argv;
	fprintf(stderr, "jit_wl: x86-64 machine code only\n");
	return 77;
#else
	static const unsigned char code[] = { 0x48, 0xff, 0xcf, 0x75, 0xfb, 0xc3 };
	if (argc < 3) {
		fprintf(stderr, "usage: jit_wl map|fifo|foreign|huge|none SECONDS [PATHFILE]\n");
		return 2;
	}
	const char *mode = argv[1];
	seconds = atof(argv[2]);
	unsigned char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	memset(p, 0xcc, 4096);
	memcpy(p + 64, code, sizeof(code));
	if (mprotect(p, 4096, PROT_READ | PROT_EXEC))
		return 1;
	jitted = (void (*)(unsigned long))(void *)(p + 64);

	char path[64];
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	unlink(path);	/* a stale one of an earlier process with this pid */
	if (!strcmp(mode, "fifo")) {
		if (mkfifo(path, 0644))
			return perror("mkfifo"), 1;
	} else if (!strcmp(mode, "map") || !strcmp(mode, "foreign") || !strcmp(mode, "huge")) {
		FILE *f = fopen(path, "w");
		if (!f)
			return perror(path), 1;
		fprintf(f, "%lx %x jitted_spin\n", (unsigned long)(p + 64), 40);
		if (!strcmp(mode, "foreign") && fchown(fileno(f), 65534, 65534))
			return perror("fchown"), 1;
		if (fflush(f) || (!strcmp(mode, "huge") && ftruncate(fileno(f), 3LL << 30)))
			return perror("ftruncate"), 1;
		fclose(f);
	} else if (strcmp(mode, "none")) {
		fprintf(stderr, "jit_wl: unknown mode %s\n", mode);
		return 2;
	}
	if (argc > 3) {
		FILE *f = fopen(argv[3], "w");
		if (f) {
			fprintf(f, "%s\n", path);
			fclose(f);
		}
	}
	pthread_t t;
	if (pthread_create(&t, NULL, spinner, NULL))
		return 1;
	pid_t c = fork();
	if (c == 0) {
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	int st = 0;
	if (c > 0)
		waitpid(c, &st, 0);
	pthread_join(t, NULL);
	return c > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
#endif
}
