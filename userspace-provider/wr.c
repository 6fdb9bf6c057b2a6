// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * MetaRoCE userspace provider: the extended post API (ibv_wr_*).
 *
 * Between wr_start and wr_complete each wr_<opcode> call starts a work
 * request and the wr_set_* calls fill in its data and address; they build
 * an ordinary ibv_send_wr list here. wr_complete hands the list to the
 * QP's post_send, so it takes the same path as ibv_post_send, whatever
 * that path is. Inline data is copied when wr_set_inline_data* is called,
 * as the API allows the caller to reuse its buffer at once.
 *
 * The wr_* calls cannot fail; the first error (no memory, too many SGEs,
 * too much inline data, a setter without a work request) is kept and
 * returned by wr_complete, which then posts nothing. An error of
 * post_send itself is returned as it is: the work requests before the
 * failing one are posted, as with ibv_post_send.
 */

#include <config.h>

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "metaroce.h"

struct metaroce_wr_entry {
	struct ibv_send_wr wr;
	struct ibv_sge sge[METAROCE_MAX_SGE];
	bool inl;			/* sge[0] describes inline_data */
	uint8_t inline_data[METAROCE_MAX_INLINE];
};

enum {
	METAROCE_RC_SEND_OPS = IBV_QP_EX_WITH_SEND |
			       IBV_QP_EX_WITH_SEND_WITH_IMM |
			       IBV_QP_EX_WITH_SEND_WITH_INV |
			       IBV_QP_EX_WITH_RDMA_WRITE |
			       IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
			       IBV_QP_EX_WITH_RDMA_READ |
			       IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
			       IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD |
			       IBV_QP_EX_WITH_BIND_MW,
	METAROCE_UD_SEND_OPS = IBV_QP_EX_WITH_SEND |
			       IBV_QP_EX_WITH_SEND_WITH_IMM,
};

static struct metaroce_qp *to_mqpx(struct ibv_qp_ex *qpx)
{
	return container_of(qpx, struct metaroce_qp, vqp.qp_ex);
}

static struct metaroce_wr_batch *to_batch(struct ibv_qp_ex *qpx)
{
	return &to_mqpx(qpx)->batch;
}

static void batch_fail(struct metaroce_wr_batch *b, int err)
{
	if (!b->err)
		b->err = err;
}

/* Start the next work request of the batch; NULL after an error. */
static struct ibv_send_wr *wr_new(struct ibv_qp_ex *qpx,
				  enum ibv_wr_opcode opcode)
{
	struct metaroce_wr_batch *b = to_batch(qpx);
	struct metaroce_wr_entry *e;

	if (b->err)
		return NULL;
	if (b->n == b->cap) {
		unsigned int cap = b->cap ? 2 * b->cap : 8;

		e = realloc(b->wr, cap * sizeof(*e));
		if (!e) {
			batch_fail(b, ENOMEM);
			return NULL;
		}
		b->wr = e;
		b->cap = cap;
	}
	e = &b->wr[b->n++];
	memset(&e->wr, 0, sizeof(e->wr));
	e->inl = false;
	e->wr.wr_id = qpx->wr_id;
	e->wr.send_flags = qpx->wr_flags;
	e->wr.opcode = opcode;
	return &e->wr;
}

/* The work request the wr_set_* calls apply to. */
static struct metaroce_wr_entry *wr_cur(struct ibv_qp_ex *qpx)
{
	struct metaroce_wr_batch *b = to_batch(qpx);

	if (b->err)
		return NULL;
	if (!b->n) {
		batch_fail(b, EINVAL);
		return NULL;
	}
	return &b->wr[b->n - 1];
}

static void mr_wr_send(struct ibv_qp_ex *qpx)
{
	wr_new(qpx, IBV_WR_SEND);
}

static void mr_wr_send_imm(struct ibv_qp_ex *qpx, __be32 imm)
{
	struct ibv_send_wr *wr = wr_new(qpx, IBV_WR_SEND_WITH_IMM);

	if (wr)
		wr->imm_data = imm;
}

static void mr_wr_send_inv(struct ibv_qp_ex *qpx, uint32_t rkey)
{
	struct ibv_send_wr *wr = wr_new(qpx, IBV_WR_SEND_WITH_INV);

	if (wr)
		wr->invalidate_rkey = rkey;
}

static void wr_rdma(struct ibv_qp_ex *qpx, enum ibv_wr_opcode opcode,
		    uint32_t rkey, uint64_t addr, __be32 imm)
{
	struct ibv_send_wr *wr = wr_new(qpx, opcode);

	if (!wr)
		return;
	wr->wr.rdma.rkey = rkey;
	wr->wr.rdma.remote_addr = addr;
	wr->imm_data = imm;
}

static void mr_wr_rdma_write(struct ibv_qp_ex *qpx, uint32_t rkey,
			     uint64_t addr)
{
	wr_rdma(qpx, IBV_WR_RDMA_WRITE, rkey, addr, 0);
}

