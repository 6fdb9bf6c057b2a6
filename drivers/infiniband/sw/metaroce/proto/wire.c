// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * MetaRoCE header codec. Plain C without ib_core so the kernel module,
 * KUnit and host tools share one implementation of the validation rules
 * in Documentation/protocol.rst.
 */
#include "wire.h"
#include "psn.h"

const char * const mroce_drop_reason_names[MROCE_DROP_MAX] = {
	[MROCE_DROP_NONE]		= "ok",
	[MROCE_DROP_TRUNCATED]		= "truncated",
	[MROCE_DROP_BAD_VERSION]	= "bad_version",
	[MROCE_DROP_BAD_OPCODE]		= "bad_opcode",
	[MROCE_DROP_BAD_HDR_LEN]	= "bad_hdr_len",
	[MROCE_DROP_RSVD]		= "reserved_nonzero",
	[MROCE_DROP_BAD_FLAGS]		= "bad_flags",
	[MROCE_DROP_BAD_QPN]		= "bad_qpn",
	[MROCE_DROP_BAD_PAYLOAD_LEN]	= "bad_payload_len",
	[MROCE_DROP_BAD_LENGTH]		= "bad_length",
	[MROCE_DROP_BAD_SACK]		= "bad_sack",
	[MROCE_DROP_BAD_SYNDROME]	= "bad_syndrome",
	[MROCE_DROP_UDP_CSUM]		= "udp_no_csum",
};

const char *mroce_drop_reason_name(enum mroce_drop_reason reason)
{
	if ((unsigned int)reason >= MROCE_DROP_MAX)
		return "unknown";
	return mroce_drop_reason_names[reason];
}

#define FL_FL		(METAROCE_F_FIRST | METAROCE_F_LAST)
/* Flags meaningless on an ACK: ACKs are never ACKed nor retransmitted. */
#define FL_NOT_ACK	(FL_FL | METAROCE_F_ACKREQ | METAROCE_F_SOLICITED | \
			 METAROCE_F_RETX)

/* Per-opcode header length and flag rules. */
struct mroce_op_info {
	u8 hlen;
	bool payload;	/* may carry data */
	u16 need;	/* flags that must be set */
	u16 forbid;	/* flags that must be clear */
};

static const struct mroce_op_info mroce_ops[METAROCE_OP_MAX + 1] = {
	[METAROCE_OP_SEND]	 = { METAROCE_HLEN_SEND, true, 0, 0 },
	[METAROCE_OP_SEND_IMM]	 = { METAROCE_HLEN_SEND_IMM, true,
				     METAROCE_F_LAST, 0 },
	[METAROCE_OP_SEND_INV]	 = { METAROCE_HLEN_SEND_INV, true,
				     METAROCE_F_LAST, 0 },
	[METAROCE_OP_WRITE]	 = { METAROCE_HLEN_WRITE, true, 0,
				     METAROCE_F_SOLICITED },
	[METAROCE_OP_WRITE_IMM]	 = { METAROCE_HLEN_WRITE_IMM, true,
				     METAROCE_F_LAST, 0 },
	[METAROCE_OP_READ_REQ]	 = { METAROCE_HLEN_READ_REQ, false, FL_FL,
				     METAROCE_F_SOLICITED },
	[METAROCE_OP_READ_RESP]	 = { METAROCE_HLEN_READ_RESP, true, 0,
				     METAROCE_F_SOLICITED },
	[METAROCE_OP_CMP_SWAP]	 = { METAROCE_HLEN_ATOMIC, false, FL_FL,
				     METAROCE_F_SOLICITED },
	[METAROCE_OP_FETCH_ADD]	 = { METAROCE_HLEN_ATOMIC, false, FL_FL,
				     METAROCE_F_SOLICITED },
	[METAROCE_OP_ATOMIC_ACK] = { METAROCE_HLEN_ATOMIC_ACK, false, FL_FL,
				     METAROCE_F_SOLICITED },
	[METAROCE_OP_ACK]	 = { METAROCE_HLEN_ACK, false, 0, FL_NOT_ACK },
	[METAROCE_OP_UD_SEND]	 = { METAROCE_HLEN_UD, true, FL_FL, 0 },
	[METAROCE_OP_UD_SEND_IMM] = { METAROCE_HLEN_UD_IMM, true, FL_FL, 0 },
};

