/* Go's function table (symbolize/gopclntab.c): the input as a .gopclntab,
 * every function listed, each looked up by its first and last byte, and
 * its frame size read at a few pcs. What the table claims (counts,
 * offsets, varints) must never take a read outside the input. Seeds
 * (corpus/gopclntab) are the tables of small Go programs cut to their
 * first 4-16 KiB by tests/fuzz/make-gopclntab-seeds.sh. */
#include "../../symbolize/gopclntab.h"
#include "fuzz.h"

static int visit(const struct gopclntab_func *f, void *arg)
{
	const struct gopclntab *t = arg;
	struct gopclntab_func g;
	int64_t d;
	if (f->end <= f->entry || strlen(f->name) > (1u << 20))
		abort();
	(void)gopclntab__lookup(t, f->entry, &g);
	(void)gopclntab__lookup(t, f->end - 1, &g);
	(void)gopclntab__pcsp(t, f->entry, &d);
	(void)gopclntab__pcsp(t, f->entry + (f->end - f->entry) / 2, &d);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* an exact-size copy: ASan sees any read past the table */
	uint8_t *copy = malloc(size ? size : 1);
	if (!copy)
		abort();
	memcpy(copy, data, size);
	struct gopclntab *t = gopclntab__new(copy, size, 0x4b0000, 0x401000);
	if (t) {
		struct gopclntab_func f;
		int64_t d;
		gopclntab__foreach(t, visit, t);
		(void)gopclntab__lookup(t, 0x401000, &f);
		(void)gopclntab__pcsp(t, 0x401004, &d);
		gopclntab__delete(t);
	}
	free(copy);
	return 0;
}
