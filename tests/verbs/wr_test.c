// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The extended post API (ibv_wr_*) and the extended CQ (ibv_cq_ex) of a
 * MetaRoCE device, through libibverbs.
 *
 *   wr_test DEVICE
 *
 * Two RC QPs created with ibv_create_qp_ex and send_ops_flags are
 * connected to each other through the device's IPv4 RoCEv2 GID
 * (self-loopback); their CQs are extended CQs, polled only through
 * start_poll / next_poll / end_poll and the ibv_wc_read_* accessors. Every
 * opcode is posted through ibv_wr_* and its data and both sides'
 * completion fields are checked; then SGE lists, inline data (whose
 * buffer is reused at once), batches, wr_abort, errors kept until
 * wr_complete, unsupported flags, and a UD pair with wr_set_ud_addr.
 * Prints TAP; exits non-zero if any check fails. Every wait is bounded.
 */

#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#include "loopback.h"

#define BUF		(64 * 1024)
#define ALL_ACCESS	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)
#define WC_FLAGS	(IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM | \
			 IBV_WC_EX_WITH_QP_NUM | IBV_WC_EX_WITH_SRC_QP | \
			 IBV_WC_EX_WITH_SLID | IBV_WC_EX_WITH_SL | \
			 IBV_WC_EX_WITH_DLID_PATH_BITS)
#define RC_OPS		(IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM | \
			 IBV_QP_EX_WITH_SEND_WITH_INV | \
			 IBV_QP_EX_WITH_RDMA_WRITE | \
			 IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | \
			 IBV_QP_EX_WITH_RDMA_READ | \
			 IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | \
			 IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)

static char *abuf, *bbuf;		/* A's and B's memory */
static struct ibv_mr *amr, *bmr;
/* ---- the extended CQ ---- */

struct cqe {
	int status;			/* -1: none came */
	uint64_t wr_id;
	enum ibv_wc_opcode opcode;
	uint32_t byte_len, imm, qp_num, src_qp, slid, vendor_err;
	unsigned int wc_flags;
	uint8_t sl, path_bits;
};

static void cqe_read(struct ibv_cq_ex *cq, struct cqe *e)
{
	e->status = cq->status;
	e->wr_id = cq->wr_id;
	e->opcode = ibv_wc_read_opcode(cq);
	e->vendor_err = ibv_wc_read_vendor_err(cq);
	e->byte_len = ibv_wc_read_byte_len(cq);
	e->imm = ibv_wc_read_invalidated_rkey(cq);	/* raw imm_data */
	e->qp_num = ibv_wc_read_qp_num(cq);
	e->src_qp = ibv_wc_read_src_qp(cq);
	e->wc_flags = ibv_wc_read_wc_flags(cq);
	e->slid = ibv_wc_read_slid(cq);
	e->sl = ibv_wc_read_sl(cq);
	e->path_bits = ibv_wc_read_dlid_path_bits(cq);
}

/* One completion within ms, through start_poll and end_poll. */
static int poll1(struct ibv_cq_ex *cq, struct cqe *e, int ms)
{
	struct ibv_poll_cq_attr attr = {};
	double end = now_ms() + ms;
	int ret;

	memset(e, 0, sizeof(*e));
	e->status = -1;
	for (;;) {
		ret = ibv_start_poll(cq, &attr);
		if (!ret)
			break;
		if (ret != ENOENT) {
			note("start_poll: %d", ret);
			return -1;
		}
		if (now_ms() > end)
			return -1;
		usleep(200);
	}
	cqe_read(cq, e);
	ibv_end_poll(cq);
	return e->status;
}

/* n completions within ms, through start_poll, next_poll and end_poll. */
static int poll_n(struct ibv_cq_ex *cq, struct cqe *e, int n, int ms)
{
	struct ibv_poll_cq_attr attr = {};
	double end = now_ms() + ms;
	int got = 0, ret;

	while (got < n && now_ms() < end) {
		ret = ibv_start_poll(cq, &attr);
		if (ret == ENOENT) {
			usleep(200);
			continue;
		}
		if (ret)
			break;
		do {
			cqe_read(cq, &e[got++]);
		} while (got < n && !ibv_next_poll(cq));
		ibv_end_poll(cq);
	}
	return got;
}

