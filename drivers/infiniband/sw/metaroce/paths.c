// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The multipath sender of an RC connection: binds the protocol's per-path
 * state (proto/path.c, proto/cc.c) to the QP's packets, source ports and
 * timer. Every data packet is sprayed on the path the selector picks and
 * remembered there by its path sequence number, so loss, RTT and ECN are
 * judged per path and a bad path only costs its own share.
 * Its timer is in timers.c. Everything here runs under qp->lock.
 */

#include <linux/ktime.h>
#include <net/dst_cache.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_netlink.h>
#include "qp.h"
#include "proto/psn.h"
#include "trace.h"

/*
 * Pacer bucket depth. Smaller than the spec's 64 KiB: a vCPU or softirq
 * that stalls for milliseconds would otherwise release the whole bucket
 * at once into a bottleneck the hints are meant to keep empty.
 */
#define MROCE_PACE_BURST_LINUX	(8 * 1024)

/* Once the QP is off the lookup table and its timers are stopped. */
void mroce_paths_destroy(struct mroce_qp *qp)
{
	unsigned int i;

	for (i = 0; qp->path_dst && i < qp->npaths; i++)
		dst_cache_destroy(&qp->path_dst[i]);
	kfree(qp->path_dst);
	qp->path_dst = NULL;
	kvfree(qp->paths);
	kfree(qp->path_sport);
	qp->paths = NULL;
	qp->path_sport = NULL;
	qp->npaths = 0;
}

