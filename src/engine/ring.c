#include "ring.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int ring__setup(struct ring *r, struct perf_event_mmap_page *meta, void *data, size_t size)
{
	if (size == 0 || (size & (size - 1)))
		return -EINVAL;
	r->meta = meta;
	r->data = data;
	r->mask = size - 1;
	r->scratch = NULL;
	r->scratch_len = 0;
	r->bytes_read = 0;
	return 0;
}

int ring__mmap(struct ring *r, int fd, int cpu, size_t data_pages)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t len = (data_pages + 1) * page;

	memset(r, 0, sizeof(*r));
	r->fd = fd;
	r->cpu = cpu;
	void *base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED)
		return -errno;
	r->base = base;
	r->mmap_len = len;
	/* The kernel may place the data area elsewhere (data_offset/data_size,
	 * since 4.1); fall back to the classic layout when they are zero. */
	struct perf_event_mmap_page *meta = base;
	size_t off = meta->data_offset ? meta->data_offset : page;
	size_t size = meta->data_size ? meta->data_size : data_pages * page;
	int err = ring__setup(r, meta, (unsigned char *)base + off, size);
	if (err) {
		munmap(base, len);
		r->base = NULL;
	}
	return err;
}

int ring__init_synthetic(struct ring *r, struct perf_event_mmap_page *meta, void *data, size_t size)
{
	memset(r, 0, sizeof(*r));
	r->fd = -1;
	return ring__setup(r, meta, data, size);
}

void ring__unmap(struct ring *r)
{
	if (r->base)
		munmap(r->base, r->mmap_len);
	free(r->scratch);
	r->base = NULL;
	r->scratch = NULL;
	r->meta = NULL;
}

uint64_t ring__pending(const struct ring *r)
{
	uint64_t head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	return head - r->meta->data_tail;
}

/* How much a pass reads before it hands the space back to the kernel. */
#define RING_RELEASE_BYTES (64u * 1024u)

int ring__read(struct ring *r, ring_record_fn fn, void *ctx)
{
	/* Pairs with the kernel's smp_wmb() before it updates data_head: all
	 * record bytes below head are visible after this load. */
	uint64_t head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->meta->data_tail;
	uint64_t size = r->mask + 1;
	uint64_t published = tail, end = tail + size;
	int ret = 0;

	for (;;) {
		if (tail >= head) {
			/* Caught up: what the kernel wrote meanwhile is read in this
			 * pass too, until a ring's worth is read (a pass always
			 * ends; head stays at a record boundary). */
			if (tail >= end)
				break;
			head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
			if (tail >= head)
				break;
		}
		uint64_t off = tail & r->mask;
		struct perf_event_header hdr;
		const struct perf_event_header *rec;

		/* Even the 8-byte header may straddle the end. */
		if (off + sizeof(hdr) <= size) {
			memcpy(&hdr, r->data + off, sizeof(hdr));
		} else {
			size_t first = size - off;
			memcpy(&hdr, r->data + off, first);
			memcpy((char *)&hdr + first, r->data, sizeof(hdr) - first);
		}
		if (hdr.size < sizeof(hdr) || hdr.size > head - tail) {
			/* Cannot happen with a sane kernel; never loop on it. */
			ret = -EBADMSG;
			tail = head;
			break;
		}
		/* The kernel writes 8-byte units; a record after one of an odd
		 * size (corrupt) is copied out too, so no reader gets a
		 * misaligned header (found by tests/fuzz/fuzz_ring). */
		if (off + hdr.size <= size && !(off & 7)) {
			rec = (const void *)(r->data + off);
		} else {
			if (!r->scratch) {
				/* hdr.size is 16 bits: one 64 KiB buffer fits any record. */
				r->scratch = malloc(65536);
				if (!r->scratch) {
					ret = -ENOMEM;
					break;
				}
				r->scratch_len = 65536;
			}
			size_t first = off + hdr.size <= size ? hdr.size : size - off;
			memcpy(r->scratch, r->data + off, first);
			memcpy(r->scratch + first, r->data, hdr.size - first);
			rec = (const void *)r->scratch;
		}
		ret = fn(ctx, rec, r->cpu);
		if (ret == RING_LEAVE)
			break;
		tail += hdr.size;
		r->bytes_read += hdr.size;
		if (ret)
			break;
		/* Give the space back as we go, not at the end of the pass: in
		 * a burst the kernel fills a ring while a long pass copies it
		 * out, and space returned only at the end is space it lacked. */
		if (tail - published >= RING_RELEASE_BYTES) {
			__atomic_store_n(&r->meta->data_tail, tail, __ATOMIC_RELEASE);
			published = tail;
		}
	}
	/* Everything below tail is consumed: the kernel may overwrite it. The
	 * release orders our reads of the data before the tail update. */
	__atomic_store_n(&r->meta->data_tail, tail, __ATOMIC_RELEASE);
	return ret;
}
