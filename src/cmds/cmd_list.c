/* pprobe list [-v] [GLOB|EVENT...]: the events pprobe can use, and with -v
 * what an event is (a tracepoint's fields and types, like tpoint -v). */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "commands.h"
#include "options.h"
#include "event_spec.h"
#include "pmu.h"
#include "tp_format.h"
#include "tracefs.h"
#include "pprobe/usdt.h"

enum class_mask {
	CL_SW = 1, CL_HW = 2, CL_CACHE = 4, CL_PMU = 8, CL_TP = 16, CL_PROBE = 32, CL_SDT = 64, CL_BP = 128, CL_ALL = 255,
};

struct filter {
	char **pats;
	int nr;
	unsigned classes;
	int matched;
	const struct opt_list *binaries;    /* -x */
};

static int name_matches(const struct filter *f, const char *name, const char *alias)
{
	if (!f->nr)
		return 1;
	for (int i = 0; i < f->nr; i++) {
		const char *p = f->pats[i];
		if (!*p)
			continue;
		if (strpbrk(p, "*?[")) {
			if (!fnmatch(p, name, 0) || (alias && !fnmatch(p, alias, 0)))
				return 1;
		} else if (strcasestr(name, p) || (alias && strcasestr(alias, p))) {
			return 1;
		}
	}
	return 0;
}

static void line(struct filter *f, const char *name, const char *alias, const char *what)
{
	if (!name_matches(f, name, alias))
		return;
	char n[512];
	if (alias)
		snprintf(n, sizeof(n), "%s OR %s", name, alias);
	else
		snprintf(n, sizeof(n), "%s", name);
	printf("  %-50s [%s]\n", n, what);
	f->matched++;
}

/* Can the kernel open this event? 0, or the errno. */
static int probe_open(uint32_t type, uint64_t config)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = type;
	a.config = config;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static void availability(char *buf, size_t len, const char *what, uint32_t type, uint64_t config,
			 int have_core)
{
	int e = probe_open(type, config);
	if (!e)
		snprintf(buf, len, "%s", what);
	else if ((type == PERF_TYPE_HARDWARE || type == PERF_TYPE_HW_CACHE) && !have_core)
		snprintf(buf, len, "%s, not available: no hardware PMU", what);
	else
		snprintf(buf, len, "%s, not available: %s", what, strerror(e));
}

/* "GROUP:EVENT" -> its definition from uprobe_events/kprobe_events. */
struct probe_def {
	char *name;
	char *def;
};

static int load_probe_defs(struct probe_def **out)
{
	static const char *const files[] = { "uprobe_events", "kprobe_events" };
	struct probe_def *v = NULL;
	int nr = 0;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char *text = tracefs__read_file(files[i], NULL);
		if (!text)
			continue;
		for (char *l = text, *next; l && *l; l = next) {
			next = strchr(l, '\n');
			if (next)
				*next++ = 0;
			/* "p:GROUP/EVENT TARGET ARGS..." */
			char *sp = strchr(l, ' '), *colon = strchr(l, ':'), *slash;
			if (!sp || !colon || colon > sp)
				continue;
			*sp = 0;
			slash = strchr(colon + 1, '/');
			if (!slash)
				continue;
			*slash = ':';
			struct probe_def *n = realloc(v, (nr + 1) * sizeof(*v));
			if (!n)
				break;
			v = n;
			v[nr].name = strdup(colon + 1);
			if (asprintf(&v[nr].def, "%s %s", l[0] == 'r' ? "return probe" : "probe", sp + 1) < 0)
				v[nr].def = NULL;
			if (!v[nr].name || !v[nr].def) {
				free(v[nr].name);
				free(v[nr].def);
				break;
			}
			nr++;
		}
		free(text);
	}
	*out = v;
	return nr;
}

