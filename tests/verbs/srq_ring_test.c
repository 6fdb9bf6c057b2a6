// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The SRQ ring: receive WQEs of a shared receive queue posted by writing
 * a ring shared with the kernel (<rdma/metaroce-abi.h>).
 *
 *   srq_ring_test DEVICE
 *
 * QPs of the one device connected to each other through its IPv4 RoCEv2
 * GID (loopback.c). Checks that
 *  - ibv_post_srq_recv works with the uverbs fd replaced by /dev/null, so
 *    it cannot have used a uverbs command (the VM script also runs this
 *    under strace: nothing on the uverbs fd between the "srq post" lines);
 *  - RC and UD traffic lands in those WQEs (data, order, each WQE used
 *    once), also after the ring wrapped and after IBV_SRQ_MAX_WR moved the
 *    queued WQEs to a bigger ring;
 *  - the limit event, LAST_WQE_REACHED and EBUSY on destroy still work;
 *  - hostile ring contents, written straight into the mapped ring, give
 *    an error completion or IBV_EVENT_SRQ_ERR (the kernel logs each; the
 *    VM script checks the log), spare the SRQ's good WQEs where it can,
 *    and never crash the kernel.
 * The SRQ ring is found in /proc/self/maps (mappings of the uverbs device)
 * by its element size and count. Prints TAP; exits non-zero if any check
 * fails. Every wait is bounded.
 */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <rdma/metaroce-abi.h>

#include "loopback.h"
#include "ring_util.h"

#define SLOT		4096		/* bytes of one receive WQE */
#define NSLOT		256
#define NPAIR		2
#define ALL_ACCESS	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ)

static char *sbuf, *rbuf;		/* NSLOT send and receive slots */
static struct ibv_mr *smr, *rmr;

/* ---- the uverbs fd, the ring ---- */

static uint32_t ld(uint32_t *idx)
{
	return __atomic_load_n(idx, __ATOMIC_ACQUIRE);
}

/* Write one WQE at prod and publish it, as a hostile process would. */
static void ring_put(struct metaroce_queue_hdr *h,
		     const struct metaroce_recv_wqe *w)
{
	uint32_t prod = h->prod;

	memcpy((char *)h + METAROCE_QUEUE_DATA_OFFSET +
	       (size_t)(prod & (h->num_elems - 1)) * h->elem_size, w,
	       sizeof(*w));
	set_prod(h, prod + 1);
}

/* ---- QPs ---- */

struct conn {
	struct ibv_cq *scq, *rcq;
	struct ibv_qp *a[NPAIR], *b[NPAIR];	/* B's on the SRQ */
};

static struct ibv_qp *mk_qp(struct ibv_cq *cq, struct ibv_srq *srq,
			    enum ibv_qp_type type)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = cq, .recv_cq = cq, .srq = srq, .qp_type = type,
		.cap = { .max_send_wr = 128, .max_recv_wr = srq ? 0 : 1,
			 .max_send_sge = 1, .max_recv_sge = srq ? 0 : 1 },
	};

	return ibv_create_qp(pd, &ia);
}

