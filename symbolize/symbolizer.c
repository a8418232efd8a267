/* symbolize.h: user and kernel addresses -> frames.
 * ELF objects come from the one object cache (pprobe/objcache.h), which an
 * unwinder may share: keyed by mapped path and file identity (struct
 * file_id: the build id, else device and inode), each file opened once by
 * mapped_file__open: /proc/PID/root (mount namespaces), then
 * /proc/PID/map_files (deleted or replaced files), then the path itself,
 * each checked against the mapping's build id or inode. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jitdump.h"
#include "pprobe/objcache.h"
#include "pprobe/safe_open.h"
#include "sym_internal.h"

/* What the symbolizer knows of a process: its JIT map and jitdump, and
 * what finding and trusting them needs, read while the process lives (its
 * first prepared mapping, else when a map is first wanted). */
struct jit_map {
	pid_t pid;
	bool tried;		/* the map was looked for */
	bool loaded;
	bool dump_tried;	/* the jitdump was looked for */
	bool dump_loaded;
	bool proc_read;		/* uids, nspid, root_fd were read */
	bool maps_scanned;	/* /proc/PID/maps was looked through for a jitdump */
	int nr_uids;
	uid_t uids[2];		/* real and effective */
	pid_t nspid;		/* the pid it sees itself as (NSpid's last field) */
	int root_fd;		/* /proc/PID/root, held when nspid != pid; else -1 */
	char *dump_path;	/* a jit-*.dump the process mapped (its path), or NULL */
	const char *dso;	/* "perf-PID.map" */
	const char *dump_dso;	/* "jit-PID.dump" */
	struct symtab syms;	/* the perf map's */
	struct symtab dump;	/* the jitdump's */
};

struct symbolizer {
	struct symbolizer_opts opts;
	struct objcache *cache;	/* the ELF files (shared with an unwinder, maybe) */
	struct ksyms *kallsyms;	/* made at the first kernel address */
	struct jit_map *jits;
	size_t njits, cap_jits;
	/* pid -> index + 1 in jits, open addressing (a power of two, at most
	 * half full): a system-wide run's processes are thousands an hour,
	 * and each mapping asks for its process's entry */
	uint32_t *jit_slots;
	size_t nr_jit_slots;
	struct strpool strings;
};

void symbolizer_opts__init(struct symbolizer_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->inlines = true;
	opts->demangle = true;
}

struct symbolizer *symbolizer__new_cached(const struct symbolizer_opts *opts, struct objcache *cache)
{
	struct symbolizer *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	if (opts)
		s->opts = *opts;
	else
		symbolizer_opts__init(&s->opts);
	s->cache = cache ? objcache__get(cache) : objcache__new();
	if (!s->cache) {
		free(s);
		return NULL;
	}
	objcache__add_symbolizer(s->cache);
	return s;
}

struct symbolizer *symbolizer__new(const struct symbolizer_opts *opts)
{
	return symbolizer__new_cached(opts, NULL);
}

void symbolizer__delete(struct symbolizer *s)
{
	if (!s)
		return;
	objcache__put(s->cache);
	ksyms__delete(s->kallsyms);
	for (size_t i = 0; i < s->njits; i++) {
		symtab__free(&s->jits[i].syms);
		symtab__free(&s->jits[i].dump);
		free(s->jits[i].dump_path);
		if (s->jits[i].root_fd >= 0)
			close(s->jits[i].root_fd);
	}
	free(s->jits);
	free(s->jit_slots);
	strpool__free(&s->strings);
	free(s);
}

static const char *pool(struct symbolizer *s, const char *str)
{
	return strpool__add(&s->strings, str, strlen(str));
}

/* The object of mapping m, from the one cache (pprobe/objcache.h): a file
 * that is not there, or not the mapped one, gives an object that is not
 * loaded (every lookup unknown; a wrong file says build_id_mismatch).
 * live: the process is alive (its mapping is being prepared), so a file
 * another process could not give is looked for again through it. NULL
 * only on ENOMEM. */
static struct elf_object *object_for(struct symbolizer *s, pid_t pid, const struct map *m, bool live)
{
	struct objcache_entry *e = objcache__entry(s->cache, pid, m, true, live);