static int list_sdt(struct filter *f)
{
	int ret = 0;
	for (size_t b = 0; b < f->binaries->nr; b++) {
		const char *bin = f->binaries->v[b].arg;
		struct usdt_probe *p;
		int n = usdt__read(bin, &p);
		if (n < 0) {
			fprintf(stderr, "pprobe list: cannot read USDT probes of %s: %s\n", bin,
				n == -ENOEXEC ? "not an ELF file" : strerror(-n));
			ret = 1;
			continue;
		}
		if (!n)
			fprintf(stderr, "pprobe list: %s has no USDT probes (no .note.stapsdt section)\n",
				bin);
		for (int i = 0; i < n; i++) {
			char name[512], what[1024];
			snprintf(name, sizeof(name), "sdt_%s:%s", p[i].provider, p[i].name);
			int o = snprintf(what, sizeof(what), "SDT event: %s at 0x%llx", bin,
					 (unsigned long long)p[i].pc);
			if (p[i].semaphore)
				o += snprintf(what + o, sizeof(what) - o, ", semaphore 0x%llx",
					      (unsigned long long)p[i].semaphore);
			if (p[i].args[0])
				snprintf(what + o, sizeof(what) - o, ", args: %s", p[i].args);
			line(f, name, NULL, what);
		}
		usdt__free(p, n);
	}
	return ret;
}

static int list_all(struct filter *f)
{
	size_t n;
	const struct event_symbol *sym = event_symbols(&n);
	int have_core = pmu__have_core_pmu();
	char what[256];

	if (f->classes & CL_SW)
		for (size_t i = 0; i < n; i++)
			if (sym[i].kind == EVENT_KIND_SOFTWARE && name_matches(f, sym[i].name, sym[i].alias)) {
				availability(what, sizeof(what), "Software event", sym[i].type, sym[i].config, have_core);
				line(f, sym[i].name, sym[i].alias, what);
			}
	if (f->classes & CL_HW)
		for (size_t i = 0; i < n; i++)
			if (sym[i].kind == EVENT_KIND_HARDWARE && name_matches(f, sym[i].name, sym[i].alias)) {
				availability(what, sizeof(what), "Hardware event", sym[i].type, sym[i].config, have_core);
				line(f, sym[i].name, sym[i].alias, what);
			}
	if (f->classes & CL_CACHE) {
		const char *const *cn;
		const uint64_t *cc;
		size_t nc = event_cache_names(&cn, &cc);
		for (size_t i = 0; i < nc; i++)
			if (name_matches(f, cn[i], NULL)) {
				availability(what, sizeof(what), "Hardware cache event", PERF_TYPE_HW_CACHE, cc[i], have_core);
				line(f, cn[i], NULL, what);
			}
	}
	if (f->classes & CL_BP)
		line(f, "mem:<addr>[/len][:access]", NULL, "Hardware breakpoint");
	if (f->classes & CL_PMU) {
		struct pmu **pmus;
		int np = pmu__load_all(&pmus);
		for (int i = 0; i < np; i++)
			for (size_t j = 0; j < pmus[i]->nr_aliases; j++) {
				char name[300], desc[400];
				snprintf(name, sizeof(name), "%s/%s/", pmus[i]->name, pmus[i]->aliases[j].name);
				snprintf(desc, sizeof(desc), "Kernel PMU event: %s", pmus[i]->aliases[j].terms);
				line(f, name, NULL, desc);
			}
		pmu__free_all(pmus, np);
	}
	if (f->classes & (CL_TP | CL_PROBE)) {
		char **tps;
		int nt = tracefs__list_events(&tps);
		if (nt < 0) {
			char msg[512];
			tracefs__strerror(nt, msg, sizeof(msg));
			fprintf(stderr, "pprobe list: tracepoints not listed: %s\n", msg);
		} else {
			struct probe_def *defs;
			int nd = load_probe_defs(&defs);
			for (int i = 0; i < nt; i++) {
				const char *def = NULL;
				for (int j = 0; j < nd && !def; j++)
					if (!strcmp(defs[j].name, tps[i]))
						def = defs[j].def;
				if (def && (f->classes & CL_PROBE)) {
					snprintf(what, sizeof(what), "Dynamic probe: %s", def);
					line(f, tps[i], NULL, what);
				} else if (!def && (f->classes & CL_TP)) {
					line(f, tps[i], NULL, "Tracepoint event");
				}
			}
			for (int j = 0; j < nd; j++) {
				free(defs[j].name);
				free(defs[j].def);
			}
			free(defs);
			tracefs__free_events(tps, nt);
		}
	}
	if (f->classes & CL_SDT)
		return list_sdt(f);
	return 0;
}

