// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * access_test's remote access cases: bad rkeys, bounds, MR and QP access
 * flags and atomics, each on a fresh pair, with the requester's error,
 * the responder's ERR and flush, and the target's canaries checked.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#include "access.h"

/* A sane pair first: a WRITE and a SEND succeed, and land exactly. */
void case_control(void)
{
	const char *w = "0 control";
	struct ibv_mr *mr = tgt_reg(pd, ALL_ACCESS);
	struct pair p;

	if (!mr || !pair_new(&p, &defaults, w)) {
		check(0, "%s: target MR and pair", w);
		goto out;
	}
	tgt_fill();
	memset(loc, 0x11, LOCAL_LEN);
	post_recv(p.b, 0xb0, 4096);
	post_rdma(p.a, 1, IBV_WR_RDMA_WRITE, 0, TGT_LEN, tgt_va(0), mr->rkey,
		  NULL);
	expect_wc(p.cqa, 1, IBV_WC_SUCCESS, "0 control: WRITE of the whole MR");
	check(tgt_ok(false) && (uint8_t)tgt[TGT_OFF] == 0x11 &&
	      (uint8_t)tgt[TGT_OFF + TGT_LEN - 1] == 0x11,
	      "0 control: whole MR written, canaries intact");
	post_send(p.a, 2, 3000);
	expect_wc(p.cqa, 2, IBV_WC_SUCCESS, "0 control: SEND of 3000 bytes");
	expect_wc(p.cqb, 0xb0, IBV_WC_SUCCESS, "0 control: its receive");
	pair_free(&p);
out:
	if (mr)
		ibv_dereg_mr(mr);
}

/*
 * One bad RDMA WRITE/READ on a fresh pair (B has a receive posted):
 * requester gets @want, responder goes to ERR, target checked.
 */
static bool one_bad(const char *what, const struct opts *o,
		    enum ibv_wr_opcode op, int mr_access, uint64_t va,
		    uint32_t len, bool use_bad_rkey, uint32_t rkey,
		    bool mr_untouched, struct pair *keep)
{
	struct ibv_mr *mr = tgt_reg(pd, mr_access);
	struct pair p;
	char msg[160];
	bool ret = false;
	double t0;

	if (!mr || !pair_new(&p, o, what)) {
		check(0, "%s: target MR and pair", what);
		if (mr)
			ibv_dereg_mr(mr);
		return false;
	}
	tgt_fill();
	memset(loc, 0x22, LOCAL_LEN);
	post_recv(p.b, 0xb0, 256);
	if (!use_bad_rkey)
		rkey = mr->rkey;
	post_rdma(p.a, 0xa1, op, 0, len, va, rkey, NULL);
	snprintf(msg, sizeof(msg), "%s: requester %s", what,
		 op == IBV_WR_RDMA_READ ? "READ" : "WRITE");
	t0 = now_ms();
	ret = expect_wc(p.cqa, 0xa1, IBV_WC_REM_ACCESS_ERR, msg);
	note("%s: requester's completion came after %.1f ms", what,
	     now_ms() - t0);
	expect_responder_err(&p, what);
	check(qp_state(p.a) == IBV_QPS_ERR, "%s: requester QP in ERR", what);
	if (mr_untouched)
		check(tgt_ok(true), "%s: target MR and canaries unchanged",
		      what);
	else
		check(tgt_ok(false), "%s: canaries around the MR intact", what);
	if (op == IBV_WR_RDMA_READ) {
		uint32_t i;
		bool same = true;

		for (i = 0; i < len && i < LOCAL_LEN; i++)
			same &= loc[i] == 0x22;
		check(same, "%s: READ's local buffer not written", what);
	}
	if (keep)
		*keep = p;
	else
		pair_free(&p);
	ibv_dereg_mr(mr);
	return ret;
}

