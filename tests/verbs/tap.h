/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * TAP output shared by the verbs test programs: one "ok N - ..." or
 * "not ok N - ..." line per check.
 */
#ifndef METAROCE_TESTS_TAP_H
#define METAROCE_TESTS_TAP_H

#include <stdarg.h>
#include <stdio.h>

static int n_tests, n_failed;

static void __attribute__((format(printf, 2, 3)))
check(int cond, const char *fmt, ...)
{
	va_list ap;

	n_tests++;
	printf("%s %d - ", cond ? "ok" : "not ok", n_tests);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!cond)
		n_failed++;
	fflush(stdout);
}

#endif /* METAROCE_TESTS_TAP_H */
