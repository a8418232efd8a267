/* perf's -e syntax -> perf_event_attr. See event_spec.h for the grammar. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/hw_breakpoint.h>

#include "util.h"
#include "event_spec.h"
#include "event_terms.h"
#include "pmu.h"
#include "probe_spec.h"
#include "probe_tracefs.h"
#include "tp_format.h"
#include "trace_filter.h"
#include "tracefs.h"

/* ---- name tables ---- */

static const struct event_symbol symbols[] = {
	{ "cpu-clock", NULL, EVENT_KIND_SOFTWARE, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK,
	  "CPU clock timer (the default)" },
	{ "task-clock", NULL, EVENT_KIND_SOFTWARE, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK,
	  "time the task runs on a CPU" },
	{ "page-faults", "faults", EVENT_KIND_SOFTWARE, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS,
	  "page faults" },
	{ "context-switches", "cs", EVENT_KIND_SOFTWARE, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES,
	  "context switches" },
	{ "cpu-migrations", "migrations", EVENT_KIND_SOFTWARE, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS,
	  "task moved to another CPU" },
	{ "minor-faults", NULL, EVENT_KIND_SOFTWARE, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN,
	  "page faults served without I/O" },
	{ "major-faults", NULL, EVENT_KIND_SOFTWARE, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ,
	  "page faults that needed I/O" },
	{ "alignment-faults", NULL, EVENT_KIND_SOFTWARE, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS,
	  "unaligned accesses fixed up by the kernel" },
	{ "emulation-faults", NULL, EVENT_KIND_SOFTWARE, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS,
	  "instructions emulated by the kernel" },
	{ "dummy", NULL, EVENT_KIND_SOFTWARE, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY,
	  "no samples: sideband records only" },
	{ "bpf-output", NULL, EVENT_KIND_SOFTWARE, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_BPF_OUTPUT,
	  "output of BPF programs" },
	{ "cgroup-switches", NULL, EVENT_KIND_SOFTWARE, PERF_TYPE_SOFTWARE, 11 /* PERF_COUNT_SW_CGROUP_SWITCHES */,
	  "switches between tasks of different cgroups" },
	{ "cpu-cycles", "cycles", EVENT_KIND_HARDWARE, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES,
	  "CPU cycles" },
	{ "instructions", NULL, EVENT_KIND_HARDWARE, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
	  "retired instructions" },
	{ "cache-references", NULL, EVENT_KIND_HARDWARE, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES,
	  "cache accesses (usually last level)" },
	{ "cache-misses", NULL, EVENT_KIND_HARDWARE, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES,
	  "cache misses (usually last level)" },
	{ "branch-instructions", "branches", EVENT_KIND_HARDWARE, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
	  "retired branch instructions" },
	{ "branch-misses", NULL, EVENT_KIND_HARDWARE, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES,
	  "mispredicted branches" },
	{ "bus-cycles", NULL, EVENT_KIND_HARDWARE, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES,
	  "bus cycles" },
	{ "stalled-cycles-frontend", "idle-cycles-frontend", EVENT_KIND_HARDWARE, PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, "cycles stalled in instruction fetch/decode" },
	{ "stalled-cycles-backend", "idle-cycles-backend", EVENT_KIND_HARDWARE, PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_STALLED_CYCLES_BACKEND, "cycles stalled in execution" },
	{ "ref-cycles", NULL, EVENT_KIND_HARDWARE, PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES,
	  "reference cycles (not scaled by frequency)" },
};

const struct event_symbol *event_symbols(size_t *nr)
{
	*nr = sizeof(symbols) / sizeof(symbols[0]);
	return symbols;
}

/* perf's hardware cache tables: the first spelling is canonical. */
static const char *const cache_type_names[PERF_COUNT_HW_CACHE_MAX][6] = {
	[PERF_COUNT_HW_CACHE_L1D]  = { "L1-dcache", "l1-d", "l1d", "L1-data" },
	[PERF_COUNT_HW_CACHE_L1I]  = { "L1-icache", "l1-i", "l1i", "L1-instruction" },
	[PERF_COUNT_HW_CACHE_LL]   = { "LLC", "L2" },
	[PERF_COUNT_HW_CACHE_DTLB] = { "dTLB", "d-tlb", "Data-TLB" },
	[PERF_COUNT_HW_CACHE_ITLB] = { "iTLB", "i-tlb", "Instruction-TLB" },
	[PERF_COUNT_HW_CACHE_BPU]  = { "branch", "branches", "bpu", "btb", "bpc" },
	[PERF_COUNT_HW_CACHE_NODE] = { "node" },
};
static const char *const cache_op_names[PERF_COUNT_HW_CACHE_OP_MAX][5] = {
	[PERF_COUNT_HW_CACHE_OP_READ]     = { "load", "loads", "read" },
	[PERF_COUNT_HW_CACHE_OP_WRITE]    = { "store", "stores", "write" },
	[PERF_COUNT_HW_CACHE_OP_PREFETCH] = { "prefetch", "prefetches", "speculative-read", "speculative-load" },
};
static const char *const cache_result_names[PERF_COUNT_HW_CACHE_RESULT_MAX][5] = {
	[PERF_COUNT_HW_CACHE_RESULT_ACCESS] = { "refs", "Reference", "ops", "access" },
	[PERF_COUNT_HW_CACHE_RESULT_MISS]   = { "misses", "miss" },
};
#define COP(x) (1u << PERF_COUNT_HW_CACHE_OP_##x)
static const unsigned cache_legal_ops[PERF_COUNT_HW_CACHE_MAX] = {
	[PERF_COUNT_HW_CACHE_L1D]  = COP(READ) | COP(WRITE) | COP(PREFETCH),
	[PERF_COUNT_HW_CACHE_L1I]  = COP(READ) | COP(PREFETCH),
	[PERF_COUNT_HW_CACHE_LL]   = COP(READ) | COP(WRITE) | COP(PREFETCH),
	[PERF_COUNT_HW_CACHE_DTLB] = COP(READ) | COP(WRITE) | COP(PREFETCH),
	[PERF_COUNT_HW_CACHE_ITLB] = COP(READ),
	[PERF_COUNT_HW_CACHE_BPU]  = COP(READ),
	[PERF_COUNT_HW_CACHE_NODE] = COP(READ) | COP(WRITE) | COP(PREFETCH),
};

/* Longest alias of TABLE[n][] that prefixes S (case-insensitively) and is
 * followed by '-' or the end; sets *idx, returns the matched length or 0. */
static size_t match_alias(const char *s, const char *const *table, size_t n_rows,
			  size_t n_cols, int *idx)
{
	size_t best = 0;
	for (size_t r = 0; r < n_rows; r++)
		for (size_t c = 0; c < n_cols; c++) {
			const char *a = table[r * n_cols + c];
			if (!a)
				break;
			size_t len = strlen(a);
			if (len > best && !strncasecmp(s, a, len) && (s[len] == 0 || s[len] == '-')) {
				best = len;
				*idx = (int)r;
			}
		}
	return best;
}

