// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * MetaRoCE memory regions: registration, keys and checked access.
 *
 * A key is index << 8 | key byte. The index finds the MR in the device's
 * xarray under RCU; the byte (random at allocation, chosen by the ULP for
 * fast registration) tells the current key from a stale one. Indexes are
 * allocated cyclically so that a freed index is not soon reused.
 *
 * Lifetime: the MR is created with one reference, dropped by dereg_mr.
 * Lookups take a reference with refcount_inc_not_zero() under RCU, so once
 * dereg_mr has erased the index and dropped its reference no new user can
 * appear; dereg_mr then waits for the in-flight users, unpins the pages
 * and frees the struct after a grace period (a reader may still be looking
 * at it).
 *
 * Kernel DMA MRs: the device has no dma_device (INFINIBAND_VIRT_DMA), so
 * the "DMA addresses" kernel ULPs use are kernel virtual addresses.
 */

#include <linux/highmem.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/random.h>
#include <linux/scatterlist.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>
#include "metaroce.h"
#include "mr.h"

#define MROCE_MR_MAX		0x10000		/* device.c's max_mr */
#define MROCE_MR_INDEX_MAX	0xffffff	/* 24 bits of index in a key */

/* Serialises every MetaRoCE atomic on the host. */
static DEFINE_SPINLOCK(mroce_atomic_lock);
/* Serialises the lazy mroce_mr_dev_init() of every device. */
static DEFINE_MUTEX(mroce_mr_init_lock);

void mroce_mr_dev_init(struct mroce_dev *mdev)
{
	/* Pairs with the release below: mr_ready means mr_xa is set up. */
	if (smp_load_acquire(&mdev->mr_ready))
		return;
	mutex_lock(&mroce_mr_init_lock);
	if (!mdev->mr_ready) {
		xa_init_flags(&mdev->mr_xa, XA_FLAGS_ALLOC1);
		mdev->mr_next = 1;
		atomic_set(&mdev->mr_count, 0);
		atomic_set(&mdev->mw_count, 0);
		/* Publish mr_xa to lockless readers (mroce_mr_get_index). */
		smp_store_release(&mdev->mr_ready, true);
	}
	mutex_unlock(&mroce_mr_init_lock);
}

static bool mroce_in_range(u64 mr_iova, u64 mr_len, u64 iova, u64 len)
{
	return iova >= mr_iova && len <= mr_len &&
	       iova - mr_iova <= mr_len - len;
}

/* A kernel virtual address range a DMA MR may touch. */
static bool mroce_dma_addr_ok(u64 iova, u64 len)
{
	return virt_addr_valid((void *)(uintptr_t)iova) &&
	       virt_addr_valid((void *)(uintptr_t)(iova + len - 1));
}

/* Access flags of a registration; the core checks user ones already. */
static int mroce_check_reg_access(struct ib_device *ibdev, int access,
				  const char *verb)
{
	if (access & ~IB_ACCESS_SUPPORTED) {
		ibdev_dbg_ratelimited(ibdev, "%s: unknown access flags %#x\n",
				      verb, access);
		return -EINVAL;
	}
	if ((access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & IB_ACCESS_LOCAL_WRITE)) {
		ibdev_dbg_ratelimited(ibdev, "%s: remote write/atomic access %#x without local write\n",
				      verb, access);
		return -EINVAL;
	}
	if (access & (IB_ACCESS_ON_DEMAND | IB_ACCESS_FLUSH_GLOBAL |
		      IB_ACCESS_FLUSH_PERSISTENT)) {
		ibdev_dbg_ratelimited(ibdev, "%s: unsupported access flags %#x\n",
				      verb, access);
		return -EOPNOTSUPP;
	}
	return 0;
}

void mroce_mr_put(struct mroce_mr *mr)
{
	if (refcount_dec_and_test(&mr->ref))
		complete(&mr->released);
}

