// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The timers of an RC connection. Both are per QP, never per packet, run
 * in softirq context and are stopped by destroy_qp before the QP goes.
 *
 * rto_timer (timer_list): the connection's retransmission timer. Runs
 *   while PSNs are outstanding and fires when no PSN was acknowledged for
 *   one verbs timeout (or when an RNR wait ends). Its expiries count
 *   against retry_cnt: this is what fails a connection whose every path
 *   is dead.
 * path_timer (hrtimer, soft): fires at the earliest of the paths' own
 *   retransmission timeouts (protocol section 10.4; one that finds every
 *   busy path silent restarts instead), their tail probes (two srtt of
 *   silence, 10.4), the next probe of a failed path while data is
 *   outstanding (10.5), and the pacer's next send time while it holds
 *   packets back (11.2).
 */

#include <linux/ktime.h>
#include <net/ipv6.h>
#include "qp.h"
#include "proto/psn.h"
#include "trace.h"

/* The soonest path_timer wakes after being armed. */
#define MROCE_TIMER_MIN_NS	(50 * NSEC_PER_USEC)

/*
 * The largest RTO estimate of the device's other connections to qp's
 * peer, 0 if none has one. A QP that starts behind their standing queue
 * waits that long for its first ACK; with the verbs timeout alone it
 * could use up retry_cnt before the ACK came (protocol section 9.2).
 * Taken once, at the connection's first timer, as a floor until it has
 * an estimate of its own. Other QPs' fields are read without their
 * locks: a torn or stale read only misplaces a floor.
 */
static u64 mroce_peer_rto_ns(struct mroce_qp *qp)
{
	struct mroce_qp *o;
	unsigned long i;
	u64 rto = 0;

	rcu_read_lock();
	xa_for_each(&qp->mdev->qp_xa, i, o) {
		/* The peer is its address; a v4-mapped one is an IPv4 peer. */
		if (o == qp || !READ_ONCE(o->rtt.valid) ||
		    !ipv6_addr_equal(&o->daddr, &qp->daddr))
			continue;
		rto = max(rto, READ_ONCE(o->rtt.rto_ns));
	}
	rcu_read_unlock();
	return rto;
}

/*
 * The retransmission timeout: the verbs one (4.096 us << timeout, within
 * [10 ms, 10 s]), stretched to the connection's RTO estimate when the
 * peer answers more slowly than that, or before the first estimate to
 * the other connections' to the same peer.
 */
static unsigned long mroce_rto(struct mroce_qp *qp)
{
	u64 us = qp->timeout ? (4096ULL << qp->timeout) / 1000 : 100000;

	us = clamp_t(u64, us, 10000, 10000000);
	if (qp->rtt.valid) {
		us = max(us, div_u64(qp->rtt.rto_ns, 1000));
	} else {
		if (!qp->peer_rto_ns)	/* U64_MAX: looked, found none */
			qp->peer_rto_ns = mroce_peer_rto_ns(qp) ?: U64_MAX;
		if (qp->peer_rto_ns != U64_MAX)
			us = max(us, div_u64(qp->peer_rto_ns, 1000));
	}
	return usecs_to_jiffies(us);
}

void mroce_tx_start_timer(struct mroce_qp *qp)
{
	if (mroce_in_flight(qp))
		mod_timer(&qp->rto_timer, jiffies + mroce_rto(qp));
	else
		del_timer(&qp->rto_timer);
}

static void mroce_path_timeout(struct mroce_qp *qp, unsigned int i, u64 now);

/* The per-connection retransmission timer: no progress for one RTO. */
void mroce_rto_fire(struct timer_list *t)
{
	struct mroce_qp *qp = from_timer(qp, t, rto_timer);
	struct mroce_txpkt *oldest;
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
		mroce_tx_nak_fatal(qp, qp->snd_una, IB_WC_RETRY_EXC_ERR);
		goto out;
	}
	/*
	 * The path the oldest PSN is outstanding on held it a whole
	 * connection timeout: its own timer is deemed expired. Taking the
	 * PSN from it without that let a dead route that had been idle,
	 * and so kept its weight, eat every resend of it until retry_cnt
	 * ran out.
	 */
	oldest = mroce_txpkt(qp, qp->snd_una);
	if (oldest->path != MROCE_PATH_NONE)
		mroce_path_timeout(qp, oldest->path, ktime_get_ns());
	/*
	 * PSNs still outstanding on a path are that path's timer's to
	 * judge; resending them here too would only duplicate them. The
	 * oldest always goes again, so the connection makes progress.
	 */
	for (p = qp->snd_una; p != qp->snd_psn; p++) {
		struct mroce_txpkt *t = mroce_txpkt(qp, p);

		if (p == qp->snd_una || t->path == MROCE_PATH_NONE)
			mroce_tx_mark_lost(qp, t);
	}
	mod_timer(&qp->rto_timer, jiffies + mroce_rto(qp));
	mroce_tx_kick(qp);
out:
	spin_unlock_bh(&qp->lock);
}

