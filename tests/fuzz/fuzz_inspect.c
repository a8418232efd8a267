/* ELF and DWARF through the inspector: the input as a file (a memfd)
 * opened with probe_finder__new, as `pprobe -x BIN` does, then -F
 * (probe_finder__functions), and for the first functions listed -V
 * (probe_finder__find with variables, externs and ranges), -L with
 * disassembly (probe_finder__lines), the function's %return, and -L of
 * the source file the first listing names. */
#include <pprobe/probe_finder.h>

#include "fuzz.h"

#define MAX_FUNCS 16

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_isolate();
	return 0;
}

static void one_function(struct probe_finder *pf, const char *name, char **file)
{
	struct pf_points *p = NULL;
	if (probe_finder__find(pf, name, PF_VARS | PF_EXTERNS | PF_RANGE, &p) == 0) {
		for (int i = 0; i < p->n; i++) {
			uint64_t off;
			(void)probe_finder__file_offset(pf, p->pts[i].addr, &off);
			(void)probe_finder__check_insn(pf, p->pts[i].addr);
		}
		pf_points__delete(p);
	}
	struct line_listing *l = NULL;
	if (probe_finder__lines(pf, name, true, &l) == 0) {
		if (!*file && l->file)
			*file = strdup(l->file);
		line_listing__delete(l);
	}
	char ret[512];
	snprintf(ret, sizeof(ret), "%s%%return", name);
	if (probe_finder__find(pf, ret, 0, &p) == 0)
		pf_points__delete(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64], err[512];
	int fd = fuzz_memfd(data, size, path, sizeof(path));
	if (fd < 0)
		return 0;
	struct probe_finder_opts o = { .binary = path };
	struct probe_finder *pf = probe_finder__new(&o, err, sizeof(err));
	if (pf) {
		(void)probe_finder__build_id(pf);
		(void)probe_finder__has_dwarf(pf);
		char **names = NULL, *file = NULL;
		int n = probe_finder__functions(pf, NULL, &names);
		for (int i = 0; i < n && i < MAX_FUNCS; i++)
			one_function(pf, names[i], &file);
		if (n >= 0)
			probe_finder__free_names(names, n);
		if (file) {
			struct line_listing *l = NULL;
			if (probe_finder__lines(pf, file, false, &l) == 0)
				line_listing__delete(l);
			free(file);
		}
		probe_finder__delete(pf);
	}
	close(fd);
	return 0;
}
