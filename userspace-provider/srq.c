// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * MetaRoCE userspace provider: shared receive queues.
 *
 * The SRQ lives in the kernel; receives are posted through the uverbs
 * POST_SRQ_RECV command, which copies them into the kernel's queue.
 */

#include <config.h>

#include <errno.h>
#include <stdlib.h>

#include "metaroce.h"

static struct ibv_srq *metaroce_create_srq(struct ibv_pd *pd,
					   struct ibv_srq_init_attr *attr)
{
	struct ib_uverbs_create_srq_resp resp;
	struct ibv_create_srq cmd;
	struct ibv_srq *srq;
	int ret;

	srq = calloc(1, sizeof(*srq));
	if (!srq) {
		errno = ENOMEM;
		return NULL;
	}
	ret = ibv_cmd_create_srq(pd, srq, attr, &cmd, sizeof(cmd), &resp,
				 sizeof(resp));
	if (ret) {
		free(srq);
		errno = ret;
		return NULL;
	}
	return srq;
}

static int metaroce_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr,
			       int attr_mask)
{
	struct ibv_modify_srq cmd;

	return ibv_cmd_modify_srq(srq, attr, attr_mask, &cmd, sizeof(cmd));
}

static int metaroce_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr)
{
	struct ibv_query_srq cmd;

	return ibv_cmd_query_srq(srq, attr, &cmd, sizeof(cmd));
}

static int metaroce_destroy_srq(struct ibv_srq *srq)
{
	int ret;

	/* EBUSY while QPs use it: the SRQ stays valid then. */
	ret = ibv_cmd_destroy_srq(srq);
	if (!ret)
		free(srq);
	return ret;
}

static int metaroce_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
				  struct ibv_recv_wr **bad_wr)
{
	return ibv_cmd_post_srq_recv(srq, wr, bad_wr);
}

const struct verbs_context_ops metaroce_srq_ops = {
	.create_srq = metaroce_create_srq,
	.destroy_srq = metaroce_destroy_srq,
	.modify_srq = metaroce_modify_srq,
	.post_srq_recv = metaroce_post_srq_recv,
	.query_srq = metaroce_query_srq,
};
