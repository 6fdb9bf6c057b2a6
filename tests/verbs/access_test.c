// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Remote access errors, RNR, retry exhaustion and flushing on RC QPs of a
 * MetaRoCE device, through libibverbs.
 *
 *   access_test DEVICE
 *
 * Two RC QPs on the one device are connected to each other through its
 * IPv4 RoCEv2 GID (self-loopback); every case uses a fresh pair. For each
 * case the completions on both sides are checked against what the verbs
 * define, and the target buffer, an MR with canary bytes right before and
 * after it in the same pages, is checked for stray writes. Prints TAP;
 * lines starting with "# " report what was seen. Exits non-zero if any
 * check fails. Every wait is bounded.
 *
 * This file holds the target buffer, the pairs, posting and the expected
 * completions (declared in access.h) and main; the cases are in
 * access_errors.c (remote access errors) and access_flow.c (RNR, retries,
 * oversized SENDs, ordering).
 */


#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

#include "access.h"

/* ---- shared state ---- */

struct ibv_pd *pd2;
bool atomics;
char *tgt;
char *loc;
char *rbuf;
struct ibv_mr *loc_mr, *rbuf_mr;

const struct opts defaults = {
	.a_access = ALL_ACCESS, .b_access = ALL_ACCESS,
	.timeout = 14, .retry_cnt = 7, .rnr_retry = 7, .min_rnr_timer = 12,
};

/* ---- the target buffer ---- */

uint8_t tgt_pat(size_t i) { return (uint8_t)(i * 7 + 3); }

void tgt_fill(void)
{
	size_t i;

	memset(tgt, CANARY, TGT_ALLOC);
	for (i = 0; i < TGT_LEN; i++)
		tgt[TGT_OFF + i] = (char)tgt_pat(i);
}

/* Canaries intact and, if @mr_too, the MR content unchanged. */
bool tgt_ok(bool mr_too)
{
	size_t i;

	for (i = 0; i < TGT_ALLOC; i++) {
		bool in = i >= TGT_OFF && i < TGT_OFF + TGT_LEN;

		if (!in && (uint8_t)tgt[i] != CANARY) {
			note("canary byte at MR%+ld changed to %#x",
			     (long)i - TGT_OFF, (uint8_t)tgt[i]);
			return false;
		}
		if (in && mr_too && (uint8_t)tgt[i] != tgt_pat(i - TGT_OFF)) {
			note("MR byte %zu changed to %#x", i - TGT_OFF,
			     (uint8_t)tgt[i]);
			return false;
		}
	}
	return true;
}

uint64_t tgt_va(long off) { return (uintptr_t)(tgt + TGT_OFF + off); }

struct ibv_mr *tgt_reg(struct ibv_pd *p, int access)
{
	struct ibv_mr *mr = ibv_reg_mr(p, tgt + TGT_OFF, TGT_LEN, access);

	if (!mr)
		note("reg_mr of the target: %s", strerror(errno));
	return mr;
}

/* A fresh connected pair; one TAP line only if it fails. */
bool pair_new(struct pair *p, const struct opts *o, const char *what)
{
	struct pair_spec s = {
		.cqe = 64,
		.cap = { { .max_send_wr = 16, .max_recv_wr = 16,
			   .max_send_sge = 1, .max_recv_sge = 1 },
			 { .max_send_wr = 16, .max_recv_wr = 16,
			   .max_send_sge = 1, .max_recv_sge = 1 } },
		.psn_a = 0x1000, .psn_b = 0x7ff000,	/* B's PSNs wrap soon */
		.a_dqpn = o->a_dqpn,
		.ra = { .access = o->a_access, .timeout = o->timeout,
			.retry_cnt = o->retry_cnt, .rnr_retry = o->rnr_retry,
			.min_rnr_timer = o->min_rnr_timer },
	};

	s.rb = s.ra;
	s.rb.access = o->b_access;
	if (!pair_make(p, &s))
		return true;
	check(0, "%s: set up a connected QP pair (%s)", what, strerror(errno));
	return false;
}

/* ---- posting ---- */

int post_rdma(struct ibv_qp *qp, uint64_t wr_id, enum ibv_wr_opcode op,
	      size_t loff, uint32_t len, uint64_t va, uint32_t rkey,
	      struct ibv_send_wr *next_wr)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(loc + loff), .length = len,
		.lkey = loc_mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED, .next = next_wr,
	}, *bad;

	wr.wr.rdma.remote_addr = va;
	wr.wr.rdma.rkey = rkey;
	return ibv_post_send(qp, &wr, &bad);
}

