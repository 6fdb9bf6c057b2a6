// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Shared receive queues of a MetaRoCE device, through libibverbs.
 *
 *   srq_test DEVICE [shared]
 *
 * Sender QPs A[i] are connected (self-loopback, through the device's IPv4
 * RoCEv2 GID) to receiver QPs B[i] that all take their receive WQEs from
 * one SRQ. Checks: attributes and bad input, several QPs receiving
 * multi-packet messages into one SRQ (data, lengths, per-QP order), the
 * limit event, destroy while in use (EBUSY), RNR while the SRQ is empty
 * and recovery, what an error on one QP does to the SRQ (nothing: only its
 * bound WQE completes, the SRQ's stay), and a UD QP on an SRQ. With
 * "shared" only the shared case runs: the VM script runs it again with
 * packets lost on the way, so that later messages bind WQEs while an
 * earlier one waits for a resend. Prints TAP; exits non-zero if any
 * check fails. Every wait is bounded.
 */

#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

#include "loopback.h"

#define NQP		3
#define PER_QP		24	/* messages each sender sends */
#define SLOT		4096	/* bytes of one receive WQE */
#define NSLOT		(NQP * PER_QP + 8)
#define ALL_ACCESS	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ)

static struct ibv_device_attr dattr;
static char *sbuf, *rbuf;		/* send buffer; NSLOT receive slots */
static struct ibv_mr *smr, *rmr;
/* ---- QPs ---- */

struct conn {
	struct ibv_cq *scq, *rcq;	/* senders' CQ, receivers' CQ */
	struct ibv_qp *a[NQP], *b[NQP];
	int n;
};

static struct ibv_qp *mk_qp(struct ibv_cq *cq, struct ibv_srq *srq,
			    enum ibv_qp_type type)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = cq, .recv_cq = cq, .srq = srq, .qp_type = type,
		.cap = { .max_send_wr = 64, .max_recv_wr = srq ? 0 : 16,
			 .max_send_sge = 1, .max_recv_sge = srq ? 0 : 1 },
	};

	return ibv_create_qp(pd, &ia);
}

static void conn_free(struct conn *c)
{
	int i;

	for (i = 0; i < NQP; i++) {
		if (c->a[i])
			ibv_destroy_qp(c->a[i]);
		if (c->b[i])
			ibv_destroy_qp(c->b[i]);
	}
	if (c->scq)
		ibv_destroy_cq(c->scq);
	if (c->rcq)
		ibv_destroy_cq(c->rcq);
	memset(c, 0, sizeof(*c));
}

/* n pairs A[i] -> B[i], the B's on srq; one TAP line only on failure. */
static bool conn_new(struct conn *c, int n, struct ibv_srq *srq,
		     uint8_t rnr_retry, const char *what)
{
	struct rc_attr ra = { ALL_ACCESS, 14, 7, rnr_retry, 14 };
	struct rc_attr rb = { ALL_ACCESS, 14, 7, 7, 14 };
	int i;

	memset(c, 0, sizeof(*c));
	c->n = n;
	c->scq = ibv_create_cq(ctx, 256, NULL, NULL, 0);
	c->rcq = ibv_create_cq(ctx, 256, NULL, NULL, 0);
	if (!c->scq || !c->rcq)
		goto fail;
	for (i = 0; i < n; i++) {
		c->a[i] = mk_qp(c->scq, NULL, IBV_QPT_RC);
		c->b[i] = mk_qp(c->rcq, srq, IBV_QPT_RC);
		if (!c->a[i] || !c->b[i])
			goto fail;
		if (rc_connect(c->a[i], c->b[i]->qp_num, 0x100, 0x100, &ra) ||
		    rc_connect(c->b[i], c->a[i]->qp_num, 0x100, 0x100, &rb))
			goto fail;
	}
	return true;
fail:
	check(0, "%s: set up %d QP pairs on the SRQ (%s)", what, n,
	      strerror(errno));
	conn_free(c);
	return false;
}

/* ---- posting and polling ---- */

static int srq_post(struct ibv_srq *srq, uint64_t slot, int n)
{
	struct ibv_recv_wr wr, *bad;
	struct ibv_sge sge;
	int i, ret;

	for (i = 0; i < n; i++) {
		sge.addr = (uintptr_t)(rbuf + (slot + i) * SLOT);
		sge.length = SLOT;
		sge.lkey = rmr->lkey;
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = slot + i;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		ret = ibv_post_srq_recv(srq, &wr, &bad);
		if (ret)
			return ret;
	}
	return 0;
}