/* 9: after an error, what is posted on either QP is flushed. */
static void flushes_after_error(struct pair *p)
{
	const char *w = "9 after error";
	struct ibv_send_wr wr2 = {
		.wr_id = 0xa3, .opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	};
	int r;

	r = post_rdma(p->a, 0xa2, IBV_WR_RDMA_WRITE, 0, 64, tgt_va(0), 1,
		      &wr2);
	check(r == 0, "%s: post_send of a WRITE and a SEND on the requester "
	      "in ERR is accepted", w);
	if (!r) {
		expect_wc(p->cqa, 0xa2, IBV_WC_WR_FLUSH_ERR,
			  "9 after error: requester's WRITE");
		expect_wc(p->cqa, 0xa3, IBV_WC_WR_FLUSH_ERR,
			  "9 after error: requester's SEND");
	}
	r = post_recv(p->a, 0xa4, 64);
	check(r == 0, "%s: post_recv on the requester in ERR is accepted", w);
	if (!r)
		expect_wc(p->cqa, 0xa4, IBV_WC_WR_FLUSH_ERR,
			  "9 after error: requester's receive");
	r = post_recv(p->b, 0xb4, 64);
	check(r == 0, "%s: post_recv on the responder in ERR is accepted", w);
	if (!r)
		expect_wc(p->cqb, 0xb4, IBV_WC_WR_FLUSH_ERR,
			  "9 after error: responder's receive");
	r = post_send(p->b, 0xb5, 64);
	check(r == 0, "%s: post_send on the responder in ERR is accepted", w);
	if (!r)
		expect_wc(p->cqb, 0xb5, IBV_WC_WR_FLUSH_ERR,
			  "9 after error: responder's SEND");
	check(cq_quiet(p->cqa, QUIET_MS, "requester") &&
	      cq_quiet(p->cqb, QUIET_MS, "responder"),
	      "%s: no further completions on either side", w);
}

void case_rkey(void)
{
	struct ibv_mr *other, *gone;
	struct pair p = {};

	/* 1: an rkey nobody has. */
	one_bad("1 bad rkey", &defaults, IBV_WR_RDMA_WRITE, ALL_ACCESS,
		tgt_va(0), 64, true, BAD_RKEY, true, &p);
	if (p.a) {
		flushes_after_error(&p);
		pair_free(&p);
	}
	/* 1b: the rkey of an MR in another PD (over the same memory). */
	other = ibv_reg_mr(pd2, tgt + TGT_OFF, TGT_LEN, ALL_ACCESS);
	if (other) {
		one_bad("1b rkey of another PD's MR", &defaults,
			IBV_WR_RDMA_WRITE, ALL_ACCESS, tgt_va(0), 64, true,
			other->rkey, true, NULL);
		ibv_dereg_mr(other);
	}
	/* 1c: the rkey of a deregistered MR. */
	gone = ibv_reg_mr(pd, tgt + TGT_OFF, TGT_LEN, ALL_ACCESS);
	if (gone) {
		uint32_t k = gone->rkey;

		ibv_dereg_mr(gone);
		one_bad("1c rkey of a deregistered MR", &defaults,
			IBV_WR_RDMA_WRITE, ALL_ACCESS, tgt_va(0), 64, true, k,
			true, NULL);
	}
}

/*
 * 2e: a WRITE whose address range wraps around 2^64. The protocol
 * (section 8, RETH) makes that a malformed packet, dropped without a NAK,
 * so the requester's retries run out: any error completion passes.
 */
static void wrap_write(void)
{
	const char *w = "2e WRITE whose address range wraps";
	struct opts o = defaults;
	struct ibv_mr *mr = tgt_reg(pd, ALL_ACCESS);
	struct ibv_wc wc;
	struct pair p;
	double t0;
	int s;

	o.timeout = 8;
	o.retry_cnt = 1;
	if (!mr || !pair_new(&p, &o, w)) {
		check(0, "%s: target MR and pair", w);
		goto out;
	}
	tgt_fill();
	post_recv(p.b, 0xb0, 256);
	t0 = now_ms();
	post_rdma(p.a, 0xa1, IBV_WR_RDMA_WRITE, 0, 64, UINT64_MAX - 31,
		  mr->rkey, NULL);
	s = wait_wc(p.cqa, &wc, WAIT_MS);
	check(s > 0 && wc.wr_id == 0xa1, "%s: requester gets an error "
	      "completion", w);
	note("%s: requester saw %s after %.1f ms; responder QP state %d", w,
	     st(s), now_ms() - t0, qp_state(p.b));
	check(tgt_ok(true), "%s: target MR and canaries unchanged", w);
	pair_free(&p);
out:
	if (mr)
		ibv_dereg_mr(mr);
}

