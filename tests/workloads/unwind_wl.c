/* Unwinding ground truth. Compiled -O2 -fomit-frame-pointer (see
 * unwind.cmake). Every mode recurses through recurse() exactly DEPTH times
 * (frames of 256+ bytes), then spins in a known leaf until SECONDS pass:
 *
 *   unwind_wl sort DEPTH SECONDS       leaf_sort -> libc qsort -> cmp_spin
 *   unwind_wl signal DEPTH SECONDS     leaf_signal -> raise -> [signal frame] -> on_usr1 -> spin
 *   unwind_wl qsort DEPTH SECONDS      leaf_qsort -> libc qsort of 300 ints -> cmp_cheap: the time
 *                                      goes to glibc's msort_with_tmp, its epilogues included
 *   unwind_wl threads DEPTH SECONDS    4 threads, each recurse(DEPTH) -> leaf_sort
 *   unwind_wl dlopen DEPTH SECONDS     leaf_plugin -> plugin_run (dlopen'd .so, 5 levels) -> leaf_sort
 *   unwind_wl inline DEPTH SECONDS     leaf_inline with always-inline helpers
 *   unwind_wl vdso DEPTH SECONDS       leaf_vdso -> clock_gettime in [vdso]
 *   unwind_wl nocfi DEPTH SECONDS      leaf_nocfi -> nocfi_call (no CFI, frame pointer) -> leaf_sort
 *   unwind_wl nofp DEPTH SECONDS       leaf_nofp -> nocfi_nofp_call (no CFI, no fp) -> leaf_sort
 *   unwind_wl opaque DEPTH SECONDS     leaf_opaque -> nocfi_opaque_call (no CFI, no fp, %rsp
 *                                      restored from a register) -> leaf_sort
 *   unwind_wl nocfileaf DEPTH SECONDS  leaf_nocfileaf -> nocfi_leaf_spin (no CFI, no fp, a leaf
 *                                      that pushes nothing: its return address at sp)
 *   unwind_wl entrylib DEPTH SECONDS   leaf_entrylib -> nocfi_call in libunwind_entrylib.so, whose
 *                                      ELF e_entry is nocfi_call -> leaf_sort
 *   unwind_wl buffer DEPTH SECONDS     leaf_buffer (12 KB buffer) -> fill_spin, which keeps
 *                                      writing the buffer: a 4 KB stack copy ends inside it
 *   unwind_wl exitburst DEPTH N        leaf_exitburst: N prctl(PR_GET_DUMPABLE) calls, then
 *                                      exit(0) from there, at full depth
 *
 * Stacks therefore read, outermost first:
 *   _start __libc_start_main __libc_start_call_main main run recurse*DEPTH leaf_* ...
 * or, in threads: clone3 start_thread thread_main recurse*DEPTH leaf_sort ... */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#ifdef __clang__
#define NOINL __attribute__((noinline))
#else
#define NOINL __attribute__((noinline, noclone))
#endif
#define AINL static inline __attribute__((always_inline))

static volatile sig_atomic_t stop;
volatile unsigned long sink;
static void (*leaf)(void);
static int depth;

static void on_alarm(int sig)
{
	(void)sig;
	stop = 1;
}

