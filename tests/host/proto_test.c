// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Host test driver for the MetaRoCE protocol code: runs the cases shared
 * with KUnit (kunit/proto_cases.h, seq_cases.h, transport_cases.h) under
 * ASan/UBSan. Every decode reads from a heap copy of the exact length, so
 * any over-read aborts the run.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "proto/compat.h"

struct mt {
	unsigned int passed;
	unsigned int failed;
};

static void mt_check(struct mt *t, bool ok, const char *expr,
		     const char *file, int line)
{
	if (ok) {
		t->passed++;
		return;
	}
	t->failed++;
	fprintf(stderr, "FAIL %s:%d: %s\n", file, line, expr);
}

#define MT_CHECK(t, cond)	mt_check(t, cond, #cond, __FILE__, __LINE__)

static void mt_log(struct mt *t, const char *fmt, ...)
{
	va_list ap;

	(void)t;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static void *mt_alloc(size_t len)
{
	return malloc(len ? len : 1);
}

static void mt_free(void *p)
{
	free(p);
}

#include "proto_cases.h"
#include "seq_cases.h"
#include "transport_cases.h"

int main(int argc, char **argv)
{
	unsigned long iters = argc > 1 ? strtoul(argv[1], NULL, 0) : 200000;
	unsigned long seed = argc > 2 ? strtoul(argv[2], NULL, 0) : 1;
	struct mt t = { 0, 0 };

	test_roundtrip(&t);
	test_golden(&t);
	test_encode_rejects(&t);
	test_truncation(&t);
	test_base_rules(&t);
	test_flag_rules(&t);
	test_length_rules(&t);
	test_ext_rules(&t);
	test_reason_names(&t);
	test_seg_len(&t);
	test_psn(&t);
	test_sack(&t);
	test_sack_window(&t);
	test_sack_model(&t);
	test_sack_fresh(&t);
	test_ack_due(&t);
	test_tp_cc_window(&t);
	test_tp_cc_loss_settles(&t);
	test_tp_cc_once_per_rtt(&t);
	test_tp_cc_ecn_frac(&t);
	test_tp_only_marked_path(&t);
	test_tp_pacing(&t);
	test_tp_rtt(&t);
	test_tp_loss_sack(&t);
	test_tp_loss_timer(&t);
	test_tp_loss_rack(&t);
	test_tp_loss_ambiguous(&t);
	test_tp_spurious_undo(&t);
	test_tp_path_states(&t);
	test_tp_forget_events(&t);
	test_tp_tail_probe(&t);
	test_tp_tail_pick(&t);
	test_tp_init_share(&t);
	test_tp_full_after(&t);
	test_tp_silent_together(&t);
	test_tp_select(&t);
	test_tp_all_silent(&t);
	test_tp_ratehint(&t);
	test_fuzz(&t, iters, seed);
	printf("%u passed, %u failed\n", t.passed, t.failed);
	return t.failed ? 1 : 0;
}
