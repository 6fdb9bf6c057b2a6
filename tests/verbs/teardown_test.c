// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * What connected QPs of a MetaRoCE device cost: kernel memory while they
 * are up, and time to destroy them.
 *
 *   teardown_test DEVICE [PAIRS]
 *
 * PAIRS (64) pairs of RC QPs of one device are connected to each other
 * through its IPv4 RoCEv2 GID (self-loopback); every requester writes 4
 * KiB to its responder and the data is checked, so each QP has sent,
 * armed its timers and holds path state. The kernel memory they took
 * (slab and vmalloc, each QP with its CQ and its rings) is checked
 * against TEARDOWN_KB_PER_QP (36) per QP (32 measured): per-PSN state
 * sized for the whole window rather than for what is in flight
 * (txring.c, rxring.c) nearly quadruples it, read and atomic queues for
 * QPs that allow neither (these allow Writes only) add 8 KiB, and kmalloc
 * rounding up a structure that outgrew a power of two doubles a part of
 * it unseen. Then all 2 x PAIRS QPs are destroyed
 * and the time it took is checked against TEARDOWN_MS_PER_QP (4) per QP.
 * destroy_qp waits for readers of the QP table to finish with the QP;
 * with a normal RCU grace period (about 10 ms a QP under TCG) a program
 * with hundreds of QPs, perftest -q 256 among them, spent seconds in its
 * exit. Prints TAP; exits non-zero if any check fails.
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

static double env_or(const char *name, double dflt)
{
	const char *v = getenv(name);

	return v ? atof(v) : dflt;
}

static const struct pair_spec spec = {
	.cqe = 8,
	.cap = { { .max_send_wr = 4, .max_recv_wr = 4,
		   .max_send_sge = 1, .max_recv_sge = 1 },
		 { .max_send_wr = 4, .max_recv_wr = 4,
		   .max_send_sge = 1, .max_recv_sge = 1 } },
	.psn_a = 0x10, .psn_b = 0x20,
	.ra = { IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE, 14, 7, 7, 14 },
	.rb = { IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE, 14, 7, 7, 14 },
};

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[2]) : 64, up = 0, ok = 0, i;
	double limit = env_or("TEARDOWN_MS_PER_QP", 4), t0, ms, kb;
	double kb_limit = env_or("TEARDOWN_KB_PER_QP", 36);
	struct ibv_mr *smr = NULL, *dmr = NULL;
	int ret = loop_open(argc, argv);
	long kb0;

	if (ret) {
		if (ctx)
			check(0, "device has an IPv4 RoCEv2 GID");
		return ret;
	}
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
	kb0 = kmem_kb();
	while (smr && dmr && up < n && !pair_make(&pairs[up], &spec))
		up++;
	check(up == n, "%d connected pairs of RC QPs (%d up)", n, up);
	for (i = 0; i < up; i++)
		if (write_one(i, smr, dmr) == IBV_WC_SUCCESS &&
		    !memcmp(src + (size_t)i * LEN, dst + (size_t)i * LEN, LEN))
			ok++;
	check(ok == up, "every pair wrote its %d bytes (%d of %d)", LEN, ok,
	      up);
	kb = up ? (double)(kmem_kb() - kb0) / (2 * up) : 0;
	check(up && kb0 >= 0 && kb > 0 && kb <= kb_limit,
	      "kernel memory per connected QP: %.1f KiB (at most %.0f)", kb,
	      kb_limit);

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
	for (i = 0; i < up; i++)
		pair_free(&pairs[i]);
	if (smr)
		ibv_dereg_mr(smr);
	if (dmr)
		ibv_dereg_mr(dmr);
	free(src);
	free(dst);
	return loop_close();
}