int event_cache__parse(const char *name, uint64_t *config)
{
	int type = -1, op = -1, result = -1, idx;
	size_t n = match_alias(name, &cache_type_names[0][0],
			       PERF_COUNT_HW_CACHE_MAX, 6, &type);
	const char *p;

	if (!n)
		return -ENOENT;
	p = name + n;
	while (*p == '-') {
		p++;
		if ((n = match_alias(p, &cache_op_names[0][0], PERF_COUNT_HW_CACHE_OP_MAX, 5, &idx))) {
			if (op >= 0 || result >= 0)
				return -ENOENT;
			op = idx;
		} else if ((n = match_alias(p, &cache_result_names[0][0], PERF_COUNT_HW_CACHE_RESULT_MAX, 5, &idx))) {
			if (result >= 0)
				return -ENOENT;
			result = idx;
		} else {
			return -ENOENT;
		}
		p += n;
	}
	if (*p)
		return -ENOENT;
	if (op < 0)
		op = PERF_COUNT_HW_CACHE_OP_READ;
	if (result < 0)
		result = PERF_COUNT_HW_CACHE_RESULT_ACCESS;
	if (!(cache_legal_ops[type] & (1u << op)))
		return -EINVAL;
	*config = (uint64_t)type | ((uint64_t)op << 8) | ((uint64_t)result << 16);
	return 0;
}

static char cache_name_buf[PERF_COUNT_HW_CACHE_MAX * PERF_COUNT_HW_CACHE_OP_MAX *
			   PERF_COUNT_HW_CACHE_RESULT_MAX][40];
static const char *cache_name_ptrs[sizeof(cache_name_buf) / sizeof(cache_name_buf[0])];
static uint64_t cache_name_configs[sizeof(cache_name_buf) / sizeof(cache_name_buf[0])];
static size_t nr_cache_names;

size_t event_cache_names(const char *const **names, const uint64_t **configs)
{
	if (!nr_cache_names) {
		size_t n = 0;
		for (int t = 0; t < PERF_COUNT_HW_CACHE_MAX; t++)
			for (int o = 0; o < PERF_COUNT_HW_CACHE_OP_MAX; o++) {
				if (!(cache_legal_ops[t] & (1u << o)))
					continue;
				for (int r = 0; r < PERF_COUNT_HW_CACHE_RESULT_MAX; r++) {
					if (r == PERF_COUNT_HW_CACHE_RESULT_ACCESS)
						snprintf(cache_name_buf[n], sizeof(cache_name_buf[n]), "%s-%s",
							 cache_type_names[t][0], cache_op_names[o][1]);
					else
						snprintf(cache_name_buf[n], sizeof(cache_name_buf[n]), "%s-%s-%s",
							 cache_type_names[t][0], cache_op_names[o][0],
							 cache_result_names[r][0]);
					cache_name_ptrs[n] = cache_name_buf[n];
					cache_name_configs[n] = t | (o << 8) | (r << 16);
					n++;
				}
			}
		nr_cache_names = n;
	}
	if (names)
		*names = cache_name_ptrs;
	if (configs)
		*configs = cache_name_configs;
	return nr_cache_names;
}

const char *event_kind__name(enum event_kind kind)
{
	switch (kind) {
	case EVENT_KIND_SOFTWARE:   return "software";
	case EVENT_KIND_HARDWARE:   return "hardware";
	case EVENT_KIND_CACHE:      return "cache";
	case EVENT_KIND_RAW:        return "raw";
	case EVENT_KIND_TRACEPOINT: return "tracepoint";
	case EVENT_KIND_PROBE:      return "probe";
	case EVENT_KIND_BREAKPOINT: return "breakpoint";
	}
	return "?";
}

/* ---- the list ---- */

void event_list__init(struct event_list *l)
{
	memset(l, 0, sizeof(*l));
}

