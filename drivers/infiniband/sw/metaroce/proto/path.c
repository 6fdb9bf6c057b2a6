// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Multipath sender state. Every path is a separate route through the
 * fabric, so RTT, loss and congestion are judged per path: a broken or
 * congested route then only costs its own share of the traffic, and the
 * selector shifts packets to the routes that deliver.
 */
#include "path.h"

void mroce_rtt_init(struct mroce_rtt *r)
{
	memset(r, 0, sizeof(*r));
	r->rto_ns = MROCE_RTO_INIT_NS;
}

static u64 rto_clamp(u64 rto)
{
	if (rto < MROCE_RTO_MIN_NS)
		return MROCE_RTO_MIN_NS;
	if (rto > MROCE_RTO_MAX_NS)
		return MROCE_RTO_MAX_NS;
	return rto;
}

/* RFC 6298 with alpha = 1/8, beta = 1/4, K = 4; the clock granularity
 * term is covered by MROCE_RTO_MIN_NS.
 */
void mroce_rtt_sample(struct mroce_rtt *r, u64 sample_ns)
{
	u64 diff;

	if (!sample_ns)
		sample_ns = 1;
	if (!r->valid) {
		r->srtt_ns = sample_ns;
		r->rttvar_ns = sample_ns >> 1;
		r->valid = 1;
	} else {
		diff = r->srtt_ns > sample_ns ? r->srtt_ns - sample_ns :
						sample_ns - r->srtt_ns;
		r->rttvar_ns = r->rttvar_ns - (r->rttvar_ns >> 2) + (diff >> 2);
		r->srtt_ns = r->srtt_ns - (r->srtt_ns >> 3) + (sample_ns >> 3);
	}
	r->rto_ns = rto_clamp(r->srtt_ns + 4 * r->rttvar_ns);
}

u64 mroce_rtt_rto(const struct mroce_rtt *r)
{
	u64 rto = r->rto_ns;
	unsigned int i;

	for (i = 0; i < r->backoff && rto < MROCE_RTO_MAX_NS; i++)
		rto <<= 1;
	return rto_clamp(rto);
}

/*
 * The connection's initial window is shared by its npaths paths (at
 * least one MTU each): a connection opened on many paths must not put
 * npaths initial windows into the fabric before it has heard anything.
 */
void mroce_path_init(struct mroce_path *p, u16 id, u32 mtu, u32 npaths)
{
	u32 share = npaths ? (MROCE_CC_INIT_WND_PKTS + npaths - 1) / npaths :
			     MROCE_CC_INIT_WND_PKTS;

	memset(p, 0, sizeof(*p));
	mroce_rtt_init(&p->rtt);
	mroce_cc_init(&p->cc, mtu, share);
	mroce_sack_init(&p->done, 0, MROCE_PATH_SEQ_WINDOW);
	mroce_sack_init(&p->delivered, 0, MROCE_PATH_SEQ_WINDOW);
	p->id = id;
	p->state = MROCE_PATH_ACTIVE;
}

static bool path_carries_data(const struct mroce_path *p)
{
	return p->state == MROCE_PATH_ACTIVE;
}

static u64 path_srtt(const struct mroce_path *p)
{
	return p->rtt.valid ? p->rtt.srtt_ns : MROCE_PATH_DEFAULT_RTT_NS;
}

/* Weight ~ the rate the path's window allows (cwnd / srtt), reduced in
 * proportion to its marked fraction, so a path that is merely starting to
 * see marks already gets less before its window shrinks.
 */
u64 mroce_path_weight(const struct mroce_path *p)
{
	u64 w;

	if (!path_carries_data(p))
		return 0;
	w = mroce_div_u64((u64)p->cc.cwnd << MROCE_PATH_WEIGHT_SHIFT,
			  path_srtt(p));
	w = (w * (MROCE_CC_FRAC_ONE - p->cc.ecn_frac)) >> 10;
	return w ? w : 1;
}

static u32 path_outstanding(const struct mroce_path *p)
{
	return p->snd_nxt - p->done.base;
}

