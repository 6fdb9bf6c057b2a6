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
#include "trace.h"

#define MROCE_TX_BUDGET		64	/* packets per tx_work run */

void mroce_tx_kick(struct mroce_qp *qp)
{
	queue_work(mroce_wq, &qp->tx_work);
}

static u32 mroce_in_flight(struct mroce_qp *qp)
{
	return qp->snd_psn - qp->snd_una;
}

/*
 * The retransmission timeout: the verbs one (4.096 us << timeout, within
 * [10 ms, 10 s]), or srtt + 4 * rttvar if the path is slower than that.
 */
static unsigned long mroce_rto(struct mroce_qp *qp)
{
	u64 us = qp->timeout ? (4096ULL << qp->timeout) / 1000 : 100000;

	us = clamp_t(u64, us, 10000, 10000000);
	if (qp->srtt_ns)
		us = max(us, div_u64(qp->srtt_ns + 4 * qp->rttvar_ns, 1000));
	return usecs_to_jiffies(min_t(u64, us, 10000000));
}

/* RFC 6298 estimator over the send stamps that ACKs echo. */
static void mroce_rtt_sample(struct mroce_qp *qp, u64 echo_ts)
{
	u64 now = ktime_get_ns(), r, d;

	if (!echo_ts || echo_ts > now)
		return;
	r = now - echo_ts;
	if (!qp->srtt_ns) {
		qp->srtt_ns = r;
		qp->rttvar_ns = r / 2;
		return;
	}
	d = r > qp->srtt_ns ? r - qp->srtt_ns : qp->srtt_ns - r;
	qp->rttvar_ns = qp->rttvar_ns - (qp->rttvar_ns >> 2) + (d >> 2);
	qp->srtt_ns = qp->srtt_ns - (qp->srtt_ns >> 3) + (r >> 3);
}

void mroce_tx_start_timer(struct mroce_qp *qp)
{
	if (mroce_in_flight(qp))
		mod_timer(&qp->rto_timer, jiffies + mroce_rto(qp));
	else
		del_timer(&qp->rto_timer);
}

/* Allocate a packet, encode h into it and reserve len payload bytes. */
static struct sk_buff *mroce_new_pkt(struct mroce_qp *qp, struct mroce_hdr *h,
				     u32 len, void **payload)
{
	struct sk_buff *skb;
	int hlen;

	skb = mroce_alloc_skb(qp->mdev, METAROCE_MAX_HDR_LEN + len);
	if (!skb)
		return NULL;
	h->dqpn = qp->dqpn;
	h->ts = ktime_get_ns();
	h->payload_len = len;
	hlen = mroce_hdr_encode(h, skb->data, METAROCE_MAX_HDR_LEN);
	if (WARN_ON_ONCE(hlen < 0)) {
		kfree_skb(skb);
		return NULL;
	}
	skb_put(skb, hlen);
	*payload = skb_put(skb, len);
	return skb;
}

static void mroce_send_pkt(struct mroce_qp *qp, struct sk_buff *skb)
{
	mroce_count(qp->mdev, MROCE_CNT_TX_PACKETS, 1);
	mroce_count(qp->mdev, MROCE_CNT_TX_BYTES, skb->len);
	mroce_xmit(qp, skb);
}