static bool quiet(struct ibv_cq_ex *cq, int ms)
{
	struct cqe e;

	if (poll1(cq, &e, ms) < 0)
		return true;
	note("unexpected completion: status %d wr_id %#llx", e.status,
	     (unsigned long long)e.wr_id);
	return false;
}

static struct ibv_cq_ex *mk_cq(void)
{
	struct ibv_cq_init_attr_ex a = { .cqe = 128, .wc_flags = WC_FLAGS };

	return ibv_create_cq_ex(ctx, &a);
}

/* ---- QPs ---- */

static struct ibv_qp *mk_qp(struct ibv_cq_ex *cq, enum ibv_qp_type type,
			    uint64_t ops)
{
	struct ibv_qp_init_attr_ex ia = {
		.send_cq = ibv_cq_ex_to_cq(cq), .recv_cq = ibv_cq_ex_to_cq(cq),
		.qp_type = type,
		.cap = { .max_send_wr = 64, .max_recv_wr = 64,
			 .max_send_sge = 4, .max_recv_sge = 4,
			 .max_inline_data = 128 },
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = pd,
		.send_ops_flags = ops,
	};

	return ibv_create_qp_ex(ctx, &ia);
}

static struct ibv_cq_ex *cqa, *cqb;
static struct ibv_qp *qa, *qb;		/* A requests, B responds */
static struct ibv_qp_ex *xa;

static int post_recv(struct ibv_qp *qp, uint64_t wr_id, char *buf,
		     uint32_t len, struct ibv_mr *mr)
{
	struct ibv_sge sge = { (uintptr_t)buf, len, mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				  .num_sge = 1 }, *bad;

	return ibv_post_recv(qp, &wr, &bad);
}

static void fill(char *p, size_t n, uint8_t seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (char)(seed + i * 7);
}

static bool same(const char *p, size_t n, uint8_t seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		if ((uint8_t)p[i] != (uint8_t)(seed + i * 7))
			return false;
	return true;
}

/* A's send completion for wr_id with opcode op and, if len, byte_len. */
static void expect_send(uint64_t wr_id, enum ibv_wc_opcode op, const char *w)
{
	struct cqe e;
	int s = poll1(cqa, &e, WAIT_MS);

	check(s == IBV_WC_SUCCESS && e.wr_id == wr_id && e.opcode == op &&
	      e.qp_num == qa->qp_num && e.vendor_err == 0,
	      "%s: requester completion (status %d wr_id %#llx opcode %d qp %u)",
	      w, s, (unsigned long long)e.wr_id, e.opcode, e.qp_num);
}

/* B's receive completion: fields as the verbs define them. */
static void expect_recv(uint64_t wr_id, enum ibv_wc_opcode op, uint32_t len,
			unsigned int flags, uint32_t imm, const char *w)
{
	struct cqe e;
	int s = poll1(cqb, &e, WAIT_MS);
	bool ok = s == IBV_WC_SUCCESS && e.wr_id == wr_id && e.opcode == op &&
		  e.byte_len == len && e.qp_num == qb->qp_num &&
		  e.src_qp == qa->qp_num &&
		  (e.wc_flags & (IBV_WC_WITH_IMM | IBV_WC_WITH_INV)) == flags &&
		  e.slid == 0 && e.sl == 0 && e.path_bits == 0;

	if (flags)
		ok &= e.imm == imm;
	check(ok, "%s: responder completion", w);
	if (!ok)
		note("  status %d wr_id %#llx opcode %d byte_len %u qp %u src_qp %u flags %#x imm %#x slid %u sl %u",
		     s, (unsigned long long)e.wr_id, e.opcode, e.byte_len,
		     e.qp_num, e.src_qp, e.wc_flags, e.imm, e.slid, e.sl);
}

/* ---- the cases ---- */

