// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Memory region verbs against a MetaRoCE device, through libibverbs.
 *
 *   mr_test DEVICE
 *
 * Prints TAP; exits non-zero if any check fails. Covers registration of
 * various sizes, alignments and access flags, key uniqueness, bad input
 * and its errno, protection domain lifetime and teardown (explicit and on
 * close). No QP exists yet, so data does not move through the MRs here.
 */

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#define ALL_ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
		    IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)
#define MANY	1000

#include "tap.h"

/* A registration that must fail with errno @want (or @want2). */
static void reg_fails(struct ibv_pd *pd, void *addr, size_t len, int access,
		      int want, int want2, const char *what)
{
	struct ibv_mr *mr;
	int e;

	errno = 0;
	mr = ibv_reg_mr(pd, addr, len, access);
	e = errno;
	check(!mr && (e == want || e == want2), "%s fails with %s", what,
	      strerror(want));
	if (mr) {
		printf("# unexpectedly registered: lkey %#x\n", mr->lkey);
		ibv_dereg_mr(mr);
	} else if (e != want && e != want2) {
		printf("# errno %d (%s)\n", e, strerror(e));
	}
}

static int keys_distinct(struct ibv_mr **mrs, int n)
{
	int i, j;

	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (mrs[i]->lkey == mrs[j]->lkey ||
			    mrs[i]->rkey == mrs[j]->rkey)
				return 0;
	return 1;
}

/* Registrations that must succeed; returns how many it left in mrs. */
static int test_good(struct ibv_pd *pd, struct ibv_mr **mrs, char *buf,
		     char *big, size_t big_len)
{
	struct {
		void *addr;
		size_t len;
		int access;
		const char *what;
	} cases[] = {
		{ buf, 1, IBV_ACCESS_LOCAL_WRITE, "1 byte, local write" },
		{ buf + 3, 5000, IBV_ACCESS_REMOTE_READ,
		  "unaligned 5000 bytes at +3, remote read" },
		{ buf + 4095, 2, ALL_ACCESS,
		  "2 bytes straddling a page boundary, all access" },
		{ buf, 4096, 0, "one page, read-only (access 0)" },
		{ big, big_len, ALL_ACCESS, "8 MiB, all access" },
		{ big + 1, big_len - 2, IBV_ACCESS_LOCAL_WRITE |
		  IBV_ACCESS_REMOTE_WRITE, "8 MiB - 2 at +1, remote write" },
		{ buf, 4096, IBV_ACCESS_LOCAL_WRITE,
		  "the same page again, local write" },
		{ buf, 100, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND |
		  IBV_ACCESS_RELAXED_ORDERING, "MW_BIND and relaxed ordering" },
	};
	int i, n = 0;

	for (i = 0; i < (int)(sizeof(cases) / sizeof(cases[0])); i++) {
		struct ibv_mr *mr = ibv_reg_mr(pd, cases[i].addr, cases[i].len,
					       cases[i].access);

		check(mr != NULL, "reg_mr %s", cases[i].what);
		if (!mr) {
			printf("# errno %d (%s)\n", errno, strerror(errno));
			continue;
		}
		check(mr->lkey && mr->rkey, "%s: lkey %#x and rkey %#x nonzero",
		      cases[i].what, mr->lkey, mr->rkey);
		check(mr->addr == cases[i].addr && mr->length == cases[i].len &&
		      mr->pd == pd, "%s: addr, length and pd reported",
		      cases[i].what);
		mrs[n++] = mr;
	}
	check(keys_distinct(mrs, n), "all %d MRs have distinct lkeys and rkeys",
	      n);

	/* The registered memory is still the process's own. */
	memset(big, 0x5a, big_len);
	check(big[big_len - 1] == 0x5a, "8 MiB MR memory stays usable");
	return n;
}

