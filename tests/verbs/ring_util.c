// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* Helpers of the ring tests: see ring_util.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>

#include "loopback.h"
#include "ring_util.h"

int hide_cmd_fd(void)
{
	int saved = dup(ctx->cmd_fd), nul = open("/dev/null", O_RDONLY);

	if (saved < 0 || nul < 0 || dup2(nul, ctx->cmd_fd) < 0)
		return -1;
	close(nul);
	return saved;
}

void restore_cmd_fd(int saved)
{
	dup2(saved, ctx->cmd_fd);
	close(saved);
}

struct metaroce_queue_hdr *find_ring(uint32_t elem_size, uint32_t num)
{
	struct metaroce_queue_hdr *found = NULL;
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		struct metaroce_queue_hdr *h;
		unsigned long start;

		if (!strstr(line, "/dev/infiniband/uverbs") ||
		    sscanf(line, "%lx-", &start) != 1)
			continue;
		h = (struct metaroce_queue_hdr *)start;
		if (h->elem_size == elem_size && h->num_elems == num)
			found = h;
	}
	fclose(f);
	return found;
}

void *ring_slot(struct metaroce_queue_hdr *h, uint32_t idx)
{
	return (char *)h + METAROCE_QUEUE_DATA_OFFSET +
	       (size_t)(idx & (h->num_elems - 1)) * h->elem_size;
}

void set_prod(struct metaroce_queue_hdr *h, uint32_t v)
{
	__atomic_store_n(&h->prod, v, __ATOMIC_RELEASE);
}

int doorbell_send(struct ibv_qp *qp)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_post_send cmd;
	} c = {};
	struct ib_uverbs_post_send_resp resp = {};

	c.hdr.command = IB_USER_VERBS_CMD_POST_SEND;
	c.hdr.in_words = sizeof(c) / 4;
	c.hdr.out_words = sizeof(resp) / 4;
	c.cmd.response = (uintptr_t)&resp;
	c.cmd.qp_handle = qp->handle;
	c.cmd.wqe_size = sizeof(struct ib_uverbs_send_wr);
	if (write(qp->context->cmd_fd, &c, sizeof(c)) != sizeof(c))
		return errno;
	return 0;
}
