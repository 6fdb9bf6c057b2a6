/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * MetaRoCE queue pairs: verbs state and the reliable transport's state.
 *
 * Each side of an RC connection numbers the requests it sends in one PSN
 * space and keeps up to MROCE_TX_WINDOW PSNs in flight; the peer
 * acknowledges them cumulatively plus a SACK bitmap. A Read of n packets
 * takes n PSNs and each READ_RESP carries the PSN it answers (an
 * ATOMIC_ACK likewise), so responses need no PSN space of their own, a
 * responder in RTR can answer, and a lost response packet is repaired by
 * asking again for just that PSN.
 */
#ifndef METAROCE_QP_H
#define METAROCE_QP_H

#include <linux/in6.h>
#include <linux/hrtimer.h>
#include <linux/timer.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include "metaroce.h"
#include "ah.h"
#include "queue.h"
#include "proto/sack.h"
#include "proto/path.h"

struct dst_cache;
struct sock;

#define MROCE_TX_WINDOW		METAROCE_PSN_WINDOW	/* packets */
/*
 * Bytes in flight that are not acknowledged yet, selectively or not, in
 * packets of the QP's segment (qp->pipe). The window lets a sender go on
 * past holes; this bounds what it has on the wire. Where a host has CPU
 * to spare, the pipe over the round trip is the rate: 512 KiB held 64
 * KiB writes between two VMs to 0.78 of what 1 MiB moved; 2 MiB moved
 * 5% more, within the spread. On a link without ECN what exceeds its
 * queue is dropped: 1 MiB there dropped eight times what 512 KiB did,
 * for the same goodput. Counted in bytes, not packets: in packets,
 * 1408-byte segments put 37% more on the wire and a shaped link without
 * ECN dropped four times as many (Documentation/bench/findings.md).
 */
#define MROCE_TX_PIPE_BYTES	(1024 * 1024)
#define MROCE_TX_PIPE		1024	/* packets, at most */
#define MROCE_TX_PIPE_MIN	32	/* packets, at least */
#define MROCE_QP_MAX_SGE	16
#define MROCE_MAX_INLINE	256
/*
 * Reads and atomics in flight per QP, either way (max_qp_rd_atom):
 * perftest and ULPs ask for the device maximum, and small reads are
 * bound by how many are in flight.
 */
#define MROCE_MAX_RD_ATOM	128
#define MROCE_RDQ_SIZE		MROCE_MAX_RD_ATOM	/* queued responses */
#define MROCE_READ_CHUNK	64	/* PSNs one READ_REQ asks for */
#define MROCE_DUPACK_THRESH	3	/* later SACKs that make a hole lost */
/*
 * ACKREQ at least every N packets. Each ACK is a packet both hosts
 * handle: 16 moved 64 KiB writes 11% above 8, taken in turns, and 1%
 * loss no lower; 32 moved nothing more (Documentation/bench/findings.md).
 */
#define MROCE_ACK_EVERY		16
#define MROCE_PATH_NONE		0xff	/* txpkt not outstanding on a path */

/* A send work request as the transport keeps it. */
struct mroce_swqe {
	u64 wr_id;
	u32 opcode;			/* IB_WR_* */
	int send_flags;
	u32 length;			/* message bytes */
	u32 num_sge;
	__be32 imm;			/* or invalidate rkey (host order) */
	u32 inv_rkey;
	u64 remote_addr;
	u32 rkey;
	u64 compare_add;
	u64 swap;
	struct ib_mr *reg_mr;		/* IB_WR_REG_MR */
	u32 reg_key;
	int reg_access;
	struct {			/* IB_WR_BIND_MW (mw.c) */
		u64 addr;
		u64 length;
		u32 mw_rkey;		/* names the window by its index */
		u32 rkey;		/* and once bound: new key byte */
		u32 mr_lkey;
		int access;
	} bind;
	struct {			/* UD and GSI: the datagram's address */
		struct mroce_av av;
		u32 remote_qpn;
		u32 remote_qkey;
	} ud;

	/* transport progress */
	u32 first_psn;
	u32 npkts;			/* packets of the message */
	u32 sent;			/* packets transmitted at least once */
	u32 msn;			/* receive or read/atomic MSN */
	bool local_done;		/* local op executed */
	enum ib_wc_status status;
	union {				/* inline WQEs keep no SGEs */
		struct ib_sge sge[MROCE_QP_MAX_SGE];
		u8 inline_data[MROCE_MAX_INLINE];
	};
};