static void case_opcodes(void)
{
	uint64_t *ab = (uint64_t *)(abuf + 8192), *bb = (uint64_t *)(bbuf + 8192);
	uint64_t braddr = (uintptr_t)bbuf;
	int ret;

	/* SEND, 3000 bytes (3 packets) */
	fill(abuf, 3000, 1);
	memset(bbuf, 0, 4096);
	post_recv(qb, 0xb1, bbuf, 4096, bmr);
	ibv_wr_start(xa);
	xa->wr_id = 0xa1;
	xa->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(xa);
	ibv_wr_set_sge(xa, amr->lkey, (uintptr_t)abuf, 3000);
	ret = ibv_wr_complete(xa);
	check(ret == 0, "wr_send: wr_complete returns 0 (%d)", ret);
	expect_send(0xa1, IBV_WC_SEND, "wr_send");
	expect_recv(0xb1, IBV_WC_RECV, 3000, 0, 0, "wr_send");
	check(same(bbuf, 3000, 1) && bbuf[3000] == 0, "wr_send: data");

	/* SEND_WITH_IMM */
	fill(abuf, 100, 2);
	post_recv(qb, 0xb2, bbuf, 4096, bmr);
	ibv_wr_start(xa);
	xa->wr_id = 0xa2;
	ibv_wr_send_imm(xa, htobe32(0x12345678));
	ibv_wr_set_sge(xa, amr->lkey, (uintptr_t)abuf, 100);
	ibv_wr_complete(xa);
	expect_send(0xa2, IBV_WC_SEND, "wr_send_imm");
	expect_recv(0xb2, IBV_WC_RECV, 100, IBV_WC_WITH_IMM,
		    htobe32(0x12345678), "wr_send_imm");
	check(same(bbuf, 100, 2), "wr_send_imm: data");

	/* RDMA_WRITE, 5000 bytes */
	fill(abuf, 5000, 3);
	memset(bbuf, 0, 8192);
	ibv_wr_start(xa);
	xa->wr_id = 0xa3;
	ibv_wr_rdma_write(xa, bmr->rkey, braddr + 100);
	ibv_wr_set_sge(xa, amr->lkey, (uintptr_t)abuf, 5000);
	ibv_wr_complete(xa);
	expect_send(0xa3, IBV_WC_RDMA_WRITE, "wr_rdma_write");
	check(same(bbuf + 100, 5000, 3) && bbuf[99] == 0 && bbuf[5100] == 0,
	      "wr_rdma_write: data at the remote address, nothing around it");
	check(quiet(cqb, 20), "wr_rdma_write: no responder completion");

	/* RDMA_WRITE_WITH_IMM */
	fill(abuf, 2000, 4);
	post_recv(qb, 0xb4, bbuf + 6000, 16, bmr);
	ibv_wr_start(xa);
	xa->wr_id = 0xa4;
	ibv_wr_rdma_write_imm(xa, bmr->rkey, braddr, htobe32(0xcafe));
	ibv_wr_set_sge(xa, amr->lkey, (uintptr_t)abuf, 2000);
	ibv_wr_complete(xa);
	expect_send(0xa4, IBV_WC_RDMA_WRITE, "wr_rdma_write_imm");
	expect_recv(0xb4, IBV_WC_RECV_RDMA_WITH_IMM, 2000, IBV_WC_WITH_IMM,
		    htobe32(0xcafe), "wr_rdma_write_imm");
	check(same(bbuf, 2000, 4), "wr_rdma_write_imm: data");

	/* RDMA_READ */
	fill(bbuf, 4000, 5);
	memset(abuf, 0, 8192);
	ibv_wr_start(xa);
	xa->wr_id = 0xa5;
	ibv_wr_rdma_read(xa, bmr->rkey, braddr);
	ibv_wr_set_sge(xa, amr->lkey, (uintptr_t)abuf + 10, 4000);
	ibv_wr_complete(xa);
	expect_send(0xa5, IBV_WC_RDMA_READ, "wr_rdma_read");
	check(same(abuf + 10, 4000, 5) && abuf[9] == 0 && abuf[4010] == 0,
	      "wr_rdma_read: data read into place");

	/* Atomics */
	*bb = 1000;
	ibv_wr_start(xa);
	xa->wr_id = 0xa6;
	ibv_wr_atomic_fetch_add(xa, bmr->rkey, (uintptr_t)bb, 23);
	ibv_wr_set_sge(xa, amr->lkey, (uintptr_t)ab, 8);
	ibv_wr_complete(xa);
	expect_send(0xa6, IBV_WC_FETCH_ADD, "wr_atomic_fetch_add");
	check(*ab == 1000 && *bb == 1023,
	      "wr_atomic_fetch_add: returned %llu, remote now %llu",
	      (unsigned long long)*ab, (unsigned long long)*bb);
	ibv_wr_start(xa);
	xa->wr_id = 0xa7;
	ibv_wr_atomic_cmp_swp(xa, bmr->rkey, (uintptr_t)bb, 1023, 77);
	ibv_wr_set_sge(xa, amr->lkey, (uintptr_t)ab, 8);
	xa->wr_id = 0xa8;
	ibv_wr_atomic_cmp_swp(xa, bmr->rkey, (uintptr_t)bb, 1023, 99);
	ibv_wr_set_sge(xa, amr->lkey, (uintptr_t)ab + 8, 8);
	ibv_wr_complete(xa);
	expect_send(0xa7, IBV_WC_COMP_SWAP, "wr_atomic_cmp_swp (matching)");
	expect_send(0xa8, IBV_WC_COMP_SWAP, "wr_atomic_cmp_swp (stale)");
	check(ab[0] == 1023 && ab[1] == 77 && *bb == 77,
	      "wr_atomic_cmp_swp: swapped once (returned %llu, %llu; remote %llu)",
	      (unsigned long long)ab[0], (unsigned long long)ab[1],
	      (unsigned long long)*bb);

	/* SEND_WITH_INV: the responder reports the rkey it was asked to drop. */
	post_recv(qb, 0xb9, bbuf, 4096, bmr);
	ibv_wr_start(xa);
	xa->wr_id = 0xa9;
	ibv_wr_send_inv(xa, 0xabcd1200);
	ibv_wr_set_sge(xa, amr->lkey, (uintptr_t)abuf, 64);
	ibv_wr_complete(xa);
	expect_send(0xa9, IBV_WC_SEND, "wr_send_inv");
	{
		struct cqe e;
		int s = poll1(cqb, &e, WAIT_MS);

		check(s >= 0 && e.wr_id == 0xb9 &&
		      (e.wc_flags & IBV_WC_WITH_INV) && e.imm == 0xabcd1200,
		      "wr_send_inv: responder completion carries WITH_INV and the rkey (flags %#x rkey %#x)",
		      e.wc_flags, e.imm);
		note("wr_send_inv of an rkey no MR has: responder status %s",
		     s >= 0 ? ibv_wc_status_str(s) : "none");
	}
}

