/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * MetaRoCE protocol test cases, shared by the KUnit module and the host
 * test program (tests/host) so both run the very same checks.
 *
 * The includer provides, before including this file:
 *   struct mt                      test context
 *   MT_CHECK(t, cond)              record a pass or a failure
 *   mt_log(t, fmt, ...)            print a diagnostic line
 *   void *mt_alloc(size_t len)     allocation of exactly len bytes, so an
 *   void mt_free(void *p)          over-read is caught (ASan / KASAN)
 */
#ifndef MROCE_PROTO_CASES_H
#define MROCE_PROTO_CASES_H

#include "proto/wire.h"

static const u8 all_ops[] = {
	METAROCE_OP_SEND, METAROCE_OP_SEND_IMM, METAROCE_OP_SEND_INV,
	METAROCE_OP_WRITE, METAROCE_OP_WRITE_IMM, METAROCE_OP_READ_REQ,
	METAROCE_OP_READ_RESP, METAROCE_OP_CMP_SWAP, METAROCE_OP_FETCH_ADD,
	METAROCE_OP_ATOMIC_ACK, METAROCE_OP_ACK, METAROCE_OP_UD_SEND,
	METAROCE_OP_UD_SEND_IMM,
};

/* A valid header of each opcode with distinctive field values; returns
 * the payload length that goes with it.
 */
static u32 sample_hdr(struct mroce_hdr *h, u8 op)
{
	u32 pl = 0;

	memset(h, 0, sizeof(*h));
	h->opcode = op;
	h->path_id = 0xa55a;
	h->dqpn = 0x123456;
	h->psn = 0xfffffff0;
	h->ts = 0x0102030405060708ULL;
	switch (op) {
	case METAROCE_OP_SEND:
	case METAROCE_OP_SEND_IMM:
	case METAROCE_OP_SEND_INV:
		h->flags = METAROCE_F_LAST | METAROCE_F_SOLICITED |
			   METAROCE_F_ACKREQ | METAROCE_F_ECNCAP;
		h->send.msn = 0x89abcdef;
		h->send.offset = 4096;
		h->send.total_len = 4096 + 1000;
		h->imm = op == METAROCE_OP_SEND_IMM ? 0xdeadbeef : 0;
		h->inv_rkey = op == METAROCE_OP_SEND_INV ? 0xcafef00d : 0;
		pl = 1000;
		break;
	case METAROCE_OP_WRITE:
	case METAROCE_OP_WRITE_IMM:
		h->flags = METAROCE_F_FIRST | METAROCE_F_RETX;
		if (op == METAROCE_OP_WRITE_IMM) {
			h->flags = METAROCE_F_LAST | METAROCE_F_SOLICITED;
			h->imm = 0x11223344;
		}
		h->reth.va = 0xffff888812345000ULL;
		h->reth.rkey = 0x00abcdef;
		h->reth.dma_len = 1 << 20;
		pl = METAROCE_MAX_PAYLOAD;
		break;
	case METAROCE_OP_READ_REQ:
		h->flags = METAROCE_F_FIRST | METAROCE_F_LAST;
		h->reth.va = 0x7f0000001000ULL;
		h->reth.rkey = 0x42;
		h->reth.dma_len = METAROCE_MAX_MSG_LEN;
		h->reth.msn = 7;
		h->reth.seg = 1408;
		break;
	case METAROCE_OP_READ_RESP:
		h->flags = METAROCE_F_LAST;
		h->rresp.msn = 7;
		h->rresp.offset = 8192;
		pl = 17;
		break;
	case METAROCE_OP_CMP_SWAP:
	case METAROCE_OP_FETCH_ADD:
		h->flags = METAROCE_F_FIRST | METAROCE_F_LAST |
			   METAROCE_F_ACKREQ;
		h->atomic.va = 0x1000;
		h->atomic.swap_add = 0xfedcba9876543210ULL;
		if (op == METAROCE_OP_CMP_SWAP)
			h->atomic.compare = 0x0123456789abcdefULL;
		h->atomic.rkey = 0x99;
		h->atomic.msn = 8;
		break;
	case METAROCE_OP_ATOMIC_ACK:
		h->flags = METAROCE_F_FIRST | METAROCE_F_LAST;
		h->aack.orig = 0x0123456789abcdefULL;
		h->aack.msn = 8;
		break;
	case METAROCE_OP_ACK:
		h->flags = METAROCE_F_ECNCAP;
		h->ack.ack_psn = 0xfffffffe;
		h->ack.sack_base = 0xffffffff;
		h->ack.sack[0] = 0x81;
		h->ack.sack[31] = 0x80;
		h->ack.echo_ts = 0x1122334455667788ULL;
		h->ack.echo_path = 3;
		h->ack.ecn_ce = 2;
		h->ack.rate_hint = 100000;
		h->ack.msn = 5;
		h->ack.syndrome = METAROCE_SYN_NAK | METAROCE_NAK_REM_ACCESS;
		break;
	case METAROCE_OP_UD_SEND:
	case METAROCE_OP_UD_SEND_IMM:
		h->flags = METAROCE_F_FIRST | METAROCE_F_LAST;
		h->dqpn = METAROCE_QPN_GSI;
		h->ud.sqpn = 0xffffff;
		h->ud.qkey = METAROCE_GSI_QKEY;
		h->imm = op == METAROCE_OP_UD_SEND_IMM ? 0x5a5a5a5a : 0;
		pl = 256;
		break;
	}
	return pl;
}