struct mroce_rwqe {
	u64 wr_id;
	u32 num_sge;
	u32 bytes;			/* placed so far */
	u32 total;			/* message length, from the first packet */
	bool last_seen;
	u32 imm;
	bool has_imm;
	bool has_inv;
	u32 inv_rkey;
	u8 opcode;			/* METAROCE_OP_* that completed it */
	struct ib_sge sge[MROCE_QP_MAX_SGE];
};

/* One PSN in flight, enough to build its packet again. */
struct mroce_txpkt {
	u8 opcode;			/* METAROCE_OP_* */
	u8 flags;			/* METAROCE_F_* */
	bool acked:1;
	bool lost:1;			/* queued for retransmission */
	bool needs_resp:1;		/* read/atomic: only a response acks it */
	u8 retx;
	u8 path;			/* index of the path it is outstanding
					 * on, or MROCE_PATH_NONE
					 */
	u8 req_pkts;			/* READ_REQ: response packets it asks for */
	u16 wire_len;			/* UDP payload bytes of that send */
	u32 pseq;			/* its path sequence number */
	u32 wqe;			/* send queue index */
	u32 offset;			/* byte offset in message */
	u32 len;			/* payload, or READ_RESP payload awaited */
	u64 sent_ns;
};

/*
 * A QP keeps one txpkt per PSN of the window: at 32 bytes the ring is a
 * power of two (64 KiB), which kmalloc serves without rounding up; at 40
 * it took 128 KiB.
 */
#define MROCE_TXPKT_SIZE	32

/* What completing a received PSN in order must do. */
struct mroce_rxinfo {
	u8 opcode;			/* METAROCE_OP_* */
	u16 flags;			/* METAROCE_F_* */
	u32 imm;
	u32 total;			/* SEND: message; WRITE: packet bytes */
};

/* A peer's read or atomic we are answering: responses still to send. */
struct mroce_rdreq {
	bool atomic;			/* one ATOMIC_ACK carrying orig */
	u32 psn;			/* of the first response */
	u64 va;
	u64 orig;
	u32 rkey;
	u32 len;
	u32 offset;			/* next byte to send */
	u32 seg;			/* response payload bytes (Reads) */
	u32 msn;
};

/* Results of executed atomics, to answer a retransmitted request. */
struct mroce_atomic_cache {
	bool valid;
	u32 psn;
	u64 orig;
};

/*
 * An RC QP's read and atomic queues, in one allocation of 8 KiB exactly,
 * which kmalloc serves without rounding up: inside struct mroce_qp they
 * took it from 2 KiB to 16 KiB. Allocated by the first modify_qp that
 * allows remote Reads or atomics, so a QP that allows either has them.
 */
struct mroce_resp {
	struct mroce_rdreq rdq[MROCE_RDQ_SIZE];
	struct mroce_atomic_cache acache[MROCE_MAX_RD_ATOM];
};

#define MROCE_RESP_SIZE		(8 * 1024)

struct mroce_qp {
	struct ib_qp ibqp;
	struct mroce_dev *mdev;
	refcount_t ref;
	struct completion released;
	spinlock_t lock;		/* everything below */
	struct mutex state_mutex;	/* modify_qp against destroy */

	enum ib_qp_state state;
	bool sq_draining;
	bool sq_sig_all;
	bool is_user;
	int access;			/* qp_access_flags */
	u32 mtu;			/* path MTU, bytes */
	u32 seg;			/* our segment, bytes (section 6) */
	u32 pipe;			/* MROCE_TX_PIPE_BYTES in packets */
	u32 dqpn;
	u32 qkey;
	u8 timeout;			/* IBTA: 4.096 us << timeout */
	u8 retry_cnt;
	u8 rnr_retry;
	u8 min_rnr_timer;
	bool is_v4;
	struct in6_addr saddr;		/* v4 addresses are v4-mapped */
	struct in6_addr daddr;
	u8 tclass;
	u8 hop_limit;
	u16 sport;			/* UDP source port of QP-wide sends */

	/* multipath sender (paths.c): fixed at create from the device */
	u16 npaths;
	u16 resp_path;			/* rotation for read responses */
	struct mroce_path *paths;
	u16 *path_sport;		/* UDP source port of each path */
	struct dst_cache *path_dst;	/* each path's route (net.c) */
	struct hrtimer path_timer;	/* path RTOs, probes and pacing */
	bool dying;			/* destroy started: do not arm timers */
	struct mroce_pacer pacer;
	u32 rate_hint;			/* from the peer's latest ACK */
	u64 last_pace_update_ns;

	/* send queue: head posted, tx next to start, tail next to complete */
	struct mroce_swqe *sq;		/* sq_size entries of sq_stride bytes */
	u32 sq_size;			/* power of two */
	u32 sq_stride;
	u32 sq_head, sq_tx, sq_tail;
	u32 max_send_sge;
	u32 max_inline;

