/* /proc/PID/maps lines: the input through maps__load_file (the parser of
 * maps__load_proc), then every mapping read replayed into a second table
 * with maps__insert (the overlap punching of mmap2 sideband), looked up
 * with maps__find at its ends, and a range removed. What a table holds
 * must stay sorted and non-overlapping. */
#include <pprobe/maps.h>

#include "fuzz.h"

static void check_sorted(const struct maps *m)
{
	for (size_t i = 0; i < maps__count(m); i++) {
		const struct map *a = maps__at(m, i);
		if (a->start >= a->end)
			abort();	/* an empty or inverted mapping kept */
		if (i && maps__at(m, i - 1)->end > a->start)
			abort();	/* overlapping or out of order */
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;	/* fmemopen refuses a size of 0 */
	struct maps *a = maps__new(), *b = maps__new();
	if (!a || !b)
		abort();
	(void)maps__load_file(a, f);
	fclose(f);
	for (size_t i = 0; i < maps__count(a); i++) {
		const struct map *m = maps__at(a, i);
		(void)map__is_file(m);
		if (maps__insert(b, m) == 0) {
			const struct map *x = maps__find(b, m->start);
			if (m->start < m->end && (!x || x->start > m->start || x->end <= m->start))
				abort();	/* just inserted, not found */
			(void)maps__find(b, m->end - 1);
		}
	}
	check_sorted(b);
	if (maps__count(a)) {
		const struct map *m = maps__at(a, maps__count(a) / 2);
		maps__remove(b, m->start + (m->end - m->start) / 4, m->end);
		check_sorted(b);
	}
	struct maps *c = maps__clone(b);
	maps__delete(c);
	maps__delete(a);
	maps__delete(b);
	return 0;
}