static uint8_t pat(uint32_t qpi, uint32_t seq, uint32_t j)
{
	return (uint8_t)(qpi * 37 + seq * 11 + j * 3 + 1);
}

/* Message seq of sender qpi: 8-byte header (seq, qpi), then a pattern. */
static uint32_t msg_len(uint32_t seq)
{
	return 8 + (seq * 733) % 3000;
}

static int send_msg(struct ibv_qp *qp, uint32_t qpi, uint32_t seq,
		    uint32_t len, uint64_t wr_id)
{
	char *p = sbuf + (qpi * PER_QP + seq % PER_QP) * SLOT;
	struct ibv_sge sge = {
		.addr = (uintptr_t)p, .length = len, .lkey = smr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND_WITH_IMM,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	uint32_t j;

	wr.imm_data = htobe32(qpi << 16 | seq);
	memcpy(p, &seq, 4);
	memcpy(p + 4, &qpi, 4);
	for (j = 8; j < len; j++)
		p[j] = (char)pat(qpi, seq, j);
	return ibv_post_send(qp, &wr, &bad);
}

/* n successful send completions on cq. */
static bool sends_done(struct ibv_cq *cq, int n)
{
	struct ibv_wc wc;
	int i, s;

	for (i = 0; i < n; i++) {
		s = wait_wc(cq, &wc, WAIT_MS);
		if (s != IBV_WC_SUCCESS) {
			note("send completion %d of %d: status %d wr_id %llu", i,
			     n, s, (unsigned long long)wc.wr_id);
			return false;
		}
	}
	return true;
}

/* The next async event within ms, acknowledged; type -1 if none. */
static int async_event(int ms, struct ibv_async_event *out)
{
	struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;

	memset(out, 0, sizeof(*out));
	out->event_type = (enum ibv_event_type)-1;
	if (poll(&pfd, 1, ms) != 1 || ibv_get_async_event(ctx, &ev))
		return -1;
	*out = ev;
	ibv_ack_async_event(&ev);
	return ev.event_type;
}

/* ---- the cases ---- */

static void case_attrs(void)
{
	struct ibv_srq_init_attr ia = { .attr = { .max_wr = 100, .max_sge = 2 } };
	struct ibv_srq_attr a;
	struct ibv_srq *srq;
	int ret;

	check(dattr.max_srq > 0 && dattr.max_srq_wr >= 1024 &&
	      dattr.max_srq_sge >= 1,
	      "device reports max_srq %d, max_srq_wr %d, max_srq_sge %d",
	      dattr.max_srq, dattr.max_srq_wr, dattr.max_srq_sge);
	srq = ibv_create_srq(pd, &ia);
	check(srq != NULL, "create_srq max_wr 100, max_sge 2");
	if (!srq)
		return;
	ret = ibv_query_srq(srq, &a);
	check(!ret && a.max_wr >= 100 && a.max_sge == 2 &&
	      a.srq_limit == 0, "query_srq: max_wr %u >= 100, max_sge %u, limit %u",
	      a.max_wr, a.max_sge, a.srq_limit);
	a.max_wr = 300;
	ret = ibv_modify_srq(srq, &a, IBV_SRQ_MAX_WR);
	ret = ret ?: ibv_query_srq(srq, &a);
	check(!ret && a.max_wr >= 300,
	      "modify_srq IBV_SRQ_MAX_WR grows it to %u", a.max_wr);
	a.srq_limit = a.max_wr + 1;
	check(ibv_modify_srq(srq, &a, IBV_SRQ_LIMIT) == EINVAL,
	      "modify_srq with srq_limit above max_wr fails EINVAL");
	check(ibv_destroy_srq(srq) == 0, "destroy_srq");

	ia.attr.max_wr = dattr.max_srq_wr + 1;
	errno = 0;
	srq = ibv_create_srq(pd, &ia);
	check(!srq && errno == EINVAL, "create_srq max_wr above max_srq_wr: EINVAL (%s)",
	      strerror(errno));
	if (srq)
		ibv_destroy_srq(srq);
	ia.attr.max_wr = 16;
	ia.attr.max_sge = dattr.max_srq_sge + 1;
	errno = 0;
	srq = ibv_create_srq(pd, &ia);
	check(!srq && errno == EINVAL, "create_srq max_sge above max_srq_sge: EINVAL (%s)",
	      strerror(errno));
	if (srq)
		ibv_destroy_srq(srq);
}

/* Bad posts: too many SGEs, a full SRQ, post_recv on an SRQ QP. */
static void case_bad_post(void)
{
	struct ibv_srq_init_attr ia = { .attr = { .max_wr = 8, .max_sge = 1 } };
	struct ibv_sge sge[2] = {
		{ (uintptr_t)rbuf, 64, rmr->lkey },
		{ (uintptr_t)rbuf + 64, 64, rmr->lkey },
	};
	struct ibv_recv_wr wr = { .wr_id = 1, .sg_list = sge, .num_sge = 2 };
	struct ibv_recv_wr *bad = NULL;
	struct ibv_srq_attr a;
	struct ibv_srq *srq;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	int ret, i;

	srq = ibv_create_srq(pd, &ia);
	if (!srq || ibv_query_srq(srq, &a)) {
		check(0, "bad posts: create an SRQ");
		return;
	}
	ret = ibv_post_srq_recv(srq, &wr, &bad);
	check(ret == EINVAL && bad == &wr,
	      "post_srq_recv with 2 SGEs on a max_sge 1 SRQ: EINVAL, bad_wr set (%d)",
	      ret);
	wr.num_sge = 1;
	for (i = 0; i < (int)a.max_wr; i++) {
		ret = ibv_post_srq_recv(srq, &wr, &bad);
		if (ret)
			break;
	}
	check(i == (int)a.max_wr, "max_wr (%u) receives fit", a.max_wr);
	bad = NULL;
	ret = ibv_post_srq_recv(srq, &wr, &bad);
	check(ret == ENOMEM && bad == &wr,
	      "one more: ENOMEM, bad_wr set (%d)", ret);

	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	qp = cq ? mk_qp(cq, srq, IBV_QPT_RC) : NULL;
	check(qp != NULL, "create an RC QP on the SRQ");
	if (qp) {
		struct ibv_qp_init_attr qia;
		struct ibv_qp_attr qa;

		check(!ibv_query_qp(qp, &qa, IBV_QP_CAP, &qia) &&
		      qia.srq == srq, "query_qp shows the SRQ");
		ret = ibv_post_recv(qp, &wr, &bad);
		check(ret == EINVAL, "post_recv on a QP with an SRQ: EINVAL (%d)",
		      ret);
		ret = ibv_destroy_srq(srq);
		check(ret == EBUSY, "destroy_srq while a QP uses it: EBUSY (%d)",
		      ret);
		ibv_destroy_qp(qp);
	}
	if (cq)
		ibv_destroy_cq(cq);
	check(ibv_destroy_srq(srq) == 0,
	      "destroy_srq once its QP is gone, with receives posted");
}

/*
 * NQP senders, each PER_QP messages of 8 .. 3007 bytes (up to 3 packets),
 * all posted at once, into one SRQ. Every message arrives once, intact,
 * in its slot; each QP's messages complete in order and, as each QP binds
 * WQEs in message order, in the order of their WQEs in the SRQ.
 */
static void case_shared(void)
{
	struct ibv_srq_init_attr ia = { .attr = { .max_wr = NSLOT, .max_sge = 1 } };
	uint32_t next[NQP] = {}, j, seq, qpi, len;
	uint64_t last_wr[NQP];
	bool used[NSLOT] = {}, data = true, order = true, fields = true;
	int i, got = 0, s;
	struct ibv_srq *srq;
	struct ibv_wc wc;
	struct conn c;

	srq = ibv_create_srq(pd, &ia);
	if (!srq || !conn_new(&c, NQP, srq, 7, "shared")) {
		check(0, "shared: SRQ and QPs");
		if (srq)
			ibv_destroy_srq(srq);
		return;
	}
	check(srq_post(srq, 0, NQP * PER_QP) == 0, "shared: %d receives posted",
	      NQP * PER_QP);
	memset(rbuf, 0, (size_t)NSLOT * SLOT);
	for (seq = 0; seq < PER_QP; seq++)
		for (i = 0; i < NQP; i++)
			send_msg(c.a[i], i, seq, msg_len(seq), seq);
	check(sends_done(c.scq, NQP * PER_QP), "shared: all %d sends complete",
	      NQP * PER_QP);
	for (i = 0; i < NQP; i++)
		last_wr[i] = UINT64_MAX;
	while (got < NQP * PER_QP) {
		s = wait_wc(c.rcq, &wc, WAIT_MS);
		if (s != IBV_WC_SUCCESS) {
			note("receive %d: status %d", got, s);
			break;
		}
		got++;
		for (i = 0; i < NQP && c.b[i]->qp_num != wc.qp_num; i++)
			;
		if (i == NQP || wc.wr_id >= NSLOT || used[wc.wr_id]) {
			note("receive on qp %u wr_id %llu: unknown or reused",
			     wc.qp_num, (unsigned long long)wc.wr_id);
			fields = false;
			continue;
		}
		used[wc.wr_id] = true;
		memcpy(&seq, rbuf + wc.wr_id * SLOT, 4);
		memcpy(&qpi, rbuf + wc.wr_id * SLOT + 4, 4);
		len = msg_len(seq);
		if (qpi != (uint32_t)i || seq != next[i] ||
		    (last_wr[i] != UINT64_MAX && wc.wr_id <= last_wr[i])) {
			note("qp %d: got message %u of sender %u in wr_id %llu, expected message %u after wr_id %lld",
			     i, seq, qpi, (unsigned long long)wc.wr_id, next[i],
			     (long long)last_wr[i]);
			order = false;
		}
		next[i] = seq + 1;
		last_wr[i] = wc.wr_id;
		if (wc.opcode != IBV_WC_RECV || wc.byte_len != len ||
		    !(wc.wc_flags & IBV_WC_WITH_IMM) ||
		    be32toh(wc.imm_data) != (qpi << 16 | seq) ||
		    wc.src_qp != c.a[i]->qp_num) {
			note("wr_id %llu: opcode %d byte_len %u (want %u) flags %#x imm %#x src_qp %u",
			     (unsigned long long)wc.wr_id, wc.opcode,
			     wc.byte_len, len, wc.wc_flags,
			     be32toh(wc.imm_data), wc.src_qp);
			fields = false;
		}
		for (j = 8; j < len && seq < PER_QP; j++)
			data &= (uint8_t)rbuf[wc.wr_id * SLOT + j] ==
				pat(qpi, seq, j);
		for (; j < SLOT; j++)
			data &= rbuf[wc.wr_id * SLOT + j] == 0;
	}
	check(got == NQP * PER_QP, "shared: %d of %d messages received", got,
	      NQP * PER_QP);
	check(order, "shared: each QP's messages complete in order, in SRQ order");
	check(fields, "shared: opcode, byte_len, imm, src_qp right; each WQE used once");
	check(data, "shared: data intact, nothing past the message");
	check(cq_quiet(c.rcq, 50, "receiver"),
	      "shared: no further receive completions");
	conn_free(&c);
	check(ibv_destroy_srq(srq) == 0, "shared: destroy_srq after its QPs");
}

/* IBV_SRQ_LIMIT: the event fires once, when the SRQ drops below it. */
static void case_limit(void)
{
	struct ibv_srq_init_attr ia = { .attr = { .max_wr = 16, .max_sge = 1 } };
	struct ibv_async_event ev;
	struct ibv_srq_attr a;
	struct ibv_srq *srq;
	struct conn c;
	int i, t;

	srq = ibv_create_srq(pd, &ia);
	if (!srq || !conn_new(&c, 1, srq, 7, "limit")) {
		check(0, "limit: SRQ and QPs");
		if (srq)
			ibv_destroy_srq(srq);
		return;
	}
	srq_post(srq, 0, 8);
	a.srq_limit = 4;
	t = ibv_modify_srq(srq, &a, IBV_SRQ_LIMIT);
	a.srq_limit = 0;
	t = t ?: ibv_query_srq(srq, &a);
	check(!t && a.srq_limit == 4,
	      "limit: armed at 4 with 8 posted (query says %u)", a.srq_limit);
	for (i = 0; i < 4; i++)
		send_msg(c.a[0], 0, i, 100, i);
	sends_done(c.scq, 4);
	t = async_event(100, &ev);
	check(t < 0, "limit: no event while 4 remain (got %d)", t);
	send_msg(c.a[0], 0, 4, 100, 4);
	sends_done(c.scq, 1);
	t = async_event(WAIT_MS, &ev);
	check(t == IBV_EVENT_SRQ_LIMIT_REACHED && ev.element.srq == srq,
	      "limit: IBV_EVENT_SRQ_LIMIT_REACHED once 3 remain (got %d)", t);
	a.srq_limit = 99;
	t = ibv_query_srq(srq, &a);
	check(!t && a.srq_limit == 0,
	      "limit: disarmed after firing (query says %u)", a.srq_limit);
	send_msg(c.a[0], 0, 5, 100, 5);
	sends_done(c.scq, 1);
	t = async_event(100, &ev);
	check(t < 0, "limit: no second event (got %d)", t);
	conn_free(&c);
	ibv_destroy_srq(srq);
}

/* SRQ empty: RNR; a receive posted later takes the retried SEND. */
static void case_rnr(void)
{
	struct ibv_srq_init_attr ia = { .attr = { .max_wr = 16, .max_sge = 1 } };
	struct ibv_srq *srq;
	struct ibv_wc wc;
	struct conn c;
	uint32_t seq;
	int s;

	srq = ibv_create_srq(pd, &ia);
	if (!srq || !conn_new(&c, 1, srq, 7, "rnr")) {
		check(0, "rnr: SRQ and QPs");
		if (srq)
			ibv_destroy_srq(srq);
		return;
	}
	memset(rbuf, 0, SLOT);
	send_msg(c.a[0], 0, 0, 2500, 0xa0);
	s = wait_wc(c.scq, &wc, 100);
	check(s < 0, "rnr: a 3-packet SEND waits while the SRQ is empty (got %d)",
	      s);
	check(cq_quiet(c.rcq, 1, "receiver") && qp_state(c.b[0]) == IBV_QPS_RTS,
	      "rnr: receiver QP RTS, no receive completion");
	srq_post(srq, 0, 1);
	s = wait_wc(c.scq, &wc, WAIT_MS);
	check(s == IBV_WC_SUCCESS && wc.wr_id == 0xa0,
	      "rnr: the SEND completes once a receive is posted (%d)", s);
	s = wait_wc(c.rcq, &wc, WAIT_MS);
	memcpy(&seq, rbuf, 4);
	check(s == IBV_WC_SUCCESS && wc.wr_id == 0 && wc.byte_len == 2500 &&
	      seq == 0 && (uint8_t)rbuf[2499] == pat(0, 0, 2499),
	      "rnr: it landed whole in the late receive (status %d, %u bytes)",
	      s, wc.byte_len);
	conn_free(&c);

	/* rnr_retry 0: the first RNR NAK fails the SEND. */
	if (conn_new(&c, 1, srq, 0, "rnr 0")) {
		send_msg(c.a[0], 0, 0, 100, 0xa1);
		s = wait_wc(c.scq, &wc, WAIT_MS);
		check(s == IBV_WC_RNR_RETRY_EXC_ERR,
		      "rnr: rnr_retry 0 with an empty SRQ: RNR_RETRY_EXC_ERR (%d)",
		      s);
		check(qp_state(c.b[0]) == IBV_QPS_RTS,
		      "rnr: the receiver stays RTS");
		conn_free(&c);
	}
	ibv_destroy_srq(srq);
}

/*
 * Errors: a QP moved to ERR flushes nothing of the SRQ; a SEND too long
 * for its WQE completes that one WQE (LOC_LEN_ERR); a bad lkey in a WQE
 * fails only the QP that took it. The other QP then uses every WQE left.
 */
static void case_errors(void)
{
	struct ibv_srq_init_attr ia = { .attr = { .max_wr = 32, .max_sge = 1 } };
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_ERR };
	struct ibv_recv_wr wr, *bad;
	struct ibv_async_event ev;
	struct ibv_srq *srq;
	struct ibv_sge sge;
	struct ibv_wc wc;
	struct conn c;
	int s, t, i, ok;

	srq = ibv_create_srq(pd, &ia);
	if (!srq || !conn_new(&c, 3, srq, 7, "errors")) {
		check(0, "errors: SRQ and QPs");
		if (srq)
			ibv_destroy_srq(srq);
		return;
	}
	srq_post(srq, 0, 8);
	check(ibv_modify_qp(c.b[0], &qa, IBV_QP_STATE) == 0,
	      "errors: receiver QP 0 to ERR");
	check(cq_quiet(c.rcq, 100, "receiver"),
	      "errors: the SRQ's 8 receives are not flushed");
	t = async_event(WAIT_MS, &ev);
	while (t == IBV_EVENT_QP_FATAL)
		t = async_event(WAIT_MS, &ev);
	check(t == IBV_EVENT_QP_LAST_WQE_REACHED && ev.element.qp == c.b[0],
	      "errors: IBV_EVENT_QP_LAST_WQE_REACHED for it (got %d)", t);

	/* A 64-byte WQE (slot 8) at the head of the SRQ, then 4096-byte ones. */
	sge = (struct ibv_sge){ (uintptr_t)(rbuf + 8 * SLOT), 64, rmr->lkey };
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 8;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	/* It goes behind the 8 posted: take those first through QP 2. */
	for (i = 0; i < 8; i++)
		send_msg(c.a[2], 2, i, 10, i);
	ok = sends_done(c.scq, 8);
	for (i = 0; i < 8 && ok; i++)
		ok = wait_wc(c.rcq, &wc, WAIT_MS) == IBV_WC_SUCCESS &&
		     wc.qp_num == c.b[2]->qp_num;
	check(ok, "errors: QP 2 takes the 8 receives");
	ibv_post_srq_recv(srq, &wr, &bad);
	srq_post(srq, 9, 1);
	send_msg(c.a[1], 1, 0, 200, 0xa1);
	s = wait_wc(c.rcq, &wc, WAIT_MS);
	check(s == IBV_WC_LOC_LEN_ERR && wc.wr_id == 8 &&
	      wc.qp_num == c.b[1]->qp_num,
	      "errors: 200 bytes into the 64-byte WQE: LOC_LEN_ERR on it (%d, wr_id %llu)",
	      s, (unsigned long long)wc.wr_id);
	s = wait_wc(c.scq, &wc, WAIT_MS);
	check(s == IBV_WC_REM_INV_REQ_ERR,
	      "errors: the sender gets REM_INV_REQ_ERR (%d)", s);
	check(qp_state(c.b[1]) == IBV_QPS_ERR && cq_quiet(c.rcq, 50, "receiver"),
	      "errors: receiver QP 1 in ERR, slot 9 not flushed");

	/* Bad lkey at the head: QP 2 takes it and fails; slot 9 stays. */
	sge = (struct ibv_sge){ (uintptr_t)(rbuf + 10 * SLOT), SLOT,
				rmr->lkey ^ 0x5a00 };
	wr.wr_id = 10;
	srq_post(srq, 11, 2);
	send_msg(c.a[2], 2, 8, 100, 0xa2);
	s = wait_wc(c.rcq, &wc, WAIT_MS);
	check(s == IBV_WC_SUCCESS && wc.wr_id == 9,
	      "errors: QP 2 still receives into the next WQE (slot 9) (%d)", s);
	sends_done(c.scq, 1);
	ibv_post_srq_recv(srq, &wr, &bad);
	/* Slots 11, 12 are ahead of slot 10: use them first. */
	send_msg(c.a[2], 2, 9, 100, 0xa3);
	send_msg(c.a[2], 2, 10, 100, 0xa4);
	sends_done(c.scq, 2);
	ok = wait_wc(c.rcq, &wc, WAIT_MS) == IBV_WC_SUCCESS && wc.wr_id == 11;
	ok &= wait_wc(c.rcq, &wc, WAIT_MS) == IBV_WC_SUCCESS && wc.wr_id == 12;
	check(ok, "errors: slots 11 and 12 taken in order");
	send_msg(c.a[2], 2, 11, 100, 0xa5);
	s = wait_wc(c.rcq, &wc, WAIT_MS);
	check(s == IBV_WC_LOC_PROT_ERR && wc.wr_id == 10,
	      "errors: a WQE with a bad lkey: LOC_PROT_ERR on it (%d, wr_id %llu)",
	      s, (unsigned long long)wc.wr_id);
	check(qp_state(c.b[2]) == IBV_QPS_ERR, "errors: that QP in ERR");
	while (async_event(10, &ev) >= 0)
		;
	conn_free(&c);
	check(ibv_destroy_srq(srq) == 0, "errors: destroy_srq");
}

