// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * MetaRoCE datagram service: UD QPs and the GSI QP (QP1), which carries
 * the CM MADs of rdma_cm.
 *
 * A send work request is one UD_SEND or UD_SEND_IMM packet (DETH: source
 * QPN and Q_Key) to the address of its AH: no ACK, no
 * retransmission, one PSN per datagram; it completes once its packet is
 * handed to the IP stack. A received datagram fills the next receive WQE
 * behind the 40-byte GRH that verbs require for UD: the IPv6 header, or
 * for IPv4 20 zero bytes and the IPv4 header, as RoCEv2 devices do, so
 * that ib_init_ah_attr_from_wc() finds both addresses there and ib_mad /
 * ib_cm can address their replies.
 *
 * ib_mad posts sends with interrupts disabled (under its queue lock), so
 * the post verbs take the QP lock with irqsave and leave packets and
 * completions to tx_work (process context). Receive runs in softirq.
 */

#include <linux/if_vlan.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/ktime.h>
#include <linux/slab.h>
#include <rdma/ib_mad.h>
#include "srq.h"
#include "ud.h"
#include "uqp.h"
#include "cq.h"
#include "mr.h"
#include "proto/wire.h"

#define MROCE_UD_TX_BUDGET	64	/* datagrams per tx_work run */

/* What the work request alone shows; the QP lock is not needed. */
static int mroce_ud_check_wr(struct mroce_qp *qp, const struct ib_send_wr *wr)
{
	u32 mtu = ib_mtu_enum_to_int(READ_ONCE(qp->mdev->active_mtu));
	const struct ib_ud_wr *ud = ud_wr(wr);
	u64 len = 0;
	int i;

	if (wr->opcode != IB_WR_SEND && wr->opcode != IB_WR_SEND_WITH_IMM)
		return -EINVAL;
	if (!ud->ah || ud->ah->device != qp->ibqp.device ||
	    ud->remote_qpn & ~METAROCE_QPN_MASK)
		return -EINVAL;
	if (wr->num_sge < 0 || wr->num_sge > MROCE_QP_MAX_SGE)
		return -EINVAL;
	for (i = 0; i < wr->num_sge; i++)
		len += wr->sg_list[i].length;
	/* One datagram is one packet: no larger than the path MTU. */
	if (len > mtu) {
		ibdev_dbg(qp->ibqp.device, "qp %u: UD send of %llu bytes > MTU %u\n",
			  qp->ibqp.qp_num, len, mtu);
		return -EINVAL;
	}
	return 0;
}

static void mroce_ud_set_dest(struct mroce_swqe *wqe,
			      const struct ib_send_wr *wr)
{
	const struct ib_ud_wr *ud = ud_wr(wr);

	wqe->ud.av = to_mah(ud->ah)->av;
	wqe->ud.remote_qpn = ud->remote_qpn;
	wqe->ud.remote_qkey = ud->remote_qkey;
}

int mroce_ud_post_send(struct mroce_qp *qp, const struct ib_send_wr *wr,
		       const struct ib_send_wr **bad_wr)
{
	struct mroce_swqe *tmp = NULL;
	unsigned long flags;
	int err = 0;

	/* A ring QP's WRs are in its ring; no WR is the doorbell. */
	if (mroce_qp_has_rings(qp)) {
		if (!wr)
			return mroce_uqp_post_send(qp);
		ibdev_info_ratelimited(qp->ibqp.device,
				       "qp %u: post_send with WRs to a ring QP\n",
				       qp->ibqp.qp_num);
		*bad_wr = wr;
		return -EINVAL;
	}
	/* A user QP's inline data is copied in before the lock is taken. */
	if (qp->is_user) {
		tmp = kmalloc(sizeof(*tmp), GFP_KERNEL);
		if (!tmp) {
			*bad_wr = wr;
			return -ENOMEM;
		}
	}
	for (; wr; wr = wr->next) {
		struct mroce_swqe *wqe;

		err = mroce_ud_check_wr(qp, wr);
		if (!err && tmp)
			err = mroce_init_swqe(qp, tmp, wr);
		if (err)
			break;
		spin_lock_irqsave(&qp->lock, flags);
		if (qp->state < IB_QPS_RTS && qp->state != IB_QPS_ERR) {
			err = -EINVAL;
		} else if (qp->sq_head - qp->sq_tail >= qp->sq_size) {
			err = -ENOMEM;
		} else {
			wqe = mroce_sq_wqe(qp, qp->sq_head);
			if (tmp)
				memcpy(wqe, tmp, qp->sq_stride);
			else
				err = mroce_init_swqe(qp, wqe, wr);
			if (!err) {
				mroce_ud_set_dest(wqe, wr);
				qp->sq_head++;
			}
		}
		spin_unlock_irqrestore(&qp->lock, flags);
		if (err)
			break;
	}
	if (err)
		*bad_wr = wr;
	kfree(tmp);
	mroce_tx_kick(qp);
	return err;
}

