// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * MetaRoCE userspace provider: queue pairs.
 *
 * Work requests go to the kernel through the uverbs post commands for now;
 * the kernel copies them into its queues and runs the transport.
 */

#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "metaroce.h"

/* ibv_create_qp_ex(): with send_ops_flags, the extended post API too. */
static struct ibv_qp *metaroce_create_qp_ex(struct ibv_context *context,
					    struct ibv_qp_init_attr_ex *attr)
{
	struct ib_uverbs_create_qp_resp resp;
	struct ibv_create_qp cmd;
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
	ret = ibv_cmd_create_qp_ex(context, &qp->vqp, attr, &cmd, sizeof(cmd),
				   &resp, sizeof(resp));
	if (ret) {
		free(qp);
		errno = ret;
		return NULL;
	}
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) {
		ret = metaroce_wr_init(qp, attr);
		if (ret) {
			ibv_cmd_destroy_qp(&qp->vqp.qp);
			free(qp);
			errno = ret;
			return NULL;
		}
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

static int metaroce_destroy_qp(struct ibv_qp *qp)
{
	int ret;

	ret = ibv_cmd_destroy_qp(qp);
	if (ret)
		return ret;
	metaroce_wr_cleanup(to_mqp(qp));
	free(to_mqp(qp));
	return 0;
}

static int metaroce_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
			      struct ibv_send_wr **bad_wr)
{
	return ibv_cmd_post_send(qp, wr, bad_wr);
}

static int metaroce_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			      struct ibv_recv_wr **bad_wr)
{
	return ibv_cmd_post_recv(qp, wr, bad_wr);
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
