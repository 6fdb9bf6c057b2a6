// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * MetaRoCE verbs objects.
 *
 * Protection domains are complete. Queue pairs, completion queues and
 * memory regions arrive with the data path; until then their verbs fail
 * with -EOPNOTSUPP (and say so once) rather than pretend to work.
 */

#include <rdma/ib_verbs.h>
#include "metaroce.h"

static int mroce_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	return 0;
}

static int mroce_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	return 0;
}

static int mroce_no_data_path(struct ib_device *ibdev, const char *verb)
{
	ibdev_warn_ratelimited(ibdev, "%s: not supported yet (no data path)\n",
			       verb);
	return -EOPNOTSUPP;
}

static int mroce_create_cq(struct ib_cq *ibcq,
			   const struct ib_cq_init_attr *attr,
			   struct uverbs_attr_bundle *attrs)
{
	return mroce_no_data_path(ibcq->device, "create_cq");
}

static int mroce_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	return 0;
}

static int mroce_poll_cq(struct ib_cq *ibcq, int num, struct ib_wc *wc)
{
	return 0;
}

static int mroce_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags f)
{
	return -EOPNOTSUPP;
}

static int mroce_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
			   struct ib_udata *udata)
{
	return mroce_no_data_path(ibqp->device, "create_qp");
}

static int mroce_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
			   int mask, struct ib_udata *udata)
{
	return -EOPNOTSUPP;
}

static int mroce_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	return 0;
}

static int mroce_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
			   const struct ib_send_wr **bad_wr)
{
	*bad_wr = wr;
	return -EOPNOTSUPP;
}

static int mroce_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
			   const struct ib_recv_wr **bad_wr)
{
	*bad_wr = wr;
	return -EOPNOTSUPP;
}

static struct ib_mr *mroce_get_dma_mr(struct ib_pd *ibpd, int access)
{
	return ERR_PTR(mroce_no_data_path(ibpd->device, "get_dma_mr"));
}

static struct ib_mr *mroce_reg_user_mr(struct ib_pd *ibpd, u64 start,
				       u64 length, u64 iova, int access,
				       struct ib_udata *udata)
{
	return ERR_PTR(mroce_no_data_path(ibpd->device, "reg_user_mr"));
}

static int mroce_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	return -EOPNOTSUPP;
}

struct mroce_cq {
	struct ib_cq ibcq;
};

struct mroce_qp {
	struct ib_qp ibqp;
};

const struct ib_device_ops mroce_verbs_ops = {
	.alloc_pd = mroce_alloc_pd,
	.create_cq = mroce_create_cq,
	.create_qp = mroce_create_qp,
	.dealloc_pd = mroce_dealloc_pd,
	.dereg_mr = mroce_dereg_mr,
	.destroy_cq = mroce_destroy_cq,
	.destroy_qp = mroce_destroy_qp,
	.get_dma_mr = mroce_get_dma_mr,
	.modify_qp = mroce_modify_qp,
	.poll_cq = mroce_poll_cq,
	.post_recv = mroce_post_recv,
	.post_send = mroce_post_send,
	.reg_user_mr = mroce_reg_user_mr,
	.req_notify_cq = mroce_req_notify_cq,

	INIT_RDMA_OBJ_SIZE(ib_cq, mroce_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_pd, mroce_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, mroce_qp, ibqp),
};
