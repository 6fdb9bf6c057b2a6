/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Per-path sender congestion control (ECN-driven AIMD) and the pacer.
 * Windows are in bytes of MetaRoCE UDP payload (headers plus data); time is
 * always passed in by the caller as u64 nanoseconds so that the algorithms
 * are deterministic and testable. No locking: callers serialise.
 * Documentation/protocol.rst section 11 is the normative description.
 */
#ifndef MROCE_PROTO_CC_H
#define MROCE_PROTO_CC_H

#include "compat.h"
#ifdef __KERNEL__
#include <linux/math64.h>
#endif

/*
 * Window limits in packets of the connection's path MTU (segment size).
 * The initial window is the connection's, shared by its paths.
 */
#define MROCE_CC_INIT_WND_PKTS	10
#define MROCE_CC_MIN_WND_PKTS	1	/* a path can always send one packet */
/* One path's largest window; the pipe (qp.h) bounds all paths together. */
#define MROCE_CC_MAX_WND_PKTS	256
/* Multiplicative decrease: cwnd *= 1/2, like RFC 3168 ECN in TCP. */
#define MROCE_CC_DECREASE_SHIFT	1
/*
 * A loss on a path with no recent marks takes a sixteenth, not half: in
 * a fabric that marks, it is as likely corruption or a flapping link as
 * a queue. It leaves room for two packets. With an eighth, paths under
 * 10% random loss kept windows that moved 10% less.
 */
#define MROCE_CC_LOSS_SHIFT	4
#define MROCE_CC_LOSS_MIN_PKTS	2
/*
 * ... and at most once per this many RTTs: once per RTT, random loss of
 * p held a path near sqrt(8 / p) packets (28 at 1%, 9 at 10%). Under
 * heavy random loss a path settles near 16 * (gap - 1) packets, which
 * must exceed its share of the pipe (qp.h): with 4, 48 packets held 1%
 * loss at 0.89 of lossless, with 8 (112) at 0.96 (protocol, 11.1).
 */
#define MROCE_CC_LOSS_GAP_RTTS	8
/* Gate for "once per RTT" before the path has an RTT sample. */
#define MROCE_CC_DEFAULT_RTT_NS	100000ULL
/* ECN-marked fraction: fixed point, 1.0 == MROCE_CC_FRAC_ONE. */
#define MROCE_CC_FRAC_ONE	1024
/* EWMA gain of the marked fraction: 1/16 per ACK, as DCTCP's g. */
#define MROCE_CC_FRAC_GAIN_SHIFT	4

/* Pacer: bytes that may leave back to back after an idle period, so that
 * a software timer with microsecond granularity can keep up.
 */
#define MROCE_PACE_BURST_BYTES	65536
#define MROCE_NSEC_PER_SEC	1000000000ULL

#ifdef __KERNEL__
#define mroce_div_u64(a, b)	div64_u64(a, b)
#else
static inline u64 mroce_div_u64(u64 a, u64 b)
{
	return a / b;
}
#endif

struct mroce_cc {
	u32 mtu;		/* segment size in bytes */
	u32 cwnd;		/* congestion window, bytes */
	u32 ssthresh;		/* slow start while cwnd < ssthresh */
	u32 ca_acc;		/* bytes acked towards the next +1 MTU */
	u16 ecn_frac;		/* EWMA of marked fraction, /FRAC_ONE */
	u8 decreased;		/* last_decrease_ns is valid */
	u8 init_pkts;		/* initial cwnd, in MTUs */
	u8 first_ss;		/* no mark or timeout (not undone) yet */
	u64 last_decrease_ns;
	u32 decreases;		/* statistics */
	u32 marks;		/* CE-marked packets echoed, statistics */
};

static inline u32 mroce_cc_min_wnd(const struct mroce_cc *cc)
{
	return MROCE_CC_MIN_WND_PKTS * cc->mtu;
}

static inline u32 mroce_cc_max_wnd(const struct mroce_cc *cc)
{
	return MROCE_CC_MAX_WND_PKTS * cc->mtu;
}

/* Fresh state: initial window of @init_pkts MTUs (0: the default, at
 * least 1), slow start up to the maximum window.
 */
void mroce_cc_init(struct mroce_cc *cc, u32 mtu, u32 init_pkts);

/* acked bytes newly acknowledged on the path at @now; @srtt_ns is the
 * path's smoothed RTT (0 if unknown).
 */
void mroce_cc_on_ack(struct mroce_cc *cc, u64 now, u64 srtt_ns, u32 acked);

/* An ACK echoed this path with @ce CE-marked packets out of @pkts packets
 * it accounts for. Returns true if the window was decreased.
 */
bool mroce_cc_on_ecn(struct mroce_cc *cc, u64 now, u64 srtt_ns, u32 ce,
		     u32 pkts);

/* A packet of the path was detected lost by SACK: same reaction as a mark. */
bool mroce_cc_on_loss(struct mroce_cc *cc, u64 now, u64 srtt_ns);

/* The path's retransmission timer expired: back to the minimum window. */
void mroce_cc_on_timeout(struct mroce_cc *cc, u64 now);

/* Rate cwnd allows at a given RTT, in bit/s of UDP payload. */
u64 mroce_cc_window_rate(const struct mroce_cc *cc, u64 srtt_ns);

/*
 * Token-bucket pacer. next_ns is the earliest time the next packet may
 * leave; sending @bytes moves it by bytes / rate, but never from earlier
 * than now - burst time, which is the bucket depth.
 */
struct mroce_pacer {
	u64 rate_bps;		/* bit/s of UDP payload; 0: unlimited */
	u64 next_ns;
	u32 burst_bytes;
};

void mroce_pacer_init(struct mroce_pacer *p, u32 burst_bytes);
void mroce_pacer_set_rate(struct mroce_pacer *p, u64 rate_bps);

/* Earliest send time of the next packet; <= now means "send now". */
static inline u64 mroce_pacer_next(const struct mroce_pacer *p)
{
	return p->next_ns;
}

static inline bool mroce_pacer_may_send(const struct mroce_pacer *p, u64 now)
{
	return now >= p->next_ns;
}

void mroce_pacer_on_send(struct mroce_pacer *p, u64 now, u32 bytes);

/* Pacing rate in bit/s: min(rate hint, window rate); 0 means unlimited.
 * @hint_kbps is aeth.rate_hint as received (METAROCE_RATE_NONE and
 * METAROCE_RATE_UNLIMITED impose no limit); @window_bps 0 is unlimited.
 */
u64 mroce_pace_rate(u32 hint_kbps, u64 window_bps);

#endif /* MROCE_PROTO_CC_H */
