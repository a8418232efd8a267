/* Dynamic probes in tracefs: perf probe's --add/-l/-d, and temporary probes
 * for one run of pprobe. See probe_tracefs.h. */
#define _GNU_SOURCE
#include "util.h"
#include "probe_tracefs.h"

#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>

#include <tracefs/tracefs.h>

#include "sigguard.h"
#include "tracefs.h"
#include "pprobe/probe_finder.h"

#define EVENT_NAME_MAX 64	/* the kernel's MAX_EVENT_NAME_LEN, NUL included */

void probe_tracefs__free_names(char **names, int n)
{
	if (!names)
		return;
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* ---- names ---- */

bool probe_tracefs__valid_name(const char *s)
{
	if (!s || !*s || strlen(s) >= EVENT_NAME_MAX)
		return false;
	if (!isalpha((unsigned char)s[0]) && s[0] != '_')
		return false;
	for (const char *p = s; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_')
			return false;
	return true;
}

/* Copy up to n chars of s into buf as a tracefs name: others -> '_',
 * a leading digit gets a '_' before it. */
static void sanitize(char *buf, size_t len, const char *s, size_t n)
{
	size_t o = 0;
	if (n && isdigit((unsigned char)s[0]) && o + 1 < len)
		buf[o++] = '_';
	for (size_t i = 0; i < n && s[i] && o + 1 < len; i++)
		buf[o++] = isalnum((unsigned char)s[i]) ? s[i] : '_';
	buf[o] = '\0';
}

int probe_tracefs__default_group(const char *binary, char *buf, size_t len)
{
	if (!binary) {
		if ((size_t)snprintf(buf, len, "probe") >= len)
			return -ENAMETOOLONG;
		return 0;
	}
	const char *b = strrchr(binary, '/');
	b = b ? b + 1 : binary;
	/* perf's convert_exec_to_group(): up to the first character that is
	 * not alphanumeric or '_' (libc.so.6 -> libc, my-app -> my) */
	size_t n = 0;
	while (b[n] && (isalnum((unsigned char)b[n]) || b[n] == '_'))
		n++;
	if (n == 0)	/* ".hidden" or "_x": keep what there is */
		n = strlen(b);
	char name[EVENT_NAME_MAX];
	sanitize(name, sizeof(name) - 6, b, n);
	if ((size_t)snprintf(buf, len, "probe_%s", name) >= len)
		return -ENAMETOOLONG;
	return 0;
}

int probe_tracefs__event_base(const char *point, const char *function, char *buf, size_t len)
{
	char name[EVENT_NAME_MAX * 2];
	size_t plen = strlen(point);
	bool ret = plen > 7 && !strcmp(point + plen - 7, "%return");
	const char *suffix = ret ? "__return" : "";

	if (!strncmp(point, "0x", 2)) {
		snprintf(name, sizeof(name), "abs_%llx", strtoull(point + 2, NULL, 16));
	} else {
		size_t n = strcspn(point, "@:+%;");
		bool file_form = memchr(point, '/', n) != NULL;
		if (!file_form) {	/* "server.c:12": a file, unless it is a clone "f.isra.0" */
			const char *dot = memchr(point, '.', n);
			file_form = dot && (point[n] == ':' || point[n] == ';') && !memchr(point, '@', n) &&
				    !strncmp(dot, ".c", 2) + !strncmp(dot, ".h", 2) + !strncmp(dot, ".cc", 3) +
				    !strncmp(dot, ".cpp", 4) + !strncmp(dot, ".S", 2) > 0 &&
				    (dot + 2 == point + n || dot + 3 == point + n || dot + 4 == point + n);
		}
		const char *fn = point;
		if (file_form) {
			fn = function ? function : "probe";
			n = strlen(fn);
		}
		/* clone suffixes (.constprop.0, .isra.0) and @SRC go */
		size_t cut = strcspn(fn, ".@");
		if (cut && cut < n)
			n = cut;
		sanitize(name, sizeof(name), fn, n);
		if (!file_form && point[strcspn(point, ":+%;")] == ':') {
			const char *l = point + strcspn(point, ":+%;") + 1;
			size_t o = strlen(name);
			snprintf(name + o, sizeof(name) - o, "_L%d", atoi(l));
		}
	}
	size_t maxbase = EVENT_NAME_MAX - 1 - strlen(suffix);
	if (strlen(name) > maxbase)
		name[maxbase] = '\0';
	if ((size_t)snprintf(buf, len, "%s%s", name, suffix) >= len)
		return -ENAMETOOLONG;
	return 0;
}

static bool name_taken(const char *name, char *const *taken, int n)
{
	for (int i = 0; i < n; i++)
		if (taken[i] && !strcmp(taken[i], name))
			return true;
	return false;
}

int probe_tracefs__unique_name(const char *base, char *const *taken, int n, char *buf, size_t len)
{
	if (strlen(base) >= EVENT_NAME_MAX)
		return -ENAMETOOLONG;
	if (!name_taken(base, taken, n)) {
		if ((size_t)snprintf(buf, len, "%s", base) >= len)
			return -ENAMETOOLONG;
		return 0;
	}
	for (int i = 1; i < 100000; i++) {
		char sfx[16];
		int sl = snprintf(sfx, sizeof(sfx), "_%d", i);
		int keep = (int)strlen(base);
		if (keep + sl >= EVENT_NAME_MAX)
			keep = EVENT_NAME_MAX - 1 - sl;
		if ((size_t)snprintf(buf, len, "%.*s%s", keep, base, sfx) >= len)
			return -ENAMETOOLONG;
		if (!name_taken(buf, taken, n))
			return 0;
	}
	return -EEXIST;
}

/* ---- definitions ---- */

void probe_def__exit(struct probe_def *d)
{
	if (!d)
		return;
	free(d->group);
	free(d->event);
	free(d->point);
	for (int i = 0; i < d->nargs; i++)
		free(d->args[i]);
	free(d->args);
	memset(d, 0, sizeof(*d));
}

int probe_def__parse(const char *def, struct probe_def *d, char *err, size_t errlen)
{
	memset(d, 0, sizeof(*d));
	const char *p = def;
	int ret;

	while (isspace((unsigned char)*p))
		p++;
	size_t n = strcspn(p, " \t\n");
	if (!n) {
		seterr(err, errlen, "empty probe definition: expected '[[GROUP:]EVENT=]FUNC[@SRC][:RLN|+OFFS|%%return|;PTN] [ARG...]'");
		return -EINVAL;
	}
	char *spec = strndup(p, n);
	if (!spec)
		return -ENOMEM;
	p += n;
	/* perf: "EVENT=" when '=' comes before any of ";@+%" */
	char *eq = strpbrk(spec, ";=@+%");
	const char *point = spec;
	if (eq && *eq == '=') {
		*eq = '\0';
		point = eq + 1;
		char *colon = strchr(spec, ':');
		const char *ev = spec;
		if (colon) {
			*colon = '\0';
			ev = colon + 1;
			if (!probe_tracefs__valid_name(spec)) {
				seterr(err, errlen, "bad group name '%s': letters, digits and '_', not starting with a digit, "
				       "under %d characters", spec, EVENT_NAME_MAX);
				ret = -EINVAL;
				goto err;
			}
			d->group = strdup(spec);
		}
		if (!probe_tracefs__valid_name(ev)) {
			seterr(err, errlen, "bad event name '%s': letters, digits and '_', not starting with a digit, "
			       "under %d characters", ev, EVENT_NAME_MAX);
			ret = -EINVAL;
			goto err;
		}
		d->event = strdup(ev);
		if ((colon && !d->group) || !d->event) {
			ret = -ENOMEM;
			goto err;
		}
	}
	if (!*point) {
		seterr(err, errlen, "'%s': no probe point after '='", def);
		ret = -EINVAL;
		goto err;
	}
	d->point = strdup(point);
	if (!d->point) {
		ret = -ENOMEM;
		goto err;
	}
	size_t pl = strlen(d->point);
	d->retprobe = pl >= 7 && !strcmp(d->point + pl - 7, "%return");
	for (;;) {
		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		n = strcspn(p, " \t\n");
		char **v = realloc(d->args, (size_t)(d->nargs + 1) * sizeof(*v));
		if (!v) {
			ret = -ENOMEM;
			goto err;
		}
		d->args = v;
		if (!(d->args[d->nargs] = strndup(p, n))) {
			ret = -ENOMEM;
			goto err;
		}
		d->nargs++;
		p += n;
	}
	free(spec);
	return 0;
err:
	free(spec);
	probe_def__exit(d);
	return ret;
}

/* ---- the probe event lines ---- */

void probe_event__exit(struct probe_event *e)
{
	if (!e)
		return;
	free(e->group);
	free(e->event);
	free(e->target);
	free(e->args);
	memset(e, 0, sizeof(*e));
}

void probe_events__free(struct probe_event *v, int n)
{
	if (!v)
		return;
	for (int i = 0; i < n; i++)
		probe_event__exit(&v[i]);
	free(v);
}

int probe_event__parse(const char *line, struct probe_event *e)
{
	memset(e, 0, sizeof(*e));
	const char *p = line;
	if (*p != 'p' && *p != 'r')
		return -EINVAL;
	e->retprobe = *p == 'r';
	p++;
	while (isdigit((unsigned char)*p))	/* r10: maxactive */
		p++;
	if (*p++ != ':')
		return -EINVAL;
	const char *slash = strchr(p, '/'), *sp = strchr(p, ' ');
	if (!slash || !sp || slash > sp)
		return -EINVAL;
	e->group = strndup(p, (size_t)(slash - p));
	e->event = strndup(slash + 1, (size_t)(sp - slash - 1));
	p = sp + 1;
	size_t n = strcspn(p, " ");
	char *target = strndup(p, n);
	p += n;
	while (*p == ' ')
		p++;
	e->args = strdup(p);
	if (!e->group || !e->event || !target || !e->args) {
		free(target);
		probe_event__exit(e);
		return -ENOMEM;
	}
	/* uprobe: "/path:0x0000000000001169" or "/path:0x...(0x...)" (ref_ctr) */
	char *c = strrchr(target, ':');
	if (target[0] == '/' && c && !strncmp(c + 1, "0x", 2)) {
		e->uprobe = true;
		e->offset = strtoull(c + 1, NULL, 16);
		*c = '\0';
	}
	e->target = target;
	return 0;
}

/* The lines of uprobe_events or kprobe_events (missing file: none). */
static int read_events(const char *file, struct probe_event **v, int *n)
{
	char *text = tracefs__read_file(file, NULL);
	if (!text)
		return errno == ENOENT ? 0 : -errno;
	int ret = 0;
	for (char *line = text, *next; *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		else
			next = line + strlen(line);
		struct probe_event e;
		if (probe_event__parse(line, &e))
			continue;
		struct probe_event *nv = realloc(*v, (size_t)(*n + 1) * sizeof(*nv));
		if (!nv) {
			probe_event__exit(&e);
			ret = -ENOMEM;
			break;
		}
		*v = nv;
		(*v)[(*n)++] = e;
	}
	free(text);
	return ret;
}

static bool event_matches(const struct probe_event *e, const char *pattern)
{
	if (!pattern)
		return true;
	const char *colon = strchr(pattern, ':');
	if (!colon)
		return !fnmatch(pattern, e->event, 0);
	char g[256];
	snprintf(g, sizeof(g), "%.*s", (int)(colon - pattern), pattern);
	return !fnmatch(g, e->group, 0) && !fnmatch(colon + 1, e->event, 0);
}

int probe_tracefs__list(const char *pattern, struct probe_event **out)
{
	struct probe_event *all = NULL;
	int n = 0, ret;
	*out = NULL;
	if (!tracefs__root())
		return -errno;
	if ((ret = read_events("kprobe_events", &all, &n)) || (ret = read_events("uprobe_events", &all, &n))) {
		probe_events__free(all, n);
		return ret;
	}
	int w = 0;
	for (int i = 0; i < n; i++) {
		if (event_matches(&all[i], pattern))
			all[w++] = all[i];
		else
			probe_event__exit(&all[i]);
	}
	*out = all;
	if (!w) {
		free(all);
		*out = NULL;
	}
	return w;
}

/* Names of the events of group in tracefs, appended to *v. */
static int group_names(const char *group, char ***v, int *n)
{
	struct probe_event *ev = NULL;
	int ne = 0, ret;
	if ((ret = read_events("kprobe_events", &ev, &ne)) || (ret = read_events("uprobe_events", &ev, &ne)))
		goto out;
	for (int i = 0; i < ne; i++) {
		if (strcmp(ev[i].group, group))
			continue;
		char **nv = realloc(*v, (size_t)(*n + 1) * sizeof(*nv));
		if (!nv) {
			ret = -ENOMEM;
			goto out;
		}
		*v = nv;
		if (!((*v)[*n] = strdup(ev[i].event))) {
			ret = -ENOMEM;
			goto out;
		}
		(*n)++;
	}
out:
	probe_events__free(ev, ne);
	return ret;
}

/* ---- signals: no half-made state ---- */

/* With old: a section that a signal must not cut, until unblock_signals:
 * the signals wait, and so does the guard's ending at once. */
static void block_signals(sigset_t *old)
{
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGINT);
	sigaddset(&s, SIGTERM);
	sigaddset(&s, SIGHUP);
	sigprocmask(SIG_BLOCK, &s, old);
	if (old)
		sigguard__hold();
}

static void unblock_signals(const sigset_t *old)
{
	sigguard__release();
	sigprocmask(SIG_SETMASK, old, NULL);
}

/* ---- probe events through libtracefs ----
 *
 * Made and removed with libtracefs's dynamic events (tracefs_*probe_alloc,
 * tracefs_dynevent_create/destroy). Listed by hand from kprobe_events and
 * uprobe_events (read_events below): libtracefs 1.6.4's
 * tracefs_dynevent_get_all() reads dynamic_events, where kprobes and
 * uprobes both begin "p:", and returns uprobes for a kprobe query (fixed
 * upstream after 1.6.4, libtracefs 78d8d2e). */

/* A descriptor of one probe event: uprobe on file at offset, or kprobe on
 * addr ("SYM+OFF", "SYM", "0xADDR"); args as tracefs takes them (NULL: none). */
static struct tracefs_dynevent *dynevent_alloc(bool uprobe, bool ret, const char *group, const char *event,
					       const char *target, uint64_t offset, const char *args)
{
	if (uprobe)
		return ret ? tracefs_uretprobe_alloc(group, event, target, offset, args)
			   : tracefs_uprobe_alloc(group, event, target, offset, args);
	return ret ? tracefs_kretprobe_alloc(group, event, target, args, 0) : tracefs_kprobe_alloc(group, event, target, args);
}

static int destroy_event(struct tracefs_dynevent *d)
{
	errno = 0;
	if (tracefs_dynevent_destroy(d, false) == 0)
		return 0;
	return errno ? -errno : -EIO;
}

/* Remove a probe event found in kprobe_events/uprobe_events. */
static int remove_event(const struct probe_event *e)
{
	struct tracefs_dynevent *d =
		dynevent_alloc(e->uprobe, e->retprobe, e->group, e->event, e->target, e->offset, NULL);
	if (!d)
		return -ENOMEM;
	int ret = destroy_event(d);
	tracefs_dynevent_free(d);
	return ret;
}

/* ---- -d ---- */

int probe_tracefs__del(const char *pattern, char ***names, int *nremoved, char *err, size_t errlen)
{
	struct probe_event *ev = NULL;
	char **v = NULL;
	int n, done = 0, ret = 0;
	sigset_t old;

	*names = NULL;
	*nremoved = 0;
	n = probe_tracefs__list(pattern, &ev);
	if (n < 0) {
		tracefs__strerror(n, err, errlen);
		return n;
	}
	if (n == 0) {
		seterr(err, errlen, "\"%s\" does not match any probe event (pprobe -l lists them)", pattern);
		return -ENOENT;
	}
	v = calloc((size_t)n, sizeof(*v));
	if (!v) {
		probe_events__free(ev, n);
		return -ENOMEM;
	}
	block_signals(&old);
	for (int i = 0; i < n; i++) {
		ret = remove_event(&ev[i]);
		if (ret) {
			seterr(err, errlen, "removing %s:%s: %s%s", ev[i].group, ev[i].event, strerror(-ret),
			       ret == -EBUSY ? " (a tracer has it open: stop it first)" : "");
			break;
		}
		if (asprintf(&v[done], "%s:%s", ev[i].group, ev[i].event) < 0) {
			v[done] = NULL;
			ret = -ENOMEM;
			break;
		}
		done++;
	}
	unblock_signals(&old);
	probe_events__free(ev, n);
	*names = v;
	*nremoved = done;
	return ret ? ret : done;
}

/* ---- kernels without kprobes ---- */

/* needle in hay at a word start (the start, or after '_'): tcp_sendmsg is
 * in tcp_sendmsg_locked but not in mptcp_sendmsg_frag */
static bool has_word(const char *hay, const char *needle)
{
	if (strlen(needle) < 4)
		return false;
	for (const char *p = hay; (p = strstr(p, needle)); p++)
		if (p == hay || p[-1] == '_')
			return true;
	return false;
}

static bool contains_either(const char *a, const char *b)
{
	return has_word(a, b) || has_word(b, a);
}

/* Is tracepoint name the syscall sc's entry or exit? */
static bool syscall_tp(const char *name, const char *sc)
{
	return sc && ((!strncmp(name, "sys_enter_", 10) && !strcmp(name + 10, sc)) ||
		      (!strncmp(name, "sys_exit_", 9) && !strcmp(name + 9, sc)));
}

int probe_tracefs__tracepoints_near(const char *func, char *buf, size_t len)
{
	char **tps = NULL;
	int ntp, found = 0;
	size_t o = 0;

	if (len)
		buf[0] = '\0';
	if (!func || !*func)
		return 0;
	char f[256];
	snprintf(f, sizeof(f), "%s", func);
	f[strcspn(f, ".+%:@")] = '\0';
	/* syscall entry points: __x64_sys_read, __se_sys_read, ksys_read -> sys_enter_read */
	const char *sc = NULL;
	static const char *const pfx[] = { "__x64_sys_", "__ia32_sys_", "__arm64_sys_", "__se_sys_", "__do_sys_",
					   "do_sys_", "ksys_", "sys_" };
	for (size_t i = 0; i < sizeof(pfx) / sizeof(pfx[0]) && !sc; i++)
		if (!strncmp(f, pfx[i], strlen(pfx[i])) && f[strlen(pfx[i])])
			sc = f + strlen(pfx[i]);
	ntp = tracefs__list_events(&tps);
	if (ntp < 0)
		return ntp;
	/* the same name or the syscall's first, then names containing one another */
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < ntp && found < 8; i++) {
			const char *name = strchr(tps[i], ':') + 1;
			bool exact = !strcmp(name, f) || syscall_tp(name, sc);
			if (pass == 0 ? !exact : exact || !contains_either(name, f))
				continue;
			int w = snprintf(buf + o, len - o, "%s%s", found ? ", " : "", tps[i]);
			if (w < 0 || (size_t)w >= len - o) {
				buf[o] = '\0';
				break;
			}
			o += (size_t)w;
			found++;
		}
	}
	tracefs__free_events(tps, ntp);
	return found;
}

