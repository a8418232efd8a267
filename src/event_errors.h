#ifndef PPROBE_EVENT_ERRORS_H
#define PPROBE_EVENT_ERRORS_H
#include <linux/perf_event.h>
#include <stddef.h>
#include <sys/types.h>
/* Turn a perf_event_open failure into what the user needs to know. */
void event_errors__explain(const char *name, const struct perf_event_attr *attr, int err,
			   pid_t tid, int cpu, char *buf, size_t len);
#endif
