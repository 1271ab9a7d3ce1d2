// SPDX-License-Identifier: GPL-2.0
/*
 * gid_client: a librdmacm client that connects one RC QP to ADDR and can
 * misdirect the connection request to another GID, as a stale IPoIB
 * neighbour entry does on InfiniBand:
 *
 *   gid_client -c ADDR [-p PORT] [-d DGID_ADDR] [-t SECONDS] [-x COMMAND]
 *
 * With -d, the client resolves ADDR as usual and then sets its own path
 * record with RDMA_OPTION_IB_PATH, whose DGID is the RoCE GID of
 * DGID_ADDR (an IPv4-mapped GID): the REQ goes to the port of DGID_ADDR
 * while its CM IP header names ADDR.  Without -d it resolves the route.
 * With -x, COMMAND runs (system(3)) right before rdma_resolve_addr().
 * gidretry.sh plants the client's wrong neighbour entry with it: our
 * rdma_cm, on RoCE, solicits an entry afresh as the address resolves
 * when nothing confirmed it within the last second (dkms/0015).
 * It prints one line:
 *
 *   GID established
 *   GID rejected status=S          (S: the IBTA reject reason)
 *   GID failed event=NAME status=S
 *
 * After a REJECTED event it tries to go on with the id, and prints
 *
 *   GID after reject: resolve_addr=A resolve_route=R connect=C
 *
 * (each 0 or -errno).  A REJ leaves the id in state RDMA_CM_CONNECT, where
 * none of the three is allowed: -EINVAL (-22) each, also when the RDMA CM
 * retried the connect and gave up.
 *
 * SIGUSR1 while it waits for the connection calls rdma_disconnect(), as an
 * application that gives up would, and prints "GID disconnect ret=R"
 * (R: 0 or -errno) before it goes on waiting.  SIGUSR2 there destroys the
 * QP and the id, prints "GID destroy ret=R", and then watches the event
 * channel for 3 s: "GID no event after destroy" or "GID event after
 * destroy: NAME".
 *
 * Exit status: 0 established, 3 rejected, 2 other failure, 1 usage/setup,
 * 5 destroyed on SIGUSR2 and no event followed.
 */
#define _GNU_SOURCE	/* ppoll */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#include "cm_event.h"

static int expect(struct rdma_event_channel *ch, enum rdma_cm_event_type want,
		  int timeout_ms)
{
	struct rdma_cm_event *ev = cm_get_event(ch, timeout_ms, "GID");
	int ret = 0;

	if (!ev)
		return 2;
	if (ev->event == RDMA_CM_EVENT_REJECTED) {
		printf("GID rejected status=%d\n", ev->status);
		ret = 3;
	} else if (ev->event != want) {
		printf("GID failed event=%s status=%d\n",
		       rdma_event_str(ev->event), ev->status);
		ret = 2;
	}
	rdma_ack_cm_event(ev);
	return ret;
}

static volatile sig_atomic_t disconnect_asked, destroy_asked;

static void ask(int sig)
{
	if (sig == SIGUSR1)
		disconnect_asked = 1;
	else
		destroy_asked = 1;
}

/* What a REJECTED id still accepts: nothing, see the top of the file. */
static void after_reject(struct rdma_cm_id *id, struct sockaddr *dst,
			 struct rdma_conn_param *param)
{
	int a, r, c;

	a = rdma_resolve_addr(id, NULL, dst, 2000) ? -errno : 0;
	r = rdma_resolve_route(id, 2000) ? -errno : 0;
	c = rdma_connect(id, param) ? -errno : 0;
	printf("GID after reject: resolve_addr=%d resolve_route=%d connect=%d\n",
	       a, r, c);
}

/* Destroy the id while it connects; no event may follow. */
static int destroy_now(struct rdma_event_channel *ch, struct rdma_cm_id *id)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;

	rdma_destroy_qp(id);
	printf("GID destroy ret=%d\n", rdma_destroy_id(id) ? -errno : 0);
	if (poll(&pfd, 1, 3000) > 0 && !rdma_get_cm_event(ch, &ev)) {
		printf("GID event after destroy: %s\n", rdma_event_str(ev->event));
		rdma_ack_cm_event(ev);
		return 2;
	}
	printf("GID no event after destroy\n");
	return 5;
}

