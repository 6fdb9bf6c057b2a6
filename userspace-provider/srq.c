// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * MetaRoCE userspace provider: shared receive queues.
 *
 * An SRQ's receive WQEs are in a ring shared with the kernel (ring.h):
 * ibv_post_srq_recv writes them and publishes prod, with no syscall; a QP
 * on the SRQ takes WQEs from the ring when a message needs one. A kernel
 * that gives no ring (num_elems 0) gets the POST_SRQ_RECV command.
 * Resizing moves the WQEs to a new ring, whose place the kernel writes to
 * an address passed in the modify_srq command.
 */

#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "metaroce.h"
#include "ring.h"

static void metaroce_srq_free(struct metaroce_srq *srq)
{
	metaroce_ring_unmap(&srq->ring);
	pthread_spin_destroy(&srq->lock);
	free(srq);
}

static struct ibv_srq *metaroce_create_srq(struct ibv_pd *pd,
					   struct ibv_srq_init_attr *attr)
{
	struct umetaroce_create_srq_resp resp = {};
	struct ibv_create_srq cmd;
	struct metaroce_srq *srq;
	int ret;

	srq = calloc(1, sizeof(*srq));
	if (!srq) {
		errno = ENOMEM;
		return NULL;
	}
	pthread_spin_init(&srq->lock, PTHREAD_PROCESS_PRIVATE);
	ret = ibv_cmd_create_srq(pd, &srq->ibv_srq, attr, &cmd, sizeof(cmd),
				 &resp.ibv_resp, sizeof(resp));
	if (ret) {
		metaroce_srq_free(srq);
		errno = ret;
		return NULL;
	}
	srq->max_sge = attr->attr.max_sge;
	ret = metaroce_ring_map(&srq->ring, pd->context->cmd_fd, &resp.srq,
				sizeof(struct metaroce_recv_wqe));
	if (ret) {
		ibv_cmd_destroy_srq(&srq->ibv_srq);
		metaroce_srq_free(srq);
		errno = ret;
		return NULL;
	}
	return &srq->ibv_srq;
}

static int metaroce_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr,
			       int attr_mask)
{
	struct metaroce_srq *srq = to_msrq(ibsrq);
	struct metaroce_queue_info info = {};
	struct umetaroce_modify_srq cmd = {};
	struct metaroce_ring ring;
	uint32_t prod;
	int ret;

	if (!srq->ring.map)
		return ibv_cmd_modify_srq(ibsrq, attr, attr_mask, &cmd.ibv_cmd,
					  sizeof(cmd.ibv_cmd));
	cmd.queue_info_addr = (uintptr_t)&info;
	/* No post while the kernel moves the WQEs to the new ring. */
	pthread_spin_lock(&srq->lock);
	ret = ibv_cmd_modify_srq(ibsrq, attr, attr_mask, &cmd.ibv_cmd,
				 sizeof(cmd));
	if (ret || !(attr_mask & IBV_SRQ_MAX_WR))
		goto out;
	ret = metaroce_ring_map(&ring, ibsrq->context->cmd_fd, &info,
				sizeof(struct metaroce_recv_wqe));
	if (!ret && !ring.map)
		ret = EPROTO;
	if (ret)
		goto out;
	/* The kernel kept the indices: ours goes on from its prod. */
	prod = metaroce_ring_load(&ring.hdr->prod);
	metaroce_ring_unmap(&srq->ring);
	srq->ring = ring;
	srq->ring.local = prod;
out:
	pthread_spin_unlock(&srq->lock);
	return ret;
}

static int metaroce_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr)
{
	struct ibv_query_srq cmd;

	return ibv_cmd_query_srq(srq, attr, &cmd, sizeof(cmd));
}

static int metaroce_destroy_srq(struct ibv_srq *ibsrq)
{
	int ret;

	/* EBUSY while QPs use it: the SRQ stays valid then. */
	ret = ibv_cmd_destroy_srq(ibsrq);
	if (!ret)
		metaroce_srq_free(to_msrq(ibsrq));
	return ret;
}

static int metaroce_post_srq_recv(struct ibv_srq *ibsrq,
				  struct ibv_recv_wr *wr,
				  struct ibv_recv_wr **bad_wr)
{
	struct metaroce_srq *srq = to_msrq(ibsrq);
	struct metaroce_ring *r = &srq->ring;
	uint32_t start;
	int err = 0;

	if (!r->map)
		return ibv_cmd_post_srq_recv(ibsrq, wr, bad_wr);

	pthread_spin_lock(&srq->lock);
	start = r->local;
	for (; wr; wr = wr->next) {
		struct metaroce_recv_wqe *w = metaroce_ring_elem(r, r->local);

		if (wr->num_sge < 0 || (uint32_t)wr->num_sge > srq->max_sge) {
			err = EINVAL;
			break;
		}
		if (r->local - metaroce_ring_load(&r->hdr->cons) >= r->num) {
			err = ENOMEM;
			break;
		}
		w->wr_id = wr->wr_id;
		w->num_sge = wr->num_sge;
		for (int i = 0; i < wr->num_sge; i++) {
			w->sge[i].addr = wr->sg_list[i].addr;
			w->sge[i].length = wr->sg_list[i].length;
			w->sge[i].lkey = wr->sg_list[i].lkey;
		}
		r->local++;
	}
	/* No doorbell: the kernel reads prod when a message needs a WQE. */
	if (r->local != start)
		metaroce_ring_store(&r->hdr->prod, r->local);
	pthread_spin_unlock(&srq->lock);
	if (err)
		*bad_wr = wr;
	return err;
}

const struct verbs_context_ops metaroce_srq_ops = {
	.create_srq = metaroce_create_srq,
	.destroy_srq = metaroce_destroy_srq,
	.modify_srq = metaroce_modify_srq,
	.post_srq_recv = metaroce_post_srq_recv,
	.query_srq = metaroce_query_srq,
};
