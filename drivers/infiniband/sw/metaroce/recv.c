// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * MetaRoCE receive path: validate every packet, find its QP, place its
 * data on arrival, and complete messages in PSN order.
 *
 * Runs in softirq from the UDP socket's encap_rcv, under rcu_read_lock().
 */

#include <linux/ip.h>
#include <linux/percpu.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <net/inet_ecn.h>
#include "recv.h"
#include "qp.h"
#include "srq.h"
#include "ud.h"
#include "uqp.h"
#include "cq.h"
#include "mr.h"
#include "mw.h"
#include "proto/psn.h"
#include "proto/wire.h"
#include "trace.h"

/*
 * Send a NAK now. Its ack_psn is the true cumulative point, so it never
 * acknowledges what was not received; an RNR NAK names the blocked
 * message by its receive MSN.
 */
static void mroce_nak(struct mroce_qp *qp, u8 syndrome, u32 msn)
{
	enum mroce_counter c = MROCE_CNT_TX_NAK_FATAL;

	if ((syndrome & METAROCE_SYN_CLASS_MASK) == METAROCE_SYN_RNR)
		c = MROCE_CNT_TX_NAK_RNR;
	else if (syndrome == (METAROCE_SYN_NAK | METAROCE_NAK_PSN_SEQ))
		c = MROCE_CNT_TX_NAK_SEQ;
	mroce_count(qp->mdev, c, 1);
	qp->nak_syndrome = syndrome;
	qp->nak_msn = msn;
	mroce_send_ack(qp);
}

/*
 * The request at PSN psn failed fatally. It is not received; once every
 * PSN before it is, the connection ends (mroce_rx_check_fatal), so that
 * the NAK's ack_psn is exactly the failed PSN.
 */
static void mroce_rx_fatal(struct mroce_qp *qp, u8 code, u32 psn,
			   enum ib_wc_status recv_status)
{
	mroce_sack_clear(&qp->rx, psn);
	if (qp->fatal_pending && mroce_psn_before(qp->fatal_psn, psn))
		return;
	qp->fatal_pending = true;
	qp->fatal_psn = psn;
	qp->fatal_code = code;
	qp->fatal_recv_status = recv_status;
}

static void mroce_rx_check_fatal(struct mroce_qp *qp)
{
	struct ib_wc wc = {};

	if (!qp->fatal_pending || qp->rx.base != qp->fatal_psn)
		return;
	qp->fatal_pending = false;
	if (qp->fatal_recv_status != IB_WC_SUCCESS &&
	    qp->rq_tail != qp->rq_head) {
		struct mroce_rwqe *rwqe = mroce_rq_wqe(qp, qp->rq_tail++);

		wc.wr_id = rwqe->wr_id;
		wc.status = qp->fatal_recv_status;
		wc.opcode = IB_WC_RECV;
		wc.qp = &qp->ibqp;
		mroce_cq_post(to_mcq(qp->ibqp.recv_cq), &wc, false);
	}
	mroce_count(qp->mdev, MROCE_CNT_TX_NAK_FATAL, 1);
	/* tx_work sends the NAK after the responses still owed. */
	qp->fatal_nak = METAROCE_SYN_NAK | qp->fatal_code;
	mroce_qp_error(qp);
	mroce_tx_kick(qp);
}

static int mroce_rx_write(struct mroce_qp *qp, const struct mroce_hdr *h,
			  const u8 *payload, u32 len)
{
	struct mroce_mr *mr;
	u64 iova;

	if (!(qp->access & IB_ACCESS_REMOTE_WRITE))
		return -EACCES;
	if (!len)
		return 0;
	mr = mroce_rkey_lookup(qp, h->reth.rkey, h->reth.va, len,
			       IB_ACCESS_REMOTE_WRITE, &iova);
	if (IS_ERR(mr))
		return PTR_ERR(mr);
	mroce_mr_copy(mr, iova, (void *)payload, len, true);
	mroce_mr_put(mr);
	return 0;
}

/* Returns 0, -ENOBUFS (no receive WQE: RNR) or another -errno. */
static int mroce_rx_send(struct mroce_qp *qp, const struct mroce_hdr *h,
			 const u8 *payload, u32 len)
{
	u32 idx = h->send.msn - qp->rq_msn;
	struct mroce_rwqe *rwqe;
	int err;

	if (!mroce_rq_ready(qp, idx))
		return -ENOBUFS;
	rwqe = mroce_rq_wqe(qp, qp->rq_tail + idx);
	if (len) {
		err = mroce_sge_copy(qp->mdev, mroce_rq_pd(qp), rwqe->sge,
				     rwqe->num_sge, h->send.offset,
				     (void *)payload, len, true);
		if (err)
			return err;
	}
	return 0;
}