static void print_tracepoint_fields(const struct event_spec *s)
{
	struct tp_format *fmt = tp_format__load(s->tp_sys, s->tp_name);
	if (!fmt) {
		printf("  (format unreadable: %s)\n", strerror(errno));
		return;
	}
	printf("  %-28s %-28s %6s %5s  %s\n", "field", "type", "offset", "size", "in trace --json");
	for (size_t i = 0; i < fmt->nr_fields; i++) {
		const struct tp_field *fl = &fmt->fields[i];
		if (fl->is_common)
			continue;
		char how[64];
		if (fl->is_string)
			snprintf(how, sizeof(how), "%sstring", fl->is_dynamic ? "dynamic " : "");
		else if (fl->is_array)
			snprintf(how, sizeof(how), "%sarray of %u-byte %s", fl->is_dynamic ? "dynamic " : "",
				 fl->elem_size, fl->elem_signed ? "signed" : "unsigned");
		else if (fl->is_pointer)
			snprintf(how, sizeof(how), "pointer (hex)");
		else
			snprintf(how, sizeof(how), "%s %u-byte integer", fl->elem_signed ? "signed" : "unsigned",
				 fl->elem_size);
		printf("  %-28s %-28s %6u %5u  %s\n", fl->name, fl->type, fl->offset, fl->size, how);
	}
	printf("  common fields:");
	for (size_t i = 0; i < fmt->nr_fields; i++)
		if (fmt->fields[i].is_common)
			printf(" %s", fmt->fields[i].name);
	printf("\n");
	if (fmt->print_fmt)
		printf("  print fmt: %s\n", fmt->print_fmt);
	tp_format__free(fmt);
}

