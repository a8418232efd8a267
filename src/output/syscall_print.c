/* pprobe trace --syscalls' lines and summary, and the beautifiers that name
 * argument values (flags, signals, ptrace requests, errno), as perf trace
 * and strace print them (see syscall_print.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "syscall_print.h"
#include "tp_format.h"

struct sym {
	uint64_t val;
	const char *name;
};
#define SYM(x) { x, #x }

/* x86-64 values where the C library's headers hide them. */
#ifndef O_LARGEFILE_KERNEL
#if defined(__x86_64__) || defined(__i386__)
#define O_LARGEFILE_KERNEL 0100000
#else
#define O_LARGEFILE_KERNEL O_LARGEFILE
#endif
#endif

/* Multi-bit flags first: each is taken out of the value once matched. */
static const struct sym open_flags[] = {
	{ O_TMPFILE, "O_TMPFILE" }, { O_SYNC, "O_SYNC" },
	SYM(O_CREAT), SYM(O_EXCL), SYM(O_NOCTTY), SYM(O_TRUNC), SYM(O_APPEND), SYM(O_NONBLOCK),
	SYM(O_DSYNC), SYM(O_ASYNC), SYM(O_DIRECT), { O_LARGEFILE_KERNEL, "O_LARGEFILE" },
	SYM(O_DIRECTORY), SYM(O_NOFOLLOW), SYM(O_NOATIME), SYM(O_CLOEXEC), SYM(O_PATH),
	{ 0, NULL },
};

static const struct sym prot_flags[] = {
	{ 0x1, "PROT_READ" }, { 0x2, "PROT_WRITE" }, { 0x4, "PROT_EXEC" }, { 0x8, "PROT_SEM" },
	{ 0x01000000, "PROT_GROWSDOWN" }, { 0x02000000, "PROT_GROWSUP" }, { 0, NULL },
};

static const struct sym map_flags[] = {	/* after the type (the low 4 bits) */
	{ 0x10, "MAP_FIXED" }, { 0x20, "MAP_ANONYMOUS" }, { 0x40, "MAP_32BIT" }, { 0x100, "MAP_GROWSDOWN" },
	{ 0x800, "MAP_DENYWRITE" }, { 0x1000, "MAP_EXECUTABLE" }, { 0x2000, "MAP_LOCKED" },
	{ 0x4000, "MAP_NORESERVE" }, { 0x8000, "MAP_POPULATE" }, { 0x10000, "MAP_NONBLOCK" },
	{ 0x20000, "MAP_STACK" }, { 0x40000, "MAP_HUGETLB" }, { 0x80000, "MAP_SYNC" },
	{ 0x100000, "MAP_FIXED_NOREPLACE" }, { 0x4000000, "MAP_UNINITIALIZED" }, { 0, NULL },
};

static const struct sym clone_flags[] = {	/* after the exit signal (the low byte) */
	{ 0x100, "CLONE_VM" }, { 0x200, "CLONE_FS" }, { 0x400, "CLONE_FILES" }, { 0x800, "CLONE_SIGHAND" },
	{ 0x1000, "CLONE_PIDFD" }, { 0x2000, "CLONE_PTRACE" }, { 0x4000, "CLONE_VFORK" },
	{ 0x8000, "CLONE_PARENT" }, { 0x10000, "CLONE_THREAD" }, { 0x20000, "CLONE_NEWNS" },
	{ 0x40000, "CLONE_SYSVSEM" }, { 0x80000, "CLONE_SETTLS" }, { 0x100000, "CLONE_PARENT_SETTID" },
	{ 0x200000, "CLONE_CHILD_CLEARTID" }, { 0x400000, "CLONE_DETACHED" }, { 0x800000, "CLONE_UNTRACED" },
	{ 0x1000000, "CLONE_CHILD_SETTID" }, { 0x2000000, "CLONE_NEWCGROUP" }, { 0x4000000, "CLONE_NEWUTS" },
	{ 0x8000000, "CLONE_NEWIPC" }, { 0x10000000, "CLONE_NEWUSER" }, { 0x20000000, "CLONE_NEWPID" },
	{ 0x40000000, "CLONE_NEWNET" }, { 0x80000000, "CLONE_IO" }, { 0, NULL },
};

