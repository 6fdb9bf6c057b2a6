/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR Linux-OpenIB) */
/*
 * User/kernel ABI of the MetaRoCE software RDMA provider.
 *
 * Shared by rdma_metaroce.ko and libmetaroce (rdma-core provider).
 * Every struct here is appended to the matching ib_uverbs command or
 * response as the driver-specific part, so sizes and layouts are ABI.
 */
#ifndef METAROCE_ABI_USER_H
#define METAROCE_ABI_USER_H

#include <linux/types.h>

/* Bumped on any incompatible change; the provider refuses other values. */
#define METAROCE_UVERBS_ABI_VERSION	1

/* Value of the ib_device's sysfs "hca_type" file; the provider matches on it. */
#define METAROCE_HCA_TYPE		"MetaRoCE"

/* Driver part of the alloc_ucontext response. */
struct metaroce_alloc_ucontext_resp {
	__u32 abi_version;	/* METAROCE_UVERBS_ABI_VERSION */
	__u32 wire_version;	/* METAROCE_WIRE_VERSION the kernel speaks */
	__u32 max_paths;	/* paths a connection may spray over */
	__u32 reserved;
};

#endif /* METAROCE_ABI_USER_H */
