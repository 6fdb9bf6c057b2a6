// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * MetaRoCE requester side: segmenting work requests into packets, the
 * window of PSNs in flight, acknowledgements, selective retransmission and
 * completion of send work requests.
 *
 * New packets, read responses and retransmissions are built by the QP's
 * tx_work in process context after a post, and directly in the receive
 * softirq when an ACK opens the window or declares a loss (as TCP sends
 * from its ACK processing); ACKs and NAKs go out from the softirq too.
 */

#include <linux/ktime.h>
#include <linux/skbuff.h>
#include "qp.h"
#include "cq.h"
#include "mr.h"
#include "mw.h"
#include "proto/psn.h"
#include "proto/wire.h"
#include "trace.h"

#define MROCE_TX_BUDGET		64	/* packets per tx_work run */
#define MROCE_TX_ACK_BUDGET	16	/* packets sent from one ACK */
#define MROCE_ZCOPY_MIN		256	/* payload bytes worth a page reference */

void mroce_tx_kick(struct mroce_qp *qp)
{
	queue_work(mroce_wq, &qp->tx_work);
}

/*
 * A user QP's payload goes as page fragments of its pinned MRs: in a bulk
 * transfer the copy into the packet was the sender's largest cost of its
 * own. Small payloads are cheaper to copy than to reference; inline data
 * has no MR.
 */
static bool mroce_zcopy(struct mroce_qp *qp, int send_flags, u32 len)
{
	return qp->is_user && len >= MROCE_ZCOPY_MIN &&
	       !(send_flags & IB_SEND_INLINE);
}

/*
 * Allocate a packet stamped now and encode h, whose payload is len bytes,
 * into it, with linear room for them unless they go as fragments
 * (@zcopy). The payload is placed by the caller. Callers that already
 * read the clock pass it: under emulation a clock read per packet was 2%
 * of the CPU of a bulk transfer.
 */
static struct sk_buff *mroce_new_pkt(struct mroce_qp *qp, struct mroce_hdr *h,
				     u64 now, u32 len, bool zcopy)
{
	struct sk_buff *skb;
	int hlen;

	skb = mroce_alloc_skb(qp->mdev,
			      METAROCE_MAX_HDR_LEN + (zcopy ? 0 : len));
	if (!skb)
		return NULL;
	h->dqpn = qp->dqpn;
	h->ts = now;
	h->payload_len = len;
	hlen = mroce_hdr_encode(h, skb->data, METAROCE_MAX_HDR_LEN);
	if (WARN_ON_ONCE(hlen < 0)) {
		kfree_skb(skb);
		return NULL;
	}
	skb_put(skb, hlen);
	return skb;
}

/*
 * len payload bytes in the linear part of skb, after mroce_new_pkt(). A
 * zero-copy packet that had to fall back to a copy (and has no fragments
 * left) grows here.
 */
static void *mroce_pkt_put(struct sk_buff *skb, u32 len)
{
	if (skb_tailroom(skb) < len &&
	    pskb_expand_head(skb, 0, len - skb_tailroom(skb), GFP_ATOMIC))
		return NULL;
	return skb_put(skb, len);
}

static void mroce_send_pkt(struct mroce_qp *qp, struct sk_buff *skb,
			   u16 sport)
{
	mroce_count(qp->mdev, MROCE_CNT_TX_PACKETS, 1);
	mroce_count(qp->mdev, MROCE_CNT_TX_BYTES, skb->len);
	/* mroce_new_pkt() is linear: only MR fragments make it otherwise. */
	if (skb_is_nonlinear(skb))
		mroce_count(qp->mdev, MROCE_CNT_TX_ZEROCOPY, 1);
	mroce_xmit(qp, skb, sport);
}

static void mroce_txpkt_clear(struct mroce_txpkt *t)
{
	memset(t, 0, sizeof(*t));
	t->path = MROCE_PATH_NONE;
}

