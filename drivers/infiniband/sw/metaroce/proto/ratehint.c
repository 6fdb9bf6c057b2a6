// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Receiver-computed fair share. Without PFC an incast overflows the
 * receiver's port before ECN feedback has had a round trip to act; telling
 * each sender its share up front lets senders pace to it from the first
 * ACK. A sender that wants more than the max-min water level is told the
 * level; one that uses less is told its grant, what it uses with room to
 * grow, so that the hints never add up to more than the capacity.
 */
#include "ratehint.h"
#include "cc.h"
#include <metaroce/wire.h>

static int rh_find(const struct mroce_rh *rh, u64 id)
{
	unsigned int i;

	for (i = 0; i < MROCE_RH_MAX_SENDERS; i++) {
		if (rh->s[i].used && rh->s[i].id == id)
			return i;
	}
	return -1;
}

/*
 * What a measured sender may use next interval: unbounded (greedy) if it
 * used most of what it was told; otherwise twice what it used, but not
 * less than half of what it was told before (a grant falls by halves)
 * nor than a refused newcomer's share.
 */
static u64 rh_demand(const struct mroce_rh_sender *s, u64 floor_bps)
{
	u64 d;

	if (s->full)
		return U64_MAX;
	d = mroce_div_u64(s->rate_bps * MROCE_RH_HEADROOM_NUM,
			  MROCE_RH_HEADROOM_DEN);
	if (d < s->hold_bps)
		d = s->hold_bps;
	return d > floor_bps ? d : floor_bps;
}

/*
 * Water filling. Each round, senders whose demand is below the current
 * level are satisfied with their demand and leave the rest to the others.
 * One sender always stays unsatisfied (the largest demand, lowest slot on
 * ties), so the level is what an unconstrained sender may use. Satisfied
 * senders are granted their demand, the others the level: the grants add
 * up to the capacity.
 */
static void rh_fill(struct mroce_rh *rh)
{
	u64 rem = rh->capacity_bps, floor_bps, d;
	unsigned int unsat = rh->active;
	unsigned int i, cand;
	int keep;

	for (i = 0; i < MROCE_RH_MAX_SENDERS; i++)
		rh->s[i].grant_bps = 0;
	if (!rh->capacity_bps || rh->capacity_bps == U64_MAX || !unsat) {
		rh->level_bps = rh->capacity_bps;
		return;
	}
	floor_bps = mroce_div_u64(rh->capacity_bps, MROCE_RH_MAX_SENDERS + 1);
	for (;;) {
		rh->level_bps = mroce_div_u64(rem, unsat);
		cand = 0;
		keep = -1;
		for (i = 0; i < MROCE_RH_MAX_SENDERS; i++) {
			const struct mroce_rh_sender *s = &rh->s[i];

			if (!s->used || s->grant_bps || !s->measured ||
			    rh_demand(s, floor_bps) >= rh->level_bps)
				continue;
			cand++;
			if (keep < 0 || rh_demand(s, floor_bps) >
					rh_demand(&rh->s[keep], floor_bps))
				keep = i;
		}
		if (!cand)
			return;
		if (cand < unsat)
			keep = -1;
		for (i = 0; i < MROCE_RH_MAX_SENDERS; i++) {
			struct mroce_rh_sender *s = &rh->s[i];

			if (!s->used || s->grant_bps || !s->measured ||
			    (int)i == keep)
				continue;
			d = rh_demand(s, floor_bps);
			if (d >= rh->level_bps)
				continue;
			s->grant_bps = d;
			rem -= d;
			unsat--;
		}
		if (keep >= 0) {
			/* Everyone uses less than the share: the one left
			 * may use everything the others leave.
			 */
			rh->level_bps = rem;
			return;
		}
	}
}

/*
 * The share, and what each sender is now told (the next update judges its
 * use against that). @join: a sender just joined; those it cut by 1/16 or
 * more are marked to be told at once (mroce_rh_take_pushes()). Smaller
 * cuts, from joins among many senders, wait for the next ACK: pushing
 * them would cost every join an ACK per sender for a few percent.
 */
static void rh_recompute(struct mroce_rh *rh, bool join)
{
	unsigned int i;
	u64 told;

	rh_fill(rh);
	for (i = 0; i < MROCE_RH_MAX_SENDERS; i++) {
		struct mroce_rh_sender *s = &rh->s[i];

		if (!s->used)
			continue;
		told = s->grant_bps ? s->grant_bps : rh->level_bps;
		if (join && s->told_bps &&
		    told <= s->told_bps - (s->told_bps >> MROCE_RH_PUSH_SHIFT))
			s->push = 1;
		s->told_bps = told;
	}
}

