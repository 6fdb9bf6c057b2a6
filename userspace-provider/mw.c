// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * MetaRoCE userspace provider: memory windows.
 *
 * Allocation and deallocation are uverbs commands. Binding a type 1
 * window (ibv_bind_mw) is a bind work request on the QP's send queue, as
 * for a type 2 window (IBV_WR_BIND_MW): the kernel checks the window, the
 * MR and the access rights when the bind reaches the head of the queue,
 * and a bind that fails completes with IBV_WC_MW_BIND_ERR.
 */

#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "metaroce.h"

static struct ibv_mw *metaroce_alloc_mw(struct ibv_pd *pd,
					enum ibv_mw_type type)
{
	struct ib_uverbs_alloc_mw_resp resp;
	struct ibv_alloc_mw cmd;
	struct ibv_mw *mw;
	int ret;

	mw = calloc(1, sizeof(*mw));
	if (!mw) {
		errno = ENOMEM;
		return NULL;
	}
	ret = ibv_cmd_alloc_mw(pd, type, mw, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (ret) {
		free(mw);
		errno = ret;
		return NULL;
	}
	return mw;
}

static int metaroce_dealloc_mw(struct ibv_mw *mw)
{
	int ret;

	ret = ibv_cmd_dealloc_mw(mw);
	if (ret)
		return ret;
	free(mw);
	return 0;
}

/*
 * The window's key byte moves on with every bind, so that a peer holding
 * the old rkey loses access. mw->rkey takes the new key once the bind is
 * posted; should it fail (IBV_WC_MW_BIND_ERR), the caller must restore it,
 * as libibverbs documents.
 */
static int metaroce_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw,
			    struct ibv_mw_bind *mw_bind)
{
	struct ibv_send_wr wr, *bad;
	int ret;

	if (mw->type != IBV_MW_TYPE_1 || mw->pd != qp->pd)
		return EINVAL;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = mw_bind->wr_id;
	wr.opcode = IBV_WR_BIND_MW;
	wr.send_flags = mw_bind->send_flags;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
	wr.bind_mw.bind_info = mw_bind->bind_info;
	ret = ibv_post_send(qp, &wr, &bad);
	if (ret)
		return ret;
	mw->rkey = wr.bind_mw.rkey;
	return 0;
}

/* The bind rides in the WQE's union: ABI version 2's WQE is unchanged. */
_Static_assert(sizeof(struct metaroce_send_wqe) == 328 &&
	       sizeof(struct metaroce_bind_mw) <= METAROCE_MAX_INLINE,
	       "struct metaroce_send_wqe changed size");

/* The bind part of ring slot @w (opcode BIND_MW): rdma/metaroce-abi.h. */
int metaroce_fill_bind_wqe(struct metaroce_send_wqe *w,
			   const struct ibv_send_wr *wr)
{
	const struct ibv_mw_bind_info *info = &wr->bind_mw.bind_info;

	if (!wr->bind_mw.mw || (info->length && !info->mr))
		return EINVAL;
	w->num_sge = 0;
	w->inline_len = 0;
	w->bind_mw.addr = info->addr;
	w->bind_mw.length = info->length;
	w->bind_mw.mw_rkey = wr->bind_mw.mw->rkey;
	w->bind_mw.rkey = wr->bind_mw.rkey;
	w->bind_mw.mr_lkey = info->length ? info->mr->lkey : 0;
	w->bind_mw.access = info->mw_access_flags;
	return 0;
}

const struct verbs_context_ops metaroce_mw_ops = {
	.alloc_mw = metaroce_alloc_mw,
	.dealloc_mw = metaroce_dealloc_mw,
	.bind_mw = metaroce_bind_mw,
};
