// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * MetaRoCE ib_device: creation, attributes, port state and queries.
 */

#include <linux/etherdevice.h>
#include <linux/utsname.h>
#include <net/addrconf.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/uverbs_ioctl.h>
#include <rdma/metaroce-abi.h>
#include <metaroce/wire.h>
#include "metaroce.h"
#include "qp.h"
#include "queue.h"

#define MROCE_MAX_QP		0x10000
#define MROCE_MAX_QP_WR		0x4000
#define MROCE_MAX_SGE		32
#define MROCE_MAX_CQ		0x4000
#define MROCE_MAX_CQE		0x10000
#define MROCE_MAX_MR		0x10000
#define MROCE_MAX_MW		0x10000		/* mw.c's MROCE_MW_MAX */
#define MROCE_MAX_PD		0x10000
#define MROCE_MAX_SRQ		0x4000
#define MROCE_MAX_AH		0x10000
#define MROCE_MAX_MSG_SZ	0x80000000u

static ssize_t hca_type_show(struct device *device,
			     struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", METAROCE_HCA_TYPE);
}
static DEVICE_ATTR_RO(hca_type);

static ssize_t parent_show(struct device *device,
			   struct device_attribute *attr, char *buf)
{
	struct mroce_dev *mdev =
		rdma_device_to_drv_device(device, struct mroce_dev, ibdev);

	return sysfs_emit(buf, "%s\n", netdev_name(mdev->ndev));
}
static DEVICE_ATTR_RO(parent);

/* Paths of RC connections created from now on (existing ones keep theirs). */
static ssize_t num_paths_show(struct device *device,
			      struct device_attribute *attr, char *buf)
{
	struct mroce_dev *mdev =
		rdma_device_to_drv_device(device, struct mroce_dev, ibdev);

	return sysfs_emit(buf, "%u\n", READ_ONCE(mdev->num_paths));
}

static ssize_t num_paths_store(struct device *device,
			       struct device_attribute *attr, const char *buf,
			       size_t count)
{
	struct mroce_dev *mdev =
		rdma_device_to_drv_device(device, struct mroce_dev, ibdev);
	unsigned int n;

	if (kstrtouint(buf, 0, &n) || n < 1 || n > MROCE_MAX_PATHS) {
		ibdev_warn(&mdev->ibdev, "num_paths: want 1..%u\n",
			   MROCE_MAX_PATHS);
		return -EINVAL;
	}
	WRITE_ONCE(mdev->num_paths, n);
	return count;
}
static DEVICE_ATTR_RW(num_paths);

/* Inbound capacity the rate hints share out, Mbit/s; 0: no hints. */
static ssize_t rate_capacity_mbps_show(struct device *device,
				       struct device_attribute *attr, char *buf)
{
	struct mroce_dev *mdev =
		rdma_device_to_drv_device(device, struct mroce_dev, ibdev);

	return sysfs_emit(buf, "%u\n", READ_ONCE(mdev->rate_capacity_mbps));
}

static ssize_t rate_capacity_mbps_store(struct device *device,
					struct device_attribute *attr,
					const char *buf, size_t count)
{
	struct mroce_dev *mdev =
		rdma_device_to_drv_device(device, struct mroce_dev, ibdev);
	u32 mbps;

	if (kstrtou32(buf, 0, &mbps)) {
		ibdev_warn(&mdev->ibdev, "rate_capacity_mbps: not a number\n");
		return -EINVAL;
	}
	mroce_rate_set_capacity(mdev, mbps);
	return count;
}
static DEVICE_ATTR_RW(rate_capacity_mbps);

static struct attribute *mroce_dev_attributes[] = {
	&dev_attr_hca_type.attr,
	&dev_attr_parent.attr,
	&dev_attr_num_paths.attr,
	&dev_attr_rate_capacity_mbps.attr,
	NULL
};

static const struct attribute_group mroce_attr_group = {
	.attrs = mroce_dev_attributes,
};

static int mroce_query_device(struct ib_device *ibdev,
			      struct ib_device_attr *attr,
			      struct ib_udata *udata)
{
	struct mroce_dev *mdev = to_mdev(ibdev);

	if (udata->inlen || udata->outlen) {
		ibdev_dbg(ibdev, "query_device: unexpected udata\n");
		return -EINVAL;
	}