/*
 * The len payload bytes of a request packet at offset of its message, as
 * MR fragments if @zcopy (mroce_zcopy()) and they can be.
 */
static int mroce_fill_payload(struct mroce_qp *qp, struct mroce_swqe *wqe,
			      u32 offset, struct sk_buff *skb, u32 len,
			      bool zcopy)
{
	void *data;
	int err;

	if (zcopy) {
		err = mroce_sge_frags(qp->mdev, qp->ibqp.pd, wqe->sge,
				      wqe->num_sge, offset, skb, len);
		if (err != -EOPNOTSUPP)
			return err;
	}
	data = mroce_pkt_put(skb, len);
	if (!data)
		return -ENOMEM;
	if (wqe->send_flags & IB_SEND_INLINE) {
		memcpy(data, wqe->inline_data + offset, len);
		return 0;
	}
	return mroce_sge_copy(qp->mdev, qp->ibqp.pd, wqe->sge, wqe->num_sge,
			      offset, data, len, false);
}

/*
 * Build and transmit the request packet of PSN psn from its txpkt on path
 * idx; track it there unless it is a probe.
 */
int mroce_emit(struct mroce_qp *qp, u32 psn, struct mroce_txpkt *t, int idx,
	       bool probe, u64 now)
{
	struct mroce_swqe *wqe = mroce_sq_wqe(qp, t->wqe);
	u32 len = t->len;
	struct mroce_hdr h = {};
	struct sk_buff *skb;
	int err = 0;
	bool zcopy;

	h.opcode = t->opcode;
	h.flags = t->flags | METAROCE_F_ECNCAP;
	h.psn = psn;
	h.path_id = idx;
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
		h.reth.dma_len = min(wqe->length - t->offset,
				     t->req_pkts * qp->seg);
		h.reth.msn = wqe->msn;
		h.reth.seg = qp->seg;
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

	zcopy = mroce_zcopy(qp, wqe->send_flags, len);
	skb = mroce_new_pkt(qp, &h, now, len, zcopy);
	if (!skb)
		return -ENOMEM;
	if (len) {
		err = mroce_fill_payload(qp, wqe, t->offset, skb, len, zcopy);
		if (err) {
			kfree_skb(skb);
			return err;
		}
	}
	t->sent_ns = h.ts;
	trace_mroce_tx(qp->ibqp.qp_num, psn, h.opcode, h.flags, len);
	if (probe) {
		mroce_pacer_on_send(&qp->pacer, h.ts, skb->len);
	} else {
		mroce_tx_on_path(qp, psn);
		mroce_paths_sent(qp, t, idx, h.ts, skb->len);
	}
	mroce_send_pkt(qp, skb, qp->path_sport[idx]);
	return 0;
}

/* A read response's payload: fragments of a user MR if @zcopy, else a copy. */
static int mroce_resp_payload(struct mroce_mr *mr, u64 iova,
			      struct sk_buff *skb, u32 len, bool zcopy)
{
	void *data;

	if (zcopy) {
		if (!mroce_mr_frags(mr, iova, skb, len))
			return 0;
		mroce_skb_drop_frags(skb, 0);
	}
	data = mroce_pkt_put(skb, len);
	if (!data)
		return -ENOMEM;
	mroce_mr_copy(mr, iova, data, len, false);
	return 0;
}

/*
 * Send the next response packet of the oldest queued read or atomic; a
 * response takes the PSN of the request packet it answers. Lock held.
 */
