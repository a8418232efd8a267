/* CPU topology from sysfs for stat's aggregation modes. See topology.h. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmu.h"
#include "topology.h"
#include "util.h"

const char *aggr_mode__name(enum aggr_mode mode)
{
	static const char *const names[] = {
		[AGGR_GLOBAL] = "global", [AGGR_NONE] = "none", [AGGR_CORE] = "core", [AGGR_CACHE] = "cache",
		[AGGR_DIE] = "die", [AGGR_SOCKET] = "socket", [AGGR_NODE] = "node", [AGGR_THREAD] = "thread",
	};
	return names[mode];
}

/* The first line of PATH; 0 or -errno. */
static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return -errno;
	char *ok = fgets(buf, (int)len, f);
	int e = ok ? 0 : -EIO;
	fclose(f);
	if (!e)
		buf[strcspn(buf, "\n")] = 0;
	return e;
}

static int read_int(const char *path, int *v, const char *mode, char *err, size_t errlen)
{
	char buf[64], *end;
	int e = read_line(path, buf, sizeof(buf));
	if (!e) {
		long x = strtol(buf, &end, 10);
		if (end == buf || *end || x < INT_MIN || x > INT_MAX)
			e = -EINVAL;
		else
			*v = (int)x;
	}
	if (e)
		seterr(err, errlen, "cannot build %s map: %s: %s", mode, path, strerror(-e));
	return e;
}

/* The instance of CPU's cache of LEVEL (0: the highest level it has):
 * perf's id, the first CPU of its shared_cpu_list. */
static int cache_id(int cpu, int level, struct aggr_id *id, char *err, size_t errlen)
{
	char path[PATH_MAX], buf[4096];
	int best_lvl = -1, best_id = -1;
	for (int i = 0;; i++) {
		int lvl;
		snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d/cache/index%d/level", pmu__sysfs_root(), cpu,
			 i);
		if (read_line(path, buf, sizeof(buf)))
			break;
		lvl = atoi(buf);
		if ((level && lvl != level) || (!level && lvl <= best_lvl))
			continue;
		snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d/cache/index%d/shared_cpu_list",
			 pmu__sysfs_root(), cpu, i);
		int *cpus = NULL;
		int n = read_line(path, buf, sizeof(buf)) ? -EIO : cpulist__parse(buf, &cpus);
		if (n <= 0) {
			free(cpus);
			seterr(err, errlen, "cannot build cache map: %s unreadable", path);
			return -EIO;
		}
		best_lvl = lvl;
		best_id = cpus[0];
		free(cpus);
	}
	if (best_lvl < 0) {
		if (level)
			seterr(err, errlen, "cannot build cache map: CPU %d has no L%d cache in %s/devices/system/cpu/"
			       "cpu%d/cache", cpu, level, pmu__sysfs_root(), cpu);
		else
			seterr(err, errlen, "cannot build cache map: no cache information in %s/devices/system/cpu/"
			       "cpu%d/cache", pmu__sysfs_root(), cpu);
		return -ENOENT;
	}
	id->cache_lvl = best_lvl;
	id->cache = best_id;
	return 0;
}

/* The node whose directory holds cpuN: ROOT/devices/system/node/nodeK/cpuN. */
static int node_of(int cpu, int *node, char *err, size_t errlen)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/devices/system/node", pmu__sysfs_root());
	DIR *d = opendir(path);
	if (!d) {
		int e = -errno;
		seterr(err, errlen, "cannot build node map: %s: %s", path, strerror(-e));
		return e;
	}
	struct dirent *de;
	int found = -1;
	while ((de = readdir(d)) && found < 0) {
		char *end;
		if (strncmp(de->d_name, "node", 4))
			continue;
		long k = strtol(de->d_name + 4, &end, 10);
		if (end == de->d_name + 4 || *end)
			continue;
		char cpath[PATH_MAX + 300];
		snprintf(cpath, sizeof(cpath), "%s/%s/cpu%d", path, de->d_name, cpu);
		if (!access(cpath, F_OK))
			found = (int)k;
	}
	closedir(d);
	if (found < 0) {
		seterr(err, errlen, "cannot build node map: CPU %d is in no %s/node*", cpu, path);
		return -ENOENT;
	}
	*node = found;
	return 0;
}

int topology__cpu_id(int cpu, enum aggr_mode mode, int cache_level, struct aggr_id *id, char *err, size_t errlen)
{
	char path[PATH_MAX];
	const char *name = aggr_mode__name(mode);
	int e = 0;
	*id = (struct aggr_id){ -1, -1, -1, -1, -1, -1, -1 };
#define TOPO(file, field)                                                                                       \
	(snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d/topology/" file, pmu__sysfs_root(), cpu), \
	 read_int(path, &id->field, name, err, errlen))
	switch (mode) {
	case AGGR_NONE:
		id->cpu = cpu;
		break;
	case AGGR_CORE:
		e = TOPO("physical_package_id", socket) ?: TOPO("die_id", die) ?: TOPO("core_id", core);
		break;
	case AGGR_CACHE:
		e = TOPO("physical_package_id", socket) ?: TOPO("die_id", die) ?:
		    cache_id(cpu, cache_level, id, err, errlen);
		break;
	case AGGR_DIE:
		e = TOPO("physical_package_id", socket) ?: TOPO("die_id", die);
		break;
	case AGGR_SOCKET:
		e = TOPO("physical_package_id", socket);
		break;
	case AGGR_NODE:
		e = node_of(cpu, &id->node, err, errlen);
		break;
	case AGGR_GLOBAL:
	case AGGR_THREAD:
		break;
	}
#undef TOPO
	return e;
}

static int cmp_int(int a, int b)
{
	return a < b ? -1 : a > b;
}

int aggr_id__cmp(const struct aggr_id *a, const struct aggr_id *b)
{
	return cmp_int(a->socket, b->socket) ?: cmp_int(a->die, b->die) ?: cmp_int(a->cache_lvl, b->cache_lvl) ?:
	       cmp_int(a->cache, b->cache) ?: cmp_int(a->core, b->core) ?: cmp_int(a->node, b->node) ?:
	       cmp_int(a->cpu, b->cpu);
}

void aggr_id__label(const struct aggr_id *id, enum aggr_mode mode, char *buf, size_t len)
{
	switch (mode) {
	case AGGR_NONE: snprintf(buf, len, "CPU%d", id->cpu); break;
	case AGGR_CORE: snprintf(buf, len, "S%d-D%d-C%d", id->socket, id->die, id->core); break;
	case AGGR_CACHE: snprintf(buf, len, "S%d-D%d-L%d-ID%d", id->socket, id->die, id->cache_lvl, id->cache); break;
	case AGGR_DIE: snprintf(buf, len, "S%d-D%d", id->socket, id->die); break;
	case AGGR_SOCKET: snprintf(buf, len, "S%d", id->socket); break;
	case AGGR_NODE: snprintf(buf, len, "N%d", id->node); break;
	case AGGR_GLOBAL:
	case AGGR_THREAD: snprintf(buf, len, "%s", ""); break;
	}
}
