/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * MetaRoCE transport algorithm cases (paths, congestion control, pacing,
 * rate hints), shared by the KUnit module and the host test program like
 * proto_cases.h, whose includer contract (struct mt, MT_CHECK, mt_log)
 * applies here too.
 */
#ifndef MROCE_TRANSPORT_CASES_H
#define MROCE_TRANSPORT_CASES_H

#include "proto/path.h"
#include "proto/cc.h"
#include "proto/ratehint.h"

#define TP_MTU		4096
#define TP_US		1000ULL
#define TP_MS		1000000ULL

static void test_tp_cc_window(struct mt *t)
{
	const u64 gap = MROCE_CC_LOSS_GAP_RTTS * 100 * TP_US;
	struct mroce_cc cc;
	unsigned int i;
	u64 now = 0;

	mroce_cc_init(&cc, TP_MTU, 0);
	MT_CHECK(t, cc.cwnd == MROCE_CC_INIT_WND_PKTS * TP_MTU);
	MT_CHECK(t, cc.ssthresh == MROCE_CC_MAX_WND_PKTS * TP_MTU);

	/* Slow start: the window grows by the bytes acked. */
	mroce_cc_on_ack(&cc, now, 100 * TP_US, 5 * TP_MTU);
	MT_CHECK(t, cc.cwnd == 15 * TP_MTU);

	/* Congestion avoidance: one MTU per window's worth of acks. */
	cc.cwnd = 20 * TP_MTU;
	cc.ssthresh = 20 * TP_MTU;
	for (i = 0; i < 19; i++)
		mroce_cc_on_ack(&cc, now, 100 * TP_US, TP_MTU);
	MT_CHECK(t, cc.cwnd == 20 * TP_MTU);
	mroce_cc_on_ack(&cc, now, 100 * TP_US, TP_MTU);
	MT_CHECK(t, cc.cwnd == 21 * TP_MTU);
	MT_CHECK(t, cc.ca_acc == 0);
	/* A partial ack carries over to the next increase. */
	mroce_cc_on_ack(&cc, now, 100 * TP_US, 22 * TP_MTU);
	MT_CHECK(t, cc.cwnd == 22 * TP_MTU);
	MT_CHECK(t, cc.ca_acc == TP_MTU);

	/* Slow start stops at ssthresh. */
	cc.cwnd = 10 * TP_MTU;
	cc.ssthresh = 12 * TP_MTU;
	mroce_cc_on_ack(&cc, now, 100 * TP_US, 8 * TP_MTU);
	MT_CHECK(t, cc.cwnd == 12 * TP_MTU);

	/* Maximum window. */
	cc.cwnd = mroce_cc_max_wnd(&cc);
	cc.ssthresh = cc.cwnd;
	mroce_cc_on_ack(&cc, now, 100 * TP_US, 1000 * TP_MTU);
	MT_CHECK(t, cc.cwnd == MROCE_CC_MAX_WND_PKTS * TP_MTU);
	mroce_cc_init(&cc, TP_MTU, 0);
	cc.ssthresh = cc.cwnd;
	mroce_cc_on_ack(&cc, now, 100 * TP_US, 0xffffffffU);
	MT_CHECK(t, cc.cwnd <= MROCE_CC_MAX_WND_PKTS * TP_MTU);

	/* Minimum window: halving stops at one MTU. */
	mroce_cc_init(&cc, TP_MTU, 0);
	for (i = 0; i < 10; i++) {
		now += 200 * TP_US;
		mroce_cc_on_ecn(&cc, now, 100 * TP_US, 1, 1);
	}
	MT_CHECK(t, cc.cwnd == MROCE_CC_MIN_WND_PKTS * TP_MTU);
	MT_CHECK(t, cc.decreases == 10);
	/* A loss with marks seen halves; an odd window rounds down. */
	mroce_cc_init(&cc, 1000, 0);
	cc.cwnd = 5001;
	cc.ecn_frac = 1;
	MT_CHECK(t, mroce_cc_on_loss(&cc, 0, 100 * TP_US));
	MT_CHECK(t, cc.cwnd == 2501 && cc.ssthresh == 2501);
	/* ... and with marks, down to one MTU. */
	cc.cwnd = 3000;
	MT_CHECK(t, mroce_cc_on_loss(&cc, 100 * TP_US, 100 * TP_US));
	MT_CHECK(t, cc.cwnd == 1500);
	MT_CHECK(t, mroce_cc_on_loss(&cc, 200 * TP_US, 100 * TP_US));
	MT_CHECK(t, cc.cwnd == 1000);
	/* A loss on a path with no marks takes a sixteenth, not below two
	 * MTUs, at most once per MROCE_CC_LOSS_GAP_RTTS RTTs ...
	 */
	mroce_cc_init(&cc, 1000, 0);
	cc.cwnd = 16001;
	MT_CHECK(t, mroce_cc_on_loss(&cc, 0, 100 * TP_US));
	MT_CHECK(t, cc.cwnd == 15001);
	/* ... halving ssthresh, not ending slow start at the window ... */
	MT_CHECK(t, cc.ssthresh == MROCE_CC_MAX_WND_PKTS * 1000 / 2);
	MT_CHECK(t, !mroce_cc_on_loss(&cc, 100 * TP_US, 100 * TP_US));
	MT_CHECK(t, !mroce_cc_on_loss(&cc, gap - 1, 100 * TP_US));
	MT_CHECK(t, cc.cwnd == 15001);
	/* (past CWR it grows by what is acked, as in slow start) */
	mroce_cc_on_ack(&cc, 100 * TP_US, 100 * TP_US, 4000);
	MT_CHECK(t, cc.cwnd == 19001);
	cc.cwnd = 2100;
	MT_CHECK(t, mroce_cc_on_loss(&cc, gap, 100 * TP_US));
	MT_CHECK(t, cc.cwnd == MROCE_CC_LOSS_MIN_PKTS * 1000);
	MT_CHECK(t, cc.ssthresh == MROCE_CC_MAX_WND_PKTS * 1000 / 4);
	/* ... and a smaller window does not grow. */
	cc.cwnd = 1000;
	MT_CHECK(t, mroce_cc_on_loss(&cc, 2 * gap, 100 * TP_US));
	MT_CHECK(t, cc.cwnd == 1000);
	MT_CHECK(t, cc.ssthresh == MROCE_CC_MAX_WND_PKTS * 1000 / 8);
	/* A mark within the gap still halves: it is congestion. */
	cc.cwnd = 4000;
	MT_CHECK(t, mroce_cc_on_ecn(&cc, 2 * gap + 100 * TP_US, 100 * TP_US,
				    1, 1));
	MT_CHECK(t, cc.cwnd == 2000 && cc.ssthresh == 2000);
	/* A no-mark loss never leaves ssthresh below the window. */
	mroce_cc_init(&cc, 1000, 0);
	cc.cwnd = 200000;
	MT_CHECK(t, mroce_cc_on_loss(&cc, 0, 100 * TP_US));
	MT_CHECK(t, cc.cwnd == 187500 && cc.ssthresh == 187500);
	/* Only in the first slow start: after a timeout a loss may be a
	 * queue that does not mark, and ssthresh goes to the window.
	 */
	mroce_cc_init(&cc, 1000, 0);
	cc.cwnd = 16001;
	mroce_cc_on_timeout(&cc, 0);
	MT_CHECK(t, cc.cwnd == 1000 && cc.ssthresh == 8000);
	cc.cwnd = 4000;
	MT_CHECK(t, mroce_cc_on_loss(&cc, gap, 100 * TP_US));
	MT_CHECK(t, cc.cwnd == 3750 && cc.ssthresh == 3750);
	/* ... nor after a mark, once the marks have died away. */
	mroce_cc_init(&cc, 1000, 0);
	MT_CHECK(t, mroce_cc_on_ecn(&cc, 0, 100 * TP_US, 1, 1));
	cc.ecn_frac = 0;
	cc.ssthresh = 10000;
	cc.cwnd = 4000;
	MT_CHECK(t, mroce_cc_on_loss(&cc, gap, 100 * TP_US));
	MT_CHECK(t, cc.cwnd == 3750 && cc.ssthresh == 3750);
	/* Timeout: minimum window, ssthresh at half the old window. */
	mroce_cc_init(&cc, TP_MTU, 0);
	cc.cwnd = 40 * TP_MTU;
	mroce_cc_on_timeout(&cc, 0);
	MT_CHECK(t, cc.cwnd == TP_MTU);
	MT_CHECK(t, cc.ssthresh == 20 * TP_MTU);
	MT_CHECK(t, mroce_cc_window_rate(&cc, 100 * TP_US) ==
		    (u64)TP_MTU * 8 * 10000);
}

