/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * What the ring tests share: hiding the uverbs fd (to prove a verb makes
 * no command) and finding the rings mapped from it, to write them as a
 * hostile process would.
 */
#ifndef METAROCE_TESTS_RING_UTIL_H
#define METAROCE_TESTS_RING_UTIL_H

#include <stdint.h>
#include <rdma/metaroce-abi.h>

/*
 * Point the context's uverbs fd at /dev/null (write fails EBADF, ioctl
 * ENOTTY), so any uverbs command fails; returns the saved fd, or -1.
 */
int hide_cmd_fd(void);
void restore_cmd_fd(int saved);

/* The mapped queue of the uverbs device with this geometry, or NULL. */
struct metaroce_queue_hdr *find_ring(uint32_t elem_size, uint32_t num);

/* Slot idx of a mapped queue. */
void *ring_slot(struct metaroce_queue_hdr *h, uint32_t idx);

/* Publish prod, as the provider does (release: after the WQEs). */
void set_prod(struct metaroce_queue_hdr *h, uint32_t v);

struct ibv_qp;
/* The send doorbell, as the provider rings it: a post with no WRs. */
int doorbell_send(struct ibv_qp *qp);

#endif
