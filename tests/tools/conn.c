// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * mroce-verify: resources and connection setup, through rdma_cm, through a
 * TCP exchange of QP attributes, or in-process (loopback, two threads).
 */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include "mverify.h"

#define CQ_DEPTH	64
#define QP_DEPTH	16
#define WANT_INLINE	220
#define RD_ATOM		4

struct mv_mailbox mv_mbox = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.cond = PTHREAD_COND_INITIALIZER,
};

static int min_int(int a, int b) { return a < b ? a : b; }

static int alloc_buf(struct mv_ep *ep)
{
	size_t len;

	ep->region = ep->o->max_size + MV_SLACK;
	len = 2 * ep->region + MV_ATOMIC_AREA +
	      MV_CTRL_SLOTS * sizeof(struct mv_ctrl);
	len = (len + 4095) & ~(size_t)4095;
	if (posix_memalign((void **)&ep->buf, 4096, len)) {
		logmsg(ep, "cannot allocate %zu bytes", len);
		return -1;
	}
	memset(ep->buf, 0, len);
	ep->buflen = len;
	ep->tx = ep->buf;
	ep->rx = ep->buf + ep->region;
	ep->atom = ep->rx + ep->region;
	ep->ctrl = ep->atom + MV_ATOMIC_AREA;
	return 0;
}

/* PD, CQs, MR and QP on ctx; through rdma_cm when id is set. */
static int create_res(struct mv_ep *ep, struct ibv_context *ctx,
		      struct rdma_cm_id *id)
{
	struct ibv_qp_init_attr ia;
	struct ibv_device_attr da;
	struct ibv_port_attr pa;
	int access, ret, inl;

	ep->ctx = ctx;
	if (ibv_query_device(ctx, &da)) {
		logmsg(ep, "ibv_query_device: %s", strerror(errno));
		return -1;
	}
	ep->port = id ? id->port_num : 1;
	if (ibv_query_port(ctx, ep->port, &pa)) {
		logmsg(ep, "ibv_query_port: %s", strerror(errno));
		return -1;
	}
	ep->mtu = pa.active_mtu;
	ep->atomics = da.atomic_cap != IBV_ATOMIC_NONE;
	ep->max_sge = min_int(MV_MAX_SGE, da.max_sge);
	ep->pd = ibv_alloc_pd(ctx);
	ep->sch = ibv_create_comp_channel(ctx);
	ep->rch = ibv_create_comp_channel(ctx);
	if (!ep->pd || !ep->sch || !ep->rch) {
		logmsg(ep, "pd/channel: %s", strerror(errno));
		return -1;
	}
	ep->scq = ibv_create_cq(ctx, CQ_DEPTH, NULL, ep->sch, 0);
	ep->rcq = ibv_create_cq(ctx, CQ_DEPTH, NULL, ep->rch, 0);
	if (!ep->scq || !ep->rcq) {
		logmsg(ep, "ibv_create_cq: %s", strerror(errno));
		return -1;
	}
	access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		 IBV_ACCESS_REMOTE_READ;
	if (ep->atomics)
		access |= IBV_ACCESS_REMOTE_ATOMIC;
	ep->mr = ibv_reg_mr(ep->pd, ep->buf, ep->buflen, access);
	if (!ep->mr) {
		logmsg(ep, "ibv_reg_mr(%zu): %s", ep->buflen, strerror(errno));
		return -1;
	}
	/* Ask for inline data; fall back to none if the device refuses. */
	for (inl = WANT_INLINE; ; inl = 0) {
		memset(&ia, 0, sizeof(ia));
		ia.send_cq = ep->scq;
		ia.recv_cq = ep->rcq;
		ia.qp_type = IBV_QPT_RC;
		ia.cap.max_send_wr = QP_DEPTH;
		ia.cap.max_recv_wr = QP_DEPTH;
		ia.cap.max_send_sge = ep->max_sge;
		ia.cap.max_recv_sge = ep->max_sge;
		ia.cap.max_inline_data = inl;
		if (id) {
			ret = rdma_create_qp(id, ep->pd, &ia);
			ep->qp = ret ? NULL : id->qp;
		} else {
			ep->qp = ibv_create_qp(ep->pd, &ia);
		}
		if (ep->qp || !inl)
			break;
	}
	if (!ep->qp) {
		logmsg(ep, "create_qp: %s", strerror(errno));
		return -1;
	}
	ep->max_inline = ia.cap.max_inline_data;
	if (ep->o->verbose)
		logmsg(ep, "dev %s qpn %u mtu %d max_sge %d inline %u atomics %d",
		       ibv_get_device_name(ctx->device), ep->qp->qp_num,
		       128 << ep->mtu, ep->max_sge, ep->max_inline, ep->atomics);
	return 0;
}

