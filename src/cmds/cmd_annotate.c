/* pprobe annotate: perf annotate --stdio's view of a profile read back
 * (pprof as record writes it, whose locations keep addresses): a
 * function's instructions (capstone) and source lines (DWARF), each with
 * its share of the function's self samples, the hottest marked. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "annotate.h"
#include "commands.h"
#include "options.h"
#include "pprobe/probe_finder.h"
#include "profile_in.h"
#include "util.h"

#define ANNOTATE_DEFAULT_INPUT "pprobe.pb.gz"	/* what record --format pprof writes */

struct annotate_cli {
	const char *input;
	const char *source_dir;
	bool stdio, print_line;
	unsigned nr;
	bool nr_given;
};

static int parse_nr(const struct opt *o, void *opts, const char *arg, char *err, size_t errlen)
{
	char *end, nm[64];
	errno = 0;
	unsigned long v = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || arg[0] == '-' || v > 1000000)
		return seterr(err, errlen, "%s wants a count (0: every function), not '%s'",
			      opt__name(o, nm, sizeof(nm)), arg), -EINVAL;
	struct annotate_cli *c = opts;
	c->nr = (unsigned)v;
	c->nr_given = true;
	return 0;
}

static const struct opt annotate_table[] = {
	OPT_STRING('i', "input", "FILE", struct annotate_cli, input,
		   "the profile to read: pprof as record -o FILE.pb.gz writes it (default pprobe.pb.gz; - is stdin)"),
	OPT_FLAG(0, "stdio", struct annotate_cli, stdio, "text on stdout (the only mode; for perf's spelling)"),
	OPT_FN('n', "nr", "N", struct annotate_cli, nr, parse_nr,
	       "without SYMBOL: the N hottest functions (default 1; 0: every one with samples)"),
	OPT_FLAG('l', "print-line", struct annotate_cli, print_line, "file:line beside each source line"),
	OPT_STRING(0, "source", "DIR", struct annotate_cli, source_dir,
		   "look for source files under DIR (their recorded paths, then with leading directories dropped)"),
	OPT_END(),
};

const struct cmd_def annotate_cmd = {
	.name = "annotate",
	.prog = "pprobe annotate",
	.summary = "a function's instructions and source lines by share, as perf annotate",
	.usage = "pprobe annotate [options] [SYMBOL]",
	.about = "Reads a pprof profile that record wrote (its samples keep their addresses; folded stacks do "
		 "not) and prints SYMBOL's instructions, disassembled with capstone in AT&T syntax, under their "
		 "source lines from DWARF, each with its share of the function's self samples, as perf annotate "
		 "--stdio does. '>' marks the hottest instruction and the hottest source line; code inlined "
		 "into the function is shown at its own source line, with the inline function named. Without "
		 "SYMBOL the hottest function (-n: the N hottest). The object is the file the profile's mapping "
		 "names, checked against the recorded build id; its debug info is found as for -L.",
	.footer = "Examples:\n"
		  "  pprobe record -o pprobe.pb.gz -- ./app && pprobe annotate --stdio\n"
		  "  pprobe annotate -i pprobe.pb.gz -l parse\n"
		  "  pprobe annotate -i pprobe.pb.gz -n 3",
	.opts = annotate_table,
};

/* The sampled offsets of fn made link-time addresses of pf's object, ascending. */
static struct annotate_hit *link_hits(struct probe_finder *pf, const struct annotate_fn *fn, size_t *n,
				      double *unmapped, uint64_t *hottest)
{
	struct annotate_hit *h = pp_xcalloc(fn->nr_hits + 1, sizeof(*h));
	double best = -1;
	*n = 0;
	for (size_t i = 0; i < fn->nr_hits; i++) {
		uint64_t a;
		if (probe_finder__vaddr(pf, fn->hits[i].addr, &a)) {
			*unmapped += fn->hits[i].weight;
			continue;
		}
		h[*n] = fn->hits[i];
		h[*n].addr = a;
		if (h[*n].weight > best) {
			best = h[*n].weight;
			*hottest = a;
		}
		/* PT_LOADs ascend in offset and address: the order holds; keep
		 * it if a hostile object's do not */
		if (*n && h[*n - 1].addr > a) {
			size_t k = *n;
			struct annotate_hit t = h[k];
			for (; k && h[k - 1].addr > t.addr; k--)
				h[k] = h[k - 1];
			h[k] = t;
		}
		(*n)++;
	}
	return h;
}

