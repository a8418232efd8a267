/* The --filter checker: the input is a format file's text, a NUL byte,
 * then a filter ("prev_pid > 0 && next_comm ~ \"x*\""). The format is
 * parsed with tp_format__parse and the filter checked against it with
 * trace_filter__check (which writes the message with the caret). An input
 * without a NUL, or any without PPROBE_FUZZ_TEP_FORMATS=1 (fuzz.h), is a
 * filter against sched:sched_switch's format. */
#include "fuzz.h"
#include "tp_format.h"
#include "trace_filter.h"

static const char sched_switch[] =
	"name: sched_switch\n"
	"ID: 316\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s next_pid=%d "
	"next_prio=%d\", REC->prev_comm, REC->prev_pid, REC->prev_prio, (REC->prev_state & ((((0x00000000 + 1) << 8) "
	"- 1) + 1)) ? \"+\" : \"\", \"R\", REC->next_comm, REC->next_pid, REC->next_prio\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text, *filter;
	uint8_t *rest;
	size_t len;
	if (memchr(data, 0, size)) {
		fuzz_split(data, size, 0, &text, &rest, &len);
		filter = (char *)rest;
		if (!fuzz_tep_formats()) {	/* libtraceevent's crashes (fuzz.h) */
			free(text);
			text = strdup(sched_switch);
		}
	} else {
		text = strdup(sched_switch);
		filter = fuzz_str(data, size);
	}
	/* The print fmt is not the checker's: left out, as fuzz_tp_format
	 * leaves out fuzzed ones (libtraceevent crashes on some). */
	char *pf = strstr(text, "\nprint fmt:");
	if (pf)
		pf[1] = 0;
	struct tp_format *fmt = tp_format__parse(text, "sched");
	if (fmt) {
		char msg[4096], small[16];
		int r = trace_filter__check(fmt, "sched", filter, msg, sizeof(msg));
		if (r != 0 && r != -ENOENT && r != -EINVAL && r != -ENOMEM)
			abort();	/* the header promises 0 or -ENOENT */
		(void)trace_filter__check(fmt, "sched", filter, small, sizeof(small));
		tp_format__free(fmt);
	}
	free(text);
	free(filter);
	return 0;
}
