/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * MetaRoCE memory regions: what the transport needs of them.
 *
 * Every byte the transport moves goes through these functions, which check
 * keys, protection domain, bounds and access rights before touching memory.
 */
#ifndef METAROCE_MR_H
#define METAROCE_MR_H

#include <linux/completion.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>
#include "metaroce.h"

struct ib_umem;
struct sk_buff;

/*
 * mdev->mr_xa holds memory windows too, so that MR and MW keys never
 * collide: an MW's entry is its pointer tagged with MROCE_KEY_TAG_MW.
 */
#define MROCE_KEY_TAG_MW	1

/* Most pages one fast-registration MR maps (max_fast_reg_page_list_len). */
#define MROCE_MAX_FRMR_PAGES	512

enum mroce_mr_state {
	MROCE_MR_INVALID,	/* being deregistered: no lookup finds it */
	MROCE_MR_FREE,		/* fast-reg MR not (or no longer) registered */
	MROCE_MR_VALID,
};

/*
 * A memory region. Found through mdev->mr_xa at index key >> 8 under RCU;
 * a reference (mroce_mr_lookup) keeps its pages pinned and mapped, so hold
 * one only while an operation touches the memory: dereg_mr waits for the
 * last reference before it unpins the pages and returns.
 */
struct mroce_mr {
	struct ib_mr ibmr;
	struct ib_pd *pd;		/* ibmr.pd is set late by the core */
	enum ib_mr_type type;
	u32 index;			/* key >> 8 */
	refcount_t ref;
	struct completion released;	/* ref reached zero */
	struct rcu_head rcu;
	spinlock_t lock;		/* serialises state changes */

	/* Read locklessly; written under lock, state last (release). */
	int state;			/* enum mroce_mr_state */
	u32 lkey;
	u32 rkey;
	int access;			/* IB_ACCESS_* */
	u64 iova;			/* first byte's address (DMA MR: 0) */
	u64 length;			/* bytes (DMA MR: whole space) */
	unsigned int offset;		/* of iova in pages[0] */
	unsigned int num_mw;		/* windows bound to it, under lock */

	struct ib_umem *umem;		/* user MR */
	struct page **pages;		/* PAGE_SIZE pages backing the MR */
	unsigned int npages;		/* valid entries of pages */
	unsigned int max_pages;		/* allocated entries of pages */
};

static inline struct mroce_mr *to_mmr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct mroce_mr, ibmr);
}

/*
 * Set up mdev's MR state. Idempotent; called by the first MR verb if
 * device creation did not call it.
 */
void mroce_mr_dev_init(struct mroce_dev *mdev);

/*
 * Find a valid MR by lkey (remote = false) or rkey (remote = true) and take
 * a reference. NULL if the key is unknown, invalidated or not of that kind.
 * Callable in softirq.
 */
struct mroce_mr *mroce_mr_lookup(struct mroce_dev *mdev, u32 key, bool remote);
void mroce_mr_put(struct mroce_mr *mr);

/*
 * May [iova, iova + len) of mr be accessed from pd with IB_ACCESS_* rights
 * `access` (0 = local read)? 0, or -EINVAL (other PD), -ERANGE (bounds,
 * including overflow), -EACCES (rights, or the MR was invalidated).
 * len == 0 is allowed on any MR, whatever iova, pd and access (IBTA).
 */
int mroce_mr_check(struct mroce_mr *mr, struct ib_pd *pd, u64 iova, u64 len,
		   int access);

/*
 * Copy between mr at iova and buf after mroce_mr_check() said yes. Never
 * touches memory outside the MR: should the MR change under the caller
 * (a racing re-registration), bytes it cannot place are dropped (read:
 * zeroed) with a ratelimited warning.
 */
void mroce_mr_copy(struct mroce_mr *mr, u64 iova, void *buf, u64 len,
		   bool to_mr);

