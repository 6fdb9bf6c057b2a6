// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * MetaRoCE queue pairs: creation, the IBTA state machine, completion of
 * work requests, flushing and destruction. Posting them is in post.c.
 */

#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <net/ipv6.h>
#include <rdma/ib_cache.h>
#include <rdma/uverbs_ioctl.h>
#include "metaroce.h"
#include "qp.h"
#include "cq.h"
#include "mr.h"
#include "trace.h"
#include "srq.h"
#include "ud.h"
#include "uqp.h"

struct mroce_qp *mroce_qp_get(struct mroce_dev *mdev, u32 qpn)
{
	struct mroce_qp *qp;

	rcu_read_lock();
	qp = xa_load(&mdev->qp_xa, qpn);
	if (qp && !refcount_inc_not_zero(&qp->ref))
		qp = NULL;
	rcu_read_unlock();
	return qp;
}

void mroce_qp_put(struct mroce_qp *qp)
{
	if (refcount_dec_and_test(&qp->ref))
		complete(&qp->released);
}

static void mroce_post_wc(struct mroce_qp *qp, struct ib_cq *ibcq,
			  struct ib_wc *wc, bool solicited)
{
	wc->qp = &qp->ibqp;
	if (mroce_cq_post(to_mcq(ibcq), wc, solicited))
		ibdev_warn_ratelimited(qp->ibqp.device,
				       "qp %u: completion queue overflow\n",
				       qp->ibqp.qp_num);
}

static enum ib_wc_opcode mroce_wc_opcode(u32 wr_opcode)
{
	switch (wr_opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return IB_WC_RDMA_WRITE;
	case IB_WR_RDMA_READ:
		return IB_WC_RDMA_READ;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		return IB_WC_COMP_SWAP;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return IB_WC_FETCH_ADD;
	case IB_WR_LOCAL_INV:
		return IB_WC_LOCAL_INV;
	case IB_WR_REG_MR:
		return IB_WC_REG_MR;
	case IB_WR_BIND_MW:
		return IB_WC_BIND_MW;
	default:
		return IB_WC_SEND;
	}
}

/*
 * Retire the send WQE at sq_tail. Successful unsignaled WQEs of a QP
 * created with IB_SIGNAL_REQ_WR produce no completion. Lock held.
 */
void mroce_qp_complete_send(struct mroce_qp *qp, struct mroce_swqe *wqe,
			    enum ib_wc_status status)
{
	struct ib_wc wc = {};

	qp->sq_tail++;
	mroce_uqp_sq_done(qp);
	if (status == IB_WC_SUCCESS && !(wqe->send_flags & IB_SEND_SIGNALED) &&
	    !qp->sq_sig_all)
		return;
	wc.wr_id = wqe->wr_id;
	wc.status = status;
	wc.opcode = mroce_wc_opcode(wqe->opcode);
	wc.byte_len = wqe->length;
	mroce_post_wc(qp, qp->ibqp.send_cq, &wc, false);
}

/* Flush everything outstanding with IB_WC_WR_FLUSH_ERR. Lock held. */
void mroce_qp_flush(struct mroce_qp *qp)
{
	struct ib_wc wc = {};

	while (qp->sq_tail != qp->sq_head) {
		struct mroce_swqe *wqe = mroce_sq_wqe(qp, qp->sq_tail);

		qp->sq_tail++;
		wc.wr_id = wqe->wr_id;
		wc.status = IB_WC_WR_FLUSH_ERR;
		wc.opcode = mroce_wc_opcode(wqe->opcode);
		mroce_post_wc(qp, qp->ibqp.send_cq, &wc, false);
	}
	qp->sq_tx = qp->sq_tail;
	mroce_uqp_sq_done(qp);
	/* A receive ring holds at most one more queue's worth: two passes. */
	for (int pass = 0; pass < 2; pass++) {
		if (pass)
			mroce_uqp_pull_recv(qp);
		while (qp->rq && qp->rq_tail != qp->rq_head) {
			struct mroce_rwqe *rwqe = mroce_rq_wqe(qp, qp->rq_tail);

			qp->rq_tail++;
			memset(&wc, 0, sizeof(wc));
			wc.wr_id = rwqe->wr_id;
			wc.status = IB_WC_WR_FLUSH_ERR;
			wc.opcode = IB_WC_RECV;
			mroce_post_wc(qp, qp->ibqp.recv_cq, &wc, false);
		}
	}
}