static void mr_wr_rdma_write_imm(struct ibv_qp_ex *qpx, uint32_t rkey,
				 uint64_t addr, __be32 imm)
{
	wr_rdma(qpx, IBV_WR_RDMA_WRITE_WITH_IMM, rkey, addr, imm);
}

static void mr_wr_rdma_read(struct ibv_qp_ex *qpx, uint32_t rkey,
			    uint64_t addr)
{
	wr_rdma(qpx, IBV_WR_RDMA_READ, rkey, addr, 0);
}

static void wr_atomic(struct ibv_qp_ex *qpx, enum ibv_wr_opcode opcode,
		      uint32_t rkey, uint64_t addr, uint64_t cmp_add,
		      uint64_t swap)
{
	struct ibv_send_wr *wr = wr_new(qpx, opcode);

	if (!wr)
		return;
	wr->wr.atomic.rkey = rkey;
	wr->wr.atomic.remote_addr = addr;
	wr->wr.atomic.compare_add = cmp_add;
	wr->wr.atomic.swap = swap;
}

static void mr_wr_atomic_cmp_swp(struct ibv_qp_ex *qpx, uint32_t rkey,
				 uint64_t addr, uint64_t compare,
				 uint64_t swap)
{
	wr_atomic(qpx, IBV_WR_ATOMIC_CMP_AND_SWP, rkey, addr, compare, swap);
}

static void mr_wr_atomic_fetch_add(struct ibv_qp_ex *qpx, uint32_t rkey,
				   uint64_t addr, uint64_t add)
{
	wr_atomic(qpx, IBV_WR_ATOMIC_FETCH_AND_ADD, rkey, addr, add, 0);
}

/* A window bind; ibv_wr_bind_mw leaves mw->rkey to the caller. */
static void mr_wr_bind_mw(struct ibv_qp_ex *qpx, struct ibv_mw *mw,
			  uint32_t rkey, const struct ibv_mw_bind_info *info)
{
	struct ibv_send_wr *wr = wr_new(qpx, IBV_WR_BIND_MW);

	if (!wr)
		return;
	wr->bind_mw.mw = mw;
	wr->bind_mw.rkey = rkey;
	wr->bind_mw.bind_info = *info;
}

static void mr_wr_set_ud_addr(struct ibv_qp_ex *qpx, struct ibv_ah *ah,
			      uint32_t remote_qpn, uint32_t remote_qkey)
{
	struct metaroce_wr_entry *e = wr_cur(qpx);

	if (!e)
		return;
	e->wr.wr.ud.ah = ah;
	e->wr.wr.ud.remote_qpn = remote_qpn;
	e->wr.wr.ud.remote_qkey = remote_qkey;
}

static void mr_wr_set_sge_list(struct ibv_qp_ex *qpx, size_t num_sge,
			       const struct ibv_sge *sg_list)
{
	struct metaroce_wr_entry *e = wr_cur(qpx);

	if (!e)
		return;
	if (num_sge > METAROCE_MAX_SGE) {
		batch_fail(to_batch(qpx), EINVAL);
		return;
	}
	if (num_sge)
		memcpy(e->sge, sg_list, num_sge * sizeof(*sg_list));
	e->wr.num_sge = num_sge;
	e->inl = false;
}

static void mr_wr_set_sge(struct ibv_qp_ex *qpx, uint32_t lkey, uint64_t addr,
			  uint32_t length)
{
	struct ibv_sge sge = { .addr = addr, .length = length, .lkey = lkey };

	mr_wr_set_sge_list(qpx, 1, &sge);
}

static void mr_wr_set_inline_data_list(struct ibv_qp_ex *qpx, size_t num_buf,
				       const struct ibv_data_buf *buf_list)
{
	struct metaroce_qp *qp = to_mqpx(qpx);
	struct metaroce_wr_batch *b = &qp->batch;
	struct metaroce_wr_entry *e = wr_cur(qpx);
	size_t len = 0, i;

	if (!e)
		return;
	for (i = 0; i < num_buf; i++) {
		if (buf_list[i].length > qp->max_inline - len) {
			batch_fail(b, EINVAL);
			return;
		}
		memcpy(e->inline_data + len, buf_list[i].addr,
		       buf_list[i].length);
		len += buf_list[i].length;
	}
	/* sge[0].addr is set by wr_complete: the entry may still move. */
	e->sge[0].length = len;
	e->sge[0].lkey = 0;
	e->wr.num_sge = 1;
	e->wr.send_flags |= IBV_SEND_INLINE;
	e->inl = true;
}

static void mr_wr_set_inline_data(struct ibv_qp_ex *qpx, void *addr,
				  size_t length)
{
	struct ibv_data_buf buf = { .addr = addr, .length = length };

	mr_wr_set_inline_data_list(qpx, 1, &buf);
}

static void mr_wr_start(struct ibv_qp_ex *qpx)
{
	struct metaroce_wr_batch *b = to_batch(qpx);

	pthread_mutex_lock(&b->lock);
	b->n = 0;
	b->err = 0;
}

static void mr_wr_abort(struct ibv_qp_ex *qpx)
{
	struct metaroce_wr_batch *b = to_batch(qpx);

	b->n = 0;
	pthread_mutex_unlock(&b->lock);
}

