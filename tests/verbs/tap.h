/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Shared by the verbs test programs (tap.c): TAP output (one "ok N - ..."
 * or "not ok N - ..." line per check, "# " lines for what was seen),
 * opening the device named on the command line, and a clock for bounded
 * waits.
 */
#ifndef METAROCE_TESTS_TAP_H
#define METAROCE_TESTS_TAP_H

#include <infiniband/verbs.h>

extern int n_tests, n_failed;

void check(int cond, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Milliseconds on the monotonic clock. */
double now_ms(void);

struct ibv_context *open_dev(const char *name);

/*
 * The start of main: the first argument names the device (else usage
 * and exit 2); stdout is line-buffered so TAP lines interleave with stderr in
 * order; the device is opened with one TAP line. NULL if it did not open.
 */
struct ibv_context *open_arg(int argc, char **argv);

/*
 * Slab and vmalloc in use (/proc/meminfo), in KiB: where a QP's kernel
 * memory is; -1 if unreadable.
 */
long kmem_kb(void);

/* The end of main: a "N passed, M failed" line; the exit status. */
int tap_done(void);

#endif /* METAROCE_TESTS_TAP_H */