/* Move to the error state, tell the consumer, flush. Lock held. */
void mroce_qp_error(struct mroce_qp *qp)
{
	struct ib_event ev = {};

	if (qp->state == IB_QPS_ERR)
		return;
	trace_mroce_qp_state(qp->ibqp.qp_num, qp->state, IB_QPS_ERR);
	qp->state = IB_QPS_ERR;
	mroce_uqp_state_changed(qp);
	mroce_qp_flush(qp);
	if (qp->ibqp.event_handler) {
		ev.device = qp->ibqp.device;
		ev.element.qp = &qp->ibqp;
		ev.event = IB_EVENT_QP_FATAL;
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
		/*
		 * The QP takes no more WQEs from its SRQ and has flushed the
		 * bound ones; ib_drain_qp() waits for this event.
		 */
		if (qp->ibqp.srq) {
			ev.event = IB_EVENT_QP_LAST_WQE_REACHED;
			qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
		}
	}
}

static int mroce_check_cap(struct ib_device *ibdev, struct ib_qp_cap *cap)
{
	if (cap->max_send_wr > ibdev->attrs.max_qp_wr ||
	    cap->max_recv_wr > ibdev->attrs.max_qp_wr ||
	    cap->max_send_sge > MROCE_QP_MAX_SGE ||
	    cap->max_recv_sge > MROCE_QP_MAX_SGE ||
	    cap->max_inline_data > MROCE_MAX_INLINE) {
		ibdev_dbg(ibdev, "create_qp: capabilities out of range\n");
		return -EINVAL;
	}
	return 0;
}

/*
 * The send WQE's tail holds max(SGEs, inline bytes) the application
 * asked for, in whole SGEs: a WQE of the most (440 bytes) for every slot
 * of every QP was the largest part of a QP's memory. What the tail holds
 * is what the QP reports it takes.
 */
static void mroce_qp_set_sq_caps(struct mroce_qp *qp,
				 const struct ib_qp_cap *cap)
{
	u32 tail = max_t(u32, cap->max_send_sge * sizeof(struct ib_sge),
			 cap->max_inline_data);

	tail = round_up(max_t(u32, tail, 1), sizeof(struct ib_sge));
	BUILD_BUG_ON(offsetof(struct mroce_swqe, sge) % 8 ||
		     sizeof(struct ib_sge) % 8 ||
		     MROCE_MAX_INLINE % sizeof(struct ib_sge));
	qp->max_send_sge = tail / sizeof(struct ib_sge);
	qp->max_inline = tail;
	qp->sq_stride = offsetof(struct mroce_swqe, sge) + tail;
}

/* What create_qp allocates; each part may be missing. */
static void mroce_qp_free(struct mroce_qp *qp)
{
	mroce_paths_destroy(qp);
	mroce_uqp_destroy(qp);
	kvfree(qp->tx);
	kfree(qp->rxi);
	kfree(qp->resp);
	kvfree(qp->sq);
	kvfree(qp->rq);
}

static int mroce_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
			   struct ib_udata *udata)
{
	struct mroce_dev *mdev = to_mdev(ibqp->device);
	struct mroce_qp *qp = to_mqp(ibqp);
	u32 qpn;
	int err;

	if (init->qp_type != IB_QPT_RC && init->qp_type != IB_QPT_UD &&
	    init->qp_type != IB_QPT_GSI) {
		ibdev_dbg(ibqp->device, "create_qp: type %d not supported yet\n",
			  init->qp_type);
		return -EOPNOTSUPP;
	}
	if (init->srq && init->qp_type == IB_QPT_GSI) {
		ibdev_dbg(ibqp->device, "create_qp: the GSI QP takes no SRQ\n");
		return -EINVAL;
	}
	if (init->create_flags)
		return -EOPNOTSUPP;
	err = mroce_check_cap(ibqp->device, &init->cap);
	if (err)
		return err;

