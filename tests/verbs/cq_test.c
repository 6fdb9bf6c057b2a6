// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Completion queue verbs against a MetaRoCE device, through libibverbs.
 *
 *   cq_test DEVICE
 *
 * Prints TAP; exits non-zero if any check fails. No QP exists yet, so
 * completions themselves are not produced: this covers creation, sizing,
 * polling an empty CQ, arming, resizing, completion channels, the
 * extended CQ, bad input and teardown (explicit and on close).
 */

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <infiniband/verbs.h>

#include "tap.h"

/* Expect a NULL-returning call to have failed with errno @want. */
#define check_fails(ptr, want, ...)					\
	do {								\
		int _e = errno;						\
		check(!(ptr) && _e == (want), __VA_ARGS__);		\
		if (ptr || _e != (want))				\
			printf("# got %p, errno %d (%s), want %d\n",	\
			       (void *)(ptr), _e, strerror(_e), want);	\
	} while (0)

static int empty_poll(struct ibv_cq *cq)
{
	struct ibv_wc wc[8];

	return ibv_poll_cq(cq, 8, wc) == 0 && ibv_poll_cq(cq, 1, wc) == 0;
}

static void test_sizes(struct ibv_context *ctx, int max_cqe)
{
	int sizes[] = { 1, 2, 3, 7, 64, 100, 1000, 4096, 4097, max_cqe };
	unsigned int i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct ibv_cq *cq = ibv_create_cq(ctx, sizes[i], NULL, NULL, 0);

		check(cq && cq->cqe >= sizes[i] && cq->cqe <= max_cqe,
		      "create_cq cqe=%d reports cqe %d", sizes[i],
		      cq ? cq->cqe : -1);
		if (!cq)
			continue;
		check(empty_poll(cq), "cqe=%d: poll on empty CQ returns 0",
		      sizes[i]);
		check(ibv_destroy_cq(cq) == 0, "cqe=%d: destroy_cq", sizes[i]);
	}

	errno = 0;
	{
		struct ibv_cq *cq = ibv_create_cq(ctx, max_cqe + 1, NULL, NULL,
						  0);

		check_fails(cq, EINVAL, "create_cq cqe=max_cqe+1 fails EINVAL");
		if (cq)
			ibv_destroy_cq(cq);
	}
	{
		struct ibv_cq *cq = ibv_create_cq(ctx, 0, NULL, NULL, 0);

		check_fails(cq, EINVAL, "create_cq cqe=0 fails EINVAL");
		if (cq)
			ibv_destroy_cq(cq);
	}
	{
		struct ibv_cq *cq = ibv_create_cq(ctx, -5, NULL, NULL, 0);

		check_fails(cq, EINVAL, "create_cq cqe=-5 fails EINVAL");
		if (cq)
			ibv_destroy_cq(cq);
	}
	{
		struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, NULL,
						  ctx->num_comp_vectors);

		check_fails(cq, EINVAL,
			    "create_cq comp_vector=num_comp_vectors fails EINVAL");
		if (cq)
			ibv_destroy_cq(cq);
	}
	{
		struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, NULL,
						  ctx->num_comp_vectors - 1);

		check(cq != NULL, "create_cq on the last comp_vector (%d)",
		      ctx->num_comp_vectors - 1);
		if (cq)
			ibv_destroy_cq(cq);
	}
}

static void test_notify_resize(struct ibv_context *ctx, int max_cqe)
{
	struct ibv_cq *cq;
	int ret;

	cq = ibv_create_cq(ctx, 10, NULL, NULL, 0);
	check(cq != NULL, "create_cq for arm/resize");
	if (!cq)
		return;

	check(ibv_req_notify_cq(cq, 0) == 0, "req_notify_cq next completion");
	check(ibv_req_notify_cq(cq, 1) == 0, "req_notify_cq solicited only");
	check(ibv_req_notify_cq(cq, 0) == 0, "req_notify_cq re-arm");

	ret = ibv_resize_cq(cq, 1000);
	check(ret == 0 && cq->cqe >= 1000, "resize_cq up to 1000 (cqe %d, ret %d)",
	      cq->cqe, ret);
	check(empty_poll(cq), "poll after resize up returns 0");
	ret = ibv_resize_cq(cq, 5);
	check(ret == 0 && cq->cqe >= 5 && cq->cqe < 1000,
	      "resize_cq down to 5 (cqe %d, ret %d)", cq->cqe, ret);
	ret = ibv_resize_cq(cq, max_cqe);
	check(ret == 0 && cq->cqe == max_cqe, "resize_cq to max_cqe (cqe %d, ret %d)",
	      cq->cqe, ret);
	ret = ibv_resize_cq(cq, max_cqe + 1);
	check(ret == EINVAL, "resize_cq to max_cqe+1 fails EINVAL (ret %d)", ret);
	ret = ibv_resize_cq(cq, 0);
	check(ret == EINVAL, "resize_cq to 0 fails EINVAL (ret %d)", ret);
	check(cq->cqe == max_cqe, "failed resizes left the size alone");
	check(empty_poll(cq), "poll after resizes returns 0");
	check(ibv_req_notify_cq(cq, 0) == 0, "req_notify_cq after resize");
	check(ibv_destroy_cq(cq) == 0, "destroy armed CQ");
}