int mroce_opcode_hdr_len(u8 opcode)
{
	if (opcode > METAROCE_OP_MAX)
		return 0;
	return mroce_ops[opcode].hlen;
}

int mroce_hdr_encode(const struct mroce_hdr *h, void *buf, size_t len)
{
	struct metaroce_bhdr *b = buf;
	u8 *ext = (u8 *)buf + METAROCE_BHDR_LEN;
	int hlen = mroce_opcode_hdr_len(h->opcode);

	if (!hlen || (h->flags & ~METAROCE_F_ALL) ||
	    (h->dqpn & ~METAROCE_QPN_MASK))
		return -EINVAL;
	if (len < (size_t)hlen)
		return -ENOSPC;

	memset(buf, 0, hlen);
	b->version = METAROCE_WIRE_VERSION;
	b->opcode = h->opcode;
	b->flags = cpu_to_be16(h->flags);
	b->hdr_words = hlen / METAROCE_HDR_WORD;
	b->path_id = cpu_to_be16(h->path_id);
	b->dqpn = cpu_to_be32(h->dqpn);
	b->psn = cpu_to_be32(h->psn);
	b->ts = cpu_to_be64(h->ts);

	switch (h->opcode) {
	case METAROCE_OP_SEND:
	case METAROCE_OP_SEND_IMM:
	case METAROCE_OP_SEND_INV: {
		struct metaroce_seth *s = (void *)ext;

		s->msn = cpu_to_be32(h->send.msn);
		s->offset = cpu_to_be32(h->send.offset);
		s->total_len = cpu_to_be32(h->send.total_len);
		ext += sizeof(*s);
		break;
	}
	case METAROCE_OP_WRITE:
	case METAROCE_OP_WRITE_IMM: {
		struct metaroce_reth *r = (void *)ext;

		r->va = cpu_to_be64(h->reth.va);
		r->rkey = cpu_to_be32(h->reth.rkey);
		r->dma_len = cpu_to_be32(h->reth.dma_len);
		ext += sizeof(*r);
		break;
	}
	case METAROCE_OP_READ_REQ: {
		struct metaroce_rreqeth *r = (void *)ext;

		r->va = cpu_to_be64(h->reth.va);
		r->rkey = cpu_to_be32(h->reth.rkey);
		r->dma_len = cpu_to_be32(h->reth.dma_len);
		r->msn = cpu_to_be32(h->reth.msn);
		r->seg = cpu_to_be32(h->reth.seg);
		break;
	}
	case METAROCE_OP_READ_RESP: {
		struct metaroce_rrespeth *r = (void *)ext;

		r->msn = cpu_to_be32(h->rresp.msn);
		r->offset = cpu_to_be32(h->rresp.offset);
		break;
	}
	case METAROCE_OP_CMP_SWAP:
	case METAROCE_OP_FETCH_ADD: {
		struct metaroce_atomiceth *a = (void *)ext;

		a->va = cpu_to_be64(h->atomic.va);
		a->swap_add = cpu_to_be64(h->atomic.swap_add);
		/* compare is reserved for FETCH_ADD */
		if (h->opcode == METAROCE_OP_CMP_SWAP)
			a->compare = cpu_to_be64(h->atomic.compare);
		a->rkey = cpu_to_be32(h->atomic.rkey);
		a->msn = cpu_to_be32(h->atomic.msn);
		break;
	}
	case METAROCE_OP_ATOMIC_ACK: {
		struct metaroce_atomicacketh *a = (void *)ext;

		a->orig = cpu_to_be64(h->aack.orig);
		a->msn = cpu_to_be32(h->aack.msn);
		break;
	}
	case METAROCE_OP_ACK: {
		struct metaroce_aeth *a = (void *)ext;

		a->ack_psn = cpu_to_be32(h->ack.ack_psn);
		a->sack_base = cpu_to_be32(h->ack.sack_base);
		memcpy(a->sack, h->ack.sack, sizeof(a->sack));
		a->echo_ts = cpu_to_be64(h->ack.echo_ts);
		a->echo_path = cpu_to_be16(h->ack.echo_path);
		a->ecn_ce = cpu_to_be16(h->ack.ecn_ce);
		a->rate_hint = cpu_to_be32(h->ack.rate_hint);
		a->msn = cpu_to_be32(h->ack.msn);
		a->syndrome = h->ack.syndrome;
		break;
	}
	case METAROCE_OP_UD_SEND:
	case METAROCE_OP_UD_SEND_IMM: {
		struct metaroce_deth *d = (void *)ext;

		if (h->ud.sqpn & ~METAROCE_QPN_MASK)
			return -EINVAL;
		d->sqpn = cpu_to_be32(h->ud.sqpn);
		d->qkey = cpu_to_be32(h->ud.qkey);
		ext += sizeof(*d);
		break;
	}
	}

	/* Trailing 4-byte extensions always come last. */
	if (h->opcode == METAROCE_OP_SEND_IMM ||
	    h->opcode == METAROCE_OP_WRITE_IMM ||
	    h->opcode == METAROCE_OP_UD_SEND_IMM)
		((struct metaroce_immdt *)ext)->imm = cpu_to_be32(h->imm);
	else if (h->opcode == METAROCE_OP_SEND_INV)
		((struct metaroce_ieth *)ext)->rkey = cpu_to_be32(h->inv_rkey);

	return hlen;
}

