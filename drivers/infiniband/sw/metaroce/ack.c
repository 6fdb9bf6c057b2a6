// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * MetaRoCE requester side, what comes back: ACKs with their SACK bitmap,
 * NAKs, and read and atomic responses, which acknowledge the PSNs they
 * answer. They retire PSNs on their paths, declare holes lost, complete
 * work requests in order and fail the connection on fatal NAKs. All run
 * from the receive softirq with qp->lock held.
 */

#include <linux/ktime.h>
#include "qp.h"
#include "mr.h"
#include "proto/psn.h"
#include "trace.h"

void mroce_tx_mark_lost(struct mroce_qp *qp, struct mroce_txpkt *t)
{
	mroce_paths_forget(qp, t);
	if (!t->lost && !t->acked) {
		t->lost = true;
		qp->lost_count++;
	}
}

/* The requester's record of what was acknowledged starts over at psn. */
void mroce_tx_acks_reset(struct mroce_qp *qp, u32 psn)
{
	qp->snd_sacked = 0;
	mroce_sack_init(&qp->sack_seen, psn, METAROCE_SACK_BITS);
	qp->lost_scan = psn;
}

/*
 * psn goes out on a path, maybe again: its SACK bit now speaks of this
 * transmission, and the loss walk must pass it (mroce_tx_find_lost()).
 */
void mroce_tx_on_path(struct mroce_qp *qp, u32 psn)
{
	mroce_sack_clear(&qp->sack_seen, psn);
	if (mroce_psn_before(psn, qp->lost_scan))
		qp->lost_scan = psn;
}

/* What one ACK or response reports, for the paths. */
struct mroce_ackctx {
	u64 now;
	u16 echo_path;			/* METAROCE_ECHO_NONE: none */
	u32 echo_pkts;			/* of echo_path, newly acknowledged */
};

static void mroce_ack_psn(struct mroce_qp *qp, u32 psn, bool by_resp,
			  struct mroce_ackctx *c)
{
	struct mroce_txpkt *t = mroce_txpkt(qp, psn);

	/* Any ACK or response says this transmission left its path. */
	mroce_paths_acked(qp, t, c->now, c->echo_path, &c->echo_pkts);
	/* An ACK of a read's PSN says the request arrived, not the data. */
	if (t->acked || t->needs_resp != by_resp)
		return;
	t->acked = true;
	qp->snd_sacked++;
	if (t->lost) {
		t->lost = false;
		qp->lost_count--;
	}
}

/* The PSN of a NAK belongs to this WQE: fail it and the connection. */
void mroce_tx_nak_fatal(struct mroce_qp *qp, u32 psn,
			enum ib_wc_status status)
{
	/*
	 * Requests before the failed one that were acknowledged complete
	 * normally; any not acknowledged are flushed; the one holding psn
	 * gets status, and the error state flushes the rest. The one holding
	 * psn may still be being sent (longer than the window): sq_tx.
	 */
	u32 end = qp->sq_tx + (qp->sq_tx != qp->sq_head &&
			       mroce_sq_wqe(qp, qp->sq_tx)->sent);