	qp->mdev = mdev;
	qp->is_user = !!udata;
	spin_lock_init(&qp->lock);
	mutex_init(&qp->state_mutex);
	refcount_set(&qp->ref, 1);
	init_completion(&qp->released);
	if (init->qp_type == IB_QPT_RC)
		INIT_WORK(&qp->tx_work, mroce_tx_work);
	else
		INIT_WORK(&qp->tx_work, mroce_ud_tx_work);
	timer_setup(&qp->rto_timer, mroce_rto_fire, 0);
	qp->state = IB_QPS_RESET;
	qp->sq_sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR;
	qp->sq_size = roundup_pow_of_two(max(init->cap.max_send_wr, 1U));
	mroce_qp_set_sq_caps(qp, &init->cap);
	/*
	 * With an SRQ, rq holds the WQEs bound to messages in flight, as
	 * many as the SRQ's WQEs take SGEs; it grows with the messages.
	 */
	if (init->srq) {
		qp->rq_size = MROCE_SRQ_BIND_MIN;
		qp->max_recv_sge = to_msrq(init->srq)->max_sge;
	} else {
		qp->rq_size = roundup_pow_of_two(max(init->cap.max_recv_wr, 1U));
		qp->max_recv_sge = max(init->cap.max_recv_sge, 1U);
	}
	qp->rq_stride = offsetof(struct mroce_rwqe, sge) +
			qp->max_recv_sge * sizeof(struct ib_sge);
	qp->mtu = init->qp_type == IB_QPT_RC ? 1024 :
		  ib_mtu_enum_to_int(READ_ONCE(mdev->active_mtu));
	qp->seg = qp->mtu;
	qp->pipe = MROCE_TX_PIPE;

	qp->sq = kvcalloc(qp->sq_size, qp->sq_stride, GFP_KERNEL);
	qp->rq = kvcalloc(qp->rq_size, qp->rq_stride, GFP_KERNEL);
	if (!qp->sq || !qp->rq) {
		err = -ENOMEM;
		goto err_free;
	}
	if (init->qp_type == IB_QPT_RC) {
		/* Per-PSN state each way: too big to sit in the QP. */
		BUILD_BUG_ON(sizeof(*qp->tx) != MROCE_TXPKT_SIZE);
		BUILD_BUG_ON(METAROCE_F_ALL > U8_MAX);
		BUILD_BUG_ON(MROCE_READ_CHUNK > U8_MAX);
		err = mroce_txring_create(qp);
		if (!err)
			err = mroce_rxring_create(qp);
		if (err)
			goto err_free;
		err = mroce_paths_create(qp);
		if (err)
			goto err_free;
		err = mroce_txq_create(qp);
		if (err)
			goto err_free;
	}

	if (udata) {
		err = mroce_uqp_create(qp, init, udata);
		if (err)
			goto err_free;
	}

	if (init->qp_type == IB_QPT_GSI) {
		/* QP1 of the (single) port; QPNs below 16 are reserved. */
		qpn = METAROCE_QPN_GSI;
		err = xa_insert(&mdev->qp_xa, qpn, qp, GFP_KERNEL);
	} else {
		err = xa_alloc_cyclic(&mdev->qp_xa, &qpn, qp,
				      XA_LIMIT(16, METAROCE_QPN_MASK),
				      &mdev->qp_next, GFP_KERNEL);
	}
	if (err < 0)
		goto err_free;
	ibqp->qp_num = qpn;

	init->cap.max_send_wr = qp->sq_size;
	init->cap.max_recv_wr = init->srq ? 0 : qp->rq_size;
	init->cap.max_send_sge = qp->max_send_sge;
	init->cap.max_recv_sge = init->srq ? 0 : qp->max_recv_sge;
	init->cap.max_inline_data = qp->max_inline;
	return 0;

err_free:
	mroce_txq_destroy(qp);
	mroce_qp_free(qp);
	return err;
}

