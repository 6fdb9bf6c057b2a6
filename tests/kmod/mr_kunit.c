// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit tests of the MetaRoCE MR code (mr.c) through the API the transport
 * uses: lookup, checks, copies, atomics, sge lists, fast registration,
 * invalidation, deregistration while in use and the zero-copy fragments
 * of user MRs. mr.c and sge.c are compiled in again
 * here and run against a fake, unregistered device and PDs; kernel memory
 * stands in for DMA MR and fast-reg MR pages (INFINIBAND_VIRT_DMA).
 */

#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/workqueue.h>

#include "mr.c"
#include "sge.c"

struct mr_env {
	struct mroce_dev *mdev;
	struct ib_pd *pd, *pd2;
};

static int mr_env_init(struct kunit *test)
{
	struct mr_env *env = kunit_kzalloc(test, sizeof(*env), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, env);
	env->mdev = kunit_kzalloc(test, sizeof(*env->mdev), GFP_KERNEL);
	env->pd = kunit_kzalloc(test, sizeof(*env->pd), GFP_KERNEL);
	env->pd2 = kunit_kzalloc(test, sizeof(*env->pd2), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, env->mdev);
	KUNIT_ASSERT_NOT_NULL(test, env->pd);
	KUNIT_ASSERT_NOT_NULL(test, env->pd2);
	env->pd->device = &env->mdev->ibdev;
	env->pd2->device = &env->mdev->ibdev;
	test->priv = env;
	return 0;
}

static void mr_env_exit(struct kunit *test)
{
	struct mr_env *env = test->priv;

	/* Every case deregisters what it registered. */
	KUNIT_EXPECT_EQ(test, atomic_read(&env->mdev->mr_count), 0);
	if (env->mdev->mr_ready) {
		KUNIT_EXPECT_TRUE(test, xa_empty(&env->mdev->mr_xa));
		xa_destroy(&env->mdev->mr_xa);
	}
}

static u64 va(const void *p)
{
	return (u64)(uintptr_t)p;
}