/* Decode exactly len bytes from a private heap copy so ASan sees any
 * read past the end.
 */
static int decode_exact(struct mroce_hdr *h, const u8 *src, size_t len,
			enum mroce_drop_reason *why)
{
	u8 *p = mt_alloc(len);
	int ret;

	if (!p)
		return -ENOMEM;	/* why stays MROCE_DROP_MAX: a failure */
	memcpy(p, src, len);
	ret = mroce_hdr_decode(h, p, len, why);
	mt_free(p);
	return ret;
}

/* Decode a packet of hl + pl bytes of which only the hl header bytes are
 * in the (exact, private) buffer, as the receive path does when the
 * payload stays in page fragments; ASan sees any read of the payload.
 */
static int decode_hdr_only(struct mroce_hdr *h, const u8 *src, int hl, u32 pl)
{
	u8 *p = mt_alloc(hl);
	int ret;

	if (!p)
		return -ENOMEM;
	memcpy(p, src, hl);
	ret = mroce_hdr_decode(h, p, hl + pl, NULL);
	mt_free(p);
	return ret;
}

static u8 pkt[METAROCE_MAX_HDR_LEN + METAROCE_MAX_PAYLOAD + 64];

/* Build a valid packet of op into pkt; returns its total length. */
static size_t build(u8 op, struct mroce_hdr *h)
{
	u32 pl = sample_hdr(h, op);
	int hl = mroce_hdr_encode(h, pkt, sizeof(pkt));

	/* Samples are valid by construction; a bad one fails decoding. */
	if (hl < 0)
		return 0;
	memset(pkt + hl, 0xee, pl);
	return hl + pl;
}

static enum mroce_drop_reason verdict(size_t len)
{
	enum mroce_drop_reason why = MROCE_DROP_MAX;
	struct mroce_hdr d;

	decode_exact(&d, pkt, len, &why);
	return why;
}

