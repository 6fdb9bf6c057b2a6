// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * MetaRoCE protection domains: nothing but an identity for the core to
 * check objects against.
 */

#include <rdma/ib_verbs.h>
#include "metaroce.h"

static int mroce_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	return 0;
}

static int mroce_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	return 0;
}

const struct ib_device_ops mroce_pd_ops = {
	.alloc_pd = mroce_alloc_pd,
	.dealloc_pd = mroce_dealloc_pd,

	INIT_RDMA_OBJ_SIZE(ib_pd, mroce_pd, ibpd),
};
