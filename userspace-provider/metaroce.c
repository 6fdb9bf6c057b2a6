// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * MetaRoCE userspace provider: device matching, device and context
 * lifetime.
 *
 * The kernel device is purely virtual: it has no parent bus device and no
 * rdma driver_id of its own (RDMA_DRIVER_UNKNOWN), so neither the driver_id
 * nor the modalias tables of libibverbs can claim it. It is recognised by
 * its sysfs "hca_type" attribute instead.
 */

#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metaroce.h"

static void metaroce_free_context(struct ibv_context *ibctx);

static const struct verbs_context_ops metaroce_ctx_ops = {
	.query_device_ex = metaroce_query_device,
	.query_port = metaroce_query_port,
	.free_context = metaroce_free_context,
};

static bool metaroce_match_device(struct verbs_sysfs_dev *sysfs_dev)
{
	char hca_type[64];
	int len;

	len = ibv_read_ibdev_sysfs_file(hca_type, sizeof(hca_type), sysfs_dev,
					"hca_type");
	if (len <= 0)
		return false;

	/* libibverbs strips one trailing newline; be strict about the rest. */
	hca_type[strcspn(hca_type, "\n")] = '\0';
	return strcmp(hca_type, METAROCE_HCA_TYPE) == 0;
}

static struct verbs_context *metaroce_alloc_context(struct ibv_device *ibdev,
						    int cmd_fd,
						    void *private_data)
{
	struct umetaroce_alloc_ucontext_resp resp = {};
	struct umetaroce_alloc_ucontext cmd = {};
	struct metaroce_context *ctx;
	int err;

	ctx = verbs_init_and_alloc_context(ibdev, cmd_fd, ctx, ibv_ctx,
					   RDMA_DRIVER_UNKNOWN);
	if (!ctx)
		return NULL;

	if (ibv_cmd_get_context(&ctx->ibv_ctx, &cmd.ibv_cmd, sizeof(cmd),
				&resp.ibv_resp, sizeof(resp))) {
		err = errno;
		goto err_uninit;
	}

	if (resp.abi_version != METAROCE_UVERBS_ABI_VERSION) {
		fprintf(stderr,
			"metaroce: %s: kernel driver speaks uverbs ABI %u, this provider needs %u; update rdma_metaroce.ko or libmetaroce\n",
			ibdev->name, resp.abi_version,
			METAROCE_UVERBS_ABI_VERSION);
		err = EPROTONOSUPPORT;
		goto err_uninit;
	}

	ctx->wire_version = resp.wire_version;
	ctx->max_paths = resp.max_paths;

	verbs_set_ops(&ctx->ibv_ctx, &metaroce_ctx_ops);
	verbs_set_ops(&ctx->ibv_ctx, &metaroce_pd_ops);
	verbs_set_ops(&ctx->ibv_ctx, &metaroce_mr_ops);
	verbs_set_ops(&ctx->ibv_ctx, &metaroce_mw_ops);
	verbs_set_ops(&ctx->ibv_ctx, &metaroce_cq_ops);
	verbs_set_ops(&ctx->ibv_ctx, &metaroce_qp_ops);
	verbs_set_ops(&ctx->ibv_ctx, &metaroce_ah_ops);
	verbs_set_ops(&ctx->ibv_ctx, &metaroce_srq_ops);

	return &ctx->ibv_ctx;

err_uninit:
	verbs_uninit_context(&ctx->ibv_ctx);
	free(ctx);
	errno = err;
	return NULL;
}

static void metaroce_free_context(struct ibv_context *ibctx)
{
	struct metaroce_context *ctx = to_mctx(ibctx);

	verbs_uninit_context(&ctx->ibv_ctx);
	free(ctx);
}

static struct verbs_device *
metaroce_alloc_device(struct verbs_sysfs_dev *sysfs_dev)
{
	struct metaroce_device *dev;

	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return NULL;

	return &dev->ibv_dev;
}

static void metaroce_uninit_device(struct verbs_device *verbs_device)
{
	struct metaroce_device *dev = to_mdev(&verbs_device->device);

	free(dev);
}

/*
 * Matching is by hca_type (metaroce_match_device), but the table must
 * exist: libibverbs of Debian 12 walks it without a NULL check for every
 * device with a known driver id (rxe, any real NIC), and would crash.
 */
static const struct verbs_match_ent metaroce_match_table[] = {
	{},
};

static const struct verbs_device_ops metaroce_dev_ops = {
	.name = "metaroce",
	.match_table = metaroce_match_table,
	.match_min_abi_version = METAROCE_UVERBS_ABI_VERSION,
	.match_max_abi_version = METAROCE_UVERBS_ABI_VERSION,
	.match_device = metaroce_match_device,
	.alloc_device = metaroce_alloc_device,
	.uninit_device = metaroce_uninit_device,
	.alloc_context = metaroce_alloc_context,
};
PROVIDER_DRIVER(metaroce, metaroce_dev_ops);
