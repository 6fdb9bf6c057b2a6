// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The kernel memory a QP takes, as a process that makes many sees it.
 *
 *   qp_mem DEVICE N
 *
 * Creates N RC QPs with what ib_write_bw -q N asks for each (10 send
 * WRs, 1 receive WR, one SGE each way, no inline data), then N more on
 * one SRQ, and reads the growth of Slab + VmallocUsed (/proc/meminfo)
 * over each set: the QPs' kernel structures, their WQE copies and the
 * rings shared with the process. Checks each against a bound a
 * regression would cross; a QP on an SRQ held a copy of 2048 receive
 * WQEs of 16 SGEs before the WQEs it holds were sized on demand. Prints
 * TAP; exits non-zero if any check fails.
 */

#include <stdio.h>
#include <stdlib.h>
#include <infiniband/verbs.h>

#include "tap.h"

#define RC_MAX_KB	36	/* 29-30 measured; 33-35 before the WQEs were sized */
#define SRQ_MAX_KB	32	/* 25 measured; 1052 before */

/* kB a QP took, over n made on cq (and srq, if given); -1 if one failed. */
static double per_qp_kb(struct ibv_pd *pd, struct ibv_cq *cq,
			struct ibv_srq *srq, int n)
{
	struct ibv_qp **qp = calloc(n, sizeof(*qp));
	long before = kmem_kb(), after;
	int i, made;

	for (made = 0; qp && made < n; made++) {
		struct ibv_qp_init_attr ia = {
			.send_cq = cq, .recv_cq = cq, .srq = srq,
			.qp_type = IBV_QPT_RC,
			.cap = { .max_send_wr = 10, .max_send_sge = 1,
				 .max_recv_wr = srq ? 0 : 1,
				 .max_recv_sge = srq ? 0 : 1 },
		};

		qp[made] = ibv_create_qp(pd, &ia);
		if (!qp[made])
			break;
	}
	after = kmem_kb();
	for (i = 0; i < made; i++)
		ibv_destroy_qp(qp[i]);
	free(qp);
	if (made < n || before < 0 || after < 0) {
		note("made %d of %d QPs", made, n);
		return -1;
	}
	return (double)(after - before) / n;
}

int main(int argc, char **argv)
{
	struct ibv_context *ctx = open_arg(argc, argv);
	int n = argc > 2 ? atoi(argv[2]) : 512;
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 256, .max_sge = 1 } };
	struct ibv_srq *srq = NULL;
	struct ibv_cq *cq = NULL;
	struct ibv_pd *pd = NULL;
	double kb;

	if (!ctx)
		return tap_done();
	pd = ibv_alloc_pd(ctx);
	cq = pd ? ibv_create_cq(ctx, 64, NULL, NULL, 0) : NULL;
	srq = cq ? ibv_create_srq(pd, &sa) : NULL;
	check(srq != NULL, "PD, CQ and SRQ");
	if (srq) {
		kb = per_qp_kb(pd, cq, NULL, n);
		check(kb >= 0 && kb <= RC_MAX_KB,
		      "%d RC QPs as ib_write_bw makes them: %.1f kB each (at most %d)",
		      n, kb, RC_MAX_KB);
		kb = per_qp_kb(pd, cq, srq, n);
		check(kb >= 0 && kb <= SRQ_MAX_KB,
		      "%d RC QPs on one SRQ: %.1f kB each (at most %d)",
		      n, kb, SRQ_MAX_KB);
		ibv_destroy_srq(srq);
	}
	if (cq)
		ibv_destroy_cq(cq);
	if (pd)
		ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return tap_done();
}
