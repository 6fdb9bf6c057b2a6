/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Transport cases for a path's loss detection and retransmission timer:
 * SACK count and overdue rules, timeouts and their undo, forgetting a
 * transmission. Included by transport_cases.h, whose TP_* units and
 * includer contract apply.
 */
#ifndef MROCE_PATH_LOSS_CASES_H
#define MROCE_PATH_LOSS_CASES_H

static void test_tp_loss_sack(struct mt *t)
{
	struct mroce_path p;
	u64 now = TP_MS;
	u32 seq;

	mroce_path_init(&p, 7, TP_MTU, 1);
	for (seq = 0; seq < 6; seq++)
		MT_CHECK(t, mroce_path_on_send(&p, now, TP_MTU) == seq);
	MT_CHECK(t, p.inflight == 6 * TP_MTU);
	MT_CHECK(t, mroce_path_holes(&p) == 0);

	/* 1 and 2 arrive: two later packets are not enough to give up 0. */
	MT_CHECK(t, mroce_path_on_acked(&p, now, 1, TP_MTU));
	MT_CHECK(t, mroce_path_holes(&p) == 1);
	MT_CHECK(t, mroce_path_seq_in_hole(&p, 0));
	MT_CHECK(t, !mroce_path_seq_in_hole(&p, 1));
	MT_CHECK(t, !mroce_path_seq_in_hole(&p, 2));
	MT_CHECK(t, mroce_path_on_acked(&p, now, 2, TP_MTU));
	MT_CHECK(t, !mroce_path_on_acked(&p, now, 2, TP_MTU));
	MT_CHECK(t, !mroce_path_seq_lost(&p, 0, now, now));
	MT_CHECK(t, p.inflight == 4 * TP_MTU);
	/* The third later packet makes 0 lost, but not 4 (nothing later). */
	MT_CHECK(t, mroce_path_on_acked(&p, now, 3, TP_MTU));
	MT_CHECK(t, mroce_path_seq_lost(&p, 0, now, now));
	MT_CHECK(t, !mroce_path_seq_lost(&p, 4, now, now));
	MT_CHECK(t, !mroce_path_seq_lost(&p, 3, now, now));
	MT_CHECK(t, !mroce_path_seq_done(&p, 0));
	mroce_path_on_lost(&p, now, 0, TP_MTU);
	MT_CHECK(t, mroce_path_seq_done(&p, 0));
	MT_CHECK(t, !mroce_path_seq_lost(&p, 0, now, now));
	MT_CHECK(t, p.losses == 1);
	MT_CHECK(t, p.inflight == 2 * TP_MTU);
	MT_CHECK(t, p.done.base == 4);
	/* The hole is gone: 4 and 5 are out, nothing after them is in. */
	MT_CHECK(t, mroce_path_holes(&p) == 0);
	MT_CHECK(t, !mroce_path_seq_in_hole(&p, 4));
	/* A late ack of a packet declared lost changes nothing. */
	MT_CHECK(t, !mroce_path_on_acked(&p, now, 0, TP_MTU));
	MT_CHECK(t, p.inflight == 2 * TP_MTU);
	/* Sequence numbers never sent are not outstanding. */
	MT_CHECK(t, !mroce_path_on_acked(&p, now, 6, TP_MTU));
	MT_CHECK(t, !mroce_path_seq_lost(&p, 100, now, now));

	/* Counting spans bitmap words. */
	mroce_path_init(&p, 0, 256, 1);
	for (seq = 0; seq < 200; seq++)
		(void)mroce_path_on_send(&p, now, 256);
	MT_CHECK(t, mroce_path_on_acked(&p, now, 70, 256));
	MT_CHECK(t, mroce_path_on_acked(&p, now, 130, 256));
	MT_CHECK(t, !mroce_path_seq_lost(&p, 5, now, now));
	/* 0-129 less 70 are before the newest delivered; 131- are not. */
	MT_CHECK(t, mroce_path_holes(&p) == 129);
	MT_CHECK(t, mroce_path_seq_in_hole(&p, 129));
	MT_CHECK(t, !mroce_path_seq_in_hole(&p, 70));
	MT_CHECK(t, !mroce_path_seq_in_hole(&p, 131));
	MT_CHECK(t, mroce_path_on_acked(&p, now, 199, 256));
	MT_CHECK(t, mroce_path_holes(&p) == 197);
	MT_CHECK(t, mroce_path_seq_lost(&p, 5, now, now));
	MT_CHECK(t, mroce_path_seq_lost(&p, 69, now, now));
	MT_CHECK(t, !mroce_path_seq_lost(&p, 71, now, now));
	MT_CHECK(t, !mroce_path_seq_lost(&p, 198, now, now));

	/* In order, there is never a gap, however many are out. */
	mroce_path_init(&p, 0, 256, 1);
	for (seq = 0; seq < 100; seq++)
		(void)mroce_path_on_send(&p, now, 256);
	for (seq = 0; seq < 99; seq++) {
		MT_CHECK(t, mroce_path_on_acked(&p, now, seq, 256));
		MT_CHECK(t, mroce_path_holes(&p) == 0);
	}
	/* Nothing outstanding: nothing is missing either. */
	MT_CHECK(t, mroce_path_on_acked(&p, now, 99, 256));
	MT_CHECK(t, mroce_path_holes(&p) == 0);

	/* Declared lost, a hole is no longer counted; acked, it closes. */
	mroce_path_init(&p, 0, 256, 1);
	for (seq = 0; seq < 10; seq++)
		(void)mroce_path_on_send(&p, now, 256);
	MT_CHECK(t, mroce_path_on_acked(&p, now, 8, 256));
	MT_CHECK(t, mroce_path_holes(&p) == 8);
	mroce_path_on_lost(&p, now, 3, 256);
	MT_CHECK(t, mroce_path_holes(&p) == 7);
	MT_CHECK(t, !mroce_path_seq_in_hole(&p, 3));
	for (seq = 0; seq < 8; seq++)
		if (seq != 3)
			MT_CHECK(t, mroce_path_on_acked(&p, now, seq, 256));
	MT_CHECK(t, mroce_path_holes(&p) == 0);
	MT_CHECK(t, p.done.base == 9);
	/* A timeout retires everything: no holes, however stale the end. */
	MT_CHECK(t, mroce_path_on_send(&p, now, 256) == 10);
	MT_CHECK(t, mroce_path_on_acked(&p, now, 10, 256));
	MT_CHECK(t, mroce_path_holes(&p) == 1);
	(void)mroce_path_on_timeout(&p, now + 100 * TP_MS);
	MT_CHECK(t, mroce_path_holes(&p) == 0);
	MT_CHECK(t, !mroce_path_seq_in_hole(&p, 9));
	MT_CHECK(t, mroce_path_on_send(&p, now, 256) == 11);
	MT_CHECK(t, mroce_path_holes(&p) == 0);
}