/* Take a reference on whatever MR sits at key's index, valid or not. */
static struct mroce_mr *mroce_mr_get_index(struct mroce_dev *mdev, u32 key)
{
	struct mroce_mr *mr;

	/* No MR yet: mr_xa may not even be initialised. */
	if (!smp_load_acquire(&mdev->mr_ready))
		return NULL;
	rcu_read_lock();
	mr = xa_load(&mdev->mr_xa, key >> 8);
	if (xa_pointer_tag(mr) == MROCE_KEY_TAG_MW)
		mr = NULL;	/* a memory window: mw.c */
	if (mr && !refcount_inc_not_zero(&mr->ref))
		mr = NULL;
	rcu_read_unlock();
	return mr;
}

struct mroce_mr *mroce_mr_lookup(struct mroce_dev *mdev, u32 key, bool remote)
{
	struct mroce_mr *mr = mroce_mr_get_index(mdev, key);
	unsigned long flags;
	bool ok;

	if (!mr)
		return NULL;
	spin_lock_irqsave(&mr->lock, flags);
	ok = mr->state == MROCE_MR_VALID &&
	     (remote ? mr->rkey : mr->lkey) == key;
	spin_unlock_irqrestore(&mr->lock, flags);
	if (!ok) {
		mroce_mr_put(mr);
		return NULL;
	}
	return mr;
}

/*
 * A new MR with one reference and its index, not yet findable as valid:
 * the caller finishes it and publishes its state.
 */
static struct mroce_mr *mroce_mr_alloc(struct ib_pd *ibpd,
				       enum ib_mr_type type, int access)
{
	struct mroce_dev *mdev = to_mdev(ibpd->device);
	struct mroce_mr *mr;
	u32 index, key;
	int err;

	mroce_mr_dev_init(mdev);
	if (atomic_inc_return(&mdev->mr_count) > MROCE_MR_MAX) {
		atomic_dec(&mdev->mr_count);
		ibdev_dbg_ratelimited(&mdev->ibdev, "MR limit (%u) reached\n",
				      MROCE_MR_MAX);
		return ERR_PTR(-ENOMEM);
	}

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr) {
		atomic_dec(&mdev->mr_count);
		return ERR_PTR(-ENOMEM);
	}
	refcount_set(&mr->ref, 1);
	init_completion(&mr->released);
	spin_lock_init(&mr->lock);
	mr->pd = ibpd;
	mr->type = type;
	mr->access = access;
	mr->state = MROCE_MR_INVALID;

	err = xa_alloc_cyclic(&mdev->mr_xa, &index, mr,
			      XA_LIMIT(1, MROCE_MR_INDEX_MAX), &mdev->mr_next,
			      GFP_KERNEL);
	if (err < 0) {
		kfree(mr);
		atomic_dec(&mdev->mr_count);
		return ERR_PTR(err == -EBUSY ? -ENOMEM : err);
	}
	mr->index = index;
	key = index << 8 | get_random_u8();
	mr->lkey = key;
	mr->rkey = key;
	mr->ibmr.lkey = key;
	mr->ibmr.rkey = key;
	mr->ibmr.device = ibpd->device;
	mr->ibmr.pd = ibpd;
	mr->ibmr.type = type;
	mr->ibmr.page_size = PAGE_SIZE;
	return mr;
}

static void mroce_mr_set_state(struct mroce_mr *mr, enum mroce_mr_state state)
{
	unsigned long flags;

	spin_lock_irqsave(&mr->lock, flags);
	mr->state = state;
	spin_unlock_irqrestore(&mr->lock, flags);
}

/* Unpublish, wait for the in-flight users, free. Process context. */
static void mroce_mr_destroy(struct mroce_mr *mr)
{
	struct mroce_dev *mdev = to_mdev(mr->ibmr.device);

	xa_erase(&mdev->mr_xa, mr->index);
	mroce_mr_set_state(mr, MROCE_MR_INVALID);
	mroce_mr_put(mr);
	while (!wait_for_completion_timeout(&mr->released, 10 * HZ))
		ibdev_warn(&mdev->ibdev, "MR %#x still in use, waiting\n",
			   mr->lkey);

	if (mr->umem)
		ib_umem_release(mr->umem);
	kvfree(mr->pages);
	atomic_dec(&mdev->mr_count);
	kfree_rcu(mr, rcu);
}

