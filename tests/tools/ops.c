// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * mroce-verify: the test engine. The client drives every message in
 * lockstep with the server over control SENDs on the same QP:
 *
 *   client                         server
 *   PREP(op, size, seed, ...)  ->  arm: post the scatter recv, paint
 *                                  canaries, fill the READ source, or
 *                                  seed the atomic slot
 *                              <-  READY
 *   the data operation         ->  (SEND / WRITE / READ / ATOMIC)
 *   CHECK(expected)            ->  verify bytes, canaries, imm, length
 *                              <-  RESULT(corrupt bytes, status)
 *
 * RC ordering guarantees the data is placed before CHECK is received.
 * READ data and atomic return values are verified on the client.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "mverify.h"

#define WR_CTRL		1
#define WR_DATA		2
#define ATOMIC_CHAIN	8

struct rng { u64 s; };

static u64 mix(u64 z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static u64 rnd(struct rng *r)
{
	r->s += 0x9e3779b97f4a7c15ull;
	return mix(r->s);
}

/* Pattern byte at offset off of stream ps: random access, 8 bytes a block. */
static void pat_fill(u8 *dst, u64 ps, size_t off, size_t len)
{
	u64 blk = ~0ull, v = 0;
	size_t i, o;

	for (i = 0; i < len; i++) {
		o = off + i;
		if ((o >> 3) != blk) {
			blk = o >> 3;
			v = mix(ps + blk);
		}
		dst[i] = v >> ((o & 7) * 8);
	}
}

static size_t pat_check(const u8 *src, u64 ps, size_t off, size_t len,
			long *first)
{
	u64 blk = ~0ull, v = 0;
	size_t i, o, bad = 0;

	for (i = 0; i < len; i++) {
		o = off + i;
		if ((o >> 3) != blk) {
			blk = o >> 3;
			v = mix(ps + blk);
		}
		if (src[i] != (u8)(v >> ((o & 7) * 8))) {
			if (!bad && *first < 0)
				*first = o;
			bad++;
		}
	}
	return bad;
}

static size_t canary_check(const u8 *p, size_t len)
{
	size_t i, bad = 0;

	for (i = 0; i < len; i++)
		bad += p[i] != MV_CANARY;
	return bad;
}

/* Split size bytes into up to nmax pieces separated by odd gaps. */
static void plan_sges(struct mv_sge_plan *p, struct rng *r, size_t size, int nmax)
{
	size_t pos, left = size, len;
	int i;

	p->n = size ? 1 + rnd(r) % nmax : 0;
	if ((size_t)p->n > size)
		p->n = size;
	p->start = rnd(r) % 64;
	pos = p->start;
	for (i = 0; i < p->n; i++) {
		if (i == p->n - 1) {
			len = left;
		} else {
			len = 1 + rnd(r) % (2 * left / (p->n - i));
			if (len > left - (p->n - 1 - i))
				len = left - (p->n - 1 - i);
		}
		p->off[i] = pos;
		p->len[i] = len;
		left -= len;
		pos += len + 1 + rnd(r) % 63;
	}
	p->end = (p->n ? p->off[p->n - 1] + p->len[p->n - 1] : pos) + MV_TAIL;
}

static void plan_to_sge(struct mv_ep *ep, const struct mv_sge_plan *p,
			u8 *base, struct ibv_sge *sge)
{
	int i;

	for (i = 0; i < p->n; i++) {
		sge[i].addr = (uintptr_t)(base + p->off[i]);
		sge[i].length = p->len[i];
		sge[i].lkey = ep->mr->lkey;
	}
}

/* Verify a scattered message in base against plan and its canaries. */
static size_t plan_check(const struct mv_sge_plan *p, const u8 *base, u64 ps,
			 long *first)
{
	size_t bad = 0, logical = 0, pos = p->start;
	int i;

	for (i = 0; i < p->n; i++) {
		bad += canary_check(base + pos, p->off[i] - pos);
		bad += pat_check(base + p->off[i], ps, logical, p->len[i], first);
		logical += p->len[i];
		pos = p->off[i] + p->len[i];
	}
	return bad + canary_check(base + pos, p->end - pos);
}

int mv_wait_wc(struct mv_ep *ep, bool recv, struct ibv_wc *wc, double tmo)
{
	struct ibv_comp_channel *ch = recv ? ep->rch : ep->sch;
	struct ibv_cq *cq = recv ? ep->rcq : ep->scq, *ev_cq;
	double end = now_s() + tmo;
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	void *ev_ctx;
	int n, armed = 0, ms;

	for (;;) {
		n = ibv_poll_cq(cq, 1, wc);
		if (n < 0) {
			logmsg(ep, "ibv_poll_cq failed");
			ep->fatal = EX_FAIL;
			return -1;
		}
		if (n) {
			if (wc->status == IBV_WC_SUCCESS)
				return 0;
			logmsg(ep, "%s completion error: %s (wr_id %llu, vendor_err %#x)",
			       recv ? "recv" : "send", ibv_wc_status_str(wc->status),
			       (unsigned long long)wc->wr_id, wc->vendor_err);
			ep->fatal = EX_FAIL;
			return -1;
		}
		if (!armed) {
			ibv_req_notify_cq(cq, 0);
			armed = 1;
			continue;	/* poll again: closes the arming race */
		}
		ms = (int)((end - now_s()) * 1000);
		if (ms <= 0 || poll(&pfd, 1, ms) == 0) {
			logmsg(ep, "timed out after %.1fs waiting for a %s completion",
			       tmo, recv ? "recv" : "send");
			ep->fatal = EX_TIMEOUT;
			return -1;
		}
		if (!(pfd.revents & POLLIN))
			continue;
		if (ibv_get_cq_event(ch, &ev_cq, &ev_ctx) == 0)
			ibv_ack_cq_events(ev_cq, 1);
		armed = 0;
	}
}

static int post_send(struct mv_ep *ep, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad;
	int ret = ibv_post_send(ep->qp, wr, &bad);

	if (ret) {
		logmsg(ep, "ibv_post_send: %s", strerror(ret));
		ep->fatal = EX_FAIL;
	}
	return ret ? -1 : 0;
}

static int post_recv(struct mv_ep *ep, struct ibv_sge *sge, int n, u64 id)
{
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = sge, .num_sge = n };
	struct ibv_recv_wr *bad;
	int ret = ibv_post_recv(ep->qp, &wr, &bad);

	if (ret) {
		logmsg(ep, "ibv_post_recv: %s", strerror(ret));
		ep->fatal = EX_FAIL;
	}
	return ret ? -1 : 0;
}

