/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Per-path sender state of a multipath connection: RTT estimator, loss
 * detection, failover state machine and the path selector that sprays
 * packets over the paths. The caller owns an array of struct mroce_path
 * (one per path_id), serialises all calls and passes time in as u64
 * nanoseconds on the clock it also puts in bhdr.ts, so that echoed
 * timestamps can be compared with it. Documentation/protocol.rst section
 * 10 is the normative description.
 */
#ifndef MROCE_PROTO_PATH_H
#define MROCE_PROTO_PATH_H

#include "compat.h"
#include "sack.h"
#include "cc.h"

/* RTT estimator (RFC 6298) bounds, tuned for data-centre RTTs. */
#define MROCE_RTO_INIT_NS	10000000ULL	/* 10 ms before any sample */
#define MROCE_RTO_MIN_NS	1000000ULL	/* 1 ms */
#define MROCE_RTO_MAX_NS	1000000000ULL	/* 1 s, also caps backoff */
/* Stand-in for srtt in weights and window rates before a sample. */
#define MROCE_PATH_DEFAULT_RTT_NS	MROCE_CC_DEFAULT_RTT_NS

/* Lost when this many later packets of the same path are done (RFC 6675
 * uses 3 too); paths are single routes, so reordering within one is rare.
 */
#define MROCE_PATH_DUPTHRESH		3
/* Consecutive RTO expiries without hearing from the path. */
#define MROCE_PATH_SUSPECT_TIMEOUTS	1
#define MROCE_PATH_FAIL_TIMEOUTS	3
/*
 * A failed path is probed after this interval, doubled for every probe
 * that goes unanswered up to the cap: probes are full packets, and a
 * connection with many failed paths must not flood the routes it has
 * left. The cap bounds how long a repaired route waits to be used.
 */
#define MROCE_PATH_PROBE_INTERVAL_NS	10000000ULL	/* 10 ms */
#define MROCE_PATH_PROBE_MAX_NS		100000000ULL	/* 100 ms */
/*
 * Floor of the tail probe timeout (two srtt): below it the timer's own
 * slack and the peer's ACK turnaround would make probes spurious.
 */
#define MROCE_PATH_TLP_MIN_NS		100000ULL	/* 100 us */
/*
 * A path timer this late, or half the path's srtt if that is longer,
 * finds a host that stopped running (section 10.4). Half an srtt alone
 * is microseconds on a data-centre fabric, within a softirq's ordinary
 * delay: every expiry there would pass for a stall and be deferred.
 */
#define MROCE_PATH_STALL_MIN_NS		(MROCE_RTO_MIN_NS / 4)	/* 250 us */
/* Packets outstanding on one path, tracked by per-path sequence number. */
#define MROCE_PATH_SEQ_WINDOW		METAROCE_SACK_BITS
/* Weight scale: weight = cwnd * 2^SHIFT / srtt_ns. */
#define MROCE_PATH_WEIGHT_SHIFT		20

enum mroce_path_state {
	MROCE_PATH_ACTIVE	= 0,	/* carries data at full weight */
	MROCE_PATH_SUSPECT	= 1,	/* timed out; probed, carries no data */
	MROCE_PATH_FAILED	= 2,	/* carries no data, waits to probe */
	MROCE_PATH_PROBING	= 3,	/* probe sent, waiting for its echo */
};

struct mroce_rtt {
	u64 srtt_ns;
	u64 rttvar_ns;
	u64 rto_ns;		/* without backoff */
	u8 valid;		/* srtt/rttvar hold a sample */
	u8 backoff;		/* RTO doublings since the path was heard */
};

