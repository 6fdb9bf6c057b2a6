/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * MetaRoCE shared receive queues.
 *
 * An SRQ is a FIFO of receive WQEs that several QPs draw from. A QP takes
 * WQEs from it only when a message needs one: an RC QP binds the next SRQ
 * WQEs to receive MSNs (in MSN order) when a packet of such a message
 * arrives, into its own queue (qp->rq, which then holds bound WQEs only),
 * so that later packets of the message land in the same WQE and
 * completions stay in MSN order; a UD QP takes one per datagram. A bound
 * WQE belongs to its QP from then on: the QP completes or flushes it (an
 * error flushes only those); a QP destroyed or reset without passing
 * through the error state drops them without completion, like the rest
 * of its queues. The wire protocol is unchanged: the peer cannot tell.
 *
 * The WQEs of an SRQ created by a provider that knows SRQ rings are in a
 * ring shared with the process (<rdma/metaroce-abi.h>) rather than in
 * wqe: the process posts with no syscall, and binding copies each WQE
 * from the ring once, validating the copy.
 */
#ifndef METAROCE_SRQ_H
#define METAROCE_SRQ_H

#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>
#include "qp.h"

/*
 * WQEs one QP may hold bound: at most one per message in flight. A QP's
 * queue of them starts at the MIN, which is all a QP whose messages
 * arrive in order needs, and grows when messages overtake others.
 */
#define MROCE_SRQ_BIND_MAX	MROCE_TX_WINDOW
#define MROCE_SRQ_BIND_MIN	1

struct mroce_srq {
	struct ib_srq ibsrq;
	spinlock_t lock;		/* everything below; irqsave */
	struct mroce_rwqe *wqe;		/* kernel and command SRQs */
	struct mroce_queue ring;	/* ring SRQs: the WQEs, prod is head */
	u32 size;			/* power of two: max_wr reported */
	u32 max_sge;
	u32 head, tail;			/* posted, next to take */
	u32 limit;			/* 0: not armed */
	bool broken;			/* ring SRQ whose prod went bad */
};

static inline struct mroce_srq *to_msrq(struct ib_srq *ibsrq)
{
	return container_of(ibsrq, struct mroce_srq, ibsrq);
}

static inline bool mroce_srq_has_ring(const struct mroce_srq *srq)
{
	return srq->ring.entry;
}

/*
 * Make qp hold at least n bound WQEs (qp->rq_head - qp->rq_tail >= n),
 * taking the missing ones from its SRQ in order. 0, or -ENOBUFS when the
 * SRQ has too few (nothing is taken then) or n exceeds what a QP may
 * hold, -ENOMEM when the QP's queue could not grow to n. Raises
 * IB_EVENT_SRQ_LIMIT_REACHED when armed, IB_EVENT_SRQ_ERR when it finds
 * a ring's prod out of range. QP lock held.
 */
int mroce_srq_bind(struct mroce_qp *qp, u32 n);

/*
 * Is there a receive WQE for the message idx places after the one at
 * rq_tail? With an SRQ, binds it (and those before it) if it can. Lock
 * held.
 */
static inline bool mroce_rq_ready(struct mroce_qp *qp, u32 idx)
{
	if (idx < qp->rq_head - qp->rq_tail)
		return true;
	return qp->ibqp.srq && idx < MROCE_SRQ_BIND_MAX &&
	       !mroce_srq_bind(qp, idx + 1);
}

extern const struct ib_device_ops mroce_srq_ops;

#endif /* METAROCE_SRQ_H */
