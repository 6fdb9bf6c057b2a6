// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * SACK bitmap kept as u64 words so that advancing the base is a word
 * shift rather than a per-bit loop; the wire form is LSB-first bytes.
 * The words in use are counted: a receiver's window is 32 words, and in
 * order it advances by one PSN a packet with one word in use.
 */
#include "sack.h"
#include "psn.h"

void mroce_sack_init(struct mroce_sack *s, u32 base, u32 bits)
{
	s->base = base;
	s->bits = bits;
	s->used = 0;
	memset(s->map, 0, bits / 64 * sizeof(s->map[0]));
}

/* The 64 bits from window index i (past the window: 0). */
static u64 sack_word_at(const struct mroce_sack *s, u32 i)
{
	unsigned int k = i / 64, bits = i % 64, n = s->used;
	u64 lo = k < n ? s->map[k] : 0;
	u64 hi = k + 1 < n ? s->map[k + 1] : 0;

	/* Avoid the undefined shift by 64 when bits == 0. */
	return bits ? (lo >> bits) | (hi << (64 - bits)) : lo;
}

int mroce_sack_set(struct mroce_sack *s, u32 psn)
{
	u32 i = psn - s->base;
	u64 bit;

	if (mroce_psn_before(psn, s->base))
		return 1;
	if (i >= s->bits)
		return -ERANGE;
	bit = 1ULL << (i % 64);
	if (s->map[i / 64] & bit)
		return 1;
	s->map[i / 64] |= bit;
	if (i / 64 >= s->used)
		s->used = i / 64 + 1;
	return 0;
}

void mroce_sack_clear(struct mroce_sack *s, u32 psn)
{
	u32 i = psn - s->base;

	if (!mroce_psn_before(psn, s->base) && i < s->bits)
		s->map[i / 64] &= ~(1ULL << (i % 64));
}

bool mroce_sack_test(const struct mroce_sack *s, u32 psn)
{
	u32 i = psn - s->base;

	if (mroce_psn_before(psn, s->base))
		return true;
	if (i >= s->bits)
		return false;
	return s->map[i / 64] & (1ULL << (i % 64));
}

void mroce_sack_advance(struct mroce_sack *s, u32 new_base)
{
	u32 n = new_base - s->base;
	unsigned int k, used;

	if (mroce_psn_before_eq(new_base, s->base))
		return;
	s->base = new_base;
	if (n >= s->used * 64) {
		memset(s->map, 0, s->used * sizeof(s->map[0]));
		s->used = 0;
		return;
	}
	/* Word k reads from k * 64 + n, never behind what it overwrites. */
	used = (s->used * 64 - n + 63) / 64;
	for (k = 0; k < used; k++)
		s->map[k] = sack_word_at(s, k * 64 + n);
	for (; k < s->used; k++)
		s->map[k] = 0;
	s->used = used;
}

u32 mroce_sack_first_missing(const struct mroce_sack *s)
{
	unsigned int k;

	for (k = 0; k < s->used; k++) {
		if (s->map[k] != ~0ULL)
			return s->base + k * 64 + __builtin_ctzll(~s->map[k]);
	}
	/* The word after the last in use is clear, or the window ends. */
	return s->base + s->used * 64;
}

u32 mroce_sack_pull(struct mroce_sack *s)
{
	mroce_sack_advance(s, mroce_sack_first_missing(s));
	return s->base;
}

unsigned int mroce_sack_count_range(const struct mroce_sack *s, u32 from,
				    u32 to)
{
	unsigned int k, n = 0;

	if (to > s->used * 64)
		to = s->used * 64;
	if (from >= to)
		return 0;
	for (k = from / 64; k <= (to - 1) / 64; k++) {
		u64 w = s->map[k];

		if (k == from / 64)
			w &= ~0ULL << (from % 64);
		if (k == (to - 1) / 64 && to % 64)
			w &= ~(~0ULL << (to % 64));
		n += mroce_popcount64(w);
	}
	return n;
}

unsigned int mroce_sack_count(const struct mroce_sack *s)
{
	return mroce_sack_count_range(s, 0, s->bits);
}

u32 mroce_sack_report_base(const struct mroce_sack *s, u32 psn)
{
	u32 i = psn - s->base;

	/* Not after the first bitmap, or not in the window (never sent). */
	if (mroce_psn_before(psn, s->base) || i < METAROCE_SACK_BITS ||
	    i >= s->bits)
		return s->base;
	return psn + 1 - METAROCE_SACK_BITS;
}

void mroce_sack_to_wire(const struct mroce_sack *s, u32 from,
			u8 wire[METAROCE_SACK_BYTES])
{
	u32 off = mroce_psn_after(from, s->base) ? from - s->base : 0;
	unsigned int i;
	u64 w = 0;

	for (i = 0; i < METAROCE_SACK_BYTES; i++) {
		if (i % 8 == 0)
			w = sack_word_at(s, off + i * 8);
		wire[i] = (u8)(w >> ((i % 8) * 8));
	}
}

/* Word k of a wire bitmap: its bytes 8k..8k+7, LSB first. */
static u64 wire_word(const u8 wire[METAROCE_SACK_BYTES], unsigned int k)
{
	unsigned int j;
	u64 w = 0;

	for (j = 0; j < 8; j++)
		w |= (u64)wire[k * 8 + j] << (j * 8);
	return w;
}

void mroce_sack_from_wire(struct mroce_sack *s, u32 base,
			  const u8 wire[METAROCE_SACK_BYTES])
{
	unsigned int k;

	mroce_sack_init(s, base, METAROCE_SACK_BITS);
	for (k = 0; k < METAROCE_SACK_BITS / 64; k++)
		s->map[k] = wire_word(wire, k);
	s->used = METAROCE_SACK_BITS / 64;
}

void mroce_sack_fresh(struct mroce_sack *seen, u32 base,
		      const u8 wire[METAROCE_SACK_BYTES],
		      u64 fresh[METAROCE_SACK_BITS / 64])
{
	unsigned int k;

	if (mroce_psn_before(base, seen->base))
		mroce_sack_init(seen, base, METAROCE_SACK_BITS);
	else
		mroce_sack_advance(seen, base);
	for (k = 0; k < METAROCE_SACK_BITS / 64; k++)
		fresh[k] = wire_word(wire, k) & ~sack_word_at(seen, k * 64);
}
