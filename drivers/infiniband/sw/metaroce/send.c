// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * MetaRoCE requester side: segmenting work requests into packets, the
 * window of PSNs in flight, acknowledgements, selective retransmission and
 * completion of send work requests.
 *
 * New packets, read responses and retransmissions are built by the QP's
 * tx_work in process context; ACKs and NAKs go out directly from the
 * receive softirq.
 */

#include <linux/ktime.h>
#include <linux/skbuff.h>
#include "qp.h"
#include "cq.h"
#include "mr.h"
#include "proto/psn.h"
#include "proto/wire.h"

#define MROCE_TX_BUDGET		64	/* packets per tx_work run */

void mroce_tx_kick(struct mroce_qp *qp)
{
	queue_work(mroce_wq, &qp->tx_work);
}

static u32 mroce_in_flight(struct mroce_qp *qp)
{
	return qp->snd_psn - qp->snd_una;
}

/* The verbs retransmission timeout: 4.096 us << timeout, at least 10 ms. */
static unsigned long mroce_rto(struct mroce_qp *qp)
{
	u64 us = qp->timeout ? (4096ULL << qp->timeout) / 1000 : 100000;

	return usecs_to_jiffies(clamp_t(u64, us, 10000, 10000000));
}

void mroce_tx_start_timer(struct mroce_qp *qp)
{
	if (mroce_in_flight(qp))
		mod_timer(&qp->rto_timer, jiffies + mroce_rto(qp));
	else
		del_timer(&qp->rto_timer);
}

/* Build and transmit the packet of PSN psn described by its txpkt. */
static int mroce_emit(struct mroce_qp *qp, u32 psn, struct mroce_txpkt *t)
{
	struct mroce_dev *mdev = qp->mdev;
	struct mroce_hdr h = {};
	struct sk_buff *skb;
	struct mroce_mr *mr;
	int hlen, err = 0;
	void *data;

	h.opcode = t->opcode;
	h.flags = t->flags;
	h.dqpn = qp->dqpn;
	h.psn = psn;
	h.ts = ktime_get_ns();
	h.path_id = 0;

	if (t->kind == MROCE_TX_REQ) {
		struct mroce_swqe *wqe = mroce_sq_wqe(qp, t->wqe);

		switch (t->opcode) {
		case METAROCE_OP_SEND:
		case METAROCE_OP_SEND_IMM:
		case METAROCE_OP_SEND_INV:
			h.send.msn = wqe->msn;
			h.send.offset = t->offset;
			h.send.total_len = wqe->length;
			h.imm = be32_to_cpu(wqe->imm);
			h.inv_rkey = wqe->inv_rkey;
			break;
		case METAROCE_OP_WRITE:
		case METAROCE_OP_WRITE_IMM:
			h.reth.va = wqe->remote_addr + t->offset;
			h.reth.rkey = wqe->rkey;
			h.reth.dma_len = t->len;
			h.imm = be32_to_cpu(wqe->imm);
			break;
		case METAROCE_OP_READ_REQ:
			h.reth.va = wqe->remote_addr;
			h.reth.rkey = wqe->rkey;
			h.reth.dma_len = wqe->length;
			h.reth.msn = wqe->msn;
			break;
		default:	/* CMP_SWAP, FETCH_ADD */
			h.atomic.va = wqe->remote_addr;
			h.atomic.rkey = wqe->rkey;
			h.atomic.swap_add = t->opcode == METAROCE_OP_CMP_SWAP ?
					    wqe->swap : wqe->compare_add;
			h.atomic.compare = wqe->compare_add;
			h.atomic.msn = wqe->msn;
			break;
		}
	} else if (t->kind == MROCE_TX_READ_RESP) {
		h.rresp.msn = t->msn;
		h.rresp.offset = t->offset;
	} else {
		h.aack.msn = t->msn;
		h.aack.orig = t->va;
	}

	skb = mroce_alloc_skb(mdev, METAROCE_MAX_HDR_LEN + t->len);
	if (!skb)
		return -ENOMEM;
	h.payload_len = t->len;
	hlen = mroce_hdr_encode(&h, skb->data, METAROCE_MAX_HDR_LEN);
	if (WARN_ON_ONCE(hlen < 0)) {
		kfree_skb(skb);
		return hlen;
	}
	skb_put(skb, hlen);
	data = skb_put(skb, t->len);

	if (t->kind == MROCE_TX_REQ && t->len) {
		struct mroce_swqe *wqe = mroce_sq_wqe(qp, t->wqe);

		if (wqe->send_flags & IB_SEND_INLINE)
			memcpy(data, wqe->inline_data + t->offset, t->len);
		else
			err = mroce_sge_copy(mdev, qp->ibqp.pd, wqe->sge,
					     wqe->num_sge, t->offset, data,
					     t->len, false);
	} else if (t->kind == MROCE_TX_READ_RESP && t->len) {
		mr = mroce_mr_lookup(mdev, t->rkey, true);
		err = mr ? mroce_mr_check(mr, qp->ibqp.pd, t->va, t->len,
					  IB_ACCESS_REMOTE_READ) : -EINVAL;
		if (!err)
			mroce_mr_copy(mr, t->va, data, t->len, false);
		if (mr)
			mroce_mr_put(mr);
	}
	if (err) {
		kfree_skb(skb);
		return err;
	}
	t->sent_ns = h.ts;
	mroce_count(mdev, MROCE_CNT_TX_PACKETS, 1);
	mroce_count(mdev, MROCE_CNT_TX_BYTES, skb->len);
	return mroce_xmit(qp, skb);
}

