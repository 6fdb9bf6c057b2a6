// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Memory windows of a MetaRoCE device, through libibverbs.
 *
 *   mw_test DEVICE
 *
 * RC QP A (the requester) reads and writes the memory of QP B (the
 * responder) through windows bound on B, both QPs on the one device,
 * connected through its IPv4 RoCEv2 GID (self-loopback). The target is an
 * MR with IB_ACCESS_MW_BIND and local write only, so every remote access
 * must come through a window. After every operation the whole target is
 * compared with what it must hold: bytes outside a window, or written by
 * a refused request, must not have changed. A refused request breaks the
 * connection (IBV_WC_REM_ACCESS_ERR), so the next case gets a fresh pair;
 * type 2 windows stay bound to the QP number they were bound on.
 *
 * Cases: type 1 and type 2 bind, Write, Read and atomics inside and
 * outside the window and without the right; rebinding a type 1 window
 * moves it and retires the old rkey; zero-based type 2 windows; a type 2
 * window used from another QP; ibv_wr_bind_mw; LOCAL_INV and SEND_WITH_INV of a type 2
 * window, and LOCAL_INV of a type 1 one (an error); bind errors (MR
 * without MW_BIND, range outside the MR, writable window on a read-only
 * MR, rebinding a bound type 2) give IBV_WC_MW_BIND_ERR and the QP in the
 * error state; dealloc of bound windows; dereg of an MR with a window
 * bound (refused until the window is gone). Prints TAP; exits non-zero if
 * any check fails. Every wait is bounded.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

#include "loopback.h"

#define PG		4096
#define TGT_LEN		(4 * PG)	/* the target MR: pages 0..3 */
#define WIN		PG		/* windows cover one page */
#define LOC_LEN		(2 * PG)
#define QP_ACCESS	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)
#define RW		(IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE)

static char *tgt;			/* B's memory */
static char exp_tgt[TGT_LEN];		/* what tgt must hold */
static char *loc;			/* A's buffer */
static struct ibv_mr *tgt_mr, *loc_mr;
static bool atomics;

static struct pair p;

static uint64_t T(size_t off)
{
	return (uintptr_t)tgt + off;
}

/* B binds through ibv_post_send and through ibv_wr_bind_mw. */
static struct ibv_qp *mk_qp(struct ibv_cq *cq, bool ex)
{
	struct ibv_qp_init_attr_ex ia = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 32, .max_recv_wr = 32,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = pd,
	};

	if (ex) {
		ia.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		ia.send_ops_flags = IBV_QP_EX_WITH_SEND |
				    IBV_QP_EX_WITH_BIND_MW;
	}
	return ibv_create_qp_ex(ctx, &ia);
}

static bool pair_new(struct pair *q)
{
	const struct pair_spec spec = {
		.cqe = 64, .mk_qp = mk_qp, .psn_a = 0x100, .psn_b = 0x200,
		.ra = { QP_ACCESS, 14, 7, 7, 12 },
		.rb = { QP_ACCESS, 14, 7, 7, 12 },
	};

	if (pair_make(q, &spec)) {
		note("pair: %s", strerror(errno));
		return false;
	}
	return true;
}

/* A fresh pair for the next case: a refused request broke the last one. */
static void fresh(void)
{
	pair_free(&p);
	if (!pair_new(&p))
		check(0, "a fresh connected pair");
}

static bool tgt_as_expected(void)
{
	size_t i;

	for (i = 0; i < TGT_LEN; i++)
		if (tgt[i] != exp_tgt[i]) {
			note("target byte %zu is %#x, should be %#x", i,
			     (uint8_t)tgt[i], (uint8_t)exp_tgt[i]);
			return false;
		}
	return true;
}

static void pattern(char *buf, size_t n, uint8_t seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		buf[i] = (char)(seed + i * 13);
}

/* Post one signaled WR on qp and wait for its completion on cq. */
static int post_wait(struct ibv_qp *qp, struct ibv_cq *cq,
		     struct ibv_send_wr *wr, struct ibv_wc *wc)
{
	struct ibv_send_wr *bad;
	int err;

