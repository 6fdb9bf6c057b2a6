// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * MetaRoCE work requests posted to a connected QP: each checked and
 * copied into its send or receive WQE, for kernel ULPs and for userspace
 * through uverbs. UD QPs post in ud.c; a QP with mapped rings only rings
 * its doorbell here (uqp.c).
 */

#include <linux/slab.h>
#include <linux/uaccess.h>
#include "metaroce.h"
#include "qp.h"
#include "ud.h"
#include "uqp.h"

/* Copy a work request into its WQE; validates what the WR alone shows. */
int mroce_init_swqe(struct mroce_qp *qp, struct mroce_swqe *wqe,
		    const struct ib_send_wr *wr)
{
	u32 len = 0;
	int i;

	memset(wqe, 0, offsetof(struct mroce_swqe, sge));
	if (wr->num_sge > qp->max_send_sge || wr->num_sge < 0)
		return -EINVAL;
	wqe->wr_id = wr->wr_id;
	wqe->opcode = wr->opcode;
	wqe->send_flags = wr->send_flags;
	wqe->num_sge = wr->num_sge;
	for (i = 0; i < wr->num_sge; i++) {
		wqe->sge[i] = wr->sg_list[i];
		len += wr->sg_list[i].length;
	}
	wqe->length = len;

	switch (wr->opcode) {
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		wqe->imm = wr->ex.imm_data;
		fallthrough;
	case IB_WR_SEND:
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_READ:
		break;
	case IB_WR_SEND_WITH_INV:
		wqe->inv_rkey = wr->ex.invalidate_rkey;
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		if (wr->num_sge != 1 || wr->sg_list[0].length < 8)
			return -EINVAL;
		wqe->remote_addr = atomic_wr(wr)->remote_addr;
		wqe->rkey = atomic_wr(wr)->rkey;
		wqe->compare_add = atomic_wr(wr)->compare_add;
		wqe->swap = atomic_wr(wr)->swap;
		wqe->length = 8;
		return 0;
	case IB_WR_LOCAL_INV:
		wqe->inv_rkey = wr->ex.invalidate_rkey;
		return 0;
	case IB_WR_REG_MR:
		wqe->reg_mr = reg_wr(wr)->mr;
		wqe->reg_key = reg_wr(wr)->key;
		wqe->reg_access = reg_wr(wr)->access;
		return 0;
	default:
		return -EINVAL;
	}
	if (wr->opcode == IB_WR_RDMA_WRITE ||
	    wr->opcode == IB_WR_RDMA_WRITE_WITH_IMM ||
	    wr->opcode == IB_WR_RDMA_READ) {
		wqe->remote_addr = rdma_wr(wr)->remote_addr;
		wqe->rkey = rdma_wr(wr)->rkey;
	}
	if (!(wr->send_flags & IB_SEND_INLINE) || wr->opcode == IB_WR_RDMA_READ)
		return 0;

	/* Inline: the data itself goes into the WQE now. */
	if (len > qp->max_inline)
		return -EINVAL;
	len = 0;
	for (i = 0; i < wr->num_sge; i++) {
		const struct ib_sge *sge = &wr->sg_list[i];

		if (qp->is_user) {
			if (copy_from_user(wqe->inline_data + len,
					   u64_to_user_ptr(sge->addr),
					   sge->length))
				return -EFAULT;
		} else {
			memcpy(wqe->inline_data + len,
			       (void *)(uintptr_t)sge->addr, sge->length);
		}
		len += sge->length;
	}
	wqe->num_sge = 0;
	return 0;
}

/*
 * Userspace posts through uverbs in process context, and inline data must
 * be copied from user memory: build each WQE outside the QP lock.
 */
static int mroce_post_send_user(struct mroce_qp *qp,
				const struct ib_send_wr *wr,
				const struct ib_send_wr **bad_wr)
{
	struct mroce_swqe *tmp;
	int err = 0;

	tmp = kmalloc(sizeof(*tmp), GFP_KERNEL);
	if (!tmp) {
		*bad_wr = wr;
		return -ENOMEM;
	}
	for (; wr; wr = wr->next) {
		err = mroce_init_swqe(qp, tmp, wr);
		if (err)
			break;
		spin_lock_bh(&qp->lock);
		if (qp->state < IB_QPS_RTS && qp->state != IB_QPS_ERR)
			err = -EINVAL;
		else if (qp->sq_head - qp->sq_tail >= qp->sq_size)
			err = -ENOMEM;
		else
			memcpy(mroce_sq_wqe(qp, qp->sq_head++), tmp,
			       qp->sq_stride);
		if (!err && qp->state == IB_QPS_ERR)
			mroce_qp_flush(qp);
		spin_unlock_bh(&qp->lock);
		if (err)
			break;
	}
	kfree(tmp);
	if (err)
		*bad_wr = wr;
	mroce_tx_kick(qp);
	return err;
}

