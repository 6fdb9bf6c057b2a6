// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The responder's ring of rxinfo, an entry for each PSN from the
 * cumulative point to the highest received, sized on demand.
 *
 * A PSN received in order is completed as it arrives and its entry is
 * free again at once; only the PSNs past a hole wait in the ring, and a
 * whole window of them (24 KiB) is what a loss on a long, fast path
 * needs, not what most QPs ever see. So the ring starts at
 * MROCE_RX_RING_MIN entries and grows, up to the window, when a packet
 * lands beyond it. That happens in the receive softirq, so the
 * allocation cannot sleep; when it fails the packet is dropped as the
 * network could have dropped it, and the sender resends it. The PSN at
 * the cumulative point always fits, so the connection goes on. The ring
 * does not shrink; it is freed with the QP.
 */

#include <linux/slab.h>
#include "qp.h"
#include "proto/psn.h"

#define MROCE_RX_RING_MIN	128	/* entries */

int mroce_rxring_create(struct mroce_qp *qp)
{
	BUILD_BUG_ON(!is_power_of_2(MROCE_RX_RING_MIN) ||
		     MROCE_RX_RING_MIN > MROCE_TX_WINDOW);
	qp->rxi = kcalloc(MROCE_RX_RING_MIN, sizeof(*qp->rxi), GFP_KERNEL);
	if (!qp->rxi)
		return -ENOMEM;
	qp->rx_cap = MROCE_RX_RING_MIN;
	return 0;
}

/*
 * The slow way of mroce_rxring_fit(): grow the ring to a power of two
 * that holds the PSNs. Every entry keeps its PSN. Lock held.
 */
int __mroce_rxring_fit(struct mroce_qp *qp, u32 psn, u32 n)
{
	u32 base = qp->rx.base, cap = qp->rx_cap, need, ncap, i;
	struct mroce_rxinfo *ring;

	/* Duplicates need no entry; PSNs past the window are refused. */
	if (mroce_psn_before(psn, base) || psn - base >= MROCE_TX_WINDOW)
		return 0;
	need = min_t(u32, psn - base + n, MROCE_TX_WINDOW);
	if (need <= cap)
		return 0;
	ncap = roundup_pow_of_two(need);
	ring = kcalloc(ncap, sizeof(*ring), GFP_ATOMIC | __GFP_NOWARN);
	if (!ring)
		return -ENOMEM;
	for (i = 0; i < cap; i++)
		ring[(base + i) & (ncap - 1)] = qp->rxi[(base + i) & (cap - 1)];
	kfree(qp->rxi);
	qp->rxi = ring;
	qp->rx_cap = ncap;
	return 0;
}
