/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR Linux-OpenIB) */
/*
 * MetaRoCE wire format, version 1.
 *
 * The single definition of every on-the-wire structure, shared by the
 * kernel module, KUnit tests, userspace tools, fuzzer and simulator.
 * Documentation/protocol.rst is the normative description; keep both in
 * sync.
 *
 * All multi-byte fields are big-endian. Every struct is packed and its
 * fields are naturally aligned relative to the start of the MetaRoCE
 * header, so the layout is identical on every ABI; the static asserts at
 * the end pin it. Packets reach the receiver at arbitrary alignment
 * (after a 42-byte Ethernet/IPv4/UDP prefix), which is why the structs
 * are packed (alignment 1): the compiler then never assumes alignment.
 */
#ifndef METAROCE_WIRE_H
#define METAROCE_WIRE_H

#include <linux/types.h>
#ifdef __KERNEL__
#include <linux/build_bug.h>
#elif !defined(__cplusplus)
#include <assert.h>	/* static_assert */
#endif

#define METAROCE_WIRE_VERSION		1
/* Configurable; must never be 4791 (RoCEv2), to keep the two apart. */
#define METAROCE_UDP_PORT_DEFAULT	4792
#define METAROCE_SACK_BITS		256
#define METAROCE_SACK_BYTES		(METAROCE_SACK_BITS / 8)
/*
 * PSNs a sender may have outstanding from the peer's ack_psn, and so PSNs a
 * receiver tracks: wider than one SACK bitmap, so that repairing a hole
 * (about two RTTs) does not stop a sender whose window is one RTT of data.
 */
#define METAROCE_PSN_WINDOW		2048
/* Header lengths are carried in 4-byte words. */
#define METAROCE_HDR_WORD		4
/* Largest data payload of one packet: an 8 KiB MTU fits a 9000-byte frame. */
#define METAROCE_MAX_PAYLOAD		8192
/* Largest message (Send, Write, Read) as in InfiniBand. */
#define METAROCE_MAX_MSG_LEN		0x80000000U
/* QPNs are 24 bits; the top byte of the dqpn field is reserved. */
#define METAROCE_QPN_MASK		0x00ffffffU
/* QP1 (GSI) carries rdma_cm MADs as UD. */
#define METAROCE_QPN_GSI		1
#define METAROCE_GSI_QKEY		0x80010000U

/*
 * Opcodes. The opcode alone fixes which extension headers follow the base
 * header, in the order listed.
 */
enum metaroce_opcode {
	METAROCE_OP_INVALID		= 0x00,	/* never sent */
	METAROCE_OP_SEND		= 0x01,	/* SETH */
	METAROCE_OP_SEND_IMM		= 0x02,	/* SETH, IMMDT; LAST only */
	METAROCE_OP_SEND_INV		= 0x03,	/* SETH, IETH; LAST only */
	METAROCE_OP_WRITE		= 0x04,	/* RETH */
	METAROCE_OP_WRITE_IMM		= 0x05,	/* RETH, IMMDT; LAST only */
	METAROCE_OP_READ_REQ		= 0x06,	/* RREQETH */
	METAROCE_OP_READ_RESP		= 0x07,	/* RRESPETH */
	METAROCE_OP_CMP_SWAP		= 0x08,	/* ATOMICETH */
	METAROCE_OP_FETCH_ADD		= 0x09,	/* ATOMICETH */
	METAROCE_OP_ATOMIC_ACK		= 0x0a,	/* ATOMICACKETH */
	METAROCE_OP_ACK			= 0x0b,	/* AETH (ACK, NAK or RNR NAK) */
	METAROCE_OP_UD_SEND		= 0x0c,	/* DETH */
	METAROCE_OP_UD_SEND_IMM		= 0x0d,	/* DETH, IMMDT */
	METAROCE_OP_MAX			= 0x0d,
};

/* Base header flag bits (bhdr.flags). All others are reserved, sent 0. */
#define METAROCE_F_ACKREQ	0x0001	/* receiver should ACK promptly */
#define METAROCE_F_FIRST	0x0002	/* first packet of a message */
#define METAROCE_F_LAST		0x0004	/* last packet of a message */
#define METAROCE_F_SOLICITED	0x0008	/* solicited event on completion */
#define METAROCE_F_ECNCAP	0x0010	/* sender wants CE marks echoed */
#define METAROCE_F_RETX		0x0020	/* retransmission of this PSN */
#define METAROCE_F_ALL		0x003f

