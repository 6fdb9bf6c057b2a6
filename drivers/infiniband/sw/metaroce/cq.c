// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * MetaRoCE completion queues.
 *
 * A kernel CQ is a ring of struct ib_wc under a spinlock taken with
 * interrupts off, so the transport may post from softirq. A user CQ is a
 * ring of struct metaroce_cqe shared with the process (queue.c), which
 * polls it without entering the kernel; the kernel only produces into it,
 * under the same lock, and reads nothing from it but the consumer index.
 *
 * Upcalls (the completion handler and IB_EVENT_CQ_ERR) run without the
 * lock. Each one is counted in cq->upcalls while the lock is still held,
 * and destroy_cq marks the CQ dying under the lock and then waits for the
 * count to drain, so no upcall starts or runs once destroy_cq returns.
 */

#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/slab.h>
#include <linux/wait_bit.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>
#include "metaroce.h"
#include "cq.h"

/* Ring primitives: the only code that knows the ring's layout. */

static int mroce_ring_init(struct mroce_cq_ring *ring, u32 size)
{
	ring->wc = kvcalloc(size, sizeof(*ring->wc), GFP_KERNEL);
	if (!ring->wc)
		return -ENOMEM;
	ring->size = size;
	ring->prod = 0;
	ring->cons = 0;
	return 0;
}

static void mroce_ring_free(struct mroce_cq_ring *ring)
{
	kvfree(ring->wc);
	ring->wc = NULL;
}

static u32 mroce_ring_count(const struct mroce_cq_ring *ring)
{
	return ring->prod - ring->cons;
}

static bool mroce_ring_full(const struct mroce_cq_ring *ring)
{
	return mroce_ring_count(ring) >= ring->size;
}

static struct ib_wc *mroce_ring_at(struct mroce_cq_ring *ring, u32 idx)
{
	return &ring->wc[idx & (ring->size - 1)];
}

/* Move everything queued in @from, in order, to the empty ring @to. */
static void mroce_ring_move(struct mroce_cq_ring *to,
			    struct mroce_cq_ring *from)
{
	while (from->cons != from->prod)
		*mroce_ring_at(to, to->prod++) =
			*mroce_ring_at(from, from->cons++);
}

/* Shared (user) CQs. */

static u32 mroce_cqe_flags(int wc_flags)
{
	u32 f = 0;

	if (wc_flags & IB_WC_GRH)
		f |= METAROCE_WC_F_GRH;
	if (wc_flags & IB_WC_WITH_IMM)
		f |= METAROCE_WC_F_WITH_IMM;
	if (wc_flags & IB_WC_WITH_INVALIDATE)
		f |= METAROCE_WC_F_WITH_INV;
	return f;
}

static void mroce_cqe_from_wc(struct metaroce_cqe *cqe, const struct ib_wc *wc)
{
	struct metaroce_cqe c = {
		.wr_id = wc->wr_id,
		.status = wc->status,
		.opcode = wc->opcode,
		.vendor_err = wc->vendor_err,
		.byte_len = wc->byte_len,
		.qp_num = wc->qp ? wc->qp->qp_num : 0,
		.src_qp = wc->src_qp,
		.wc_flags = mroce_cqe_flags(wc->wc_flags),
		.pkey_index = wc->pkey_index,
		.slid = wc->slid,
		.sl = wc->sl,
		.dlid_path_bits = wc->dlid_path_bits,
	};

	if (wc->wc_flags & IB_WC_WITH_IMM)
		c.imm_data = (__force u32)wc->ex.imm_data;
	else if (wc->wc_flags & IB_WC_WITH_INVALIDATE)
		c.imm_data = wc->ex.invalidate_rkey;
	memcpy(cqe, &c, sizeof(c));
}

/*
 * CQEs queued in the shared ring, from our producer index and the
 * consumer index userspace wrote; more than the ring holds means that
 * index is garbage (the caller then reports an overflow).
 */
static u32 mroce_cq_shared_count(struct mroce_cq *cq)
{
	return cq->uprod - READ_ONCE(cq->uq.hdr->cons);
}

static u32 mroce_cq_count(struct mroce_cq *cq)
{
	if (mroce_cq_is_shared(cq))
		return mroce_cq_shared_count(cq);
	return mroce_ring_count(&cq->ring);
}

