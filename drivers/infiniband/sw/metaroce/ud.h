/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * MetaRoCE UD and GSI (QP1) queue pairs: the datagram service.
 */
#ifndef METAROCE_UD_H
#define METAROCE_UD_H

#include <linux/skbuff.h>
#include "qp.h"

static inline bool mroce_qp_is_ud(const struct mroce_qp *qp)
{
	return qp->ibqp.qp_type == IB_QPT_UD || qp->ibqp.qp_type == IB_QPT_GSI;
}

static inline bool mroce_opcode_is_ud(u8 opcode)
{
	return opcode == METAROCE_OP_UD_SEND ||
	       opcode == METAROCE_OP_UD_SEND_IMM;
}

int mroce_ud_post_send(struct mroce_qp *qp, const struct ib_send_wr *wr,
		       const struct ib_send_wr **bad_wr);
int mroce_ud_post_recv(struct mroce_qp *qp, const struct ib_recv_wr *wr,
		       const struct ib_recv_wr **bad_wr);
void mroce_ud_tx_work(struct work_struct *work);
/* A validated packet for UD QP qp; softirq, RCU held. */
void mroce_ud_rx(struct mroce_qp *qp, const struct mroce_hdr *hdr,
		 struct sk_buff *skb, const u8 *payload, u32 len);

#endif /* METAROCE_UD_H */
