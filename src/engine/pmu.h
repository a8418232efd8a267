/* sysfs PMU discovery: /sys/bus/event_source/devices/NAME/{type,format/,events/}.
 *
 * format/TERM holds "config:0-7,21" (bits of attr.config, a value's low bits
 * go to the lowest listed bit first), "config1:0-63", "config2:...".
 * events/ALIAS holds "term=value,term,..." (an alias of terms); ALIAS.scale,
 * ALIAS.unit and similar are metadata, not aliases.
 */
#ifndef PPROBE_PMU_H
#define PPROBE_PMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

enum pmu_field { PMU_FIELD_CONFIG, PMU_FIELD_CONFIG1, PMU_FIELD_CONFIG2 };

struct pmu_format {
	char *name;
	enum pmu_field field;
	uint64_t bits;       /* mask of the target bits in the field */
	unsigned width;      /* number of bits (popcount of bits) */
};

struct pmu_alias {
	char *name;
	char *terms;         /* "event=0x3c,umask=0x00", trimmed */
};

struct pmu {
	char *name;
	uint32_t type;
	struct pmu_format *formats;
	size_t nr_formats;
	struct pmu_alias *aliases;   /* sorted by name */
	size_t nr_aliases;
};

/* Sysfs root ("/sys" by default). Tests point it at a synthetic tree that has
 * bus/event_source/devices/. NULL restores "/sys". */
void pmu__set_sysfs_root(const char *root);
const char *pmu__sysfs_root(void);

/* One PMU by name; NULL + errno (ENOENT: no such PMU). */
struct pmu *pmu__load(const char *name);
void pmu__free(struct pmu *pmu);

/* All PMUs, sorted by name: returns the count (>= 0) or -errno; *out is an
 * array of owned pmus, free with pmu__free_all(). */
int pmu__load_all(struct pmu ***out);
void pmu__free_all(struct pmu **pmus, int nr);

const struct pmu_format *pmu__format(const struct pmu *pmu, const char *term);
const struct pmu_alias *pmu__alias(const struct pmu *pmu, const char *name);

/* Put VALUE into the bits FMT describes. -ERANGE if VALUE does not fit. */
int pmu_format__encode(const struct pmu_format *fmt, uint64_t value, struct perf_event_attr *attr);

/* Parse one format file's text ("config:0-7,21"); 0 or -EINVAL. */
int pmu_format__parse(struct pmu_format *fmt, const char *text);

/* Does the machine have a core (CPU) PMU, i.e. can PERF_TYPE_HARDWARE,
 * PERF_TYPE_HW_CACHE and PERF_TYPE_RAW events be counted at all? Looks for
 * a PMU named cpu, cpu_core, cpu_atom, armv*, or one of type PERF_TYPE_RAW. */
bool pmu__have_core_pmu(void);

#endif
