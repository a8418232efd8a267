/* The chunk pool (engine/chunk_pool.h) the drain thread and the queue
 * share: a chunk put back is the next one got (no new mapping, its bytes
 * still there), spares beyond the floor are unmapped once they stayed
 * unused for a whole trim period (and only then), the floor is kept, and
 * chunk_pool__release empties it. Chunks are written to their last byte. */
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "chunk_pool.h"

#include "check.h"

#define N 40

int main(void)
{
	void *c[N];
	CHECK_EQ_INT(chunk_pool__spare(), 0);
	for (int i = 0; i < N; i++) {
		c[i] = chunk_pool__get();
		if (!CHECK(c[i], "chunk %d", i))
			return check_summary();
		memset(c[i], i, POOL_CHUNK_BYTES);
	}
	for (int i = 0; i < N; i++)
		chunk_pool__put(c[i]);
	CHECK_EQ_INT(chunk_pool__spare(), N);
	/* the last put is the first got, as it was left */
	unsigned char *p = chunk_pool__get();
	CHECK(p == c[N - 1] && p[POOL_CHUNK_BYTES - 1] == (unsigned char)(N - 1), "reused, not mapped again");
	chunk_pool__put(p);
	/* a period with all N used (spares went to 0 above), then one with
	 * none used: after it, what exceeds the floor is gone */
	usleep(1100 * 1000);
	chunk_pool__put(chunk_pool__get());	/* the first trim: spares went to 0 in its period */
	CHECK_EQ_INT(chunk_pool__spare(), N);
	usleep(1100 * 1000);
	chunk_pool__put(chunk_pool__get());	/* N - 1 stayed spare the whole period */
	CHECK(chunk_pool__spare() >= POOL_MIN_SPARE && chunk_pool__spare() <= POOL_MIN_SPARE + 1,
	      "trimmed to the floor (%d spare, floor %d)", chunk_pool__spare(), POOL_MIN_SPARE);
	/* a larger floor is kept, with its chunks mapped now */
	chunk_pool__reserve(24, 24);
	CHECK_EQ_INT(chunk_pool__spare(), 24);
	usleep(1100 * 1000);
	chunk_pool__put(chunk_pool__get());
	usleep(1100 * 1000);
	chunk_pool__put(chunk_pool__get());
	CHECK(chunk_pool__spare() >= 24, "the floor kept (%d spare)", chunk_pool__spare());
	chunk_pool__release();
	CHECK_EQ_INT(chunk_pool__spare(), 0);
	return check_summary();
}
