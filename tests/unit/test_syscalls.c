/* trace --syscalls' pieces: the syscall table against the C library's
 * numbers, -e selection (lists, globs, did-you-mean), the pairing of enters
 * and exits per thread and the summary, and the beautifiers on the real
 * kernel's sys_enter formats (records built at the offsets those formats
 * give). The whole mode on real calls: tests/e2e/trace_syscalls.sh. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#include "check.h"
#include "syscall_print.h"
#include "syscalls.h"
#include "tp_format.h"
#include "tracefs.h"

static void test_table(void)
{
	CHECK_STREQ(syscall__name(SYS_ptrace), "ptrace");
	CHECK_STREQ(syscall__name(SYS_openat), "openat");
	CHECK_STREQ(syscall__name(SYS_exit_group), "exit_group");
	CHECK_EQ_INT(syscall__nr("ptrace"), SYS_ptrace);
	CHECK_EQ_INT(syscall__nr("clone3"), SYS_clone3);
	CHECK_EQ_INT(syscall__nr("no_such_call"), -ENOENT);
	CHECK(syscall__name(-1) == NULL, "no name for -1");
}

static void test_select(void)
{
	char *avail[] = { "exit_group", "open", "open_by_handle_at", "openat", "openat2", "ptrace", "read" };
	int nr_avail = (int)(sizeof(avail) / sizeof(avail[0]));
	const char **sel = NULL;
	int nr = 0;
	char err[256] = "";

	CHECK_EQ_INT(syscalls__select("ptrace,openat", avail, nr_avail, &sel, &nr, err, sizeof(err)), 0);
	if (CHECK_EQ_INT(nr, 2)) {
		CHECK_STREQ(sel[0], "ptrace");
		CHECK_STREQ(sel[1], "openat");
	}
	/* a glob, and a name it already matched: each once */
	CHECK_EQ_INT(syscalls__select("openat*,ptrace", avail, nr_avail, &sel, &nr, err, sizeof(err)), 0);
	CHECK_EQ_INT(nr, 3);
	CHECK_STREQ(sel[2], "openat2");
	free(sel);
	sel = NULL;
	nr = 0;
	CHECK_EQ_INT(syscalls__select("open*", avail, nr_avail, &sel, &nr, err, sizeof(err)), 0);
	CHECK_EQ_INT(nr, 4);
	free(sel);
	sel = NULL;
	nr = 0;

	CHECK_EQ_INT(syscalls__select("ptrac", avail, nr_avail, &sel, &nr, err, sizeof(err)), -ENOENT);
	CHECK_STREQ(err, "no syscall matches 'ptrac' (did you mean 'ptrace'?)");
	CHECK_EQ_INT(syscalls__select("read,xyzzy", avail, nr_avail, &sel, &nr, err, sizeof(err)), -ENOENT);
	CHECK_STREQ(err, "no syscall matches 'xyzzy'");
	CHECK_EQ_INT(syscalls__select("foo*", avail, nr_avail, &sel, &nr, err, sizeof(err)), -ENOENT);
	CHECK_STREQ(err, "no syscall matches 'foo*'");
	/* the architecture has it, this (made-up) kernel list does not */
	CHECK_EQ_INT(syscalls__select("clone3", avail, nr_avail, &sel, &nr, err, sizeof(err)), -ENOENT);
	CHECK(strstr(err, "syscall 'clone3' has no tracepoint on this kernel"), "%s", err);
	CHECK_EQ_INT(syscalls__select(",", avail, nr_avail, &sel, &nr, err, sizeof(err)), -ENOENT);
	free(sel);
}

/* ---- pairing ---- */

struct seen {
	struct syscall_call v[16];
	int nr;
};

static void collect_call(void *arg, const struct syscall_call *call)
{
	struct seen *s = arg;
	if (s->nr < 16)
		s->v[s->nr++] = *call;
}

