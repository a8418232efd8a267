/* perf_event_open() errors -> what the user reads. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "event_spec.h"
#include "pmu.h"

static long read_long_file(const char *path, long dflt)
{
	FILE *f = fopen(path, "re");
	long v;
	if (!f)
		return dflt;
	if (fscanf(f, "%ld", &v) != 1)
		v = dflt;
	fclose(f);
	return v;
}

long perf_paranoid(void)
{
	return read_long_file("/proc/sys/kernel/perf_event_paranoid", 2);
}

/* Effective capability bit CAP from /proc/self/status; -1 unknown. */
static int have_cap(int cap)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	int r = -1;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long v;
		if (sscanf(line, "CapEff: %llx", &v) == 1) {
			r = (v >> cap) & 1;
			break;
		}
	}
	fclose(f);
	return r;
}

/* the sideband dummy of record has no name */
#define NAME(s) ((s)->name[0] ? (s)->name : "the sideband event")

#define CAP_SYS_ADMIN_BIT 21
#define CAP_PERFMON_BIT 38

static const char *paranoid_meaning(long p)
{
	if (p <= -1)
		return "no restrictions";
	if (p == 0)
		return "no raw tracepoint data for unprivileged users; CPU-wide events allowed";
	if (p == 1)
		return "unprivileged users: no CPU-wide (-a) events";
	if (p == 2)
		return "unprivileged users: own processes, user space only";
	return "unprivileged users may not use perf_event_open at all";
}

static int explain_permission(const struct event_spec *s, int err, bool cpu_wide, char *buf, size_t len)
{
	long p = perf_paranoid();
	int perfmon = have_cap(CAP_PERFMON_BIT), sysadmin = have_cap(CAP_SYS_ADMIN_BIT);
	int privileged = perfmon == 1 || sysadmin == 1;
	size_t o = 0;

	int sampling = s->attr.freq ? s->attr.sample_freq != 0 : s->attr.sample_period != 0;
	if (privileged && (s->kind == EVENT_KIND_TRACEPOINT || s->kind == EVENT_KIND_PROBE) && sampling)
		return snprintf(buf, len,
				"the kernel refuses to sample '%s' (%s) although this process has %s: some "
				"tracepoints forbid sampling because a sample would fire them again (e.g. "
				"irq_vectors:irq_work_exit); leave it out (use a narrower glob) or count it "
				"with 'pprobe stat'",
				NAME(s), strerror(err), perfmon == 1 ? "CAP_PERFMON" : "CAP_SYS_ADMIN");
	o += snprintf(buf + o, len > o ? len - o : 0,
		      "no permission to open '%s' (%s): kernel.perf_event_paranoid is %ld (%s); ",
		      NAME(s), strerror(err), p, paranoid_meaning(p));
	if (privileged) {
		o += snprintf(buf + o, len > o ? len - o : 0,
			      "this process has %s, so something else refused it: a security module "
			      "(SELinux/AppArmor/lockdown: see dmesg), or a seccomp filter of a container",
			      perfmon == 1 ? "CAP_PERFMON" : "CAP_SYS_ADMIN");
		return (int)o;
	}
	bool tp = s->kind == EVENT_KIND_TRACEPOINT || s->kind == EVENT_KIND_PROBE;
	o += snprintf(buf + o, len > o ? len - o : 0,
		      "this process has neither CAP_PERFMON nor CAP_SYS_ADMIN%s. Run as root, or "
		      "'sudo sysctl kernel.perf_event_paranoid=%d'",
		      tp ? " (tracepoints and probes need them, or paranoid <= -1, and read access to tracefs)"
			 : cpu_wide && p > 0 ? " (events on every CPU, -a or -C, need paranoid <= 0)"
			 : (!s->attr.exclude_kernel ? " (kernel samples need paranoid <= 1; ':u' asks for user space only)" : ""),
		      tp ? -1 : cpu_wide && p > 0 ? 0 : 1);
	o += snprintf(buf + o, len > o ? len - o : 0,
		      ", or give the binary the capability: 'sudo setcap cap_perfmon+ep pprobe'");
	return (int)o;
}

/* EACCES/EPERM for a task of another user: the length of the message in
 * BUF, 0 when the task is not another user's. */
