/* Ephemeral uprobes, kprobes and USDT probes through the perf PMUs. See
 * probe_spec.h for the forms. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"
#include "probe_spec.h"
#include "pmu.h"
#include "probe_tracefs.h"
#include "tracefs.h"
#include "pprobe/probe_finder.h"
#include "pprobe/usdt.h"

static const char *const groups[] = { "probe", "kprobe", "kretprobe", "uprobe", "uretprobe", "sdt", "usdt" };

bool probe_spec__is_group(const char *group)
{
	for (size_t i = 0; i < sizeof(groups) / sizeof(groups[0]); i++)
		if (!strcmp(group, groups[i]))
			return true;
	return false;
}

void probe_spec__exit(struct probe_spec *ps)
{
	if (!ps)
		return;
	free(ps->binary);
	free(ps->where);
	free(ps->provider);
	free(ps->name);
	free(ps->args);
	memset(ps, 0, sizeof(*ps));
}

static char *dup_range(const char *s, size_t n)
{
	char *d = strndup(s, n);
	if (!d)
		abort();	/* as pp_xmalloc: out of memory is not an error to explain */
	return d;
}

/* Strip a trailing "%return" from where; true if there was one. */
static bool strip_return(char *where)
{
	size_t n = strlen(where), r = strlen("%return");
	if (n >= r && !strcmp(where + n - r, "%return")) {
		where[n - r] = 0;
		return true;
	}
	return false;
}

int probe_spec__parse(const char *group, const char *rest, const char *exec, struct probe_spec *ps, char *err,
		      size_t errlen)
{
	memset(ps, 0, sizeof(*ps));
	while (isspace((unsigned char)*rest))
		rest++;
	size_t n = strcspn(rest, " \t\n");
	const char *a = rest + n;
	while (isspace((unsigned char)*a))
		a++;
	if (*a) {
		ps->args = strdup(a);
		size_t al = strlen(ps->args);
		while (al && isspace((unsigned char)ps->args[al - 1]))
			ps->args[--al] = 0;
	}
	char *spec = dup_range(rest, n);
	int ret = -EINVAL;

	if (!*spec) {
		seterr(err, errlen, "'%s:': the probe point is missing", group);
		goto err;
	}
	if (!strncmp(group, "sdt_", 4) && group[4] && exec) {
		/* sdt_PROVIDER:NAME, as pprobe list -x names them, in the -x binary */
		ps->target = PROBE_TARGET_SDT;
		ps->binary = strdup(exec);
		ps->provider = strdup(group + 4);
		ps->name = spec;
		return 0;
	}
	if (!strcmp(group, "sdt") || !strcmp(group, "usdt")) {
		/* BIN:PROVIDER:NAME; BIN may contain ':' */
		char *c2 = strrchr(spec, ':');
		char *c1 = NULL;
		if (c2) {
			*c2 = 0;
			c1 = strrchr(spec, ':');
			*c2 = ':';
		}
		if (!c1 || c1 == spec || c2 == c1 + 1 || !c2[1]) {
			seterr(err, errlen, "'%s:%s': a USDT probe is written %s:BINARY:PROVIDER:NAME "
			       "(pprobe list -x BINARY shows them)", group, spec, group);
			goto err;
		}
		ps->target = PROBE_TARGET_SDT;
		ps->binary = dup_range(spec, (size_t)(c1 - spec));
		ps->provider = dup_range(c1 + 1, (size_t)(c2 - c1 - 1));
		ps->name = strdup(c2 + 1);
		free(spec);
		return 0;
	}
	const char *where = spec;
	if (!strcmp(group, "uprobe") || !strcmp(group, "uretprobe")) {
		char *c = strchr(spec, ':');
		if (!c || c == spec || !c[1]) {
			seterr(err, errlen, "'%s:%s': a uprobe is written %s:BINARY:FUNC[+OFF], "
			       "%s:BINARY:FUNC:LINE or %s:BINARY:0xADDR", group, spec, group, group, group);
			goto err;
		}
		ps->target = PROBE_TARGET_UPROBE;
		ps->binary = dup_range(spec, (size_t)(c - spec));
		ps->ret = !strcmp(group, "uretprobe");
		where = c + 1;
	} else if (!strcmp(group, "probe") && exec) {
		ps->target = PROBE_TARGET_UPROBE;
		ps->binary = strdup(exec);
	} else if (!strcmp(group, "probe") || !strcmp(group, "kprobe") || !strcmp(group, "kretprobe")) {
		ps->target = PROBE_TARGET_KPROBE;
		ps->ret = !strcmp(group, "kretprobe");
	} else {
		seterr(err, errlen, "'%s:%s': not a probe group", group, spec);
		goto err;
	}
	ps->where = strdup(where);
	if (strip_return(ps->where))
		ps->ret = true;
	if (!*ps->where) {
		seterr(err, errlen, "'%s:%s': the function is missing", group, spec);
		goto err;
	}
	/* FUNC[+OFF], FUNC:LINE, 0xADDR: check the shape here, the rest when resolving */
	const char *w = ps->where;
	if (!strncmp(w, "0x", 2) || !strncmp(w, "0X", 2)) {
		char *end;
		errno = 0;
		strtoull(w, &end, 16);
		if (end == w + 2 || *end || errno) {
			seterr(err, errlen, "'%s:%s': '%s' is not a hexadecimal address", group, spec, w);
			goto err;
		}
		if (ps->ret) {
			seterr(err, errlen, "'%s:%s': a return probe needs a function, not an address", group, spec);
			goto err;
		}
	} else {
		size_t fl = strcspn(w, "+:");
		if (!fl) {
			seterr(err, errlen, "'%s:%s': the function is missing", group, spec);
			goto err;
		}
		if (w[fl]) {
			char *end;
			errno = 0;
			unsigned long long v = strtoull(w + fl + 1, &end, 0);
			if (end == w + fl + 1 || *end || errno || (w[fl] == ':' && (v == 0 || v > INT_MAX))) {
				seterr(err, errlen, "'%s:%s': '%s' is not %s", group, spec, w + fl + 1,
				       w[fl] == '+' ? "an offset (FUNC+OFF, e.g. func+0x10)"
						    : "a line number (FUNC:LINE, lines counted from the function's first line)");
				goto err;
			}
			if (ps->ret) {
				seterr(err, errlen, "'%s:%s': a return probe is on the function itself, without %s",
				       group, spec, w[fl] == '+' ? "an offset" : "a line");
				goto err;
			}
		}
	}
	free(spec);
	return 0;
err:
	free(spec);
	probe_spec__exit(ps);
	return ret;
}

