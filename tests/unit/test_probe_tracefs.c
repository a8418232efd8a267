/* probe_tracefs: perf probe's definition syntax, group and event names,
 * the lines of uprobe_events/kprobe_events, and the kprobe-less kernel's
 * message (with a fake tracefs root holding available_events). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "probe_tracefs.h"
#include "tracefs.h"
#include "tp_format.h"

static void def_ok(const char *s, const char *group, const char *event, const char *point, int nargs,
		   const char *const *args, bool ret)
{
	struct probe_def d;
	char err[256] = "";
	int r = probe_def__parse(s, &d, err, sizeof(err));
	CHECK(r == 0, "parse '%s': %d %s", s, r, err);
	if (r)
		return;
	CHECK((!group && !d.group) || (group && d.group && !strcmp(group, d.group)), "'%s' group %s", s,
	      d.group ? d.group : "(null)");
	CHECK((!event && !d.event) || (event && d.event && !strcmp(event, d.event)), "'%s' event %s", s,
	      d.event ? d.event : "(null)");
	CHECK_STREQ(d.point, point);
	CHECK(d.nargs == nargs, "'%s': %d args", s, d.nargs);
	for (int i = 0; i < nargs && i < d.nargs; i++)
		CHECK_STREQ(d.args[i], args[i]);
	CHECK(d.retprobe == ret, "'%s' retprobe %d", s, d.retprobe);
	probe_def__exit(&d);
}

static void def_bad(const char *s, const char *msg)
{
	struct probe_def d;
	char err[256] = "";
	int r = probe_def__parse(s, &d, err, sizeof(err));
	CHECK(r == -EINVAL, "'%s' should fail: %d", s, r);
	CHECK(strstr(err, msg) != NULL, "'%s': message '%s' lacks '%s'", s, err, msg);
}

static void base(const char *point, const char *fn, const char *want)
{
	char buf[128];
	CHECK(probe_tracefs__event_base(point, fn, buf, sizeof(buf)) == 0, "%s", point);
	CHECK(!strcmp(buf, want), "event_base(%s, %s) = %s, expected %s", point, fn ? fn : "NULL", buf, want);
}

static void group(const char *bin, const char *want)
{
	char buf[128];
	CHECK(probe_tracefs__default_group(bin, buf, sizeof(buf)) == 0, "%s", bin ? bin : "NULL");
	CHECK(!strcmp(buf, want), "default_group(%s) = %s, expected %s", bin ? bin : "NULL", buf, want);
}

static void test_definitions(void)
{
	def_ok("handle", NULL, NULL, "handle", 0, NULL, false);
	def_ok("  handle   req->path:string\tlen ", NULL, NULL, "handle", 2,
	       (const char *const[]){ "req->path:string", "len" }, false);
	def_ok("myev=handle+4", NULL, "myev", "handle+4", 0, NULL, false);
	def_ok("grp:ev2=handle len", "grp", "ev2", "handle", 1, (const char *const[]){ "len" }, false);
	def_ok("handle%return $retval", NULL, NULL, "handle%return", 1, (const char *const[]){ "$retval" }, true);
	def_ok("handle@server.c:3 p=+0(%di):string", NULL, NULL, "handle@server.c:3", 1,
	       (const char *const[]){ "p=+0(%di):string" }, false);
	/* '=' after ';' belongs to the pattern, after '@' to... nothing: perf's rule */
	def_ok("handle;x=1", NULL, NULL, "handle;x=1", 0, NULL, false);
	def_ok("0x1169 %di", NULL, NULL, "0x1169", 1, (const char *const[]){ "%di" }, false);
	def_ok("server.c:12", NULL, NULL, "server.c:12", 0, NULL, false);
	def_bad("", "empty probe definition");
	def_bad("   ", "empty probe definition");
	def_bad("1ev=handle", "bad event name '1ev'");
	def_bad("g-x:ev=handle", "bad group name 'g-x'");
	def_bad("ev=", "no probe point after '='");
	def_bad("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa=f", "under 64 characters");
}

/* groups, as perf: the base name up to its first character that is not
 * alphanumeric or '_' */
static void test_groups(void)
{
	group(NULL, "probe");
	group("/usr/lib/x86_64-linux-gnu/libc.so.6", "probe_libc");
	group("./server", "probe_server");
	group("/x/probeadd_server_O2", "probe_probeadd_server_O2");
	group("/x/my-app", "probe_my");
	group("/x/.hidden", "probe__hidden");
	group("/x/9lives", "probe__9lives");
}