static void test_pairing(struct syscalls *sc)
{
	struct seen s = { 0 };
	uint64_t args[SYSCALL_MAX_ARGS] = { 2, 42, 0x1000, 0 };

	/* an exit whose enter came before tracing */
	syscalls__exit(sc, 10, 10, "a", SYS_execve, 500, 0, collect_call, &s);
	/* two threads interleaved: each pairs with its own enter */
	syscalls__enter(sc, 10, 10, "a", SYS_ptrace, 1000, args, NULL, 0, collect_call, &s);
	syscalls__enter(sc, 10, 11, "a", SYS_read, 1100, args, NULL, 0, collect_call, &s);
	syscalls__exit(sc, 10, 10, "a", SYS_ptrace, 4000, 0, collect_call, &s);
	syscalls__exit(sc, 10, 11, "a", SYS_read, 2100, -EINTR, collect_call, &s);
	syscalls__enter(sc, 10, 10, "a", SYS_ptrace, 5000, args, NULL, 0, collect_call, &s);
	syscalls__exit(sc, 10, 10, "a", SYS_ptrace, 6000, -ESRCH, collect_call, &s);
	/* an enter whose exit never came, then another call of that thread */
	syscalls__enter(sc, 10, 11, "a", SYS_read, 7000, args, NULL, 0, collect_call, &s);
	syscalls__enter(sc, 10, 11, "a", SYS_write, 8000, args, NULL, 0, collect_call, &s);
	/* never returns */
	syscalls__enter(sc, 10, 12, "b", SYS_exit_group, 9000, args, NULL, 0, collect_call, &s);
	/* still in a call at the end */
	syscalls__enter(sc, 10, 10, "a", SYS_ptrace, 9500, args, NULL, 0, collect_call, &s);
	syscalls__flush(sc, collect_call, &s);

	if (!CHECK_EQ_INT(s.nr, 8))
		return;
	CHECK_EQ_INT(s.v[0].end, SYSCALL_CONTINUED);
	CHECK_STREQ(s.v[0].desc->name, "execve");
	CHECK_EQ_INT(s.v[1].end, SYSCALL_RETURNED);
	CHECK_EQ_INT(s.v[1].tid, 10);
	CHECK_EQ_U64(s.v[1].t_exit - s.v[1].t_enter, 3000);
	CHECK_EQ_U64(s.v[1].args[0], 2);
	CHECK_EQ_INT(s.v[2].tid, 11);
	CHECK_EQ_INT(s.v[2].ret, -EINTR);
	CHECK_EQ_INT(s.v[3].ret, -ESRCH);
	CHECK_EQ_INT(s.v[4].end, SYSCALL_UNFINISHED);	/* read, overtaken by write */
	CHECK_STREQ(s.v[4].desc->name, "read");
	CHECK_EQ_INT(s.v[5].end, SYSCALL_NO_RETURN);
	CHECK_STREQ(s.v[5].desc->name, "exit_group");
	/* flush: in the order they were entered (write at 8000, ptrace at 9500) */
	CHECK_EQ_INT(s.v[6].end, SYSCALL_UNFINISHED);
	CHECK_STREQ(s.v[6].desc->name, "write");
	CHECK_STREQ(s.v[7].desc->name, "ptrace");
	CHECK_EQ_U64(s.v[7].t_enter, 9500);

	int nr;
	uint64_t total;
	const struct syscall_thread *th = syscalls__summary(sc, &nr, &total);
	CHECK_EQ_U64(total, 11);
	if (!CHECK_EQ_INT(nr, 3))
		return;
	CHECK_EQ_INT(th[0].tid, 10);		/* most events first */
	CHECK_EQ_U64(th[0].events, 6);
	const struct syscall_stats *pt = NULL;
	for (int k = 0; k < th[0].nr_stats; k++)
		if (!strcmp(th[0].stats[k].name, "ptrace"))
			pt = &th[0].stats[k];
	if (CHECK(pt, "tid 10 has ptrace stats")) {
		CHECK_EQ_U64(pt->calls, 2);	/* the unfinished one is not a call yet */
		CHECK_EQ_U64(pt->errors, 1);
		CHECK(pt->min_ms > 0.00099 && pt->min_ms < 0.00101, "min %f ms", pt->min_ms);
		CHECK(pt->max_ms > 0.00299 && pt->max_ms < 0.00301, "max %f ms", pt->max_ms);
		CHECK(pt->total_ms > 0.00399 && pt->total_ms < 0.00401, "total %f ms", pt->total_ms);
	}
	CHECK_STREQ(th[0].stats[0].name, "ptrace");	/* most time first */
}

