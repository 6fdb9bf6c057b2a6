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

#include "metaroce.h"

static struct ibv_qp *metaroce_create_qp(struct ibv_pd *pd,
					 struct ibv_qp_init_attr *attr)
{
	struct ib_uverbs_create_qp_resp resp;
	struct ibv_create_qp cmd;
	struct ibv_qp *qp;
	int ret;

	qp = calloc(1, sizeof(*qp));
	if (!qp) {
		errno = ENOMEM;
		return NULL;
	}
	ret = ibv_cmd_create_qp(pd, qp, attr, &cmd, sizeof(cmd), &resp,
				sizeof(resp));
	if (ret) {
		free(qp);
		errno = ret;
		return NULL;
	}
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
	if (!ret)
		free(qp);
	return ret;
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
	.destroy_qp = metaroce_destroy_qp,
	.modify_qp = metaroce_modify_qp,
	.post_recv = metaroce_post_recv,
	.post_send = metaroce_post_send,
	.query_qp = metaroce_query_qp,
};
