// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The userspace fast path: CQ, send and receive rings shared with the
 * kernel (<rdma/metaroce-abi.h>).
 *
 *   ring_test DEVICE
 *
 * Two RC QPs of the one device connected to each other through its IPv4
 * RoCEv2 GID (loopback.c), as in access_test. Checks that
 *  - ibv_post_recv and ibv_poll_cq work with the uverbs fd replaced by
 *    /dev/null, so they cannot have used a uverbs command (the VM script
 *    also runs this under strace: no write or ioctl on the uverbs fd
 *    between the "# poll phase" lines, and exactly one, the doorbell,
 *    between the "# batch post" lines);
 *  - every WR of a batch completes, in order;
 *  - resize_cq keeps the pending completions, in order;
 *  - a QP takes the SGEs and inline bytes it was created for and no more
 *    (the kernel sizes its WQEs by them): more fail EINVAL at post time,
 *    and in the ring they put the QP in error;
 *  - hostile ring contents, written straight into the mapped rings the
 *    way a buggy or malicious process could, are refused with an errno
 *    or an error completion (the kernel logs each; the VM script checks
 *    the log) and never crash the kernel.
 * The rings are found in /proc/self/maps (mappings of the uverbs device)
 * by their element size and count; the victim QP's sizes are unique.
 * Prints TAP; exits non-zero if any check fails. Every wait is bounded.
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
#include <rdma/ib_user_verbs.h>
#include <rdma/metaroce-abi.h>

#include "loopback.h"
#include "ring_util.h"

#define BATCH		128		/* WRs posted in one call */
#define VICTIM_SQ	512		/* ring sizes no other QP here has */
#define VICTIM_RQ	256
#define BUF_LEN		(64 * 1024)

static struct ibv_mr *mr;
static char *buf;

/* ---- QP pairs (A requests, B responds) ---- */

/* @victim: A gets the unique send ring size, B the unique receive one. */
static bool pair_new(struct pair *p, bool victim, const char *what)
{
	struct pair_spec s = {
		.cqe = 2 * BATCH,
		.cap = { { .max_send_wr = victim ? VICTIM_SQ : BATCH,
			   .max_recv_wr = BATCH,
			   .max_send_sge = 2, .max_recv_sge = 1 },
			 { .max_send_wr = BATCH,
			   .max_recv_wr = victim ? VICTIM_RQ : BATCH,
			   .max_send_sge = 2, .max_recv_sge = 1 } },
		.psn_a = 100, .psn_b = 900,
		.ra = { .access = IBV_ACCESS_LOCAL_WRITE |
				  IBV_ACCESS_REMOTE_WRITE |
				  IBV_ACCESS_REMOTE_READ,
			.timeout = 10, .retry_cnt = 2, .rnr_retry = 1,
			.min_rnr_timer = 1 },
	};

	s.rb = s.ra;
	if (!pair_make(p, &s))
		return true;
	check(0, "%s: set up a connected QP pair (%s)", what, strerror(errno));
	return false;
}

static bool wait_state(struct ibv_qp *qp, enum ibv_qp_state s)
{
	double end = now_ms() + WAIT_MS;

	while (now_ms() < end) {
		if (qp_state(qp) == s)
			return true;
		usleep(10000);
	}
	return false;
}

static void fill_wr(struct ibv_send_wr *wr, struct ibv_sge *sge, uint64_t id,
		    enum ibv_wr_opcode op, uint32_t len)
{
	memset(wr, 0, sizeof(*wr));
	sge->addr = (uintptr_t)buf;
	sge->length = len;
	sge->lkey = mr->lkey;
	wr->wr_id = id;
	wr->sg_list = sge;
	wr->num_sge = 1;
	wr->opcode = op;
	wr->send_flags = IBV_SEND_SIGNALED;
	wr->wr.rdma.remote_addr = (uintptr_t)buf + BUF_LEN / 2;
	wr->wr.rdma.rkey = mr->rkey;
}