/* rt_sigreturn's exit says syscall -1 (the kernel set orig_ax so, to stop
 * a restart): it ends the thread's pending rt_sigreturn, with the value the
 * return restored. A -1 with nothing pending stays a continued call. */
static void test_sigreturn(void)
{
	struct syscalls *sc = syscalls__new();
	struct seen s = { 0 };
	uint64_t args[SYSCALL_MAX_ARGS] = { 0 };

	syscalls__enter(sc, 20, 20, "sh", SYS_rt_sigreturn, 1000, args, NULL, 0, collect_call, &s);
	syscalls__exit(sc, 20, 20, "sh", -1, 1200, 4242, collect_call, &s);
	syscalls__exit(sc, 20, 20, "sh", -1, 1300, 0, collect_call, &s);
	syscalls__flush(sc, collect_call, &s);
	if (CHECK_EQ_INT(s.nr, 2)) {
		CHECK_EQ_INT(s.v[0].end, SYSCALL_RETURNED);
		CHECK_STREQ(s.v[0].desc->name, "rt_sigreturn");
		CHECK_EQ_INT(s.v[0].ret, 4242);
		CHECK_EQ_U64(s.v[0].t_exit - s.v[0].t_enter, 200);
		CHECK_EQ_INT(s.v[1].end, SYSCALL_CONTINUED);
	}
	syscalls__delete(sc);
}

/* A sys_enter_NAME record with these argument values, at the format's
 * offsets. */
static size_t make_enter(const struct syscall_desc *d, const uint64_t *vals, unsigned char *rec, size_t cap)
{
	memset(rec, 0, cap);
	const struct tp_field *nr = tp_format__field(d->fmt, "__syscall_nr");
	int n = d->nr;
	memcpy(rec + nr->offset, &n, sizeof(n));
	for (int i = 0; i < d->nargs; i++)
		memcpy(rec + d->args[i]->offset, &vals[i], 8);
	return d->fmt->min_size;
}

static void check_arg(const struct syscall_desc *d, const char *name, uint64_t v, const char *want)
{
	char buf[256];
	for (int i = 0; i < d->nargs; i++)
		if (!strcmp(d->args[i]->name, name)) {
			syscall_print__arg(d, i, v, NULL, 0, buf, sizeof(buf));
			CHECK(!strcmp(buf, want), "%s(%s: %#llx): '%s', expected '%s'", d->name, name,
			      (unsigned long long)v, buf, want);
			return;
		}
	CHECK_FAIL("%s has no argument %s in its format", d->name, name);
}

