// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * MetaRoCE software RDMA provider: module entry, "rdma link" glue and
 * netdev events.
 */

#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/if_arp.h>
#include <rdma/rdma_netlink.h>
#include <metaroce/wire.h>
#include "metaroce.h"
#include "recv.h"

MODULE_AUTHOR("The MetaRoCE authors");
MODULE_DESCRIPTION("MetaRoCE: multipath RDMA over UDP, software provider");
MODULE_LICENSE("Dual BSD/GPL");
MODULE_ALIAS_RDMA_LINK(MROCE_LINK_TYPE);

unsigned short mroce_udp_port = METAROCE_UDP_PORT_DEFAULT;
module_param_named(udp_port, mroce_udp_port, ushort, 0444);
MODULE_PARM_DESC(udp_port, "UDP destination port of MetaRoCE (default 4792)");

unsigned int mroce_num_paths = 8;
module_param_named(num_paths, mroce_num_paths, uint, 0444);
MODULE_PARM_DESC(num_paths,
		 "Paths (UDP source ports) per RC connection of new devices, 1-64 (default 8); per device in sysfs num_paths");

/*
 * mroce_lock protects mroce_devices and the per-namespace sockets. It is
 * taken inside RTNL by the netdev notifier, so nothing may take RTNL while
 * holding it. Readers in softirq walk mroce_devices under RCU.
 */
DEFINE_MUTEX(mroce_lock);
LIST_HEAD(mroce_devices);

/* Runs every QP's tx_work: packet building may copy from user memory. */
struct workqueue_struct *mroce_wq;

/* Serialises newlink so that one netdev cannot be bound twice. */
static DEFINE_MUTEX(mroce_add_lock);

struct mroce_dev *mroce_dev_get_by_netdev(struct net_device *ndev)
{
	struct mroce_dev *mdev;

	lockdep_assert_held(&mroce_lock);
	list_for_each_entry(mdev, &mroce_devices, list)
		if (mdev->ndev == ndev)
			return mdev;
	return NULL;
}

static int mroce_newlink(const char *ibdev_name, struct net_device *ndev)
{
	struct mroce_dev *mdev;
	int err;

	if (ndev->flags & IFF_LOOPBACK) {
		pr_err("%s: cannot bind to loopback device %s\n",
		       MROCE_DRV_NAME, ndev->name);
		return -EINVAL;
	}
	if (ndev->type != ARPHRD_ETHER || ndev->addr_len != ETH_ALEN) {
		pr_err("%s: %s is not an Ethernet device\n",
		       MROCE_DRV_NAME, ndev->name);
		return -EINVAL;
	}

	mutex_lock(&mroce_add_lock);
	mutex_lock(&mroce_lock);
	mdev = mroce_dev_get_by_netdev(ndev);
	mutex_unlock(&mroce_lock);
	if (mdev) {
		pr_err("%s: %s is already bound to %s\n", MROCE_DRV_NAME,
		       ndev->name, dev_name(&mdev->ibdev.dev));
		err = -EEXIST;
	} else {
		err = mroce_dev_add(ibdev_name, ndev);
	}
	mutex_unlock(&mroce_add_lock);
	return err;
}

static struct rdma_link_ops mroce_link_ops = {
	.type = MROCE_LINK_TYPE,
	.newlink = mroce_newlink,
};

static int mroce_netdev_event(struct notifier_block *nb, unsigned long event,
			      void *arg)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(arg);
	struct mroce_dev *mdev;

	mutex_lock(&mroce_lock);
	mdev = mroce_dev_get_by_netdev(ndev);
	if (!mdev)
		goto out;

	switch (event) {
	case NETDEV_UNREGISTER:
		/*
		 * Leave the namespace's socket now: the namespace may be on its
		 * way out and the ib_device goes away asynchronously.
		 */
		mroce_udp_detach(mdev);
		ib_unregister_device_queued(&mdev->ibdev);
		break;
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
	case NETDEV_CHANGEMTU:
		mroce_dev_update_port(mdev, true);
		break;
	default:
		break;
	}
out:
	mutex_unlock(&mroce_lock);
	return NOTIFY_DONE;
}

static struct notifier_block mroce_netdev_nb = {
	.notifier_call = mroce_netdev_event,
};

/* Unregister every device; each dealloc_driver removes itself from the list. */
static void mroce_unregister_all(void)
{
	struct mroce_dev *mdev;

	for (;;) {
		mutex_lock(&mroce_lock);
		mdev = list_first_entry_or_null(&mroce_devices,
						struct mroce_dev, list);
		if (mdev)
			get_device(&mdev->ibdev.dev);
		mutex_unlock(&mroce_lock);
		if (!mdev)
			break;
		ib_unregister_device(&mdev->ibdev);
		put_device(&mdev->ibdev.dev);
	}
}

static int __init mroce_module_init(void)
{
	int err;

	if (!mroce_udp_port) {
		pr_err("%s: udp_port must not be 0\n", MROCE_DRV_NAME);
		return -EINVAL;
	}
	mroce_counters_init();
	mroce_wq = alloc_workqueue("metaroce", WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	if (!mroce_wq)
		return -ENOMEM;
	err = mroce_recv_init();
	if (err)
		goto err_wq;
	err = mroce_net_init();
	if (err)
		goto err_recv;
	err = register_netdevice_notifier(&mroce_netdev_nb);
	if (err)
		goto err_net;
	rdma_link_register(&mroce_link_ops);
	pr_info("%s: loaded, UDP port %u\n", MROCE_DRV_NAME, mroce_udp_port);
	return 0;

err_net:
	mroce_net_exit();
err_recv:
	mroce_recv_exit();
err_wq:
	destroy_workqueue(mroce_wq);
	return err;
}

static void __exit mroce_module_exit(void)
{
	/* No new links once this returns; then tear down what exists. */
	rdma_link_unregister(&mroce_link_ops);
	mroce_unregister_all();
	unregister_netdevice_notifier(&mroce_netdev_nb);
	mroce_net_exit();
	mroce_recv_exit();
	destroy_workqueue(mroce_wq);
	pr_info("%s: unloaded\n", MROCE_DRV_NAME);
}

late_initcall(mroce_module_init);
module_exit(mroce_module_exit);