static int mroce_set_path(struct mroce_qp *qp, struct ib_qp_attr *attr)
{
	const struct ib_global_route *grh = rdma_ah_read_grh(&attr->ah_attr);
	const struct ib_gid_attr *sgid = grh->sgid_attr;
	struct in6_addr *dgid = (struct in6_addr *)grh->dgid.raw;

	if (!(rdma_ah_get_ah_flags(&attr->ah_attr) & IB_AH_GRH) || !sgid) {
		ibdev_dbg(qp->ibqp.device, "modify_qp: address without GRH\n");
		return -EINVAL;
	}
	qp->saddr = *(struct in6_addr *)sgid->gid.raw;
	qp->daddr = *dgid;
	qp->is_v4 = ipv6_addr_v4mapped(&qp->saddr);
	if (qp->is_v4 != ipv6_addr_v4mapped(&qp->daddr)) {
		ibdev_dbg(qp->ibqp.device, "modify_qp: mixed IPv4/IPv6 GIDs\n");
		return -EINVAL;
	}
	qp->tclass = grh->traffic_class;
	qp->hop_limit = grh->hop_limit ?: 64;
	return 0;
}

static void mroce_qp_reset(struct mroce_qp *qp)
{
	qp->sq_head = 0;
	qp->sq_tx = 0;
	qp->sq_tail = 0;
	qp->rq_head = 0;
	qp->rq_tail = 0;
	qp->rq_msn = 0;
	qp->snd_msn = 0;
	qp->rd_msn = 0;
	qp->rd_pending = 0;
	qp->rx_write_bytes = 0;
	qp->acache_next = 0;
	if (qp->resp)
		memset(qp->resp->acache, 0, sizeof(qp->resp->acache));
	qp->rdq_head = 0;
	qp->rdq_tail = 0;
	qp->lost_count = 0;
	qp->retries = 0;
	qp->ack_due = false;
	qp->nak_syndrome = 0;
	qp->fatal_pending = false;
	qp->fatal_nak = 0;
	mroce_rtt_init(&qp->rtt);
	qp->peer_rto_ns = 0;
	mroce_txring_reset(qp);
	mroce_tx_acks_reset(qp, qp->snd_psn);
	mroce_uqp_reset(qp);
}

/*
 * The segment (section 6) a connection of path MTU path_mtu uses on this
 * device; 0: the port's, which gives the largest the link carries. The
 * netdev's MTU less the headers, rather than the IB MTU enum, which cuts
 * a 1500-byte frame to 1024.
 */
u32 mroce_dev_seg(struct mroce_dev *mdev, u32 path_mtu)
{
	u32 port = ib_mtu_enum_to_int(READ_ONCE(mdev->active_mtu));

	return mroce_seg_len(READ_ONCE(mdev->ndev->mtu), path_mtu ?: port, port);
}

/* Fixed when the connection starts. */
static void mroce_qp_set_seg(struct mroce_qp *qp)
{
	qp->seg = mroce_dev_seg(qp->mdev, qp->mtu);
	qp->pipe = clamp_t(u32, MROCE_TX_PIPE_BYTES / qp->seg,
			   MROCE_TX_PIPE_MIN, MROCE_TX_PIPE);
}