int probe_tracefs__kprobes_available(const char *func, char *buf, size_t len)
{
	char path[PATH_MAX];
	if (!tracefs__path(path, sizeof(path), "kprobe_events") && !access(path, F_OK))
		return 1;
	char near[1024];
	bool pmu = !access("/sys/bus/event_source/devices/kprobe", F_OK);
	int n = probe_tracefs__tracepoints_near(func, near, sizeof(near));
	snprintf(buf, len, "this kernel has no kprobes (no kprobe_events in tracefs%s: CONFIG_KPROBE_EVENTS off): "
		 "%s%s cannot be probed; %s%s%s", pmu ? "" : ", no kprobe PMU",
		 func ? "the kernel function " : "kernel functions", func ? func : "",
		 n > 0 ? "tracepoints near " : "tracepoints need no kprobes ('pprobe list' shows them)",
		 n > 0 ? func : "", n > 0 ? ": " : "");
	if (n > 0) {
		size_t o = strlen(buf);
		snprintf(buf + o, len - o, "%s", near);
	}
	return 0;
}

/* Is NAME in the blacklist text ("0xSTART-0xEND\tNAME" lines)? */
static bool blacklisted(const char *bl, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = bl; p && (p = strstr(p, name)); p += n)
		if (p > bl && (p[-1] == '\t' || p[-1] == ' ') && (p[n] == '\n' || !p[n] || p[n] == ' '))
			return true;
	return false;
}