void event_list__exit(struct event_list *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->nr; i++) {
		free(l->v[i].probe_str);
		free(l->v[i].filter);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

struct event_spec *event_list__append(struct event_list *l)
{
	if (l->nr == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 8;
		struct event_spec *n = realloc(l->v, cap * sizeof(*n));
		if (!n) {
			errno = ENOMEM;
			return NULL;
		}
		l->v = n;
		l->cap = cap;
	}
	struct event_spec *s = &l->v[l->nr++];
	memset(s, 0, sizeof(*s));
	s->group_leader = -1;
	s->attr.size = sizeof(s->attr);
	return s;
}

static void spec_default_sampling(struct event_spec *s)
{
	if (s->sampling_from_terms)
		return;
	if (s->sample_freq_default) {
		s->attr.freq = 1;
		s->attr.sample_freq = PPROBE_DEFAULT_FREQ;
	} else {
		s->attr.freq = 0;
		s->attr.sample_period = 1;
	}
}

void event_list__set_sampling(struct event_list *l, uint64_t freq, uint64_t period)
{
	for (size_t i = 0; i < l->nr; i++) {
		struct event_spec *s = &l->v[i];
		if (s->sampling_from_terms)
			continue;
		if (period) {
			s->attr.freq = 0;
			s->attr.sample_period = period;
		} else if (freq && s->sample_freq_default) {
			s->attr.freq = 1;
			s->attr.sample_freq = freq;
		}
	}
}

int event_spec__file_name(const char *name, char *buf, size_t len)
{
	size_t n = strlen(name), o = 0;

	if (!len)
		return -ENAMETOOLONG;
	if (n && name[n - 1] == '/')
		n--;
	for (size_t i = 0; i < n; i++) {
		char c = name[i];
		if (o + 1 >= len) {
			buf[o] = 0;
			return -ENAMETOOLONG;
		}
		if (c == ':')
			c = '-';
		else if (!isalnum((unsigned char)c) && !strchr("._=+-", c))
			c = '_';
		buf[o++] = c;
	}
	buf[o] = 0;
	if (o == 0 || !strcmp(buf, ".") || !strcmp(buf, "..")) {
		if (len < 6)
			return -ENAMETOOLONG;
		return snprintf(buf, len, "event");
	}
	return (int)o;
}

/* ---- errors and suggestions ---- */

#define MAX_SUGGEST 5
struct suggest {
	const char *query;
	int cap;
	char names[MAX_SUGGEST][256];
	int score[MAX_SUGGEST];
	int n;
};

static void suggest_consider(struct suggest *sg, const char *cand)
{
	int d = edit_distance(sg->query, cand, sg->cap);
	/* "sched_switch" for "sched:sched_switch": compare with the part after ':' */
	const char *colon = strchr(cand, ':');
	if (colon && !strchr(sg->query, ':')) {
		int d2 = edit_distance(sg->query, colon + 1, sg->cap);
		if (d2 < d)
			d = d2;
	}
	if (d > sg->cap && strlen(sg->query) >= 4 && strcasestr(cand, sg->query))
		d = sg->cap;
	if (d > sg->cap)
		return;
	for (int i = 0; i < sg->n; i++)
		if (!strcmp(sg->names[i], cand))
			return;
	int pos = sg->n;
	while (pos > 0 && (sg->score[pos - 1] > d ||
			   (sg->score[pos - 1] == d && strcmp(sg->names[pos - 1], cand) > 0)))
		pos--;
	if (pos >= MAX_SUGGEST)
		return;
	int last = sg->n < MAX_SUGGEST ? sg->n : MAX_SUGGEST - 1;
	for (int i = last; i > pos; i--) {
		memcpy(sg->names[i], sg->names[i - 1], sizeof(sg->names[i]));
		sg->score[i] = sg->score[i - 1];
	}
	snprintf(sg->names[pos], sizeof(sg->names[pos]), "%s", cand);
	sg->score[pos] = d;
	if (sg->n < MAX_SUGGEST)
		sg->n++;
}

/* Close names for QUERY among every known event; "" if none. */
static void suggest_events(const char *query, char *out, size_t len)
{
	struct suggest *sg = calloc(1, sizeof(*sg));
	size_t qn = strlen(query);

	out[0] = 0;
	if (!sg)
		return;
	sg->query = query;
	sg->cap = qn <= 3 ? 1 : qn <= 6 ? 2 : qn <= 12 ? 3 : 4;

	size_t nsym;
	const struct event_symbol *sym = event_symbols(&nsym);
	for (size_t i = 0; i < nsym; i++) {
		suggest_consider(sg, sym[i].name);
		if (sym[i].alias)
			suggest_consider(sg, sym[i].alias);
	}
	const char *const *cn;
	size_t ncache = event_cache_names(&cn, NULL);
	for (size_t i = 0; i < ncache; i++)
		suggest_consider(sg, cn[i]);

	struct pmu **pmus;
	int npmu = pmu__load_all(&pmus);
	for (int i = 0; i < npmu; i++)
		for (size_t j = 0; j < pmus[i]->nr_aliases; j++) {
			char b[256];
			snprintf(b, sizeof(b), "%s/%s/", pmus[i]->name, pmus[i]->aliases[j].name);
			suggest_consider(sg, b);
		}
	pmu__free_all(pmus, npmu);

	char **tps;
	int ntp = tracefs__list_events(&tps);
	for (int i = 0; i < ntp; i++)
		suggest_consider(sg, tps[i]);
	tracefs__free_events(tps, ntp);

	size_t o = 0;
	for (int i = 0; i < sg->n && o < len; i++)
		o += snprintf(out + o, len - o, "%s%s", i ? ", " : "", sg->names[i]);
	free(sg);
}

/* ---- parsing ---- */

struct parse_ctx {
	struct event_list *l;
	char *err;
	size_t errlen;
	int group_leader;   /* index of the current group's leader, -1 */
	const char *arg;    /* the whole -e argument, for messages */
	char *probe_defs;   /* uprobe_events + kprobe_events, read on first use */
	bool probe_defs_read;
};

/* Is SYS:NAME a dynamic probe (a line "p:SYS/NAME ..." or "r:SYS/NAME ...")? */
static bool is_dynamic_probe(struct parse_ctx *c, const char *sys, const char *name)
{
	if (!c->probe_defs_read) {
		char *u = tracefs__read_file("uprobe_events", NULL), *k = tracefs__read_file("kprobe_events", NULL);
		if (asprintf(&c->probe_defs, "\n%s\n%s", u ? u : "", k ? k : "") < 0)
			c->probe_defs = NULL;
		free(u);
		free(k);
		c->probe_defs_read = true;
	}
	if (!c->probe_defs)
		return false;
	char key[512];
	snprintf(key, sizeof(key), ":%s/%s ", sys, name);
	for (const char *p = c->probe_defs; (p = strstr(p, key)); p++) {
		/* at the start of a line: "\np:" or "\nr:" (also "p10:" maxactive) */
		const char *b = p;
		while (b > c->probe_defs && b[-1] != '\n')
			b--;
		if ((*b == 'p' || *b == 'r') && strchr(b, ':') == p)
			return true;
	}
	return false;
}

static int apply_modifiers(struct event_spec *s, const char *mods, struct parse_ctx *c)
{
	int eu = 0, ek = 0, eh = 0, precise = 0;
	struct perf_event_attr *a = &s->attr;

	for (const char *p = mods; *p; p++) {
		switch (*p) {
		case 'u': eu = 1; break;
		case 'k': ek = 1; break;
		case 'h': eh = 1; break;
		case 'p': precise++; break;
		case 'P': precise = 3; break;
		case 'G': a->exclude_host = 1; break;
		case 'H': a->exclude_guest = 1; break;
		case 'I': a->exclude_idle = 1; break;
		case 'D': a->pinned = 1; break;
		case 'e': a->exclusive = 1; break;
		case 'W': s->weak_group = true; break;
		default:
			seterr(c->err, c->errlen,
			       "unknown modifier '%c' in '%s:%s' (modifiers: u user, k kernel, h hypervisor, "
			       "p precise (up to ppp), P max precise, G guest, H host, I no idle, D pinned, "
			       "e exclusive, W weak group)", *p, s->name, mods);
			return -EINVAL;
		}
	}
	if (precise > 3) {
		seterr(c->err, c->errlen, "'%s:%s': at most 3 'p' modifiers (precise_ip 0..3)", s->name, mods);
		return -EINVAL;
	}
	if (eu || ek || eh) {
		a->exclude_user = !eu;
		a->exclude_kernel = !ek;
		a->exclude_hv = !eh;
	}
	a->precise_ip = precise;
	return 0;
}

/* All modifier characters? */
static int is_modifier_string(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!strchr("ukhpPGHIDeW", *s))
			return 0;
	return 1;
}

static struct event_spec *new_spec(struct parse_ctx *c, enum event_kind kind, const char *name)
{
	struct event_spec *s = event_list__append(c->l);
	if (!s) {
		seterr(c->err, c->errlen, "out of memory");
		return NULL;
	}
	s->kind = kind;
	if ((size_t)snprintf(s->name, sizeof(s->name), "%s", name) >= sizeof(s->name))
		s->name[sizeof(s->name) - 1] = 0;
	return s;
}

static int finish_spec(struct parse_ctx *c, struct event_spec *s, const char *mods)
{
	int err;
	if (mods && *mods) {
		err = apply_modifiers(s, mods, c);
		if (err)
			return err;
		snprintf(s->modifiers, sizeof(s->modifiers), "%s", mods);
		size_t n = strlen(s->name);
		/* pmu events carry modifiers after the '/' in their name */
		snprintf(s->name + n, sizeof(s->name) - n, "%s%s",
			 n && s->name[n - 1] == '/' ? "" : ":", mods);
	}
	spec_default_sampling(s);
	if (c->group_leader >= 0)
		s->group_leader = c->group_leader;
	return 0;
}

static int parse_number(const char *s, uint64_t *v)
{
	char *end;
	if (!*s)
		return -EINVAL;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 0);
	if (errno || *end || *s == '-')
		return -EINVAL;
	*v = x;
	return 0;
}

static void list_terms(const struct pmu *pmu, char *out, size_t len)
{
	size_t o = snprintf(out, len, "config, config1, config2, period, freq, name, %s",
			    event_terms__valid(EVENT_TERMS_PMU));
	for (size_t i = 0; i < pmu->nr_formats && o < len; i++)
		o += snprintf(out + o, len - o, ", %s", pmu->formats[i].name);
	for (size_t i = 0; i < pmu->nr_aliases && o < len; i++)
		o += snprintf(out + o, len - o, "%s%s", i ? ", " : "; events: ", pmu->aliases[i].name);
}

