// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * MetaRoCE userspace provider: queue pairs.
 *
 * An RC QP's send and receive queues are rings shared with the kernel
 * (ring.h). ibv_post_send writes WQEs there and rings the doorbell, a
 * post_send command with no work requests, once per call; ibv_post_recv
 * only writes WQEs, which the kernel takes when a message needs one (a QP
 * on an SRQ has no receive ring: srq.c). UD QPs too, their send WQEs
 * naming the AH by the number from create_ah (ah.c).
 */

#include <config.h>

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <ccan/minmax.h>

#include "metaroce.h"
#include "ring.h"

static void metaroce_qp_free(struct metaroce_qp *qp)
{
	metaroce_wr_cleanup(qp);
	metaroce_ring_unmap(&qp->sq);
	metaroce_ring_unmap(&qp->rq);
	pthread_spin_destroy(&qp->sq_lock);
	pthread_spin_destroy(&qp->rq_lock);
	free(qp);
}

/* ibv_create_qp_ex(): with send_ops_flags, the extended post API too. */
static struct ibv_qp *metaroce_create_qp_ex(struct ibv_context *context,
					    struct ibv_qp_init_attr_ex *attr)
{
	struct umetaroce_create_qp_resp resp = {};
	struct umetaroce_create_qp cmd = {
		.flags = METAROCE_CREATE_QP_F_UD_RINGS,
	};
	struct metaroce_qp *qp;
	int ret;