/* Room for @bytes more with @out packets and @inflight bytes out. */
static bool path_has_room(const struct mroce_path *p, u32 out, u64 inflight,
			  u32 bytes)
{
	if (!path_carries_data(p) || out >= MROCE_PATH_SEQ_WINDOW)
		return false;
	/* An empty path may always send one packet, whatever its size. */
	return !inflight || inflight + bytes <= p->cc.cwnd;
}

bool mroce_path_can_send(const struct mroce_path *p, u32 bytes)
{
	return path_has_room(p, path_outstanding(p), p->inflight, bytes);
}

int mroce_path_select(struct mroce_path *paths, unsigned int n, u32 bytes)
{
	s64 total = 0;
	int best = -1;
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct mroce_path *p = &paths[i];
		s64 w;

		if (!mroce_path_can_send(p, bytes))
			continue;
		w = (s64)mroce_path_weight(p);
		p->credit += w;
		total += w;
		/* Strictly greater: ties go to the lowest index. */
		if (best < 0 || p->credit > paths[best].credit)
			best = i;
	}
	if (best < 0)
		return -EAGAIN;
	paths[best].credit -= total;
	return best;
}

bool mroce_paths_full_after(const struct mroce_path *paths, unsigned int n,
			    unsigned int idx, u32 bytes)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		const struct mroce_path *p = &paths[i];
		bool sent = i == idx;

		if (path_has_room(p, path_outstanding(p) + sent,
				  (u64)p->inflight + (sent ? bytes : 0), bytes))
			return false;
	}
	return true;
}

static void path_wait(struct mroce_path *p, u64 now)
{
	if (!p->waiting) {
		p->waiting = 1;
		p->wait_start_ns = now;
	}
}

u32 mroce_path_on_send(struct mroce_path *p, u64 now, u32 bytes)
{
	/* The timer covers the oldest outstanding packet; start it when the
	 * path goes from empty to busy.
	 */
	if (!path_outstanding(p))
		p->timer_start_ns = now;
	p->last_send_ns = now;
	p->tail_probed = 0;
	path_wait(p, now);
	p->inflight += bytes;
	p->tx_pkts++;
	p->tx_bytes += bytes;
	return p->snd_nxt++;
}

/* Anything received from the path ends its timeout streak. */
static void path_heard(struct mroce_path *p)
{
	p->waiting = 0;
	p->timeouts = 0;
	p->rtt.backoff = 0;
	p->probed = 0;
	if (p->state == MROCE_PATH_SUSPECT)
		p->state = MROCE_PATH_ACTIVE;
}

/*
 * The first echo after a timeout tells whether it was premature: an
 * answer to a packet sent before it means the path was delivering and
 * only slow (a delay spike, a stalled receiver), so the window it had is
 * given back (Eifel, RFC 3522), and the first slow start if the timeout
 * ended it. The resent packets are not recalled.
 */
static void path_undo(struct mroce_path *p, u64 echo_ts)
{
	if (!p->undo)
		return;
	p->undo = 0;
	if (!echo_ts || echo_ts >= p->undo_ts)
		return;
	if (p->cc.cwnd < p->undo_cwnd)
		p->cc.cwnd = p->undo_cwnd;
	if (p->cc.ssthresh < p->undo_ssthresh)
		p->cc.ssthresh = p->undo_ssthresh;
	p->cc.first_ss = p->undo_first_ss;
	p->cc.decreased = 0;
	p->spurious++;
}

