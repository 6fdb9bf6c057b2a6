// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * MetaRoCE shared receive queues: the verbs and the binding of their WQEs
 * to the QPs that receive into them (see srq.h), from the kernel's array
 * or from the ring shared with the process.
 *
 * Lock order: a QP's lock, then its SRQ's. The SRQ lock is taken with
 * interrupts off: kernel consumers may post receives from any context.
 */

#include <linux/log2.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>
#include "metaroce.h"
#include "srq.h"
#include "trace.h"
#include "uqp.h"

static struct mroce_rwqe *mroce_srq_wqe(struct mroce_srq *srq, u32 idx)
{
	return &srq->wqe[idx & (srq->size - 1)];
}

/* Only the used part of a WQE: its SGE array is mostly empty. */
static void mroce_rwqe_copy(struct mroce_rwqe *to,
			    const struct mroce_rwqe *from)
{
	memcpy(to, from, offsetof(struct mroce_rwqe, sge) +
	       from->num_sge * sizeof(from->sge[0]));
}

static void mroce_srq_event(struct mroce_srq *srq, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = srq->ibsrq.device,
		.element.srq = &srq->ibsrq,
		.event = type,
	};

	if (srq->ibsrq.event_handler)
		srq->ibsrq.event_handler(&ev, srq->ibsrq.srq_context);
}

/*
 * Bring srq->head up to date: a ring SRQ's is the process's prod, read
 * once here. A prod more than the ring's size ahead is garbage that no
 * later value can make sense of: the SRQ breaks for good (true returned
 * the first time, for IB_EVENT_SRQ_ERR) and gives no more WQEs. Lock held.
 */
static bool mroce_srq_sync_head(struct mroce_srq *srq)
{
	u32 prod;

	if (!mroce_srq_has_ring(srq) || srq->broken)
		return false;
	/* Acquire: the WQEs are read only after the index covering them. */
	prod = smp_load_acquire(&srq->ring.hdr->prod);
	if (prod - srq->tail <= srq->size) {
		srq->head = prod;
		return false;
	}
	ibdev_warn_ratelimited(srq->ibsrq.device,
			       "srq: ring producer %u out of range (%u..%u), SRQ broken\n",
			       prod, srq->tail, srq->tail + srq->size);
	srq->broken = true;
	srq->head = srq->tail;
	return true;
}

/* Take the WQE at srq->tail into @rwqe. Lock held. */
static void mroce_srq_take(struct mroce_srq *srq, struct mroce_qp *qp,
			   struct mroce_rwqe *rwqe)
{
	u32 idx = srq->tail++;

	if (!mroce_srq_has_ring(srq)) {
		mroce_rwqe_copy(rwqe, mroce_srq_wqe(srq, idx));
		return;
	}
	/* A bad WQE is taken with no SGE: its message fails, unless empty. */
	if (mroce_uqp_load_rwqe(rwqe, mroce_queue_elem(&srq->ring, idx),
				srq->max_sge))
		ibdev_warn_ratelimited(srq->ibsrq.device,
				       "srq: bad receive WQE %u (wr_id %#llx) in the ring, bound to qp %u\n",
				       idx, rwqe->wr_id, qp->ibqp.qp_num);
}

/*
 * Grow the QP's queue of bound WQEs to hold n. It happens in the receive
 * softirq, so the allocation cannot sleep; when it fails the message
 * finds no WQE (an RNR NAK) and the sender tries it again later. Every
 * bound WQE keeps its index. QP lock held.
 */
static int mroce_srq_bound_fit(struct mroce_qp *qp, u32 n)
{
	u32 size = roundup_pow_of_two(n), i;
	void *rq;

	rq = kcalloc(size, qp->rq_stride, GFP_ATOMIC | __GFP_NOWARN);
	trace_mroce_srq_grow(qp->ibqp.qp_num, size, !!rq);
	if (!rq)
		return -ENOMEM;
	for (i = qp->rq_tail; i != qp->rq_head; i++)
		memcpy(rq + (i & (size - 1)) * qp->rq_stride,
		       mroce_rq_wqe(qp, i), qp->rq_stride);
	kvfree(qp->rq);
	qp->rq = rq;
	qp->rq_size = size;
	return 0;
}

