// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * access_test's cases of flow control and failure: RNR with and without
 * retries, retry exhaustion when nobody answers, a SEND larger than the
 * receive buffer, and the order of completions around an error.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#include "access.h"

/* rnr_retry 7 (infinite): a receive posted 50 ms later takes the SEND. */
static void rnr_late_recv(const char *w, uint32_t len)
{
	struct opts o = defaults;
	struct ibv_wc wc;
	struct pair p;
	double t0;
	uint32_t i;
	int s;
	bool data;

	o.rnr_retry = 7;
	o.min_rnr_timer = 14;	/* 1.28 ms */
	if (!pair_new(&p, &o, w))
		return;
	memset(loc, 0x45, LOCAL_LEN);
	memset(rbuf, 0, 4096 + 64);
	t0 = now_ms();
	post_send(p.a, 0xa1, len);
	s = wait_wc(p.cqa, &wc, 50);
	check(s < 0, "%s: SEND not complete while no receive is posted", w);
	if (s >= 0)
		note("  got %s", st(s));
	post_recv(p.b, 0xb1, 4096);
	expect_wc(p.cqa, 0xa1, IBV_WC_SUCCESS, w);
	note("%s: SEND completed %.1f ms after posting", w, now_ms() - t0);
	s = wait_wc(p.cqb, &wc, WAIT_MS);
	check(s == IBV_WC_SUCCESS && wc.wr_id == 0xb1 && wc.byte_len == len &&
	      wc.opcode == IBV_WC_RECV,
	      "%s: the receive posted late completes, RECV of %u bytes", w,
	      len);
	if (s != IBV_WC_SUCCESS || wc.byte_len != len)
		note("  got %s byte_len %u", st(s), wc.byte_len);
	data = true;
	for (i = 0; i < len; i++)
		data &= (uint8_t)rbuf[i] == 0x45;
	for (; i < 4096 + 64; i++)
		data &= rbuf[i] == 0;
	check(data, "%s: data in place, nothing beyond it", w);
	check(cq_quiet(p.cqa, QUIET_MS, "requester") &&
	      cq_quiet(p.cqb, QUIET_MS, "responder") &&
	      qp_state(p.a) == IBV_QPS_RTS && qp_state(p.b) == IBV_QPS_RTS,
	      "%s: no other completion, both QPs RTS", w);
	pair_free(&p);
}

void case_rnr(void)
{
	struct opts o = defaults;
	struct pair p;
	double t0, ms;

	/* rnr_retry 0: the first RNR NAK fails the SEND. */
	o.rnr_retry = 0;
	if (pair_new(&p, &o, "7 RNR, rnr_retry 0")) {
		memset(loc, 0x44, LOCAL_LEN);
		t0 = now_ms();
		post_send(p.a, 0xa1, 100);
		expect_wc(p.cqa, 0xa1, IBV_WC_RNR_RETRY_EXC_ERR,
			  "7 RNR, rnr_retry 0: SEND with no receive posted");
		note("7 RNR, rnr_retry 0: completed after %.1f ms",
		     now_ms() - t0);
		check(qp_state(p.a) == IBV_QPS_ERR,
		      "7 RNR, rnr_retry 0: requester QP in ERR");
		check(qp_state(p.b) == IBV_QPS_RTS &&
		      cq_quiet(p.cqb, QUIET_MS, "responder"),
		      "7 RNR, rnr_retry 0: responder QP unharmed (RTS, no "
		      "completion)");
		pair_free(&p);
	}

	rnr_late_recv("7b RNR, rnr_retry 7, 1500-byte (2-packet) SEND", 1500);
	rnr_late_recv("7d RNR, rnr_retry 7, 500-byte (1-packet) SEND", 500);

	/* A finite count: rnr_retry 3 with a 10 ms RNR timer. */
	o.rnr_retry = 3;
	o.min_rnr_timer = 20;	/* 10.24 ms */
	if (pair_new(&p, &o, "7c RNR, rnr_retry 3")) {
		t0 = now_ms();
		post_send(p.a, 0xa1, 100);
		expect_wc(p.cqa, 0xa1, IBV_WC_RNR_RETRY_EXC_ERR,
			  "7c RNR, rnr_retry 3, RNR timer 10.24 ms");
		ms = now_ms() - t0;
		note("7c RNR, rnr_retry 3: completed after %.1f ms", ms);
		check(ms >= 25 && ms < 2000,
		      "7c RNR, rnr_retry 3: took 3 RNR waits (>= 25 ms, got "
		      "%.0f ms)", ms);
		pair_free(&p);
	}
}