static int mroce_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
			   const struct ib_send_wr **bad_wr)
{
	struct mroce_qp *qp = to_mqp(ibqp);
	int err = 0;

	if (mroce_qp_is_ud(qp))
		return mroce_ud_post_send(qp, wr, bad_wr);
	if (mroce_qp_has_rings(qp)) {
		if (!wr)
			return mroce_uqp_post_send(qp);
		ibdev_info_ratelimited(ibqp->device,
				       "qp %u: post_send with WRs to a ring QP\n",
				       ibqp->qp_num);
		*bad_wr = wr;
		return -EINVAL;
	}
	if (qp->is_user)
		return mroce_post_send_user(qp, wr, bad_wr);
	spin_lock_bh(&qp->lock);
	if (qp->state < IB_QPS_RTS && qp->state != IB_QPS_ERR) {
		err = -EINVAL;
		*bad_wr = wr;
		goto out;
	}
	for (; wr; wr = wr->next) {
		struct mroce_swqe *wqe;

		if (qp->sq_head - qp->sq_tail >= qp->sq_size) {
			err = -ENOMEM;
			break;
		}
		wqe = mroce_sq_wqe(qp, qp->sq_head);
		err = mroce_init_swqe(qp, wqe, wr);
		if (err)
			break;
		qp->sq_head++;
	}
	if (err)
		*bad_wr = wr;
	if (qp->state == IB_QPS_ERR)
		mroce_qp_flush(qp);
out:
	spin_unlock_bh(&qp->lock);
	mroce_tx_kick(qp);
	return err;
}

/* Append one receive work request to the receive queue. Lock held. */
int mroce_rq_add(struct mroce_qp *qp, const struct ib_recv_wr *wr)
{
	struct mroce_rwqe *rwqe;

	if (wr->num_sge > qp->max_recv_sge || wr->num_sge < 0)
		return -EINVAL;
	if (qp->rq_head - qp->rq_tail >= qp->rq_size)
		return -ENOMEM;
	rwqe = mroce_rq_wqe(qp, qp->rq_head);
	memset(rwqe, 0, offsetof(struct mroce_rwqe, sge));
	rwqe->wr_id = wr->wr_id;
	rwqe->num_sge = wr->num_sge;
	memcpy(rwqe->sge, wr->sg_list, wr->num_sge * sizeof(*wr->sg_list));
	qp->rq_head++;
	return 0;
}

static int mroce_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
			   const struct ib_recv_wr **bad_wr)
{
	struct mroce_qp *qp = to_mqp(ibqp);
	int err = 0;

	if (ibqp->srq) {
		ibdev_dbg_ratelimited(ibqp->device, "qp %u: post_recv on a QP with an SRQ\n",
				      ibqp->qp_num);
		*bad_wr = wr;
		return -EINVAL;
	}
	if (mroce_qp_is_ud(qp))
		return mroce_ud_post_recv(qp, wr, bad_wr);
	if (mroce_qp_has_rings(qp)) {
		if (!wr)
			return mroce_uqp_post_recv(qp);
		ibdev_info_ratelimited(ibqp->device,
				       "qp %u: post_recv with WRs to a ring QP\n",
				       ibqp->qp_num);
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_bh(&qp->lock);
	if (qp->state == IB_QPS_RESET) {
		err = -EINVAL;
		*bad_wr = wr;
		goto out;
	}
	for (; wr; wr = wr->next) {
		err = mroce_rq_add(qp, wr);
		if (err) {
			*bad_wr = wr;
			break;
		}
	}
	if (qp->state == IB_QPS_ERR)
		mroce_qp_flush(qp);
out:
	spin_unlock_bh(&qp->lock);
	return err;
}

const struct ib_device_ops mroce_post_ops = {
	.post_recv = mroce_post_recv,
	.post_send = mroce_post_send,
};