static void fill_peer(struct mv_ep *ep, struct mv_peer *p)
{
	union ibv_gid gid;

	memset(p, 0, sizeof(*p));
	p->addr = (uintptr_t)ep->buf;
	p->rkey = ep->mr->rkey;
	p->buflen = ep->buflen;
	p->region = ep->region;
	p->max_sge = ep->max_sge;
	p->atomics = ep->atomics;
	p->qpn = ep->qp->qp_num;
	p->psn = (ep->o->seed * 2654435761u + (ep->server ? 1 : 7)) & 0xffffff;
	p->mtu = ep->mtu;
	if (ep->gid_idx >= 0 && !ibv_query_gid(ep->ctx, ep->port, ep->gid_idx, &gid))
		memcpy(p->gid, gid.raw, 16);
}

/* Auto GID: the first RoCE v2 IPv4-mapped one, else the first RoCE v2. */
static int pick_gid(struct mv_ep *ep)
{
	struct ibv_gid_entry e;
	int i, v2 = -1;

	if (ep->o->gid_idx >= 0)
		return ep->o->gid_idx;
	for (i = 0; i < 256; i++) {
		if (ibv_query_gid_ex(ep->ctx, ep->port, i, &e, 0))
			continue;
		if (e.gid_type == IBV_GID_TYPE_IB)
			continue;
		if (v2 < 0)
			v2 = i;
		if (!memcmp(e.gid.raw, "\0\0\0\0\0\0\0\0\0\0\xff\xff", 12))
			return i;
	}
	return v2 < 0 ? 0 : v2;
}