	mroce_tx_complete(qp);
	while (qp->sq_tail != end) {
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
			mroce_tx_nak_fatal(qp, wqe->first_psn,
					   IB_WC_RNR_RETRY_EXC_ERR);
			return;
		}
		/* Wait the peer's RNR time, then resend what it refused. */
		qp->rnr_until_ns = ktime_get_ns() +
				   mroce_rnr_ns(syn & METAROCE_SYN_VALUE_MASK);
		for (p = wqe->first_psn; p != wqe->first_psn + wqe->sent; p++)
			if (mroce_psn_after_eq(p, qp->snd_una))
				mroce_tx_mark_lost(qp, mroce_txpkt(qp, p));
		mod_timer(&qp->rto_timer, jiffies +
			  nsecs_to_jiffies(qp->rnr_until_ns - ktime_get_ns()) + 1);
		return;
	}
	switch (syn & METAROCE_SYN_VALUE_MASK) {
	case METAROCE_NAK_PSN_SEQ:
		mroce_count(qp->mdev, MROCE_CNT_RX_NAK_SEQ, 1);
		/* PSNs before snd_una are no longer in the ring. */
		p = mroce_psn_before(psn, qp->snd_una) ? qp->snd_una : psn;
		for (; p != qp->snd_psn; p++)
			mroce_tx_mark_lost(qp, mroce_txpkt(qp, p));
		return;
	case METAROCE_NAK_INV_REQ:
		mroce_count(qp->mdev, MROCE_CNT_RX_NAK_FATAL, 1);
		mroce_tx_nak_fatal(qp, psn, IB_WC_REM_INV_REQ_ERR);
		return;
	case METAROCE_NAK_REM_ACCESS:
		mroce_count(qp->mdev, MROCE_CNT_RX_NAK_FATAL, 1);
		mroce_tx_nak_fatal(qp, psn, IB_WC_REM_ACCESS_ERR);
		return;
	default:
		mroce_count(qp->mdev, MROCE_CNT_RX_NAK_FATAL, 1);
		mroce_tx_nak_fatal(qp, psn, IB_WC_REM_OP_ERR);
	}
}

/* Move snd_una over the acknowledged prefix. Lock held. */
static void mroce_una_advance(struct mroce_qp *qp)
{
	while (qp->snd_una != qp->snd_psn &&
	       mroce_txpkt(qp, qp->snd_una)->acked) {
		qp->snd_una++;
		qp->snd_sacked--;
	}
}

/*
 * Declare lost what the acknowledgments so far prove lost. A transmission
 * is lost when its path has acknowledged MROCE_PATH_DUPTHRESH packets
 * sent after it (section 10.3). The PSNs of a Read that no packet of ours
 * carries (a READ_REQ asks for many) are lost when as many later PSNs
 * were answered.
 *
 * The walk stops once neither rule can fire: it has passed every
 * transmission its path delivered something after, and too few
 * acknowledged PSNs lie ahead for the second. While paths deliver in
 * order it does not start. Walking the whole window on every ACK and on
 * every read response took a quarter of the CPU of a 1 MiB ib_read_bw;
 * it also ran to the end of the window on every ACK while any path had
 * a hole. Nor does it start at snd_una without reads: a loss holds
 * snd_una for a round trip, over which every ACK while another hole
 * waits would walk the same PSNs, none of them on a path any more.
 */
static void mroce_tx_find_lost(struct mroce_qp *qp, u64 now)
{
	u32 holes = mroce_paths_holes(qp);	/* left for the first rule */
	u32 p, later = qp->snd_sacked;	/* acknowledged PSNs from p on */
	bool reads = qp->rd_pending, lead = !reads;

	if (mroce_psn_before(qp->lost_scan, qp->snd_una))
		qp->lost_scan = qp->snd_una;
	/*
	 * Without reads only the first rule can fire, on a transmission
	 * still on a path; lost_scan is the first PSN that may be one.
	 */
	for (p = reads ? qp->snd_una : qp->lost_scan; p != qp->snd_psn; p++) {
		struct mroce_txpkt *t;

		if (!holes && (!reads || later < MROCE_DUPACK_THRESH))
			break;
		t = mroce_txpkt(qp, p);
		if (lead && t->path == MROCE_PATH_NONE) {
			qp->lost_scan = p + 1;
			continue;
		}
		lead = false;
		if (t->acked) {
			if (later)
				later--;
		} else if (t->lost) {
			continue;
		} else if (holes && mroce_paths_in_hole(qp, t)) {
			holes--;
			if (mroce_paths_lost(qp, t, now))
				mroce_tx_mark_lost(qp, t);
		} else if (t->path == MROCE_PATH_NONE && t->needs_resp &&
			   !t->retx && later >= MROCE_DUPACK_THRESH) {
			mroce_tx_mark_lost(qp, t);
		}
	}
}

/*
 * After PSNs were acknowledged: move snd_una, declare holes lost, retire
 * finished WQEs, and resend or send more. Lock held.
 */
