// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * MetaRoCE userspace provider: Completion queues.
 *
 * The kernel writes completions into a ring mapped into this process
 * (ring.h); polling reads it without entering the kernel. Arming
 * (ibv_req_notify_cq) and resizing are uverbs commands. The extended CQ
 * (ibv_create_cq_ex) polls one completion per start_poll / next_poll into
 * cq->cur and serves the read_* accessors from it.
 */

#include <config.h>

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "metaroce.h"
#include "ring.h"

struct metaroce_cq {
	struct verbs_cq vcq;
	/* ring.local (cons); held by poll, resize and start..end_poll */
	pthread_spinlock_t lock;
	struct metaroce_ring ring;
	struct ibv_wc cur;		/* the completion being read (cq_ex) */
};

static inline struct metaroce_cq *to_mcq_ex(struct ibv_cq_ex *cq_ex)
{
	return container_of(cq_ex, struct metaroce_cq, vcq.cq_ex);
}

static inline struct metaroce_cq *to_mcq(struct ibv_cq *ibcq)
{
	return container_of(ibcq, struct metaroce_cq, vcq.cq);
}

/*
 * Take the next completion from the ring into @wc: 0, or ENOENT when there
 * is none. cq->lock held. The srq branch's cq_ex and ibv_poll_cq share it.
 */
static int metaroce_cq_poll_one(struct metaroce_cq *cq, struct ibv_wc *wc)
{
	struct metaroce_ring *r = &cq->ring;
	const struct metaroce_cqe *cqe;
	int n;

	if (!r->map) {
		/* A CQ without a ring (never with an ABI 2 kernel). */
		errno = 0;
		n = ibv_cmd_poll_cq(&cq->vcq.cq, 1, wc);
		if (n < 0)
			return errno ? errno : EIO;
		return n ? 0 : ENOENT;
	}
	/* Acquire: the CQE is read only after the index that covers it. */
	if (r->local == metaroce_ring_load(&r->hdr->prod))
		return ENOENT;
	cqe = metaroce_ring_elem(r, r->local);
	wc->wr_id = cqe->wr_id;
	wc->status = cqe->status;
	wc->opcode = cqe->opcode;
	wc->vendor_err = cqe->vendor_err;
	wc->byte_len = cqe->byte_len;
	wc->imm_data = cqe->imm_data;
	wc->qp_num = cqe->qp_num;
	wc->src_qp = cqe->src_qp;
	wc->wc_flags = cqe->wc_flags;
	wc->pkey_index = cqe->pkey_index;
	wc->slid = cqe->slid;
	wc->sl = cqe->sl;
	wc->dlid_path_bits = cqe->dlid_path_bits;
	/* Release: the slot is free only once we have read it. */
	metaroce_ring_store(&r->hdr->cons, ++r->local);
	return 0;
}

static void metaroce_cq_free(struct metaroce_cq *cq)
{
	metaroce_ring_unmap(&cq->ring);
	pthread_spin_destroy(&cq->lock);
	free(cq);
}

static struct ibv_cq *metaroce_create_cq(struct ibv_context *context, int cqe,
					 struct ibv_comp_channel *channel,
					 int comp_vector)
{
	struct umetaroce_create_cq_resp resp = {};
	struct ibv_create_cq cmd;
	struct metaroce_cq *cq;
	int err;

	if (cqe < 1) {
		errno = EINVAL;
		return NULL;
	}

	cq = calloc(1, sizeof(*cq));
	if (!cq) {
		errno = ENOMEM;
		return NULL;
	}
	pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE);

	err = ibv_cmd_create_cq(context, cqe, channel, comp_vector,
				&cq->vcq.cq, &cmd, sizeof(cmd),
				&resp.ibv_resp, sizeof(resp));
	if (err) {
		pthread_spin_destroy(&cq->lock);
		free(cq);
		errno = err;
		return NULL;
	}
	err = metaroce_ring_map(&cq->ring, context->cmd_fd, &resp.cq,
				sizeof(struct metaroce_cqe));
	if (err) {
		ibv_cmd_destroy_cq(&cq->vcq.cq);
		metaroce_cq_free(cq);
		errno = err;
		return NULL;
	}
	return &cq->vcq.cq;
}