	memset(attr, 0, sizeof(*attr));
	attr->fw_ver = (u64)METAROCE_WIRE_VERSION << 32;
	attr->sys_image_guid = ibdev->node_guid;
	attr->max_mr_size = U64_MAX;
	attr->page_size_cap = PAGE_SIZE;
	attr->vendor_id = MROCE_VENDOR_ID;
	attr->vendor_part_id = 0;
	attr->hw_ver = 0;
	attr->max_qp = MROCE_MAX_QP;
	attr->max_qp_wr = MROCE_MAX_QP_WR;
	attr->device_cap_flags = IB_DEVICE_RC_RNR_NAK_GEN |
				 IB_DEVICE_PORT_ACTIVE_EVENT |
				 IB_DEVICE_SYS_IMAGE_GUID |
				 IB_DEVICE_MEM_MGT_EXTENSIONS |
				 IB_DEVICE_MEM_WINDOW |
				 IB_DEVICE_MEM_WINDOW_TYPE_2B;
	attr->kernel_cap_flags = IBK_ALLOW_USER_UNREG;
	attr->max_send_sge = MROCE_MAX_SGE;
	attr->max_recv_sge = MROCE_MAX_SGE;
	attr->max_sge_rd = MROCE_MAX_SGE;
	attr->max_cq = MROCE_MAX_CQ;
	attr->max_cqe = MROCE_MAX_CQE;
	attr->max_mr = MROCE_MAX_MR;
	attr->max_mw = MROCE_MAX_MW;
	attr->max_pd = MROCE_MAX_PD;
	attr->max_qp_rd_atom = MROCE_MAX_RD_ATOM;
	attr->max_qp_init_rd_atom = MROCE_MAX_RD_ATOM;
	attr->max_res_rd_atom = MROCE_MAX_QP * MROCE_MAX_RD_ATOM;
	attr->atomic_cap = IB_ATOMIC_HCA;
	attr->max_ah = MROCE_MAX_AH;
	attr->max_srq = MROCE_MAX_SRQ;
	attr->max_srq_wr = MROCE_MAX_QP_WR;
	attr->max_srq_sge = MROCE_QP_MAX_SGE;
	attr->max_fast_reg_page_list_len = 512;
	attr->max_pkeys = 1;
	attr->local_ca_ack_delay = 15;
	(void)mdev;
	return 0;
}

/* Called with mroce_lock held or before the device is visible. */
void mroce_dev_update_port(struct mroce_dev *mdev, bool notify)
{
	struct net_device *ndev = mdev->ndev;
	enum ib_port_state old = mdev->port_state;
	struct ib_event ev = {};

	mdev->active_mtu = ib_mtu_int_to_enum(mroce_port_mtu(READ_ONCE(ndev->mtu)));
	mdev->port_state = (netif_running(ndev) && netif_carrier_ok(ndev)) ?
			   IB_PORT_ACTIVE : IB_PORT_DOWN;
	if (!notify || old == mdev->port_state)
		return;

	ev.device = &mdev->ibdev;
	ev.element.port_num = 1;
	ev.event = mdev->port_state == IB_PORT_ACTIVE ? IB_EVENT_PORT_ACTIVE :
							IB_EVENT_PORT_ERR;
	ib_dispatch_event(&ev);
	ibdev_info(&mdev->ibdev, "port %s\n",
		   mdev->port_state == IB_PORT_ACTIVE ? "active" : "down");
}

static int mroce_query_port(struct ib_device *ibdev, u32 port_num,
			    struct ib_port_attr *attr)
{
	struct mroce_dev *mdev = to_mdev(ibdev);

	/* The core zeroes attr and validates port_num. */
	attr->state = READ_ONCE(mdev->port_state);
	attr->max_mtu = IB_MTU_4096;
	attr->active_mtu = READ_ONCE(mdev->active_mtu);
	attr->gid_tbl_len = MROCE_GID_TBL_LEN;
	attr->port_cap_flags = IB_PORT_CM_SUP;
	attr->ip_gids = true;
	attr->max_msg_sz = MROCE_MAX_MSG_SZ;
	attr->pkey_tbl_len = 1;
	attr->max_vl_num = 1;
	attr->phys_state = attr->state == IB_PORT_ACTIVE ?
			   IB_PORT_PHYS_STATE_LINK_UP :
			   IB_PORT_PHYS_STATE_DISABLED;
	/* The netdev may already be gone while the device unregisters. */
	if (ib_get_eth_speed(ibdev, port_num, &attr->active_speed,
			     &attr->active_width)) {
		attr->active_speed = IB_SPEED_SDR;
		attr->active_width = IB_WIDTH_1X;
	}
	return 0;
}