void case_bounds(void)
{
	one_bad("2 WRITE 64 bytes over the MR's end", &defaults,
		IBV_WR_RDMA_WRITE, ALL_ACCESS, tgt_va(TGT_LEN - 32), 64, false,
		0, true, NULL);
	one_bad("2b WRITE 64 bytes from before the MR's start", &defaults,
		IBV_WR_RDMA_WRITE, ALL_ACCESS, tgt_va(-32), 64, false, 0, true,
		NULL);
	one_bad("2c WRITE 1 byte just past the end", &defaults,
		IBV_WR_RDMA_WRITE, ALL_ACCESS, tgt_va(TGT_LEN), 1, false, 0,
		true, NULL);
	/* Several packets: the first ones fit, the last does not. */
	one_bad("2d 3-packet WRITE whose last packet runs past the end",
		&defaults, IBV_WR_RDMA_WRITE, ALL_ACCESS, tgt_va(2500), 3000,
		false, 0, false, NULL);
	wrap_write();
}

void case_mr_access(void)
{
	one_bad("3 WRITE to an MR without REMOTE_WRITE", &defaults,
		IBV_WR_RDMA_WRITE,
		IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
		IBV_ACCESS_REMOTE_ATOMIC, tgt_va(0), 64, false, 0, true, NULL);
	one_bad("4 READ from an MR without REMOTE_READ", &defaults,
		IBV_WR_RDMA_READ,
		IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE, tgt_va(0),
		64, false, 0, true, NULL);
	one_bad("4b READ with a bad rkey", &defaults, IBV_WR_RDMA_READ,
		ALL_ACCESS, tgt_va(0), 64, true, BAD_RKEY, true, NULL);
	one_bad("4c READ over the MR's end", &defaults, IBV_WR_RDMA_READ,
		ALL_ACCESS, tgt_va(TGT_LEN - 32), 64, false, 0, true, NULL);
}

/* 5: atomics. Any error completion passes; which one is reported. */
static void one_atomic(const char *what, const struct opts *o,
		       int mr_access, long off, bool bad_rkey, bool want_ok)
{
	struct ibv_mr *mr = tgt_reg(pd, mr_access);
	struct ibv_wc wc;
	struct pair p;
	int s;

	if (!mr || !pair_new(&p, o, what)) {
		check(0, "%s: target MR and pair", what);
		if (mr)
			ibv_dereg_mr(mr);
		return;
	}
	tgt_fill();
	memset(loc, 0x33, LOCAL_LEN);
	post_recv(p.b, 0xb0, 256);
	post_atomic(p.a, 0xa1, IBV_WR_ATOMIC_FETCH_AND_ADD, tgt_va(off),
		    bad_rkey ? BAD_RKEY : mr->rkey, 1, 0);
	s = wait_wc(p.cqa, &wc, WAIT_MS);
	if (want_ok) {
		uint64_t orig, now;

		memcpy(&orig, loc, 8);
		memcpy(&now, tgt + TGT_OFF + off, 8);
		check(s == IBV_WC_SUCCESS, "%s: FETCH_ADD succeeds", what);
		if (s != IBV_WC_SUCCESS)
			note("  got %s", st(s));
		check(s == IBV_WC_SUCCESS && now == orig + 1 &&
		      tgt_ok(false),
		      "%s: original value returned, target incremented", what);
		check(cq_quiet(p.cqb, QUIET_MS, "responder") &&
		      qp_state(p.b) == IBV_QPS_RTS,
		      "%s: responder QP still RTS, its receive pending", what);
		goto out;
	}
	check(s == IBV_WC_REM_ACCESS_ERR || s == IBV_WC_REM_INV_REQ_ERR,
	      "%s: FETCH_ADD completes with REM_ACCESS_ERR or "
	      "REM_INV_REQ_ERR", what);
	note("%s: requester saw %s", what, st(s));
	expect_responder_err(&p, what);
	check(tgt_ok(true), "%s: target MR and canaries unchanged", what);
	check(!memcmp(loc, "\x33\x33\x33\x33\x33\x33\x33\x33", 8),
	      "%s: local result buffer not written", what);
out:
	pair_free(&p);
	ibv_dereg_mr(mr);
}

