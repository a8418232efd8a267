#include <linux/perf_event.h>
#include <stdbool.h>
int tmp_event_parse(const char *s, struct perf_event_attr *a, bool *period_one);