/* Build and transmit the request packet of PSN psn from its txpkt. */
static int mroce_emit(struct mroce_qp *qp, u32 psn, struct mroce_txpkt *t)
{
	struct mroce_swqe *wqe = mroce_sq_wqe(qp, t->wqe);
	u32 len = t->len;
	struct mroce_hdr h = {};
	struct sk_buff *skb;
	void *data;
	int err = 0;

	h.opcode = t->opcode;
	h.flags = t->flags;
	h.psn = psn;
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
		h.reth.va = wqe->remote_addr + t->offset;
		h.reth.rkey = wqe->rkey;
		h.reth.dma_len = t->req_len;
		h.reth.msn = wqe->msn;
		len = 0;
		break;
	default:	/* CMP_SWAP, FETCH_ADD */
		h.atomic.va = wqe->remote_addr;
		h.atomic.rkey = wqe->rkey;
		h.atomic.swap_add = t->opcode == METAROCE_OP_CMP_SWAP ?
				    wqe->swap : wqe->compare_add;
		h.atomic.compare = wqe->compare_add;
		h.atomic.msn = wqe->msn;
		len = 0;
		break;
	}

	skb = mroce_new_pkt(qp, &h, len, &data);
	if (!skb)
		return -ENOMEM;
	if (len) {
		if (wqe->send_flags & IB_SEND_INLINE)
			memcpy(data, wqe->inline_data + t->offset, len);
		else
			err = mroce_sge_copy(qp->mdev, qp->ibqp.pd, wqe->sge,
					     wqe->num_sge, t->offset, data, len,
					     false);
		if (err) {
			kfree_skb(skb);
			return err;
		}
	}
	t->sent_ns = h.ts;
	trace_mroce_tx(qp->ibqp.qp_num, psn, h.opcode, h.flags, len);
	mroce_send_pkt(qp, skb);
	return 0;
}

/*
 * Send the next response packet of the oldest queued read or atomic; a
 * response takes the PSN of the request packet it answers. Lock held.
 */
static bool mroce_emit_resp(struct mroce_qp *qp)
{
	struct mroce_rdreq *rd;
	struct mroce_hdr h = {};
	struct sk_buff *skb;
	struct mroce_mr *mr;
	u32 len = 0;
	void *data;
	int err = 0;

	if (qp->rdq_tail == qp->rdq_head)
		return false;
	rd = &qp->rdq[qp->rdq_tail % MROCE_RDQ_SIZE];
	h.psn = rd->psn + rd->offset / qp->mtu;
	if (rd->atomic) {
		h.opcode = METAROCE_OP_ATOMIC_ACK;
		h.flags = METAROCE_F_FIRST | METAROCE_F_LAST;
		h.aack.msn = rd->msn;
		h.aack.orig = rd->orig;
	} else {
		len = min(rd->len - rd->offset, qp->mtu);
		h.opcode = METAROCE_OP_READ_RESP;
		h.rresp.msn = rd->msn;
		h.rresp.offset = rd->offset;
		if (!rd->offset)
			h.flags |= METAROCE_F_FIRST;
		if (rd->offset + len >= rd->len)
			h.flags |= METAROCE_F_LAST;
	}
	skb = mroce_new_pkt(qp, &h, len, &data);
	if (!skb)
		return false;
	if (len) {
		mr = mroce_mr_lookup(qp->mdev, rd->rkey, true);
		err = mr ? mroce_mr_check(mr, qp->ibqp.pd, rd->va + rd->offset,
					  len, IB_ACCESS_REMOTE_READ) : -EINVAL;
		if (!err)
			mroce_mr_copy(mr, rd->va + rd->offset, data, len, false);
		if (mr)
			mroce_mr_put(mr);
	}
	rd->offset += len;
	if (rd->atomic || rd->offset >= rd->len)
		qp->rdq_tail++;
	if (err) {
		/* The MR went away since the request was checked. */
		kfree_skb(skb);
		return true;
	}
	mroce_send_pkt(qp, skb);
	return true;
}

