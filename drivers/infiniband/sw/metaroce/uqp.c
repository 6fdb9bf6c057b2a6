// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * MetaRoCE user QPs with shared send and receive rings: RC QPs, and UD
 * QPs of a provider that names AHs by number (a QP on a ring SRQ has no
 * receive ring: srq.c binds from the SRQ's).
 *
 * The send ring and the kernel's send queue have the same size and the
 * same indices: the doorbell copies ring slot i into sq[i], and the
 * ring's consumer index is sq_tail, so userspace reuses a slot only when
 * the kernel is done with the WQE in it. The receive ring is a feed: WQEs
 * are copied into the receive queue while it has room, and the ring's
 * consumer index counts those taken (urq_cons, our own copy).
 *
 * Everything in a ring can change under us at any time: each field is
 * read once (READ_ONCE) into the kernel's WQE and validated there; the
 * transport only ever sees that copy. A WQE that does not validate is
 * logged and puts the QP into the error state, which completes it and
 * everything after it with IB_WC_WR_FLUSH_ERR.
 */

#include <linux/minmax.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/uverbs_ioctl.h>
#include "srq.h"
#include "ud.h"
#include "uqp.h"

static_assert(METAROCE_MAX_SGE == MROCE_QP_MAX_SGE);
static_assert(METAROCE_MAX_INLINE == MROCE_MAX_INLINE);

#define MROCE_MAX_MSG		BIT(31)		/* IBTA message size limit */
#define MROCE_USEND_FLAGS	(IB_SEND_FENCE | IB_SEND_SIGNALED | \
				 IB_SEND_SOLICITED | IB_SEND_INLINE)

int mroce_uqp_create(struct mroce_qp *qp, struct ib_qp_init_attr *init,
		     struct ib_udata *udata)
{
	struct metaroce_create_qp_resp resp = {};
	struct metaroce_create_qp_cmd cmd = {};
	struct mroce_ucontext *uc;
	bool rings;
	int err;

	/* Unknown flags and bytes past the struct must be zero: later ABIs. */
	if (udata->inlen &&
	    (udata->inlen < sizeof(cmd) ||
	     ib_copy_from_udata(&cmd, udata, sizeof(cmd)) ||
	     cmd.flags & ~METAROCE_CREATE_QP_F_UD_RINGS || cmd.reserved ||
	     (udata->inlen > sizeof(cmd) &&
	      !ib_is_udata_cleared(udata, sizeof(cmd),
				   udata->inlen - sizeof(cmd))))) {
		ibdev_dbg_ratelimited(qp->ibqp.device, "create_qp: bad driver data (%zu bytes, flags %#x)\n",
				      udata->inlen, cmd.flags);
		return -EINVAL;
	}
	/* A provider of an older ABI keeps the uverbs commands. */
	if (udata->outlen < sizeof(resp))
		return 0;
	uc = rdma_udata_to_drv_context(udata, struct mroce_ucontext, ibuc);
	/*
	 * UD send WQEs name AHs by the number from create_ah: only a provider
	 * that says it does gets UD rings.
	 */
	rings = init->qp_type == IB_QPT_RC ||
		(init->qp_type == IB_QPT_UD &&
		 (cmd.flags & METAROCE_CREATE_QP_F_UD_RINGS));
	if (rings) {
		err = mroce_queue_create(&uc->ibuc, &qp->usq, qp->sq_size,
					 sizeof(struct metaroce_send_wqe),
					 &resp.sq);
		if (err)
			return err;
	}
	/*
	 * A QP on a ring SRQ receives from that ring only. One on a command
	 * SRQ (a provider that predates SRQ rings, which insists on both
	 * rings) gets a receive ring that is never read.
	 */
	if (rings && !(init->srq && mroce_srq_has_ring(to_msrq(init->srq)))) {
		err = mroce_queue_create(&uc->ibuc, &qp->urq, qp->rq_size,
					 sizeof(struct metaroce_recv_wqe),
					 &resp.rq);
		if (err)
			goto err_destroy;
	}
	err = ib_copy_to_udata(udata, &resp, sizeof(resp));
	if (err)
		goto err_destroy;
	return 0;

err_destroy:
	mroce_uqp_destroy(qp);
	return err;
}

void mroce_uqp_destroy(struct mroce_qp *qp)
{
	mroce_queue_destroy(&qp->usq);
	mroce_queue_destroy(&qp->urq);
}

