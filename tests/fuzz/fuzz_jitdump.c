/* A jitdump file (/tmp/jit-PID.dump, as CPython -X perf_jit, node
 * --perf-prof and Java's jvmti agent write it): the input as a file (a
 * memfd) through jitdump__read, each code load into a symbol table as the
 * symbolizer does, then looked up. Asserts what the reader promises: loads
 * carry a NUL-terminated name of namelen bytes (at most JITDUMP_MAX_NAME),
 * moves none, no range empty or past the address space, no more than
 * JITDUMP_MAX_RECORDS records. */
#include "fuzz.h"
#include "../../symbolize/jitdump.h"
#include "../../symbolize/sym_internal.h"

struct seen {
	struct symtab t;
	uint64_t addrs[64];
	size_t n, codes;
};

static int code(void *arg, const struct jitdump_code *c)
{
	struct seen *s = arg;

	if (!c->size || c->addr + c->size < c->addr)
		abort();
	if (c->moved != !c->name)
		abort();
	if (c->name && (strlen(c->name) != c->namelen || c->namelen > JITDUMP_MAX_NAME))
		abort();
	if (s->n < 64)
		s->addrs[s->n++] = c->addr;
	s->codes++;
	if (c->name && symtab__add(&s->t, c->addr, c->size, 0, c->name, c->namelen, (uint32_t)s->codes))
		return -ENOMEM;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64], why[128];
	struct jitdump_stats st;
	struct seen s = { 0 };
	int fd = fuzz_memfd(data, size, path, sizeof(path));

	if (fd < 0)
		return 0;
	int err = jitdump__read(fd, code, &s, &st, why, sizeof(why));
	if (err == -EINVAL && !why[0])
		abort();	/* a refusal says why */
	if (st.records > JITDUMP_MAX_RECORDS || st.loads + st.moves > st.records || s.codes > st.loads + st.moves)
		abort();
	if (symtab__finish(&s.t) == 0)
		for (size_t i = 0; i < s.n; i++) {
			const struct symtab_entry *e = symtab__find(&s.t, s.addrs[i]);
			if (e && (!e->name || s.addrs[i] < e->start || s.addrs[i] >= e->end))
				abort();
		}
	symtab__free(&s.t);
	(void)jitdump__is_name(path);
	close(fd);
	return 0;
}
