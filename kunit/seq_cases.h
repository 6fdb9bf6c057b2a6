/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * MetaRoCE sequence test cases: PSN arithmetic and the SACK bitmap,
 * shared by the KUnit module and the host test program (tests/host).
 * The includer provides what kunit/proto_cases.h lists.
 */
#ifndef MROCE_SEQ_CASES_H
#define MROCE_SEQ_CASES_H

#include "proto/psn.h"
#include "proto/sack.h"

/* A bitmap with room for the widest window the cases use. */
struct mt_sack {
	MROCE_SACK(k, METAROCE_PSN_WINDOW);
};

/* One with room for a wire bitmap only: a third window would take the
 * KASAN build's frame over its limit.
 */
struct mt_sack_wire {
	MROCE_SACK(k, METAROCE_SACK_BITS);
};

static void test_psn(struct mt *t)
{
	MT_CHECK(t, mroce_psn_before(0xffffffff, 0));
	MT_CHECK(t, mroce_psn_after(0, 0xffffffff));
	MT_CHECK(t, mroce_psn_diff(3, 0xfffffffd) == 6);
	MT_CHECK(t, mroce_psn_diff(0xfffffffd, 3) == -6);
	MT_CHECK(t, !mroce_psn_before(7, 7) && !mroce_psn_after(7, 7));
	MT_CHECK(t, mroce_psn_before_eq(7, 7) && mroce_psn_after_eq(7, 7));
	MT_CHECK(t, mroce_psn_before(0x7ffffffe, 0xfffffffd));
	MT_CHECK(t, mroce_psn_after(0x80000000, 0x00000001));
	MT_CHECK(t, mroce_psn_add(0xffffffff, 2) == 1);
	MT_CHECK(t, mroce_psn_in_window(1, 0xfffffff0, 256));
	MT_CHECK(t, !mroce_psn_in_window(0xffffffef, 0xfffffff0, 256));
	MT_CHECK(t, !mroce_psn_in_window(0xf0, 0xfffffff0, 256));
	MT_CHECK(t, mroce_psn_in_window(0xef, 0xfffffff0, 256));
}