static void conn_free(struct conn *c)
{
	for (int i = 0; i < NPAIR; i++) {
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

/* NPAIR pairs A[i] -> B[i], the B's on srq; a TAP line only on failure. */
static bool conn_new(struct conn *c, struct ibv_srq *srq, uint8_t rnr_retry,
		     const char *what)
{
	struct rc_attr ra = { ALL_ACCESS, 12, 3, rnr_retry, 1 };
	struct rc_attr rb = { ALL_ACCESS, 12, 3, 7, 1 };

	memset(c, 0, sizeof(*c));
	c->scq = ibv_create_cq(ctx, 512, NULL, NULL, 0);
	c->rcq = ibv_create_cq(ctx, 512, NULL, NULL, 0);
	if (!c->scq || !c->rcq)
		goto fail;
	for (int i = 0; i < NPAIR; i++) {
		c->a[i] = mk_qp(c->scq, NULL, IBV_QPT_RC);
		c->b[i] = mk_qp(c->rcq, srq, IBV_QPT_RC);
		if (!c->a[i] || !c->b[i] ||
		    rc_connect(c->a[i], c->b[i]->qp_num, 0x10, 0x20, &ra) ||
		    rc_connect(c->b[i], c->a[i]->qp_num, 0x20, 0x10, &rb))
			goto fail;
	}
	return true;
fail:
	check(0, "%s: set up the QP pairs on the SRQ (%s)", what,
	      strerror(errno));
	conn_free(c);
	return false;
}

static struct ibv_srq *mk_srq(uint32_t max_wr, uint32_t max_sge)
{
	struct ibv_srq_init_attr ia = {
		.attr = { .max_wr = max_wr, .max_sge = max_sge },
	};

	return ibv_create_srq(pd, &ia);
}

/* n receives, wr_id = slot id0 + i, in one call with the uverbs fd hidden. */
static int srq_post_nofd(struct ibv_srq *srq, uint64_t id0, int n)
{
	struct ibv_recv_wr wr[NSLOT], *bad;
	struct ibv_sge sge[NSLOT];
	int saved, ret;

	for (int i = 0; i < n; i++) {
		sge[i].addr = (uintptr_t)(rbuf + ((id0 + i) % NSLOT) * SLOT);
		sge[i].length = SLOT;
		sge[i].lkey = rmr->lkey;
		memset(&wr[i], 0, sizeof(wr[i]));
		wr[i].wr_id = id0 + i;
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = 1;
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
	}
	saved = hide_cmd_fd();
	if (saved < 0)
		return -1;
	note("srq post begin");
	ret = ibv_post_srq_recv(srq, wr, &bad);
	note("srq post end");
	restore_cmd_fd(saved);
	return ret;
}

/* Message seq on an RC pair: 8 bytes (seq, pair), then a pattern. */
static uint32_t msg_len(uint32_t seq)
{
	return 8 + (seq * 733) % 3000;
}

static uint8_t pat(uint32_t seq, uint32_t j)
{
	return (uint8_t)(seq * 11 + j * 3 + 1);
}

static int send_msg(struct ibv_qp *qp, uint32_t pair, uint32_t seq,
		    uint32_t len)
{
	char *p = sbuf + (seq % NSLOT) * SLOT;
	struct ibv_sge sge = {
		.addr = (uintptr_t)p, .length = len, .lkey = smr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = seq, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	memcpy(p, &seq, 4);
	memcpy(p + 4, &pair, 4);
	for (uint32_t j = 8; j < len; j++)
		p[j] = (char)pat(seq, j);
	return ibv_post_send(qp, &wr, &bad);
}

/*
 * Messages seq0.. (n of them, alternating over the pairs) received into
 * WQEs id0..id0+n-1 with their data: each WQE used once, and each QP's
 * messages in order in WQEs taken in SRQ order (the QPs interleave).
 */
static bool rc_traffic(struct conn *c, uint32_t seq0, uint64_t id0, int n)
{
	uint64_t last_id[NPAIR] = {};
	uint32_t next_seq[NPAIR];
	bool used[NSLOT] = {};
	struct ibv_wc wc;
	bool ok = true;
	int s;

	for (int i = 0; i < NPAIR; i++)
		next_seq[i] = seq0 + i;
	for (int i = 0; i < n; i++)
		if (send_msg(c->a[i % NPAIR], i % NPAIR, seq0 + i,
			     msg_len(seq0 + i))) {
			note("post_send %d failed", i);
			return false;
		}
	for (int i = 0; i < n && ok; i++) {
		uint32_t seq, pair, k;
		const char *p;

		s = wait_wc(c->rcq, &wc, WAIT_MS);
		k = wc.wr_id - id0;
		p = rbuf + (wc.wr_id % NSLOT) * SLOT;
		memcpy(&seq, p, 4);
		memcpy(&pair, p + 4, 4);
		ok = s == IBV_WC_SUCCESS && k < (uint32_t)n && !used[k] &&
		     wc.opcode == IBV_WC_RECV && pair < NPAIR &&
		     seq == next_seq[pair] &&
		     (!last_id[pair] || wc.wr_id > last_id[pair]) &&
		     wc.qp_num == c->b[pair]->qp_num &&
		     wc.byte_len == msg_len(seq);
		for (uint32_t j = 8; ok && j < wc.byte_len; j++)
			ok = (uint8_t)p[j] == pat(seq, j);
		if (!ok) {
			note("receive %d: %s wr_id %llu seq %u len %u", i,
			     st(s), (unsigned long long)wc.wr_id, seq,
			     wc.byte_len);
			break;
		}
		used[k] = true;
		last_id[pair] = wc.wr_id;
		next_seq[pair] += NPAIR;
	}
	for (int i = 0; i < n && ok; i++)
		ok = wait_wc(c->scq, &wc, WAIT_MS) == IBV_WC_SUCCESS;
	return ok;
}

/* Wait up to ms for an async event of type t about obj; others noted. */
static bool async_wait(enum ibv_event_type t, void *obj, int ms)
{
	struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };
	double end = now_ms() + ms;
	struct ibv_async_event ev;
	bool found = false;

	while (!found && now_ms() < end &&
	       poll(&pfd, 1, (int)(end - now_ms()) + 1) == 1 &&
	       !ibv_get_async_event(ctx, &ev)) {
		found = ev.event_type == t &&
			(ev.element.srq == obj || ev.element.qp == obj);
		if (!found)
			note("async event %s", ibv_event_type_str(ev.event_type));
		ibv_ack_async_event(&ev);
	}
	return found;
}

/* ---- cases ---- */

/* RC over the SRQ with no syscall to post, across a ring wrap. */
static void case_rc(void)
{
	struct metaroce_queue_hdr *h;
	struct ibv_srq *srq = mk_srq(64, 1);
	struct conn c;
	int ret;

	if (!srq || !conn_new(&c, srq, 7, "rc")) {
		check(0, "rc: SRQ and QPs");
		if (srq)
			ibv_destroy_srq(srq);
		return;
	}
	h = find_ring(sizeof(struct metaroce_recv_wqe), 64);
	check(h != NULL, "rc: the SRQ has a mapped ring of 64 receive WQEs");
	ret = srq_post_nofd(srq, 0, 64);
	check(ret == 0, "rc: ibv_post_srq_recv of 64 WRs without the uverbs fd (ret %d)",
	      ret);
	check(h && ld(&h->prod) == 64 && ld(&h->cons) == 0,
	      "rc: prod 64, cons 0: nothing taken before a message needs it");
	check(rc_traffic(&c, 0, 0, 64),
	      "rc: 64 messages over 2 QPs land in the 64 WQEs, in order, data intact");
	check(h && ld(&h->cons) == 64, "rc: the kernel took 64 (cons %u)",
	      h ? ld(&h->cons) : 0);
	ret = srq_post_nofd(srq, 64, 64);
	check(ret == 0 && rc_traffic(&c, 64, 64, 64),
	      "rc: after the ring wrapped, 64 more posted without the uverbs fd and received");
	check(cq_quiet(c.rcq, 50, "receiver"), "rc: no stray receive completion");
	check(ibv_destroy_srq(srq) == EBUSY,
	      "rc: destroy_srq while QPs use it: EBUSY");
	conn_free(&c);
	check(ibv_destroy_srq(srq) == 0, "rc: destroy_srq after its QPs");
}

/* UD over the SRQ: one WQE per datagram, behind the GRH. */
static void case_ud(void)
{
	struct ibv_srq *srq = mk_srq(32, 1);
	struct ibv_cq *cq = ibv_create_cq(ctx, 32, NULL, NULL, 0);
	struct ibv_cq *rcq = ibv_create_cq(ctx, 32, NULL, NULL, 0);
	struct ibv_qp *s = NULL, *r = NULL;
	struct ibv_ah *ah = NULL;
	struct ibv_wc wc;
	bool ok = true;
	int ret;

	if (srq && cq && rcq) {
		s = mk_qp(cq, NULL, IBV_QPT_UD);
		r = mk_qp(rcq, srq, IBV_QPT_UD);
	}
	if (!srq || !cq || !rcq || !s || !r || ud_pair_ready(s, r, 0x777, &ah)) {
		check(0, "ud: SRQ, QPs and AH (%s)", strerror(errno));
		goto out;
	}
	memset(rbuf, 0, 4 * SLOT);
	ret = srq_post_nofd(srq, 0, 4);
	check(ret == 0, "ud: 4 receives posted without the uverbs fd (ret %d)",
	      ret);
	for (int i = 0; i < 4; i++) {
		struct ibv_sge sge = { (uintptr_t)sbuf, 200 + i, smr->lkey };
		struct ibv_send_wr wr = {
			.wr_id = i, .sg_list = &sge, .num_sge = 1,
			.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
		}, *bad;
		int s1;

		memset(sbuf, 0x40 + i, 300);
		wr.wr.ud.ah = ah;
		wr.wr.ud.remote_qpn = r->qp_num;
		wr.wr.ud.remote_qkey = 0x777;
		ibv_post_send(s, &wr, &bad);
		wait_wc(cq, &wc, WAIT_MS);
		s1 = wait_wc(rcq, &wc, WAIT_MS);
		ok &= s1 == IBV_WC_SUCCESS && wc.wr_id == (uint64_t)i &&
		      wc.byte_len == 40 + 200u + i &&
		      (wc.wc_flags & IBV_WC_GRH) &&
		      (uint8_t)rbuf[i * SLOT + 40] == 0x40 + i &&
		      (uint8_t)rbuf[i * SLOT + 40 + 199 + i] == 0x40 + i &&
		      rbuf[i * SLOT + 40 + 200 + i] == 0;
	}
	check(ok, "ud: 4 datagrams land in the SRQ's 4 WQEs in order, behind the GRH, nothing past them");
out:
	ud_pair_free(ah, s, r);
	if (cq)
		ibv_destroy_cq(cq);
	if (rcq)
		ibv_destroy_cq(rcq);
	if (srq)
		ibv_destroy_srq(srq);
}

/* IBV_SRQ_LIMIT: fires once the ring holds fewer than the limit. */
static void case_limit(void)
{
	struct ibv_srq *srq = mk_srq(16, 1);
	struct ibv_srq_attr a = { .srq_limit = 4 };
	struct conn c;
	int ret;

	if (!srq || !conn_new(&c, srq, 7, "limit")) {
		check(0, "limit: SRQ and QPs");
		if (srq)
			ibv_destroy_srq(srq);
		return;
	}
	check(srq_post_nofd(srq, 0, 8) == 0 &&
	      ibv_modify_srq(srq, &a, IBV_SRQ_LIMIT) == 0,
	      "limit: 8 posted without the uverbs fd, armed at 4");
	check(rc_traffic(&c, 0, 0, 4) &&
	      !async_wait(IBV_EVENT_SRQ_LIMIT_REACHED, srq, 100),
	      "limit: no event while 4 remain");
	check(rc_traffic(&c, 4, 4, 1) &&
	      async_wait(IBV_EVENT_SRQ_LIMIT_REACHED, srq, WAIT_MS),
	      "limit: IBV_EVENT_SRQ_LIMIT_REACHED once 3 remain");
	a.srq_limit = 99;
	ret = ibv_query_srq(srq, &a);
	check(!ret && a.srq_limit == 0, "limit: disarmed after firing (%u)",
	      a.srq_limit);
	conn_free(&c);
	ibv_destroy_srq(srq);
}

/* IBV_SRQ_MAX_WR: the queued WQEs move to a bigger ring, in order. */
static void case_resize(void)
{
	struct ibv_srq *srq = mk_srq(16, 1);
	struct ibv_srq_attr a = { .max_wr = 4 };
	struct conn c;
	int ret;

	if (!srq || !conn_new(&c, srq, 7, "resize")) {
		check(0, "resize: SRQ and QPs");
		if (srq)
			ibv_destroy_srq(srq);
		return;
	}
	check(srq_post_nofd(srq, 0, 10) == 0 && rc_traffic(&c, 0, 0, 3),
	      "resize: 10 posted, 3 received");
	ret = ibv_modify_srq(srq, &a, IBV_SRQ_MAX_WR);
	check(ret == EINVAL, "resize: max_wr 4 with 7 queued: EINVAL (%d)",
	      ret);
	a.max_wr = 200;
	ret = ibv_modify_srq(srq, &a, IBV_SRQ_MAX_WR);
	ret = ret ?: ibv_query_srq(srq, &a);
	check(!ret && a.max_wr >= 200, "resize: grown to %u", a.max_wr);
	check(find_ring(sizeof(struct metaroce_recv_wqe), 256) &&
	      !find_ring(sizeof(struct metaroce_recv_wqe), 16),
	      "resize: a ring of 256 mapped, the old one of 16 unmapped");
	ret = srq_post_nofd(srq, 10, 200);
	check(ret == 0, "resize: 200 more posted without the uverbs fd (ret %d)",
	      ret);
	check(rc_traffic(&c, 3, 3, 207),
	      "resize: the 7 moved WQEs, then the 200 new ones, receive in order");
	conn_free(&c);
	ibv_destroy_srq(srq);
}

/* ---- hostile ring contents ---- */

enum bad { BAD_NSGE, BAD_OVER_MAX_SGE, BAD_LEN, BAD_LKEY, BAD_ADDR };

static const char *const bad_name[] = {
	"num_sge 1000", "num_sge 2 above max_sge 1", "4 GiB of SGEs",
	"garbage lkey", "SGE past its MR",
};

/*
 * A bad WQE, then a good one: B0 takes the bad one and fails with an
 * error completion, its QP in error with LAST_WQE_REACHED; B1 then gets
 * the good one.
 */
static void hostile_wqe(enum bad kind, enum ibv_wc_status want)
{
	struct metaroce_recv_wqe w = { .wr_id = 0xbad0 + kind, .num_sge = 1 };
	const char *what = bad_name[kind];
	struct metaroce_queue_hdr *h;
	struct ibv_srq *srq = mk_srq(128, 1);
	struct ibv_wc wc;
	struct conn c;
	int s;

	if (!srq || !conn_new(&c, srq, 7, what)) {
		check(0, "%s: SRQ and QPs", what);
		if (srq)
			ibv_destroy_srq(srq);
		return;
	}
	h = find_ring(sizeof(struct metaroce_recv_wqe), 128);
	if (!h) {
		check(0, "%s: found the SRQ ring", what);
		goto out;
	}
	w.sge[0].addr = (uintptr_t)rbuf;
	w.sge[0].length = SLOT;
	w.sge[0].lkey = rmr->lkey;
	switch (kind) {
	case BAD_NSGE:
		w.num_sge = 1000;
		break;
	case BAD_OVER_MAX_SGE:
		w.num_sge = 2;
		w.sge[1] = w.sge[0];
		break;
	case BAD_LEN:
		w.num_sge = 2;
		w.sge[0].length = 0xffffffffu;
		w.sge[1] = w.sge[0];
		break;
	case BAD_LKEY:
		w.sge[0].lkey = rmr->lkey ^ 0x5a5a5a00;
		break;
	case BAD_ADDR:
		w.sge[0].addr = (uintptr_t)rbuf + (size_t)NSLOT * SLOT;
		break;
	}
	ring_put(h, &w);
	/* Then a good one, as the provider writes it. */
	memset(&w, 0, sizeof(w));
	w.wr_id = 7;
	w.num_sge = 1;
	w.sge[0].addr = (uintptr_t)rbuf + 7 * SLOT;
	w.sge[0].length = SLOT;
	w.sge[0].lkey = rmr->lkey;
	ring_put(h, &w);
	send_msg(c.a[0], 0, 100, 64);
	s = wait_wc(c.rcq, &wc, WAIT_MS);
	check(s == (int)want && wc.wr_id == 0xbad0u + kind &&
	      wc.qp_num == c.b[0]->qp_num,
	      "%s: error completion %s for the bad WQE (%s, wr_id %#llx)",
	      what, ibv_wc_status_str(want), st(s),
	      (unsigned long long)wc.wr_id);
	check(qp_state(c.b[0]) == IBV_QPS_ERR &&
	      async_wait(IBV_EVENT_QP_LAST_WQE_REACHED, c.b[0], WAIT_MS),
	      "%s: that QP in error, IBV_EVENT_QP_LAST_WQE_REACHED", what);
	s = wait_wc(c.scq, &wc, WAIT_MS);
	check(s > 0, "%s: the sender gets an error (%s)", what, st(s));
	send_msg(c.a[1], 1, 101, 64);
	s = wait_wc(c.rcq, &wc, WAIT_MS);
	check(s == IBV_WC_SUCCESS && wc.wr_id == 7 &&
	      wc.qp_num == c.b[1]->qp_num,
	      "%s: another QP receives into the next, good WQE (%s)", what,
	      st(s));
out:
	conn_free(&c);
	check(ibv_destroy_srq(srq) == 0, "%s: destroy_srq", what);
}

/* prod far past cons: the SRQ breaks, IBV_EVENT_SRQ_ERR, senders RNR. */
static void case_bogus_prod(void)
{
	struct metaroce_queue_hdr *h;
	struct ibv_srq *srq = mk_srq(128, 1);
	struct ibv_wc wc;
	struct conn c;
	int s;

	if (!srq || !conn_new(&c, srq, 1, "bogus prod")) {
		check(0, "bogus prod: SRQ and QPs");
		if (srq)
			ibv_destroy_srq(srq);
		return;
	}
	h = find_ring(sizeof(struct metaroce_recv_wqe), 128);
	if (!h) {
		check(0, "bogus prod: found the SRQ ring");
		goto out;
	}
	srq_post_nofd(srq, 0, 4);
	set_prod(h, h->prod + 100000);
	send_msg(c.a[0], 0, 0, 64);
	check(async_wait(IBV_EVENT_SRQ_ERR, srq, WAIT_MS),
	      "bogus prod: IBV_EVENT_SRQ_ERR");
	s = wait_wc(c.scq, &wc, 4 * WAIT_MS);
	check(s == IBV_WC_RNR_RETRY_EXC_ERR,
	      "bogus prod: the sender runs out of RNR retries (%s)", st(s));
	check(cq_quiet(c.rcq, 50, "receiver"),
	      "bogus prod: nothing received from the broken SRQ");
	set_prod(h, 5);
	send_msg(c.a[1], 1, 1, 64);
	s = wait_wc(c.scq, &wc, 4 * WAIT_MS);
	check(s == IBV_WC_RNR_RETRY_EXC_ERR && cq_quiet(c.rcq, 50, "receiver"),
	      "bogus prod: broken for good, even with prod sane again (%s)",
	      st(s));
out:
	conn_free(&c);
	check(ibv_destroy_srq(srq) == 0, "bogus prod: destroy_srq");
}

/* A bad WQE for a UD QP: a length error completion, that QP in error. */
static void case_ud_hostile(void)
{
	struct metaroce_recv_wqe w = { .wr_id = 0xbadd, .num_sge = 1000 };
	struct ibv_srq *srq = mk_srq(128, 1);
	struct ibv_cq *cq = ibv_create_cq(ctx, 32, NULL, NULL, 0);
	struct ibv_cq *rcq = ibv_create_cq(ctx, 32, NULL, NULL, 0);
	struct ibv_qp *s = NULL, *r = NULL;
	struct metaroce_queue_hdr *h;
	struct ibv_ah *ah = NULL;
	struct ibv_wc wc;
	int s1;

	if (srq && cq && rcq) {
		s = mk_qp(cq, NULL, IBV_QPT_UD);
		r = mk_qp(rcq, srq, IBV_QPT_UD);
	}
	h = find_ring(sizeof(struct metaroce_recv_wqe), 128);
	if (!srq || !cq || !rcq || !s || !r || !h ||
	    ud_pair_ready(s, r, 0x777, &ah)) {
		check(0, "ud hostile: SRQ, ring, QPs and AH (%s)",
		      strerror(errno));
		goto out;
	}
	ring_put(h, &w);
	{
		struct ibv_sge sge = { (uintptr_t)sbuf, 100, smr->lkey };
		struct ibv_send_wr wr = {
			.wr_id = 1, .sg_list = &sge, .num_sge = 1,
			.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
		}, *bad;

		wr.wr.ud.ah = ah;
		wr.wr.ud.remote_qpn = r->qp_num;
		wr.wr.ud.remote_qkey = 0x777;
		ibv_post_send(s, &wr, &bad);
	}
	wait_wc(cq, &wc, WAIT_MS);
	s1 = wait_wc(rcq, &wc, WAIT_MS);
	check(s1 == IBV_WC_LOC_LEN_ERR && wc.wr_id == 0xbadd &&
	      qp_state(r) == IBV_QPS_ERR,
	      "ud hostile: num_sge 1000 gives a length error, the QP in error (%s)",
	      st(s1));
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

	if (!ctx)
		return ret;
	check(gid_idx >= 0, "device has an IPv4 RoCEv2 GID (index %d)",
	      gid_idx);
	if (ret)
		return 1;
	sbuf = aligned_alloc(4096, (size_t)NSLOT * SLOT);
	rbuf = aligned_alloc(4096, (size_t)NSLOT * SLOT);
	smr = pd && sbuf ? ibv_reg_mr(pd, sbuf, (size_t)NSLOT * SLOT,
				      IBV_ACCESS_LOCAL_WRITE) : NULL;
	rmr = pd && rbuf ? ibv_reg_mr(pd, rbuf, (size_t)NSLOT * SLOT,
				      IBV_ACCESS_LOCAL_WRITE) : NULL;
	check(smr && rmr, "PD and MRs");
	if (!smr || !rmr)
		return 1;

	case_rc();
	case_ud();
	case_limit();
	case_resize();
	hostile_wqe(BAD_NSGE, IBV_WC_LOC_LEN_ERR);
	hostile_wqe(BAD_OVER_MAX_SGE, IBV_WC_LOC_LEN_ERR);
	hostile_wqe(BAD_LEN, IBV_WC_LOC_LEN_ERR);
	hostile_wqe(BAD_LKEY, IBV_WC_LOC_PROT_ERR);
	hostile_wqe(BAD_ADDR, IBV_WC_LOC_PROT_ERR);
	case_bogus_prod();
	case_ud_hostile();

	ibv_dereg_mr(smr);
	ibv_dereg_mr(rmr);
	free(sbuf);
	free(rbuf);
	return loop_close();
}
