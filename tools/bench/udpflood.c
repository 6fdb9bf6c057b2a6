// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * What the wire between the two bench guests carries with no transport on
 * it: UDP datagrams from one process to another, as fast as the sender's
 * socket takes them.
 *
 *   udpflood recv PORT          count datagrams until 1 s passes with none
 *   udpflood send ADDR PORT LEN SECS
 *
 * Both print "packets bytes seconds", the receiver from its first datagram
 * to its last. Batches of 64 per system call (sendmmsg, recvmmsg), so the
 * processes' own cost stays small beside the stack's and QEMU's: what is
 * left is about the most any transport moves between the two guests
 * (tests/vm/bench-pair.sh, part wire). One datagram per call moved half
 * as much.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BATCH	64
#define MAXLEN	65507

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int flood_recv(int s, struct sockaddr_in *a)
{
	static char buf[BATCH][2048];
	struct mmsghdr m[BATCH] = {};
	struct iovec iov[BATCH];
	struct timeval tv = { 1, 0 };
	int rcvbuf = 4 << 20, i, n;
	long long pkts = 0, bytes = 0;
	double t0 = 0, t1 = 0;

	setsockopt(s, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (bind(s, (struct sockaddr *)a, sizeof(*a))) {
		perror("udpflood: bind");
		return 1;
	}
	for (i = 0; i < BATCH; i++) {
		iov[i].iov_base = buf[i];
		iov[i].iov_len = sizeof(buf[i]);
		m[i].msg_hdr.msg_iov = &iov[i];
		m[i].msg_hdr.msg_iovlen = 1;
	}
	/* No timeout until the first datagram: the sender starts later. */
	while ((n = recvmmsg(s, m, BATCH, MSG_WAITFORONE, NULL)) > 0 ||
	       (n < 0 && errno == EINTR)) {
		if (n < 0)
			continue;
		if (!pkts) {
			t0 = now();
			setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		}
		t1 = now();
		for (i = 0; i < n; i++)
			bytes += m[i].msg_len;
		pkts += n;
	}
	printf("%lld %lld %.6f\n", pkts, bytes, t1 - t0);
	return !pkts;
}

static int flood_send(int s, struct sockaddr_in *a, int len, double secs)
{
	static char buf[MAXLEN];
	struct mmsghdr m[BATCH] = {};
	struct iovec iov = { buf, len };
	long long pkts = 0;
	double t0, t;
	int i, n;

	if (connect(s, (struct sockaddr *)a, sizeof(*a))) {
		perror("udpflood: connect");
		return 1;
	}
	for (i = 0; i < BATCH; i++) {
		m[i].msg_hdr.msg_iov = &iov;
		m[i].msg_hdr.msg_iovlen = 1;
	}
	t0 = now();
	while ((t = now() - t0) < secs) {
		n = sendmmsg(s, m, BATCH, 0);
		/* A refused port (ICMP) or a full queue: go on. */
		if (n > 0)
			pkts += n;
	}
	printf("%lld %lld %.6f\n", pkts, pkts * len, t);
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	int s = socket(AF_INET, SOCK_DGRAM, 0);

	if (s < 0) {
		perror("udpflood: socket");
		return 1;
	}
	if (argc == 3 && !strcmp(argv[1], "recv")) {
		a.sin_port = htons(atoi(argv[2]));
		return flood_recv(s, &a);
	}
	if (argc == 6 && !strcmp(argv[1], "send") &&
	    inet_pton(AF_INET, argv[2], &a.sin_addr) == 1 &&
	    atoi(argv[4]) > 0 && atoi(argv[4]) <= MAXLEN) {
		a.sin_port = htons(atoi(argv[3]));
		return flood_send(s, &a, atoi(argv[4]), atof(argv[5]));
	}
	fprintf(stderr, "usage: udpflood recv PORT | udpflood send ADDR PORT LEN SECS\n");
	return 2;
}