int mv_post_ctrl_recv(struct mv_ep *ep)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)ep->ctrl, .length = sizeof(struct mv_ctrl),
		.lkey = ep->mr->lkey,
	};

	return post_recv(ep, &sge, 1, WR_CTRL);
}

static int send_ctrl(struct mv_ep *ep, struct mv_ctrl *c)
{
	u8 *slot = ep->ctrl + sizeof(*c);
	struct ibv_sge sge = {
		.addr = (uintptr_t)slot, .length = sizeof(*c), .lkey = ep->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = WR_CTRL, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_wc wc;

	c->magic = MV_MAGIC;
	memcpy(slot, c, sizeof(*c));
	if (post_send(ep, &wr) || mv_wait_wc(ep, false, &wc, ep->o->op_timeout))
		return -1;
	return 0;
}

/*
 * Next control message; a data receive completing first is kept in *data.
 * The control receive is reposted unless the caller must post something
 * before it (repost false).
 */
static int recv_ctrl(struct mv_ep *ep, struct mv_ctrl *c, struct ibv_wc *data,
		     bool *have_data, bool repost)
{
	struct ibv_wc wc;

	for (;;) {
		if (mv_wait_wc(ep, true, &wc, ep->o->op_timeout))
			return -1;
		if (wc.wr_id == WR_CTRL)
			break;
		if (!data) {
			logmsg(ep, "unexpected data receive");
			ep->fatal = EX_FAIL;
			return -1;
		}
		*data = wc;
		*have_data = true;
	}
	memcpy(c, ep->ctrl, sizeof(*c));
	if (wc.byte_len != sizeof(*c) || c->magic != MV_MAGIC) {
		logmsg(ep, "bad control message (%u bytes)", wc.byte_len);
		ep->fatal = EX_FAIL;
		return -1;
	}
	return repost ? mv_post_ctrl_recv(ep) : 0;
}

static size_t bytes_differ(u64 a, u64 b)
{
	size_t n = 0;

	for (; a != b; a >>= 8, b >>= 8)
		n += (a & 0xff) != (b & 0xff);
	return n;
}

/* ---------------- server ---------------- */

static int srv_prep(struct mv_ep *ep, const struct mv_ctrl *c)
{
	struct ibv_sge sge[MV_MAX_SGE];
	struct rng r = { c->pseed ^ 0x5eed };
	size_t span = c->roff + c->size + MV_TAIL;

	if (c->size + MV_SLACK > ep->region ||
	    c->roff > (c->op >= OP_CAS ? MV_ATOMIC_AREA - 8 : 64)) {
		logmsg(ep, "PREP out of range: size %llu", (unsigned long long)c->size);
		return -1;
	}
	switch (c->op) {
	case OP_SEND:
	case OP_SEND_IMM:
		plan_sges(&ep->plan, &r, c->size,
			  c->rsge < (u32)ep->max_sge ? (int)c->rsge : ep->max_sge);
		memset(ep->rx, MV_CANARY, ep->plan.end);
		plan_to_sge(ep, &ep->plan, ep->rx, sge);
		return post_recv(ep, sge, ep->plan.n, WR_DATA);
	case OP_WRITE_IMM:
		memset(ep->rx, MV_CANARY, span);
		return post_recv(ep, NULL, 0, WR_DATA);
	case OP_WRITE:
		memset(ep->rx, MV_CANARY, span);
		return 0;
	case OP_READ:
		pat_fill(ep->tx + c->roff, c->pseed, 0, c->size);
		return 0;
	case OP_CAS:
	case OP_FAA:
		memcpy(ep->atom + c->roff, &c->val[0], 8);
		return 0;
	}
	return -1;
}

static void srv_check(struct mv_ep *ep, const struct mv_ctrl *c,
		      const struct ibv_wc *wc, bool have, struct mv_ctrl *res)
{
	const struct mv_ctrl *p = &ep->prep;
	bool imm = p->op == OP_SEND_IMM || p->op == OP_WRITE_IMM;
	bool recv = p->op == OP_SEND || imm;
	enum ibv_wc_opcode want = p->op == OP_WRITE_IMM ?
				  IBV_WC_RECV_RDMA_WITH_IMM : IBV_WC_RECV;
	size_t bad = 0;
	long first = -1;
	u64 v;

	if (c->seq != p->seq) {
		logmsg(ep, "CHECK seq %u after PREP seq %u", c->seq, p->seq);
		res->status = EPROTO;
		return;
	}
	if (recv && !have) {
		logmsg(ep, "seq %u: no receive completion", p->seq);
		res->status = ENOMSG;
	} else if (recv && (wc->opcode != want || wc->byte_len != p->size ||
			    !!(wc->wc_flags & IBV_WC_WITH_IMM) != imm ||
			    (imm && wc->imm_data != (u32)p->val[1]))) {
		logmsg(ep, "seq %u %s: wc opcode %d len %u flags %#x imm %#x, "
		       "want opcode %d len %llu imm %#x", p->seq, op_names[p->op],
		       wc->opcode, wc->byte_len, wc->wc_flags, wc->imm_data, want,
		       (unsigned long long)p->size, (u32)p->val[1]);
		res->status = EBADMSG;
	}
	if (ep->o->inject >= 0 && (long)p->seq >= ep->o->inject &&
	    !ep->injected && p->size && p->op <= OP_WRITE_IMM) {
		/* Self-test of the checker: one flipped byte must be caught. */
		ep->rx[p->op <= OP_SEND_IMM ? ep->plan.off[0] : p->roff] ^= 0x40;
		ep->injected = true;
	}
	switch (p->op) {
	case OP_SEND:
	case OP_SEND_IMM:
		bad = plan_check(&ep->plan, ep->rx, p->pseed, &first);
		break;
	case OP_WRITE:
	case OP_WRITE_IMM:
		bad = canary_check(ep->rx, p->roff);
		bad += pat_check(ep->rx + p->roff, p->pseed, 0, p->size, &first);
		bad += canary_check(ep->rx + p->roff + p->size, MV_TAIL);
		break;
	case OP_CAS:
	case OP_FAA:
		memcpy(&v, ep->atom + p->roff, 8);
		bad = bytes_differ(v, c->val[0]);
		if (bad)
			logmsg(ep, "seq %u %s: final value %#llx, want %#llx",
			       p->seq, op_names[p->op], (unsigned long long)v,
			       (unsigned long long)c->val[0]);
		break;
	}
	if (bad && p->op != OP_CAS && p->op != OP_FAA)
		logmsg(ep, "seq %u %s size %llu: %zu corrupt bytes, first at %ld",
		       p->seq, op_names[p->op], (unsigned long long)p->size, bad,
		       first);
	res->corrupt = bad;
}

int mv_run_server(struct mv_ep *ep)
{
	struct mv_ctrl c, res;
	struct ibv_wc data;
	bool have = false;
	u64 msgs = 0, corrupt = 0, errors = 0;

	for (;;) {
		if (recv_ctrl(ep, &c, &data, &have, false))
			goto out;
		memset(&res, 0, sizeof(res));
		res.seq = c.seq;
		if (c.type == C_PREP) {
			ep->prep = c;
			have = false;
			res.type = C_READY;
			if (srv_prep(ep, &c))
				res.status = EINVAL;
		} else if (c.type == C_CHECK) {
			res.type = C_RESULT;
			srv_check(ep, &c, &data, have, &res);
			msgs++;
			corrupt += res.corrupt;
			errors += res.status != 0;
		} else {
			res.type = C_RESULT;
		}
		if (mv_post_ctrl_recv(ep) || send_ctrl(ep, &res))
			goto out;
		if (c.type == C_DONE)
			break;
		if (c.type != C_PREP && c.type != C_CHECK) {
			logmsg(ep, "unknown control message %u", c.type);
			ep->fatal = EX_FAIL;
			goto out;
		}
	}
out:
	if (ep->o->verbose || corrupt || errors || ep->fatal)
		logmsg(ep, "%llu messages checked, %llu corrupt bytes, %llu errors%s",
		       (unsigned long long)msgs, (unsigned long long)corrupt,
		       (unsigned long long)errors, ep->fatal ? ", aborted" : "");
	if (ep->fatal)
		return ep->fatal;
	return corrupt || errors ? EX_FAIL : EX_OK;
}

/* ---------------- client ---------------- */

struct op_stats {
	u64 msgs, bytes, corrupt, errors, inl;
	double secs;
};

static int atomic_chain(struct mv_ep *ep, struct rng *r, struct mv_ctrl *c,
			struct op_stats *st)
{
	u8 *res = ep->rx;
	struct ibv_sge sge = { .length = 8, .lkey = ep->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = WR_DATA, .sg_list = &sge, .num_sge = 1,
				  .send_flags = IBV_SEND_SIGNALED };
	u64 cur = c->val[0], got, cmp, arg;
	struct ibv_wc wc;
	int i;

	wr.opcode = c->op == OP_CAS ? IBV_WR_ATOMIC_CMP_AND_SWP :
				      IBV_WR_ATOMIC_FETCH_AND_ADD;
	wr.wr.atomic.remote_addr = ep->remote.addr + 2 * (u64)ep->remote.region +
				   c->roff;
	wr.wr.atomic.rkey = ep->remote.rkey;
	for (i = 0; i < ATOMIC_CHAIN; i++) {
		sge.addr = (uintptr_t)(res + 8 * i);
		memset(res + 8 * i, MV_CANARY, 8);
		arg = rnd(r);
		/* Odd steps of CAS compare against a wrong value: no swap. */
		cmp = (i & 1) ? cur ^ (1ull << (arg % 64)) : cur;
		wr.wr.atomic.compare_add = c->op == OP_CAS ? cmp : arg;
		wr.wr.atomic.swap = arg;
		if (post_send(ep, &wr) || mv_wait_wc(ep, false, &wc, ep->o->op_timeout))
			return -1;
		memcpy(&got, res + 8 * i, 8);
		if (got != cur) {
			logmsg(ep, "seq %u %s step %d: returned %#llx, want %#llx",
			       c->seq, op_names[c->op], i, (unsigned long long)got,
			       (unsigned long long)cur);
			st->corrupt += bytes_differ(got, cur);
		}
		if (c->op == OP_FAA)
			cur += arg;
		else if (cmp == cur)
			cur = arg;
		st->msgs++;
		st->bytes += 8;
	}
	c->val[0] = cur;
	return 0;
}

static int client_msg(struct mv_ep *ep, struct rng *r, enum mv_op op,
		      size_t size, u32 seq, struct op_stats *st)
{
	static const enum ibv_wr_opcode wro[] = {
		[OP_SEND] = IBV_WR_SEND, [OP_SEND_IMM] = IBV_WR_SEND_WITH_IMM,
		[OP_WRITE] = IBV_WR_RDMA_WRITE,
		[OP_WRITE_IMM] = IBV_WR_RDMA_WRITE_WITH_IMM,
		[OP_READ] = IBV_WR_RDMA_READ,
	};
	struct ibv_send_wr wr = { .wr_id = WR_DATA, .send_flags = IBV_SEND_SIGNALED };
	struct ibv_sge sge[MV_MAX_SGE];
	struct mv_sge_plan plan;
	struct mv_ctrl c = { .type = C_PREP, .op = op, .seq = seq, .size = size };
	struct mv_ctrl rep;
	struct ibv_wc wc;
	double t0 = now_s();
	long first = -1;
	size_t bad, logical = 0;
	int i, rmax = ep->remote.max_sge;

	c.pseed = rnd(r);
	c.roff = op >= OP_CAS ? 8 * (rnd(r) % 64) : rnd(r) % 64;
	c.rsge = 1 + rnd(r) % (rmax > 0 ? rmax : 1);
	c.val[0] = rnd(r);
	c.val[1] = (u32)rnd(r);
	if (send_ctrl(ep, &c) || recv_ctrl(ep, &rep, NULL, NULL, true))
		return -1;
	if (rep.type != C_READY || rep.status || rep.seq != seq) {
		logmsg(ep, "seq %u: server refused PREP (%u)", seq, rep.status);
		ep->fatal = EX_FAIL;
		return -1;
	}
	c.type = C_CHECK;
	if (op == OP_CAS || op == OP_FAA) {
		if (atomic_chain(ep, r, &c, st))
			return -1;
		goto check;
	}
	plan_sges(&plan, r, size, ep->max_sge);
	plan_to_sge(ep, &plan, op == OP_READ ? ep->rx : ep->tx, sge);
	wr.opcode = wro[op];
	wr.sg_list = sge;
	wr.num_sge = plan.n;
	wr.imm_data = (u32)c.val[1];
	if (op == OP_READ) {
		memset(ep->rx, MV_CANARY, plan.end);
		wr.wr.rdma.remote_addr = ep->remote.addr + c.roff;
	} else {
		for (i = 0; i < plan.n; i++) {
			pat_fill(ep->tx + plan.off[i], c.pseed, logical, plan.len[i]);
			logical += plan.len[i];
		}
		wr.wr.rdma.remote_addr = ep->remote.addr + ep->remote.region + c.roff;
		if (size && size <= ep->max_inline && (seq & 1)) {
			wr.send_flags |= IBV_SEND_INLINE;
			st->inl++;
		}
	}
	wr.wr.rdma.rkey = ep->remote.rkey;
	if (post_send(ep, &wr) || mv_wait_wc(ep, false, &wc, ep->o->op_timeout))
		return -1;
	if (op == OP_READ) {
		bad = plan_check(&plan, ep->rx, c.pseed, &first);
		if (bad)
			logmsg(ep, "seq %u read size %zu: %zu corrupt bytes, first at %ld",
			       seq, size, bad, first);
		st->corrupt += bad;
	}
	st->msgs++;
	st->bytes += size;
check:
	if (send_ctrl(ep, &c) || recv_ctrl(ep, &rep, NULL, NULL, true))
		return -1;
	if (rep.type != C_RESULT || rep.seq != seq) {
		logmsg(ep, "seq %u: bad reply to CHECK", seq);
		ep->fatal = EX_FAIL;
		return -1;
	}
	st->corrupt += rep.corrupt;
	st->errors += rep.status != 0;
	st->secs += now_s() - t0;
	return 0;
}

static size_t build_sizes(struct mv_ep *ep, size_t *v)
{
	static const size_t fixed[] = {
		0, 1, 2, 3, 7, 8, 9, 63, 64, 65, 127, 255, 256, 257, 511, 512,
		513, 1023, 1024, 1025, 1500, 2047, 2048, 2049, 4095, 4096, 4097,
		/* Write and Send segments of a 1500-byte link (1408 bytes) */
		1407, 1408, 1409, 2815, 2816, 2817,
		8191, 8192, 8193, 16383, 65535, 65536, 65537, 262143,
		(1 << 20) - 1, (1 << 20) + 1, (4 << 20) + 3, 8 << 20,
	};
	size_t mtu = 128u << ep->mtu, n = 0, i;
	size_t mtus[] = { mtu - 1, mtu, mtu + 1, 2 * mtu - 1, 2 * mtu,
			  2 * mtu + 1, 3 * mtu + 7, 16 * mtu + 1 };

	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (fixed[i] <= ep->o->max_size)
			v[n++] = fixed[i];
	for (i = 0; i < sizeof(mtus) / sizeof(mtus[0]); i++)
		if (mtus[i] <= ep->o->max_size)
			v[n++] = mtus[i];
	return n;
}

static size_t random_size(struct rng *r, size_t max)
{
	int bits = 0;
	size_t s;

	while (bits < 40 && ((size_t)1 << (bits + 1)) <= max)
		bits++;
	s = 1 + rnd(r) % ((size_t)1 << (rnd(r) % (bits + 1)));
	return s > max ? max : s;
}

int mv_run_client(struct mv_ep *ep)
{
	struct op_stats st[OP_NR];
	struct rng r = { ep->o->seed };
	size_t sizes[64], nsizes, i, size, tot_msgs = 0, tot_bytes = 0;
	double t0 = now_s(), dt;
	bool stopped = false, ok;
	unsigned int it, ops = ep->o->ops, missing = 0;
	u64 corrupt = 0, errors = 0;
	u32 seq = 0;
	int op;

	memset(st, 0, sizeof(st));
	if (ep->remote.region < ep->region && ep->o->max_size + MV_SLACK > ep->remote.region) {
		logmsg(ep, "server buffer is smaller than -S");
		return EX_USAGE;
	}
	if ((ops & (1u << OP_CAS | 1u << OP_FAA)) && !(ep->atomics && ep->remote.atomics)) {
		printf("# atomics not supported by the device(s): skipping cas, faa\n");
		ops &= ~(1u << OP_CAS | 1u << OP_FAA);
	}
	nsizes = build_sizes(ep, sizes);
	printf("# mroce-verify: %s, mtu %u, max_sge %d/%u, max_inline %u, seed %llu, "
	       "%zu fixed + %u random sizes up to %zu, %u iteration(s)\n",
	       ibv_get_device_name(ep->ctx->device), 128u << ep->mtu, ep->max_sge,
	       ep->remote.max_sge, ep->max_inline, (unsigned long long)ep->o->seed,
	       nsizes, ep->o->nrandom, ep->o->max_size, ep->o->iters);
	fflush(stdout);
	for (it = 0; it < ep->o->iters && !stopped && !ep->fatal; it++) {
		for (i = 0; i < nsizes + ep->o->nrandom && !stopped; i++) {
			size = i < nsizes ? sizes[i] : random_size(&r, ep->o->max_size);
			for (op = 0; op < OP_NR; op++) {
				if (!(ops & (1u << op)))
					continue;
				if (ep->o->time_limit > 0 &&
				    now_s() - t0 > ep->o->time_limit) {
					stopped = true;
					break;
				}
				if (client_msg(ep, &r, op, size, seq++, &st[op]))
					goto end;
			}
		}
	}
end:
	if (!ep->fatal) {
		struct mv_ctrl c = { .type = C_DONE, .seq = seq };

		if (send_ctrl(ep, &c) == 0)
			recv_ctrl(ep, &c, NULL, NULL, false);
	}
	dt = now_s() - t0;
	for (op = 0; op < OP_NR; op++) {
		if (!(ops & (1u << op)))
			continue;
		printf("# %-10s msgs %7llu  bytes %11llu  corrupt %llu  errors %llu  "
		       "inline %llu  %.1fs  %.2f MB/s\n", op_names[op],
		       (unsigned long long)st[op].msgs, (unsigned long long)st[op].bytes,
		       (unsigned long long)st[op].corrupt,
		       (unsigned long long)st[op].errors, (unsigned long long)st[op].inl,
		       st[op].secs, st[op].secs > 0 ? st[op].bytes / st[op].secs / 1e6 : 0);
		tot_msgs += st[op].msgs;
		tot_bytes += st[op].bytes;
		corrupt += st[op].corrupt;
		errors += st[op].errors;
		missing += st[op].msgs == 0;
	}
	ok = !ep->fatal && !corrupt && !errors && !missing;
	printf("1..1\n%s 1 - mroce-verify: %zu msgs, %zu bytes, %llu corrupt, "
	       "%llu errors in %.1fs%s%s%s\n", ok ? "ok" : "not ok", tot_msgs,
	       tot_bytes, (unsigned long long)corrupt, (unsigned long long)errors,
	       dt, stopped ? " (time limit)" : "",
	       ep->fatal == EX_TIMEOUT ? " TIMEOUT" : ep->fatal ? " ABORTED" : "",
	       missing ? " (an opcode never ran)" : "");
	fflush(stdout);
	if (ep->fatal)
		return ep->fatal;
	return ok ? EX_OK : EX_FAIL;
}
