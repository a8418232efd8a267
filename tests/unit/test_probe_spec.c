/* probe_spec: the spec forms, the perf_event_attrs built for the uprobe and
 * kprobe PMUs (kprobes through a synthetic sysfs with Debian 6.1's kprobe
 * PMU, type 6, since this machine has none), binary lookup, the kprobe-less
 * error, and the trace text of raw probe records. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "event_spec.h"
#include "pmu.h"
#include "probe_spec.h"
#include "tracefs.h"

static char err[4096];
static const char *exec;	/* the -x binary parse_ok and parse_bad give probe_spec__parse */

static void parse_ok(const char *group, const char *rest, enum probe_target target, bool ret, const char *binary,
		     const char *where, const char *args)
{
	struct probe_spec ps;
	int r = probe_spec__parse(group, rest, exec, &ps, err, sizeof(err));
	CHECK(r == 0, "%s:%s: %d %s", group, rest, r, err);
	if (r)
		return;
	CHECK(ps.target == target, "%s:%s: target %d", group, rest, ps.target);
	CHECK(ps.ret == ret, "%s:%s: ret %d", group, rest, ps.ret);
	CHECK(binary ? ps.binary && !strcmp(ps.binary, binary) : !ps.binary, "%s:%s: binary %s", group, rest,
	      ps.binary ? ps.binary : "(null)");
	CHECK(where ? ps.where && !strcmp(ps.where, where) : !ps.where, "%s:%s: where %s", group, rest,
	      ps.where ? ps.where : "(null)");
	CHECK(args ? ps.args && !strcmp(ps.args, args) : !ps.args, "%s:%s: args %s", group, rest,
	      ps.args ? ps.args : "(null)");
	probe_spec__exit(&ps);
}

static void parse_bad(const char *group, const char *rest, const char *needle)
{
	struct probe_spec ps;
	int r = probe_spec__parse(group, rest, exec, &ps, err, sizeof(err));
	CHECK(r == -EINVAL, "%s:%s: %d", group, rest, r);
	CHECK(strstr(err, needle) != NULL, "%s:%s: message lacks '%s': %s", group, rest, needle, err);
	CHECK(!ps.binary && !ps.where && !ps.args, "%s:%s: not cleared", group, rest);
}

static void test_parse(void)
{
	parse_ok("uprobe", "/bin/bash:readline", PROBE_TARGET_UPROBE, false, "/bin/bash", "readline", NULL);
	parse_ok("uprobe", "./app:handle+0x10", PROBE_TARGET_UPROBE, false, "./app", "handle+0x10", NULL);
	parse_ok("uprobe", "./app:handle:12", PROBE_TARGET_UPROBE, false, "./app", "handle:12", NULL);
	parse_ok("uprobe", "./app:0x401136", PROBE_TARGET_UPROBE, false, "./app", "0x401136", NULL);
	parse_ok("uprobe", "./app:handle%return", PROBE_TARGET_UPROBE, true, "./app", "handle", NULL);
	parse_ok("uretprobe", "libc.so.6:malloc", PROBE_TARGET_UPROBE, true, "libc.so.6", "malloc", NULL);
	parse_ok("uprobe", "./app:handle req->len  path:string ", PROBE_TARGET_UPROBE, false, "./app", "handle",
		 "req->len  path:string");
	parse_ok("probe", "tcp_sendmsg", PROBE_TARGET_KPROBE, false, NULL, "tcp_sendmsg", NULL);
	parse_ok("probe", "tcp_sendmsg+16", PROBE_TARGET_KPROBE, false, NULL, "tcp_sendmsg+16", NULL);
	parse_ok("probe", "tcp_sendmsg%return", PROBE_TARGET_KPROBE, true, NULL, "tcp_sendmsg", NULL);
	parse_ok("kprobe", "0xffffffff81000000", PROBE_TARGET_KPROBE, false, NULL, "0xffffffff81000000", NULL);
	parse_ok("kretprobe", "do_sys_openat2", PROBE_TARGET_KPROBE, true, NULL, "do_sys_openat2", NULL);

	struct probe_spec ps;
	CHECK(probe_spec__parse("sdt", "/usr/lib/libstdc++.so.6:libstdcxx:throw", NULL, &ps, err, sizeof(err)) == 0, "%s", err);
	CHECK(ps.target == PROBE_TARGET_SDT && !strcmp(ps.binary, "/usr/lib/libstdc++.so.6") &&
	      !strcmp(ps.provider, "libstdcxx") && !strcmp(ps.name, "throw"), "sdt fields");
	probe_spec__exit(&ps);

	/* -x BINARY: probe: is a uprobe there */
	exec = "./app";
	parse_ok("probe", "handle:3", PROBE_TARGET_UPROBE, false, "./app", "handle:3", NULL);
	parse_ok("probe", "handle%return", PROBE_TARGET_UPROBE, true, "./app", "handle", NULL);
	parse_ok("kprobe", "tcp_sendmsg", PROBE_TARGET_KPROBE, false, NULL, "tcp_sendmsg", NULL);
	CHECK(probe_spec__parse("sdt_myprov", "req_start", exec, &ps, err, sizeof(err)) == 0, "%s", err);
	CHECK(ps.target == PROBE_TARGET_SDT && !strcmp(ps.binary, "./app") && !strcmp(ps.provider, "myprov") &&
	      !strcmp(ps.name, "req_start"), "sdt_PROVIDER:NAME with -x");
	probe_spec__exit(&ps);
	exec = NULL;

	parse_bad("uprobe", "readline", "uprobe:BINARY:FUNC");
	parse_bad("uprobe", "/bin/bash:", "uprobe:BINARY:FUNC");
	parse_bad("uprobe", "./app:handle+x", "not an offset");
	parse_bad("uprobe", "./app:handle:0", "not a line number");
	parse_bad("uprobe", "./app:0x12g", "not a hexadecimal address");
	parse_bad("uretprobe", "./app:handle+4", "without an offset");
	parse_bad("uretprobe", "./app:0x1000", "needs a function");
	parse_bad("kprobe", "", "missing");
	parse_bad("kprobe", "+4", "function is missing");
	parse_bad("sdt", "./app:throw", "sdt:BINARY:PROVIDER:NAME");
}