int probe_tracefs__kernel_functions(const char *glob, char ***out)
{
	char *text = tracefs__read_file("available_filter_functions", NULL);
	*out = NULL;
	if (!text)
		return -errno;
	char *bl = NULL;
	FILE *f = fopen("/sys/kernel/debug/kprobes/blacklist", "re");
	if (f) {
		size_t cap = 0;
		ssize_t r = getdelim(&bl, &cap, 0, f);
		if (r < 0) {
			free(bl);
			bl = NULL;
		}
		fclose(f);
	}
	char **v = NULL;
	int nr = 0, cap = 0;
	for (char *line = text, *next; *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		else
			next = line + strlen(line);
		line[strcspn(line, " \t")] = 0;	/* "func [module]" */
		if (!*line || fnmatch(glob, line, 0) || (bl && blacklisted(bl, line)))
			continue;
		if (nr == cap) {
			cap = cap ? cap * 2 : 64;
			v = pp_xrealloc(v, (size_t)cap * sizeof(*v));
		}
		v[nr++] = pp_xstrdup(line);
	}
	free(text);
	free(bl);
	*out = v;
	return strv__sort_unique(v, nr);
}

/* ---- argument names ---- */

/* "NAME=..." given? */
static bool arg_named(const char *a)
{
	if (!isalpha((unsigned char)*a) && *a != '_')
		return false;
	while (isalnum((unsigned char)*a) || *a == '_')
		a++;
	return *a == '=' && a[1] != '=';
}