static void test_roundtrip(struct mt *t)
{
	unsigned int i;

	for (i = 0; i < sizeof(all_ops); i++) {
		struct mroce_hdr h, d;
		enum mroce_drop_reason why = MROCE_DROP_MAX;
		u32 pl = sample_hdr(&h, all_ops[i]);
		int hl = mroce_hdr_encode(&h, pkt, sizeof(pkt));
		int ret;

		MT_CHECK(t, hl == mroce_opcode_hdr_len(all_ops[i]));
		MT_CHECK(t, hl > 0 && hl % METAROCE_HDR_WORD == 0 &&
			 hl <= METAROCE_MAX_HDR_LEN);
		ret = decode_exact(&d, pkt, hl + pl, &why);
		MT_CHECK(t, ret == hl);
		if (why != MROCE_DROP_NONE)
			mt_log(t, "op %u: %s", all_ops[i],
			       mroce_drop_reason_name(why));
		MT_CHECK(t, why == MROCE_DROP_NONE);
		MT_CHECK(t, d.version == METAROCE_WIRE_VERSION);
		MT_CHECK(t, d.hdr_len == hl);
		MT_CHECK(t, d.payload_len == pl);
		/* Decode fills exactly what encode consumed. */
		h.version = d.version;
		h.hdr_len = d.hdr_len;
		h.payload_len = d.payload_len;
		MT_CHECK(t, memcmp(&h, &d, sizeof(h)) == 0);
		/* The receive path flattens only the header (recv.c). */
		MT_CHECK(t, decode_hdr_only(&d, pkt, hl, pl) == hl &&
			 d.payload_len == pl);
		/* Too small a buffer is refused, not overrun. */
		MT_CHECK(t, mroce_hdr_encode(&h, pkt, hl - 1) == -ENOSPC);
	}
	/* Packed, so valid at any packet alignment (not asserted in wire.h
	 * because sparse ignores #pragma pack).
	 */
	MT_CHECK(t, __alignof__(struct metaroce_bhdr) == 1 &&
		 __alignof__(struct metaroce_aeth) == 1 &&
		 __alignof__(struct metaroce_atomiceth) == 1);
	/* Spot-check the wire bytes against protocol.rst. */
	{
		struct mroce_hdr h;

		sample_hdr(&h, METAROCE_OP_ACK);
		MT_CHECK(t, mroce_hdr_encode(&h, pkt, sizeof(pkt)) == 88);
		MT_CHECK(t, pkt[0] == 1 && pkt[1] == 0x0b && pkt[2] == 0 &&
			 pkt[3] == 0x10 && pkt[4] == 22 && pkt[6] == 0xa5 &&
			 pkt[7] == 0x5a && pkt[8] == 0 && pkt[9] == 0x12 &&
			 pkt[12] == 0xff && pkt[16] == 0x01 && pkt[23] == 0x08);
		MT_CHECK(t, pkt[24] == 0xff && pkt[27] == 0xfe &&
			 pkt[31] == 0xff && pkt[32] == 0x81 && pkt[63] == 0x80 && pkt[64] == 0x11 &&
			 pkt[73] == 3 && pkt[75] == 2 && pkt[84] == 0x62);
	}
}

/* The example packet of Documentation/protocol.rst, appendix A. */
static const u8 golden_send_imm[] = {
	0x01, 0x02, 0x00, 0x1c, 0x0a, 0x00, 0x00, 0x05,
	0x00, 0x00, 0x01, 0x23, 0x01, 0x02, 0x03, 0x04,
	0x00, 0x00, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55,
	0x00, 0x00, 0x00, 0x09, 0x00, 0x00, 0x10, 0x00,
	0x00, 0x00, 0x13, 0x88, 0xde, 0xad, 0xbe, 0xef,
};

static void test_golden(struct mt *t)
{
	enum mroce_drop_reason why;
	struct mroce_hdr h, d;
	int ret;

	memset(&h, 0, sizeof(h));
	h.opcode = METAROCE_OP_SEND_IMM;
	h.flags = METAROCE_F_LAST | METAROCE_F_SOLICITED | METAROCE_F_ECNCAP;
	h.path_id = 5;
	h.dqpn = 0x123;
	h.psn = 0x01020304;
	h.ts = 0x1122334455ULL;
	h.send.msn = 9;
	h.send.offset = 4096;
	h.send.total_len = 5000;
	h.imm = 0xdeadbeef;
	ret = mroce_hdr_encode(&h, pkt, sizeof(pkt));
	MT_CHECK(t, ret == sizeof(golden_send_imm));
	MT_CHECK(t, !memcmp(pkt, golden_send_imm, sizeof(golden_send_imm)));
	memset(pkt + sizeof(golden_send_imm), 0, 904);
	ret = decode_exact(&d, pkt, sizeof(golden_send_imm) + 904, &why);
	MT_CHECK(t, ret == sizeof(golden_send_imm) && why == MROCE_DROP_NONE);
	MT_CHECK(t, d.payload_len == 904 && d.imm == 0xdeadbeef &&
		 d.send.total_len == 5000 && d.psn == 0x01020304);
}

static void test_encode_rejects(struct mt *t)
{
	struct mroce_hdr h;

	sample_hdr(&h, METAROCE_OP_SEND);
	h.opcode = 0;
	MT_CHECK(t, mroce_hdr_encode(&h, pkt, sizeof(pkt)) == -EINVAL);
	h.opcode = METAROCE_OP_MAX + 1;
	MT_CHECK(t, mroce_hdr_encode(&h, pkt, sizeof(pkt)) == -EINVAL);
	sample_hdr(&h, METAROCE_OP_SEND);
	h.flags |= 0x8000;
	MT_CHECK(t, mroce_hdr_encode(&h, pkt, sizeof(pkt)) == -EINVAL);
	sample_hdr(&h, METAROCE_OP_SEND);
	h.dqpn = 0x1000000;
	MT_CHECK(t, mroce_hdr_encode(&h, pkt, sizeof(pkt)) == -EINVAL);
	sample_hdr(&h, METAROCE_OP_UD_SEND);
	h.ud.sqpn = 0x1000000;
	MT_CHECK(t, mroce_hdr_encode(&h, pkt, sizeof(pkt)) == -EINVAL);
}