static int metaroce_poll_cq(struct ibv_cq *ibcq, int ne, struct ibv_wc *wc)
{
	struct metaroce_cq *cq = to_mcq(ibcq);
	int n, err = 0;

	pthread_spin_lock(&cq->lock);
	for (n = 0; n < ne; n++) {
		err = metaroce_cq_poll_one(cq, &wc[n]);
		if (err)
			break;
	}
	pthread_spin_unlock(&cq->lock);
	if (err && err != ENOENT && !n) {
		errno = err;
		return -1;
	}
	return n;
}

static int metaroce_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	return ibv_cmd_req_notify_cq(ibcq, solicited_only);
}

/*
 * The kernel moves the pending CQEs to a new ring and removes the old one;
 * we map the new ring before anyone polls again.
 */
static int metaroce_resize_cq(struct ibv_cq *ibcq, int cqe)
{
	struct umetaroce_resize_cq_resp resp = {};
	struct metaroce_cq *cq = to_mcq(ibcq);
	struct metaroce_ring old;
	struct ibv_resize_cq cmd;
	int ret;

	if (cqe < 1)
		return EINVAL;
	pthread_spin_lock(&cq->lock);
	ret = ibv_cmd_resize_cq(ibcq, cqe, &cmd, sizeof(cmd),
				&resp.ibv_resp, sizeof(resp));
	if (!ret && cq->ring.map) {
		old = cq->ring;
		ret = metaroce_ring_map(&cq->ring, ibcq->context->cmd_fd,
					&resp.cq, sizeof(struct metaroce_cqe));
		if (ret)
			cq->ring = old;	/* stale, but never unmapped under us */
		else
			metaroce_ring_unmap(&old);
	}
	pthread_spin_unlock(&cq->lock);
	return ret;
}

static int metaroce_destroy_cq(struct ibv_cq *ibcq)
{
	int ret;

	ret = ibv_cmd_destroy_cq(ibcq);
	if (ret)
		return ret;
	metaroce_cq_free(to_mcq(ibcq));
	return 0;
}

/* Extended CQ: one completion at a time from the ring. */

enum {
	METAROCE_SUP_WC_FLAGS = IBV_WC_EX_WITH_BYTE_LEN |
				IBV_WC_EX_WITH_IMM |
				IBV_WC_EX_WITH_QP_NUM |
				IBV_WC_EX_WITH_SRC_QP |
				IBV_WC_EX_WITH_SLID |
				IBV_WC_EX_WITH_SL |
				IBV_WC_EX_WITH_DLID_PATH_BITS,
};

/* Poll the next completion into cq->cur: 0, ENOENT or an errno. */
static int metaroce_cq_ex_fetch(struct metaroce_cq *cq)
{
	int ret;

	ret = metaroce_cq_poll_one(cq, &cq->cur);
	if (ret)
		return ret;
	cq->vcq.cq_ex.wr_id = cq->cur.wr_id;
	cq->vcq.cq_ex.status = cq->cur.status;
	return 0;
}

static int metaroce_start_poll(struct ibv_cq_ex *cq_ex,
			       struct ibv_poll_cq_attr *attr)
{
	struct metaroce_cq *cq = to_mcq_ex(cq_ex);
	int ret;

	if (attr->comp_mask)
		return EINVAL;

	pthread_spin_lock(&cq->lock);
	ret = metaroce_cq_ex_fetch(cq);
	/* On failure the caller does not call end_poll. */
	if (ret)
		pthread_spin_unlock(&cq->lock);
	return ret;
}

static int metaroce_next_poll(struct ibv_cq_ex *cq_ex)
{
	return metaroce_cq_ex_fetch(to_mcq_ex(cq_ex));
}

static void metaroce_end_poll(struct ibv_cq_ex *cq_ex)
{
	pthread_spin_unlock(&to_mcq_ex(cq_ex)->lock);
}

static enum ibv_wc_opcode metaroce_read_opcode(struct ibv_cq_ex *cq_ex)
{
	return to_mcq_ex(cq_ex)->cur.opcode;
}

static uint32_t metaroce_read_vendor_err(struct ibv_cq_ex *cq_ex)
{
	return to_mcq_ex(cq_ex)->cur.vendor_err;
}

static uint32_t metaroce_read_byte_len(struct ibv_cq_ex *cq_ex)
{
	return to_mcq_ex(cq_ex)->cur.byte_len;
}

static __be32 metaroce_read_imm_data(struct ibv_cq_ex *cq_ex)
{
	return to_mcq_ex(cq_ex)->cur.imm_data;
}