	wr->send_flags |= IBV_SEND_SIGNALED;
	err = ibv_post_send(qp, wr, &bad);
	if (err) {
		note("ibv_post_send: %s", strerror(err));
		memset(wc, 0, sizeof(*wc));
		return -1;
	}
	return wait_wc(cq, wc, WAIT_MS);
}

/* A Write or Read of len bytes between loc and the target address va. */
static int rdma(enum ibv_wr_opcode op, uint32_t rkey, uint64_t va,
		uint32_t len)
{
	struct ibv_sge sge = { (uintptr_t)loc, len, loc_mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = 1, .opcode = op, .sg_list = &sge, .num_sge = 1,
		.wr.rdma = { .remote_addr = va, .rkey = rkey },
	};
	struct ibv_wc wc;

	return post_wait(p.a, p.cqa, &wr, &wc);
}

/* Write len pattern bytes to va; on success they are expected at off. */
static int write_at(uint32_t rkey, uint64_t va, size_t off, uint32_t len,
		    uint8_t seed)
{
	int s;

	pattern(loc, len, seed);
	s = rdma(IBV_WR_RDMA_WRITE, rkey, va, len);
	if (s == IBV_WC_SUCCESS)
		memcpy(exp_tgt + off, loc, len);
	return s;
}

/* Read len bytes from va: success and the bytes of the target at off. */
static bool read_ok(uint32_t rkey, uint64_t va, size_t off, uint32_t len)
{
	int s;

	memset(loc, 0, len);
	s = rdma(IBV_WR_RDMA_READ, rkey, va, len);
	if (s != IBV_WC_SUCCESS) {
		note("read: %s", st(s));
		return false;
	}
	return !memcmp(loc, tgt + off, len);
}

/* A type 2 bind WR (or a type 1 one for a window of the ibv_mw_bind). */
static int bind2(struct ibv_qp *qp, struct ibv_cq *cq, struct ibv_mw *mw,
		 uint32_t rkey, struct ibv_mr *mr, uint64_t addr,
		 uint64_t len, int access)
{
	struct ibv_send_wr wr = {
		.wr_id = 2, .opcode = IBV_WR_BIND_MW,
		.bind_mw = {
			.mw = mw, .rkey = rkey,
			.bind_info = { .mr = mr, .addr = addr, .length = len,
				       .mw_access_flags = access },
		},
	};
	struct ibv_wc wc;
	int s = post_wait(qp, cq, &wr, &wc);

	if (s >= 0 && wc.opcode != IBV_WC_BIND_MW && s == IBV_WC_SUCCESS)
		note("bind completion opcode %d", wc.opcode);
	return s;
}

/* ibv_bind_mw of a type 1 window on B; mw->rkey is the new key after. */
static int bind1(struct ibv_mw *mw, struct ibv_mr *mr, uint64_t addr,
		 uint64_t len, int access)
{
	struct ibv_mw_bind b = {
		.wr_id = 3, .send_flags = IBV_SEND_SIGNALED,
		.bind_info = { .mr = mr, .addr = addr, .length = len,
			       .mw_access_flags = access },
	};
	uint32_t old = mw->rkey;
	struct ibv_wc wc;
	int err = ibv_bind_mw(p.b, mw, &b);

	if (err) {
		note("ibv_bind_mw: %s", strerror(err));
		return -1;
	}
	err = wait_wc(p.cqb, &wc, WAIT_MS);
	if (err != IBV_WC_SUCCESS)
		mw->rkey = old;		/* the verbs leave that to us */
	else if (wc.opcode != IBV_WC_BIND_MW)
		note("bind completion opcode %d", wc.opcode);
	return err;
}

/* A type 2 bind on B through the extended post API. */
static int wr_bind(struct ibv_mw *mw, uint32_t rkey, struct ibv_mr *mr,
		   uint64_t addr, uint64_t len, int access)
{
	struct ibv_mw_bind_info bi = { .mr = mr, .addr = addr, .length = len,
				       .mw_access_flags = access };
	struct ibv_qp_ex *x = ibv_qp_to_qp_ex(p.b);
	struct ibv_wc wc;
	int err;

	if (!x) {
		note("B has no ibv_qp_ex");
		return -1;
	}
	ibv_wr_start(x);
	x->wr_id = 9;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_bind_mw(x, mw, rkey, &bi);
	err = ibv_wr_complete(x);
	if (err) {
		note("ibv_wr_complete: %s", strerror(err));
		return -1;
	}
	err = wait_wc(p.cqb, &wc, WAIT_MS);
	if (err == IBV_WC_SUCCESS && wc.opcode != IBV_WC_BIND_MW)
		note("bind completion opcode %d", wc.opcode);
	return err;
}