struct mroce_path {
	struct mroce_rtt rtt;
	struct mroce_cc cc;
	/* Per-path sequence numbers of packets acked or declared lost; base
	 * is the oldest one still outstanding.
	 */
	MROCE_SACK(done, MROCE_PATH_SEQ_WINDOW);
	/* Those of them acked while sent once (same base): only these say
	 * the packets before them had their chance to arrive (10.3).
	 */
	MROCE_SACK(delivered, MROCE_PATH_SEQ_WINDOW);
	/* One past the newest sequence number in delivered, ever: no packet
	 * sent after it can be judged lost yet, so loss detection need not
	 * look there.
	 */
	u32 delivered_end;
	u32 snd_nxt;		/* next per-path sequence number */
	u32 inflight;		/* bytes sent and not acked or lost */
	u64 timer_start_ns;	/* RTO measured from here */
	u64 last_send_ns;	/* newest data packet sent on the path */
	u64 wait_start_ns;	/* first unanswered send since last heard */
	u64 fail_ns;		/* when the path last became FAILED */
	u64 next_probe_ns;
	s64 credit;		/* smooth weighted round-robin state */
	u64 tx_pkts;		/* packets sent, statistics */
	u64 tx_bytes;		/* bytes sent, statistics */
	u32 losses;		/* packets declared lost, statistics */
	u32 timeouts_total;	/* statistics */
	u32 spurious;		/* timeouts undone, statistics */
	/* Window before the first timeout of the current streak, restored
	 * if an ACK shows that timeout was premature (section 10.4).
	 */
	u64 undo_ts;
	u32 undo_cwnd;
	u32 undo_ssthresh;
	u8 undo;		/* undo_* are valid */
	u8 undo_first_ss;
	u8 probed;		/* SUSPECT: a probe is out, unanswered */
	u8 probe_backoff;	/* FAILED: probe interval doublings */
	u16 id;			/* bhdr.path_id */
	u8 state;		/* enum mroce_path_state */
	u8 timeouts;		/* consecutive RTO expiries */
	u8 waiting;		/* wait_start_ns is valid */
	u8 tail_probed;		/* since the last send or new ACK */
};

void mroce_rtt_init(struct mroce_rtt *r);
void mroce_rtt_sample(struct mroce_rtt *r, u64 sample_ns);
/* RTO including exponential backoff, clamped to [RTO_MIN, RTO_MAX]. */
u64 mroce_rtt_rto(const struct mroce_rtt *r);

void mroce_path_init(struct mroce_path *p, u16 id, u32 mtu, u32 npaths);

/* Selection weight (0 for paths that must not carry data). */
u64 mroce_path_weight(const struct mroce_path *p);

/* Whether @bytes more fit the path's window (and sequence window). */
bool mroce_path_can_send(const struct mroce_path *p, u32 bytes);

/*
 * Pick the path for the next packet of @bytes: smooth weighted round-robin
 * among the paths that can send. Returns the index into @paths, or -EAGAIN
 * when no path has window to spare.
 */
int mroce_path_select(struct mroce_path *paths, unsigned int n, u32 bytes);
/*
 * Whether, once path idx has sent @bytes more, no path has window for
 * another @bytes: the packet sent last before such a stall must ask for
 * an ACK, or its path hears nothing and times out.
 */
bool mroce_paths_full_after(const struct mroce_path *paths, unsigned int n,
			    unsigned int idx, u32 bytes);

/* Account a data packet sent on the path; returns its path sequence
 * number, which the caller keeps with the PSN.
 */
u32 mroce_path_on_send(struct mroce_path *p, u64 now, u32 bytes);

/*
 * An ACK echoed this path (aeth.echo_path): RTT sample from @echo_ts,
 * liveness, and ECN reaction to @ce marks among the @pkts packets of this
 * path the ACK newly acknowledges. Returns true if a failed or probing
 * path became active again.
 */
bool mroce_path_on_echo(struct mroce_path *p, u64 now, u64 echo_ts, u32 ce,
			u32 pkts);

/* The packet with path sequence @seq was newly (s)acked. Returns false if
 * it was not outstanding (already acked or declared lost).
 */
bool mroce_path_on_acked(struct mroce_path *p, u64 now, u32 seq, u32 bytes);

/*
 * Whether the outstanding packet @seq, sent at @sent_ns, is presumed lost
 * at @now: MROCE_PATH_DUPTHRESH later packets of the path are done, or one
 * is and the packet is older than srtt plus a quarter (section 10.3).
 */
bool mroce_path_seq_lost(const struct mroce_path *p, u32 seq, u64 sent_ns,
			 u64 now);

/* Whether @seq is no longer outstanding (acked or declared lost). */
bool mroce_path_seq_done(const struct mroce_path *p, u32 seq);

/*
 * Outstanding packets of the path sent before its newest delivered one:
 * the only ones mroce_path_seq_lost() can find lost. 0 while the path
 * delivers in order, however many packets it has out.
 */
u32 mroce_path_holes(const struct mroce_path *p);

/* Whether @seq is one of the packets mroce_path_holes() counts. */
bool mroce_path_seq_in_hole(const struct mroce_path *p, u32 seq);

