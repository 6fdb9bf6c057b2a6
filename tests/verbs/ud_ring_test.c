// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * UD QPs of userspace on rings (<rdma/metaroce-abi.h>): send WQEs name
 * their AH by the number create_ah returned.
 *
 *   ud_ring_test DEVICE
 *
 * A UD sender and receiver of the one device, addressed through its IPv4
 * RoCEv2 GID (loopback.c). Checks that
 *  - ibv_post_recv and ibv_poll_cq work with the uverbs fd replaced by
 *    /dev/null (the VM script also runs this under strace: exactly one
 *    write or ioctl on the uverbs fd, the doorbell, between the
 *    "ud batch post" lines);
 *  - a batch of datagrams, and an inline one, arrive in order behind the
 *    GRH with their data;
 *  - hostile send WQEs (an AH number nobody has, the number of an AH
 *    destroyed, the AH of another PD, a datagram over the MTU, an RDMA
 *    opcode) and a hostile receive WQE are
 *    refused: errno or error completion, the QP in error, a kernel log
 *    line (the VM script checks it), no crash.
 * Prints TAP; exits non-zero if any check fails. Every wait is bounded.
 */

#include <errno.h>
#include <fcntl.h>
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

#define QKEY		0x1111
#define BATCH		32
#define SQ_NUM		512		/* ring sizes nothing else here has */
#define RQ_NUM		256
#define SLOT		2048
#define BUF_LEN		(BATCH * SLOT)

static char *sbuf, *rbuf;
static struct ibv_mr *smr, *rmr;

struct ud {
	struct ibv_cq *scq, *rcq;
	struct ibv_qp *s, *r;
	struct ibv_ah *ah;
};

static void ud_free(struct ud *u)
{
	ud_pair_free(u->ah, u->s, u->r);
	if (u->scq)
		ibv_destroy_cq(u->scq);
	if (u->rcq)
		ibv_destroy_cq(u->rcq);
	memset(u, 0, sizeof(*u));
}

static bool ud_new(struct ud *u, const char *what)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = SQ_NUM, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1,
			 .max_inline_data = 128 },
	};

	memset(u, 0, sizeof(*u));
	u->scq = ibv_create_cq(ctx, 2 * SQ_NUM, NULL, NULL, 0);
	u->rcq = ibv_create_cq(ctx, 2 * RQ_NUM, NULL, NULL, 0);
	if (!u->scq || !u->rcq)
		goto fail;
	ia.send_cq = ia.recv_cq = u->scq;
	u->s = ibv_create_qp(pd, &ia);
	ia.send_cq = ia.recv_cq = u->rcq;
	ia.cap.max_send_wr = 1;
	ia.cap.max_recv_wr = RQ_NUM;
	u->r = ibv_create_qp(pd, &ia);
	if (!u->s || !u->r || ud_pair_ready(u->s, u->r, QKEY, &u->ah))
		goto fail;
	return true;
fail:
	check(0, "%s: UD QPs and AH (%s)", what, strerror(errno));
	ud_free(u);
	return false;
}

static int post_recvs(struct ibv_qp *qp, int n, uint64_t id0)
{
	struct ibv_recv_wr wr[BATCH], *bad;
	struct ibv_sge sge[BATCH];

	for (int i = 0; i < n; i++) {
		sge[i].addr = (uintptr_t)rbuf + i * SLOT;
		sge[i].length = SLOT;
		sge[i].lkey = rmr->lkey;
		memset(&wr[i], 0, sizeof(wr[i]));
		wr[i].wr_id = id0 + i;
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = 1;
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
	}
	return ibv_post_recv(qp, wr, &bad);
}

static void fill_wr(struct ud *u, struct ibv_send_wr *wr, struct ibv_sge *sge,
		    uint64_t id, uint32_t len)
{
	memset(wr, 0, sizeof(*wr));
	sge->addr = (uintptr_t)sbuf + id % BATCH * SLOT;
	sge->length = len;
	sge->lkey = smr->lkey;
	memset(sbuf + id % BATCH * SLOT, (int)(0x30 + id), len);
	wr->wr_id = id;
	wr->sg_list = sge;
	wr->num_sge = 1;
	wr->opcode = IBV_WR_SEND;
	wr->send_flags = IBV_SEND_SIGNALED;
	wr->wr.ud.ah = u->ah;
	wr->wr.ud.remote_qpn = u->r->qp_num;
	wr->wr.ud.remote_qkey = QKEY;
}

/* Datagram i landed in WQE i: the GRH, then len bytes of its pattern. */
static bool got_dgram(struct ibv_wc *wc, uint64_t id, uint32_t len, int slot)
{
	const uint8_t *p = (uint8_t *)rbuf + slot * SLOT + 40;

	return wc->status == IBV_WC_SUCCESS && wc->wr_id == id &&
	       wc->byte_len == 40 + len && (wc->wc_flags & IBV_WC_GRH) &&
	       p[0] == (uint8_t)(0x30 + id) &&
	       p[len - 1] == (uint8_t)(0x30 + id);
}