static void test_tp_loss_timer(struct mt *t)
{
	struct mroce_path p;
	u64 now = 50 * TP_MS, rto;

	mroce_path_init(&p, 1, TP_MTU, 1);
	mroce_rtt_sample(&p.rtt, 3 * TP_MS);	/* rto 9 ms */
	rto = mroce_rtt_rto(&p.rtt);
	MT_CHECK(t, rto == 9 * TP_MS);
	MT_CHECK(t, !mroce_path_timer_expired(&p, now + 10 * rto));
	(void)mroce_path_on_send(&p, now, TP_MTU);
	(void)mroce_path_on_send(&p, now + TP_MS, TP_MTU);
	(void)mroce_path_on_send(&p, now + 2 * TP_MS, TP_MTU);
	MT_CHECK(t, !mroce_path_timer_expired(&p, now + rto - 1));
	MT_CHECK(t, mroce_path_timer_expired(&p, now + rto));
	/* An ack restarts the timer. */
	MT_CHECK(t, mroce_path_on_acked(&p, now + 4 * TP_MS, 0, TP_MTU));
	MT_CHECK(t, !mroce_path_timer_expired(&p, now + rto));
	now += 4 * TP_MS + rto;
	MT_CHECK(t, mroce_path_timer_expired(&p, now));
	MT_CHECK(t, mroce_path_on_timeout(&p, now) == 2);
	MT_CHECK(t, p.inflight == 0);
	MT_CHECK(t, p.losses == 2);
	MT_CHECK(t, mroce_path_seq_done(&p, 1) && mroce_path_seq_done(&p, 2));
	MT_CHECK(t, p.cc.cwnd == MROCE_CC_MIN_WND_PKTS * TP_MTU);
	MT_CHECK(t, mroce_rtt_rto(&p.rtt) == 2 * rto);
	MT_CHECK(t, p.state == MROCE_PATH_SUSPECT);
	/* Nothing outstanding: no timer. */
	MT_CHECK(t, !mroce_path_timer_expired(&p, now + 100 * rto));
	/* Sequence numbers continue after the timeout. */
	MT_CHECK(t, mroce_path_on_send(&p, now, TP_MTU) == 3);
}

