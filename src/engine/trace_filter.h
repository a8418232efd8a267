/* Tracepoint filters (perf's --filter): checked against the event's format
 * before they reach the kernel, and explained with the kernel's own words
 * when it refuses one. */
#ifndef PPROBE_TRACE_FILTER_H
#define PPROBE_TRACE_FILTER_H

#include <stddef.h>

#include "tp_format.h"

/* 0 if every field the filter names exists in fmt (common_* fields and
 * perf's CPU/COMM specials included); else -ENOENT and a message in msg
 * with the filter, a caret under the unknown name, and the fields there are. */
int trace_filter__check(const struct tp_format *fmt, const char *sys, const char *filter,
			char *msg, size_t len);

/* The kernel's explanation of why it refuses filter for SYS:NAME: the filter
 * is written to a private tracefs instance (nothing global changes) and that
 * instance's error_log is returned (with the kernel's caret). 0 and the text
 * in msg, or -errno when no explanation could be had. */
int trace_filter__kernel_error(const char *sys, const char *name, const char *filter,
			       char *msg, size_t len);

#endif