/*
 * A loss in every RTT, with no marks: heavy random loss. The path must
 * settle where the rule says (a sixteenth per MROCE_CC_LOSS_GAP_RTTS
 * RTTs against one MTU in each but the first of them), which has to be
 * above a path's share of the connection's pipe: 1 MiB over 8 paths of
 * 1452-byte packets is 90 packets (qp.h). Below it random loss, not the
 * link, sets the rate. It must settle from above too: a path that keeps
 * losing shrinks.
 */
static void test_tp_cc_loss_settles(struct mt *t)
{
	const u32 settle = (MROCE_CC_LOSS_GAP_RTTS - 1) << MROCE_CC_LOSS_SHIFT;
	const u64 srtt = TP_MS;
	u32 start, lo, hi, k;
	struct mroce_cc cc;

	for (start = 0; start < 2; start++) {
		mroce_cc_init(&cc, 1000, 0);
		if (start)
			cc.cwnd = MROCE_CC_MAX_WND_PKTS * 1000;
		lo = U32_MAX;
		hi = 0;
		for (k = 0; k < 4000; k++) {
			mroce_cc_on_ack(&cc, k * srtt + srtt / 2, srtt, cc.cwnd);
			(void)mroce_cc_on_loss(&cc, (k + 1) * srtt - 1, srtt);
			if (k < 3000)
				continue;
			if (cc.cwnd / 1000 < lo)
				lo = cc.cwnd / 1000;
			if (cc.cwnd / 1000 > hi)
				hi = cc.cwnd / 1000;
		}
		mt_log(t, "loss every RTT from %s: %u-%u packets",
		       start ? "the maximum" : "the start", lo, hi);
		MT_CHECK(t, lo + MROCE_CC_LOSS_GAP_RTTS >= settle);
		MT_CHECK(t, hi <= settle + MROCE_CC_LOSS_GAP_RTTS);
		MT_CHECK(t, lo >= 90);
	}
}

