/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * MetaRoCE software RDMA provider: state shared by the module's files.
 */
#ifndef METAROCE_H
#define METAROCE_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/refcount.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>
#include "proto/wire.h"

#define MROCE_DRV_NAME		"rdma_metaroce"
#define MROCE_LINK_TYPE		"metaroce"

#define MROCE_VENDOR_ID		0xffffff	/* no OUI: software device */
#define MROCE_MAX_PATHS		64
#define MROCE_GID_TBL_LEN	1024

/*
 * Counters shown by "rdma statistic show"; names in counters.c. One drop
 * counter per reason of enum mroce_drop_reason follows the fixed ones.
 */
enum mroce_counter {
	MROCE_CNT_RX_PACKETS,
	MROCE_CNT_RX_BYTES,
	MROCE_CNT_TX_PACKETS,
	MROCE_CNT_TX_BYTES,
	MROCE_CNT_RX_DROP_NO_QP,
	MROCE_CNT_TX_RETRANSMITS,
	MROCE_CNT_RTO,
	MROCE_CNT_RX_DUPLICATES,
	MROCE_CNT_RX_OUT_OF_ORDER,
	MROCE_CNT_RX_SACK_GAPS,		/* ACKs sent with holes in the bitmap */
	MROCE_CNT_TX_ACK_SACK_AHEAD,	/* ACKs whose bitmap starts after ack_psn */
	MROCE_CNT_TX_HINT_ACKS,		/* ACKs that only carry a new share */
	MROCE_CNT_TX_NAK_RNR,
	MROCE_CNT_TX_NAK_SEQ,
	MROCE_CNT_TX_NAK_FATAL,
	MROCE_CNT_RX_NAK_RNR,
	MROCE_CNT_RX_NAK_SEQ,
	MROCE_CNT_RX_NAK_FATAL,
	MROCE_CNT_RX_DROP_QP_TYPE,	/* UD opcode to RC QP or vice versa */
	MROCE_CNT_RX_DROP_UD_STATE,	/* UD QP not ready to receive */
	MROCE_CNT_RX_DROP_RC_STATE,	/* RC QP before RTR, or in error */
	MROCE_CNT_RX_DROP_UD_QKEY,	/* Q_Key mismatch */
	MROCE_CNT_RX_DROP_UD_NO_RECV,	/* no receive WQE posted */
	MROCE_CNT_PATH_LOSSES,		/* lost by a path's SACK count */
	MROCE_CNT_PATH_RTO,		/* path retransmission timeouts */
	MROCE_CNT_PATH_FAILED,		/* paths that went FAILED */
	MROCE_CNT_PATH_PROBES,		/* probes of failed paths */
	MROCE_CNT_PATH_RECOVERED,	/* failed paths back in use */
	MROCE_CNT_PATH_RTO_SPURIOUS,	/* path timeouts undone (Eifel) */
	MROCE_CNT_PATH_RTO_DEFERRED,	/* expiries while every path was silent */
	MROCE_CNT_PATH_TAIL_PROBES,	/* tail probes of quiet paths */
	MROCE_CNT_ECN_CE_RX,		/* CE-marked packets received */
	MROCE_CNT_ECN_ECHOED,		/* CE marks the peer echoed to us */
	MROCE_CNT_TX_LOCAL_WAIT,	/* QPs stopped by their local queue */
	/* Sends stopped with work left, by what stopped them. */
	MROCE_CNT_TX_STALL_PSN_WINDOW,	/* the PSN ring full from snd_una */
	MROCE_CNT_TX_STALL_PIPE,	/* qp->pipe PSNs unacknowledged */
	MROCE_CNT_TX_STALL_CWND,	/* no path has window to spare */
	MROCE_CNT_TX_STALL_PACE,	/* the receiver's rate hint */
	MROCE_CNT_TX_ZEROCOPY,		/* payload sent as MR page fragments */
	MROCE_CNT_RX_RING_FULL,		/* dropped: no memory to grow rxring */
	MROCE_CNT_RX_DROP_BASE,		/* + reason - 1 */
	MROCE_NUM_COUNTERS = MROCE_CNT_RX_DROP_BASE + MROCE_DROP_MAX - 1
};

/*
 * The per-namespace UDP socket. One socket per network namespace serves
 * every MetaRoCE device bound to a netdev in that namespace; received
 * packets find their device through skb->dev. It is shared and counted
 * because two devices in one namespace must listen on the same port.
 */
struct mroce_rate;

#define MROCE_MAX_PATHS		64	/* paths one RC connection may use */

struct mroce_udp {
	struct socket *sock;
	struct net *net;		/* not held: see net.c */
	refcount_t users;
};