/* Send an ACK (or the pending NAK) for what we have received. Lock held. */
void mroce_send_ack(struct mroce_qp *qp)
{
	struct mroce_hdr h = {};
	struct sk_buff *skb;
	int hlen;

	h.opcode = METAROCE_OP_ACK;
	h.dqpn = qp->dqpn;
	h.ts = ktime_get_ns();
	h.ack.ack_psn = qp->nak_syndrome ? qp->nak_psn : qp->rx.base;
	h.ack.sack_base = qp->rx.base;
	if (mroce_psn_before(h.ack.sack_base, h.ack.ack_psn))
		h.ack.sack_base = h.ack.ack_psn;
	mroce_sack_to_wire(&qp->rx, h.ack.sack);
	h.ack.echo_ts = qp->last_ts;
	h.ack.echo_path = qp->last_path;
	h.ack.rate_hint = METAROCE_RATE_NONE;
	h.ack.msn = qp->rq_msn;
	h.ack.syndrome = qp->nak_syndrome;
	qp->nak_syndrome = 0;
	qp->ack_due = false;

	skb = mroce_alloc_skb(qp->mdev, METAROCE_MAX_HDR_LEN);
	if (!skb)
		return;
	hlen = mroce_hdr_encode(&h, skb->data, METAROCE_MAX_HDR_LEN);
	if (WARN_ON_ONCE(hlen < 0)) {
		kfree_skb(skb);
		return;
	}
	skb_put(skb, hlen);
	mroce_xmit(qp, skb);
}

static u8 mroce_req_opcode(struct mroce_swqe *wqe)
{
	switch (wqe->opcode) {
	case IB_WR_SEND_WITH_IMM:
		return METAROCE_OP_SEND_IMM;
	case IB_WR_SEND_WITH_INV:
		return METAROCE_OP_SEND_INV;
	case IB_WR_RDMA_WRITE:
		return METAROCE_OP_WRITE;
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return METAROCE_OP_WRITE_IMM;
	case IB_WR_RDMA_READ:
		return METAROCE_OP_READ_REQ;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		return METAROCE_OP_CMP_SWAP;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return METAROCE_OP_FETCH_ADD;
	default:
		return METAROCE_OP_SEND;
	}
}

/* Retire finished send WQEs in posting order. Lock held. */
static void mroce_tx_complete(struct mroce_qp *qp)
{
	while (qp->sq_tail != qp->sq_tx && qp->state != IB_QPS_ERR) {
		struct mroce_swqe *wqe = mroce_sq_wqe(qp, qp->sq_tail);
		u32 last = wqe->first_psn + wqe->npkts - 1;

		if (!wqe->local_done) {
			if (!mroce_psn_before(last, qp->snd_una))
				break;
			if ((wqe->opcode == IB_WR_RDMA_READ ||
			     wqe->opcode == IB_WR_ATOMIC_CMP_AND_SWP ||
			     wqe->opcode == IB_WR_ATOMIC_FETCH_AND_ADD)) {
				if (!wqe->resp_done)
					break;
				qp->rd_pending--;
			}
		}
		mroce_qp_complete_send(qp, wqe, wqe->status);
	}
}