bool mroce_path_on_echo(struct mroce_path *p, u64 now, u64 echo_ts, u32 ce,
			u32 pkts)
{
	if (p->state == MROCE_PATH_FAILED || p->state == MROCE_PATH_PROBING) {
		/*
		 * Only the answer to a probe revives a path; an ACK still in
		 * flight from before the failure proves nothing about now.
		 * Any probe's answer will do, not only the last one's: on a
		 * queue longer than the probe interval the last probe is
		 * never the one answered.
		 */
		if (p->state != MROCE_PATH_PROBING || echo_ts < p->fail_ns)
			return false;
		mroce_cc_init(&p->cc, p->cc.mtu, p->cc.init_pkts);
		p->undo = 0;
		p->state = MROCE_PATH_ACTIVE;
		p->credit = 0;
		if (echo_ts <= now)
			mroce_rtt_sample(&p->rtt, now - echo_ts);
		path_heard(p);
		return true;
	}
	if (echo_ts <= now)
		mroce_rtt_sample(&p->rtt, now - echo_ts);
	path_undo(p, echo_ts);
	path_heard(p);
	mroce_cc_on_ecn(&p->cc, now, path_srtt(p), ce, pkts);
	return false;
}

static bool path_seq_outstanding(const struct mroce_path *p, u32 seq)
{
	return seq - p->done.base < path_outstanding(p) &&
	       !mroce_sack_test(&p->done, seq);
}

static void path_retire(struct mroce_path *p, u32 seq, u32 bytes)
{
	mroce_sack_set(&p->done, seq);
	mroce_sack_advance(&p->delivered, mroce_sack_pull(&p->done));
	p->inflight -= bytes < p->inflight ? bytes : p->inflight;
}

bool mroce_path_on_acked(struct mroce_path *p, u64 now, u32 seq, u32 bytes)
{
	if (!path_seq_outstanding(p, seq))
		return false;
	mroce_sack_set(&p->delivered, seq);
	if ((s32)(seq + 1 - p->delivered_end) > 0)
		p->delivered_end = seq + 1;
	path_retire(p, seq, bytes);
	path_heard(p);
	p->timer_start_ns = now;
	p->tail_probed = 0;
	mroce_cc_on_ack(&p->cc, now, path_srtt(p), bytes);
	return true;
}

/*
 * Window indices up to and including the newest delivered packet, 0 if
 * it is behind the window (everything up to it retired) or none was.
 */
static u32 delivered_span(const struct mroce_path *p)
{
	u32 span = p->delivered_end - p->done.base;

	return span - 1 < path_outstanding(p) ? span : 0;
}

bool mroce_path_seq_lost(const struct mroce_path *p, u32 seq, u64 sent_ns,
			 u64 now)
{
	u32 i = seq - p->done.base, span = delivered_span(p);
	unsigned int later;
	u64 srtt;

	/* Both rules below need a later packet delivered. */
	if (!path_seq_outstanding(p, seq) || i + 1 >= span)
		return false;
	later = mroce_sack_count_range(&p->delivered, i + 1, span);
	if (later >= MROCE_PATH_DUPTHRESH)
		return true;
	/*
	 * A path with few packets in flight never gets three later ones
	 * done, and would wait for its timer, which also collapses its
	 * window. One later packet is enough once the lost one is overdue
	 * by a quarter RTT of reordering slack (RACK, RFC 8985).
	 */
	if (!later || !p->rtt.valid)
		return false;
	srtt = p->rtt.srtt_ns;
	return now > sent_ns && now - sent_ns > srtt + (srtt >> 2);
}

bool mroce_path_seq_done(const struct mroce_path *p, u32 seq)
{
	return !path_seq_outstanding(p, seq);
}

u32 mroce_path_holes(const struct mroce_path *p)
{
	u32 span = delivered_span(p);

	return span ? span - mroce_sack_count_range(&p->done, 0, span) : 0;
}

bool mroce_path_seq_in_hole(const struct mroce_path *p, u32 seq)
{
	return path_seq_outstanding(p, seq) &&
	       seq - p->done.base < delivered_span(p);
}

void mroce_path_forget(struct mroce_path *p, u32 seq, u32 bytes)
{
	if (path_seq_outstanding(p, seq))
		path_retire(p, seq, bytes);
}

void mroce_path_on_lost(struct mroce_path *p, u64 now, u32 seq, u32 bytes)
{
	if (!path_seq_outstanding(p, seq))
		return;
	path_retire(p, seq, bytes);
	p->losses++;
	mroce_cc_on_loss(&p->cc, now, path_srtt(p));
}