static void test_sack(struct mt *t)
{
	const u32 base = 0xffffff80;	/* window straddles the wrap */
	struct mt_sack sr = {}, cr = {};
	struct mroce_sack *s = &sr.k, *c = &cr.k;
	u8 w[METAROCE_SACK_BYTES];
	unsigned int i;

	mroce_sack_init(s, base, METAROCE_SACK_BITS);
	MT_CHECK(t, mroce_sack_first_missing(s) == base);
	MT_CHECK(t, mroce_sack_count(s) == 0);
	MT_CHECK(t, mroce_sack_set(s, base + 256) == -ERANGE);
	MT_CHECK(t, mroce_sack_set(s, base - 1) == 1);
	MT_CHECK(t, mroce_sack_test(s, base - 1));
	MT_CHECK(t, !mroce_sack_test(s, base + 256));
	for (i = 0; i < 256; i += 3)
		MT_CHECK(t, mroce_sack_set(s, base + i) == 0);
	MT_CHECK(t, mroce_sack_set(s, base + 3) == 1);
	MT_CHECK(t, mroce_sack_count(s) == 86);
	/* Ranges: within a word, across words, clamped, empty. */
	MT_CHECK(t, mroce_sack_count_range(s, 0, 1) == 1);
	MT_CHECK(t, mroce_sack_count_range(s, 1, 3) == 0);
	MT_CHECK(t, mroce_sack_count_range(s, 1, 64) == 21);
	MT_CHECK(t, mroce_sack_count_range(s, 63, 129) == 22);
	MT_CHECK(t, mroce_sack_count_range(s, 63, 130) == 23);
	MT_CHECK(t, mroce_sack_count_range(s, 0, 1000) == 86);
	MT_CHECK(t, mroce_sack_count_range(s, 130, 130) == 0);
	MT_CHECK(t, mroce_sack_count_range(s, 200, 100) == 0);
	MT_CHECK(t, mroce_sack_test(s, base + 129) && !mroce_sack_test(s, base + 130));
	MT_CHECK(t, mroce_sack_first_missing(s) == base + 1);

	/* Wire form: bit i is byte i / 8, mask 1 << (i % 8). */
	mroce_sack_to_wire(s, base, w);
	MT_CHECK(t, w[0] == 0x49 && w[1] == 0x92 && w[2] == 0x24);
	mroce_sack_from_wire(c, base, w);
	MT_CHECK(t, memcmp(&sr, &cr, sizeof(sr)) == 0);

	/* Advance by every amount and compare with the per-bit model. */
	for (i = 0; i <= 300; i++) {
		unsigned int j, bad = 0;

		cr = sr;
		mroce_sack_advance(c, base + i);
		MT_CHECK(t, c->base == base + i);
		for (j = 0; j < 256; j++) {
			bool want = i + j < 256 ? (i + j) % 3 == 0 : false;

			if (mroce_sack_test(c, base + i + j) != want)
				bad++;
		}
		MT_CHECK(t, bad == 0);
	}
	cr = sr;
	mroce_sack_advance(c, base - 5);	/* backwards: ignored */
	MT_CHECK(t, memcmp(&sr, &cr, sizeof(sr)) == 0);

	/* Receiver model: in-order arrival after a hole fills the prefix. */
	mroce_sack_init(s, 0xfffffffe, METAROCE_SACK_BITS);
	MT_CHECK(t, mroce_sack_set(s, 0xffffffff) == 0);
	MT_CHECK(t, mroce_sack_set(s, 0) == 0);
	MT_CHECK(t, mroce_sack_pull(s) == 0xfffffffe);
	MT_CHECK(t, mroce_sack_set(s, 0xfffffffe) == 0);
	MT_CHECK(t, mroce_sack_pull(s) == 1);
	MT_CHECK(t, mroce_sack_count(s) == 0);
	for (i = 0; i < 256; i++)
		mroce_sack_set(s, 1 + i);
	MT_CHECK(t, mroce_sack_first_missing(s) == 257);
	MT_CHECK(t, mroce_sack_pull(s) == 257);
}

/* A receiver's window wider than the wire bitmap, reported in slices. */
static void test_sack_window(struct mt *t)
{
	const u32 base = 0xfffffe00;	/* window straddles the wrap */
	const u32 n = METAROCE_PSN_WINDOW;
	struct mt_sack sr = {}, cr = {};
	struct mt_sack_wire w2r = {};
	struct mroce_sack *s = &sr.k, *c = &cr.k, *w2 = &w2r.k;
	u8 w[METAROCE_SACK_BYTES];
	unsigned int i, j;
	u32 from;

	mroce_sack_init(s, base, n);
	MT_CHECK(t, mroce_sack_set(s, base + n) == -ERANGE);
	MT_CHECK(t, mroce_sack_set(s, base + n - 1) == 0);
	for (i = 1; i < n - 1; i += 5)
		MT_CHECK(t, mroce_sack_set(s, base + i) == 0);
	MT_CHECK(t, mroce_sack_count(s) == 1 + (n - 2 + 4) / 5);
	MT_CHECK(t, mroce_sack_first_missing(s) == base);

	/* The slice ends at the triggering PSN, never starts before base. */
	MT_CHECK(t, mroce_sack_report_base(s, base) == base);
	MT_CHECK(t, mroce_sack_report_base(s, base - 3) == base);
	MT_CHECK(t, mroce_sack_report_base(s, base + 255) == base);
	MT_CHECK(t, mroce_sack_report_base(s, base + 256) == base + 1);
	MT_CHECK(t, mroce_sack_report_base(s, base + n - 1) ==
		    base + n - 256);
	/* A PSN beyond the window (refused) moves nothing. */
	MT_CHECK(t, mroce_sack_report_base(s, base + n) == base);
	MT_CHECK(t, mroce_sack_report_base(s, base + 0x7fffffff) == base);

	/* Every slice on the wire reads back as the window's bits. */
	for (i = 0; i <= n - METAROCE_SACK_BITS; i += 37) {
		unsigned int bad = 0;

		from = base + i;
		mroce_sack_to_wire(s, from, w);
		mroce_sack_from_wire(w2, from, w);
		for (j = 0; j < METAROCE_SACK_BITS; j++)
			if (mroce_sack_test(w2, from + j) !=
			    mroce_sack_test(s, from + j))
				bad++;
		MT_CHECK(t, bad == 0);
	}
	/* The last slice runs off the window: those bits are clear. */
	mroce_sack_to_wire(s, base + n - 100, w);
	for (i = 96, j = 0; i < 100; i++)	/* bits of PSNs n-4 .. n-1 */
		if (i == 99 || (n - 100 + i - 1) % 5 == 0)
			j |= 1 << (i % 8);
	MT_CHECK(t, w[12] == j && w[13] == 0 && w[31] == 0);

	/* Advance by amounts across word boundaries, against the model. */
	for (i = 0; i <= n + 10; i += 63) {
		unsigned int bad = 0;

		cr = sr;
		mroce_sack_advance(c, base + i);
		for (j = 0; j < n; j++) {
			u32 k = i + j;
			bool want = k < n && (k == n - 1 || k % 5 == 1);

			if (mroce_sack_test(c, base + k) != want)
				bad++;
		}
		MT_CHECK(t, bad == 0);
	}
	/* Filling the hole at base pulls to the next one. */
	mroce_sack_set(s, base);
	MT_CHECK(t, mroce_sack_pull(s) == base + 2);
}