	return e ? objcache__object(s->cache, e, m) : NULL;
}

void symbolizer__keep(struct symbolizer *s, pid_t pid, const struct map *m)
{
	if (s)
		objcache__keep(s->cache, pid, m);
}

size_t symbolizer__sweep(struct symbolizer *s)
{
	return s ? objcache__sweep(s->cache) : 0;
}

static size_t pid_slot(pid_t pid, size_t nr_slots)
{
	return (size_t)(((uint64_t)(uint32_t)pid * 0x9e3779b97f4a7c15ull) >> 32) & (nr_slots - 1);
}

/* The slot table at twice the entries' count or more (false: ENOMEM). */
static bool jit_slots_room(struct symbolizer *s)
{
	if ((s->njits + 1) * 2 <= s->nr_jit_slots)
		return true;
	size_t n = s->nr_jit_slots ? s->nr_jit_slots * 2 : 64;
	uint32_t *v = calloc(n, sizeof(*v));
	if (!v)
		return false;
	for (size_t i = 0; i < s->njits; i++) {
		size_t k = pid_slot(s->jits[i].pid, n);
		while (v[k])
			k = (k + 1) & (n - 1);
		v[k] = (uint32_t)(i + 1);
	}
	free(s->jit_slots);
	s->jit_slots = v;
	s->nr_jit_slots = n;
	return true;
}

/* The entry of pid (made when missing), or NULL on ENOMEM. */
static struct jit_map *proc_entry(struct symbolizer *s, pid_t pid)
{
	struct jit_map *j;
	size_t k = 0;

	if (s->nr_jit_slots) {
		for (k = pid_slot(pid, s->nr_jit_slots); s->jit_slots[k]; k = (k + 1) & (s->nr_jit_slots - 1))
			if (s->jits[s->jit_slots[k] - 1].pid == pid)
				return &s->jits[s->jit_slots[k] - 1];
	}
	if (s->njits >= UINT32_MAX - 1 || !jit_slots_room(s))
		return NULL;
	if (s->njits == s->cap_jits) {
		size_t cap = s->cap_jits ? s->cap_jits * 2 : 16;
		struct jit_map *v = realloc(s->jits, cap * sizeof(*v));
		if (!v)
			return NULL;
		s->jits = v;
		s->cap_jits = cap;
	}
	for (k = pid_slot(pid, s->nr_jit_slots); s->jit_slots[k]; k = (k + 1) & (s->nr_jit_slots - 1))
		;
	s->jit_slots[k] = (uint32_t)(s->njits + 1);
	j = &s->jits[s->njits++];
	memset(j, 0, sizeof(*j));
	j->pid = pid;
	j->root_fd = -1;
	return j;
}

/* A jitdump the process mapped (the runtime maps it so that perf inject
 * --jit finds it through the MMAP record): the newest one wins. */
static void note_dump(struct jit_map *j, const char *path)
{
	char *p;

	if (j->dump_path && !strcmp(j->dump_path, path))
		return;
	p = strdup(path);
	if (!p)
		return;
	free(j->dump_path);
	j->dump_path = p;
}

/* A jit-*.dump among the mappings of a process that was there before us (-p). */
static void scan_maps_for_dump(struct jit_map *j)
{
	struct maps *maps = maps__new();

	if (maps && maps__load_proc(maps, j->pid) == 0)
		for (size_t i = 0; i < maps__count(maps); i++) {
			const struct map *m = maps__at(maps, i);

			if (m->path && jitdump__is_name(m->path))
				note_dump(j, m->path);
		}
	maps__delete(maps);
}

/* Uid: and NSpid: of /proc/PID/status, and /proc/PID/root when the process
 * sees itself under another pid (a container, or a pid namespace alone that
 * shares our mount namespace: its files are under that root, held open so
 * that they stay reachable after it exits). One read(2) into a buffer
 * (stdio's line by line sscanf was a third of the cost). */