static struct ib_mr *mroce_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct mroce_mr *mr;
	int err;

	err = mroce_check_reg_access(ibpd->device, access, "get_dma_mr");
	if (err)
		return ERR_PTR(err);
	mr = mroce_mr_alloc(ibpd, IB_MR_TYPE_DMA, access);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->iova = 0;
	mr->length = U64_MAX;
	mroce_mr_set_state(mr, MROCE_MR_VALID);
	return &mr->ibmr;
}

static int mroce_mr_fill_user_pages(struct mroce_mr *mr, struct ib_umem *umem)
{
	unsigned long npages = ib_umem_num_pages(umem);
	struct sg_page_iter iter;
	unsigned int i = 0;

	if (!npages || npages > UINT_MAX)
		return -EINVAL;
	mr->pages = kvcalloc(npages, sizeof(*mr->pages), GFP_KERNEL);
	if (!mr->pages)
		return -ENOMEM;
	mr->max_pages = npages;

	for_each_sgtable_page(&umem->sgt_append.sgt, &iter, 0) {
		if (i >= npages)
			break;
		mr->pages[i++] = sg_page_iter_page(&iter);
	}
	if (i != npages)
		return -EFAULT;
	mr->npages = npages;
	mr->offset = ib_umem_offset(umem);
	return 0;
}

static struct ib_mr *mroce_reg_user_mr(struct ib_pd *ibpd, u64 start,
				       u64 length, u64 iova, int access,
				       struct ib_udata *udata)
{
	struct ib_device *ibdev = ibpd->device;
	struct ib_umem *umem;
	struct mroce_mr *mr;
	int err;

	err = mroce_check_reg_access(ibdev, access, "reg_user_mr");
	if (err)
		return ERR_PTR(err);
	if (!length || length - 1 > U64_MAX - start ||
	    length - 1 > U64_MAX - iova) {
		ibdev_dbg_ratelimited(ibdev, "reg_user_mr: bad range %#llx+%#llx (iova %#llx)\n",
				      start, length, iova);
		return ERR_PTR(-EINVAL);
	}
	if ((start ^ iova) & ~PAGE_MASK) {
		ibdev_dbg_ratelimited(ibdev, "reg_user_mr: start %#llx and iova %#llx differ in page offset\n",
				      start, iova);
		return ERR_PTR(-EINVAL);
	}

	mr = mroce_mr_alloc(ibpd, IB_MR_TYPE_USER, access);
	if (IS_ERR(mr))
		return ERR_CAST(mr);

	umem = ib_umem_get(ibdev, start, length, access);
	if (IS_ERR(umem)) {
		err = PTR_ERR(umem);
		ibdev_dbg_ratelimited(ibdev, "reg_user_mr: pinning %#llx+%#llx failed: %d\n",
				      start, length, err);
		goto err_destroy;
	}
	mr->umem = umem;
	err = mroce_mr_fill_user_pages(mr, umem);
	if (err)
		goto err_destroy;

	mr->iova = iova;
	mr->length = length;
	mr->ibmr.iova = iova;
	mr->ibmr.length = length;
	mroce_mr_set_state(mr, MROCE_MR_VALID);
	return &mr->ibmr;

err_destroy:
	mroce_mr_destroy(mr);
	return ERR_PTR(err);
}

