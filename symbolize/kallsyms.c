/* /proc/kallsyms: text symbols of the kernel and its modules, sorted, each
 * extending to the next symbol. Module symbols carry "[module]" as dso. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sym_internal.h"

struct kallsyms {
	struct symtab syms;
	struct strpool modules;
	const char **modnames;	/* interned module names, to share one string per module */
	size_t nmod;
};

static const char *module_name(struct kallsyms *k, const char *mod, size_t len)
{
	char buf[256];
	const char **v;

	if (len + 3 > sizeof(buf))
		len = sizeof(buf) - 3;
	snprintf(buf, sizeof(buf), "[%.*s]", (int)len, mod);
	for (size_t i = 0; i < k->nmod; i++)
		if (!strcmp(k->modnames[i], buf))
			return k->modnames[i];
	v = realloc(k->modnames, (k->nmod + 1) * sizeof(*v));
	if (!v)
		return NULL;
	k->modnames = v;
	v[k->nmod] = strpool__add(&k->modules, buf, strlen(buf));
	return v[k->nmod] ? v[k->nmod++] : NULL;
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

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int kallsyms__foreach(const char *path, kallsyms_fn *fn, void *arg)
{
	char *line = NULL;
	size_t cap = 0;
	FILE *f;
	int err = 0;

	f = fopen(path ? path : "/proc/kallsyms", "re");
	if (!f)
		return -errno;
	/* 5 MB of text: in 256 KiB reads, not 1,200 of stdio's 4 KiB */
	char *buf = malloc(256 << 10);
	if (buf)
		setvbuf(f, buf, _IOFBF, 256 << 10);
	while (!err && getline(&line, &cap, f) > 0) {
		unsigned long long addr = 0;
		char type, *name, *mod, *end, *p = line;
		size_t modlen = 0;

		/* "ADDR T NAME[\t[MODULE]]": parsed by hand, sscanf was most of
		 * the time of a load (122,000 lines here) */
		for (int d; (d = hexval(*p)) >= 0; p++)
			addr = addr << 4 | (unsigned)d;
		if (p == line || p - line > 16 || *p != ' ' || !p[1] || p[2] != ' ')
			continue;
		type = p[1];
		name = p + 3;
		while (*name == ' ')
			name++;
		end = name + strcspn(name, " \t\n");
		mod = NULL;
		if (*end == '\t' || *end == ' ') {
			mod = strchr(end, '[');
		}
		*end = 0;
		if (mod)
			modlen = strcspn(++mod, "]");
		err = fn(arg, addr, type, name, mod, modlen);
	}
	fclose(f);
	free(buf);
	free(line);
	return err;
}

struct load {
	struct kallsyms *k;
	char *last_mod;
	const char *last_dso;
	size_t nonzero;
};

static int load_line(void *arg, uint64_t addr, char type, const char *name, const char *mod,
		     size_t ml)
{
	struct load *l = arg;
	struct kallsyms *k = l->k;
	int err;

	if (addr)
		l->nonzero++;
	/* text symbols only: data must never name a code address */
	if (type != 't' && type != 'T' && type != 'w' && type != 'W')
		return 0;
	const char *dso = "[kernel.kallsyms]";
	if (mod) {
		if (l->last_mod && !strncmp(l->last_mod, mod, ml) && l->last_mod[ml] == 0) {
			dso = l->last_dso;
		} else {
			dso = module_name(k, mod, ml);
			if (!dso)
				return -ENOMEM;
			free(l->last_mod);
			l->last_mod = strndup(mod, ml);
			l->last_dso = dso;
		}
	}
	bool marker = end_marker(name);

	err = symtab__add(&k->syms, addr, 0, 0, name, strlen(name), dso, marker ? 0 : 1);
	if (err)
		return err;
	if (marker) {	/* an empty range: addresses after it are unknown */
		k->syms.v[k->syms.n - 1].end = addr;
		k->syms.v[k->syms.n - 1].sized = true;
	}
	return 0;
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
	err = symtab__finish(&k->syms);
	if (err)
		goto err;
	/* The last symbol before another object's first (core -> module,
	 * module -> module) would otherwise cover the whole gap between
	 * allocations: cap it at 64 KiB, more than any kernel function. */
	for (size_t i = 0; i + 1 < k->syms.n; i++) {
		struct symtab_entry *e = &k->syms.v[i];

		if (e->dso != k->syms.v[i + 1].dso && e->end - e->start > 65536)
			e->end = e->start + 65536;
	}
	err = symtab__finish(&k->syms);	/* recompute the cover index */
	if (err)
		goto err;
	free(l.last_mod);
	return k;
err:
	free(l.last_mod);
	kallsyms__delete(k);
	errno = -err;
	return NULL;
}

const struct symtab_entry *kallsyms__find(const struct kallsyms *k, uint64_t addr)
{
	const struct symtab_entry *e = symtab__find(&k->syms, addr);

	/* past the last symbol we do not know where the text ends: allow the
	 * rest of its page (the last one is usually a trampoline page) */
	if (e && e == &k->syms.v[k->syms.n - 1] && e->end == UINT64_MAX &&
	    addr >= ((e->start | 4095) + 1))
		return NULL;
	return e;
}

void kallsyms__delete(struct kallsyms *k)
{
	if (!k)
		return;
	symtab__free(&k->syms);
	strpool__free(&k->modules);
	free(k->modnames);
	free(k);
}
