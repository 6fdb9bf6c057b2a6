// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * MetaRoCE memory windows (IBA 10.6.7): allocation, binding, invalidation
 * and the check of a remote access through a window.
 *
 * A window's key is index << 8 | key byte, like an MR's, and its index is
 * allocated in the same xarray (mdev->mr_xa, entry tagged
 * MROCE_KEY_TAG_MW), so no rkey ever names both an MR and a window.
 *
 * Lifetime: every user of a window looks it up and finishes with it
 * inside one RCU read-side section; dealloc_mw erases the index and waits
 * for a grace period before it unbinds, after which nobody can see it
 * (the core frees it without RCU). A bound window counts itself on its MR
 * and holds a reference to it (mroce_mr_mw_attach), so the MR stays while
 * the window does: dereg_mr refuses until every window is unbound.
 *
 * Type 1 windows are bound by ibv_bind_mw and can be rebound at will; a
 * type 2 window is bound to one QP by a bind work request, only when it
 * is free, and freed again by LOCAL_INV or SEND_WITH_INV (IBA type 2B).
 */

#include <linux/random.h>
#include <linux/rcupdate.h>
#include <rdma/ib_verbs.h>
#include "metaroce.h"
#include "mr.h"
#include "mw.h"
#include "qp.h"

#define MROCE_MW_MAX		0x10000		/* device.c's max_mw */
#define MROCE_MW_INDEX_MAX	0xffffff	/* as MR keys */
/* Rights a window can grant. */
#define MROCE_MW_ACCESS		(IB_ACCESS_REMOTE_READ | \
				 IB_ACCESS_REMOTE_WRITE | \
				 IB_ACCESS_REMOTE_ATOMIC | IB_ZERO_BASED)

/* The window at key's index, or NULL (none, or an MR). RCU read side. */
static struct mroce_mw *mroce_mw_find(struct mroce_dev *mdev, u32 key)
{
	void *entry;

	/* Pairs with mroce_mr_dev_init(): mr_xa is set up once seen true. */
	if (!smp_load_acquire(&mdev->mr_ready))
		return NULL;
	entry = xa_load(&mdev->mr_xa, key >> 8);
	if (!entry || xa_pointer_tag(entry) != MROCE_KEY_TAG_MW)
		return NULL;
	return xa_untag_pointer(entry);
}

static int mroce_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct mroce_dev *mdev = to_mdev(ibmw->device);
	struct mroce_mw *mw = to_mmw(ibmw);
	u32 index;
	int err;

	if (ibmw->type != IB_MW_TYPE_1 && ibmw->type != IB_MW_TYPE_2) {
		ibdev_dbg_ratelimited(ibmw->device, "alloc_mw: unknown type %d\n",
				      ibmw->type);
		return -EINVAL;
	}
	mroce_mr_dev_init(mdev);
	if (atomic_inc_return(&mdev->mw_count) > MROCE_MW_MAX) {
		atomic_dec(&mdev->mw_count);
		ibdev_dbg_ratelimited(ibmw->device, "MW limit (%u) reached\n",
				      MROCE_MW_MAX);
		return -ENOMEM;
	}
	spin_lock_init(&mw->lock);

	err = xa_alloc_cyclic(&mdev->mr_xa, &index,
			      xa_tag_pointer(mw, MROCE_KEY_TAG_MW),
			      XA_LIMIT(1, MROCE_MW_INDEX_MAX), &mdev->mr_next,
			      GFP_KERNEL);
	if (err < 0) {
		atomic_dec(&mdev->mw_count);
		return err == -EBUSY ? -ENOMEM : err;
	}
	/* Published in mr_xa before the key is set: a stale key misses. */
	spin_lock_irq(&mw->lock);
	mw->index = index;
	mw->rkey = index << 8 | get_random_u8();
	spin_unlock_irq(&mw->lock);
	ibmw->rkey = mw->rkey;
	return 0;
}

/* Forget the binding; the caller detaches the MR it returns. Lock held. */
static struct mroce_mr *mroce_mw_unbind(struct mroce_mw *mw)
{
	struct mroce_mr *mr = mw->mr;

	mw->mr = NULL;
	mw->bound = false;
	mw->access = 0;
	mw->addr = 0;
	mw->length = 0;
	mw->qpn = 0;
	return mr;
}

