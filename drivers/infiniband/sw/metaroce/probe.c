// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Probes: a PSN sent again on one chosen path, outside every window,
 * asking for an ACK. A failed or suspect path is probed to learn whether
 * it works again (protocol section 10.5); a quiet path whose last packets
 * went unanswered for two srtt is probed to repair a lost tail before its
 * timer expires and collapses its window (10.4). Both are sent by the
 * QP's transmit loop, which path_timer wakes when one falls due. Lock
 * held throughout.
 */

#include "qp.h"
#include "trace.h"

/*
 * The packet to probe with: the oldest unacknowledged PSN again, or with
 * nothing outstanding and every path down, the next new packet, so that
 * new work revives the paths. False if there is nothing to probe with.
 */
static bool mroce_probe_pkt(struct mroce_qp *qp, bool fresh, u32 *psn,
			    struct mroce_txpkt *t)
{
	u32 n;

	if (qp->snd_una != qp->snd_psn) {
		*psn = qp->snd_una;
		*t = *mroce_txpkt(qp, *psn);
		t->flags |= METAROCE_F_RETX;
		return true;
	}
	if (fresh && !mroce_paths_any_up(qp) && mroce_next_req(qp, psn, &n)) {
		*t = *mroce_txpkt(qp, *psn);
		return true;
	}
	return false;
}

/* The path's state after its failover probe went, for counters and trace. */
static void mroce_probe_sent(struct mroce_qp *qp, int idx, u64 now)
{
	struct mroce_path *p = &qp->paths[idx];
	u8 before = p->state;

	mroce_path_on_probe_sent(p, now);
	mroce_count(qp->mdev, MROCE_CNT_PATH_PROBES, 1);
	/* Its earlier probes went unanswered: SUSPECT became FAILED. */
	if (before == MROCE_PATH_SUSPECT && p->state != MROCE_PATH_SUSPECT)
		mroce_count(qp->mdev, MROCE_CNT_PATH_FAILED, 1);
	trace_mroce_path(qp->ibqp.qp_num, idx, p->state, p->cc.cwnd,
			 p->rtt.srtt_ns);
}

/*
 * Send a probe that is due: a failover probe first, else a tail probe.
 * The tail probe resends the path's oldest outstanding PSN and leaves
 * the PSN's send time alone, so that if it is lost too, the path's timer
 * still finds the original a whole timeout old and repairs it.
 */
bool mroce_tx_probe(struct mroce_qp *qp, u64 now, bool fresh)
{
	int idx = mroce_paths_probe_due(qp, now);
	bool tail = idx < 0;
	struct mroce_txpkt t;
	u32 psn;

	if (tail && qp->tail_due) {
		idx = mroce_paths_tail_due(qp, now, &psn);
		qp->tail_due = idx >= 0;
	}
	if (idx < 0)
		return false;
	/* The receiver's rate hint covers probes too. */
	if (!mroce_paths_pace_ok(qp, now)) {
		qp->pace_wait = true;
		return false;
	}
	if (tail) {
		t = *mroce_txpkt(qp, psn);
		t.flags |= METAROCE_F_RETX;
	} else if (!mroce_probe_pkt(qp, fresh, &psn, &t)) {
		return false;
	}
	t.flags |= METAROCE_F_ACKREQ;
	if (t.flags & METAROCE_F_RETX)
		mroce_read_reask(&t);
	mroce_emit(qp, psn, &t, idx, true, now);
	if (!tail)
		mroce_txpkt(qp, psn)->sent_ns = t.sent_ns;
	/* Its ACK may now answer the probe: no evidence for its path. */
	if ((t.flags & METAROCE_F_RETX) && mroce_txpkt(qp, psn)->retx < U8_MAX)
		mroce_txpkt(qp, psn)->retx++;
	if (tail) {
		mroce_path_on_tail_probe(&qp->paths[idx], now);
		mroce_count(qp->mdev, MROCE_CNT_PATH_TAIL_PROBES, 1);
	} else {
		mroce_probe_sent(qp, idx, now);
	}
	if (!timer_pending(&qp->rto_timer))
		mroce_tx_start_timer(qp);
	return true;
}
