// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * mroce-verify: moves seeded random patterns over an RC QP with every
 * opcode (SEND, SEND_WITH_IMM, RDMA_WRITE, RDMA_WRITE_WITH_IMM, RDMA_READ,
 * ATOMIC_CMP_AND_SWP, ATOMIC_FETCH_AND_ADD), sizes from 0 bytes to 8 MiB,
 * scatter/gather lists and inline data, and verifies every byte.
 *
 *   server:    mroce-verify -s [-a BINDADDR] [-p PORT] [-d DEV]
 *   client:    mroce-verify -c SERVER [-p PORT] [-d DEV] [options]
 *   loopback:  mroce-verify -L -d DEV            (two QPs, one process)
 *
 * Exit status: 0 all intact, 1 corruption or a failure, 2 usage,
 * 3 timeout. Every wait is bounded; a watchdog ends a stuck process.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mverify.h"

const char *const op_names[OP_NR] = {
	[OP_SEND] = "send", [OP_SEND_IMM] = "send_imm", [OP_WRITE] = "write",
	[OP_WRITE_IMM] = "write_imm", [OP_READ] = "read", [OP_CAS] = "cas",
	[OP_FAA] = "faa",
};

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void logmsg(const struct mv_ep *ep, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&log_lock);
	fflush(stdout);
	fprintf(stderr, "mroce-verify %s: ", ep->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	pthread_mutex_unlock(&log_lock);
}

static void usage(void)
{
	fprintf(stderr,
"usage: mroce-verify (-s | -c ADDR | -L) [options]\n"
"  -s            server (responder); one client, then exit\n"
"  -c ADDR       client: connect to ADDR\n"
"  -L            self-loopback: server and client in this process, two QPs\n"
"                on one device (method local by default)\n"
"  -d DEV        RDMA device (rdma_cm: fail if the route uses another)\n"
"  -a ADDR       server bind address (default any)\n"
"  -p PORT       rdma_cm or TCP port (default 18515)\n"
"  -m METHOD     cm (default), tcp (QP attributes over TCP), local (-L)\n"
"  -g IDX        GID index for tcp/local (default: first RoCEv2 IPv4 one)\n"
"  -x SEED       pattern and size seed (default 1)\n"
"  -n N          iterations over the size list (default 1)\n"
"  -S BYTES      largest message, K/M suffix (default 8M)\n"
"  -r N          random sizes per iteration (default 8)\n"
"  -T SECS       stop issuing messages after SECS (default: no limit)\n"
"  -w SECS       limit on any single wait (default 30)\n"
"  -W SECS       connection setup limit (default 60)\n"
"  -H SECS       watchdog: abort the process after SECS (default derived)\n"
"  -o OPS        comma list of send,send_imm,write,write_imm,read,cas,faa\n"
"                or all (default)\n"
"  -M BYTES      path MTU of this side's QP (256..4096; tcp, local), whatever\n"
"                the ports say (a misconfigured requester, to test the\n"
"                responder's checks)\n"
"  -C SEQ        checker self-test: the server flips one received byte at\n"
"                the first SEND/WRITE message from SEQ on (must fail)\n"
"  -v            verbose\n");
	exit(EX_USAGE);
}

static size_t parse_size(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 0);

	if (*end == 'k' || *end == 'K')
		v <<= 10, end++;
	else if (*end == 'm' || *end == 'M')
		v <<= 20, end++;
	if (*end || v > (1ull << 30))
		usage();
	return v;
}

static enum ibv_mtu parse_mtu(const char *s)
{
	unsigned long v = strtoul(s, NULL, 0);
	enum ibv_mtu m;

	for (m = IBV_MTU_256; m <= IBV_MTU_4096; m++)
		if (v == 128ul << m)
			return m;
	fprintf(stderr, "path MTU %s: not 256, 512, 1024, 2048 or 4096\n", s);
	usage();
	return 0;
}

static unsigned int parse_ops(char *s)
{
	unsigned int mask = 0;
	char *tok;
	int i;

	for (tok = strtok(s, ","); tok; tok = strtok(NULL, ",")) {
		if (!strcmp(tok, "all")) {
			mask |= (1u << OP_NR) - 1;
			continue;
		}
		for (i = 0; i < OP_NR && strcmp(tok, op_names[i]); i++)
			;
		if (i == OP_NR) {
			fprintf(stderr, "unknown opcode %s\n", tok);
			usage();
		}
		mask |= 1u << i;
	}
	return mask;
}