/* perf's name for an unnamed argument with members: the last member
 * (req->path -> path, req->ver.minor -> minor). 0 when there is none. */
static size_t last_member(const char *a, const char **m)
{
	size_t n = 0, end = strcspn(a, ":");
	*m = NULL;
	for (size_t i = 0; i < end; i++) {
		size_t s = a[i] == '-' && a[i + 1] == '>' ? i + 2 : a[i] == '.' ? i + 1 : 0;
		if (!s || (!isalpha((unsigned char)a[s]) && a[s] != '_'))
			continue;
		size_t k = 0;
		while (s + k < end && (isalnum((unsigned char)a[s + k]) || a[s + k] == '_'))
			k++;
		*m = a + s;
		n = k;
	}
	return n;
}

static bool arg_name_used(const struct pf_fetch_arg *a, int n, int self, const char *name)
{
	static const char *const reserved[] = { "common_type", "common_flags", "common_preempt_count",
						"common_pid", "__probe_ip", "__probe_ret_ip", "__probe_func" };
	for (size_t i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++)
		if (!strcmp(name, reserved[i]))
			return true;
	for (int i = 0; i < n; i++)
		if (i != self && !strcmp(a[i].name, name))
			return true;
	return false;
}

/* Event fields named as perf names them: probe_finder__fetch_args() calls
 * req->path "req_path" (unique by construction); perf probe, and so pprobe's
 * probe events, call it "path" (then path_1... on a clash). Only when each
 * arg gave one fetch-arg ($params/$vars expand). */
static void perf_arg_names(char *const *args, int nargs, struct pf_fetch_arg *a, int n)
{
	if (n != nargs)
		return;
	for (int i = 0; i < n; i++) {
		const char *m;
		size_t ml = arg_named(args[i]) ? 0 : last_member(args[i], &m);
		if (!ml || ml > 60)
			continue;
		char base[64], name[80];
		snprintf(base, sizeof(base), "%.*s", (int)ml, m);
		snprintf(name, sizeof(name), "%s", base);
		for (int k = 1; arg_name_used(a, n, i, name) && k < 1000; k++)
			snprintf(name, sizeof(name), "%s_%d", base, k);
		char *dup = strdup(name);
		if (!dup)
			continue;
		free(a[i].name);
		a[i].name = dup;
	}
}

/* ---- temporary probes, anchors ---- */

/* Temporary probes of this process: what removes each. */
static struct {
	pid_t pid;
	bool registered;
	struct tracefs_dynevent **ev;
	int n;
} temps;

static void temps_add(struct tracefs_dynevent *d)
{
	struct tracefs_dynevent **v = realloc(temps.ev, (size_t)(temps.n + 1) * sizeof(*v));
	if (!v)
		return;		/* the sweep of the next run removes it */
	temps.ev = v;
	temps.ev[temps.n++] = d;
}

static void temps_forget(const struct tracefs_dynevent *d)
{
	for (int i = 0; i < temps.n; i++) {
		if (temps.ev[i] != d)
			continue;
		memmove(&temps.ev[i], &temps.ev[i + 1], (size_t)(temps.n - i - 1) * sizeof(*temps.ev));
		temps.n--;
		return;
	}
}

static pid_t temp_group_pid(const char *group);

/* The guard ends pprobe at once (a second ^C) while its perf events still
 * hold the probes open, so they cannot be removed before it dies: a child
 * that holds nothing of ours (stdio to /dev/null: nobody waits for its
 * output to end) waits for that and removes them, as the kernel lets go. */
static void sweep_after_exit(void *arg)
{
	(void)arg;
	pid_t parent = getpid();
	if (fork() != 0)
		return;
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	for (int fd = 0; fd < 3 && null >= 0; fd++)
		dup2(null, fd);
	closefrom(3);
	for (int i = 0; i < 1000 && getppid() == parent; i++)
		usleep(10000);
	struct probe_event *ev = NULL;
	for (int i = 0, n = probe_tracefs__list(NULL, &ev); i < n; i++)
		for (int t = 0; t < 200 && temp_group_pid(ev[i].group) == parent && remove_event(&ev[i]) == -EBUSY; t++)
			usleep(10000);
	_exit(0);	/* the child's exit, not pprobe's */
}