static void test_names(void)
{
	/* event names */
	base("handle", "handle", "handle");
	base("handle%return", "handle", "handle__return");
	base("handle:2", "handle", "handle_L2");
	base("handle+4", "handle", "handle");
	base("handle@server.c", "handle", "handle");
	base("handle@server.c:7", "handle", "handle_L7");
	base("handle;sink*", "handle", "handle");
	base("scale.constprop.0", "scale", "scale");
	base("scale.constprop.0%return", "scale", "scale__return");
	base("server.c:12", "handle", "handle");
	base("src/server.c:12", "parse.isra.0", "parse");
	base("server.c;served++", "handle", "handle");
	base("0x1169", "handle", "abs_1169");
	base("0x00000000000012B0", "handle", "abs_12b0");
	base("operator<<", "operator<<", "operator__");
	char longname[100];
	memset(longname, 'f', 80);
	longname[80] = '\0';
	char buf[128];
	strcat(longname, "%return");
	probe_tracefs__event_base(longname, NULL, buf, sizeof(buf));
	CHECK(strlen(buf) == 63 && !strcmp(buf + 55, "__return"), "long %%return name: %s (%zu)", buf, strlen(buf));

	/* uniqueness */
	char *taken[] = { "handle", "handle_1", "handle__return", "x" };
	CHECK(probe_tracefs__unique_name("handle", taken, 4, buf, sizeof(buf)) == 0 && !strcmp(buf, "handle_2"), "%s", buf);
	CHECK(probe_tracefs__unique_name("handle__return", taken, 4, buf, sizeof(buf)) == 0 &&
	      !strcmp(buf, "handle__return_1"), "%s", buf);
	CHECK(probe_tracefs__unique_name("y", taken, 4, buf, sizeof(buf)) == 0 && !strcmp(buf, "y"), "%s", buf);
	char *full63[] = { longname };
	memset(longname, 'g', 63);
	longname[63] = '\0';
	CHECK(probe_tracefs__unique_name(longname, full63, 1, buf, sizeof(buf)) == 0 && strlen(buf) == 63 &&
	      !strcmp(buf + 61, "_1"), "%s", buf);
	CHECK(probe_tracefs__valid_name("probe_app") && probe_tracefs__valid_name("_x1") &&
	      !probe_tracefs__valid_name("1x") && !probe_tracefs__valid_name("a-b") && !probe_tracefs__valid_name(""),
	      "valid_name");
}

static void test_lines(void)
{
	struct probe_event e;
	CHECK(probe_event__parse("p:probe_app/handle /tmp/pa/app:0x0000000000001169 path=+0(+0(-24(%bp))):string len=-28(%bp):s32", &e) == 0, "uprobe line");
	CHECK_STREQ(e.group, "probe_app");
	CHECK_STREQ(e.event, "handle");
	CHECK_STREQ(e.target, "/tmp/pa/app");
	CHECK(e.uprobe && !e.retprobe && e.offset == 0x1169, "uprobe fields");
	CHECK_STREQ(e.args, "path=+0(+0(-24(%bp))):string len=-28(%bp):s32");
	probe_event__exit(&e);
	CHECK(probe_event__parse("r:probe_app/handle__return /tmp/ab:0x0000000000001159 arg1=$retval", &e) == 0 &&
	      e.retprobe && e.uprobe, "uretprobe line");
	probe_event__exit(&e);
	CHECK(probe_event__parse("r10:kprobes/tcp tcp_sendmsg", &e) == 0 && e.retprobe && !e.uprobe &&
	      !strcmp(e.target, "tcp_sendmsg") && !strcmp(e.args, ""), "kretprobe with maxactive");
	probe_event__exit(&e);
	CHECK(probe_event__parse("p:sdt_libc/setjmp /usr/lib/libc.so.6:0x0000000000037a3e(0x1c8c20) arg1=%di", &e) == 0 &&
	      e.uprobe && e.offset == 0x37a3e, "uprobe with ref_ctr: offset %llx", (unsigned long long)e.offset);
	probe_event__exit(&e);
	CHECK(probe_event__parse("garbage", &e) == -EINVAL, "garbage line");
}

/* trace prints a probe event as trace_pipe does: its address with 0x
 * (the kernel's own print, where the format says "(%lx)"), args of x
 * types in hex (the print fmt's 0x%x), strings quoted */