/* Local work requests execute when they reach the head of the queue. */
static void mroce_exec_local(struct mroce_qp *qp, struct mroce_swqe *wqe)
{
	int err = 0;

	if (wqe->opcode == IB_WR_LOCAL_INV)
		err = mroce_mr_invalidate(qp->mdev, wqe->inv_rkey, qp->ibqp.pd);
	else if (wqe->opcode == IB_WR_REG_MR)
		err = mroce_mr_fast_reg(qp->mdev, wqe->reg_mr, wqe->reg_key,
					wqe->reg_access);
	wqe->local_done = true;
	wqe->status = err ? IB_WC_LOC_PROT_ERR : IB_WC_SUCCESS;
}

/* Start or continue the WQE at sq_tx: one packet into txpkt. Lock held. */
static bool mroce_next_req(struct mroce_qp *qp, u32 *psn)
{
	struct mroce_swqe *wqe;
	struct mroce_txpkt *t;
	u32 off;

	while (qp->sq_tx != qp->sq_head) {
		wqe = mroce_sq_wqe(qp, qp->sq_tx);
		if (wqe->opcode != IB_WR_LOCAL_INV && wqe->opcode != IB_WR_REG_MR)
			break;
		/* Fenced behind nothing: local ops run in order on arrival. */
		mroce_exec_local(qp, wqe);
		qp->sq_tx++;
	}
	if (qp->sq_tx == qp->sq_head)
		return false;
	wqe = mroce_sq_wqe(qp, qp->sq_tx);

	if (!wqe->sent) {
		bool rd = wqe->opcode == IB_WR_RDMA_READ ||
			  wqe->opcode == IB_WR_ATOMIC_CMP_AND_SWP ||
			  wqe->opcode == IB_WR_ATOMIC_FETCH_AND_ADD;

		if (rd && qp->rd_pending >= MROCE_MAX_RD_PENDING)
			return false;
		if ((wqe->send_flags & IB_SEND_FENCE) && qp->rd_pending)
			return false;
		wqe->first_psn = qp->snd_psn;
		wqe->npkts = rd ? 1 : max_t(u32, 1,
					    DIV_ROUND_UP(wqe->length, qp->mtu));
		if (rd) {
			wqe->msn = qp->rd_msn++;
			qp->rd_pending++;
		} else if (wqe->opcode != IB_WR_RDMA_WRITE) {
			wqe->msn = qp->snd_msn++;
		}
		wqe->status = IB_WC_SUCCESS;
	}

	t = mroce_txpkt(qp, qp->snd_psn);
	memset(t, 0, sizeof(*t));
	t->kind = MROCE_TX_REQ;
	t->wqe = qp->sq_tx;
	t->opcode = mroce_req_opcode(wqe);
	off = wqe->sent * qp->mtu;
	t->offset = off;
	if (t->opcode == METAROCE_OP_READ_REQ ||
	    t->opcode == METAROCE_OP_CMP_SWAP ||
	    t->opcode == METAROCE_OP_FETCH_ADD)
		t->len = 0;
	else
		t->len = min(wqe->length - off, qp->mtu);
	if (wqe->sent == 0)
		t->flags |= METAROCE_F_FIRST;
	if (wqe->sent + 1 == wqe->npkts) {
		t->flags |= METAROCE_F_LAST | METAROCE_F_ACKREQ;
		if (wqe->send_flags & IB_SEND_SOLICITED &&
		    (t->opcode == METAROCE_OP_SEND ||
		     t->opcode == METAROCE_OP_SEND_IMM ||
		     t->opcode == METAROCE_OP_SEND_INV ||
		     t->opcode == METAROCE_OP_WRITE_IMM))
			t->flags |= METAROCE_F_SOLICITED;
	}
	/* Immediate data and invalidation ride on the last packet only. */
	if (!(t->flags & METAROCE_F_LAST)) {
		if (t->opcode == METAROCE_OP_SEND_IMM ||
		    t->opcode == METAROCE_OP_SEND_INV)
			t->opcode = METAROCE_OP_SEND;
		else if (t->opcode == METAROCE_OP_WRITE_IMM)
			t->opcode = METAROCE_OP_WRITE;
	}
	wqe->sent++;
	if (wqe->sent == wqe->npkts)
		qp->sq_tx++;
	*psn = qp->snd_psn++;
	return true;
}