static void test_bad(struct ibv_pd *pd, char *buf)
{
	char *hole, *ro;
	long pg = sysconf(_SC_PAGESIZE);

	reg_fails(pd, buf, 64, IBV_ACCESS_REMOTE_WRITE, EINVAL, EINVAL,
		  "remote write without local write");
	reg_fails(pd, buf, 64, IBV_ACCESS_REMOTE_ATOMIC, EINVAL, EINVAL,
		  "remote atomic without local write");
	reg_fails(pd, buf, 64, IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
		  EINVAL, EINVAL, "remote read+write without local write");
	reg_fails(pd, buf, 0, IBV_ACCESS_LOCAL_WRITE, EINVAL, EINVAL,
		  "length 0");
	reg_fails(pd, buf, SIZE_MAX, IBV_ACCESS_LOCAL_WRITE, EINVAL, EINVAL,
		  "length SIZE_MAX (wraps)");
	reg_fails(pd, buf, (size_t)1 << 40, IBV_ACCESS_LOCAL_WRITE, EFAULT,
		  ENOMEM, "1 TiB, mostly unmapped");
	reg_fails(pd, (void *)(uintptr_t)-4096, 8192, 0, EINVAL, EFAULT,
		  "range past the top of the address space");
	reg_fails(pd, buf, 64, 1 << 15, EINVAL, EINVAL, "unknown access bit");
	reg_fails(pd, buf, 64, IBV_ACCESS_ON_DEMAND | IBV_ACCESS_LOCAL_WRITE,
		  EOPNOTSUPP, EINVAL, "on-demand paging (unsupported)");

	hole = mmap(NULL, 4 * pg, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (hole == MAP_FAILED) {
		check(0, "mmap");
		return;
	}
	munmap(hole, 4 * pg);
	reg_fails(pd, hole, 4 * pg, IBV_ACCESS_LOCAL_WRITE, EFAULT, EFAULT,
		  "unmapped address");
	reg_fails(pd, hole + 1, 1, 0, EFAULT, EFAULT,
		  "unmapped address, 1 byte read-only");

	/* Half mapped: the pages pinned before the hole must be released. */
	hole = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (hole != MAP_FAILED) {
		munmap(hole + pg, pg);
		reg_fails(pd, hole, 2 * pg, IBV_ACCESS_LOCAL_WRITE, EFAULT,
			  EFAULT, "range running into an unmapped page");
		munmap(hole, pg);
	}

	ro = mmap(NULL, pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ro != MAP_FAILED) {
		struct ibv_mr *mr;

		reg_fails(pd, ro, pg, IBV_ACCESS_LOCAL_WRITE, EFAULT, EFAULT,
			  "read-only mapping with local write");
		mr = ibv_reg_mr(pd, ro, pg, IBV_ACCESS_REMOTE_READ);
		check(mr != NULL, "read-only mapping with remote read only");
		if (mr)
			check(ibv_dereg_mr(mr) == 0, "dereg it");
		munmap(ro, pg);
	}
}

static void test_iova(struct ibv_pd *pd, char *buf)
{
	struct ibv_mr *mr;

	mr = ibv_reg_mr_iova(pd, buf + 16, 4096, 0x10000000 + 16,
			     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
	check(mr != NULL, "reg_mr_iova with another iova, same page offset");
	if (mr)
		check(ibv_dereg_mr(mr) == 0, "dereg the iova MR");
	errno = 0;
	mr = ibv_reg_mr_iova(pd, buf + 16, 4096, 0x10000000 + 17,
			     IBV_ACCESS_LOCAL_WRITE);
	check(!mr && errno == EINVAL,
	      "reg_mr_iova with a different page offset fails with EINVAL");
	if (mr)
		ibv_dereg_mr(mr);
	errno = 0;
	mr = ibv_reg_mr_iova(pd, buf, 8192, UINT64_MAX - 4095,
			     IBV_ACCESS_LOCAL_WRITE);
	check(!mr && errno == EINVAL,
	      "reg_mr_iova whose iova range wraps fails with EINVAL");
	if (mr)
		ibv_dereg_mr(mr);
}

static void test_many(struct ibv_pd *pd, char *buf)
{
	static struct ibv_mr *mrs[MANY];
	uint32_t first_key = 0;
	int i, n, ok = 1;

	for (n = 0; n < MANY; n++) {
		mrs[n] = ibv_reg_mr(pd, buf + (n % 4096), 1 + n % 5000,
				    IBV_ACCESS_LOCAL_WRITE);
		if (!mrs[n])
			break;
	}
	check(n == MANY, "%d MRs on one buffer", MANY);
	check(keys_distinct(mrs, n), "their %d keys are distinct", n);
	for (i = 0; i < n; i++)
		ok &= ibv_dereg_mr(mrs[i]) == 0;
	check(ok, "dereg all %d", n);

	/* A key is not reused right away after dereg. */
	for (i = 0; i < 50 && ok; i++) {
		struct ibv_mr *mr = ibv_reg_mr(pd, buf, 64, 0);

		if (!mr) {
			ok = 0;
			break;
		}
		if (i == 0)
			first_key = mr->lkey;
		else if (mr->lkey == first_key)
			ok = 0;
		ok &= ibv_dereg_mr(mr) == 0;
	}
	check(ok, "50 register/deregister cycles never reuse a key");
}

int main(int argc, char **argv)
{
	struct ibv_mr *mrs[16], *mr;
	struct ibv_context *ctx;
	struct ibv_pd *pd, *pd2;
	size_t big_len = 8 << 20;
	char *buf, *big;
	int i, n, ok;

	ctx = open_arg(argc, argv);
	if (!ctx)
		return 1;
	pd = ibv_alloc_pd(ctx);
	pd2 = ibv_alloc_pd(ctx);
	check(pd && pd2, "alloc two PDs");
	if (!pd || !pd2)
		return 1;

	buf = aligned_alloc(4096, 4 * 4096 + 4096);
	big = malloc(big_len);
	if (!buf || !big)
		return 1;
	memset(buf, 0, 5 * 4096);

	n = test_good(pd, mrs, buf, big, big_len);
	test_bad(pd, buf);
	test_iova(pd, buf);
	test_many(pd2, buf);

	/* A PD with MRs cannot go; after dereg it can. */
	errno = 0;
	i = ibv_dealloc_pd(pd);
	check(i == EBUSY, "dealloc_pd with %d MRs fails with EBUSY", n);
	if (i != EBUSY)
		printf("# got %d (%s)\n", i, strerror(i));
	ok = 1;
	for (i = 0; i < n; i++)
		ok &= ibv_dereg_mr(mrs[i]) == 0;
	check(ok, "dereg the %d MRs", n);
	check(ibv_dealloc_pd(pd) == 0, "dealloc_pd after dereg");

	/* Left registered on purpose: closing the device must release it. */
	mr = ibv_reg_mr(pd2, big, big_len, ALL_ACCESS);
	check(mr != NULL, "8 MiB MR left for close to release");
	check(ibv_close_device(ctx) == 0, "close with an MR and a PD open");

	free(big);
	free(buf);
	return tap_done();
}