static uint32_t metaroce_read_qp_num(struct ibv_cq_ex *cq_ex)
{
	return to_mcq_ex(cq_ex)->cur.qp_num;
}

static uint32_t metaroce_read_src_qp(struct ibv_cq_ex *cq_ex)
{
	return to_mcq_ex(cq_ex)->cur.src_qp;
}

static unsigned int metaroce_read_wc_flags(struct ibv_cq_ex *cq_ex)
{
	return to_mcq_ex(cq_ex)->cur.wc_flags;
}

static uint32_t metaroce_read_slid(struct ibv_cq_ex *cq_ex)
{
	return to_mcq_ex(cq_ex)->cur.slid;
}

static uint8_t metaroce_read_sl(struct ibv_cq_ex *cq_ex)
{
	return to_mcq_ex(cq_ex)->cur.sl;
}

static uint8_t metaroce_read_dlid_path_bits(struct ibv_cq_ex *cq_ex)
{
	return to_mcq_ex(cq_ex)->cur.dlid_path_bits;
}

static struct ibv_cq_ex *metaroce_create_cq_ex(struct ibv_context *context,
					       struct ibv_cq_init_attr_ex *attr)
{
	struct umetaroce_create_cq_ex_resp resp = {};
	struct ibv_create_cq_ex cmd;
	struct ibv_cq_ex *cq_ex;
	struct metaroce_cq *cq;
	int err;

	if (attr->wc_flags & ~(uint64_t)METAROCE_SUP_WC_FLAGS) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr->cqe < 1 || attr->cqe > INT32_MAX) {
		errno = EINVAL;
		return NULL;
	}

	cq = calloc(1, sizeof(*cq));
	if (!cq) {
		errno = ENOMEM;
		return NULL;
	}
	pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE);

	err = ibv_cmd_create_cq_ex(context, attr, &cq->vcq, &cmd, sizeof(cmd),
				   &resp.ibv_resp, sizeof(resp), 0);
	if (err) {
		pthread_spin_destroy(&cq->lock);
		free(cq);
		errno = err;
		return NULL;
	}
	err = metaroce_ring_map(&cq->ring, context->cmd_fd, &resp.cq,
				sizeof(struct metaroce_cqe));
	if (err) {
		ibv_cmd_destroy_cq(&cq->vcq.cq);
		metaroce_cq_free(cq);
		errno = err;
		return NULL;
	}

	cq_ex = &cq->vcq.cq_ex;
	cq_ex->start_poll = metaroce_start_poll;
	cq_ex->next_poll = metaroce_next_poll;
	cq_ex->end_poll = metaroce_end_poll;
	cq_ex->read_opcode = metaroce_read_opcode;
	cq_ex->read_vendor_err = metaroce_read_vendor_err;
	cq_ex->read_wc_flags = metaroce_read_wc_flags;
	if (attr->wc_flags & IBV_WC_EX_WITH_BYTE_LEN)
		cq_ex->read_byte_len = metaroce_read_byte_len;
	if (attr->wc_flags & IBV_WC_EX_WITH_IMM)
		cq_ex->read_imm_data = metaroce_read_imm_data;
	if (attr->wc_flags & IBV_WC_EX_WITH_QP_NUM)
		cq_ex->read_qp_num = metaroce_read_qp_num;
	if (attr->wc_flags & IBV_WC_EX_WITH_SRC_QP)
		cq_ex->read_src_qp = metaroce_read_src_qp;
	if (attr->wc_flags & IBV_WC_EX_WITH_SLID)
		cq_ex->read_slid = metaroce_read_slid;
	if (attr->wc_flags & IBV_WC_EX_WITH_SL)
		cq_ex->read_sl = metaroce_read_sl;
	if (attr->wc_flags & IBV_WC_EX_WITH_DLID_PATH_BITS)
		cq_ex->read_dlid_path_bits = metaroce_read_dlid_path_bits;
	return cq_ex;
}

const struct verbs_context_ops metaroce_cq_ops = {
	.create_cq = metaroce_create_cq,
	.create_cq_ex = metaroce_create_cq_ex,
	.poll_cq = metaroce_poll_cq,
	.req_notify_cq = metaroce_req_notify_cq,
	.resize_cq = metaroce_resize_cq,
	.destroy_cq = metaroce_destroy_cq,
};
