/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Shared by the verbs test programs: TAP output (one "ok N - ..." or
 * "not ok N - ..." line per check) and opening a device by name.
 */
#ifndef METAROCE_TESTS_TAP_H
#define METAROCE_TESTS_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <infiniband/verbs.h>

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

static struct ibv_context *open_dev(const char *name)
{
	struct ibv_context *ctx = NULL;
	struct ibv_device **list;
	int i, n;

	list = ibv_get_device_list(&n);
	if (!list)
		return NULL;
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	return ctx;
}

#endif /* METAROCE_TESTS_TAP_H */