static int list_verbose(int argc, char **argv)
{
	int ret = 0;
	for (int i = 0; i < argc; i++) {
		struct event_list l;
		char err[2048];
		event_list__init(&l);
		int r = event_list__add(&l, argv[i], err, sizeof(err));
		if (r) {
			fprintf(stderr, "pprobe list: %s\n", err);
			ret = (r == -ENOENT || r == -EINVAL || r == -ERANGE || r == -EOPNOTSUPP) ? 2 : 1;
			continue;
		}
		for (size_t j = 0; j < l.nr; j++) {
			const struct event_spec *s = &l.v[j];
			printf("%s: %s event, type %u", s->name, event_kind__name(s->kind), s->attr.type);
			if (s->kind == EVENT_KIND_BREAKPOINT)
				printf(" address 0x%llx length %llu access %s%s%s", (unsigned long long)s->attr.bp_addr,
				       (unsigned long long)s->attr.bp_len, s->attr.bp_type & 1 ? "r" : "",
				       s->attr.bp_type & 2 ? "w" : "", s->attr.bp_type & 4 ? "x" : "");
			else
				printf(" config 0x%llx", (unsigned long long)s->attr.config);
			if (s->kind != EVENT_KIND_BREAKPOINT && (s->attr.config1 || s->attr.config2))
				printf(" config1 0x%llx config2 0x%llx", (unsigned long long)s->attr.config1,
				       (unsigned long long)s->attr.config2);
			if (s->modifiers[0])
				printf(", exclude%s%s%s", s->attr.exclude_user ? " user" : "",
				       s->attr.exclude_kernel ? " kernel" : "", s->attr.exclude_hv ? " hv" : "");
			printf(", sampled %s\n", s->sample_freq_default ? "by frequency (-F, default 999 Hz)"
								 : "at every event (-c 1)");
			struct perf_event_attr a = s->attr;
			a.disabled = 1;
			a.freq = 0;
			a.sample_period = 0;
			int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
			if (fd < 0) {
				int e = errno;
				fd = (int)syscall(SYS_perf_event_open, &a, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
				if (fd < 0) {
					char msg[1024];
					event_spec__explain_open_error(s, e, 0, msg, sizeof(msg));
					printf("  not available: %s\n", msg);
				}
			}
			if (fd >= 0)
				close(fd);
			if (s->kind == EVENT_KIND_TRACEPOINT || s->kind == EVENT_KIND_PROBE)
				print_tracepoint_fields(s);
		}
		event_list__exit(&l);
	}
	return ret;
}

struct list_opts {
	bool verbose;
	struct opt_list binaries;	/* -x */
};

static const struct opt list_table[] = {
	OPT_FLAG('v', "verbose", struct list_opts, verbose,
		 "what each EVENT is: its kind and attributes, whether it opens here, a tracepoint's fields "
		 "and types (like tpoint -v)"),
	OPT_LIST('x', "exec", "BINARY", struct list_opts, binaries,
		 "add BINARY's USDT (SystemTap SDT) probes, as sdt_PROVIDER:NAME; repeatable"),
	OPT_END(),
};

const struct cmd_def list_cmd = {
	.name = "list",
	.prog = "pprobe list",
	.summary = "list the events -e accepts; -v EVENT shows a tracepoint's fields",
	.usage = "pprobe list [-x BINARY]... [GLOB...]\npprobe list -v EVENT...",
	.about = "The events pprobe can use in -e, or with -v what an event is.\n"
		 "GLOB matches event names (sched:*, *fault*); a word without glob characters matches names "
		 "containing it; hw, sw, cache, breakpoint, pmu, tracepoint, probe, sdt select a class.\n"
		 "EVENT is anything -e accepts (sched:sched_switch, syscalls:sys_enter_open*, cycles:u).",
	.opts = list_table,
};

int cmd_list(int argc, char **argv)
{
	struct list_opts o = { 0 };
	int n = opts__parse(&list_cmd, argc, argv, &o);
	if (n < 0) {
		opt_list__free(&o.binaries);
		return opts__exit_status(n);
	}
	argc -= n;
	argv += n;
	if (o.verbose) {
		opt_list__free(&o.binaries);
		if (!argc)
			return opts__usage_error(&list_cmd, "-v needs an event, e.g. pprobe list -v sched:sched_switch");
		return list_verbose(argc, argv);
	}

	struct filter f = { .classes = 0, .binaries = &o.binaries };
	char **pats = calloc(argc + 1, sizeof(char *));
	if (!pats) {
		fprintf(stderr, "pprobe list: out of memory\n");
		opt_list__free(&o.binaries);
		return 1;
	}
	static const struct { const char *word; unsigned cl; } classes[] = {
		{ "sw", CL_SW }, { "software", CL_SW }, { "hw", CL_HW }, { "hardware", CL_HW },
		{ "cache", CL_CACHE }, { "hwcache", CL_CACHE }, { "pmu", CL_PMU },
		{ "tracepoint", CL_TP }, { "tracepoints", CL_TP }, { "probe", CL_PROBE }, { "probes", CL_PROBE },
		{ "sdt", CL_SDT }, { "usdt", CL_SDT }, { "breakpoint", CL_BP },
	};
	for (int i = 0; i < argc; i++) {
		size_t k;
		for (k = 0; k < sizeof(classes) / sizeof(classes[0]); k++)
			if (!strcmp(argv[i], classes[k].word)) {
				f.classes |= classes[k].cl;
				break;
			}
		if (k == sizeof(classes) / sizeof(classes[0]))
			pats[f.nr++] = argv[i];
	}
	f.pats = pats;
	if (!f.classes)
		f.classes = CL_ALL;
	int ret = list_all(&f);
	free(pats);
	opt_list__free(&o.binaries);
	if (ret)
		return ret;
	if (!f.matched) {
		fprintf(stderr, "pprobe list: no event matches");
		for (int i = 0; i < argc; i++)
			fprintf(stderr, " %s%s", i ? "and " : "", argv[i]);
		fprintf(stderr, "\n");
		return 1;
	}
	return 0;
}