static int mroce_uqp_opcode(u32 uop, u32 *op)
{
	switch (uop) {
	case IB_UVERBS_WR_SEND:
		*op = IB_WR_SEND;
		return 0;
	case IB_UVERBS_WR_SEND_WITH_IMM:
		*op = IB_WR_SEND_WITH_IMM;
		return 0;
	case IB_UVERBS_WR_SEND_WITH_INV:
		*op = IB_WR_SEND_WITH_INV;
		return 0;
	case IB_UVERBS_WR_RDMA_WRITE:
		*op = IB_WR_RDMA_WRITE;
		return 0;
	case IB_UVERBS_WR_RDMA_WRITE_WITH_IMM:
		*op = IB_WR_RDMA_WRITE_WITH_IMM;
		return 0;
	case IB_UVERBS_WR_RDMA_READ:
		*op = IB_WR_RDMA_READ;
		return 0;
	case IB_UVERBS_WR_ATOMIC_CMP_AND_SWP:
		*op = IB_WR_ATOMIC_CMP_AND_SWP;
		return 0;
	case IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD:
		*op = IB_WR_ATOMIC_FETCH_AND_ADD;
		return 0;
	case IB_UVERBS_WR_LOCAL_INV:
		*op = IB_WR_LOCAL_INV;
		return 0;
	case IB_UVERBS_WR_BIND_MW:
		*op = IB_WR_BIND_MW;
		return 0;
	default:
		*op = IB_WR_SEND;	/* how a flush reports it */
		return -EINVAL;
	}
}

/* Copy @n SGEs once; the message length, or -EINVAL if too long. */
static s64 mroce_uqp_load_sges(struct ib_sge *sge,
			       const struct metaroce_sge *usge, u32 n)
{
	u64 len = 0;
	u32 i;

	for (i = 0; i < n; i++) {
		sge[i].addr = READ_ONCE(usge[i].addr);
		sge[i].length = READ_ONCE(usge[i].length);
		sge[i].lkey = READ_ONCE(usge[i].lkey);
		len += sge[i].length;
	}
	return len > MROCE_MAX_MSG ? -EINVAL : len;
}

int mroce_uqp_load_rwqe(struct mroce_rwqe *rwqe,
			const struct metaroce_recv_wqe *u, u32 max_sge)
{
	u32 num_sge;

	memset(rwqe, 0, offsetof(struct mroce_rwqe, sge));
	rwqe->wr_id = READ_ONCE(u->wr_id);
	num_sge = READ_ONCE(u->num_sge);
	if (num_sge > max_sge ||
	    mroce_uqp_load_sges(rwqe->sge, u->sge, num_sge) < 0)
		return -EINVAL;
	rwqe->num_sge = num_sge;
	return 0;
}

/*
 * Build the kernel's send WQE from ring slot @u. On error the WQE still
 * carries wr_id and an opcode, so a flush can complete it.
 */
static int mroce_uqp_load_swqe(struct mroce_qp *qp, struct mroce_swqe *wqe,
			       const struct metaroce_send_wqe *u)
{
	u32 uop, flags, num_sge, imm;
	s64 len;
	int err;

	memset(wqe, 0, offsetof(struct mroce_swqe, sge));
	wqe->wr_id = READ_ONCE(u->wr_id);
	uop = READ_ONCE(u->opcode);
	flags = READ_ONCE(u->send_flags);
	num_sge = READ_ONCE(u->num_sge);
	imm = READ_ONCE(u->imm_data);
	err = mroce_uqp_opcode(uop, &wqe->opcode);
	if (err)
		return err;
	if (flags & ~MROCE_USEND_FLAGS)
		return -EINVAL;
	if (wqe->opcode == IB_WR_BIND_MW) {
		/* Copied once here; mroce_mw_bind() checks the copy. */
		wqe->send_flags = flags & ~(IB_SEND_INLINE | IB_SEND_SOLICITED);
		wqe->bind.addr = READ_ONCE(u->bind_mw.addr);
		wqe->bind.length = READ_ONCE(u->bind_mw.length);
		wqe->bind.mw_rkey = READ_ONCE(u->bind_mw.mw_rkey);
		wqe->bind.rkey = READ_ONCE(u->bind_mw.rkey);
		wqe->bind.mr_lkey = READ_ONCE(u->bind_mw.mr_lkey);
		wqe->bind.access = READ_ONCE(u->bind_mw.access);
		return 0;
	}

	switch (wqe->opcode) {
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		wqe->imm = (__force __be32)imm;
		break;
	case IB_WR_SEND_WITH_INV:
	case IB_WR_LOCAL_INV:
		wqe->inv_rkey = imm;
		break;
	}
	if (wqe->opcode != IB_WR_SEND && wqe->opcode != IB_WR_SEND_WITH_IMM &&
	    wqe->opcode != IB_WR_SEND_WITH_INV) {
		wqe->remote_addr = READ_ONCE(u->remote_addr);
		wqe->rkey = READ_ONCE(u->rkey);
	}
	/* Only sends and writes carry inline data. */
	if (wqe->opcode == IB_WR_RDMA_READ ||
	    wqe->opcode == IB_WR_ATOMIC_CMP_AND_SWP ||
	    wqe->opcode == IB_WR_ATOMIC_FETCH_AND_ADD ||
	    wqe->opcode == IB_WR_LOCAL_INV)
		flags &= ~IB_SEND_INLINE;
	wqe->send_flags = flags;

	if (wqe->opcode == IB_WR_LOCAL_INV) {
		wqe->remote_addr = 0;
		wqe->rkey = 0;
		return 0;
	}
	if (flags & IB_SEND_INLINE) {
		u32 ilen = READ_ONCE(u->inline_len);

		if (ilen > qp->max_inline)
			return -EINVAL;
		memcpy(wqe->inline_data, u->inline_data, ilen);
		wqe->length = ilen;
		wqe->num_sge = 0;
		return 0;
	}
	if (num_sge > qp->max_send_sge)
		return -EINVAL;
	len = mroce_uqp_load_sges(wqe->sge, u->sge, num_sge);
	if (len < 0)
		return len;
	wqe->num_sge = num_sge;
	wqe->length = len;
	if (wqe->opcode == IB_WR_ATOMIC_CMP_AND_SWP ||
	    wqe->opcode == IB_WR_ATOMIC_FETCH_AND_ADD) {
		if (num_sge != 1 || wqe->sge[0].length < 8)
			return -EINVAL;
		wqe->compare_add = READ_ONCE(u->compare_add);
		wqe->swap = READ_ONCE(u->swap);
		wqe->length = 8;
	}
	return 0;
}