/* ---- binaries ---- */

static bool is_file(const char *p)
{
	struct stat st;
	return !stat(p, &st) && S_ISREG(st.st_mode);
}

/* A regular file starting with the ELF magic (libc.so is a linker script). */
static bool is_elf(const char *p)
{
	unsigned char m[4];
	FILE *f = is_file(p) ? fopen(p, "re") : NULL;
	bool ok = f && fread(m, 1, 4, f) == 4 && !memcmp(m, "\177ELF", 4);
	if (f)
		fclose(f);
	return ok;
}

static int to_abs(const char *p, char *path, size_t len)
{
	char buf[PATH_MAX];
	if (!realpath(p, buf) || !is_file(buf))
		return -ENOENT;
	if ((size_t)snprintf(path, len, "%s", buf) >= len)
		return -ENAMETOOLONG;
	return 0;
}

/* The directories ld.so searches: /etc/ld.so.conf.d/ (*.conf lines), then
 * the standard ones. */
static int lib_dirs(char ***out)
{
	char **v = NULL;
	int n = 0;
	glob_t g;
	if (!glob("/etc/ld.so.conf.d/*.conf", 0, NULL, &g)) {
		for (size_t i = 0; i < g.gl_pathc; i++) {
			FILE *f = fopen(g.gl_pathv[i], "re");
			char line[PATH_MAX];
			while (f && fgets(line, sizeof(line), f)) {
				line[strcspn(line, "#\n")] = 0;
				char *s = line;
				while (isspace((unsigned char)*s))
					s++;
				size_t l = strlen(s);
				while (l && isspace((unsigned char)s[l - 1]))
					s[--l] = 0;
				if (*s != '/')
					continue;
				char **nv = realloc(v, (size_t)(n + 1) * sizeof(*v));
				if (!nv)
					break;
				v = nv;
				v[n++] = strdup(s);
			}
			if (f)
				fclose(f);
		}
		globfree(&g);
	}
	static const char *const std[] = { "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64",
					   "/usr/lib64", "/lib", "/usr/lib", "/usr/local/lib" };
	for (size_t i = 0; i < sizeof(std) / sizeof(std[0]); i++) {
		char **nv = realloc(v, (size_t)(n + 1) * sizeof(*v));
		if (!nv)
			break;
		v = nv;
		v[n++] = strdup(std[i]);
	}
	*out = v;
	return n;
}