static void test_channel(struct ibv_context *ctx)
{
	struct ibv_comp_channel *ch, *ch2;
	struct ibv_cq *cq, *cq2, *ev_cq;
	void *ev_ctx;
	struct pollfd pfd;
	int flags, ret;

	ch = ibv_create_comp_channel(ctx);
	check(ch != NULL, "create_comp_channel");
	if (!ch)
		return;
	cq = ibv_create_cq(ctx, 32, (void *)0x1234, ch, 0);
	check(cq != NULL && cq->channel == ch && cq->cq_context == (void *)0x1234,
	      "create_cq on the channel");
	if (!cq) {
		ibv_destroy_comp_channel(ch);
		return;
	}
	cq2 = ibv_create_cq(ctx, 32, NULL, ch, 0);
	check(cq2 != NULL, "second CQ on the same channel");
	check(ibv_req_notify_cq(cq, 0) == 0, "arm the channel's CQ");
	if (cq2)
		check(ibv_req_notify_cq(cq2, 1) == 0, "arm the second CQ solicited");

	/* Nothing completed, so no event may be pending. */
	pfd.fd = ch->fd;
	pfd.events = POLLIN;
	check(poll(&pfd, 1, 100) == 0, "no completion event without completions");
	flags = fcntl(ch->fd, F_GETFL);
	fcntl(ch->fd, F_SETFL, flags | O_NONBLOCK);
	errno = 0;
	ret = ibv_get_cq_event(ch, &ev_cq, &ev_ctx);
	check(ret == -1 && errno == EAGAIN,
	      "ibv_get_cq_event on an idle channel would block");

	ret = ibv_destroy_comp_channel(ch);
	check(ret == EBUSY, "destroying a channel in use fails EBUSY (ret %d)",
	      ret);
	check(ibv_destroy_cq(cq) == 0, "destroy the channel's CQ first");
	if (cq2)
		check(ibv_destroy_cq(cq2) == 0, "destroy the second CQ");
	check(ibv_destroy_comp_channel(ch) == 0, "then destroy the channel");

	/* A channel whose CQ is never armed. */
	ch2 = ibv_create_comp_channel(ctx);
	cq = ch2 ? ibv_create_cq(ctx, 1, NULL, ch2, 0) : NULL;
	check(ch2 && cq, "unarmed CQ on a fresh channel");
	if (cq)
		ibv_destroy_cq(cq);
	if (ch2)
		check(ibv_destroy_comp_channel(ch2) == 0, "destroy the fresh channel");
}