/* The datagram part of a UD send WQE: one packet, to an AH of the QP's PD. */
static int mroce_uqp_load_ud(struct mroce_qp *qp, struct mroce_swqe *wqe,
			     const struct metaroce_send_wqe *u)
{
	u32 mtu = ib_mtu_enum_to_int(READ_ONCE(qp->mdev->active_mtu));

	if (wqe->opcode != IB_WR_SEND && wqe->opcode != IB_WR_SEND_WITH_IMM)
		return -EINVAL;
	if (wqe->length > mtu)
		return -EINVAL;
	wqe->ud.remote_qpn = READ_ONCE(u->remote_qpn);
	wqe->ud.remote_qkey = READ_ONCE(u->remote_qkey);
	if (wqe->ud.remote_qpn & ~METAROCE_QPN_MASK)
		return -EINVAL;
	return mroce_ah_load_av(qp->ibqp.pd, READ_ONCE(u->ah_num),
				&wqe->ud.av);
}

void mroce_uqp_sq_done(struct mroce_qp *qp)
{
	if (!mroce_qp_has_rings(qp))
		return;
	/* Release: our reads of the slots happened before they are reused. */
	smp_store_release(&qp->usq.hdr->cons, qp->sq_tail);
}

/* Take the WQEs userspace added to the send ring. Lock held. */
static int mroce_uqp_pull_send(struct mroce_qp *qp)
{
	/* Acquire: the WQEs are read only after the index covering them. */
	u32 prod = smp_load_acquire(&qp->usq.hdr->prod);
	u32 queued = prod - qp->sq_tail;

	if (queued > qp->sq_size || queued < qp->sq_head - qp->sq_tail) {
		ibdev_warn_ratelimited(qp->ibqp.device,
				       "qp %u: send ring producer %u out of range (%u..%u)\n",
				       qp->ibqp.qp_num, prod, qp->sq_head,
				       qp->sq_tail + qp->sq_size);
		return -EINVAL;
	}
	while (qp->sq_head != prod) {
		struct mroce_swqe *wqe = mroce_sq_wqe(qp, qp->sq_head);
		const struct metaroce_send_wqe *u;
		int err;

		u = mroce_queue_elem(&qp->usq, qp->sq_head);
		err = mroce_uqp_load_swqe(qp, wqe, u);
		if (!err && mroce_qp_is_ud(qp))
			err = mroce_uqp_load_ud(qp, wqe, u);
		qp->sq_head++;
		if (err) {
			ibdev_warn_ratelimited(qp->ibqp.device,
					       "qp %u: bad send WQE %u (wr_id %#llx) in the ring\n",
					       qp->ibqp.qp_num, qp->sq_head - 1,
					       wqe->wr_id);
			mroce_qp_error(qp);
			return err;
		}
	}
	return 0;
}

