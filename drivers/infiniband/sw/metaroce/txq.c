// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Local backpressure: how many of an RC QP's packets sit below us, in the
 * qdisc and the driver, and when the QP must wait for them to drain.
 *
 * udp_tunnel_xmit_skb() does not say when the qdisc drops a packet, so
 * a QP that sends faster than its netdev learns of the loss only from
 * the peer, a path timeout later. With many QPs on one netdev their
 * windows together overflow its queue at once. So each RC QP owns its
 * packets, like TCP small queues: a private socket takes them with
 * skb_set_owner_w(), and its write_space callback, run as each packet
 * leaves the host or is dropped, counts them down and wakes the QP.
 *
 * The netdev may hold half its queue of our packets (the budget), and
 * each QP a fair share of that among the QPs with packets there, at least
 * MROCE_TXQ_QP_MIN. A QP over its share waits for its own packets to
 * drain; a QP that finds the budget spent waits on the device's list,
 * woken in turn, one per packet that leaves, once half of it is free.
 * The list is served in turn: while QPs wait on it, a QP not just woken
 * from it joins its tail even if the budget has room. Otherwise QPs
 * whose own packets keep waking them kept the budget over half full for
 * as long as they had data, and with 4096 QPs those on the list waited
 * for seconds, some of them past their retries. A round of the list can
 * outlast the verbs timeout, so a QP whose packets out ask for no ACK
 * sends one that does before it waits, past the budget if need be. The
 * shares alone did not bound the sum: QPs that start one after another
 * each see few others, and 256 QPs overflowed a queue of 1000 packets. A
 * fixed cap per QP (rxe's is 64 packets) bounds nothing when QPs are
 * many and binds one QP alone.
 *
 * The socket is refcounted by its packets (sk_wmem_alloc) and holds the
 * module, so packets may outlive their QP; sk_callback_lock orders the
 * callback against the QP's destruction.
 */

#include <linux/skbuff.h>
#include <net/sock.h>
#include "qp.h"

#define MROCE_TXQ_QP_MIN	2
#define MROCE_TXQ_DEV_DEFAULT	512	/* a netdev without a queue length */

static struct proto mroce_txq_proto = {
	.name = "METAROCE_TXQ",
	.owner = THIS_MODULE,
	.obj_size = sizeof(struct sock),
};

void mroce_txq_dev_init(struct mroce_dev *mdev)
{
	atomic_set(&mdev->txq_out, 0);
	atomic_set(&mdev->txq_active, 0);
	spin_lock_init(&mdev->txq_lock);
	INIT_LIST_HEAD(&mdev->txq_waiters);
}

/* Packets of ours the netdev should hold: half its queue. */
static u32 mroce_txq_budget(struct mroce_dev *mdev)
{
	return READ_ONCE(mdev->ndev->tx_queue_len) / 2 ?:
	       MROCE_TXQ_DEV_DEFAULT;
}

/* A QP's share of the budget. */
static u32 mroce_txq_share(struct mroce_dev *mdev, u32 budget)
{
	u32 active = max(atomic_read(&mdev->txq_active), 1);

	return max(budget / active, MROCE_TXQ_QP_MIN);
}

/* Kick the first @n QPs that wait for the device's budget. */
static void mroce_txq_wake_dev(struct mroce_dev *mdev, u32 n)
{
	struct mroce_qp *qp;

	spin_lock_bh(&mdev->txq_lock);
	while (n-- && !list_empty(&mdev->txq_waiters)) {
		qp = list_first_entry(&mdev->txq_waiters, struct mroce_qp,
				      txq_node);
		list_del_init(&qp->txq_node);
		WRITE_ONCE(qp->txq_woken, true);
		mroce_tx_kick(qp);
	}
	spin_unlock_bh(&mdev->txq_lock);
}

/* A packet of the QP's left the host or was dropped. */
static void mroce_txq_write_space(struct sock *sk)
{
	struct mroce_dev *mdev;
	struct mroce_qp *qp;
	u32 budget, total;

	read_lock(&sk->sk_callback_lock);
	qp = sk->sk_user_data;
	if (!qp)
		goto out;
	mdev = qp->mdev;
	if (atomic_dec_return(&qp->txq_out) == 0)
		atomic_dec(&mdev->txq_active);
	total = atomic_dec_return(&mdev->txq_out);
	budget = mroce_txq_budget(mdev);
	/* Wake at half, not at each packet. */
	if (READ_ONCE(qp->txq_wait) &&
	    atomic_read(&qp->txq_out) <= mroce_txq_share(mdev, budget) / 2) {
		WRITE_ONCE(qp->txq_wait, false);
		mroce_tx_kick(qp);
	}
	/*
	 * Below half, one waiter per packet that leaves: each woken QP sends
	 * its share, at least two, so the queue refills at the rate it
	 * drains. Waking all of them at once ran 4096 work items per drain,
	 * most only to find the budget spent again. Empty, wake all: a woken
	 * QP may have had nothing left to send, and none would wake the rest.
	 */
	if (total <= budget / 2 && !list_empty_careful(&mdev->txq_waiters))
		mroce_txq_wake_dev(mdev, total ? 1 : U32_MAX);
out:
	read_unlock(&sk->sk_callback_lock);
}

int mroce_txq_create(struct mroce_qp *qp)
{
	struct sock *sk;

	INIT_LIST_HEAD(&qp->txq_node);
	sk = sk_alloc(dev_net(qp->mdev->ndev), AF_UNSPEC, GFP_KERNEL,
		      &mroce_txq_proto, 1);
	if (!sk)
		return -ENOMEM;
	sock_init_data(NULL, sk);
	sk->sk_user_data = qp;
	sk->sk_write_space = mroce_txq_write_space;
	atomic_set(&qp->txq_out, 0);
	qp->txq_sk = sk;
	return 0;
}

/*
 * After the QP's last send: packets still queued no longer reach it and
 * no longer count. Destroy cancels tx_work after this, so no wakeup
 * outlives the QP.
 */
void mroce_txq_destroy(struct mroce_qp *qp)
{
	struct mroce_dev *mdev = qp->mdev;
	struct sock *sk = qp->txq_sk;
	int out;

	if (!sk)
		return;
	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_user_data = NULL;
	write_unlock_bh(&sk->sk_callback_lock);
	spin_lock_bh(&mdev->txq_lock);
	list_del_init(&qp->txq_node);
	spin_unlock_bh(&mdev->txq_lock);
	out = atomic_read(&qp->txq_out);
	if (out) {
		atomic_dec(&mdev->txq_active);
		/* Others may wait for what no longer counts. */
		atomic_sub(out, &mdev->txq_out);
		mroce_txq_wake_dev(mdev, U32_MAX);
	}
	qp->txq_sk = NULL;
	sock_put(sk);
}

/* The QP owns skb until it leaves the host. */
void mroce_txq_charge(struct mroce_qp *qp, struct sk_buff *skb)
{
	if (!qp->txq_sk)
		return;
	skb_set_owner_w(skb, qp->txq_sk);
	atomic_inc(&qp->mdev->txq_out);
	if (atomic_inc_return(&qp->txq_out) == 1)
		atomic_inc(&qp->mdev->txq_active);
}

/* Others' turn first: QPs wait on the list, and this one was not woken. */
static bool mroce_txq_others_first(struct mroce_qp *qp)
{
	return !READ_ONCE(qp->txq_woken) &&
	       !list_empty_careful(&qp->mdev->txq_waiters);
}

/*
 * Whether the QP will wait after its next packet: that packet uses up
 * its share or the device's budget, or others wait on the list and the
 * QP, not woken from it, will join its tail. That packet asks for an
 * ACK. Else, with many QPs each sending a few packets a turn, sixteen
 * packets (MROCE_ACK_EVERY) took longer than the verbs timeout, and
 * connections timed out with nothing lost. Lock held.
 */
bool mroce_txq_stall_after(struct mroce_qp *qp)
{
	struct mroce_dev *mdev = qp->mdev;
	u32 budget, total;

	if (!qp->txq_sk)
		return false;
	budget = mroce_txq_budget(mdev);
	total = atomic_read(&mdev->txq_out) + 1;
	/* As mroce_txq_full() will judge after this packet. */
	return atomic_read(&qp->txq_out) + 1 >= mroce_txq_share(mdev, budget) ||
	       total >= budget ||
	       (total > budget / 2 && mroce_txq_others_first(qp));
}

/*
 * Must the QP wait before it sends: is it over its share, the device
 * over its budget, or is it others' turn? Then write_space wakes it.
 * @unasked: the QP has packets out and none asks for an ACK. It then
 * neither waits its turn nor stops at the budget: a turn of the list can
 * outlast the verbs timeout, and its next packet asks for the ACK. Lock
 * held.
 */
bool mroce_txq_full(struct mroce_qp *qp, bool unasked)
{
	struct mroce_dev *mdev = qp->mdev;
	u32 budget, total;

	if (!qp->txq_sk)
		return false;
	budget = mroce_txq_budget(mdev);
	if (atomic_read(&qp->txq_out) >= mroce_txq_share(mdev, budget)) {
		WRITE_ONCE(qp->txq_wait, true);
		/* Pairs with write_space: it counts down, then reads. */
		smp_mb();
		if (atomic_read(&qp->txq_out) >= mroce_txq_share(mdev, budget)) {
			/* Its turn ends with its share sent. */
			WRITE_ONCE(qp->txq_woken, false);
			goto wait;
		}
		WRITE_ONCE(qp->txq_wait, false);
	}
	/*
	 * Its turn, if the list woke it; else others' turn first. A QP
	 * whose packets out ask for no ACK sends one that does even past
	 * the budget, up to three quarters of the netdev's queue: the ACK
	 * for its last request can come while the budget is spent, and its
	 * later packets then waited a round of the list unanswered.
	 */
	total = atomic_read(&mdev->txq_out);
	if (unasked ? total < budget + budget / 2 :
	    total < budget && !mroce_txq_others_first(qp))
		return false;
	WRITE_ONCE(qp->txq_woken, false);
	spin_lock_bh(&mdev->txq_lock);
	if (list_empty(&qp->txq_node))
		list_add_tail(&qp->txq_node, &mdev->txq_waiters);
	spin_unlock_bh(&mdev->txq_lock);
	/* Pairs with write_space: it counts down, then looks at the list. */
	smp_mb();
	/*
	 * Below half, write_space may have looked at the list before we
	 * joined it, and no wake would come. Left on the list if so: a
	 * later kick finds nothing to do.
	 */
	if (atomic_read(&mdev->txq_out) <= budget / 2)
		return false;
wait:
	return true;
}
