// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* TAP output and device opening shared by the verbs test programs. */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <infiniband/verbs.h>

#include "tap.h"

int n_tests, n_failed;

void check(int cond, const char *fmt, ...)
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

void note(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

struct ibv_context *open_dev(const char *name)
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

struct ibv_context *open_arg(int argc, char **argv)
{
	struct ibv_context *ctx;

	if (argc < 2) {
		fprintf(stderr, "usage: %s DEVICE [...]\n", argv[0]);
		exit(2);
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	ctx = open_dev(argv[1]);
	check(ctx != NULL, "open %s", argv[1]);
	return ctx;
}

int tap_done(void)
{
	printf("%d passed, %d failed\n", n_tests - n_failed, n_failed);
	return n_failed ? 1 : 0;
}

long kmem_kb(void)
{
	char line[128];
	long kb, sum = 0;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Slab: %ld", &kb) == 1 ||
		    sscanf(line, "VmallocUsed: %ld", &kb) == 1)
			sum += kb;
	fclose(f);
	return sum;
}
