/* ftrace__line_function: the function a trace_pipe line enters, for
 * pprobe ftrace --count. The lines are the kernel's own, as Debian's 6.1
 * printed them in the VM (tests/vm/ftrace.sh): the function tracer with
 * and without options/print-parent, function_graph with funcgraph-proc and
 * with funcgraph-abstime, and the lines that enter nothing. */
#include <stdio.h>
#include <string.h>

#include "ftrace.h"

#include "check.h"

static void entry(const char *line, const char *want)
{
	char name[256] = "";
	int r = ftrace__line_function(line, name, sizeof(name));
	if (want) {
		CHECK(r == 1, "an entry of %s: '%s'", want, line);
		CHECK_STREQ(name, want);
	} else {
		CHECK(r == 0, "no entry (got '%s'): '%s'", name, line);
	}
}

int main(void)
{
	/* function tracer */
	entry("         ptracer-199     [001] .....     8.395140: __x64_sys_ptrace <-do_syscall_64",
	      "__x64_sys_ptrace");
	entry("          <idle>-0       [000] d.h2.    12.000001: rcu_nocb_unlock_irqrestore.part.0 <-rcu_do_batch",
	      "rcu_nocb_unlock_irqrestore.part.0");
	/* options/print-parent off */
	entry("         ptracer-199     [001] .....     8.395140: __x64_sys_ptrace", "__x64_sys_ptrace");
	/* function_graph, funcgraph-proc */
	entry(" 1)    cat-168     |               |  do_sys_openat2() {", "do_sys_openat2");
	entry(" 1)    cat-168     | + 26.837 us   |    getname();", "getname");
	entry(" 1)    cat-164     |               |                                file_free_rcu() {",
	      "file_free_rcu");
	entry(" 1)    cat-164     |   0.872 us    |  do_nocb_deferred_wakeup.isra.0();",
	      "do_nocb_deferred_wakeup.isra.0");
	/* funcgraph-abstime first */
	entry("   13.524072 |   0)    cat-342     |               |  do_sys_openat2() {", "do_sys_openat2");
	/* what enters nothing */
	entry(" 1)    cat-168     | ! 274.397 us  |  }", NULL);
	entry(" 1)    cat-164     | + 87.480 us   |                              } /* rcu_do_batch */", NULL);
	entry(" ------------------------------------------", NULL);
	entry(" 0)   pprobe-341   =>    cat-342    ", NULL);
	entry("CPU:1 [LOST 363 EVENTS]", NULL);
	entry("", NULL);
	/* a name longer than the caller's buffer is not cut short */
	char small[8];
	CHECK(ftrace__line_function(" 1)    cat-168     | + 26.837 us   |    getname_flags_long();", small,
				    sizeof(small)) == 0, "a name that does not fit is no entry");
	return check_summary();
}