	if (attr->comp_mask & ~(uint32_t)(IBV_QP_INIT_ATTR_PD |
					  IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	qp = calloc(1, sizeof(*qp));
	if (!qp) {
		errno = ENOMEM;
		return NULL;
	}
	pthread_spin_init(&qp->sq_lock, PTHREAD_PROCESS_PRIVATE);
	pthread_spin_init(&qp->rq_lock, PTHREAD_PROCESS_PRIVATE);
	ret = ibv_cmd_create_qp_ex(context, &qp->vqp, attr, &cmd.ibv_cmd,
				   sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (ret) {
		metaroce_qp_free(qp);
		errno = ret;
		return NULL;
	}
	/*
	 * The kernel holds no more than these in a WQE; ask no more. Nor
	 * more than a ring slot's arrays hold, whatever the kernel said.
	 */
	qp->max_send_sge = min_t(uint32_t, attr->cap.max_send_sge,
				 METAROCE_MAX_SGE);
	qp->max_recv_sge = min_t(uint32_t, attr->cap.max_recv_sge,
				 METAROCE_MAX_SGE);
	qp->max_inline = min_t(uint32_t, attr->cap.max_inline_data,
			       METAROCE_MAX_INLINE);
	ret = metaroce_ring_map(&qp->sq, context->cmd_fd, &resp.sq,
				sizeof(struct metaroce_send_wqe));
	if (!ret)
		ret = metaroce_ring_map(&qp->rq, context->cmd_fd, &resp.rq,
					sizeof(struct metaroce_recv_wqe));
	/* A QP on a ring SRQ receives from the SRQ's ring: it has none. */
	if (!ret && !qp->sq.map != !qp->rq.map &&
	    !(qp->sq.map && attr->srq && to_msrq(attr->srq)->ring.map))
		ret = EPROTO;
	if (!ret && (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS))
		ret = metaroce_wr_init(qp, attr);
	if (ret) {
		ibv_cmd_destroy_qp(&qp->vqp.qp);
		metaroce_qp_free(qp);
		errno = ret;
		return NULL;
	}
	return &qp->vqp.qp;
}

static struct ibv_qp *metaroce_create_qp(struct ibv_pd *pd,
					 struct ibv_qp_init_attr *attr)
{
	struct ibv_qp_init_attr_ex attr_ex = {};
	struct ibv_qp *qp;

	/* ibv_qp_init_attr is the head of ibv_qp_init_attr_ex. */
	memcpy(&attr_ex, attr, sizeof(*attr));
	attr_ex.comp_mask = IBV_QP_INIT_ATTR_PD;
	attr_ex.pd = pd;
	qp = metaroce_create_qp_ex(pd->context, &attr_ex);
	if (qp)
		attr->cap = attr_ex.cap;
	return qp;
}

static int metaroce_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			     int attr_mask, struct ibv_qp_init_attr *init_attr)
{
	struct ibv_query_qp cmd;

	return ibv_cmd_query_qp(qp, attr, attr_mask, init_attr, &cmd,
				sizeof(cmd));
}

static int metaroce_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			      int attr_mask)
{
	struct ibv_modify_qp cmd;

	return ibv_cmd_modify_qp(qp, attr, attr_mask, &cmd, sizeof(cmd));
}

static int metaroce_destroy_qp(struct ibv_qp *ibqp)
{
	int ret;

	ret = ibv_cmd_destroy_qp(ibqp);
	if (!ret)
		metaroce_qp_free(to_mqp(ibqp));
	return ret;
}

static int metaroce_fill_sges(struct metaroce_sge *dst,
			      const struct ibv_sge *src, int n, uint32_t max)
{
	if (n < 0 || (uint32_t)n > max)
		return EINVAL;
	for (int i = 0; i < n; i++) {
		dst[i].addr = src[i].addr;
		dst[i].length = src[i].length;
		dst[i].lkey = src[i].lkey;
	}
	return 0;
}

/* The datagram part of a UD WQE: the AH by number. */
static int metaroce_fill_ud(struct metaroce_send_wqe *w,
			    const struct ibv_send_wr *wr)
{
	if ((wr->opcode != IBV_WR_SEND &&
	     wr->opcode != IBV_WR_SEND_WITH_IMM) || !wr->wr.ud.ah ||
	    !to_mah(wr->wr.ud.ah)->num)
		return EINVAL;
	w->ah_num = to_mah(wr->wr.ud.ah)->num;
	w->remote_qpn = wr->wr.ud.remote_qpn;
	w->remote_qkey = wr->wr.ud.remote_qkey;
	return 0;
}

/* Fill ring slot @w from @wr; the kernel validates it again. */
static int metaroce_fill_send_wqe(struct metaroce_send_wqe *w,
				  const struct ibv_send_wr *wr,
				  const struct metaroce_qp *qp)
{
	bool ud = qp->vqp.qp.qp_type == IBV_QPT_UD;
	uint32_t len = 0;
	int err;

	switch (wr->opcode) {
	case IBV_WR_SEND:
	case IBV_WR_SEND_WITH_IMM:
	case IBV_WR_SEND_WITH_INV:
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
	case IBV_WR_RDMA_READ:
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
	case IBV_WR_LOCAL_INV:
	case IBV_WR_BIND_MW:
		break;
	default:
		return EINVAL;
	}
	if (wr->send_flags & ~(IBV_SEND_FENCE | IBV_SEND_SIGNALED |
			       IBV_SEND_SOLICITED | IBV_SEND_INLINE))
		return EINVAL;
	w->ah_num = 0;
	if (ud) {
		err = metaroce_fill_ud(w, wr);
		if (err)
			return err;
	}

	w->wr_id = wr->wr_id;
	w->opcode = wr->opcode;		/* ibv_wr_opcode == ib_uverbs_wr_opcode */
	w->send_flags = wr->send_flags;
	w->imm_data = wr->opcode == IBV_WR_SEND_WITH_INV ||
		      wr->opcode == IBV_WR_LOCAL_INV ?
		      wr->invalidate_rkey : wr->imm_data;
	w->remote_addr = 0;
	w->rkey = 0;
	if (wr->opcode == IBV_WR_BIND_MW)
		return ud ? EINVAL : metaroce_fill_bind_wqe(w, wr);
	switch (wr->opcode) {
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
	case IBV_WR_RDMA_READ:
		w->remote_addr = wr->wr.rdma.remote_addr;
		w->rkey = wr->wr.rdma.rkey;
		break;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		w->remote_addr = wr->wr.atomic.remote_addr;
		w->rkey = wr->wr.atomic.rkey;
		w->compare_add = wr->wr.atomic.compare_add;
		w->swap = wr->wr.atomic.swap;
		break;
	default:
		break;
	}

	if ((wr->send_flags & IBV_SEND_INLINE) &&
	    (wr->opcode == IBV_WR_SEND || wr->opcode == IBV_WR_SEND_WITH_IMM ||
	     wr->opcode == IBV_WR_SEND_WITH_INV ||
	     wr->opcode == IBV_WR_RDMA_WRITE ||
	     wr->opcode == IBV_WR_RDMA_WRITE_WITH_IMM)) {
		if (wr->num_sge < 0)
			return EINVAL;
		for (int i = 0; i < wr->num_sge; i++) {
			uint32_t l = wr->sg_list[i].length;

			if (l > qp->max_inline - len)
				return EINVAL;
			memcpy(w->inline_data + len,
			       (void *)(uintptr_t)wr->sg_list[i].addr, l);
			len += l;
		}
		w->inline_len = len;
		w->num_sge = 0;
		return 0;
	}
	w->inline_len = 0;
	w->num_sge = wr->num_sge;
	return metaroce_fill_sges(w->sge, wr->sg_list, wr->num_sge,
				  qp->max_send_sge);
}

static int metaroce_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
			      struct ibv_send_wr **bad_wr)
{
	struct metaroce_qp *qp = to_mqp(ibqp);
	struct metaroce_ring *r = &qp->sq;
	struct ibv_send_wr *first = wr, *bad;
	uint32_t start;
	int err = 0, ret;