static int apply_pmu_terms(struct parse_ctx *c, struct event_spec *s, const struct pmu *pmu,
			   const char *terms, int depth, const char *full)
{
	char *copy = strdup(terms), *save = NULL;
	int err = 0;
	bool dwarf_size_next = false;

	if (!copy) {
		seterr(c->err, c->errlen, "out of memory");
		return -ENOMEM;
	}
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		while (isspace((unsigned char)*t))
			t++;
		char *eq = strchr(t, '='), *val = NULL;
		if (eq) {
			*eq = 0;
			val = eq + 1;
		}
		uint64_t v = 1;
		/* perf's generic terms: max-stack, call-graph, ... */
		err = depth ? 0 : event_terms__apply(s, EVENT_TERMS_PMU, c->l->ctx.counting, t, val, full,
						     &dwarf_size_next, c->err, c->errlen);
		if (err < 0)
			goto out;
		if (err > 0) {
			err = 0;
			continue;
		}
		if (!strcmp(t, "name")) {
			if (!val || !*val) {
				seterr(c->err, c->errlen, "'%s': term 'name' needs a value", full);
				err = -EINVAL;
				goto out;
			}
			size_t n = strlen(val);
			if (n >= 2 && (val[0] == '\'' || val[0] == '"') && val[n - 1] == val[0]) {
				val[n - 1] = 0;
				val++;
			}
			snprintf(s->name, sizeof(s->name), "%s", val);
			continue;
		}
		if (val && parse_number(val, &v)) {
			if (!strcmp(val, "?"))
				seterr(c->err, c->errlen, "'%s': term '%s' of this event needs a value (%s=NUMBER)",
				       full, t, t);
			else
				seterr(c->err, c->errlen, "'%s': value '%s' of term '%s' is not a number", full, val, t);
			err = -EINVAL;
			goto out;
		}
		const struct pmu_format *f;
		const struct pmu_alias *a;
		if (!strcmp(t, "config")) {
			s->attr.config = v;
		} else if (!strcmp(t, "config1")) {
			s->attr.config1 = v;
		} else if (!strcmp(t, "config2")) {
			s->attr.config2 = v;
		} else if (!strcmp(t, "period")) {
			s->attr.freq = 0;
			s->attr.sample_period = v;
			s->sampling_from_terms = true;
		} else if (!strcmp(t, "freq")) {
			s->attr.freq = 1;
			s->attr.sample_freq = v;
			s->sampling_from_terms = true;
		} else if ((f = pmu__format(pmu, t))) {
			if (pmu_format__encode(f, v, &s->attr)) {
				seterr(c->err, c->errlen,
				       "'%s': value 0x%llx of term '%s' does not fit its %u bits (%s)",
				       full, (unsigned long long)v, t, f->width,
				       f->field == PMU_FIELD_CONFIG ? "config" :
				       f->field == PMU_FIELD_CONFIG1 ? "config1" : "config2");
				err = -ERANGE;
				goto out;
			}
		} else if (!val && depth == 0 && (a = pmu__alias(pmu, t))) {
			err = apply_pmu_terms(c, s, pmu, a->terms, depth + 1, full);
			if (err)
				goto out;
		} else {
			char terms_list[1024];
			list_terms(pmu, terms_list, sizeof(terms_list));
			seterr(c->err, c->errlen, "'%s': PMU '%s' has no term or event '%s' (it has: %s)",
			       full, pmu->name, t, terms_list);
			err = -ENOENT;
			goto out;
		}
	}
out:
	free(copy);
	return err;
}

/* What follows an event's closing '/': [:]MODIFIERS, or nothing. The
 * modifiers, or NULL after saying why. */
static const char *after_terms(struct parse_ctx *c, const char *tok, const char *last)
{
	const char *m = last + 1;
	if (*m == ':')
		m++;
	if (*m && !is_modifier_string(m)) {
		seterr(c->err, c->errlen, "'%s': '%s' after the closing '/' is not a modifier (u, k, h, p, ...)",
		       tok, m);
		return NULL;
	}
	return m;
}

/* pmu/terms/[:]mods */
static int parse_pmu_event(struct parse_ctx *c, const char *tok, const char *group_mods)
{
	const char *slash = strchr(tok, '/');
	const char *last = strrchr(tok, '/');
	char pmu_name[64], terms[1024], mods[32];
	struct pmu *pmu = NULL;
	int err;

	if (slash == last || slash == tok || (size_t)(slash - tok) >= sizeof(pmu_name)) {
		seterr(c->err, c->errlen, "'%s': a PMU event is written pmu/term=value,.../ "
		       "(e.g. msr/tsc/, cpu/event=0x3c,umask=0/)", tok);
		return -EINVAL;
	}
	memcpy(pmu_name, tok, slash - tok);
	pmu_name[slash - tok] = 0;
	if ((size_t)(last - slash - 1) >= sizeof(terms)) {
		seterr(c->err, c->errlen, "'%s': too many terms", tok);
		return -EINVAL;
	}
	memcpy(terms, slash + 1, last - slash - 1);
	terms[last - slash - 1] = 0;
	const char *m = after_terms(c, tok, last);
	if (!m)
		return -EINVAL;
	snprintf(mods, sizeof(mods), "%s%s", m, group_mods ? group_mods : "");

	pmu = pmu__load(pmu_name);
	if (!pmu) {
		struct pmu **pmus;
		int n = pmu__load_all(&pmus);
		char names[512];
		size_t o = 0;
		names[0] = 0;
		for (int i = 0; i < n && o < sizeof(names); i++)
			o += snprintf(names + o, sizeof(names) - o, "%s%s", i ? ", " : "", pmus[i]->name);
		pmu__free_all(pmus, n);
		seterr(c->err, c->errlen, "unknown PMU '%s' in '%s' (PMUs in %s/bus/event_source/devices: %s)",
		       pmu_name, tok, pmu__sysfs_root(), n > 0 ? names : "none");
		return -ENOENT;
	}

	/* the display name: the event without its modifiers */
	char display[256];
	snprintf(display, sizeof(display), "%.*s", (int)(last - tok + 1), tok);
	enum event_kind kind = pmu->type == PERF_TYPE_SOFTWARE ? EVENT_KIND_SOFTWARE
			     : pmu->type == PERF_TYPE_TRACEPOINT ? EVENT_KIND_TRACEPOINT
			     : pmu->type == PERF_TYPE_HARDWARE ? EVENT_KIND_HARDWARE
			     : pmu->type == PERF_TYPE_HW_CACHE ? EVENT_KIND_CACHE
			     : (!strcmp(pmu->name, "uprobe") || !strcmp(pmu->name, "kprobe")) ? EVENT_KIND_PROBE
			     : EVENT_KIND_RAW;
	struct event_spec *s = new_spec(c, kind, display);
	if (!s) {
		err = -ENOMEM;
		goto out;
	}
	s->attr.type = pmu->type;
	snprintf(s->pmu, sizeof(s->pmu), "%s", pmu->name);
	s->sample_freq_default = kind != EVENT_KIND_TRACEPOINT && kind != EVENT_KIND_PROBE;
	err = apply_pmu_terms(c, s, pmu, terms, 0, tok);
	if (err)
		goto out;
	if (kind == EVENT_KIND_SOFTWARE &&
	    (s->attr.config == PERF_COUNT_SW_DUMMY || s->attr.config == PERF_COUNT_SW_BPF_OUTPUT))
		s->sample_freq_default = false;
	err = finish_spec(c, s, mods);
out:
	pmu__free(pmu);
	return err;
}

/* ---- dynamic probes: the hook ---- */

typedef int (*event_probe_parse_fn)(struct parse_ctx *c, const char *sys, const char *name,
				    const char *mods);

static int parse_tracepoint(struct parse_ctx *c, const char *sys, const char *name, const char *mods,
			    enum event_kind kind);

/* Drop the specs from index n on (and the strings PMU probes own). */
static void list_truncate(struct event_list *l, size_t n)
{
	for (size_t i = n; i < l->nr; i++) {
		free(l->v[i].probe_str);
		l->v[i].probe_str = NULL;
		free(l->v[i].filter);
		l->v[i].filter = NULL;
	}
	if (n < l->nr)
		l->nr = n;
}

/* Groups of probes made in tracefs (perf probe, pprobe --add, by hand):
 * only existing events. */