static void proc_read(struct jit_map *j)
{
	char fn[64], buf[4096];
	ssize_t n;
	int fd;

	if (j->proc_read)
		return;
	snprintf(fn, sizeof(fn), "/proc/%d/status", (int)j->pid);
	fd = open(fn, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = 0;
	j->proc_read = true;
	j->nspid = j->pid;
	for (char *line = buf; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		if (!strncmp(line, "Uid:", 4)) {
			char *end;
			unsigned long ruid = strtoul(line + 4, &end, 10);
			unsigned long euid = strtoul(end, &end, 10);

			if (end != line + 4 && ruid <= UINT32_MAX && euid <= UINT32_MAX) {
				j->uids[0] = (uid_t)ruid;
				j->uids[1] = (uid_t)euid;
				j->nr_uids = 2;
			}
		} else if (!strncmp(line, "NSpid:", 6)) {
			size_t len = strcspn(line, "\n");
			char *last = memrchr(line, '\t', len);
			long v = last ? strtol(last + 1, NULL, 10) : 0;

			if (v > 0)
				j->nspid = (pid_t)v;
		}
	}
	if (j->nspid != j->pid) {
		snprintf(fn, sizeof(fn), "/proc/%d/root", (int)j->pid);
		j->root_fd = open(fn, O_PATH | O_DIRECTORY | O_CLOEXEC);
	}
}

/* A jitdump among pid's mappings, looked for once: for a process whose
 * mappings were read from /proc, not reported (there before us, or one
 * that inherited the mapping from its parent); a mapping reported while
 * the run watched is noted by symbolizer__prepare. */
static void scan_once(struct jit_map *j)
{
	if (j->maps_scanned || j->dump_path)
		return;
	j->maps_scanned = true;
	scan_maps_for_dump(j);
}

void symbolizer__note_process(struct symbolizer *s, pid_t pid)
{
	struct jit_map *j = s && pid > 0 ? proc_entry(s, pid) : NULL;

	if (!j)
		return;
	proc_read(j);
	scan_once(j);
}

/* Caps on a JIT map: a JIT that runs for days appends forever, and the file
 * is the program's to make as big as it likes (a sparse one costs it
 * nothing). It is read in pieces, and the caps are on what was read: lines
 * past them are left out and said, as is a line longer than JIT_MAX_LINE
 * (a name of 64 KiB). (A jitdump's cap is in jitdump.h.) */
#define JIT_MAX_LINES 1000000
#define JIT_MAX_BYTES (64ULL << 20)
#define JIT_MAX_LINE (64 << 10)

/* The rules of a file the process controls: owned by its real or effective
 * user, by ours, or by root; never a link, a FIFO, a device. */
static void jit_rules(const struct jit_map *j, struct safe_open_rules *r)
{
	memset(r, 0, sizeof(*r));
	r->nofollow = true;
	r->root_fd = -1;
	r->owners[r->nr_owners++] = 0;
	r->owners[r->nr_owners++] = geteuid();
	for (int i = 0; i < j->nr_uids; i++)
		r->owners[r->nr_owners++] = j->uids[i];
}

/* A file of j's named by fmt (with a pid: "/tmp/perf-%d.map"), opened with
 * jit_rules: in its root under the pid it sees itself as first, for a
 * process in another pid namespace (as perf: a container's
 * /proc/PID/root/tmp/perf-NSPID.map, and also the host's /tmp for a pid
 * namespace without a mount namespace of its own), then under its pid in
 * ours. Returns the fd (its name in fn) or -errno; -EPERM: refused (said). */
static int jit_open(struct jit_map *j, const char *fmt, char *fn, size_t fnlen)
{
	struct safe_open_rules r;
	int fd = -ENOENT;

	jit_rules(j, &r);
	if (j->root_fd >= 0 && j->nspid != j->pid) {
		char in_root[64];

		snprintf(in_root, sizeof(in_root), fmt, (int)j->nspid);
		snprintf(fn, fnlen, "/proc/%d/root%s", (int)j->pid, in_root);
		r.root_fd = j->root_fd;
		r.name = fn;
		fd = safe_open(in_root, &r, NULL);
		if (fd == -EPERM)
			return fd;
		r.root_fd = -1;
		r.name = NULL;
	}
	if (fd < 0) {
		snprintf(fn, fnlen, fmt, (int)j->pid);
		fd = safe_open(fn, &r, NULL);
	}
	return fd;
}

/* One line of a JIT map, NUL-terminated: "START SIZE name". 0, or -ENOMEM. */
static int jit_line(struct symtab *t, const char *line)
{
	uint64_t start, size;
	const char *p = pp_scan_hex(line, &start);

	/* by hand: sscanf was most of the time of reading a map */
	if (!p || !(p = pp_scan_hex(p, &size)) || (*p != ' ' && *p != '\t'))
		return 0;
	while (*p == ' ' || *p == '\t')
		p++;
	return symtab__add(t, start, size, 0, p, strlen(p), 0) ? -ENOMEM : 0;
}

int jitmap__read(struct symtab *t, int fd, char *why, size_t whylen)
{
	char *buf = malloc(JIT_MAX_LINE + 1);
	size_t have = 0, lines = 0, long_line = 0;
	uint64_t bytes = 0;
	bool skipping = false;	/* in a line longer than the cap: up to its end */
	int err = 0;

	if (whylen)
		why[0] = '\0';
	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t n = read(fd, buf + have, JIT_MAX_LINE - have);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {	/* the end (or an error): a last line without its newline */
			buf[have] = '\0';
			if (have && !skipping && lines < JIT_MAX_LINES)
				err = jit_line(t, buf);
			break;
		}
		bytes += (uint64_t)n;
		have += (size_t)n;
		size_t off = 0;
		char *nl;
		while ((nl = memchr(buf + off, '\n', have - off))) {
			*nl = '\0';
			if (++lines > JIT_MAX_LINES) {
				snprintf(why, whylen, "past line %zu (the caps: %d lines, %llu MiB)", lines - 1,
					 JIT_MAX_LINES, JIT_MAX_BYTES >> 20);
				goto out;
			}
			if (skipping)
				skipping = false;
			else if ((err = jit_line(t, buf + off)))
				goto out;
			off = (size_t)(nl - buf) + 1;
		}
		memmove(buf, buf + off, have - off);
		have -= off;
		if (have == JIT_MAX_LINE) {	/* no newline in a whole piece */
			if (!skipping && !long_line)
				long_line = lines + 1;
			skipping = true;
			have = 0;
		}
		if (bytes > JIT_MAX_BYTES) {
			snprintf(why, whylen, "past line %zu (the caps: %d lines, %llu MiB)", lines,
				 JIT_MAX_LINES, JIT_MAX_BYTES >> 20);
			break;
		}
	}
out:
	if (whylen && !why[0] && long_line)
		snprintf(why, whylen, "line %zu, longer than %d KiB, left out", long_line, JIT_MAX_LINE >> 10);
	free(buf);
	return err;
}