int mroce_srq_bind(struct mroce_qp *qp, u32 n)
{
	struct mroce_srq *srq = to_msrq(qp->ibqp.srq);
	u32 have = qp->rq_head - qp->rq_tail;
	bool broke, limit = false;
	unsigned long flags;
	int err = 0;

	if (have >= n)
		return 0;
	if (n > MROCE_SRQ_BIND_MAX)
		return -ENOBUFS;
	if (n > qp->rq_size) {
		err = mroce_srq_bound_fit(qp, n);
		if (err)
			return err;
	}
	spin_lock_irqsave(&srq->lock, flags);
	broke = mroce_srq_sync_head(srq);
	if (srq->head - srq->tail < n - have) {
		err = -ENOBUFS;
		goto out;
	}
	for (; have < n; have++)
		mroce_srq_take(srq, qp, mroce_rq_wqe(qp, qp->rq_head++));
	if (mroce_srq_has_ring(srq))
		/* Release: the slots were read before the process reuses them. */
		smp_store_release(&srq->ring.hdr->cons, srq->tail);
	/* The limit fires once per arming, when the SRQ drops below it. */
	if (srq->limit && srq->head - srq->tail < srq->limit) {
		srq->limit = 0;
		limit = true;
	}
out:
	spin_unlock_irqrestore(&srq->lock, flags);
	if (broke)
		mroce_srq_event(srq, IB_EVENT_SRQ_ERR);
	if (limit)
		mroce_srq_event(srq, IB_EVENT_SRQ_LIMIT_REACHED);
	return err;
}

static int mroce_srq_check_udata(struct ib_device *ibdev, const char *verb,
				 struct ib_udata *udata)
{
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen)) {
		ibdev_dbg_ratelimited(ibdev, "%s: unknown driver data\n", verb);
		return -EOPNOTSUPP;
	}
	return 0;
}

static int mroce_srq_check_size(struct ib_device *ibdev, const char *verb,
				u32 max_wr)
{
	if (!max_wr || max_wr > ibdev->attrs.max_srq_wr) {
		ibdev_dbg_ratelimited(ibdev, "%s: max_wr %u out of range 1..%u\n",
				      verb, max_wr, ibdev->attrs.max_srq_wr);
		return -EINVAL;
	}
	return 0;
}

static int mroce_srq_create_ring(struct mroce_srq *srq, struct ib_udata *udata)
{
	struct mroce_ucontext *uc =
		rdma_udata_to_drv_context(udata, struct mroce_ucontext, ibuc);
	struct metaroce_create_srq_resp resp = {};
	int err;

	err = mroce_queue_create(&uc->ibuc, &srq->ring, srq->size,
				 sizeof(struct metaroce_recv_wqe), &resp.srq);
	if (err)
		return err;
	err = ib_copy_to_udata(udata, &resp, sizeof(resp));
	if (err)
		mroce_queue_destroy(&srq->ring);
	return err;
}

static int mroce_create_srq(struct ib_srq *ibsrq,
			    struct ib_srq_init_attr *init,
			    struct ib_udata *udata)
{
	struct ib_device *ibdev = ibsrq->device;
	struct mroce_dev *mdev = to_mdev(ibdev);
	struct mroce_srq *srq = to_msrq(ibsrq);
	struct ib_srq_attr *attr = &init->attr;
	int err;

	if (init->srq_type != IB_SRQT_BASIC) {
		ibdev_dbg_ratelimited(ibdev, "create_srq: type %d not supported\n",
				      init->srq_type);
		return -EOPNOTSUPP;
	}
	err = mroce_srq_check_size(ibdev, "create_srq", attr->max_wr);
	if (err)
		return err;
	if (attr->max_sge > MROCE_QP_MAX_SGE ||
	    attr->srq_limit > attr->max_wr) {
		ibdev_dbg_ratelimited(ibdev, "create_srq: max_sge %u (at most %u) or srq_limit %u (at most max_wr) out of range\n",
				      attr->max_sge, MROCE_QP_MAX_SGE,
				      attr->srq_limit);
		return -EINVAL;
	}
	err = mroce_srq_check_udata(ibdev, "create_srq", udata);
	if (err)
		return err;
	if (atomic_inc_return(&mdev->srq_count) > ibdev->attrs.max_srq) {
		ibdev_dbg_ratelimited(ibdev, "create_srq: limit of %u SRQs reached\n",
				      ibdev->attrs.max_srq);
		err = -ENOMEM;
		goto err_count;
	}

	spin_lock_init(&srq->lock);
	srq->size = roundup_pow_of_two(attr->max_wr);
	srq->max_sge = max(attr->max_sge, 1U);
	srq->head = 0;
	srq->tail = 0;
	srq->limit = attr->srq_limit;
	/* A provider of an older ABI keeps the uverbs commands. */
	if (udata && udata->outlen >= sizeof(struct metaroce_create_srq_resp)) {
		err = mroce_srq_create_ring(srq, udata);
		if (err)
			goto err_count;
	} else {
		srq->wqe = kvcalloc(srq->size, sizeof(*srq->wqe), GFP_KERNEL);
		if (!srq->wqe) {
			err = -ENOMEM;
			goto err_count;
		}
	}
	attr->max_wr = srq->size;
	attr->max_sge = srq->max_sge;
	return 0;

err_count:
	atomic_dec(&mdev->srq_count);
	return err;
}