/* One function: 0 printed, 1 failed (said on stderr). */
static int annotate_one(const struct annotate_fn *fn, const struct annotate_cli *o, const struct profile_info *info,
			bool first)
{
	char err[512];
	if (fn->kernel || !fn->file[0] || fn->file[0] == '[')
		return fprintf(stderr, "pprobe annotate: %s: %s has no file to read instructions from "
				       "(kernel and anonymous code are not annotated)\n",
			       fn->name, fn->file[0] ? fn->file : "its code"), 1;
	struct probe_finder_opts po = { .binary = fn->file, .source_dir = o->source_dir };
	struct probe_finder *pf = probe_finder__new(&po, err, sizeof(err));
	if (!pf)
		return fprintf(stderr, "pprobe annotate: %s: %s (the object its samples are in)\n", fn->name, err), 1;
	int status = 1;
	struct pf_asm *as = NULL;
	struct annotate_hit *hits = NULL;
	struct annotation an = { 0 };
	const char *bid = probe_finder__build_id(pf);
	if (fn->build_id[0] && bid[0] && strcasecmp(fn->build_id, bid)) {
		fprintf(stderr, "pprobe annotate: %s: %s changed since the profile was recorded "
				"(build id %s, recorded %s): not annotated\n", fn->name, fn->file, bid, fn->build_id);
		goto out;
	}
	size_t n = 0;
	double unmapped = fn->unmapped;
	uint64_t hottest = 0;
	hits = link_hits(pf, fn, &n, &unmapped, &hottest);
	if (!n) {
		fprintf(stderr, "pprobe annotate: %s: no sampled address of it lies in %s's loaded segments "
				"(a different file?)\n", fn->name, fn->file);
		goto out;
	}
	if (probe_finder__disasm(pf, hottest, &as)) {
		fprintf(stderr, "pprobe annotate: %s: %s\n", fn->name, probe_finder__strerror(pf));
		goto out;
	}
	if (annotation__build(&an, as, hits, n)) {
		fprintf(stderr, "pprobe annotate: %s: no sample lies in %s's instructions of %s\n", fn->name,
			as->symbol, fn->file);
		goto out;
	}
	if (!first)
		putchar('\n');
	if (!info->has_samples)
		an.samples = 0;
	struct annotation_print p = { .object = fn->file, .event = info->sample_type, .unit = info->sample_unit,
				      .print_line = o->print_line };
	annotation__write(&an, stdout, &p);
	double out = an.outside + unmapped;
	if (out > 0)
		printf("\n%.2f%% of %s's self weight lies outside %s's instructions (not shown)\n",
		       100.0 * out / (an.total + out), fn->name, as->symbol);
	if (!probe_finder__has_dwarf(pf))
		fprintf(stderr, "pprobe annotate: %s: no debug info for %s: instructions without source lines\n",
			fn->name, fn->file);
	status = 0;
out:
	annotation__free(&an);
	pf_asm__delete(as);
	free(hits);
	probe_finder__delete(pf);
	return status;
}

int cmd_annotate(int argc, char **argv)
{
	struct annotate_cli o = { .nr = 1 };
	int first = opts__parse(&annotate_cmd, argc, argv, &o);
	if (first < 0)
		return opts__exit_status(first);
	if (argc - first > 1)
		return opts__usage_error(&annotate_cmd, "unexpected argument '%s' (one SYMBOL)", argv[first + 1]);
	const char *sym = argc - first == 1 ? argv[first] : NULL;
	if (sym && o.nr_given)
		return opts__usage_error(&annotate_cmd, "-n picks the hottest functions: give it or a SYMBOL, not both");
	const char *path = o.input ? o.input : ANNOTATE_DEFAULT_INPUT;
	struct annotate *a = annotate__new();
	struct profile_info info;
	char err[512];
	int status = 1;
	int e = profile_in__read(path, annotate__add, a, &info, err, sizeof(err));
	if (e) {
		fprintf(stderr, "pprobe annotate: %s\n", err);
		goto out;
	}
	if (info.format != PROFILE_PPROF || !annotate__has_addrs(a)) {
		fprintf(stderr, "pprobe annotate: %s has no sampled addresses (%s): record it with -o FILE.pb.gz\n",
			path, info.format != PROFILE_PPROF ? "folded stacks keep none" : "no sample in a mapping");
		goto out;
	}
	size_t nr;
	const struct annotate_fn *fns = annotate__functions(a, &nr);
	/* SYMBOL: each function of that name (one per object), every failure
	 * said and counted. Without: the hottest that can be annotated, as
	 * perf annotate skips what it cannot read (said, not counted). */
	unsigned done = 0, failed = 0, tried = 0;
	for (size_t i = 0; i < nr && (sym || !o.nr || done < o.nr); i++) {
		const struct annotate_fn *fn = &fns[i];
		if (sym ? strcmp(fn->name, sym) != 0 : !fn->nr_hits || fn->kernel || !fn->file[0] || fn->file[0] == '[')
			continue;
		tried++;
		if (annotate_one(fn, &o, &info, !done))
			failed += sym != NULL;
		else
			done++;
	}
	if (!tried) {
		if (sym)
			fprintf(stderr, "pprobe annotate: no function '%s' with self samples in %s\n", sym, path);
		else
			fprintf(stderr, "pprobe annotate: no user-space function with sampled addresses in %s\n", path);
		goto out;
	}
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "pprobe annotate: writing: %s\n", strerror(stream__write_errno(stdout)));
		goto out;
	}
	status = failed || !done ? 1 : 0;
out:
	annotate__delete(a);
	return status;
}