static void mroce_tx_progress(struct mroce_qp *qp, u32 una, u64 now)
{
	mroce_una_advance(qp);
	if (qp->snd_una != una) {
		qp->retries = 0;
		qp->rnr_retries = 0;
		mroce_tx_start_timer(qp);
	}
	mroce_tx_find_lost(qp, now);
	/* mroce_tx_now() completes what is finished once it has sent. */
	if (qp->lost_count || qp->snd_una != una || qp->sq_tx != qp->sq_head)
		mroce_tx_now(qp);
	else
		mroce_tx_complete(qp);
}

/*
 * Act on the SACK bits that earlier ACKs did not bring. While a hole is
 * open every ACK reports up to 256 PSNs, most of them acted on before:
 * walking them all cost each ACK a pass over as many txpkts, and at 1%
 * loss nearly every ACK has a hole. Acting on a bit twice changes
 * nothing unless the PSN was sent again in between, which clears its
 * bit in sack_seen (mroce_tx_on_path()).
 */
static void mroce_rx_sack(struct mroce_qp *qp, const struct mroce_hdr *hdr,
			  struct mroce_ackctx *c)
{
	u32 base = hdr->ack.sack_base, p;
	u64 fresh[METAROCE_SACK_BITS / 64];
	unsigned int k;

	mroce_sack_fresh(&qp->sack_seen, base, hdr->ack.sack, fresh);
	for (k = 0; k < ARRAY_SIZE(fresh); k++) {
		for (; fresh[k]; fresh[k] &= fresh[k] - 1) {
			p = base + k * 64 + __ffs64(fresh[k]);
			if (mroce_psn_before(p, qp->snd_una) ||
			    mroce_psn_after_eq(p, qp->snd_psn))
				continue;
			mroce_ack_psn(qp, p, false, c);
			mroce_sack_set(&qp->sack_seen, p);
		}
	}
}

/* Process an ACK or NAK from the peer. Lock held. */
void mroce_rx_ack(struct mroce_qp *qp, const struct mroce_hdr *hdr)
{
	u32 ack = hdr->ack.ack_psn, una = qp->snd_una, p;
	struct mroce_ackctx c = {
		.now = ktime_get_ns(),
		.echo_path = hdr->ack.echo_path,
	};
	u8 syn = hdr->ack.syndrome;

	/* Traced before it is judged: an ignored ACK is seen for what it is. */
	trace_mroce_ack(qp->ibqp.qp_num, ack, syn, qp->snd_una, qp->snd_psn,
			qp->lost_count);
	if (mroce_psn_after(ack, qp->snd_psn) ||
	    mroce_psn_before(ack, qp->snd_una - MROCE_TX_WINDOW))
		return;		/* stale or bogus */
	/* The echo is our own send stamp; one from the future is bogus. */
	if (hdr->ack.echo_ts && hdr->ack.echo_ts <= c.now)
		mroce_rtt_sample(&qp->rtt, c.now - hdr->ack.echo_ts);

	for (p = qp->snd_una; mroce_psn_before(p, ack); p++)
		mroce_ack_psn(qp, p, false, &c);
	mroce_rx_sack(qp, hdr, &c);
	mroce_paths_on_ack(qp, hdr, c.now, c.echo_pkts);
	/* What the NAK acknowledges counts before the NAK itself. */
	mroce_una_advance(qp);
	if (syn != METAROCE_SYN_ACK) {
		mroce_rx_nak(qp, syn, ack, hdr->ack.msn);
		if (qp->state == IB_QPS_ERR)
			return;
	}
	mroce_tx_progress(qp, una, c.now);
}

/* A READ_RESP or ATOMIC_ACK: place it, and it acknowledges its PSN. */
void mroce_rx_resp(struct mroce_qp *qp, const struct mroce_hdr *h,
		   const u8 *payload, u32 len)
{
	struct mroce_txpkt *t = mroce_txpkt(qp, h->psn);
	struct mroce_ackctx c = {
		.now = ktime_get_ns(),
		.echo_path = METAROCE_ECHO_NONE,
	};
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
	mroce_ack_psn(qp, h->psn, true, &c);
	mroce_tx_progress(qp, una, c.now);
}

