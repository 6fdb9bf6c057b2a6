/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Selective-ACK bitmap of METAROCE_SACK_BITS (the wire's, and a path's
 * sequence window) or, for a receiver's PSN window, METAROCE_PSN_WINDOW
 * bits. Bit i stands for PSN base + i; PSNs before base count as received
 * (they are covered by the cumulative ack).
 */
#ifndef MROCE_PROTO_SACK_H
#define MROCE_PROTO_SACK_H

#include "compat.h"
#include "psn.h"
#include <metaroce/wire.h>

struct mroce_sack {
	u32 base;
	u32 bits;			/* window size, a multiple of 64 */
	u32 used;			/* map[used] on are all zero */
	u64 map[];			/* bit i of the window: map[i / 64] */
};

/*
 * A member called name, a struct mroce_sack with room for nbits: the
 * paths' 256-bit maps and a receiver's 2,048-bit window share the code,
 * and a path no longer carries 2,048 bits it cannot use (4 KiB a QP).
 */
#define MROCE_SACK(name, nbits)						\
	union {								\
		struct mroce_sack name;					\
		struct {						\
			u8 name##_hdr[sizeof(struct mroce_sack)];	\
			u64 name##_map[(nbits) / 64];			\
		};							\
	}

/* bits: METAROCE_SACK_BITS or METAROCE_PSN_WINDOW, at most s's room. */
void mroce_sack_init(struct mroce_sack *s, u32 base, u32 bits);

/* 0 if newly set, 1 if already received (or before base), -ERANGE if
 * psn is beyond the window.
 */
int mroce_sack_set(struct mroce_sack *s, u32 psn);

/* Forget that psn was received (it was refused and will come again). */
void mroce_sack_clear(struct mroce_sack *s, u32 psn);

bool mroce_sack_test(const struct mroce_sack *s, u32 psn);

/* Move base forward to new_base, dropping bits before it. A new_base
 * before the current one is ignored.
 */
void mroce_sack_advance(struct mroce_sack *s, u32 new_base);

/* PSN of the first not-received PSN at or after base (base + bits when
 * the whole window is received).
 */
u32 mroce_sack_first_missing(const struct mroce_sack *s);

/* Advance base over the received prefix; returns the new base, which is
 * the cumulative ack PSN when base tracks the next expected PSN.
 */
u32 mroce_sack_pull(struct mroce_sack *s);

/* Number of received PSNs in the window. */
unsigned int mroce_sack_count(const struct mroce_sack *s);

/* Number of received PSNs among window indices [from, to). */
unsigned int mroce_sack_count_range(const struct mroce_sack *s, u32 from,
				    u32 to);

/*
 * sack_base of an ACK that psn triggered: the wire bitmap ends at psn, so
 * that it reports the newest arrivals (or a repaired hole) even when the
 * window spans more than the wire bitmap, but it never starts before base;
 * base for a psn outside the window.
 */
u32 mroce_sack_report_base(const struct mroce_sack *s, u32 psn);

/* The METAROCE_SACK_BITS from PSN from (not before base) in wire form. */
void mroce_sack_to_wire(const struct mroce_sack *s, u32 from,
			u8 wire[METAROCE_SACK_BYTES]);

/*
 * Whether a receiver answers a new PSN with an ACK at once (protocol
 * section 9.1): it asks for one, it carries a CE mark, or it fills the
 * last hole (it is before @rx_high, one past the highest PSN received,
 * and @holes_left, whether a PSN before rx_high is still missing once it
 * is in, is false). One that opens a hole waits for the ACK request
 * cadence: the sender finds a loss by later packets of the lost one's
 * path, which that cadence reports as soon, and without an ACK at every
 * hole, goodput at 10% loss rose 13%. Nor is every late packet answered:
 * on paths of unequal delay nearly every packet is late, and an ACK for
 * each cost 750 ACKs per 1000 packets; the cadence reports them too.
 */
static inline bool mroce_ack_due(u32 psn, u32 rx_high, bool ackreq, bool ce,
				 bool holes_left)
{
	return ackreq || ce || (mroce_psn_before(psn, rx_high) && !holes_left);
}

/* A METAROCE_SACK_BITS bitmap from the wire, bit 0 standing for base;
 * s has room for at least that many.
 */
void mroce_sack_from_wire(struct mroce_sack *s, u32 base,
			  const u8 wire[METAROCE_SACK_BYTES]);

/*
 * A sender's record of the SACK bits it has acted on: the bits of an
 * ACK's wire bitmap (bit 0 for PSN base) that seen does not hold, as
 * words, bit j of fresh[k] for PSN base + k * 64 + j. seen, with room for
 * METAROCE_SACK_BITS, moves to base first; a base before its own (an ACK
 * overtaken by a later one) starts it afresh there, so that ACK's bits
 * are acted on again, which acting on a bit must allow. The caller sets
 * in seen what it acted on and clears a PSN it sends again.
 */
void mroce_sack_fresh(struct mroce_sack *seen, u32 base,
		      const u8 wire[METAROCE_SACK_BYTES],
		      u64 fresh[METAROCE_SACK_BITS / 64]);

#endif /* MROCE_PROTO_SACK_H */