/* A UD QP on an SRQ: each datagram takes one WQE, behind a 40-byte GRH. */
static void case_ud(void)
{
	struct ibv_srq_init_attr ia = { .attr = { .max_wr = 8, .max_sge = 1 } };
	struct ibv_qp *s = NULL, *r = NULL;
	struct ibv_cq *cq = NULL, *rcq = NULL;
	struct ibv_ah *ah = NULL;
	struct ibv_srq *srq;
	struct ibv_wc wc;
	int i, st;
	bool ok = true;

	srq = ibv_create_srq(pd, &ia);
	cq = ibv_create_cq(ctx, 32, NULL, NULL, 0);
	rcq = ibv_create_cq(ctx, 32, NULL, NULL, 0);
	if (srq && cq && rcq) {
		s = mk_qp(cq, NULL, IBV_QPT_UD);
		r = mk_qp(rcq, srq, IBV_QPT_UD);
	}
	if (!srq || !cq || !s || !r || ud_pair_ready(s, r, 0x1234, &ah)) {
		check(0, "ud: SRQ, QPs and AH (%s)", strerror(errno));
		goto out;
	}
	memset(rbuf, 0, 3 * SLOT);
	srq_post(srq, 0, 2);
	for (i = 0; i < 3; i++) {
		struct ibv_sge sge = { (uintptr_t)sbuf, 300 + i, smr->lkey };
		struct ibv_send_wr wr = {
			.wr_id = 0xd0 + i, .sg_list = &sge, .num_sge = 1,
			.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
		}, *bad;

		memset(sbuf, 0x70 + i, 400);
		wr.wr.ud.ah = ah;
		wr.wr.ud.remote_qpn = r->qp_num;
		wr.wr.ud.remote_qkey = 0x1234;
		ibv_post_send(s, &wr, &bad);
		wait_wc(cq, &wc, WAIT_MS);
		if (i < 2) {
			st = wait_wc(rcq, &wc, WAIT_MS);
			ok &= st == IBV_WC_SUCCESS && wc.wr_id == (uint64_t)i &&
			      wc.byte_len == 40 + 300u + i &&
			      (uint8_t)rbuf[i * SLOT + 40] == 0x70 + i &&
			      (wc.wc_flags & IBV_WC_GRH);
		}
	}
	check(ok, "ud: two datagrams land in the SRQ's two WQEs, behind the GRH");
	check(cq_quiet(rcq, 100, "receiver"),
	      "ud: the third, with the SRQ empty, is dropped");
out:
	ud_pair_free(ah, s, r);
	if (cq)
		ibv_destroy_cq(cq);
	if (rcq)
		ibv_destroy_cq(rcq);
	if (srq)
		ibv_destroy_srq(srq);
}