/* IB_SRQ_MAX_WR: move the posted WQEs to a ring of the new size. */
static int mroce_srq_resize(struct mroce_srq *srq, u32 max_wr)
{
	struct ib_device *ibdev = srq->ibsrq.device;
	u32 size = roundup_pow_of_two(max_wr), i, queued;
	struct mroce_rwqe *ring, *old;
	unsigned long flags;

	ring = kvcalloc(size, sizeof(*ring), GFP_KERNEL);
	if (!ring)
		return -ENOMEM;
	spin_lock_irqsave(&srq->lock, flags);
	queued = srq->head - srq->tail;
	if (queued > max_wr || srq->limit > max_wr) {
		spin_unlock_irqrestore(&srq->lock, flags);
		kvfree(ring);
		ibdev_dbg_ratelimited(ibdev, "modify_srq: max_wr %u is below the %u queued or the limit %u\n",
				      max_wr, queued, srq->limit);
		return -EINVAL;
	}
	for (i = srq->tail; i != srq->head; i++)
		mroce_rwqe_copy(&ring[i & (size - 1)], mroce_srq_wqe(srq, i));
	old = srq->wqe;
	srq->wqe = ring;
	srq->size = size;
	spin_unlock_irqrestore(&srq->lock, flags);
	kvfree(old);
	return 0;
}

/*
 * IB_SRQ_MAX_WR of a ring SRQ: a new ring, its place written to the
 * address the provider gave, the queued WQEs moved to it at the same
 * indices (copied as they are: binding validates them).
 */
static int mroce_srq_resize_ring(struct mroce_srq *srq, u32 max_wr,
				 struct ib_udata *udata)
{
	struct ib_device *ibdev = srq->ibsrq.device;
	struct mroce_ucontext *uc =
		rdma_udata_to_drv_context(udata, struct mroce_ucontext, ibuc);
	u32 size = roundup_pow_of_two(max_wr), i, queued;
	struct metaroce_modify_srq_cmd cmd;
	struct metaroce_queue_info info;
	struct mroce_queue ring = {}, old;
	unsigned long flags;
	bool broke;
	int err;

	if (udata->inlen < sizeof(cmd) ||
	    ib_copy_from_udata(&cmd, udata, sizeof(cmd)) ||
	    !cmd.queue_info_addr) {
		ibdev_dbg_ratelimited(ibdev, "modify_srq: resizing a ring SRQ needs the address for the new ring's place\n");
		return -EINVAL;
	}
	err = mroce_queue_create(&uc->ibuc, &ring, size,
				 sizeof(struct metaroce_recv_wqe), &info);
	if (err)
		return err;
	if (copy_to_user(u64_to_user_ptr(cmd.queue_info_addr), &info,
			 sizeof(info))) {
		mroce_queue_destroy(&ring);
		return -EFAULT;
	}
	spin_lock_irqsave(&srq->lock, flags);
	broke = mroce_srq_sync_head(srq);
	queued = srq->head - srq->tail;
	if (srq->broken || queued > max_wr || srq->limit > max_wr) {
		spin_unlock_irqrestore(&srq->lock, flags);
		mroce_queue_destroy(&ring);
		if (broke)
			mroce_srq_event(srq, IB_EVENT_SRQ_ERR);
		ibdev_dbg_ratelimited(ibdev, "modify_srq: max_wr %u is below the %u queued or the limit %u, or the ring is broken\n",
				      max_wr, queued, srq->limit);
		return -EINVAL;
	}
	for (i = srq->tail; i != srq->head; i++)
		memcpy(mroce_queue_elem(&ring, i),
		       mroce_queue_elem(&srq->ring, i), ring.elem_size);
	ring.hdr->cons = srq->tail;
	ring.hdr->prod = srq->head;
	old = srq->ring;
	srq->ring = ring;
	srq->size = size;
	spin_unlock_irqrestore(&srq->lock, flags);
	/* Pages the process still maps stay until it unmaps them. */
	mroce_queue_destroy(&old);
	return 0;
}

/* Driver data of modify_srq: only a ring SRQ's command. */
static int mroce_srq_check_modify_udata(struct mroce_srq *srq,
					struct ib_udata *udata)
{
	size_t known = sizeof(struct metaroce_modify_srq_cmd);

	if (!udata || !mroce_srq_has_ring(srq))
		return mroce_srq_check_udata(srq->ibsrq.device, "modify_srq",
					     udata);
	if (udata->inlen > known &&
	    !ib_is_udata_cleared(udata, known, udata->inlen - known)) {
		ibdev_dbg_ratelimited(srq->ibsrq.device,
				      "modify_srq: unknown driver data\n");
		return -EOPNOTSUPP;
	}
	return 0;
}

