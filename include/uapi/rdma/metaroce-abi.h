/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR Linux-OpenIB) */
/*
 * User/kernel ABI of the MetaRoCE software RDMA provider.
 *
 * Shared by rdma_metaroce.ko and libmetaroce (rdma-core provider).
 * The *_resp structs are appended to the matching ib_uverbs response as
 * the driver-specific part; the queue structs describe memory that the
 * kernel and userspace share through mmap. Sizes and layouts are ABI.
 *
 * Shared queues. Every user CQ, the send and receive queue of every
 * user RC QP (and UD QP, if create_qp asks: METAROCE_CREATE_QP_F_UD_RINGS)
 * and every user SRQ is a ring in memory mapped from the kernel: a struct
 * metaroce_queue_hdr, then num_elems elements of elem_size bytes at
 * METAROCE_QUEUE_DATA_OFFSET. prod and cons run freely (they wrap at
 * 2^32) and an index is reduced modulo num_elems, a power of two, so
 * prod - cons is the number of elements queued and all of them are
 * usable. Each index has one writer, which publishes it with a release
 * store after writing the elements it covers; the reader loads it with
 * acquire:
 *   CQ:     the kernel writes CQEs and prod; userspace writes cons.
 *   SQ, RQ, SRQ: userspace writes WQEs and prod; the kernel writes cons.
 * The kernel copies each WQE once and validates the copy; it never trusts
 * a value read from the ring twice, nor a prod that claims more than
 * num_elems queued.
 *
 * Send queue: after publishing prod, userspace rings the doorbell, an
 * ib_uverbs post_send command with no work requests; the kernel then takes
 * every new WQE. Its cons counts WQEs that are finished, so a slot may be
 * written again once cons has passed it.
 * Receive queue: the kernel takes WQEs when a message needs one. While
 * METAROCE_QUEUE_F_DOORBELL is set in flags (the QP is in the error state
 * and receives are flushed at once), userspace also rings the post_recv
 * doorbell (post_recv with no work requests) after publishing prod.
 * Shared receive queue: there is no doorbell at all. A QP on the SRQ
 * takes WQEs when a message needs one; cons counts WQEs taken, so a slot
 * may be written again once cons has passed it. A QP on a ring SRQ has no
 * receive ring (num_elems 0). A WQE that does not validate is taken with
 * no SGE (its message fails with a length error unless it is empty); a
 * prod more than num_elems ahead of cons breaks the SRQ for good
 * (IB_EVENT_SRQ_ERR; it gives no more WQEs). ibv_modify_srq(IBV_SRQ_MAX_WR)
 * moves the queued WQEs to a new ring, same indices, and writes where it
 * is to the address in struct metaroce_modify_srq_cmd; the old ring is
 * then dead and is unmapped.
 */
#ifndef METAROCE_ABI_USER_H
#define METAROCE_ABI_USER_H

#include <linux/types.h>

/* Bumped on any incompatible change; the provider refuses other values. */
#define METAROCE_UVERBS_ABI_VERSION	2

/* Value of the ib_device's sysfs "hca_type" file; the provider matches on it. */
#define METAROCE_HCA_TYPE		"MetaRoCE"

#define METAROCE_MAX_SGE		16	/* per WQE */
#define METAROCE_MAX_INLINE		256	/* bytes of inline send data */

/* Driver part of the alloc_ucontext response. */
struct metaroce_alloc_ucontext_resp {
	__u32 abi_version;	/* METAROCE_UVERBS_ABI_VERSION */
	__u32 wire_version;	/* METAROCE_WIRE_VERSION the kernel speaks */
	__u32 max_paths;	/* paths a connection may spray over */
	__u32 reserved;
};

/* Head of a shared queue; each field on a cache line of its own. */
struct metaroce_queue_hdr {
	__u32 prod;
	__u32 pad_prod[15];
	__u32 cons;
	__u32 pad_cons[15];
	__u32 elem_size;	/* bytes per element, set by the kernel */
	__u32 num_elems;	/* power of two, set by the kernel */
	__u32 flags;		/* METAROCE_QUEUE_F_*, written by the kernel */
	__u32 pad_info[13];
};

#define METAROCE_QUEUE_DATA_OFFSET	192	/* sizeof(struct metaroce_queue_hdr) */
#define METAROCE_QUEUE_F_DOORBELL	(1U << 0)	/* RQ: ring post_recv */

/* Where one shared queue is: mmap(size bytes) of the uverbs fd at offset. */
struct metaroce_queue_info {
	__aligned_u64 mmap_offset;
	__aligned_u64 mmap_size;
	__u32 num_elems;	/* 0: no shared queue, use the uverbs commands */
	__u32 elem_size;
};

/* Driver part of the create_cq (and create_cq_ex) and resize_cq responses. */
struct metaroce_create_cq_resp {
	struct metaroce_queue_info cq;
};

struct metaroce_resize_cq_resp {
	struct metaroce_queue_info cq;
};

/* Driver part of the create_qp command. */
struct metaroce_create_qp_cmd {
	__u32 flags;		/* METAROCE_CREATE_QP_F_* */
	__u32 reserved;
};