static bool mroce_emit_resp(struct mroce_qp *qp, u64 now)
{
	struct mroce_rdreq *rd;
	struct mroce_hdr h = {};
	struct sk_buff *skb;
	struct mroce_mr *mr;
	u32 len = 0;
	int err = 0;
	bool zcopy;

	if (qp->rdq_tail == qp->rdq_head)
		return false;
	rd = &qp->resp->rdq[qp->rdq_tail % MROCE_RDQ_SIZE];
	h.psn = rd->psn;
	if (rd->atomic) {
		h.opcode = METAROCE_OP_ATOMIC_ACK;
		h.flags = METAROCE_F_FIRST | METAROCE_F_LAST;
		h.aack.msn = rd->msn;
		h.aack.orig = rd->orig;
	} else {
		h.psn += rd->offset / rd->seg;
		len = min(rd->len - rd->offset, rd->seg);
		h.opcode = METAROCE_OP_READ_RESP;
		h.rresp.msn = rd->msn;
		h.rresp.offset = rd->offset;
		if (!rd->offset)
			h.flags |= METAROCE_F_FIRST;
		if (rd->offset + len >= rd->len)
			h.flags |= METAROCE_F_LAST;
	}
	zcopy = mroce_zcopy(qp, 0, len);
	skb = mroce_new_pkt(qp, &h, now, len, zcopy);
	if (!skb)
		return false;
	if (len) {
		u64 iova;

		mr = mroce_rkey_lookup(qp, rd->rkey, rd->va + rd->offset, len,
				       IB_ACCESS_REMOTE_READ, &iova);
		err = PTR_ERR_OR_ZERO(mr);
		if (!err) {
			err = mroce_resp_payload(mr, iova, skb, len, zcopy);
			mroce_mr_put(mr);
		}
	}
	rd->offset += len;
	if (rd->atomic || rd->offset >= rd->len)
		qp->rdq_tail++;
	if (err) {
		/* The MR went away since the request was checked, or memory. */
		kfree_skb(skb);
		return true;
	}
	mroce_send_pkt(qp, skb, mroce_paths_resp_sport(qp));
	return true;
}

/*
 * An ACK of what we have received. @echo: it answers the last packet
 * (its stamp, path and CE count) and carries any pending NAK; otherwise
 * it answers no packet and is sent for its rate hint alone (protocol
 * section 11.3), so it must not give the sender an RTT sample or per-path
 * news, nor use up the NAK. Lock held.
 */
static void mroce_ack_emit(struct mroce_qp *qp, bool echo)
{
	u16 path = qp->last_path;
	struct mroce_hdr h = {};
	struct sk_buff *skb;

	h.opcode = METAROCE_OP_ACK;
	h.path_id = path;
	h.ack.ack_psn = qp->rx.base;
	h.ack.sack_base = mroce_sack_report_base(&qp->rx, qp->last_psn);
	mroce_sack_to_wire(&qp->rx, h.ack.sack_base, h.ack.sack);
	if (h.ack.sack_base != h.ack.ack_psn)
		mroce_count(qp->mdev, MROCE_CNT_TX_ACK_SACK_AHEAD, 1);
	h.ack.rate_hint = mroce_rate_hint(qp->mdev, qp->ibqp.qp_num);
	h.ack.msn = qp->rq_msn;
	if (echo) {
		h.ack.echo_ts = qp->last_ts;
		h.ack.echo_path = path;
		if (path < MROCE_MAX_PATHS) {
			h.ack.ecn_ce = qp->rx_ce[path];
			qp->rx_ce[path] = 0;
		}
		if ((qp->nak_syndrome & METAROCE_SYN_CLASS_MASK) ==
		    METAROCE_SYN_RNR)
			h.ack.msn = qp->nak_msn;
		h.ack.syndrome = qp->nak_syndrome;
		qp->nak_syndrome = 0;
		qp->ack_due = false;
	} else {
		h.ack.echo_path = METAROCE_ECHO_NONE;
		mroce_count(qp->mdev, MROCE_CNT_TX_HINT_ACKS, 1);
	}

	trace_mroce_ack_tx(qp->ibqp.qp_num, qp->dqpn, h.ack.ack_psn,
			   h.ack.syndrome, echo);
	skb = mroce_new_pkt(qp, &h, ktime_get_ns(), 0, false);
	if (skb)
		mroce_send_pkt(qp, skb, mroce_paths_ack_sport(qp, path));
}

