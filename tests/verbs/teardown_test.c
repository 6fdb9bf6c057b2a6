// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * How long a MetaRoCE device takes to destroy connected QPs.
 *
 *   teardown_test DEVICE [PAIRS]
 *
 * PAIRS (64) pairs of RC QPs of one device are connected to each other
 * through its IPv4 RoCEv2 GID (self-loopback); every requester writes 4
 * KiB to its responder and the data is checked, so each QP has sent,
 * armed its timers and holds path state. Then all 2 x PAIRS QPs are
 * destroyed and the time it took is checked against TEARDOWN_MS_PER_QP
 * (4) per QP. destroy_qp waits for readers of the QP table to finish
 * with the QP; with a normal RCU grace period (about 10 ms a QP under
 * TCG) a program with hundreds of QPs, perftest -q 256 among them, spent
 * seconds in its exit. Prints TAP; exits non-zero if any check fails.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

#include "loopback.h"

#define LEN		4096
#define MAX_PAIRS	256

static struct pair pairs[MAX_PAIRS];
static char *src, *dst;

/* Pair i's requester writes LEN bytes of pattern i into its slice of dst. */
static int write_one(int i, struct ibv_mr *smr, struct ibv_mr *dmr)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(src + (size_t)i * LEN),
		.length = LEN, .lkey = smr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = i, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
		.wr.rdma.remote_addr = (uintptr_t)(dst + (size_t)i * LEN),
		.wr.rdma.rkey = dmr->rkey,
	}, *bad;
	struct ibv_wc wc;

	memset(src + (size_t)i * LEN, 0x40 + (i & 0x3f), LEN);
	if (ibv_post_send(pairs[i].a, &wr, &bad))
		return -1;
	return wait_wc(pairs[i].cqa, &wc, WAIT_MS);
}

static bool pair_up(struct pair *p)
{
	struct ibv_qp_init_attr ia = {
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct rc_attr ra = { IBV_ACCESS_LOCAL_WRITE |
			      IBV_ACCESS_REMOTE_WRITE, 14, 7, 7, 14 };

	p->cqa = ibv_create_cq(ctx, 8, NULL, NULL, 0);
	p->cqb = ibv_create_cq(ctx, 8, NULL, NULL, 0);
	if (!p->cqa || !p->cqb)
		return false;
	ia.send_cq = p->cqa;
	ia.recv_cq = p->cqa;
	p->a = ibv_create_qp(pd, &ia);
	ia.send_cq = p->cqb;
	ia.recv_cq = p->cqb;
	p->b = ibv_create_qp(pd, &ia);
	return p->a && p->b &&
	       !rc_connect(p->a, p->b->qp_num, 0x10, 0x20, &ra) &&
	       !rc_connect(p->b, p->a->qp_num, 0x20, 0x10, &ra);
}

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[2]) : 64, up = 0, ok = 0, i;
	double limit = 4, t0, ms;
	struct ibv_mr *smr = NULL, *dmr = NULL;
	const char *env = getenv("TEARDOWN_MS_PER_QP");
	int ret = loop_open(argc, argv);

	if (ret) {
		if (ctx)
			check(0, "device has an IPv4 RoCEv2 GID");
		return ret;
	}
	if (env)
		limit = atof(env);
	if (n < 1 || n > MAX_PAIRS)
		n = 64;
	src = calloc(n, LEN);
	dst = calloc(n, LEN);
	if (src && dst) {
		smr = ibv_reg_mr(pd, src, (size_t)n * LEN, IBV_ACCESS_LOCAL_WRITE);
		dmr = ibv_reg_mr(pd, dst, (size_t)n * LEN,
				 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	}
	check(smr && dmr, "source and target MRs of %d x %d bytes", n, LEN);
	while (smr && dmr && up < n && pair_up(&pairs[up]))
		up++;
	check(up == n, "%d connected pairs of RC QPs (%d up)", n, up);
	for (i = 0; i < up; i++)
		if (write_one(i, smr, dmr) == IBV_WC_SUCCESS &&
		    !memcmp(src + (size_t)i * LEN, dst + (size_t)i * LEN, LEN))
			ok++;
	check(ok == up, "every pair wrote its %d bytes (%d of %d)", LEN, ok,
	      up);

	/* The QPs only: their CQs and the MRs are not what is timed. */
	t0 = now_ms();
	for (i = 0; i < up; i++) {
		ret |= ibv_destroy_qp(pairs[i].a) | ibv_destroy_qp(pairs[i].b);
		pairs[i].a = NULL;
		pairs[i].b = NULL;
	}
	ms = now_ms() - t0;
	check(!ret, "ibv_destroy_qp of %d QPs returned 0", 2 * up);
	check(up && ms <= limit * 2 * up,
	      "%d QPs destroyed in %.1f ms, %.2f ms each (at most %.1f)",
	      2 * up, ms, up ? ms / (2 * up) : 0, limit);
	for (i = 0; i < up + (up < n); i++)
		pair_free(&pairs[i]);
	if (smr)
		ibv_dereg_mr(smr);
	if (dmr)
		ibv_dereg_mr(dmr);
	free(src);
	free(dst);
	return loop_close();
}
