// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * MetaRoCE UDP encapsulation: one kernel UDP socket per network namespace.
 *
 * The socket is created in the namespace of the bound netdev, which is what
 * lets MetaRoCE devices work outside init_net. It is dual-stack (IPv6 with
 * v6only off) so one socket receives both IPv4 and IPv6 MetaRoCE packets.
 */

#include <linux/inetdevice.h>
#include <linux/skbuff.h>
#include <net/addrconf.h>
#include <net/dst_cache.h>
#include <net/ip6_route.h>
#include <net/route.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/udp_tunnel.h>
#include <metaroce/wire.h>
#include "metaroce.h"
#include "recv.h"
#include "qp.h"
#include "ah.h"

struct mroce_net {
	struct mroce_udp *udp;	/* under mroce_lock */
};

static unsigned int mroce_net_id __read_mostly;

/* Is the packet's destination address one of ndev's? RCU held. */
static bool mroce_dst_is_on(struct sk_buff *skb, struct net_device *ndev)
{
	if (ip_hdr(skb)->version == 4) {
		struct in_device *in_dev = __in_dev_get_rcu(ndev);
		const struct in_ifaddr *ifa;

		if (!in_dev)
			return false;
		in_dev_for_each_ifa_rcu(ifa, in_dev)
			if (ifa->ifa_local == ip_hdr(skb)->daddr)
				return true;
		return false;
	}
#if IS_ENABLED(CONFIG_IPV6)
	return ipv6_chk_addr(dev_net(ndev), &ipv6_hdr(skb)->daddr, ndev, 0);
#else
	return false;
#endif
}

/*
 * The device a packet is for: the one bound to the netdev it came in on,
 * or, for traffic between two local addresses (which the stack loops
 * back through lo), the one that owns its destination address.
 */
static struct mroce_dev *mroce_rx_dev(struct sk_buff *skb)
{
	bool lo = skb->dev->flags & IFF_LOOPBACK;
	struct mroce_dev *mdev;

	list_for_each_entry_rcu(mdev, &mroce_devices, list) {
		if (mdev->ndev == skb->dev)
			return mdev;
		if (lo && net_eq(dev_net(mdev->ndev), dev_net(skb->dev)) &&
		    mroce_dst_is_on(skb, mdev->ndev))
			return mdev;
	}
	return NULL;
}