static int mr_wr_complete(struct ibv_qp_ex *qpx)
{
	struct metaroce_wr_batch *b = to_batch(qpx);
	struct ibv_send_wr *bad;
	unsigned int i;
	int ret = b->err;

	if (!ret && b->n) {
		for (i = 0; i < b->n; i++) {
			struct metaroce_wr_entry *e = &b->wr[i];

			e->wr.next = i + 1 < b->n ? &b->wr[i + 1].wr : NULL;
			e->wr.sg_list = e->sge;
			if (e->inl)
				e->sge[0].addr = (uintptr_t)e->inline_data;
		}
		ret = ibv_post_send(&qpx->qp_base, &b->wr[0].wr, &bad);
	}
	b->n = 0;
	pthread_mutex_unlock(&b->lock);
	return ret;
}

/*
 * ibv_qp_to_qp_ex() runs in the system libibverbs and tests VERBS_QP_EX in
 * verbs_qp.comp_mask, which follows struct ibv_qp_ex. The rdma-core
 * headers we build against may be newer than that library and have a
 * longer ibv_qp_ex (e.g. wr_flush appended), so the library's comp_mask
 * can sit inside our ibv_qp_ex. Find where the library looks, once, by
 * asking it about zeroed probes; -1 if it never answers.
 */
static ptrdiff_t lib_qp_mask_off = -1;
static pthread_once_t lib_qp_mask_once = PTHREAD_ONCE_INIT;

static void find_lib_qp_mask_off(void)
{
	union {
		struct verbs_qp vqp;
		uint64_t raw[sizeof(struct verbs_qp) / 8 + 1];
	} probe;
	uint32_t mask = VERBS_QP_EX;
	size_t off;

	for (off = offsetof(struct verbs_qp, comp_mask);
	     off >= sizeof(struct ibv_qp); off -= 8) {
		memset(&probe, 0, sizeof(probe));
		memcpy((char *)&probe + off, &mask, sizeof(mask));
		if (ibv_qp_to_qp_ex(&probe.vqp.qp)) {
			lib_qp_mask_off = off;
			return;
		}
	}
}

int metaroce_wr_init(struct metaroce_qp *qp,
		     const struct ibv_qp_init_attr_ex *attr)
{
	struct ibv_qp_ex *qpx = &qp->vqp.qp_ex;
	struct metaroce_wr_batch *b = &qp->batch;
	uint64_t ops = attr->send_ops_flags;

	uint32_t mask;

	if ((attr->qp_type == IBV_QPT_RC && ops & ~(uint64_t)METAROCE_RC_SEND_OPS) ||
	    (attr->qp_type == IBV_QPT_UD && ops & ~(uint64_t)METAROCE_UD_SEND_OPS) ||
	    (attr->qp_type != IBV_QPT_RC && attr->qp_type != IBV_QPT_UD))
		return EOPNOTSUPP;
	pthread_once(&lib_qp_mask_once, find_lib_qp_mask_off);
	if (lib_qp_mask_off < 0)
		return EOPNOTSUPP;

	pthread_mutex_init(&b->lock, NULL);

	qpx->wr_send = mr_wr_send;
	qpx->wr_send_imm = mr_wr_send_imm;
	qpx->wr_set_ud_addr = mr_wr_set_ud_addr;
	if (attr->qp_type == IBV_QPT_RC) {
		qpx->wr_send_inv = mr_wr_send_inv;
		qpx->wr_rdma_write = mr_wr_rdma_write;
		qpx->wr_rdma_write_imm = mr_wr_rdma_write_imm;
		qpx->wr_rdma_read = mr_wr_rdma_read;
		qpx->wr_atomic_cmp_swp = mr_wr_atomic_cmp_swp;
		qpx->wr_atomic_fetch_add = mr_wr_atomic_fetch_add;
		qpx->wr_bind_mw = mr_wr_bind_mw;
	}
	qpx->wr_set_sge = mr_wr_set_sge;
	qpx->wr_set_sge_list = mr_wr_set_sge_list;
	qpx->wr_set_inline_data = mr_wr_set_inline_data;
	qpx->wr_set_inline_data_list = mr_wr_set_inline_data_list;
	qpx->wr_start = mr_wr_start;
	qpx->wr_complete = mr_wr_complete;
	qpx->wr_abort = mr_wr_abort;
	/* Where ibv_qp_to_qp_ex() looks, and where our headers say. */
	memcpy(&mask, (char *)&qp->vqp + lib_qp_mask_off, sizeof(mask));
	mask |= VERBS_QP_EX;
	memcpy((char *)&qp->vqp + lib_qp_mask_off, &mask, sizeof(mask));
	qp->vqp.comp_mask |= VERBS_QP_EX;
	b->enabled = true;
	return 0;
}

void metaroce_wr_cleanup(struct metaroce_qp *qp)
{
	if (!qp->batch.enabled)
		return;
	pthread_mutex_destroy(&qp->batch.lock);
	free(qp->batch.wr);
	qp->batch.wr = NULL;
}