static void test_tp_cc_once_per_rtt(struct mt *t)
{
	const u64 srtt = 100 * TP_US;
	struct mroce_cc cc;
	u64 now = 5 * TP_MS;

	mroce_cc_init(&cc, TP_MTU, 0);
	cc.cwnd = 64 * TP_MTU;
	cc.ssthresh = 64 * TP_MTU;

	MT_CHECK(t, mroce_cc_on_ecn(&cc, now, srtt, 3, 8));
	MT_CHECK(t, cc.cwnd == 32 * TP_MTU);
	MT_CHECK(t, cc.ssthresh == 32 * TP_MTU);
	/* More marks and a loss within the same RTT: no further decrease. */
	MT_CHECK(t, !mroce_cc_on_ecn(&cc, now + 1, srtt, 8, 8));
	MT_CHECK(t, !mroce_cc_on_ecn(&cc, now + srtt / 2, srtt, 8, 8));
	MT_CHECK(t, !mroce_cc_on_loss(&cc, now + srtt - 1, srtt));
	MT_CHECK(t, cc.cwnd == 32 * TP_MTU);
	/* ... and no increase either while the old window drains. */
	mroce_cc_on_ack(&cc, now + srtt - 1, srtt, 64 * TP_MTU);
	MT_CHECK(t, cc.cwnd == 32 * TP_MTU);
	/* One RTT later the next mark counts again. */
	MT_CHECK(t, mroce_cc_on_ecn(&cc, now + srtt, srtt, 1, 8));
	MT_CHECK(t, cc.cwnd == 16 * TP_MTU);
	MT_CHECK(t, cc.decreases == 2);
	/* Unmarked echoes after that grow the window again. */
	now += 2 * srtt;
	MT_CHECK(t, !mroce_cc_on_ecn(&cc, now, srtt, 0, 8));
	mroce_cc_on_ack(&cc, now, srtt, 16 * TP_MTU);
	MT_CHECK(t, cc.cwnd == 17 * TP_MTU);
	/* Before any RTT sample the gate is the default RTT. */
	mroce_cc_init(&cc, TP_MTU, 0);
	MT_CHECK(t, mroce_cc_on_ecn(&cc, 0, 0, 1, 1));
	MT_CHECK(t, !mroce_cc_on_ecn(&cc, MROCE_CC_DEFAULT_RTT_NS - 1, 0,
				     1, 1));
	MT_CHECK(t, mroce_cc_on_ecn(&cc, MROCE_CC_DEFAULT_RTT_NS, 0, 1, 1));
}

static void test_tp_cc_ecn_frac(struct mt *t)
{
	struct mroce_cc cc;
	unsigned int i;

	mroce_cc_init(&cc, TP_MTU, 0);
	for (i = 0; i < 200; i++)
		mroce_cc_on_ecn(&cc, i * TP_MS, 100 * TP_US, 1, 2);
	MT_CHECK(t, cc.ecn_frac >= 500 && cc.ecn_frac <= 512);
	for (i = 0; i < 200; i++)
		mroce_cc_on_ecn(&cc, i * TP_MS, 100 * TP_US, 0, 2);
	MT_CHECK(t, cc.ecn_frac == 0);
	for (i = 0; i < 300; i++)
		mroce_cc_on_ecn(&cc, i * TP_MS, 100 * TP_US, 4, 2);
	MT_CHECK(t, cc.ecn_frac == MROCE_CC_FRAC_ONE);
	MT_CHECK(t, cc.marks == 200 + 1200);
}

static void tp_paths_init(struct mroce_path *p, unsigned int n, u32 cwnd)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		mroce_path_init(&p[i], i, TP_MTU, 1);
		p[i].cc.cwnd = cwnd;
		mroce_rtt_sample(&p[i].rtt, 100 * TP_US);
	}
}

static void test_tp_only_marked_path(struct mt *t)
{
	/* Static: four paths are too big for a KASAN kernel's stack frame. */
	static struct mroce_path p[4];
	u64 now = 10 * TP_MS;
	unsigned int i;

	tp_paths_init(p, 4, 64 * TP_MTU);
	for (i = 0; i < 4; i++)
		mroce_path_on_echo(&p[i], now, now - 100 * TP_US, i == 2, 4);
	MT_CHECK(t, p[2].cc.cwnd == 32 * TP_MTU);
	MT_CHECK(t, p[0].cc.cwnd == 64 * TP_MTU);
	MT_CHECK(t, p[1].cc.cwnd == 64 * TP_MTU);
	MT_CHECK(t, p[3].cc.cwnd == 64 * TP_MTU);
	MT_CHECK(t, p[2].cc.ecn_frac > 0 && p[0].cc.ecn_frac == 0);
	/* A loss detected on path 1 shrinks only path 1, by a sixteenth:
	 * it has seen no marks. Marked path 2 halves on a loss.
	 */
	(void)mroce_path_on_send(&p[1], now, TP_MTU);
	mroce_path_on_lost(&p[1], now, 0, TP_MTU);
	MT_CHECK(t, p[1].cc.cwnd == 60 * TP_MTU);
	MT_CHECK(t, p[0].cc.cwnd == 64 * TP_MTU);
	MT_CHECK(t, p[3].cc.cwnd == 64 * TP_MTU);
	now += 200 * TP_US;
	(void)mroce_path_on_send(&p[2], now, TP_MTU);
	mroce_path_on_lost(&p[2], now, 0, TP_MTU);
	MT_CHECK(t, p[2].cc.cwnd == 16 * TP_MTU);
}