static void case_sge_inline(void)
{
	struct ibv_sge sgl[3] = {
		{ (uintptr_t)abuf, 100, 0 }, { (uintptr_t)abuf + 1000, 200, 0 },
		{ (uintptr_t)abuf + 3000, 300, 0 },
	};
	struct ibv_data_buf bufs[2];
	char msg[64];
	int i;
	bool ok;

	for (i = 0; i < 3; i++)
		sgl[i].lkey = amr->lkey;
	fill(abuf, 4096, 6);
	memset(bbuf, 0, 4096);
	post_recv(qb, 0xc1, bbuf, 4096, bmr);
	ibv_wr_start(xa);
	xa->wr_id = 0xc1;
	xa->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(xa);
	ibv_wr_set_sge_list(xa, 3, sgl);
	ibv_wr_complete(xa);
	expect_send(0xc1, IBV_WC_SEND, "wr_set_sge_list");
	expect_recv(0xc1, IBV_WC_RECV, 600, 0, 0, "wr_set_sge_list");
	ok = !memcmp(bbuf, abuf, 100) && !memcmp(bbuf + 100, abuf + 1000, 200) &&
	     !memcmp(bbuf + 300, abuf + 3000, 300);
	check(ok, "wr_set_sge_list: the three pieces gathered in order");

	/* Inline: the buffer is overwritten right after the call. */
	strcpy(msg, "inline data, copied at once");
	post_recv(qb, 0xc2, bbuf, 4096, bmr);
	ibv_wr_start(xa);
	xa->wr_id = 0xc2;
	ibv_wr_send(xa);
	ibv_wr_set_inline_data(xa, msg, strlen(msg) + 1);
	memset(msg, 'X', sizeof(msg));
	ibv_wr_complete(xa);
	expect_send(0xc2, IBV_WC_SEND, "wr_set_inline_data");
	expect_recv(0xc2, IBV_WC_RECV, 28, 0, 0, "wr_set_inline_data");
	check(!strcmp(bbuf, "inline data, copied at once"),
	      "wr_set_inline_data: the data as it was at the call");

	bufs[0] = (struct ibv_data_buf){ "first,", 6 };
	bufs[1] = (struct ibv_data_buf){ "second", 7 };
	memset(bbuf, 0, 4096);
	ibv_wr_start(xa);
	xa->wr_id = 0xc3;
	ibv_wr_rdma_write(xa, bmr->rkey, (uintptr_t)bbuf + 50);
	ibv_wr_set_inline_data_list(xa, 2, bufs);
	ibv_wr_complete(xa);
	expect_send(0xc3, IBV_WC_RDMA_WRITE, "wr_set_inline_data_list");
	check(!strcmp(bbuf + 50, "first,second") && bbuf[49] == 0,
	      "wr_set_inline_data_list: WRITE of the two buffers");
}