static int mroce_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct mroce_mr *mr = to_mmr(ibmr);
	unsigned long flags;
	unsigned int num_mw;

	/*
	 * IBA 10.6.7.2.6: not while windows are bound to it (as rxe). Under
	 * the lock with the state change, so that no bind slips in between.
	 */
	spin_lock_irqsave(&mr->lock, flags);
	num_mw = mr->num_mw;
	if (!num_mw)
		mr->state = MROCE_MR_INVALID;
	spin_unlock_irqrestore(&mr->lock, flags);
	if (num_mw) {
		ibdev_dbg_ratelimited(ibmr->device, "dereg_mr: MR %#x has %u memory windows bound\n",
				      mr->lkey, num_mw);
		return -EINVAL;
	}
	mroce_mr_destroy(mr);
	return 0;
}

int mroce_mr_mw_attach(struct mroce_mr *mr, struct ib_pd *pd, u64 addr,
		       u64 length, int mw_access)
{
	unsigned long flags;
	int err = 0;

	spin_lock_irqsave(&mr->lock, flags);
	if (mr->state != MROCE_MR_VALID || mr->pd != pd ||
	    mr->type == IB_MR_TYPE_DMA)
		err = -EINVAL;
	else if (!(mr->access & IB_ACCESS_MW_BIND) ||
		 ((mw_access & (IB_ACCESS_REMOTE_WRITE |
				IB_ACCESS_REMOTE_ATOMIC)) &&
		  !(mr->access & IB_ACCESS_LOCAL_WRITE)))
		err = -EACCES;
	else if (!length || !mroce_in_range(mr->iova, mr->length, addr, length))
		err = -ERANGE;
	else
		mr->num_mw++;
	spin_unlock_irqrestore(&mr->lock, flags);
	if (err)
		ibdev_dbg_ratelimited(mr->ibmr.device, "bind_mw: MR %#x refuses window %#llx+%#llx access %#x: %d\n",
				      mr->lkey, addr, length, mw_access, err);
	return err;
}

void mroce_mr_mw_detach(struct mroce_mr *mr)
{
	unsigned long flags;

	spin_lock_irqsave(&mr->lock, flags);
	if (!WARN_ON_ONCE(!mr->num_mw))
		mr->num_mw--;
	spin_unlock_irqrestore(&mr->lock, flags);
	mroce_mr_put(mr);
}

static struct ib_mr *mroce_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
				    u32 max_num_sg)
{
	struct mroce_mr *mr;

	if (type != IB_MR_TYPE_MEM_REG) {
		ibdev_dbg_ratelimited(ibpd->device, "alloc_mr: unsupported type %d\n",
				      type);
		return ERR_PTR(-EINVAL);
	}
	if (!max_num_sg || max_num_sg > MROCE_MAX_FRMR_PAGES) {
		ibdev_dbg_ratelimited(ibpd->device, "alloc_mr: max_num_sg %u not in 1..%u\n",
				      max_num_sg, MROCE_MAX_FRMR_PAGES);
		return ERR_PTR(-EINVAL);
	}

	mr = mroce_mr_alloc(ibpd, type, 0);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->pages = kvcalloc(max_num_sg, sizeof(*mr->pages), GFP_KERNEL);
	if (!mr->pages) {
		mroce_mr_destroy(mr);
		return ERR_PTR(-ENOMEM);
	}
	mr->max_pages = max_num_sg;
	mroce_mr_set_state(mr, MROCE_MR_FREE);
	return &mr->ibmr;
}

/* ib_sg_to_pages() callback: addr is ibmr->page_size aligned. */
static int mroce_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct mroce_mr *mr = to_mmr(ibmr);
	unsigned int i, n = ibmr->page_size >> PAGE_SHIFT;

	if (n > mr->max_pages - mr->npages)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		WRITE_ONCE(mr->pages[mr->npages + i],
			   ib_virt_dma_to_page(addr + (u64)i * PAGE_SIZE));
	WRITE_ONCE(mr->npages, mr->npages + n);
	return 0;
}

static int mroce_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg,
			   int sg_nents, unsigned int *sg_offset)
{
	struct mroce_mr *mr = to_mmr(ibmr);

	if (ibmr->page_size < PAGE_SIZE ||
	    !IS_ALIGNED(ibmr->page_size, PAGE_SIZE)) {
		ibdev_dbg_ratelimited(ibmr->device, "map_mr_sg: page size %u not a multiple of %lu\n",
				      ibmr->page_size, PAGE_SIZE);
		return -EINVAL;
	}
	WRITE_ONCE(mr->npages, 0);
	return ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, mroce_set_page);
}