int post_atomic(struct ibv_qp *qp, uint64_t wr_id, enum ibv_wr_opcode op,
		uint64_t va, uint32_t rkey, uint64_t cmp_add, uint64_t swap)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)loc, .length = 8, .lkey = loc_mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	wr.wr.atomic.remote_addr = va;
	wr.wr.atomic.rkey = rkey;
	wr.wr.atomic.compare_add = cmp_add;
	wr.wr.atomic.swap = swap;
	return ibv_post_send(qp, &wr, &bad);
}

int post_send(struct ibv_qp *qp, uint64_t wr_id, uint32_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)loc, .length = len, .lkey = loc_mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	return ibv_post_send(qp, &wr, &bad);
}

/* Receive buffer: rbuf[0, len) in rbuf_mr; canary bytes follow. */
int post_recv(struct ibv_qp *qp, uint64_t wr_id, uint32_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)rbuf, .length = len, .lkey = rbuf_mr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
	}, *bad;

	return ibv_post_recv(qp, &wr, &bad);
}

/* ---- completions ---- */

/* A completion for @wr_id with status @want. */
bool expect_wc(struct ibv_cq *cq, uint64_t wr_id, int want,
	       const char *what)
{
	struct ibv_wc wc;
	int s = wait_wc(cq, &wc, WAIT_MS);
	bool good = s == want && wc.wr_id == wr_id;

	check(good, "%s: %s", what, ibv_wc_status_str(want));
	if (!good)
		note("  got %s, wr_id %#llx (wanted %#llx)", st(s),
		     (unsigned long long)wc.wr_id, (unsigned long long)wr_id);
	return good;
}

/*
 * The responder's side of a fatal error on its QP: its QP is in ERR and
 * the receive posted beforehand (wr_id 0xb0) is flushed.
 */
void expect_responder_err(struct pair *p, const char *what)
{
	struct ibv_wc wc;
	int s = wait_wc(p->cqb, &wc, WAIT_MS);
	enum ibv_qp_state qs = qp_state(p->b);

	check(s == IBV_WC_WR_FLUSH_ERR && wc.wr_id == 0xb0,
	      "%s: responder's posted receive flushed (WR_FLUSH_ERR)", what);
	if (s != IBV_WC_WR_FLUSH_ERR)
		note("  got %s", st(s));
	check(qs == IBV_QPS_ERR, "%s: responder QP in ERR", what);
	if (qs != IBV_QPS_ERR)
		note("  responder QP state %d", qs);
}

/* ---- main ---- */

int main(int argc, char **argv)
{
	struct ibv_device_attr da;
	int ret = loop_open(argc, argv);

	if (!ctx)
		return ret;
	check(gid_idx >= 0, "device has an IPv4 RoCEv2 GID (index %d)",
	      gid_idx);
	if (ret || ibv_query_device(ctx, &da))
		return 1;
	atomics = da.atomic_cap != IBV_ATOMIC_NONE;
	note("gid index %d, active mtu %d, atomic_cap %d", gid_idx,
	     128 << mtu, da.atomic_cap);
	pd2 = ibv_alloc_pd(ctx);
	if (posix_memalign((void **)&tgt, 4096, TGT_ALLOC) ||
	    posix_memalign((void **)&loc, 4096, LOCAL_LEN) ||
	    posix_memalign((void **)&rbuf, 4096, 8192))
		return 1;
	loc_mr = pd ? ibv_reg_mr(pd, loc, LOCAL_LEN, IBV_ACCESS_LOCAL_WRITE) :
		      NULL;
	rbuf_mr = pd ? ibv_reg_mr(pd, rbuf, 8192, IBV_ACCESS_LOCAL_WRITE) :
		       NULL;
	check(pd && pd2 && loc_mr && rbuf_mr, "PDs and local MRs");
	if (!loc_mr || !rbuf_mr || !pd2)
		return 1;

	case_control();
	case_rkey();
	case_bounds();
	case_mr_access();
	case_atomic();
	case_qp_access();
	case_rnr();
	case_retry();
	case_long_send();
	case_order();

	ibv_dereg_mr(loc_mr);
	ibv_dereg_mr(rbuf_mr);
	ibv_dealloc_pd(pd2);
	free(tgt);
	free(loc);
	free(rbuf);
	return loop_close();
}
