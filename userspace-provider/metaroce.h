/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * MetaRoCE userspace provider for libibverbs.
 */
#ifndef METAROCE_H
#define METAROCE_H

#include <pthread.h>
#include <stdint.h>

#include <infiniband/driver.h>
#include <ccan/container_of.h>

#include "metaroce-abi.h"
#include "ring.h"

struct metaroce_device {
	struct verbs_device ibv_dev;
};

struct metaroce_context {
	struct verbs_context ibv_ctx;
	/* Reported by the kernel in the alloc_ucontext response. */
	uint32_t wire_version;
	uint32_t max_paths;
};

struct metaroce_wr_entry;

/*
 * The work requests of the extended post API (ibv_wr_*) between wr_start
 * and wr_complete; wr.c.
 */
struct metaroce_wr_batch {
	pthread_mutex_t lock;		/* held from wr_start to wr_complete */
	struct metaroce_wr_entry *wr;
	unsigned int n;			/* built */
	unsigned int cap;		/* allocated */
	int err;			/* first error while building, or 0 */
	bool enabled;			/* QP created with send_ops_flags */
};

struct metaroce_qp {
	struct verbs_qp vqp;
	struct metaroce_wr_batch batch;
	/* RC and UD QPs: send and receive rings shared with the kernel (ring.h) */
	pthread_spinlock_t sq_lock;	/* sq.local */
	pthread_spinlock_t rq_lock;	/* rq.local */
	struct metaroce_ring sq;
	struct metaroce_ring rq;
	uint32_t max_send_sge;		/* the caps create_qp returned */
	uint32_t max_recv_sge;
	uint32_t max_inline;		/* also for ibv_wr_set_inline_data */
};

/* An AH; num names it in UD send WQEs (0: the kernel gave none). */
struct metaroce_ah {
	struct ibv_ah ibv_ah;
	uint32_t num;
};

static inline struct metaroce_ah *to_mah(struct ibv_ah *ibah)
{
	return container_of(ibah, struct metaroce_ah, ibv_ah);
}

/* An SRQ; with a ring (ring.h), posting needs no syscall. */
struct metaroce_srq {
	struct ibv_srq ibv_srq;
	pthread_spinlock_t lock;	/* ring: local, and the ring itself */
	struct metaroce_ring ring;
	uint32_t max_sge;
};

static inline struct metaroce_srq *to_msrq(struct ibv_srq *ibsrq)
{
	return container_of(ibsrq, struct metaroce_srq, ibv_srq);
}

static inline struct metaroce_qp *to_mqp(struct ibv_qp *ibqp)
{
	return container_of(ibqp, struct metaroce_qp, vqp.qp);
}

static inline struct metaroce_device *to_mdev(struct ibv_device *ibdev)
{
	return container_of(ibdev, struct metaroce_device, ibv_dev.device);
}

static inline struct metaroce_context *to_mctx(struct ibv_context *ibctx)
{
	return container_of(ibctx, struct metaroce_context, ibv_ctx.context);
}

/* verbs.c */
int metaroce_query_device(struct ibv_context *context,
			  const struct ibv_query_device_ex_input *input,
			  struct ibv_device_attr_ex *attr, size_t attr_size);
int metaroce_query_port(struct ibv_context *context, uint8_t port,
			struct ibv_port_attr *attr);

/* mw.c: the window part of an IBV_WR_BIND_MW ring slot */
int metaroce_fill_bind_wqe(struct metaroce_send_wqe *w,
			   const struct ibv_send_wr *wr);

/* wr.c: the extended post API of a QP created with send_ops_flags */
int metaroce_wr_init(struct metaroce_qp *qp,
		     const struct ibv_qp_init_attr_ex *attr);
void metaroce_wr_cleanup(struct metaroce_qp *qp);

/* Verbs of each object type, merged into the context by metaroce.c. */
extern const struct verbs_context_ops metaroce_pd_ops;	/* verbs.c */
extern const struct verbs_context_ops metaroce_mr_ops;	/* mr.c */
extern const struct verbs_context_ops metaroce_mw_ops;	/* mw.c */
extern const struct verbs_context_ops metaroce_cq_ops;	/* cq.c */
extern const struct verbs_context_ops metaroce_qp_ops;	/* qp.c */
extern const struct verbs_context_ops metaroce_ah_ops;	/* ah.c */
extern const struct verbs_context_ops metaroce_srq_ops;	/* srq.c */

#endif /* METAROCE_H */