static void temps_register(void)
{
	if (temps.registered)
		return;
	temps.pid = getpid();
	temps.registered = atexit(probe_tracefs__remove_temps) == 0;
	sigguard__on_exit_now(sweep_after_exit, NULL);
}

/* Anchors (probe_tracefs__anchor): closed before the probes they hold are
 * removed, which the kernel refuses (EBUSY) while an event is open. */
static struct {
	int *fd;
	uint64_t *id;
	int n;
} anchors;

int probe_tracefs__anchor(uint64_t id)
{
	for (int i = 0; i < anchors.n; i++)
		if (anchors.id[i] == id)
			return 0;
	struct perf_event_attr a = { 0 };
	a.type = PERF_TYPE_TRACEPOINT;
	a.size = sizeof(a);
	a.config = id;
	a.disabled = 1;
	a.sample_period = 1;
	int fd = (int)syscall(SYS_perf_event_open, &a, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	int *f = realloc(anchors.fd, (size_t)(anchors.n + 1) * sizeof(*f));
	if (f)
		anchors.fd = f;
	uint64_t *v = f ? realloc(anchors.id, (size_t)(anchors.n + 1) * sizeof(*v)) : NULL;
	if (!v) {
		close(fd);
		return -ENOMEM;
	}
	anchors.id = v;
	anchors.fd[anchors.n] = fd;
	anchors.id[anchors.n++] = id;
	return 0;
}

void probe_tracefs__remove_temps(void)
{
	/* a forked child that calls exit() must not remove its parent's probes */
	if (temps.pid && temps.pid != getpid())
		return;
	sigset_t old;
	block_signals(&old);
	for (int i = 0; i < anchors.n; i++)
		close(anchors.fd[i]);
	free(anchors.fd);
	free(anchors.id);
	anchors.fd = NULL;
	anchors.id = NULL;
	anchors.n = 0;
	for (int i = temps.n - 1; i >= 0; i--) {
		destroy_event(temps.ev[i]);
		tracefs_dynevent_free(temps.ev[i]);
	}
	free(temps.ev);
	temps.ev = NULL;
	temps.n = 0;
	unblock_signals(&old);
}

static bool pid_is_pprobe(pid_t pid)
{
	if (kill(pid, 0) && errno == ESRCH)
		return false;
	char path[64], comm[64] = "";
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	char *ok = fgets(comm, sizeof(comm), f);
	fclose(f);
	if (!ok)
		return false;
	comm[strcspn(comm, "\n")] = '\0';
	return !strncmp(comm, "pprobe", 6);
}

/* "pprobe_<pid>" -> pid, else 0 */
static pid_t temp_group_pid(const char *group)
{
	if (strncmp(group, "pprobe_", 7) || !isdigit((unsigned char)group[7]))
		return 0;
	char *end;
	long pid = strtol(group + 7, &end, 10);
	return *end || pid <= 0 || pid > INT_MAX ? 0 : (pid_t)pid;
}

int probe_tracefs__sweep_stale(void)
{
	struct probe_event *ev = NULL;
	int n = probe_tracefs__list(NULL, &ev), swept = 0, ret = 0;
	if (n < 0)
		return n;
	sigset_t old;
	block_signals(&old);
	for (int i = 0; i < n; i++) {
		pid_t pid = temp_group_pid(ev[i].group);
		if (!pid || pid == getpid() || pid_is_pprobe(pid))
			continue;
		int r = remove_event(&ev[i]);
		if (r)
			ret = r;
		else
			swept++;
	}
	unblock_signals(&old);
	probe_events__free(ev, n);
	return ret && !swept ? ret : swept;
}

/* The kernel's words about the definition of group/event it refused: the
 * last error_log entry, if it is about that command (without its
 * timestamp). what: "uprobe_events" or "kprobe_events", the kind of probe;
 * line: the definition, for the message when error_log has nothing. */
static void explain_refusal(int ret, const char *what, const char *group, const char *event, const char *line,
			    char *err, size_t errlen)
{
	char *entry = tracefs__error_last();
	char ge[EVENT_NAME_MAX * 2 + 8];
	snprintf(ge, sizeof(ge), ":%s/%s ", group, event);
	const char *cmd = entry ? strstr(entry, "Command: ") : NULL;
	if (cmd && !strstr(cmd, ge)) {
		free(entry);
		entry = NULL;
	}
	/* EILSEQ is the kernel's "not at an instruction boundary", which
	 * strerror() words as a multibyte character error. */
	const char *why = -ret == EILSEQ ? "not at an instruction boundary" : strerror(-ret);
	if (entry && cmd) {
		const char *msg = entry[0] == '[' && strchr(entry, ']') ? strchr(entry, ']') + 1 : entry;
		while (*msg == ' ')
			msg++;
		size_t ml = strlen(msg);
		while (ml && msg[ml - 1] == '\n')
			ml--;
		seterr(err, errlen, "the kernel refused the probe (%s: %s):\n%.*s", what, why, (int)ml, msg);
	} else {
		seterr(err, errlen, "the kernel refused the probe '%s' (%s: %s)", line, what, why);
	}
	free(entry);
}

/* Make one probe event, uprobe (target "/PATH:0xOFF", or
 * "/PATH:0xOFF(0xREFCTR)" for a USDT semaphore) or kprobe (target "SYM+OFF",
 * "0xADDR"), args "NAME=FETCH[:TYPE] ..." or NULL. *made: what removes it.
 * 0, or -errno with err filled (the kernel's refusal explained). */
static int make_event(bool uprobe, bool retprobe, const char *group, const char *event, const char *target,
		      const char *args, struct tracefs_dynevent **made, char *err, size_t errlen)
{
	const char *what = uprobe ? "uprobe_events" : "kprobe_events";
	char *path = NULL, *line = NULL, *end = NULL;
	uint64_t off = 0;
	int ret = 0;

	*made = NULL;
	if (asprintf(&line, "%c:%s/%s %s%s%s", retprobe ? 'r' : 'p', group, event, target, args ? " " : "",
		     args ? args : "") < 0)
		return -ENOMEM;
	if (uprobe) {
		const char *c = strrchr(target, ':');
		if (!c || strncmp(c + 1, "0x", 2) || !(path = strndup(target, (size_t)(c - target)))) {
			ret = c ? -ENOMEM : -EINVAL;
			goto out;
		}
		off = strtoull(c + 1, &end, 16);
	}
	struct tracefs_dynevent *d = dynevent_alloc(uprobe, retprobe, group, event, uprobe ? path : target, off, args);
	if (!d) {
		ret = -ENOMEM;
		goto out;
	}
	errno = 0;
	if (uprobe && *end == '(')
		/* by hand: libtracefs 1.6.4 cannot name a uprobe's ref_ctr_offset */
		ret = tracefs__write_file("uprobe_events", line, 1);
	else if (tracefs_dynevent_create(d))
		ret = errno ? -errno : -EIO;
	if (ret) {
		explain_refusal(ret, what, group, event, line, err, errlen);
		tracefs_dynevent_free(d);
	} else {
		*made = d;
	}
out:
	free(path);
	free(line);
	return ret;
}

/* ---- --add ---- */

/* One event of an --add: a point the finder found. */
struct planned {
	char *event;
	char *target;		/* "/PATH:0xOFF" or the kprobe's "SYM+OFF", "0xADDR" */
	char *args;		/* "NAME=FETCH:TYPE ...", NULL: none */
	bool retprobe;
	struct tracefs_dynevent *made;
};

/* The state of one --add, from the definition to the events made. */
struct add {
	const char *binary;	/* NULL: the kernel */
	bool temp;
	bool force;		/* perf probe -f: a taken EVENT name gets _1, _2... */
	struct probe_def d;
	char real[PATH_MAX];	/* binary's real path */
	char group[EVENT_NAME_MAX + 16];
	struct probe_finder *pf;
	struct pf_points *pts;
	char **taken;		/* event names of the group */
	int ntaken;
	struct planned *pl;
	int npl;
};

/* tracefs is there and can take this kind of probe on this target. */
static int add_check_target(struct add *a, char *err, size_t errlen)
{
	int ret;
	if (!tracefs__root()) {
		ret = -errno;
		tracefs__strerror(ret, err, errlen);
		return ret;
	}
	if (!a->binary) {
		char fn[256];
		snprintf(fn, sizeof(fn), "%s", a->d.point);
		fn[strcspn(fn, "@:+%;")] = '\0';
		if (!probe_tracefs__kprobes_available(strncmp(fn, "0x", 2) ? fn : NULL, err, errlen))
			return -EOPNOTSUPP;
		return 0;
	}
	char path[PATH_MAX];
	if (tracefs__path(path, sizeof(path), "uprobe_events") || access(path, F_OK)) {
		seterr(err, errlen, "this kernel has no uprobe_events in tracefs (CONFIG_UPROBE_EVENTS off): "
		       "probes on %s cannot be made", a->binary);
		return -EOPNOTSUPP;
	}
	if (!realpath(a->binary, a->real)) {
		ret = -errno;
		seterr(err, errlen, "%s: %s", a->binary, strerror(-ret));
		return ret;
	}
	if (strpbrk(a->real, " \t\n")) {
		seterr(err, errlen, "%s: uprobe_events cannot name a path with white space in it (use a "
		       "symlink without)", a->real);
		return -EINVAL;
	}
	return 0;
}

static int add_group(struct add *a, char *err, size_t errlen)
{
	int ret;
	if (a->temp)
		snprintf(a->group, sizeof(a->group), "pprobe_%d", (int)getpid());
	else if (a->d.group)
		snprintf(a->group, sizeof(a->group), "%s", a->d.group);
	else if ((ret = probe_tracefs__default_group(a->binary ? a->real : NULL, a->group, sizeof(a->group))))
		return ret;
	if (!probe_tracefs__valid_name(a->group)) {
		seterr(err, errlen, "group name '%s' is too long for tracefs; name one: --add 'GROUP:EVENT=%s'",
		       a->group, a->d.point);
		return -EINVAL;
	}
	return 0;
}

/* The event for point i: its name (unique in the group), target, args. */
static int add_plan_point(struct add *a, int i, char *err, size_t errlen)
{
	const struct pf_point *pt = &a->pts->pts[i];
	struct planned *pl = &a->pl[a->npl];
	char base[EVENT_NAME_MAX * 2], name[EVENT_NAME_MAX];
	struct pf_fetch_arg *args = NULL;
	int nargs = 0, ret;

	if (a->d.event) {
		if (i == 0 && !a->force && name_taken(a->d.event, a->taken, a->ntaken)) {
			seterr(err, errlen, "event %s:%s already exists (pprobe -d %s:%s removes it; -f adds another, "
			       "named with _1, _2...)", a->group,
			       a->d.event, a->group, a->d.event);
			return -EEXIST;
		}
		snprintf(base, sizeof(base), "%s", a->d.event);
	} else {
		probe_tracefs__event_base(a->d.point, pt->function, base, sizeof(base));
	}
	if ((ret = probe_tracefs__unique_name(base, a->taken, a->ntaken, name, sizeof(name)))) {
		seterr(err, errlen, "no free event name for %s in group %s", base, a->group);
		return ret;
	}
	nargs = a->d.nargs ? probe_finder__fetch_args(a->pf, pt, (const char *const *)a->d.args, a->d.nargs, &args)
			   : 0;
	if (nargs < 0) {
		seterr(err, errlen, "%s", probe_finder__strerror(a->pf));
		return nargs;
	}
	perf_arg_names(a->d.args, a->d.nargs, args, nargs);
	char *argstr = NULL;
	size_t al = 0;
	FILE *m = nargs ? open_memstream(&argstr, &al) : NULL;
	for (int k = 0; m && k < nargs; k++)
		fprintf(m, "%s%s=%s%s%s", k ? " " : "", args[k].name, args[k].fetch, args[k].type[0] ? ":" : "",
			args[k].type);
	if (m)
		fclose(m);
	pf_fetch_args__free(args, nargs);
	pl->args = argstr;
	pl->retprobe = pt->retprobe;
	pl->event = strdup(name);
	if (a->binary)
		ret = asprintf(&pl->target, "%s:0x%" PRIx64, a->real, pt->file_offset);
	else if (!strncmp(a->d.point, "0x", 2))
		ret = asprintf(&pl->target, "0x%" PRIx64, pt->addr);
	else
		ret = asprintf(&pl->target, "%s+%" PRIu64, pt->symbol ? pt->symbol : pt->function, pt->sym_offset);
	if (ret < 0)
		pl->target = NULL;
	a->npl++;
	char **nt = realloc(a->taken, (size_t)(a->ntaken + 1) * sizeof(*nt));
	if (nt)
		a->taken = nt;
	if ((nargs && !argstr) || !pl->event || !pl->target || !nt || !(nt[a->ntaken] = strdup(name)))
		return -ENOMEM;
	a->ntaken++;
	return 0;
}

/* Remove the events made (a failure after some were). */
static void add_undo(struct add *a)
{
	sigset_t old;
	block_signals(&old);
	for (int i = a->npl - 1; i >= 0; i--) {
		if (!a->pl[i].made)
			continue;
		destroy_event(a->pl[i].made);
		temps_forget(a->pl[i].made);
		tracefs_dynevent_free(a->pl[i].made);
		a->pl[i].made = NULL;
	}
	unblock_signals(&old);
}

/* Make every planned event, or none: SIGINT/SIGTERM/SIGHUP wait. */
static int add_make(struct add *a, char *err, size_t errlen)
{
	sigset_t old;
	int ret = 0;
	block_signals(&old);
	if (a->temp)
		temps_register();
	for (int i = 0; i < a->npl && !ret; i++) {
		struct planned *pl = &a->pl[i];
		ret = make_event(a->binary != NULL, pl->retprobe, a->group, pl->event, pl->target, pl->args, &pl->made,
				 err, errlen);
		if (!ret && a->temp)
			temps_add(pl->made);
	}
	unblock_signals(&old);
	if (ret)
		add_undo(a);
	return ret;
}

static int add_names(const struct add *a, char ***names)
{
	*names = calloc((size_t)a->npl, sizeof(**names));
	if (!*names)
		return -ENOMEM;
	for (int i = 0; i < a->npl; i++) {
		if (asprintf(&(*names)[i], "%s:%s", a->group, a->pl[i].event) < 0) {
			probe_tracefs__free_names(*names, i);
			*names = NULL;
			return -ENOMEM;
		}
	}
	return a->npl;
}

static void add_exit(struct add *a)
{
	for (int i = 0; a->pl && i < a->npl; i++) {
		free(a->pl[i].event);
		free(a->pl[i].target);
		free(a->pl[i].args);
		/* temporary ones: temps own them; --add ones stay in tracefs */
		if (!a->temp || !a->pl[i].made)
			tracefs_dynevent_free(a->pl[i].made);
	}
	free(a->pl);
	probe_tracefs__free_names(a->taken, a->ntaken);
	pf_points__delete(a->pts);
	probe_finder__delete(a->pf);
	probe_def__exit(&a->d);
}

static int add_common(const char *binary, const char *defstr, bool temp, bool force, char ***names, char *err,
		      size_t errlen)
{
	struct add a = { .binary = binary, .temp = temp, .force = force };
	int ret;

	*names = NULL;
	if ((ret = probe_def__parse(defstr, &a.d, err, errlen)))
		return ret;
	if ((ret = add_check_target(&a, err, errlen)) || (ret = add_group(&a, err, errlen)))
		goto out;
	struct probe_finder_opts o = { .binary = binary ? a.real : NULL };
	a.pf = probe_finder__new(&o, err, errlen);
	if (!a.pf) {
		ret = errno ? -errno : -ENOENT;
		goto out;
	}
	if ((ret = probe_finder__find(a.pf, a.d.point, 0, &a.pts))) {
		seterr(err, errlen, "%s", probe_finder__strerror(a.pf));
		goto out;
	}
	if ((ret = group_names(a.group, &a.taken, &a.ntaken)))
		goto out;
	if (!(a.pl = calloc((size_t)a.pts->n, sizeof(*a.pl)))) {
		ret = -ENOMEM;
		goto out;
	}
	for (int i = 0; i < a.pts->n; i++)
		if ((ret = add_plan_point(&a, i, err, errlen)))
			goto out;
	if ((ret = add_make(&a, err, errlen)))
		goto out;
	if ((ret = add_names(&a, names)) < 0) {
		add_undo(&a);
		goto out;
	}
out:
	add_exit(&a);
	return ret;
}

int probe_tracefs__add(const char *binary, const char *def, char ***names, char *err, size_t errlen)
{
	return add_common(binary, def, false, false, names, err, errlen);
}

int probe_tracefs__add_forced(const char *binary, const char *def, char ***names, char *err, size_t errlen)
{
	return add_common(binary, def, false, true, names, err, errlen);
}

int probe_tracefs__add_temp(const char *binary, const char *def, char ***names, char *err, size_t errlen)
{
	static bool swept;
	if (!swept) {
		swept = true;
		probe_tracefs__sweep_stale();
		/* from now on SIGINT/SIGTERM/SIGHUP wait for the engine's signalfd,
		 * which ends the run through the normal exit path (and atexit) */
		block_signals(NULL);
	}
	return add_common(binary, def, true, false, names, err, errlen);
}

/* Sites already made by probe_tracefs__add_temp_site in this run: the
 * same site asked again (stat -r) is the same event. */
static struct {
	char **key, **name;
	int n;
} sites;

int probe_tracefs__add_temp_site(bool uprobe, bool retprobe, const char *base, const char *target, char *name,
				 size_t namelen, char *err, size_t errlen)
{
	const char *file = uprobe ? "uprobe_events" : "kprobe_events";
	char group[32], ev[EVENT_NAME_MAX], path[PATH_MAX], key[PATH_MAX + 16];
	char **taken = NULL;
	int ntaken = 0, ret;
	sigset_t old;

	snprintf(key, sizeof(key), "%c%c %s", uprobe ? 'u' : 'k', retprobe ? 'r' : 'p', target);
	for (int i = 0; i < sites.n; i++)
		if (!strcmp(sites.key[i], key))
			return (size_t)snprintf(name, namelen, "%s", sites.name[i]) < namelen ? 0 : -ENAMETOOLONG;
	if (!tracefs__root()) {
		ret = -errno;
		tracefs__strerror(ret, err, errlen);
		return ret;
	}
	if (tracefs__path(path, sizeof(path), file) || access(path, F_OK)) {
		seterr(err, errlen, "this kernel has no %s in tracefs (CONFIG_%s_EVENTS off)", file,
		       uprobe ? "UPROBE" : "KPROBE");
		return -EOPNOTSUPP;
	}
	if (access(path, W_OK)) {
		ret = -errno;
		seterr(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	if (strpbrk(target, " \t\n")) {
		seterr(err, errlen, "%s: %s cannot name a path with white space in it (use a symlink without)",
		       target, file);
		return -EINVAL;
	}
	static bool swept;
	if (!swept) {
		swept = true;
		probe_tracefs__sweep_stale();
		block_signals(NULL);	/* as probe_tracefs__add_temp: the engine's signalfd takes them */
	}
	snprintf(group, sizeof(group), "pprobe_%d", (int)getpid());
	if ((ret = group_names(group, &taken, &ntaken)))
		goto out;
	char b[EVENT_NAME_MAX];
	sanitize(b, sizeof(b) - 8, base && *base ? base : "probe", strlen(base && *base ? base : "probe"));
	if (retprobe && (strlen(b) < 8 || strcmp(b + strlen(b) - 8, "__return")))
		strcat(b, "__return");
	if ((ret = probe_tracefs__unique_name(b, taken, ntaken, ev, sizeof(ev)))) {
		seterr(err, errlen, "no free event name for %s in group %s", b, group);
		goto out;
	}
	struct tracefs_dynevent *made;
	block_signals(&old);
	temps_register();
	ret = make_event(uprobe, retprobe, group, ev, target, NULL, &made, err, errlen);
	if (!ret)
		temps_add(made);
	unblock_signals(&old);
	if (ret)
		goto out;
	if ((size_t)snprintf(name, namelen, "%s:%s", group, ev) >= namelen) {
		ret = -ENAMETOOLONG;
		goto out;
	}
	char **k = realloc(sites.key, (size_t)(sites.n + 1) * sizeof(*k));
	if (k)
		sites.key = k;
	char **nm = k ? realloc(sites.name, (size_t)(sites.n + 1) * sizeof(*nm)) : NULL;
	if (nm) {
		sites.name = nm;
		sites.key[sites.n] = strdup(key);
		sites.name[sites.n] = strdup(name);
		if (sites.key[sites.n] && sites.name[sites.n])
			sites.n++;
	}
out:
	probe_tracefs__free_names(taken, ntaken);
	return ret;
}

/* ---- -l's description ---- */

/* File offset -> link-time address through the PT_LOAD headers. */
static int offset_to_vaddr(const char *path, uint64_t off, uint64_t *vaddr)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = -ENOENT;
	if (fd < 0)
		return -errno;
	Elf64_Ehdr eh;
	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr)) {
		ret = -ENOEXEC;
		goto out;
	}
	for (int i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;
		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + (uint64_t)i * sizeof(ph))) != (ssize_t)sizeof(ph))
			break;
		if (ph.p_type == PT_LOAD && off >= ph.p_offset && off < ph.p_offset + ph.p_filesz) {
			*vaddr = off - ph.p_offset + ph.p_vaddr;
			ret = 0;
			break;
		}
	}