int mroce_mr_check(struct mroce_mr *mr, struct ib_pd *pd, u64 iova, u64 len,
		   int access)
{
	unsigned long flags;
	int err = 0;

	if (!len)
		return 0;

	spin_lock_irqsave(&mr->lock, flags);
	if (mr->pd != pd)
		err = -EINVAL;
	else if (mr->state != MROCE_MR_VALID || (access & ~mr->access))
		err = -EACCES;
	else if (!mroce_in_range(mr->iova, mr->length, iova, len))
		err = -ERANGE;
	else if (mr->type == IB_MR_TYPE_DMA && !mroce_dma_addr_ok(iova, len))
		err = -ERANGE;
	spin_unlock_irqrestore(&mr->lock, flags);

	if (err)
		ibdev_dbg_ratelimited(mr->ibmr.device, "MR %#x: access %#x to %#llx+%#llx refused: %d\n",
				      mr->lkey, access, iova, len, err);
	return err;
}

static void mroce_copy_page(struct page *page, unsigned int off, void *buf,
			    unsigned int n, bool to_mr)
{
	void *va = kmap_local_page(page);

	if (to_mr)
		memcpy(va + off, buf, n);
	else
		memcpy(buf, va + off, n);
	kunmap_local(va);
}

/* A byte range the MR cannot place (it changed under us): drop or zero. */
static void mroce_copy_lost(struct mroce_mr *mr, u64 iova, void *buf, u64 len,
			    bool to_mr)
{
	if (!to_mr)
		memset(buf, 0, len);
	ibdev_warn_ratelimited(mr->ibmr.device, "MR %#x: %llu bytes at %#llx not mapped, %s\n",
			       mr->lkey, len, iova,
			       to_mr ? "dropped" : "zeroed");
}

void mroce_mr_copy(struct mroce_mr *mr, u64 iova, void *buf, u64 len,
		   bool to_mr)
{
	unsigned int npages, pgoff, n;
	u64 mr_iova, mr_len, off;
	unsigned long flags;
	struct page *page;
	int access;

	if (!len)
		return;

	spin_lock_irqsave(&mr->lock, flags);
	mr_iova = mr->iova;
	mr_len = mr->length;
	off = mr->offset;
	access = mr->access;
	spin_unlock_irqrestore(&mr->lock, flags);

	if (!mroce_in_range(mr_iova, mr_len, iova, len) ||
	    (to_mr && !(access & IB_ACCESS_LOCAL_WRITE))) {
		mroce_copy_lost(mr, iova, buf, len, to_mr);
		return;
	}

	if (mr->type == IB_MR_TYPE_DMA) {
		while (len) {
			pgoff = offset_in_page(iova);
			n = min_t(u64, len, PAGE_SIZE - pgoff);
			if (!virt_addr_valid((void *)(uintptr_t)iova))
				mroce_copy_lost(mr, iova, buf, n, to_mr);
			else
				mroce_copy_page(ib_virt_dma_to_page(iova),
						pgoff, buf, n, to_mr);
			iova += n;
			buf += n;
			len -= n;
		}
		return;
	}

	off += iova - mr_iova;
	npages = min(READ_ONCE(mr->npages), mr->max_pages);
	while (len) {
		pgoff = offset_in_page(off);
		n = min_t(u64, len, PAGE_SIZE - pgoff);
		page = (off >> PAGE_SHIFT) < npages ?
		       READ_ONCE(mr->pages[off >> PAGE_SHIFT]) : NULL;
		if (!page)
			mroce_copy_lost(mr, iova, buf, n, to_mr);
		else
			mroce_copy_page(page, pgoff, buf, n, to_mr);
		off += n;
		iova += n;
		buf += n;
		len -= n;
	}
}