static int parse_probe_existing_only(struct parse_ctx *c, const char *sys, const char *name,
				     const char *mods)
{
	size_t before = c->l->nr;
	int err = parse_tracepoint(c, sys, name, mods, EVENT_KIND_PROBE);
	if (err != -ENOENT)
		return err;
	list_truncate(c->l, before);
	if (!strncmp(sys, "sdt_", 4))
		seterr(c->err, c->errlen,
		       "'%s:%s': no such probe event in tracefs (%s/events/%s/%s); for the USDT probe of a binary "
		       "give --exec BINARY, or -e sdt:BINARY:%s:%s", sys, name,
		       tracefs__root() ? tracefs__root() : "tracefs", sys, name, sys + 4, name);
	else
		seterr(c->err, c->errlen,
		       "'%s:%s': no such probe event in tracefs (%s/events/%s/%s); create it with pprobe [-x BINARY] "
		       "--add, or use an ephemeral probe: uprobe:BINARY:FUNC, probe:FUNC, sdt:BINARY:PROVIDER:NAME",
		       sys, name, tracefs__root() ? tracefs__root() : "tracefs", sys, name);
	return -EOPNOTSUPP;
}

/* At most this many kernel probes from one glob: each is a kprobe the
 * kernel registers (a breakpoint in the function), per CPU with -a. */
#define KPROBE_GLOB_MAX 64

/* kprobe:GLOB, kretprobe:GLOB: existing tracefs events of that group if any
 * match; else one probe per kernel function that matches
 * (probe_tracefs__kernel_functions), at most KPROBE_GLOB_MAX, or refused
 * saying why: no kprobes, no such function, too many, the function list
 * unreadable. */
static int parse_kprobe_glob(struct parse_ctx *c, const char *sys, const char *name, const char *mods)
{
	size_t before = c->l->nr;
	char why[1024];
	int err = parse_tracepoint(c, sys, name, mods, EVENT_KIND_PROBE);
	if (err != -ENOENT)
		return err;
	list_truncate(c->l, before);
	if (!probe_tracefs__kprobes_available(NULL, why, sizeof(why)) &&
	    access("/sys/bus/event_source/devices/kprobe", F_OK)) {
		seterr(c->err, c->errlen, "'%s:%s': %s", sys, name, why);
		return -EOPNOTSUPP;
	}
	char **funcs;
	int n = probe_tracefs__kernel_functions(name, &funcs);
	if (n < 0) {
		seterr(c->err, c->errlen, "'%s:%s': cannot read the kernel's traceable functions "
		       "(available_filter_functions: %s) to match the glob; name one function, e.g. "
		       "%s:__x64_sys_ptrace", sys, name, strerror(-n), sys);
		return n;
	}
	if (n == 0 || n > KPROBE_GLOB_MAX) {
		if (n)
			seterr(c->err, c->errlen, "'%s:%s' matches %d kernel functions, more than the %d kprobes "
			       "pprobe sets from one glob; narrow it, or count calls of them all with pprobe ftrace "
			       "-T '%s' --count", sys, name, n, KPROBE_GLOB_MAX, name);
		else
			seterr(c->err, c->errlen, "'%s:%s': no kernel function that kprobes can take matches "
			       "(available_filter_functions, minus the kprobe blacklist)", sys, name);
		tracefs__free_events(funcs, n);
		return -ENOENT;
	}
	err = 0;
	for (int i = 0; i < n && !err; i++) {
		size_t at = c->l->nr;
		int r = probe_spec__add(c->l, sys, funcs[i], c->err, c->errlen);
		if (r < 0)
			err = r;
		for (size_t k = at; !err && k < c->l->nr; k++)
			err = finish_spec(c, &c->l->v[k], mods);
	}
	tracefs__free_events(funcs, n);
	if (err)
		list_truncate(c->l, before);
	return err;
}

/* probe:, kprobe:, kretprobe:, uprobe:, uretprobe:, sdt:, usdt: ephemeral
 * PMU probes (probe_spec.c); an existing tracefs event of that group and
 * name (probe:NAME made by perf probe) is used as a tracepoint. */
static int parse_probe_pmu(struct parse_ctx *c, const char *sys, const char *name, const char *mods)
{
	size_t before = c->l->nr;
	int err;
	bool plain = *name != 0;
	for (const char *p = name; *p; p++)
		plain &= isalnum((unsigned char)*p) || *p == '_' || *p == '.';
	if (plain && tracefs__root() && tracefs__event_id(sys, name) > 0)
		return parse_tracepoint(c, sys, name, mods, EVENT_KIND_PROBE);
	/* a glob names existing events ('probe:*' after pprobe --add on the kernel) */
	if (strpbrk(name, "*?[") && !strpbrk(name, " \t:/")) {
		if (!strcmp(sys, "kprobe") || !strcmp(sys, "kretprobe"))
			return parse_kprobe_glob(c, sys, name, mods);
		return parse_probe_existing_only(c, sys, name, mods);
	}
	/* sdt_PROVIDER:NAME (pprobe list's name) is a USDT probe of the -x binary */
	if (!probe_spec__is_group(sys) && !(c->l->ctx.exec && !strncmp(sys, "sdt_", 4)))
		return parse_probe_existing_only(c, sys, name, mods);
	err = probe_spec__add(c->l, sys, name, c->err, c->errlen);
	if (err < 0)
		return err;
	for (size_t i = before; i < c->l->nr; i++) {
		err = finish_spec(c, &c->l->v[i], mods);
		if (err) {
			list_truncate(c->l, before);
			return err;
		}
	}
	return 0;
}

static const struct {
	const char *group;      /* the subsystem before ':'; a trailing '*' matches a prefix */
	event_probe_parse_fn fn;
} probe_parsers[] = {
	{ "probe", parse_probe_pmu },
	{ "probe_*", parse_probe_existing_only },
	{ "kprobe", parse_probe_pmu },
	{ "kprobes", parse_probe_existing_only },
	{ "kretprobe", parse_probe_pmu },
	{ "uprobe", parse_probe_pmu },
	{ "uprobes", parse_probe_existing_only },
	{ "uretprobe", parse_probe_pmu },
	{ "sdt", parse_probe_pmu },
	{ "sdt_*", parse_probe_pmu },
	{ "usdt", parse_probe_pmu },
};

static event_probe_parse_fn probe_parser_for(const char *sys)
{
	for (size_t i = 0; i < sizeof(probe_parsers) / sizeof(probe_parsers[0]); i++) {
		const char *g = probe_parsers[i].group;
		size_t n = strlen(g);
		if (g[n - 1] == '*' ? !strncmp(sys, g, n - 1) : !strcmp(sys, g))
			return probe_parsers[i].fn;
	}
	return NULL;
}

/* ---- tracepoints ---- */

static int has_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

static int add_tracepoint(struct parse_ctx *c, const char *sys, const char *name, int id,
			  const char *mods, enum event_kind kind)
{
	char display[512];
	if ((size_t)snprintf(display, sizeof(display), "%s:%s", sys, name) >= sizeof(((struct event_spec *)0)->name)) {
		seterr(c->err, c->errlen, "tracepoint name too long: '%s:%.64s...'", sys, name);
		return -ENAMETOOLONG;
	}
	if (kind == EVENT_KIND_TRACEPOINT && is_dynamic_probe(c, sys, name))
		kind = EVENT_KIND_PROBE;
	struct event_spec *s = new_spec(c, kind, display);
	if (!s)
		return -ENOMEM;
	s->attr.type = PERF_TYPE_TRACEPOINT;
	s->attr.config = id;
	s->sample_freq_default = false;
	snprintf(s->tp_sys, sizeof(s->tp_sys), "%s", sys);
	snprintf(s->tp_name, sizeof(s->tp_name), "%s", name);
	return finish_spec(c, s, mods);
}

static int parse_tracepoint(struct parse_ctx *c, const char *sys, const char *name, const char *mods,
			    enum event_kind kind)
{
	char msg[512];
	int err;