static int mroce_encap_recv(struct sock *sk, struct sk_buff *skb)
{
	struct mroce_dev *found;

	rcu_read_lock();
	found = mroce_rx_dev(skb);
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

struct sk_buff *mroce_alloc_skb(struct mroce_dev *mdev, unsigned int len)
{
	unsigned int head = LL_RESERVED_SPACE(mdev->ndev) +
			    sizeof(struct ipv6hdr) + sizeof(struct udphdr);
	struct sk_buff *skb;

	skb = alloc_skb(head + len, GFP_ATOMIC);
	if (skb)
		skb_reserve(skb, head);
	return skb;
}

/*
 * The route of one flow: from @cache when it holds a valid one (a route
 * change makes the kernel's check fail it), else from the FIB, then kept.
 * A peer on this host is reached through lo, not the bound netdev.
 */
static struct rtable *mroce_route4(struct net *net, struct flowi4 *fl4,
				   struct dst_cache *cache)
{
	struct rtable *rt;

	if (cache) {
		rt = dst_cache_get_ip4(cache, &fl4->saddr);
		if (rt)
			return rt;
	}
	if (inet_addr_type(net, fl4->daddr) == RTN_LOCAL)
		fl4->flowi4_oif = 0;
	rt = ip_route_output_key(net, fl4);
	if (!IS_ERR(rt) && cache)
		dst_cache_set_ip4(cache, &rt->dst, fl4->saddr);
	return rt;
}

#if IS_ENABLED(CONFIG_IPV6)
static struct dst_entry *mroce_route6(struct net *net, struct sock *sk,
				      struct flowi6 *fl6,
				      struct dst_cache *cache)
{
	struct dst_entry *dst;

	if (cache) {
		dst = dst_cache_get_ip6(cache, &fl6->saddr);
		if (dst)
			return dst;
	}
	if (ipv6_chk_addr(net, &fl6->daddr, NULL, 0))
		fl6->flowi6_oif = 0;
	dst = ipv6_stub->ipv6_dst_lookup_flow(net, sk, fl6, NULL);
	if (!IS_ERR(dst) && cache)
		dst_cache_set_ip6(cache, dst, &fl6->saddr);
	return dst;
}
#endif

/*
 * Encapsulate the MetaRoCE packet in skb in UDP towards av's destination
 * and send it, ECN-capable, from UDP source port @port. @cache, if not
 * NULL, keeps the route of this (addresses, port) flow between packets.
 * Consumes skb.
 */
static int mroce_xmit_flow(struct mroce_dev *mdev, const struct mroce_av *av,
			   u16 port, struct sk_buff *skb,
			   struct dst_cache *cache)
{
	struct mroce_udp *udp = READ_ONCE(mdev->udp);
	struct net *net = dev_net(mdev->ndev);
	__be16 sport = htons(port), dport = htons(mroce_udp_port);
	u8 tos = (av->tclass & ~INET_ECN_MASK) | INET_ECN_ECT_0;

	if (!udp)
		goto drop;
	skb->protocol = av->is_v4 ? htons(ETH_P_IP) : htons(ETH_P_IPV6);
	if (av->is_v4) {
		struct flowi4 fl4 = {
			.flowi4_oif = mdev->ndev->ifindex,
			.flowi4_proto = IPPROTO_UDP,
			.saddr = av->saddr.s6_addr32[3],
			.daddr = av->daddr.s6_addr32[3],
			.fl4_sport = sport,
			.fl4_dport = dport,
		};
		struct rtable *rt = mroce_route4(net, &fl4, cache);

		if (IS_ERR(rt))
			goto drop;
		udp_tunnel_xmit_skb(rt, udp->sock->sk, skb, fl4.saddr,
				    fl4.daddr, tos, av->hop_limit, htons(IP_DF),
				    sport, dport, false, false);
		return 0;
	}
#if IS_ENABLED(CONFIG_IPV6)
	{
		struct flowi6 fl6 = {
			.flowi6_oif = mdev->ndev->ifindex,
			.flowi6_proto = IPPROTO_UDP,
			.saddr = av->saddr,
			.daddr = av->daddr,
			.fl6_sport = sport,
			.fl6_dport = dport,
		};
		struct dst_entry *dst = mroce_route6(net, udp->sock->sk, &fl6,
						     cache);

		if (IS_ERR(dst))
			goto drop;
		udp_tunnel6_xmit_skb(dst, udp->sock->sk, skb, dst->dev,
				     &fl6.saddr, &fl6.daddr, tos,
				     av->hop_limit, 0, sport, dport, false);
		return 0;
	}
#endif
drop:
	kfree_skb(skb);
	return -EHOSTUNREACH;
}

/* A datagram to av from UDP source port @port. Consumes skb. */
int mroce_xmit_av(struct mroce_dev *mdev, const struct mroce_av *av,
		  u16 port, struct sk_buff *skb)
{
	return mroce_xmit_flow(mdev, av, port, skb, NULL);
}

/*
 * Send skb to the QP's peer from UDP source port sport. Consumes skb. A
 * connection sends from its paths' ports only, so each path keeps its
 * route: two FIB lookups per packet were a visible share of the cost.
 * The cache is per CPU and not for concurrent use on one CPU: BHs off.
 */
int mroce_xmit(struct mroce_qp *qp, struct sk_buff *skb, u16 sport)
{
	struct mroce_av av = {
		.saddr = qp->saddr,
		.daddr = qp->daddr,
		.is_v4 = qp->is_v4,
		.tclass = qp->tclass,
		.hop_limit = qp->hop_limit,
	};
	int ret;

	mroce_txq_charge(qp, skb);
	local_bh_disable();
	ret = mroce_xmit_flow(qp->mdev, &av, sport, skb,
			      mroce_paths_dst(qp, sport));
	local_bh_enable();
	return ret;
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