static const struct sym access_flags[] = {
	{ 4, "R_OK" }, { 2, "W_OK" }, { 1, "X_OK" }, { 0, NULL },
};

/* perf trace's names (PTRACE_ left out, as perf and the issue print them). */
static const struct sym ptrace_requests[] = {
	{ 0, "TRACEME" }, { 1, "PEEKTEXT" }, { 2, "PEEKDATA" }, { 3, "PEEKUSR" }, { 4, "POKETEXT" },
	{ 5, "POKEDATA" }, { 6, "POKEUSR" }, { 7, "CONT" }, { 8, "KILL" }, { 9, "SINGLESTEP" },
	{ 12, "GETREGS" }, { 13, "SETREGS" }, { 14, "GETFPREGS" }, { 15, "SETFPREGS" }, { 16, "ATTACH" },
	{ 17, "DETACH" }, { 18, "GETFPXREGS" }, { 19, "SETFPXREGS" }, { 24, "SYSCALL" },
	{ 25, "GET_THREAD_AREA" }, { 26, "SET_THREAD_AREA" }, { 30, "ARCH_PRCTL" }, { 31, "SYSEMU" },
	{ 32, "SYSEMU_SINGLESTEP" }, { 33, "SINGLEBLOCK" },
	{ 0x4200, "SETOPTIONS" }, { 0x4201, "GETEVENTMSG" }, { 0x4202, "GETSIGINFO" },
	{ 0x4203, "SETSIGINFO" }, { 0x4204, "GETREGSET" }, { 0x4205, "SETREGSET" }, { 0x4206, "SEIZE" },
	{ 0x4207, "INTERRUPT" }, { 0x4208, "LISTEN" }, { 0x4209, "PEEKSIGINFO" }, { 0x420a, "GETSIGMASK" },
	{ 0x420b, "SETSIGMASK" }, { 0x420c, "SECCOMP_GET_FILTER" }, { 0x420d, "SECCOMP_GET_METADATA" },
	{ 0x420e, "GET_SYSCALL_INFO" }, { 0x420f, "GET_RSEQ_CONFIGURATION" },
	{ 0x4210, "SET_SYSCALL_USER_DISPATCH_CONFIG" }, { 0x4211, "GET_SYSCALL_USER_DISPATCH_CONFIG" },
	{ 0, NULL },
};

static const struct {
	int err;
	const char *name, *text;
} kernel_errnos[] = {	/* the kernel's own, never seen by a program */
	{ 512, "ERESTARTSYS", "To be restarted if SA_RESTART is set" },
	{ 513, "ERESTARTNOINTR", "To be restarted" },
	{ 514, "ERESTARTNOHAND", "To be restarted if no handler" },
	{ 515, "ENOIOCTLCMD", "No ioctl command" },
	{ 516, "ERESTART_RESTARTBLOCK", "Interrupted by signal" },
	{ 517, "EPROBE_DEFER", "Driver requests probe retry" },
	{ 518, "EOPENSTALE", "Open found a stale dentry" },
	{ 524, "ENOTSUPP", "Operation is not supported" },
};

const char *syscall_print__errno_name(int err)
{
	for (size_t i = 0; i < sizeof(kernel_errnos) / sizeof(kernel_errnos[0]); i++)
		if (kernel_errnos[i].err == err)
			return kernel_errnos[i].name;
	return err > 0 ? strerrorname_np(err) : NULL;
}

static const char *errno_text(int err)
{
	for (size_t i = 0; i < sizeof(kernel_errnos) / sizeof(kernel_errnos[0]); i++)
		if (kernel_errnos[i].err == err)
			return kernel_errnos[i].text;
	return strerror(err);
}

