// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * MetaRoCE userspace provider: address handles.
 *
 * The kernel keeps the address; a UD work request names the AH by its
 * handle, which ibv_cmd_post_send passes down with the remote QPN and
 * Q_Key.
 */

#include <config.h>

#include <errno.h>
#include <stdlib.h>

#include "metaroce.h"

static struct ibv_ah *metaroce_create_ah(struct ibv_pd *pd,
					 struct ibv_ah_attr *attr)
{
	struct ib_uverbs_create_ah_resp resp = {};
	struct ibv_ah *ah;
	int ret;

	ah = calloc(1, sizeof(*ah));
	if (!ah) {
		errno = ENOMEM;
		return NULL;
	}
	ret = ibv_cmd_create_ah(pd, ah, attr, &resp, sizeof(resp));
	if (ret) {
		free(ah);
		errno = ret;
		return NULL;
	}
	return ah;
}

static int metaroce_destroy_ah(struct ibv_ah *ah)
{
	int ret;

	ret = ibv_cmd_destroy_ah(ah);
	if (!ret)
		free(ah);
	return ret;
}

const struct verbs_context_ops metaroce_ah_ops = {
	.create_ah = metaroce_create_ah,
	.destroy_ah = metaroce_destroy_ah,
};