/*
 * With fewer than three packets after it on its path, a lost packet is
 * declared lost once one later packet is done and it is overdue by
 * srtt + srtt/4, not only when the path's timer collapses the window.
 */
static void test_tp_loss_rack(struct mt *t)
{
	struct mroce_path p;
	u64 now = 10 * TP_MS;

	mroce_path_init(&p, 0, TP_MTU, 1);
	(void)mroce_path_on_send(&p, now, TP_MTU);
	(void)mroce_path_on_send(&p, now, TP_MTU);
	/* No RTT sample yet: only the count of three applies. */
	MT_CHECK(t, mroce_path_on_acked(&p, now + 4 * TP_MS, 1, TP_MTU));
	MT_CHECK(t, !mroce_path_seq_lost(&p, 0, now, now + 100 * TP_MS));
	mroce_rtt_sample(&p.rtt, 4 * TP_MS);
	/* srtt 4 ms: overdue after 5 ms, not at 5 ms itself. */
	MT_CHECK(t, !mroce_path_seq_lost(&p, 0, now, now + 5 * TP_MS));
	MT_CHECK(t, mroce_path_seq_lost(&p, 0, now, now + 5 * TP_MS + 1));
	/* A sent time after now (a clock step) is never overdue. */
	MT_CHECK(t, !mroce_path_seq_lost(&p, 0, now + 6 * TP_MS,
					 now + 5 * TP_MS + 1));
	/* Nothing later done on the path: not lost, however old. */
	mroce_path_on_lost(&p, now, 0, TP_MTU);
	(void)mroce_path_on_send(&p, now, TP_MTU);
	MT_CHECK(t, !mroce_path_seq_lost(&p, 2, now, now + 100 * TP_MS));
}

/*
 * A packet forgotten on its path (its PSN was acknowledged, but it was
 * sent more than once, so the acknowledgment may answer another send) is
 * no evidence against the packets sent before it on the path; one
 * acknowledged while sent once is.
 */
