/* /proc/kallsyms: text symbols of the kernel and its modules, sorted, each
 * extending to the next symbol. Module symbols carry "[module]" as dso.
 *
 * Compact, because on a VM every fresh page is a fault the hypervisor
 * serves (~5 us here): 122,000 symbols were 48-byte symtab entries grown
 * by doubling, a cover index and a sort buffer, 80 ms of a load (pprobe's
 * largest fixed cost after the debug files). Now an entry is 16 bytes (its
 * start, its name's offset in one pool, its module), the names one pool
 * grown in place (mremap), the file read in 256 KiB pieces into one
 * buffer: 30 ms, most of it the kernel printing the file. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sym_internal.h"

struct kent {
	uint64_t start;
	uint32_t name;		/* offset in names */
	uint16_t mod;		/* 0: the kernel; else modnames[mod - 1] */
	uint8_t marker;		/* an end marker: an empty range */
	uint8_t pad;		/* 0: an entry is written to the cache whole */
};

/* An array grown in place by mremap: no copy, no page touched twice. */
struct grow {
	void *p;
	size_t used, cap;
};

static void *grow__room(struct grow *g, size_t n)
{
	if (g->used + n > g->cap) {
		size_t cap = g->cap ? g->cap : 1 << 20;
		while (cap < g->used + n)
			cap *= 2;
		void *p = g->p ? mremap(g->p, g->cap, cap, MREMAP_MAYMOVE)
			       : mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return NULL;
		g->p = p;
		g->cap = cap;
	}
	void *r = (char *)g->p + g->used;
	g->used += n;
	return r;
}

static void grow__free(struct grow *g)
{
	if (g->p)
		munmap(g->p, g->cap);
	memset(g, 0, sizeof(*g));
}

struct kallsyms {
	struct grow ents;	/* struct kent, sorted by start once loaded */
	struct grow names;
	size_t n;
	void *map;		/* the cache's mapping (ents and names point into it) */
	size_t map_len;
	bool core;		/* the core kernel only, from the cache: lo..hi */
	uint64_t lo, hi;
	struct strpool modules;
	const char **modnames;	/* interned "[module]" names */
	size_t nmod;
};

/* The module's index + 1 in modnames, 0 on ENOMEM or past 65,535 modules. */
static int module_index(struct kallsyms *k, const char *mod, size_t len)
{
	char buf[256];
	const char **v;

	if (len + 3 > sizeof(buf))
		len = sizeof(buf) - 3;
	snprintf(buf, sizeof(buf), "[%.*s]", (int)len, mod);
	for (size_t i = 0; i < k->nmod; i++)
		if (!strcmp(k->modnames[i], buf))
			return (int)i + 1;
	if (k->nmod >= UINT16_MAX)
		return 0;
	v = realloc(k->modnames, (k->nmod + 1) * sizeof(*v));
	if (!v)
		return 0;
	k->modnames = v;
	v[k->nmod] = strpool__add(&k->modules, buf, strlen(buf));
	return v[k->nmod] ? (int)++k->nmod : 0;
}

/* _etext, _einittext, __entry_text_end, __sched_text_end...: they mark
 * where a text section ends and must not name what follows. (Plain "_end"
 * suffixes are often real functions: tcp_sigpool_end.) */
static bool end_marker(const char *name)
{
	size_t n = strlen(name);

	return !strcmp(name, "_etext") || !strcmp(name, "_einittext") || !strcmp(name, "_end") ||
	       (n > 11 && !strncmp(name, "__", 2) && !strcmp(name + n - 9, "_text_end"));
}

/* One line, "ADDR T NAME[\t[MODULE]]" without its newline, parsed by hand
 * (sscanf was most of the time of a load). */
static int parse_line(char *line, kallsyms_fn *fn, void *arg)
{
	unsigned long long addr = 0;
	char type, *name, *mod, *end, *p = line;
	size_t modlen = 0;

	for (int d; (d = pp_hexdig(*p)) >= 0; p++)
		addr = addr << 4 | (unsigned)d;
	if (p == line || p - line > 16 || *p != ' ' || !p[1] || p[2] != ' ')
		return 0;
	type = p[1];
	name = p + 3;
	while (*name == ' ')
		name++;
	end = name + strcspn(name, " \t");
	mod = NULL;
	if (*end == '\t' || *end == ' ')
		mod = strchr(end, '[');
	*end = 0;
	if (mod)
		modlen = strcspn(++mod, "]");
	return fn(arg, addr, type, name, mod, modlen);
}