out:
	close(fd);
	return ret;
}

/* "handle", "handle:2", "handle+4", "handle%return", with "@FILE" when DWARF
 * knows it; NULL when nothing there is known. */
static char *describe_point(struct probe_finder *pf, uint64_t vaddr, bool retprobe)
{
	char spec[64];
	struct pf_points *pts = NULL;
	snprintf(spec, sizeof(spec), "0x%" PRIx64, vaddr);
	if (probe_finder__find(pf, spec, 0, &pts) || !pts->n) {
		pf_points__delete(pts);
		return NULL;
	}
	const struct pf_point *p = &pts->pts[0];
	const char *fn = p->function && strcmp(p->function, "?") ? p->function : p->symbol;
	char *out = NULL, *file = NULL;
	if (!fn) {
		pf_points__delete(pts);
		return NULL;
	}
	struct line_listing *l = NULL;
	int decl = -1;
	if (probe_finder__has_dwarf(pf) && !probe_finder__lines(pf, fn, false, &l)) {
		decl = l->offset;
		file = l->file ? strdup(l->file) : NULL;
	}
	char where[64] = "";
	if (retprobe) {
		snprintf(where, sizeof(where), "%%return");
	} else if (!p->inlined && p->sym_offset == 0) {
		where[0] = '\0';
	} else {
		bool by_line = false;
		if (decl >= 0 && p->line >= decl) {
			char ls[600];
			struct pf_points *lp = NULL;
			snprintf(ls, sizeof(ls), "%s:%d", fn, p->line - decl);
			if (!probe_finder__find(pf, ls, 0, &lp))
				for (int i = 0; i < lp->n && !by_line; i++)
					by_line = lp->pts[i].addr == vaddr;
			pf_points__delete(lp);
		}
		if (by_line)
			snprintf(where, sizeof(where), ":%d", p->line - decl);
		else if (p->symbol && strcmp(p->symbol, fn)) {
			fn = p->symbol;
			snprintf(where, sizeof(where), "+%" PRIu64, p->sym_offset);
		} else {
			snprintf(where, sizeof(where), "+%" PRIu64, p->sym_offset);
		}
	}
	if (asprintf(&out, "%s%s%s%s", fn, where, file ? "@" : "", file ? file : "") < 0)
		out = NULL;
	free(file);
	line_listing__delete(l);
	pf_points__delete(pts);
	return out;
}