void case_atomic(void)
{
	if (!atomics) {
		check(1, "5 atomics # SKIP device reports no atomic support");
		return;
	}
	one_atomic("5 control: aligned atomic", &defaults, ALL_ACCESS, 8,
		   false, true);
	one_atomic("5 atomic to a misaligned address", &defaults, ALL_ACCESS,
		   12, false, false);
	one_atomic("5b atomic to an MR without REMOTE_ATOMIC", &defaults,
		   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		   IBV_ACCESS_REMOTE_READ, 8, false, false);
	one_atomic("5c atomic with a bad rkey", &defaults, ALL_ACCESS, 8, true,
		   false);
	one_atomic("5d atomic just past the MR's end", &defaults, ALL_ACCESS,
		   TGT_LEN, false, false);
}

/*
 * A responder QP that allowed only Writes has no read and atomic queues
 * (they come with the first modify_qp allowing either); allowed Reads
 * later, in RTS, it answers them.
 */
static void case_read_allowed_late(void)
{
	const char *w = "6d READ after RTS -> RTS allows REMOTE_READ";
	struct ibv_mr *mr = tgt_reg(pd, ALL_ACCESS);
	struct ibv_qp_attr attr = {
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE |
				   IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ,
	};
	struct opts o = defaults;
	struct pair p;

	o.b_access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	if (!mr || !pair_new(&p, &o, w)) {
		check(0, "%s: target MR and pair", w);
		goto out;
	}
	tgt_fill();
	memset(loc, 0x22, LOCAL_LEN);
	check(!ibv_modify_qp(p.b, &attr, IBV_QP_ACCESS_FLAGS),
	      "%s: modify_qp succeeds", w);
	post_rdma(p.a, 1, IBV_WR_RDMA_READ, 0, TGT_LEN, tgt_va(0), mr->rkey,
		  NULL);
	expect_wc(p.cqa, 1, IBV_WC_SUCCESS, w);
	check((uint8_t)loc[0] == tgt_pat(0) &&
	      (uint8_t)loc[TGT_LEN - 1] == tgt_pat(TGT_LEN - 1) &&
	      (uint8_t)loc[TGT_LEN] == 0x22 && tgt_ok(true),
	      "%s: the whole MR read, nothing past it", w);
	check(qp_state(p.b) == IBV_QPS_RTS, "%s: responder QP still RTS", w);
	pair_free(&p);
out:
	if (mr)
		ibv_dereg_mr(mr);
}

void case_qp_access(void)
{
	struct opts o = defaults;

	o.b_access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
		     IBV_ACCESS_REMOTE_ATOMIC;
	one_bad("6 WRITE to a responder QP without REMOTE_WRITE", &o,
		IBV_WR_RDMA_WRITE, ALL_ACCESS, tgt_va(0), 64, false, 0, true,
		NULL);
	o.b_access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	one_bad("6b READ from a responder QP without REMOTE_READ", &o,
		IBV_WR_RDMA_READ, ALL_ACCESS, tgt_va(0), 64, false, 0, true,
		NULL);
	if (atomics)
		one_atomic("6c atomic to a responder QP allowing only Writes",
			   &o, ALL_ACCESS, 8, false, false);
	case_read_allowed_late();
}