static const char *sym_name(const struct sym *t, uint64_t v)
{
	for (; t->name; t++)
		if (t->val == v)
			return t->name;
	return NULL;
}

/* "A|B|0x40": each flag of t found in v, what is left in hex. first: what
 * goes before the flags (the access mode of open, the type of mmap), or
 * NULL; zero: the name of 0 when nothing else is printed. */
static int print_flags(char *buf, size_t len, const struct sym *t, uint64_t v, const char *first, const char *zero)
{
	size_t pos = 0;
#define PUT(...)                                                                       \
	do {                                                                           \
		int n_ = snprintf(buf + (pos < len ? pos : len), pos < len ? len - pos : 0, __VA_ARGS__); \
		if (n_ > 0)                                                            \
			pos += (size_t)n_;                                             \
	} while (0)
	if (first)
		PUT("%s", first);
	for (; t->name; t++)
		if (t->val && (v & t->val) == t->val) {
			PUT("%s%s", pos ? "|" : "", t->name);
			v &= ~t->val;
		}
	if (v)
		PUT("%s%#" PRIx64, pos ? "|" : "", v);
	else if (!pos)
		PUT("%s", zero ? zero : "0");
#undef PUT
	return (int)pos;
}

static int print_signal(char *buf, size_t len, int64_t sig)
{
	if (sig <= 0 || sig > 64)
		return snprintf(buf, len, "%" PRId64, sig);
	if (sig >= 32)	/* the kernel's real-time signals (the C library keeps the first two) */
		return snprintf(buf, len, "SIGRT_%d", (int)sig - 32);
	const char *abbrev = sigabbrev_np((int)sig);
	return abbrev ? snprintf(buf, len, "SIG%s", abbrev) : snprintf(buf, len, "%" PRId64, sig);
}

static bool is(const char *name, const char *const *names)
{
	for (; *names; names++)
		if (!strcmp(name, *names))
			return true;
	return false;
}

static const char *const open_calls[] = { "open", "openat", "creat", "open_by_handle_at", NULL };
static const char *const mode_calls[] = { "open", "openat", "creat", "mkdir", "mkdirat", "chmod", "fchmod",
					  "fchmodat", "fchmodat2", "mknod", "mknodat", NULL };
static const char *const signal_calls[] = { "kill", "tkill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo",
					    "pidfd_send_signal", "rt_sigaction", NULL };
static const char *const mmap_calls[] = { "mmap", "mprotect", "pkey_mprotect", NULL };
static const char *const access_calls[] = { "access", "faccessat", "faccessat2", NULL };
static const char *const hex_args[] = { "addr", "start", "brk", "data", "new_addr", "old_addr", NULL };

