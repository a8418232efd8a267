/* topology.c: CPU ids for stat's aggregation modes, from a sysfs tree made
 * here (two sockets, a die_id missing on one machine, caches) and from the
 * real /sys. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "pmu.h"
#include "topology.h"

static char root[256];

static void put(const char *rel, const char *text)
{
	char path[512], cmd[600];
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	if (system(cmd))
		CHECK_FAIL("mkdir for %s", path);
	FILE *f = fopen(path, "w");
	if (!f) {
		CHECK_FAIL("cannot write %s", path);
		return;
	}
	fprintf(f, "%s\n", text);
	fclose(f);
}

/* CPU c in socket s, die d, core k; its L2 is private, its L3 shared by l3 */
static void cpu(int c, int s, int d, int k, const char *l3, bool with_die)
{
	char rel[128], v[32];
	snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/topology/physical_package_id", c);
	snprintf(v, sizeof(v), "%d", s);
	put(rel, v);
	if (with_die) {
		snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/topology/die_id", c);
		snprintf(v, sizeof(v), "%d", d);
		put(rel, v);
	}
	snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/topology/core_id", c);
	snprintf(v, sizeof(v), "%d", k);
	put(rel, v);
	snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/cache/index0/level", c);
	put(rel, "2");
	snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/cache/index0/shared_cpu_list", c);
	snprintf(v, sizeof(v), "%d", c);
	put(rel, v);
	snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/cache/index1/level", c);
	put(rel, "3");
	snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/cache/index1/shared_cpu_list", c);
	put(rel, l3);
	snprintf(rel, sizeof(rel), "devices/system/node/node%d/cpu%d/online", s, c);
	put(rel, "1");
}

int main(void)
{
	char err[512], label[64];
	struct aggr_id id;
	snprintf(root, sizeof(root), "/tmp/pprobe-topo-XXXXXX");
	if (!mkdtemp(root))
		return check_skip("mkdtemp: %s", strerror(errno));
	/* socket 1's CPUs 2-3 share an L3 "2-3"; CPU 3 is core 5 */
	cpu(0, 0, 0, 0, "0-1", true);
	cpu(1, 0, 0, 1, "0-1", true);
	cpu(2, 1, 0, 0, "2-3", true);
	cpu(3, 1, 0, 5, "2-3", false);	/* a kernel without die_id (before 5.2) */
	pmu__set_sysfs_root(root);

	CHECK(!topology__cpu_id(2, AGGR_CORE, 0, &id, err, sizeof(err)), "%s", err);
	aggr_id__label(&id, AGGR_CORE, label, sizeof(label));
	CHECK_STREQ(label, "S1-D0-C0");
	CHECK(!topology__cpu_id(1, AGGR_SOCKET, 0, &id, err, sizeof(err)), "%s", err);
	aggr_id__label(&id, AGGR_SOCKET, label, sizeof(label));
	CHECK_STREQ(label, "S0");
	CHECK_EQ_INT(topology__cpu_id(3, AGGR_CACHE, 0, &id, err, sizeof(err)), -ENOENT);	/* S-D-L: needs die_id */
	CHECK(!topology__cpu_id(2, AGGR_CACHE, 0, &id, err, sizeof(err)), "%s", err);
	aggr_id__label(&id, AGGR_CACHE, label, sizeof(label));
	CHECK_STREQ(label, "S1-D0-L3-ID2");	/* the last level, id = its first CPU */
	CHECK(!topology__cpu_id(1, AGGR_CACHE, 2, &id, err, sizeof(err)), "%s", err);
	aggr_id__label(&id, AGGR_CACHE, label, sizeof(label));
	CHECK_STREQ(label, "S0-D0-L2-ID1");
	CHECK_EQ_INT(topology__cpu_id(1, AGGR_CACHE, 4, &id, err, sizeof(err)), -ENOENT);
	CHECK(strstr(err, "cannot build cache map: CPU 1 has no L4 cache"), "%s", err);
	CHECK(!topology__cpu_id(3, AGGR_NODE, 0, &id, err, sizeof(err)), "%s", err);
	aggr_id__label(&id, AGGR_NODE, label, sizeof(label));
	CHECK_STREQ(label, "N1");
	/* perf's message where the topology lacks what the mode needs */
	CHECK_EQ_INT(topology__cpu_id(3, AGGR_DIE, 0, &id, err, sizeof(err)), -ENOENT);
	CHECK(strstr(err, "cannot build die map: ") && strstr(err, "cpu3/topology/die_id: No such file"), "%s",
	      err);
	CHECK_EQ_INT(topology__cpu_id(3, AGGR_CORE, 0, &id, err, sizeof(err)), -ENOENT);
	CHECK(strstr(err, "cannot build core map: "), "%s", err);
	CHECK(!topology__cpu_id(3, AGGR_SOCKET, 0, &id, err, sizeof(err)), "sockets need no die: %s", err);
	/* sort: socket, die, cache, core */
	struct aggr_id a, b;
	topology__cpu_id(1, AGGR_CORE, 0, &a, err, sizeof(err));
	topology__cpu_id(2, AGGR_CORE, 0, &b, err, sizeof(err));
	CHECK(aggr_id__cmp(&a, &b) < 0, "S0-D0-C1 sorts before S1-D0-C0");

	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd))
		CHECK_FAIL("rm %s", root);

	/* the real machine: CPU 0's core and socket exist wherever sysfs does */
	pmu__set_sysfs_root(NULL);
	if (access("/sys/devices/system/cpu/cpu0/topology/core_id", R_OK) == 0) {
		CHECK(!topology__cpu_id(0, AGGR_CORE, 0, &id, err, sizeof(err)), "%s", err);
		CHECK(id.core >= 0 && id.socket >= 0, "cpu0: core %d socket %d", id.core, id.socket);
	}
	CHECK(!topology__cpu_id(0, AGGR_NONE, 0, &id, err, sizeof(err)) && id.cpu == 0, "-A: the CPU itself");
	return check_summary();
}