int mroce_mr_frags(struct mroce_mr *mr, u64 iova, struct sk_buff *skb,
		   u64 len)
{
	struct skb_shared_info *shi = skb_shinfo(skb);
	unsigned int npages, pgoff, n, i;
	struct page *page;
	u64 off;

	/* A user MR's pages and bounds are fixed at registration. */
	if (!mr->umem)
		return -EOPNOTSUPP;
	if (!mroce_in_range(mr->iova, mr->length, iova, len))
		return -EOPNOTSUPP;
	off = mr->offset + (iova - mr->iova);
	npages = min(READ_ONCE(mr->npages), mr->max_pages);
	while (len) {
		pgoff = offset_in_page(off);
		n = min_t(u64, len, PAGE_SIZE - pgoff);
		page = (off >> PAGE_SHIFT) < npages ? mr->pages[off >> PAGE_SHIFT] :
		       NULL;
		if (!page)
			return -EOPNOTSUPP;
		i = shi->nr_frags;
		if (i && skb_can_coalesce(skb, i, page, pgoff)) {
			skb_frag_size_add(&shi->frags[i - 1], n);
		} else {
			if (i >= MAX_SKB_FRAGS)
				return -EOPNOTSUPP;
			get_page(page);
			skb_fill_page_desc_noacc(skb, i, page, pgoff, n);
			/* The application may write the pages meanwhile: no
			 * in-place transform (ESP) of the stack may use them.
			 */
			shi->flags |= SKBFL_SHARED_FRAG;
		}
		skb->len += n;
		skb->data_len += n;
		skb->truesize += n;
		off += n;
		len -= n;
	}
	return 0;
}

int mroce_mr_atomic(struct mroce_mr *mr, u64 iova, bool cmp_swap, u64 compare,
		    u64 swap_add, u64 *orig)
{
	u64 mr_iova, mr_len, off;
	unsigned int npages;
	unsigned long flags;
	struct page *page;
	int state, access;
	u64 *va, *p;

	spin_lock_irqsave(&mr->lock, flags);
	state = mr->state;
	access = mr->access;
	mr_iova = mr->iova;
	mr_len = mr->length;
	off = mr->offset;
	spin_unlock_irqrestore(&mr->lock, flags);

	if (state != MROCE_MR_VALID || !(access & IB_ACCESS_LOCAL_WRITE)) {
		ibdev_dbg_ratelimited(mr->ibmr.device, "MR %#x: atomic on invalid or read-only MR\n",
				      mr->lkey);
		return -EACCES;
	}
	if (!IS_ALIGNED(iova, sizeof(u64))) {
		ibdev_dbg_ratelimited(mr->ibmr.device, "MR %#x: misaligned atomic at %#llx\n",
				      mr->lkey, iova);
		return -EINVAL;
	}
	if (!mroce_in_range(mr_iova, mr_len, iova, sizeof(u64)))
		goto err_range;

	if (mr->type == IB_MR_TYPE_DMA) {
		if (!virt_addr_valid((void *)(uintptr_t)iova))
			goto err_range;
		page = ib_virt_dma_to_page(iova);
		off = iova;
	} else {
		off += iova - mr_iova;
		if (!IS_ALIGNED(off, sizeof(u64))) {
			ibdev_dbg_ratelimited(mr->ibmr.device, "MR %#x: atomic at %#llx misaligned in memory\n",
					      mr->lkey, iova);
			return -EINVAL;
		}
		npages = min(READ_ONCE(mr->npages), mr->max_pages);
		if ((off >> PAGE_SHIFT) >= npages)
			goto err_range;
		page = READ_ONCE(mr->pages[off >> PAGE_SHIFT]);
		if (!page)
			goto err_range;
	}

	va = kmap_local_page(page);
	p = va + offset_in_page(off) / sizeof(u64);
	spin_lock_irqsave(&mroce_atomic_lock, flags);
	*orig = *p;
	if (!cmp_swap)
		*p += swap_add;
	else if (*orig == compare)
		*p = swap_add;
	spin_unlock_irqrestore(&mroce_atomic_lock, flags);
	kunmap_local(va);
	return 0;

err_range:
	ibdev_dbg_ratelimited(mr->ibmr.device, "MR %#x: atomic at %#llx out of range\n",
			      mr->lkey, iova);
	return -ERANGE;
}

