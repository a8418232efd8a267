/* A sample's stack taken the one way for record, top and trace: the
 * call-graph set-up, the user stack unwound, each frame with its mapping (looked up once, when first
 * asked), and the one label a stack that ends early shows at its outer
 * end, the same in every output. */
#ifndef PPROBE_STACK_H
#define PPROBE_STACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pprobe/unwind.h"

struct collect;
struct collect_opts;
struct evlist;
struct map;
struct objcache;
struct stack_opts;
struct maps;
struct process;
struct sample;

/* The one call-graph set-up of record, top and trace: so applied to co for
 * the events of el (collect_opts__set_stacks: sample type, callchain depth,
 * user registers and stack copies, rings sized for them), and, with DWARF
 * stacks and u non-NULL, *u the unwinder of backend, its ELF files those of
 * files (shared with the symbolizer). 0, or -errno with err saying why. */
int collect__setup_stacks(struct collect_opts *co, const struct evlist *el, const struct stack_opts *so,
			  enum unwind_backend backend, struct objcache *files, struct unwinder **u, char *err,
			  size_t errlen);

/* A map slot not asked yet (ustack__map fills it). */
extern const struct map stack__unasked;

/* A user stack: frames leaf first (ips[0] the sampled ip, the rest return
 * addresses), how the unwinding ended, and each frame's mapping once
 * asked. */
struct ustack {
	const struct maps *maps;	/* the process's; NULL: none known */
	const uint64_t *ips;
	uint32_t nr;
	struct unwind_result res;	/* UNWIND_ERROR, nr 0: the unwinder failed */
	const struct map **map;		/* nr slots, &stack__unasked until asked */
};

/* us from an unwinding's answer (nr < 0: it failed, an UNWIND_ERROR end);
 * slots: room for nr mappings. */
void ustack__init(struct ustack *us, const struct maps *maps, const uint64_t *ips, int nr,
		  const struct unwind_result *res, const struct map **slots);

/* s's user stack unwound by u (collect__unwind_user) into ips (max frames)
 * and us; slots: room for max mappings. Returns us->nr. */
uint32_t collect__ustack(struct collect *c, struct unwinder *u, const struct sample *s, const struct process *p,
			 uint64_t *ips, int max, const struct map **slots, struct ustack *us);

/* Frame i's mapping (NULL: none), looked up the first time asked. */
const struct map *ustack__map(struct ustack *us, uint32_t i);

/* Frame i is a return address (symbolized at ip - 1): all but the leaf. */
static inline bool ustack__is_return(uint32_t i)
{
	return i > 0;
}

/* The end of a callchain cut at its event's sample_max_stack, for
 * unwind_result__label (the one label for each way a stack ends):
 * "[truncated]", as a full unwinding ends. */
extern const struct unwind_result stack__chain_cut;

/* s's callchain reached max addresses (its context markers not counted),
 * where the kernel stops (sample_max_stack): it may have been cut. */
bool stack__callchain_full(const struct sample *s, uint32_t max);

#endif
