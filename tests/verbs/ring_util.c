// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* Helpers of the ring tests: see ring_util.h. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/verbs.h>

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