/*
 * pragma pack rather than __packed: the kernel-only spelling does not
 * exist in userspace, and this form is understood by every compiler.
 */
#pragma pack(push, 1)

/* Base header: starts every packet, right after the UDP header. */
struct metaroce_bhdr {
	__u8	version;	/* METAROCE_WIRE_VERSION */
	__u8	opcode;		/* enum metaroce_opcode */
	__be16	flags;		/* METAROCE_F_* */
	__u8	hdr_words;	/* base + extension length in 4-byte words */
	__u8	rsvd;		/* 0 */
	__be16	path_id;	/* sender's path index (selects UDP sport) */
	__be32	dqpn;		/* destination QPN, bits 31..24 reserved 0 */
	__be32	psn;		/* packet sequence number, wraps at 2^32 */
	__be64	ts;		/* sender clock, ns, echoed in ACKs for RTT */
};

/*
 * SETH: every packet of a Send. msn is the receive message sequence
 * number: it counts SEND* and WRITE_IMM messages, i.e. the receive WQE the
 * message consumes, so a packet can be placed before earlier ones arrive.
 */
struct metaroce_seth {
	__be32	msn;
	__be32	offset;		/* byte offset of this payload in the message */
	__be32	total_len;	/* message length in bytes */
};

/* RETH: every packet of a Write. va addresses this packet's payload. */
struct metaroce_reth {
	__be64	va;
	__be32	rkey;
	__be32	dma_len;	/* length of the whole Write message */
};

/*
 * RREQETH: Read request. msn is the read/atomic sequence number: it counts
 * READ_REQ and atomic requests and names the request in its responses.
 */
struct metaroce_rreqeth {
	__be64	va;
	__be32	rkey;
	__be32	dma_len;	/* bytes to read */
	__be32	msn;
	__be32	seg;		/* response payload bytes; 0: the path MTU */
};

/* RRESPETH: every Read response packet. */
struct metaroce_rrespeth {
	__be32	msn;		/* rreqeth.msn of the request answered */
	__be32	offset;		/* byte offset of this payload in the read */
};

/* ATOMICETH: CMP_SWAP and FETCH_ADD requests (8-byte operands). */
struct metaroce_atomiceth {
	__be64	va;		/* 8-byte aligned target */
	__be64	swap_add;	/* swap value or addend */
	__be64	compare;	/* CMP_SWAP only; 0 for FETCH_ADD */
	__be32	rkey;
	__be32	msn;		/* read/atomic sequence number */
};

/* ATOMICACKETH: result of an atomic request. */
struct metaroce_atomicacketh {
	__be64	orig;		/* value at va before the operation */
	__be32	msn;		/* atomiceth.msn of the request answered */
	__be32	rsvd;		/* 0 */
};

/* IMMDT: immediate data, opaque to the transport. */
struct metaroce_immdt {
	__be32	imm;
};

/* IETH: rkey to invalidate at the responder (SEND_INV). */
struct metaroce_ieth {
	__be32	rkey;
};

/* DETH: UD datagrams. */
struct metaroce_deth {
	__be32	sqpn;		/* source QPN, bits 31..24 reserved 0 */
	__be32	qkey;
};

/* AETH syndrome: class in bits 7..5, value in bits 4..0. */
#define METAROCE_SYN_CLASS_SHIFT	5
#define METAROCE_SYN_CLASS_MASK		0xe0
#define METAROCE_SYN_VALUE_MASK		0x1f
#define METAROCE_SYN_ACK		0x00	/* value reserved, 0 */
#define METAROCE_SYN_RNR		0x20	/* value: RNR timer code */
#define METAROCE_SYN_NAK		0x60	/* value: METAROCE_NAK_* */

enum metaroce_nak_code {
	METAROCE_NAK_PSN_SEQ	= 0,	/* sequence error (hole too old) */
	METAROCE_NAK_INV_REQ	= 1,	/* invalid request */
	METAROCE_NAK_REM_ACCESS	= 2,	/* remote access error */
	METAROCE_NAK_REM_OP	= 3,	/* remote operational error */
	METAROCE_NAK_MAX	= 3,
};

/* Rate hint special values; others count METAROCE_RATE_UNIT_BPS bit/s
 * (kbit/s) of UDP payload.
 */
#define METAROCE_RATE_NONE	0		/* receiver offers no hint */
#define METAROCE_RATE_UNLIMITED	0xffffffffU
#define METAROCE_RATE_UNIT_BPS	1000
/* aeth.echo_path of an ACK that answers no packet (echo_ts 0). */
#define METAROCE_ECHO_NONE	0xffff