static int mroce_dealloc_mw(struct ib_mw *ibmw)
{
	struct mroce_dev *mdev = to_mdev(ibmw->device);
	struct mroce_mw *mw = to_mmw(ibmw);
	struct mroce_mr *mr;

	xa_erase(&mdev->mr_xa, mw->index);
	/* Every lookup that may have found it is over. */
	synchronize_rcu();
	spin_lock_irq(&mw->lock);
	mr = mroce_mw_unbind(mw);
	spin_unlock_irq(&mw->lock);
	if (mr)
		mroce_mr_mw_detach(mr);
	atomic_dec(&mdev->mw_count);
	return 0;
}

/* May qp reach va..va + len through mw with rights access? Lock held. */
static int mroce_mw_check(struct mroce_mw *mw, struct mroce_qp *qp, u32 rkey,
			  u64 va, u64 len, int access, u64 *iova)
{
	u64 base;

	if (!mw->bound || mw->rkey != rkey || mw->ibmw.pd != qp->ibqp.pd ||
	    (mw->ibmw.type == IB_MW_TYPE_2 && mw->qpn != qp->ibqp.qp_num))
		return -EINVAL;
	if (access & ~mw->access)
		return -EACCES;
	base = mw->access & IB_ZERO_BASED ? 0 : mw->addr;
	if (va < base || len > mw->length || va - base > mw->length - len)
		return -ERANGE;
	*iova = mw->addr + (va - base);
	return 0;
}

struct mroce_mr *mroce_rkey_lookup(struct mroce_qp *qp, u32 rkey, u64 va,
				   u64 len, int access, u64 *iova)
{
	struct mroce_dev *mdev = qp->mdev;
	struct mroce_mr *mr = NULL;
	struct mroce_mw *mw;
	unsigned long flags;
	int err;

	rcu_read_lock();
	mw = mroce_mw_find(mdev, rkey);
	if (!mw) {
		rcu_read_unlock();
		mr = mroce_mr_lookup(mdev, rkey, true);
		if (!mr)
			return ERR_PTR(-EINVAL);
		err = mroce_mr_check(mr, qp->ibqp.pd, va, len, access);
		if (err) {
			mroce_mr_put(mr);
			return ERR_PTR(err);
		}
		*iova = va;
		return mr;
	}

	spin_lock_irqsave(&mw->lock, flags);
	err = mroce_mw_check(mw, qp, rkey, va, len, access, iova);
	if (!err) {
		mr = mw->mr;
		refcount_inc(&mr->ref);	/* the window holds one */
	}
	spin_unlock_irqrestore(&mw->lock, flags);
	rcu_read_unlock();
	if (err) {
		ibdev_dbg_ratelimited(&mdev->ibdev, "qp %u: MW %#x: access %#x to %#llx+%#llx refused: %d\n",
				      qp->ibqp.qp_num, rkey, access, va, len,
				      err);
		return ERR_PTR(err);
	}

	/*
	 * The MR itself need not grant remote rights, only be valid and,
	 * for a writable window, locally writable (checked at bind).
	 */
	err = mroce_mr_check(mr, qp->ibqp.pd, *iova, len,
			     access & (IB_ACCESS_REMOTE_WRITE |
				       IB_ACCESS_REMOTE_ATOMIC) ?
			     IB_ACCESS_LOCAL_WRITE : 0);
	if (err) {
		mroce_mr_put(mr);
		return ERR_PTR(err);
	}
	return mr;
}

/* The checks of a bind that need only the work request and the window. */
static int mroce_mw_bind_check(struct mroce_qp *qp, struct mroce_mw *mw,
			       const struct mroce_swqe *wqe)
{
	int access = wqe->bind.access;

	if (access & ~MROCE_MW_ACCESS)
		return -EINVAL;
	if (wqe->bind.rkey >> 8 != mw->index)	/* only the key byte moves */
		return -EINVAL;
	if (mw->ibmw.pd != qp->ibqp.pd)		/* C10-72 */
		return -EINVAL;
	if (mw->ibmw.type == IB_MW_TYPE_1 && (access & IB_ZERO_BASED))
		return -EINVAL;			/* o10-36.2.2 */
	if (mw->ibmw.type == IB_MW_TYPE_2 && !wqe->bind.length)
		return -EINVAL;			/* o10-37.2.40 */
	if (wqe->bind.length &&
	    wqe->bind.length - 1 > U64_MAX - wqe->bind.addr)
		return -ERANGE;
	return 0;
}