bool mroce_path_timer_expired(const struct mroce_path *p, u64 now)
{
	return path_outstanding(p) &&
	       now - p->timer_start_ns >= mroce_rtt_rto(&p->rtt);
}

bool mroce_paths_others_busy(const struct mroce_path *paths, unsigned int n,
			     unsigned int idx)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (i != idx && path_carries_data(&paths[i]) &&
		    path_outstanding(&paths[i]))
			return true;
	return false;
}

bool mroce_paths_silent_together(const struct mroce_path *paths,
				 unsigned int n, unsigned int idx,
				 u64 oldest_sent_ns, u64 acked_sent_ns,
				 u64 late_ns)
{
	/*
	 * Something sent after it arrived: the path's packet is late,
	 * unless the timer itself ran half the path's round trip late
	 * (and not just by a softirq's usual delay). Packets spread over
	 * planes of unequal queues arrive out of send order, so a host
	 * stall that ends with many paths' timers due finds later packets
	 * of shallower planes acknowledged, and the ACKs of the deeper
	 * ones not yet processed.
	 */
	u64 stall = path_srtt(&paths[idx]) / 2;

	if (stall < MROCE_PATH_STALL_MIN_NS)
		stall = MROCE_PATH_STALL_MIN_NS;
	if (acked_sent_ns > oldest_sent_ns && late_ns < stall)
		return false;
	return mroce_paths_others_busy(paths, n, idx);
}

void mroce_path_timer_restart(struct mroce_path *p, u64 now)
{
	/* Backed off as a timeout would be, until the path is heard. */
	if (p->rtt.backoff < 31)
		p->rtt.backoff++;
	p->timer_start_ns = now;
}

u64 mroce_path_tail_probe_time(const struct mroce_path *p)
{
	u64 base = p->last_send_ns, rto, pto;

	if (!path_carries_data(p) || !path_outstanding(p) || p->tail_probed ||
	    !p->rtt.valid)
		return U64_MAX;
	if (base < p->timer_start_ns)
		base = p->timer_start_ns;
	pto = 2 * p->rtt.srtt_ns;
	if (pto < MROCE_PATH_TLP_MIN_NS)
		pto = MROCE_PATH_TLP_MIN_NS;
	/*
	 * Where the RTO comes first (a steady RTT), the probe takes its
	 * place once: the expiry would cost the path its window and state.
	 */
	rto = p->timer_start_ns + mroce_rtt_rto(&p->rtt);
	return base + pto < rto ? base + pto : rto;
}

void mroce_path_on_tail_probe(struct mroce_path *p, u64 now)
{
	p->tail_probed = 1;
	p->timer_start_ns = now;
}

void mroce_path_skip_tail_probe(struct mroce_path *p)
{
	p->tail_probed = 1;
}

int mroce_paths_tail_pick(struct mroce_path *paths, unsigned int n, u64 now)
{
	unsigned int i;
	int due = -1;

	/*
	 * A path keeps a lost tail only while the connection sends nothing
	 * after it, and then the other paths fall idle too; one that stays
	 * silent while others carry packets is more likely a failed route,
	 * which its timer is to find without a probe's delay.
	 */
	for (i = 0; i < n; i++) {
		if (mroce_path_tail_probe_time(&paths[i]) > now)
			continue;
		if (mroce_paths_others_busy(paths, n, i))
			mroce_path_skip_tail_probe(&paths[i]);
		else if (due < 0)
			due = i;
	}
	return due;
}

u64 mroce_path_next_event(const struct mroce_path *p)
{
	u64 rto = p->timer_start_ns + mroce_rtt_rto(&p->rtt);
	u64 tlp = mroce_path_tail_probe_time(p);

	if (!path_carries_data(p))
		return p->next_probe_ns;
	if (!path_outstanding(p))
		return U64_MAX;
	return tlp < rto ? tlp : rto;
}

static void path_fail(struct mroce_path *p, u64 now)
{
	p->state = MROCE_PATH_FAILED;
	p->fail_ns = now;
	p->probe_backoff = 0;
	p->next_probe_ns = now + MROCE_PATH_PROBE_INTERVAL_NS;
	p->credit = 0;
}