/*
 * 8: nobody answers. With @big the WRITE is 4 MiB, longer than the send
 * window at any MTU, so it is still being sent when retries run out:
 * it must fail with RETRY_EXC_ERR too, not be flushed.
 */
static void one_retry(const char *what, int peer, bool big)
{
	struct opts o = defaults;
	size_t len = big ? 4u << 20 : 64;
	struct ibv_mr *mr = loc_mr;
	struct ibv_send_wr wr = {
		.wr_id = 0xa1, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	struct ibv_sge sge;
	struct ibv_qp_attr a;
	struct ibv_wc wc;
	struct pair p;
	double t0, ms;
	char *buf = loc;
	int s;

	o.timeout = 8;
	o.retry_cnt = 1;
	if (peer == 0)
		o.a_dqpn = NO_SUCH_QPN;
	if (!pair_new(&p, &o, what))
		return;
	if (peer) {
		memset(&a, 0, sizeof(a));
		a.qp_state = peer == 1 ? IBV_QPS_ERR : IBV_QPS_RESET;
		ibv_modify_qp(p.b, &a, IBV_QP_STATE);
		while (wait_wc(p.cqb, &wc, 10) >= 0)
			;
	}
	if (big) {
		buf = calloc(1, len);
		mr = buf ? ibv_reg_mr(loc_mr->pd, buf, len,
				      IBV_ACCESS_LOCAL_WRITE) : NULL;
		check(mr != NULL, "%s: 4 MiB local MR", what);
		if (!mr) {
			free(buf);
			pair_free(&p);
			return;
		}
	}
	sge.addr = (uintptr_t)buf;
	sge.length = len;
	sge.lkey = mr->lkey;
	wr.sg_list = &sge;
	wr.wr.rdma.remote_addr = tgt_va(0);
	wr.wr.rdma.rkey = BAD_RKEY;
	t0 = now_ms();
	check(ibv_post_send(p.a, &wr, &bad) == 0, "%s: posted", what);
	s = wait_wc(p.cqa, &wc, WAIT_MS);
	ms = now_ms() - t0;
	check(s == IBV_WC_RETRY_EXC_ERR && wc.wr_id == 0xa1,
	      "%s: WRITE completes with RETRY_EXC_ERR (timeout 8, retry_cnt "
	      "1)", what);
	note("%s: requester saw %s after %.1f ms", what, st(s), ms);
	check(s >= 0 && ms < 2000, "%s: within 2 s", what);
	check(qp_state(p.a) == IBV_QPS_ERR, "%s: requester QP in ERR", what);
	pair_free(&p);
	if (big) {
		ibv_dereg_mr(mr);
		free(buf);
	}
}

void case_retry(void)
{
	one_retry("8 peer QPN does not exist", 0, false);
	one_retry("8b peer QP in ERR", 1, false);
	one_retry("8c peer QP in RESET", 2, false);
	one_retry("8d 4 MiB WRITE, peer QPN does not exist", 0, true);
}

/* 10: a SEND larger than the receive buffer. */
static void one_long_send(const char *what, uint32_t rlen, uint32_t slen)
{
	struct ibv_wc wc;
	struct pair p;
	uint32_t i;
	int s;
	bool ok;

	if (!pair_new(&p, &defaults, what))
		return;
	memset(loc, 0x55, LOCAL_LEN);
	memset(rbuf, CANARY, 4096 + 64);
	post_recv(p.b, 0xb0, rlen);
	post_send(p.a, 0xa1, slen);
	s = wait_wc(p.cqa, &wc, WAIT_MS);
	check(s > 0, "%s: sender gets an error completion", what);
	note("%s: sender saw %s (IBTA: REM_INV_REQ_ERR)", what, st(s));
	s = wait_wc(p.cqb, &wc, WAIT_MS);
	check(s > 0 && wc.wr_id == 0xb0,
	      "%s: receiver's receive completes in error", what);
	note("%s: receiver saw %s (IBTA: LOC_LEN_ERR)", what, st(s));
	check(qp_state(p.b) == IBV_QPS_ERR && qp_state(p.a) == IBV_QPS_ERR,
	      "%s: both QPs in ERR", what);
	ok = true;
	for (i = rlen; i < 4096 + 64; i++)
		ok &= (uint8_t)rbuf[i] == CANARY;
	check(ok, "%s: nothing written past the %u-byte receive buffer", what,
	      rlen);
	pair_free(&p);
}

void case_long_send(void)
{
	one_long_send("10 SEND of 600 bytes into 512", 512, 600);
	one_long_send("10b SEND of 3000 bytes (3 packets) into 1500", 1500,
		      3000);
}

/* Ordering: the WR that failed gets the error, earlier ones succeed. */
void case_order(void)
{
	const char *w = "11 READ then bad WRITE";
	struct ibv_mr *mr = tgt_reg(pd, ALL_ACCESS);
	struct ibv_send_wr bad_wr = {
		.wr_id = 0xa2, .opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_sge sge2;
	struct pair p;
	int i;
	bool data;

	if (!mr || !pair_new(&p, &defaults, w)) {
		check(0, "%s: target MR and pair", w);
		goto out;
	}
	tgt_fill();
	memset(loc, 0x66, LOCAL_LEN);
	sge2 = (struct ibv_sge){ (uintptr_t)(loc + 4096), 64, loc_mr->lkey };
	bad_wr.sg_list = &sge2;
	bad_wr.num_sge = 1;
	bad_wr.wr.rdma.remote_addr = tgt_va(0);
	bad_wr.wr.rdma.rkey = BAD_RKEY;
	post_recv(p.b, 0xb0, 256);
	post_rdma(p.a, 0xa1, IBV_WR_RDMA_READ, 0, 256, tgt_va(0), mr->rkey,
		  &bad_wr);
	expect_wc(p.cqa, 0xa1, IBV_WC_SUCCESS,
		  "11 READ then bad WRITE, posted together: the READ");
	data = true;
	for (i = 0; i < 256; i++)
		data &= (uint8_t)loc[i] == tgt_pat(i);
	check(data, "%s: the READ's data arrived", w);
	expect_wc(p.cqa, 0xa2, IBV_WC_REM_ACCESS_ERR,
		  "11 READ then bad WRITE, posted together: the WRITE");
	expect_responder_err(&p, w);
	pair_free(&p);

	w = "11b good WRITE then bad WRITE";
	if (!pair_new(&p, &defaults, w))
		goto out;
	tgt_fill();
	memset(loc, 0x66, LOCAL_LEN);	/* case 11's READ left data here */
	post_recv(p.b, 0xb0, 256);
	post_rdma(p.a, 0xa1, IBV_WR_RDMA_WRITE, 0, 256, tgt_va(0), mr->rkey,
		  &bad_wr);
	expect_wc(p.cqa, 0xa1, IBV_WC_SUCCESS,
		  "11b good WRITE then bad WRITE, posted together: the good");
	expect_wc(p.cqa, 0xa2, IBV_WC_REM_ACCESS_ERR,
		  "11b good WRITE then bad WRITE, posted together: the bad");
	expect_responder_err(&p, w);
	check((uint8_t)tgt[TGT_OFF] == 0x66 && tgt_ok(false),
	      "%s: the good WRITE landed, canaries intact", w);
	pair_free(&p);
out:
	if (mr)
		ibv_dereg_mr(mr);
}