/*
 * A data packet's [offset, offset + payload) must lie inside a message of
 * msg_len bytes, start it when FIRST, end it when LAST, and only a
 * zero-length message may have an empty packet.
 */
static bool mroce_span_ok(u16 flags, u32 offset, u32 payload, u32 msg_len)
{
	if (msg_len > METAROCE_MAX_MSG_LEN)
		return false;
	if ((u64)offset + payload > msg_len)
		return false;
	if ((flags & METAROCE_F_FIRST) && offset)
		return false;
	if ((flags & METAROCE_F_LAST) && (u64)offset + payload != msg_len)
		return false;
	if (!payload && (msg_len || (flags & FL_FL) != FL_FL))
		return false;
	return true;
}

static enum mroce_drop_reason mroce_decode_ext(struct mroce_hdr *h,
					       const u8 *ext)
{
	u32 pl = h->payload_len;

	switch (h->opcode) {
	case METAROCE_OP_SEND:
	case METAROCE_OP_SEND_IMM:
	case METAROCE_OP_SEND_INV: {
		const struct metaroce_seth *s = (const void *)ext;

		h->send.msn = be32_to_cpu(s->msn);
		h->send.offset = be32_to_cpu(s->offset);
		h->send.total_len = be32_to_cpu(s->total_len);
		ext += sizeof(*s);
		if (!mroce_span_ok(h->flags, h->send.offset, pl,
				   h->send.total_len))
			return MROCE_DROP_BAD_LENGTH;
		break;
	}
	case METAROCE_OP_WRITE:
	case METAROCE_OP_WRITE_IMM: {
		const struct metaroce_reth *r = (const void *)ext;

		h->reth.va = be64_to_cpu(r->va);
		h->reth.rkey = be32_to_cpu(r->rkey);
		h->reth.dma_len = be32_to_cpu(r->dma_len);
		ext += sizeof(*r);
		/* Offset within the Write is unknown; check what we can. */
		if (h->reth.dma_len > METAROCE_MAX_MSG_LEN ||
		    pl > h->reth.dma_len ||
		    (!pl && (h->reth.dma_len ||
			     (h->flags & FL_FL) != FL_FL)) ||
		    (pl && h->reth.va + pl - 1 < h->reth.va))
			return MROCE_DROP_BAD_LENGTH;
		break;
	}
	case METAROCE_OP_READ_REQ: {
		const struct metaroce_rreqeth *r = (const void *)ext;

		h->reth.va = be64_to_cpu(r->va);
		h->reth.rkey = be32_to_cpu(r->rkey);
		h->reth.dma_len = be32_to_cpu(r->dma_len);
		h->reth.msn = be32_to_cpu(r->msn);
		h->reth.seg = be32_to_cpu(r->seg);
		if (h->reth.dma_len > METAROCE_MAX_MSG_LEN ||
		    (h->reth.seg && (h->reth.seg < METAROCE_MIN_SEG ||
				     h->reth.seg > METAROCE_MAX_PAYLOAD ||
				     h->reth.seg % METAROCE_SEG_ALIGN)))
			return MROCE_DROP_BAD_LENGTH;
		break;
	}
	case METAROCE_OP_READ_RESP: {
		const struct metaroce_rrespeth *r = (const void *)ext;

		h->rresp.msn = be32_to_cpu(r->msn);
		h->rresp.offset = be32_to_cpu(r->offset);
		if ((u64)h->rresp.offset + pl > METAROCE_MAX_MSG_LEN ||
		    ((h->flags & METAROCE_F_FIRST) && h->rresp.offset))
			return MROCE_DROP_BAD_LENGTH;
		break;
	}
	case METAROCE_OP_CMP_SWAP:
	case METAROCE_OP_FETCH_ADD: {
		const struct metaroce_atomiceth *a = (const void *)ext;

		if (h->opcode == METAROCE_OP_FETCH_ADD && a->compare)
			return MROCE_DROP_RSVD;
		h->atomic.va = be64_to_cpu(a->va);
		h->atomic.swap_add = be64_to_cpu(a->swap_add);
		h->atomic.compare = be64_to_cpu(a->compare);
		h->atomic.rkey = be32_to_cpu(a->rkey);
		h->atomic.msn = be32_to_cpu(a->msn);
		break;
	}
	case METAROCE_OP_ATOMIC_ACK: {
		const struct metaroce_atomicacketh *a = (const void *)ext;

		if (a->rsvd)
			return MROCE_DROP_RSVD;
		h->aack.orig = be64_to_cpu(a->orig);
		h->aack.msn = be32_to_cpu(a->msn);
		break;
	}
	case METAROCE_OP_ACK: {
		const struct metaroce_aeth *a = (const void *)ext;
		u8 syn = a->syndrome;

		if (a->rsvd[0] || a->rsvd[1] || a->rsvd[2])
			return MROCE_DROP_RSVD;
		switch (syn & METAROCE_SYN_CLASS_MASK) {
		case METAROCE_SYN_ACK:
			if (syn & METAROCE_SYN_VALUE_MASK)
				return MROCE_DROP_BAD_SYNDROME;
			break;
		case METAROCE_SYN_RNR:
			break;
		case METAROCE_SYN_NAK:
			if ((syn & METAROCE_SYN_VALUE_MASK) > METAROCE_NAK_MAX)
				return MROCE_DROP_BAD_SYNDROME;
			break;
		default:
			return MROCE_DROP_BAD_SYNDROME;
		}
		h->ack.ack_psn = be32_to_cpu(a->ack_psn);
		h->ack.sack_base = be32_to_cpu(a->sack_base);
		memcpy(h->ack.sack, a->sack, sizeof(h->ack.sack));
		h->ack.echo_ts = be64_to_cpu(a->echo_ts);
		h->ack.echo_path = be16_to_cpu(a->echo_path);
		h->ack.ecn_ce = be16_to_cpu(a->ecn_ce);
		h->ack.rate_hint = be32_to_cpu(a->rate_hint);
		h->ack.msn = be32_to_cpu(a->msn);
		h->ack.syndrome = syn;
		/* ack_psn itself is by definition missing, so bit 0 of a
		 * bitmap based there must be clear.
		 */
		if (mroce_psn_before(h->ack.sack_base, h->ack.ack_psn) ||
		    (h->ack.sack_base == h->ack.ack_psn && (a->sack[0] & 1)))
			return MROCE_DROP_BAD_SACK;
		break;
	}
	case METAROCE_OP_UD_SEND:
	case METAROCE_OP_UD_SEND_IMM: {
		const struct metaroce_deth *d = (const void *)ext;

		h->ud.sqpn = be32_to_cpu(d->sqpn);
		h->ud.qkey = be32_to_cpu(d->qkey);
		ext += sizeof(*d);
		if (h->ud.sqpn & ~METAROCE_QPN_MASK)
			return MROCE_DROP_BAD_QPN;
		break;
	}
	}

	if (h->opcode == METAROCE_OP_SEND_IMM ||
	    h->opcode == METAROCE_OP_WRITE_IMM ||
	    h->opcode == METAROCE_OP_UD_SEND_IMM)
		h->imm = be32_to_cpu(((const struct metaroce_immdt *)ext)->imm);
	else if (h->opcode == METAROCE_OP_SEND_INV)
		h->inv_rkey = be32_to_cpu(((const struct metaroce_ieth *)ext)->rkey);

	return MROCE_DROP_NONE;
}