/* A synthetic sysfs with the PMUs of Debian's 6.1 kernel (the VM). */
static char root[] = "/tmp/pprobe-probe-sysfs.XXXXXX";

static void put(const char *rel, const char *text)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/bus/event_source/devices/%s", root, rel);
	char dir[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s", p);
	for (char *s = dir + strlen(root) + 1; (s = strchr(s, '/')); s++) {
		*s = 0;
		mkdir(dir, 0755);
		*s = '/';
	}
	FILE *f = fopen(p, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void make_sysfs(void)
{
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		exit(1);
	}
	put("kprobe/type", "6\n");
	put("kprobe/format/retprobe", "config:0\n");
	put("uprobe/type", "7\n");
	put("uprobe/format/retprobe", "config:0\n");
	put("uprobe/format/ref_ctr_offset", "config:32-63\n");
	put("software/type", "1\n");
}

static void rm_sysfs(void)
{
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd)) {
		/* a leftover in /tmp is harmless */
	}
}

static void kattr(const char *arg, uint64_t config, const char *func, uint64_t config2, const char *name)
{
	struct event_list l;
	event_list__init(&l);
	int r = event_list__add(&l, arg, err, sizeof(err));
	CHECK(r == 0, "%s: %d %s", arg, r, err);
	if (!r) {
		CHECK(l.nr == 1, "%s: %zu events", arg, l.nr);
		const struct event_spec *s = &l.v[0];
		CHECK(s->kind == EVENT_KIND_PROBE, "%s: kind", arg);
		CHECK(!strcmp(s->pmu, "kprobe"), "%s: pmu %s", arg, s->pmu);
		CHECK_EQ_U64(s->attr.type, 6);
		CHECK_EQ_U64(s->attr.config, config);
		CHECK(func ? s->attr.config1 && !strcmp((const char *)(uintptr_t)s->attr.config1, func)
			   : s->attr.config1 == 0, "%s: config1", arg);
		CHECK(func ? s->probe_str == (char *)(uintptr_t)s->attr.config1 : !s->probe_str, "%s: owned", arg);
		CHECK_EQ_U64(s->attr.config2, config2);
		CHECK_EQ_U64(s->attr.sample_period, 1);
		CHECK(!s->attr.freq, "%s: every event", arg);
		CHECK(s->probe_ret == (config & 1), "%s: probe_ret", arg);
		CHECK(!strcmp(s->name, name), "%s: name %s", arg, s->name);
		CHECK(s->same_as == 0, "%s: same_as", arg);
	}
	event_list__exit(&l);
}