int probe_spec__find_binary(const char *name, const char *pids, char *path, size_t len)
{
	char buf[PATH_MAX], out_path_tmp[PATH_MAX];
	int ret = -ENOENT;

	if (!*name)
		return -ENOENT;
	if (strchr(name, '/') || is_file(name))
		return to_abs(name, path, len);
	/* a library (or the program) of a -p process: "libc.so.6", "libc" */
	for (const char *p = pids; p && *p && ret;) {
		long pid = strtol(p, NULL, 10);
		char maps[64], line[PATH_MAX + 256];
		snprintf(maps, sizeof(maps), "/proc/%ld/maps", pid);
		FILE *f = pid > 0 ? fopen(maps, "re") : NULL;
		size_t nl = strlen(name);
		while (f && ret && fgets(line, sizeof(line), f)) {
			char *path = strchr(line, '/');
			if (!path)
				continue;
			path[strcspn(path, "\n")] = 0;
			const char *bn = strrchr(path, '/') + 1;
			if (strcmp(bn, name) && !(!strncmp(bn, name, nl) && !strncmp(bn + nl, ".so", 3)))
				continue;
			if (is_elf(path))
				ret = to_abs(path, out_path_tmp, sizeof(out_path_tmp));
			else {	/* another mount namespace: through the process's root */
				snprintf(buf, sizeof(buf), "/proc/%ld/root%s", pid, path);
				if (is_elf(buf))
					ret = (size_t)snprintf(out_path_tmp, sizeof(out_path_tmp), "%s", buf) <
					      sizeof(out_path_tmp) ? 0 : -ENAMETOOLONG;
			}
		}
		if (f)
			fclose(f);
		p = strchr(p, ',');
		p = p ? p + 1 : NULL;
	}
	if (!ret)
		return (size_t)snprintf(path, len, "%s", out_path_tmp) < len ? 0 : -ENAMETOOLONG;
	char **dirs;
	int nd = lib_dirs(&dirs);
	for (int i = 0; i < nd && ret; i++) {
		if (!dirs[i])
			continue;
		snprintf(buf, sizeof(buf), "%s/%s", dirs[i], name);
		if (is_elf(buf)) {
			ret = to_abs(buf, path, len);
			break;
		}
		/* "libc" -> libc.so (when not a linker script), libc.so.6 */
		glob_t g;
		snprintf(buf, sizeof(buf), "%s/%s.so", dirs[i], name);
		if (is_elf(buf)) {
			ret = to_abs(buf, path, len);
			break;
		}
		snprintf(buf, sizeof(buf), "%s/%s.so.*", dirs[i], name);
		if (!glob(buf, 0, NULL, &g)) {
			for (size_t k = 0; k < g.gl_pathc && ret; k++)
				if (is_elf(g.gl_pathv[k]))
					ret = to_abs(g.gl_pathv[k], path, len);
			globfree(&g);
		}
	}
	for (int i = 0; i < nd; i++)
		free(dirs[i]);
	free(dirs);
	if (!ret)
		return 0;
	const char *pathenv = getenv("PATH");
	char *pe = strdup(pathenv ? pathenv : "/usr/local/bin:/usr/bin:/bin");
	char *save = NULL;
	for (char *d = pe ? strtok_r(pe, ":", &save) : NULL; d && ret; d = strtok_r(NULL, ":", &save)) {
		snprintf(buf, sizeof(buf), "%s/%s", *d ? d : ".", name);
		if (is_file(buf) && !access(buf, X_OK))
			ret = to_abs(buf, path, len);
	}
	free(pe);
	return ret;
}

/* ---- attrs ---- */

int probe_spec__pmu_attr(struct perf_event_attr *attr, const struct pmu *pmu, const char *str,
			 uint64_t offset, uint64_t ref_ctr_offset, bool ret, char *err, size_t errlen)
{
	attr->type = pmu->type;
	attr->size = sizeof(*attr);
	attr->config = 0;
	attr->config1 = (uint64_t)(uintptr_t)str;
	attr->config2 = offset;
	if (ret) {
		const struct pmu_format *f = pmu__format(pmu, "retprobe");
		if (!f || pmu_format__encode(f, 1, attr)) {
			seterr(err, errlen, "the %s PMU has no 'retprobe' format (%s/bus/event_source/devices/%s/format/): "
			       "this kernel cannot make return probes through perf", pmu->name, pmu__sysfs_root(), pmu->name);
			return -EOPNOTSUPP;
		}
	}
	if (ref_ctr_offset) {
		const struct pmu_format *f = pmu__format(pmu, "ref_ctr_offset");
		if (!f) {
			seterr(err, errlen, "the %s PMU has no 'ref_ctr_offset' format: this kernel (before 4.20) cannot "
			       "set USDT semaphores", pmu->name);
			return -EOPNOTSUPP;
		}
		if (pmu_format__encode(f, ref_ctr_offset, attr)) {
			seterr(err, errlen, "semaphore offset 0x%" PRIx64 " does not fit the %u bits of ref_ctr_offset",
			       ref_ctr_offset, f->width);
			return -ERANGE;
		}
	}
	return 0;
}

