/* Probe points and fetch-args on a real binary: tests/fuzz/elf/tiny_O0 or
 * tiny_O2 (the first byte picks), opened once. The input's first line is
 * a probe point (perf probe's FUNC[@SRC][:RLN|+OFF|%return|;PTN], SRC:ALN,
 * 0xADDR) resolved by probe_finder__find; each further line is one
 * argument ("b.name:string", "a->x", "$params", "+8(%sp):u32", "\\7")
 * translated at every point by probe_finder__fetch_args. */
#include <pprobe/probe_finder.h>

#include "fuzz.h"

#define MAX_ARGS 16

static struct probe_finder *finders[2];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const char *const bins[2] = { PPROBE_FUZZ_ELF_DIR "/tiny_O0", PPROBE_FUZZ_ELF_DIR "/tiny_O2" };
	char err[512];
	fuzz_isolate();
	for (int i = 0; i < 2; i++) {
		struct probe_finder_opts o = { .binary = bins[i] };
		if (!(finders[i] = probe_finder__new(&o, err, sizeof(err))) || !probe_finder__has_dwarf(finders[i])) {
			fprintf(stderr, "fuzz_fetch_args: %s: %s\n", bins[i], finders[i] ? "no DWARF" : err);
			abort();
		}
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	struct probe_finder *pf = finders[data[0] & 1];
	char *text = fuzz_str(data + 1, size - 1), *args[MAX_ARGS];
	int nargs = 0;
	char *nl = strchr(text, '\n');
	if (nl)
		*nl++ = 0;
	while (nl && nargs < MAX_ARGS) {
		args[nargs++] = nl;
		if ((nl = strchr(nl, '\n')))
			*nl++ = 0;
	}
	struct pf_points *p = NULL;
	unsigned flags = data[0] & 2 ? PF_NO_INLINES : 0;
	if (probe_finder__find(pf, text, flags | PF_VARS, &p) == 0) {
		for (int i = 0; i < p->n && i < 4; i++) {
			struct pf_fetch_arg *out = NULL;
			int n = probe_finder__fetch_args(pf, &p->pts[i], (const char *const *)args, nargs, &out);
			for (int j = 0; j < n; j++)
				if (!out[j].name || !out[j].fetch || !out[j].type)
					abort();
			if (n >= 0)
				pf_fetch_args__free(out, n);
		}
		pf_points__delete(p);
	}
	free(text);
	return 0;
}