static void case_batch(void)
{
	struct ibv_send_wr wr[BATCH], *bad;
	struct ibv_sge sge[BATCH];
	struct ibv_wc wc[BATCH];
	int ret, saved, got = 0;
	bool ok = true;
	long spins = 0;
	struct ud u;

	if (!ud_new(&u, "batch"))
		return;
	check(find_ring(sizeof(struct metaroce_send_wqe), SQ_NUM) &&
	      find_ring(sizeof(struct metaroce_recv_wqe), RQ_NUM),
	      "batch: the UD QPs have mapped send and receive rings");
	saved = hide_cmd_fd();
	ret = post_recvs(u.r, BATCH, 100);
	restore_cmd_fd(saved);
	check(saved >= 0 && ret == 0,
	      "batch: ibv_post_recv of %d WRs without the uverbs fd (ret %d)",
	      BATCH, ret);
	for (int i = 0; i < BATCH; i++) {
		fill_wr(&u, &wr[i], &sge[i], 100 + i, 100 + 20 * i);
		wr[i].next = i + 1 < BATCH ? &wr[i + 1] : NULL;
	}
	note("ud batch post begin");
	ret = ibv_post_send(u.s, wr, &bad);
	note("ud batch post end");
	check(ret == 0, "batch: ibv_post_send of %d datagrams in one call (ret %d)",
	      BATCH, ret);
	for (int i = 0; i < BATCH && ok; i++) {
		ok = wait_wc(u.rcq, &wc[0], WAIT_MS) >= 0 &&
		     got_dgram(&wc[0], 100 + i, 100 + 20 * i, i);
		if (!ok)
			note("datagram %d: %s wr_id %llu len %u", i,
			     st(wc[0].status), (unsigned long long)wc[0].wr_id,
			     wc[0].byte_len);
	}
	check(ok, "batch: %d datagrams land in order behind the GRH, data intact",
	      BATCH);

	saved = hide_cmd_fd();
	while (got < BATCH && spins++ < 200000000L) {
		int n = ibv_poll_cq(u.scq, BATCH - got, wc + got);

		if (n < 0)
			break;
		got += n;
	}
	restore_cmd_fd(saved);
	ok = got == BATCH;
	for (int i = 0; ok && i < got; i++)
		ok = wc[i].status == IBV_WC_SUCCESS &&
		     wc[i].wr_id == 100u + i && wc[i].opcode == IBV_WC_SEND;
	check(saved >= 0 && ok,
	      "batch: %d send completions polled without the uverbs fd, in order (%d)",
	      BATCH, got);

	/* Inline: the data is in the WQE itself. */
	post_recvs(u.r, 1, 7);
	fill_wr(&u, &wr[0], &sge[0], 7, 120);
	wr[0].send_flags |= IBV_SEND_INLINE;
	ret = ibv_post_send(u.s, wr, &bad);
	memset(sbuf + 7 * SLOT, 0, 120);	/* the WQE already has it */
	ok = ret == 0 && wait_wc(u.rcq, &wc[0], WAIT_MS) >= 0 &&
	     got_dgram(&wc[0], 7, 120, 0);
	check(ok, "batch: an inline datagram arrives (ret %d)", ret);
	ud_free(&u);
}

/* Bad send WQEs: refused with an errno or an error completion. */
enum bad { BAD_AH_NUM, BAD_AH_GONE, BAD_OPCODE, BAD_AH_PD, BAD_MTU };

static const char *const bad_name[] = {
	"unknown AH number", "AH destroyed", "RDMA opcode on UD",
	"AH of another PD", "datagram over the MTU",
};

/*
 * Written straight into the send ring: a datagram through a second AH
 * first shows its number (in the slot the provider wrote), then the bad
 * WQE goes in the next slot and the doorbell rings.
 */
static int raw_bad_send(struct ud *u, enum bad kind, const char *what)
{
	struct metaroce_queue_hdr *h =
		find_ring(sizeof(struct metaroce_send_wqe), SQ_NUM);
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1 };
	struct ibv_send_wr wr, *bad;
	struct metaroce_send_wqe *w;
	struct ibv_ah *ah2 = NULL;
	struct ibv_sge sge;
	struct ibv_wc wc;
	uint32_t num = 0;

	aa.grh.sgid_index = gid_idx;
	aa.grh.hop_limit = 64;
	if (!ibv_query_gid(ctx, 1, gid_idx, &aa.grh.dgid))
		ah2 = ibv_create_ah(pd, &aa);
	if (!h || !ah2) {
		check(0, "%s: found the send ring, made an AH", what);
		if (ah2)
			ibv_destroy_ah(ah2);
		return -1;
	}
	post_recvs(u->r, 1, 1);
	fill_wr(u, &wr, &sge, 1, 32);
	wr.wr.ud.ah = ah2;
	if (!ibv_post_send(u->s, &wr, &bad) &&
	    wait_wc(u->scq, &wc, WAIT_MS) == IBV_WC_SUCCESS &&
	    wait_wc(u->rcq, &wc, WAIT_MS) == IBV_WC_SUCCESS)
		num = ((struct metaroce_send_wqe *)ring_slot(h, h->prod - 1))->ah_num;
	check(num != 0, "%s: a datagram through a second AH, number %u", what,
	      num);
	if (kind == BAD_AH_GONE)
		ibv_destroy_ah(ah2);
	w = ring_slot(h, h->prod);
	memset(w, 0, sizeof(*w));
	w->wr_id = 0xbad0 + kind;
	w->opcode = kind == BAD_OPCODE ? IBV_WR_RDMA_WRITE : IBV_WR_SEND;
	w->send_flags = IBV_SEND_SIGNALED;
	w->ah_num = kind == BAD_AH_NUM ? 0x7ffffff0 : num;
	w->remote_qpn = u->r->qp_num;
	w->remote_qkey = QKEY;
	set_prod(h, h->prod + 1);
	if (kind != BAD_AH_GONE)
		ibv_destroy_ah(ah2);
	return doorbell_send(u->s);
}

