/* Test driver for the symbolize library.
 *
 *   symbolize_driver [options] -p PID ADDR...    user addresses of a live process
 *   symbolize_driver [options] -k ADDR...        kernel addresses (/proc/kallsyms)
 *   symbolize_driver [options] -s PID SUBSTR STEP
 *        every STEP bytes of each executable mapping of PID whose path
 *        contains SUBSTR: prints the addresses it symbolized.
 * ADDR "-" reads addresses from stdin, one per line.
 * Options: -r (return addresses), -l (srcline), -I (no inlines),
 *          -N (no demangling), -v (verbose: dso+offset and flags),
 *          -X (symbolizer__prepare every executable file mapping, then kill
 *          PID and wait until it is gone before symbolizing), -Y (kill and
 *          wait without preparing: the control for -X).
 *
 * Default output matches `eu-addr2line -a -f -i [-C]`: "0xADDR" then one
 * line per frame, innermost first, "??" when unknown; with -l each name is
 * followed by "file:line" ("??:0" when unknown). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pprobe/maps.h"
#include "pprobe/symbolize.h"

static bool verbose, srcline, is_return;

static void print(uint64_t addr, const struct sym_frame *f, int n)
{
	printf("0x%016" PRIx64 "\n", addr);
	for (int i = 0; i < n; i++) {
		printf("%s", f[i].name ? f[i].name : "??");
		if (verbose)
			printf("\t%s+0x%" PRIx64 "%s%s%s%s", f[i].dso ? f[i].dso : "?", f[i].offset,
			       f[i].inlined ? " inlined" : "", f[i].kernel ? " kernel" : "",
			       f[i].jit ? " jit" : "", f[i].build_id_mismatch ? " build-id-mismatch" : "");
		printf("\n");
		if (srcline)
			printf("%s:%d\n", f[i].srcfile ? f[i].srcfile : "??", f[i].line);
	}
}

static int one(struct symbolizer *s, pid_t pid, struct maps *maps, bool kernel, uint64_t addr)
{
	struct sym_frame f[64];
	int n;

	if (kernel) {
		n = symbolizer__kernel(s, addr, is_return, f, 64);
	} else {
		const struct map *m = maps__find(maps, is_return ? addr - 1 : addr);

		if (!m) {
			printf("0x%016" PRIx64 "\n?? [unmapped]\n", addr);
			return 0;
		}
		n = symbolizer__user(s, pid, m, addr, is_return, f, 64);
	}
	if (n < 0) {
		fprintf(stderr, "symbolize 0x%" PRIx64 ": %s\n", addr, strerror(-n));
		return 1;
	}
	print(addr, f, n);
	return 0;
}

int main(int argc, char **argv)
{
	struct symbolizer_opts o;
	struct symbolizer *s;
	struct maps *maps = NULL;
	pid_t pid = 0;
	bool kernel = false, scan = false, prepare = false, kill_first = false;
	int c, rc = 0;

	symbolizer_opts__init(&o);
	while ((c = getopt(argc, argv, "p:s:krlINCvXY")) != -1) {
		switch (c) {
		case 'p': pid = atoi(optarg); break;
		case 's': pid = atoi(optarg); scan = true; break;
		case 'k': kernel = true; break;
		case 'r': is_return = true; break;
		case 'l': srcline = o.srcline = true; break;
		case 'I': o.inlines = false; break;
		case 'N': o.demangle = false; break;
		case 'C': o.demangle = true; break;	/* eu-addr2line spelling */
		case 'v': verbose = true; break;
		case 'X': prepare = kill_first = true; break;
		case 'Y': kill_first = true; break;
		default:
			fprintf(stderr, "usage: %s [-rlINv] -p PID ADDR... | -k ADDR... | -s PID SUBSTR STEP\n", argv[0]);
			return 2;
		}
	}
	s = symbolizer__new(&o);
	if (!s)
		return 1;
	if (!kernel) {
		maps = maps__new();
		int err = maps ? maps__load_proc(maps, pid) : -ENOMEM;
		if (err) {
			fprintf(stderr, "maps of %d: %s\n", (int)pid, strerror(-err));
			return 1;
		}
	}
	if (prepare)
		for (size_t i = 0; i < maps__count(maps); i++)
			if (maps__at(maps, i)->prot & PROT_EXEC) {
				int err = symbolizer__prepare(s, pid, maps__at(maps, i));
				if (err)
					fprintf(stderr, "prepare %s: %s\n", maps__at(maps, i)->path, strerror(-err));
			}
	if (kill_first && pid > 0) {
		struct maps *probe = maps__new();
		kill(pid, SIGKILL);
		/* gone, or a zombie whose maps are empty (the parent reaps it) */
		for (int i = 0; i < 500 && probe && maps__load_proc(probe, pid) == 0 && maps__count(probe); i++)
			usleep(10000);
		maps__delete(probe);
	}
	if (scan) {
		if (optind + 2 > argc)
			return 2;
		const char *sub = argv[optind];
		uint64_t step = strtoull(argv[optind + 1], NULL, 0);
		for (size_t i = 0; i < maps__count(maps); i++) {
			const struct map *m = maps__at(maps, i);
			if (!(m->prot & PROT_EXEC) || !strstr(m->path, sub))
				continue;
			for (uint64_t a = m->start; a < m->end; a += step)
				rc |= one(s, pid, maps, false, a);
		}
	}
	for (int i = optind; !scan && i < argc; i++) {
		if (!strcmp(argv[i], "-")) {
			char line[128];
			while (fgets(line, sizeof(line), stdin))
				rc |= one(s, pid, maps, kernel, strtoull(line, NULL, 16));
		} else {
			rc |= one(s, pid, maps, kernel, strtoull(argv[i], NULL, 16));
		}
	}
	symbolizer__delete(s);
	maps__delete(maps);
	return rc;
}