/* Send an ACK (or the pending NAK) for what we have received. Lock held. */
void mroce_send_ack(struct mroce_qp *qp)
{
	mroce_ack_emit(qp, true);
}

/* Tell the sender a new share without waiting for its next packet. */
void mroce_send_hint_ack(struct mroce_qp *qp)
{
	mroce_ack_emit(qp, false);
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
void mroce_tx_complete(struct mroce_qp *qp)
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
		err = mroce_key_invalidate(qp->mdev, wqe->inv_rkey, qp->ibqp.pd);
	else if (wqe->opcode == IB_WR_REG_MR)
		err = mroce_mr_fast_reg(qp->mdev, wqe->reg_mr, wqe->reg_key,
					wqe->reg_access);
	wqe->local_done = true;
	wqe->status = err ? IB_WC_LOC_PROT_ERR : IB_WC_SUCCESS;
	if (wqe->opcode == IB_WR_BIND_MW && mroce_mw_bind(qp, wqe))
		wqe->status = IB_WC_MW_BIND_ERR;
}

/*
 * A Read takes one PSN per response packet. One READ_REQ asks for up to
 * MROCE_READ_CHUNK of them; the others wait, marked sent, for their
 * responses. Retransmitting one of them asks for that packet alone.
 */
static void mroce_read_chunk(struct mroce_qp *qp, struct mroce_swqe *wqe,
			     struct mroce_txpkt *first)
{
	u32 room = mroce_tx_room(qp);
	u32 n = min3(wqe->npkts - wqe->sent, (u32)MROCE_READ_CHUNK, room);
	u32 i;

	for (i = 0; i < n; i++) {
		struct mroce_txpkt *t = mroce_txpkt(qp, qp->snd_psn + i);
		u32 off = (wqe->sent + i) * qp->seg;

		if (i)
			mroce_txpkt_clear(t);
		t->wqe = qp->sq_tx;
		t->opcode = METAROCE_OP_READ_REQ;
		t->needs_resp = true;
		t->offset = off;
		t->len = min(wqe->length - off, qp->seg);
		t->sent_ns = ktime_get_ns();
	}
	first->req_pkts = n;	/* the request asks for the whole chunk */
	wqe->sent += n;
	first->flags |= METAROCE_F_ACKREQ;
}

/*
 * A READ_REQ asks for as many PSNs as the window has room for. Sent as
 * each response opens one PSN of room (from the ACK path), Reads would
 * go out as one-PSN requests; while responses are due, wait for room
 * for a full chunk or the rest of the Read.
 */
static bool mroce_read_waits(struct mroce_qp *qp, struct mroce_swqe *wqe)
{
	u32 left;

	if (wqe->opcode != IB_WR_RDMA_READ || !mroce_in_flight(qp))
		return false;
	left = wqe->sent ? wqe->npkts - wqe->sent :
	       mroce_msg_pkts(wqe->length, qp->seg);
	return mroce_tx_room(qp) < min_t(u32, left, MROCE_READ_CHUNK);
}