static int post_recvs(struct ibv_qp *qp, int n, uint64_t id0)
{
	struct ibv_recv_wr wr[BATCH], *bad;
	struct ibv_sge sge = {
		.addr = (uintptr_t)buf + BUF_LEN / 2, .length = 1024,
		.lkey = mr->lkey,
	};

	for (int i = 0; i < n; i++) {
		memset(&wr[i], 0, sizeof(wr[i]));
		wr[i].wr_id = id0 + i;
		wr[i].sg_list = &sge;
		wr[i].num_sge = 1;
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
	}
	return ibv_post_recv(qp, wr, &bad);
}

/* ---- cases ---- */

static void case_batch_and_poll(void)
{
	struct ibv_send_wr wr[BATCH], *bad;
	struct ibv_sge sge[BATCH];
	struct ibv_wc wc[BATCH];
	long empty = 0, spins = 0;
	bool order = true;
	struct pair p;
	int got, ret, saved;

	if (!pair_new(&p, false, "batch"))
		return;

	saved = hide_cmd_fd();
	ret = post_recvs(p.b, BATCH, 5000);
	restore_cmd_fd(saved);
	check(saved >= 0 && ret == 0,
	      "ibv_post_recv of %d WRs without the uverbs fd (ret %d)", BATCH,
	      ret);

	for (int i = 0; i < BATCH; i++) {
		fill_wr(&wr[i], &sge[i], i, IBV_WR_SEND, 64);
		wr[i].next = i + 1 < BATCH ? &wr[i + 1] : NULL;
	}
	note("batch post begin");
	ret = ibv_post_send(p.a, wr, &bad);
	note("batch post end");
	check(ret == 0, "ibv_post_send of %d WRs in one call (ret %d)", BATCH,
	      ret);

	for (got = 0; got < BATCH; got++)
		if (wait_wc(p.cqb, &wc[got], WAIT_MS) < 0)
			break;
	for (int i = 0; i < got; i++)
		order &= wc[i].status == IBV_WC_SUCCESS &&
			 wc[i].wr_id == 5000u + i && wc[i].byte_len == 64 &&
			 wc[i].opcode == IBV_WC_RECV &&
			 wc[i].qp_num == p.b->qp_num;
	check(got == BATCH && order,
	      "all %d receives complete in order (%d, wr_id/len/qp ok %d)",
	      BATCH, got, order);
	/* Let the last ACKs reach A; then poll with no uverbs fd. */
	usleep(300 * 1000);

	saved = hide_cmd_fd();
	note("poll phase begin");
	got = 0;
	while (got < BATCH && spins < 200000000L) {
		int n = ibv_poll_cq(p.cqa, 8, wc + got);

		if (n < 0)
			break;
		got += n;
		spins++;
	}
	for (int i = 0; i < 10000; i++)
		empty += ibv_poll_cq(p.cqa, 8, wc) == 0;
	note("poll phase end");
	restore_cmd_fd(saved);
	check(saved >= 0 && got == BATCH && empty == 10000,
	      "without the uverbs fd: %d send completions polled, then 10000 empty polls (%d, %ld)",
	      BATCH, got, empty);
	order = true;
	for (int i = 0; i < got; i++)
		order &= wc[i].status == IBV_WC_SUCCESS && wc[i].wr_id == (uint64_t)i &&
			 wc[i].opcode == IBV_WC_SEND && wc[i].qp_num == p.a->qp_num;
	check(order, "send completions in order with wr_id, opcode, qp_num");
	pair_free(&p);
}