static int mroce_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
			    enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct ib_device *ibdev = ibsrq->device;
	struct mroce_srq *srq = to_msrq(ibsrq);
	unsigned long flags;
	int err;

	if (mask & ~(IB_SRQ_MAX_WR | IB_SRQ_LIMIT)) {
		ibdev_dbg_ratelimited(ibdev, "modify_srq: unsupported mask %#x\n",
				      mask);
		return -EINVAL;
	}
	err = mroce_srq_check_modify_udata(srq, udata);
	if (err)
		return err;
	if (mask & IB_SRQ_MAX_WR) {
		err = mroce_srq_check_size(ibdev, "modify_srq", attr->max_wr);
		if (!err && mroce_srq_has_ring(srq))
			err = mroce_srq_resize_ring(srq, attr->max_wr, udata);
		else if (!err)
			err = mroce_srq_resize(srq, attr->max_wr);
		if (err)
			return err;
	}
	if (mask & IB_SRQ_LIMIT) {
		spin_lock_irqsave(&srq->lock, flags);
		if (attr->srq_limit > srq->size)
			err = -EINVAL;
		else
			srq->limit = attr->srq_limit;
		spin_unlock_irqrestore(&srq->lock, flags);
		if (err)
			ibdev_dbg_ratelimited(ibdev, "modify_srq: limit %u above max_wr %u\n",
					      attr->srq_limit, srq->size);
	}
	return err;
}

static int mroce_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct mroce_srq *srq = to_msrq(ibsrq);
	unsigned long flags;

	spin_lock_irqsave(&srq->lock, flags);
	attr->max_wr = srq->size;
	attr->max_sge = srq->max_sge;
	attr->srq_limit = srq->limit;
	spin_unlock_irqrestore(&srq->lock, flags);
	return 0;
}

/* The core refuses while QPs use the SRQ (-EBUSY), so none binds now. */
static int mroce_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct mroce_srq *srq = to_msrq(ibsrq);

	mroce_queue_destroy(&srq->ring);
	kvfree(srq->wqe);
	srq->wqe = NULL;
	atomic_dec(&to_mdev(ibsrq->device)->srq_count);
	return 0;
}

/*
 * Kernel consumers and ib_uverbs (POST_SRQ_RECV, which has copied the
 * user's work requests into kernel memory) both come here; the SGEs are
 * only checked against their MRs when data is placed.
 */
static int mroce_post_srq_recv(struct ib_srq *ibsrq,
			       const struct ib_recv_wr *wr,
			       const struct ib_recv_wr **bad_wr)
{
	struct mroce_srq *srq = to_msrq(ibsrq);
	struct mroce_rwqe *rwqe;
	unsigned long flags;
	int err = 0;

	/* The process writes a ring SRQ's WQEs itself. */
	if (mroce_srq_has_ring(srq)) {
		ibdev_info_ratelimited(ibsrq->device,
				       "post_srq_recv: WRs posted by command to a ring SRQ\n");
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&srq->lock, flags);
	for (; wr; wr = wr->next) {
		if (wr->num_sge < 0 || wr->num_sge > srq->max_sge) {
			ibdev_dbg_ratelimited(ibsrq->device, "post_srq_recv: num_sge %d > max_sge %u\n",
					      wr->num_sge, srq->max_sge);
			err = -EINVAL;
			break;
		}
		if (srq->head - srq->tail >= srq->size) {
			ibdev_dbg_ratelimited(ibsrq->device, "post_srq_recv: SRQ full (%u)\n",
					      srq->size);
			err = -ENOMEM;
			break;
		}
		rwqe = mroce_srq_wqe(srq, srq->head);
		memset(rwqe, 0, offsetof(struct mroce_rwqe, sge));
		rwqe->wr_id = wr->wr_id;
		rwqe->num_sge = wr->num_sge;
		memcpy(rwqe->sge, wr->sg_list,
		       wr->num_sge * sizeof(*wr->sg_list));
		srq->head++;
	}
	spin_unlock_irqrestore(&srq->lock, flags);
	if (err)
		*bad_wr = wr;
	return err;
}

const struct ib_device_ops mroce_srq_ops = {
	.create_srq = mroce_create_srq,
	.destroy_srq = mroce_destroy_srq,
	.modify_srq = mroce_modify_srq,
	.post_srq_recv = mroce_post_srq_recv,
	.query_srq = mroce_query_srq,

	INIT_RDMA_OBJ_SIZE(ib_srq, mroce_srq, ibsrq),
};
