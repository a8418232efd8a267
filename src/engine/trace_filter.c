#define _GNU_SOURCE
#include "trace_filter.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs/tracefs.h>

#include "sigguard.h"
#include "tracefs.h"

static bool known_field(const struct tp_format *fmt, const char *name)
{
	/* The kernel's filter also knows these (kernel/trace/trace_events.c). */
	static const char *const specials[] = { "CPU", "cpu", "COMM", "comm", "common_cpu", NULL };
	for (int i = 0; specials[i]; i++)
		if (!strcmp(name, specials[i]))
			return true;
	return tp_format__field(fmt, name) != NULL;
}

int trace_filter__check(const struct tp_format *fmt, const char *sys, const char *filter,
			char *msg, size_t len)
{
	const char *p = filter;
	while (*p) {
		if (*p == '"' || *p == '\'') {	/* string literal: skip */
			char q = *p++;
			while (*p && *p != q)
				p += (*p == '\\' && p[1]) ? 2 : 1;
			if (*p)
				p++;
			continue;
		}
		if (isalpha((unsigned char)*p) || *p == '_') {
			const char *s = p;
			while (isalnum((unsigned char)*p) || *p == '_')
				p++;
			char name[128];
			snprintf(name, sizeof(name), "%.*s", (int)(p - s), s);
			/* A word right after a comparison operator is a value (e.g. an
			 * unquoted glob like comm == bash): skip it. */
			const char *b = s;
			while (b > filter && isspace((unsigned char)b[-1]))
				b--;
			bool is_value = b > filter && strchr("=<>~&", b[-1]) && !(b - filter >= 2 && b[-1] == '&' && b[-2] == '&');
			if (!is_value && !known_field(fmt, name)) {
				size_t n = (size_t)snprintf(msg, len,
					"filter for %s:%s names no such field '%s':\n  %s\n  %*s^\n  fields:", sys,
					fmt->name, name, filter, (int)(s - filter), "");
				n = tp_format__list_fields(fmt, msg, len, n);
				if (n < len)
					snprintf(msg + n, len - n, " (and common_pid, common_flags, CPU, COMM)");
				return -ENOENT;
			}
			continue;
		}
		if (isdigit((unsigned char)*p)) {	/* numbers, including 0x... */
			while (isalnum((unsigned char)*p))
				p++;
			continue;
		}
		p++;
	}
	return 0;
}

int trace_filter__kernel_error(const char *sys, const char *name, const char *filter,
			       char *msg, size_t len)
{
	char inst_name[64];
	if (!tracefs__root())
		return -ENOENT;
	snprintf(inst_name, sizeof(inst_name), "pprobe-filter-%d", (int)getpid());
	sigguard__hold();	/* a second ^C waits: the instance never stays behind */
	struct tracefs_instance *inst = tracefs_instance_create(inst_name);
	if (!inst) {
		int err = errno ? -errno : -ENOENT;
		sigguard__release();
		return err;
	}
	int ret = -EINVAL;
	if (tracefs_event_file_write(inst, sys, name, "filter", filter) < 0) {
		char *log = tracefs_error_last(inst);
		if (log && *log) {
			/* Drop the "[ timestamp] " prefix of the first line. */
			char *t = log;
			if (*t == '[') {
				char *e = strchr(t, ']');
				if (e)
					t = e + 2;
			}
			size_t l = strlen(t);
			while (l && t[l - 1] == '\n')
				t[--l] = 0;
			snprintf(msg, len, "%s", t);
			ret = 0;
		}
		free(log);
	}
	tracefs_instance_destroy(inst);
	tracefs_instance_free(inst);
	sigguard__release();
	return ret;
}