static void watchdog(int sig)
{
	static const char msg[] =
		"mroce-verify: watchdog expired, aborting\n"
		"not ok 1 - mroce-verify: TIMEOUT (watchdog)\n";

	(void)sig;
	if (write(STDOUT_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(EX_TIMEOUT);
	_exit(EX_TIMEOUT);
}

static int run_side(struct mv_ep *ep)
{
	int ret;

	if (mv_connect(ep)) {
		if (!ep->server)
			printf("1..1\nnot ok 1 - mroce-verify: connection failed\n");
		mv_teardown(ep);
		return EX_FAIL;
	}
	ret = ep->server ? mv_run_server(ep) : mv_run_client(ep);
	/*
	 * The peer's last Send (the client's DONE, the server's RESULT for
	 * it) may still wait for our ACK, which a lossy link can drop: keep
	 * the QP a while so its retransmission is answered, instead of
	 * failing it with retry exceeded. Both sides: at 10% loss the
	 * server's RESULT once ran out of retries after the client had gone.
	 */
	if (ret == 0)
		sleep(2);
	mv_teardown(ep);
	return ret;
}

static void *side_thread(void *arg)
{
	struct mv_ep *ep = arg;

	return (void *)(long)run_side(ep);
}

int main(int argc, char **argv)
{
	struct mv_opts o = {
		.port = "18515", .gid_idx = -1, .seed = 1, .iters = 1,
		.max_size = 8 << 20, .op_timeout = 30, .conn_timeout = 60,
		.nrandom = 8, .inject = -1, .ops = (1u << OP_NR) - 1, .method = M_CM,
	};
	struct mv_ep srv = { .o = &o, .name = "server", .server = true };
	struct mv_ep cli = { .o = &o, .name = "client" };
	bool method_set = false;
	double hard = 0;
	pthread_t th;
	void *tret;
	int c, rs, rc;

	while ((c = getopt(argc, argv, "sc:Ld:a:p:m:g:x:n:S:r:T:w:W:H:o:C:M:vh")) != -1) {
		switch (c) {
		case 's': o.server = true; break;
		case 'c': o.client = true; o.addr = optarg; break;
		case 'L': o.loopback = true; break;
		case 'd': o.dev = optarg; break;
		case 'a': o.addr = optarg; break;
		case 'p': o.port = optarg; break;
		case 'm':
			method_set = true;
			if (!strcmp(optarg, "cm"))
				o.method = M_CM;
			else if (!strcmp(optarg, "tcp"))
				o.method = M_TCP;
			else if (!strcmp(optarg, "local"))
				o.method = M_LOCAL;
			else
				usage();
			break;
		case 'g': o.gid_idx = atoi(optarg); break;
		case 'x': o.seed = strtoull(optarg, NULL, 0); break;
		case 'n': o.iters = atoi(optarg); break;
		case 'S': o.max_size = parse_size(optarg); break;
		case 'r': o.nrandom = atoi(optarg); break;
		case 'T': o.time_limit = atof(optarg); break;
		case 'w': o.op_timeout = atof(optarg); break;
		case 'W': o.conn_timeout = atof(optarg); break;
		case 'H': hard = atof(optarg); break;
		case 'o': o.ops = parse_ops(optarg); break;
		case 'C': o.inject = atol(optarg); break;
		case 'M': o.path_mtu = parse_mtu(optarg); break;
		case 'v': o.verbose++; break;
		default: usage();
		}
	}
	if (optind != argc || !o.ops ||
	    o.server + o.loopback + (o.client && !o.loopback) != 1)
		usage();
	if (o.loopback && !method_set)
		o.method = M_LOCAL;
	if (o.method == M_LOCAL && !o.loopback)
		usage();
	if (o.loopback && o.method != M_LOCAL && !o.addr) {
		fprintf(stderr, "-L with -m cm/tcp needs -c ADDR (a local address)\n");
		usage();
	}
	if (o.path_mtu && o.method == M_CM) {
		fprintf(stderr, "-M needs -m tcp or local: rdma_cm sets the path MTU\n");
		usage();
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!hard)
		hard = o.conn_timeout + 2 * o.op_timeout +
		       (o.time_limit > 0 ? o.time_limit * 1.5 : 3600);
	signal(SIGALRM, watchdog);
	alarm((unsigned int)hard + 1);

	if (!o.loopback) {
		if (o.server)
			return run_side(&srv);
		return run_side(&cli);
	}
	o.client = false;
	if (pthread_create(&th, NULL, side_thread, &srv)) {
		perror("pthread_create");
		return EX_FAIL;
	}
	rc = run_side(&cli);
	pthread_join(th, &tret);
	rs = (int)(long)tret;
	if (rs && !rc) {
		printf("not ok 2 - mroce-verify: server side failed (%d)\n", rs);
		rc = rs;
	}
	return rc;
}