static void mr_dma(struct kunit *test)
{
	struct mr_env *env = test->priv;
	struct mroce_dev *mdev = env->mdev;
	u64 *buf = kunit_kzalloc(test, 64, GFP_KERNEL);
	struct mroce_mr *mr, *ref;
	struct ib_mr *ibmr;
	u8 data[16], back[16];
	u64 orig;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_EXPECT_TRUE(test, IS_ERR(mroce_get_dma_mr(env->pd,
							IB_ACCESS_REMOTE_WRITE)));
	ibmr = mroce_get_dma_mr(env->pd, IB_ACCESS_LOCAL_WRITE);
	KUNIT_ASSERT_FALSE(test, IS_ERR(ibmr));
	mr = to_mmr(ibmr);
	KUNIT_EXPECT_NE(test, ibmr->lkey, 0);
	KUNIT_EXPECT_EQ(test, ibmr->lkey, ibmr->rkey);

	ref = mroce_mr_lookup(mdev, ibmr->lkey, false);
	KUNIT_EXPECT_PTR_EQ(test, ref, mr);
	if (ref)
		mroce_mr_put(ref);
	KUNIT_EXPECT_NULL(test, mroce_mr_lookup(mdev, ibmr->lkey ^ 1, false));
	KUNIT_EXPECT_NULL(test, mroce_mr_lookup(mdev, ibmr->lkey + 0x100, true));
	KUNIT_EXPECT_NULL(test, mroce_mr_lookup(mdev, 0, false));

	KUNIT_EXPECT_EQ(test, mroce_mr_check(mr, env->pd, va(buf), 64, 0), 0);
	KUNIT_EXPECT_EQ(test, mroce_mr_check(mr, env->pd, va(buf), 64,
					     IB_ACCESS_LOCAL_WRITE), 0);
	KUNIT_EXPECT_EQ(test, mroce_mr_check(mr, env->pd, va(buf), 64,
					     IB_ACCESS_REMOTE_WRITE), -EACCES);
	KUNIT_EXPECT_EQ(test, mroce_mr_check(mr, env->pd2, va(buf), 64, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, mroce_mr_check(mr, env->pd, U64_MAX - 3, 8, 0),
			-ERANGE);
	KUNIT_EXPECT_EQ(test, mroce_mr_check(mr, env->pd, 0x1000, 8, 0),
			-ERANGE);
	/* Zero length: allowed whatever the address, PD and rights. */
	KUNIT_EXPECT_EQ(test, mroce_mr_check(mr, env->pd2, U64_MAX, 0,
					     IB_ACCESS_REMOTE_ATOMIC), 0);

	memset(data, 0xa5, sizeof(data));
	mroce_mr_copy(mr, va(buf) + 3, data, sizeof(data), true);
	KUNIT_EXPECT_EQ(test, ((u8 *)buf)[2], 0);
	KUNIT_EXPECT_EQ(test, ((u8 *)buf)[3], 0xa5);
	KUNIT_EXPECT_EQ(test, ((u8 *)buf)[18], 0xa5);
	KUNIT_EXPECT_EQ(test, ((u8 *)buf)[19], 0);
	mroce_mr_copy(mr, va(buf) + 3, back, sizeof(back), false);
	KUNIT_EXPECT_MEMEQ(test, back, data, sizeof(data));

	buf[4] = 40;
	KUNIT_EXPECT_EQ(test, mroce_mr_atomic(mr, va(&buf[4]), false, 0, 2,
					      &orig), 0);
	KUNIT_EXPECT_EQ(test, orig, 40);
	KUNIT_EXPECT_EQ(test, buf[4], 42);
	KUNIT_EXPECT_EQ(test, mroce_mr_atomic(mr, va(&buf[4]), true, 41, 7,
					      &orig), 0);
	KUNIT_EXPECT_EQ(test, orig, 42);
	KUNIT_EXPECT_EQ(test, buf[4], 42);
	KUNIT_EXPECT_EQ(test, mroce_mr_atomic(mr, va(&buf[4]), true, 42, 7,
					      &orig), 0);
	KUNIT_EXPECT_EQ(test, buf[4], 7);
	KUNIT_EXPECT_EQ(test, mroce_mr_atomic(mr, va(&buf[4]) + 4, false, 0, 1,
					      &orig), -EINVAL);

	/* Not a fast-reg MR: cannot be invalidated or fast-registered. */
	KUNIT_EXPECT_EQ(test, mroce_mr_invalidate(mdev, ibmr->rkey, env->pd),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, mroce_mr_fast_reg(mdev, ibmr, ibmr->lkey, 0),
			-EINVAL);

	KUNIT_EXPECT_EQ(test, mroce_dereg_mr(ibmr, NULL), 0);
	KUNIT_EXPECT_NULL(test, mroce_mr_lookup(mdev, ibmr->lkey, false));
}

#define NPG 3

struct frmr {
	struct page *pages[NPG];
	struct scatterlist sg[NPG];
	struct ib_mr *ibmr;
	u32 key;
};

/* A fast-reg MR over NPG separate pages, mapped at byte 100 of the first. */
static void frmr_setup(struct kunit *test, struct frmr *f, struct ib_pd *pd)
{
	unsigned int off = 100;
	int i;

	f->ibmr = mroce_alloc_mr(pd, IB_MR_TYPE_MEM_REG, 4);
	KUNIT_ASSERT_FALSE(test, IS_ERR(f->ibmr));
	sg_init_table(f->sg, NPG);
	for (i = 0; i < NPG; i++) {
		f->pages[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		KUNIT_ASSERT_NOT_NULL(test, f->pages[i]);
		sg_set_page(&f->sg[i], f->pages[i], PAGE_SIZE, 0);
	}
	KUNIT_ASSERT_EQ(test, ib_dma_map_sg(pd->device, f->sg, NPG,
					    DMA_BIDIRECTIONAL), NPG);
	f->ibmr->page_size = PAGE_SIZE;
	KUNIT_ASSERT_EQ(test, mroce_map_mr_sg(f->ibmr, f->sg, NPG, &off), NPG);
	KUNIT_EXPECT_EQ(test, f->ibmr->iova,
			va(page_address(f->pages[0])) + 100);
	KUNIT_EXPECT_EQ(test, f->ibmr->length, NPG * PAGE_SIZE - 100);
	f->key = (f->ibmr->lkey & ~0xff) | ((f->ibmr->lkey + 1) & 0xff);
}

static void frmr_teardown(struct kunit *test, struct frmr *f)
{
	int i;

	KUNIT_EXPECT_EQ(test, mroce_dereg_mr(f->ibmr, NULL), 0);
	for (i = 0; i < NPG; i++)
		__free_page(f->pages[i]);
}

static void mr_fast_reg(struct kunit *test)
{
	struct mr_env *env = test->priv;
	struct mroce_dev *mdev = env->mdev;
	int rw = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
		 IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC;
	u8 *data = kunit_kzalloc(test, 300, GFP_KERNEL);
	u8 *back = kunit_kzalloc(test, 300, GFP_KERNEL);
	struct mroce_mr *mr, *ref;
	struct frmr *fp = kunit_kzalloc(test, sizeof(*fp), GFP_KERNEL);
	u64 iova, len, orig;
	u8 *p0, *p1;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, data);
	KUNIT_ASSERT_NOT_NULL(test, back);
	KUNIT_ASSERT_NOT_NULL(test, fp);
	KUNIT_EXPECT_TRUE(test, IS_ERR(mroce_alloc_mr(env->pd, IB_MR_TYPE_SG_GAPS, 4)));
	KUNIT_EXPECT_TRUE(test, IS_ERR(mroce_alloc_mr(env->pd, IB_MR_TYPE_MEM_REG, 0)));
	KUNIT_EXPECT_TRUE(test, IS_ERR(mroce_alloc_mr(env->pd, IB_MR_TYPE_MEM_REG,
						      MROCE_MAX_FRMR_PAGES + 1)));

	frmr_setup(test, fp, env->pd);
	mr = to_mmr(fp->ibmr);
	iova = fp->ibmr->iova;
	len = fp->ibmr->length;

	/* Free until registered. */
	KUNIT_EXPECT_NULL(test, mroce_mr_lookup(mdev, fp->ibmr->lkey, false));
	KUNIT_EXPECT_EQ(test, mroce_mr_fast_reg(mdev, fp->ibmr, fp->key + 0x100, rw),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, mroce_mr_fast_reg(mdev, fp->ibmr, fp->key,
						IB_ACCESS_REMOTE_WRITE), -EINVAL);
	KUNIT_ASSERT_EQ(test, mroce_mr_fast_reg(mdev, fp->ibmr, fp->key, rw), 0);
	KUNIT_EXPECT_EQ(test, mroce_mr_fast_reg(mdev, fp->ibmr, fp->key, rw),
			-EINVAL);
	ref = mroce_mr_lookup(mdev, fp->key, true);
	KUNIT_EXPECT_PTR_EQ(test, ref, mr);
	if (ref)
		mroce_mr_put(ref);
	if (fp->key != fp->ibmr->lkey)
		KUNIT_EXPECT_NULL(test, mroce_mr_lookup(mdev, fp->ibmr->lkey, false));

	/* Bounds, overflow-safe. */
	KUNIT_EXPECT_EQ(test, mroce_mr_check(mr, env->pd, iova, len, rw), 0);
	KUNIT_EXPECT_EQ(test, mroce_mr_check(mr, env->pd, iova - 1, 2, 0), -ERANGE);
	KUNIT_EXPECT_EQ(test, mroce_mr_check(mr, env->pd, iova, len + 1, 0), -ERANGE);
	KUNIT_EXPECT_EQ(test, mroce_mr_check(mr, env->pd, iova + len - 1, 1, 0), 0);
	KUNIT_EXPECT_EQ(test, mroce_mr_check(mr, env->pd, iova + len, 1, 0), -ERANGE);
	KUNIT_EXPECT_EQ(test, mroce_mr_check(mr, env->pd, iova + 1, U64_MAX, 0),
			-ERANGE);
	KUNIT_EXPECT_EQ(test, mroce_mr_check(mr, env->pd, U64_MAX, 2, 0), -ERANGE);
	KUNIT_EXPECT_EQ(test, mroce_mr_check(mr, env->pd, iova + len + 5, 0, 0), 0);

	/* A copy across the first page boundary lands in both pages. */
	for (i = 0; i < 300; i++)
		data[i] = i;
	mroce_mr_copy(mr, iova + PAGE_SIZE - 100 - 150, data, 300, true);
	p0 = page_address(fp->pages[0]);
	p1 = page_address(fp->pages[1]);
	KUNIT_EXPECT_EQ(test, p0[PAGE_SIZE - 151], 0);
	KUNIT_EXPECT_EQ(test, p0[PAGE_SIZE - 150], 0);
	KUNIT_EXPECT_EQ(test, p0[PAGE_SIZE - 1], 149);
	KUNIT_EXPECT_EQ(test, p1[0], 150);
	KUNIT_EXPECT_EQ(test, p1[149], 299 & 0xff);
	KUNIT_EXPECT_EQ(test, p1[150], 0);
	mroce_mr_copy(mr, iova + PAGE_SIZE - 250, back, 300, false);
	KUNIT_EXPECT_MEMEQ(test, back, data, 300);
	/* The last byte of the MR. */
	mroce_mr_copy(mr, iova + len - 1, data + 7, 1, true);
	KUNIT_EXPECT_EQ(test, ((u8 *)page_address(fp->pages[NPG - 1]))[PAGE_SIZE - 1], 7);

	/* Atomics: iova is 4 mod 8 here. */
	KUNIT_EXPECT_EQ(test, mroce_mr_atomic(mr, iova + 4, false, 0, 5, &orig), 0);
	KUNIT_EXPECT_EQ(test, orig, 0);
	KUNIT_EXPECT_EQ(test, *(u64 *)(p0 + 104), 5);
	KUNIT_EXPECT_EQ(test, mroce_mr_atomic(mr, iova, false, 0, 5, &orig), -EINVAL);
	KUNIT_EXPECT_EQ(test, mroce_mr_atomic(mr, iova - 4, false, 0, 5, &orig),
			-ERANGE);
	KUNIT_EXPECT_EQ(test, mroce_mr_atomic(mr, iova + len, false, 0, 5, &orig),
			-ERANGE);

	/* Invalidation: right PD and key only; then gone, re-registrable. */
	KUNIT_EXPECT_EQ(test, mroce_mr_invalidate(mdev, fp->key, env->pd2), -EINVAL);
	KUNIT_EXPECT_EQ(test, mroce_mr_invalidate(mdev, fp->key ^ 0x80, env->pd),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, mroce_mr_invalidate(mdev, 0xffffff00, env->pd),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, mroce_mr_invalidate(mdev, fp->key, env->pd), 0);
	KUNIT_EXPECT_NULL(test, mroce_mr_lookup(mdev, fp->key, true));
	KUNIT_EXPECT_EQ(test, mroce_mr_check(mr, env->pd, iova, 1, 0), -EACCES);
	KUNIT_EXPECT_EQ(test, mroce_mr_atomic(mr, iova + 4, false, 0, 5, &orig),
			-EACCES);
	fp->key = (fp->key & ~0xff) | ((fp->key + 1) & 0xff);
	KUNIT_EXPECT_EQ(test, mroce_mr_fast_reg(mdev, fp->ibmr, fp->key, 0), 0);
	ref = mroce_mr_lookup(mdev, fp->key, false);
	KUNIT_EXPECT_NOT_NULL(test, ref);
	if (ref) {
		/* Read-only now: no write, local or atomic. */
		KUNIT_EXPECT_EQ(test, mroce_mr_check(ref, env->pd, iova, 1,
						     IB_ACCESS_LOCAL_WRITE), -EACCES);
		KUNIT_EXPECT_EQ(test, mroce_mr_atomic(ref, iova + 4, false, 0, 5,
						      &orig), -EACCES);
		mroce_mr_put(ref);
	}

	frmr_teardown(test, fp);
}

static void mr_sge(struct kunit *test)
{
	struct mr_env *env = test->priv;
	struct mroce_dev *mdev = env->mdev;
	u8 *a = kunit_kzalloc(test, 4096, GFP_KERNEL);
	u8 buf[64], back[64];
	struct ib_mr *rw, *ro;
	struct ib_sge sge[3];
	int i;

	KUNIT_ASSERT_NOT_NULL(test, a);
	rw = mroce_get_dma_mr(env->pd, IB_ACCESS_LOCAL_WRITE);
	ro = mroce_get_dma_mr(env->pd, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(rw));
	KUNIT_ASSERT_FALSE(test, IS_ERR(ro));

	sge[0] = (struct ib_sge){ .addr = va(a), .length = 10, .lkey = rw->lkey };
	sge[1] = (struct ib_sge){ .addr = 0, .length = 0, .lkey = 0xdead };
	sge[2] = (struct ib_sge){ .addr = va(a + 1000), .length = 100,
				  .lkey = rw->lkey };
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = 0x80 + i;

	/* Scatter 20 bytes at list offset 5: 5 into sge 0, 15 into sge 2. */
	KUNIT_EXPECT_EQ(test, mroce_sge_copy(mdev, env->pd, sge, 3, 5, buf, 20,
					     true), 0);
	KUNIT_EXPECT_EQ(test, a[4], 0);
	KUNIT_EXPECT_EQ(test, a[5], 0x80);
	KUNIT_EXPECT_EQ(test, a[9], 0x84);
	KUNIT_EXPECT_EQ(test, a[10], 0);
	KUNIT_EXPECT_EQ(test, a[1000], 0x85);
	KUNIT_EXPECT_EQ(test, a[1014], 0x93);
	KUNIT_EXPECT_EQ(test, a[1015], 0);
	KUNIT_EXPECT_EQ(test, mroce_sge_copy(mdev, env->pd, sge, 3, 5, back, 20,
					     false), 0);
	KUNIT_EXPECT_MEMEQ(test, back, buf, 20);

	/* Whole list exactly, one past, and zero bytes at the end. */
	KUNIT_EXPECT_EQ(test, mroce_sge_copy(mdev, env->pd, sge, 3, 0, a + 2000,
					     110, false), 0);
	KUNIT_EXPECT_EQ(test, mroce_sge_copy(mdev, env->pd, sge, 3, 0, a + 2000,
					     111, false), -ERANGE);
	KUNIT_EXPECT_EQ(test, mroce_sge_copy(mdev, env->pd, sge, 3, 50, back, 61,
					     false), -ERANGE);
	KUNIT_EXPECT_EQ(test, mroce_sge_copy(mdev, env->pd, sge, 3, 110, back, 0,
					     false), 0);
	KUNIT_EXPECT_EQ(test, mroce_sge_copy(mdev, env->pd, sge, 3, U64_MAX, back,
					     2, false), -ERANGE);

	/* Wrong PD, unknown lkey, read-only MR for a scatter. */
	KUNIT_EXPECT_EQ(test, mroce_sge_copy(mdev, env->pd2, sge, 3, 0, back, 4,
					     false), -EINVAL);
	sge[2].lkey = rw->lkey ^ 0x40;
	KUNIT_EXPECT_EQ(test, mroce_sge_copy(mdev, env->pd, sge, 3, 10, back, 4,
					     false), -EINVAL);
	sge[2].lkey = ro->lkey;
	KUNIT_EXPECT_EQ(test, mroce_sge_copy(mdev, env->pd, sge, 3, 10, back, 4,
					     false), 0);
	KUNIT_EXPECT_EQ(test, mroce_sge_copy(mdev, env->pd, sge, 3, 10, buf, 4,
					     true), -EINVAL);
	/* An sge address that wraps with the offset. */
	sge[2].addr = U64_MAX - 5;
	sge[2].lkey = rw->lkey;
	KUNIT_EXPECT_EQ(test, mroce_sge_copy(mdev, env->pd, sge, 3, 20, back, 4,
					     false), -EINVAL);

	KUNIT_EXPECT_EQ(test, mroce_dereg_mr(rw, NULL), 0);
	KUNIT_EXPECT_EQ(test, mroce_dereg_mr(ro, NULL), 0);
}

struct dereg_work {
	struct work_struct work;
	struct ib_mr *ibmr;
	struct completion done;
};

static void dereg_fn(struct work_struct *work)
{
	struct dereg_work *w = container_of(work, struct dereg_work, work);

	mroce_dereg_mr(w->ibmr, NULL);
	complete(&w->done);
}

static void mr_dereg_waits(struct kunit *test)
{
	struct mr_env *env = test->priv;
	struct mroce_dev *mdev = env->mdev;
	struct dereg_work w;
	struct mroce_mr *ref;
	u32 key;

	w.ibmr = mroce_get_dma_mr(env->pd, IB_ACCESS_LOCAL_WRITE);
	KUNIT_ASSERT_FALSE(test, IS_ERR(w.ibmr));
	key = w.ibmr->lkey;
	ref = mroce_mr_lookup(mdev, key, false);
	KUNIT_ASSERT_NOT_NULL(test, ref);

	init_completion(&w.done);
	INIT_WORK_ONSTACK(&w.work, dereg_fn);
	schedule_work(&w.work);
	msleep(100);
	/* Unfindable at once, but not freed while we hold a reference. */
	KUNIT_EXPECT_NULL(test, mroce_mr_lookup(mdev, key, false));
	KUNIT_EXPECT_FALSE(test, completion_done(&w.done));
	KUNIT_EXPECT_EQ(test, atomic_read(&mdev->mr_count), 1);
	mroce_mr_put(ref);
	KUNIT_EXPECT_TRUE(test, wait_for_completion_timeout(&w.done, 5 * HZ) > 0);
	flush_work(&w.work);
	destroy_work_on_stack(&w.work);
}

static void mr_keys(struct kunit *test)
{
	struct mr_env *env = test->priv;
	static struct ib_mr *mrs[200];
	u32 old;
	int i, j, dup = 0;

	for (i = 0; i < ARRAY_SIZE(mrs); i++) {
		mrs[i] = mroce_get_dma_mr(i & 1 ? env->pd : env->pd2, 0);
		KUNIT_ASSERT_FALSE(test, IS_ERR(mrs[i]));
	}
	for (i = 0; i < ARRAY_SIZE(mrs); i++)
		for (j = i + 1; j < ARRAY_SIZE(mrs); j++)
			dup += (mrs[i]->lkey >> 8) == (mrs[j]->lkey >> 8);
	KUNIT_EXPECT_EQ(test, dup, 0);
	old = mrs[0]->lkey;
	for (i = 0; i < ARRAY_SIZE(mrs); i++)
		KUNIT_EXPECT_EQ(test, mroce_dereg_mr(mrs[i], NULL), 0);
	/* The freed index is not the next one handed out. */
	mrs[0] = mroce_get_dma_mr(env->pd, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mrs[0]));
	KUNIT_EXPECT_NE(test, mrs[0]->lkey >> 8, old >> 8);
	KUNIT_EXPECT_EQ(test, mroce_dereg_mr(mrs[0], NULL), 0);
}