static struct mroce_rdreq *mroce_rdq_add(struct mroce_qp *qp)
{
	struct mroce_rdreq *rd;

	/* No queue: the QP was never allowed to answer a Read or atomic. */
	if (!qp->resp || qp->rdq_head - qp->rdq_tail >= MROCE_RDQ_SIZE)
		return NULL;	/* the requester will ask again */
	rd = &qp->resp->rdq[qp->rdq_head++ % MROCE_RDQ_SIZE];
	memset(rd, 0, sizeof(*rd));
	return rd;
}

/*
 * A READ_REQ asks for the response packets of PSNs psn .. psn + n - 1,
 * cut at the requester's segment. A repeated one (some response was
 * lost) is simply answered again.
 */
static int mroce_rx_read_req(struct mroce_qp *qp, const struct mroce_hdr *h)
{
	u32 seg = h->reth.seg ?: qp->mtu;
	u32 n = mroce_msg_pkts(h->reth.dma_len, seg);
	struct mroce_rdreq *rd;
	struct mroce_mr *mr;
	u32 i, max;
	u64 iova;

	if (!(qp->access & IB_ACCESS_REMOTE_READ))
		return -EACCES;
	if (n > MROCE_READ_CHUNK)
		return -EPROTO;
	/* The requester's segment need not be ours; our link must carry it. */
	if (seg > qp->mtu) {
		max = mroce_dev_seg(qp->mdev, 0);
		if (seg > max) {
			ibdev_info_ratelimited(qp->ibqp.device,
					       "qp %u: Read asks for %u-byte responses, link carries %u\n",
					       qp->ibqp.qp_num, seg, max);
			return -EPROTO;
		}
	}
	if (h->reth.dma_len) {
		mr = mroce_rkey_lookup(qp, h->reth.rkey, h->reth.va,
				       h->reth.dma_len, IB_ACCESS_REMOTE_READ,
				       &iova);
		if (IS_ERR(mr))
			return PTR_ERR(mr);
		mroce_mr_put(mr);
	}
	/* The PSNs of the responses count as received requests. */
	for (i = 1; i < n; i++) {
		struct mroce_rxinfo *ri;

		if (mroce_sack_set(&qp->rx, h->psn + i))
			continue;
		ri = mroce_rxi(qp, h->psn + i);
		ri->opcode = METAROCE_OP_READ_REQ;
		ri->flags = 0;
	}
	rd = mroce_rdq_add(qp);
	if (rd) {
		rd->psn = h->psn;
		rd->va = h->reth.va;
		rd->rkey = h->reth.rkey;
		rd->len = h->reth.dma_len;
		rd->seg = seg;
		rd->msn = h->reth.msn;
	}
	return 0;
}

static struct mroce_atomic_cache *mroce_acache_find(struct mroce_qp *qp,
						    u32 psn)
{
	struct mroce_atomic_cache *ac;
	int i;

	if (!qp->resp)
		return NULL;	/* no atomic was ever executed */
	ac = qp->resp->acache;
	for (i = 0; i < MROCE_MAX_RD_ATOM; i++)
		if (ac[i].valid && ac[i].psn == psn)
			return &ac[i];
	return NULL;
}

/* Execute an atomic once; its result is kept for a repeated request. */
static int mroce_rx_atomic(struct mroce_qp *qp, const struct mroce_hdr *h)
{
	struct mroce_atomic_cache *ac;
	struct mroce_rdreq *rd;
	struct mroce_mr *mr;
	u64 orig, iova;
	int err;

	if (!(qp->access & IB_ACCESS_REMOTE_ATOMIC))
		return -EACCES;
	if (h->atomic.va & 7)
		return -EPROTO;		/* misaligned: invalid request */
	mr = mroce_rkey_lookup(qp, h->atomic.rkey, h->atomic.va, 8,
			       IB_ACCESS_REMOTE_ATOMIC, &iova);
	if (IS_ERR(mr))
		return PTR_ERR(mr);
	err = mroce_mr_atomic(mr, iova, h->opcode == METAROCE_OP_CMP_SWAP,
			      h->atomic.compare, h->atomic.swap_add, &orig);
	mroce_mr_put(mr);
	if (err)
		return err;
	ac = &qp->resp->acache[qp->acache_next++ % MROCE_MAX_RD_ATOM];
	ac->valid = true;
	ac->psn = h->psn;
	ac->orig = orig;
	rd = mroce_rdq_add(qp);
	if (rd) {
		rd->atomic = true;
		rd->psn = h->psn;
		rd->orig = orig;
		rd->msn = h->atomic.msn;
	}
	return 0;
}