	/* receive queue; with an SRQ, the WQEs bound from it (srq.h) */
	struct mroce_rwqe *rq;		/* rq_size entries of rq_stride bytes */
	u32 rq_size;
	u32 rq_stride;
	u32 max_recv_sge;
	u32 rq_head, rq_tail;
	u32 rq_msn;			/* receive MSN of the WQE at rq_tail */

	/* user RC QPs: rings shared with the process (uqp.c) */
	struct mroce_queue usq;
	struct mroce_queue urq;
	u32 urq_cons;			/* receive WQEs taken from urq */

	/* requester */
	u32 snd_psn;			/* next new PSN */
	u32 snd_una;			/* oldest PSN not acknowledged */
	u32 snd_sacked;			/* PSNs after snd_una acknowledged */
	/* SACK bits acted on, not to be walked again (ack.c) */
	MROCE_SACK(sack_seen, METAROCE_SACK_BITS);
	u32 lost_scan;			/* no PSN before it on a path */
	u32 snd_msn;			/* next receive MSN to assign */
	u32 rd_msn;			/* next read/atomic MSN to assign */
	u32 rd_pending;			/* reads/atomics awaiting responses */
	u8 max_rd_atomic;		/* limit of rd_pending (0: 1) */
	u8 max_dest_rd_atomic;		/* as the peer was told, for query */
	struct mroce_txpkt *tx;		/* RC: tx_cap entries, by PSN */
	u32 tx_cap;			/* a power of two, at most the window */
	bool tx_grow;			/* tx_work is to double tx */
	u32 lost_count;			/* packets marked lost, not resent */
	u32 retries;			/* RTOs since progress */
	u32 rnr_retries;
	u64 rnr_until_ns;
	u32 pkts_since_ackreq;
	u32 ackreq_psn;			/* last PSN sent with ACKREQ */
	u64 acked_sent_ns;		/* latest send acknowledged (sent once) */
	bool ackreq_sent;
	bool pace_wait;			/* tx_work stopped for the pacer */
	bool tail_due;			/* path_timer found a tail probe due */
	/* packets below us (txq.c) */
	struct sock *txq_sk;		/* owns them; RC only */
	atomic_t txq_out;		/* queued or in the driver */
	bool txq_wait;			/* tx_work waits for them to drain */
	struct list_head txq_node;	/* in mdev->txq_waiters, or empty */
	bool txq_woken;			/* taken off txq_waiters by a wake */
	/* Connection RTT from echoed stamps: stretches the verbs timeout. */
	struct mroce_rtt rtt;
	u64 peer_rto_ns;		/* before rtt: other QPs' (timers.c) */

	/* responder */
	/* The peer's PSNs: base = next in order. */
	MROCE_SACK(rx, METAROCE_PSN_WINDOW);
	struct mroce_rxinfo *rxi;	/* RC: rx_cap entries, by PSN */
	u32 rx_cap;			/* a power of two, at most the window */
	u32 rx_high;			/* one past the highest PSN received */
	struct mroce_resp *resp;	/* RC allowing Reads or atomics */
	u32 rx_write_bytes;		/* of the Write being completed */
	u32 rdq_head, rdq_tail;		/* in resp->rdq */
	u32 acache_next;		/* in resp->acache */
	u64 last_ts;			/* peer's newest timestamp, to echo */
	u32 last_psn;			/* its PSN: where the ACK's bitmap ends */
	u16 last_path;
	u16 rx_ce[MROCE_MAX_PATHS];	/* CE marks per peer path since ACK */
	bool ack_due;
	u8 nak_syndrome;		/* NAK being sent, 0 if none */
	u32 nak_msn;			/* RNR: the blocked receive MSN */
	bool fatal_pending;		/* a request failed; NAK when in order */
	u32 fatal_psn;
	u8 fatal_code;			/* METAROCE_NAK_* */
	enum ib_wc_status fatal_recv_status;
	u8 fatal_nak;			/* syndrome tx_work still has to send */

	struct work_struct tx_work;
	struct timer_list rto_timer;	/* retransmission, per connection */
};

static inline struct mroce_qp *to_mqp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct mroce_qp, ibqp);
}

/*
 * A send WQE ends in as many SGEs or inline bytes as the QP was created
 * for (mroce_qp_set_sq_caps()), not the most any QP may have.
 */
static inline struct mroce_swqe *mroce_sq_wqe(struct mroce_qp *qp, u32 idx)
{
	return (void *)qp->sq + (idx & (qp->sq_size - 1)) * qp->sq_stride;
}