/* Queue the next READ_RESP or ATOMIC_ACK packet. Lock held. */
static bool mroce_next_resp(struct mroce_qp *qp, u32 *psn)
{
	struct mroce_rdreq *rd;
	struct mroce_txpkt *t;

	if (qp->rdq_tail == qp->rdq_head)
		return false;
	rd = &qp->rdq[qp->rdq_tail % MROCE_MAX_RD_PENDING];
	t = mroce_txpkt(qp, qp->snd_psn);
	memset(t, 0, sizeof(*t));
	t->msn = rd->msn;
	if (rd->atomic) {
		t->kind = MROCE_TX_ATOMIC_ACK;
		t->opcode = METAROCE_OP_ATOMIC_ACK;
		t->va = rd->va;
		t->flags = METAROCE_F_FIRST | METAROCE_F_LAST | METAROCE_F_ACKREQ;
		qp->rdq_tail++;
	} else {
		t->kind = MROCE_TX_READ_RESP;
		t->opcode = METAROCE_OP_READ_RESP;
		t->rkey = rd->rkey;
		t->offset = rd->offset;
		t->va = rd->va + rd->offset;
		t->len = min(rd->len - rd->offset, qp->mtu);
		if (rd->offset == 0)
			t->flags |= METAROCE_F_FIRST;
		rd->offset += t->len;
		if (rd->offset >= rd->len) {
			t->flags |= METAROCE_F_LAST | METAROCE_F_ACKREQ;
			qp->rdq_tail++;
		}
	}
	*psn = qp->snd_psn++;
	return true;
}

/* Pick a PSN marked lost and clear the mark. Lock held. */
static bool mroce_next_lost(struct mroce_qp *qp, u32 *psn)
{
	u32 p;

	if (!qp->lost_count)
		return false;
	for (p = qp->snd_una; p != qp->snd_psn; p++) {
		struct mroce_txpkt *t = mroce_txpkt(qp, p);

		if (t->lost && !t->acked) {
			t->lost = false;
			t->retx++;
			t->flags |= METAROCE_F_RETX | METAROCE_F_ACKREQ;
			qp->lost_count--;
			mroce_count(qp->mdev, MROCE_CNT_TX_RETRANSMITS, 1);
			*psn = p;
			return true;
		}
	}
	qp->lost_count = 0;
	return false;
}

void mroce_tx_work(struct work_struct *work)
{
	struct mroce_qp *qp = container_of(work, struct mroce_qp, tx_work);
	int budget = MROCE_TX_BUDGET;
	bool more = false;
	u32 psn;

	spin_lock_bh(&qp->lock);
	while (qp->state == IB_QPS_RTS || qp->state == IB_QPS_SQD ||
	       qp->state == IB_QPS_RTR) {
		bool room = mroce_in_flight(qp) < MROCE_TX_WINDOW;
		bool rnr = qp->rnr_until_ns &&
			   ktime_get_ns() < qp->rnr_until_ns;

		if (!budget--) {
			more = true;
			break;
		}
		if (!rnr && mroce_next_lost(qp, &psn))
			;
		else if (room && mroce_next_resp(qp, &psn))
			;
		else if (room && !rnr && qp->state == IB_QPS_RTS &&
			 mroce_next_req(qp, &psn))
			;
		else
			break;

		if (++qp->pkts_since_ackreq >= MROCE_ACK_EVERY) {
			mroce_txpkt(qp, psn)->flags |= METAROCE_F_ACKREQ;
			qp->pkts_since_ackreq = 0;
		}
		if (mroce_emit(qp, psn, mroce_txpkt(qp, psn)) == -EINVAL) {
			/* A local key went bad under us: fail the request. */
			struct mroce_txpkt *t = mroce_txpkt(qp, psn);

			if (t->kind == MROCE_TX_REQ)
				mroce_sq_wqe(qp, t->wqe)->status =
					IB_WC_LOC_PROT_ERR;
			mroce_qp_complete_send(qp, mroce_sq_wqe(qp, qp->sq_tail),
					       IB_WC_LOC_PROT_ERR);
			mroce_qp_error(qp);
			break;
		}
		if (!timer_pending(&qp->rto_timer))
			mroce_tx_start_timer(qp);
	}
	mroce_tx_complete(qp);
	spin_unlock_bh(&qp->lock);
	if (more)
		mroce_tx_kick(qp);
}

