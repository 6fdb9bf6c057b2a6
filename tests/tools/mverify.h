/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * mroce-verify: RC data-integrity test over libibverbs/librdmacm.
 * Shared definitions of the connection (conn.c), the test engine (ops.c)
 * and the command line (mroce-verify.c).
 */
#ifndef MVERIFY_H
#define MVERIFY_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <pthread.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

typedef uint8_t u8;
typedef uint32_t u32;
typedef uint64_t u64;

#define MV_MAX_SGE	4
#define MV_SLACK	4096		/* offsets, gaps and canary tail */
#define MV_TAIL		256		/* canary bytes checked after a message */
#define MV_CANARY	0xc5
#define MV_ATOMIC_AREA	4096
#define MV_CTRL_SLOTS	2
#define MV_MAGIC	0x4d564659u	/* "MVFY" */

/* exit codes */
#define EX_OK		0
#define EX_FAIL		1
#define EX_USAGE	2
#define EX_TIMEOUT	3

enum mv_op {
	OP_SEND, OP_SEND_IMM, OP_WRITE, OP_WRITE_IMM, OP_READ, OP_CAS, OP_FAA,
	OP_NR
};

enum mv_method { M_CM, M_TCP, M_LOCAL };

struct mv_opts {
	const char *dev;
	const char *addr;	/* peer (client) or bind address (server) */
	const char *port;
	enum mv_method method;
	bool server, client, loopback;
	int gid_idx;		/* -1: auto */
	u64 seed;
	unsigned int iters;
	size_t max_size;
	double time_limit;	/* s; stop issuing new messages after it */
	double op_timeout;	/* s; any single wait longer is an error */
	double conn_timeout;	/* s; connection setup */
	unsigned int nrandom;	/* random sizes per iteration */
	unsigned int ops;	/* bitmask of enum mv_op */
	int verbose;
	long inject;		/* corrupt a received byte at this seq */
	enum ibv_mtu path_mtu;	/* 0: the smaller of both ports' */
};

/* What each side tells the other about its memory (and QP, for tcp/local). */
struct mv_peer {
	u64 addr;		/* base of the registered buffer */
	u32 rkey;
	u32 region;		/* size of its tx and rx regions */
	u32 max_sge;
	u32 atomics;
	u32 qpn;
	u32 psn;
	u32 mtu;		/* enum ibv_mtu */
	u32 lid;
	u32 buflen;
	u8 gid[16];
};

/* Control message, sent with SEND over the same QP. */
enum ctrl_type { C_PREP = 1, C_READY, C_CHECK, C_RESULT, C_DONE };

struct mv_ctrl {
	u32 magic;
	u32 type;
	u32 op;
	u32 seq;
	u64 size;
	u64 roff;		/* offset in the responder's region */
	u64 pseed;		/* pattern seed */
	u64 val[2];		/* imm / atomic values */
	u32 rsge;		/* responder's scatter list length */
	u32 status;		/* RESULT: 0 ok, else an error */
	u64 corrupt;		/* RESULT: corrupt bytes seen by the responder */
};

struct mv_sge_plan {
	int n;
	size_t off[MV_MAX_SGE];	/* offsets in the region */
	size_t len[MV_MAX_SGE];
	size_t start, end;	/* span checked for canaries: [start, end) */
};

struct mv_ep {
	const struct mv_opts *o;
	const char *name;	/* "server" / "client" for messages */
	bool server;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_comp_channel *sch, *rch;
	struct ibv_cq *scq, *rcq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	u8 *buf;
	size_t buflen, region;
	u8 *tx, *rx, *atom;	/* tx, rx and atomic sub-regions of buf */
	u8 *ctrl;		/* control slots: [0] recv, [1] send */
	u32 max_inline;
	int max_sge;
	int port;
	int gid_idx;
	enum ibv_mtu mtu;
	bool atomics;
	struct mv_peer remote;
	/* rdma_cm */
	struct rdma_event_channel *ech;
	struct rdma_cm_id *listen_id, *id;
	/* tcp */
	int sock;
	/* responder state between PREP and CHECK */
	struct mv_ctrl prep;
	struct mv_sge_plan plan;
	bool injected;
	bool connected;
	int fatal;		/* EX_* once broken */
};

/* in-process exchange for -L with method local */
struct mv_mailbox {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct mv_peer info[2];
	bool have[2];
};
extern struct mv_mailbox mv_mbox;

/* mroce-verify.c */
double now_s(void);
void logmsg(const struct mv_ep *ep, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
extern const char *const op_names[OP_NR];

/* conn.c */
int mv_connect(struct mv_ep *ep);
void mv_teardown(struct mv_ep *ep);

/* ops.c */
int mv_run_client(struct mv_ep *ep);
int mv_run_server(struct mv_ep *ep);
int mv_wait_wc(struct mv_ep *ep, bool recv, struct ibv_wc *wc, double tmo);
int mv_post_ctrl_recv(struct mv_ep *ep);

#endif