static void test_kprobe_attrs(void)
{
	pmu__set_sysfs_root(root);
	/* A kernel function that kallsyms has (for the name check), or none. */
	kattr("probe:tcp_sendmsg", 0, "tcp_sendmsg", 0, "probe:tcp_sendmsg");
	kattr("kprobe:tcp_sendmsg+16", 0, "tcp_sendmsg", 16, "kprobe:tcp_sendmsg+16");
	kattr("kprobe:tcp_sendmsg+0x10:k", 0, "tcp_sendmsg", 16, "kprobe:tcp_sendmsg+0x10:k");
	kattr("probe:tcp_sendmsg%return", 1, "tcp_sendmsg", 0, "probe:tcp_sendmsg%return");
	kattr("kretprobe:tcp_sendmsg", 1, "tcp_sendmsg", 0, "kretprobe:tcp_sendmsg");
	kattr("kprobe:0xffffffff81000000", 0, NULL, 0xffffffff81000000ULL, "kprobe:0xffffffff81000000");

	/* A kernel function the compiler only left as a clone (X.isra.0, once in
	 * kallsyms, no X): X is refused with the clone's name suggested (without
	 * a vmlinux nothing says the clone is X), the clone's name works. */
	FILE *ks = fopen("/proc/kallsyms", "re");
	char line[512], clone[256] = "", base[256] = "";
	char *names = NULL;
	size_t nsz = 0;
	FILE *ns = open_memstream(&names, &nsz);
	while (ks && ns && fgets(line, sizeof(line), ks)) {
		char sym[256], t;
		if (sscanf(line, "%*s %c %255s", &t, sym) == 2 && !strchr(sym, '\t') && line[strlen(line) - 2] != ']')
			fprintf(ns, "\n%s\n", sym);
	}
	if (ks)
		fclose(ks);
	if (ns)
		fclose(ns);
	for (char *p = names; p && (p = strstr(p, ".isra.0\n")); p++) {
		char *b = p;
		while (b > names && b[-1] != '\n')
			b--;
		char key[300];
		snprintf(base, sizeof(base), "%.*s", (int)(p - b), b);
		snprintf(clone, sizeof(clone), "%.*s.isra.0", (int)(p - b), b);
		snprintf(key, sizeof(key), "\n%s\n", clone);
		char *firstk = strstr(names, key);
		char bkey[300], bkey2[300];
		snprintf(bkey, sizeof(bkey), "\n%s\n", base);
		snprintf(bkey2, sizeof(bkey2), "\n%s.", base);
		/* once, no base symbol, no other clone of it, not a __pfx_ padding symbol */
		size_t bl = strlen(bkey2);
		int clones = 0;
		for (char *q = names; (q = strstr(q, bkey2)); q += bl)
			clones++;
		if (strncmp(base, "__pfx_", 6) && firstk && !strstr(firstk + 1, key) && !strstr(names, bkey) && clones == 1)
			break;
		clone[0] = base[0] = 0;
	}
	free(names);
	if (clone[0]) {
		char arg[300];
		snprintf(arg, sizeof(arg), "kprobe:%s", clone);
		kattr(arg, 0, clone, 0, arg);
		snprintf(arg, sizeof(arg), "kretprobe:%s", clone);
		kattr(arg, 1, clone, 0, arg);
		snprintf(arg, sizeof(arg), "kprobe:%s", base);
		struct event_list l;
		event_list__init(&l);
		CHECK(event_list__add(&l, arg, err, sizeof(err)) == -ENOENT && l.nr == 0, "%s", arg);
		CHECK(strstr(err, "did you mean:") && strstr(err, clone), "%s", err);
		event_list__exit(&l);
	} else {
		printf("skip clone-only kernel function: none in kallsyms\n");
	}

	{
		struct event_list l;
		event_list__init(&l);
		CHECK(event_list__add(&l, "kprobe:tcp_sendmsgg", err, sizeof(err)) == -ENOENT && l.nr == 0, "%s", err);
		CHECK(strstr(err, "no function tcp_sendmsgg in [kernel.kallsyms]; did you mean: tcp_sendmsg"), "%s", err);
		event_list__exit(&l);
	}

	/* attrs directly: the bits come from the formats */
	struct pmu *k = pmu__load("kprobe"), *u = pmu__load("uprobe");
	CHECK(k && u, "synthetic PMUs load");
	if (k && u) {
		struct perf_event_attr a = { 0 };
		CHECK(probe_spec__pmu_attr(&a, u, "/bin/true", 0x1040, 0x4022, true, err, sizeof(err)) == 0, "%s", err);
		CHECK_EQ_U64(a.type, 7);
		CHECK_EQ_U64(a.config, 1 | (0x4022ULL << 32));
		CHECK_EQ_U64(a.config2, 0x1040);
		CHECK(!strcmp((const char *)(uintptr_t)a.config1, "/bin/true"), "config1 path");
		CHECK_EQ_U64(a.size, sizeof(a));
		/* a kprobe PMU without ref_ctr_offset cannot set a semaphore */
		CHECK(probe_spec__pmu_attr(&a, k, "x", 0, 8, false, err, sizeof(err)) == -EOPNOTSUPP &&
		      strstr(err, "ref_ctr_offset"), "%s", err);
	}
	pmu__free(k);
	pmu__free(u);
	pmu__set_sysfs_root(NULL);
}