static void test_truncation(struct mt *t)
{
	unsigned int i;
	size_t len;

	for (i = 0; i < sizeof(all_ops); i++) {
		struct mroce_hdr h;
		size_t full = build(all_ops[i], &h);

		for (len = 0; len < (size_t)mroce_opcode_hdr_len(all_ops[i]);
		     len++)
			MT_CHECK(t, verdict(len) == MROCE_DROP_TRUNCATED);
		/* Cutting payload is caught by the length rules instead. */
		MT_CHECK(t, verdict(full) == MROCE_DROP_NONE);
	}
}

static void test_base_rules(struct mt *t)
{
	struct mroce_hdr h;
	unsigned int v, bit;
	enum mroce_drop_reason want;
	size_t len;

	len = build(METAROCE_OP_SEND, &h);
	for (v = 0; v < 256; v++) {
		pkt[0] = v;
		want = v == METAROCE_WIRE_VERSION ? MROCE_DROP_NONE :
						    MROCE_DROP_BAD_VERSION;
		MT_CHECK(t, verdict(len) == want);
	}
	pkt[0] = METAROCE_WIRE_VERSION;
	{
		enum mroce_drop_reason why;
		struct mroce_hdr d;

		pkt[0] = 2;
		MT_CHECK(t, decode_exact(&d, pkt, len, &why) == -EPROTONOSUPPORT);
		pkt[0] = METAROCE_WIRE_VERSION;
		pkt[5] = 1;
		MT_CHECK(t, decode_exact(&d, pkt, len, &why) == -EBADMSG);
		MT_CHECK(t, why == MROCE_DROP_RSVD);
		MT_CHECK(t, decode_exact(&d, pkt, len, NULL) == -EBADMSG);
		pkt[5] = 0;
	}
	for (v = 0; v < 256; v++) {
		len = build(METAROCE_OP_ACK, &h);
		pkt[1] = v;
		if (v == 0 || v > METAROCE_OP_MAX)
			MT_CHECK(t, verdict(len) == MROCE_DROP_BAD_OPCODE);
		else if (mroce_opcode_hdr_len(v) != METAROCE_HLEN_ACK)
			MT_CHECK(t, verdict(len) == MROCE_DROP_BAD_HDR_LEN);
	}
	for (v = 0; v < 256; v++) {
		len = build(METAROCE_OP_SEND, &h);
		pkt[4] = v;
		if (v * 4 != METAROCE_HLEN_SEND)
			MT_CHECK(t, verdict(len) == MROCE_DROP_BAD_HDR_LEN);
	}
	for (bit = 0; bit < 16; bit++) {
		len = build(METAROCE_OP_WRITE, &h);
		pkt[2] |= (0x8000 >> (15 - bit)) >> 8;
		pkt[3] |= (0x8000 >> (15 - bit)) & 0xff;
		if (!((1u << bit) & METAROCE_F_ALL))
			MT_CHECK(t, verdict(len) == MROCE_DROP_RSVD);
	}
	for (bit = 0; bit < 8; bit++) {
		len = build(METAROCE_OP_WRITE, &h);
		pkt[8] = 1 << bit;
		MT_CHECK(t, verdict(len) == MROCE_DROP_BAD_QPN);
	}
}

/* Encode h, flip it to a sample payload length and report the verdict. */
static enum mroce_drop_reason verdict_of(const struct mroce_hdr *h, u32 pl)
{
	int hl = mroce_hdr_encode(h, pkt, sizeof(pkt));

	if (hl < 0)
		return MROCE_DROP_MAX;
	return verdict(hl + pl);
}