	if (!*sys || !*name) {
		seterr(c->err, c->errlen, "'%s:%s': a tracepoint is written subsystem:name (e.g. sched:sched_switch)",
		       sys, name);
		return -EINVAL;
	}
	if (!tracefs__root()) {
		err = -errno;
		tracefs__strerror(err, msg, sizeof(msg));
		seterr(c->err, c->errlen, "cannot use tracepoint '%s:%s': %s", sys, name, msg);
		return err;
	}
	/* events/ftrace/ holds the formats of the ftrace tracers' own records
	 * (function, funcgraph_entry, ...): they have ids but are not events
	 * perf_event_open can enable (perf refuses them too); available_events
	 * does not list them, so only an exact name gets here. */
	if (!strcmp(sys, "ftrace")) {
		seterr(c->err, c->errlen,
		       "'%s:%s' is the record format of an ftrace tracer, not an event that can be enabled; trace "
		       "kernel functions with 'pprobe ftrace -T FUNC' (function tracer) or 'pprobe ftrace -G FUNC' "
		       "(function_graph)", sys, name);
		return -EOPNOTSUPP;
	}
	if (!has_glob(sys) && !has_glob(name)) {
		int id = tracefs__event_id(sys, name);
		if (id > 0)
			return add_tracepoint(c, sys, name, id, mods, kind);
		if (id == -EACCES || id == -EPERM) {
			tracefs__strerror(id, msg, sizeof(msg));
			seterr(c->err, c->errlen, "cannot read tracepoint '%s:%s': %s", sys, name, msg);
			return id;
		}
		char q[512], sug[1400];
		snprintf(q, sizeof(q), "%s:%s", sys, name);
		suggest_events(q, sug, sizeof(sug));
		seterr(c->err, c->errlen, "unknown tracepoint '%s' (no %s/events/%s/%s)%s%s%s", q,
		       tracefs__root(), sys, name, *sug ? "; did you mean: " : "", sug,
		       *sug ? "?" : "; 'pprobe list' shows all events");
		return -ENOENT;
	}
	char **tps;
	int n = tracefs__list_events(&tps), matched = 0;
	if (n < 0) {
		tracefs__strerror(n, msg, sizeof(msg));
		seterr(c->err, c->errlen, "cannot list tracepoints for '%s:%s': %s", sys, name, msg);
		return n;
	}
	err = 0;
	for (int i = 0; i < n && !err; i++) {
		char *colon = strchr(tps[i], ':');
		*colon = 0;
		if (!fnmatch(sys, tps[i], 0) && !fnmatch(name, colon + 1, 0)) {
			int id = tracefs__event_id(tps[i], colon + 1);
			if (id > 0) {
				err = add_tracepoint(c, tps[i], colon + 1, id, mods, kind);
				matched++;
			}
		}
		*colon = ':';
	}
	tracefs__free_events(tps, n);
	if (!err && !matched) {
		seterr(c->err, c->errlen, "no tracepoint matches '%s:%s' ('pprobe list' shows all events)", sys, name);
		return -ENOENT;
	}
	return err;
}

/* ---- one event ---- */

static int parse_raw_hex(const char *s, uint64_t *config)
{
	if (s[0] != 'r' || !s[1] || strlen(s) > 17)
		return -1;
	for (const char *p = s + 1; *p; p++)
		if (!isxdigit((unsigned char)*p))
			return -1;
	*config = strtoull(s + 1, NULL, 16);
	return 0;
}

/* A symbolic name (software, hardware, cache, rHEX)? 1 and fills s-less
 * outputs, 0 if not, -EINVAL for an illegal cache combination. */
static int lookup_symbolic(const char *base, enum event_kind *kind, uint32_t *type, uint64_t *config)
{
	size_t n;
	const struct event_symbol *sym = event_symbols(&n);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(base, sym[i].name) || (sym[i].alias && !strcmp(base, sym[i].alias))) {
			*kind = sym[i].kind;
			*type = sym[i].type;
			*config = sym[i].config;
			return 1;
		}
	int err = event_cache__parse(base, config);
	if (!err) {
		*kind = EVENT_KIND_CACHE;
		*type = PERF_TYPE_HW_CACHE;
		return 1;
	}
	if (err == -EINVAL)
		return -EINVAL;
	if (!parse_raw_hex(base, config)) {
		*kind = EVENT_KIND_RAW;
		*type = PERF_TYPE_RAW;
		return 1;
	}
	return 0;
}

/* mem:ADDR[/LEN][:ACCESS][:MODS] */
static int parse_breakpoint(struct parse_ctx *c, const char *tok, const char *group_mods)
{
	const char *p = tok + 4;
	char *end;
	uint64_t addr, len = 0;
	unsigned type = 0;
	char mods[32] = "";
	size_t display_len = strlen(tok);   /* the name without the modifiers */

	errno = 0;
	addr = strtoull(p, &end, 0);
	if (end == p || errno) {
		seterr(c->err, c->errlen, "'%s': a breakpoint is written mem:ADDRESS[/LENGTH][:rwx] "
		       "(e.g. mem:0x601040/8:w)", tok);
		return -EINVAL;
	}
	p = end;
	if (*p == '/') {
		len = strtoull(p + 1, &end, 0);
		if (end == p + 1 || !(len == 1 || len == 2 || len == 4 || len == 8)) {
			seterr(c->err, c->errlen, "'%s': breakpoint length must be 1, 2, 4 or 8", tok);
			return -EINVAL;
		}
		p = end;
	}
	if (*p == ':') {
		p++;
		const char *q = p;
		while (*q == 'r' || *q == 'w' || *q == 'x') {
			type |= *q == 'r' ? HW_BREAKPOINT_R : *q == 'w' ? HW_BREAKPOINT_W : HW_BREAKPOINT_X;
			q++;
		}
		if (q == p || (*q && *q != ':')) {
			/* no access letters: perhaps only modifiers ("mem:0x10:u") */
			if (q == p && is_modifier_string(p)) {
				snprintf(mods, sizeof(mods), "%s", p);
				display_len = (size_t)(p - 1 - tok);
				q = p + strlen(p);
			} else {
				seterr(c->err, c->errlen, "'%s': breakpoint access is r, w, x or a mix (rw, rwx)", tok);
				return -EINVAL;
			}
		}
		p = q;
		if (*p == ':') {
			if (!is_modifier_string(p + 1)) {
				seterr(c->err, c->errlen, "'%s': '%s' is not a modifier", tok, p + 1);
				return -EINVAL;
			}
			snprintf(mods, sizeof(mods), "%s", p + 1);
			display_len = (size_t)(p - tok);
			p += strlen(p);
		}
	}
	if (*p) {
		seterr(c->err, c->errlen, "'%s': unexpected '%s' (mem:ADDRESS[/LENGTH][:rwx])", tok, p);
		return -EINVAL;
	}
	if (!type)
		type = HW_BREAKPOINT_R | HW_BREAKPOINT_W;
	if ((type & HW_BREAKPOINT_X) && (type & (HW_BREAKPOINT_R | HW_BREAKPOINT_W))) {
		seterr(c->err, c->errlen, "'%s': an execute breakpoint cannot also watch reads or writes", tok);
		return -EINVAL;
	}
	if (!len)
		len = type == HW_BREAKPOINT_X ? sizeof(long) : HW_BREAKPOINT_LEN_4;
	if (group_mods)
		snprintf(mods + strlen(mods), sizeof(mods) - strlen(mods), "%s", group_mods);

	char display[128];
	snprintf(display, sizeof(display), "%.*s", (int)display_len, tok);
	struct event_spec *s = new_spec(c, EVENT_KIND_BREAKPOINT, display);
	if (!s)
		return -ENOMEM;
	s->attr.type = PERF_TYPE_BREAKPOINT;
	s->attr.config = 0;
	s->attr.bp_type = type;
	s->attr.bp_addr = addr;
	s->attr.bp_len = len;
	s->sample_freq_default = false;   /* every hit, as perf */
	return finish_spec(c, s, mods);
}

