// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * One device talking to itself through its IPv4 RoCEv2 GID: the setup
 * and waiting the traffic tests share (access_test, srq_test, wr_test).
 */

#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#include "loopback.h"

struct ibv_context *ctx;
struct ibv_pd *pd;
int gid_idx;
int rc_rd_atomic = 4;
enum ibv_mtu mtu;

/* The IPv4 (v4-mapped) RoCEv2 GID: the one UDP/IPv4 traffic leaves by. */
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

int loop_open(int argc, char **argv)
{
	struct ibv_port_attr pa;

	ctx = open_arg(argc, argv);
	if (!ctx)
		return 1;
	gid_idx = find_gid();
	if (gid_idx < 0 || ibv_query_port(ctx, 1, &pa))
		return 1;
	mtu = pa.active_mtu;
	pd = ibv_alloc_pd(ctx);
	return 0;
}

int loop_close(void)
{
	ibv_dealloc_pd(pd);
	check(ibv_close_device(ctx) == 0, "close the device");
	return tap_done();
}

int rc_connect(struct ibv_qp *qp, uint32_t dqpn, uint32_t sq_psn,
	       uint32_t rq_psn, const struct rc_attr *o)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = o->access,
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = mtu;
	a.dest_qp_num = dqpn;
	a.rq_psn = rq_psn;
	a.max_dest_rd_atomic = rc_rd_atomic;
	a.min_rnr_timer = o->min_rnr_timer;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.sgid_index = gid_idx;
	a.ah_attr.grh.hop_limit = 64;
	if (ibv_query_gid(ctx, 1, gid_idx, &a.ah_attr.grh.dgid) ||
	    ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = o->timeout;
	a.retry_cnt = o->retry_cnt;
	a.rnr_retry = o->rnr_retry;
	a.sq_psn = sq_psn;
	a.max_rd_atomic = rc_rd_atomic;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			     IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

static int ud_ready(struct ibv_qp *qp, uint32_t qkey)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				 .qkey = qkey };

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_QKEY))
		return -1;
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
		return -1;
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
}

static struct ibv_ah *loop_ah(void)
{
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1 };

	aa.grh.sgid_index = gid_idx;
	aa.grh.hop_limit = 64;
	if (ibv_query_gid(ctx, 1, gid_idx, &aa.grh.dgid))
		return NULL;
	return ibv_create_ah(pd, &aa);
}

int ud_pair_ready(struct ibv_qp *s, struct ibv_qp *r, uint32_t qkey,
		  struct ibv_ah **ah)
{
	*ah = loop_ah();
	if (!*ah || ud_ready(s, qkey) || ud_ready(r, qkey))
		return -1;
	return 0;
}

static struct ibv_qp *spec_qp(const struct pair_spec *s, struct ibv_cq *cq,
			      bool b)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = s->cap[b],
	};

	return s->mk_qp ? s->mk_qp(cq, b) : ibv_create_qp(pd, &ia);
}

int pair_make(struct pair *p, const struct pair_spec *s)
{
	int err;

	memset(p, 0, sizeof(*p));
	p->cqa = ibv_create_cq(ctx, s->cqe, NULL, NULL, 0);
	p->cqb = ibv_create_cq(ctx, s->cqe, NULL, NULL, 0);
	if (p->cqa && p->cqb) {
		p->a = spec_qp(s, p->cqa, false);
		p->b = spec_qp(s, p->cqb, true);
	}
	if (p->a && p->b &&
	    !rc_connect(p->a, s->a_dqpn ? s->a_dqpn : p->b->qp_num, s->psn_a,
			s->psn_b, &s->ra) &&
	    !rc_connect(p->b, p->a->qp_num, s->psn_b, s->psn_a, &s->rb))
		return 0;
	err = errno;
	pair_free(p);
	errno = err;
	return -1;
}

void pair_free(struct pair *p)
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

void ud_pair_free(struct ibv_ah *ah, struct ibv_qp *s, struct ibv_qp *r)
{
	if (ah)
		ibv_destroy_ah(ah);
	if (s)
		ibv_destroy_qp(s);
	if (r)
		ibv_destroy_qp(r);
}

enum ibv_qp_state qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia))
		return (enum ibv_qp_state)-1;
	return a.qp_state;
}

const char *st(int s)
{
	return s < 0 ? "(none: timed out)" : ibv_wc_status_str(s);
}

int wait_wc(struct ibv_cq *cq, struct ibv_wc *wc, int ms)
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
		usleep(200);
	}
	memset(wc, 0, sizeof(*wc));
	wc->status = (enum ibv_wc_status)-1;
	return -1;
}

bool cq_quiet(struct ibv_cq *cq, int ms, const char *what)
{
	struct ibv_wc wc;
	int s = wait_wc(cq, &wc, ms);

	if (s >= 0)
		note("%s: unexpected completion %s wr_id %#llx", what, st(s),
		     (unsigned long long)wc.wr_id);
	return s < 0;
}