/*
 * Random sets, clears and advances of windows of 256 and 2048 PSNs
 * across the wrap, against a bit per PSN: the words in use (sack.c)
 * must never hide a bit, nor leave one behind when the base passes it.
 */
static void test_sack_model(struct mt *t)
{
	static const u32 sizes[] = { METAROCE_SACK_BITS, METAROCE_PSN_WINDOW };
	static u8 model[32768];		/* by PSN - start */
	unsigned int z, n, bad = 0, j;
	const u32 start = 0xfffff000;
	struct mt_sack sr = {};
	struct mroce_sack *s = &sr.k;
	u32 b, psn, bits;
	u8 w[METAROCE_SACK_BYTES];

	rng_state = 0x5ac4 * 0x9e3779b97f4a7c15ULL + 1;
	for (z = 0; z < ARRAY_SIZE(sizes); z++) {
		bits = sizes[z];
		b = sizeof(model);
		for (n = 0; n < 8000; n++) {
			u64 r = rng();
			int want;

			if (b + 2 * bits + 200 >= sizeof(model)) {
				mroce_sack_init(s, start, bits);
				memset(model, 0, sizeof(model));
				b = 0;
			}

			psn = start + b + (u32)(r >> 8) % (bits + 8);
			switch (r % 8) {
			case 0:		/* a hole filled, maybe far ahead */
			case 1:
			case 2:
			case 3:
				want = psn - start - b >= bits ? -ERANGE :
				       model[psn - start];
				bad += mroce_sack_set(s, psn) != want;
				if (!want)
					model[psn - start] = 1;
				break;
			case 4:
				if (psn - start - b < bits)
					model[psn - start] = 0;
				mroce_sack_clear(s, psn);
				break;
			case 5:		/* cumulative ACK: a step, at times long */
				b += (r >> 20) % ((r & 0x3c0) ? 70 : bits + 70);
				mroce_sack_advance(s, start + b);
				break;
			default:	/* the receiver's pull to the first hole */
				while (model[b])
					b++;
				bad += mroce_sack_pull(s) != start + b;
				break;
			}
			/* The window reads as set (a sample: KUnit runs it
			 * under KASAN on an emulated CPU).
			 */
			if (n % 8 && r % 8 < 5)
				continue;
			for (j = 0; j < bits + 64; j += 1 + (r >> 40) % 7)
				bad += mroce_sack_test(s, start + b + j) !=
				       (j < bits && model[b + j]);
			for (j = 0; j < bits && model[b + j]; j++)
				;
			bad += mroce_sack_first_missing(s) != start + b + j;
			for (want = 0, j = 0; j < bits; j++)
				want += model[b + j];
			bad += mroce_sack_count(s) != (unsigned int)want;
		}
		/* The first 256 bits on the wire read back. */
		mroce_sack_to_wire(s, start + b, w);
		for (j = 0; j < METAROCE_SACK_BITS; j++)
			bad += !!(w[j / 8] & (1 << (j % 8))) !=
			       (j < bits && model[b + j]);
	}
	MT_CHECK(t, bad == 0);
}