int main(int argc, char **argv)
{
	int ret = loop_open(argc, argv);

	if (ret || ibv_query_device(ctx, &dattr)) {
		if (ctx)
			check(0, "device has an IPv4 RoCEv2 GID");
		return 1;
	}
	sbuf = aligned_alloc(4096, (size_t)NSLOT * SLOT);
	rbuf = aligned_alloc(4096, (size_t)NSLOT * SLOT);
	smr = pd && sbuf ? ibv_reg_mr(pd, sbuf, (size_t)NSLOT * SLOT,
				      IBV_ACCESS_LOCAL_WRITE) : NULL;
	rmr = pd && rbuf ? ibv_reg_mr(pd, rbuf, (size_t)NSLOT * SLOT,
				      IBV_ACCESS_LOCAL_WRITE) : NULL;
	check(smr && rmr, "PD and MRs");
	if (!smr || !rmr)
		return 1;
	note("gid index %d, active mtu %d", gid_idx, 128 << mtu);

	if (argc > 2 && !strcmp(argv[2], "shared")) {
		case_shared();
		goto out;
	}
	case_attrs();
	case_bad_post();
	case_shared();
	case_limit();
	case_rnr();
	case_errors();
	case_ud();
out:
	ibv_dereg_mr(smr);
	ibv_dereg_mr(rmr);
	free(sbuf);
	free(rbuf);
	return loop_close();
}
