// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The receiver's fair-share rate hints of a device (protocol section
 * 11.3): every connection receiving data here is one sender of the
 * device's table, and every ACK tells its sender the current share of
 * the device's configured inbound capacity. With capacity 0 (the
 * default: an admin sets it to the link rate less headroom) the device
 * gives no hint and keeps no table.
 */

#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/slab.h>
#include "metaroce.h"
#include "qp.h"
#include "proto/ratehint.h"
#include "trace.h"

/*
 * Measurement interval: long enough for every active sender, at its fair
 * share, to deliver MROCE_RATE_SAMPLE_BYTES (a rate measured over a few
 * packets is mostly noise, and a sender measured below its share moves
 * the others' hints), and never under 10 ms: a software receiver sees
 * packets in NAPI and timer-tick batches. A sender silent for
 * MROCE_RATE_IDLE_INTERVALS intervals is idle. Protocol section 11.3
 * lets implementations scale both.
 */
#define MROCE_RATE_SAMPLE_BYTES		16384
#define MROCE_RATE_INTERVAL_MIN_NS	(10 * NSEC_PER_MSEC)
#define MROCE_RATE_INTERVAL_MAX_NS	(200 * NSEC_PER_MSEC)
#define MROCE_RATE_IDLE_INTERVALS	5

struct mroce_rate {
	spinlock_t lock;		/* all below; softirq, under qp->lock */
	struct mroce_rh rh;
	u64 interval_ns;		/* depends on active and capacity only */
	bool push;			/* a join: tell those it cut at once */
};

static u64 mroce_rate_interval(const struct mroce_rh *rh)
{
	u64 ns;

	if (!rh->capacity_bps || rh->capacity_bps == U64_MAX)
		return MROCE_RATE_INTERVAL_MIN_NS;
	ns = div64_u64((u64)MROCE_RATE_SAMPLE_BYTES * 8 * NSEC_PER_SEC *
		       max(rh->active, 1U), rh->capacity_bps);
	return clamp_t(u64, ns, MROCE_RATE_INTERVAL_MIN_NS,
		       MROCE_RATE_INTERVAL_MAX_NS);
}

/*
 * The interval moves only when the number of active senders or the
 * capacity does: recompute it then, not per packet (a 64-bit division).
 */
static void mroce_rate_refresh(struct mroce_rate *r)
{
	r->interval_ns = mroce_rate_interval(&r->rh);
	r->rh.idle_ns = MROCE_RATE_IDLE_INTERVALS * r->interval_ns;
}

int mroce_rate_init(struct mroce_dev *mdev)
{
	mdev->rate = kzalloc(sizeof(*mdev->rate), GFP_KERNEL);
	if (!mdev->rate)
		return -ENOMEM;
	spin_lock_init(&mdev->rate->lock);
	mroce_rh_init(&mdev->rate->rh, 0, ktime_get_ns());
	mroce_rate_refresh(mdev->rate);
	return 0;
}

void mroce_rate_free(struct mroce_dev *mdev)
{
	kfree(mdev->rate);
	mdev->rate = NULL;
}

void mroce_rate_set_capacity(struct mroce_dev *mdev, u32 mbps)
{
	spin_lock_bh(&mdev->rate->lock);
	mroce_rh_set_capacity(&mdev->rate->rh, mbps);
	mroce_rate_refresh(mdev->rate);
	spin_unlock_bh(&mdev->rate->lock);
	WRITE_ONCE(mdev->rate_capacity_mbps, mbps);
}

/* A data packet of bytes (UDP payload) arrived for receiving QP qpn. */
void mroce_rate_rx(struct mroce_dev *mdev, u32 qpn, u32 bytes)
{
	struct mroce_rate *r = mdev->rate;
	u64 now;

	if (!READ_ONCE(mdev->rate_capacity_mbps))
		return;
	now = ktime_get_ns();
	spin_lock(&r->lock);
	/* A join recomputes the share itself; otherwise once an interval. */
	if (mroce_rh_on_packet(&r->rh, qpn, now, bytes) == 1) {
		mroce_rate_refresh(r);
		trace_mroce_rate_join(dev_name(&mdev->ibdev.dev), qpn,
				      r->rh.active);
		WRITE_ONCE(r->push, true);
	} else if (now - r->rh.last_update_ns >= r->interval_ns) {
		mroce_rh_update(&r->rh, now);
		mroce_rate_refresh(r);	/* idle senders may have left */
	}
	spin_unlock(&r->lock);
}

/*
 * A join lowers everyone's share at once, but a sender hears of it only in
 * an ACK, and a paced sender's next ACK may be several packet gaps away:
 * its excess would queue at this port meanwhile. So after a join the
 * joiner and every sender it cut by 1/16 or more get an ACK that carries
 * the new share alone (protocol section 11.3). Called by the receive path
 * once it holds no QP lock, as this takes each sender's.
 */
void mroce_rate_push(struct mroce_dev *mdev)
{
	struct mroce_rate *r = mdev->rate;
	u64 qpn[MROCE_RH_MAX_SENDERS];
	unsigned int i, n;

	if (!READ_ONCE(r->push))
		return;
	spin_lock_bh(&r->lock);
	n = mroce_rh_take_pushes(&r->rh, qpn);
	WRITE_ONCE(r->push, false);
	spin_unlock_bh(&r->lock);
	for (i = 0; i < n; i++) {
		struct mroce_qp *qp = mroce_qp_get(mdev, (u32)qpn[i]);

		if (!qp)
			continue;
		spin_lock_bh(&qp->lock);
		if (qp->state == IB_QPS_RTR || qp->state == IB_QPS_RTS)
			mroce_send_hint_ack(qp);
		spin_unlock_bh(&qp->lock);
		mroce_qp_put(qp);
	}
}

u32 mroce_rate_hint(struct mroce_dev *mdev, u32 qpn)
{
	struct mroce_rate *r = mdev->rate;
	u32 hint;

	if (!READ_ONCE(mdev->rate_capacity_mbps))
		return METAROCE_RATE_NONE;
	spin_lock(&r->lock);
	hint = mroce_rh_hint(&r->rh, qpn);
	spin_unlock(&r->lock);
	return hint;
}

/* The receiving QP is gone: its share goes to the others at once. */
void mroce_rate_leave(struct mroce_dev *mdev, u32 qpn)
{
	spin_lock_bh(&mdev->rate->lock);
	mroce_rh_leave(&mdev->rate->rh, qpn);
	mroce_rate_refresh(mdev->rate);
	spin_unlock_bh(&mdev->rate->lock);
}
