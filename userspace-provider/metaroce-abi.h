/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Command and response wrappers for the MetaRoCE uverbs ABI.
 *
 * The driver-specific structs come from the kernel's uapi header
 * <rdma/metaroce-abi.h>; <kernel-abi/metaroce-abi.h> is generated from it at
 * build time (rdma-core's buildlib/make_abi_structs.py) so that each struct
 * can be embedded anonymously after the core uverbs struct.
 */
#ifndef METAROCE_PROVIDER_ABI_H
#define METAROCE_PROVIDER_ABI_H

#include <infiniband/kern-abi.h>
#include <rdma/metaroce-abi.h>
#include <kernel-abi/metaroce-abi.h>

DECLARE_DRV_CMD(umetaroce_alloc_ucontext, IB_USER_VERBS_CMD_GET_CONTEXT,
		empty, metaroce_alloc_ucontext_resp);
DECLARE_DRV_CMD(umetaroce_create_cq, IB_USER_VERBS_CMD_CREATE_CQ,
		empty, metaroce_create_cq_resp);
DECLARE_DRV_CMD(umetaroce_create_cq_ex, IB_USER_VERBS_EX_CMD_CREATE_CQ,
		empty, metaroce_create_cq_resp);
DECLARE_DRV_CMD(umetaroce_resize_cq, IB_USER_VERBS_CMD_RESIZE_CQ,
		empty, metaroce_resize_cq_resp);
DECLARE_DRV_CMD(umetaroce_create_qp, IB_USER_VERBS_CMD_CREATE_QP,
		metaroce_create_qp_cmd, metaroce_create_qp_resp);
DECLARE_DRV_CMD(umetaroce_create_ah, IB_USER_VERBS_CMD_CREATE_AH,
		empty, metaroce_create_ah_resp);
DECLARE_DRV_CMD(umetaroce_create_srq, IB_USER_VERBS_CMD_CREATE_SRQ,
		empty, metaroce_create_srq_resp);
DECLARE_DRV_CMD(umetaroce_modify_srq, IB_USER_VERBS_CMD_MODIFY_SRQ,
		metaroce_modify_srq_cmd, empty);

#endif /* METAROCE_PROVIDER_ABI_H */