static inline struct mroce_rwqe *mroce_rq_wqe(struct mroce_qp *qp, u32 idx)
{
	return (void *)qp->rq + (idx & (qp->rq_size - 1)) * qp->rq_stride;
}

/* The lkeys of receive WQEs taken from an SRQ belong to the SRQ's PD. */
static inline struct ib_pd *mroce_rq_pd(struct mroce_qp *qp)
{
	return qp->ibqp.srq ? qp->ibqp.srq->pd : qp->ibqp.pd;
}

static inline struct mroce_txpkt *mroce_txpkt(struct mroce_qp *qp, u32 psn)
{
	return &qp->tx[psn & (qp->tx_cap - 1)];
}

static inline struct mroce_rxinfo *mroce_rxi(struct mroce_qp *qp, u32 psn)
{
	return &qp->rxi[psn & (qp->rx_cap - 1)];
}

static inline u32 mroce_in_flight(struct mroce_qp *qp)
{
	return qp->snd_psn - qp->snd_una;
}

/* New PSNs the window (the ring, txring.c) and the pipe have room for. */
static inline u32 mroce_tx_room(struct mroce_qp *qp)
{
	u32 span = mroce_in_flight(qp), pipe = span - qp->snd_sacked;

	if (span >= qp->tx_cap || pipe >= qp->pipe)
		return 0;
	return min(qp->tx_cap - span, qp->pipe - pipe);
}

/* PSNs a message of len bytes cut into seg-byte packets takes, at least one. */
static inline u32 mroce_msg_pkts(u32 len, u32 seg)
{
	return max_t(u32, 1, DIV_ROUND_UP(len, seg));
}

u32 mroce_dev_seg(struct mroce_dev *mdev, u32 path_mtu);

/* UDP payload of a full data packet: what windows and pacer count. */
static inline u32 mroce_full_pkt_bytes(const struct mroce_qp *qp)
{
	return qp->seg + METAROCE_MAX_DATA_HDR_LEN;
}

static inline bool mroce_is_rd(u32 wr_opcode)
{
	return wr_opcode == IB_WR_RDMA_READ ||
	       wr_opcode == IB_WR_ATOMIC_CMP_AND_SWP ||
	       wr_opcode == IB_WR_ATOMIC_FETCH_AND_ADD;
}

/* qp.c */
struct mroce_qp *mroce_qp_get(struct mroce_dev *mdev, u32 qpn);
void mroce_qp_put(struct mroce_qp *qp);
void mroce_qp_error(struct mroce_qp *qp);	/* lock held */
void mroce_qp_complete_send(struct mroce_qp *qp, struct mroce_swqe *wqe,
			    enum ib_wc_status status);
void mroce_qp_flush(struct mroce_qp *qp);	/* lock held */
int mroce_rq_add(struct mroce_qp *qp, const struct ib_recv_wr *wr);
int mroce_init_swqe(struct mroce_qp *qp, struct mroce_swqe *wqe,
		    const struct ib_send_wr *wr);

/* send.c */
void mroce_tx_work(struct work_struct *work);
void mroce_tx_kick(struct mroce_qp *qp);
void mroce_txq_dev_init(struct mroce_dev *mdev);
int mroce_txq_create(struct mroce_qp *qp);
void mroce_txq_destroy(struct mroce_qp *qp);
void mroce_txq_charge(struct mroce_qp *qp, struct sk_buff *skb);
bool mroce_txq_full(struct mroce_qp *qp, bool unasked);
bool mroce_txq_stall_after(struct mroce_qp *qp);
void mroce_tx_now(struct mroce_qp *qp);
int mroce_emit(struct mroce_qp *qp, u32 psn, struct mroce_txpkt *t, int idx,
	       bool probe, u64 now);
bool mroce_next_req(struct mroce_qp *qp, u32 *psn, u32 *npsn);
void mroce_read_reask(struct mroce_txpkt *t);
void mroce_send_ack(struct mroce_qp *qp);	/* lock held */
void mroce_send_hint_ack(struct mroce_qp *qp);	/* lock held */
void mroce_rx_ack(struct mroce_qp *qp, const struct mroce_hdr *hdr);
void mroce_rx_resp(struct mroce_qp *qp, const struct mroce_hdr *hdr,
		   const u8 *payload, u32 len);
void mroce_tx_complete(struct mroce_qp *qp);
void mroce_tx_mark_lost(struct mroce_qp *qp, struct mroce_txpkt *t);
void mroce_tx_on_path(struct mroce_qp *qp, u32 psn);
void mroce_tx_acks_reset(struct mroce_qp *qp, u32 psn);

