// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Scatter/gather lists: the bytes of a work request, found through the
 * lkeys of its SGEs, copied to or from a buffer or attached to a packet
 * as page fragments.
 */

#include <linux/minmax.h>
#include <linux/skbuff.h>
#include <linux/skbuff_ref.h>
#include <rdma/ib_verbs.h>
#include "metaroce.h"
#include "mr.h"

/* What to do with one checked piece of the list: n bytes of mr at iova. */
typedef int (*mroce_sge_fn)(struct mroce_mr *mr, u64 iova, u64 n, void *arg);

/*
 * Call fn for each piece of the sge list from byte `offset`, `len` bytes,
 * after looking up its lkey and checking it against pd for `access`.
 */
static int mroce_sge_walk(struct mroce_dev *mdev, struct ib_pd *pd,
			  const struct ib_sge *sge, int num_sge, u64 offset,
			  u64 len, int access, mroce_sge_fn fn, void *arg)
{
	struct mroce_mr *mr;
	u64 total = 0, n, iova;
	int i, err;

	for (i = 0; i < num_sge; i++)
		total += sge[i].length;
	if (offset > total || len > total - offset) {
		ibdev_dbg_ratelimited(&mdev->ibdev, "sge access of %llu bytes at %llu past the list (%llu)\n",
				      len, offset, total);
		return -ERANGE;
	}

	for (i = 0; i < num_sge && len; i++) {
		if (offset >= sge[i].length) {
			offset -= sge[i].length;
			continue;
		}
		n = min_t(u64, len, sge[i].length - offset);
		iova = sge[i].addr + offset;
		if (iova < offset) {
			ibdev_dbg_ratelimited(&mdev->ibdev, "sge %#llx+%llu wraps\n",
					      sge[i].addr, offset);
			return -EINVAL;
		}
		mr = mroce_mr_lookup(mdev, sge[i].lkey, false);
		if (!mr) {
			ibdev_dbg_ratelimited(&mdev->ibdev, "sge lkey %#x unknown or invalid\n",
					      sge[i].lkey);
			return -EINVAL;
		}
		err = mroce_mr_check(mr, pd, iova, n, access) ? -EINVAL :
		      fn(mr, iova, n, arg);
		mroce_mr_put(mr);
		if (err)
			return err;
		len -= n;
		offset = 0;
	}
	return 0;
}

struct mroce_sge_copy_arg {
	void *buf;
	bool to_sge;
};

static int mroce_sge_copy_piece(struct mroce_mr *mr, u64 iova, u64 n,
				void *arg)
{
	struct mroce_sge_copy_arg *c = arg;

	mroce_mr_copy(mr, iova, c->buf, n, c->to_sge);
	c->buf += n;
	return 0;
}

int mroce_sge_copy(struct mroce_dev *mdev, struct ib_pd *pd,
		   const struct ib_sge *sge, int num_sge, u64 offset,
		   void *buf, u64 len, bool to_sge)
{
	struct mroce_sge_copy_arg c = { .buf = buf, .to_sge = to_sge };

	return mroce_sge_walk(mdev, pd, sge, num_sge, offset, len,
			      to_sge ? IB_ACCESS_LOCAL_WRITE : 0,
			      mroce_sge_copy_piece, &c);
}

void mroce_skb_drop_frags(struct sk_buff *skb, unsigned int nr)
{
	struct skb_shared_info *shi = skb_shinfo(skb);

	while (shi->nr_frags > nr) {
		unsigned int n = skb_frag_size(&shi->frags[shi->nr_frags - 1]);

		skb->len -= n;
		skb->data_len -= n;
		skb->truesize -= n;
		skb_frag_unref(skb, shi->nr_frags - 1);
		shi->nr_frags--;
	}
}

static int mroce_sge_frag_piece(struct mroce_mr *mr, u64 iova, u64 n,
				void *arg)
{
	return mroce_mr_frags(mr, iova, arg, n);
}

int mroce_sge_frags(struct mroce_dev *mdev, struct ib_pd *pd,
		    const struct ib_sge *sge, int num_sge, u64 offset,
		    struct sk_buff *skb, u64 len)
{
	unsigned int nr = skb_shinfo(skb)->nr_frags;
	int err;

	err = mroce_sge_walk(mdev, pd, sge, num_sge, offset, len, 0,
			     mroce_sge_frag_piece, skb);
	if (err)
		mroce_skb_drop_frags(skb, nr);
	return err;
}
