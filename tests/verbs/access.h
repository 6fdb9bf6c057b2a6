/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * access_test's shared parts (access_test.c): the target buffer with its
 * canaries, fresh connected RC pairs, posting and expected completions;
 * the cases are in access_errors.c and access_flow.c.
 */
#ifndef METAROCE_TESTS_ACCESS_H
#define METAROCE_TESTS_ACCESS_H

#include <stdbool.h>
#include <stdint.h>
#include <infiniband/verbs.h>

#include "loopback.h"

#define ALL_ACCESS	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)
#define QUIET_MS	100	/* how long "no completion" is watched */
#define BAD_RKEY	0xdead5a00u
#define NO_SUCH_QPN	0xfffff0u

/* Target: one allocation; the MR is [TGT_OFF, TGT_OFF + TGT_LEN). */
#define TGT_ALLOC	(3 * 4096)
#define TGT_OFF		1000
#define TGT_LEN		5000
#define CANARY		0xc5
#define LOCAL_LEN	8192

extern struct ibv_pd *pd2;	/* a second PD, for foreign rkeys */
extern bool atomics;		/* the device offers atomics */
extern char *tgt;		/* the target allocation */
extern char *loc;		/* the requester's local buffer */
extern char *rbuf;		/* the responder's receive buffer (+ canary) */
extern struct ibv_mr *loc_mr, *rbuf_mr;

uint8_t tgt_pat(size_t i);	/* the MR's content at byte i */
void tgt_fill(void);
bool tgt_ok(bool mr_too);
uint64_t tgt_va(long off);
struct ibv_mr *tgt_reg(struct ibv_pd *p, int access);

struct opts {
	int a_access, b_access;		/* QP access flags */
	uint8_t timeout, retry_cnt, rnr_retry, min_rnr_timer;
	uint32_t a_dqpn;		/* 0: B's QPN */
};

extern const struct opts defaults;

bool pair_new(struct pair *p, const struct opts *o, const char *what);

int post_rdma(struct ibv_qp *qp, uint64_t wr_id, enum ibv_wr_opcode op,
	      size_t loff, uint32_t len, uint64_t va, uint32_t rkey,
	      struct ibv_send_wr *next_wr);
int post_atomic(struct ibv_qp *qp, uint64_t wr_id, enum ibv_wr_opcode op,
		uint64_t va, uint32_t rkey, uint64_t cmp_add, uint64_t swap);
int post_send(struct ibv_qp *qp, uint64_t wr_id, uint32_t len);
int post_recv(struct ibv_qp *qp, uint64_t wr_id, uint32_t len);

bool expect_wc(struct ibv_cq *cq, uint64_t wr_id, int want,
	       const char *what);
void expect_responder_err(struct pair *p, const char *what);

/* access_errors.c */
void case_control(void);
void case_rkey(void);
void case_bounds(void);
void case_mr_access(void);
void case_atomic(void);
void case_qp_access(void);

/* access_flow.c */
void case_rnr(void);
void case_retry(void);
void case_long_send(void);
void case_order(void);

#endif /* METAROCE_TESTS_ACCESS_H */
