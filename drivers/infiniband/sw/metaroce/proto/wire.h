/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Header codec: host-order representation of a MetaRoCE header and the
 * functions converting it to and from the wire (include/metaroce/wire.h).
 */
#ifndef MROCE_PROTO_WIRE_H
#define MROCE_PROTO_WIRE_H

#include "compat.h"
#include <metaroce/wire.h>

/* Why a received packet was dropped; indexes per-reason counters. */
enum mroce_drop_reason {
	MROCE_DROP_NONE,		/* accepted */
	MROCE_DROP_TRUNCATED,		/* shorter than its header */
	MROCE_DROP_BAD_VERSION,
	MROCE_DROP_BAD_OPCODE,
	MROCE_DROP_BAD_HDR_LEN,		/* hdr_words does not match opcode */
	MROCE_DROP_RSVD,		/* reserved field or bit not zero */
	MROCE_DROP_BAD_FLAGS,		/* flag combination invalid for opcode */
	MROCE_DROP_BAD_QPN,		/* QPN above 24 bits */
	MROCE_DROP_BAD_PAYLOAD_LEN,	/* payload too long or wrongly present */
	MROCE_DROP_BAD_LENGTH,		/* offset/length fields inconsistent */
	MROCE_DROP_BAD_SACK,		/* SACK base before cumulative ack */
	MROCE_DROP_BAD_SYNDROME,
	/* Set by the UDP receive path, never by mroce_hdr_decode(). */
	MROCE_DROP_UDP_CSUM,		/* IPv4 UDP checksum absent (zero) */
	MROCE_DROP_MAX
};

extern const char * const mroce_drop_reason_names[MROCE_DROP_MAX];

const char *mroce_drop_reason_name(enum mroce_drop_reason reason);

/*
 * Host-order header. Which union member is valid follows from opcode;
 * imm is valid for *_IMM opcodes and inv_rkey for SEND_INV.
 */
struct mroce_hdr {
	u8 version;
	u8 opcode;
	u16 flags;
	u16 path_id;
	u16 hdr_len;		/* bytes; output of encode and decode */
	u32 dqpn;
	u32 psn;
	u64 ts;
	u32 payload_len;	/* decode: bytes after the header */
	bool ip_ce;		/* set by the caller: IP ECN was CE */
	u32 imm;
	u32 inv_rkey;
	union {
		struct {		/* SEND, SEND_IMM, SEND_INV */
			u32 msn;
			u32 offset;
			u32 total_len;
		} send;
		struct {		/* WRITE, WRITE_IMM, READ_REQ */
			u64 va;
			u32 rkey;
			u32 dma_len;
			u32 msn;	/* READ_REQ only */
			u32 seg;	/* READ_REQ only; 0: path MTU */
		} reth;
		struct {		/* READ_RESP */
			u32 msn;
			u32 offset;
		} rresp;
		struct {		/* CMP_SWAP, FETCH_ADD */
			u64 va;
			u64 swap_add;
			u64 compare;
			u32 rkey;
			u32 msn;
		} atomic;
		struct {		/* ATOMIC_ACK */
			u64 orig;
			u32 msn;
		} aack;
		struct {		/* UD_SEND, UD_SEND_IMM */
			u32 sqpn;
			u32 qkey;
		} ud;
		struct {		/* ACK */
			u32 ack_psn;
			u32 sack_base;
			u8 sack[METAROCE_SACK_BYTES];
			u64 echo_ts;
			u16 echo_path;
			u16 ecn_ce;
			u32 rate_hint;
			u32 msn;
			u8 syndrome;
		} ack;
	};
};

/* Header length in bytes of opcode, or 0 if the opcode is unknown. */
int mroce_opcode_hdr_len(u8 opcode);

/*
 * Write h as a wire header into buf (len bytes available); the version and
 * header length are filled in. Returns the header length or -errno:
 * -EINVAL for an unknown opcode, reserved flags or an oversized QPN,
 * -ENOSPC if buf is too small. Payload is the caller's business.
 */
int mroce_hdr_encode(const struct mroce_hdr *h, void *buf, size_t len);

/*
 * Parse and validate the len bytes of a received UDP payload. Returns the
 * header length (payload starts there) or -errno, and always stores the
 * verdict in *reason if reason is non-NULL. Reads the header's bytes
 * only, never beyond len: a receive path may pass the whole length with
 * just the header flat in buf (the payload left in page fragments). On
 * failure *h is partly filled and only useful for diagnostics.
 */
int mroce_hdr_decode(struct mroce_hdr *h, const void *buf, size_t len,
		     enum mroce_drop_reason *reason);

/*
 * The port's active MTU in bytes on a netdev of ndev_mtu bytes: the largest
 * InfiniBand MTU (256 .. 4096) whose packet, under the outer headers and
 * the largest MetaRoCE header, fits the frame; 256 if none does.
 */
u32 mroce_port_mtu(u32 ndev_mtu);

/*
 * Payload bytes of a full data packet (section 6): what a frame of
 * ndev_mtu bytes carries under the largest data header, in whole
 * METAROCE_SEG_ALIGN units, when the connection's path MTU (bytes) is the
 * port's active MTU; the path MTU itself when the application chose a
 * smaller one. Never below the path MTU nor above METAROCE_MAX_PAYLOAD.
 */
u32 mroce_seg_len(u32 ndev_mtu, u32 path_mtu, u32 port_mtu);

#endif /* MROCE_PROTO_WIRE_H */