/* The wire bitmap of the 256 PSNs from index b of a model by PSN. */
static void model_to_wire(const u8 *model, u32 b, u8 w[METAROCE_SACK_BYTES])
{
	unsigned int j;

	memset(w, 0, METAROCE_SACK_BYTES);
	for (j = 0; j < METAROCE_SACK_BITS; j++)
		if (model[b + j])
			w[j / 8] |= 1 << (j % 8);
}

/*
 * A sender's record of the SACK bits it acted on (mroce_sack_fresh):
 * across the wrap, against a model, every reported PSN is fresh once,
 * again once it is sent again, and every bit of an overtaken ACK is
 * fresh (acted on again, which the sender allows).
 */
static void test_sack_fresh(struct mt *t)
{
	static u8 rcvd[3000], acted[3000];	/* by PSN - start */
	const u32 start = 0xffffff00;
	struct mt_sack_wire seenr = {};
	struct mroce_sack *seen = &seenr.k;
	u64 fresh[METAROCE_SACK_BITS / 64], want;
	unsigned int n, j, k, bad = 0, acts = 0, again = 0, old = 0;
	u32 top = 0, b = 0, prev = 0;
	u8 w[METAROCE_SACK_BYTES];

	memset(rcvd, 0, sizeof(rcvd));
	memset(acted, 0, sizeof(acted));
	rng_state = 0xf2e5 * 0x9e3779b97f4a7c15ULL + 1;
	mroce_sack_init(seen, start, METAROCE_SACK_BITS);

	/* The same ACK twice: its bits are fresh the first time only. */
	rcvd[3] = 1;
	rcvd[64] = 1;
	rcvd[255] = 1;
	model_to_wire(rcvd, 0, w);
	mroce_sack_fresh(seen, start, w, fresh);
	MT_CHECK(t, fresh[0] == 1ULL << 3 && fresh[1] == 1 && !fresh[2] &&
		 fresh[3] == 1ULL << 63);
	for (j = 0; j < METAROCE_SACK_BITS; j++)
		if (rcvd[j])
			mroce_sack_set(seen, start + j);
	mroce_sack_fresh(seen, start, w, fresh);
	MT_CHECK(t, !(fresh[0] | fresh[1] | fresh[2] | fresh[3]));
	mroce_sack_init(seen, start, METAROCE_SACK_BITS);
	memset(rcvd, 0, sizeof(rcvd));

	for (n = 0; top + 16 < sizeof(rcvd) - METAROCE_SACK_BITS; n++) {
		u64 r = rng();

		/* The receiver gets a few PSNs, some of them late. */
		top += 1 + (r >> 8) % 4;
		rcvd[top] = 1;
		if (top > 40 && r % 4 == 0)
			rcvd[top - 1 - (r >> 16) % 40] = 1;
		/* Its ACK ends at the newest; now and then an older one. */
		prev = b;
		if (r % 16 == 1 && b > 30) {
			b -= 1 + (r >> 24) % 30;
			old++;
		} else if (top >= METAROCE_SACK_BITS &&
			   top - METAROCE_SACK_BITS + 1 > b) {
			b = top - METAROCE_SACK_BITS + 1;
		}
		model_to_wire(rcvd, b, w);
		mroce_sack_fresh(seen, start + b, w, fresh);
		if (b < prev)
			memset(acted, 0, sizeof(acted));
		for (k = 0; k < METAROCE_SACK_BITS / 64; k++) {
			for (want = 0, j = 0; j < 64; j++)
				if (rcvd[b + k * 64 + j] && !acted[b + k * 64 + j])
					want |= 1ULL << j;
			bad += fresh[k] != want;
			for (j = 0; j < 64; j++) {
				if (!(fresh[k] & (1ULL << j)))
					continue;
				acted[b + k * 64 + j] = 1;
				mroce_sack_set(seen, start + b + k * 64 + j);
				acts++;
			}
		}
		/* A PSN sent again is fresh again. */
		j = b + (r >> 32) % METAROCE_SACK_BITS;
		if (r % 8 == 3 && acted[j]) {
			acted[j] = 0;
			mroce_sack_clear(seen, start + j);
			again++;
		}
	}
	MT_CHECK(t, bad == 0);
	/* The walk covered what it is meant to. */
	MT_CHECK(t, old > 10 && again > 10 && acts > top);
	if (bad)
		mt_log(t, "sack_fresh: %u words wrong of %u ACKs", bad, n);
}

