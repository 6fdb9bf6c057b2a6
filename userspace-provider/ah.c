// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * MetaRoCE userspace provider: address handles.
 *
 * The kernel keeps the address. A UD send WQE in a ring names the AH by
 * the number create_ah returned; through the post_send command, by its
 * uverbs handle.
 */

#include <config.h>

#include <errno.h>
#include <stdlib.h>

#include "metaroce.h"

static struct ibv_ah *metaroce_create_ah(struct ibv_pd *pd,
					 struct ibv_ah_attr *attr)
{
	struct umetaroce_create_ah_resp resp = {};
	struct metaroce_ah *ah;
	int ret;

	ah = calloc(1, sizeof(*ah));
	if (!ah) {
		errno = ENOMEM;
		return NULL;
	}
	ret = ibv_cmd_create_ah(pd, &ah->ibv_ah, attr, &resp.ibv_resp,
				sizeof(resp));
	if (ret) {
		free(ah);
		errno = ret;
		return NULL;
	}
	ah->num = resp.ah_num;
	return &ah->ibv_ah;
}

static int metaroce_destroy_ah(struct ibv_ah *ah)
{
	int ret;

	ret = ibv_cmd_destroy_ah(ah);
	if (!ret)
		free(to_mah(ah));
	return ret;
}

const struct verbs_context_ops metaroce_ah_ops = {
	.create_ah = metaroce_create_ah,
	.destroy_ah = metaroce_destroy_ah,
};