static void test_tp_loss_ambiguous(struct mt *t)
{
	struct mroce_path p;
	u64 now = 10 * TP_MS;
	u32 seq;

	mroce_path_init(&p, 0, TP_MTU, 1);
	mroce_rtt_sample(&p.rtt, TP_MS);
	for (seq = 0; seq < 5; seq++)
		(void)mroce_path_on_send(&p, now, TP_MTU);
	for (seq = 1; seq < 4; seq++)
		mroce_path_forget(&p, seq, TP_MTU);
	MT_CHECK(t, mroce_path_seq_done(&p, 2));
	MT_CHECK(t, p.inflight == 2 * TP_MTU);
	MT_CHECK(t, !mroce_path_seq_lost(&p, 0, now, now + 100 * TP_MS));
	/* 4 was delivered after 0: 0 is lost once overdue. */
	MT_CHECK(t, mroce_path_on_acked(&p, now, 4, TP_MTU));
	MT_CHECK(t, !mroce_path_seq_lost(&p, 0, now, now));
	MT_CHECK(t, mroce_path_seq_lost(&p, 0, now, now + 100 * TP_MS));
	mroce_path_on_lost(&p, now, 0, TP_MTU);
	MT_CHECK(t, p.done.base == 5 && p.delivered.base == 5);

	/* Two forgotten and two delivered after 5: not three deliveries. */
	for (seq = 5; seq < 10; seq++)
		(void)mroce_path_on_send(&p, now, TP_MTU);
	mroce_path_forget(&p, 6, TP_MTU);
	mroce_path_forget(&p, 7, TP_MTU);
	MT_CHECK(t, mroce_path_on_acked(&p, now, 8, TP_MTU));
	MT_CHECK(t, mroce_path_on_acked(&p, now, 9, TP_MTU));
	MT_CHECK(t, !mroce_path_seq_lost(&p, 5, now, now));
	/* A timeout keeps the two maps on one base. */
	MT_CHECK(t, mroce_path_on_timeout(&p, now + 100 * TP_MS) == 1);
	MT_CHECK(t, p.done.base == 10 && p.delivered.base == 10);
	MT_CHECK(t, mroce_path_on_send(&p, now, TP_MTU) == 10);
	MT_CHECK(t, !mroce_path_seq_lost(&p, 10, now, now + 100 * TP_MS));
}

/*
 * A timeout that an ACK proves premature (it answers a packet sent
 * before the timeout) gives the path its window back, and its first slow
 * start if the timeout ended it; one answered only by packets sent after
 * it keeps its collapsed window.
 */
static void test_tp_spurious_undo(struct mt *t)
{
	struct mroce_path p;
	u64 now = 10 * TP_MS, sent = now, to;

	mroce_path_init(&p, 0, TP_MTU, 1);
	mroce_rtt_sample(&p.rtt, TP_MS);
	p.cc.cwnd = 20 * TP_MTU;
	p.cc.ssthresh = 30 * TP_MTU;
	(void)mroce_path_on_send(&p, sent, TP_MTU);
	(void)mroce_path_on_send(&p, sent, TP_MTU);
	to = sent + mroce_rtt_rto(&p.rtt);
	MT_CHECK(t, mroce_path_on_timeout(&p, to) == 2);
	MT_CHECK(t, p.cc.cwnd == TP_MTU && p.state == MROCE_PATH_SUSPECT);
	MT_CHECK(t, !p.cc.first_ss);
	/* A second timeout of the streak keeps the first one's window. */
	(void)mroce_path_on_send(&p, to, TP_MTU);
	to += mroce_rtt_rto(&p.rtt);
	(void)mroce_path_on_timeout(&p, to);
	MT_CHECK(t, p.timeouts == 2 && p.cc.cwnd == TP_MTU);
	/* The echo of a packet sent before the first timeout: undone. */
	mroce_path_on_echo(&p, to + TP_MS, sent, 0, 1);
	MT_CHECK(t, p.cc.cwnd == 20 * TP_MTU && p.cc.ssthresh == 30 * TP_MTU);
	MT_CHECK(t, p.cc.first_ss);	/* and its first slow start */
	MT_CHECK(t, p.state == MROCE_PATH_ACTIVE && p.spurious == 1);
	MT_CHECK(t, p.timeouts == 0 && p.rtt.backoff == 0);
	/* Only the first echo after a timeout decides. */
	p.cc.cwnd = 4 * TP_MTU;
	mroce_path_on_echo(&p, to + 2 * TP_MS, sent, 0, 1);
	MT_CHECK(t, p.cc.cwnd == 4 * TP_MTU && p.spurious == 1);

	/* A real timeout: the first echo answers a packet sent after it. */
	p.cc.cwnd = 20 * TP_MTU;
	sent = to + 3 * TP_MS;
	(void)mroce_path_on_send(&p, sent, TP_MTU);
	to = sent + mroce_rtt_rto(&p.rtt);
	(void)mroce_path_on_timeout(&p, to);
	(void)mroce_path_on_send(&p, to, TP_MTU);
	mroce_path_on_echo(&p, to + TP_MS, to, 0, 1);
	MT_CHECK(t, p.cc.cwnd == TP_MTU && p.spurious == 1);
	mroce_path_on_echo(&p, to + TP_MS, sent, 0, 1);
	MT_CHECK(t, p.cc.cwnd == TP_MTU && p.spurious == 1);
	MT_CHECK(t, !p.cc.first_ss);

	/* A timeout after the first slow start ended gives none back. */
	sent = to + 2 * TP_MS;
	(void)mroce_path_on_send(&p, sent, TP_MTU);
	to = sent + mroce_rtt_rto(&p.rtt);
	(void)mroce_path_on_timeout(&p, to);
	mroce_path_on_echo(&p, to + TP_MS, sent, 0, 1);
	MT_CHECK(t, p.spurious == 2 && !p.cc.first_ss);
}