static bool mroce_cq_full(struct mroce_cq *cq)
{
	if (mroce_cq_is_shared(cq))
		return mroce_cq_shared_count(cq) >= cq->uq.num;
	return mroce_ring_full(&cq->ring);
}

static void mroce_cq_push(struct mroce_cq *cq, const struct ib_wc *wc)
{
	if (!mroce_cq_is_shared(cq)) {
		*mroce_ring_at(&cq->ring, cq->ring.prod++) = *wc;
		return;
	}
	mroce_cqe_from_wc(mroce_queue_elem(&cq->uq, cq->uprod), wc);
	/* The CQE is visible before the index that publishes it. */
	smp_store_release(&cq->uq.hdr->prod, ++cq->uprod);
}

static struct ib_ucontext *mroce_udata_uctx(struct ib_udata *udata)
{
	struct mroce_ucontext *uc =
		rdma_udata_to_drv_context(udata, struct mroce_ucontext, ibuc);

	return uc ? &uc->ibuc : NULL;
}

/* A user CQ with a provider of our ABI gets a shared ring. */
static int mroce_cq_create_shared(struct mroce_cq *cq, u32 size,
				  struct ib_udata *udata)
{
	struct metaroce_create_cq_resp resp = {};
	struct ib_ucontext *uctx = mroce_udata_uctx(udata);
	int err;

	if (!uctx)
		return -EINVAL;
	cq->uprod = 0;
	err = mroce_queue_create(uctx, &cq->uq, size,
				 sizeof(struct metaroce_cqe), &resp.cq);
	if (err)
		return err;
	err = ib_copy_to_udata(udata, &resp, sizeof(resp));
	if (err)
		mroce_queue_destroy(&cq->uq);
	return err;
}

static int mroce_cq_resize_shared(struct mroce_cq *cq, u32 size,
				  struct ib_udata *udata)
{
	struct metaroce_resize_cq_resp resp = {};
	struct ib_cq *ibcq = &cq->ibcq;
	struct mroce_queue new, old;
	unsigned long flags;
	u32 queued, i;
	int err;

	if (!udata || udata->outlen < sizeof(resp)) {
		ibdev_info_ratelimited(ibcq->device, "resize_cq: response too short\n");
		return -EINVAL;
	}
	err = mroce_queue_create(mroce_udata_uctx(udata), &new, size,
				 sizeof(struct metaroce_cqe), &resp.cq);
	if (err)
		return err;
	err = ib_copy_to_udata(udata, &resp, sizeof(resp));
	if (err)
		goto err_new;

	spin_lock_irqsave(&cq->lock, flags);
	queued = mroce_cq_shared_count(cq);
	if (queued > cq->uq.num || queued > size) {
		spin_unlock_irqrestore(&cq->lock, flags);
		ibdev_info_ratelimited(ibcq->device,
				       "resize_cq: %u CQEs queued, ring %u, new size %u\n",
				       queued, cq->uq.num, size);
		err = -EINVAL;
		goto err_new;
	}
	/* Pending CQEs move in order to the start of the new ring. */
	for (i = 0; i < queued; i++)
		memcpy(mroce_queue_elem(&new, i),
		       mroce_queue_elem(&cq->uq, cq->uprod - queued + i),
		       sizeof(struct metaroce_cqe));
	new.hdr->prod = queued;
	old = cq->uq;
	cq->uq = new;
	cq->uprod = queued;
	ibcq->cqe = size;
	spin_unlock_irqrestore(&cq->lock, flags);

	mroce_queue_destroy(&old);
	return 0;

err_new:
	mroce_queue_destroy(&new);
	return err;
}

/* Sizes and checks. */

static int mroce_cq_check_cqe(struct ib_device *ibdev, const char *verb,
			      s64 cqe)
{
	int max = ibdev->attrs.max_cqe;

	if (cqe < 1 || cqe > max) {
		ibdev_info_ratelimited(ibdev, "%s: cqe %lld out of range 1..%d\n",
				       verb, cqe, max);
		return -EINVAL;
	}
	return 0;
}

