/* Go's pclntab (symbolize/gopclntab.c): the input as a table through
 * gopclntab__new, then lookups, SP deltas and the walk of every function
 * at the pcs the table itself names and at pcs taken from the input; an
 * input that is an ELF file also goes through gopclntab__find (sections,
 * runtime.pclntab, the header search in .data.rel.ro). */
#include <libelf.h>
#include <stdbool.h>

#include "fuzz.h"
#include "../../symbolize/gopclntab.h"

struct seen {
	const struct gopclntab *t;
	size_t n;
};

/* Each function: its name is a string, lookups and SP deltas at its
 * entry, middle and last byte agree with it. */
static int visit(const struct gopclntab_func *f, void *arg)
{
	struct seen *s = arg;
	struct gopclntab_func g;
	int64_t d;

	if (strlen(f->name) > (size_t)-1 / 2 || f->end < f->entry)
		abort();
	if (s->n++ >= 256)
		return 1;
	uint64_t pcs[] = { f->entry, f->entry + (f->end - f->entry) / 2, f->end - 1, f->end };
	for (size_t i = 0; i < sizeof(pcs) / sizeof(*pcs); i++) {
		if (gopclntab__lookup(s->t, pcs[i], &g) == 0 && (pcs[i] < g.entry || pcs[i] >= g.end || !g.name))
			abort();
		(void)gopclntab__pcsp(s->t, pcs[i], &d);
	}
	return 0;
}

static void table(const uint8_t *data, size_t size, uint64_t vaddr, uint64_t text)
{
	struct gopclntab *t = gopclntab__new(data, size, vaddr, text);
	struct gopclntab_func g;
	struct seen s;
	int64_t d;

	if (!t)
		return;
	s = (struct seen){ t, 0 };
	(void)gopclntab__foreach(t, visit, &s);
	for (size_t off = 0; off + 8 <= size && off < 512; off += 8) {
		uint64_t pc;

		memcpy(&pc, data + off, 8);
		(void)gopclntab__lookup(t, pc, &g);
		(void)gopclntab__pcsp(t, pc, &d);
		(void)gopclntab__lookup(t, text + (pc & 0xffff), &g);
		(void)gopclntab__pcsp(t, text + (pc & 0xffff), &d);
	}
	gopclntab__delete(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool init;
	const uint8_t *p;
	size_t n;
	uint64_t vaddr, text;

	if (!init) {
		elf_version(EV_CURRENT);
		init = true;
	}
	if (size >= 4 && !memcmp(data, "\177ELF", 4)) {
		/* libelf may write to an image it converts: a copy */
		char *copy = malloc(size);
		if (!copy)
			abort();
		memcpy(copy, data, size);
		Elf *elf = elf_memory(copy, size);
		if (elf && gopclntab__find(elf, &p, &n, &vaddr, &text) == 0)
			table(p, n, vaddr, text);
		if (elf)
			elf_end(elf);
		free(copy);
		return 0;
	}
	table(data, size, 0x4b0000, 0x401000);
	return 0;
}
