// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Print the TSC rate in MHz, measured against CLOCK_MONOTONIC over one
 * second. The test kernel under TCG cannot calibrate its TSC, so its
 * /proc/cpuinfo has no "cpu MHz" and perftest, which converts cycles with
 * it, reports latencies of inf and bandwidths of 0; make bench gives
 * perftest this figure instead (tests/vm/bench-pair.sh).
 */
#include <stdio.h>
#include <time.h>
#include <x86intrin.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(void)
{
	double t0, t1;
	unsigned long long c0, c1;

	t0 = now();
	c0 = __rdtsc();
	do
		t1 = now();
	while (t1 - t0 < 1.0);
	c1 = __rdtsc();
	printf("%.3f\n", (c1 - c0) / (t1 - t0) / 1e6);
	return 0;
}