/* Whether a PSN before rx_high is missing (mroce_ack_due()). */
static bool mroce_rx_holes_left(struct mroce_qp *qp)
{
	return mroce_psn_before(mroce_sack_first_missing(&qp->rx), qp->rx_high);
}

/* A request we have seen before: answer it again, execute nothing. */
static void mroce_rx_dup(struct mroce_qp *qp, const struct mroce_hdr *h)
{
	struct mroce_atomic_cache *ac;
	struct mroce_rdreq *rd;

	mroce_count(qp->mdev, MROCE_CNT_RX_DUPLICATES, 1);
	/* A resent request may be a path probe: its ACK revives the path. */
	if (h->opcode != METAROCE_OP_READ_REQ &&
	    h->opcode != METAROCE_OP_CMP_SWAP &&
	    h->opcode != METAROCE_OP_FETCH_ADD)
		goto ack;
	if (h->flags & METAROCE_F_RETX)
		mroce_send_ack(qp);
	if (h->opcode == METAROCE_OP_READ_REQ) {
		/* Reading again is harmless; the checks run again too. */
		if (mroce_rx_read_req(qp, h) == 0)
			mroce_tx_kick(qp);
		return;
	}
	if (h->opcode == METAROCE_OP_CMP_SWAP ||
	    h->opcode == METAROCE_OP_FETCH_ADD) {
		ac = mroce_acache_find(qp, h->psn);
		rd = ac ? mroce_rdq_add(qp) : NULL;
		if (rd) {
			rd->atomic = true;
			rd->psn = h->psn;
			rd->orig = ac->orig;
			rd->msn = h->atomic.msn;
			mroce_tx_kick(qp);
		}
		return;
	}
ack:
	mroce_send_ack(qp);
}

/* Complete the receive WQE at rq_tail for a message now in order. */
static void mroce_complete_recv(struct mroce_qp *qp, struct mroce_rxinfo *ri)
{
	struct mroce_rwqe *rwqe = mroce_rq_wqe(qp, qp->rq_tail);
	struct ib_wc wc = {};

	wc.wr_id = rwqe->wr_id;
	wc.status = IB_WC_SUCCESS;
	wc.qp = &qp->ibqp;
	wc.src_qp = qp->dqpn;
	wc.port_num = 1;
	if (ri->opcode == METAROCE_OP_WRITE_IMM) {
		wc.opcode = IB_WC_RECV_RDMA_WITH_IMM;
		wc.byte_len = ri->total;
	} else {
		wc.opcode = IB_WC_RECV;
		wc.byte_len = ri->total;
	}
	if (ri->opcode == METAROCE_OP_SEND_IMM ||
	    ri->opcode == METAROCE_OP_WRITE_IMM) {
		wc.wc_flags |= IB_WC_WITH_IMM;
		wc.ex.imm_data = cpu_to_be32(ri->imm);
	} else if (ri->opcode == METAROCE_OP_SEND_INV) {
		wc.wc_flags |= IB_WC_WITH_INVALIDATE;
		wc.ex.invalidate_rkey = ri->imm;
		if (mroce_key_invalidate(qp->mdev, ri->imm, qp->ibqp.pd))
			wc.status = IB_WC_REM_INV_REQ_ERR;
	}
	qp->rq_tail++;
	qp->rq_msn++;
	mroce_cq_post(to_mcq(qp->ibqp.recv_cq), &wc,
		      ri->flags & METAROCE_F_SOLICITED);
}

/*
 * Advance the cumulative point over received PSNs, completing messages in
 * order. A WRITE_IMM needs its receive WQE only now; with none posted the
 * point stops there and the peer is told RNR. Lock held.
 */