/* ---- kernels without kprobes ---- */

int probe_spec__matching_tracepoints(const char *func, char *out, size_t len)
{
	/* one list for -e and --add (probe_tracefs.c): the same name, the
	 * syscall's sys_enter_/sys_exit_, then names containing one another at a
	 * word start (tcp_sendmsg -> tcp:tcp_sendmsg_locked, not mptcp_sendmsg_frag) */
	int n = probe_tracefs__tracepoints_near(func, out, len);
	return n < 0 ? 0 : n;
}

static int no_kprobes(const char *group, const char *rest, const char *func, char *err, size_t errlen)
{
	char tps[1024];
	if (!strncmp(func, "0x", 2) || !strncmp(func, "0X", 2)) {
		seterr(err, errlen, "'%s:%s': this kernel has no kprobes (no kprobe PMU in %s/bus/event_source/devices; "
		       "CONFIG_KPROBES is off): kernel code cannot be probed; tracepoints ('pprobe list') can be "
		       "traced", group, rest, pmu__sysfs_root());
		return -EOPNOTSUPP;
	}
	int n = probe_spec__matching_tracepoints(func, tps, sizeof(tps));
	seterr(err, errlen, "'%s:%s': this kernel has no kprobes (no kprobe PMU in %s/bus/event_source/devices; "
	       "CONFIG_KPROBES is off): kernel functions cannot be probed%s%s%s",
	       group, rest, pmu__sysfs_root(), n ? "; tracepoints that match '" : "; no tracepoint matches '",
	       func, n ? "': " : "' ('pprobe list' shows the tracepoints)");
	if (n) {
		size_t o = strlen(err);
		snprintf(err + o, errlen > o ? errlen - o : 0, "%s", tps);
	}
	return -EOPNOTSUPP;
}

/* ---- resolution ---- */

/* A new spec at the end of l, named NAME, with the PMU attr. */
static struct event_spec *add_site(struct event_list *l, const char *name, const struct pmu *pmu, char *str,
				   uint64_t offset, uint64_t ref_ctr, bool ret, int first, char *err, size_t errlen,
				   int *rc)
{
	struct event_spec *s = event_list__append(l);
	if (!s) {
		free(str);
		seterr(err, errlen, "out of memory");
		*rc = -ENOMEM;
		return NULL;
	}
	s->kind = EVENT_KIND_PROBE;
	snprintf(s->name, sizeof(s->name), "%s", name);
	snprintf(s->pmu, sizeof(s->pmu), "%s", pmu->name);
	s->probe_str = str;
	s->probe_ret = ret;
	s->probe_offset = offset;
	s->probe_ref_ctr = ref_ctr;
	s->sample_freq_default = false;
	s->same_as = first >= 0 ? first + 1 : 0;
	*rc = probe_spec__pmu_attr(&s->attr, pmu, str, offset, ref_ctr, ret, err, errlen);
	return *rc ? NULL : s;
}

static void drop_from(struct event_list *l, size_t before)
{
	for (size_t i = before; i < l->nr; i++) {
		free(l->v[i].probe_str);
		l->v[i].probe_str = NULL;
	}
	l->nr = before;
}

static struct pmu *load_pmu(const char *name)
{
	return pmu__load(name);
}

/* The function part of "FUNC+OFF" / "FUNC:LINE". */
static void func_of(const char *where, char *buf, size_t len)
{
	snprintf(buf, len, "%.*s", (int)strcspn(where, "+:"), where);
}