/* The receiver's immediate-ACK rule, over arrivals with a loss, late
 * packets and a mark, across the PSN wrap.
 */
static void test_ack_due(struct mt *t)
{
	static const struct {
		u32 psn;
		bool ackreq, ce, holes_left, due;
	} in[] = {
		{ 0xfffffffe, false, false, false, false },	/* in order */
		{ 0xffffffff, true, false, false, true },	/* asks */
		{ 0x00000001, false, false, true, false },	/* opens a hole at 0 */
		{ 0x00000002, false, false, true, false },	/* goes on above it */
		{ 0x00000000, true, false, false, true },	/* the resend fills it */
		{ 0x00000004, false, false, true, false },	/* opens a hole at 3 */
		{ 0x00000006, false, false, true, false },	/* and one at 5 */
		{ 0x00000003, false, false, true, false },	/* late, 5 still missing */
		{ 0x00000005, false, false, false, true },	/* late: fills the last */
		{ 0x00000007, false, true, false, true },	/* marked */
	};
	u32 high = 0xfffffffe, psn, acks = 0, asks = 0, fills = 0;
	u64 got[16] = {};	/* bit p: PSN p arrived */
	unsigned int i, n;

	for (i = 0; i < ARRAY_SIZE(in); i++) {
		MT_CHECK(t, mroce_ack_due(in[i].psn, high, in[i].ackreq,
					  in[i].ce, in[i].holes_left) ==
			    in[i].due);
		if (!mroce_psn_before(in[i].psn, high))
			high = in[i].psn + 1;
	}
	/*
	 * One path of four 5 packets slower (every 4th PSN arrives after
	 * the 5 that follow it), every 16th asking: each late packet leaves
	 * the next one's hole open, so only the asks and the last late
	 * packet, which closes every hole, are answered; an ACK for every
	 * late packet was one for a quarter of the packets.
	 */
	for (high = 0, n = 0; n < 1000 + 5; n++) {
		u32 late = n - 5;

		for (i = 0; i < 2; i++) {
			bool ask, left = false;
			u32 p;

			psn = i ? late : n;
			if (psn >= 1000 || (!i && psn % 4 == 0) ||
			    (i && (n < 5 || late % 4)))
				continue;
			ask = psn % 16 == 15;
			got[psn / 64] |= 1ULL << (psn % 64);
			for (p = 0; p < high; p++)
				left |= !(got[p / 64] >> (p % 64) & 1);
			asks += ask;
			acks += mroce_ack_due(psn, high, ask, false, left);
			if (!mroce_psn_before(psn, high))
				high = psn + 1;
		}
	}
	MT_CHECK(t, high == 1000 && acks == asks + 1);
	acks = 0;
	asks = 0;
	/*
	 * 1 in 10 lost and resent (with ACKREQ) 20 packets later, every
	 * 16th asking: an ACK for each ask and each repair, none for the
	 * holes, which would add one for every loss.
	 */
	for (high = 0, psn = 0; psn < 1000; psn++) {
		bool ask = psn % 16 == 15;

		if (psn % 10 != 3) {
			asks += ask;
			acks += mroce_ack_due(psn, high, ask, false, true);
			if (!mroce_psn_before(psn, high))
				high = psn + 1;
		}
		if (psn >= 20 && (psn - 20) % 10 == 3) {
			fills++;
			acks += mroce_ack_due(psn - 20, high, true, false,
					      true);
		}
	}
	MT_CHECK(t, fills == 98 && acks == asks + fills);
}

#endif /* MROCE_SEQ_CASES_H */