#define KALLSYMS_PIECE (256 << 10)

int kallsyms__foreach(const char *path, kallsyms_fn *fn, void *arg)
{
	int fd = open(path ? path : "/proc/kallsyms", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* 5 MB of text read in 256 KiB pieces into one buffer; a line cut
	 * by a piece's end is moved to the front for the next. A line longer
	 * than a piece (none is) is cut there. */
	char *buf = malloc(KALLSYMS_PIECE + 1);
	size_t have = 0;
	int err = buf ? 0 : -ENOMEM;
	bool eof = false;

	while (!err && !eof) {
		ssize_t r = read(fd, buf + have, KALLSYMS_PIECE - have);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		eof = r == 0;
		have += (size_t)r;
		char *p = buf, *stop = buf + have;
		for (;;) {
			char *nl = memchr(p, '\n', (size_t)(stop - p));
			if (!nl) {
				if (eof || (p == buf && have == KALLSYMS_PIECE))
					nl = stop;	/* the last line, or one too long */
				else
					break;
			}
			if (nl == p && nl == stop)
				break;
			*nl = 0;
			err = parse_line(p, fn, arg);
			p = nl + 1;
			if (err || p > stop)
				break;
		}
		if (p > stop)
			p = stop;
		have = (size_t)(stop - p);
		memmove(buf, p, have);
	}
	close(fd);
	free(buf);
	return err;
}

struct load {
	struct kallsyms *k;
	char *last_mod;
	uint16_t last_idx;
	size_t nonzero;
};

static int load_line(void *arg, uint64_t addr, char type, const char *name, const char *mod,
		     size_t ml)
{
	struct load *l = arg;
	struct kallsyms *k = l->k;

	if (addr)
		l->nonzero++;
	/* text symbols only: data must never name a code address */
	if (type != 't' && type != 'T' && type != 'w' && type != 'W')
		return 0;
	uint16_t idx = 0;
	if (mod) {
		if (l->last_mod && !strncmp(l->last_mod, mod, ml) && l->last_mod[ml] == 0) {
			idx = l->last_idx;
		} else {
			int i = module_index(k, mod, ml);
			if (!i)
				return -ENOMEM;
			free(l->last_mod);
			l->last_mod = strndup(mod, ml);
			if (!l->last_mod)
				return -ENOMEM;
			l->last_idx = idx = (uint16_t)i;
		}
	}
	size_t len = strlen(name) + 1;
	struct kent *e = grow__room(&k->ents, sizeof(*e));
	char *nm = k->names.used + len <= UINT32_MAX ? grow__room(&k->names, len) : NULL;
	if (!e || !nm)
		return -ENOMEM;
	memcpy(nm, name, len);
	*e = (struct kent){ addr, (uint32_t)(nm - (char *)k->names.p), idx, end_marker(name), 0 };
	k->n++;
	return 0;
}

static const char *kent_name(const struct kallsyms *k, const struct kent *e)
{
	return (const char *)k->names.p + e->name;
}

/* By start; at one address the preferred first: a symbol before an end
 * marker, then the first name in strcmp order. */
static int kent_cmp(const void *a, const void *b, void *arg)
{
	const struct kent *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->marker != y->marker)
		return x->marker ? 1 : -1;
	return strcmp(kent_name(arg, x), kent_name(arg, y));
}

/* Sorted (input already in address order, all of it on a kernel without
 * modules, is not sorted again: each address's preferred entry is moved
 * first), one entry per address. */
static void sort_dedupe(struct kallsyms *k)
{
	struct kent *v = k->ents.p;
	size_t i, n = 0;

	for (i = 1; i < k->n && v[i - 1].start <= v[i].start; i++)
		;
	if (i < k->n) {
		qsort_r(v, k->n, sizeof(*v), kent_cmp, k);
	} else {
		for (i = 0; i < k->n;) {
			size_t j = i + 1, best = i;
			for (; j < k->n && v[j].start == v[i].start; j++)
				if (kent_cmp(&v[j], &v[best], k) < 0)
					best = j;
			struct kent tmp = v[i];
			v[i] = v[best];
			v[best] = tmp;
			i = j;
		}
	}
	for (i = 0; i < k->n; i++)
		if (!n || v[n - 1].start != v[i].start)
			v[n++] = v[i];
	k->n = n;
}