static void case_resize(void)
{
	struct ibv_send_wr wr[11], *bad;
	struct ibv_sge sge[11];
	struct ibv_wc wc[16];
	bool order = true;
	struct pair p;
	int got, ret, s;

	if (!pair_new(&p, false, "resize"))
		return;
	post_recvs(p.b, 1, 7000);
	for (int i = 0; i < 11; i++) {
		fill_wr(&wr[i], &sge[i], 100 + i,
			i == 10 ? IBV_WR_SEND : IBV_WR_RDMA_WRITE, 256);
		wr[i].next = i < 10 ? &wr[i + 1] : NULL;
	}
	ret = ibv_post_send(p.a, wr, &bad);
	s = wait_wc(p.cqb, wc, WAIT_MS);
	usleep(300 * 1000);
	check(ret == 0 && s >= 0, "11 WRs posted, the last SEND arrived");

	ret = ibv_resize_cq(p.cqa, 4);
	check(ret == EINVAL, "resize_cq below the 11 pending fails EINVAL (%d)",
	      ret);
	ret = ibv_resize_cq(p.cqa, 1000);
	check(ret == 0 && p.cqa->cqe >= 1000, "resize_cq up to 1000 (cqe %d)",
	      p.cqa->cqe);
	ret = ibv_resize_cq(p.cqa, 16);
	check(ret == 0 && p.cqa->cqe == 16, "resize_cq down to 16 (cqe %d)",
	      p.cqa->cqe);
	got = ibv_poll_cq(p.cqa, 16, wc);
	for (int i = 0; i < got; i++)
		order &= wc[i].status == IBV_WC_SUCCESS &&
			 wc[i].wr_id == 100u + i;
	check(got == 11 && order,
	      "the 11 completions survived both resizes, in order (%d)", got);
	check(ibv_poll_cq(p.cqa, 16, wc) == 0, "and nothing more");

	/* The resized ring works: one more round trip. */
	post_recvs(p.b, 1, 7001);
	fill_wr(&wr[0], &sge[0], 200, IBV_WR_SEND, 32);
	wr[0].next = NULL;
	ret = ibv_post_send(p.a, wr, &bad);
	s = wait_wc(p.cqa, wc, WAIT_MS);
	check(ret == 0 && s == IBV_WC_SUCCESS && wc[0].wr_id == 200,
	      "a send completes on the resized CQ");
	pair_free(&p);
}

/*
 * The send caps A was created with (2 SGEs, no inline): what create_qp
 * returned, at least that and less than the device's most, as each WQE
 * is sized by them. ibv_post_send refuses more at once; the QP stays up.
 */
static uint32_t cap_sge, cap_inline;

static void case_send_caps(void)
{
	struct ibv_qp_init_attr init;
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge[17];
	struct ibv_qp_attr attr;
	struct ibv_wc wc;
	struct pair p;
	int ret, s;

	if (!pair_new(&p, false, "send caps"))
		return;
	ret = ibv_query_qp(p.a, &attr, IBV_QP_CAP, &init);
	cap_sge = init.cap.max_send_sge;
	cap_inline = init.cap.max_inline_data;
	check(ret == 0 && cap_sge >= 2 && cap_sge < 16 && cap_inline < 256,
	      "a QP made for 2 SGEs takes %u SGEs and %u inline bytes",
	      cap_sge, cap_inline);
	if (ret || cap_sge >= 16 || cap_inline >= 256) {
		cap_sge = 0;	/* the hostile cases past the caps are skipped */
		pair_free(&p);
		return;
	}
	post_recvs(p.b, 2, 8000);
	fill_wr(&wr, sge, 0xca0, IBV_WR_SEND, 8);
	for (uint32_t i = 1; i <= cap_sge; i++)
		sge[i] = sge[0];
	wr.num_sge = cap_sge + 1;
	ret = ibv_post_send(p.a, &wr, &bad);
	check(ret == EINVAL && bad == &wr, "%u SGEs: post_send EINVAL (%d)",
	      cap_sge + 1, ret);
	wr.send_flags |= IBV_SEND_INLINE;
	wr.num_sge = 1;
	sge[0].length = cap_inline + 1;
	ret = ibv_post_send(p.a, &wr, &bad);
	check(ret == EINVAL, "%u inline bytes: post_send EINVAL (%d)",
	      cap_inline + 1, ret);
	check(qp_state(p.a) == IBV_QPS_RTS, "the QP stays usable (RTS)");
	sge[0].length = cap_inline;
	ret = ibv_post_send(p.a, &wr, &bad);
	s = wait_wc(p.cqa, &wc, WAIT_MS);
	check(ret == 0 && s == IBV_WC_SUCCESS && wc.wr_id == 0xca0,
	      "%u inline bytes: sent (%s)", cap_inline, st(s));
	wr.send_flags &= ~IBV_SEND_INLINE;
	wr.num_sge = cap_sge;
	sge[0].length = 8;
	wr.wr_id = 0xca1;
	ret = ibv_post_send(p.a, &wr, &bad);
	s = wait_wc(p.cqa, &wc, WAIT_MS);
	check(ret == 0 && s == IBV_WC_SUCCESS && wc.wr_id == 0xca1,
	      "%u SGEs: sent (%s)", cap_sge, st(s));
	s = wait_wc(p.cqb, &wc, WAIT_MS);
	check(s == IBV_WC_SUCCESS && wc.byte_len == cap_inline,
	      "the receiver got the inline send whole (%u bytes)", wc.byte_len);
	s = wait_wc(p.cqb, &wc, WAIT_MS);
	check(s == IBV_WC_SUCCESS && wc.byte_len == 8 * cap_sge,
	      "and the gathered one (%u bytes)", wc.byte_len);
	pair_free(&p);
}