static void test_flag_rules(struct mt *t)
{
	struct mroce_hdr h;
	unsigned int i;
	u32 pl;

	/* Single-packet opcodes need FIRST and LAST. */
	static const u8 single[] = {
		METAROCE_OP_READ_REQ, METAROCE_OP_CMP_SWAP,
		METAROCE_OP_FETCH_ADD, METAROCE_OP_ATOMIC_ACK,
		METAROCE_OP_UD_SEND, METAROCE_OP_UD_SEND_IMM,
	};
	for (i = 0; i < sizeof(single); i++) {
		pl = sample_hdr(&h, single[i]);
		h.flags &= ~METAROCE_F_FIRST;
		MT_CHECK(t, verdict_of(&h, pl) == MROCE_DROP_BAD_FLAGS);
		pl = sample_hdr(&h, single[i]);
		h.flags &= ~METAROCE_F_LAST;
		MT_CHECK(t, verdict_of(&h, pl) == MROCE_DROP_BAD_FLAGS);
	}
	/* Immediate / invalidate ride only on the last packet. */
	pl = sample_hdr(&h, METAROCE_OP_SEND_IMM);
	h.flags &= ~(METAROCE_F_LAST | METAROCE_F_SOLICITED);
	MT_CHECK(t, verdict_of(&h, pl) == MROCE_DROP_BAD_FLAGS);
	pl = sample_hdr(&h, METAROCE_OP_SEND_INV);
	h.flags &= ~(METAROCE_F_LAST | METAROCE_F_SOLICITED);
	MT_CHECK(t, verdict_of(&h, pl) == MROCE_DROP_BAD_FLAGS);
	pl = sample_hdr(&h, METAROCE_OP_WRITE_IMM);
	h.flags &= ~(METAROCE_F_LAST | METAROCE_F_SOLICITED);
	MT_CHECK(t, verdict_of(&h, pl) == MROCE_DROP_BAD_FLAGS);
	/* Solicited needs LAST and a receive-completing opcode. */
	pl = sample_hdr(&h, METAROCE_OP_SEND);
	h.flags = METAROCE_F_SOLICITED;
	h.send.offset = 0;
	h.send.total_len = pl + 1;
	MT_CHECK(t, verdict_of(&h, pl) == MROCE_DROP_BAD_FLAGS);
	pl = sample_hdr(&h, METAROCE_OP_WRITE);
	h.flags |= METAROCE_F_SOLICITED | METAROCE_F_LAST;
	MT_CHECK(t, verdict_of(&h, pl) == MROCE_DROP_BAD_FLAGS);
	pl = sample_hdr(&h, METAROCE_OP_READ_RESP);
	h.flags |= METAROCE_F_SOLICITED;
	MT_CHECK(t, verdict_of(&h, pl) == MROCE_DROP_BAD_FLAGS);
	pl = sample_hdr(&h, METAROCE_OP_READ_REQ);
	h.flags |= METAROCE_F_SOLICITED;
	MT_CHECK(t, verdict_of(&h, pl) == MROCE_DROP_BAD_FLAGS);
	/* ACKs carry no message or ack-request flags. */
	for (i = 0; i < 16; i++) {
		u16 f = 1u << i;

		if (!(f & METAROCE_F_ALL) || f == METAROCE_F_ECNCAP)
			continue;
		pl = sample_hdr(&h, METAROCE_OP_ACK);
		h.flags |= f;
		MT_CHECK(t, verdict_of(&h, pl) == MROCE_DROP_BAD_FLAGS);
	}
}

