/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * MetaRoCE completion queues: what the transport needs of them.
 */
#ifndef METAROCE_CQ_H
#define METAROCE_CQ_H

#include <linux/atomic.h>
#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>
#include "queue.h"

/*
 * A ring of completions for kernel consumers. Indices run freely and are
 * reduced modulo the power-of-two size, so all of its slots are usable
 * and prod - cons is the number queued.
 */
struct mroce_cq_ring {
	struct ib_wc *wc;
	u32 size;			/* power of two */
	u32 prod;
	u32 cons;
};

struct mroce_cq {
	struct ib_cq ibcq;
	spinlock_t lock;		/* ring, notify, error, dying */
	struct mroce_cq_ring ring;	/* kernel CQ */
	struct mroce_queue uq;		/* user CQ: CQEs shared with userspace */
	u32 uprod;			/* our copy of uq's prod */
	u8 notify;			/* IB_CQ_SOLICITED / IB_CQ_NEXT_COMP */
	bool error;			/* overflowed: IB_EVENT_CQ_ERR raised */
	bool dying;			/* destroy_cq began: no more upcalls */
	atomic_t upcalls;		/* handlers running outside the lock */
};

static inline bool mroce_cq_is_shared(const struct mroce_cq *cq)
{
	return cq->uq.entry;
}

static inline struct mroce_cq *to_mcq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct mroce_cq, ibcq);
}

/*
 * Queue one completion; any context, softirq included. Calls the consumer's
 * completion handler when the CQ is armed (an IB_CQ_SOLICITED arm only for
 * solicited or failed completions). -ENOSPC on overflow: the CQ is then in
 * error and IB_EVENT_CQ_ERR has been raised.
 */
int mroce_cq_post(struct mroce_cq *cq, const struct ib_wc *wc, bool solicited);

/*
 * Drop the queued completions of @qp (wc->qp == @qp); returns how many.
 * Must be called for both of its CQs when a QP is destroyed, before it is
 * freed: a queued ib_wc points at its QP. A shared CQ keeps them: its
 * CQEs name the QP by number only, and userspace owns what is queued.
 */
int mroce_cq_discard_qp(struct mroce_cq *cq, struct ib_qp *qp);

#endif /* METAROCE_CQ_H */