static void case_batch(void)
{
	struct cqe e[16];
	int i, n, ret;
	bool ok = true;

	/* Ten SENDs, only the odd ones signaled, then a signaled WRITE. */
	memset(bbuf, 0, BUF);
	for (i = 0; i < 10; i++) {
		fill(abuf + i * 1024, 1000, 10 + i);
		post_recv(qb, 0xd0 + i, bbuf + i * 1024, 1024, bmr);
	}
	ibv_wr_start(xa);
	for (i = 0; i < 10; i++) {
		xa->wr_id = 0xd0 + i;
		xa->wr_flags = i & 1 ? IBV_SEND_SIGNALED : 0;
		ibv_wr_send_imm(xa, htobe32(i));
		ibv_wr_set_sge(xa, amr->lkey, (uintptr_t)abuf + i * 1024,
			       1000 - i);
	}
	xa->wr_id = 0xdf;
	xa->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(xa, bmr->rkey, (uintptr_t)bbuf + 20000);
	ibv_wr_set_sge(xa, amr->lkey, (uintptr_t)abuf, 10);
	ret = ibv_wr_complete(xa);
	check(ret == 0, "batch of 11: wr_complete returns 0 (%d)", ret);
	n = poll_n(cqa, e, 6, WAIT_MS);
	for (i = 0; i < n && i < 5; i++)
		ok &= e[i].status == IBV_WC_SUCCESS &&
		      e[i].wr_id == (uint64_t)(0xd0 + 2 * i + 1);
	check(n == 6 && ok && e[5].wr_id == 0xdf,
	      "batch: the 5 signaled SENDs and the WRITE complete, in order (got %d)",
	      n);
	check(quiet(cqa, 20), "batch: nothing for the unsignaled ones");
	n = poll_n(cqb, e, 10, WAIT_MS);
	ok = n == 10;
	for (i = 0; i < n; i++)
		ok &= e[i].status == IBV_WC_SUCCESS &&
		      e[i].wr_id == 0xd0u + i && e[i].byte_len == 1000u - i &&
		      be32toh(e[i].imm) == (uint32_t)i &&
		      same(bbuf + i * 1024, 1000 - i, 10 + i);
	check(ok, "batch: 10 receives via next_poll, in order, lengths, imm and data right (got %d)",
	      n);

	/* wr_abort: nothing is sent. */
	post_recv(qb, 0xe0, bbuf, 4096, bmr);
	ibv_wr_start(xa);
	xa->wr_id = 0xe1;
	ibv_wr_send(xa);
	ibv_wr_set_sge(xa, amr->lkey, (uintptr_t)abuf, 10);
	ibv_wr_abort(xa);
	check(quiet(cqa, 50) && quiet(cqb, 1), "wr_abort: nothing sent");

	/* Errors are kept until wr_complete, which then posts nothing. */
	{
		struct ibv_sge many[17];

		for (i = 0; i < 17; i++)
			many[i] = (struct ibv_sge){ (uintptr_t)abuf, 1,
						    amr->lkey };
		ibv_wr_start(xa);
		xa->wr_id = 0xe2;
		ibv_wr_send(xa);
		ibv_wr_set_sge(xa, amr->lkey, (uintptr_t)abuf, 10);
		xa->wr_id = 0xe3;
		ibv_wr_send(xa);
		ibv_wr_set_sge_list(xa, 17, many);
		ret = ibv_wr_complete(xa);
		check(ret == EINVAL && quiet(cqa, 50) && quiet(cqb, 1),
		      "17 SGEs: wr_complete fails EINVAL, nothing posted (%d)",
		      ret);
	}
	ibv_wr_start(xa);
	ibv_wr_set_sge(xa, amr->lkey, (uintptr_t)abuf, 10);
	ret = ibv_wr_complete(xa);
	check(ret == EINVAL, "wr_set_sge before any wr_*: EINVAL (%d)", ret);
	{
		char big[300];

		memset(big, 1, sizeof(big));
		ibv_wr_start(xa);
		ibv_wr_send(xa);
		ibv_wr_set_inline_data(xa, big, sizeof(big));
		ret = ibv_wr_complete(xa);
		check(ret == EINVAL,
		      "300 bytes of inline data (max_inline_data 256): EINVAL (%d)",
		      ret);
	}
	/* The QP still works; the posted receive 0xe0 takes this. */
	ibv_wr_start(xa);
	xa->wr_id = 0xe4;
	ibv_wr_send(xa);
	ibv_wr_set_sge(xa, amr->lkey, (uintptr_t)abuf, 10);
	ibv_wr_complete(xa);
	expect_send(0xe4, IBV_WC_SEND, "after the errors");
	expect_recv(0xe0, IBV_WC_RECV, 10, 0, 0, "after the errors");
}

