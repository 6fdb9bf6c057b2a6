/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * MetaRoCE memory windows: remote access to part of a memory region,
 * granted and revoked by work requests.
 *
 * A window's rkey shares the index space of MR keys (mdev->mr_xa, see
 * mr.h), so a received rkey names either one MR or one window. Remote
 * accesses go through mroce_rkey_lookup(), which for a window checks the
 * window first and then hands back the memory region under it.
 */
#ifndef METAROCE_MW_H
#define METAROCE_MW_H

#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>
#include "metaroce.h"

struct mroce_mr;
struct mroce_qp;
struct mroce_swqe;

struct mroce_mw {
	struct ib_mw ibmw;		/* type, pd; rkey for the core */
	u32 index;			/* rkey >> 8, its entry in mr_xa */
	spinlock_t lock;		/* everything below */
	u32 rkey;			/* current key, the byte changes per bind */
	bool bound;			/* mr is set, remote access possible */
	int access;			/* IB_ACCESS_REMOTE_* | IB_ZERO_BASED */
	u64 addr;			/* window start, an address of mr */
	u64 length;
	struct mroce_mr *mr;		/* counted (mroce_mr_mw_attach) */
	u32 qpn;			/* type 2: the QP it is bound to */
};

static inline struct mroce_mw *to_mmw(struct ib_mw *ibmw)
{
	return container_of(ibmw, struct mroce_mw, ibmw);
}

/*
 * The MR behind remote key rkey as seen by qp, for len bytes at the
 * requester's address va with rights access (IB_ACCESS_REMOTE_*): for an
 * MR key the MR itself, for a window key the MR the window is bound to,
 * once va..va + len passed the window's checks (state, key, PD, type 2:
 * the QP, rights, range). *iova is where va lies in the MR (zero-based
 * windows translate). The MR comes with a reference (mroce_mr_put()) and
 * is checked: copy at once. ERR_PTR(-EINVAL) (unknown key, PD or QP),
 * ERR_PTR(-EACCES) or ERR_PTR(-ERANGE) otherwise. Callable in softirq.
 */
struct mroce_mr *mroce_rkey_lookup(struct mroce_qp *qp, u32 rkey, u64 va,
				   u64 len, int access, u64 *iova);

/*
 * Execute the IB_WR_BIND_MW wqe of qp (type 1 from ibv_bind_mw, type 2
 * from post_send). 0, or -errno for IB_WC_MW_BIND_ERR.
 */
int mroce_mw_bind(struct mroce_qp *qp, struct mroce_swqe *wqe);

/*
 * A bind failed at sq_tx - 1: complete what came before, the bind with
 * IB_WC_MW_BIND_ERR, and move the QP to the error state (IBA 10.8.3.2:
 * a bind error is a QP error). Lock held.
 */
void mroce_mw_bind_error(struct mroce_qp *qp);

/*
 * LOCAL_INV or SEND_WITH_INV of key by a QP of pd: the window key names
 * (0, or -EINVAL: type 1, not bound, stale key, other PD), else the MR
 * (mroce_mr_invalidate()). Callable in softirq.
 */
int mroce_key_invalidate(struct mroce_dev *mdev, u32 key, struct ib_pd *pd);

#endif /* METAROCE_MW_H */