/* /tmp/perf-PID.map: "START SIZE name" per line, hex, written by JITs. */
static struct jit_map *jit_for(struct symbolizer *s, pid_t pid)
{
	struct jit_map *j = proc_entry(s, pid);
	char fn[PATH_MAX];
	int fd;

	if (!j || j->tried)
		return j && j->loaded ? j : NULL;
	j->tried = true;
	proc_read(j);
	fd = jit_open(j, "/tmp/perf-%d.map", fn, sizeof(fn));
	if (fd < 0)
		return NULL;
	char why[128];
	jitmap__read(&j->syms, fd, why, sizeof(why));
	close(fd);
	if (why[0])
		safe_open__note(fn, why);
	j->dso = pool(s, strrchr(fn, '/') + 1);	/* "perf-PID.map" */
	j->loaded = j->dso && symtab__finish(&j->syms) == 0;
	return j->loaded ? j : NULL;
}

/* Where a jitdump's code went: its loads into the table, its moves kept to
 * be named after the read, by the load at their old address. */
struct dump_load {
	struct symtab *t;
	struct jitdump_code *moves;
	size_t nr_moves, cap_moves;
	uint32_t seq;
};

static int dump_code(void *arg, const struct jitdump_code *c)
{
	struct dump_load *d = arg;

	/* code may be freed and its address reused: the later record wins */
	d->seq++;
	if (!c->moved)
		return symtab__add(d->t, c->addr, c->size, 0, c->name, c->namelen, d->seq);
	if (d->nr_moves == d->cap_moves) {
		size_t cap = d->cap_moves ? d->cap_moves * 2 : 64;
		struct jitdump_code *v = realloc(d->moves, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		d->moves = v;
		d->cap_moves = cap;
	}
	d->moves[d->nr_moves] = *c;
	d->moves[d->nr_moves++].index = d->seq;	/* the order it came in */
	return 0;
}

/* The moves of d, each named by the code at its old address. */
static int dump_moves(struct dump_load *d)
{
	for (size_t i = 0; i < d->nr_moves; i++) {
		const struct jitdump_code *c = &d->moves[i];
		const struct symtab_entry *e = symtab__find(d->t, c->old_addr);

		if (e && e->start == c->old_addr) {
			const char *name = e->name;

			if (symtab__add(d->t, c->addr, c->size, 0, name, strlen(name), (uint32_t)c->index))
				return -ENOMEM;
		}
	}
	return d->nr_moves ? symtab__finish(d->t) : 0;
}

/* The jitdump's file: the one the process mapped, else /tmp/jit-PID.dump
 * (in its root first, as the perf map). The fd, or -errno. */
static int dump_open(struct jit_map *j, char *fn, size_t fnlen)
{
	struct safe_open_rules r;
	int fd = -ENOENT;

	if (j->dump_path) {
		jit_rules(j, &r);
		if (j->root_fd >= 0) {
			snprintf(fn, fnlen, "/proc/%d/root%s", (int)j->pid, j->dump_path);
			r.root_fd = j->root_fd;
			r.name = fn;
			fd = safe_open(j->dump_path, &r, NULL);
		} else {
			snprintf(fn, fnlen, "/proc/%d/root%s", (int)j->pid, j->dump_path);
			fd = safe_open(fn, &r, NULL);
			if (fd < 0 && fd != -EPERM) {
				snprintf(fn, fnlen, "%s", j->dump_path);
				fd = safe_open(fn, &r, NULL);
			}
		}
		if (fd >= 0 || fd == -EPERM)
			return fd;
	}
	return jit_open(j, "/tmp/jit-%d.dump", fn, fnlen);
}

/* The jitdump of pid (jitdump.h), read once: when its perf map (if any)
 * does not name an address. */
static struct jit_map *dump_for(struct symbolizer *s, pid_t pid)
{
	struct jit_map *j = proc_entry(s, pid);
	struct jitdump_stats st;
	struct dump_load d = { 0 };
	char fn[PATH_MAX + 32], why[128];
	int fd, err;

	if (!j || j->dump_tried)
		return j && j->dump_loaded ? j : NULL;
	j->dump_tried = true;
	proc_read(j);
	scan_once(j);
	fd = dump_open(j, fn, sizeof(fn));
	if (fd < 0)
		return NULL;
	d.t = &j->dump;
	err = jitdump__read(fd, dump_code, &d, &st, why, sizeof(why));
	close(fd);
	if (err == -EINVAL && why[0])
		safe_open__note(fn, why);
	else if (st.capped) {
		snprintf(why, sizeof(why), "past record %d (the cap)", JITDUMP_MAX_RECORDS);
		safe_open__note(fn, why);
	}
	err = symtab__finish(&j->dump);
	if (!err)
		err = dump_moves(&d);
	free(d.moves);
	j->dump_dso = pool(s, strrchr(fn, '/') + 1);	/* "jit-PID.dump" */
	j->dump_loaded = !err && j->dump_dso && j->dump.n;
	return j->dump_loaded ? j : NULL;
}

static const char *pretty_name(struct symbolizer *s, struct symtab_entry *e)
{
	if (!s->opts.demangle)
		return e->name;
	if (!e->pretty) {
		char *d = pprobe_demangle(e->name);

		e->pretty = d ? pool(s, d) : e->name;
		free(d);
		if (!e->pretty)
			e->pretty = e->name;
	}
	return e->pretty;
}

/* A frame named by symbol table entry e: demangled, and as the object spells it. */
static void name_from_symbol(struct symbolizer *s, struct sym_frame *f, const struct symtab_entry *e)
{
	f->name = pretty_name(s, (struct symtab_entry *)e);
	f->system_name = e->name;
}

/* The code at o's vaddr is the x86-64 rt_sigreturn trampoline, "mov
 * $15,%rax; syscall", which the kernel's signal frame returns into (the
 * bytes gdb and libunwind recognize it by). */
static bool is_sigreturn(const struct elf_object *o, uint64_t vaddr)
{
	static const uint8_t code[9] = { 0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05 };
	uint8_t b[sizeof(code)];

	for (size_t i = 0; i < o->nsegs; i++) {
		const struct load_seg *g = &o->segs[i];
		if (vaddr < g->vaddr || vaddr - g->vaddr > g->filesz || g->filesz - (vaddr - g->vaddr) < sizeof(b))
			continue;
		uint64_t off = g->offset + (vaddr - g->vaddr);
		if (o->mem_image) {
			if (off > o->mem_size || o->mem_size - off < sizeof(b))
				return false;
			memcpy(b, (const uint8_t *)o->mem_image + off, sizeof(b));
		} else if (o->elf_fd < 0 || pread(o->elf_fd, b, sizeof(b), (off_t)off) != (ssize_t)sizeof(b)) {
			return false;
		}
		return !memcmp(b, code, sizeof(b));
	}
	return false;
}

int symbolizer__user(struct symbolizer *s, pid_t pid, const struct map *m,
		     uint64_t addr, bool is_return, struct sym_frame *out, int max)
{
	struct elf_object *o = NULL;
	uint64_t a = is_return ? addr - 1 : addr, vaddr, svaddr;
	const struct symtab_entry *e;
	int n = 0;

	if (!s || !m || !m->path || !out || max < 1)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	if (!strcmp(m->path, "[vdso]")) {
		o = objcache__vdso_object(s->cache, m);
		out->dso = "[vdso]";
	} else if (map__is_file(m)) {
		o = object_for(s, pid, m, false);
		if (!o)
			return -ENOMEM;
		out->dso = o->dso;
	} else {
		/* JIT code: the perf map names it, else the jitdump */
		struct jit_map *j = pid > 0 ? jit_for(s, pid) : NULL;
		const char *dso = j ? j->dso : NULL;

		out->dso = pool(s, m->path);	/* "//anon", "[heap]", "[anon:name]" */
		e = j ? symtab__find(&j->syms, a) : NULL;
		if (!e && pid > 0 && (j = dump_for(s, pid))) {
			e = symtab__find(&j->dump, a);
			dso = j->dump_dso;
		}
		if (e) {
			out->dso = dso;
			name_from_symbol(s, out, e);
			out->offset = a - e->start;
			out->jit = true;
		}
		return 1;
	}
	if (o && o->build_id_mismatch) {	/* never name code from the wrong file */
		out->build_id_mismatch = true;
		out->lacks = "the file found is another build than the one mapped";
		return 1;
	}
	if (!o || !o->loaded) {
		out->lacks = "its file could not be read";
		return 1;
	}
	elf_object__debuginfod_late(o);
	if (!elf_object__to_vaddr(o, m, a, &vaddr))
		return 1;
	e = symtab__find(&o->syms, vaddr);
	svaddr = vaddr;	/* where e's offset is counted from */
	if (!e && is_return) {
		/* A signal frame's return address is the first byte of the
		 * trampoline (glibc's __restore_rt, after the nop its CFI
		 * covers): the byte before is in no function. Elsewhere a
		 * return address at a function's start belongs to what
		 * precedes it (a call that does not return). The symbol is
		 * looked for first: the code is read from the file (a pread)
		 * only at a function's start, not at every address of a
		 * stripped file's (2% of record's CPU for a clang compile). */
		const struct symtab_entry *t = symtab__find(&o->syms, vaddr + 1);

		if (t && t->start == vaddr + 1 && is_sigreturn(o, vaddr + 1)) {
			e = t;
			svaddr = vaddr + 1;
		}
	}
	if (e && !symtab__name(&o->syms, e))
		e = NULL;	/* its name could not be read back from the file */
	n = dwarf__frames(o, vaddr, s->opts.inlines, s->opts.srcline, s->opts.demangle, out, max);
	if (n < 0)
		n = 0;
	if (n && out[n - 1].inlined) {
		/* the chain did not reach the physical function (max too small):
		 * the symbol table gives it */
		if (n == max)
			n--;
		memset(&out[n], 0, sizeof(out[n]));
		out[n].dso = o->dso;
		if (e) {
			name_from_symbol(s, &out[n], e);
			out[n].offset = svaddr - e->start;
		}
		/* its line (the outermost inline's call site) is not known here: none */
		n++;
	} else if (n && e) {
		/* physical function: offset from its symbol, which is exact */
		out[n - 1].offset = svaddr - e->start;
		if (!out[n - 1].name)	/* a DIE without a usable name */
			name_from_symbol(s, &out[n - 1], e);
		else if (!out[n - 1].system_name)	/* DW_AT_name alone (C) */
			out[n - 1].system_name = e->name;
		else if (strcmp(out[n - 1].name, out[n - 1].system_name) && !pprobe_mangled(out[n - 1].system_name) &&
			 e->sized && svaddr < e->end && !strpbrk(e->name, ".@") && strcmp(out[n - 1].name, e->name))
			/* a C function whose linkage name is an asm label (glibc's
			 * hidden aliases: __GI___libc_malloc, DWARF's name
			 * __libc_malloc): the name the object exports for it, as
			 * users know it (malloc) and every output says it (the
			 * symbol table's preferred alias). Not a part split off
			 * (_IO_fflush.cold) nor an old version's name
			 * (__libc_clntudp_bufcreate@GLIBC_PRIVATE): DWARF's name
			 * is the function's then. */
			name_from_symbol(s, &out[n - 1], e);
	}
	if (!n) {
		memset(out, 0, sizeof(*out));
		out->dso = o->dso;
		if (e) {
			name_from_symbol(s, out, e);
			out->offset = svaddr - e->start;
		} else {
			out->lacks = elf_object__lacks(o);
		}
		if (s->opts.srcline)
			dwarf__srcline(o, vaddr, &out->srcfile, &out->line);
		n = 1;
	}
	return n;
}

int symbolizer__prepare(struct symbolizer *s, pid_t pid, const struct map *m)
{
	if (!s || !m || !m->path)
		return -EINVAL;
	struct elf_object *o;

	/* A process that maps code of its own making (anonymous, executable:
	 * a JIT) or its jitdump: what finding and trusting its JIT files needs,
	 * read now, while it lives. Not its mappings: they come as this one
	 * did. Not for every process: a system-wide run sees hundreds start
	 * a second, and /proc/PID/status was half of what each cost. */
	bool jit_code = !map__is_file(m) && m->path[0] != '[';	/* not [vdso] */
	bool dump = map__is_file(m) && jitdump__is_name(m->path);

	if (pid > 0 && (jit_code || dump)) {
		struct jit_map *j = proc_entry(s, pid);

		if (j)
			proc_read(j);
		if (j && dump)
			note_dump(j, m->path);	/* not code: where its jitdump is */
	}
	if (!map__is_file(m) || dump)
		return 0;
	o = object_for(s, pid, m, true);
	if (!o)
		return -ENOMEM;
	/* a debuglink file under /proc/PID/root is gone with the process too */
	if (o->loaded && !o->build_id_mismatch)
		dwarf__prepare(o);
	return 0;
}

int symbolizer__kernel(struct symbolizer *s, uint64_t addr, bool is_return,
		       struct sym_frame *out, int max)
{
	struct kallsyms_sym e;
	uint64_t a = is_return ? addr - 1 : addr;

	if (!s || !out || max < 1)
		return -EINVAL;
	if (!s->kallsyms)
		s->kallsyms = ksyms__new_system(getenv("PPROBE_KALLSYMS"));
	memset(out, 0, sizeof(*out));
	out->kernel = true;
	out->dso = "[kernel.kallsyms]";
	if (!s->kallsyms)
		return 1;
	if (ksyms__find(s->kallsyms, a, &e)) {
		out->name = e.name;
		out->dso = e.dso;
		out->offset = a - e.start;
	}
	return 1;
}