static void case_create(void)
{
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 16,
		.wc_flags = WC_FLAGS | IBV_WC_EX_WITH_COMPLETION_TIMESTAMP,
	};
	struct ibv_qp_init_attr ia = {
		.send_cq = ibv_cq_ex_to_cq(cqa), .recv_cq = ibv_cq_ex_to_cq(cqa),
		.qp_type = IBV_QPT_RC, .cap = { 1, 1, 1, 1, 0 },
	};
	struct ibv_cq_ex *cq;
	struct ibv_qp *qp;

	errno = 0;
	cq = ibv_create_cq_ex(ctx, &ca);
	check(!cq && errno == EOPNOTSUPP,
	      "create_cq_ex with COMPLETION_TIMESTAMP: EOPNOTSUPP (%s)",
	      strerror(errno));
	if (cq)
		ibv_destroy_cq(ibv_cq_ex_to_cq(cq));
	errno = 0;
	/* BIND_MW is supported (mw_test); TSO is not, on any QP. */
	qp = mk_qp(cqa, IBV_QPT_RC, RC_OPS | IBV_QP_EX_WITH_TSO);
	check(!qp && errno == EOPNOTSUPP,
	      "create_qp_ex with WITH_TSO: EOPNOTSUPP (%s)", strerror(errno));
	if (qp)
		ibv_destroy_qp(qp);
	errno = 0;
	qp = mk_qp(cqa, IBV_QPT_UD, IBV_QP_EX_WITH_RDMA_WRITE);
	check(!qp && errno == EOPNOTSUPP,
	      "UD create_qp_ex with WITH_RDMA_WRITE: EOPNOTSUPP (%s)",
	      strerror(errno));
	if (qp)
		ibv_destroy_qp(qp);
	qp = ibv_create_qp(pd, &ia);
	check(qp && !ibv_qp_to_qp_ex(qp),
	      "a QP from ibv_create_qp has no qp_ex");
	if (qp)
		ibv_destroy_qp(qp);
}