static int local_inv(struct ibv_qp *qp, struct ibv_cq *cq, uint32_t rkey)
{
	struct ibv_send_wr wr = {
		.wr_id = 4, .opcode = IBV_WR_LOCAL_INV,
		.invalidate_rkey = rkey,
	};
	struct ibv_wc wc;

	return post_wait(qp, cq, &wr, &wc);
}

static void case_caps(void)
{
	struct ibv_device_attr da;

	if (ibv_query_device(ctx, &da)) {
		check(0, "ibv_query_device");
		return;
	}
	check(da.max_mw > 0 &&
	      (da.device_cap_flags & IBV_DEVICE_MEM_WINDOW) &&
	      (da.device_cap_flags & IBV_DEVICE_MEM_WINDOW_TYPE_2B),
	      "device: max_mw %d, MEM_WINDOW and MEM_WINDOW_TYPE_2B",
	      da.max_mw);
	atomics = da.atomic_cap != IBV_ATOMIC_NONE;
}

static void case_type1(void)
{
	struct ibv_mw *mw = ibv_alloc_mw(pd, IBV_MW_TYPE_1);
	uint32_t old;
	int s;

	check(mw && mw->type == IBV_MW_TYPE_1, "alloc type 1 MW (%s)",
	      mw ? "ok" : strerror(errno));
	if (!mw)
		return;
	check((mw->rkey >> 8) != (tgt_mr->rkey >> 8) &&
	      (mw->rkey >> 8) != (loc_mr->rkey >> 8),
	      "MW rkey %#x does not share an index with the MRs", mw->rkey);

	s = write_at(mw->rkey, T(PG), PG, 64, 1);
	check(s == IBV_WC_REM_ACCESS_ERR && tgt_as_expected(),
	      "write through an unbound type 1 MW: REM_ACCESS_ERR, target untouched (%s)",
	      st(s));
	fresh();
	s = write_at(tgt_mr->rkey, T(PG), PG, 64, 2);
	check(s == IBV_WC_REM_ACCESS_ERR && tgt_as_expected(),
	      "write with the MR's own rkey (no remote rights): REM_ACCESS_ERR (%s)",
	      st(s));
	fresh();

	old = mw->rkey;
	s = bind1(mw, tgt_mr, T(PG), WIN, RW);
	check(s == IBV_WC_SUCCESS && mw->rkey != old &&
	      (mw->rkey >> 8) == (old >> 8),
	      "ibv_bind_mw page 1 RW: %s, rkey %#x -> %#x", st(s), old,
	      mw->rkey);
	s = write_at(mw->rkey, T(PG), PG, WIN, 3);
	check(s == IBV_WC_SUCCESS && tgt_as_expected(),
	      "write the whole window: %s, only the window changed", st(s));
	check(read_ok(mw->rkey, T(PG) + 100, PG + 100, 1000),
	      "read inside the window gives the target's bytes");
	s = write_at(mw->rkey, T(2 * PG) - 8, 2 * PG - 8, 16, 4);
	check(s == IBV_WC_REM_ACCESS_ERR && tgt_as_expected(),
	      "write straddling the window's end: REM_ACCESS_ERR, no byte written (%s)",
	      st(s));
	fresh();
	s = write_at(mw->rkey, T(PG) - 4, PG - 4, 4, 5);
	check(s == IBV_WC_REM_ACCESS_ERR && tgt_as_expected(),
	      "write just before the window: REM_ACCESS_ERR, untouched (%s)",
	      st(s));
	fresh();

	/* Rebind: read-only, page 2. The old key and place are gone. */
	old = mw->rkey;
	s = bind1(mw, tgt_mr, T(2 * PG), WIN, IBV_ACCESS_REMOTE_READ);
	check(s == IBV_WC_SUCCESS && mw->rkey != old,
	      "rebind type 1 to page 2 read-only: %s", st(s));
	check(read_ok(mw->rkey, T(2 * PG), 2 * PG, WIN),
	      "read through the moved window");
	s = rdma(IBV_WR_RDMA_READ, mw->rkey, T(PG), 64);
	check(s == IBV_WC_REM_ACCESS_ERR,
	      "read of the old place with the new rkey: REM_ACCESS_ERR (%s)",
	      st(s));
	fresh();
	s = rdma(IBV_WR_RDMA_READ, old, T(2 * PG), 64);
	check(s == IBV_WC_REM_ACCESS_ERR,
	      "read with the rkey of before the rebind: REM_ACCESS_ERR (%s)",
	      st(s));
	fresh();
	s = write_at(mw->rkey, T(2 * PG), 2 * PG, 64, 6);
	check(s == IBV_WC_REM_ACCESS_ERR && tgt_as_expected(),
	      "write through the read-only window: REM_ACCESS_ERR, untouched (%s)",
	      st(s));
	fresh();

	s = local_inv(p.b, p.cqb, mw->rkey);
	check(s != IBV_WC_SUCCESS && s != -1,
	      "LOCAL_INV of a type 1 MW fails (%s)", st(s));
	fresh();
	check(read_ok(mw->rkey, T(2 * PG), 2 * PG, 64),
	      "the type 1 window still works after the refused LOCAL_INV");

	/* Dealloc while bound; the rkey then reaches nothing. */
	old = mw->rkey;
	check(ibv_dealloc_mw(mw) == 0, "dealloc a bound type 1 MW");
	s = rdma(IBV_WR_RDMA_READ, old, T(2 * PG), 64);
	check(s == IBV_WC_REM_ACCESS_ERR,
	      "read with a deallocated MW's rkey: REM_ACCESS_ERR (%s)", st(s));
	fresh();
}