/* expect() for the connection, with rdma_disconnect() on SIGUSR1. */
static int expect_connected(struct rdma_event_channel *ch,
			    struct rdma_cm_id *id, int timeout_ms)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	struct timespec now, left;
	sigset_t unblocked;
	long long end;
	int n;

	/* SIGUSR1/2 are blocked but in ppoll(): none goes unseen. */
	sigemptyset(&unblocked);

	clock_gettime(CLOCK_MONOTONIC, &now);
	end = now.tv_sec * 1000LL + now.tv_nsec / 1000000 + timeout_ms;
	for (;;) {
		if (disconnect_asked) {
			disconnect_asked = 0;
			printf("GID disconnect ret=%d\n",
			       rdma_disconnect(id) ? -errno : 0);
		}
		if (destroy_asked)
			return destroy_now(ch, id);
		clock_gettime(CLOCK_MONOTONIC, &now);
		timeout_ms = end - (now.tv_sec * 1000LL + now.tv_nsec / 1000000);
		left.tv_sec = timeout_ms / 1000;
		left.tv_nsec = timeout_ms % 1000 * 1000000L;
		n = timeout_ms > 0 ? ppoll(&pfd, 1, &left, &unblocked) : 0;
		if (n < 0 && errno == EINTR)
			continue;
		if (n > 0)
			return expect(ch, RDMA_CM_EVENT_ESTABLISHED, 0);
		printf("GID failed event=timeout status=%d\n", -ETIMEDOUT);
		return 2;
	}
}

static int set_path(struct rdma_cm_id *id, const char *dgid_addr)
{
	struct addrinfo *ai;
	int ret;

	if (getaddrinfo(dgid_addr, NULL, NULL, &ai) ||
	    (ai->ai_family != AF_INET && ai->ai_family != AF_INET6)) {
		fprintf(stderr, "-d needs an IP address\n");
		return -1;
	}
	ret = cm_misdirect(id, ai->ai_addr);
	freeaddrinfo(ai);
	if (ret)
		perror("rdma_set_option(RDMA_OPTION_IB_PATH)");
	return ret ? -1 : 0;
}

int main(int argc, char **argv)
{
	const char *addr = NULL, *port = "7490", *dgid_addr = NULL;
	const char *cmd = NULL;
	struct ibv_qp_init_attr qp = {
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct rdma_conn_param param = {
		.responder_resources = 1, .initiator_depth = 1,
		.retry_count = 7, .rnr_retry_count = 7,
	};
	struct sigaction sa = { .sa_handler = ask };
	sigset_t usr;
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
	struct addrinfo *ai;
	int timeout = 10, opt, ret;

	while ((opt = getopt(argc, argv, "c:p:d:t:x:")) != -1) {
		switch (opt) {
		case 'c': addr = optarg; break;
		case 'p': port = optarg; break;
		case 'd': dgid_addr = optarg; break;
		case 't': timeout = atoi(optarg); break;
		case 'x': cmd = optarg; break;
		default: return 1;
		}
	}
	if (!addr || getaddrinfo(addr, port, NULL, &ai)) {
		fprintf(stderr, "usage: see the comment at the top of gid_client.c\n");
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	sigemptyset(&usr);
	sigaddset(&usr, SIGUSR1);
	sigaddset(&usr, SIGUSR2);
	sigprocmask(SIG_BLOCK, &usr, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	ch = rdma_create_event_channel();
	if (!ch || rdma_create_id(ch, &id, NULL, RDMA_PS_TCP)) {
		perror("rdma_create_id");
		return 1;
	}
	if (cmd && system(cmd)) {
		fprintf(stderr, "gid_client: %s failed\n", cmd);
		return 1;
	}
	if (rdma_resolve_addr(id, NULL, ai->ai_addr, 2000) ||
	    expect(ch, RDMA_CM_EVENT_ADDR_RESOLVED, 5000)) {
		printf("GID failed event=resolve_addr status=%d\n", -errno);
		return 2;
	}
	if (dgid_addr) {
		/* librdmacm reports the path it was given as a route. */
		if (set_path(id, dgid_addr))
			return 1;
		if (expect(ch, RDMA_CM_EVENT_ROUTE_RESOLVED, 5000))
			return 2;
	} else if (rdma_resolve_route(id, 2000) ||
		   expect(ch, RDMA_CM_EVENT_ROUTE_RESOLVED, 5000)) {
		printf("GID failed event=resolve_route status=%d\n", -errno);
		return 2;
	}
	if (rdma_create_qp(id, NULL, &qp)) {
		perror("rdma_create_qp");
		return 1;
	}
	if (rdma_connect(id, &param)) {
		printf("GID failed event=connect status=%d\n", -errno);
		return 2;
	}
	ret = expect_connected(ch, id, timeout * 1000);
	if (ret == 5)
		return ret;
	if (ret == 3)
		after_reject(id, ai->ai_addr, &param);
	if (!ret) {
		printf("GID established\n");
		rdma_disconnect(id);
	}
	return ret;
}