static int explain_other_users_task(pid_t tid, int err, char *buf, size_t len)
{
	char path[64];
	struct stat st;

	if (tid <= 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d", (int)tid);
	if (stat(path, &st) || st.st_uid == geteuid() || have_cap(CAP_SYS_ADMIN_BIT) == 1)
		return 0;
	return snprintf(buf, len,
			"no permission to watch %d (%s): it belongs to another user (uid %u), and the kernel "
			"lets a process watch only what it could ptrace; run as that user or as root "
			"(CAP_SYS_PTRACE), whatever kernel.perf_event_paranoid says",
			(int)tid, strerror(err), (unsigned)st.st_uid);
}

/* Over 150 lines: one case per errno perf_event_open() returns, each the
 * message for it; read top to bottom it is the table of what those errors
 * mean, and split it would scatter that table. */
int event_spec__explain_open_error(const struct event_spec *s, int err, pid_t target, char *buf, size_t len)
{
	if (err < 0)
		err = -err;
	int hw = s->kind == EVENT_KIND_HARDWARE || s->kind == EVENT_KIND_CACHE ||
		 (s->kind == EVENT_KIND_RAW && s->attr.type == PERF_TYPE_RAW);
	int sampling = s->attr.freq ? s->attr.sample_freq != 0 : s->attr.sample_period != 0;

	switch (err) {
	case EACCES:
	case EPERM: {
		int n = explain_other_users_task(target, err, buf, len);
		return n ? n : explain_permission(s, err, target == -1, buf, len);
	}
	case EMFILE:
	case ENFILE: {
		struct rlimit rl = { 0, 0 };
		getrlimit(RLIMIT_NOFILE, &rl);
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);
		if (err == ENFILE)
			return snprintf(buf, len,
					"cannot open '%s': the system-wide limit of open files is reached "
					"(fs.file-max %ld); close programs or raise it with 'sysctl fs.file-max=N'",
					NAME(s), read_long_file("/proc/sys/fs/file-max", -1));
		return snprintf(buf, len,
				"cannot open '%s': too many open files (RLIMIT_NOFILE soft limit %llu, hard limit "
				"%llu; every event needs one descriptor per CPU (%ld online) and per thread); raise "
				"the limit with 'ulimit -n %llu' (pprobe already uses the whole soft limit; beyond "
				"the hard limit only as root), or record fewer events",
				NAME(s), (unsigned long long)rl.rlim_cur, (unsigned long long)rl.rlim_max, cpus,
				/* pprobe has raised the soft limit to the hard one already: ask for more. */
				(unsigned long long)(rl.rlim_max == RLIM_INFINITY || rl.rlim_max < 1024 ? 4096 : rl.rlim_max * 4));
	}
	case ESRCH:
		return snprintf(buf, len,
				"cannot open '%s': no such process (the target pid/tid does not exist or has "
				"already exited)", NAME(s));
	case ENOENT:
	case ENODEV:
	case EOPNOTSUPP:
	case EINVAL:
		break;
	case EBUSY:
		return snprintf(buf, len,
				"cannot open '%s': the PMU is busy (another tool holds it exclusively, e.g. an "
				"NMI watchdog or another profiler); try again, or 'sysctl kernel.nmi_watchdog=0'",
				NAME(s));
	case ENOSPC:
		return snprintf(buf, len, "cannot open '%s': no free hardware counter or breakpoint slot",
				NAME(s));
	case EOVERFLOW:
		return snprintf(buf, len,
				"cannot open '%s': the requested call-chain depth exceeds "
				"kernel.perf_event_max_stack (%ld)",
				NAME(s), read_long_file("/proc/sys/kernel/perf_event_max_stack", -1));
	case EILSEQ:
		if (s->kind == EVENT_KIND_PROBE)
			return snprintf(buf, len,
					"cannot open '%s': the kernel refused a probe there: the address is not "
					"at an instruction boundary (a probe inside an instruction would corrupt "
					"the code); give FUNC, or FUNC+OFF where an instruction starts",
					NAME(s));
		return snprintf(buf, len, "cannot open '%s': %s", NAME(s), strerror(err));
	case E2BIG:
		return snprintf(buf, len,
				"cannot open '%s': this kernel does not know the perf_event_attr size %u "
				"(kernel older than pprobe's headers)", NAME(s), s->attr.size);
	default:
		return snprintf(buf, len, "cannot open '%s': %s", NAME(s), strerror(err));
	}

	/* ENOENT / ENODEV / EOPNOTSUPP / EINVAL: per kind */
	if (hw && !pmu__have_core_pmu())
		return snprintf(buf, len,
				"cannot open '%s': this machine has no hardware PMU (no CPU performance "
				"counters in %s/bus/event_source/devices; usual in VMs without PMU "
				"passthrough), so %s events cannot be counted; use -e cpu-clock (a timer "
				"sampling what runs on the CPU) instead",
				NAME(s), pmu__sysfs_root(),
				s->kind == EVENT_KIND_CACHE ? "hardware cache" : "hardware");
	if (hw && (err == ENOENT || err == EOPNOTSUPP))
		return snprintf(buf, len,
				"cannot open '%s': the CPU's PMU does not support this event (%s); "
				"'pprobe list' shows what is available",
				NAME(s), strerror(err));
	/* probes made through the uprobe/kprobe PMUs (probe_spec.c) */
	if (s->kind == EVENT_KIND_PROBE && s->pmu[0]) {
		bool up = !strcmp(s->pmu, "uprobe");
		const char *what = s->attr.config1 ? (const char *)(uintptr_t)s->attr.config1 : "the address";
		if (err == ENOENT)
			return snprintf(buf, len, "cannot open '%s': the kernel found no %s '%s'%s", NAME(s),
					up ? "file" : "function", what,
					up ? " (deleted or replaced since pprobe read it?)"
					   : " in its symbols (/proc/kallsyms; a module not loaded?)");
		if (err == EINVAL && up && (s->attr.config >> 32))
			return snprintf(buf, len,
					"cannot open '%s': the kernel refused the USDT semaphore (ref_ctr_offset "
					"0x%llx): another probe at the same address has a different one or none, "
					"and the kernel keeps one per address (probe it as sdt: everywhere)",
					NAME(s), (unsigned long long)(s->attr.config >> 32));
		if (err == EINVAL && up)
			return snprintf(buf, len,
					"cannot open '%s': the kernel refused the uprobe at offset 0x%llx of %s "
					"(another probe there with a USDT semaphore? the file not executable code?)",
					NAME(s), (unsigned long long)s->attr.config2, what);
		if (err == EINVAL)
			return snprintf(buf, len,
					"cannot open '%s': the kernel refused to probe %s+0x%llx (a function "
					"kprobes may not touch: notrace, __kprobes or on the blacklist in "
					"/sys/kernel/debug/kprobes/blacklist)", NAME(s), what,
					(unsigned long long)(s->attr.config1 ? s->attr.config2 : 0));
	}
	if ((s->kind == EVENT_KIND_TRACEPOINT || s->kind == EVENT_KIND_PROBE) && err == ENOENT)
		return snprintf(buf, len,
				"cannot open '%s': the kernel does not know tracepoint id %llu any more (the "
				"event was removed, e.g. a probe deleted or a module unloaded)",
				NAME(s), (unsigned long long)s->attr.config);
	if (err == EINVAL && s->attr.freq) {
		long max = read_long_file("/proc/sys/kernel/perf_event_max_sample_rate", -1);
		if (max > 0 && s->attr.sample_freq > (uint64_t)max)
			return snprintf(buf, len,
					"cannot open '%s': sampling frequency %llu Hz is above "
					"kernel.perf_event_max_sample_rate (%ld); use -F %ld or less, or raise "
					"the limit with 'sysctl kernel.perf_event_max_sample_rate=%llu'",
					NAME(s), (unsigned long long)s->attr.sample_freq, max, max,
					(unsigned long long)s->attr.sample_freq);
	}
	if (s->attr.precise_ip && (err == EINVAL || err == EOPNOTSUPP))
		return snprintf(buf, len,
				"cannot open '%s': precise sampling (:%s, precise_ip=%u) is not supported for "
				"this event; drop the 'p' modifier",
				NAME(s), s->modifiers, s->attr.precise_ip);
	if (s->kind == EVENT_KIND_RAW && s->pmu[0] && sampling && (err == EINVAL || err == EOPNOTSUPP))
		return snprintf(buf, len,
				"cannot open '%s': PMU '%s' refused the event (%s); many PMUs (msr, uncore, "
				"power) can count but not sample: use 'pprobe stat', or check the terms "
				"against %s/bus/event_source/devices/%s/format",
				NAME(s), s->pmu, strerror(err), pmu__sysfs_root(), s->pmu);
	if (s->kind == EVENT_KIND_RAW && s->pmu[0])
		return snprintf(buf, len,
				"cannot open '%s': PMU '%s' refused the event (%s); check the terms against "
				"%s/bus/event_source/devices/%s/format",
				NAME(s), s->pmu, strerror(err), pmu__sysfs_root(), s->pmu);
	if (err == ENODEV)
		return snprintf(buf, len, "cannot open '%s': the PMU does not exist on that CPU (offline CPU, "
				"or a hybrid CPU PMU that covers only some CPUs)", NAME(s));
	if (s->attr.exclude_user && s->attr.exclude_kernel && s->attr.exclude_hv)
		return snprintf(buf, len, "cannot open '%s': the modifiers exclude everything (%s)",
				NAME(s), strerror(err));
	return snprintf(buf, len, "cannot open '%s' (%s event, type %u config 0x%llx): %s", NAME(s),
			event_kind__name(s->kind), s->attr.type, (unsigned long long)s->attr.config,
			strerror(err));
}