static void case_type2(void)
{
	struct ibv_mw *mw = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
	struct pair other;
	uint32_t key;
	int s;

	check(mw && mw->type == IBV_MW_TYPE_2, "alloc type 2 MW (%s)",
	      mw ? "ok" : strerror(errno));
	if (!mw)
		return;
	key = ibv_inc_rkey(mw->rkey);
	s = bind2(p.b, p.cqb, mw, key, tgt_mr, T(PG), WIN,
		  RW | IBV_ACCESS_REMOTE_ATOMIC);
	check(s == IBV_WC_SUCCESS, "IBV_WR_BIND_MW type 2 on B, page 1: %s",
	      st(s));
	s = write_at(key, T(PG) + 8, PG + 8, 512, 7);
	check(s == IBV_WC_SUCCESS && tgt_as_expected(),
	      "write through the type 2 window: %s, only those bytes changed",
	      st(s));
	check(read_ok(key, T(PG), PG, WIN), "read the whole type 2 window");
	if (atomics) {
		struct ibv_sge sge = { (uintptr_t)loc, 8, loc_mr->lkey };
		struct ibv_send_wr wr = {
			.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD,
			.sg_list = &sge, .num_sge = 1,
			.wr.atomic = { .remote_addr = T(PG + 64), .rkey = key,
				       .compare_add = 5 },
		};
		struct ibv_wc wc;
		uint64_t before, after;

		memcpy(&before, exp_tgt + PG + 64, 8);
		s = post_wait(p.a, p.cqa, &wr, &wc);
		after = before + 5;
		memcpy(exp_tgt + PG + 64, &after, 8);
		check(s == IBV_WC_SUCCESS && !memcmp(loc, &before, 8) &&
		      tgt_as_expected(),
		      "fetch-and-add through the window: %s", st(s));
	}
	s = write_at(key, T(2 * PG), 2 * PG, 8, 8);
	check(s == IBV_WC_REM_ACCESS_ERR && tgt_as_expected(),
	      "write past the type 2 window: REM_ACCESS_ERR, untouched (%s)",
	      st(s));

	/* The window is B's: B is gone now, bound windows stay on its QPN. */
	if (!pair_new(&other)) {
		check(0, "a second pair");
		return;
	}
	pair_free(&p);
	p = other;
	s = write_at(key, T(PG), PG, 8, 9);
	check(s == IBV_WC_REM_ACCESS_ERR && tgt_as_expected(),
	      "write through a type 2 window bound to another QP: REM_ACCESS_ERR (%s)",
	      st(s));
	fresh();

	s = bind2(p.b, p.cqb, mw, ibv_inc_rkey(key), tgt_mr, T(2 * PG), WIN,
		  RW);
	check(s == IBV_WC_MW_BIND_ERR && qp_state(p.b) == IBV_QPS_ERR,
	      "rebind of a bound type 2 MW: MW_BIND_ERR, QP in error (%s)",
	      st(s));
	fresh();
	s = local_inv(p.b, p.cqb, key);
	check(s == IBV_WC_SUCCESS, "LOCAL_INV of the type 2 MW: %s", st(s));
	s = rdma(IBV_WR_RDMA_READ, key, T(PG), 8);
	check(s == IBV_WC_REM_ACCESS_ERR,
	      "read after LOCAL_INV: REM_ACCESS_ERR (%s)", st(s));
	fresh();

	/* Zero-based: the requester addresses from 0. */
	key = ibv_inc_rkey(key);
	s = bind2(p.b, p.cqb, mw, key, tgt_mr, T(2 * PG), WIN,
		  RW | IBV_ACCESS_ZERO_BASED);
	check(s == IBV_WC_SUCCESS, "bind zero-based type 2 at page 2: %s",
	      st(s));
	s = write_at(key, 16, 2 * PG + 16, 100, 10);
	check(s == IBV_WC_SUCCESS && tgt_as_expected(),
	      "zero-based write at 16 lands at page 2 + 16: %s", st(s));
	check(read_ok(key, WIN - 32, 3 * PG - 32, 32),
	      "zero-based read of the window's last bytes");
	s = write_at(key, WIN - 4, 3 * PG - 4, 8, 11);
	check(s == IBV_WC_REM_ACCESS_ERR && tgt_as_expected(),
	      "zero-based write past the end: REM_ACCESS_ERR, untouched (%s)",
	      st(s));
	fresh();

	/* The zero-based binding is on the old B: LOCAL_INV from this one. */
	s = local_inv(p.b, p.cqb, key);
	check(s == IBV_WC_SUCCESS, "LOCAL_INV of the zero-based window: %s",
	      st(s));

	/* SEND_WITH_INV from A invalidates the window bound on B. */
	key = ibv_inc_rkey(key);
	s = bind2(p.b, p.cqb, mw, key, tgt_mr, T(PG), WIN, RW);
	check(s == IBV_WC_SUCCESS, "bind type 2 again after LOCAL_INV: %s",
	      st(s));
	{
		struct ibv_sge rs = { (uintptr_t)loc + PG, 64, loc_mr->lkey };
		struct ibv_recv_wr rwr = { .wr_id = 7, .sg_list = &rs,
					   .num_sge = 1 }, *rbad;
		struct ibv_sge ss = { (uintptr_t)loc, 16, loc_mr->lkey };
		struct ibv_send_wr wr = {
			.wr_id = 8, .opcode = IBV_WR_SEND_WITH_INV,
			.sg_list = &ss, .num_sge = 1, .invalidate_rkey = key,
		};
		struct ibv_wc wc, rwc;

		ibv_post_recv(p.b, &rwr, &rbad);
		s = post_wait(p.a, p.cqa, &wr, &wc);
		wait_wc(p.cqb, &rwc, WAIT_MS);
		check(s == IBV_WC_SUCCESS && rwc.status == IBV_WC_SUCCESS &&
		      (rwc.wc_flags & IBV_WC_WITH_INV) &&
		      rwc.invalidated_rkey == key,
		      "SEND_WITH_INV of the window: %s, receiver %s, rkey %#x",
		      st(s), st(rwc.status), rwc.invalidated_rkey);
	}
	s = write_at(key, T(PG), PG, 8, 12);
	check(s == IBV_WC_REM_ACCESS_ERR && tgt_as_expected(),
	      "write after SEND_WITH_INV: REM_ACCESS_ERR, untouched (%s)",
	      st(s));
	fresh();

	/* Bound (ibv_wr_bind_mw), used, then deallocated. */
	key = ibv_inc_rkey(key);
	s = wr_bind(mw, key, tgt_mr, T(3 * PG), WIN, RW);
	check(s == IBV_WC_SUCCESS, "ibv_wr_bind_mw type 2 at page 3: %s",
	      st(s));
	s = write_at(key, T(3 * PG) + 200, 3 * PG + 200, 300, 14);
	check(s == IBV_WC_SUCCESS && tgt_as_expected(),
	      "write through the ibv_wr_bind_mw window: %s", st(s));
	check(ibv_dealloc_mw(mw) == 0, "dealloc a bound type 2 MW");
	s = write_at(key, T(PG), PG, 8, 13);
	check(s == IBV_WC_REM_ACCESS_ERR && tgt_as_expected(),
	      "write through the deallocated window: REM_ACCESS_ERR (%s)",
	      st(s));
	fresh();
}

