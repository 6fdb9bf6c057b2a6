/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Shared by the verbs test programs that send traffic (loopback.c): one
 * device talking to itself through its IPv4 RoCEv2 GID. QPs of the one
 * PD are connected to each other inside one process, RC or UD, and
 * completions are waited for with a bound.
 */
#ifndef METAROCE_TESTS_LOOPBACK_H
#define METAROCE_TESTS_LOOPBACK_H

#include <stdbool.h>
#include <stdint.h>
#include <infiniband/verbs.h>

#include "tap.h"

#define WAIT_MS		5000	/* the longest wait for any completion */

extern struct ibv_context *ctx;
extern struct ibv_pd *pd;
extern int gid_idx;		/* the IPv4 RoCEv2 GID */
extern enum ibv_mtu mtu;	/* port 1's active MTU */

/*
 * open_arg(), then the GID (gid_idx -1 if there is none) and the MTU, and
 * allocates pd. Returns 0, or main's exit status; with ctx set, the caller
 * reports the missing GID in its own TAP line.
 */
int loop_open(int argc, char **argv);

/*
 * The end of main: pd deallocated, the device closed (one TAP line), the
 * summary; returns the exit status.
 */
int loop_close(void);

/* What an RC QP is connected with, beyond the peer's QPN and the PSNs. */
struct rc_attr {
	int access;			/* QP access flags */
	uint8_t timeout, retry_cnt, rnr_retry, min_rnr_timer;
};

/* Reads in flight either way that rc_connect() asks for (4). */
extern int rc_rd_atomic;

/*
 * RESET -> INIT -> RTR -> RTS towards QP dqpn of this device (a path to
 * our own GID), sending from sq_psn and expecting rq_psn.
 */
int rc_connect(struct ibv_qp *qp, uint32_t dqpn, uint32_t sq_psn,
	       uint32_t rq_psn, const struct rc_attr *a);

/*
 * UD QPs s (sender) and r (receiver) to RTS with qkey, and in *ah an
 * address handle for our own GID; 0, or -1 (with *ah NULL if it failed).
 */
int ud_pair_ready(struct ibv_qp *s, struct ibv_qp *r, uint32_t qkey,
		  struct ibv_ah **ah);

/* Two RC QPs of this device connected to each other, each with its CQ. */
struct pair {
	struct ibv_cq *cqa, *cqb;	/* each QP's send and receive CQ */
	struct ibv_qp *a, *b;		/* A requests, B responds */
};

/* How pair_make() builds a pair. */
struct pair_spec {
	int cqe;			/* entries of each CQ */
	struct ibv_qp_cap cap[2];	/* A's and B's, for ibv_create_qp() */
	/* Or this makes A (b false) and B on cq. */
	struct ibv_qp *(*mk_qp)(struct ibv_cq *cq, bool b);
	uint32_t psn_a, psn_b;		/* the PSNs each side sends from */
	uint32_t a_dqpn;		/* A's peer QPN; 0 is B's */
	struct rc_attr ra, rb;		/* A's and B's connection */
};

/*
 * A pair built to spec s, A and B connected to each other: 0, or -1 with
 * errno set and the pair freed.
 */
int pair_make(struct pair *p, const struct pair_spec *s);

/* Destroys what exists of the pair (NULLs are skipped) and zeroes it. */
void pair_free(struct pair *p);

/* Destroys what exists of a UD pair and its AH (NULLs are skipped). */
void ud_pair_free(struct ibv_ah *ah, struct ibv_qp *s, struct ibv_qp *r);

/* The QP's state; -1 if the query failed. */
enum ibv_qp_state qp_state(struct ibv_qp *qp);

/* A completion status for a note; -1 is "none came". */
const char *st(int s);

/* Next completion within ms: its status, or -1 (wc zeroed) if none came. */
int wait_wc(struct ibv_cq *cq, struct ibv_wc *wc, int ms);

/* No completion within ms; a note names what came instead. */
bool cq_quiet(struct ibv_cq *cq, int ms, const char *what);

#endif /* METAROCE_TESTS_LOOPBACK_H */
