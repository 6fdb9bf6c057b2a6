// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Sender congestion control, one instance per path. Without PFC the fabric
 * signals congestion through ECN marks long before it drops, so marks are
 * the primary signal; only the path whose packets were marked reacts,
 * which moves load to the other paths. Loss halves the window too, but
 * on a path that saw no marks it is as likely corruption as a queue: it
 * takes a sixteenth, at most once per few RTTs, in the first slow start
 * halves ssthresh rather than setting it to the window, and leaves room
 * for two packets: with one, the next loss on the path could only be
 * found by its timer.
 */
#include "cc.h"
#include <metaroce/wire.h>

void mroce_cc_init(struct mroce_cc *cc, u32 mtu, u32 init_pkts)
{
	if (!init_pkts || init_pkts > MROCE_CC_INIT_WND_PKTS)
		init_pkts = MROCE_CC_INIT_WND_PKTS;
	memset(cc, 0, sizeof(*cc));
	cc->mtu = mtu ? mtu : 1;
	cc->init_pkts = init_pkts;
	cc->cwnd = init_pkts * cc->mtu;
	cc->ssthresh = mroce_cc_max_wnd(cc);
	cc->first_ss = 1;
}

static u64 cc_gate(u64 srtt_ns)
{
	return srtt_ns ? srtt_ns : MROCE_CC_DEFAULT_RTT_NS;
}

/* Within one RTT after a decrease the path is still draining what it sent
 * at the old rate, so neither another decrease nor an increase is due.
 */
static bool cc_in_cwr(const struct mroce_cc *cc, u64 now, u64 srtt_ns)
{
	return cc->decreased && now - cc->last_decrease_ns < cc_gate(srtt_ns);
}

void mroce_cc_on_ack(struct mroce_cc *cc, u64 now, u64 srtt_ns, u32 acked)
{
	u32 max = mroce_cc_max_wnd(cc);

	if (!acked || cc_in_cwr(cc, now, srtt_ns) || cc->cwnd >= max)
		return;
	/* Nothing acks more than a maximum window; keeps ca_acc in range. */
	if (acked > max)
		acked = max;
	if (cc->cwnd < cc->ssthresh) {
		/* Slow start: one byte of window per byte acked. */
		u64 w = (u64)cc->cwnd + acked;

		cc->cwnd = w > cc->ssthresh ? cc->ssthresh : (u32)w;
		return;
	}
	/* Additive increase: one MTU per cwnd bytes acked, i.e. per RTT. */
	cc->ca_acc += acked;
	while (cc->ca_acc >= cc->cwnd && cc->cwnd < max) {
		cc->ca_acc -= cc->cwnd;
		cc->cwnd += cc->mtu;
	}
	if (cc->cwnd > max)
		cc->cwnd = max;
}

/* Take cwnd >> @shift, to no less than @floor (but never grow) and one MTU. */
static bool cc_decrease(struct mroce_cc *cc, u64 now, u64 srtt_ns, u32 floor,
			unsigned int shift)
{
	u32 min = mroce_cc_min_wnd(cc);
	u32 w;

	if (cc_in_cwr(cc, now, srtt_ns))
		return false;
	w = cc->cwnd - (cc->cwnd >> shift);
	if (w < floor)
		w = cc->cwnd < floor ? cc->cwnd : floor;
	cc->cwnd = w < min ? min : w;
	cc->ssthresh = cc->cwnd;
	cc->ca_acc = 0;
	cc->decreased = 1;
	cc->last_decrease_ns = now;
	cc->decreases++;
	return true;
}

bool mroce_cc_on_ecn(struct mroce_cc *cc, u64 now, u64 srtt_ns, u32 ce,
		     u32 pkts)
{
	s32 f, frac = cc->ecn_frac;

	/* ce counts marks since the previous echo of this path, which may
	 * cover more packets than this ACK acknowledges.
	 */
	if (pkts < ce)
		pkts = ce;
	if (!pkts)
		return false;
	f = (s32)((u64)ce * MROCE_CC_FRAC_ONE / pkts);
	/* Arithmetic shift of a negative step rounds towards -inf, so the
	 * fraction does reach 0 after marks stop.
	 */
	frac += (f - frac) >> MROCE_CC_FRAC_GAIN_SHIFT;
	if (f > frac && (f - frac) >> MROCE_CC_FRAC_GAIN_SHIFT == 0)
		frac++;
	cc->ecn_frac = (u16)frac;
	if (!ce)
		return false;
	cc->marks += ce;
	cc->first_ss = 0;
	return cc_decrease(cc, now, srtt_ns, 0, MROCE_CC_DECREASE_SHIFT);
}

