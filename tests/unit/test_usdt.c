/* usdt__read on this very test binary (its own SDT probes with semaphores)
 * and on libstdc++; the offsets are proven by the kernel: a uprobe created at
 * pc_offset with ref_ctr_offset = semaphore_offset raises our semaphore and
 * counts our probe's hits exactly. */
#define _GNU_SOURCE
#define _SDT_HAS_SEMAPHORES 1
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sdt.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "pprobe/usdt.h"
#include "tracefs.h"

#include "check.h"

unsigned short pprobe_test_hit_semaphore __attribute__((section(".probes"), used));
unsigned short pprobe_test_other_semaphore __attribute__((section(".probes"), used));

__attribute__((noinline)) static void hit(long v)
{
	DTRACE_PROBE2(pprobe_test, hit, v, 42);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void other(void)
{
	DTRACE_PROBE(pprobe_test, other);
	__asm__ volatile("" ::: "memory");
}

static uintptr_t main_bias;
static int first_phdr(struct dl_phdr_info *info, size_t size, void *arg)
{
	main_bias = info->dlpi_addr;   /* the first object is the executable */
	return 1;
}

static const struct usdt_probe *find(const struct usdt_probe *p, int n, const char *prov, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(p[i].provider, prov) && !strcmp(p[i].name, name))
			return &p[i];
	return NULL;
}

static int byte_at(const char *path, uint64_t off)
{
	int fd = open(path, O_RDONLY);
	unsigned char b = 0;
	int ok = fd >= 0 && pread(fd, &b, 1, off) == 1;
	if (fd >= 0)
		close(fd);
	return ok ? b : -1;
}

int main(void)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	CHECK(n > 0, "readlink");
	exe[n > 0 ? n : 0] = 0;
	dl_iterate_phdr(first_phdr, NULL);

	struct usdt_probe *p;
	int np = usdt__read(exe, &p);
	CHECK(np == 2, "%d probes in %s", np, exe);
	const struct usdt_probe *h = find(p, np, "pprobe_test", "hit"), *o = find(p, np, "pprobe_test", "other");
	CHECK(h && o, "probes found");
	if (!h || !o)
		return 1;
	CHECK(h->semaphore == (uintptr_t)&pprobe_test_hit_semaphore - main_bias, "semaphore 0x%llx vs 0x%llx",
	      (unsigned long long)h->semaphore, (unsigned long long)((uintptr_t)&pprobe_test_hit_semaphore - main_bias));
	CHECK(o->semaphore == (uintptr_t)&pprobe_test_other_semaphore - main_bias, "other semaphore");
	CHECK(!strcmp(o->args, "") && strstr(h->args, "@") && strstr(h->args, "4@$42"), "args '%s' '%s'", h->args, o->args);
	/* the probe site is the nop sdt.h placed there */
	CHECK(byte_at(exe, h->pc_offset) == 0x90 && byte_at(exe, o->pc_offset) == 0x90, "nop at pc_offset");
	CHECK(h->pc >= (uintptr_t)hit - main_bias && h->pc < (uintptr_t)hit - main_bias + 64, "pc in hit()");

	/* libstdc++'s real probes */
	const char *cxx = "/usr/lib/x86_64-linux-gnu/libstdc++.so.6";
	struct usdt_probe *q;
	int nq = usdt__read(cxx, &q);
	if (nq >= 0) {
		CHECK(find(q, nq, "libstdcxx", "throw") && find(q, nq, "libstdcxx", "catch") &&
		      find(q, nq, "libstdcxx", "rethrow"), "libstdcxx probes (%d)", nq);
		for (int i = 0; i < nq; i++)
			CHECK(byte_at(cxx, q[i].pc_offset) == 0x90, "%s nop", q[i].name);
		usdt__free(q, nq);
	}
	struct usdt_probe *none;
	CHECK(usdt__read("/etc/hostname", &none) == -ENOEXEC, "not ELF");
	CHECK(usdt__read("/nonexistent", &none) == -ENOENT, "missing");
	CHECK(usdt__read("/bin/true", &none) == 0 && none == NULL, "no probes");

	/* the kernel agrees: uprobe at pc_offset with ref_ctr_offset = semaphore_offset */
	char def[PATH_MAX + 128];
	snprintf(def, sizeof(def), "p:pprobe_usdt_test/hit %s:0x%llx(0x%llx)", exe, (unsigned long long)h->pc_offset,
		 (unsigned long long)h->semaphore_offset);
	if (!tracefs__root() || tracefs__write_file("uprobe_events", def, 1)) {
		printf("cannot create a uprobe (%s): offsets not checked by the kernel\n", strerror(errno));
	} else {
		int id = tracefs__event_id("pprobe_usdt_test", "hit");
		struct perf_event_attr a;
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = PERF_TYPE_TRACEPOINT;
		a.config = id;
		int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		CHECK(fd >= 0, "open uprobe event %d: %s", id, strerror(errno));
		if (fd >= 0) {
			CHECK(pprobe_test_hit_semaphore == 1, "semaphore raised by the kernel: %u",
			      pprobe_test_hit_semaphore);
			CHECK(pprobe_test_other_semaphore == 0, "other semaphore untouched");
			for (int i = 0; i < 7; i++)
				hit(i);
			other();
			uint64_t count = 0;
			CHECK(read(fd, &count, sizeof(count)) == sizeof(count) && count == 7, "7 hits counted: %llu",
			      (unsigned long long)count);
			close(fd);
			CHECK(pprobe_test_hit_semaphore == 0, "semaphore lowered on close: %u", pprobe_test_hit_semaphore);
		}
		CHECK(tracefs__write_file("uprobe_events", "-:pprobe_usdt_test/hit", 1) == 0, "remove uprobe");
	}
	usdt__free(p, np);
	return check_summary();
}