static int add_uprobe(struct event_list *l, const char *display, const struct probe_spec *ps, char *err,
		      size_t errlen)
{
	char path[PATH_MAX], pferr[1024], spec[600];
	struct probe_finder *pf = NULL;
	struct pf_points *pts = NULL;
	struct pmu *pmu = NULL;
	size_t before = l->nr;
	int ret;

	ret = probe_spec__find_binary(ps->binary, l->ctx.pids, path, sizeof(path));
	if (ret) {
		seterr(err, errlen, "'%s': no such binary '%s' (give a path, or a library or program name "
		       "found in the library directories or PATH)", display, ps->binary);
		return -ENOENT;
	}
	pmu = load_pmu("uprobe");
	if (!pmu) {
		seterr(err, errlen, "'%s': this kernel has no uprobe PMU (%s/bus/event_source/devices/uprobe; "
		       "CONFIG_UPROBE_EVENTS is off)", display, pmu__sysfs_root());
		return -ENOENT;
	}
	struct probe_finder_opts o = { .binary = path };
	pf = probe_finder__new(&o, pferr, sizeof(pferr));
	if (!pf) {
		ret = errno ? -errno : -ENOENT;
		seterr(err, errlen, "'%s': cannot read %s: %s", display, path, pferr);
		goto out;
	}
	snprintf(spec, sizeof(spec), "%s%s", ps->where, ps->ret ? "%return" : "");
	ret = probe_finder__find(pf, spec, 0, &pts);
	if (ret) {
		seterr(err, errlen, "'%s': %s", display, probe_finder__strerror(pf));
		goto out;
	}
	if (!pts->n) {
		seterr(err, errlen, "'%s': no probe point for %s in %s", display, spec, path);
		ret = -ENOENT;
		goto out;
	}
	/* One event per address (several lines' rows may share one). */
	int first = -1;
	for (int i = 0; i < pts->n; i++) {
		bool dup = false;
		for (int k = 0; k < i; k++)
			dup |= pts->pts[k].file_offset == pts->pts[i].file_offset;
		if (dup)
			continue;
		char *str = strdup(path);
		if (!str) {
			ret = -ENOMEM;
			goto out;
		}
		struct event_spec *s = add_site(l, display, pmu, str, pts->pts[i].file_offset, 0, ps->ret, first, err,
						errlen, &ret);
		if (!s)
			goto out;
		if (first < 0)
			first = (int)(s - l->v);
		probe_tracefs__event_base(ps->where, pts->pts[i].function, s->probe_base, sizeof(s->probe_base));
	}
	ret = 0;
out:
	if (ret)
		drop_from(l, before);
	pf_points__delete(pts);
	probe_finder__delete(pf);
	pmu__free(pmu);
	return ret;
}

static int add_sdt(struct event_list *l, const char *display, const struct probe_spec *ps, char *err, size_t errlen)
{
	char path[PATH_MAX];
	struct usdt_probe *probes = NULL;
	struct pmu *pmu = NULL;
	size_t before = l->nr;
	int n, ret;

	if (probe_spec__find_binary(ps->binary, l->ctx.pids, path, sizeof(path))) {
		seterr(err, errlen, "'%s': no such binary '%s' (give a path, or a library or program name "
		       "found in the library directories or PATH)", display, ps->binary);
		return -ENOENT;
	}
	n = usdt__read(path, &probes);
	if (n < 0) {
		seterr(err, errlen, "'%s': cannot read the USDT notes of %s: %s", display, path, strerror(-n));
		return n;
	}
	int first = -1, matched = 0;
	for (int i = 0; i < n; i++)
		matched += !strcmp(probes[i].provider, ps->provider) && !strcmp(probes[i].name, ps->name);
	if (!matched) {
		/* what there is: the same name or provider first */
		char list[1024] = "";
		size_t o = 0;
		int shown = 0;
		for (int pass = 0; pass < 2; pass++)
			for (int i = 0; i < n && o < sizeof(list); i++) {
				bool close = !strcmp(probes[i].name, ps->name) || !strcmp(probes[i].provider, ps->provider);
				if (close != (pass == 0))
					continue;
				char key[300];
				snprintf(key, sizeof(key), "%s:%s", probes[i].provider, probes[i].name);
				if (strstr(list, key) || shown >= 10)
					continue;
				o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%s", shown ? ", " : "", key);
				shown++;
			}
		if (n)
			seterr(err, errlen, "'%s': %s has no USDT probe %s:%s; it has: %s%s", display, path,
			       ps->provider, ps->name, list, shown >= 10 ? ", ... (pprobe list -x shows all)" : "");
		else
			seterr(err, errlen, "'%s': %s has no USDT probes (no .note.stapsdt section)", display, path);
		ret = -ENOENT;
		goto out;
	}
	pmu = load_pmu("uprobe");
	if (!pmu) {
		seterr(err, errlen, "'%s': this kernel has no uprobe PMU (%s/bus/event_source/devices/uprobe; "
		       "CONFIG_UPROBE_EVENTS is off)", display, pmu__sysfs_root());
		ret = -ENOENT;
		goto out;
	}
	for (int i = 0; i < n; i++) {
		if (strcmp(probes[i].provider, ps->provider) || strcmp(probes[i].name, ps->name))
			continue;
		char *str = strdup(path);
		if (!str) {
			ret = -ENOMEM;
			goto out;
		}
		struct event_spec *s = add_site(l, display, pmu, str, probes[i].pc_offset, probes[i].semaphore_offset,
						false, first, err, errlen, &ret);
		if (!s)
			goto out;
		probe_tracefs__event_base(ps->name, NULL, s->probe_base, sizeof(s->probe_base));
		if (first < 0)
			first = (int)(s - l->v);
	}
	ret = 0;
out:
	if (ret)
		drop_from(l, before);
	usdt__free(probes, n);
	pmu__free(pmu);
	return ret;
}

