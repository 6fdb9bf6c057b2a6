// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * MetaRoCE address handles. An AH is the GRH of a RoCEv2-style address
 * vector: the source GID's address (from its gid_attr) and the destination
 * GID, both IPv4-mapped or both IPv6, which UD sends use as the outer IP
 * addresses, as qp.c does for RC paths. Link-layer addressing is left to
 * the IP stack.
 *
 * create_ah may be called in atomic context (RDMA_CREATE_AH_SLEEPABLE
 * unset): nothing here sleeps.
 */

#include <linux/xarray.h>
#include <net/ipv6.h>
#include <rdma/ib_verbs.h>
#include <rdma/metaroce-abi.h>
#include "metaroce.h"
#include "ah.h"

/*
 * User AHs by number (never 0): UD send WQEs in a ring name their AH so
 * (uqp.c). Lookups copy the address under the xarray lock, so an AH being
 * destroyed is either found whole or not at all. They run under qp->lock,
 * which softirqs take, so the xarray lock is taken with BHs off always.
 */
static DEFINE_XARRAY_FLAGS(mroce_uah_xa, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_BH);

int mroce_ah_load_av(struct ib_pd *pd, u32 num, struct mroce_av *av)
{
	struct mroce_ah *ah;
	int err = -EINVAL;

	xa_lock_bh(&mroce_uah_xa);
	ah = xa_load(&mroce_uah_xa, num);
	if (ah && ah->ibah.pd == pd) {
		*av = ah->av;
		err = 0;
	}
	xa_unlock_bh(&mroce_uah_xa);
	return err;
}

/* A number for a user AH, told to a provider that asks for it. */
static int mroce_ah_number(struct mroce_ah *ah, u32 flags,
			   struct ib_udata *udata)
{
	struct metaroce_create_ah_resp resp = {};
	int err;

	if (udata->outlen < sizeof(resp))
		return 0;
	err = xa_alloc_bh(&mroce_uah_xa, &ah->num, ah, xa_limit_32b,
			  flags & RDMA_CREATE_AH_SLEEPABLE ? GFP_KERNEL :
			  GFP_ATOMIC);
	if (err)
		return err;
	resp.ah_num = ah->num;
	err = ib_copy_to_udata(udata, &resp, sizeof(resp));
	if (err) {
		xa_erase_bh(&mroce_uah_xa, ah->num);
		ah->num = 0;
	}
	return err;
}

static int mroce_create_ah(struct ib_ah *ibah,
			   struct rdma_ah_init_attr *init_attr,
			   struct ib_udata *udata)
{
	const struct rdma_ah_attr *attr = init_attr->ah_attr;
	const struct ib_global_route *grh = rdma_ah_read_grh(attr);
	struct mroce_dev *mdev = to_mdev(ibah->device);
	struct mroce_ah *ah = to_mah(ibah);
	struct mroce_av *av = &ah->av;
	int err;

	if (attr->type != RDMA_AH_ATTR_TYPE_ROCE ||
	    !(rdma_ah_get_ah_flags(attr) & IB_AH_GRH) || !grh->sgid_attr) {
		ibdev_dbg(ibah->device, "create_ah: not a RoCE address with GRH\n");
		return -EINVAL;
	}
	av->saddr = *(const struct in6_addr *)grh->sgid_attr->gid.raw;
	av->daddr = *(const struct in6_addr *)grh->dgid.raw;
	av->is_v4 = ipv6_addr_v4mapped(&av->saddr);
	if (av->is_v4 != ipv6_addr_v4mapped(&av->daddr)) {
		ibdev_dbg(ibah->device, "create_ah: mixed IPv4/IPv6 GIDs\n");
		return -EINVAL;
	}
	av->tclass = grh->traffic_class;
	av->hop_limit = grh->hop_limit ?: 64;
	av->flow_label = grh->flow_label;

	ah->dgid = grh->dgid;
	ah->sgid_index = grh->sgid_index;
	ah->sl = rdma_ah_get_sl(attr);
	memcpy(ah->dmac, attr->roce.dmac, ETH_ALEN);

	if (atomic_inc_return(&mdev->ah_count) > mdev->ibdev.attrs.max_ah) {
		atomic_dec(&mdev->ah_count);
		return -ENOMEM;
	}
	if (udata) {
		err = mroce_ah_number(ah, init_attr->flags, udata);
		if (err) {
			atomic_dec(&mdev->ah_count);
			return err;
		}
	}
	return 0;
}

static int mroce_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr)
{
	struct mroce_ah *ah = to_mah(ibah);

	memset(attr, 0, sizeof(*attr));
	attr->type = ibah->type;
	rdma_ah_set_port_num(attr, 1);
	rdma_ah_set_sl(attr, ah->sl);
	rdma_ah_set_grh(attr, &ah->dgid, ah->av.flow_label, ah->sgid_index,
			ah->av.hop_limit, ah->av.tclass);
	memcpy(attr->roce.dmac, ah->dmac, ETH_ALEN);
	return 0;
}

static int mroce_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	struct mroce_ah *ah = to_mah(ibah);

	if (ah->num)
		xa_erase_bh(&mroce_uah_xa, ah->num);
	atomic_dec(&to_mdev(ibah->device)->ah_count);
	return 0;
}

const struct ib_device_ops mroce_ah_ops = {
	.create_ah = mroce_create_ah,
	.create_user_ah = mroce_create_ah,
	.destroy_ah = mroce_destroy_ah,
	.query_ah = mroce_query_ah,

	INIT_RDMA_OBJ_SIZE(ib_ah, mroce_ah, ibah),
};