static void test_uprobe_attrs(void)
{
	char libc[PATH_MAX];
	if (probe_spec__find_binary("libc.so.6", NULL, libc, sizeof(libc))) {
		printf("skip uprobe attrs: no libc.so.6 found\n");
		return;
	}
	pmu__set_sysfs_root(root);
	struct event_list l;
	event_list__init(&l);
	int r = event_list__add(&l, "uprobe:libc.so.6:getppid,uretprobe:libc:getppid:u", err, sizeof(err));
	CHECK(r == 0, "%d %s", r, err);
	if (!r) {
		CHECK(l.nr == 2, "%zu events", l.nr);
		for (size_t i = 0; i < l.nr && l.nr == 2; i++) {
			const struct event_spec *s = &l.v[i];
			CHECK_EQ_U64(s->attr.type, 7);
			CHECK_EQ_U64(s->attr.config, i);
			CHECK_STREQ((const char *)(uintptr_t)s->attr.config1, libc);
			CHECK(s->attr.config2 > 0 && s->attr.config2 == l.v[0].attr.config2, "offset 0x%llx",
			      (unsigned long long)s->attr.config2);
			CHECK(!strcmp(s->pmu, "uprobe") && s->probe_ret == (i == 1), "pmu, ret");
		}
		if (l.nr == 2) {
			CHECK_STREQ(l.v[0].name, "uprobe:libc.so.6:getppid");
			CHECK_STREQ(l.v[1].name, "uretprobe:libc:getppid:u");
			CHECK(l.v[1].attr.exclude_kernel && !l.v[1].attr.exclude_user, "modifier u");
		}
	}
	event_list__exit(&l);

	/* a failure leaves the list as it was, and frees what it made */
	event_list__init(&l);
	CHECK(event_list__add(&l, "cpu-clock", err, sizeof(err)) == 0, "%s", err);
	r = event_list__add(&l, "uprobe:libc.so.6:getppid,uprobe:libc.so.6:no_such_function_here", err, sizeof(err));
	CHECK(r == -ENOENT && l.nr == 1, "%d %zu", r, l.nr);
	CHECK(strstr(err, "no function no_such_function_here in") != NULL, "%s", err);
	event_list__exit(&l);
	pmu__set_sysfs_root(NULL);
}

