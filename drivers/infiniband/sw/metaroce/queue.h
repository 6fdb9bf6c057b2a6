/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * MetaRoCE queues shared with userspace through mmap (see the layout in
 * <rdma/metaroce-abi.h>).
 */
#ifndef METAROCE_QUEUE_H
#define METAROCE_QUEUE_H

#include <rdma/ib_verbs.h>
#include <rdma/metaroce-abi.h>

struct mroce_mmap_entry;

/*
 * A ring mapped into one process. The memory belongs to the mmap entry
 * and is freed only when the entry's last reference goes (after
 * mroce_queue_destroy() and any mmap in progress), so a racing mmap never
 * maps freed pages; pages already mapped stay until munmap.
 */
struct mroce_queue {
	struct metaroce_queue_hdr *hdr;
	void *data;			/* element 0 */
	u32 num;			/* power of two */
	u32 elem_size;
	struct mroce_mmap_entry *entry;
};

static inline void *mroce_queue_elem(const struct mroce_queue *q, u32 idx)
{
	return q->data + (size_t)(idx & (q->num - 1)) * q->elem_size;
}

/* A new zeroed queue of @num (power of two) elements, mmap-able by @uctx. */
int mroce_queue_create(struct ib_ucontext *uctx, struct mroce_queue *q,
		       u32 num, u32 elem_size, struct metaroce_queue_info *info);
void mroce_queue_destroy(struct mroce_queue *q);

/* ib_device_ops.mmap and .mmap_free */
int mroce_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma);
void mroce_mmap_free(struct rdma_user_mmap_entry *rentry);

#endif /* METAROCE_QUEUE_H */