/* One branch per kind of argument the beautifiers know. */
int syscall_print__arg(const struct syscall_desc *d, int i, uint64_t v, const void *raw, size_t raw_size,
		       char *buf, size_t len)
{
	const struct tp_field *f = d->args[i];
	const char *name = f->name, *sc = d->name;
	if (d->strs[i] && raw) {
		const void *p;
		size_t n;
		if (!tp_field__dynamic(d->strs[i], raw, raw_size, &p, &n))
			return tp_field__format(d->strs[i], raw, raw_size, buf, len);
	}
	/* the value as declared: syscall arguments are stored in 8 bytes */
	unsigned bytes = f->elem_size && f->elem_size < 8 ? f->elem_size : 8;
	uint64_t u = bytes < 8 ? v & ((1ULL << (8 * bytes)) - 1) : v;
	int64_t s = (int64_t)u;
	if (bytes < 8 && f->elem_signed && (u >> (8 * bytes - 1)) & 1)
		s = (int64_t)(u | ~((1ULL << (8 * bytes)) - 1));
	if (f->is_pointer)
		return u ? snprintf(buf, len, "0x%" PRIx64, u) : snprintf(buf, len, "NULL");
	size_t nl = strlen(name);
	if (nl >= 3 && !strcmp(name + nl - 3, "dfd") && (int32_t)u == -100)
		return snprintf(buf, len, "AT_FDCWD");
	if (!strcmp(sc, "ptrace") && !strcmp(name, "request")) {
		const char *r = sym_name(ptrace_requests, u);
		return r ? snprintf(buf, len, "%s", r) : snprintf(buf, len, "0x%" PRIx64, u);
	}
	if (is(sc, open_calls) && !strcmp(name, "flags")) {
		static const char *const acc[] = { "O_RDONLY", "O_WRONLY", "O_RDWR", "O_ACCMODE" };
		uint64_t rest = u & ~(uint64_t)O_ACCMODE;
		char first[16];
		snprintf(first, sizeof(first), "%s", acc[u & O_ACCMODE]);
		return print_flags(buf, len, open_flags, rest, first, NULL);
	}
	if (is(sc, mode_calls) && !strcmp(name, "mode"))
		return snprintf(buf, len, "%#" PRIo64, u);
	if (is(sc, access_calls) && !strcmp(name, "mode"))
		return print_flags(buf, len, access_flags, u, NULL, "F_OK");
	if (is(sc, signal_calls) && !strcmp(name, "sig"))
		return print_signal(buf, len, s);
	if (is(sc, mmap_calls) && !strcmp(name, "prot"))
		return print_flags(buf, len, prot_flags, u, NULL, "PROT_NONE");
	if (!strcmp(sc, "mmap") && !strcmp(name, "flags")) {
		static const char *const type[] = { "", "MAP_SHARED", "MAP_PRIVATE", "MAP_SHARED_VALIDATE" };
		uint64_t t = u & 0xf;
		char first[24];
		if (t < 4)
			snprintf(first, sizeof(first), "%s", type[t]);
		else
			snprintf(first, sizeof(first), "0x%" PRIx64, t);
		return print_flags(buf, len, map_flags, u & ~0xfULL, first[0] ? first : NULL, "0");
	}
	if (!strcmp(sc, "clone") && !strcmp(name, "clone_flags")) {
		int n = print_flags(buf, len, clone_flags, u & ~0xffULL, NULL, NULL);
		if (!(u & 0xff))
			return n;
		if (u == (u & 0xff))	/* the signal alone */
			n = 0;
		char sig[24];
		print_signal(sig, sizeof(sig), (int64_t)(u & 0xff));
		size_t at = n < 0 ? 0 : (size_t)n < len ? (size_t)n : len;
		return n + snprintf(buf + at, len - at, "%s%s", n ? "|" : "", sig);
	}
	if (is(name, hex_args))
		return snprintf(buf, len, "0x%" PRIx64, u);
	if (f->elem_signed)
		return snprintf(buf, len, "%" PRId64, s);
	return snprintf(buf, len, "%" PRIu64, u);
}

static const char *const hex_returns[] = { "mmap", "mremap", "brk", "shmat", NULL };

int syscall_print__ret(const struct syscall_desc *d, int64_t ret, char *buf, size_t len)
{
	if (syscall__failed(ret)) {
		int err = (int)-ret;
		const char *name = syscall_print__errno_name(err);
		if (name)
			return snprintf(buf, len, "-1 %s (%s)", name, errno_text(err));
		return snprintf(buf, len, "-1 (errno %d)", err);
	}
	if (is(d->name, hex_returns))
		return snprintf(buf, len, "0x%" PRIx64, (uint64_t)ret);
	return snprintf(buf, len, "%" PRId64, ret);
}

/* "name(arg: value, ...)": the arguments as the format names them; without
 * a format (a syscall with no tracepoint, seen through raw_syscalls) the six
 * values in hex, "arg0: 0x..". */
