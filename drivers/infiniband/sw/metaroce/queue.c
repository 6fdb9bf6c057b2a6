// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * MetaRoCE queues shared with userspace: allocation, the mmap entries of
 * the RDMA core that name them, and mmap itself.
 */

#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <rdma/ib_verbs.h>
#include "queue.h"

static_assert(sizeof(struct metaroce_queue_hdr) == METAROCE_QUEUE_DATA_OFFSET);

struct mroce_mmap_entry {
	struct rdma_user_mmap_entry rentry;
	void *buf;			/* vmalloc_user(), page aligned */
};

static struct mroce_mmap_entry *
to_mentry(struct rdma_user_mmap_entry *rentry)
{
	return container_of(rentry, struct mroce_mmap_entry, rentry);
}

int mroce_queue_create(struct ib_ucontext *uctx, struct mroce_queue *q,
		       u32 num, u32 elem_size, struct metaroce_queue_info *info)
{
	struct mroce_mmap_entry *e;
	size_t size;
	int err;

	if (!num || !is_power_of_2(num))
		return -EINVAL;
	size = PAGE_ALIGN(METAROCE_QUEUE_DATA_OFFSET +
			  (size_t)num * elem_size);
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	/* Zeroed: no stale kernel data ever reaches userspace. */
	e->buf = vmalloc_user(size);
	if (!e->buf) {
		kfree(e);
		return -ENOMEM;
	}
	q->hdr = e->buf;
	q->data = e->buf + METAROCE_QUEUE_DATA_OFFSET;
	q->num = num;
	q->elem_size = elem_size;
	q->hdr->num_elems = num;
	q->hdr->elem_size = elem_size;

	err = rdma_user_mmap_entry_insert(uctx, &e->rentry, size);
	if (err) {
		vfree(e->buf);
		kfree(e);
		return err;
	}
	q->entry = e;
	info->mmap_offset = rdma_user_mmap_get_offset(&e->rentry);
	info->mmap_size = size;
	info->num_elems = num;
	info->elem_size = elem_size;
	return 0;
}

void mroce_queue_destroy(struct mroce_queue *q)
{
	if (!q->entry)
		return;
	/* Frees through mroce_mmap_free once no mmap holds the entry. */
	rdma_user_mmap_entry_remove(&q->entry->rentry);
	q->entry = NULL;
	q->hdr = NULL;
	q->data = NULL;
}

int mroce_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *rentry;
	size_t len = vma->vm_end - vma->vm_start;
	int err;

	rentry = rdma_user_mmap_entry_get(uctx, vma);
	if (!rentry) {
		ibdev_dbg(uctx->device, "mmap: no queue at offset %#lx\n",
			  vma->vm_pgoff << PAGE_SHIFT);
		return -EINVAL;
	}
	if (len > rentry->npages << PAGE_SHIFT) {
		ibdev_dbg(uctx->device, "mmap: %zu bytes, queue has %zu\n",
			  len, rentry->npages << PAGE_SHIFT);
		err = -EINVAL;
		goto out;
	}
	/* The pages are refcounted by the mapping, so munmap frees them. */
	err = remap_vmalloc_range(vma, to_mentry(rentry)->buf, 0);
out:
	rdma_user_mmap_entry_put(rentry);
	return err;
}

void mroce_mmap_free(struct rdma_user_mmap_entry *rentry)
{
	struct mroce_mmap_entry *e = to_mentry(rentry);

	vfree(e->buf);
	kfree(e);
}