bool mroce_cc_on_loss(struct mroce_cc *cc, u64 now, u64 srtt_ns)
{
	u32 ss;

	/*
	 * ecn_frac decays to 0 only after marks have stopped for a while;
	 * the mark that raised it ended the first slow start.
	 */
	if (cc->ecn_frac)
		return cc_decrease(cc, now, srtt_ns, 0, MROCE_CC_DECREASE_SHIFT);
	/*
	 * Under random loss every path loses again within a few RTTs;
	 * answering each loss held the windows to what the loss rate
	 * allows, whatever the link carries (sqrt(8 / p) packets).
	 */
	if (cc->decreased && now - cc->last_decrease_ns <
			     MROCE_CC_LOSS_GAP_RTTS * cc_gate(srtt_ns))
		return false;
	ss = cc->ssthresh;
	if (!cc_decrease(cc, now, srtt_ns, MROCE_CC_LOSS_MIN_PKTS * cc->mtu,
			 MROCE_CC_LOSS_SHIFT))
		return false;
	/*
	 * In the first slow start it only halves the threshold, no lower
	 * than the window: the first random losses come while the windows
	 * are a few packets, and growing from there by one packet per RTT
	 * held 1% loss runs below the pipe. After a timeout or a mark,
	 * losses may be a full queue that does not mark, and slow start
	 * past them overfills it.
	 */
	if (cc->first_ss && cc->ssthresh < ss >> 1)
		cc->ssthresh = ss >> 1;
	return true;
}

void mroce_cc_on_timeout(struct mroce_cc *cc, u64 now)
{
	u32 min = mroce_cc_min_wnd(cc);
	u32 half = cc->cwnd >> 1;

	cc->ssthresh = half < min ? min : half;
	cc->first_ss = 0;
	cc->cwnd = min;
	cc->ca_acc = 0;
	cc->decreased = 1;
	cc->last_decrease_ns = now;
	cc->decreases++;
}

u64 mroce_cc_window_rate(const struct mroce_cc *cc, u64 srtt_ns)
{
	return mroce_div_u64((u64)cc->cwnd * 8 * MROCE_NSEC_PER_SEC,
			     cc_gate(srtt_ns));
}

void mroce_pacer_init(struct mroce_pacer *p, u32 burst_bytes)
{
	memset(p, 0, sizeof(*p));
	p->burst_bytes = burst_bytes;
}

void mroce_pacer_set_rate(struct mroce_pacer *p, u64 rate_bps)
{
	p->rate_bps = rate_bps;
}

void mroce_pacer_on_send(struct mroce_pacer *p, u64 now, u32 bytes)
{
	u64 burst_ns, start;

	if (!p->rate_bps) {
		p->next_ns = now;
		return;
	}
	burst_ns = mroce_div_u64((u64)p->burst_bytes * 8 * MROCE_NSEC_PER_SEC,
				 p->rate_bps);
	/* Credit unused while idle only up to the bucket depth. */
	start = p->next_ns;
	if (now > burst_ns && start < now - burst_ns)
		start = now - burst_ns;
	p->next_ns = start + mroce_div_u64((u64)bytes * 8 * MROCE_NSEC_PER_SEC,
					   p->rate_bps);
}

u64 mroce_pace_rate(u32 hint_kbps, u64 window_bps)
{
	u64 hint_bps;

	if (hint_kbps == METAROCE_RATE_NONE ||
	    hint_kbps == METAROCE_RATE_UNLIMITED)
		return window_bps;
	hint_bps = (u64)hint_kbps * METAROCE_RATE_UNIT_BPS;
	if (!window_bps || hint_bps < window_bps)
		return hint_bps;
	return window_bps;
}
