#include "stat_format.h"

#include "json.h"

#include <linux/perf_event.h>
#include <math.h>
#include <string.h>

double stat_count__scaled(const struct stat_count *c)
{
	if (c->runs > 1)
		return c->mean;
	if (!c->running || c->running >= c->enabled)
		return (double)c->value;
	return (double)c->value * (double)c->enabled / (double)c->running;
}

double stat_count__running_pct(const struct stat_count *c)
{
	if (!c->enabled)
		return 0;
	return 100.0 * (double)c->running / (double)c->enabled;
}

double stat_count__spread_pct(const struct stat_count *c)
{
	if (c->runs < 2 || !c->mean)
		return 0;
	return 100.0 * c->stddev / c->mean / sqrt((double)c->runs);
}

bool stat_count__is_clock(const struct stat_count *c)
{
	return c->type == PERF_TYPE_SOFTWARE &&
	       (c->config == PERF_COUNT_SW_CPU_CLOCK || c->config == PERF_COUNT_SW_TASK_CLOCK);
}

static const struct stat_count *find_hw(const struct stat_count *counts, size_t n, uint64_t config)
{
	for (size_t i = 0; i < n; i++)
		if (counts[i].type == PERF_TYPE_HARDWARE && counts[i].config == config && counts[i].supported)
			return &counts[i];
	return NULL;
}

bool stat_metric(const struct stat_count *counts, size_t n, size_t i, double elapsed,
		 double *metric, const char **unit)
{
	const struct stat_count *c = &counts[i];
	if (!c->supported)
		return false;
	double v = stat_count__scaled(c);
	if (c->type == PERF_TYPE_HARDWARE) {
		const struct stat_count *cyc = find_hw(counts, n, PERF_COUNT_HW_CPU_CYCLES);
		const struct stat_count *br = find_hw(counts, n, PERF_COUNT_HW_BRANCH_INSTRUCTIONS);
		const struct stat_count *refs = find_hw(counts, n, PERF_COUNT_HW_CACHE_REFERENCES);
		if (c->config == PERF_COUNT_HW_INSTRUCTIONS && cyc && stat_count__scaled(cyc) > 0) {
			*metric = v / stat_count__scaled(cyc);
			*unit = "insn per cycle";
			return true;
		}
		if (c->config == PERF_COUNT_HW_BRANCH_MISSES && br && stat_count__scaled(br) > 0) {
			*metric = 100.0 * v / stat_count__scaled(br);
			*unit = "% of all branches";
			return true;
		}
		if (c->config == PERF_COUNT_HW_CACHE_MISSES && refs && stat_count__scaled(refs) > 0) {
			*metric = 100.0 * v / stat_count__scaled(refs);
			*unit = "% of all cache refs";
			return true;
		}
		if (c->config == PERF_COUNT_HW_CPU_CYCLES && elapsed > 0) {
			*metric = v / elapsed / 1e9;
			*unit = "GHz";
			return true;
		}
	}
	if (stat_count__is_clock(c)) {
		if (elapsed <= 0)
			return false;
		*metric = v / 1e9 / elapsed;
		*unit = "CPUs utilized";
		return true;
	}
	if (elapsed > 0) {
		*metric = v / elapsed;
		*unit = "/sec";
		return true;
	}
	return false;
}

/* The width perf pads a row label to: its last number (the CPU, core, die,
 * socket, node, cache id) takes W columns. */
static int label_width(const char *label, enum aggr_mode mode)
{
	size_t len = strlen(label), d = len;
	while (d && label[d - 1] >= '0' && label[d - 1] <= '9')
		d--;
	int w = mode == AGGR_NONE ? 7 : mode == AGGR_SOCKET || mode == AGGR_NODE ? 5 : 8;
	return (int)d + (int)(len - d > (size_t)w ? len - d : (size_t)w);
}

/* perf stat's aggregation columns before a count: "S0-D0-C0           1 ",
 * "CPU0        ", "         python3-7089     "; with CSV "S0-D0-C0,1,". */
static void print_row_label(const struct stat_print *p, FILE *f)
{
	const char *l = p->label ? p->label : "";
	if (p->style == STAT_CSV) {
		fprintf(f, "%s%s", l, p->sep);
		if (p->aggr_nr >= 0)
			fprintf(f, "%d%s", p->aggr_nr, p->sep);
		return;
	}
	if (p->aggr == AGGR_THREAD) {
		const char *dash = strrchr(l, '-');
		int clen = dash ? (int)(dash - l) : (int)strlen(l);
		fprintf(f, "%16.*s-%-8s ", clen, l, dash ? dash + 1 : "");
		return;
	}
	fprintf(f, "%-*s ", label_width(l, p->aggr), l);
	if (p->aggr_nr >= 0)
		fprintf(f, "%4d ", p->aggr_nr);
}

