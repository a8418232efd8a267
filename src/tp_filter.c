/* Tracepoint filter checks and kernel error explanations. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp_filter.h"
#include "tracefs.h"

static const char *const pseudo_fields[] = { "CPU", "cpu", "COMM", "comm", "STACKTRACE", "stacktrace" };

static int is_field(const struct tp_format *fmt, const char *name)
{
	if (tp_format__field(fmt, name))
		return 1;
	for (size_t i = 0; i < sizeof(pseudo_fields) / sizeof(pseudo_fields[0]); i++)
		if (!strcmp(name, pseudo_fields[i]))
			return 1;
	return 0;
}

/* "expr\n" + spaces + "^" */
static size_t caret(char *buf, size_t len, size_t o, const char *filter, size_t col)
{
	if (o < len)
		o += snprintf(buf + o, len - o, "\n  %s\n  %*s^", filter, (int)col, "");
	return o;
}

static int lev(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 63 || lb > 63)
		return 99;
	int d[64][64];
	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			int v = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			d[i][j] = v;
		}
	return d[la][lb];
}

int tp_filter__check(const struct tp_format *fmt, const char *event, const char *filter,
		     char *err, size_t errlen)
{
	const char *p = filter;
	int depth = 0;
	size_t open_paren = 0;

	if (errlen)
		err[0] = 0;
	while (*p) {
		if (isspace((unsigned char)*p)) {
			p++;
			continue;
		}
		if (*p == '"' || *p == '\'') {
			const char *q = strchr(p + 1, *p);
			if (!q) {
				size_t o = snprintf(err, errlen, "filter for %s: string without its closing %c", event, *p);
				caret(err, errlen, o, filter, p - filter);
				return -EINVAL;
			}
			p = q + 1;
			continue;
		}
		if (*p == '(') {
			if (!depth)
				open_paren = p - filter;
			depth++;
			p++;
			continue;
		}
		if (*p == ')') {
			if (--depth < 0) {
				size_t o = snprintf(err, errlen, "filter for %s: ')' without its '('", event);
				caret(err, errlen, o, filter, p - filter);
				return -EINVAL;
			}
			p++;
			continue;
		}
		if (isalpha((unsigned char)*p) || *p == '_') {
			const char *s = p;
			while (isalnum((unsigned char)*p) || *p == '_' || *p == '.')
				p++;
			/* a field is an identifier followed by a comparison operator */
			const char *q = p;
			while (isspace((unsigned char)*q))
				q++;
			int is_lhs = (q[0] == '=' && q[1] == '=') || (q[0] == '!' && q[1] == '=') || q[0] == '<' ||
				     q[0] == '>' || q[0] == '~' || (q[0] == '&' && q[1] != '&');
			if (!is_lhs)
				continue;
			char name[128];
			snprintf(name, sizeof(name), "%.*s", (int)(p - s), s);
			char *dot = strchr(name, '.');   /* field.function, field.hex ... modifiers */
			if (dot)
				*dot = 0;
			if (is_field(fmt, name))
				continue;
			size_t o = snprintf(err, errlen, "filter for %s: no field '%s' (fields:", event, name);
			const char *best = NULL;
			int bd = 3;
			for (size_t i = 0; i < fmt->nr_fields; i++) {
				if (fmt->fields[i].is_common)
					continue;
				if (o < errlen)
					o += snprintf(err + o, errlen - o, " %s", fmt->fields[i].name);
				int d = lev(name, fmt->fields[i].name);
				if (d < bd) {
					bd = d;
					best = fmt->fields[i].name;
				}
			}
			if (o < errlen)
				o += snprintf(err + o, errlen - o, "; also common_pid, CPU, COMM)");
			if (best && o < errlen)
				o += snprintf(err + o, errlen - o, "; did you mean '%s'?", best);
			caret(err, errlen, o, filter, s - filter);
			return -EINVAL;
		}
		p++;
	}
	if (depth > 0) {
		size_t o = snprintf(err, errlen, "filter for %s: '(' without its ')'", event);
		caret(err, errlen, o, filter, open_paren);
		return -EINVAL;
	}
	return 0;
}

/* The kernel's caret lands after the bad token (on the space after a bad
 * operator, on the operator after an unknown field): move it onto the token. */
static size_t token_at(const char *filter, size_t col, int field_error)
{
	size_t n = strlen(filter);
	if (col >= n)
		col = n ? n - 1 : 0;
	while (col > 0 && isspace((unsigned char)filter[col]))
		col--;
	if (field_error) {
		while (col > 0 && strchr("=!<>~&", filter[col]))
			col--;
		while (col > 0 && isspace((unsigned char)filter[col]))
			col--;
		while (col > 0 && (isalnum((unsigned char)filter[col - 1]) || filter[col - 1] == '_' ||
				   filter[col - 1] == '.'))
			col--;
	}
	return col;
}