/* A hostile send WQE: the doorbell fails and A errors, the WQE flushed. */
static void hostile_send(const char *what, void (*fill)(struct metaroce_send_wqe *))
{
	struct metaroce_queue_hdr *sq;
	struct metaroce_send_wqe *w;
	struct ibv_wc wc;
	struct pair p;
	uint32_t prod;
	int ret, s;

	if (!pair_new(&p, true, what))
		return;
	sq = find_ring(sizeof(struct metaroce_send_wqe), VICTIM_SQ);
	check(sq != NULL, "%s: found the send ring in /proc/self/maps", what);
	if (!sq) {
		pair_free(&p);
		return;
	}
	prod = sq->prod;
	w = ring_slot(sq, prod);
	memset(w, 0, sizeof(*w));
	w->wr_id = 0xbad0;
	w->opcode = IB_UVERBS_WR_SEND;
	w->send_flags = IBV_SEND_SIGNALED;
	w->num_sge = 1;
	w->sge[0].addr = (uintptr_t)buf;
	w->sge[0].length = 8;
	w->sge[0].lkey = mr->lkey;
	fill(w);
	set_prod(sq, prod + 1);
	ret = doorbell_send(p.a);
	s = wait_wc(p.cqa, &wc, WAIT_MS);
	check(ret == EINVAL, "%s: the doorbell fails EINVAL (%d)", what, ret);
	check(s >= 0 && s != IBV_WC_SUCCESS && wc.wr_id == 0xbad0,
	      "%s: an error completion for it (%s)", what, st(s));
	check(wait_state(p.a, IBV_QPS_ERR), "%s: the QP is in error", what);
	pair_free(&p);
}

static void bad_opcode(struct metaroce_send_wqe *w) { w->opcode = 0x7777; }

/* One SGE or inline byte more than the QP's caps (case_send_caps). */
static void over_sge(struct metaroce_send_wqe *w)
{
	for (uint32_t i = 1; i <= cap_sge; i++)
		w->sge[i] = w->sge[0];
	w->num_sge = cap_sge + 1;
}

static void over_inline(struct metaroce_send_wqe *w)
{
	w->send_flags |= IBV_SEND_INLINE;
	w->inline_len = cap_inline + 1;
}

static void bad_nsge(struct metaroce_send_wqe *w) { w->num_sge = 1000; }
static void bad_flags(struct metaroce_send_wqe *w) { w->send_flags |= 0x10000; }

static void bad_len(struct metaroce_send_wqe *w)
{
	w->num_sge = 2;
	w->sge[0].length = 0x80000000u;
	w->sge[1] = w->sge[0];
}

static void bad_inline(struct metaroce_send_wqe *w)
{
	w->send_flags |= IBV_SEND_INLINE;
	w->inline_len = 100000;
}