int mroce_paths_create(struct mroce_qp *qp)
{
	unsigned int n = clamp_t(unsigned int, READ_ONCE(qp->mdev->num_paths),
				 1, MROCE_MAX_PATHS);

	qp->paths = kvcalloc(n, sizeof(*qp->paths), GFP_KERNEL);
	qp->path_sport = kcalloc(n, sizeof(*qp->path_sport), GFP_KERNEL);
	qp->path_dst = kcalloc(n, sizeof(*qp->path_dst), GFP_KERNEL);
	if (!qp->paths || !qp->path_sport || !qp->path_dst)
		goto nomem;
	for (qp->npaths = 0; qp->npaths < n; qp->npaths++)
		if (dst_cache_init(&qp->path_dst[qp->npaths], GFP_KERNEL))
			goto nomem;
	hrtimer_init(&qp->path_timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	qp->path_timer.function = mroce_path_timer_fire;
	return 0;
nomem:
	mroce_paths_destroy(qp);
	return -ENOMEM;
}

/*
 * Fresh path state when the connection starts (RTR). Source ports are
 * consecutive from the connection's own (qp->sport, the flow-label port
 * of the QPN pair), so they differ per path and per connection and ECMP
 * hashes them apart.
 */
void mroce_paths_start(struct mroce_qp *qp)
{
	u16 base = qp->sport;
	unsigned int i;

	for (i = 0; i < qp->npaths; i++) {
		mroce_path_init(&qp->paths[i], i, mroce_full_pkt_bytes(qp),
				qp->npaths);
		qp->path_sport[i] = IB_ROCE_UDP_ENCAP_VALID_PORT_MIN |
				    ((base + i) & 0x3fff);
		/* The addresses are new: nothing sends on the QP yet. */
		dst_cache_reset_now(&qp->path_dst[i]);
	}
	qp->resp_path = 0;
	memset(qp->rx_ce, 0, sizeof(qp->rx_ce));
	mroce_pacer_init(&qp->pacer, MROCE_PACE_BURST_LINUX);
	qp->rate_hint = METAROCE_RATE_NONE;
}

int mroce_paths_pick(struct mroce_qp *qp, u32 bytes)
{
	return mroce_path_select(qp->paths, qp->npaths, bytes);
}

void mroce_paths_sent(struct mroce_qp *qp, struct mroce_txpkt *t, int idx,
		      u64 now, u32 bytes)
{
	t->path = idx;
	t->wire_len = bytes;
	t->pseq = mroce_path_on_send(&qp->paths[idx], now, bytes);
	mroce_pacer_on_send(&qp->pacer, now, bytes);
}

/*
 * The PSN of t was acknowledged (cumulatively, selectively, or by its
 * response): retire its transmission on its path. Counts in *echo_pkts
 * the packets of path echo_path retired, for the ECN reaction.
 */
void mroce_paths_acked(struct mroce_qp *qp, struct mroce_txpkt *t, u64 now,
		       u16 echo_path, u32 *echo_pkts)
{
	struct mroce_path *p;

	if (t->path == MROCE_PATH_NONE)
		return;
	p = &qp->paths[t->path];
	/*
	 * A PSN sent more than once may be acknowledged for an earlier send
	 * while its last one is still on its way: counted as delivered, it
	 * would declare the packets sent before it on the path lost, and
	 * their resends would do the same in turn. Its path hears of it by
	 * the echo of the ACK it asked for.
	 */
	if (t->retx) {
		mroce_path_forget(p, t->pseq, t->wire_len);
	} else {
		if (mroce_path_on_acked(p, now, t->pseq, t->wire_len) &&
		    echo_pkts && t->path == echo_path)
			(*echo_pkts)++;
		qp->acked_sent_ns = max(qp->acked_sent_ns, t->sent_ns);
	}
	t->path = MROCE_PATH_NONE;
}

/* The PSN is resent for a reason that says nothing about its path. */
void mroce_paths_forget(struct mroce_qp *qp, struct mroce_txpkt *t)
{
	if (t->path == MROCE_PATH_NONE)
		return;
	mroce_path_forget(&qp->paths[t->path], t->pseq, t->wire_len);
	t->path = MROCE_PATH_NONE;
}

/* Whether t's transmission is lost by its path's SACK count. */
bool mroce_paths_lost(struct mroce_qp *qp, struct mroce_txpkt *t, u64 now)
{
	struct mroce_path *p;

	if (t->path == MROCE_PATH_NONE)
		return false;
	p = &qp->paths[t->path];
	if (!mroce_path_seq_lost(p, t->pseq, t->sent_ns, now))
		return false;
	mroce_path_on_lost(p, now, t->pseq, t->wire_len);
	mroce_count(qp->mdev, MROCE_CNT_PATH_LOSSES, 1);
	t->path = MROCE_PATH_NONE;
	return true;
}

/* How many transmissions mroce_paths_lost() may yet find lost. */
u32 mroce_paths_holes(struct mroce_qp *qp)
{
	unsigned int i;
	u32 n = 0;

	for (i = 0; i < qp->npaths; i++)
		n += mroce_path_holes(&qp->paths[i]);
	return n;
}

/* Whether t's transmission is one of those mroce_paths_holes() counts. */
bool mroce_paths_in_hole(struct mroce_qp *qp, struct mroce_txpkt *t)
{
	return t->path != MROCE_PATH_NONE &&
	       mroce_path_seq_in_hole(&qp->paths[t->path], t->pseq);
}

/*
 * Per-path feedback of an ACK: RTT sample, liveness and ECN for the path
 * it echoes, and the receiver's rate hint for the pacer.
 */
void mroce_paths_on_ack(struct mroce_qp *qp, const struct mroce_hdr *hdr,
			u64 now, u32 echo_pkts)
{
	u16 ep = hdr->ack.echo_path;
	u32 ce = hdr->ack.ecn_ce, spurious;
	struct mroce_path *p;
	bool recovered;

	if (hdr->ack.rate_hint != qp->rate_hint) {
		qp->rate_hint = hdr->ack.rate_hint;
		trace_mroce_rate_hint(dev_name(&qp->mdev->ibdev.dev),
				      qp->ibqp.qp_num, qp->rate_hint);
		mroce_pacer_set_rate(&qp->pacer,
				     mroce_pace_rate(qp->rate_hint, 0));
	}
	if (ep >= qp->npaths)
		return;		/* not one of ours: no per-path news */
	p = &qp->paths[ep];
	if (ce)
		mroce_count(qp->mdev, MROCE_CNT_ECN_ECHOED, ce);
	spurious = p->spurious;
	recovered = mroce_path_on_echo(p, now, hdr->ack.echo_ts, ce, echo_pkts);
	if (p->spurious != spurious)
		mroce_count(qp->mdev, MROCE_CNT_PATH_RTO_SPURIOUS, 1);
	if (recovered) {
		mroce_count(qp->mdev, MROCE_CNT_PATH_RECOVERED, 1);
		trace_mroce_path(qp->ibqp.qp_num, ep, p->state, p->cc.cwnd,
				 p->rtt.srtt_ns);
	}
}

/* A failed path whose probe is due, or -1. */
int mroce_paths_probe_due(struct mroce_qp *qp, u64 now)
{
	unsigned int i;

	for (i = 0; i < qp->npaths; i++)
		if (mroce_path_probe_due(&qp->paths[i], now))
			return i;
	return -1;
}

/* The oldest PSN outstanding on path i, snd_psn if none. */
u32 mroce_paths_oldest(struct mroce_qp *qp, unsigned int i)
{
	u32 psn;

	for (psn = qp->snd_una; psn != qp->snd_psn; psn++)
		if (mroce_txpkt(qp, psn)->path == i)
			break;
	return psn;
}

/*
 * A path whose tail probe is due (section 10.4), -1 if none; *psn is
 * what it probes with, its oldest outstanding PSN.
 */
int mroce_paths_tail_due(struct mroce_qp *qp, u64 now, u32 *psn)
{
	int i;

	while ((i = mroce_paths_tail_pick(qp->paths, qp->npaths, now)) >= 0) {
		*psn = mroce_paths_oldest(qp, i);
		if (*psn != qp->snd_psn)
			return i;
		mroce_path_skip_tail_probe(&qp->paths[i]);
	}
	return -1;
}

/* Whether any path carries data (is not FAILED or PROBING). */
bool mroce_paths_any_up(struct mroce_qp *qp)
{
	unsigned int i;

	for (i = 0; i < qp->npaths; i++)
		if (mroce_path_weight(&qp->paths[i]))
			return true;
	return false;
}

bool mroce_paths_pace_ok(struct mroce_qp *qp, u64 now)
{
	return mroce_pacer_may_send(&qp->pacer, now);
}

/*
 * Whether the pacer will hold the next packet once @bytes leave now.
 * Such a packet asks for an ACK: otherwise its path hears nothing until
 * the next ACK request, MROCE_ACK_EVERY paced packets later, and times
 * out for nothing when the pace is slow.
 */
bool mroce_paths_pace_gap(struct mroce_qp *qp, u64 now, u32 bytes)
{
	struct mroce_pacer p = qp->pacer;

	mroce_pacer_on_send(&p, now, bytes);
	return !mroce_pacer_may_send(&p, now);
}

/*
 * Whether the sender stalls once path idx has sent @bytes more: the
 * connection's window or every path's is full. Only an ACK reopens them,
 * so that packet must ask for one.
 */
bool mroce_paths_stall_after(struct mroce_qp *qp, int idx, u32 bytes)
{
	return !mroce_tx_room(qp) ||
	       mroce_paths_full_after(qp->paths, qp->npaths, idx, bytes);
}

/* The route cache of the path sending from UDP port sport, if one does. */
struct dst_cache *mroce_paths_dst(struct mroce_qp *qp, u16 sport)
{
	u16 i;

	if (!qp->npaths)
		return NULL;
	i = (sport - qp->path_sport[0]) & 0x3fff;
	return i < qp->npaths && qp->path_sport[i] == sport ?
	       &qp->path_dst[i] : NULL;
}

/* Read responses rotate over the paths we are not avoiding ourselves. */
u16 mroce_paths_resp_sport(struct mroce_qp *qp)
{
	unsigned int i;

	for (i = 0; i < qp->npaths; i++) {
		u16 k = qp->resp_path++ % qp->npaths;

		if (qp->paths[k].state == MROCE_PATH_ACTIVE)
			return qp->path_sport[k];
	}
	return qp->sport;
}

/*
 * An ACK goes back on the source port with the index of the path it
 * answers, so each path's round trip is one pair of routes and a broken
 * route fails the path that uses it rather than all ACKs.
 */
u16 mroce_paths_ack_sport(struct mroce_qp *qp, u16 path_id)
{
	return qp->npaths ? qp->path_sport[path_id % qp->npaths] : qp->sport;
}

/* "rdma resource show qp -dd": every path's state, for admins and tests. */
int mroce_paths_fill_res(struct sk_buff *msg, struct mroce_qp *qp)
{
	static const char * const names[] = {
		"active", "suspect", "failed", "probing",
	};
	struct nlattr *table;
	char key[16], val[160];
	u32 una, queued, unacked, lost, txring, rxring;
	s64 pace_us, timer_us = -1;
	unsigned int i;
	u64 now;

	/* Where the send queue stands: what a stalled transfer waits on. */
	spin_lock_bh(&qp->lock);
	now = ktime_get_ns();
	una = qp->snd_una;
	queued = qp->sq_head - qp->sq_tx;
	unacked = qp->sq_tx - qp->sq_tail;
	lost = qp->lost_count;
	txring = qp->tx_cap;
	rxring = qp->rx_cap;
	pace_us = div_s64((s64)(qp->pacer.next_ns - now), NSEC_PER_USEC);
	if (hrtimer_is_queued(&qp->path_timer))
		timer_us = div_s64(ktime_to_ns(hrtimer_get_expires(&qp->path_timer)) -
				   (s64)now, NSEC_PER_USEC);
	spin_unlock_bh(&qp->lock);
	table = nla_nest_start(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!table)
		return -EMSGSIZE;
	if (rdma_nl_put_driver_u32(msg, "npaths", qp->npaths) ||
	    rdma_nl_put_driver_u32(msg, "seg", qp->seg) ||
	    rdma_nl_put_driver_u32(msg, "pipe", qp->pipe) ||
	    rdma_nl_put_driver_u32(msg, "rate_hint_kbps", qp->rate_hint) ||
	    rdma_nl_put_driver_u32(msg, "snd_una", una) ||
	    rdma_nl_put_driver_u32(msg, "sq_queued", queued) ||
	    rdma_nl_put_driver_u32(msg, "sq_unacked", unacked) ||
	    rdma_nl_put_driver_u32(msg, "lost", lost) ||
	    rdma_nl_put_driver_u32(msg, "tx_ring", txring) ||
	    rdma_nl_put_driver_u32(msg, "rx_ring", rxring))
		goto err;
	/* Signed: the pacer's next slot and the timer may be past. */
	snprintf(val, sizeof(val), "pace_wait_us=%lld path_timer_us=%lld",
		 pace_us, timer_us);
	if (rdma_nl_put_driver_string(msg, "timers", val))
		goto err;
	for (i = 0; i < qp->npaths; i++) {
		struct mroce_path p;

		spin_lock_bh(&qp->lock);
		p = qp->paths[i];
		spin_unlock_bh(&qp->lock);
		snprintf(key, sizeof(key), "path%u", i);
		snprintf(val, sizeof(val),
			 "%s sport=%u cwnd=%u inflight=%u srtt_us=%llu ecn_frac=%u tx_pkts=%llu tx_bytes=%llu losses=%u timeouts=%u spurious=%u marks=%u",
			 names[p.state & 3], qp->path_sport[i], p.cc.cwnd,
			 p.inflight, p.rtt.srtt_ns / 1000, p.cc.ecn_frac,
			 p.tx_pkts, p.tx_bytes, p.losses, p.timeouts_total,
			 p.spurious, p.cc.marks);
		if (rdma_nl_put_driver_string(msg, key, val))
			goto err;
	}
	nla_nest_end(msg, table);
	return 0;
err:
	nla_nest_cancel(msg, table);
	return -EMSGSIZE;
}
