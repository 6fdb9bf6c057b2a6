// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The requester's ring of txpkts, one per PSN in flight, sized on demand.
 *
 * A whole PSN window of txpkts is 64 KiB, half of what a connected QP
 * took; yet most QPs never have more than a few dozen PSNs in flight:
 * 256 QPs share one host's link, and a latency-bound QP has one. So the
 * ring starts at MROCE_TX_RING_MIN entries and doubles, up to the window,
 * once three quarters of it is in flight. The sender never has more PSNs
 * in flight than the ring holds (mroce_tx_room()), which the protocol
 * allows: the window is a limit, not a promise. The ring does not shrink:
 * a QP that needed a window once is likely to again, and the ring is
 * freed with the QP.
 *
 * The sender grows it where it finds it three quarters full, from a
 * softirq as often as not, so without sleeping; when memory is not at
 * hand that way, tx_work (process context) grows it, and until then the
 * sender goes on within the old ring.
 */

#include <linux/mm.h>
#include "qp.h"

#define MROCE_TX_RING_MIN	128	/* entries: two READ_REQ chunks */

int mroce_txring_create(struct mroce_qp *qp)
{
	BUILD_BUG_ON(MROCE_TX_RING_MIN < 2 * MROCE_READ_CHUNK);
	BUILD_BUG_ON(!is_power_of_2(MROCE_TX_RING_MIN) ||
		     MROCE_TX_RING_MIN > MROCE_TX_WINDOW);
	qp->tx = kvcalloc(MROCE_TX_RING_MIN, sizeof(*qp->tx), GFP_KERNEL);
	if (!qp->tx)
		return -ENOMEM;
	qp->tx_cap = MROCE_TX_RING_MIN;
	return 0;
}

/*
 * Move the entries into ring, twice the size. Every entry keeps its PSN:
 * the old ring's entries are the PSNs of the cap before snd_psn, a
 * superset of those in flight. Lock held.
 */
static void mroce_txring_move(struct mroce_qp *qp, struct mroce_txpkt *ring)
{
	u32 cap = qp->tx_cap, psn = qp->snd_psn - cap, i;

	for (i = 0; i < cap; i++, psn++)
		ring[psn & (2 * cap - 1)] = qp->tx[psn & (cap - 1)];
	kvfree(qp->tx);
	qp->tx = ring;
	WRITE_ONCE(qp->tx_cap, 2 * cap);	/* read unlocked by tx_work */
}

/*
 * mroce_txring_check() found the ring three quarters in flight: grow it
 * at once if memory is at hand, else from tx_work, which may sleep. Lock
 * held.
 */
void __mroce_txring_check(struct mroce_qp *qp)
{
	u32 cap = qp->tx_cap;
	struct mroce_txpkt *ring;

	if (qp->tx_grow)
		return;		/* tx_work is on it */
	ring = kcalloc(2 * cap, sizeof(*ring), GFP_NOWAIT | __GFP_NOWARN);
	if (ring) {
		mroce_txring_move(qp, ring);
		return;
	}
	WRITE_ONCE(qp->tx_grow, true);
	mroce_tx_kick(qp);
}

/* tx_work, which QP destruction cancels before it frees the ring. */
void mroce_txring_grow(struct mroce_qp *qp)
{
	u32 cap = READ_ONCE(qp->tx_cap);
	struct mroce_txpkt *ring = kvcalloc(2 * cap, sizeof(*ring), GFP_KERNEL);

	spin_lock_bh(&qp->lock);
	WRITE_ONCE(qp->tx_grow, false);
	if (ring && qp->tx_cap == cap) {
		mroce_txring_move(qp, ring);
		ring = NULL;
	}
	spin_unlock_bh(&qp->lock);
	kvfree(ring);
}

/* A QP back in RESET starts its PSNs afresh. Lock held or QP idle. */
void mroce_txring_reset(struct mroce_qp *qp)
{
	if (qp->tx)
		memset(qp->tx, 0, qp->tx_cap * sizeof(*qp->tx));
}