static int mroce_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
			   int mask, struct ib_udata *udata)
{
	struct mroce_qp *qp = to_mqp(ibqp);
	struct mroce_resp *resp = NULL;
	enum ib_qp_state cur, new;
	int err = 0;

	if (mask & ~IB_QP_ATTR_STANDARD_BITS)
		return -EOPNOTSUPP;

	mutex_lock(&qp->state_mutex);
	/*
	 * The read and atomic queues, once the QP may answer either: a QP
	 * that is only written to or sent to, as most are, never needs them.
	 * Kept until the QP is destroyed.
	 */
	BUILD_BUG_ON(sizeof(*qp->resp) != MROCE_RESP_SIZE);
	if (ibqp->qp_type == IB_QPT_RC && !qp->resp &&
	    (mask & IB_QP_ACCESS_FLAGS) &&
	    (attr->qp_access_flags &
	     (IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC))) {
		resp = kzalloc(sizeof(*resp), GFP_KERNEL);
		if (!resp) {
			mutex_unlock(&qp->state_mutex);
			return -ENOMEM;
		}
	}
	spin_lock_bh(&qp->lock);
	cur = (mask & IB_QP_CUR_STATE) ? attr->cur_qp_state : qp->state;
	new = (mask & IB_QP_STATE) ? attr->qp_state : cur;
	if (!ib_modify_qp_is_ok(cur, new, ibqp->qp_type, mask)) {
		ibdev_dbg(ibqp->device, "qp %u: bad transition %d -> %d mask %#x\n",
			  ibqp->qp_num, cur, new, mask);
		err = -EINVAL;
		goto out;
	}
	if ((mask & IB_QP_PATH_MTU) &&
	    (attr->path_mtu < IB_MTU_256 || attr->path_mtu > IB_MTU_4096)) {
		err = -EINVAL;
		goto out;
	}
	if (((mask & IB_QP_MAX_QP_RD_ATOMIC) &&
	     attr->max_rd_atomic > MROCE_MAX_RD_ATOM) ||
	    ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	     attr->max_dest_rd_atomic > MROCE_MAX_RD_ATOM)) {
		ibdev_dbg(ibqp->device, "qp %u: rd_atomic %u/%u over %u\n",
			  ibqp->qp_num, attr->max_rd_atomic,
			  attr->max_dest_rd_atomic, MROCE_MAX_RD_ATOM);
		err = -EINVAL;
		goto out;
	}
	if (mask & IB_QP_AV) {
		err = mroce_set_path(qp, attr);
		if (err)
			goto out;
	}

	if (resp) {
		qp->resp = resp;	/* before the access that needs it */
		resp = NULL;
	}
	if (mask & IB_QP_ACCESS_FLAGS)
		qp->access = attr->qp_access_flags;
	if (mask & IB_QP_PATH_MTU)
		qp->mtu = min_t(u32, ib_mtu_enum_to_int(attr->path_mtu),
				ib_mtu_enum_to_int(qp->mdev->active_mtu));
	if (mask & IB_QP_DEST_QPN)
		qp->dqpn = attr->dest_qp_num;
	if (mask & IB_QP_QKEY)
		qp->qkey = attr->qkey;
	if (mask & IB_QP_TIMEOUT)
		qp->timeout = attr->timeout;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		qp->max_rd_atomic = attr->max_rd_atomic;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		qp->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & IB_QP_RETRY_CNT)
		qp->retry_cnt = attr->retry_cnt;
	if (mask & IB_QP_RNR_RETRY)
		qp->rnr_retry = attr->rnr_retry;
	if (mask & IB_QP_MIN_RNR_TIMER)
		qp->min_rnr_timer = attr->min_rnr_timer;
	if (mask & IB_QP_SQ_PSN) {
		qp->snd_psn = attr->sq_psn;
		qp->snd_una = attr->sq_psn;
		mroce_tx_acks_reset(qp, attr->sq_psn);
	}
	if (mask & IB_QP_RQ_PSN) {
		mroce_sack_init(&qp->rx, attr->rq_psn, METAROCE_PSN_WINDOW);
		qp->rx_high = attr->rq_psn;
	}

	if (mask & IB_QP_STATE) {
		if (new == IB_QPS_RESET)
			mroce_qp_reset(qp);
		if (new == IB_QPS_RTR && cur != IB_QPS_RTR) {
			u32 fl = rdma_calc_flow_label(ibqp->qp_num, qp->dqpn);

			qp->sport = rdma_flow_label_to_udp_sport(fl);
			mroce_qp_set_seg(qp);
			if (qp->npaths)
				mroce_paths_start(qp);
		}
		if (new == IB_QPS_ERR) {
			mroce_qp_error(qp);
		} else {
			trace_mroce_qp_state(ibqp->qp_num, qp->state, new);
			qp->state = new;
			qp->sq_draining = new == IB_QPS_SQD;
		}
	}
out:
	spin_unlock_bh(&qp->lock);
	mutex_unlock(&qp->state_mutex);
	kfree(resp);		/* the modify failed */
	if (!err && (mask & IB_QP_STATE) && attr->qp_state == IB_QPS_RTS)
		mroce_tx_kick(qp);
	return err;
}