static void test_probe_print(void)
{
	struct tp_format *fmt = tp_format__parse(
		"name: handle\nID: 2326\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		"\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n"
		"\tfield:__data_loc char[] path;\toffset:16;\tsize:4;\tsigned:1;\n"
		"\tfield:s32 len;\toffset:20;\tsize:4;\tsigned:1;\n"
		"\tfield:u32 hx;\toffset:24;\tsize:4;\tsigned:0;\n"
		"\tfield:u32 ux;\toffset:28;\tsize:4;\tsigned:0;\n\n"
		"print fmt: \"(%lx) path=\\\"%s\\\" len=%d hx=0x%x ux=%u\", REC->__probe_ip, __get_str(path), "
		"REC->len, REC->hx, REC->ux\n", "probe_app");
	CHECK(fmt != NULL, "probe format parses");
	if (fmt) {
		unsigned char rec[44] = { 0 };
		uint16_t type = 2326;
		uint64_t ip = 0x401136;
		uint32_t loc = (12u << 16) | 32, hx = 11, ux = 11;
		int32_t len = -3;
		memcpy(rec, &type, 2);
		memcpy(rec + 8, &ip, 8);
		memcpy(rec + 16, &loc, 4);
		memcpy(rec + 20, &len, 4);
		memcpy(rec + 24, &hx, 4);
		memcpy(rec + 28, &ux, 4);
		memcpy(rec + 32, "/index.html", 12);
		char out[128];
		CHECK(tp_format__print(fmt, rec, sizeof(rec), out, sizeof(out)) > 0, "print");
		CHECK_STREQ(out, "(0x401136) path=\"/index.html\" len=-3 hx=0xb ux=11");
		/* a path that points past the record: nothing read, -ERANGE */
		CHECK(tp_format__print(fmt, rec, 40, out, sizeof(out)) == -ERANGE, "data_loc past the end");
		const struct tp_field *f = tp_format__field(fmt, "len");
		tp_field__format(f, rec, sizeof(rec), out, sizeof(out));
		CHECK_STREQ(out, "-3");
		f = tp_format__field(fmt, "path");
		CHECK(f && f->is_string && f->is_dynamic, "path is a dynamic string");
		tp_format__free(fmt);
	}
}

/* a kernel without kprobes, on a fake tracefs */
static void test_no_kprobes(void)
{
	char dir[] = "/tmp/pprobe-probe-tracefs.XXXXXX";
	CHECK(mkdtemp(dir) != NULL, "mkdtemp");
	char path[256];
	snprintf(path, sizeof(path), "%s/events", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/available_events", dir);
	FILE *f = fopen(path, "w");
	fputs("tcp:tcp_sendmsg_locked\nmptcp:mptcp_sendmsg_frag\nsyscalls:sys_enter_read\nsyscalls:sys_exit_read\n"
	      "syscalls:sys_enter_readv\nkmem:kmalloc\nkmem:kmalloc_node\nsched:sched_switch\n", f);
	fclose(f);
	tracefs__set_root(dir);
	char msg[1024];
	CHECK(probe_tracefs__tracepoints_near("tcp_sendmsg", msg, sizeof(msg)) == 1 &&
	      !strcmp(msg, "tcp:tcp_sendmsg_locked"), "near tcp_sendmsg: %s", msg);
	CHECK(probe_tracefs__tracepoints_near("__x64_sys_read", msg, sizeof(msg)) == 2 &&
	      !strcmp(msg, "syscalls:sys_enter_read, syscalls:sys_exit_read"), "near __x64_sys_read: %s", msg);
	CHECK(probe_tracefs__tracepoints_near("kmalloc", msg, sizeof(msg)) == 2 &&
	      !strcmp(msg, "kmem:kmalloc, kmem:kmalloc_node"), "near kmalloc: %s", msg);
	CHECK(probe_tracefs__tracepoints_near("do_sys_openat2", msg, sizeof(msg)) == 0 && !msg[0], "near openat2: %s", msg);
	CHECK(probe_tracefs__kprobes_available("tcp_sendmsg", msg, sizeof(msg)) == 0, "no kprobe_events");
	CHECK(strstr(msg, "this kernel has no kprobes (no kprobe_events in tracefs") == msg &&
	      strstr(msg, "the kernel function tcp_sendmsg cannot be probed; tracepoints near tcp_sendmsg: "
			  "tcp:tcp_sendmsg_locked"), "%s", msg);
	snprintf(path, sizeof(path), "%s/kprobe_events", dir);
	fclose(fopen(path, "w"));
	CHECK(probe_tracefs__kprobes_available("tcp_sendmsg", msg, sizeof(msg)) == 1, "kprobe_events present");
	unlink(path);
	snprintf(path, sizeof(path), "%s/available_events", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/events", dir);
	rmdir(path);
	rmdir(dir);
	tracefs__set_root(NULL);
}

int main(void)
{
	test_definitions();
	test_groups();
	test_names();
	test_lines();
	test_probe_print();
	test_no_kprobes();
	return check_summary();
}