/* The error_log text added after BEFORE (its length) -- the newest entry. */
static char *new_log_entry(const char *before, size_t before_len)
{
	size_t len;
	char *after = tracefs__read_file("error_log", &len);
	if (!after)
		return NULL;
	const char *s = after;
	if (before && len >= before_len && !memcmp(after, before, before_len))
		s = after + before_len;
	else if (before) {
		/* the log wrapped: take its last entry, which starts with '[' */
		const char *last = NULL;
		for (const char *q = after; (q = strstr(q, "\n[")); q++)
			last = q + 1;
		s = last ? last : after;
	}
	char *r = *s ? strdup(s) : NULL;
	free(after);
	return r;
}

int tp_filter__explain(const char *sys, const char *name, const char *filter, int err,
		       char *buf, size_t len)
{
	char rel[512];
	size_t o;

	if (err < 0)
		err = -err;
	if (err == EEXIST)
		return snprintf(buf, len, "the filter for %s:%s was not set: this perf event already has a "
				"filter (the kernel takes one per event; combine them with &&)", sys, name);
	o = snprintf(buf, len, "the kernel rejected the filter for %s:%s (%s)", sys, name, strerror(err));
	if ((size_t)snprintf(rel, sizeof(rel), "events/%s/%s/filter", sys, name) >= sizeof(rel))
		return (int)o;

	size_t before_len = 0;
	char *before = tracefs__read_file("error_log", &before_len);
	char *old = tracefs__read_file(rel, NULL);
	if (!old) {
		if (o < len)
			o += snprintf(buf + o, len - o, "; the kernel's reason is not available (%s: %s)", rel,
				      strerror(errno));
		free(before);
		return (int)o;
	}
	int w = tracefs__write_file(rel, filter, 0);
	char *filefmt = tracefs__read_file(rel, NULL);
	/* restore: "none" means no filter; "0" clears */
	size_t ol = strlen(old);
	while (ol && old[ol - 1] == '\n')
		old[--ol] = 0;
	tracefs__write_file(rel, !strcmp(old, "none") ? "0" : old, 0);

	if (w == 0) {
		if (o < len)
			o += snprintf(buf + o, len - o,
				      "; the same filter is accepted by the tracefs filter file, so the "
				      "perf_event_open path refused it (%s)",
				      err == EPERM ? "not permitted" : "unsupported for this event");
		goto out;
	}
	char *entry = new_log_entry(before, before_len);
	if (entry) {
		/* "[ts] event filter parse error: error: MSG\n  Command: EXPR\n   ^" */
		char *msg = strstr(entry, "error: ");
		char *again = msg ? strstr(msg + 7, "error: ") : NULL;
		if (again)
			msg = again;
		char *nl = msg ? strchr(msg, '\n') : NULL;
		char *cmd = nl ? strstr(nl, "Command: ") : NULL;
		char *cnl = cmd ? strchr(cmd, '\n') : NULL;
		if (msg && nl && cmd && cnl) {
			*nl = 0;
			*cnl = 0;
			const char *c2 = cnl + 1;
			size_t col = strchr(c2, '^') ? (size_t)(strchr(c2, '^') - c2) : 0;
			/* the caret line is indented to line up under "  Command: " */
			size_t indent = (size_t)(cmd - nl - 1) + 9;
			col = col >= indent ? col - indent : 0;
			col = token_at(filter, col, strstr(msg, "Field not found") != NULL);
			if (o < len)
				o += snprintf(buf + o, len - o, ": %s", msg + 7);
			o = caret(buf, len, o, filter, col);
			free(entry);
			goto out;
		}
		if (o < len)
			o += snprintf(buf + o, len - o, "; error_log: %s", entry);
		free(entry);
		goto out;
	}
	if (filefmt) {
		/* older kernels: "EXPR\n   ^\nparse_error: MSG\n" in the filter file */
		char *pe = strstr(filefmt, "parse_error: ");
		char *l2 = strchr(filefmt, '\n');
		if (pe && l2) {
			char *end = strchr(pe, '\n');
			if (end)
				*end = 0;
			const char *c = strchr(l2 + 1, '^');
			size_t col = c ? (size_t)(c - l2 - 1) : 0;
			col = token_at(filter, col, strstr(pe, "Field not found") != NULL);
			if (o < len)
				o += snprintf(buf + o, len - o, ": %s", pe + 13);
			o = caret(buf, len, o, filter, col);
			goto out;
		}
	}
	if (o < len)
		o += snprintf(buf + o, len - o, "; the kernel gave no reason (writing it to %s failed: %s)", rel,
			      strerror(-w));
out:
	free(before);
	free(old);
	free(filefmt);
	return (int)o;
}
