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
 */

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#define ALL_ACCESS	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)
#define WAIT_MS		5000	/* the longest wait for any completion */
#define QUIET_MS	100	/* how long "no completion" is watched */
#define BAD_RKEY	0xdead5a00u
#define NO_SUCH_QPN	0xfffff0u

/* Target: one allocation; the MR is [TGT_OFF, TGT_OFF + TGT_LEN). */
#define TGT_ALLOC	(3 * 4096)
#define TGT_OFF		1000
#define TGT_LEN		5000
#define CANARY		0xc5
#define LOCAL_LEN	8192

#include "tap.h"

static void __attribute__((format(printf, 1, 2))) note(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static const char *st(int s)
{
	return s < 0 ? "(none: timed out)" : ibv_wc_status_str(s);
}

/* ---- shared state ---- */

static struct ibv_context *ctx;
static struct ibv_pd *pd, *pd2;
static int gid_idx;
static enum ibv_mtu mtu;
static bool atomics;

static char *tgt;		/* the target allocation */
static char *loc;		/* the requester's local buffer */
static char *rbuf;		/* the responder's receive buffer (+ canary) */
static struct ibv_mr *loc_mr, *rbuf_mr;

static uint8_t tgt_pat(size_t i) { return (uint8_t)(i * 7 + 3); }

static void tgt_fill(void)
{
	size_t i;

	memset(tgt, CANARY, TGT_ALLOC);
	for (i = 0; i < TGT_LEN; i++)
		tgt[TGT_OFF + i] = (char)tgt_pat(i);
}

/* Canaries intact and, if @mr_too, the MR content unchanged. */
static bool tgt_ok(bool mr_too)
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

static uint64_t tgt_va(long off) { return (uintptr_t)(tgt + TGT_OFF + off); }

static struct ibv_mr *tgt_reg(struct ibv_pd *p, int access)
{
	struct ibv_mr *mr = ibv_reg_mr(p, tgt + TGT_OFF, TGT_LEN, access);

	if (!mr)
		note("reg_mr of the target: %s", strerror(errno));
	return mr;
}

/* ---- QP pairs ---- */

struct opts {
	int a_access, b_access;		/* QP access flags */
	uint8_t timeout, retry_cnt, rnr_retry, min_rnr_timer;
	uint32_t a_dqpn;		/* 0: B's QPN */
};

static const struct opts defaults = {
	.a_access = ALL_ACCESS, .b_access = ALL_ACCESS,
	.timeout = 14, .retry_cnt = 7, .rnr_retry = 7, .min_rnr_timer = 12,
};

struct pair {
	struct ibv_cq *cqa, *cqb;	/* each QP's send and receive CQ */
	struct ibv_qp *a, *b;		/* A requests, B responds */
};

static struct ibv_qp *mk_qp(struct ibv_cq *cq)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	return ibv_create_qp(pd, &ia);
}

static int to_init(struct ibv_qp *qp, int access)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = access,
	};

	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			     IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
}

static int to_rtr(struct ibv_qp *qp, uint32_t dqpn, uint32_t rq_psn,
		  const struct opts *o)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR, .path_mtu = mtu,
		.dest_qp_num = dqpn, .rq_psn = rq_psn,
		.max_dest_rd_atomic = 4, .min_rnr_timer = o->min_rnr_timer,
	};

	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.sgid_index = gid_idx;
	a.ah_attr.grh.hop_limit = 64;
	if (ibv_query_gid(ctx, 1, gid_idx, &a.ah_attr.grh.dgid))
		return -1;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV |
			     IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			     IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			     IBV_QP_MIN_RNR_TIMER);
}

static int to_rts(struct ibv_qp *qp, uint32_t sq_psn, const struct opts *o)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTS, .timeout = o->timeout,
		.retry_cnt = o->retry_cnt, .rnr_retry = o->rnr_retry,
		.sq_psn = sq_psn, .max_rd_atomic = 4,
	};

	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			     IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

static void pair_free(struct pair *p)
{
	if (p->a)
		ibv_destroy_qp(p->a);
	if (p->b)
		ibv_destroy_qp(p->b);
	if (p->cqa)
		ibv_destroy_cq(p->cqa);
	if (p->cqb)
		ibv_destroy_cq(p->cqb);
	memset(p, 0, sizeof(*p));
}