int mroce_mr_fast_reg(struct mroce_dev *mdev, struct ib_mr *ibmr, u32 key,
		      int access)
{
	struct mroce_mr *mr = to_mmr(ibmr);
	unsigned int page_size = ibmr->page_size;
	u64 offset, cap, length = ibmr->length;
	unsigned long flags;
	int err;

	if (ibmr->device != &mdev->ibdev || mr->type != IB_MR_TYPE_MEM_REG) {
		ibdev_dbg_ratelimited(&mdev->ibdev, "reg_mr: MR %#x is not a fast-reg MR of this device\n",
				      ibmr->lkey);
		return -EINVAL;
	}
	if (key >> 8 != mr->index) {
		ibdev_dbg_ratelimited(&mdev->ibdev, "reg_mr: key %#x does not belong to MR %#x\n",
				      key, mr->lkey);
		return -EINVAL;
	}
	err = mroce_check_reg_access(&mdev->ibdev, access, "reg_mr");
	if (err)
		return -EINVAL;
	if (page_size < PAGE_SIZE || !IS_ALIGNED(page_size, PAGE_SIZE))
		return -EINVAL;

	offset = ibmr->iova & (page_size - 1);
	cap = (u64)min(READ_ONCE(mr->npages), mr->max_pages) << PAGE_SHIFT;
	if (offset > cap || length > cap - offset) {
		ibdev_dbg_ratelimited(&mdev->ibdev, "reg_mr: MR %#x: %llu bytes at offset %llu exceed its %llu mapped bytes\n",
				      mr->lkey, length, offset, cap);
		return -EINVAL;
	}

	spin_lock_irqsave(&mr->lock, flags);
	if (mr->state != MROCE_MR_FREE) {
		err = -EINVAL;
	} else {
		mr->lkey = key;
		mr->rkey = key;
		mr->access = access;
		mr->iova = ibmr->iova;
		mr->length = length;
		mr->offset = offset;
		mr->state = MROCE_MR_VALID;
	}
	spin_unlock_irqrestore(&mr->lock, flags);
	if (err)
		ibdev_dbg_ratelimited(&mdev->ibdev, "reg_mr: MR %#x is not free\n",
				      mr->lkey);
	return err;
}

int mroce_mr_invalidate(struct mroce_dev *mdev, u32 key, struct ib_pd *pd)
{
	struct mroce_mr *mr = mroce_mr_get_index(mdev, key);
	unsigned long flags;
	int err = 0;

	if (!mr) {
		ibdev_dbg_ratelimited(&mdev->ibdev, "invalidate: unknown key %#x\n",
				      key);
		return -EINVAL;
	}
	spin_lock_irqsave(&mr->lock, flags);
	if (mr->type != IB_MR_TYPE_MEM_REG || mr->pd != pd ||
	    mr->rkey != key || mr->state == MROCE_MR_INVALID)
		err = -EINVAL;
	else
		mr->state = MROCE_MR_FREE;
	spin_unlock_irqrestore(&mr->lock, flags);
	if (err)
		ibdev_dbg_ratelimited(&mdev->ibdev, "invalidate: key %#x refused (wrong key, PD or MR type)\n",
				      key);
	mroce_mr_put(mr);
	return err;
}

const struct ib_device_ops mroce_mr_ops = {
	.alloc_mr = mroce_alloc_mr,
	.dereg_mr = mroce_dereg_mr,
	.get_dma_mr = mroce_get_dma_mr,
	.map_mr_sg = mroce_map_mr_sg,
	.reg_user_mr = mroce_reg_user_mr,
};
