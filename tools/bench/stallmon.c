// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * stallmon [MS]: wake every millisecond at the highest realtime priority
 * and print "epoch_seconds gap_ms" when a wakeup came MS (15) or more
 * milliseconds after the one before; epoch_seconds is when it came.
 *
 * The plane failure bench (tests/vm/bench-fabric.sh) runs it beside the
 * transfer: under TCG the guest now and then leaves even a realtime task
 * waiting for tens of milliseconds while QEMU's vCPU thread stays busy
 * (the host is not descheduling it), and the one-VM fabric's goodput
 * dips with it. A gap here marks such a stretch, so a dip under one can
 * be told from what the transport does.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double secs(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct sched_param sp = {
		.sched_priority = sched_get_priority_max(SCHED_FIFO),
	};
	const struct timespec tick = { 0, 1000000 };
	double lim = (argc > 1 ? atof(argv[1]) : 15) / 1e3, t0, t1;

	if (sched_setscheduler(0, SCHED_FIFO, &sp))
		perror("stallmon: SCHED_FIFO");
	setvbuf(stdout, NULL, _IOLBF, 0);
	t0 = secs(CLOCK_MONOTONIC);
	for (;;) {
		clock_nanosleep(CLOCK_MONOTONIC, 0, &tick, NULL);
		t1 = secs(CLOCK_MONOTONIC);
		if (t1 - t0 >= lim) {
			printf("%.6f %.1f\n", secs(CLOCK_REALTIME),
			       (t1 - t0) * 1e3);
			/* The line's own write is not the guest's stall. */
			t1 = secs(CLOCK_MONOTONIC);
		}
		t0 = t1;
	}
}
