// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * SACK bitmap kept as four u64 words so that advancing the base is a word
 * shift rather than a per-bit loop; the wire form is LSB-first bytes.
 */
#include "sack.h"
#include "psn.h"

void mroce_sack_init(struct mroce_sack *s, u32 base)
{
	memset(s, 0, sizeof(*s));
	s->base = base;
}

int mroce_sack_set(struct mroce_sack *s, u32 psn)
{
	u32 i = psn - s->base;
	u64 bit;

	if (mroce_psn_before(psn, s->base))
		return 1;
	if (i >= METAROCE_SACK_BITS)
		return -ERANGE;
	bit = 1ULL << (i % 64);
	if (s->map[i / 64] & bit)
		return 1;
	s->map[i / 64] |= bit;
	return 0;
}

void mroce_sack_clear(struct mroce_sack *s, u32 psn)
{
	u32 i = psn - s->base;

	if (!mroce_psn_before(psn, s->base) && i < METAROCE_SACK_BITS)
		s->map[i / 64] &= ~(1ULL << (i % 64));
}

bool mroce_sack_test(const struct mroce_sack *s, u32 psn)
{
	u32 i = psn - s->base;

	if (mroce_psn_before(psn, s->base))
		return true;
	if (i >= METAROCE_SACK_BITS)
		return false;
	return s->map[i / 64] & (1ULL << (i % 64));
}

void mroce_sack_advance(struct mroce_sack *s, u32 new_base)
{
	u32 n = new_base - s->base;
	unsigned int words, bits, k;

	if (mroce_psn_before_eq(new_base, s->base))
		return;
	s->base = new_base;
	if (n >= METAROCE_SACK_BITS) {
		memset(s->map, 0, sizeof(s->map));
		return;
	}
	words = n / 64;
	bits = n % 64;
	for (k = 0; k < MROCE_SACK_WORDS; k++) {
		u64 lo = k + words < MROCE_SACK_WORDS ? s->map[k + words] : 0;
		u64 hi = k + words + 1 < MROCE_SACK_WORDS ?
			 s->map[k + words + 1] : 0;

		/* Avoid the undefined shift by 64 when bits == 0. */
		s->map[k] = bits ? (lo >> bits) | (hi << (64 - bits)) : lo;
	}
}

u32 mroce_sack_first_missing(const struct mroce_sack *s)
{
	unsigned int k;

	for (k = 0; k < MROCE_SACK_WORDS; k++) {
		if (s->map[k] != ~0ULL)
			return s->base + k * 64 + __builtin_ctzll(~s->map[k]);
	}
	return s->base + METAROCE_SACK_BITS;
}

u32 mroce_sack_pull(struct mroce_sack *s)
{
	mroce_sack_advance(s, mroce_sack_first_missing(s));
	return s->base;
}

unsigned int mroce_sack_count(const struct mroce_sack *s)
{
	unsigned int k, n = 0;

	for (k = 0; k < MROCE_SACK_WORDS; k++)
		n += mroce_popcount64(s->map[k]);
	return n;
}

void mroce_sack_to_wire(const struct mroce_sack *s,
			u8 wire[METAROCE_SACK_BYTES])
{
	unsigned int i;

	for (i = 0; i < METAROCE_SACK_BYTES; i++)
		wire[i] = (u8)(s->map[i / 8] >> ((i % 8) * 8));
}

void mroce_sack_from_wire(struct mroce_sack *s, u32 base,
			  const u8 wire[METAROCE_SACK_BYTES])
{
	unsigned int i;

	mroce_sack_init(s, base);
	for (i = 0; i < METAROCE_SACK_BYTES; i++)
		s->map[i / 8] |= (u64)wire[i] << ((i % 8) * 8);
}