/* (Re)arm path_timer for the earliest event any path or the pacer has. */
void mroce_paths_arm(struct mroce_qp *qp)
{
	u64 when = U64_MAX, now = ktime_get_ns();
	bool busy = qp->snd_una != qp->snd_psn || qp->sq_tx != qp->sq_head;
	unsigned int i;

	if (qp->dying || !qp->npaths)
		return;
	for (i = 0; i < qp->npaths; i++) {
		const struct mroce_path *p = &qp->paths[i];
		u64 ev;

		/* Probes wait for data to probe with: mroce_tx_probe(). */
		if (!busy && !mroce_path_outstanding(p))
			continue;
		ev = mroce_path_next_event(p);
		/* ... and for the pacer, or a due one would spin this timer. */
		if (qp->pace_wait && p->state != MROCE_PATH_ACTIVE)
			ev = max(ev, mroce_pacer_next(&qp->pacer));
		when = min(when, ev);
	}
	/*
	 * Not "the pacer holds us now": by now it may not, and nothing
	 * else would wake tx_work to send what it held back.
	 */
	if (qp->pace_wait)
		when = min(when, mroce_pacer_next(&qp->pacer));
	if (when == U64_MAX)
		return;
	/*
	 * An event already due (a probe) is tx_work's to act on; waking
	 * again at once would only spin this softirq.
	 */
	when = max(when, now + MROCE_TIMER_MIN_NS);
	if (hrtimer_is_queued(&qp->path_timer) &&
	    ktime_to_ns(hrtimer_get_expires(&qp->path_timer)) <= when)
		return;
	hrtimer_start(&qp->path_timer, ns_to_ktime(when),
		      HRTIMER_MODE_ABS_SOFT);
}

/*
 * Path i's RTO expired: it stops tracking its PSNs, and those it sent at
 * least one RTO ago are declared lost. Younger ones may well be queued
 * behind the delay that fired the timer: resending them too multiplied
 * a deep queue's spurious timeouts into a storm of duplicates. Left to
 * the connection's timer, they are resent if no ACK comes first.
 */
static void mroce_path_timeout(struct mroce_qp *qp, unsigned int i, u64 now)
{
	struct mroce_path *p = &qp->paths[i];
	u64 rto = mroce_rtt_rto(&p->rtt);
	u8 before = p->state;
	u32 psn;

	mroce_path_on_timeout(p, now);
	mroce_count(qp->mdev, MROCE_CNT_PATH_RTO, 1);
	for (psn = qp->snd_una; psn != qp->snd_psn; psn++) {
		struct mroce_txpkt *t = mroce_txpkt(qp, psn);

		if (t->path != i)
			continue;
		t->path = MROCE_PATH_NONE;
		if (now - t->sent_ns >= rto)
			mroce_tx_mark_lost(qp, t);
	}
	if (p->state != before) {
		if (p->state == MROCE_PATH_FAILED)
			mroce_count(qp->mdev, MROCE_CNT_PATH_FAILED, 1);
		trace_mroce_path(qp->ibqp.qp_num, i, p->state, p->cc.cwnd,
				 p->rtt.srtt_ns);
	}
}

/* When path i's oldest outstanding packet was sent. */
static u64 mroce_path_oldest_sent(struct mroce_qp *qp, unsigned int i)
{
	u32 psn = mroce_paths_oldest(qp, i);

	return psn == qp->snd_psn ? 0 : mroce_txpkt(qp, psn)->sent_ns;
}

enum hrtimer_restart mroce_path_timer_fire(struct hrtimer *timer)
{
	struct mroce_qp *qp = container_of(timer, struct mroce_qp, path_timer);
	struct mroce_txpkt *oldest;
	bool kick = false, probed = false;
	unsigned int i;
	u64 now, due, late;
	u32 psn;

	spin_lock_bh(&qp->lock);
	if (qp->dying || (qp->state != IB_QPS_RTS && qp->state != IB_QPS_SQD))
		goto out;
	now = ktime_get_ns();
	/* How long this host kept the timer from running once it was due. */
	due = ktime_to_ns(hrtimer_get_expires(timer));
	late = now > due ? now - due : 0;
	/*
	 * Which tail probes go is decided first: a path whose probe is
	 * skipped expires in this run (section 10.4). Only this timer makes
	 * a probe due, so tx_work need not look for one on every packet.
	 */
	if (mroce_paths_tail_due(qp, now, &psn) >= 0)
		qp->tail_due = true;
	for (i = 0; i < qp->npaths; i++) {
		if (!mroce_path_timer_expired(&qp->paths[i], now))
			continue;
		/*
		 * Every busy path silent at once is the peer or this host
		 * stalling (a descheduled VM, a softirq run late), or a lost
		 * tail: not a route. Resending and shrinking every path for
		 * it cost more than the stall. The oldest PSN goes again,
		 * once: its ACK tells a lost tail from a stall. The
		 * connection's timer covers a peer that never answers again.
		 */
		if (mroce_paths_silent_together(qp->paths, qp->npaths, i,
						mroce_path_oldest_sent(qp, i),
						qp->acked_sent_ns, late)) {
			mroce_path_timer_restart(&qp->paths[i], now);
			mroce_count(qp->mdev, MROCE_CNT_PATH_RTO_DEFERRED, 1);
			/* Not again before the last probe could be answered:
			 * with many QPs on one busy host every one of them
			 * stalls at once, and probes were most of the resends.
			 */
			oldest = mroce_txpkt(qp, qp->snd_una);
			if (!probed &&
			    now - oldest->sent_ns >= mroce_rtt_rto(&qp->paths[i].rtt)) {
				mroce_tx_mark_lost(qp, oldest);
				probed = true;
				kick = true;
			}
			continue;
		}
		/* Its tail probe goes first, from tx_work (section 10.4). */
		if (mroce_path_tail_probe_time(&qp->paths[i]) <= now)
			continue;
		mroce_path_timeout(qp, i, now);
		kick = true;
	}
	if (mroce_paths_probe_due(qp, now) >= 0 || qp->lost_count ||
	    qp->tail_due ||
	    (qp->pace_wait && mroce_pacer_may_send(&qp->pacer, now)))
		kick = true;
	if (kick)
		mroce_tx_kick(qp);
	mroce_paths_arm(qp);
out:
	spin_unlock_bh(&qp->lock);
	return HRTIMER_NORESTART;
}