static void print_args(const struct syscall_call *call, char *body, size_t len)
{
	const struct syscall_desc *d = call->desc;
	size_t pos = (size_t)snprintf(body, len, "%s(", d->name);
	char v[512];
	int nargs = d->fmt ? d->nargs : SYSCALL_MAX_ARGS;
	for (int i = 0; i < nargs && pos < len; i++) {
		if (d->fmt)
			syscall_print__arg(d, i, call->args[i], call->raw, call->raw_size, v, sizeof(v));
		else
			snprintf(v, sizeof(v), "0x%" PRIx64, call->args[i]);
		char an[16];
		if (!d->fmt)
			snprintf(an, sizeof(an), "arg%d", i);
		int n = snprintf(body + pos, len - pos, "%s%s: %s", i ? ", " : "", d->fmt ? d->args[i]->name : an, v);
		if (n > 0)
			pos += (size_t)n;
	}
	if (pos < len)
		snprintf(body + pos, len - pos, ")");
}

void syscall_print__call(const struct syscall_print *sp, const struct syscall_call *call)
{
	bool failed = (call->end == SYSCALL_RETURNED || call->end == SYSCALL_CONTINUED) && syscall__failed(call->ret);
	if (sp->failure_only && !failed)
		return;
	char body[4096], ret[256];
	if (call->end == SYSCALL_CONTINUED)
		snprintf(body, sizeof(body), " ... [continued]: %s())", call->desc->name);
	else
		print_args(call, body, sizeof(body));
	if (call->end == SYSCALL_CONTINUED)
		fprintf(sp->out, "%10s ", "?");
	else
		fprintf(sp->out, "%10.3f ", call->t_enter >= sp->t0 ? (double)(call->t_enter - sp->t0) / 1e6 : 0.0);
	if (call->end == SYSCALL_RETURNED)
		fprintf(sp->out, "(%6.3f ms): ", (double)(call->t_exit - call->t_enter) / 1e6);
	else
		fprintf(sp->out, "(%9s): ", "");
	fprintf(sp->out, "%.14s/%d %-69s = ", call->comm, (int)call->tid, body);
	switch (call->end) {
	case SYSCALL_RETURNED:
	case SYSCALL_CONTINUED:
		syscall_print__ret(call->desc, call->ret, ret, sizeof(ret));
		fprintf(sp->out, "%s\n", ret);
		break;
	case SYSCALL_NO_RETURN:
		fprintf(sp->out, "?\n");
		break;
	case SYSCALL_UNFINISHED:
		fprintf(sp->out, "? <unfinished ...>\n");
		break;
	}
}

void syscall_print__summary(FILE *out, const struct syscall_thread *threads, int nr, uint64_t total_events)
{
	fprintf(out, "\n Summary of events:\n\n");
	for (int t = 0; t < nr; t++) {
		const struct syscall_thread *th = &threads[t];
		fprintf(out, " %s (%d), %" PRIu64 " events, %.1f%%\n\n", th->comm, (int)th->tid, th->events,
			total_events ? 100.0 * (double)th->events / (double)total_events : 0.0);
		fprintf(out, "   syscall            calls  errors  total       min       avg       max       stddev\n");
		fprintf(out, "                                     (msec)    (msec)    (msec)    (msec)        (%%)\n");
		fprintf(out, "   --------------- --------  ------ -------- --------- --------- ---------     ------\n");
		for (int k = 0; k < th->nr_stats; k++) {
			const struct syscall_stats *st = &th->stats[k];
			double avg = st->timed ? st->total_ms / (double)st->timed : 0.0;
			/* perf's: the standard error of the mean, relative to it */
			double pct = 0.0;
			if (st->timed > 1 && avg > 0)
				pct = 100.0 * sqrt(st->m2 / (double)(st->timed - 1) / (double)st->timed) / avg;
			fprintf(out, "   %-15s %8" PRIu64 " %6" PRIu64 " %8.3f %9.3f %9.3f %9.3f %9.2f%%\n", st->name,
				st->calls, st->errors, st->total_ms, st->min_ms, avg, st->max_ms, pct);
		}
		fprintf(out, "\n");
	}
}