static void test_tp_rtt(struct mt *t)
{
	struct mroce_rtt r;
	unsigned int i;

	mroce_rtt_init(&r);
	MT_CHECK(t, mroce_rtt_rto(&r) == MROCE_RTO_INIT_NS);
	/* First sample: srtt = R, rttvar = R / 2, rto = R + 4 * R / 2. */
	mroce_rtt_sample(&r, 2 * TP_MS);
	MT_CHECK(t, r.srtt_ns == 2 * TP_MS);
	MT_CHECK(t, r.rttvar_ns == TP_MS);
	MT_CHECK(t, mroce_rtt_rto(&r) == 6 * TP_MS);
	/* Second: rttvar = 3/4 * 1ms + 1/4 * |2 - 4| ms, srtt += (4 - 2)/8. */
	mroce_rtt_sample(&r, 4 * TP_MS);
	MT_CHECK(t, r.rttvar_ns == 1250 * TP_US);
	MT_CHECK(t, r.srtt_ns == 2250 * TP_US);
	MT_CHECK(t, r.rto_ns == 7250 * TP_US);

	/* Convergence on a step change of the RTT. */
	mroce_rtt_init(&r);
	for (i = 0; i < 100; i++)
		mroce_rtt_sample(&r, 100 * TP_US);
	MT_CHECK(t, r.srtt_ns == 100 * TP_US);
	MT_CHECK(t, r.rttvar_ns < TP_US);
	/* Tiny RTTs are clamped to the minimum RTO. */
	MT_CHECK(t, mroce_rtt_rto(&r) == MROCE_RTO_MIN_NS);
	for (i = 0; i < 100; i++)
		mroce_rtt_sample(&r, 20 * TP_MS);
	MT_CHECK(t, r.srtt_ns > 19800 * TP_US && r.srtt_ns <= 20 * TP_MS);
	MT_CHECK(t, mroce_rtt_rto(&r) >= r.srtt_ns);
	MT_CHECK(t, mroce_rtt_rto(&r) < 21 * TP_MS);
	/* Backoff doubles up to the maximum. */
	r.backoff = 3;
	MT_CHECK(t, mroce_rtt_rto(&r) == r.rto_ns * 8);
	r.backoff = 31;
	MT_CHECK(t, mroce_rtt_rto(&r) == MROCE_RTO_MAX_NS);
	r.backoff = 0;
	mroce_rtt_sample(&r, 10000 * TP_MS);
	MT_CHECK(t, mroce_rtt_rto(&r) == MROCE_RTO_MAX_NS);
	/* A zero sample is counted as 1 ns, not as "no sample". */
	mroce_rtt_init(&r);
	mroce_rtt_sample(&r, 0);
	MT_CHECK(t, r.valid && r.srtt_ns == 1);
}

/* Time out @p's packets until it fails, then send its first probe. */
static void tp_fail_and_probe(struct mroce_path *p, u64 *now)
{
	while (p->state != MROCE_PATH_FAILED) {
		(void)mroce_path_on_send(p, *now, TP_MTU);
		*now += mroce_rtt_rto(&p->rtt);
		(void)mroce_path_on_timeout(p, *now);
	}
	*now += MROCE_PATH_PROBE_INTERVAL_NS;
	mroce_path_on_probe_sent(p, *now);
}

#include "path_loss_cases.h"

/*
 * A connection's initial window is shared by its paths, one MTU at
 * least, and a path that comes back from failure starts over with its
 * share, not the connection's whole window.
 */
static void test_tp_init_share(struct mt *t)
{
	static const u32 share[][2] = {
		{ 0, 10 }, { 1, 10 }, { 2, 5 }, { 3, 4 }, { 4, 3 }, { 8, 2 },
		{ 10, 1 }, { 16, 1 }, { 64, 1 },
	};
	struct mroce_path p;
	unsigned int i;
	u64 now = TP_MS;

	for (i = 0; i < ARRAY_SIZE(share); i++) {
		mroce_path_init(&p, 0, TP_MTU, share[i][0]);
		MT_CHECK(t, p.cc.cwnd == share[i][1] * TP_MTU);
	}
	/* p has 64 siblings: fail it, probe it, let it answer. */
	tp_fail_and_probe(&p, &now);
	MT_CHECK(t, mroce_path_on_echo(&p, now + 50 * TP_US, now, 0, 1));
	MT_CHECK(t, p.state == MROCE_PATH_ACTIVE && p.cc.cwnd == TP_MTU);
}

/* Send one packet on @p and let its RTO expire. */
static void tp_timeout(struct mroce_path *p, u64 *now)
{
	(void)mroce_path_on_send(p, *now, TP_MTU);
	*now += mroce_rtt_rto(&p->rtt);
	if (mroce_path_timer_expired(p, *now))
		(void)mroce_path_on_timeout(p, *now);
}