static void test_kernel_formats(struct syscalls *sc)
{
	const struct syscall_desc *pt = syscalls__desc(sc, SYS_ptrace);
	if (!CHECK(pt->fmt, "sys_enter_ptrace's format loaded") || !CHECK_EQ_INT(pt->nargs, 4))
		return;
	CHECK_STREQ(pt->args[0]->name, "request");
	CHECK_STREQ(pt->args[3]->name, "data");

	/* a record at the format's offsets decodes to the same values */
	unsigned char rec[256];
	uint64_t vals[SYSCALL_MAX_ARGS] = { 2, 1234, 0x4a70d0, 0 }, got[SYSCALL_MAX_ARGS];
	size_t size = make_enter(pt, vals, rec, sizeof(rec));
	int nr = -1;
	CHECK_EQ_INT(syscalls__enter_args(pt->fmt, rec, size, &nr, got), 0);
	CHECK_EQ_INT(nr, SYS_ptrace);
	CHECK_EQ_U64(got[0], 2);
	CHECK_EQ_U64(got[2], 0x4a70d0);
	CHECK_EQ_INT(syscalls__enter_args(pt->fmt, rec, size - 8, &nr, got), -ERANGE);

	check_arg(pt, "request", 2, "PEEKDATA");
	check_arg(pt, "request", 0x4206, "SEIZE");
	check_arg(pt, "request", 0x7777, "0x7777");
	check_arg(pt, "pid", 1234, "1234");
	check_arg(pt, "addr", 0x4a70d0, "0x4a70d0");
	check_arg(pt, "data", 0, "0x0");

	const struct syscall_desc *oa = syscalls__desc(sc, SYS_openat);
	if (CHECK(oa->fmt, "sys_enter_openat's format loaded")) {
		check_arg(oa, "dfd", (uint64_t)-100, "AT_FDCWD");
		check_arg(oa, "dfd", (uint32_t)-100, "AT_FDCWD");	/* int: 4 bytes of 8 */
		check_arg(oa, "dfd", 3, "3");
		check_arg(oa, "flags", O_RDONLY | O_CLOEXEC, "O_RDONLY|O_CLOEXEC");
		check_arg(oa, "flags", O_WRONLY | O_CREAT | O_TRUNC, "O_WRONLY|O_CREAT|O_TRUNC");
		check_arg(oa, "flags", O_RDWR | O_TMPFILE, "O_RDWR|O_TMPFILE");
		check_arg(oa, "mode", 0644, "0644");
		check_arg(oa, "filename", 0x7ffd0000, "0x7ffd0000");
		check_arg(oa, "filename", 0, "NULL");
	}
	const struct syscall_desc *k = syscalls__desc(sc, SYS_kill);
	if (CHECK(k->fmt, "sys_enter_kill's format loaded")) {
		check_arg(k, "sig", SIGTERM, "SIGTERM");
		check_arg(k, "sig", 0, "0");
		check_arg(k, "sig", 34, "SIGRT_2");	/* the kernel's numbering, as strace */
		check_arg(k, "pid", (uint64_t)-1, "-1");
	}
	const struct syscall_desc *mm = syscalls__desc(sc, SYS_mmap);
	if (CHECK(mm->fmt, "sys_enter_mmap's format loaded")) {
		check_arg(mm, "prot", 3, "PROT_READ|PROT_WRITE");
		check_arg(mm, "prot", 0, "PROT_NONE");
		check_arg(mm, "flags", 0x22, "MAP_PRIVATE|MAP_ANONYMOUS");
		check_arg(mm, "flags", 0x100002, "MAP_PRIVATE|MAP_FIXED_NOREPLACE");
		char buf[128];
		syscall_print__ret(mm, 0x7f1234560000, buf, sizeof(buf));
		CHECK_STREQ(buf, "0x7f1234560000");
	}
	const struct syscall_desc *cl = syscalls__desc(sc, SYS_clone);
	if (CHECK(cl->fmt, "sys_enter_clone's format loaded")) {
		check_arg(cl, "clone_flags", 0x1200011, "CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD");
		check_arg(cl, "clone_flags", 0x3d0f00,
			  "CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|CLONE_SETTLS|"
			  "CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID");
		check_arg(cl, "clone_flags", 17, "SIGCHLD");
		check_arg(cl, "clone_flags", 0, "0");
	}
	const struct syscall_desc *ac = syscalls__desc(sc, SYS_access);
	if (CHECK(ac->fmt, "sys_enter_access's format loaded")) {
		check_arg(ac, "mode", 0, "F_OK");
		check_arg(ac, "mode", 6, "R_OK|W_OK");
	}
	char buf[128];
	syscall_print__ret(oa, -ENOENT, buf, sizeof(buf));
	CHECK_STREQ(buf, "-1 ENOENT (No such file or directory)");
	syscall_print__ret(oa, -512, buf, sizeof(buf));
	CHECK_STREQ(buf, "-1 ERESTARTSYS (To be restarted if SA_RESTART is set)");
	syscall_print__ret(oa, 3, buf, sizeof(buf));
	CHECK_STREQ(buf, "3");
	syscall_print__ret(oa, -5000, buf, sizeof(buf));	/* not an error value */
	CHECK_STREQ(buf, "-5000");
}

/* Kernels from 6.19 copy user strings into the record: "__data_loc char[]
 * __ARG_val" after the arguments. Such a format (text as that kernel writes
 * it; the host's is older) puts the string in place of the pointer. */