static void mroce_mark_lost(struct mroce_qp *qp, struct mroce_txpkt *t)
{
	if (!t->lost && !t->acked) {
		t->lost = true;
		qp->lost_count++;
	}
}

static void mroce_ack_psn(struct mroce_qp *qp, u32 psn)
{
	struct mroce_txpkt *t = mroce_txpkt(qp, psn);

	if (t->acked)
		return;
	t->acked = true;
	if (t->lost) {
		t->lost = false;
		qp->lost_count--;
	}
	if (t->sent_ns > qp->newest_acked_ns)
		qp->newest_acked_ns = t->sent_ns;
}

/* The PSN of a NAK belongs to this WQE: fail it and the connection. */
static void mroce_nak_fatal(struct mroce_qp *qp, u32 psn,
			    enum ib_wc_status status)
{
	struct mroce_txpkt *t = mroce_txpkt(qp, psn);

	if (t->kind == MROCE_TX_REQ && qp->sq_tail != qp->sq_tx) {
		/* Earlier WQEs were acknowledged by the same ACK. */
		mroce_tx_complete(qp);
		if (qp->sq_tail != qp->sq_head)
			mroce_qp_complete_send(qp,
					       mroce_sq_wqe(qp, qp->sq_tail),
					       status);
	}
	mroce_qp_error(qp);
}