static int add_kprobe(struct event_list *l, const char *display, const char *group, const char *rest,
		      const struct probe_spec *ps, char *err, size_t errlen)
{
	char func[256];
	struct pmu *pmu = NULL;
	struct probe_finder *pf = NULL;
	struct pf_points *pts = NULL;
	size_t before = l->nr;
	int ret;
	bool addr = !strncmp(ps->where, "0x", 2) || !strncmp(ps->where, "0X", 2);

	func_of(ps->where, func, sizeof(func));
	pmu = load_pmu("kprobe");
	if (!pmu)
		return no_kprobes(group, rest, addr ? ps->where : func, err, errlen);

	if (addr) {
		uint64_t a = strtoull(ps->where, NULL, 16);
		if (!add_site(l, display, pmu, NULL, a, 0, false, -1, err, errlen, &ret))
			goto out;
		ret = 0;
		goto out;
	}
	const char *colon = strchr(ps->where, ':');
	struct probe_finder_opts o = { 0 };
	char pferr[512];
	pf = probe_finder__new(&o, pferr, sizeof(pferr));
	if (colon) {
		/* FUNC:LINE needs the kernel's DWARF; each address as SYMBOL+OFF (KASLR-proof) */
		if (!pf) {
			seterr(err, errlen, "'%s': %s", display, pferr);
			ret = -ENOENT;
			goto out;
		}
		ret = probe_finder__find(pf, ps->where, 0, &pts);
		if (ret) {
			seterr(err, errlen, "'%s': %s", display, probe_finder__strerror(pf));
			goto out;
		}
		int first = -1;
		for (int i = 0; i < pts->n; i++) {
			if (!pts->pts[i].symbol) {
				seterr(err, errlen, "'%s': 0x%" PRIx64 " is in no kernel symbol", display, pts->pts[i].addr);
				ret = -ENOENT;
				goto out;
			}
			char *str = strdup(pts->pts[i].symbol);
			if (!str) {
				ret = -ENOMEM;
				goto out;
			}
			struct event_spec *s = add_site(l, display, pmu, str, pts->pts[i].sym_offset, 0, false, first,
							err, errlen, &ret);
			if (!s)
				goto out;
			if (first < 0)
				first = (int)(s - l->v);
		}
		ret = 0;
		goto out;
	}
	/* FUNC[+OFF]: the kernel checks the offset itself. An unknown function
	 * is said here with the close names (kallsyms); a function the compiler
	 * cloned (foo.isra.0, several foo.constprop.0) gets one probe per copy,
	 * by its symbol name, or by address where the name is not unique. */
	uint64_t off = 0;
	const char *plus = strchr(ps->where, '+');
	if (plus)
		off = strtoull(plus + 1, NULL, 0);
	if (pf) {
		ret = probe_finder__find(pf, func, PF_NO_INLINES, &pts);
		if (ret == -ENOENT) {
			seterr(err, errlen, "'%s': %s", display, probe_finder__strerror(pf));
			goto out;
		}
		if (ret)
			pts = NULL;	/* unknown: the kernel will say */
	}
	bool runtime_addrs = pf && !probe_finder__has_dwarf(pf);	/* kallsyms: this boot's addresses */
	bool by_name_done = false;
	int first = -1;
	for (int i = 0; pts && i < pts->n; i++) {
		const struct pf_point *pt = &pts->pts[i];
		bool dup = false;
		for (int k = 0; k < pts->n; k++)
			dup |= k != i && pt->symbol && pts->pts[k].symbol && !strcmp(pt->symbol, pts->pts[k].symbol);
		char *str = NULL;
		uint64_t at;
		if (pt->symbol && !dup) {
			str = strdup(pt->symbol);
			at = pt->sym_offset + off;
		} else if (dup && runtime_addrs && pt->addr) {
			at = pt->addr + off;	/* config1 NULL: config2 is the address */
		} else {
			if (by_name_done)
				continue;	/* the kernel resolves the name itself, once */
			by_name_done = true;
			str = strdup(func);
			at = off;
		}
		if (!str && !(dup && runtime_addrs && pt->addr)) {
			ret = -ENOMEM;
			goto out;
		}
		struct event_spec *s = add_site(l, display, pmu, str, at, 0, ps->ret, first, err, errlen, &ret);
		if (!s)
			goto out;
		if (first < 0)
			first = (int)(s - l->v);
	}
	if (first < 0) {
		char *str = strdup(func);
		if (!str) {
			ret = -ENOMEM;
			goto out;
		}
		if (!add_site(l, display, pmu, str, off, 0, ps->ret, -1, err, errlen, &ret))
			goto out;
	}
	ret = 0;
out:
	if (ret)
		drop_from(l, before);
	pf_points__delete(pts);
	probe_finder__delete(pf);
	pmu__free(pmu);
	return ret;
}