static void test_length_rules(struct mt *t)
{
	struct mroce_hdr h;
	unsigned int i;
	u32 pl;

	/* No payload allowed on control opcodes. */
	static const u8 nodata[] = {
		METAROCE_OP_READ_REQ, METAROCE_OP_CMP_SWAP,
		METAROCE_OP_FETCH_ADD, METAROCE_OP_ATOMIC_ACK,
		METAROCE_OP_ACK,
	};
	for (i = 0; i < sizeof(nodata); i++) {
		sample_hdr(&h, nodata[i]);
		MT_CHECK(t, verdict_of(&h, 1) == MROCE_DROP_BAD_PAYLOAD_LEN);
		MT_CHECK(t, verdict_of(&h, 0) == MROCE_DROP_NONE);
	}
	/* Payload ceiling on data opcodes. */
	for (i = 0; i < sizeof(all_ops); i++) {
		sample_hdr(&h, all_ops[i]);
		if (all_ops[i] == METAROCE_OP_ACK ||
		    mroce_opcode_hdr_len(all_ops[i]) == METAROCE_HLEN_ATOMIC ||
		    all_ops[i] == METAROCE_OP_ATOMIC_ACK ||
		    all_ops[i] == METAROCE_OP_READ_REQ)
			continue;
		MT_CHECK(t, verdict_of(&h, METAROCE_MAX_PAYLOAD + 1) ==
			 MROCE_DROP_BAD_PAYLOAD_LEN);
	}
	/* Send span: inside the message, anchored by FIRST/LAST. */
	pl = sample_hdr(&h, METAROCE_OP_SEND);
	h.send.total_len--;
	MT_CHECK(t, verdict_of(&h, pl) == MROCE_DROP_BAD_LENGTH);
	pl = sample_hdr(&h, METAROCE_OP_SEND);
	h.send.total_len++;
	MT_CHECK(t, verdict_of(&h, pl) == MROCE_DROP_BAD_LENGTH); /* LAST short */
	h.flags &= ~(METAROCE_F_LAST | METAROCE_F_SOLICITED);
	MT_CHECK(t, verdict_of(&h, pl) == MROCE_DROP_NONE);
	h.flags |= METAROCE_F_FIRST;
	MT_CHECK(t, verdict_of(&h, pl) == MROCE_DROP_BAD_LENGTH); /* offset != 0 */
	pl = sample_hdr(&h, METAROCE_OP_SEND);
	h.send.offset = 0xfffffff0;
	h.send.total_len = 0x10;
	MT_CHECK(t, verdict_of(&h, pl) == MROCE_DROP_BAD_LENGTH); /* no wrap */
	pl = sample_hdr(&h, METAROCE_OP_SEND);
	h.send.total_len = METAROCE_MAX_MSG_LEN + 1;
	h.flags &= ~(METAROCE_F_LAST | METAROCE_F_SOLICITED);
	MT_CHECK(t, verdict_of(&h, pl) == MROCE_DROP_BAD_LENGTH);
	/* Zero-length Send: exactly one packet, FIRST|LAST, total 0. */
	sample_hdr(&h, METAROCE_OP_SEND);
	h.flags = METAROCE_F_FIRST | METAROCE_F_LAST;
	h.send.offset = 0;
	h.send.total_len = 0;
	MT_CHECK(t, verdict_of(&h, 0) == MROCE_DROP_NONE);
	h.flags = METAROCE_F_FIRST;
	MT_CHECK(t, verdict_of(&h, 0) == MROCE_DROP_BAD_LENGTH);
	h.flags = METAROCE_F_FIRST;
	h.send.total_len = 10;
	MT_CHECK(t, verdict_of(&h, 0) == MROCE_DROP_BAD_LENGTH);
	/* Write: payload within dma_len, no VA wrap, zero-length rule. */
	pl = sample_hdr(&h, METAROCE_OP_WRITE);
	h.reth.dma_len = pl - 1;
	MT_CHECK(t, verdict_of(&h, pl) == MROCE_DROP_BAD_LENGTH);
	pl = sample_hdr(&h, METAROCE_OP_WRITE);
	h.reth.va = ~0ULL - pl + 2;
	MT_CHECK(t, verdict_of(&h, pl) == MROCE_DROP_BAD_LENGTH);
	h.reth.va = ~0ULL - pl + 1;	/* ends exactly at 2^64 */
	MT_CHECK(t, verdict_of(&h, pl) == MROCE_DROP_NONE);
	pl = sample_hdr(&h, METAROCE_OP_WRITE);
	h.reth.dma_len = METAROCE_MAX_MSG_LEN + 1;
	MT_CHECK(t, verdict_of(&h, pl) == MROCE_DROP_BAD_LENGTH);
	sample_hdr(&h, METAROCE_OP_WRITE);
	MT_CHECK(t, verdict_of(&h, 0) == MROCE_DROP_BAD_LENGTH);
	h.flags = METAROCE_F_FIRST | METAROCE_F_LAST;
	h.reth.dma_len = 0;
	MT_CHECK(t, verdict_of(&h, 0) == MROCE_DROP_NONE);
	/* Read request and response lengths. */
	sample_hdr(&h, METAROCE_OP_READ_REQ);
	h.reth.dma_len = METAROCE_MAX_MSG_LEN + 1;
	MT_CHECK(t, verdict_of(&h, 0) == MROCE_DROP_BAD_LENGTH);
	/* A Read's segment: 0 (the path MTU), or 256..8192 in 64s. */
	for (i = 0; i <= METAROCE_MAX_PAYLOAD + 2 * METAROCE_SEG_ALIGN; i += 32) {
		bool ok = !i || (i >= METAROCE_MIN_SEG &&
				 i <= METAROCE_MAX_PAYLOAD &&
				 !(i % METAROCE_SEG_ALIGN));

		sample_hdr(&h, METAROCE_OP_READ_REQ);
		h.reth.seg = i;
		MT_CHECK(t, verdict_of(&h, 0) ==
			 (ok ? MROCE_DROP_NONE : MROCE_DROP_BAD_LENGTH));
	}
	h.reth.seg = U32_MAX;
	MT_CHECK(t, verdict_of(&h, 0) == MROCE_DROP_BAD_LENGTH);
	pl = sample_hdr(&h, METAROCE_OP_READ_RESP);
	h.rresp.offset = METAROCE_MAX_MSG_LEN - pl + 1;
	MT_CHECK(t, verdict_of(&h, pl) == MROCE_DROP_BAD_LENGTH);
	h.rresp.offset = METAROCE_MAX_MSG_LEN - pl;
	MT_CHECK(t, verdict_of(&h, pl) == MROCE_DROP_NONE);
	h.flags |= METAROCE_F_FIRST;
	MT_CHECK(t, verdict_of(&h, pl) == MROCE_DROP_BAD_LENGTH);
}

