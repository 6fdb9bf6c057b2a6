/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Queues shared with the kernel: the CQ ring, the send and receive rings.
 * Layout and ownership of the indices: <rdma/metaroce-abi.h>.
 */
#ifndef METAROCE_RING_H
#define METAROCE_RING_H

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>

#include "metaroce-abi.h"

struct metaroce_ring {
	void *map;			/* NULL: no ring, use the uverbs commands */
	size_t map_size;
	struct metaroce_queue_hdr *hdr;
	uint8_t *data;
	uint32_t num;			/* power of two */
	uint32_t elem_size;
	uint32_t local;			/* our index: cons of a CQ, prod of a WQ */
};

static inline uint32_t metaroce_ring_load(uint32_t *idx)
{
	return atomic_load_explicit((_Atomic(uint32_t) *)idx,
				    memory_order_acquire);
}

static inline void metaroce_ring_store(uint32_t *idx, uint32_t val)
{
	atomic_store_explicit((_Atomic(uint32_t) *)idx, val,
			      memory_order_release);
}

static inline void *metaroce_ring_elem(struct metaroce_ring *r, uint32_t idx)
{
	return r->data + (size_t)(idx & (r->num - 1)) * r->elem_size;
}

/* Map the queue the kernel described; elem_size is what we were built for. */
static inline int metaroce_ring_map(struct metaroce_ring *r, int cmd_fd,
				    const struct metaroce_queue_info *info,
				    uint32_t elem_size)
{
	void *map;

	r->map = NULL;
	if (!info->num_elems)
		return 0;
	if (info->elem_size != elem_size ||
	    (info->num_elems & (info->num_elems - 1)) ||
	    info->mmap_size < METAROCE_QUEUE_DATA_OFFSET +
			      (uint64_t)info->num_elems * elem_size)
		return EPROTO;
	map = mmap(NULL, info->mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		   cmd_fd, info->mmap_offset);
	if (map == MAP_FAILED)
		return errno;
	r->map = map;
	r->map_size = info->mmap_size;
	r->hdr = map;
	r->data = (uint8_t *)map + METAROCE_QUEUE_DATA_OFFSET;
	r->num = info->num_elems;
	r->elem_size = elem_size;
	r->local = 0;
	return 0;
}

static inline void metaroce_ring_unmap(struct metaroce_ring *r)
{
	if (r->map)
		munmap(r->map, r->map_size);
	r->map = NULL;
}

#endif /* METAROCE_RING_H */