static int parse_event(struct parse_ctx *c, const char *tok, const char *group_mods);

/* perf's generic TERMS ("max-stack=3,call-graph=fp") on S, a symbolic event
 * or tracepoint as parsed without them; FULL is the event as written. Its
 * name becomes NAME/TERMS/MODS, as perf names it (name= wins). */
static int apply_generic_terms(struct parse_ctx *c, struct event_spec *s, enum event_terms_set set,
			       const char *terms, const char *full)
{
	size_t n = strlen(s->name), ml = strlen(s->modifiers);
	if (ml && n > ml && s->name[n - ml - 1] == ':' && !strcmp(s->name + n - ml, s->modifiers))
		n -= ml + 1;
	char name[sizeof(s->name)];
	if ((size_t)snprintf(name, sizeof(name), "%.*s/%s/%s", (int)n, s->name, terms, s->modifiers) >= sizeof(name))
		name[sizeof(name) - 1] = 0;
	memcpy(s->name, name, sizeof(name));

	char *copy = strdup(terms), *save = NULL;
	bool dwarf_size_next = false;
	int err = 0;
	if (!copy)
		return seterr(c->err, c->errlen, "out of memory"), -ENOMEM;
	for (char *t = strtok_r(copy, ",", &save); t && !err; t = strtok_r(NULL, ",", &save)) {
		while (isspace((unsigned char)*t))
			t++;
		char *eq = strchr(t, '='), *val = NULL;
		if (eq) {
			*eq = 0;
			val = eq + 1;
		}
		err = event_terms__apply(s, set, c->l->ctx.counting, t, val, full, &dwarf_size_next, c->err,
					 c->errlen);
		err = err > 0 ? 0 : err;
	}
	free(copy);
	return err;
}

/* NAME/TERMS/[[:]MODS] where NAME is a symbolic event (cpu-clock, cycles,
 * L1-dcache-loads, rHEX) or a tracepoint sys:name (also of an existing
 * probe group): the event parsed as without terms, then perf's generic
 * terms on each of its specs (a glob has several). 1 when TOK is not of
 * that form (pmu/.../, a probe's path). */
static int parse_with_terms(struct parse_ctx *c, const char *tok, const char *group_mods)
{
	const char *slash = strchr(tok, '/'), *last = strrchr(tok, '/'), *colon = strchr(tok, ':');
	char base[512], terms[1024], sys[64];
	enum event_terms_set set = EVENT_TERMS_SYMBOLIC;
	enum event_kind k;
	uint32_t ty;
	uint64_t cf;

	if (slash == tok || (size_t)(slash - tok) >= sizeof(base) ||
	    (slash != last && (size_t)(last - slash - 1) >= sizeof(terms)))
		return 1;
	snprintf(base, sizeof(base), "%.*s", (int)(slash - tok), tok);
	if (slash == last) {	/* cpu-clock/max-stack=3: the closing '/' forgotten */
		if (colon || !lookup_symbolic(base, &k, &ty, &cf))
			return 1;
		seterr(c->err, c->errlen, "'%s': an event's terms go between two slashes (%s/term=value,.../)",
		       tok, base);
		return -EINVAL;
	}
	if (colon && colon < slash) {
		snprintf(sys, sizeof(sys), "%.*s", (int)(colon - tok), tok);
		if (probe_parser_for(sys) == parse_probe_pmu || colon + 1 == slash)
			return 1;	/* uprobe:/bin/bash:readline, probe:FUNC: paths, not terms */
		set = EVENT_TERMS_TRACEPOINT;
	} else if (!lookup_symbolic(base, &k, &ty, &cf)) {
		return 1;
	}
	const char *m = after_terms(c, tok, last);
	if (!m)
		return -EINVAL;
	snprintf(terms, sizeof(terms), "%.*s", (int)(last - slash - 1), slash + 1);
	size_t bl = strlen(base);
	snprintf(base + bl, sizeof(base) - bl, "%s%s", *m ? ":" : "", m);
	size_t before = c->l->nr;
	int err = parse_event(c, base, group_mods);
	for (size_t i = before; i < c->l->nr && !err; i++)
		err = apply_generic_terms(c, &c->l->v[i], set, terms, tok);
	return err;
}

static int parse_event(struct parse_ctx *c, const char *tok, const char *group_mods)
{
	char base[512], mods[32] = "";
	enum event_kind kind;
	uint32_t type;
	uint64_t config;
	int r;

	if (!strncmp(tok, "mem:", 4))
		return parse_breakpoint(c, tok, group_mods);
	if (strchr(tok, '/') && (r = parse_with_terms(c, tok, group_mods)) != 1)
		return r;
	const char *colon0 = strchr(tok, ':');
	if (colon0 && (size_t)(colon0 - tok) < sizeof(base)) {
		/* probe groups first: their names may contain '/' (uprobe:/bin/bash:readline) */
		char sys[sizeof(base)];
		snprintf(sys, sizeof(sys), "%.*s", (int)(colon0 - tok), tok);
		event_probe_parse_fn probe = probe_parser_for(sys);
		if (probe && !strchr(sys, '/')) {
			char rest[sizeof(base)], pmods[32] = "";
			snprintf(rest, sizeof(rest), "%s", colon0 + 1);
			char *lc = strrchr(rest, ':');
			if (lc && is_modifier_string(lc + 1)) {
				snprintf(pmods, sizeof(pmods), "%s", lc + 1);
				*lc = 0;
			}
			if (group_mods)
				snprintf(pmods + strlen(pmods), sizeof(pmods) - strlen(pmods), "%s", group_mods);
			return probe(c, sys, rest, pmods);
		}
	}
	if (strchr(tok, '/'))
		return parse_pmu_event(c, tok, group_mods);
	if (strlen(tok) >= sizeof(base)) {
		seterr(c->err, c->errlen, "event name too long: '%.64s...'", tok);
		return -EINVAL;
	}
	snprintf(base, sizeof(base), "%s", tok);
	char *last = strrchr(base, ':');
	if (last && is_modifier_string(last + 1)) {
		*last = 0;
		enum event_kind k2;
		uint32_t t2;
		uint64_t c2;
		/* "cycles:u" or "sys:name:k"; but "sys:k" stays a tracepoint */
		if (strchr(base, ':') || lookup_symbolic(base, &k2, &t2, &c2)) {
			snprintf(mods, sizeof(mods), "%s", last + 1);
		} else {
			*last = ':';
		}
	}
	size_t ml = strlen(mods);
	if (group_mods)
		snprintf(mods + ml, sizeof(mods) - ml, "%s", group_mods);

	char *colon = strchr(base, ':');
	if (colon) {
		*colon = 0;
		const char *sys = base, *name = colon + 1;
		event_probe_parse_fn probe = probe_parser_for(sys);
		if (probe)
			return probe(c, sys, name, mods);
		return parse_tracepoint(c, sys, name, mods, EVENT_KIND_TRACEPOINT);
	}
	r = lookup_symbolic(base, &kind, &type, &config);
	if (r == -EINVAL) {
		seterr(c->err, c->errlen, "'%s': this cache does not count that operation "
		       "(L1-icache: loads and prefetches; iTLB and branch: loads only)", base);
		return -EINVAL;
	}
	if (r == 0) {
		char sug[1400];
		suggest_events(base, sug, sizeof(sug));
		seterr(c->err, c->errlen, "unknown event '%s'%s%s%s", base, *sug ? "; did you mean: " : "", sug,
		       *sug ? "? ('pprobe list' shows all events)" : " ('pprobe list' shows all events)");
		return -ENOENT;
	}
	/* display: as spelled */
	struct event_spec *s = new_spec(c, kind, base);
	if (!s)
		return -ENOMEM;
	s->attr.type = type;
	s->attr.config = config;
	s->sample_freq_default = !(type == PERF_TYPE_SOFTWARE &&
				   (config == PERF_COUNT_SW_DUMMY || config == PERF_COUNT_SW_BPF_OUTPUT));
	return finish_spec(c, s, mods);
}

