/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * MetaRoCE address handles: where a UD datagram goes.
 */
#ifndef METAROCE_AH_H
#define METAROCE_AH_H

#include <linux/if_ether.h>
#include <linux/in6.h>
#include <rdma/ib_verbs.h>

/* The IP addressing of one destination, as the GIDs give it. */
struct mroce_av {
	struct in6_addr saddr;		/* v4 addresses are v4-mapped */
	struct in6_addr daddr;
	bool is_v4;
	u8 tclass;
	u8 hop_limit;
	u32 flow_label;			/* 0: derive the UDP sport from QPNs */
};

struct mroce_ah {
	struct ib_ah ibah;
	struct mroce_av av;
	/* What query_ah reports back. */
	union ib_gid dgid;
	u8 sgid_index;
	u8 sl;
	u8 dmac[ETH_ALEN];
	u32 num;			/* user AHs: the number UD WQEs name */
};

static inline struct mroce_ah *to_mah(struct ib_ah *ibah)
{
	return container_of(ibah, struct mroce_ah, ibah);
}

/* The address of user AH @num of @pd, copied into @av; -EINVAL if none. */
int mroce_ah_load_av(struct ib_pd *pd, u32 num, struct mroce_av *av);

#endif /* METAROCE_AH_H */