/*
 * AETH: ACK/NAK. PSNs before ack_psn were all received; bit i of sack
 * (byte i / 8, mask 1 << (i % 8)) set means PSN sack_base + i was received.
 * sack_base is never before ack_psn.
 */
struct metaroce_aeth {
	__be32	ack_psn;	/* cumulative: next PSN expected in order */
	__be32	sack_base;	/* PSN of sack bit 0 */
	__u8	sack[METAROCE_SACK_BYTES];
	__be64	echo_ts;	/* bhdr.ts of the packet that triggered this */
	__be16	echo_path;	/* bhdr.path_id of that packet */
	__be16	ecn_ce;		/* CE-marked packets on echo_path since last ACK */
	__be32	rate_hint;	/* fair-share rate, kbit/s; METAROCE_RATE_* */
	__be32	msn;		/* receive msn expected next (RNR: the blocked one) */
	__u8	syndrome;	/* METAROCE_SYN_* | value */
	__u8	rsvd[3];	/* 0 */
};

#pragma pack(pop)

#define METAROCE_BHDR_LEN	((int)sizeof(struct metaroce_bhdr))
#define METAROCE_HLEN_SEND	(METAROCE_BHDR_LEN + 12)
#define METAROCE_HLEN_SEND_IMM	(METAROCE_HLEN_SEND + 4)
#define METAROCE_HLEN_SEND_INV	(METAROCE_HLEN_SEND + 4)
#define METAROCE_HLEN_WRITE	(METAROCE_BHDR_LEN + 16)
#define METAROCE_HLEN_WRITE_IMM	(METAROCE_HLEN_WRITE + 4)
#define METAROCE_HLEN_READ_REQ	(METAROCE_BHDR_LEN + 24)
#define METAROCE_HLEN_READ_RESP	(METAROCE_BHDR_LEN + 8)
#define METAROCE_HLEN_ATOMIC	(METAROCE_BHDR_LEN + 32)
#define METAROCE_HLEN_ATOMIC_ACK (METAROCE_BHDR_LEN + 16)
#define METAROCE_HLEN_ACK	(METAROCE_BHDR_LEN + 64)
#define METAROCE_HLEN_UD	(METAROCE_BHDR_LEN + 8)
#define METAROCE_HLEN_UD_IMM	(METAROCE_HLEN_UD + 4)
#define METAROCE_MAX_HDR_LEN	METAROCE_HLEN_ACK
/* Largest header of a packet carrying Write or Send data. */
#define METAROCE_MAX_DATA_HDR_LEN METAROCE_HLEN_WRITE_IMM
/* Outer IPv6 and UDP headers: what the encapsulation adds at most. */
#define METAROCE_ENCAP_LEN	(40 + 8)
/* Segments are whole multiples of this (section 6)... */
#define METAROCE_SEG_ALIGN	64
/* ... and no smaller than InfiniBand's smallest MTU. */
#define METAROCE_MIN_SEG	256

static_assert(sizeof(struct metaroce_bhdr) == 24, "bhdr size");
static_assert(sizeof(struct metaroce_seth) == 12, "seth size");
static_assert(sizeof(struct metaroce_reth) == 16, "reth size");
static_assert(sizeof(struct metaroce_rreqeth) == 24, "rreqeth size");
static_assert(sizeof(struct metaroce_rrespeth) == 8, "rrespeth size");
static_assert(sizeof(struct metaroce_atomiceth) == 32, "atomiceth size");
static_assert(sizeof(struct metaroce_atomicacketh) == 16,
	      "atomicacketh size");
static_assert(sizeof(struct metaroce_immdt) == 4, "immdt size");
static_assert(sizeof(struct metaroce_ieth) == 4, "ieth size");
static_assert(sizeof(struct metaroce_deth) == 8, "deth size");
static_assert(sizeof(struct metaroce_aeth) == 64, "aeth size");
static_assert(METAROCE_MAX_HDR_LEN % METAROCE_HDR_WORD == 0,
	      "header lengths are whole words");
static_assert(__builtin_offsetof(struct metaroce_bhdr, ts) == 16,
	      "bhdr.ts offset");
static_assert(__builtin_offsetof(struct metaroce_aeth, echo_ts) == 40,
	      "aeth.echo_ts offset");
static_assert(__builtin_offsetof(struct metaroce_aeth, syndrome) == 60,
	      "aeth.syndrome offset");

#endif /* METAROCE_WIRE_H */