static void mroce_cq_upcall_done(struct mroce_cq *cq)
{
	if (atomic_dec_and_test(&cq->upcalls))
		wake_up_var(&cq->upcalls);
}

/* Verbs. */

static int mroce_create_cq(struct ib_cq *ibcq,
			   const struct ib_cq_init_attr *attr,
			   struct uverbs_attr_bundle *attrs)
{
	struct ib_udata *udata = attrs ? &attrs->driver_udata : NULL;
	struct ib_device *ibdev = ibcq->device;
	struct mroce_cq *cq = to_mcq(ibcq);
	int err;

	if (attr->flags) {
		ibdev_info_ratelimited(ibdev, "create_cq: unsupported flags %#x\n",
				       attr->flags);
		return -EOPNOTSUPP;
	}
	if (attr->comp_vector >= ibdev->num_comp_vectors) {
		ibdev_info_ratelimited(ibdev, "create_cq: comp_vector %u out of range\n",
				       attr->comp_vector);
		return -EINVAL;
	}
	err = mroce_cq_check_cqe(ibdev, "create_cq", attr->cqe);
	if (err)
		return err;
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen)) {
		ibdev_info_ratelimited(ibdev, "create_cq: unknown driver data\n");
		return -EOPNOTSUPP;
	}

	spin_lock_init(&cq->lock);
	atomic_set(&cq->upcalls, 0);
	cq->notify = 0;
	cq->error = false;
	cq->dying = false;
	if (udata && udata->outlen >= sizeof(struct metaroce_create_cq_resp)) {
		err = mroce_cq_create_shared(cq, roundup_pow_of_two(attr->cqe),
					     udata);
		if (err)
			return err;
		ibcq->cqe = cq->uq.num;
		return 0;
	}
	err = mroce_ring_init(&cq->ring, roundup_pow_of_two(attr->cqe));
	if (err)
		return err;
	ibcq->cqe = cq->ring.size;
	return 0;
}

static int mroce_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct mroce_cq *cq = to_mcq(ibcq);
	unsigned long flags;

	spin_lock_irqsave(&cq->lock, flags);
	cq->dying = true;
	spin_unlock_irqrestore(&cq->lock, flags);

	/* Upcalls counted before dying was set may still be running. */
	wait_var_event(&cq->upcalls, !atomic_read(&cq->upcalls));

	if (mroce_cq_is_shared(cq))
		mroce_queue_destroy(&cq->uq);
	else
		mroce_ring_free(&cq->ring);
	return 0;
}

static int mroce_poll_cq(struct ib_cq *ibcq, int num, struct ib_wc *wc)
{
	struct mroce_cq *cq = to_mcq(ibcq);
	unsigned long flags;
	int n;

	if (num <= 0)
		return 0;
	if (mroce_cq_is_shared(cq)) {
		ibdev_info_ratelimited(ibcq->device,
				       "poll_cq: CQ %u is polled in userspace\n",
				       ibcq->res.id);
		return -EOPNOTSUPP;
	}

	spin_lock_irqsave(&cq->lock, flags);
	n = min_t(u32, num, mroce_ring_count(&cq->ring));
	for (int i = 0; i < n; i++)
		wc[i] = *mroce_ring_at(&cq->ring, cq->ring.cons++);
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

static int mroce_req_notify_cq(struct ib_cq *ibcq,
			       enum ib_cq_notify_flags flags)
{
	struct mroce_cq *cq = to_mcq(ibcq);
	u8 arm = flags & IB_CQ_SOLICITED_MASK;
	unsigned long irqflags;
	int ret = 0;

	if (arm != IB_CQ_SOLICITED && arm != IB_CQ_NEXT_COMP) {
		ibdev_info_ratelimited(ibcq->device, "req_notify_cq: bad flags %#x\n",
				       flags);
		return -EINVAL;
	}

	spin_lock_irqsave(&cq->lock, irqflags);
	/* An arm for any completion is not narrowed by a solicited one. */
	if (cq->notify != IB_CQ_NEXT_COMP)
		cq->notify = arm;
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) && mroce_cq_count(cq))
		ret = 1;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return ret;
}