struct kallsyms *kallsyms__load(const char *path)
{
	struct load l = { .k = calloc(1, sizeof(*l.k)) };
	struct kallsyms *k = l.k;
	int err;

	if (!k)
		return NULL;
	err = kallsyms__foreach(path, load_line, &l);
	if (err)
		goto err;
	if (!l.nonzero) {	/* kptr_restrict hides addresses */
		err = -EPERM;
		goto err;
	}
	sort_dedupe(k);
	free(l.last_mod);
	return k;
err:
	free(l.last_mod);
	kallsyms__delete(k);
	errno = -err;
	return NULL;
}

bool kallsyms__find(const struct kallsyms *k, uint64_t addr, struct kallsyms_sym *out)
{
	const struct kent *v = k->ents.p;
	size_t lo = 0, hi = k->n;

	while (lo < hi) {	/* the first entry starting past addr */
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return false;
	const struct kent *e = &v[lo - 1];
	if (e->marker)		/* past the end of a text section */
		return false;
	/* The last symbol before another object's first (core -> module,
	 * module -> module) would otherwise cover the whole gap between
	 * allocations: at most 64 KiB, more than any kernel function. Past
	 * the last symbol we do not know where the text ends: the rest of its
	 * page (the last one is usually a trampoline page). */
	if (lo == k->n ? addr >= ((e->start | 4095) + 1) : e->mod != e[1].mod && addr - e->start >= 65536)
		return false;
	out->name = kent_name(k, e);
	out->dso = e->mod ? k->modnames[e->mod - 1] : "[kernel.kallsyms]";
	out->start = e->start;
	return true;
}

void kallsyms__delete(struct kallsyms *k)
{
	if (!k)
		return;
	if (k->map) {
		munmap(k->map, k->map_len);
	} else {
		grow__free(&k->ents);
		grow__free(&k->names);
	}
	strpool__free(&k->modules);
	free(k->modnames);
	free(k);
}

/* ---- The core kernel's symbols, kept per boot ----
 *
 * Reading /proc/kallsyms is the kernel printing 120,000+ lines: 0.05-0.09 s
 * of system time, the largest fixed cost of a short -a run. The core
 * kernel's text symbols do not change while the machine is up (modules, BPF
 * programs and ftrace trampolines come and go, and all are listed with a
 * "[module]"), so the first run after a boot writes them to a file on a
 * tmpfs (/run/pprobe: gone at the next boot) and later runs map it: the
 * sorted entries and their names as the table holds them. An address
 * outside the core text still reads /proc/kallsyms whole, once.
 *
 * The file is native-endian and private to the user that wrote it (0600, in
 * a 0700 directory it owns: kernel addresses are not for everyone); its
 * header names the boot (/proc/sys/kernel/random/boot_id). A file that is
 * not exactly what we write is not used, and the next load writes it anew. */

#define KCACHE_MAGIC "PPKSYM1"

struct kcache_hdr {
	char magic[8];
	char key[40];		/* the boot id, NUL-padded */
	uint64_t n;		/* entries after the header */
	uint64_t names_len;	/* bytes of names after the entries, the last a NUL */
};

static void key_copy(char dst[40], const char *key)
{
	memset(dst, 0, 40);
	strncpy(dst, key, 39);
}

struct kallsyms *kallsyms__load_core(const char *file, const char *key)
{
	struct kallsyms *k = NULL;
	struct kcache_hdr h;
	struct stat st;
	void *map = MAP_FAILED;
	int err = -EINVAL;
	int fd = open(file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 077) || (uint64_t)st.st_size < sizeof(h) ||
	    (uint64_t)st.st_size > (1ull << 32))
		goto out;
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		goto out;
	memcpy(&h, map, sizeof(h));
	char want[40];
	key_copy(want, key);
	uint64_t room = (uint64_t)st.st_size - sizeof(h);
	if (memcmp(h.magic, KCACHE_MAGIC, 8) || memcmp(h.key, want, 40) || !h.n ||
	    h.n > room / sizeof(struct kent) || h.names_len != room - h.n * sizeof(struct kent) ||
	    !h.names_len || h.names_len > UINT32_MAX)
		goto out;
	const struct kent *v = (const struct kent *)((const char *)map + sizeof(h));
	const char *names = (const char *)(v + h.n);
	if (names[h.names_len - 1])
		goto out;
	for (uint64_t i = 0; i < h.n; i++)
		if (v[i].name >= h.names_len || v[i].mod || v[i].marker > 1 || v[i].pad ||
		    (i && v[i - 1].start >= v[i].start))
			goto out;
	k = calloc(1, sizeof(*k));
	if (!k) {
		err = -ENOMEM;
		goto out;
	}
	k->map = map;
	k->map_len = (size_t)st.st_size;
	k->ents.p = (void *)v;
	k->ents.used = h.n * sizeof(struct kent);
	k->names.p = (void *)names;
	k->names.used = h.names_len;
	k->n = h.n;
	k->core = true;
	k->lo = v[0].start;
	k->hi = v[h.n - 1].start;
	map = MAP_FAILED;
	err = 0;
out:
	if (map != MAP_FAILED)
		munmap(map, (size_t)st.st_size);
	close(fd);
	errno = -err;
	return k;
}