/* JSON: perf's key for the row ("core": "S0-D0-C0", "aggregate number": 1). */
static void json_row_label(const struct stat_print *p, FILE *f, int *first)
{
	static const char *const keys[] = {
		[AGGR_NONE] = "cpu", [AGGR_CORE] = "core", [AGGR_CACHE] = "cache", [AGGR_DIE] = "die",
		[AGGR_SOCKET] = "socket", [AGGR_NODE] = "node", [AGGR_THREAD] = "thread",
	};
	const char *l = p->label ? p->label : "";
	json__key(f, keys[p->aggr], first);
	json__string(f, p->aggr == AGGR_NONE && !strncmp(l, "CPU", 3) ? l + 3 : l);
	if (p->aggr_nr >= 0) {
		json__key(f, "aggregate number", first);
		json__u64(f, (uint64_t)p->aggr_nr);
	}
}

void stat_print__counts(const struct stat_print *p, const struct stat_count *counts, size_t n)
{
	for (size_t i = 0; i < n; i++)
		stat_print__count(p, counts, n, i);
}

void stat_print__count(const struct stat_print *p, const struct stat_count *counts, size_t n, size_t i)
{
	FILE *f = p->out;
	bool row = p->aggr != AGGR_GLOBAL;
	int cw = row ? 18 : 20;	/* perf's count column after a row label */
	{
		const struct stat_count *c = &counts[i];
		bool clock = stat_count__is_clock(c);
		double v = stat_count__scaled(c);
		double shown = clock ? v / 1e6 : v;
		const char *unit = clock ? "msec" : "";
		double metric = 0;
		const char *munit = NULL;
		bool has_metric = stat_metric(counts, n, i, p->elapsed, &metric, &munit);
		double pct = stat_count__running_pct(c);

		if (p->style == STAT_CSV) {
			const char *s = p->sep;
			if (p->interval_ts >= 0)
				fprintf(f, "%.6f%s", p->interval_ts, s);
			if (row)
				print_row_label(p, f);
			if (c->supported && row && !c->running)
				fputs("<not counted>", f);
			else if (c->supported)
				fprintf(f, clock ? "%.2f" : "%.0f", shown);
			else
				fputs("<not supported>", f);
			fprintf(f, "%s%s%s%s%s%llu%s%.2f", s, unit, s, c->name, s,
				(unsigned long long)c->running, s, c->supported ? pct : 0.0);
			if (has_metric)
				fprintf(f, "%s%.2f%s%s", s, metric, s, munit);
			else
				fprintf(f, "%s%s", s, s);
			fputc('\n', f);
			return;
		}
		if (p->style == STAT_JSON) {
			int first = 1;
			fputc('{', f);
			if (p->interval_ts >= 0) {
				json__key(f, "interval", &first);
				json__double(f, p->interval_ts, 6);
			}
			if (row)
				json_row_label(p, f, &first);
			json__key(f, "counter-value", &first);
			if (c->supported && row && !c->running) {
				json__string(f, "<not counted>");
			} else if (c->supported) {
				char num[64];
				snprintf(num, sizeof(num), clock ? "%.6f" : "%.0f", shown);
				json__string(f, num);
			} else {
				json__string(f, "<not supported>");
			}
			json__key(f, "unit", &first);
			json__string(f, unit);
			json__key(f, "event", &first);
			json__string(f, c->name);
			json__key(f, "event-runtime", &first);
			json__u64(f, c->running);
			json__key(f, "pcnt-running", &first);
			json__double(f, c->supported ? pct : 0.0, 2);
			if (c->runs > 1) {
				json__key(f, "variance", &first);
				json__double(f, stat_count__spread_pct(c), 2);
			}
			if (has_metric) {
				json__key(f, "metric-value", &first);
				json__double(f, metric, 6);
				json__key(f, "metric-unit", &first);
				json__string(f, munit);
			}
			fputs("}\n", f);
			return;
		}
		/* human, perf stat's layout; thousands grouped as the locale says
		 * (none in the C locale, as perf) */
		char num[64];
		if (p->interval_ts >= 0)
			fprintf(f, "%14.6f ", p->interval_ts);
		if (row)
			print_row_label(p, f);
		if (!c->supported || (row && !c->running)) {
			/* perf: a row whose counter never ran is <not counted> */
			fprintf(f, "%*s %-4s %s\n", cw, c->supported ? "<not counted>" : "<not supported>",
				row ? unit : "", c->name);
			return;
		}
		snprintf(num, sizeof(num), "%'.*f", clock ? 2 : 0, shown);
		if (!has_metric && c->runs < 2 && !(pct < 99.995 && c->enabled)) {
			fprintf(f, "%*s %-4s %s\n", cw, num, unit, c->name);
			return;
		}
		fprintf(f, "%*s %-4s %-28s", cw, num, unit, c->name);
		if (has_metric)
			fprintf(f, " # %8.3f %s", metric, munit);
		if (c->runs > 1)
			fprintf(f, "  ( +- %5.2f%% )", stat_count__spread_pct(c));
		if (pct < 99.995 && c->enabled)
			fprintf(f, "  (%.2f%%)", pct);
		fputc('\n', f);
	}
}