static int mroce_get_port_immutable(struct ib_device *ibdev, u32 port_num,
				    struct ib_port_immutable *immutable)
{
	struct ib_port_attr attr = {};
	int err;

	err = ib_query_port(ibdev, port_num, &attr);
	if (err)
		return err;
	immutable->pkey_tbl_len = attr.pkey_tbl_len;
	immutable->gid_tbl_len = attr.gid_tbl_len;
	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

static enum rdma_link_layer mroce_get_link_layer(struct ib_device *ibdev,
						 u32 port_num)
{
	return IB_LINK_LAYER_ETHERNET;
}

static int mroce_query_pkey(struct ib_device *ibdev, u32 port_num, u16 index,
			    u16 *pkey)
{
	if (index > 0)
		return -EINVAL;
	*pkey = IB_DEFAULT_PKEY_FULL;
	return 0;
}

static int mroce_modify_device(struct ib_device *ibdev, int mask,
			       struct ib_device_modify *attr)
{
	if (mask & ~IB_DEVICE_MODIFY_NODE_DESC)
		return -EOPNOTSUPP;
	memcpy(ibdev->node_desc, attr->node_desc, sizeof(ibdev->node_desc));
	return 0;
}

static int mroce_alloc_ucontext(struct ib_ucontext *uctx,
				struct ib_udata *udata)
{
	struct metaroce_alloc_ucontext_resp resp = {
		.abi_version = METAROCE_UVERBS_ABI_VERSION,
		.wire_version = METAROCE_WIRE_VERSION,
		.max_paths = MROCE_MAX_PATHS,
	};

	if (udata->outlen < sizeof(resp)) {
		ibdev_dbg(uctx->device, "alloc_ucontext: response too short (%zu)\n",
			  udata->outlen);
		return -EINVAL;
	}
	return ib_copy_to_udata(udata, &resp, sizeof(resp));
}

static void mroce_dealloc_ucontext(struct ib_ucontext *uctx)
{
}

/* Last step of every unregistration: nothing of the device remains used. */
static void mroce_dealloc_driver(struct ib_device *ibdev)
{
	struct mroce_dev *mdev = to_mdev(ibdev);

	mutex_lock(&mroce_lock);
	list_del_rcu(&mdev->list);
	mroce_udp_detach(mdev);
	mutex_unlock(&mroce_lock);
	/* Softirq readers may still walk past this entry. */
	synchronize_rcu();
	WARN_ON(!xa_empty(&mdev->qp_xa));
	xa_destroy(&mdev->qp_xa);
	mroce_rate_free(mdev);
}

static const struct ib_device_ops mroce_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_UNKNOWN,
	.uverbs_abi_ver = METAROCE_UVERBS_ABI_VERSION,

	.alloc_hw_port_stats = mroce_alloc_hw_port_stats,
	.alloc_ucontext = mroce_alloc_ucontext,
	.dealloc_driver = mroce_dealloc_driver,
	.dealloc_ucontext = mroce_dealloc_ucontext,
	.device_group = &mroce_attr_group,
	.get_hw_stats = mroce_get_hw_stats,
	.get_link_layer = mroce_get_link_layer,
	.get_port_immutable = mroce_get_port_immutable,
	.mmap = mroce_mmap,
	.mmap_free = mroce_mmap_free,
	.modify_device = mroce_modify_device,
	.query_device = mroce_query_device,
	.query_pkey = mroce_query_pkey,
	.query_port = mroce_query_port,

	INIT_RDMA_OBJ_SIZE(ib_ucontext, mroce_ucontext, ibuc),
};