static void test_find_binary(void)
{
	char p[PATH_MAX], q[PATH_MAX];
	if (probe_spec__find_binary("libc.so.6", NULL, p, sizeof(p))) {
		printf("skip binary lookup: no libc.so.6\n");
		return;
	}
	CHECK(p[0] == '/' && strstr(p, "libc.so.6"), "%s", p);
	CHECK(probe_spec__find_binary("libc", NULL, q, sizeof(q)) == 0 && !strcmp(p, q), "libc -> %s", q);
	CHECK(probe_spec__find_binary("true", NULL, q, sizeof(q)) == 0 && strstr(q, "/true"), "PATH: %s", q);
	CHECK(probe_spec__find_binary("/nonexistent/x", NULL, q, sizeof(q)) == -ENOENT, "missing path");
	CHECK(probe_spec__find_binary("no-such-lib.so.42", NULL, q, sizeof(q)) == -ENOENT, "missing name");

	/* -p: a bare name is looked up among the mappings of those processes */
	char self[PATH_MAX], pids[32];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = 0;
		const char *base = strrchr(self, '/') ? strrchr(self, '/') + 1 : self;
		snprintf(pids, sizeof(pids), "1,%d", (int)getpid());
		CHECK(probe_spec__find_binary(base, pids, q, sizeof(q)) == 0 && !strcmp(q, self), "-p maps: %s", q);
		if (access(base, F_OK))
			CHECK(probe_spec__find_binary(base, NULL, q, sizeof(q)) == -ENOENT, "no -p: %s", q);
	}

	/* -x: probe:FUNC is a uprobe in the event list's exec binary */
	struct event_list l;
	event_list__init(&l);
	l.ctx.exec = "/nonexistent/app";
	CHECK(event_list__add(&l, "probe:handle", err, sizeof(err)) == -ENOENT && l.nr == 0 &&
	      strstr(err, "no such binary '/nonexistent/app'"), "ctx.exec: %s", err);
	event_list__exit(&l);
}

static void test_no_kprobes(void)
{
	if (!access("/sys/bus/event_source/devices/kprobe", F_OK)) {
		printf("skip kprobe-less error: this kernel has kprobes\n");
		return;
	}
	if (tracefs__event_id("tcp", "tcp_sendmsg_locked") <= 0) {
		printf("skip kprobe-less error: no tcp:tcp_sendmsg_locked tracepoint\n");
		return;
	}
	struct event_list l;
	event_list__init(&l);
	int r = event_list__add(&l, "probe:tcp_sendmsg", err, sizeof(err));
	CHECK(r == -EOPNOTSUPP && l.nr == 0, "%d", r);
	CHECK(strstr(err, "this kernel has no kprobes") && strstr(err, "CONFIG_KPROBES") &&
	      strstr(err, "tcp:tcp_sendmsg_locked"), "%s", err);
	event_list__exit(&l);

	char out[1024];
	CHECK(probe_spec__matching_tracepoints("tcp_sendmsg", out, sizeof(out)) >= 1 &&
	      strstr(out, "tcp:tcp_sendmsg_locked"), "%s", out);
	CHECK(probe_spec__matching_tracepoints("__x64_sys_openat", out, sizeof(out)) >= 2 &&
	      strstr(out, "syscalls:sys_enter_openat") && strstr(out, "syscalls:sys_exit_openat"), "%s", out);
	CHECK(probe_spec__matching_tracepoints("zz_no_such_fn_zz", out, sizeof(out)) == 0 && !out[0], "%s", out);
}

static void test_format_raw(void)
{
	struct event_spec s = { .kind = EVENT_KIND_PROBE, .pmu = "uprobe" };
	/* trace_entry (8 bytes) + vaddr[0] (+ vaddr[1]), as PERF_SAMPLE_RAW
	 * hands it (the u32 size already skipped; 4 bytes of padding after) */
	unsigned char raw[28] = { 0 };
	uint64_t a = 0x401136, b = 0x4011a2;
	memcpy(raw + 8, &a, 8);
	memcpy(raw + 16, &b, 8);
	char buf[64];
	CHECK(probe_spec__format_raw(&s, raw, 20, buf, sizeof(buf)) > 0 && !strcmp(buf, "(0x401136)"), "%s", buf);
	s.probe_ret = true;
	/* uretprobe: vaddr[0] = func, vaddr[1] = return address */
	CHECK(probe_spec__format_raw(&s, raw, 28, buf, sizeof(buf)) > 0 && !strcmp(buf, "(0x4011a2 <- 0x401136)"),
	      "%s", buf);
	CHECK(probe_spec__format_raw(&s, raw, 20, buf, sizeof(buf)) == -EINVAL, "short");
	uint64_t v[2];
	CHECK(probe_spec__raw_addrs(&s, raw, 28, v) == 2 && v[0] == a && v[1] == b, "addrs");
}

int main(void)
{
	make_sysfs();
	test_parse();
	test_kprobe_attrs();
	test_uprobe_attrs();
	test_find_binary();
	test_no_kprobes();
	test_format_raw();
	rm_sysfs();
	return check_summary();
}