NOINL int cmp_spin(const void *a, const void *b)
{
	for (int i = 0; i < 20000; i++)
		sink += i;
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

NOINL void leaf_sort(void)
{
	int v[64];
	while (!stop) {
		for (int i = 0; i < 64; i++)
			v[i] = (i * 7919) % 64;
		qsort(v, 64, sizeof(v[0]), cmp_spin);
	}
}

NOINL int cmp_cheap(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

NOINL void leaf_qsort(void)
{
	int v[300];
	while (!stop) {
		for (int i = 0; i < 300; i++)
			v[i] = (i * 7919) % 300;
		qsort(v, 300, sizeof(v[0]), cmp_cheap);
		sink += (unsigned)v[0];
	}
}

NOINL void spin_in_handler(void)
{
	for (int i = 0; i < 2000000; i++)
		sink += i;
}

static void on_usr1(int sig)
{
	spin_in_handler();
	sink += (unsigned)sig;	/* no tail call: on_usr1 stays on the stack */
}

NOINL void leaf_signal(void)
{
	while (!stop)
		raise(SIGUSR1);
}

AINL unsigned ainl_inner(unsigned x)
{
	for (int i = 0; i < 64; i++)
		x = x * 2654435761u + (unsigned)i;
	return x;
}

AINL unsigned ainl_outer(unsigned x)
{
	return ainl_inner(x) ^ ainl_inner(x + 1);
}

NOINL void leaf_inline(void)
{
	unsigned x = 1;
	while (!stop)
		for (int i = 0; i < 1000; i++)
			sink += x = ainl_outer(x + (unsigned)i);
}

NOINL void leaf_vdso(void)
{
	struct timespec ts;
	while (!stop) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		sink += (unsigned long)ts.tv_nsec;
	}
}

int nocfi_call(void (*fn)(void));	/* unwind_nocfi.c: no CFI */
NOINL void leaf_nocfi(void)
{
	sink += (unsigned long)nocfi_call(leaf_sort);
}

int nocfi_nofp_call(void (*fn)(void));	/* unwind_nocfi_nofp.c: no CFI, no fp */
NOINL void leaf_nofp(void)
{
	sink += (unsigned long)nocfi_nofp_call(leaf_sort);
}

int nocfi_opaque_call(void (*fn)(void));	/* unwind_nocfi_nofp.c: no CFI, no fp, opaque */
NOINL void leaf_opaque(void)
{
	sink += (unsigned long)nocfi_opaque_call(leaf_sort);
}

void nocfi_leaf_spin(unsigned long n);	/* unwind_nocfi_nofp.c: no CFI, no push */
NOINL void leaf_nocfileaf(void)
{
	while (!stop)
		nocfi_leaf_spin(100000);
	sink++;	/* not a tail call */
}

static char plugin_path[PATH_MAX];
static char entrylib_path[PATH_MAX];
/* nocfi_call again, from a library whose ELF e_entry is that function */
NOINL void leaf_entrylib(void)
{
	void *h = dlopen(entrylib_path, RTLD_NOW);
	int (*call)(void (*)(void)) = h ? (int (*)(void (*)(void)))dlsym(h, "nocfi_call") : NULL;
	if (!call) {
		fprintf(stderr, "unwind_wl: %s: %s\n", entrylib_path, dlerror());
		exit(1);
	}
	sink += (unsigned long)call(leaf_sort);
}

NOINL void leaf_plugin(void)
{
	void *h = dlopen(plugin_path, RTLD_NOW);
	if (!h) {
		fprintf(stderr, "unwind_wl: dlopen %s: %s\n", plugin_path, dlerror());
		exit(1);
	}
	int (*run)(int, void (*)(void)) = (int (*)(int, void (*)(void)))dlsym(h, "plugin_run");
	if (!run) {
		fprintf(stderr, "unwind_wl: no plugin_run in %s\n", plugin_path);
		exit(1);
	}
	run(5, leaf_sort);
}

/* The caller's frame holds a buffer its callee keeps rewriting: the end of
 * a stack copy taken in fill_spin lies in bytes that change while every
 * frame stays where it is. */
NOINL void fill_spin(volatile unsigned char *buf, size_t n)
{
	for (unsigned char k = 0; !stop; k++)
		for (size_t i = 0; i < n; i++)
			buf[i] = (unsigned char)(k + i);
}

NOINL void leaf_buffer(void)
{
	volatile unsigned char buf[12288];
	fill_spin(buf, sizeof(buf));
	sink += buf[0];
}

/* A burst of system calls at full depth, then the process exits from
 * there: the samples of the burst are still being unwound when it is gone. */
static int burst_calls;
NOINL void leaf_exitburst(void)
{
	for (int i = 0; i < burst_calls; i++)
		sink += (unsigned long)prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
	exit(0);
}

NOINL int recurse(int n, volatile char *prev)
{
	volatile char frame[256];
	frame[0] = (char)n;
	frame[255] = prev ? prev[1] : 0;
	if (n <= 1) {
		leaf();
		return frame[0];
	}
	int r = recurse(n - 1, frame);
	return r + frame[255];
}

static void *thread_main(void *arg)
{
	(void)arg;
	recurse(depth, NULL);
	return NULL;
}

NOINL int run(const char *mode)
{
	if (!strcmp(mode, "sort")) {
		leaf = leaf_sort;
	} else if (!strcmp(mode, "qsort")) {
		leaf = leaf_qsort;
	} else if (!strcmp(mode, "signal")) {
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_usr1;
		sigaction(SIGUSR1, &sa, NULL);
		leaf = leaf_signal;
	} else if (!strcmp(mode, "inline")) {
		leaf = leaf_inline;
	} else if (!strcmp(mode, "nofp")) {
		leaf = leaf_nofp;
	} else if (!strcmp(mode, "opaque")) {
		leaf = leaf_opaque;
	} else if (!strcmp(mode, "nocfi")) {
		leaf = leaf_nocfi;
	} else if (!strcmp(mode, "vdso")) {
		leaf = leaf_vdso;
	} else if (!strcmp(mode, "buffer")) {
		leaf = leaf_buffer;
	} else if (!strcmp(mode, "exitburst")) {
		leaf = leaf_exitburst;
	} else if (!strcmp(mode, "dlopen")) {
		leaf = leaf_plugin;
	} else if (!strcmp(mode, "entrylib")) {
		leaf = leaf_entrylib;
	} else if (!strcmp(mode, "nocfileaf")) {
		leaf = leaf_nocfileaf;
	} else if (!strcmp(mode, "threads")) {
		pthread_t t[4];
		leaf = leaf_sort;
		for (int i = 0; i < 4; i++)
			if (pthread_create(&t[i], NULL, thread_main, NULL))
				return 1;
		for (int i = 0; i < 4; i++)
			pthread_join(t[i], NULL);
		return 0;
	} else {
		return 2;
	}
	return recurse(depth, NULL) == -1000;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: unwind_wl sort|qsort|signal|threads|dlopen|entrylib|nocfileaf|inline|vdso|nocfi|nofp|opaque|buffer DEPTH SECONDS | exitburst DEPTH N\n");
		return 2;
	}
	depth = atoi(argv[2]);
	/* the plugin sits next to the executable */
	ssize_t n = readlink("/proc/self/exe", plugin_path, sizeof(plugin_path) - 32);
	if (n > 0) {
		plugin_path[n] = 0;
		char *s = strrchr(plugin_path, '/');
		strcpy(s ? s + 1 : plugin_path, "libunwind_plugin.so");
		memcpy(entrylib_path, plugin_path, sizeof(plugin_path));
		s = strrchr(entrylib_path, '/');
		strcpy(s ? s + 1 : entrylib_path, "libunwind_entrylib.so");
	}
	signal(SIGALRM, on_alarm);
	if (!strcmp(argv[1], "exitburst"))
		burst_calls = atoi(argv[3]);
	else
		alarm((unsigned)atoi(argv[3]));
	int rc = run(argv[1]);
	return rc == 2 ? 2 : 0;
}