/* One bind that must fail with MW_BIND_ERR and break B. */
static void bind_err(struct ibv_mw *mw, struct ibv_mr *mr, uint64_t addr,
		     uint64_t len, int access, const char *what)
{
	int s = bind2(p.b, p.cqb, mw, ibv_inc_rkey(mw->rkey), mr, addr, len,
		      access);

	check(s == IBV_WC_MW_BIND_ERR && qp_state(p.b) == IBV_QPS_ERR,
	      "bind %s: MW_BIND_ERR and the QP in error (%s)", what, st(s));
	fresh();
}

static void case_bind_errors(void)
{
	char *buf = aligned_alloc(PG, PG);
	struct ibv_mr *nobind = buf ? ibv_reg_mr(pd, buf, PG,
						 IBV_ACCESS_LOCAL_WRITE) : NULL;
	struct ibv_mr *ro = buf ? ibv_reg_mr(pd, buf, PG,
					     IBV_ACCESS_MW_BIND) : NULL;
	struct ibv_mw *mw = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
	struct ibv_pd *pd2 = ibv_alloc_pd(ctx);
	struct ibv_mw *mw2 = pd2 ? ibv_alloc_mw(pd2, IBV_MW_TYPE_2) : NULL;
	int s;

	check(nobind && ro && mw && mw2, "MRs, MWs and a second PD for the bind errors");
	if (!nobind || !ro || !mw || !mw2)
		goto out;
	bind_err(mw, nobind, (uintptr_t)buf, 64, IBV_ACCESS_REMOTE_READ,
		 "to an MR without MW_BIND");
	s = wr_bind(mw, ibv_inc_rkey(mw->rkey), nobind, (uintptr_t)buf, 64,
		    IBV_ACCESS_REMOTE_READ);
	check(s == IBV_WC_MW_BIND_ERR && qp_state(p.b) == IBV_QPS_ERR,
	      "ibv_wr_bind_mw to an MR without MW_BIND: MW_BIND_ERR, QP in error (%s)",
	      st(s));
	fresh();
	bind_err(mw, tgt_mr, T(3 * PG), 2 * PG, IBV_ACCESS_REMOTE_READ,
		 "past the MR's end");
	bind_err(mw, tgt_mr, T(0) - 64, 128, IBV_ACCESS_REMOTE_READ,
		 "starting before the MR");
	bind_err(mw, ro, (uintptr_t)buf, 64, IBV_ACCESS_REMOTE_WRITE,
		 "writable window on an MR without local write");
	bind_err(mw2, tgt_mr, T(PG), 64, IBV_ACCESS_REMOTE_READ,
		 "an MW of another PD");

	/* After all that, the window still binds and works. */
	s = bind2(p.b, p.cqb, mw, ibv_inc_rkey(mw->rkey), tgt_mr, T(PG), 64,
		  IBV_ACCESS_REMOTE_READ);
	check(s == IBV_WC_SUCCESS && read_ok(ibv_inc_rkey(mw->rkey), T(PG),
					     PG, 64),
	      "a good bind after the failed ones works (%s)", st(s));
out:
	if (mw)
		ibv_dealloc_mw(mw);
	if (mw2)
		ibv_dealloc_mw(mw2);
	if (pd2)
		ibv_dealloc_pd(pd2);
	if (nobind)
		ibv_dereg_mr(nobind);
	if (ro)
		ibv_dereg_mr(ro);
	free(buf);
}

