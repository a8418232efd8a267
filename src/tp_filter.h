/* Tracepoint filters (perf's --filter, PERF_EVENT_IOC_SET_FILTER): field
 * names checked against the format before the kernel sees them, and a filter
 * the kernel rejected explained in the kernel's own words. */
#ifndef PPROBE_TP_FILTER_H
#define PPROBE_TP_FILTER_H

#include <stddef.h>

#include "tp_format.h"

/* 0 if every field FILTER compares exists in FMT (or is one of the kernel's
 * pseudo fields CPU, COMM, comm, cpu, STACKTRACE); else -EINVAL and in err:
 *   "no field 'pidx' in signal:signal_generate (fields: sig, errno, ...; did you mean pid?)
 *     sig == 5 && pidx == 3
 *                 ^"
 * (the expression and a caret under the bad token on separate lines).
 * EVENT is the name used in the message. Unbalanced quotes and parentheses
 * are reported the same way. */
int tp_filter__check(const struct tp_format *fmt, const char *event, const char *filter,
		     char *err, size_t errlen);

/* The kernel rejected FILTER on tracepoint SYS:NAME (the ioctl failed with
 * errno ERR). perf_event_open filters are not logged, so the same filter is
 * written to tracefs events/SYS/NAME/filter (the event's previous ftrace
 * filter is restored afterwards) and the kernel's message and caret are
 * taken from tracing/error_log (or the filter file on kernels without one).
 * Writes the message to buf; returns its length. Needs root for the
 * kernel's words; otherwise says what it can. */
int tp_filter__explain(const char *sys, const char *name, const char *filter, int err,
		       char *buf, size_t len);

#endif