int mroce_dev_add(const char *ibdev_name, struct net_device *ndev)
{
	struct mroce_dev *mdev;
	struct ib_device *ibdev;
	int err;

	/* The core would say -ENFILE; a taken name deserves -EEXIST. */
	ibdev = ib_device_get_by_name(ibdev_name, RDMA_DRIVER_UNKNOWN);
	if (ibdev) {
		ib_device_put(ibdev);
		pr_err("%s: device name %s is already in use\n", MROCE_DRV_NAME,
		       ibdev_name);
		return -EEXIST;
	}

	mdev = ib_alloc_device(mroce_dev, ibdev);
	if (!mdev)
		return -ENOMEM;
	ibdev = &mdev->ibdev;
	mdev->ndev = ndev;
	mdev->num_paths = clamp_t(unsigned int, mroce_num_paths, 1,
				  MROCE_MAX_PATHS);
	err = mroce_rate_init(mdev);
	if (err)
		goto err_dealloc;
	INIT_LIST_HEAD(&mdev->list);
	mroce_txq_dev_init(mdev);
	xa_init_flags(&mdev->qp_xa, XA_FLAGS_ALLOC);
	ib_mark_name_assigned_by_user(ibdev);

	strscpy(ibdev->node_desc, "MetaRoCE", sizeof(ibdev->node_desc));
	ibdev->node_type = RDMA_NODE_IB_CA;
	ibdev->phys_port_cnt = 1;
	ibdev->num_comp_vectors = num_possible_cpus();
	ibdev->local_dma_lkey = 0;
	addrconf_addr_eui48((unsigned char *)&ibdev->node_guid, ndev->dev_addr);
	/* Userspace posts and polls through the kernel for now. */
	ibdev->uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POST_SEND) |
				  BIT_ULL(IB_USER_VERBS_CMD_POST_RECV) |
				  BIT_ULL(IB_USER_VERBS_CMD_POST_SRQ_RECV) |
				  BIT_ULL(IB_USER_VERBS_CMD_POLL_CQ) |
				  BIT_ULL(IB_USER_VERBS_CMD_REQ_NOTIFY_CQ);
	ib_set_device_ops(ibdev, &mroce_dev_ops);
	ib_set_device_ops(ibdev, &mroce_pd_ops);
	ib_set_device_ops(ibdev, &mroce_mr_ops);
	ib_set_device_ops(ibdev, &mroce_mw_ops);
	ib_set_device_ops(ibdev, &mroce_cq_ops);
	ib_set_device_ops(ibdev, &mroce_qp_ops);
	ib_set_device_ops(ibdev, &mroce_post_ops);
	ib_set_device_ops(ibdev, &mroce_ah_ops);
	ib_set_device_ops(ibdev, &mroce_srq_ops);
	mroce_dev_update_port(mdev, false);

	err = ib_device_set_netdev(ibdev, ndev, 1);
	if (err)
		goto err_dealloc;

	mutex_lock(&mroce_lock);
	err = mroce_udp_attach(mdev);
	mutex_unlock(&mroce_lock);
	if (err)
		goto err_dealloc;

	err = ib_register_device(ibdev, ibdev_name, NULL);
	if (err) {
		pr_err("%s: registering %s on %s failed: %d\n", MROCE_DRV_NAME,
		       ibdev_name, ndev->name, err);
		mutex_lock(&mroce_lock);
		mroce_udp_detach(mdev);
		mutex_unlock(&mroce_lock);
		if (err == -ENFILE)	/* lost a race for the name */
			err = -EEXIST;
		goto err_dealloc;
	}

	mutex_lock(&mroce_lock);
	list_add_tail_rcu(&mdev->list, &mroce_devices);
	mroce_dev_update_port(mdev, true);
	mutex_unlock(&mroce_lock);

	/*
	 * The netdev may have started unregistering before we were on the
	 * list, so the notifier missed us; catch up here.
	 */
	if (READ_ONCE(ndev->reg_state) != NETREG_REGISTERED) {
		mutex_lock(&mroce_lock);
		mroce_udp_detach(mdev);
		mutex_unlock(&mroce_lock);
		ib_unregister_device_queued(ibdev);
		return -ENODEV;
	}
	ibdev_info(ibdev, "bound to %s, UDP port %u\n", ndev->name,
		   mroce_udp_port);
	return 0;

err_dealloc:
	mroce_rate_free(mdev);
	ib_dealloc_device(ibdev);
	return err;
}
