/* CPU topology from sysfs, for stat's per-CPU aggregation (perf stat's
 * --per-socket, --per-die, --per-cache, --per-core, --per-node, -A): for
 * each CPU its package (socket), die, core, cache instance and NUMA node,
 * read from ROOT/devices/system/cpu/cpuN/topology/, cpuN/cache/indexM/ and
 * ROOT/devices/system/node/nodeK/ (ROOT is pmu__sysfs_root(), /sys). */
#ifndef PPROBE_TOPOLOGY_H
#define PPROBE_TOPOLOGY_H

#include <stddef.h>

enum aggr_mode {
	AGGR_GLOBAL,	/* one total (the default) */
	AGGR_NONE,	/* -A, --no-aggr: each CPU */
	AGGR_CORE,	/* --per-core: S0-D0-C0 */
	AGGR_CACHE,	/* --per-cache[=L#]: S0-D0-L3-ID0 */
	AGGR_DIE,	/* --per-die: S0-D0 */
	AGGR_SOCKET,	/* --per-socket: S0 */
	AGGR_NODE,	/* --per-node: N0 */
	AGGR_THREAD,	/* --per-thread: comm-TID (not a CPU topology) */
};

/* The ids of one CPU in one mode; fields the mode does not use are -1. */
struct aggr_id {
	int socket, die, core, cache_lvl, cache, node, cpu;
};

/* perf's name of the mode ("core", "die", ...), for messages. */
const char *aggr_mode__name(enum aggr_mode mode);

/* CPU's ids for MODE; CACHE_LEVEL (1..9, or 0: the last level) for
 * AGGR_CACHE. 0, or -errno with what is missing in err ("cannot build die
 * map: /sys/devices/system/cpu/cpu0/topology/die_id: No such file or
 * directory"): a kernel before 5.2 has no die_id, a machine without cache
 * information no cache/index*. */
int topology__cpu_id(int cpu, enum aggr_mode mode, int cache_level, struct aggr_id *id, char *err, size_t errlen);

/* Compare two ids (sort order: socket, die, cache, core, node, cpu). */
int aggr_id__cmp(const struct aggr_id *a, const struct aggr_id *b);

/* The row label as perf stat prints it: "S0-D0-C1", "S0-D0-L3-ID0", "S0-D0",
 * "S0", "N0", "CPU1". */
void aggr_id__label(const struct aggr_id *id, enum aggr_mode mode, char *buf, size_t len);

#endif