int mroce_ud_post_recv(struct mroce_qp *qp, const struct ib_recv_wr *wr,
		       const struct ib_recv_wr **bad_wr)
{
	unsigned long flags;
	bool flush;
	int err = 0;

	if (mroce_qp_has_rq_ring(qp)) {
		if (!wr)
			return mroce_uqp_post_recv(qp);
		ibdev_info_ratelimited(qp->ibqp.device,
				       "qp %u: post_recv with WRs to a ring QP\n",
				       qp->ibqp.qp_num);
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&qp->lock, flags);
	if (qp->state == IB_QPS_RESET) {
		spin_unlock_irqrestore(&qp->lock, flags);
		*bad_wr = wr;
		return -EINVAL;
	}
	for (; wr; wr = wr->next) {
		err = mroce_rq_add(qp, wr);
		if (err)
			break;
	}
	if (err)
		*bad_wr = wr;
	flush = qp->state == IB_QPS_ERR;
	spin_unlock_irqrestore(&qp->lock, flags);
	/* Completions are not posted with interrupts possibly off. */
	if (flush)
		mroce_tx_kick(qp);
	return err;
}

/* Build and send the datagram of wqe. 0, -ENOMEM or -EINVAL (bad lkey). */
static int mroce_ud_emit(struct mroce_qp *qp, struct mroce_swqe *wqe)
{
	struct mroce_dev *mdev = qp->mdev;
	u32 qpn = qp->ibqp.qp_num, len = wqe->length;
	struct mroce_hdr h = {};
	struct sk_buff *skb;
	u32 flow;
	void *data;
	int hlen, err = 0;

	h.opcode = wqe->opcode == IB_WR_SEND_WITH_IMM ?
		   METAROCE_OP_UD_SEND_IMM : METAROCE_OP_UD_SEND;
	h.flags = METAROCE_F_FIRST | METAROCE_F_LAST;
	if (wqe->send_flags & IB_SEND_SOLICITED)
		h.flags |= METAROCE_F_SOLICITED;
	h.dqpn = wqe->ud.remote_qpn;
	h.psn = qp->snd_psn;
	h.ts = ktime_get_ns();
	h.payload_len = len;
	h.imm = be32_to_cpu(wqe->imm);
	h.ud.sqpn = qpn;
	/* QP1 always uses the GSI Q_Key; a controlled Q_Key means the QP's. */
	if (qp->ibqp.qp_type == IB_QPT_GSI)
		h.ud.qkey = METAROCE_GSI_QKEY;
	else if (wqe->ud.remote_qkey & 0x80000000U)
		h.ud.qkey = qp->qkey;
	else
		h.ud.qkey = wqe->ud.remote_qkey;

	skb = mroce_alloc_skb(mdev, METAROCE_HLEN_UD_IMM + len);
	if (!skb)
		return -ENOMEM;
	hlen = mroce_hdr_encode(&h, skb->data, METAROCE_HLEN_UD_IMM);
	if (WARN_ON_ONCE(hlen < 0)) {
		kfree_skb(skb);
		return -EINVAL;
	}
	skb_put(skb, hlen);
	data = skb_put(skb, len);
	if (len && (wqe->send_flags & IB_SEND_INLINE))
		memcpy(data, wqe->inline_data, len);
	else if (len)
		err = mroce_sge_copy(mdev, qp->ibqp.pd, wqe->sge, wqe->num_sge,
				     0, data, len, false);
	if (err) {
		kfree_skb(skb);
		return -EINVAL;
	}
	qp->snd_psn++;
	flow = wqe->ud.av.flow_label ?: rdma_calc_flow_label(qpn, h.dqpn);
	mroce_count(mdev, MROCE_CNT_TX_PACKETS, 1);
	mroce_count(mdev, MROCE_CNT_TX_BYTES, skb->len);
	/* Unreliable: a datagram the stack cannot route is simply lost. */
	mroce_xmit_av(mdev, &wqe->ud.av, rdma_flow_label_to_udp_sport(flow),
		      skb);
	return 0;
}

void mroce_ud_tx_work(struct work_struct *work)
{
	struct mroce_qp *qp = container_of(work, struct mroce_qp, tx_work);
	int budget = MROCE_UD_TX_BUDGET;
	bool more = false;

	spin_lock_bh(&qp->lock);
	if (qp->state == IB_QPS_ERR)
		mroce_qp_flush(qp);
	/* Each WQE completes as it is sent, so sq_tx == sq_tail here. */
	while (qp->state == IB_QPS_RTS && qp->sq_tx != qp->sq_head) {
		struct mroce_swqe *wqe = mroce_sq_wqe(qp, qp->sq_tx);
		int err;

		if (!budget--) {
			more = true;
			break;
		}
		err = mroce_ud_emit(qp, wqe);
		if (err == -ENOMEM) {
			more = true;
			break;
		}
		qp->sq_tx++;
		if (err) {
			mroce_qp_complete_send(qp, wqe, IB_WC_LOC_PROT_ERR);
			mroce_qp_error(qp);
			break;
		}
		mroce_qp_complete_send(qp, wqe, IB_WC_SUCCESS);
	}
	spin_unlock_bh(&qp->lock);
	if (more)
		mroce_tx_kick(qp);
}