/* A fresh connected pair; one TAP line only if it fails. */
static bool pair_new(struct pair *p, const struct opts *o, const char *what)
{
	uint32_t pa = 0x1000, pb = 0x7ff000;	/* B's PSNs wrap soon */

	memset(p, 0, sizeof(*p));
	p->cqa = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	p->cqb = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	if (!p->cqa || !p->cqb)
		goto fail;
	p->a = mk_qp(p->cqa);
	p->b = mk_qp(p->cqb);
	if (!p->a || !p->b)
		goto fail;
	if (to_init(p->a, o->a_access) || to_init(p->b, o->b_access) ||
	    to_rtr(p->a, o->a_dqpn ? o->a_dqpn : p->b->qp_num, pb, o) ||
	    to_rtr(p->b, p->a->qp_num, pa, o) ||
	    to_rts(p->a, pa, o) || to_rts(p->b, pb, o))
		goto fail;
	return true;
fail:
	check(0, "%s: set up a connected QP pair (%s)", what, strerror(errno));
	pair_free(p);
	return false;
}

static enum ibv_qp_state qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia))
		return (enum ibv_qp_state)-1;
	return a.qp_state;
}

/* ---- posting ---- */

static int post_rdma(struct ibv_qp *qp, uint64_t wr_id, enum ibv_wr_opcode op,
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

static int post_atomic(struct ibv_qp *qp, uint64_t wr_id,
		       enum ibv_wr_opcode op, uint64_t va, uint32_t rkey,
		       uint64_t cmp_add, uint64_t swap)
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

static int post_send(struct ibv_qp *qp, uint64_t wr_id, uint32_t len)
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
static int post_recv(struct ibv_qp *qp, uint64_t wr_id, uint32_t len)
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

/* Next completion within ms; status -1 (and wc zeroed) if none came. */
static int wait_wc(struct ibv_cq *cq, struct ibv_wc *wc, int ms)
{
	double end = now_ms() + ms;
	int n;

	memset(wc, 0, sizeof(*wc));
	for (;;) {
		n = ibv_poll_cq(cq, 1, wc);
		if (n == 1)
			return wc->status;
		if (n < 0) {
			note("ibv_poll_cq: %d", n);
			break;
		}
		if (now_ms() > end)
			break;
		usleep(500);
	}
	memset(wc, 0, sizeof(*wc));
	wc->status = (enum ibv_wc_status)-1;
	return -1;
}

/* A completion for @wr_id with status @want. */
static bool expect_wc(struct ibv_cq *cq, uint64_t wr_id, int want,
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

static bool cq_quiet(struct ibv_cq *cq, const char *what)
{
	struct ibv_wc wc;
	int s = wait_wc(cq, &wc, QUIET_MS);

	if (s >= 0)
		note("%s: unexpected completion %s wr_id %#llx", what, st(s),
		     (unsigned long long)wc.wr_id);
	return s < 0;
}

/*
 * The responder's side of a fatal error on its QP: its QP is in ERR and
 * the receive posted beforehand (wr_id 0xb0) is flushed.
 */
static void expect_responder_err(struct pair *p, const char *what)
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

/* ---- the cases ---- */

/* A sane pair first: a WRITE and a SEND succeed, and land exactly. */
static void case_control(void)
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
	check(cq_quiet(p->cqa, "requester") && cq_quiet(p->cqb, "responder"),
	      "%s: no further completions on either side", w);
}

static void case_rkey(void)
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

static void case_bounds(void)
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

static void case_mr_access(void)
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
static void one_atomic(const char *what, int mr_access, long off,
		       bool bad_rkey, bool want_ok)
{
	struct ibv_mr *mr = tgt_reg(pd, mr_access);
	struct ibv_wc wc;
	struct pair p;
	int s;

	if (!mr || !pair_new(&p, &defaults, what)) {
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
		check(cq_quiet(p.cqb, "responder") &&
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

static void case_atomic(void)
{
	if (!atomics) {
		check(1, "5 atomics # SKIP device reports no atomic support");
		return;
	}
	one_atomic("5 control: aligned atomic", ALL_ACCESS, 8, false, true);
	one_atomic("5 atomic to a misaligned address", ALL_ACCESS, 12, false,
		   false);
	one_atomic("5b atomic to an MR without REMOTE_ATOMIC",
		   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		   IBV_ACCESS_REMOTE_READ, 8, false, false);
	one_atomic("5c atomic with a bad rkey", ALL_ACCESS, 8, true, false);
	one_atomic("5d atomic just past the MR's end", ALL_ACCESS, TGT_LEN,
		   false, false);
}

static void case_qp_access(void)
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
}

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
	check(cq_quiet(p.cqa, "requester") && cq_quiet(p.cqb, "responder") &&
	      qp_state(p.a) == IBV_QPS_RTS && qp_state(p.b) == IBV_QPS_RTS,
	      "%s: no other completion, both QPs RTS", w);
	pair_free(&p);
}

static void case_rnr(void)
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
		      cq_quiet(p.cqb, "responder"),
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

/* 8: nobody answers. */
static void one_retry(const char *what, int peer)
{
	struct opts o = defaults;
	struct ibv_qp_attr a;
	struct ibv_wc wc;
	struct pair p;
	double t0, ms;
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
	t0 = now_ms();
	post_rdma(p.a, 0xa1, IBV_WR_RDMA_WRITE, 0, 64, tgt_va(0), BAD_RKEY,
		  NULL);
	s = wait_wc(p.cqa, &wc, WAIT_MS);
	ms = now_ms() - t0;
	check(s == IBV_WC_RETRY_EXC_ERR && wc.wr_id == 0xa1,
	      "%s: WRITE completes with RETRY_EXC_ERR (timeout 8, retry_cnt "
	      "1)", what);
	note("%s: requester saw %s after %.1f ms", what, st(s), ms);
	check(s >= 0 && ms < 2000, "%s: within 2 s", what);
	check(qp_state(p.a) == IBV_QPS_ERR, "%s: requester QP in ERR", what);
	pair_free(&p);
}

static void case_retry(void)
{
	one_retry("8 peer QPN does not exist", 0);
	one_retry("8b peer QP in ERR", 1);
	one_retry("8c peer QP in RESET", 2);
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

static void case_long_send(void)
{
	one_long_send("10 SEND of 600 bytes into 512", 512, 600);
	one_long_send("10b SEND of 3000 bytes (3 packets) into 1500", 1500,
		      3000);
}

/* Ordering: the WR that failed gets the error, earlier ones succeed. */
static void case_order(void)
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

/* ---- setup ---- */

/* The IPv4 RoCEv2 GID. */
static int find_gid(void)
{
	struct ibv_gid_entry e;
	int i;

	for (i = 0; i < 256; i++) {
		if (ibv_query_gid_ex(ctx, 1, i, &e, 0))
			continue;
		if (e.gid_type == IBV_GID_TYPE_ROCE_V2 &&
		    !memcmp(e.gid.raw, "\0\0\0\0\0\0\0\0\0\0\xff\xff", 12))
			return i;
	}
	return -1;
}

int main(int argc, char **argv)
{
	struct ibv_device_attr da;
	struct ibv_port_attr pa;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DEVICE\n", argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	ctx = open_dev(argv[1]);
	check(ctx != NULL, "open %s", argv[1]);
	if (!ctx)
		return 1;
	gid_idx = find_gid();
	check(gid_idx >= 0, "device has an IPv4 RoCEv2 GID (index %d)",
	      gid_idx);
	if (gid_idx < 0 || ibv_query_port(ctx, 1, &pa) ||
	    ibv_query_device(ctx, &da))
		return 1;
	mtu = pa.active_mtu;
	atomics = da.atomic_cap != IBV_ATOMIC_NONE;
	note("gid index %d, active mtu %d, atomic_cap %d", gid_idx,
	     128 << mtu, da.atomic_cap);
	pd = ibv_alloc_pd(ctx);
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
	ibv_dealloc_pd(pd);
	ibv_dealloc_pd(pd2);
	check(ibv_close_device(ctx) == 0, "close the device");
	free(tgt);
	free(loc);
	free(rbuf);
	printf("%d passed, %d failed\n", n_tests - n_failed, n_failed);
	return n_failed ? 1 : 0;
}