static void test_cq_ex(struct ibv_context *ctx)
{
	struct ibv_cq_init_attr_ex attr = {
		.cqe = 100,
		.wc_flags = IBV_WC_STANDARD_FLAGS,
	};
	struct ibv_poll_cq_attr pattr = {};
	struct ibv_cq_ex *cq_ex;
	int ret;

	cq_ex = ibv_create_cq_ex(ctx, &attr);
	check(cq_ex != NULL, "create_cq_ex with the standard wc_flags");
	if (cq_ex) {
		struct ibv_cq *cq = ibv_cq_ex_to_cq(cq_ex);

		check(cq->cqe >= 100, "create_cq_ex reports cqe %d", cq->cqe);
		ret = ibv_start_poll(cq_ex, &pattr);
		check(ret == ENOENT, "start_poll on an empty CQ is ENOENT (%d)", ret);
		ret = ibv_start_poll(cq_ex, &pattr);
		check(ret == ENOENT, "start_poll again (lock released) is ENOENT");
		check(empty_poll(cq), "ibv_poll_cq on an extended CQ");
		check(ibv_req_notify_cq(cq, 0) == 0, "arm an extended CQ");
		check(ibv_destroy_cq(cq) == 0, "destroy the extended CQ");
	}

	attr.wc_flags = IBV_WC_EX_WITH_COMPLETION_TIMESTAMP;
	errno = 0;
	cq_ex = ibv_create_cq_ex(ctx, &attr);
	check_fails(cq_ex, EOPNOTSUPP, "create_cq_ex with timestamps fails EOPNOTSUPP");
	if (cq_ex)
		ibv_destroy_cq(ibv_cq_ex_to_cq(cq_ex));

	attr.wc_flags = IBV_WC_STANDARD_FLAGS;
	attr.comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS;
	attr.flags = IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN;
	errno = 0;
	cq_ex = ibv_create_cq_ex(ctx, &attr);
	check_fails(cq_ex, EOPNOTSUPP,
		    "create_cq_ex IGNORE_OVERRUN is refused by the kernel (EOPNOTSUPP)");
	if (cq_ex)
		ibv_destroy_cq(ibv_cq_ex_to_cq(cq_ex));

	attr.comp_mask = 0;
	attr.flags = 0;
	attr.cqe = 0;
	errno = 0;
	cq_ex = ibv_create_cq_ex(ctx, &attr);
	check_fails(cq_ex, EINVAL, "create_cq_ex cqe=0 fails EINVAL");
	if (cq_ex)
		ibv_destroy_cq(ibv_cq_ex_to_cq(cq_ex));
}

#define MANY 1000

static void test_many(struct ibv_context *ctx)
{
	static struct ibv_cq *cqs[MANY];
	int i, made = 0, destroyed = 0, cycles = 0;

	for (i = 0; i < MANY; i++) {
		cqs[i] = ibv_create_cq(ctx, 1 + (i % 300), NULL, NULL,
				       i % ctx->num_comp_vectors);
		if (cqs[i])
			made++;
	}
	check(made == MANY, "%d CQs alive at once (%d made)", MANY, made);
	for (i = 0; i < MANY; i++)
		if (cqs[i] && !ibv_destroy_cq(cqs[i]))
			destroyed++;
	check(destroyed == made, "all %d destroyed", made);

	for (i = 0; i < 2000; i++) {
		struct ibv_cq *cq = ibv_create_cq(ctx, 4096, NULL, NULL, 0);

		if (!cq)
			break;
		if (ibv_req_notify_cq(cq, i & 1) || ibv_destroy_cq(cq))
			break;
		cycles++;
	}
	check(cycles == 2000, "2000 create/arm/destroy cycles (%d done)", cycles);
}

/* CQs (one armed, one on a channel) left for the kernel to clean up. */
static void test_close_with_cqs(const char *name)
{
	struct ibv_context *ctx = open_dev(name);
	struct ibv_comp_channel *ch;
	struct ibv_cq *a, *b, *c;

	check(ctx != NULL, "second context on %s", name);
	if (!ctx)
		return;
	ch = ibv_create_comp_channel(ctx);
	a = ibv_create_cq(ctx, 100, NULL, NULL, 0);
	b = ibv_create_cq(ctx, 65536, NULL, ch, 0);
	c = ibv_create_cq(ctx, 1, NULL, NULL, 0);
	check(ch && a && b && c, "CQs to leave behind");
	if (b)
		ibv_req_notify_cq(b, 0);
	/* Deliberately leak the userspace objects: the fd close cleans up. */
	check(ibv_close_device(ctx) == 0, "close the context with CQs still open");
}

int main(int argc, char **argv)
{
	struct ibv_device_attr attr;
	struct ibv_context *ctx;
	int ret;

	ctx = open_arg(argc, argv);
	if (!ctx)
		goto out;
	memset(&attr, 0, sizeof(attr));
	ret = ibv_query_device(ctx, &attr);
	check(ret == 0 && attr.max_cqe > 0 && attr.max_cq > MANY,
	      "query_device: max_cqe %d, max_cq %d", attr.max_cqe, attr.max_cq);
	check(ctx->num_comp_vectors >= 1, "num_comp_vectors %d",
	      ctx->num_comp_vectors);

	test_sizes(ctx, attr.max_cqe);
	test_notify_resize(ctx, attr.max_cqe);
	test_channel(ctx);
	test_cq_ex(ctx);
	test_many(ctx);
	check(ibv_close_device(ctx) == 0, "close the context");
	test_close_with_cqs(argv[1]);
out:
	printf("1..%d\n", n_tests);
	printf("# %d passed, %d failed\n", n_tests - n_failed, n_failed);
	return n_failed ? 1 : 0;
}
