/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Receiver fair share: the receiver divides its inbound capacity among
 * the senders currently active towards it (max-min: senders that use less
 * than the share leave the rest to the others) and returns each sender
 * its grant in aeth.rate_hint. A sender is what the caller keys it by:
 * one connection (receiving QP) in the reference implementation. One
 * table per receiving device; callers serialise. Time is u64 nanoseconds
 * passed in. Documentation/protocol.rst section 11.3 is normative.
 */
#ifndef MROCE_PROTO_RATEHINT_H
#define MROCE_PROTO_RATEHINT_H

#include "compat.h"

/* Senders tracked at once; more get the smallest possible share. */
#define MROCE_RH_MAX_SENDERS	64
/* A sender not heard from for this long is no longer active. */
#define MROCE_RH_IDLE_NS	1000000ULL	/* 1 ms */
/* Rates are measured between calls of mroce_rh_update(), which callers
 * make about this often.
 */
#define MROCE_RH_INTERVAL_NS	100000ULL	/* 100 us */
/* A sender below the share is granted twice its measured rate, so it can
 * double per interval before it is counted as greedy. It is told that
 * grant, not the share: told the share, every such sender could take it
 * at once, and the shares would add up to more than the capacity.
 */
#define MROCE_RH_HEADROOM_NUM	2
#define MROCE_RH_HEADROOM_DEN	1
/* A sender that used at least 3/4 of what it was told was held back by
 * its hint, not by its own demand: it counts as greedy, so it is back at
 * the share one interval after a stall instead of doubling its way there.
 */
#define MROCE_RH_FULL_NUM	3
#define MROCE_RH_FULL_DEN	4
/* What a sender is told falls to at most half per interval: one interval
 * measured low (a stall, a loss recovery, a sparse sample) must not drop
 * it to the floor, from where it would climb for many intervals.
 */
#define MROCE_RH_FALL_SHIFT	1
/* A join that cuts a sender's share by 1/2^N or more is pushed to it. */
#define MROCE_RH_PUSH_SHIFT	4

struct mroce_rh_sender {
	u64 id;
	u64 first_seen_ns;
	u64 last_seen_ns;
	u64 bytes;		/* UDP payload bytes since the last update */
	u64 rate_bps;		/* measured over the last whole interval */
	u64 grant_bps;		/* satisfied: its grant; 0: the level */
	u64 told_bps;		/* grant or level after the last recompute */
	u64 hold_bps;		/* least demand until the next update */
	u8 used;
	u8 measured;		/* rate_bps is valid */
	u8 full;		/* used most of what it was told: greedy */
	u8 push;		/* it joined, or a join cut its share: tell it */
};

struct mroce_rh {
	u64 capacity_bps;	/* 0: no hint; U64_MAX: unlimited */
	u64 idle_ns;		/* MROCE_RH_IDLE_NS unless the caller says */
	u64 level_bps;		/* current fair share */
	u64 last_update_ns;
	unsigned int active;
	u32 overflows;		/* senders not tracked (table full) */
	struct mroce_rh_sender s[MROCE_RH_MAX_SENDERS];
};

/* @capacity_mbps in Mbit/s of UDP payload, with the METAROCE_RATE_*
 * meanings for 0 (no hint) and 0xffffffff (unlimited).
 */
void mroce_rh_init(struct mroce_rh *rh, u32 capacity_mbps, u64 now);
void mroce_rh_set_capacity(struct mroce_rh *rh, u32 capacity_mbps);

/* Account a received packet of @bytes UDP payload from sender @id.
 * Returns 1 if the sender just became active (joined), 0 if it was
 * already, -ENOSPC if the table is full.
 */
int mroce_rh_on_packet(struct mroce_rh *rh, u64 id, u64 now, u32 bytes);

/* The sender is gone (e.g. its QP was destroyed). */
void mroce_rh_leave(struct mroce_rh *rh, u64 id);

/* Expire idle senders, measure rates and recompute the share. */
void mroce_rh_update(struct mroce_rh *rh, u64 now);

/* The senders a join cut enough to be told at once (section 11.3, hint
 * ACKs), into @ids (room for MROCE_RH_MAX_SENDERS); clears their marks.
 */
unsigned int mroce_rh_take_pushes(struct mroce_rh *rh, u64 *ids);

/* aeth.rate_hint for sender @id, kbit/s or METAROCE_RATE_*. */
u32 mroce_rh_hint(const struct mroce_rh *rh, u64 id);

static inline unsigned int mroce_rh_active(const struct mroce_rh *rh)
{
	return rh->active;
}

#endif /* MROCE_PROTO_RATEHINT_H */
