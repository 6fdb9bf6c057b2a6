/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Transport cases for the receiver's rate hint table (protocol section
 * 11.3): shares on joins and leaves, max-min grants, how grants fall and
 * rise between intervals, which senders a join's hint ACKs go to.
 * Included by transport_cases.h, whose TP_* units and includer contract
 * apply.
 */
#ifndef MROCE_RATEHINT_CASES_H
#define MROCE_RATEHINT_CASES_H

/* 100 Gbit/s: 1.25 MB per 100 us interval. Hints are kbit/s. */
#define TP_CAP_MBPS	100000
#define TP_CAP_KBPS	(TP_CAP_MBPS * 1000)
#define TP_IVAL_BYTES	1250000U

/* The next interval: senders first..last each deliver @bytes in it. */
static u64 tp_rh_send(struct mroce_rh *rh, u64 now, unsigned int first,
		      unsigned int last, u32 bytes)
{
	now += MROCE_RH_INTERVAL_NS;
	for (; first <= last; first++)
		mroce_rh_on_packet(rh, first, now, bytes);
	return now;
}

static void test_tp_ratehint(struct mt *t)
{
	static struct mroce_rh rh;	/* ~5 KiB: keep it off the stack */
	static u64 ids[MROCE_RH_MAX_SENDERS];
	u64 now = TP_MS;
	unsigned int i;

	mroce_rh_init(&rh, TP_CAP_MBPS, now);
	/* Four senders join: a quarter each, from the first packet on. */
	for (i = 1; i <= 4; i++)
		MT_CHECK(t, mroce_rh_on_packet(&rh, i, now, 4096) == 1);
	MT_CHECK(t, mroce_rh_on_packet(&rh, 1, now, 4096) == 0);
	MT_CHECK(t, mroce_rh_active(&rh) == 4);
	for (i = 1; i <= 4; i++)
		MT_CHECK(t, mroce_rh_hint(&rh, i) == TP_CAP_KBPS / 4);

	/* Each join cut the senders before it by a half, a third, a
	 * quarter, and each joiner is to be told as well: all four at once.
	 */
	MT_CHECK(t, mroce_rh_take_pushes(&rh, ids) == 4);
	MT_CHECK(t, ids[0] == 1 && ids[1] == 2 && ids[2] == 3 && ids[3] == 4);
	MT_CHECK(t, mroce_rh_take_pushes(&rh, ids) == 0);

	/* All four greedy over a measured interval: still a quarter. */
	now = tp_rh_send(&rh, now, 1, 4, TP_IVAL_BYTES);
	mroce_rh_update(&rh, now);
	MT_CHECK(t, mroce_rh_hint(&rh, 2) == TP_CAP_KBPS / 4);

	/* Sender 4 goes quiet: after the idle timeout a third each. */
	for (i = 0; i < 11; i++) {
		now = tp_rh_send(&rh, now, 1, 3, TP_IVAL_BYTES);
		mroce_rh_update(&rh, now);
		if (i == 8)
			MT_CHECK(t, mroce_rh_active(&rh) == 4);
	}
	MT_CHECK(t, mroce_rh_active(&rh) == 3);
	MT_CHECK(t, mroce_rh_hint(&rh, 1) == TP_CAP_KBPS / 3);
	/* An explicit leave: half each. */
	mroce_rh_leave(&rh, 3);
	MT_CHECK(t, mroce_rh_active(&rh) == 2);
	MT_CHECK(t, mroce_rh_hint(&rh, 1) == TP_CAP_KBPS / 2);
	mroce_rh_leave(&rh, 3);
	MT_CHECK(t, mroce_rh_active(&rh) == 2);
	/* Rejoin: back to a third. */
	MT_CHECK(t, mroce_rh_on_packet(&rh, 4, now, 4096) == 1);
	MT_CHECK(t, mroce_rh_hint(&rh, 4) == TP_CAP_KBPS / 3);

	/* Max-min: sender 5 uses 10% of the capacity; it is granted (and
	 * told) 20%, and the other three share the remaining 80%.
	 */
	mroce_rh_init(&rh, TP_CAP_MBPS, now);
	for (i = 2; i <= 5; i++)
		mroce_rh_on_packet(&rh, i, now, 64);
	now = tp_rh_send(&rh, now, 2, 4, TP_IVAL_BYTES);
	mroce_rh_on_packet(&rh, 5, now, TP_IVAL_BYTES / 10 - 64);
	mroce_rh_update(&rh, now);
	mt_log(t, "max-min hint %u", mroce_rh_hint(&rh, 2));
	MT_CHECK(t, mroce_rh_hint(&rh, 2) == 26666666);
	MT_CHECK(t, mroce_rh_hint(&rh, 5) == 20000000);
	/* Told the level instead, it could take 26.7 Gbit/s at once: the
	 * hints would add up to 7% over the capacity.
	 */
	MT_CHECK(t, 3 * mroce_rh_hint(&rh, 2) + mroce_rh_hint(&rh, 5) <=
		    TP_CAP_KBPS);
	/* Everyone light: one (the first of the largest) may use what the
	 * others leave over; the others are told their grants.
	 */
	now = tp_rh_send(&rh, now, 2, 5, TP_IVAL_BYTES / 10);
	mroce_rh_update(&rh, now);
	MT_CHECK(t, mroce_rh_hint(&rh, 2) == TP_CAP_KBPS - 3 * 20000000);
	MT_CHECK(t, mroce_rh_hint(&rh, 3) == 20000000);

	/* A sender silent for a whole interval (but not idle) falls to half
	 * of what it was told, not to nothing; the other three share the
	 * rest.
	 */
	mroce_rh_init(&rh, TP_CAP_MBPS, now);
	for (i = 1; i <= 4; i++)
		mroce_rh_on_packet(&rh, i, now, 64);
	now = tp_rh_send(&rh, now, 1, 3, TP_IVAL_BYTES);
	mroce_rh_update(&rh, now);
	MT_CHECK(t, mroce_rh_hint(&rh, 4) == TP_CAP_KBPS / 8);
	MT_CHECK(t, mroce_rh_hint(&rh, 1) == 29166666);	/* (10^8 - 1.25e7) / 3 */
	/* Just under 3/4 of what it was told (12.5 Gbit/s for 100 us is
	 * 156250 bytes): granted twice its use.
	 */
	now = tp_rh_send(&rh, now, 1, 3, TP_IVAL_BYTES);
	mroce_rh_on_packet(&rh, 4, now, 117187);	/* 3/4 is 117187.5 */
	mroce_rh_update(&rh, now);
	MT_CHECK(t, mroce_rh_hint(&rh, 4) == 18749920);	/* 2 * 9374.96 Mbit/s */
	/* Using all of that shows it was held back by its hint: greedy
	 * again, a quarter at once rather than doubling.
	 */
	now = tp_rh_send(&rh, now, 1, 3, TP_IVAL_BYTES);
	mroce_rh_on_packet(&rh, 4, now, 234374);
	mroce_rh_update(&rh, now);
	mt_log(t, "regrown hint %u", mroce_rh_hint(&rh, 4));
	MT_CHECK(t, mroce_rh_hint(&rh, 4) == TP_CAP_KBPS / 4);
	MT_CHECK(t, mroce_rh_hint(&rh, 1) == TP_CAP_KBPS / 4);
	/* Silent from then on: the grant halves each interval down to a
	 * refused newcomer's share, C / 65, and stays there until idle.
	 */
	for (i = 0; i < 6; i++) {
		now = tp_rh_send(&rh, now, 1, 3, TP_IVAL_BYTES);
		mroce_rh_update(&rh, now);
		if (i == 0)
			MT_CHECK(t, mroce_rh_hint(&rh, 4) == TP_CAP_KBPS / 8);
	}
	MT_CHECK(t, mroce_rh_active(&rh) == 4);
	/* 1538461.54 kbit/s rounded up; (10^8 - 1538461.54) / 3 down */
	MT_CHECK(t, mroce_rh_hint(&rh, 4) == 1538462);
	MT_CHECK(t, mroce_rh_hint(&rh, 1) == 32820512);

	/* Pushes to those a join cuts stop where it cuts by less than 1/16:
	 * the 16th sender cuts 15 by exactly 1/16, the 17th 16 by 1/17.
	 * The joiner itself is always told.
	 */
	mroce_rh_init(&rh, TP_CAP_MBPS, now);
	for (i = 1; i <= 15; i++)
		mroce_rh_on_packet(&rh, i, now, 64);
	mroce_rh_take_pushes(&rh, ids);
	mroce_rh_on_packet(&rh, 16, now, 64);
	MT_CHECK(t, mroce_rh_take_pushes(&rh, ids) == 16);
	mroce_rh_on_packet(&rh, 17, now, 64);
	MT_CHECK(t, mroce_rh_take_pushes(&rh, ids) == 1);
	MT_CHECK(t, ids[0] == 17);
	/* A satisfied sender the join does not cut is not pushed either. */
	mroce_rh_init(&rh, TP_CAP_MBPS, now);
	for (i = 1; i <= 3; i++)
		mroce_rh_on_packet(&rh, i, now, 64);
	now = tp_rh_send(&rh, now, 1, 2, TP_IVAL_BYTES);
	mroce_rh_on_packet(&rh, 3, now, TP_IVAL_BYTES / 20);
	mroce_rh_update(&rh, now);
	mroce_rh_take_pushes(&rh, ids);
	mroce_rh_on_packet(&rh, 4, now, 64);
	MT_CHECK(t, mroce_rh_hint(&rh, 3) == 16666667);	/* half of C / 3 */
	MT_CHECK(t, mroce_rh_take_pushes(&rh, ids) == 3);
	MT_CHECK(t, ids[0] == 1 && ids[1] == 2 && ids[2] == 4);

	/* Special capacities. */
	mroce_rh_init(&rh, METAROCE_RATE_NONE, now);
	mroce_rh_on_packet(&rh, 1, now, 100);
	MT_CHECK(t, mroce_rh_hint(&rh, 1) == METAROCE_RATE_NONE);
	mroce_rh_set_capacity(&rh, METAROCE_RATE_UNLIMITED);
	MT_CHECK(t, mroce_rh_hint(&rh, 1) == METAROCE_RATE_UNLIMITED);

	/* A full table: newcomers are refused and get the smallest share. */
	mroce_rh_init(&rh, 1000, now);
	for (i = 0; i < MROCE_RH_MAX_SENDERS; i++)
		MT_CHECK(t, mroce_rh_on_packet(&rh, 100 + i, now, 1) == 1);
	MT_CHECK(t, mroce_rh_on_packet(&rh, 99, now, 1) == -ENOSPC);
	MT_CHECK(t, rh.overflows == 1);
	MT_CHECK(t, mroce_rh_hint(&rh, 100) ==
		    1000000 / MROCE_RH_MAX_SENDERS);
	MT_CHECK(t, mroce_rh_hint(&rh, 99) ==
		    1000000 / (MROCE_RH_MAX_SENDERS + 1));
	/* 1 Mbit/s among eight: the wire's kbit/s keep 125 each, where
	 * Mbit/s would round every one of them to the same 1 (or 0).
	 */
	mroce_rh_init(&rh, 1, now);
	for (i = 1; i <= 8; i++)
		mroce_rh_on_packet(&rh, i, now, 1);
	MT_CHECK(t, mroce_rh_hint(&rh, 1) == 125);
	MT_CHECK(t, mroce_rh_hint(&rh, 8) == 125);
	/* Everyone idle: table empties, the share is the capacity. */
	mroce_rh_update(&rh, now + MROCE_RH_IDLE_NS + 1);
	MT_CHECK(t, mroce_rh_active(&rh) == 0);
}

#endif /* MROCE_RATEHINT_CASES_H */