static void case_ud(void)
{
	struct ibv_cq_ex *cs = mk_cq(), *cr = mk_cq();
	struct ibv_qp *s = NULL, *r = NULL;
	struct ibv_ah *ah = NULL;
	struct ibv_qp_ex *xs;
	struct cqe e;
	int st;

	if (cs && cr) {
		s = mk_qp(cs, IBV_QPT_UD, IBV_QP_EX_WITH_SEND |
			  IBV_QP_EX_WITH_SEND_WITH_IMM);
		r = mk_qp(cr, IBV_QPT_UD, IBV_QP_EX_WITH_SEND);
	}
	xs = s ? ibv_qp_to_qp_ex(s) : NULL;
	if (!xs || !r || ud_pair_ready(s, r, 0x777, &ah)) {
		check(0, "ud: QPs and AH (%s)", strerror(errno));
		goto out;
	}
	fill(abuf, 500, 9);
	memset(bbuf, 0, 1024);
	post_recv(r, 0xf1, bbuf, 1024, bmr);
	ibv_wr_start(xs);
	xs->wr_id = 0xf0;
	xs->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send_imm(xs, htobe32(0x55));
	ibv_wr_set_ud_addr(xs, ah, r->qp_num, 0x777);
	ibv_wr_set_sge(xs, amr->lkey, (uintptr_t)abuf, 500);
	check(ibv_wr_complete(xs) == 0, "ud: wr_complete");
	st = poll1(cs, &e, WAIT_MS);
	check(st == IBV_WC_SUCCESS && e.wr_id == 0xf0 && e.opcode == IBV_WC_SEND,
	      "ud: send completion (%d)", st);
	st = poll1(cr, &e, WAIT_MS);
	check(st == IBV_WC_SUCCESS && e.wr_id == 0xf1 && e.byte_len == 540 &&
	      e.src_qp == s->qp_num && e.qp_num == r->qp_num &&
	      (e.wc_flags & IBV_WC_GRH) && (e.wc_flags & IBV_WC_WITH_IMM) &&
	      be32toh(e.imm) == 0x55 && same(bbuf + 40, 500, 9),
	      "ud: wr_set_ud_addr delivers; GRH, imm, src_qp, byte_len %u, data",
	      e.byte_len);
out:
	ud_pair_free(ah, s, r);
	if (cs)
		ibv_destroy_cq(ibv_cq_ex_to_cq(cs));
	if (cr)
		ibv_destroy_cq(ibv_cq_ex_to_cq(cr));
}

/*
 * Reads in flight: query_qp reports the depths the QP was given; the
 * device's max_qp_rd_atom is accepted, one more is refused with EINVAL
 * and leaves the QP where it was.
 */