/*
 * Forgetting a transmission retires it without a loss reaction, and the
 * path's next timer event follows its outstanding packets and failure.
 */
static void test_tp_forget_events(struct mt *t)
{
	struct mroce_path p;
	u64 now = 5 * TP_MS;
	unsigned int i;
	u32 cwnd;

	mroce_path_init(&p, 3, TP_MTU, 1);
	MT_CHECK(t, mroce_path_next_event(&p) == U64_MAX);
	(void)mroce_path_on_send(&p, now, TP_MTU);
	(void)mroce_path_on_send(&p, now, TP_MTU);
	MT_CHECK(t, mroce_path_outstanding(&p) == 2);
	MT_CHECK(t, p.tx_pkts == 2 && p.tx_bytes == 2 * TP_MTU);
	MT_CHECK(t, mroce_path_next_event(&p) == now + MROCE_RTO_INIT_NS);
	cwnd = p.cc.cwnd;
	mroce_path_forget(&p, 0, TP_MTU);
	MT_CHECK(t, mroce_path_seq_done(&p, 0));
	MT_CHECK(t, p.inflight == TP_MTU && p.losses == 0);
	MT_CHECK(t, p.cc.cwnd == cwnd && p.cc.decreases == 0);
	/* Forgetting twice, or what was never sent, changes nothing. */
	mroce_path_forget(&p, 0, TP_MTU);
	mroce_path_forget(&p, 9, TP_MTU);
	MT_CHECK(t, p.inflight == TP_MTU);
	mroce_path_forget(&p, 1, TP_MTU);
	MT_CHECK(t, mroce_path_outstanding(&p) == 0 && p.inflight == 0);
	MT_CHECK(t, mroce_path_next_event(&p) == U64_MAX);

	/* A failed path's next event is its probe, outstanding or not. */
	while (p.state != MROCE_PATH_FAILED) {
		(void)mroce_path_on_send(&p, now, TP_MTU);
		now += mroce_rtt_rto(&p.rtt);
		MT_CHECK(t, mroce_path_next_event(&p) <= now);
		(void)mroce_path_on_timeout(&p, now);
	}
	MT_CHECK(t, mroce_path_next_event(&p) ==
		 now + MROCE_PATH_PROBE_INTERVAL_NS);
	/* Unanswered probes back off: 10, 20, 40, 80 ms, then the cap. */
	for (i = 0; i < 8; i++) {
		u64 gap = MROCE_PATH_PROBE_INTERVAL_NS << i;

		if (gap > MROCE_PATH_PROBE_MAX_NS)
			gap = MROCE_PATH_PROBE_MAX_NS;
		now = mroce_path_next_event(&p);
		MT_CHECK(t, mroce_path_probe_due(&p, now));
		mroce_path_on_probe_sent(&p, now);
		MT_CHECK(t, mroce_path_next_event(&p) == now + gap);
	}
	/* A new failure starts the backoff again. */
	MT_CHECK(t, mroce_path_on_echo(&p, now + TP_MS, now, 0, 1));
	tp_fail_and_probe(&p, &now);
	MT_CHECK(t, mroce_path_next_event(&p) ==
		 now + MROCE_PATH_PROBE_INTERVAL_NS);
}