/* Start or continue the WQE at sq_tx: its next PSN(s). Lock held. */
bool mroce_next_req(struct mroce_qp *qp, u32 *psn, u32 *npsn)
{
	struct mroce_swqe *wqe;
	struct mroce_txpkt *t;
	u32 off, seg;

	while (qp->sq_tx != qp->sq_head) {
		wqe = mroce_sq_wqe(qp, qp->sq_tx);
		if (wqe->opcode != IB_WR_LOCAL_INV && wqe->opcode != IB_WR_REG_MR &&
		    wqe->opcode != IB_WR_BIND_MW)
			break;
		mroce_exec_local(qp, wqe);
		qp->sq_tx++;
		if (wqe->status == IB_WC_MW_BIND_ERR) {
			mroce_mw_bind_error(qp);
			return false;
		}
	}
	if (qp->sq_tx == qp->sq_head)
		return false;
	wqe = mroce_sq_wqe(qp, qp->sq_tx);
	if (mroce_read_waits(qp, wqe))
		return false;
	seg = qp->seg;

	if (!wqe->sent) {
		bool rd = mroce_is_rd(wqe->opcode);

		if (rd && qp->rd_pending >= max_t(u32, qp->max_rd_atomic, 1))
			return false;
		if ((wqe->send_flags & IB_SEND_FENCE) && qp->rd_pending)
			return false;
		wqe->first_psn = qp->snd_psn;
		wqe->npkts = wqe->opcode == IB_WR_RDMA_READ ||
			     !mroce_is_rd(wqe->opcode) ?
			     mroce_msg_pkts(wqe->length, seg) :
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
	mroce_txpkt_clear(t);
	t->wqe = qp->sq_tx;
	t->opcode = mroce_req_opcode(wqe);
	off = wqe->sent * seg;
	t->offset = off;
	if (wqe->sent == 0)
		t->flags |= METAROCE_F_FIRST;
	*psn = qp->snd_psn;

	if (t->opcode == METAROCE_OP_READ_REQ) {
		/* Every READ_REQ is a one-packet request. */
		mroce_read_chunk(qp, wqe, t);
		t->flags |= METAROCE_F_FIRST | METAROCE_F_LAST;
		*npsn = wqe->sent - off / seg;
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
		t->len = min(wqe->length - off, seg);
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

/*
 * A resent Read request asks again for one response packet alone, the
 * one its PSN stands for: the rest of the response may have arrived.
 */
void mroce_read_reask(struct mroce_txpkt *t)
{
	if (t->opcode != METAROCE_OP_READ_REQ)
		return;
	t->req_pkts = 1;
	t->flags |= METAROCE_F_FIRST | METAROCE_F_LAST;
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
			mroce_read_reask(t);
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

/*
 * Whether a packet that asked for an ACK is still unanswered: its ACK
 * will reopen the windows, so a stall needs no request of its own.
 * Asking at every stall of a full window cost an ACK per packet.
 */
static bool mroce_ackreq_unanswered(struct mroce_qp *qp)
{
	return qp->ackreq_sent &&
	       mroce_psn_in_window(qp->ackreq_psn, qp->snd_una,
				   mroce_in_flight(qp)) &&
	       !mroce_txpkt(qp, qp->ackreq_psn)->acked;
}

/* Whether a response, a repair or a new request waits to be sent. */
static bool mroce_tx_has_work(struct mroce_qp *qp)
{
	return qp->rdq_tail != qp->rdq_head || qp->lost_count ||
	       (qp->sq_tx != qp->sq_head && mroce_tx_room(qp));
}

/*
 * Requests wait and the PSN window or the pipe is full: which one tells
 * an operator whether holes at snd_una or the unacknowledged packets
 * hold the QP back.
 */
static void mroce_count_room_stall(struct mroce_qp *qp)
{
	enum mroce_counter c = MROCE_CNT_TX_STALL_PIPE;

	if (mroce_in_flight(qp) >= qp->tx_cap)
		c = MROCE_CNT_TX_STALL_PSN_WINDOW;
	mroce_count(qp->mdev, c, 1);
}

/*
 * Send what is owed (responses, repairs, probes) and what the windows
 * and the pacer allow, at most budget packets. Returns whether work is
 * left for tx_work. Lock held.
 */
static bool mroce_tx_run(struct mroce_qp *qp, int budget)
{
	u32 seg = mroce_full_pkt_bytes(qp);
	bool more = false;
	u32 psn, n;

	qp->pace_wait = false;
	if (qp->state == IB_QPS_ERR) {
		/* Answer what came before the failure, then say it failed. */
		while (budget-- && mroce_emit_resp(qp, ktime_get_ns()))
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
		u64 now = ktime_get_ns();
		bool rnr = qp->rnr_until_ns && now < qp->rnr_until_ns;
		bool fresh, queued, unasked;
		int idx;

		if (!budget--) {
			more = true;
			break;
		}
		/* The netdev drops what overflows its queue: wait for it. */
		unasked = mroce_in_flight(qp) && !mroce_ackreq_unanswered(qp);
		if (mroce_txq_full(qp, unasked)) {
			if (mroce_tx_has_work(qp))
				mroce_count(qp->mdev, MROCE_CNT_TX_LOCAL_WAIT, 1);
			break;
		}
		/* Responses first: the peer is waiting on them. */
		if (mroce_emit_resp(qp, now))
			continue;
		queued = qp->state == IB_QPS_RTS && qp->sq_tx != qp->sq_head;
		if (queued)
			mroce_txring_check(qp);
		fresh = queued && mroce_tx_room(qp);
		if (qp->state != IB_QPS_RTR && mroce_tx_probe(qp, now, fresh))
			continue;
		if (rnr || (!qp->lost_count && !fresh)) {
			if (!rnr && queued)
				mroce_count_room_stall(qp);
			break;
		}
		if (!mroce_paths_pace_ok(qp, now)) {
			/* path_timer wakes us at the pacer's time. */
			qp->pace_wait = true;
			mroce_count(qp->mdev, MROCE_CNT_TX_STALL_PACE, 1);
			break;
		}
		/* No path with window to spare: ACKs or path timers reopen. */
		idx = mroce_paths_pick(qp, seg);
		if (idx < 0) {
			mroce_count(qp->mdev, MROCE_CNT_TX_STALL_CWND, 1);
			break;
		}
		n = 1;
		if (!mroce_next_lost(qp, &psn) &&
		    (!fresh || !mroce_next_req(qp, &psn, &n)))
			break;

		if (++qp->pkts_since_ackreq >= MROCE_ACK_EVERY ||
		    mroce_paths_pace_gap(qp, now, seg) ||
		    (!mroce_ackreq_unanswered(qp) &&
		     (mroce_paths_stall_after(qp, idx, seg) ||
		      mroce_txq_stall_after(qp)))) {
			mroce_txpkt(qp, psn)->flags |= METAROCE_F_ACKREQ;
			qp->pkts_since_ackreq = 0;
		}
		if (mroce_txpkt(qp, psn)->flags & METAROCE_F_ACKREQ) {
			qp->ackreq_psn = psn;
			qp->ackreq_sent = true;
		}
		if (mroce_emit(qp, psn, mroce_txpkt(qp, psn), idx, false,
			       now) == -EINVAL) {
			/* A local key went bad under us: fail the request. */
			mroce_sq_wqe(qp, mroce_txpkt(qp, psn)->wqe)->status =
				IB_WC_LOC_PROT_ERR;
			mroce_tx_nak_fatal(qp, psn, IB_WC_LOC_PROT_ERR);
			break;
		}
		if (!timer_pending(&qp->rto_timer))
			mroce_tx_start_timer(qp);
	}
	mroce_paths_arm(qp);
	mroce_tx_complete(qp);
	return more;
}

void mroce_tx_work(struct work_struct *work)
{
	struct mroce_qp *qp = container_of(work, struct mroce_qp, tx_work);
	bool more;

	if (READ_ONCE(qp->tx_grow))
		mroce_txring_grow(qp);
	spin_lock_bh(&qp->lock);
	more = mroce_tx_run(qp, MROCE_TX_BUDGET);
	spin_unlock_bh(&qp->lock);
	if (more)
		mroce_tx_kick(qp);
}

/*
 * An ACK opened the window or declared a loss: send from the receive
 * softirq, a few packets at most, and leave the rest to tx_work. Waking
 * tx_work for every ACK cost a context switch each, and a repair waited
 * behind it. Lock held.
 */
void mroce_tx_now(struct mroce_qp *qp)
{
	if (mroce_tx_run(qp, MROCE_TX_ACK_BUDGET))
		mroce_tx_kick(qp);
}