void mroce_rh_set_capacity(struct mroce_rh *rh, u32 capacity_mbps)
{
	if (capacity_mbps == METAROCE_RATE_UNLIMITED)
		rh->capacity_bps = U64_MAX;
	else
		rh->capacity_bps = (u64)capacity_mbps * 1000000;
	rh_recompute(rh, false);
}

void mroce_rh_init(struct mroce_rh *rh, u32 capacity_mbps, u64 now)
{
	memset(rh, 0, sizeof(*rh));
	rh->idle_ns = MROCE_RH_IDLE_NS;
	rh->last_update_ns = now;
	mroce_rh_set_capacity(rh, capacity_mbps);
}

int mroce_rh_on_packet(struct mroce_rh *rh, u64 id, u64 now, u32 bytes)
{
	struct mroce_rh_sender *s;
	int i = rh_find(rh, id);
	int joined = 0;

	if (i < 0) {
		for (i = 0; i < MROCE_RH_MAX_SENDERS; i++) {
			if (!rh->s[i].used)
				break;
		}
		if (i == MROCE_RH_MAX_SENDERS) {
			rh->overflows++;
			return -ENOSPC;
		}
		s = &rh->s[i];
		memset(s, 0, sizeof(*s));
		s->used = 1;
		s->id = id;
		s->first_seen_ns = now;
		rh->active++;
		joined = 1;
	}
	s = &rh->s[i];
	s->last_seen_ns = now;
	s->bytes += bytes;
	/* A join lowers the share at once, so the next ACK to every sender
	 * already carries it. The joiner is told at once too: until then it
	 * holds no hint and sends unpaced.
	 */
	if (joined) {
		rh_recompute(rh, true);
		s->push = 1;
	}
	return joined;
}

static void rh_remove(struct mroce_rh *rh, unsigned int i)
{
	memset(&rh->s[i], 0, sizeof(rh->s[i]));
	rh->active--;
}

void mroce_rh_leave(struct mroce_rh *rh, u64 id)
{
	int i = rh_find(rh, id);

	if (i < 0)
		return;
	rh_remove(rh, i);
	rh_recompute(rh, false);
}

void mroce_rh_update(struct mroce_rh *rh, u64 now)
{
	u64 dt = now - rh->last_update_ns;
	unsigned int i;

	for (i = 0; i < MROCE_RH_MAX_SENDERS; i++) {
		struct mroce_rh_sender *s = &rh->s[i];

		if (!s->used)
			continue;
		if (now - s->last_seen_ns > rh->idle_ns) {
			rh_remove(rh, i);
			continue;
		}
		/* Only a sender present for the whole interval has a rate;
		 * a newcomer counts as greedy until then.
		 */
		if (dt && s->first_seen_ns <= rh->last_update_ns) {
			s->rate_bps = mroce_div_u64(s->bytes * 8 *
						    MROCE_NSEC_PER_SEC, dt);
			s->measured = 1;
			s->full = s->rate_bps >=
				  mroce_div_u64(s->told_bps,
						MROCE_RH_FULL_DEN) *
				  MROCE_RH_FULL_NUM;
			s->hold_bps = s->told_bps >> MROCE_RH_FALL_SHIFT;
		}
		s->bytes = 0;
	}
	rh->last_update_ns = now;
	rh_recompute(rh, false);
}

u32 mroce_rh_hint(const struct mroce_rh *rh, u64 id)
{
	u64 bps, kbps;
	int i;

	if (!rh->capacity_bps)
		return METAROCE_RATE_NONE;
	if (rh->capacity_bps == U64_MAX)
		return METAROCE_RATE_UNLIMITED;
	/* A grant is rounded up: rounded down, a small grant could stay
	 * below what its sender was measured at and never grow.
	 */
	i = rh_find(rh, id);
	if (i >= 0 && rh->s[i].grant_bps)
		bps = rh->s[i].grant_bps + METAROCE_RATE_UNIT_BPS - 1;
	else if (i >= 0)
		bps = rh->level_bps;
	else
		bps = mroce_div_u64(rh->capacity_bps, MROCE_RH_MAX_SENDERS + 1);
	kbps = mroce_div_u64(bps, METAROCE_RATE_UNIT_BPS);
	/* 0 and 0xffffffff have special meanings on the wire. */
	if (!kbps)
		return 1;
	if (kbps >= METAROCE_RATE_UNLIMITED)
		return METAROCE_RATE_UNLIMITED - 1;
	return (u32)kbps;
}

unsigned int mroce_rh_take_pushes(struct mroce_rh *rh, u64 *ids)
{
	unsigned int i, n = 0;

	for (i = 0; i < MROCE_RH_MAX_SENDERS; i++) {
		if (rh->s[i].used && rh->s[i].push) {
			rh->s[i].push = 0;
			ids[n++] = rh->s[i].id;
		}
	}
	return n;
}
