/* A sample's stack taken the one way for record, top and trace: see
 * stack.h. */
#include "stack.h"

#include <errno.h>
#include <string.h>


#include "collect.h"
#include "sample.h"
#include "session.h"
#include "util.h"
#include "pprobe/maps.h"

const struct map stack__unasked;

int collect__setup_stacks(struct collect_opts *co, const struct evlist *el, const struct stack_opts *so,
			  enum unwind_backend backend, struct objcache *files, struct unwinder **u, char *err,
			  size_t errlen)
{
	collect_opts__set_stacks(co, el, so);
	if (so->kind != STACKS_DWARF || !u)
		return 0;
	*u = unwinder__new_cached(backend, files);
	if (!*u) {
		int e = errno ? errno : ENOMEM;
		seterr(err, errlen, "cannot set up the %s unwinder: %s", unwind_backend__str(backend), strerror(e));
		return -e;
	}
	return 0;
}
const struct unwind_result stack__chain_cut = { .end = UNWIND_MAX_DEPTH };

void ustack__init(struct ustack *us, const struct maps *maps, const uint64_t *ips, int nr,
		  const struct unwind_result *res, const struct map **slots)
{
	*us = (struct ustack){ .maps = maps, .ips = ips, .nr = nr > 0 ? (uint32_t)nr : 0, .map = slots };
	if (res)
		us->res = *res;
	if (nr < 0) {
		us->res.end = UNWIND_ERROR;
		us->res.nr = 0;
		us->res.end_dso = NULL;
	}
	for (uint32_t i = 0; i < us->nr; i++)
		slots[i] = &stack__unasked;
}

uint32_t collect__ustack(struct collect *c, struct unwinder *u, const struct sample *s, const struct process *p,
			 uint64_t *ips, int max, const struct map **slots, struct ustack *us)
{
	struct unwind_result res;
	int nr = collect__unwind_user(c, u, s, p, ips, max, &res);
	ustack__init(us, p->maps, ips, nr, &res, slots);
	return us->nr;
}

const struct map *ustack__map(struct ustack *us, uint32_t i)
{
	if (us->map[i] == &stack__unasked)
		us->map[i] = us->maps ? maps__find(us->maps, us->ips[i]) : NULL;
	return us->map[i];
}

bool stack__callchain_full(const struct sample *s, uint32_t max)
{
	uint64_t addrs = 0;
	for (uint64_t i = 0; i < s->callchain_nr; i++)
		addrs += s->callchain[i] < (uint64_t)PERF_CONTEXT_MAX;
	return addrs >= max;
}