static int to_rts(struct mv_ep *ep)
{
	struct ibv_qp_attr a;
	struct mv_peer *r = &ep->remote;
	struct mv_peer me;

	fill_peer(ep, &me);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = ep->mtu < (enum ibv_mtu)r->mtu ? ep->mtu : (enum ibv_mtu)r->mtu;
	if (ep->o->path_mtu)
		a.path_mtu = ep->o->path_mtu;
	a.dest_qp_num = r->qpn;
	a.rq_psn = r->psn;
	a.max_dest_rd_atomic = RD_ATOM;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	memcpy(a.ah_attr.grh.dgid.raw, r->gid, 16);
	a.ah_attr.grh.sgid_index = ep->gid_idx;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.dlid = r->lid;
	a.ah_attr.port_num = ep->port;
	if (ibv_modify_qp(ep->qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)) {
		logmsg(ep, "modify_qp RTR: %s", strerror(errno));
		return -1;
	}
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = me.psn;
	a.max_rd_atomic = RD_ATOM;
	if (ibv_modify_qp(ep->qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
			  IBV_QP_MAX_QP_RD_ATOMIC)) {
		logmsg(ep, "modify_qp RTS: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static int to_init(struct mv_ep *ep)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = ep->port;
	a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			    IBV_ACCESS_REMOTE_READ |
			    (ep->atomics ? IBV_ACCESS_REMOTE_ATOMIC : 0);
	if (ibv_modify_qp(ep->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)) {
		logmsg(ep, "modify_qp INIT: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static struct ibv_context *open_dev(struct mv_ep *ep)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	int i, n;

	list = ibv_get_device_list(&n);
	if (!list) {
		logmsg(ep, "ibv_get_device_list: %s", strerror(errno));
		return NULL;
	}
	for (i = 0; i < n; i++) {
		if (ep->o->dev && strcmp(ibv_get_device_name(list[i]), ep->o->dev))
			continue;
		ctx = ibv_open_device(list[i]);
		break;
	}
	if (!ctx)
		logmsg(ep, "no RDMA device %s", ep->o->dev ? ep->o->dev : "at all");
	ibv_free_device_list(list);
	return ctx;
}

/* ---- in-process exchange ---- */

static int mbox_xchg(struct mv_ep *ep, int round)
{
	static int rounds[2];
	int me = ep->server ? 0 : 1;
	struct timespec ts;
	int ret = 0;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += (time_t)ep->o->conn_timeout;
	pthread_mutex_lock(&mv_mbox.lock);
	fill_peer(ep, &mv_mbox.info[me]);
	rounds[me] = round;
	pthread_cond_broadcast(&mv_mbox.cond);
	while (rounds[!me] < round && !ret)
		ret = pthread_cond_timedwait(&mv_mbox.cond, &mv_mbox.lock, &ts);
	if (!ret)
		ep->remote = mv_mbox.info[!me];
	pthread_mutex_unlock(&mv_mbox.lock);
	if (ret)
		logmsg(ep, "in-process peer did not show up");
	return ret ? -1 : 0;
}

/* ---- TCP exchange ---- */

static int sock_io(struct mv_ep *ep, void *p, size_t len, bool wr)
{
	struct pollfd pfd = { .fd = ep->sock, .events = wr ? POLLOUT : POLLIN };
	double end = now_s() + ep->o->conn_timeout;
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		if (poll(&pfd, 1, 200) < 0 && errno != EINTR)
			return -1;
		if (now_s() > end) {
			logmsg(ep, "tcp exchange timed out");
			return -1;
		}
		if (!(pfd.revents & (pfd.events | POLLHUP | POLLERR)))
			continue;
		n = wr ? send(ep->sock, (char *)p + done, len - done, MSG_NOSIGNAL) :
			 recv(ep->sock, (char *)p + done, len - done, 0);
		if (n <= 0) {
			logmsg(ep, "tcp exchange: %s", n ? strerror(errno) : "peer closed");
			return -1;
		}
		done += n;
	}
	return 0;
}

static int tcp_open(struct mv_ep *ep)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
	double end = now_s() + ep->o->conn_timeout;
	struct addrinfo *res;
	int fd, one = 1, ret;

	if (ep->server)
		hints.ai_flags = AI_PASSIVE;
	ret = getaddrinfo(ep->server ? NULL : ep->o->addr, ep->o->port,
			  &hints, &res);
	if (ret) {
		logmsg(ep, "getaddrinfo: %s", gai_strerror(ret));
		return -1;
	}
	if (ep->server) {
		struct pollfd pfd = { .events = POLLIN };

		fd = socket(res->ai_family, SOCK_STREAM, 0);
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (fd < 0 || bind(fd, res->ai_addr, res->ai_addrlen) || listen(fd, 1)) {
			logmsg(ep, "tcp listen: %s", strerror(errno));
			freeaddrinfo(res);
			return -1;
		}
		pfd.fd = fd;
		ret = poll(&pfd, 1, (int)(ep->o->conn_timeout * 1000));
		ep->sock = ret == 1 ? accept(fd, NULL, NULL) : -1;
		close(fd);
	} else {
		do {
			fd = socket(res->ai_family, SOCK_STREAM, 0);
			if (fd >= 0 && !connect(fd, res->ai_addr, res->ai_addrlen))
				break;
			close(fd);
			fd = -1;
			usleep(200000);
		} while (now_s() < end);
		ep->sock = fd;
	}
	freeaddrinfo(res);
	if (ep->sock < 0) {
		logmsg(ep, "tcp connection to peer failed or timed out");
		return -1;
	}
	setsockopt(ep->sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return 0;
}

static int tcp_xchg(struct mv_ep *ep)
{
	struct mv_peer me;

	fill_peer(ep, &me);
	if (sock_io(ep, &me, sizeof(me), true) ||
	    sock_io(ep, &ep->remote, sizeof(ep->remote), false))
		return -1;
	return 0;
}

static int connect_direct(struct mv_ep *ep)
{
	struct ibv_context *ctx;
	bool tcp = ep->o->method == M_TCP;

	if (tcp && tcp_open(ep))
		return -1;
	ctx = open_dev(ep);
	if (!ctx || create_res(ep, ctx, NULL))
		return -1;
	ep->gid_idx = pick_gid(ep);
	if (to_init(ep) || mv_post_ctrl_recv(ep))
		return -1;
	if (tcp ? tcp_xchg(ep) : mbox_xchg(ep, 1))
		return -1;
	if (to_rts(ep))
		return -1;
	/* Both at RTS before the first message. */
	return tcp ? tcp_xchg(ep) : mbox_xchg(ep, 2);
}

/* ---- rdma_cm ---- */

static int cm_wait(struct mv_ep *ep, enum rdma_cm_event_type want,
		   struct rdma_cm_event **evp, double tmo)
{
	struct pollfd pfd = { .fd = ep->ech->fd, .events = POLLIN };
	struct rdma_cm_event *ev;
	int ret;

	ret = poll(&pfd, 1, (int)(tmo * 1000));
	if (ret <= 0) {
		logmsg(ep, "timed out waiting for %s", rdma_event_str(want));
		return -ETIMEDOUT;
	}
	if (rdma_get_cm_event(ep->ech, &ev)) {
		logmsg(ep, "rdma_get_cm_event: %s", strerror(errno));
		return -EIO;
	}
	if (ev->event != want) {
		if (ep->o->verbose || ep->server)
			logmsg(ep, "got %s (status %d), wanted %s",
			       rdma_event_str(ev->event), ev->status,
			       rdma_event_str(want));
		rdma_ack_cm_event(ev);
		return -EPROTO;
	}
	if (evp)
		*evp = ev;
	else
		rdma_ack_cm_event(ev);
	return 0;
}

static int check_dev(struct mv_ep *ep, struct rdma_cm_id *id)
{
	const char *name = ibv_get_device_name(id->verbs->device);

	if (ep->o->dev && strcmp(name, ep->o->dev)) {
		logmsg(ep, "rdma_cm routed over %s, not %s", name, ep->o->dev);
		return -1;
	}
	return 0;
}

static void cm_param(struct mv_ep *ep, struct rdma_conn_param *cp,
		     struct mv_peer *pd)
{
	struct ibv_device_attr da;

	memset(cp, 0, sizeof(*cp));
	fill_peer(ep, pd);
	cp->private_data = pd;
	cp->private_data_len = offsetof(struct mv_peer, qpn);
	ibv_query_device(ep->ctx, &da);
	cp->responder_resources = min_int(RD_ATOM, da.max_qp_rd_atom);
	cp->initiator_depth = min_int(RD_ATOM, da.max_qp_init_rd_atom);
	cp->retry_count = 7;
	cp->rnr_retry_count = 7;
}

static int cm_peer(struct mv_ep *ep, struct rdma_cm_event *ev)
{
	if (ev->param.conn.private_data_len < offsetof(struct mv_peer, qpn)) {
		logmsg(ep, "peer sent %u bytes of private data",
		       ev->param.conn.private_data_len);
		return -1;
	}
	memcpy(&ep->remote, ev->param.conn.private_data,
	       offsetof(struct mv_peer, qpn));
	return 0;
}

static int cm_server(struct mv_ep *ep)
{
	struct addrinfo hints = { .ai_flags = AI_PASSIVE, .ai_family = AF_INET };
	struct rdma_conn_param cp;
	struct rdma_cm_event *ev;
	struct addrinfo *res;
	struct mv_peer pd;
	int ret;

	ret = getaddrinfo(ep->o->addr, ep->o->port, &hints, &res);
	if (ret) {
		logmsg(ep, "getaddrinfo: %s", gai_strerror(ret));
		return -1;
	}
	ret = rdma_create_id(ep->ech, &ep->listen_id, ep, RDMA_PS_TCP) ||
	      rdma_bind_addr(ep->listen_id, res->ai_addr) ||
	      rdma_listen(ep->listen_id, 1);
	freeaddrinfo(res);
	if (ret) {
		logmsg(ep, "rdma_cm listen: %s", strerror(errno));
		return -1;
	}
	if (ep->o->verbose)
		logmsg(ep, "listening on port %s", ep->o->port);
	do {
		ret = cm_wait(ep, RDMA_CM_EVENT_CONNECT_REQUEST, &ev,
			      ep->o->conn_timeout);
	} while (ret == -EPROTO);
	if (ret)
		return -1;
	ep->id = ev->id;
	if (cm_peer(ep, ev) || check_dev(ep, ep->id) ||
	    create_res(ep, ep->id->verbs, ep->id) || mv_post_ctrl_recv(ep)) {
		rdma_reject(ep->id, NULL, 0);
		rdma_ack_cm_event(ev);
		return -1;
	}
	cm_param(ep, &cp, &pd);
	if (cp.responder_resources > ev->param.conn.initiator_depth)
		cp.responder_resources = ev->param.conn.initiator_depth;
	if (cp.initiator_depth > ev->param.conn.responder_resources)
		cp.initiator_depth = ev->param.conn.responder_resources;
	rdma_ack_cm_event(ev);
	if (rdma_accept(ep->id, &cp)) {
		logmsg(ep, "rdma_accept: %s", strerror(errno));
		return -1;
	}
	if (cm_wait(ep, RDMA_CM_EVENT_ESTABLISHED, NULL, ep->o->conn_timeout))
		return -1;
	ep->connected = true;
	return 0;
}

static void cm_drop(struct mv_ep *ep)
{
	if (ep->qp)
		rdma_destroy_qp(ep->id);
	ep->qp = NULL;
	if (ep->mr)
		ibv_dereg_mr(ep->mr);
	ep->mr = NULL;
	if (ep->scq)
		ibv_destroy_cq(ep->scq);
	if (ep->rcq)
		ibv_destroy_cq(ep->rcq);
	ep->scq = ep->rcq = NULL;
	if (ep->sch)
		ibv_destroy_comp_channel(ep->sch);
	if (ep->rch)
		ibv_destroy_comp_channel(ep->rch);
	ep->sch = ep->rch = NULL;
	if (ep->pd)
		ibv_dealloc_pd(ep->pd);
	ep->pd = NULL;
	if (ep->id)
		rdma_destroy_id(ep->id);
	ep->id = NULL;
}

static int cm_client_once(struct mv_ep *ep, struct addrinfo *res)
{
	struct rdma_conn_param cp;
	struct rdma_cm_event *ev;
	struct mv_peer pd;
	int ret;

	if (rdma_create_id(ep->ech, &ep->id, ep, RDMA_PS_TCP) ||
	    rdma_resolve_addr(ep->id, NULL, res->ai_addr, 2000)) {
		logmsg(ep, "rdma_resolve_addr: %s", strerror(errno));
		return -EIO;
	}
	ret = cm_wait(ep, RDMA_CM_EVENT_ADDR_RESOLVED, NULL, 5);
	if (!ret && rdma_resolve_route(ep->id, 2000))
		ret = -EIO;
	if (!ret)
		ret = cm_wait(ep, RDMA_CM_EVENT_ROUTE_RESOLVED, NULL, 5);
	if (ret)
		return ret;
	if (check_dev(ep, ep->id))
		return -ENODEV;
	if (create_res(ep, ep->id->verbs, ep->id) || mv_post_ctrl_recv(ep))
		return -ENOMEM;
	cm_param(ep, &cp, &pd);
	if (rdma_connect(ep->id, &cp)) {
		logmsg(ep, "rdma_connect: %s", strerror(errno));
		return -EIO;
	}
	ret = cm_wait(ep, RDMA_CM_EVENT_ESTABLISHED, &ev, ep->o->op_timeout);
	if (ret)
		return ret;
	ep->connected = true;
	ret = cm_peer(ep, ev);
	rdma_ack_cm_event(ev);
	return ret ? -EPROTO : 0;
}

static int cm_client(struct mv_ep *ep)
{
	struct addrinfo hints = { .ai_family = AF_INET };
	double end = now_s() + ep->o->conn_timeout;
	struct addrinfo *res;
	int ret;

	ret = getaddrinfo(ep->o->addr, ep->o->port, &hints, &res);
	if (ret) {
		logmsg(ep, "getaddrinfo %s: %s", ep->o->addr, gai_strerror(ret));
		return -1;
	}
	for (;;) {
		ret = cm_client_once(ep, res);
		if (!ret || ret == -ENODEV || ret == -ENOMEM || now_s() > end)
			break;
		/* Server not listening yet, or lost packets: start over. */
		cm_drop(ep);
		usleep(500000);
	}
	freeaddrinfo(res);
	if (ret)
		logmsg(ep, "could not connect to %s:%s", ep->o->addr, ep->o->port);
	return ret ? -1 : 0;
}

int mv_connect(struct mv_ep *ep)
{
	ep->sock = -1;
	ep->gid_idx = -1;
	if (alloc_buf(ep))
		return -1;
	if (ep->o->method != M_CM)
		return connect_direct(ep);
	ep->ech = rdma_create_event_channel();
	if (!ep->ech) {
		logmsg(ep, "rdma_create_event_channel: %s", strerror(errno));
		return -1;
	}
	return ep->server ? cm_server(ep) : cm_client(ep);
}

void mv_teardown(struct mv_ep *ep)
{
	if (ep->o->method == M_CM) {
		if (ep->connected && !rdma_disconnect(ep->id))
			cm_wait(ep, RDMA_CM_EVENT_DISCONNECTED, NULL, 2);
		cm_drop(ep);
	} else {
		if (ep->qp)
			ibv_destroy_qp(ep->qp);
		ep->qp = NULL;
		ep->id = NULL;
		cm_drop(ep);
	}
	if (ep->ctx && ep->o->method != M_CM)
		ibv_close_device(ep->ctx);
	if (ep->listen_id)
		rdma_destroy_id(ep->listen_id);
	if (ep->ech)
		rdma_destroy_event_channel(ep->ech);
	if (ep->sock >= 0)
		close(ep->sock);
	free(ep->buf);
}