static void case_rd_atomic(const struct rc_attr *ra)
{
	struct ibv_device_attr da;
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;
	struct ibv_qp *q;
	int ret, err;

	ret = ibv_query_qp(qa, &a, IBV_QP_MAX_QP_RD_ATOMIC |
			   IBV_QP_MAX_DEST_RD_ATOMIC, &ia);
	check(!ret && a.max_rd_atomic == 4 && a.max_dest_rd_atomic == 4,
	      "query_qp: rd_atomic depths as set (%d: %u/%u)", ret,
	      a.max_rd_atomic, a.max_dest_rd_atomic);
	if (ibv_query_device(ctx, &da)) {
		check(0, "query_device (%s)", strerror(errno));
		return;
	}
	check(da.max_qp_rd_atom == 128 && da.max_qp_init_rd_atom == 128,
	      "max_qp_rd_atom and max_qp_init_rd_atom 128 (%d/%d)",
	      da.max_qp_rd_atom, da.max_qp_init_rd_atom);
	q = mk_qp(cqb, IBV_QPT_RC, IBV_QP_EX_WITH_SEND);
	rc_rd_atomic = da.max_qp_rd_atom + 1;
	errno = 0;
	ret = q ? rc_connect(q, qa->qp_num, 1, 1, ra) : 0;
	err = errno;
	check(ret && err == EINVAL && qp_state(q) == IBV_QPS_INIT,
	      "rd_atomic over max_qp_rd_atom: EINVAL, QP stays in INIT (%s)",
	      strerror(err));
	if (q)
		ibv_destroy_qp(q);
	q = mk_qp(cqb, IBV_QPT_RC, IBV_QP_EX_WITH_SEND);
	rc_rd_atomic = da.max_qp_rd_atom;
	ret = q ? rc_connect(q, qa->qp_num, 1, 1, ra) : -1;
	if (!ret)
		ret = ibv_query_qp(q, &a, IBV_QP_MAX_QP_RD_ATOMIC |
				   IBV_QP_MAX_DEST_RD_ATOMIC, &ia);
	check(!ret && a.max_rd_atomic == da.max_qp_rd_atom &&
	      a.max_dest_rd_atomic == da.max_qp_rd_atom,
	      "rd_atomic at max_qp_rd_atom: accepted and reported (%u/%u)",
	      a.max_rd_atomic, a.max_dest_rd_atomic);
	if (q)
		ibv_destroy_qp(q);
	rc_rd_atomic = 4;
}

int main(int argc, char **argv)
{
	const struct rc_attr ra = { ALL_ACCESS, 14, 7, 7, 12 };
	struct ibv_poll_cq_attr pattr = {};
	int ret = loop_open(argc, argv);

	if (ret) {
		if (ctx)
			check(0, "device has an IPv4 RoCEv2 GID");
		return ret;
	}
	abuf = aligned_alloc(4096, BUF);
	bbuf = aligned_alloc(4096, BUF);
	amr = pd && abuf ? ibv_reg_mr(pd, abuf, BUF, ALL_ACCESS) : NULL;
	bmr = pd && bbuf ? ibv_reg_mr(pd, bbuf, BUF, ALL_ACCESS) : NULL;
	check(amr && bmr, "PD and MRs");
	cqa = mk_cq();
	cqb = mk_cq();
	check(cqa && cqb, "two extended CQs (%s)", strerror(errno));
	qa = cqa ? mk_qp(cqa, IBV_QPT_RC, RC_OPS) : NULL;
	qb = cqb ? mk_qp(cqb, IBV_QPT_RC, IBV_QP_EX_WITH_SEND) : NULL;
	check(qa && qb, "two RC QPs from create_qp_ex with send_ops_flags (%s)",
	      strerror(errno));
	xa = qa ? ibv_qp_to_qp_ex(qa) : NULL;
	check(xa != NULL, "ibv_qp_to_qp_ex gives the extended QP");
	if (!xa || !qb || rc_connect(qa, qb->qp_num, 0x42, 0x42, &ra) ||
	    rc_connect(qb, qa->qp_num, 0x42, 0x42, &ra)) {
		check(0, "connect the QPs");
		return 1;
	}
	check(ibv_start_poll(cqa, &pattr) == ENOENT,
	      "start_poll on an empty CQ: ENOENT");

	case_opcodes();
	case_sge_inline();
	case_batch();
	case_create();
	case_ud();
	case_rd_atomic(&ra);

	ibv_destroy_qp(qa);
	ibv_destroy_qp(qb);
	ibv_destroy_cq(ibv_cq_ex_to_cq(cqa));
	ibv_destroy_cq(ibv_cq_ex_to_cq(cqb));
	ibv_dereg_mr(amr);
	ibv_dereg_mr(bmr);
	free(abuf);
	free(bbuf);
	return loop_close();
}