/* UD QPs get rings too: the provider names AHs by number in send WQEs. */
#define METAROCE_CREATE_QP_F_UD_RINGS	(1U << 0)

/*
 * Driver part of the create_qp response. UD QPs get queues only with
 * METAROCE_CREATE_QP_F_UD_RINGS; a QP on a ring SRQ has no receive queue.
 */
struct metaroce_create_qp_resp {
	struct metaroce_queue_info sq;
	struct metaroce_queue_info rq;
};

/* Driver part of the create_ah response. */
struct metaroce_create_ah_resp {
	__u32 ah_num;		/* names the AH in UD send WQEs; never 0 */
	__u32 reserved;
};

/* Driver part of the create_srq response. */
struct metaroce_create_srq_resp {
	struct metaroce_queue_info srq;
};

/*
 * Driver part of the modify_srq command of a ring SRQ: with IB_SRQ_MAX_WR,
 * the kernel writes the struct metaroce_queue_info of the new ring to
 * this user address.
 */
struct metaroce_modify_srq_cmd {
	__aligned_u64 queue_info_addr;
};

struct metaroce_sge {
	__aligned_u64 addr;
	__u32 length;
	__u32 lkey;
};

/*
 * Send WQE. opcode is an enum ib_uverbs_wr_opcode value (UD: SEND and
 * SEND_WITH_IMM only, at most the path MTU long; RC: SEND, SEND_WITH_IMM,
 * SEND_WITH_INV, RDMA_WRITE, RDMA_WRITE_WITH_IMM, RDMA_READ,
 * ATOMIC_CMP_AND_SWP, ATOMIC_FETCH_AND_ADD, LOCAL_INV, BIND_MW); send_flags
 * are IB_SEND_FENCE, _SIGNALED, _SOLICITED and _INLINE (ibv_send_flags).
 * With IB_SEND_INLINE, inline_len bytes of data are in inline_data and
 * num_sge is ignored; otherwise num_sge entries of sge are used.
 * BIND_MW (a type 2 window's bind, or the bind ibv_bind_mw posts for a
 * type 1 window) uses bind_mw only, not sge or inline data: it is a later
 * member of the union, so the WQE's size and layout, and ABI version 2,
 * are unchanged; a kernel without memory windows fails the WQE.
 */
/* A memory window bind, in the union of struct metaroce_send_wqe. */
struct metaroce_bind_mw {
	__aligned_u64 addr;	/* window start, an address of the MR */
	__aligned_u64 length;	/* bytes; 0 unbinds a type 1 window */
	__u32 mw_rkey;		/* names the window (its index counts) */
	__u32 rkey;		/* its rkey once bound: same index, new key byte */
	__u32 mr_lkey;		/* the MR, registered with IB_ACCESS_MW_BIND */
	__u32 access;		/* IB_ACCESS_REMOTE_* and IB_ZERO_BASED */
};

struct metaroce_send_wqe {
	__aligned_u64 wr_id;
	__u32 opcode;
	__u32 send_flags;
	__u32 num_sge;
	__u32 inline_len;
	__u32 imm_data;		/* big endian immediate, or rkey to invalidate */
	__u32 rkey;
	__aligned_u64 remote_addr;
	__aligned_u64 compare_add;
	__aligned_u64 swap;
	__u32 ah_num;		/* UD: the AH, of the QP's PD, from create_ah */
	__u32 remote_qpn;
	__u32 remote_qkey;
	__u32 reserved;
	union {
		struct metaroce_sge sge[METAROCE_MAX_SGE];
		__u8 inline_data[METAROCE_MAX_INLINE];
		struct metaroce_bind_mw bind_mw;	/* opcode BIND_MW */
	};
};

struct metaroce_recv_wqe {
	__aligned_u64 wr_id;
	__u32 num_sge;
	__u32 reserved;
	struct metaroce_sge sge[METAROCE_MAX_SGE];
};

/*
 * Completion. status and opcode are enum ibv_wc_status / ibv_wc_opcode
 * values (which equal the kernel's ib_wc ones); wc_flags are ibv_wc_flags
 * bits: METAROCE_WC_F_*.
 */
struct metaroce_cqe {
	__aligned_u64 wr_id;
	__u32 status;
	__u32 opcode;
	__u32 vendor_err;
	__u32 byte_len;
	__u32 imm_data;		/* big endian immediate, or invalidated rkey */
	__u32 qp_num;
	__u32 src_qp;
	__u32 wc_flags;
	__u16 pkey_index;
	__u16 slid;
	__u8 sl;
	__u8 dlid_path_bits;
	__u8 reserved[2];
};

#define METAROCE_WC_F_GRH		(1U << 0)	/* IBV_WC_GRH */
#define METAROCE_WC_F_WITH_IMM		(1U << 1)	/* IBV_WC_WITH_IMM */
#define METAROCE_WC_F_WITH_INV		(1U << 3)	/* IBV_WC_WITH_INV */

#endif /* METAROCE_ABI_USER_H */
