/* Every symbol name of an ELF object or of kallsyms: see
 * include/pprobe/sym_table.h. The symbol tables are read by
 * elf_file__foreach_symbol() and kallsyms__foreach(), as for the
 * symbolizer; only what is kept differs. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pprobe/sym_table.h"
#include "sym_internal.h"

struct sym_table {
	struct sym_entry *v;
	size_t n, cap;
	struct strpool names;
};

struct sym_table *sym_table__new(void)
{
	return calloc(1, sizeof(struct sym_table));
}

void sym_table__delete(struct sym_table *t)
{
	if (!t)
		return;
	free(t->v);
	strpool__free(&t->names);
	free(t);
}

const struct sym_entry *sym_table__syms(const struct sym_table *t, size_t *n)
{
	*n = t->n;
	return t->v;
}

static int add(struct sym_table *t, const char *name, size_t len, uint64_t addr, uint64_t size,
	       bool func, bool global)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;
		struct sym_entry *v = realloc(t->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->v = v;
		t->cap = cap;
	}
	name = strpool__add(&t->names, name, len);
	if (!name)
		return -ENOMEM;
	t->v[t->n++] = (struct sym_entry){ name, addr, size, func, global };
	return 0;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct sym_entry *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Sorted by address and name, one entry per (address, name). */
static void uniq(struct sym_table *t)
{
	size_t o = 0;

	if (!t->n)
		return;
	qsort(t->v, t->n, sizeof(*t->v), entry_cmp);
	for (size_t i = 0; i < t->n; i++) {
		struct sym_entry *last = o ? &t->v[o - 1] : NULL;

		if (last && last->addr == t->v[i].addr && !strcmp(last->name, t->v[i].name)) {
			if (t->v[i].size > last->size)
				last->size = t->v[i].size;
			last->global |= t->v[i].global;
			continue;
		}
		t->v[o++] = t->v[i];
	}
	t->n = o;
}

static int add_elf_sym(void *arg, Elf *elf, const GElf_Sym *sym, const char *name, const struct elf_sym_at *where)
{
	int type = GELF_ST_TYPE(sym->st_info);
	size_t len = strlen(name);
	const char *at;

	(void)where;
	if (sym->st_shndx == SHN_ABS || (type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_OBJECT))
		return 0;
	/* versioned .symtab names ("memcpy@GLIBC_2.2.5") are not ours */
	at = strchr(name, '@');
	if (at && at != name)
		len = (size_t)(at - name);
	return add(arg, name, len, sym->st_value, sym->st_size, type != STT_OBJECT,
		   GELF_ST_BIND(sym->st_info) != STB_LOCAL);
}

int sym_table__add_elf(struct sym_table *t, Elf *elf)
{
	int err = elf_file__foreach_symbol(elf, add_elf_sym, t);

	uniq(t);
	return err < 0 ? err : 0;
}

struct kallsyms_want {
	struct sym_table *t;
	const char *module;
};

static int add_kallsyms_sym(void *arg, uint64_t addr, char type, const char *name, const char *mod,
			    size_t modlen)
{
	struct kallsyms_want *w = arg;

	if (type != 't' && type != 'T' && type != 'w' && type != 'W')
		return 0;
	if (w->module ? !mod || strlen(w->module) != modlen || strncmp(mod, w->module, modlen) : mod != NULL)
		return 0;
	return add(w->t, name, strlen(name), addr, 0, true, isupper((unsigned char)type));
}

int sym_table__add_kallsyms(struct sym_table *t, const char *path, const char *module)
{
	struct kallsyms_want w = { t, module };
	int err = kallsyms__foreach(path, add_kallsyms_sym, &w);

	uniq(t);
	/* kallsyms has no sizes: a symbol ends where the next begins */
	for (size_t i = 0; i + 1 < t->n; i++)
		t->v[i].size = t->v[i + 1].addr - t->v[i].addr;
	return err;
}