static void mroce_rx_advance(struct mroce_qp *qp)
{
	u32 psn;

	/* One shift of the window's map per run, not one per PSN. */
	for (psn = qp->rx.base; mroce_sack_test(&qp->rx, psn); psn++) {
		struct mroce_rxinfo *ri = mroce_rxi(qp, psn);
		bool consumes = (ri->flags & METAROCE_F_LAST) &&
				(ri->opcode == METAROCE_OP_SEND ||
				 ri->opcode == METAROCE_OP_SEND_IMM ||
				 ri->opcode == METAROCE_OP_SEND_INV ||
				 ri->opcode == METAROCE_OP_WRITE_IMM);

		if (consumes && !mroce_rq_ready(qp, 0)) {
			/* Forget it: the sender repeats it after the RNR wait. */
			mroce_sack_advance(&qp->rx, psn);
			mroce_sack_clear(&qp->rx, psn);
			mroce_nak(qp, METAROCE_SYN_RNR | qp->min_rnr_timer,
				  qp->rq_msn);
			return;
		}
		/* A Write's packets are consecutive: sum them for WRITE_IMM. */
		if (ri->opcode == METAROCE_OP_WRITE ||
		    ri->opcode == METAROCE_OP_WRITE_IMM) {
			if (ri->flags & METAROCE_F_FIRST)
				qp->rx_write_bytes = 0;
			qp->rx_write_bytes += ri->total;
			if (ri->opcode == METAROCE_OP_WRITE_IMM)
				ri->total = qp->rx_write_bytes;
		}
		if (consumes)
			mroce_complete_recv(qp, ri);
	}
	mroce_sack_advance(&qp->rx, psn);
}