/* Length of the event at S up to a top-level ',' (or '}' if in_group). A '/'
 * right after a PMU name opens pmu/.../ (commas inside are its terms) up to
 * the next '/'; other slashes (paths of probes) are plain characters. */
static size_t event_token_len(const char *s, int in_group)
{
	int in_slash = 0, pmu_done = 0;
	size_t i = 0;
	for (; s[i]; i++) {
		if (s[i] == '/' && in_slash) {
			in_slash = 0;
			pmu_done = 1;
		} else if (s[i] == '/' && !pmu_done && i > 0) {
			/* pmu/, cpu-clock/, sched:sched_switch/; not uprobe:/path */
			size_t j = 0, colon = 0;
			while (j < i && (isalnum((unsigned char)s[j]) || strchr("_.-:", s[j]))) {
				if (s[j] == ':' && !colon)
					colon = j;
				j++;
			}
			char sys[64];
			snprintf(sys, sizeof(sys), "%.*s", (int)colon, s);
			if (j == i && s[i - 1] != ':' && !(colon && probe_parser_for(sys) == parse_probe_pmu))
				in_slash = 1;
			pmu_done = 1;
		} else if (!in_slash && (s[i] == ',' || (in_group && s[i] == '}') || s[i] == '{')) {
			break;
		}
	}
	return i;
}

static int parse_token(struct parse_ctx *c, const char *s, size_t len, const char *group_mods)
{
	char *tok = strndup(s, len);
	if (!tok) {
		seterr(c->err, c->errlen, "out of memory");
		return -ENOMEM;
	}
	/* trim */
	char *t = tok;
	while (isspace((unsigned char)*t))
		t++;
	size_t n = strlen(t);
	while (n && isspace((unsigned char)t[n - 1]))
		t[--n] = 0;
	int err;
	if (!*t) {
		seterr(c->err, c->errlen, "empty event name in '%s'", c->arg);
		err = -EINVAL;
	} else {
		err = parse_event(c, t, group_mods);
	}
	free(tok);
	return err;
}

int event_list__add(struct event_list *l, const char *arg, char *err, size_t errlen)
{
	struct parse_ctx c = { .l = l, .err = err, .errlen = errlen, .group_leader = -1, .arg = arg };
	size_t before = l->nr;
	const char *p = arg;
	int ret = 0;

	if (err && errlen)
		err[0] = 0;
	if (!*arg) {
		seterr(err, errlen, "empty event list");
		return -EINVAL;
	}
	while (*p) {
		if (*p == '{') {
			const char *start = p + 1, *q = start;
			/* find the closing brace, skipping pmu/.../ */
			for (;;) {
				size_t n = event_token_len(q, 1);
				q += n;
				if (*q == ',') {
					q++;
					continue;
				}
				break;
			}
			if (*q != '}') {
				seterr(err, errlen, "'%s': group '{' without its '}'", arg);
				ret = -EINVAL;
				goto err;
			}
			const char *end = q;   /* at '}' */
			const char *m = end + 1;
			char gmods[32] = "";
			if (*m == ':') {
				size_t ml = strcspn(m + 1, ",");
				if (ml >= sizeof(gmods)) {
					seterr(err, errlen, "'%s': modifier too long", arg);
					ret = -EINVAL;
					goto err;
				}
				memcpy(gmods, m + 1, ml);
				gmods[ml] = 0;
				if (!is_modifier_string(gmods)) {
					seterr(err, errlen, "'%s': ':%s' after a group is not a modifier", arg, gmods);
					ret = -EINVAL;
					goto err;
				}
				m += 1 + ml;
			}
			c.group_leader = (int)l->nr;
			for (const char *e = start; e < end;) {
				size_t n = event_token_len(e, 1);
				ret = parse_token(&c, e, n, *gmods ? gmods : NULL);
				if (ret)
					goto err;
				e += n;
				if (*e == ',')
					e++;
			}
			if (c.group_leader == (int)l->nr) {
				seterr(err, errlen, "'%s': empty group", arg);
				ret = -EINVAL;
				goto err;
			}
			l->v[c.group_leader].group_leader = c.group_leader;
			c.group_leader = -1;
			p = m;
		} else {
			size_t n = event_token_len(p, 0);
			if (p[n] == '{') {
				seterr(err, errlen, "'%s': '{' inside an event name", arg);
				ret = -EINVAL;
				goto err;
			}
			ret = parse_token(&c, p, n, NULL);
			if (ret)
				goto err;
			p += n;
		}
		if (*p == ',') {
			p++;
			if (!*p) {
				seterr(err, errlen, "empty event name in '%s'", arg);
				ret = -EINVAL;
				goto err;
			}
		} else if (*p) {
			seterr(err, errlen, "'%s': unexpected '%c'", arg, *p);
			ret = -EINVAL;
			goto err;
		}
	}
	free(c.probe_defs);
	l->last_first = before;
	l->last_nr = l->nr - before;
	return 0;
err:
	free(c.probe_defs);
	list_truncate(l, before);
	return ret;
}

int event_list__add_filter(struct event_list *l, const char *filter, char *err, size_t errlen)
{
	if (err && errlen)
		err[0] = 0;
	if (!l->last_nr) {
		seterr(err, errlen, "%s", EVENT_FILTER_NEEDS_E);
		return -EINVAL;
	}
	size_t end = l->last_first + l->last_nr;
	for (size_t k = l->last_first; k < end; k++) {
		const struct event_spec *s = &l->v[k];
		if (s->kind == EVENT_KIND_PROBE && s->pmu[0]) {
			seterr(err, errlen, "--filter needs fields; %s is a probe without any (a tracefs probe made "
			       "by pprobe --add has them)", s->name);
			return -EINVAL;
		}
		if (s->kind != EVENT_KIND_TRACEPOINT && s->kind != EVENT_KIND_PROBE) {
			seterr(err, errlen, "--filter option should follow a -e tracepoint option; %s is not a "
			       "tracepoint or probe", s->name);
			return -EINVAL;
		}
		struct tp_format *fmt = tp_format__load(s->tp_sys, s->tp_name);
		if (!fmt) {
			int e = errno ? errno : ENOENT;
			seterr(err, errlen, "cannot read the format of %s: %s", s->name, strerror(e));
			return -e;
		}
		int bad = trace_filter__check(fmt, s->tp_sys, filter, err, errlen);
		tp_format__free(fmt);
		if (bad)
			return bad;
	}
	/* all checked: set them, a second filter joined to the first */
	for (size_t k = l->last_first; k < end; k++) {
		struct event_spec *s = &l->v[k];
		char *f = NULL;
		if ((s->filter ? asprintf(&f, "(%s) && (%s)", s->filter, filter) : asprintf(&f, "%s", filter)) < 0) {
			seterr(err, errlen, "out of memory");
			return -ENOMEM;
		}
		free(s->filter);
		s->filter = f;
	}
	return 0;
}