/* Valid in the ring, but 2 GiB of a 64 KiB MR: the transport refuses it. */
static void case_huge_sge(void)
{
	struct metaroce_queue_hdr *sq;
	struct metaroce_send_wqe *w;
	struct ibv_wc wc;
	struct pair p;
	int ret, s;

	if (!pair_new(&p, true, "huge SGE"))
		return;
	post_recvs(p.b, 1, 1);
	sq = find_ring(sizeof(struct metaroce_send_wqe), VICTIM_SQ);
	if (!sq) {
		check(0, "huge SGE: found the send ring");
		pair_free(&p);
		return;
	}
	w = ring_slot(sq, sq->prod);
	memset(w, 0, sizeof(*w));
	w->wr_id = 0xbad1;
	w->opcode = IB_UVERBS_WR_RDMA_WRITE;
	w->send_flags = IBV_SEND_SIGNALED;
	w->num_sge = 1;
	w->sge[0].addr = (uintptr_t)buf;
	w->sge[0].length = 0x7fffffff;
	w->sge[0].lkey = mr->lkey;
	w->remote_addr = (uintptr_t)buf;
	w->rkey = mr->rkey;
	set_prod(sq, sq->prod + 1);
	ret = doorbell_send(p.a);
	s = wait_wc(p.cqa, &wc, WAIT_MS);
	check(ret == 0 && s >= 0 && s != IBV_WC_SUCCESS && wc.wr_id == 0xbad1,
	      "2 GiB SGE in a 64 KiB MR: an error completion (%s)", st(s));
	check(wait_state(p.a, IBV_QPS_ERR), "2 GiB SGE: the QP is in error");
	pair_free(&p);
}

static void case_bogus_sq_prod(void)
{
	struct ibv_send_wr wr, *bad;
	struct metaroce_queue_hdr *sq;
	struct ibv_sge sge;
	struct ibv_wc wc;
	struct pair p;
	uint32_t prod;
	int ret, s;

	if (!pair_new(&p, true, "bogus SQ producer"))
		return;
	sq = find_ring(sizeof(struct metaroce_send_wqe), VICTIM_SQ);
	if (!sq) {
		check(0, "bogus SQ producer: found the send ring");
		pair_free(&p);
		return;
	}
	prod = sq->prod;
	set_prod(sq, prod + 100000);
	ret = doorbell_send(p.a);
	check(ret == EINVAL, "send producer 100000 ahead: doorbell EINVAL (%d)",
	      ret);
	set_prod(sq, prod - 5);
	ret = doorbell_send(p.a);
	check(ret == EINVAL, "send producer behind: doorbell EINVAL (%d)", ret);
	check(qp_state(p.a) == IBV_QPS_RTS, "the QP stays usable (RTS)");
	set_prod(sq, prod);
	post_recvs(p.b, 1, 1);
	fill_wr(&wr, &sge, 0x600d, IBV_WR_SEND, 16);
	ret = ibv_post_send(p.a, &wr, &bad);
	s = wait_wc(p.cqa, &wc, WAIT_MS);
	check(ret == 0 && s == IBV_WC_SUCCESS && wc.wr_id == 0x600d,
	      "with the index restored a send completes (%s)", st(s));
	pair_free(&p);
}

/* Hostile receive ring of B: a send from A makes B take it and fail. */
static void hostile_recv(const char *what, bool bogus_prod)
{
	struct metaroce_queue_hdr *rq;
	struct metaroce_recv_wqe *w;
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;
	struct ibv_wc wc;
	struct pair p;
	int s;

	if (!pair_new(&p, true, what))
		return;
	rq = find_ring(sizeof(struct metaroce_recv_wqe), VICTIM_RQ);
	if (!rq) {
		check(0, "%s: found the receive ring", what);
		pair_free(&p);
		return;
	}
	if (bogus_prod) {
		set_prod(rq, rq->prod + 100000);
	} else {
		w = ring_slot(rq, rq->prod);
		memset(w, 0, sizeof(*w));
		w->wr_id = 0xbad2;
		w->num_sge = 1000;
		set_prod(rq, rq->prod + 1);
	}
	fill_wr(&wr, &sge, 1, IBV_WR_SEND, 16);
	ibv_post_send(p.a, &wr, &bad);
	check(wait_state(p.b, IBV_QPS_ERR), "%s: the receiver is in error",
	      what);
	if (!bogus_prod) {
		s = wait_wc(p.cqb, &wc, WAIT_MS);
		check(s == IBV_WC_WR_FLUSH_ERR && wc.wr_id == 0xbad2,
		      "%s: the bad receive is flushed (%s)", what, st(s));
	}
	pair_free(&p);
}