/* One packet for this QP. Lock held. */
static void mroce_rx_locked(struct mroce_qp *qp, const struct mroce_hdr *h,
			    const u8 *payload, u32 len)
{
	struct mroce_dev *mdev = qp->mdev;
	struct mroce_rxinfo *ri;
	u32 psn = h->psn;
	bool ce = false, ack;
	int err = 0, r;

	if (qp->state < IB_QPS_RTR || qp->state == IB_QPS_ERR) {
		/* The peer sends before we are ready, or after we failed. */
		mroce_count(mdev, MROCE_CNT_RX_DROP_RC_STATE, 1);
		return;
	}
	if (h->opcode == METAROCE_OP_ACK) {
		if (qp->state >= IB_QPS_RTS)
			mroce_rx_ack(qp, h);
		return;
	}
	if (h->opcode == METAROCE_OP_READ_RESP ||
	    h->opcode == METAROCE_OP_ATOMIC_ACK) {
		/* Responses carry our own PSNs: they are acknowledgements. */
		if (qp->state >= IB_QPS_RTS)
			mroce_rx_resp(qp, h, payload, len);
		return;
	}
	trace_mroce_rx(qp->ibqp.qp_num, psn, h->opcode, h->flags, len);
	qp->last_ts = h->ts;
	qp->last_path = h->path_id;
	qp->last_psn = psn;
	mroce_rate_rx(mdev, qp->ibqp.qp_num, h->hdr_len + len);
	if (h->ip_ce && (h->flags & METAROCE_F_ECNCAP)) {
		/* Echoed at once, in an ACK that names the marked path. */
		if (h->path_id < MROCE_MAX_PATHS &&
		    qp->rx_ce[h->path_id] < U16_MAX)
			qp->rx_ce[h->path_id]++;
		mroce_count(mdev, MROCE_CNT_ECN_CE_RX, 1);
		ce = true;
	}

	/* Nothing after a failed request is executed. */
	if (qp->fatal_pending && mroce_psn_after_eq(psn, qp->fatal_psn))
		return;
	/* A READ_REQ takes the PSNs of its responses too. */
	if (mroce_rxring_fit(qp, psn, h->opcode == METAROCE_OP_READ_REQ ?
			     MROCE_READ_CHUNK : 1)) {
		mroce_count(mdev, MROCE_CNT_RX_RING_FULL, 1);
		return;		/* as the network might: it comes again */
	}
	r = mroce_sack_set(&qp->rx, psn);
	if (r < 0) {		/* beyond the window */
		mroce_nak(qp, METAROCE_SYN_NAK | METAROCE_NAK_PSN_SEQ,
			  qp->rq_msn);
		return;
	}
	if (r > 0) {
		mroce_rx_dup(qp, h);
		return;
	}
	if (psn != qp->rx.base)
		mroce_count(mdev, MROCE_CNT_RX_OUT_OF_ORDER, 1);
	ack = mroce_ack_due(psn, qp->rx_high, h->flags & METAROCE_F_ACKREQ, ce,
			    mroce_psn_before(psn, qp->rx_high) &&
			    mroce_rx_holes_left(qp));
	if (mroce_psn_after_eq(psn, qp->rx_high))
		qp->rx_high = psn + 1;

	switch (h->opcode) {
	case METAROCE_OP_SEND:
	case METAROCE_OP_SEND_IMM:
	case METAROCE_OP_SEND_INV:
		err = mroce_rx_send(qp, h, payload, len);
		break;
	case METAROCE_OP_WRITE:
	case METAROCE_OP_WRITE_IMM:
		err = mroce_rx_write(qp, h, payload, len);
		break;
	case METAROCE_OP_READ_REQ:
		err = mroce_rx_read_req(qp, h);
		break;
	case METAROCE_OP_CMP_SWAP:
	case METAROCE_OP_FETCH_ADD:
		err = mroce_rx_atomic(qp, h);
		break;
	default:
		err = -EPROTO;
	}

	if (err == -ENOBUFS) {
		/* Not received after all: it must come again. */
		mroce_sack_clear(&qp->rx, psn);
		mroce_nak(qp, METAROCE_SYN_RNR | qp->min_rnr_timer,
			  h->send.msn);
		return;
	}
	if (err) {
		bool send = h->opcode == METAROCE_OP_SEND ||
			    h->opcode == METAROCE_OP_SEND_IMM ||
			    h->opcode == METAROCE_OP_SEND_INV;

		ibdev_dbg(&mdev->ibdev, "qp %u: psn %u opcode %u: error %d\n",
			  qp->ibqp.qp_num, psn, h->opcode, err);
		if (send && err == -ERANGE)	/* longer than the receive WQE */
			mroce_rx_fatal(qp, METAROCE_NAK_INV_REQ, psn,
				       IB_WC_LOC_LEN_ERR);
		else if (send)
			mroce_rx_fatal(qp, METAROCE_NAK_REM_OP, psn,
				       IB_WC_LOC_PROT_ERR);
		else
			mroce_rx_fatal(qp, err == -EPROTO ?
				       METAROCE_NAK_INV_REQ :
				       METAROCE_NAK_REM_ACCESS, psn,
				       IB_WC_SUCCESS);
		mroce_rx_check_fatal(qp);
		return;
	}

	ri = mroce_rxi(qp, psn);
	ri->opcode = h->opcode;
	ri->flags = h->flags;
	ri->imm = h->opcode == METAROCE_OP_SEND_INV ? h->inv_rkey : h->imm;
	ri->total = h->opcode == METAROCE_OP_WRITE ||
		    h->opcode == METAROCE_OP_WRITE_IMM ? len : h->send.total_len;

	mroce_rx_advance(qp);
	mroce_rx_check_fatal(qp);
	if (qp->state == IB_QPS_ERR)
		return;
	if (h->opcode == METAROCE_OP_READ_REQ ||
	    h->opcode == METAROCE_OP_CMP_SWAP ||
	    h->opcode == METAROCE_OP_FETCH_ADD)
		mroce_tx_kick(qp);
	if (ack) {
		if (mroce_sack_count(&qp->rx))
			mroce_count(mdev, MROCE_CNT_RX_SACK_GAPS, 1);
		mroce_send_ack(qp);
	}
}

/*
 * Flatten the UDP and MetaRoCE headers (skb->data is at the UDP header):
 * the codec reads only the header's bytes. The header's own length says
 * how far to pull, so that no payload joins the head. Returns false if
 * the packet is shorter than a base header or the pull fails.
 */
static bool mroce_rx_pull_hdr(struct sk_buff *skb)
{
	const u32 base = sizeof(struct udphdr) + METAROCE_BHDR_LEN;
	const struct metaroce_bhdr *b;
	u32 want;

	if (!pskb_may_pull(skb, base))
		return false;
	b = (const void *)(skb->data + sizeof(struct udphdr));
	want = sizeof(struct udphdr) + b->hdr_words * METAROCE_HDR_WORD;
	return pskb_may_pull(skb, min(want, skb->len));
}

/*
 * A payload in several fragments is gathered here: receive runs in
 * softirq, one packet at a time per CPU, and the payload is placed before
 * mroce_recv() returns.
 */
static u8 __percpu *mroce_rx_bounce;

int mroce_recv_init(void)
{
	mroce_rx_bounce = __alloc_percpu(METAROCE_MAX_PAYLOAD, SMP_CACHE_BYTES);
	return mroce_rx_bounce ? 0 : -ENOMEM;
}

