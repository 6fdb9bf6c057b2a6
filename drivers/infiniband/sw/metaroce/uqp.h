/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * MetaRoCE user QPs whose send and receive queues are shared with the
 * process (rings of <rdma/metaroce-abi.h>): the kernel takes WQEs from
 * them into its own queues, validating each copy.
 */
#ifndef METAROCE_UQP_H
#define METAROCE_UQP_H

#include "qp.h"

static inline bool mroce_qp_has_rings(const struct mroce_qp *qp)
{
	return qp->usq.entry;
}

/* The receive ring: not for QPs on a ring SRQ. */
static inline bool mroce_qp_has_rq_ring(const struct mroce_qp *qp)
{
	return qp->urq.entry;
}

/*
 * Build @rwqe from ring slot @u, each field read once. -EINVAL if it does
 * not validate (more than @max_sge SGEs, or a message over 2 GiB): then
 * @rwqe keeps the wr_id and has no SGE.
 */
int mroce_uqp_load_rwqe(struct mroce_rwqe *rwqe,
			const struct metaroce_recv_wqe *u, u32 max_sge);

/*
 * At create_qp (user QPs only): rings for RC QPs, and for UD QPs if the
 * provider asks; the response written.
 */
int mroce_uqp_create(struct mroce_qp *qp, struct ib_qp_init_attr *init,
		     struct ib_udata *udata);
void mroce_uqp_destroy(struct mroce_qp *qp);

/* post_send / post_recv with no work request: the doorbells. */
int mroce_uqp_post_send(struct mroce_qp *qp);
int mroce_uqp_post_recv(struct mroce_qp *qp);

/*
 * The rest run with the QP lock held.
 * mroce_uqp_pull_recv() takes new receive WQEs while the receive queue has
 * room; -EINVAL if the ring holds garbage (logged; the bad WQE, if any, is
 * taken with no SGE so that a flush completes it).
 */
int mroce_uqp_pull_recv(struct mroce_qp *qp);
/* Before a packet (RC or UD) is handled: pull; a hostile ring errors the QP. */
void mroce_uqp_rx_prepare(struct mroce_qp *qp);
/* sq_tail moved: slots before it may be written again. */
void mroce_uqp_sq_done(struct mroce_qp *qp);
/* The QP entered or left the error state, or was reset. */
void mroce_uqp_state_changed(struct mroce_qp *qp);
void mroce_uqp_reset(struct mroce_qp *qp);

#endif /* METAROCE_UQP_H */