/*
 * A quiet path's tail probe falls due two srtt after its last send or
 * newly acknowledged packet, or at its RTO if that comes first, once;
 * it restarts the path's timer and changes nothing else on the path.
 */
static void test_tp_tail_probe(struct mt *t)
{
	struct mroce_path p;
	u64 now = 10 * TP_MS, rto;
	unsigned int i;
	u32 cwnd;

	/* No RTT sample yet: nothing to time a probe by. */
	mroce_path_init(&p, 1, TP_MTU, 1);
	(void)mroce_path_on_send(&p, now, TP_MTU);
	MT_CHECK(t, mroce_path_tail_probe_time(&p) == U64_MAX);
	MT_CHECK(t, mroce_path_next_event(&p) == now + MROCE_RTO_INIT_NS);

	/* srtt 1 ms, rttvar 0.5 ms: RTO 3 ms, probe 2 ms after a send. */
	mroce_path_init(&p, 1, TP_MTU, 1);
	mroce_rtt_sample(&p.rtt, TP_MS);
	MT_CHECK(t, mroce_path_tail_probe_time(&p) == U64_MAX);
	(void)mroce_path_on_send(&p, now, TP_MTU);
	MT_CHECK(t, mroce_path_tail_probe_time(&p) == now + 2 * TP_MS);
	MT_CHECK(t, mroce_path_next_event(&p) == now + 2 * TP_MS);
	(void)mroce_path_on_send(&p, now + 500 * TP_US, TP_MTU);
	MT_CHECK(t, mroce_path_next_event(&p) == now + 2500 * TP_US);
	/* Probed once: the timer runs from the probe; window, state kept. */
	cwnd = p.cc.cwnd;
	mroce_path_on_tail_probe(&p, now + 2500 * TP_US);
	MT_CHECK(t, mroce_path_tail_probe_time(&p) == U64_MAX);
	MT_CHECK(t, mroce_path_next_event(&p) == now + 5500 * TP_US);
	MT_CHECK(t, !mroce_path_timer_expired(&p, now + 5 * TP_MS));
	MT_CHECK(t, mroce_path_timer_expired(&p, now + 5500 * TP_US));
	MT_CHECK(t, p.cc.cwnd == cwnd && p.state == MROCE_PATH_ACTIVE);
	MT_CHECK(t, p.timeouts == 0 && p.rtt.backoff == 0);
	/* A resend's acknowledgment is not news of the path: still once. */
	mroce_path_forget(&p, 0, TP_MTU);
	MT_CHECK(t, mroce_path_tail_probe_time(&p) == U64_MAX);
	/* A newly acknowledged packet or a new send allows another. */
	MT_CHECK(t, mroce_path_on_acked(&p, now + 3 * TP_MS, 1, TP_MTU));
	MT_CHECK(t, mroce_path_outstanding(&p) == 0);
	MT_CHECK(t, mroce_path_next_event(&p) == U64_MAX);
	now += 4 * TP_MS;
	(void)mroce_path_on_send(&p, now, TP_MTU);
	MT_CHECK(t, mroce_path_tail_probe_time(&p) == now + 2 * TP_MS);
	mroce_path_skip_tail_probe(&p);
	MT_CHECK(t, mroce_path_next_event(&p) == now + 3 * TP_MS);
	(void)mroce_path_on_send(&p, now + 100 * TP_US, TP_MTU);
	MT_CHECK(t, mroce_path_tail_probe_time(&p) == now + 2100 * TP_US);
	mroce_path_skip_tail_probe(&p);
	MT_CHECK(t, mroce_path_on_acked(&p, now + TP_MS, 2, TP_MTU));
	MT_CHECK(t, mroce_path_tail_probe_time(&p) == now + 3 * TP_MS);
	/* A path that carries no data is not tail-probed. */
	p.state = MROCE_PATH_SUSPECT;
	MT_CHECK(t, mroce_path_tail_probe_time(&p) == U64_MAX);
	p.state = MROCE_PATH_ACTIVE;

	/* Steady RTT: the RTO (1 ms floor) comes first; the probe is then. */
	mroce_path_init(&p, 1, TP_MTU, 1);
	for (i = 0; i < 40; i++)
		mroce_rtt_sample(&p.rtt, 800 * TP_US);
	(void)mroce_path_on_send(&p, now, TP_MTU);
	rto = mroce_rtt_rto(&p.rtt);
	MT_CHECK(t, rto < 1600 * TP_US);
	MT_CHECK(t, mroce_path_tail_probe_time(&p) == now + rto);
	MT_CHECK(t, mroce_path_next_event(&p) == now + rto);
	mroce_path_on_tail_probe(&p, now + rto);
	MT_CHECK(t, mroce_path_next_event(&p) == now + 2 * rto);

	/* A tiny srtt: the probe waits for the floor. */
	mroce_path_init(&p, 1, TP_MTU, 1);
	mroce_rtt_sample(&p.rtt, 10 * TP_US);
	(void)mroce_path_on_send(&p, now, TP_MTU);
	MT_CHECK(t, mroce_path_tail_probe_time(&p) ==
		 now + MROCE_PATH_TLP_MIN_NS);
}

