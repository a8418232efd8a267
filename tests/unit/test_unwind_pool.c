/* The unwinding workers (engine/unwind_pool.h): jobs come back in the order
 * they were given, whichever worker had them and whether or not they had
 * anything to unwind; a job holds its own copy of the sample; the pool
 * takes no more jobs than it has; out_through counts the jobs up to a
 * process's last one. The stacks themselves are record's e2e tests'
 * (e2e/record_workers): here every sample's ip is unmapped, which the unwinder
 * answers at once. */
#include <stdint.h>
#include <string.h>

#include "pprobe/maps.h"
#include "session.h"
#include "unwind_pool.h"

#include "check.h"

#define JOBS 1000

int main(void)
{
	char err[256] = "";
	struct unwind_pool *p = unwind_pool__new(3, UNWIND_LIBDW, 64, err, sizeof(err));
	if (!CHECK(p, "pool: %s", err))
		return check_summary();
	CHECK_EQ_INT(unwind_pool__workers(p), 3);
	struct process proc = { .pid = 100, .maps = maps__new() };
	uint64_t regs[24] = { 0 };
	unsigned char stack[256];
	memset(stack, 0xab, sizeof(stack));
	uint64_t next_back = 0, bad_order = 0, not_unwound = 0, copies_bad = 0;

	for (uint64_t k = 0; k < JOBS; k++) {
		struct unwind_job *j = unwind_pool__next(p);
		while (!j) {	/* full: the oldest back first */
			struct unwind_job *o = unwind_pool__oldest(p, true);
			bad_order += o->s.time != next_back++;
			not_unwound += o->unwind && !(o->nr == 1 && o->res.end == UNWIND_UNMAPPED);
			copies_bad += o->s.stack == (const void *)stack || memcmp(o->s.stack, stack, sizeof(stack));
			unwind_pool__pop(p);
			j = unwind_pool__next(p);
		}
		struct sample s = { .pid = 100, .tid = (uint32_t)(100 + k % 7), .time = k, .regs_abi = 2,
				    .regs = regs, .stack = stack, .stack_size = sizeof(stack),
				    .stack_dyn_size = sizeof(stack) };
		unwind_pool__copy_sample(j, &s, 20);
		j->p = &proc;
		j->unwind = k % 3 != 0;	/* the others: nothing to unwind, done at once */
		unwind_pool__submit(p, j);
		if (k % 100 == 50)
			unwind_pool__forget(p, 100);
	}
	CHECK_EQ_INT(unwind_pool__out_through(p, 999), 0);
	size_t out = unwind_pool__out_through(p, -1);
	CHECK(out > 0 && out <= 3 * 64, "jobs out at the end: %zu", out);
	CHECK_EQ_INT(unwind_pool__out_through(p, 100), out);
	unwind_pool__sweep(p);
	struct unwind_job *o;
	while ((o = unwind_pool__oldest(p, true))) {
		bad_order += o->s.time != next_back++;
		not_unwound += o->unwind && !(o->nr == 1 && o->res.end == UNWIND_UNMAPPED);
		unwind_pool__pop(p);
	}
	CHECK_EQ_INT(next_back, JOBS);
	CHECK_EQ_INT(bad_order, 0);
	CHECK_EQ_INT(not_unwound, 0);
	CHECK_EQ_INT(copies_bad, 0);
	CHECK_EQ_INT(unwind_pool__out_through(p, -1), 0);

	/* out_through: up to a process's last job, the others before it too */
	for (int k = 0; k < 5; k++) {
		struct unwind_job *j = unwind_pool__next(p);
		struct sample s = { .pid = (uint32_t)(k == 1 || k == 3 ? 200 : 100), .tid = 1, .time = (uint64_t)k };
		unwind_pool__copy_sample(j, &s, 0);
		j->p = &proc;
		unwind_pool__submit(p, j);	/* nothing to unwind */
	}
	CHECK_EQ_INT(unwind_pool__out_through(p, 200), 4);
	CHECK_EQ_INT(unwind_pool__out_through(p, 100), 5);
	while (unwind_pool__oldest(p, false))
		unwind_pool__pop(p);
	CHECK_EQ_INT(unwind_pool__out_through(p, -1), 0);
	unwind_pool__delete(p);
	maps__delete(proc.maps);
	return check_summary();
}
