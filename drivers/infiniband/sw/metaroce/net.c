// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * MetaRoCE UDP encapsulation: one kernel UDP socket per network namespace.
 *
 * The socket is created in the namespace of the bound netdev, which is what
 * lets MetaRoCE devices work outside init_net. It is dual-stack (IPv6 with
 * v6only off) so one socket receives both IPv4 and IPv6 MetaRoCE packets.
 */

#include <linux/skbuff.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/udp_tunnel.h>
#include <metaroce/wire.h>
#include "metaroce.h"
#include "recv.h"

struct mroce_net {
	struct mroce_udp *udp;	/* under mroce_lock */
};

static unsigned int mroce_net_id __read_mostly;

static int mroce_encap_recv(struct sock *sk, struct sk_buff *skb)
{
	struct mroce_dev *mdev, *found = NULL;

	rcu_read_lock();
	list_for_each_entry_rcu(mdev, &mroce_devices, list) {
		if (mdev->ndev == skb->dev) {
			found = mdev;
			break;
		}
	}
	if (found)
		mroce_recv(found, skb);
	else
		kfree_skb(skb);
	rcu_read_unlock();
	/* Consumed either way: never hand MetaRoCE packets to userspace. */
	return 0;
}

static struct socket *mroce_udp_open(struct net *net)
{
	struct udp_tunnel_sock_cfg tcfg = {
		.encap_type = 1,
		.encap_rcv = mroce_encap_recv,
	};
	struct udp_port_cfg cfg = {
		.local_udp_port = htons(mroce_udp_port),
	};
	struct socket *sock;
	int err;

#if IS_ENABLED(CONFIG_IPV6)
	cfg.family = AF_INET6;
	cfg.ipv6_v6only = 0;
#else
	cfg.family = AF_INET;
#endif
	err = udp_sock_create(net, &cfg, &sock);
	if (err) {
		pr_err("%s: cannot open UDP port %u: %d\n", MROCE_DRV_NAME,
		       mroce_udp_port, err);
		return ERR_PTR(err);
	}
	setup_udp_tunnel_sock(net, sock, &tcfg);
	return sock;
}

/* Join the namespace's socket, creating it for the first device. */
int mroce_udp_attach(struct mroce_dev *mdev)
{
	struct mroce_net *mn = net_generic(dev_net(mdev->ndev), mroce_net_id);
	struct mroce_udp *udp = mn->udp;
	struct socket *sock;

	lockdep_assert_held(&mroce_lock);
	if (udp) {
		refcount_inc(&udp->users);
		mdev->udp = udp;
		return 0;
	}
	udp = kzalloc(sizeof(*udp), GFP_KERNEL);
	if (!udp)
		return -ENOMEM;
	sock = mroce_udp_open(dev_net(mdev->ndev));
	if (IS_ERR(sock)) {
		kfree(udp);
		return PTR_ERR(sock);
	}
	udp->sock = sock;
	udp->net = dev_net(mdev->ndev);
	refcount_set(&udp->users, 1);
	mn->udp = udp;
	mdev->udp = udp;
	return 0;
}

static void mroce_udp_release(struct mroce_net *mn)
{
	udp_tunnel_sock_release(mn->udp->sock);
	kfree(mn->udp);
	mn->udp = NULL;
}

/* Leave the socket; idempotent. The last device closes it. */
void mroce_udp_detach(struct mroce_dev *mdev)
{
	struct mroce_udp *udp = mdev->udp;

	lockdep_assert_held(&mroce_lock);
	if (!udp)
		return;
	mdev->udp = NULL;
	if (refcount_dec_and_test(&udp->users))
		mroce_udp_release(net_generic(udp->net, mroce_net_id));
}

/*
 * Netdevs of a dying namespace are unregistered (and our devices detached)
 * by the device exit that runs before this subsystem exit; a socket left
 * here is a bug, but it must not outlive the namespace either.
 */
static void __net_exit mroce_net_exit_ns(struct net *net)
{
	struct mroce_net *mn = net_generic(net, mroce_net_id);

	mutex_lock(&mroce_lock);
	if (WARN_ON(mn->udp))
		mroce_udp_release(mn);
	mutex_unlock(&mroce_lock);
}

static struct pernet_operations mroce_net_ops = {
	.exit = mroce_net_exit_ns,
	.id = &mroce_net_id,
	.size = sizeof(struct mroce_net),
};

int mroce_net_init(void)
{
	return register_pernet_subsys(&mroce_net_ops);
}

void mroce_net_exit(void)
{
	unregister_pernet_subsys(&mroce_net_ops);
}
