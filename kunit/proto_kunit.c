// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit glue for the MetaRoCE protocol cases in proto_cases.h and
 * seq_cases.h, which the host test (tests/host) runs too.
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/slab.h>

struct mt {
	struct kunit *test;
};

#define MT_CHECK(t, cond)	KUNIT_EXPECT_TRUE((t)->test, cond)
#define mt_log(t, fmt, ...)	kunit_info((t)->test, fmt "\n", ##__VA_ARGS__)

/* kmalloc of the exact size lets KASAN flag any decoder over-read. */
static void *mt_alloc(size_t len)
{
	return kmalloc(len ? len : 1, GFP_KERNEL);
}

static void mt_free(void *p)
{
	kfree(p);
}

#include "proto_cases.h"
#include "seq_cases.h"

/* Fewer than the host's 200k: this may run under emulation. */
#define MT_FUZZ_ITERS	50000
#define MT_FUZZ_SEED	1

#define MT_CASE(name)						\
static void name##_case(struct kunit *test)			\
{								\
	struct mt t = { .test = test };				\
								\
	test_##name(&t);					\
}

MT_CASE(roundtrip)
MT_CASE(golden)
MT_CASE(encode_rejects)
MT_CASE(truncation)
MT_CASE(base_rules)
MT_CASE(flag_rules)
MT_CASE(length_rules)
MT_CASE(ext_rules)
MT_CASE(reason_names)
MT_CASE(seg_len)
MT_CASE(psn)
MT_CASE(sack)
MT_CASE(sack_window)
MT_CASE(sack_model)
MT_CASE(sack_fresh)
MT_CASE(ack_due)

static void fuzz_case(struct kunit *test)
{
	struct mt t = { .test = test };

	test_fuzz(&t, MT_FUZZ_ITERS, MT_FUZZ_SEED);
}

static struct kunit_case mroce_wire_cases[] = {
	KUNIT_CASE(roundtrip_case),
	KUNIT_CASE(golden_case),
	KUNIT_CASE(encode_rejects_case),
	KUNIT_CASE(truncation_case),
	KUNIT_CASE(base_rules_case),
	KUNIT_CASE(flag_rules_case),
	KUNIT_CASE(length_rules_case),
	KUNIT_CASE(ext_rules_case),
	KUNIT_CASE(reason_names_case),
	KUNIT_CASE(seg_len_case),
	KUNIT_CASE_SLOW(fuzz_case),
	{}
};

static struct kunit_suite mroce_wire_suite = {
	.name = "metaroce_wire",
	.test_cases = mroce_wire_cases,
};

static struct kunit_case mroce_seq_cases[] = {
	KUNIT_CASE(psn_case),
	KUNIT_CASE(sack_case),
	KUNIT_CASE(sack_window_case),
	KUNIT_CASE(sack_model_case),
	KUNIT_CASE(sack_fresh_case),
	KUNIT_CASE(ack_due_case),
	{}
};

static struct kunit_suite mroce_seq_suite = {
	.name = "metaroce_psn_sack",
	.test_cases = mroce_seq_cases,
};

kunit_test_suites(&mroce_wire_suite, &mroce_seq_suite);

MODULE_DESCRIPTION("KUnit tests for the MetaRoCE wire protocol code");
MODULE_LICENSE("Dual BSD/GPL");