int mroce_mw_bind(struct mroce_qp *qp, struct mroce_swqe *wqe)
{
	struct mroce_dev *mdev = qp->mdev;
	struct mroce_mr *mr = NULL, *old = NULL;
	struct mroce_mw *mw;
	unsigned long flags;
	int err;

	rcu_read_lock();
	mw = mroce_mw_find(mdev, wqe->bind.mw_rkey);
	if (!mw) {
		err = -EINVAL;
		goto out;
	}
	err = mroce_mw_bind_check(qp, mw, wqe);
	if (err)
		goto out;
	if (wqe->bind.length) {
		mr = mroce_mr_lookup(mdev, wqe->bind.mr_lkey, false);
		if (!mr) {
			err = -EINVAL;
			goto out;
		}
		err = mroce_mr_mw_attach(mr, qp->ibqp.pd, wqe->bind.addr,
					 wqe->bind.length, wqe->bind.access);
		if (err) {
			mroce_mr_put(mr);
			mr = NULL;
			goto out;
		}
	}

	/*
	 * Only the index of mw_rkey names the window: the application keeps
	 * a type 2 window's current key itself (the verbs do not update
	 * ibv_mw.rkey for it), and the PD check above keeps it to its own.
	 */
	spin_lock_irqsave(&mw->lock, flags);
	if (mw->ibmw.type == IB_MW_TYPE_2 && mw->bound) {
		/* a bound type 2 is invalidated first (o10-37.2.30) */
		err = -EINVAL;
	} else {
		old = mroce_mw_unbind(mw);
		mw->rkey = wqe->bind.rkey;
		WRITE_ONCE(mw->ibmw.rkey, mw->rkey);
		if (mr) {
			mw->mr = mr;
			mw->bound = true;
			mw->access = wqe->bind.access;
			mw->addr = wqe->bind.addr;
			mw->length = wqe->bind.length;
			mw->qpn = qp->ibqp.qp_num;
			mr = NULL;	/* the window's now */
		}
	}
	spin_unlock_irqrestore(&mw->lock, flags);
out:
	rcu_read_unlock();
	if (mr)
		mroce_mr_mw_detach(mr);
	if (old)
		mroce_mr_mw_detach(old);
	if (err)
		ibdev_dbg_ratelimited(&mdev->ibdev, "qp %u: bind of MW %#x (new key %#x) to lkey %#x %#llx+%#llx access %#x failed: %d\n",
				      qp->ibqp.qp_num, wqe->bind.mw_rkey,
				      wqe->bind.rkey, wqe->bind.mr_lkey,
				      wqe->bind.addr, wqe->bind.length,
				      wqe->bind.access, err);
	return err;
}

void mroce_mw_bind_error(struct mroce_qp *qp)
{
	u32 failed = qp->sq_tx - 1;

	mroce_tx_complete(qp);
	while (qp->sq_tail != qp->sq_tx) {
		struct mroce_swqe *wqe = mroce_sq_wqe(qp, qp->sq_tail);

		mroce_qp_complete_send(qp, wqe, qp->sq_tail == failed ?
				       IB_WC_MW_BIND_ERR : IB_WC_WR_FLUSH_ERR);
	}
	mroce_qp_error(qp);
}

int mroce_key_invalidate(struct mroce_dev *mdev, u32 key, struct ib_pd *pd)
{
	struct mroce_mr *mr = NULL;
	struct mroce_mw *mw;
	unsigned long flags;
	int err = 0;

	rcu_read_lock();
	mw = mroce_mw_find(mdev, key);
	if (!mw) {
		rcu_read_unlock();
		return mroce_mr_invalidate(mdev, key, pd);
	}
	spin_lock_irqsave(&mw->lock, flags);
	/* o10-37.2.26: a type 1 window cannot be invalidated. */
	if (mw->ibmw.type != IB_MW_TYPE_2 || !mw->bound || mw->rkey != key ||
	    mw->ibmw.pd != pd)
		err = -EINVAL;
	else
		mr = mroce_mw_unbind(mw);
	spin_unlock_irqrestore(&mw->lock, flags);
	rcu_read_unlock();
	if (mr)
		mroce_mr_mw_detach(mr);
	if (err)
		ibdev_dbg_ratelimited(&mdev->ibdev, "invalidate: MW key %#x refused (type 1, not bound, stale key or other PD)\n",
				      key);
	return err;
}

const struct ib_device_ops mroce_mw_ops = {
	.alloc_mw = mroce_alloc_mw,
	.dealloc_mw = mroce_dealloc_mw,

	INIT_RDMA_OBJ_SIZE(ib_mw, mroce_mw, ibmw),
};