static enum mroce_drop_reason mroce_decode(struct mroce_hdr *h,
					   const u8 *buf, size_t len)
{
	const struct metaroce_bhdr *b = (const void *)buf;
	const struct mroce_op_info *op;
	size_t hlen;

	if (len < METAROCE_BHDR_LEN)
		return MROCE_DROP_TRUNCATED;
	if (b->version != METAROCE_WIRE_VERSION)
		return MROCE_DROP_BAD_VERSION;
	if (b->opcode > METAROCE_OP_MAX || !mroce_ops[b->opcode].hlen)
		return MROCE_DROP_BAD_OPCODE;
	op = &mroce_ops[b->opcode];
	hlen = (size_t)b->hdr_words * METAROCE_HDR_WORD;
	if (hlen != op->hlen)
		return MROCE_DROP_BAD_HDR_LEN;
	if (len < hlen)
		return MROCE_DROP_TRUNCATED;

	h->version = b->version;
	h->opcode = b->opcode;
	h->flags = be16_to_cpu(b->flags);
	h->path_id = be16_to_cpu(b->path_id);
	h->dqpn = be32_to_cpu(b->dqpn);
	h->psn = be32_to_cpu(b->psn);
	h->ts = be64_to_cpu(b->ts);
	h->hdr_len = hlen;
	/* Bounded by the length checks below before anything relies on it. */
	h->payload_len = len - hlen > U32_MAX ? U32_MAX : len - hlen;

	if (b->rsvd || (h->flags & ~METAROCE_F_ALL))
		return MROCE_DROP_RSVD;
	if ((h->flags & op->need) != op->need || (h->flags & op->forbid))
		return MROCE_DROP_BAD_FLAGS;
	/* The solicited event fires on completion, i.e. the last packet. */
	if ((h->flags & METAROCE_F_SOLICITED) && !(h->flags & METAROCE_F_LAST))
		return MROCE_DROP_BAD_FLAGS;
	if (h->dqpn & ~METAROCE_QPN_MASK)
		return MROCE_DROP_BAD_QPN;
	if (op->payload ? h->payload_len > METAROCE_MAX_PAYLOAD :
			  h->payload_len != 0)
		return MROCE_DROP_BAD_PAYLOAD_LEN;

	return mroce_decode_ext(h, buf + METAROCE_BHDR_LEN);
}