static void test_tp_path_states(struct mt *t)
{
	/* Static: paths are too big for a KASAN kernel's stack frame. */
	static struct mroce_path p[2];
	u64 now = TP_MS, probe;

	tp_paths_init(p, 2, 10 * TP_MTU);
	MT_CHECK(t, p[0].state == MROCE_PATH_ACTIVE);
	tp_timeout(&p[0], &now);
	MT_CHECK(t, p[0].state == MROCE_PATH_SUSPECT && p[0].timeouts == 1);
	/* A suspect path carries no data; it is probed at once. */
	MT_CHECK(t, mroce_path_weight(&p[0]) == 0);
	MT_CHECK(t, !mroce_path_can_send(&p[0], TP_MTU));
	MT_CHECK(t, mroce_path_select(p, 2, TP_MTU) == 1);
	MT_CHECK(t, mroce_path_probe_due(&p[0], now));
	MT_CHECK(t, mroce_path_next_event(&p[0]) == now);
	mroce_path_on_probe_sent(&p[0], now);
	MT_CHECK(t, p[0].state == MROCE_PATH_SUSPECT && p[0].timeouts == 1);
	MT_CHECK(t, !mroce_path_probe_due(&p[0], now + 1));
	MT_CHECK(t, mroce_path_next_event(&p[0]) ==
		 now + mroce_rtt_rto(&p[0].rtt));
	/* Hearing from the path clears the suspicion and the backoff. */
	mroce_path_on_echo(&p[0], now, now - 100 * TP_US, 0, 1);
	MT_CHECK(t, p[0].state == MROCE_PATH_ACTIVE && p[0].timeouts == 0);
	MT_CHECK(t, p[0].rtt.backoff == 0);

	/* Probes unanswered for an RTO each count as timeouts. */
	tp_timeout(&p[0], &now);
	MT_CHECK(t, p[0].state == MROCE_PATH_SUSPECT);
	mroce_path_on_probe_sent(&p[0], now);
	MT_CHECK(t, p[0].timeouts == 1 && p[0].timeouts_total == 2);
	now += mroce_rtt_rto(&p[0].rtt);
	MT_CHECK(t, mroce_path_probe_due(&p[0], now));
	mroce_path_on_probe_sent(&p[0], now);
	MT_CHECK(t, p[0].state == MROCE_PATH_SUSPECT && p[0].timeouts == 2);
	MT_CHECK(t, p[0].rtt.backoff == 2);
	now += mroce_rtt_rto(&p[0].rtt);
	MT_CHECK(t, mroce_path_probe_due(&p[0], now));
	mroce_path_on_probe_sent(&p[0], now);
	MT_CHECK(t, p[0].state == MROCE_PATH_PROBING);
	MT_CHECK(t, p[0].timeouts_total == 4);
	/* Timeouts of data alone fail a path as well. */
	tp_paths_init(p, 2, 10 * TP_MTU);
	tp_timeout(&p[0], &now);
	tp_timeout(&p[0], &now);
	MT_CHECK(t, p[0].state == MROCE_PATH_SUSPECT);
	tp_timeout(&p[0], &now);
	MT_CHECK(t, p[0].state == MROCE_PATH_FAILED);
	MT_CHECK(t, p[0].timeouts == MROCE_PATH_FAIL_TIMEOUTS);
	MT_CHECK(t, mroce_path_weight(&p[0]) == 0);
	MT_CHECK(t, !mroce_path_can_send(&p[0], TP_MTU));
	MT_CHECK(t, mroce_path_select(p, 2, TP_MTU) == 1);

	/* Probed only once the interval has passed. */
	MT_CHECK(t, !mroce_path_probe_due(&p[0], now));
	MT_CHECK(t, !mroce_path_probe_due(&p[1], now + 100 * TP_MS));
	now += MROCE_PATH_PROBE_INTERVAL_NS;
	MT_CHECK(t, mroce_path_probe_due(&p[0], now));
	probe = now;
	mroce_path_on_probe_sent(&p[0], probe);
	MT_CHECK(t, p[0].state == MROCE_PATH_PROBING);
	MT_CHECK(t, !mroce_path_probe_due(&p[0], now + 1));
	MT_CHECK(t, !mroce_path_can_send(&p[0], TP_MTU));
	/* An unanswered probe is repeated one interval later. */
	now += MROCE_PATH_PROBE_INTERVAL_NS;
	MT_CHECK(t, mroce_path_probe_due(&p[0], now));
	mroce_path_on_probe_sent(&p[0], now);
	/* An echo of something sent before the failure does not revive it. */
	MT_CHECK(t, !mroce_path_on_echo(&p[0], now + 10,
					probe - MROCE_PATH_PROBE_INTERVAL_NS - 1,
					0, 1));
	MT_CHECK(t, p[0].state == MROCE_PATH_PROBING);
	/*
	 * The first probe's answer does, with a fresh window, though a
	 * later probe went out before it came: the route's queue is longer
	 * than the probe interval.
	 */
	MT_CHECK(t, mroce_path_on_echo(&p[0], now + 50 * TP_US, probe, 0, 1));
	MT_CHECK(t, p[0].state == MROCE_PATH_ACTIVE);
	MT_CHECK(t, p[0].timeouts == 0);
	MT_CHECK(t, p[0].cc.cwnd == MROCE_CC_INIT_WND_PKTS * TP_MTU);
	MT_CHECK(t, mroce_path_can_send(&p[0], TP_MTU));
	MT_CHECK(t, mroce_path_weight(&p[0]) > 0);
}