int mroce_uqp_post_send(struct mroce_qp *qp)
{
	int err;

	spin_lock_bh(&qp->lock);
	if (qp->state < IB_QPS_RTS && qp->state != IB_QPS_ERR) {
		spin_unlock_bh(&qp->lock);
		ibdev_dbg(qp->ibqp.device, "qp %u: send doorbell in state %d\n",
			  qp->ibqp.qp_num, qp->state);
		return -EINVAL;
	}
	err = mroce_uqp_pull_send(qp);
	if (qp->state == IB_QPS_ERR)
		mroce_qp_flush(qp);
	spin_unlock_bh(&qp->lock);
	/*
	 * Transmit in the caller's context rather than waking the worker:
	 * the process then spins on its CQ ring without a syscall, and on a
	 * non-preemptible kernel the worker would wait for the next tick.
	 */
	if (mroce_qp_is_ud(qp))
		mroce_ud_tx_work(&qp->tx_work);
	else
		mroce_tx_work(&qp->tx_work);
	return err;
}

int mroce_uqp_pull_recv(struct mroce_qp *qp)
{
	struct metaroce_queue_hdr *hdr = qp->urq.hdr;
	u32 prod, avail, room;
	int err = 0;

	/* A QP on an SRQ takes its WQEs from there (srq.c). */
	if (!mroce_qp_has_rq_ring(qp) || qp->ibqp.srq)
		return 0;
	/* Acquire: the WQEs are read only after the index covering them. */
	prod = smp_load_acquire(&hdr->prod);
	avail = prod - qp->urq_cons;
	if (avail > qp->urq.num) {
		ibdev_warn_ratelimited(qp->ibqp.device,
				       "qp %u: receive ring producer %u out of range (%u..%u)\n",
				       qp->ibqp.qp_num, prod, qp->urq_cons,
				       qp->urq_cons + qp->urq.num);
		return -EINVAL;
	}
	room = qp->rq_size - (qp->rq_head - qp->rq_tail);
	avail = min(avail, room);
	for (; avail; avail--) {
		const struct metaroce_recv_wqe *u =
			mroce_queue_elem(&qp->urq, qp->urq_cons++);
		struct mroce_rwqe *rwqe = mroce_rq_wqe(qp, qp->rq_head++);

		if (mroce_uqp_load_rwqe(rwqe, u, qp->max_recv_sge)) {
			ibdev_warn_ratelimited(qp->ibqp.device,
					       "qp %u: bad receive WQE (wr_id %#llx) in the ring\n",
					       qp->ibqp.qp_num, rwqe->wr_id);
			err = -EINVAL;
			break;
		}
	}
	/* Release: the slots were read before userspace may reuse them. */
	smp_store_release(&hdr->cons, qp->urq_cons);
	return err;
}

void mroce_uqp_rx_prepare(struct mroce_qp *qp)
{
	/* In error only a flush may take WQEs: they must complete. */
	if (qp->state == IB_QPS_RESET || qp->state == IB_QPS_ERR)
		return;
	if (mroce_uqp_pull_recv(qp))
		mroce_qp_error(qp);
}

int mroce_uqp_post_recv(struct mroce_qp *qp)
{
	int err;

	spin_lock_bh(&qp->lock);
	if (qp->state == IB_QPS_RESET) {
		spin_unlock_bh(&qp->lock);
		return -EINVAL;
	}
	err = mroce_uqp_pull_recv(qp);
	if (err)
		mroce_qp_error(qp);
	else if (qp->state == IB_QPS_ERR)
		mroce_qp_flush(qp);
	spin_unlock_bh(&qp->lock);
	return err;
}

void mroce_uqp_state_changed(struct mroce_qp *qp)
{
	if (!mroce_qp_has_rq_ring(qp))
		return;
	/* In error, receives complete at once: userspace must ring for them. */
	WRITE_ONCE(qp->urq.hdr->flags,
		   qp->state == IB_QPS_ERR ? METAROCE_QUEUE_F_DOORBELL : 0);
	/*
	 * Pairs with the fence in the provider's post_recv: the flag is
	 * visible before we next read prod (in the flush that follows), so
	 * a WQE published meanwhile is either seen here or rung for.
	 */
	smp_mb();
}

void mroce_uqp_reset(struct mroce_qp *qp)
{
	u32 sprod, rprod;

	if (!mroce_qp_has_rings(qp))
		return;
	/* Reset discards what is queued: the rings restart where they are. */
	sprod = READ_ONCE(qp->usq.hdr->prod);
	qp->sq_head = sprod;
	qp->sq_tx = sprod;
	qp->sq_tail = sprod;
	/* Release, as everywhere we give slots back. */
	smp_store_release(&qp->usq.hdr->cons, sprod);
	if (!mroce_qp_has_rq_ring(qp))
		return;
	rprod = READ_ONCE(qp->urq.hdr->prod);
	qp->urq_cons = rprod;
	/* Release, likewise. */
	smp_store_release(&qp->urq.hdr->cons, rprod);
	WRITE_ONCE(qp->urq.hdr->flags, 0);
}