/* The argument names of a tracefs args string: "path=+0(..):string len=.." -> "path len". */
static char *arg_names(const char *args)
{
	char *out = NULL;
	size_t ol = 0;
	FILE *m = open_memstream(&out, &ol);
	if (!m)
		return NULL;
	int k = 0;
	for (const char *p = args; *p;) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		size_t n = strcspn(p, " ");
		const char *eq = memchr(p, '=', n);
		fprintf(m, "%s%.*s", k++ ? " " : "", (int)(eq ? eq - p : (ptrdiff_t)n), p);
		p += n;
	}
	fclose(m);
	return out;
}

char *probe_event__describe(const struct probe_event *e, struct probe_finder **pfcache)
{
	char *point = NULL, *out = NULL;
	if (e->uprobe) {
		uint64_t vaddr = 0;
		struct probe_finder *pf = *pfcache;
		if (pf && strcmp(probe_finder__path(pf), e->target)) {
			probe_finder__delete(pf);
			pf = *pfcache = NULL;
		}
		if (!pf) {
			struct probe_finder_opts o = { .binary = e->target };
			pf = *pfcache = probe_finder__new(&o, NULL, 0);
		}
		if (pf && !offset_to_vaddr(e->target, e->offset, &vaddr))
			point = describe_point(pf, vaddr, e->retprobe);
		if (!point && asprintf(&point, "0x%" PRIx64, e->offset) < 0)
			point = NULL;
	} else {
		if (asprintf(&point, "%s%s", e->target, e->retprobe ? "%return" : "") < 0)
			point = NULL;
	}
	if (!point)
		return NULL;
	char *names = e->args[0] ? arg_names(e->args) : NULL;
	if (asprintf(&out, "on %s%s%s%s%s", point, e->uprobe ? " in " : "", e->uprobe ? e->target : "",
		     names ? " with " : "", names ? names : "") < 0)
		out = NULL;
	free(names);
	free(point);
	return out;
}