/* Byte j of page i of the stand-in user MR below. */
static u8 frag_byte(int i, unsigned int j)
{
	return (i * 7 + j) & 0xff;
}

static u8 frag_mr_byte(struct mroce_mr *mr, u64 iova)
{
	u64 off = mr->offset + iova - mr->iova;

	return frag_byte(off >> PAGE_SHIFT, offset_in_page(off));
}

/*
 * Zero-copy transmit: a user MR's pages go into the skb by reference, in
 * order, contiguous pieces of one page coalesce, and whatever refuses
 * (bounds, a missing page, the fragments running out, a kernel MR) leaves
 * the skb as it was and the page references balanced. The user MR is a
 * stand-in, never registered: kernel pages behind a user MR's fields.
 */
static void mr_frags(struct kunit *test)
{
	struct mr_env *env = test->priv;
	struct mroce_mr *mr = kunit_kzalloc(test, sizeof(*mr), GFP_KERNEL);
	unsigned int len, truesize, j;
	struct page *pages[3] = {};
	struct sk_buff *skb;
	struct ib_sge sge;
	struct ib_mr *dma;
	u8 *back, *p;
	int i, ref0, err;
	u64 iova;

	KUNIT_ASSERT_NOT_NULL(test, mr);
	back = kunit_kzalloc(test, 512, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, back);
	for (i = 0; i < ARRAY_SIZE(pages); i++) {
		pages[i] = alloc_page(GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, pages[i]);
		p = page_address(pages[i]);
		for (j = 0; j < PAGE_SIZE; j++)
			p[j] = frag_byte(i, j);
	}
	/* Marks the MR as a user MR; mroce_mr_frags() does not follow it. */
	mr->umem = (struct ib_umem *)mr;
	mr->pages = pages;
	mr->npages = ARRAY_SIZE(pages);
	mr->max_pages = ARRAY_SIZE(pages);
	mr->offset = 100;
	mr->iova = 0x7f0000000000ULL + 100;
	mr->length = ARRAY_SIZE(pages) * PAGE_SIZE - 100;
	skb = alloc_skb(64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb_put(skb, 16);
	ref0 = page_ref_count(pages[1]);

	/* 300 bytes across the end of page 0, then 100 more that coalesce. */
	iova = mr->iova + PAGE_SIZE - 100 - 50;
	KUNIT_EXPECT_EQ(test, mroce_mr_frags(mr, iova, skb, 300), 0);
	KUNIT_EXPECT_EQ(test, mroce_mr_frags(mr, iova + 300, skb, 100), 0);
	KUNIT_EXPECT_EQ(test, skb_shinfo(skb)->nr_frags, 2);
	KUNIT_EXPECT_PTR_EQ(test, skb_frag_page(&skb_shinfo(skb)->frags[0]),
			    pages[0]);
	KUNIT_EXPECT_EQ(test, skb_frag_off(&skb_shinfo(skb)->frags[0]),
			PAGE_SIZE - 50);
	KUNIT_EXPECT_EQ(test, skb_frag_size(&skb_shinfo(skb)->frags[0]), 50);
	KUNIT_EXPECT_PTR_EQ(test, skb_frag_page(&skb_shinfo(skb)->frags[1]),
			    pages[1]);
	KUNIT_EXPECT_EQ(test, skb_frag_size(&skb_shinfo(skb)->frags[1]), 350);
	KUNIT_EXPECT_EQ(test, page_ref_count(pages[1]), ref0 + 1);
	KUNIT_EXPECT_EQ(test, skb->len, 16 + 400);
	KUNIT_EXPECT_EQ(test, skb->data_len, 400);
	KUNIT_ASSERT_EQ(test, skb_copy_bits(skb, 16, back, 400), 0);
	for (j = 0; j < 400; j++)
		if (back[j] != frag_mr_byte(mr, iova + j))
			break;
	KUNIT_EXPECT_EQ(test, j, 400);
	len = skb->len;
	truesize = skb->truesize;

	/* Past the MR's end, and a page the MR does not have. */
	KUNIT_EXPECT_EQ(test, mroce_mr_frags(mr, mr->iova + mr->length - 10,
					     skb, 11), -EOPNOTSUPP);
	mr->npages = 1;
	err = mroce_mr_frags(mr, mr->iova + PAGE_SIZE - 150, skb, 200);
	KUNIT_EXPECT_EQ(test, err, -EOPNOTSUPP);
	mroce_skb_drop_frags(skb, 2);
	mr->npages = ARRAY_SIZE(pages);
	KUNIT_EXPECT_EQ(test, skb->len, len);

	/* One-byte pieces with gaps until the fragments run out. */
	for (i = 0; i < 2 * MAX_SKB_FRAGS; i++) {
		err = mroce_mr_frags(mr, mr->iova + 2 * i, skb, 1);
		if (err)
			break;
	}
	KUNIT_EXPECT_EQ(test, err, -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, skb_shinfo(skb)->nr_frags, MAX_SKB_FRAGS);
	mroce_skb_drop_frags(skb, 2);
	KUNIT_EXPECT_EQ(test, skb_shinfo(skb)->nr_frags, 2);
	KUNIT_EXPECT_EQ(test, skb->len, len);
	KUNIT_EXPECT_EQ(test, skb->truesize, truesize);

	/* A kernel MR is copied, not referenced: the skb stays as it was. */
	dma = mroce_get_dma_mr(env->pd, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(dma));
	sge = (struct ib_sge){ .addr = va(back), .length = 512,
			       .lkey = dma->lkey };
	KUNIT_EXPECT_EQ(test, mroce_sge_frags(env->mdev, env->pd, &sge, 1, 0,
					      skb, 300), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, mroce_sge_frags(env->mdev, env->pd2, &sge, 1, 0,
					      skb, 300), -EINVAL);
	KUNIT_EXPECT_EQ(test, mroce_sge_frags(env->mdev, env->pd, &sge, 1, 500,
					      skb, 13), -ERANGE);
	KUNIT_EXPECT_EQ(test, skb_shinfo(skb)->nr_frags, 2);
	KUNIT_EXPECT_EQ(test, skb->len, len);
	KUNIT_EXPECT_EQ(test, mroce_dereg_mr(dma, NULL), 0);

	kfree_skb(skb);
	KUNIT_EXPECT_EQ(test, page_ref_count(pages[1]), ref0);
	for (i = 0; i < ARRAY_SIZE(pages); i++)
		__free_page(pages[i]);
}

static struct kunit_case mr_cases[] = {
	KUNIT_CASE(mr_dma),
	KUNIT_CASE(mr_fast_reg),
	KUNIT_CASE(mr_sge),
	KUNIT_CASE(mr_dereg_waits),
	KUNIT_CASE(mr_keys),
	KUNIT_CASE(mr_frags),
	{}
};

static struct kunit_suite mr_suite = {
	.name = "metaroce_mr",
	.init = mr_env_init,
	.exit = mr_env_exit,
	.test_cases = mr_cases,
};

kunit_test_suite(mr_suite);

MODULE_DESCRIPTION("KUnit tests of MetaRoCE memory regions");
MODULE_LICENSE("Dual BSD/GPL");