/* probe.c */
bool mroce_tx_probe(struct mroce_qp *qp, u64 now, bool fresh);
void mroce_tx_nak_fatal(struct mroce_qp *qp, u32 psn,
			enum ib_wc_status status);

/* txring.c */
int mroce_txring_create(struct mroce_qp *qp);
void __mroce_txring_check(struct mroce_qp *qp);
void mroce_txring_grow(struct mroce_qp *qp);
void mroce_txring_reset(struct mroce_qp *qp);

/*
 * Grow the requester's ring once three quarters of it is in flight. Run
 * for every packet sent, so the common answer, no, costs no call. Lock
 * held.
 */
static inline void mroce_txring_check(struct mroce_qp *qp)
{
	u32 cap = qp->tx_cap;

	if (cap < MROCE_TX_WINDOW && mroce_in_flight(qp) >= cap - cap / 4)
		__mroce_txring_check(qp);
}

/* rxring.c */
int mroce_rxring_create(struct mroce_qp *qp);
int __mroce_rxring_fit(struct mroce_qp *qp, u32 psn, u32 n);

/*
 * Make room in the responder's ring for PSNs psn .. psn + n - 1, those
 * of them in the window; -ENOMEM if it could not grow. Run for every
 * packet received: one that fits, nearly all, costs no call (a duplicate
 * below the cumulative point takes the slow way, which lets it through).
 * Lock held.
 */
static inline int mroce_rxring_fit(struct mroce_qp *qp, u32 psn, u32 n)
{
	if (psn - qp->rx.base + n <= qp->rx_cap)
		return 0;
	return __mroce_rxring_fit(qp, psn, n);
}

/* timers.c */
void mroce_rto_fire(struct timer_list *t);
void mroce_tx_start_timer(struct mroce_qp *qp);
void mroce_paths_arm(struct mroce_qp *qp);
enum hrtimer_restart mroce_path_timer_fire(struct hrtimer *timer);

/* paths.c */
int mroce_paths_create(struct mroce_qp *qp);
void mroce_paths_destroy(struct mroce_qp *qp);
void mroce_paths_start(struct mroce_qp *qp);
int mroce_paths_pick(struct mroce_qp *qp, u32 bytes);
void mroce_paths_sent(struct mroce_qp *qp, struct mroce_txpkt *t, int idx,
		      u64 now, u32 bytes);
void mroce_paths_acked(struct mroce_qp *qp, struct mroce_txpkt *t, u64 now,
		       u16 echo_path, u32 *echo_pkts);
void mroce_paths_forget(struct mroce_qp *qp, struct mroce_txpkt *t);
void mroce_paths_on_ack(struct mroce_qp *qp, const struct mroce_hdr *hdr,
			u64 now, u32 echo_pkts);
bool mroce_paths_lost(struct mroce_qp *qp, struct mroce_txpkt *t, u64 now);
u32 mroce_paths_holes(struct mroce_qp *qp);
bool mroce_paths_in_hole(struct mroce_qp *qp, struct mroce_txpkt *t);
int mroce_paths_probe_due(struct mroce_qp *qp, u64 now);
u32 mroce_paths_oldest(struct mroce_qp *qp, unsigned int i);
int mroce_paths_tail_due(struct mroce_qp *qp, u64 now, u32 *psn);
bool mroce_paths_any_up(struct mroce_qp *qp);
bool mroce_paths_pace_ok(struct mroce_qp *qp, u64 now);
bool mroce_paths_pace_gap(struct mroce_qp *qp, u64 now, u32 bytes);
bool mroce_paths_stall_after(struct mroce_qp *qp, int idx, u32 bytes);
u16 mroce_paths_resp_sport(struct mroce_qp *qp);
u16 mroce_paths_ack_sport(struct mroce_qp *qp, u16 path_id);
struct dst_cache *mroce_paths_dst(struct mroce_qp *qp, u16 sport);
int mroce_paths_fill_res(struct sk_buff *msg, struct mroce_qp *qp);

/* recv.c */
void mroce_rx_qp(struct mroce_qp *qp, const struct mroce_hdr *hdr,
		 const u8 *payload, u32 len);

/* net.c */
int mroce_xmit(struct mroce_qp *qp, struct sk_buff *skb, u16 sport);
int mroce_xmit_av(struct mroce_dev *mdev, const struct mroce_av *av,
		  u16 sport, struct sk_buff *skb);
struct sk_buff *mroce_alloc_skb(struct mroce_dev *mdev, unsigned int len);

#endif /* METAROCE_QP_H */