static int mroce_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct mroce_cq *cq = to_mcq(ibcq);
	struct mroce_cq_ring new, old;
	unsigned long flags;
	u32 queued;
	int err;

	err = mroce_cq_check_cqe(ibcq->device, "resize_cq", cqe);
	if (err)
		return err;
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen)) {
		ibdev_info_ratelimited(ibcq->device, "resize_cq: unknown driver data\n");
		return -EOPNOTSUPP;
	}

	if (mroce_cq_is_shared(cq))
		return mroce_cq_resize_shared(cq, roundup_pow_of_two(cqe), udata);

	err = mroce_ring_init(&new, roundup_pow_of_two(cqe));
	if (err)
		return err;

	spin_lock_irqsave(&cq->lock, flags);
	queued = mroce_ring_count(&cq->ring);
	if (queued > cqe) {
		spin_unlock_irqrestore(&cq->lock, flags);
		mroce_ring_free(&new);
		ibdev_info_ratelimited(ibcq->device,
				       "resize_cq: cqe %d is less than the %u queued\n",
				       cqe, queued);
		return -EINVAL;
	}
	mroce_ring_move(&new, &cq->ring);
	old = cq->ring;
	cq->ring = new;
	ibcq->cqe = new.size;
	spin_unlock_irqrestore(&cq->lock, flags);

	mroce_ring_free(&old);
	return 0;
}

/* Transport interface, see cq.h. */

int mroce_cq_post(struct mroce_cq *cq, const struct ib_wc *wc, bool solicited)
{
	struct ib_cq *ibcq = &cq->ibcq;
	unsigned long flags;
	bool upcall;

	spin_lock_irqsave(&cq->lock, flags);
	if (unlikely(cq->error)) {
		spin_unlock_irqrestore(&cq->lock, flags);
		return -ENOSPC;
	}
	if (unlikely(mroce_cq_full(cq))) {
		cq->error = true;
		upcall = !cq->dying && ibcq->event_handler;
		if (upcall)
			atomic_inc(&cq->upcalls);
		spin_unlock_irqrestore(&cq->lock, flags);

		ibdev_warn_ratelimited(ibcq->device, "CQ %u overflowed (%u entries)\n",
				       ibcq->res.id, ibcq->cqe);
		if (upcall) {
			struct ib_event ev = {
				.device = ibcq->device,
				.element.cq = ibcq,
				.event = IB_EVENT_CQ_ERR,
			};

			ibcq->event_handler(&ev, ibcq->cq_context);
			mroce_cq_upcall_done(cq);
		}
		return -ENOSPC;
	}

	mroce_cq_push(cq, wc);

	upcall = cq->notify == IB_CQ_NEXT_COMP ||
		 (cq->notify == IB_CQ_SOLICITED &&
		  (solicited || wc->status != IB_WC_SUCCESS));
	if (upcall) {
		cq->notify = 0;
		upcall = !cq->dying && ibcq->comp_handler;
		if (upcall)
			atomic_inc(&cq->upcalls);
	}
	spin_unlock_irqrestore(&cq->lock, flags);

	if (upcall) {
		ibcq->comp_handler(ibcq, ibcq->cq_context);
		mroce_cq_upcall_done(cq);
	}
	return 0;
}

int mroce_cq_discard_qp(struct mroce_cq *cq, struct ib_qp *qp)
{
	struct mroce_cq_ring *ring = &cq->ring;
	unsigned long flags;
	u32 i, keep;
	int n;

	if (mroce_cq_is_shared(cq))
		return 0;
	spin_lock_irqsave(&cq->lock, flags);
	keep = ring->cons;
	for (i = ring->cons; i != ring->prod; i++) {
		struct ib_wc *wc = mroce_ring_at(ring, i);

		if (wc->qp == qp)
			continue;
		if (keep != i)
			*mroce_ring_at(ring, keep) = *wc;
		keep++;
	}
	n = ring->prod - keep;
	ring->prod = keep;
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

const struct ib_device_ops mroce_cq_ops = {
	.create_cq = mroce_create_cq,
	.destroy_cq = mroce_destroy_cq,
	.poll_cq = mroce_poll_cq,
	.req_notify_cq = mroce_req_notify_cq,
	.resize_cq = mroce_resize_cq,

	INIT_RDMA_OBJ_SIZE(ib_cq, mroce_cq, ibcq),
};
