/* pprobe stat's arithmetic and printing, apart from the kernel so it can be
 * tested with synthetic counts: scaling multiplexed counters, derived
 * metrics, human, CSV and JSON output. */
#ifndef PPROBE_STAT_FORMAT_H
#define PPROBE_STAT_FORMAT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "topology.h"

struct stat_count {
	const char *name;	/* as the user spelled it */
	uint32_t type;		/* perf_event_attr type/config, for units and metrics */
	uint64_t config;
	uint64_t value;		/* raw sum over fds */
	uint64_t enabled, running;
	bool supported;		/* false: <not supported> / <not counted> */
	/* with -r: over the runs */
	double mean, stddev;
	int runs;
};

/* value scaled for multiplexing: value * enabled / running. */
double stat_count__scaled(const struct stat_count *c);
/* running / enabled in percent (100 when never multiplexed). */
double stat_count__running_pct(const struct stat_count *c);
/* -r: the relative spread of the mean in percent (perf's "+- x%"). */
double stat_count__spread_pct(const struct stat_count *c);
/* true for cpu-clock/task-clock: counts nanoseconds, printed as msec. */
bool stat_count__is_clock(const struct stat_count *c);

enum stat_style { STAT_HUMAN, STAT_CSV, STAT_JSON };

struct stat_print {
	enum stat_style style;
	const char *sep;	/* CSV separator */
	double elapsed;		/* seconds of wall time the counts cover */
	double interval_ts;	/* -I: the timestamp column, < 0 when none */
	FILE *out;
	/* A row of an aggregation mode (-A, --per-core, --per-thread, ...):
	 * its label ("S0-D0-C1", "CPU1", "comm-TID") and, for the modes that
	 * sum CPUs, how many (perf's second column; < 0: none). AGGR_GLOBAL:
	 * no row label. */
	enum aggr_mode aggr;
	const char *label;
	int aggr_nr;
};

/* The derived metric of counts[i] ("insn per cycle", "CPUs utilized", "/sec",
 * "of all branches"), in metric/unit; false when it has none. */
bool stat_metric(const struct stat_count *counts, size_t n, size_t i, double elapsed,
		 double *metric, const char **unit);

void stat_print__counts(const struct stat_print *p, const struct stat_count *counts, size_t n);
/* One line: counts[i], with the others of its row for its metric. */
void stat_print__count(const struct stat_print *p, const struct stat_count *counts, size_t n, size_t i);

#endif