/*
 * Zero-copy transmit: append the pages under [iova, iova + len) of mr to
 * skb as fragments, a page reference each, instead of copying the bytes.
 * Only a user MR qualifies: its pages and bounds are fixed while it
 * exists, and the references keep the pages past a deregistration, while
 * a kernel MR may map slab memory, which the stack must not hold by
 * reference. -EOPNOTSUPP if mr does not qualify or the fragments run out;
 * skb may then hold part of the range (mroce_skb_drop_frags()).
 */
int mroce_mr_frags(struct mroce_mr *mr, u64 iova, struct sk_buff *skb,
		   u64 len);

/*
 * 8-byte atomic at iova of mr (checked, aligned): compare-and-swap when
 * cmp_swap, else fetch-and-add. *orig gets the previous value. Atomic with
 * respect to every other MetaRoCE atomic on the host. Checks again: 0, or
 * -ERANGE (bounds), -EINVAL (iova not 8-byte aligned), -EACCES (MR not
 * writable or invalidated). The caller checks PD and IB_ACCESS_REMOTE_ATOMIC.
 */
int mroce_mr_atomic(struct mroce_mr *mr, u64 iova, bool cmp_swap, u64 compare,
		    u64 swap_add, u64 *orig);

/*
 * Gather from (to_sge = false) or scatter into (to_sge = true) the sge list
 * at byte `offset` of the list, `len` bytes, each lkey looked up and checked
 * against pd (IB_ACCESS_LOCAL_WRITE when scattering). 0, or -EINVAL (bad
 * lkey / PD / rights: local protection error), -ERANGE (past the list).
 */
int mroce_sge_copy(struct mroce_dev *mdev, struct ib_pd *pd,
		   const struct ib_sge *sge, int num_sge, u64 offset,
		   void *buf, u64 len, bool to_sge);

/*
 * mroce_sge_copy() from the list into skb's fragments: mroce_mr_frags()
 * for each piece. 0, -EINVAL, -ERANGE as mroce_sge_copy(), or -EOPNOTSUPP
 * (an MR does not qualify, too many pieces: copy instead); on failure skb
 * is as it was.
 */
int mroce_sge_frags(struct mroce_dev *mdev, struct ib_pd *pd,
		    const struct ib_sge *sge, int num_sge, u64 offset,
		    struct sk_buff *skb, u64 len);

/* Drop the page fragments of skb past the first nr. */
void mroce_skb_drop_frags(struct sk_buff *skb, unsigned int nr);

/*
 * IB_WR_REG_MR: make ibmr (from alloc_mr + map_mr_sg) valid as key. 0, or
 * -EINVAL: not a fast-reg MR, not free (IBTA: invalidate first), key's
 * index is not ibmr's, bad access. The caller checks the QP's PD against
 * ibmr->pd.
 */
int mroce_mr_fast_reg(struct mroce_dev *mdev, struct ib_mr *ibmr, u32 key,
		      int access);

/*
 * IB_WR_LOCAL_INV and SEND_WITH_INV: invalidate key if pd owns it. 0, or
 * -EINVAL: unknown key, other PD, or not a fast-reg MR. Invalidating an
 * already free MR with its current key succeeds.
 */
int mroce_mr_invalidate(struct mroce_dev *mdev, u32 key, struct ib_pd *pd);

/*
 * Count a memory window on mr, which the caller holds a reference to and
 * hands over to the window: [addr, addr + length) must lie in the MR, the
 * MR be valid, of pd, registered with IB_ACCESS_MW_BIND and, for a window
 * with remote write or atomic rights, with local write (C10-72..75).
 * 0, or -EINVAL (state, PD, DMA MR), -EACCES (rights), -ERANGE (bounds).
 * While any window is counted, dereg_mr refuses with -EINVAL.
 */
int mroce_mr_mw_attach(struct mroce_mr *mr, struct ib_pd *pd, u64 addr,
		       u64 length, int mw_access);
/* Undo mroce_mr_mw_attach(): uncount the window, drop its reference. */
void mroce_mr_mw_detach(struct mroce_mr *mr);

#endif /* METAROCE_MR_H */
