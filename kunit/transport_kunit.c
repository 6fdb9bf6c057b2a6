// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit glue for the MetaRoCE transport algorithm cases in
 * transport_cases.h, which the host test (tests/host) runs too.
 */
#include <kunit/test.h>

struct mt {
	struct kunit *test;
};

#define MT_CHECK(t, cond)	KUNIT_EXPECT_TRUE((t)->test, cond)
#define mt_log(t, fmt, ...)	kunit_info((t)->test, fmt "\n", ##__VA_ARGS__)

#include "transport_cases.h"

#define MT_CASE(name)						\
static void name##_case(struct kunit *test)			\
{								\
	struct mt t = { .test = test };				\
								\
	test_tp_##name(&t);					\
}

MT_CASE(cc_window)
MT_CASE(cc_loss_settles)
MT_CASE(cc_once_per_rtt)
MT_CASE(cc_ecn_frac)
MT_CASE(only_marked_path)
MT_CASE(pacing)
MT_CASE(rtt)
MT_CASE(loss_sack)
MT_CASE(loss_timer)
MT_CASE(loss_rack)
MT_CASE(loss_ambiguous)
MT_CASE(spurious_undo)
MT_CASE(path_states)
MT_CASE(forget_events)
MT_CASE(tail_probe)
MT_CASE(tail_pick)
MT_CASE(init_share)
MT_CASE(full_after)
MT_CASE(silent_together)
MT_CASE(select)
MT_CASE(all_silent)
MT_CASE(ratehint)

static struct kunit_case mroce_cc_cases[] = {
	KUNIT_CASE(cc_window_case),
	KUNIT_CASE(cc_loss_settles_case),
	KUNIT_CASE(cc_once_per_rtt_case),
	KUNIT_CASE(cc_ecn_frac_case),
	KUNIT_CASE(only_marked_path_case),
	KUNIT_CASE(pacing_case),
	{}
};

static struct kunit_suite mroce_cc_suite = {
	.name = "metaroce_cc",
	.test_cases = mroce_cc_cases,
};

static struct kunit_case mroce_path_cases[] = {
	KUNIT_CASE(rtt_case),
	KUNIT_CASE(loss_sack_case),
	KUNIT_CASE(loss_timer_case),
	KUNIT_CASE(loss_rack_case),
	KUNIT_CASE(loss_ambiguous_case),
	KUNIT_CASE(spurious_undo_case),
	KUNIT_CASE(path_states_case),
	KUNIT_CASE(forget_events_case),
	KUNIT_CASE(tail_probe_case),
	KUNIT_CASE(tail_pick_case),
	KUNIT_CASE(init_share_case),
	KUNIT_CASE(full_after_case),
	KUNIT_CASE(silent_together_case),
	KUNIT_CASE(select_case),
	KUNIT_CASE(all_silent_case),
	{}
};

static struct kunit_suite mroce_path_suite = {
	.name = "metaroce_path",
	.test_cases = mroce_path_cases,
};

static struct kunit_case mroce_ratehint_cases[] = {
	KUNIT_CASE(ratehint_case),
	{}
};

static struct kunit_suite mroce_ratehint_suite = {
	.name = "metaroce_ratehint",
	.test_cases = mroce_ratehint_cases,
};

kunit_test_suites(&mroce_cc_suite, &mroce_path_suite, &mroce_ratehint_suite);