static void case_dereg(void)
{
	char *buf = aligned_alloc(PG, PG);
	struct ibv_mr *mr = buf ? ibv_reg_mr(pd, buf, PG,
					     IBV_ACCESS_LOCAL_WRITE |
					     IBV_ACCESS_MW_BIND) : NULL;
	struct ibv_mw *mw = ibv_alloc_mw(pd, IBV_MW_TYPE_1);
	int s, err;

	check(mr && mw, "an MR and a type 1 MW for dereg");
	if (!mr || !mw)
		goto out;
	memset(buf, 0x5a, PG);
	s = bind1(mw, mr, (uintptr_t)buf, PG, IBV_ACCESS_REMOTE_READ);
	check(s == IBV_WC_SUCCESS, "bind it: %s", st(s));
	err = ibv_dereg_mr(mr);
	check(err == EINVAL, "dereg of an MR with a bound MW refused: %s",
	      strerror(err));
	if (!err) {
		mr = NULL;
		goto out;
	}
	memset(loc, 0, 64);
	s = rdma(IBV_WR_RDMA_READ, mw->rkey, (uintptr_t)buf + 8, 64);
	check(s == IBV_WC_SUCCESS && loc[0] == 0x5a && loc[63] == 0x5a,
	      "the MR still serves the window: %s", st(s));
	check(ibv_dealloc_mw(mw) == 0, "dealloc the MW");
	mw = NULL;
	err = ibv_dereg_mr(mr);
	check(err == 0, "then the MR deregisters: %s", strerror(err));
	if (!err)
		mr = NULL;
out:
	if (mw)
		ibv_dealloc_mw(mw);
	if (mr)
		ibv_dereg_mr(mr);
	free(buf);
}