static void test_ext_rules(struct mt *t)
{
	struct mroce_hdr h;
	unsigned int i;
	size_t len;

	/* Reserved words in extensions; READ_REQ's last is its segment. */
	len = build(METAROCE_OP_READ_REQ, &h);
	pkt[METAROCE_BHDR_LEN + 23] = 1;
	MT_CHECK(t, verdict(len) == MROCE_DROP_BAD_LENGTH);
	len = build(METAROCE_OP_ATOMIC_ACK, &h);
	pkt[METAROCE_BHDR_LEN + 12] = 0x80;
	MT_CHECK(t, verdict(len) == MROCE_DROP_RSVD);
	len = build(METAROCE_OP_FETCH_ADD, &h);
	pkt[METAROCE_BHDR_LEN + 16] = 1;	/* compare */
	MT_CHECK(t, verdict(len) == MROCE_DROP_RSVD);
	for (i = 61; i < 64; i++) {
		len = build(METAROCE_OP_ACK, &h);
		pkt[METAROCE_BHDR_LEN + i] = 0x01;
		MT_CHECK(t, verdict(len) == MROCE_DROP_RSVD);
	}
	len = build(METAROCE_OP_UD_SEND, &h);
	pkt[METAROCE_BHDR_LEN] = 0x01;
	MT_CHECK(t, verdict(len) == MROCE_DROP_BAD_QPN);
	/* Syndromes: every value of the byte. */
	for (i = 0; i < 256; i++) {
		enum mroce_drop_reason want = MROCE_DROP_BAD_SYNDROME;
		u8 cls = i & METAROCE_SYN_CLASS_MASK;
		u8 val = i & METAROCE_SYN_VALUE_MASK;

		if ((cls == METAROCE_SYN_ACK && !val) ||
		    cls == METAROCE_SYN_RNR ||
		    (cls == METAROCE_SYN_NAK && val <= METAROCE_NAK_MAX))
			want = MROCE_DROP_NONE;
		sample_hdr(&h, METAROCE_OP_ACK);
		h.ack.syndrome = i;
		MT_CHECK(t, verdict_of(&h, 0) == want);
	}
	/* SACK base never before ack_psn, also across wrap. */
	sample_hdr(&h, METAROCE_OP_ACK);
	h.ack.ack_psn = 5;
	h.ack.sack_base = 4;
	MT_CHECK(t, verdict_of(&h, 0) == MROCE_DROP_BAD_SACK);
	h.ack.ack_psn = 2;
	h.ack.sack_base = 0xfffffffe;
	MT_CHECK(t, verdict_of(&h, 0) == MROCE_DROP_BAD_SACK);
	h.ack.ack_psn = 0xfffffffe;
	h.ack.sack_base = 2;
	MT_CHECK(t, verdict_of(&h, 0) == MROCE_DROP_NONE);
	h.ack.sack_base = h.ack.ack_psn;
	MT_CHECK(t, verdict_of(&h, 0) == MROCE_DROP_BAD_SACK);	/* bit 0 set */
	h.ack.sack[0] = 0x80;
	MT_CHECK(t, verdict_of(&h, 0) == MROCE_DROP_NONE);
}

static void test_reason_names(struct mt *t)
{
	unsigned int i;

	for (i = 0; i < MROCE_DROP_MAX; i++)
		MT_CHECK(t, mroce_drop_reason_names[i] &&
			 mroce_drop_reason_name(i) == mroce_drop_reason_names[i]);
	MT_CHECK(t, strcmp(mroce_drop_reason_name(MROCE_DROP_MAX), "unknown") == 0);
}