/*
 * Stop tracking @seq without judging the path: the caller resends the PSN
 * for a reason of its own (RNR, a connection-level timeout), or its PSN
 * was acknowledged but was sent more than once, so the acknowledgment
 * may answer an earlier send on another path (section 10.1).
 */
void mroce_path_forget(struct mroce_path *p, u32 seq, u32 bytes);

/* Declare @seq lost (caller retransmits it, on any path). */
void mroce_path_on_lost(struct mroce_path *p, u64 now, u32 seq, u32 bytes);

bool mroce_path_timer_expired(const struct mroce_path *p, u64 now);

/* Whether a path other than idx carries data and has packets outstanding. */
bool mroce_paths_others_busy(const struct mroce_path *paths, unsigned int n,
			     unsigned int idx);

/*
 * Whether path idx's silence is the connection's: another path also has
 * packets outstanding, and no packet sent after idx's oldest outstanding
 * one (sent at @oldest_sent_ns) has been acknowledged on any path (the
 * latest send time acknowledged is @acked_sent_ns), or the timer that
 * found the expiry ran @late_ns after it was due, half the path's srtt
 * or MROCE_PATH_STALL_MIN_NS, whichever is longer: this host stalled.
 * A peer or host that stalls silences every path at once; a broken
 * route only its own, while the others deliver what was sent after.
 */
bool mroce_paths_silent_together(const struct mroce_path *paths,
				 unsigned int n, unsigned int idx,
				 u64 oldest_sent_ns, u64 acked_sent_ns,
				 u64 late_ns);

/* Give the path another, doubled RTO: its silence was not its own. */
void mroce_path_timer_restart(struct mroce_path *p, u64 now);

/* Packets sent on the path and neither acknowledged nor declared lost. */
static inline u32 mroce_path_outstanding(const struct mroce_path *p)
{
	return p->snd_nxt - p->done.base;
}

/*
 * When the path next needs its timer: the tail probe or else the RTO
 * expiry while packets are outstanding, the next probe while it is
 * FAILED or PROBING, U64_MAX if never. One timer per connection serves
 * all its paths by waking at the earliest of these.
 */
u64 mroce_path_next_event(const struct mroce_path *p);

/*
 * The path's RTO expired: it stops tracking every packet outstanding on
 * it (the caller retransmits those of its PSNs sent at least one RTO ago,
 * section 10.4), the RTO backs off and the state machine advances.
 * Returns the number of packets it stopped tracking.
 */
u32 mroce_path_on_timeout(struct mroce_path *p, u64 now);

/*
 * When the path's tail probe is due (section 10.4): two srtt after its
 * last send or newly acknowledged packet, or at its RTO expiry if that
 * comes first, while it is ACTIVE with an RTT sample and packets
 * outstanding and no tail probe went since. U64_MAX if none is.
 */
u64 mroce_path_tail_probe_time(const struct mroce_path *p);
/*
 * A tail probe went: none again until the path sends data or has a
 * packet newly acknowledged, and its timer restarts, so that an answer
 * to the probe can come before the timer expires.
 */
void mroce_path_on_tail_probe(struct mroce_path *p, u64 now);
/* No tail probe is needed this time: the timer decides. */
void mroce_path_skip_tail_probe(struct mroce_path *p);
/*
 * Decide the tail probes due at @now (section 10.4): every due probe
 * that is not to go, because another path has packets outstanding, is
 * skipped, so that its path expires in the same timer run. Returns the
 * first path whose probe goes, -1 if none.
 */
int mroce_paths_tail_pick(struct mroce_path *paths, unsigned int n, u64 now);

bool mroce_path_probe_due(const struct mroce_path *p, u64 now);
void mroce_path_on_probe_sent(struct mroce_path *p, u64 now);

/* Sum of the window rates of the paths that carry data, bit/s. */
u64 mroce_paths_window_rate(const struct mroce_path *paths, unsigned int n);

/*
 * QP error condition: true when every path has gone unanswered for longer
 * than @qp_timeout_ns * (@retry_cnt + 1). Paths with nothing to answer are
 * not silent, so an idle connection never qualifies.
 */
bool mroce_paths_all_silent(const struct mroce_path *paths, unsigned int n,
			    u64 now, u64 qp_timeout_ns, u32 retry_cnt);

#endif /* MROCE_PROTO_PATH_H */