/*
 * The GRH verbs put in front of a UD receive, built from the packet's own
 * IP header. Returns the network type for the completion.
 */
static enum rdma_network_type mroce_ud_grh(struct sk_buff *skb,
					   union rdma_network_hdr *grh)
{
	memset(grh, 0, sizeof(*grh));
	if (ip_hdr(skb)->version == 4) {
		memcpy(&grh->roce4grh, ip_hdr(skb), sizeof(grh->roce4grh));
		return RDMA_NETWORK_IPV4;
	}
	memcpy(&grh->ibgrh, ipv6_hdr(skb), sizeof(grh->ibgrh));
	return RDMA_NETWORK_IPV6;
}

static u64 mroce_sge_len(const struct mroce_rwqe *rwqe)
{
	u64 len = 0;
	u32 i;

	for (i = 0; i < rwqe->num_sge; i++)
		len += rwqe->sge[i].length;
	return len;
}

void mroce_ud_rx(struct mroce_qp *qp, const struct mroce_hdr *h,
		 struct sk_buff *skb, const u8 *payload, u32 len)
{
	struct mroce_dev *mdev = qp->mdev;
	union rdma_network_hdr grh;
	struct mroce_rwqe *rwqe;
	struct ib_wc wc = {};
	u32 qkey;
	int err;

	BUILD_BUG_ON(sizeof(grh) != sizeof(struct ib_grh));
	if (!mroce_opcode_is_ud(h->opcode)) {
		mroce_count(mdev, MROCE_CNT_RX_DROP_QP_TYPE, 1);
		return;
	}
	wc.network_hdr_type = mroce_ud_grh(skb, &grh);

	spin_lock_bh(&qp->lock);
	if (qp->state < IB_QPS_RTR || qp->state == IB_QPS_ERR) {
		mroce_count(mdev, MROCE_CNT_RX_DROP_UD_STATE, 1);
		goto out;
	}
	qkey = qp->ibqp.qp_type == IB_QPT_GSI ? IB_QP1_QKEY : qp->qkey;
	if (h->ud.qkey != qkey) {
		mroce_count(mdev, MROCE_CNT_RX_DROP_UD_QKEY, 1);
		goto out;
	}
	/* A receive ring: take what the process posted; garbage errors it. */
	mroce_uqp_rx_prepare(qp);
	if (qp->state == IB_QPS_ERR) {
		mroce_count(mdev, MROCE_CNT_RX_DROP_UD_STATE, 1);
		goto out;
	}
	if (!mroce_rq_ready(qp, 0)) {
		mroce_count(mdev, MROCE_CNT_RX_DROP_UD_NO_RECV, 1);
		goto out;
	}
	rwqe = mroce_rq_wqe(qp, qp->rq_tail);
	/*
	 * ib_mad's buffers take any MAD; a longer datagram to QP1 is junk
	 * and must not take the GSI QP down.
	 */
	if (qp->ibqp.qp_type == IB_QPT_GSI &&
	    mroce_sge_len(rwqe) < sizeof(grh) + len) {
		mroce_count_drop(mdev, MROCE_DROP_BAD_PAYLOAD_LEN);
		goto out;
	}
	err = mroce_sge_copy(mdev, mroce_rq_pd(qp), rwqe->sge, rwqe->num_sge,
			     0, &grh, sizeof(grh), true);
	if (!err && len)
		err = mroce_sge_copy(mdev, mroce_rq_pd(qp), rwqe->sge,
				     rwqe->num_sge, sizeof(grh), (void *)payload,
				     len, true);

	wc.wr_id = rwqe->wr_id;
	wc.status = err == -ERANGE ? IB_WC_LOC_LEN_ERR :
		    err ? IB_WC_LOC_PROT_ERR : IB_WC_SUCCESS;
	wc.opcode = IB_WC_RECV;
	wc.byte_len = sizeof(grh) + len;
	wc.qp = &qp->ibqp;
	wc.src_qp = h->ud.sqpn;
	wc.pkey_index = 0;
	wc.port_num = 1;
	wc.wc_flags = IB_WC_GRH | IB_WC_WITH_NETWORK_HDR_TYPE;
	if (h->opcode == METAROCE_OP_UD_SEND_IMM) {
		wc.wc_flags |= IB_WC_WITH_IMM;
		wc.ex.imm_data = cpu_to_be32(h->imm);
	}
	if (is_vlan_dev(skb->dev)) {
		wc.wc_flags |= IB_WC_WITH_VLAN;
		wc.vlan_id = vlan_dev_vlan_id(skb->dev);
	}
	qp->rq_tail++;
	qp->rq_msn++;
	mroce_cq_post(to_mcq(qp->ibqp.recv_cq), &wc,
		      h->flags & METAROCE_F_SOLICITED);
	if (err)
		mroce_qp_error(qp);
out:
	spin_unlock_bh(&qp->lock);
}