/*
 * The timer decides the tail probes before it expires paths: two paths
 * silent at once with packets out are not probed and both expire in the
 * same run; a path silent alone is probed.
 */
static void test_tp_tail_pick(struct mt *t)
{
	/* Not on the stack: three paths pass 1 KiB of frame under KASAN. */
	static struct mroce_path q[3];
	u64 now = 10 * TP_MS, rto;
	unsigned int i;

	tp_paths_init(q, 3, 16 * TP_MTU);
	(void)mroce_path_on_send(&q[0], now, TP_MTU);
	(void)mroce_path_on_send(&q[2], now + 50 * TP_US, TP_MTU);
	rto = mroce_rtt_rto(&q[0].rtt);
	MT_CHECK(t, rto > 300 * TP_US);
	MT_CHECK(t, mroce_paths_tail_pick(q, 3, now + 150 * TP_US) == -1);
	MT_CHECK(t, mroce_path_tail_probe_time(&q[0]) == now + 200 * TP_US);
	/* Path 0 due, path 2 not yet: path 0's probe is skipped. */
	MT_CHECK(t, mroce_paths_tail_pick(q, 3, now + 200 * TP_US) == -1);
	MT_CHECK(t, mroce_path_tail_probe_time(&q[0]) == U64_MAX);
	MT_CHECK(t, mroce_path_next_event(&q[0]) == now + rto);
	MT_CHECK(t, mroce_path_tail_probe_time(&q[2]) == now + 250 * TP_US);
	MT_CHECK(t, mroce_paths_tail_pick(q, 3, now + rto) == -1);
	for (i = 0; i < 3; i += 2) {
		MT_CHECK(t, mroce_path_tail_probe_time(&q[i]) == U64_MAX);
		MT_CHECK(t, mroce_path_timer_expired(&q[i], now + 50 * TP_US + rto));
	}
	MT_CHECK(t, !mroce_path_timer_expired(&q[1], now + rto));

	/* Alone: probed, and the pick leaves its path's state to the probe. */
	tp_paths_init(q, 3, 16 * TP_MTU);
	(void)mroce_path_on_send(&q[1], now, TP_MTU);
	MT_CHECK(t, mroce_paths_tail_pick(q, 3, now + 199 * TP_US) == -1);
	MT_CHECK(t, mroce_paths_tail_pick(q, 3, now + 200 * TP_US) == 1);
	MT_CHECK(t, mroce_paths_tail_pick(q, 3, now + 200 * TP_US) == 1);
	mroce_path_on_tail_probe(&q[1], now + 200 * TP_US);
	MT_CHECK(t, mroce_paths_tail_pick(q, 3, now + rto) == -1);
	MT_CHECK(t, !mroce_path_timer_expired(&q[1], now + rto));
}

#endif /* MROCE_PATH_LOSS_CASES_H */