int mroce_hdr_decode(struct mroce_hdr *h, const void *buf, size_t len,
		     enum mroce_drop_reason *reason)
{
	enum mroce_drop_reason r;

	memset(h, 0, sizeof(*h));
	r = mroce_decode(h, buf, len);
	if (reason)
		*reason = r;
	if (r == MROCE_DROP_NONE)
		return h->hdr_len;
	/* A future version is not malformed, just not ours. */
	return r == MROCE_DROP_BAD_VERSION ? -EPROTONOSUPPORT : -EBADMSG;
}

u32 mroce_port_mtu(u32 ndev_mtu)
{
	u32 m = 4096;

	while (m > 256 && m + METAROCE_ENCAP_LEN + METAROCE_MAX_HDR_LEN > ndev_mtu)
		m >>= 1;
	return m;
}

u32 mroce_seg_len(u32 ndev_mtu, u32 path_mtu, u32 port_mtu)
{
	u32 room = 0;

	if (path_mtu < port_mtu)
		return path_mtu;
	if (ndev_mtu > METAROCE_ENCAP_LEN + METAROCE_MAX_DATA_HDR_LEN)
		room = ndev_mtu - METAROCE_ENCAP_LEN - METAROCE_MAX_DATA_HDR_LEN;
	room -= room % METAROCE_SEG_ALIGN;
	if (room > METAROCE_MAX_PAYLOAD)
		room = METAROCE_MAX_PAYLOAD;
	return room > path_mtu ? room : path_mtu;
}