static void test_user_strings(void)
{
	static const char text[] =
		"name: sys_enter_openat\n"
		"ID: 782\n"
		"format:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
		"\n"
		"\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
		"\tfield:int dfd;\toffset:16;\tsize:8;\tsigned:0;\n"
		"\tfield:const char * filename;\toffset:24;\tsize:8;\tsigned:0;\n"
		"\tfield:int flags;\toffset:32;\tsize:8;\tsigned:0;\n"
		"\tfield:umode_t mode;\toffset:40;\tsize:8;\tsigned:0;\n"
		"\tfield:__data_loc char[] __filename_val;\toffset:48;\tsize:4;\tsigned:0;\n"
		"\n"
		"print fmt: \"dfd: 0x%08lx, filename: 0x%08lx \\\"%s\\\"\", ((unsigned long)(REC->dfd)), "
		"((unsigned long)(REC->filename)), __get_str(__filename_val)\n";
	struct tp_format *fmt = tp_format__parse(text, "syscalls");
	if (!CHECK(fmt, "a 6.19 sys_enter_openat format parses"))
		return;
	struct syscall_desc d = { .nr = SYS_openat, .name = "openat" };
	syscall_desc__set_format(&d, fmt);
	CHECK_EQ_INT(d.nargs, 4);
	CHECK(d.strs[1] && !strcmp(d.strs[1]->name, "__filename_val"), "filename's string found");
	CHECK(!d.strs[0] && !d.strs[2], "no string for dfd or flags");

	unsigned char rec[96] = { 0 };
	static const char path[] = "/etc/hostname";
	uint64_t vals[4] = { (uint64_t)-100, 0x7ffd1000, 0x80000, 0 };
	int nr = SYS_openat;
	memcpy(rec + 8, &nr, 4);
	for (int i = 0; i < 4; i++)
		memcpy(rec + 16 + 8 * i, &vals[i], 8);
	uint32_t loc = (uint32_t)sizeof(path) << 16 | 52;	/* len << 16 | offset */
	memcpy(rec + 48, &loc, 4);
	memcpy(rec + 52, path, sizeof(path));
	size_t size = 52 + sizeof(path);

	uint64_t got[SYSCALL_MAX_ARGS];
	CHECK_EQ_INT(syscalls__enter_args(fmt, rec, size, &nr, got), 0);
	CHECK_EQ_U64(got[1], 0x7ffd1000);
	char buf[128];
	syscall_print__arg(&d, 1, got[1], rec, size, buf, sizeof(buf));
	CHECK_STREQ(buf, "\"/etc/hostname\"");
	syscall_print__arg(&d, 1, got[1], NULL, 0, buf, sizeof(buf));	/* no record: the pointer */
	CHECK_STREQ(buf, "0x7ffd1000");
	loc = 200u << 16 | 52;	/* a payload past the record's end: not read */
	memcpy(rec + 48, &loc, 4);
	syscall_print__arg(&d, 1, got[1], rec, size, buf, sizeof(buf));
	CHECK_STREQ(buf, "0x7ffd1000");
	tp_format__free(fmt);
}

/* The line as perf trace lays it out. */
static void test_line(struct syscalls *sc)
{
	const struct syscall_desc *pt = syscalls__desc(sc, SYS_ptrace);
	if (!pt->fmt)
		return;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct syscall_print sp = { .out = f, .t0 = 1000000 };
	struct syscall_call call = { .desc = pt, .pid = 7, .tid = 8, .comm = "ptracer", .end = SYSCALL_RETURNED,
				     .t_enter = 1500000, .t_exit = 1503000, .ret = 0,
				     .args = { 2, 1234, 0x4a70d0, 0 } };
	syscall_print__call(&sp, &call);
	call.end = SYSCALL_CONTINUED;
	call.ret = -ESRCH;
	syscall_print__call(&sp, &call);
	sp.failure_only = true;
	call.end = SYSCALL_RETURNED;
	call.ret = 0;
	syscall_print__call(&sp, &call);	/* left out: it did not fail */
	fclose(f);
	CHECK_STREQ(text, "     0.500 ( 0.003 ms): ptracer/8 ptrace(request: PEEKDATA, pid: 1234, addr: 0x4a70d0, data: "
			  "0x0)       = 0\n"
			  "         ? (         ): ptracer/8  ... [continued]: ptrace())                                "
			  "           = -1 ESRCH (No such process)\n");
	free(text);
}

int main(void)
{
	test_table();
	test_select();
	struct syscalls *sc = syscalls__new();
	test_pairing(sc);
	syscalls__delete(sc);
	test_sigreturn();
	test_user_strings();
	if (!tracefs__root()) {
		char m[256];
		tracefs__strerror(errno, m, sizeof(m));
		return check_skip("the kernel's syscall formats: %s", m);
	}
	sc = syscalls__new();
	test_kernel_formats(sc);
	test_line(sc);
	syscalls__delete(sc);
	return check_summary();
}