/*
 * A timeout is the path's own only when something sent after its oldest
 * packet was acknowledged, or no other path is waiting either.
 */
static void test_tp_silent_together(struct mt *t)
{
	/* Static: four paths are too big for a KASAN kernel's stack frame. */
	static struct mroce_path p[3];
	u64 now = 10 * TP_MS, rto;
	unsigned int i;

	tp_paths_init(p, 3, 64 * TP_MTU);
	for (i = 0; i < 3; i++)
		(void)mroce_path_on_send(&p[i], now + i, TP_MTU);
	/* Nothing sent after path 0's packet was acknowledged: a stall. */
	MT_CHECK(t, mroce_paths_silent_together(p, 3, 0, now, now, 0));
	MT_CHECK(t, mroce_paths_silent_together(p, 3, 0, now, 0, 0));
	/* Path 2's later packet arrived: path 0's packet is late. */
	MT_CHECK(t, !mroce_paths_silent_together(p, 3, 0, now, now + 2, 0));
	MT_CHECK(t, mroce_paths_others_busy(p, 3, 0));
	/* ... unless the timer ran half a round trip late: this host
	 * stalled, and other planes' shallower queues had brought later
	 * packets first. Half a round trip is 1 ms here.
	 */
	p[0].rtt.valid = 1;
	p[0].rtt.srtt_ns = 2 * TP_MS;
	MT_CHECK(t, !mroce_paths_silent_together(p, 3, 0, now, now + 2,
						 TP_MS - 1));
	MT_CHECK(t, mroce_paths_silent_together(p, 3, 0, now, now + 2,
						TP_MS));
	/* A fabric's round trip of 10 us: a timer 20 us late is a softirq's
	 * usual delay, not a stall, and the route's failure is its own.
	 * MROCE_PATH_STALL_MIN_NS late is a stall.
	 */
	p[0].rtt.srtt_ns = 10 * TP_US;
	MT_CHECK(t, !mroce_paths_silent_together(p, 3, 0, now, now + 2,
						 20 * TP_US));
	MT_CHECK(t, !mroce_paths_silent_together(p, 3, 0, now, now + 2,
						 MROCE_PATH_STALL_MIN_NS - 1));
	MT_CHECK(t, mroce_paths_silent_together(p, 3, 0, now, now + 2,
						MROCE_PATH_STALL_MIN_NS));
	/* Before a sample srtt is the default (100 us): the floor again. */
	p[0].rtt.valid = 0;
	MT_CHECK(t, !mroce_paths_silent_together(p, 3, 0, now, now + 2,
						 MROCE_PATH_DEFAULT_RTT_NS));
	MT_CHECK(t, mroce_paths_silent_together(p, 3, 0, now, now + 2,
						MROCE_PATH_STALL_MIN_NS));
	/* No other busy path to compare with: the path's own silence. */
	tp_paths_init(p, 3, 64 * TP_MTU);
	(void)mroce_path_on_send(&p[0], now, TP_MTU);
	MT_CHECK(t, !mroce_paths_silent_together(p, 3, 0, now, 0, 0));
	MT_CHECK(t, !mroce_paths_silent_together(p, 3, 0, now, now + 2,
						 TP_MS));
	MT_CHECK(t, !mroce_paths_others_busy(p, 3, 0));
	MT_CHECK(t, mroce_paths_others_busy(p, 3, 1));
	/* A busy path that is not ACTIVE does not count either. */
	(void)mroce_path_on_send(&p[1], now + 1, TP_MTU);
	p[1].state = MROCE_PATH_SUSPECT;
	MT_CHECK(t, !mroce_paths_silent_together(p, 3, 0, now, 0, 0));
	p[1].state = MROCE_PATH_ACTIVE;
	MT_CHECK(t, mroce_paths_silent_together(p, 3, 0, now, 0, 0));
	/* A restart gives another, doubled RTO. */
	rto = mroce_rtt_rto(&p[0].rtt);
	mroce_path_timer_restart(&p[0], now + rto);
	MT_CHECK(t, !mroce_path_timer_expired(&p[0], now + 2 * rto));
	MT_CHECK(t, mroce_path_timer_expired(&p[0], now + 3 * rto));
	/* ... until the path is heard again. */
	MT_CHECK(t, mroce_path_on_acked(&p[0], now + 3 * rto, 0, TP_MTU));
	MT_CHECK(t, mroce_rtt_rto(&p[0].rtt) == rto);
}