/* A consumer index ahead of the producer: an overflow, CQ_ERR raised. */
static void case_bogus_cq_cons(void)
{
	struct ibv_send_wr wr, *bad;
	struct ibv_async_event ev;
	struct pollfd pfd;
	struct ibv_sge sge;
	struct pair p;
	char line[512];
	int rings = 0, events = 0, flags;
	FILE *f;

	if (!pair_new(&p, false, "bogus CQ consumer"))
		return;
	/* Every CQ ring here is A's or B's: make all their cons garbage. */
	f = fopen("/proc/self/maps", "r");
	while (f && fgets(line, sizeof(line), f)) {
		struct metaroce_queue_hdr *h;
		unsigned long start;

		if (!strstr(line, "/dev/infiniband/uverbs") ||
		    sscanf(line, "%lx-", &start) != 1)
			continue;
		h = (struct metaroce_queue_hdr *)start;
		if (h->elem_size != sizeof(struct metaroce_cqe))
			continue;
		__atomic_store_n(&h->cons, h->prod + 1000, __ATOMIC_RELEASE);
		rings++;
	}
	if (f)
		fclose(f);
	check(rings == 2, "bogus CQ consumer: found both CQ rings (%d)", rings);

	post_recvs(p.b, 1, 1);
	fill_wr(&wr, &sge, 1, IBV_WR_SEND, 16);
	ibv_post_send(p.a, &wr, &bad);

	flags = fcntl(ctx->async_fd, F_GETFL);
	fcntl(ctx->async_fd, F_SETFL, flags | O_NONBLOCK);
	pfd.fd = ctx->async_fd;
	pfd.events = POLLIN;
	while (poll(&pfd, 1, events ? 500 : WAIT_MS) == 1 &&
	       !ibv_get_async_event(ctx, &ev)) {
		if (ev.event_type == IBV_EVENT_CQ_ERR &&
		    (ev.element.cq == p.cqa || ev.element.cq == p.cqb))
			events++;
		else
			note("async event %s", ibv_event_type_str(ev.event_type));
		ibv_ack_async_event(&ev);
	}
	fcntl(ctx->async_fd, F_SETFL, flags);
	check(events >= 1, "bogus CQ consumer: IBV_EVENT_CQ_ERR raised (%d)",
	      events);
	pair_free(&p);
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
	if (posix_memalign((void **)&buf, 4096, BUF_LEN))
		return 1;
	memset(buf, 0x5a, BUF_LEN);
	mr = pd ? ibv_reg_mr(pd, buf, BUF_LEN, IBV_ACCESS_LOCAL_WRITE |
			     IBV_ACCESS_REMOTE_WRITE |
			     IBV_ACCESS_REMOTE_READ) : NULL;
	check(mr != NULL, "PD and MR");
	if (!mr)
		return 1;

	case_batch_and_poll();
	case_resize();
	case_send_caps();
	if (cap_sge) {
		hostile_send("one SGE past the QP's caps", over_sge);
		hostile_send("one inline byte past the QP's caps", over_inline);
	}
	hostile_send("garbage opcode", bad_opcode);
	hostile_send("num_sge 1000", bad_nsge);
	hostile_send("unknown send flag", bad_flags);
	hostile_send("4 GiB of SGEs", bad_len);
	hostile_send("inline_len 100000", bad_inline);
	case_huge_sge();
	case_bogus_sq_prod();
	hostile_recv("receive num_sge 1000", false);
	hostile_recv("receive producer 100000 ahead", true);
	case_bogus_cq_cons();

	ibv_dereg_mr(mr);
	free(buf);
	return loop_close();
}