/* The core's entries: those before the first module's, which must all come
 * after the core's last (x86-64 and arm64 put modules, BPF and trampolines
 * outside the kernel image). -ENOENT when the table has no core or mixes. */
static int core_span(const struct kallsyms *k, size_t *first, size_t *end)
{
	const struct kent *v = k->ents.p;
	size_t i = 0, j;

	while (i < k->n && v[i].mod)
		i++;
	for (j = i; j < k->n && !v[j].mod; j++)
		;
	if (i == j)
		return -ENOENT;
	for (size_t m = j; m < k->n; m++)	/* a core entry after a module's: mixed */
		if (!v[m].mod)
			return -ENOENT;
	*first = i;
	*end = j;
	return 0;
}

int kallsyms__save_core(const struct kallsyms *k, const char *file, const char *key)
{
	size_t first, end, names_len = 0;
	int err;

	if (!k || k->core)
		return -EINVAL;
	err = core_span(k, &first, &end);
	if (err)
		return err;
	const struct kent *v = k->ents.p;
	for (size_t i = first; i < end; i++)
		names_len += strlen(kent_name(k, &v[i])) + 1;
	if (names_len > UINT32_MAX)
		return -E2BIG;

	struct kcache_hdr h = { .n = end - first, .names_len = names_len };
	memcpy(h.magic, KCACHE_MAGIC, 8);
	key_copy(h.key, key);
	size_t len = sizeof(h) + h.n * sizeof(struct kent) + names_len;
	char *buf = malloc(len);
	if (!buf)
		return -ENOMEM;
	memcpy(buf, &h, sizeof(h));
	struct kent *out = (struct kent *)(buf + sizeof(h));
	char *names = (char *)(out + h.n), *p = names;
	for (size_t i = first; i < end; i++) {
		const char *nm = kent_name(k, &v[i]);
		size_t l = strlen(nm) + 1;
		out[i - first] = v[i];
		out[i - first].name = (uint32_t)(p - names);
		memcpy(p, nm, l);
		p += l;
	}

	/* written whole to a new name, then renamed over the old: a reader
	 * sees the old file or the new one */
	size_t flen = strlen(file);
	char *tmp = malloc(flen + 8);
	if (!tmp) {
		free(buf);
		return -ENOMEM;
	}
	memcpy(tmp, file, flen);
	memcpy(tmp + flen, ".XXXXXX", 8);
	int fd = mkostemp(tmp, O_CLOEXEC);	/* 0600 */
	if (fd < 0) {
		err = -errno;
	} else {
		err = pp_write_all(fd, buf, len);
		if (close(fd) && !err)
			err = -errno;
		if (!err && rename(tmp, file))
			err = -errno;
		if (err)
			unlink(tmp);
	}
	free(tmp);
	free(buf);
	return err;
}

bool kallsyms__covers(const struct kallsyms *k, uint64_t addr)
{
	return !k->core || (addr >= k->lo && addr <= k->hi);
}

/* ---- the table a symbolizer asks: the cached core, the whole file when needed ---- */