/* The packet after which no path can send must ask for an ACK. */
static void test_tp_full_after(struct mt *t)
{
	/* Static: four paths are too big for a KASAN kernel's stack frame. */
	static struct mroce_path p[4];
	unsigned int i;

	/* Two paths of two packets each, both with one in flight. */
	tp_paths_init(p, 2, 2 * TP_MTU);
	for (i = 0; i < 2; i++)
		(void)mroce_path_on_send(&p[i], 0, TP_MTU);
	/* Path 0 sends its second: path 1 still has room. */
	MT_CHECK(t, !mroce_paths_full_after(p, 2, 0, TP_MTU));
	(void)mroce_path_on_send(&p[0], 0, TP_MTU);
	/* Path 1 sends its second: now nobody has room. */
	MT_CHECK(t, mroce_paths_full_after(p, 2, 1, TP_MTU));
	/* A path that is not carrying data does not count as room. */
	tp_paths_init(p, 2, 2 * TP_MTU);
	p[1].state = MROCE_PATH_SUSPECT;
	(void)mroce_path_on_send(&p[0], 0, TP_MTU);
	MT_CHECK(t, mroce_paths_full_after(p, 2, 0, TP_MTU));
	/* A large window has room after one more packet. */
	tp_paths_init(p, 1, 64 * TP_MTU);
	MT_CHECK(t, !mroce_paths_full_after(p, 1, 0, TP_MTU));
	/* A one-packet window is full after its one packet. */
	tp_paths_init(p, 1, TP_MTU);
	MT_CHECK(t, mroce_paths_full_after(p, 1, 0, TP_MTU));
}

static void test_tp_select(struct mt *t)
{
	/* Static: four paths are too big for a KASAN kernel's stack frame. */
	static struct mroce_path p[4];
	unsigned int cnt[4] = { 0 }, i;
	int k;

	/* Equal paths share equally and in strict rotation. */
	tp_paths_init(p, 4, 64 * TP_MTU);
	for (i = 0; i < 10000; i++) {
		k = mroce_path_select(p, 4, TP_MTU);
		MT_CHECK(t, k == (int)(i % 4));
		if (k >= 0)
			cnt[k]++;
	}
	MT_CHECK(t, cnt[0] == 2500 && cnt[3] == 2500);

	/* A failed path gets nothing; the others split its share. */
	tp_paths_init(p, 4, 64 * TP_MTU);
	p[2].state = MROCE_PATH_FAILED;
	memset(cnt, 0, sizeof(cnt));
	for (i = 0; i < 9999; i++) {
		k = mroce_path_select(p, 4, TP_MTU);
		if (k >= 0)
			cnt[k]++;
	}
	MT_CHECK(t, cnt[2] == 0);
	MT_CHECK(t, cnt[0] == 3333 && cnt[1] == 3333 && cnt[3] == 3333);

	/* Window halved by marks: 1/7 of the picks (weights 1:2:2:2). */
	tp_paths_init(p, 4, 64 * TP_MTU);
	p[0].cc.cwnd = 32 * TP_MTU;
	memset(cnt, 0, sizeof(cnt));
	for (i = 0; i < 7000; i++) {
		k = mroce_path_select(p, 4, TP_MTU);
		if (k >= 0)
			cnt[k]++;
	}
	mt_log(t, "select cwnd/2: %u %u %u %u", cnt[0], cnt[1], cnt[2],
	       cnt[3]);
	MT_CHECK(t, cnt[0] == 1000 && cnt[1] == 2000);

	/* Twice the RTT (slow path): half the weight. A suspect path:
	 * none. A half-marked path: 1/2. Weights 2:4:0:2 of 8.
	 */
	tp_paths_init(p, 4, 64 * TP_MTU);
	p[0].rtt.srtt_ns = 200 * TP_US;
	p[2].state = MROCE_PATH_SUSPECT;
	p[3].cc.ecn_frac = MROCE_CC_FRAC_ONE / 2;
	memset(cnt, 0, sizeof(cnt));
	for (i = 0; i < 8000; i++) {
		k = mroce_path_select(p, 4, TP_MTU);
		if (k >= 0)
			cnt[k]++;
	}
	mt_log(t, "select mixed: %u %u %u %u", cnt[0], cnt[1], cnt[2],
	       cnt[3]);
	MT_CHECK(t, cnt[0] >= 1990 && cnt[0] <= 2010);
	MT_CHECK(t, cnt[1] >= 3990 && cnt[1] <= 4010);
	MT_CHECK(t, cnt[2] == 0);
	MT_CHECK(t, cnt[3] >= 1990 && cnt[3] <= 2010);

	/* Only paths with window to spare are picked; none: -EAGAIN. */
	tp_paths_init(p, 2, 2 * TP_MTU);
	for (i = 0; i < 4; i++) {
		k = mroce_path_select(p, 2, TP_MTU);
		MT_CHECK(t, k >= 0);
		if (k >= 0)
			(void)mroce_path_on_send(&p[k], 0, TP_MTU);
	}
	MT_CHECK(t, p[0].inflight == 2 * TP_MTU);
	MT_CHECK(t, p[1].inflight == 2 * TP_MTU);
	MT_CHECK(t, mroce_path_select(p, 2, TP_MTU) == -EAGAIN);
	MT_CHECK(t, mroce_path_on_acked(&p[1], 10, 0, TP_MTU));
	MT_CHECK(t, mroce_path_select(p, 2, TP_MTU) == 1);
	/* An empty path may send a packet larger than its window. */
	mroce_path_init(&p[0], 0, 1000, 1);
	MT_CHECK(t, mroce_path_can_send(&p[0], 20000));
	MT_CHECK(t, mroce_path_select(p, 0, TP_MTU) == -EAGAIN);
}