/*
 * MW_EXIT_BOUND set: leave windows bound to the target MR and exit without
 * freeing anything; the kernel must tear it all down (the VM script then
 * checks that no MR is left and that the log is clean).
 */
static int exit_bound(void)
{
	struct ibv_mw *mw1 = ibv_alloc_mw(pd, IBV_MW_TYPE_1);
	struct ibv_mw *mw2 = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
	int s1 = mw1 ? bind1(mw1, tgt_mr, T(PG), WIN, RW) : -1;
	int s2 = mw2 ? bind2(p.b, p.cqb, mw2, ibv_inc_rkey(mw2->rkey), tgt_mr,
			     T(2 * PG), WIN, RW) : -1;

	check(s1 == IBV_WC_SUCCESS && s2 == IBV_WC_SUCCESS,
	      "exit with a type 1 and a type 2 window bound (%s, %s)", st(s1),
	      st(s2));
	return tap_done();
}

int main(int argc, char **argv)
{
	int ret = loop_open(argc, argv);

	if (ret) {
		if (ctx)
			check(0, "device has an IPv4 RoCEv2 GID");
		return ret;
	}
	tgt = aligned_alloc(PG, TGT_LEN);
	loc = aligned_alloc(PG, LOC_LEN);
	if (tgt && loc) {
		pattern(tgt, TGT_LEN, 0x30);
		memcpy(exp_tgt, tgt, TGT_LEN);
		tgt_mr = ibv_reg_mr(pd, tgt, TGT_LEN, IBV_ACCESS_LOCAL_WRITE |
				    IBV_ACCESS_MW_BIND);
		loc_mr = ibv_reg_mr(pd, loc, LOC_LEN, IBV_ACCESS_LOCAL_WRITE);
	}
	check(tgt_mr && loc_mr, "target MR (local write, MW bind) and local MR");
	if (!tgt_mr || !loc_mr || !pair_new(&p)) {
		check(0, "a connected pair");
		return loop_close();
	}
	case_caps();
	case_type1();
	case_type2();
	case_bind_errors();
	case_dereg();
	check(tgt_as_expected(), "the target holds exactly what was written");
	if (getenv("MW_EXIT_BOUND"))
		return exit_bound();

	pair_free(&p);
	ibv_dereg_mr(tgt_mr);
	ibv_dereg_mr(loc_mr);
	free(tgt);
	free(loc);
	return loop_close();
}