struct ksyms {
	char *path;		/* NULL: /proc/kallsyms */
	char *cache;		/* the cache file; NULL: none */
	char key[40];
	struct kallsyms *core, *full;
	bool core_tried, full_tried;
	bool save;		/* the core to be written to cache at the end */
	int nr_full_loads;
};

struct ksyms *ksyms__new(const char *path, const char *cache, const char *key)
{
	struct ksyms *ks = calloc(1, sizeof(*ks));

	if (!ks)
		return NULL;
	ks->path = path ? strdup(path) : NULL;
	ks->cache = cache && key ? strdup(cache) : NULL;
	if ((path && !ks->path) || (cache && key && !ks->cache)) {
		ksyms__delete(ks);
		return NULL;
	}
	if (key)
		key_copy(ks->key, key);
	return ks;
}

bool ksyms__find(struct ksyms *ks, uint64_t addr, struct kallsyms_sym *out)
{
	if (!ks->core_tried) {
		ks->core_tried = true;
		if (ks->cache)
			ks->core = kallsyms__load_core(ks->cache, ks->key);
	}
	if (ks->core && kallsyms__covers(ks->core, addr))
		return kallsyms__find(ks->core, addr, out);
	if (!ks->full_tried) {
		ks->full_tried = true;
		ks->full = kallsyms__load(ks->path);
		ks->nr_full_loads += ks->full != NULL;
		/* names already handed out from the core stay valid: it is
		 * kept. The cache is written at the end (ksyms__delete), not
		 * while the profiled program runs: on one CPU under TCG that
		 * write took its share of the target's time. */
		ks->save = ks->full && ks->cache && !ks->core;
	}
	return ks->full && kallsyms__find(ks->full, addr, out);
}

int ksyms__nr_full_loads(const struct ksyms *ks)
{
	return ks->nr_full_loads;
}

void ksyms__delete(struct ksyms *ks)
{
	if (!ks)
		return;
	if (ks->save)
		(void)kallsyms__save_core(ks->full, ks->cache, ks->key);
	kallsyms__delete(ks->core);
	kallsyms__delete(ks->full);
	free(ks->path);
	free(ks->cache);
	free(ks);
}

static int boot_id(char out[40])
{
	int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	ssize_t r;

	if (fd < 0)
		return -errno;
	r = read(fd, out, 39);
	close(fd);
	if (r < 8)
		return -EINVAL;
	out[r] = 0;
	out[strcspn(out, "\n")] = 0;
	return 0;
}

static bool kptr_hidden(void)
{
	char c = 0;
	int fd = open("/proc/sys/kernel/kptr_restrict", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	if (read(fd, &c, 1) != 1)
		c = 0;
	close(fd);
	return c == '2';
}

/* This boot's cache file: $PPROBE_RUN_DIR (empty: no cache), else
 * /run/pprobe for root, $XDG_RUNTIME_DIR/pprobe for others (both tmpfs,
 * emptied at boot); the directory made 0700 if missing, and used only when
 * it is ours and no one else can write it. Not with kptr_restrict 2, where
 * the kernel hides its addresses even from root. */
struct ksyms *ksyms__new_system(const char *path)
{
	char key[40], file[4096];
	const char *dir = getenv("PPROBE_RUN_DIR"), *xdg = getenv("XDG_RUNTIME_DIR");
	char dirbuf[4096];

	if (path)		/* a file given (tests): no cache */
		return ksyms__new(path, NULL, NULL);
	if (!dir) {
		if (geteuid() == 0) {
			dir = "/run/pprobe";
		} else if (xdg && *xdg && (size_t)snprintf(dirbuf, sizeof(dirbuf), "%s/pprobe", xdg) < sizeof(dirbuf)) {
			dir = dirbuf;
		}
	}
	if (!dir || !*dir || kptr_hidden() || boot_id(key))
		return ksyms__new(NULL, NULL, NULL);
	int fd = pp_own_dir(AT_FDCWD, dir);
	if (fd < 0 || (size_t)snprintf(file, sizeof(file), "%s/kallsyms-core", dir) >= sizeof(file)) {
		if (fd >= 0)
			close(fd);
		return ksyms__new(NULL, NULL, NULL);
	}
	close(fd);
	return ksyms__new(NULL, file, key);
}