static void test_tp_all_silent(struct mt *t)
{
	/* Static: paths are too big for a KASAN kernel's stack frame. */
	static struct mroce_path p[2];
	const u64 to = 4 * TP_MS;	/* QP timeout */
	u64 now = 100 * TP_MS;

	tp_paths_init(p, 2, 10 * TP_MTU);
	/* Idle paths are not silent, however long. */
	MT_CHECK(t, !mroce_paths_all_silent(p, 2, now, to, 2));
	(void)mroce_path_on_send(&p[0], now, TP_MTU);
	(void)mroce_path_on_send(&p[1], now + TP_MS, TP_MTU);
	MT_CHECK(t, !mroce_paths_all_silent(p, 2, now + 3 * to + TP_MS, to,
					    2));
	MT_CHECK(t, mroce_paths_all_silent(p, 2, now + 3 * to + TP_MS + 1,
					   to, 2));
	/* Hearing from one path is enough to keep the QP alive. */
	(void)mroce_path_on_acked(&p[1], now + 2 * TP_MS, 0, TP_MTU);
	MT_CHECK(t, !mroce_paths_all_silent(p, 2, now + 100 * to, to, 2));
	/* Retransmissions after a timeout do not restart the clock. */
	(void)mroce_path_on_send(&p[1], now + 3 * TP_MS, TP_MTU);
	(void)mroce_path_on_timeout(&p[1], now + 5 * TP_MS);
	(void)mroce_path_on_send(&p[1], now + 5 * TP_MS, TP_MTU);
	MT_CHECK(t, mroce_paths_all_silent(p, 2, now + 3 * TP_MS + 3 * to + 1,
					   to, 2));
	MT_CHECK(t, !mroce_paths_all_silent(p, 0, now, to, 2));
}

static void test_tp_pacing(struct mt *t)
{
	struct mroce_pacer pc;
	/* Static: paths are too big for a KASAN kernel's stack frame. */
	static struct mroce_path p[2];
	u64 now = 10 * TP_MS;
	unsigned int i, burst;

	/* 8 Gbit/s is one byte per ns; no bucket: strict spacing. */
	mroce_pacer_init(&pc, 0);
	mroce_pacer_set_rate(&pc, 8000000000ULL);
	MT_CHECK(t, mroce_pacer_may_send(&pc, now));
	mroce_pacer_on_send(&pc, now, 1000);
	MT_CHECK(t, mroce_pacer_next(&pc) == now + 1000);
	MT_CHECK(t, !mroce_pacer_may_send(&pc, now + 999));
	MT_CHECK(t, mroce_pacer_may_send(&pc, now + 1000));
	/* Sending late does not earn credit without a bucket. */
	mroce_pacer_on_send(&pc, now + 1500, 4000);
	MT_CHECK(t, mroce_pacer_next(&pc) == now + 5500);

	/* 100 Gbit/s, 4096-byte packets: 327 ns apart. */
	mroce_pacer_init(&pc, 0);
	mroce_pacer_set_rate(&pc, 100000000000ULL);
	for (i = 0; i < 1000; i++) {
		MT_CHECK(t, mroce_pacer_may_send(&pc, now));
		mroce_pacer_on_send(&pc, now, 4096);
		now = mroce_pacer_next(&pc);
	}
	MT_CHECK(t, now == 10 * TP_MS + 1000 * 327);

	/* A 16 KiB bucket lets 4 + 1 packets out back to back after idle. */
	mroce_pacer_init(&pc, 16384);
	mroce_pacer_set_rate(&pc, 8000000000ULL);
	now = 50 * TP_MS;
	for (burst = 0; burst < 100 && mroce_pacer_may_send(&pc, now); burst++)
		mroce_pacer_on_send(&pc, now, 4096);
	MT_CHECK(t, burst == 5);
	MT_CHECK(t, mroce_pacer_next(&pc) == now + 4096);
	/* Unlimited rate never delays. */
	mroce_pacer_set_rate(&pc, 0);
	mroce_pacer_on_send(&pc, now, 4096);
	MT_CHECK(t, mroce_pacer_may_send(&pc, now));

	/* The pacing rate is min(rate hint, window rate). */
	/* Hints are kbit/s. */
	MT_CHECK(t, mroce_pace_rate(25000000, 40000000000ULL) ==
		    25000000000ULL);
	MT_CHECK(t, mroce_pace_rate(50000000, 40000000000ULL) ==
		    40000000000ULL);
	MT_CHECK(t, mroce_pace_rate(METAROCE_RATE_NONE, 7) == 7);
	MT_CHECK(t, mroce_pace_rate(METAROCE_RATE_UNLIMITED, 7) == 7);
	MT_CHECK(t, mroce_pace_rate(1500, 0) == 1500000ULL);
	MT_CHECK(t, mroce_pace_rate(METAROCE_RATE_NONE, 0) == 0);
	/* Window rate: cwnd * 8 / srtt summed over usable paths. */
	tp_paths_init(p, 2, 10 * TP_MTU);
	MT_CHECK(t, mroce_paths_window_rate(p, 2) ==
		    2 * (u64)10 * TP_MTU * 8 * 10000);
	p[1].state = MROCE_PATH_FAILED;
	MT_CHECK(t, mroce_paths_window_rate(p, 2) ==
		    (u64)10 * TP_MTU * 8 * 10000);
}

#include "ratehint_cases.h"

#endif /* MROCE_TRANSPORT_CASES_H */