static void test_seg_len(struct mt *t)
{
	u32 mtu, bad = 0;

	/* A 1500-byte frame carries 1408 bytes, not the IB enum's 1024. */
	MT_CHECK(t, mroce_seg_len(1500, 1024, 1024) == 1408);
	MT_CHECK(t, mroce_seg_len(1280, 1024, 1024) == 1152);
	MT_CHECK(t, mroce_seg_len(9000, 4096, 4096) == METAROCE_MAX_PAYLOAD);
	/* An application's smaller path MTU is kept. */
	MT_CHECK(t, mroce_seg_len(1500, 512, 1024) == 512);
	MT_CHECK(t, mroce_seg_len(9000, 1024, 4096) == 1024);
	/* Never below the path MTU, whatever the netdev says. */
	MT_CHECK(t, mroce_seg_len(0, 256, 256) == 256);
	MT_CHECK(t, mroce_seg_len(300, 256, 256) == 256);
	/* The port's MTU: the IB MTU whose largest packet fits the frame. */
	MT_CHECK(t, mroce_port_mtu(1500) == 1024);
	MT_CHECK(t, mroce_port_mtu(9000) == 4096);
	MT_CHECK(t, mroce_port_mtu(2048 + METAROCE_ENCAP_LEN +
				   METAROCE_MAX_HDR_LEN) == 2048);
	MT_CHECK(t, mroce_port_mtu(2047 + METAROCE_ENCAP_LEN +
				   METAROCE_MAX_HDR_LEN) == 1024);
	MT_CHECK(t, mroce_port_mtu(68) == 256);
	/* Every netdev MTU: the segment fits the frame, or is the path MTU. */
	for (mtu = 68; mtu <= 9216; mtu++) {
		u32 pm = mroce_port_mtu(mtu), seg = mroce_seg_len(mtu, pm, pm);

		if (seg >= pm && seg <= METAROCE_MAX_PAYLOAD &&
		    (seg == pm || (seg % METAROCE_SEG_ALIGN == 0 &&
		     seg + METAROCE_ENCAP_LEN + METAROCE_MAX_DATA_HDR_LEN <= mtu)))
			continue;
		mt_log(t, "netdev mtu %u: segment %u", mtu, seg);
		bad++;
	}
	MT_CHECK(t, bad == 0);
}

/* Seeded xorshift so failures reproduce from the seed alone. */
static u64 rng_state;

static u64 rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static void test_fuzz(struct mt *t, unsigned long iters, unsigned long seed)
{
	unsigned long n, accepted = 0, bad = 0;
	unsigned long reasons[MROCE_DROP_MAX] = { 0 };
	static u8 again[METAROCE_MAX_HDR_LEN];

	rng_state = seed * 0x9e3779b97f4a7c15ULL + 1;
	for (n = 0; n < iters; n++) {
		struct mroce_hdr h, d;
		enum mroce_drop_reason why = MROCE_DROP_MAX;
		size_t len = build(all_ops[rng() % sizeof(all_ops)], &h);
		unsigned int flips = rng() % 4, k;
		int ret;

		for (k = 0; k < flips; k++) {
			size_t at = rng() % (len < 96 ? len : 96);

			if (rng() & 1)
				pkt[at] ^= 1u << (rng() % 8);
			else
				pkt[at] = rng();
		}
		if (rng() % 4 == 0)
			len = rng() % (len + 1);
		else if (rng() % 8 == 0)
			len += rng() % 64;	/* trailing junk payload */
		ret = decode_exact(&d, pkt, len, &why);
		if (why >= MROCE_DROP_MAX) {
			bad++;
			continue;
		}
		reasons[why]++;
		if (ret >= 0) {
			accepted++;
			/* Accepted headers are canonical: re-encoding gives
			 * back the very same bytes.
			 */
			if (why != MROCE_DROP_NONE || (size_t)ret > len ||
			    d.hdr_len + d.payload_len != len ||
			    mroce_hdr_encode(&d, again, sizeof(again)) != ret ||
			    memcmp(again, pkt, ret))
				bad++;
		} else if (why == MROCE_DROP_NONE) {
			bad++;
		}
	}
	MT_CHECK(t, bad == 0);
	MT_CHECK(t, accepted > 0 && accepted < iters);
	mt_log(t, "fuzz: %lu iterations, seed %lu, %lu accepted", iters, seed,
	       accepted);
	for (n = 0; n < MROCE_DROP_MAX; n++)
		mt_log(t, "  %-18s %lu", mroce_drop_reason_name(n), reasons[n]);
}

#endif /* MROCE_PROTO_CASES_H */