/* After the sockets are gone: no receive may still be running. */
void mroce_recv_exit(void)
{
	synchronize_net();
	free_percpu(mroce_rx_bounce);
}

/*
 * The len payload bytes at off, flat. A NIC (virtio-net among them) often
 * hands the frame over as a page fragment behind the few header bytes it
 * copied; once the headers are pulled the payload is that fragment, read
 * in place. Any other layout (a zero-copy sender's pages across veth or
 * lo: several fragments) is gathered into this CPU's bounce buffer;
 * linearizing instead cost an allocation and a copy of the whole packet.
 * NULL if the skb is shorter than the header says.
 */
static const u8 *mroce_rx_payload(struct sk_buff *skb, u32 off, u32 len)
{
	const skb_frag_t *f = &skb_shinfo(skb)->frags[0];
	u8 *bounce;
	void *p;

	if (skb_headlen(skb) >= off + len)
		return skb->data + off;
	if (skb_headlen(skb) == off && skb_shinfo(skb)->nr_frags == 1 &&
	    !skb_has_frag_list(skb) && skb_frag_size(f) == len) {
		/* NULL for a page without a kernel mapping, or no page. */
		p = skb_frag_address_safe(f);
		if (p)
			return p;
	}
	/* The codec bounds payload_len; the buffer's size is that bound. */
	if (WARN_ON_ONCE(len > METAROCE_MAX_PAYLOAD))
		return NULL;
	bounce = this_cpu_ptr(mroce_rx_bounce);
	return skb_copy_bits(skb, off, bounce, len) ? NULL : bounce;
}

void mroce_recv(struct mroce_dev *mdev, struct sk_buff *skb)
{
	enum mroce_drop_reason why;
	struct mroce_hdr hdr;
	struct mroce_qp *qp;
	const u8 *payload;
	int hlen;

	mroce_count(mdev, MROCE_CNT_RX_PACKETS, 1);
	mroce_count(mdev, MROCE_CNT_RX_BYTES, skb->len);

	if (!mroce_rx_pull_hdr(skb)) {
		why = MROCE_DROP_TRUNCATED;
		goto bad;
	}
	/* The spec makes the checksum mandatory: MetaRoCE has no ICRC. */
	if (ip_hdr(skb)->version == 4 && !udp_hdr(skb)->check) {
		why = MROCE_DROP_UDP_CSUM;
		goto bad;
	}
	hlen = mroce_hdr_decode(&hdr, skb->data + sizeof(struct udphdr),
				skb->len - sizeof(struct udphdr), &why);
	if (hlen < 0)
		goto bad;
	payload = mroce_rx_payload(skb, sizeof(struct udphdr) + hlen,
				   hdr.payload_len);
	if (!payload) {
		why = MROCE_DROP_TRUNCATED;
		goto bad;
	}
	hdr.ip_ce = INET_ECN_is_ce(ip_hdr(skb)->version == 4 ?
				   ip_hdr(skb)->tos :
				   ipv6_get_dsfield(ipv6_hdr(skb)));

	qp = mroce_qp_get(mdev, hdr.dqpn);
	if (!qp) {
		mroce_count(mdev, MROCE_CNT_RX_DROP_NO_QP, 1);
		trace_mroce_rx_no_qp(dev_name(&mdev->ibdev.dev), hdr.dqpn,
				     hdr.opcode, hdr.psn);
		kfree_skb(skb);
		return;
	}
	if (mroce_qp_is_ud(qp)) {
		mroce_ud_rx(qp, &hdr, skb, payload, hdr.payload_len);
	} else if (mroce_opcode_is_ud(hdr.opcode)) {
		mroce_count(mdev, MROCE_CNT_RX_DROP_QP_TYPE, 1);
	} else {
		spin_lock_bh(&qp->lock);
		mroce_uqp_rx_prepare(qp);
		mroce_rx_locked(qp, &hdr, payload, hdr.payload_len);
		spin_unlock_bh(&qp->lock);
		mroce_rate_push(mdev);
	}
	mroce_qp_put(qp);
	consume_skb(skb);
	return;
bad:
	mroce_count_drop(mdev, why);
	trace_mroce_rx_drop(dev_name(&mdev->ibdev.dev),
			    mroce_drop_reason_name(why));
	ibdev_dbg(&mdev->ibdev, "rx drop: %s\n", mroce_drop_reason_name(why));
	kfree_skb(skb);
}