/* One more expiry in the streak: by the path's timer or an unanswered
 * probe of a SUSPECT path.
 */
static void path_count_expiry(struct mroce_path *p)
{
	p->timeouts_total++;
	if (p->timeouts < 255)
		p->timeouts++;
	if (p->rtt.backoff < 31)
		p->rtt.backoff++;
}

u32 mroce_path_on_timeout(struct mroce_path *p, u64 now)
{
	u32 lost = path_outstanding(p) - mroce_sack_count(&p->done);

	if (!p->timeouts) {
		/* The first of a streak: keep what a premature one took. */
		p->undo = 1;
		p->undo_ts = now;
		p->undo_cwnd = p->cc.cwnd;
		p->undo_ssthresh = p->cc.ssthresh;
		p->undo_first_ss = p->cc.first_ss;
	}
	mroce_sack_advance(&p->done, p->snd_nxt);
	mroce_sack_advance(&p->delivered, p->snd_nxt);
	p->inflight = 0;
	p->losses += lost;
	path_count_expiry(p);
	p->timer_start_ns = now;
	mroce_cc_on_timeout(&p->cc, now);
	if (p->timeouts >= MROCE_PATH_FAIL_TIMEOUTS) {
		if (p->state == MROCE_PATH_ACTIVE ||
		    p->state == MROCE_PATH_SUSPECT)
			path_fail(p, now);
	} else if (p->timeouts >= MROCE_PATH_SUSPECT_TIMEOUTS &&
		   p->state == MROCE_PATH_ACTIVE) {
		/*
		 * Data sent on a path that may be dead would pin the
		 * connection's window for another RTO: probe it at once
		 * instead, and let the first answer bring it back.
		 */
		p->state = MROCE_PATH_SUSPECT;
		p->probed = 0;
		p->next_probe_ns = now;
	}
	return lost;
}

bool mroce_path_probe_due(const struct mroce_path *p, u64 now)
{
	return !path_carries_data(p) && now >= p->next_probe_ns;
}

/* Until the next probe of a FAILED or PROBING path. */
static u64 path_probe_interval(struct mroce_path *p)
{
	u64 interval = MROCE_PATH_PROBE_INTERVAL_NS << p->probe_backoff;

	if (interval >= MROCE_PATH_PROBE_MAX_NS)
		return MROCE_PATH_PROBE_MAX_NS;
	p->probe_backoff++;
	return interval;
}

void mroce_path_on_probe_sent(struct mroce_path *p, u64 now)
{
	u64 interval = 0;

	if (p->state == MROCE_PATH_SUSPECT) {
		/* The last probe went unanswered for an RTO: a timeout. */
		if (p->probed)
			path_count_expiry(p);
		if (p->timeouts < MROCE_PATH_FAIL_TIMEOUTS) {
			p->probed = 1;
			interval = mroce_rtt_rto(&p->rtt);
		} else {
			path_fail(p, now);
		}
	}
	if (p->state != MROCE_PATH_SUSPECT) {
		p->state = MROCE_PATH_PROBING;
		interval = path_probe_interval(p);
	}
	p->next_probe_ns = now + interval;
	path_wait(p, now);
}

u64 mroce_paths_window_rate(const struct mroce_path *paths, unsigned int n)
{
	u64 sum = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (path_carries_data(&paths[i]))
			sum += mroce_cc_window_rate(&paths[i].cc,
						    path_srtt(&paths[i]));
	}
	return sum;
}

bool mroce_paths_all_silent(const struct mroce_path *paths, unsigned int n,
			    u64 now, u64 qp_timeout_ns, u32 retry_cnt)
{
	u64 limit = qp_timeout_ns * ((u64)retry_cnt + 1);
	unsigned int i;

	if (!n)
		return false;
	for (i = 0; i < n; i++) {
		const struct mroce_path *p = &paths[i];

		if (!p->waiting || now - p->wait_start_ns <= limit)
			return false;
	}
	return true;
}