static void hostile_send(enum bad kind)
{
	const char *what = bad_name[kind];
	struct ibv_send_wr wr, *bad;
	struct ibv_ah *ah2 = NULL;
	struct ibv_pd *pd2 = NULL;
	struct ibv_sge sge;
	struct ibv_wc wc;
	struct ud u;
	int ret, s;

	if (!ud_new(&u, what))
		return;
	fill_wr(&u, &wr, &sge, 0xbad0 + kind, 64);
	if (kind == BAD_AH_PD) {
		struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1 };

		aa.grh.sgid_index = gid_idx;
		aa.grh.hop_limit = 64;
		pd2 = ibv_alloc_pd(ctx);
		if (pd2 && !ibv_query_gid(ctx, 1, gid_idx, &aa.grh.dgid))
			ah2 = ibv_create_ah(pd2, &aa);
		if (!ah2) {
			check(0, "%s: a PD and an AH of it", what);
			goto out;
		}
		wr.wr.ud.ah = ah2;
		ret = ibv_post_send(u.s, &wr, &bad);
	} else if (kind == BAD_MTU) {
		sge.length = SLOT;	/* the MTU is at most 1024 here */
		ret = ibv_post_send(u.s, &wr, &bad);
	} else {
		ret = raw_bad_send(&u, kind, what);
		if (ret < 0)
			goto out;
	}
	/* The kernel refuses it when the doorbell rings. */
	check(ret == EINVAL, "%s: the doorbell fails EINVAL (%d)", what, ret);
	s = wait_wc(u.scq, &wc, WAIT_MS);
	check(s == IBV_WC_WR_FLUSH_ERR && wc.wr_id == 0xbad0u + kind &&
	      qp_state(u.s) == IBV_QPS_ERR,
	      "%s: the bad WQE is flushed, the sender in error (%s)", what,
	      st(s));
	check(cq_quiet(u.rcq, 50, "receiver"), "%s: nothing sent", what);
out:
	if (ah2)
		ibv_destroy_ah(ah2);
	if (pd2)
		ibv_dealloc_pd(pd2);
	ud_free(&u);
}

/* A bad receive WQE: the receiver errors, the WQE is flushed. */
static void hostile_recv(void)
{
	struct metaroce_queue_hdr *h;
	struct metaroce_recv_wqe *w;
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;
	struct ibv_wc wc;
	struct ud u;
	int s;

	if (!ud_new(&u, "hostile receive"))
		return;
	h = find_ring(sizeof(struct metaroce_recv_wqe), RQ_NUM);
	if (!h) {
		check(0, "hostile receive: found the receive ring");
		goto out;
	}
	w = ring_slot(h, h->prod);
	memset(w, 0, sizeof(*w));
	w->wr_id = 0xbadf;
	w->num_sge = 1000;
	set_prod(h, h->prod + 1);
	fill_wr(&u, &wr, &sge, 1, 64);
	ibv_post_send(u.s, &wr, &bad);
	s = wait_wc(u.rcq, &wc, WAIT_MS);
	check(s == IBV_WC_WR_FLUSH_ERR && wc.wr_id == 0xbadf &&
	      qp_state(u.r) == IBV_QPS_ERR,
	      "hostile receive: num_sge 1000 flushed, the receiver in error (%s)",
	      st(s));
out:
	ud_free(&u);
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
	sbuf = aligned_alloc(4096, BUF_LEN);
	rbuf = aligned_alloc(4096, BUF_LEN);
	smr = sbuf ? ibv_reg_mr(pd, sbuf, BUF_LEN, IBV_ACCESS_LOCAL_WRITE) : NULL;
	rmr = rbuf ? ibv_reg_mr(pd, rbuf, BUF_LEN, IBV_ACCESS_LOCAL_WRITE) : NULL;
	check(smr && rmr, "PD and MRs");
	if (!smr || !rmr)
		return 1;
	note("active mtu %d", 128 << mtu);

	case_batch();
	hostile_send(BAD_AH_NUM);
	hostile_send(BAD_AH_GONE);
	hostile_send(BAD_OPCODE);
	hostile_send(BAD_AH_PD);
	hostile_send(BAD_MTU);
	hostile_recv();

	ibv_dereg_mr(smr);
	ibv_dereg_mr(rmr);
	free(sbuf);
	free(rbuf);
	return loop_close();
}