/* Send an ACK (or the pending NAK) for what we have received. Lock held. */
void mroce_send_ack(struct mroce_qp *qp)
{
	struct mroce_hdr h = {};
	struct sk_buff *skb;
	void *unused;

	h.opcode = METAROCE_OP_ACK;
	h.ack.ack_psn = qp->rx.base;
	h.ack.sack_base = qp->rx.base;
	mroce_sack_to_wire(&qp->rx, h.ack.sack);
	h.ack.echo_ts = qp->last_ts;
	h.ack.echo_path = qp->last_path;
	h.ack.rate_hint = METAROCE_RATE_NONE;
	h.ack.msn = (qp->nak_syndrome & METAROCE_SYN_CLASS_MASK) ==
		    METAROCE_SYN_RNR ? qp->nak_msn : qp->rq_msn;
	h.ack.syndrome = qp->nak_syndrome;
	qp->nak_syndrome = 0;
	qp->ack_due = false;

	skb = mroce_new_pkt(qp, &h, 0, &unused);
	if (skb)
		mroce_send_pkt(qp, skb);
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

		/* Reads and atomics are acknowledged by their responses. */
		if (!wqe->local_done) {
			if (!mroce_psn_before(last, qp->snd_una))
				break;
			if (wqe->opcode == IB_WR_RDMA_READ ||
			    wqe->opcode == IB_WR_ATOMIC_CMP_AND_SWP ||
			    wqe->opcode == IB_WR_ATOMIC_FETCH_AND_ADD)
				qp->rd_pending--;
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

static bool mroce_is_rd(u32 wr_opcode)
{
	return wr_opcode == IB_WR_RDMA_READ ||
	       wr_opcode == IB_WR_ATOMIC_CMP_AND_SWP ||
	       wr_opcode == IB_WR_ATOMIC_FETCH_AND_ADD;
}

/*
 * A Read takes one PSN per response packet. One READ_REQ asks for up to
 * MROCE_READ_CHUNK of them; the others wait, marked sent, for their
 * responses. Retransmitting one of them asks for that packet alone.
 */
static void mroce_read_chunk(struct mroce_qp *qp, struct mroce_swqe *wqe,
			     struct mroce_txpkt *first)
{
	u32 room = MROCE_TX_WINDOW - mroce_in_flight(qp);
	u32 n = min3(wqe->npkts - wqe->sent, (u32)MROCE_READ_CHUNK, room);
	u32 i, total = 0;

	for (i = 0; i < n; i++) {
		struct mroce_txpkt *t = mroce_txpkt(qp, qp->snd_psn + i);
		u32 off = (wqe->sent + i) * qp->mtu;

		if (i)
			memset(t, 0, sizeof(*t));
		t->wqe = qp->sq_tx;
		t->opcode = METAROCE_OP_READ_REQ;
		t->needs_resp = true;
		t->offset = off;
		t->len = min(wqe->length - off, qp->mtu);
		t->sent_ns = ktime_get_ns();
		total += t->len;
	}
	first->req_len = total;	/* the request asks for the whole chunk */
	wqe->sent += n;
	first->flags |= METAROCE_F_ACKREQ;
}

/* Start or continue the WQE at sq_tx: its next PSN(s). Lock held. */
static bool mroce_next_req(struct mroce_qp *qp, u32 *psn, u32 *npsn)
{
	struct mroce_swqe *wqe;
	struct mroce_txpkt *t;
	u32 off;

	while (qp->sq_tx != qp->sq_head) {
		wqe = mroce_sq_wqe(qp, qp->sq_tx);
		if (wqe->opcode != IB_WR_LOCAL_INV && wqe->opcode != IB_WR_REG_MR)
			break;
		mroce_exec_local(qp, wqe);
		qp->sq_tx++;
	}
	if (qp->sq_tx == qp->sq_head)
		return false;
	wqe = mroce_sq_wqe(qp, qp->sq_tx);

	if (!wqe->sent) {
		bool rd = mroce_is_rd(wqe->opcode);

		if (rd && qp->rd_pending >= MROCE_MAX_RD_PENDING)
			return false;
		if ((wqe->send_flags & IB_SEND_FENCE) && qp->rd_pending)
			return false;
		wqe->first_psn = qp->snd_psn;
		wqe->npkts = wqe->opcode == IB_WR_RDMA_READ ||
			     !mroce_is_rd(wqe->opcode) ?
			     max_t(u32, 1, DIV_ROUND_UP(wqe->length, qp->mtu)) :
			     1;
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
	t->wqe = qp->sq_tx;
	t->opcode = mroce_req_opcode(wqe);
	off = wqe->sent * qp->mtu;
	t->offset = off;
	if (wqe->sent == 0)
		t->flags |= METAROCE_F_FIRST;
	*psn = qp->snd_psn;

	if (t->opcode == METAROCE_OP_READ_REQ) {
		/* Every READ_REQ is a one-packet request. */
		mroce_read_chunk(qp, wqe, t);
		t->flags |= METAROCE_F_FIRST | METAROCE_F_LAST;
		*npsn = wqe->sent - off / qp->mtu;
		qp->snd_psn += *npsn;
		if (wqe->sent == wqe->npkts)
			qp->sq_tx++;
		return true;
	}
	if (t->opcode == METAROCE_OP_CMP_SWAP ||
	    t->opcode == METAROCE_OP_FETCH_ADD) {
		t->needs_resp = true;
		t->len = 0;
	} else {
		t->len = min(wqe->length - off, qp->mtu);
	}
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
	*npsn = 1;
	qp->snd_psn++;
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
			if (t->opcode == METAROCE_OP_READ_REQ) {
				struct mroce_swqe *w = mroce_sq_wqe(qp, t->wqe);

				/* Ask again for this response packet alone. */
				t->req_len = min(w->length - t->offset, qp->mtu);
				t->flags |= METAROCE_F_FIRST | METAROCE_F_LAST;
			}
			qp->lost_count--;
			mroce_count(qp->mdev, MROCE_CNT_TX_RETRANSMITS, 1);
			trace_mroce_retransmit(qp->ibqp.qp_num, p, t->retx);
			*psn = p;
			return true;
		}
	}
	qp->lost_count = 0;
	return false;
}

static void mroce_nak_fatal(struct mroce_qp *qp, u32 psn,
			    enum ib_wc_status status);

void mroce_tx_work(struct work_struct *work)
{
	struct mroce_qp *qp = container_of(work, struct mroce_qp, tx_work);
	int budget = MROCE_TX_BUDGET;
	bool more = false;
	u32 psn, n;

	spin_lock_bh(&qp->lock);
	if (qp->state == IB_QPS_ERR) {
		/* Answer what came before the failure, then say it failed. */
		while (budget-- && mroce_emit_resp(qp))
			;
		if (qp->rdq_tail != qp->rdq_head) {
			more = true;
		} else if (qp->fatal_nak) {
			qp->nak_syndrome = qp->fatal_nak;
			qp->fatal_nak = 0;
			mroce_send_ack(qp);
		}
	}
	while (qp->state == IB_QPS_RTS || qp->state == IB_QPS_SQD ||
	       qp->state == IB_QPS_RTR) {
		bool room = mroce_in_flight(qp) < MROCE_TX_WINDOW;
		bool rnr = qp->rnr_until_ns &&
			   ktime_get_ns() < qp->rnr_until_ns;

		if (!budget--) {
			more = true;
			break;
		}
		/* Responses first: the peer is waiting on them. */
		if (mroce_emit_resp(qp))
			continue;
		n = 1;
		if (rnr || !mroce_next_lost(qp, &psn)) {
			if (!room || rnr || qp->state != IB_QPS_RTS ||
			    !mroce_next_req(qp, &psn, &n))
				break;
		}

		if (++qp->pkts_since_ackreq >= MROCE_ACK_EVERY) {
			mroce_txpkt(qp, psn)->flags |= METAROCE_F_ACKREQ;
			qp->pkts_since_ackreq = 0;
		}
		if (mroce_emit(qp, psn, mroce_txpkt(qp, psn)) == -EINVAL) {
			/* A local key went bad under us: fail the request. */
			mroce_sq_wqe(qp, mroce_txpkt(qp, psn)->wqe)->status =
				IB_WC_LOC_PROT_ERR;
			mroce_nak_fatal(qp, psn, IB_WC_LOC_PROT_ERR);
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

static void mroce_ack_psn(struct mroce_qp *qp, u32 psn, bool by_resp)
{
	struct mroce_txpkt *t = mroce_txpkt(qp, psn);

	/* An ACK of a read's PSN says the request arrived, not the data. */
	if (t->acked || t->needs_resp != by_resp)
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
	/*
	 * Requests before the failed one that were acknowledged complete
	 * normally; any not acknowledged are flushed; the one holding psn
	 * gets status, and the error state flushes the rest.
	 */
	mroce_tx_complete(qp);
	while (qp->sq_tail != qp->sq_tx) {
		struct mroce_swqe *wqe = mroce_sq_wqe(qp, qp->sq_tail);
		bool hit = wqe->sent && mroce_psn_in_window(psn, wqe->first_psn,
							    wqe->npkts);

		mroce_qp_complete_send(qp, wqe, hit ? status :
				       IB_WC_WR_FLUSH_ERR);
		if (hit)
			break;
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

/* The in-flight Send or WRITE_IMM with receive MSN msn, or NULL. */
static struct mroce_swqe *mroce_find_msn(struct mroce_qp *qp, u32 msn)
{
	u32 i;

	for (i = qp->sq_tail; i != qp->sq_tx + (qp->sq_tx != qp->sq_head); i++) {
		struct mroce_swqe *wqe = mroce_sq_wqe(qp, i);

		if (wqe->sent && wqe->msn == msn &&
		    wqe->opcode != IB_WR_RDMA_WRITE && !mroce_is_rd(wqe->opcode))
			return wqe;
	}
	return NULL;
}

static void mroce_rx_nak(struct mroce_qp *qp, u8 syn, u32 psn, u32 msn)
{
	u32 p;

	if ((syn & METAROCE_SYN_CLASS_MASK) == METAROCE_SYN_RNR) {
		struct mroce_swqe *wqe = mroce_find_msn(qp, msn);

		mroce_count(qp->mdev, MROCE_CNT_RX_NAK_RNR, 1);
		if (!wqe)
			return;		/* stale: that message completed */
		if (qp->rnr_retry != 7 && ++qp->rnr_retries > qp->rnr_retry) {
			mroce_nak_fatal(qp, wqe->first_psn,
					IB_WC_RNR_RETRY_EXC_ERR);
			return;
		}
		/* Wait the peer's RNR time, then resend what it refused. */
		qp->rnr_until_ns = ktime_get_ns() +
				   mroce_rnr_ns(syn & METAROCE_SYN_VALUE_MASK);
		for (p = wqe->first_psn; p != wqe->first_psn + wqe->sent; p++)
			if (mroce_psn_after_eq(p, qp->snd_una))
				mroce_mark_lost(qp, mroce_txpkt(qp, p));
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
static void mroce_tx_progress(struct mroce_qp *qp, u32 una);

void mroce_rx_ack(struct mroce_qp *qp, const struct mroce_hdr *hdr)
{
	u32 ack = hdr->ack.ack_psn, una = qp->snd_una, p;
	u8 syn = hdr->ack.syndrome;
	int i;

	if (mroce_psn_after(ack, qp->snd_psn) ||
	    mroce_psn_before(ack, qp->snd_una - MROCE_TX_WINDOW))
		return;		/* stale or bogus */
	mroce_rtt_sample(qp, hdr->ack.echo_ts);
	trace_mroce_ack(qp->ibqp.qp_num, ack, syn, qp->snd_una, qp->snd_psn,
			qp->lost_count);

	for (p = qp->snd_una; mroce_psn_before(p, ack); p++)
		mroce_ack_psn(qp, p, false);
	for (i = 0; i < METAROCE_SACK_BITS; i++) {
		if (!(hdr->ack.sack[i / 8] & (1 << (i % 8))))
			continue;
		p = hdr->ack.sack_base + i;
		if (mroce_psn_after_eq(p, qp->snd_una) &&
		    mroce_psn_before(p, qp->snd_psn))
			mroce_ack_psn(qp, p, false);
	}
	/* What the NAK acknowledges counts before the NAK itself. */
	while (qp->snd_una != qp->snd_psn &&
	       mroce_txpkt(qp, qp->snd_una)->acked)
		qp->snd_una++;
	if (syn != METAROCE_SYN_ACK) {
		mroce_rx_nak(qp, syn, ack, hdr->ack.msn);
		if (qp->state == IB_QPS_ERR)
			return;
	}
	mroce_tx_progress(qp, una);
}

/*
 * After PSNs were acknowledged: move snd_una, declare holes lost, retire
 * finished WQEs and let tx_work resend or send more. Lock held.
 */
static void mroce_tx_progress(struct mroce_qp *qp, u32 una)
{
	u32 p, later = 0;

	while (qp->snd_una != qp->snd_psn &&
	       mroce_txpkt(qp, qp->snd_una)->acked)
		qp->snd_una++;
	if (qp->snd_una != una) {
		qp->retries = 0;
		qp->rnr_retries = 0;
		mroce_tx_start_timer(qp);
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
			 (t->sent_ns < qp->newest_acked_ns ||
			  (t->needs_resp && !t->retx)))
			mroce_mark_lost(qp, t);
	}
	mroce_tx_complete(qp);
	if (qp->lost_count || qp->snd_una != una || qp->sq_tx != qp->sq_head)
		mroce_tx_kick(qp);
}

/* A READ_RESP or ATOMIC_ACK: place it, and it acknowledges its PSN. */
void mroce_rx_resp(struct mroce_qp *qp, const struct mroce_hdr *h,
		   const u8 *payload, u32 len)
{
	struct mroce_txpkt *t = mroce_txpkt(qp, h->psn);
	bool atomic = h->opcode == METAROCE_OP_ATOMIC_ACK;
	bool is_read;
	struct mroce_swqe *wqe;
	u32 una = qp->snd_una;
	u64 orig;
	int err;

	if (!mroce_psn_in_window(h->psn, qp->snd_una, mroce_in_flight(qp)) ||
	    !t->needs_resp || t->acked) {
		mroce_count(qp->mdev, MROCE_CNT_RX_DUPLICATES, 1);
		return;
	}
	wqe = mroce_sq_wqe(qp, t->wqe);
	is_read = t->opcode == METAROCE_OP_READ_REQ;
	if (atomic == is_read ||
	    (!atomic && len != t->len)) {
		mroce_count_drop(qp->mdev, MROCE_DROP_BAD_LENGTH);
		return;
	}
	if (atomic) {
		orig = h->aack.orig;	/* to the local buffer in host order */
		err = mroce_sge_copy(qp->mdev, qp->ibqp.pd, wqe->sge, 1, 0,
				     &orig, sizeof(orig), true);
	} else {
		err = len ? mroce_sge_copy(qp->mdev, qp->ibqp.pd, wqe->sge,
					   wqe->num_sge, t->offset,
					   (void *)payload, len, true) : 0;
	}
	if (err)
		wqe->status = IB_WC_LOC_PROT_ERR;
	if (h->psn != una)
		mroce_count(qp->mdev, MROCE_CNT_RX_OUT_OF_ORDER, 1);
	mroce_ack_psn(qp, h->psn, true);
	mroce_tx_progress(qp, una);
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
	trace_mroce_rto(qp->ibqp.qp_num, qp->snd_una, qp->snd_psn, qp->retries);
	/* Unlike rnr_retry, a retry_cnt of 7 is not infinite. */
	if (++qp->retries > qp->retry_cnt) {
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