struct mroce_dev {
	struct ib_device ibdev;
	struct net_device *ndev;	/* held via ib_device_set_netdev() */
	struct list_head list;		/* in mroce_devices, under mroce_lock */
	struct mroce_udp *udp;		/* NULL once detached from the netns */
	enum ib_port_state port_state;
	enum ib_mtu active_mtu;
	atomic64_t counters[MROCE_NUM_COUNTERS];
	struct xarray qp_xa;		/* qpn -> struct mroce_qp, RCU */
	u32 qp_next;			/* cyclic QPN cursor */
	/* txq.c: packets of RC QPs below us, in the qdisc and the driver */
	atomic_t txq_out;
	atomic_t txq_active;		/* QPs with packets there */
	spinlock_t txq_lock;		/* txq_waiters */
	struct list_head txq_waiters;	/* QPs waiting for the netdev */

	/* mr.c state */
	struct xarray mr_xa;		/* key >> 8 -> struct mroce_mr, RCU */
	u32 mr_next;			/* cyclic index cursor, under mr_xa lock */
	atomic_t mr_count;		/* MRs allocated, at most max_mr */
	atomic_t mw_count;		/* MWs allocated (mw.c), at most max_mw */
	bool mr_ready;			/* mr_xa initialised (mroce_mr_dev_init) */
	/* end of mr.c state */

	atomic_t ah_count;		/* AHs allocated, at most max_ah */
	atomic_t srq_count;		/* SRQs allocated, at most max_srq */

	unsigned int num_paths;		/* of new RC QPs; sysfs num_paths */
	u32 rate_capacity_mbps;		/* rate.c; 0: no hints */
	struct mroce_rate *rate;	/* rate.c */
};

struct mroce_ucontext {
	struct ib_ucontext ibuc;
};

struct mroce_pd {
	struct ib_pd ibpd;
};

static inline struct mroce_dev *to_mdev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct mroce_dev, ibdev);
}

static inline void mroce_count(struct mroce_dev *mdev, enum mroce_counter c,
			       u64 n)
{
	atomic64_add(n, &mdev->counters[c]);
}

/* main.c */
extern unsigned short mroce_udp_port;
extern unsigned int mroce_num_paths;
extern struct mutex mroce_lock;
extern struct list_head mroce_devices;
extern struct workqueue_struct *mroce_wq;
struct mroce_dev *mroce_dev_get_by_netdev(struct net_device *ndev);

/* device.c */
int mroce_dev_add(const char *ibdev_name, struct net_device *ndev);
void mroce_dev_update_port(struct mroce_dev *mdev, bool notify);

/* net.c */
int mroce_net_init(void);
void mroce_net_exit(void);
int mroce_udp_attach(struct mroce_dev *mdev);
void mroce_udp_detach(struct mroce_dev *mdev);

static inline void mroce_count_drop(struct mroce_dev *mdev,
				    enum mroce_drop_reason why)
{
	if (why > MROCE_DROP_NONE && why < MROCE_DROP_MAX)
		atomic64_inc(&mdev->counters[MROCE_CNT_RX_DROP_BASE + why - 1]);
}

/* rate.c */
int mroce_rate_init(struct mroce_dev *mdev);
void mroce_rate_free(struct mroce_dev *mdev);
void mroce_rate_set_capacity(struct mroce_dev *mdev, u32 mbps);
void mroce_rate_rx(struct mroce_dev *mdev, u32 qpn, u32 bytes);
void mroce_rate_push(struct mroce_dev *mdev);
u32 mroce_rate_hint(struct mroce_dev *mdev, u32 qpn);
void mroce_rate_leave(struct mroce_dev *mdev, u32 qpn);

/* counters.c */
void mroce_counters_init(void);
struct rdma_hw_stats *mroce_alloc_hw_port_stats(struct ib_device *ibdev,
						u32 port_num);
int mroce_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		       u32 port, int index);

/* Verbs of each object type, merged into the device by device.c. */
extern const struct ib_device_ops mroce_pd_ops;	/* pd.c */
extern const struct ib_device_ops mroce_mr_ops;	/* mr.c */
extern const struct ib_device_ops mroce_mw_ops;	/* mw.c */
extern const struct ib_device_ops mroce_cq_ops;	/* cq.c */
extern const struct ib_device_ops mroce_qp_ops;	/* qp.c */
extern const struct ib_device_ops mroce_post_ops;	/* post.c */
extern const struct ib_device_ops mroce_ah_ops;	/* ah.c */
extern const struct ib_device_ops mroce_srq_ops;	/* srq.c */

/* For verbs whose implementation is still missing: say so, once a while. */
static inline int mroce_no_data_path(struct ib_device *ibdev, const char *verb)
{
	ibdev_warn_ratelimited(ibdev, "%s: not supported yet (no data path)\n",
			       verb);
	return -EOPNOTSUPP;
}

#endif /* METAROCE_H */