/* A probe with arguments: a temporary tracefs probe for this run
 * (probe_tracefs.c: group pprobe_<pid>, removed at exit), used like a
 * tracepoint; several sites are counted and shown as one (same_as). */
static int add_temp(struct event_list *l, const char *display, const struct probe_spec *ps, char *err,
		    size_t errlen)
{
	char path[PATH_MAX], terr[4096] = "", *def = NULL, **names = NULL;
	const char *bin = NULL;
	size_t before = l->nr;
	int n, ret = 0;

	if (ps->target == PROBE_TARGET_SDT) {
		seterr(err, errlen, "'%s': USDT probes take no arguments here (their operands are described in "
		       ".note.stapsdt; probe the function with uprobe:BINARY:FUNC ARG... instead)", display);
		return -EOPNOTSUPP;
	}
	if (ps->target == PROBE_TARGET_UPROBE) {
		if (probe_spec__find_binary(ps->binary, l->ctx.pids, path, sizeof(path))) {
			seterr(err, errlen, "'%s': no such binary '%s' (give a path, or a library or program name "
			       "found in the library directories or PATH)", display, ps->binary);
			return -ENOENT;
		}
		bin = path;
	}
	if (asprintf(&def, "%s%s %s", ps->where, ps->ret ? "%return" : "", ps->args) < 0)
		return -ENOMEM;
	n = probe_tracefs__add_temp(bin, def, &names, terr, sizeof(terr));
	free(def);
	if (n < 0) {
		seterr(err, errlen, "'%s': %s", display, terr[0] ? terr : strerror(-n));
		return n;
	}
	for (int i = 0; i < n; i++) {
		char *colon = strchr(names[i], ':');
		*colon = '\0';
		int id = tracefs__event_id(names[i], colon + 1);
		struct event_spec *s = id > 0 ? event_list__append(l) : NULL;
		if (!s) {
			seterr(err, errlen, "'%s': the probe event %s:%s made for it: %s", display, names[i], colon + 1,
			       strerror(id < 0 ? -id : ENOMEM));
			ret = id < 0 ? id : -ENOMEM;
			break;
		}
		s->kind = EVENT_KIND_PROBE;
		snprintf(s->name, sizeof(s->name), "%s", display);
		s->attr.type = PERF_TYPE_TRACEPOINT;
		s->attr.config = (uint64_t)id;
		s->sample_freq_default = false;
		s->same_as = i ? (int)before + 1 : 0;
		snprintf(s->tp_sys, sizeof(s->tp_sys), "%s", names[i]);
		snprintf(s->tp_name, sizeof(s->tp_name), "%s", colon + 1);
	}
	probe_tracefs__free_names(names, n);
	if (ret)
		drop_from(l, before);
	return ret;
}

int probe_spec__add(struct event_list *l, const char *group, const char *rest, char *err, size_t errlen)
{
	struct probe_spec ps;
	char display[sizeof(((struct event_spec *)0)->name)];
	size_t before = l->nr;
	int ret = probe_spec__parse(group, rest, l->ctx.exec, &ps, err, errlen);
	if (ret)
		return ret;
	/* The name: as spelled, without the arguments */
	snprintf(display, sizeof(display), "%s:%.*s", group, (int)strcspn(rest, " \t\n"), rest);
	if (ps.args) {
		ret = add_temp(l, display, &ps, err, errlen);
		probe_spec__exit(&ps);
		return ret ? ret : (int)(l->nr - before);
	}
	switch (ps.target) {
	case PROBE_TARGET_UPROBE:
		ret = add_uprobe(l, display, &ps, err, errlen);
		break;
	case PROBE_TARGET_SDT:
		ret = add_sdt(l, display, &ps, err, errlen);
		break;
	case PROBE_TARGET_KPROBE:
		ret = add_kprobe(l, display, group, rest, &ps, err, errlen);
		break;
	}
	probe_spec__exit(&ps);
	return ret ? ret : (int)(l->nr - before);
}

/* ---- following new tasks ---- */

/* The perf type of the uprobe (i 0) and kprobe (i 1) PMUs; UINT32_MAX none. */
static uint32_t pmu_type(int i)
{
	static uint32_t type[2];
	static bool known[2];
	if (!known[i]) {
		struct pmu *p = pmu__load(i ? "kprobe" : "uprobe");
		type[i] = p ? p->type : UINT32_MAX;
		pmu__free(p);
		known[i] = true;
	}
	return type[i];
}

bool probe_spec__is_pmu_probe_attr(const struct perf_event_attr *attr)
{
	return attr->type >= PERF_TYPE_MAX && (attr->type == pmu_type(0) || attr->type == pmu_type(1));
}

