/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * PSN arithmetic. PSNs are full 32-bit and wrap; comparisons are only
 * meaningful between PSNs less than 2^31 apart (serial number arithmetic,
 * as in RFC 1982), which the window limits guarantee.
 */
#ifndef MROCE_PROTO_PSN_H
#define MROCE_PROTO_PSN_H

#include "compat.h"

/* Signed distance from b to a: > 0 when a is after b. */
static inline s32 mroce_psn_diff(u32 a, u32 b)
{
	return (s32)(a - b);
}

static inline bool mroce_psn_before(u32 a, u32 b)
{
	return mroce_psn_diff(a, b) < 0;
}

static inline bool mroce_psn_after(u32 a, u32 b)
{
	return mroce_psn_diff(a, b) > 0;
}

static inline bool mroce_psn_before_eq(u32 a, u32 b)
{
	return mroce_psn_diff(a, b) <= 0;
}

static inline bool mroce_psn_after_eq(u32 a, u32 b)
{
	return mroce_psn_diff(a, b) >= 0;
}

static inline u32 mroce_psn_add(u32 psn, u32 n)
{
	return psn + n;
}

/* True if psn lies in [start, start + len). */
static inline bool mroce_psn_in_window(u32 psn, u32 start, u32 len)
{
	return psn - start < len;
}

#endif /* MROCE_PROTO_PSN_H */