/* IBTA RNR timer codes, in microseconds (code 0 is the longest). */
static const u32 mroce_rnr_us[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960,
	1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
	40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

static u64 mroce_rnr_ns(u8 code)
{
	return (u64)mroce_rnr_us[code & 31] * NSEC_PER_USEC;
}

static void mroce_rx_nak(struct mroce_qp *qp, u8 syn, u32 psn)
{
	u32 p;

	if ((syn & METAROCE_SYN_CLASS_MASK) == METAROCE_SYN_RNR) {
		struct mroce_txpkt *t = mroce_txpkt(qp, psn);

		mroce_count(qp->mdev, MROCE_CNT_RX_NAK_RNR, 1);
		if (qp->rnr_retry != 7 && ++qp->rnr_retries > qp->rnr_retry) {
			mroce_nak_fatal(qp, psn, IB_WC_RNR_RETRY_EXC_ERR);
			return;
		}
		/* Wait the peer's RNR time, then resend that packet. */
		qp->rnr_until_ns = ktime_get_ns() +
				   mroce_rnr_ns(syn & METAROCE_SYN_VALUE_MASK);
		t->acked = false;
		mroce_mark_lost(qp, t);
		mod_timer(&qp->rto_timer, jiffies +
			  nsecs_to_jiffies(qp->rnr_until_ns - ktime_get_ns()) + 1);
		return;
	}
	switch (syn & METAROCE_SYN_VALUE_MASK) {
	case METAROCE_NAK_PSN_SEQ:
		mroce_count(qp->mdev, MROCE_CNT_RX_NAK_SEQ, 1);
		for (p = psn; p != qp->snd_psn; p++)
			mroce_mark_lost(qp, mroce_txpkt(qp, p));
		return;
	case METAROCE_NAK_INV_REQ:
		mroce_count(qp->mdev, MROCE_CNT_RX_NAK_FATAL, 1);
		mroce_nak_fatal(qp, psn, IB_WC_REM_INV_REQ_ERR);
		return;
	case METAROCE_NAK_REM_ACCESS:
		mroce_count(qp->mdev, MROCE_CNT_RX_NAK_FATAL, 1);
		mroce_nak_fatal(qp, psn, IB_WC_REM_ACCESS_ERR);
		return;
	default:
		mroce_count(qp->mdev, MROCE_CNT_RX_NAK_FATAL, 1);
		mroce_nak_fatal(qp, psn, IB_WC_REM_OP_ERR);
	}
}

/* Process an ACK or NAK from the peer. Lock held. */
void mroce_rx_ack(struct mroce_qp *qp, const struct mroce_hdr *hdr)
{
	u32 ack = hdr->ack.ack_psn, una = qp->snd_una, p, later = 0;
	u8 syn = hdr->ack.syndrome;
	int i;

	if (mroce_psn_after(ack, qp->snd_psn) ||
	    mroce_psn_before(ack, qp->snd_una - MROCE_TX_WINDOW))
		return;		/* stale or bogus */

	for (p = qp->snd_una; mroce_psn_before(p, ack); p++)
		mroce_ack_psn(qp, p);
	for (i = 0; i < METAROCE_SACK_BITS; i++) {
		if (!(hdr->ack.sack[i / 8] & (1 << (i % 8))))
			continue;
		p = hdr->ack.sack_base + i;
		if (mroce_psn_after_eq(p, qp->snd_una) &&
		    mroce_psn_before(p, qp->snd_psn))
			mroce_ack_psn(qp, p);
	}
	while (qp->snd_una != qp->snd_psn &&
	       mroce_txpkt(qp, qp->snd_una)->acked)
		qp->snd_una++;
	if (qp->snd_una != una) {
		qp->retries = 0;
		qp->rnr_retries = 0;
		mroce_tx_start_timer(qp);
	}

	if (syn != METAROCE_SYN_ACK) {
		mroce_rx_nak(qp, syn, ack);
		if (qp->state == IB_QPS_ERR)
			return;
	}

	/*
	 * A hole is lost once MROCE_DUPACK_THRESH packets above it are
	 * acknowledged and one of them left after it did (so a resent
	 * packet is not declared lost again by old news).
	 */
	for (p = qp->snd_psn; p != qp->snd_una;) {
		struct mroce_txpkt *t = mroce_txpkt(qp, --p);

		if (t->acked)
			later++;
		else if (later >= MROCE_DUPACK_THRESH &&
			 t->sent_ns < qp->newest_acked_ns)
			mroce_mark_lost(qp, t);
	}
	mroce_tx_complete(qp);
	if (qp->lost_count || qp->snd_una != una || qp->sq_tx != qp->sq_head)
		mroce_tx_kick(qp);
}

/* The per-connection retransmission timer: no progress for one RTO. */
void mroce_rto_fire(struct timer_list *t)
{
	struct mroce_qp *qp = from_timer(qp, t, rto_timer);
	u32 p;

	spin_lock_bh(&qp->lock);
	if (qp->state != IB_QPS_RTS && qp->state != IB_QPS_SQD)
		goto out;
	if (qp->rnr_until_ns) {
		/* An RNR wait ended: resend what the peer had no room for. */
		qp->rnr_until_ns = 0;
		mroce_tx_start_timer(qp);
		mroce_tx_kick(qp);
		goto out;
	}
	if (!mroce_in_flight(qp))
		goto out;
	mroce_count(qp->mdev, MROCE_CNT_RTO, 1);
	if (qp->retry_cnt != 7 && ++qp->retries > qp->retry_cnt) {
		ibdev_dbg(qp->ibqp.device, "qp %u: retries exhausted at psn %u\n",
			  qp->ibqp.qp_num, qp->snd_una);
		mroce_nak_fatal(qp, qp->snd_una, IB_WC_RETRY_EXC_ERR);
		goto out;
	}
	for (p = qp->snd_una; p != qp->snd_psn; p++)
		mroce_mark_lost(qp, mroce_txpkt(qp, p));
	mod_timer(&qp->rto_timer, jiffies + mroce_rto(qp));
	mroce_tx_kick(qp);
out:
	spin_unlock_bh(&qp->lock);
}