static int mroce_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
			  int mask, struct ib_qp_init_attr *init)
{
	struct mroce_qp *qp = to_mqp(ibqp);

	memset(attr, 0, sizeof(*attr));
	memset(init, 0, sizeof(*init));
	spin_lock_bh(&qp->lock);
	attr->qp_state = qp->state;
	attr->cur_qp_state = qp->state;
	attr->path_mtu = ib_mtu_int_to_enum(qp->mtu);
	attr->qp_access_flags = qp->access;
	attr->dest_qp_num = qp->dqpn;
	attr->qkey = qp->qkey;
	attr->sq_psn = qp->snd_psn;
	attr->rq_psn = qp->rx.base;
	attr->timeout = qp->timeout;
	attr->retry_cnt = qp->retry_cnt;
	attr->rnr_retry = qp->rnr_retry;
	attr->min_rnr_timer = qp->min_rnr_timer;
	attr->max_rd_atomic = qp->max_rd_atomic;
	attr->max_dest_rd_atomic = qp->max_dest_rd_atomic;
	attr->sq_draining = qp->sq_draining;
	attr->cap.max_send_wr = qp->sq_size;
	attr->cap.max_recv_wr = ibqp->srq ? 0 : qp->rq_size;
	attr->cap.max_send_sge = qp->max_send_sge;
	attr->cap.max_recv_sge = ibqp->srq ? 0 : qp->max_recv_sge;
	attr->cap.max_inline_data = qp->max_inline;
	spin_unlock_bh(&qp->lock);
	init->cap = attr->cap;
	init->qp_type = ibqp->qp_type;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->srq = ibqp->srq;
	init->sq_sig_type = qp->sq_sig_all ? IB_SIGNAL_ALL_WR :
					     IB_SIGNAL_REQ_WR;
	return 0;
}

static int mroce_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct mroce_qp *qp = to_mqp(ibqp);
	struct mroce_dev *mdev = qp->mdev;
	unsigned long gp;

	/* No new receive path references once it is off the table. */
	xa_erase(&mdev->qp_xa, ibqp->qp_num);
	gp = start_poll_synchronize_rcu_expedited();
	spin_lock_bh(&qp->lock);
	qp->state = IB_QPS_RESET;
	qp->dying = true;	/* nothing re-arms path_timer from now on */
	spin_unlock_bh(&qp->lock);
	/* Timers and work reference the QP: stop them before it goes. */
	timer_shutdown_sync(&qp->rto_timer);
	if (qp->npaths)
		hrtimer_cancel(&qp->path_timer);
	cancel_work_sync(&qp->tx_work);
	mroce_rate_leave(mdev, ibqp->qp_num);
	mroce_qp_put(qp);
	wait_for_completion(&qp->released);
	/* Nothing sends now; packets still queued must not wake tx_work. */
	mroce_txq_destroy(qp);
	cancel_work_sync(&qp->tx_work);

	mroce_cq_discard_qp(to_mcq(ibqp->send_cq), ibqp);
	if (ibqp->recv_cq != ibqp->send_cq)
		mroce_cq_discard_qp(to_mcq(ibqp->recv_cq), ibqp);
	mroce_qp_free(qp);
	/*
	 * ib_core frees the struct when we return, without a grace period,
	 * and a reader that found it in the table before the erase may still
	 * be about to try its reference (mroce_qp_get) or read its address
	 * (timers.c). Expedited: a normal grace period cost some 10 ms per
	 * QP here, 2.7 s more to tear down 256 QPs.
	 */
	cond_synchronize_rcu_expedited(gp);
	return 0;
}

static int mroce_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp)
{
	struct mroce_qp *qp = to_mqp(ibqp);

	return qp->npaths ? mroce_paths_fill_res(msg, qp) : 0;
}

const struct ib_device_ops mroce_qp_ops = {
	.create_qp = mroce_create_qp,
	.destroy_qp = mroce_destroy_qp,
	.fill_res_qp_entry = mroce_fill_res_qp_entry,
	.modify_qp = mroce_modify_qp,
	.query_qp = mroce_query_qp,

	INIT_RDMA_OBJ_SIZE(ib_qp, mroce_qp, ibqp),
};