int probe_spec__follow_tasks(const struct event_spec *s, struct perf_event_attr *attr, char *err, size_t errlen)
{
	if (s->kind != EVENT_KIND_PROBE)
		return 0;
	if (attr->type == PERF_TYPE_TRACEPOINT) {
		/* a tracefs probe already (arguments, perf probe's): keep its
		 * breakpoints in the new processes (probe_tracefs__anchor) */
		(void)probe_tracefs__anchor(attr->config);
		return 0;
	}
	if (!s->pmu[0] || !probe_spec__is_pmu_probe_attr(attr))
		return 0;
	bool uprobe = !strcmp(s->pmu, "uprobe");
	char target[PATH_MAX + 64], base[64], name[160], terr[2048] = "";
	if (uprobe) {
		int n = snprintf(target, sizeof(target), "%s:0x%" PRIx64, s->probe_str ? s->probe_str : "",
				 s->probe_offset);
		if (s->probe_ref_ctr && n > 0 && (size_t)n < sizeof(target))
			snprintf(target + n, sizeof(target) - (size_t)n, "(0x%" PRIx64 ")", s->probe_ref_ctr);
	} else if (s->probe_str) {
		snprintf(target, sizeof(target), "%s+%" PRIu64, s->probe_str, s->probe_offset);
	} else {
		snprintf(target, sizeof(target), "0x%" PRIx64, s->probe_offset);
	}
	if (s->probe_base[0])
		snprintf(base, sizeof(base), "%s", s->probe_base);
	else if (s->probe_str)
		probe_tracefs__event_base(s->probe_str, NULL, base, sizeof(base));
	else
		snprintf(base, sizeof(base), "abs_%" PRIx64, s->probe_offset);
	int ret = probe_tracefs__add_temp_site(uprobe, s->probe_ret, base, target, name, sizeof(name), terr,
					       sizeof(terr));
	if (ret == -EACCES || ret == -EPERM || ret == -EROFS || ret == -ENOENT || ret == -ENODEV ||
	    ret == -EOPNOTSUPP) {
		seterr(err, errlen, "'%s' on a command or -p process is made a temporary tracefs probe (the kernel "
		       "cannot pass %s PMU events on to new processes and threads), and tracefs cannot take it: %s; "
		       "-a, -C and -t TID need no temporary probe",
		       s->name, s->pmu, terr[0] ? terr : strerror(-ret));
	} else if (ret) {
		seterr(err, errlen, "'%s' (a temporary tracefs probe on a command or -p process): %s%s", s->name,
		       terr[0] ? terr : strerror(-ret),
		       uprobe && ret == -EINVAL ? " (another probe at this address with a USDT semaphore?)" : "");
	}
	if (ret) {
		for (char *p = err; p && *p; p++)	/* one line */
			if (*p == '\n')
				*p = ' ';
		return ret;
	}
	char *colon = strchr(name, ':');
	*colon = '\0';
	int id = tracefs__event_id(name, colon + 1);
	if (id <= 0) {
		seterr(err, errlen, "%s: the temporary probe %s:%s made for it: %s", s->name, name, colon + 1,
		       strerror(id < 0 ? -id : ENOENT));
		return id < 0 ? id : -ENOENT;
	}
	attr->type = PERF_TYPE_TRACEPOINT;
	attr->config = (uint64_t)id;
	attr->config1 = 0;
	attr->config2 = 0;
	if (uprobe)
		(void)probe_tracefs__anchor((uint64_t)id);
	return 1;
}

/* ---- trace output ---- */

int probe_spec__raw_addrs(const struct event_spec *s, const void *raw, size_t size, uint64_t addrs[2])
{
	/* struct trace_entry: u16 type, u8 flags, u8 preempt_count, s32 pid */
	const size_t hdr = 8;
	int n = s->probe_ret ? 2 : 1;
	if (!raw || size < hdr + (size_t)n * sizeof(uint64_t))
		return -EINVAL;
	/* kprobe: ip; kretprobe: func, ret_ip; uprobe: vaddr[0] = ip;
	 * uretprobe: vaddr[0] = func, vaddr[1] = ret_ip */
	memcpy(addrs, (const char *)raw + hdr, (size_t)n * sizeof(uint64_t));
	return n;
}

int probe_spec__format_raw(const struct event_spec *s, const void *raw, size_t size, char *buf, size_t len)
{
	uint64_t v[2];
	int n = probe_spec__raw_addrs(s, raw, size, v);
	if (n < 0)
		return n;
	if (n == 1)
		return snprintf(buf, len, "(0x%" PRIx64 ")", v[0]);
	/* as the kernel prints them: where it returns to <- the function */
	return snprintf(buf, len, "(0x%" PRIx64 " <- 0x%" PRIx64 ")", v[1], v[0]);
}