	if (!r->map)
		return ibv_cmd_post_send(ibqp, wr, bad_wr);

	pthread_spin_lock(&qp->sq_lock);
	if (ibqp->state < IBV_QPS_RTS && ibqp->state != IBV_QPS_ERR) {
		pthread_spin_unlock(&qp->sq_lock);
		*bad_wr = wr;
		return EINVAL;
	}
	start = r->local;
	for (; wr; wr = wr->next) {
		if (r->local - metaroce_ring_load(&r->hdr->cons) >= r->num) {
			err = ENOMEM;
			break;
		}
		err = metaroce_fill_send_wqe(metaroce_ring_elem(r, r->local),
					     wr, qp);
		if (err)
			break;
		r->local++;
	}
	if (r->local != start) {
		/* Release: the WQEs before the index that publishes them. */
		metaroce_ring_store(&r->hdr->prod, r->local);
		ret = ibv_cmd_post_send(ibqp, NULL, &bad);
		if (ret && !err) {
			err = ret;
			wr = first;
		}
	}
	pthread_spin_unlock(&qp->sq_lock);
	if (err)
		*bad_wr = wr;
	return err;
}

static int metaroce_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
			      struct ibv_recv_wr **bad_wr)
{
	struct metaroce_qp *qp = to_mqp(ibqp);
	struct metaroce_ring *r = &qp->rq;
	struct ibv_recv_wr *bad;
	uint32_t start;
	int err = 0, ret;

	/* Receives of a QP on an SRQ are posted to the SRQ. */
	if (!r->map || ibqp->srq)
		return ibv_cmd_post_recv(ibqp, wr, bad_wr);

	pthread_spin_lock(&qp->rq_lock);
	if (ibqp->state == IBV_QPS_RESET) {
		pthread_spin_unlock(&qp->rq_lock);
		*bad_wr = wr;
		return EINVAL;
	}
	start = r->local;
	for (; wr; wr = wr->next) {
		struct metaroce_recv_wqe *w = metaroce_ring_elem(r, r->local);

		if (r->local - metaroce_ring_load(&r->hdr->cons) >= r->num) {
			err = ENOMEM;
			break;
		}
		w->wr_id = wr->wr_id;
		w->num_sge = wr->num_sge;
		err = metaroce_fill_sges(w->sge, wr->sg_list, wr->num_sge,
					 qp->max_recv_sge);
		if (err)
			break;
		r->local++;
	}
	if (r->local != start) {
		metaroce_ring_store(&r->hdr->prod, r->local);
		/*
		 * A QP in error flushes receives at once, but only when told:
		 * the kernel sets the flag, then looks at prod; we publish
		 * prod, then look at the flag. The fences order each side's
		 * store before its load, so one of us sees the other.
		 */
		atomic_thread_fence(memory_order_seq_cst);
		if (atomic_load_explicit((_Atomic(uint32_t) *)&r->hdr->flags,
					 memory_order_relaxed) &
		    METAROCE_QUEUE_F_DOORBELL) {
			ret = ibv_cmd_post_recv(ibqp, NULL, &bad);
			if (ret && !err)
				err = ret;
		}
	}
	pthread_spin_unlock(&qp->rq_lock);
	if (err)
		*bad_wr = wr;
	return err;
}

const struct verbs_context_ops metaroce_qp_ops = {
	.create_qp = metaroce_create_qp,
	.create_qp_ex = metaroce_create_qp_ex,
	.destroy_qp = metaroce_destroy_qp,
	.modify_qp = metaroce_modify_qp,
	.post_recv = metaroce_post_recv,
	.post_send = metaroce_post_send,
	.query_qp = metaroce_query_qp,
};
