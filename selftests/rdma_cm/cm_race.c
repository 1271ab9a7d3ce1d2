// SPDX-License-Identifier: GPL-2.0
/*
 * cm_race: connects that the application tears down at a random moment,
 * to race rdma_disconnect() and rdma_destroy_id() with everything the
 * RDMA CM does while it connects, a retry after a reject included.
 *
 *   cm_race -s ADDR [-p PORT] [-t IDLE_SECONDS]
 *   cm_race -c ADDR [-p PORT] [-d DGID_ADDR] [-n COUNT] [-S SEED]
 *           [-A] [-x COMMAND]
 *
 * The server (-s) accepts every connection with a QP of its own, and
 * destroys each id once its connection ends; it exits after IDLE_SECONDS
 * without an event, printing "RACE served N".
 *
 * The client (-c) connects COUNT times (default 500), one connection at
 * a time.  With -d, each REQ is misdirected to the RoCE GID of DGID_ADDR,
 * as in gid_client, so that the RDMA CM retries it after the server's
 * reject.  After rdma_connect(), each connection draws an action and a
 * delay from the seed: none, rdma_disconnect() or rdma_destroy_id(), after
 * a delay from 0 to twice the average time a connect takes, so that the
 * actions land in every step of the connect.  It then checks that:
 *
 *   - an id that was not destroyed gets exactly one final event
 *     (ESTABLISHED, REJECTED, CONNECT_ERROR, UNREACHABLE) within 20 s;
 *   - a destroyed id gets no event at all;
 *   - an established connection disconnects (DISCONNECTED).
 *
 * It prints "RACE seed=S n=N established=E rejected=R error=X
 * unreachable=U destroyed=D disconnected=C lost=L stray=T" and exits 0
 * when nothing was lost or stray and at least one connect established.
 * The seed (default: the time) is printed first, to replay a failure.
 *
 * With -A, a connect that draws rdma_destroy_id() destroys its id from 0
 * to 4 ms after rdma_resolve_addr() instead, while the RDMA CM resolves
 * the address (or waits for the answer to a neighbour solicitation); it
 * must then get no event.  With -x, COMMAND runs (system(3)) before each
 * connect, e.g. to make the neighbour entry stale again.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#include "cm_event.h"

/* A QP for @id; librdmacm fills in the CQs of the attributes it gets. */
static int create_qp(struct rdma_cm_id *id)
{
	struct ibv_qp_init_attr attr = {
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};

	return rdma_create_qp(id, NULL, &attr);
}

static long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

static void drop(struct rdma_cm_id *id)
{
	if (id->qp)
		rdma_destroy_qp(id);
	rdma_destroy_id(id);
}

static int serve(struct rdma_event_channel *ch, struct rdma_cm_id *listen,
		 int idle_s)
{
	struct rdma_conn_param param = {
		.responder_resources = 1, .initiator_depth = 1,
	};
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	enum rdma_cm_event_type type;
	int served = 0;

	printf("RACE listening\n");
	for (;;) {
		struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };

		if (poll(&pfd, 1, idle_s * 1000) <= 0)
			break;
		if (rdma_get_cm_event(ch, &ev))
			break;
		id = ev->id;
		type = ev->event;
		rdma_ack_cm_event(ev);
		if (id == listen)
			continue;
		switch (type) {
		case RDMA_CM_EVENT_CONNECT_REQUEST:
			if (create_qp(id) ||
			    rdma_accept(id, &param)) {
				rdma_reject(id, NULL, 0);
				drop(id);
			}
			break;
		case RDMA_CM_EVENT_ESTABLISHED:
			served++;
			break;
		case RDMA_CM_EVENT_DISCONNECTED:
		case RDMA_CM_EVENT_REJECTED:
		case RDMA_CM_EVENT_CONNECT_ERROR:
		case RDMA_CM_EVENT_UNREACHABLE:
		case RDMA_CM_EVENT_DEVICE_REMOVAL:
			drop(id);
			break;
		default:
			break;
		}
	}
	printf("RACE served %d\n", served);
	return 0;
}

/* The next event, or NULL after timeout_ms; *type is set from it. */
static struct rdma_cm_id *next_event(struct rdma_event_channel *ch,
				     int timeout_ms,
				     enum rdma_cm_event_type *type, int *status)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;

	if (poll(&pfd, 1, timeout_ms) <= 0 || rdma_get_cm_event(ch, &ev))
		return NULL;
	id = ev->id;
	*type = ev->event;
	*status = ev->status;
	rdma_ack_cm_event(ev);
	return id;
}

struct counts {
	int established, rejected, error, unreachable, destroyed;
	int disconnected, lost, stray, setup;
};

static int is_final(enum rdma_cm_event_type t)
{
	return t == RDMA_CM_EVENT_ESTABLISHED || t == RDMA_CM_EVENT_REJECTED ||
	       t == RDMA_CM_EVENT_CONNECT_ERROR ||
	       t == RDMA_CM_EVENT_UNREACHABLE;
}

static void count_final(struct counts *c, enum rdma_cm_event_type t)
{
	if (t == RDMA_CM_EVENT_ESTABLISHED)
		c->established++;
	else if (t == RDMA_CM_EVENT_REJECTED)
		c->rejected++;
	else if (t == RDMA_CM_EVENT_CONNECT_ERROR)
		c->error++;
	else
		c->unreachable++;
}

static int addr_act;

/* One connect; returns its duration to a final event in us, or -1. */
static long long one(struct rdma_event_channel *ch, struct addrinfo *dst,
		     const struct sockaddr *dgid_sa, int action, long delay_us,
		     struct counts *c, int i)
{
	struct rdma_conn_param param = {
		.responder_resources = 1, .initiator_depth = 1,
		.retry_count = 7, .rnr_retry_count = 7,
	};
	enum rdma_cm_event_type t;
	struct rdma_cm_id *id, *got;
	long long t0, dt = -1;
	int status;

	const char *step;

	t = RDMA_CM_EVENT_ADDR_ERROR;
	status = 0;
	if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP))
		return c->setup++, -1;
	step = "resolve_addr";
	if (addr_act && action == 2) {
		if (rdma_resolve_addr(id, NULL, dst->ai_addr, 2000))
			goto setup;
		/* An ADDR_RESOLVED within the delay is acked, then the id goes. */
		got = next_event(ch, delay_us % 5, &t, &status);
		drop(id);
		c->destroyed++;
		if (got && got != id) {
			printf("RACE %d: stray event %s\n", i, rdma_event_str(t));
			c->stray++;
		}
		if (next_event(ch, 0, &t, &status)) {
			printf("RACE %d: stray event %s\n", i, rdma_event_str(t));
			c->stray++;
		}
		return -1;
	}
	if (rdma_resolve_addr(id, NULL, dst->ai_addr, 2000) ||
	    next_event(ch, 5000, &t, &status) != id ||
	    t != RDMA_CM_EVENT_ADDR_RESOLVED)
		goto setup;
	step = "route";
	if (dgid_sa ? cm_misdirect(id, dgid_sa) : rdma_resolve_route(id, 2000))
		goto setup;
	if (next_event(ch, 5000, &t, &status) != id ||
	    t != RDMA_CM_EVENT_ROUTE_RESOLVED)
		goto setup;
	step = "create_qp";
	if (create_qp(id))
		goto setup;
	step = "connect";
	t0 = now_us();
	if (rdma_connect(id, &param))
		goto setup;

	got = next_event(ch, action ? delay_us / 1000 : 20000, &t, &status);
	if (got && got != id) {
		printf("RACE %d: stray event %s\n", i, rdma_event_str(t));
		c->stray++;
		got = NULL;
	}
	if (got)
		dt = now_us() - t0;
	if (action == 2) {
		/* destroy, before or after the final event */
		drop(id);
		c->destroyed++;
		if (got && is_final(t))
			count_final(c, t);
		return dt;
	}
	if (!got && action == 1) {
		if (rdma_disconnect(id))
			printf("RACE %d: rdma_disconnect: %d\n", i, -errno);
		got = next_event(ch, 20000, &t, &status);
		if (got == id)
			dt = now_us() - t0;
	}
	if (got != id || !is_final(t)) {
		printf("RACE %d: no final event (action %d, delay %ld us)%s%s\n",
		       i, action, delay_us, got ? ", got " : "",
		       got ? rdma_event_str(t) : "");
		c->lost++;
		drop(id);
		return -1;
	}
	count_final(c, t);
	if (t == RDMA_CM_EVENT_ESTABLISHED) {
		rdma_disconnect(id);
		if (next_event(ch, 5000, &t, &status) == id &&
		    t == RDMA_CM_EVENT_DISCONNECTED)
			c->disconnected++;
		else
			c->lost++;
	}
	drop(id);
	/* Anything now is an event of an id that is gone. */
	if (next_event(ch, 0, &t, &status)) {
		printf("RACE %d: stray event %s\n", i, rdma_event_str(t));
		c->stray++;
	}
	return dt;
setup:
	if (c->setup++ < 5)
		printf("RACE %d: %s failed: errno %d, event %s status %d\n",
		       i, step, errno, rdma_event_str(t), status);
	drop(id);
	return -1;
}

int main(int argc, char **argv)
{
	const char *saddr = NULL, *caddr = NULL, *port = "7494", *dgid = NULL;
	const char *cmd = NULL;
	struct addrinfo hints = { .ai_family = AF_INET }, *ai, *dg = NULL;
	unsigned int seed = time(NULL);
	int n = 500, idle = 30, opt, i, action;
	long long avg = 20000, dt;
	struct rdma_event_channel *ch;
	struct rdma_cm_id *listen;
	struct counts c = {};
	long delay;

	while ((opt = getopt(argc, argv, "s:c:p:d:n:S:t:Ax:")) != -1) {
		switch (opt) {
		case 's': saddr = optarg; break;
		case 'c': caddr = optarg; break;
		case 'p': port = optarg; break;
		case 'd': dgid = optarg; break;
		case 'n': n = atoi(optarg); break;
		case 'S': seed = strtoul(optarg, NULL, 0); break;
		case 't': idle = atoi(optarg); break;
		case 'A': addr_act = 1; break;
		case 'x': cmd = optarg; break;
		default: return 1;
		}
	}
	if (!!saddr == !!caddr ||
	    getaddrinfo(saddr ? saddr : caddr, port, &hints, &ai) ||
	    (dgid && getaddrinfo(dgid, NULL, &hints, &dg))) {
		fprintf(stderr, "usage: see the comment at the top of cm_race.c\n");
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	ch = rdma_create_event_channel();
	if (!ch)
		return 1;
	if (saddr) {
		if (rdma_create_id(ch, &listen, NULL, RDMA_PS_TCP) ||
		    rdma_bind_addr(listen, ai->ai_addr) ||
		    rdma_listen(listen, 64)) {
			perror("listen");
			return 1;
		}
		return serve(ch, listen, idle);
	}

	printf("RACE seed=%u\n", seed);
	srandom(seed);
	for (i = 0; i < n; i++) {
		action = random() % 3;
		delay = random() % (2 * avg + 1);
		if (cmd && system(cmd))
			c.setup++;
		dt = one(ch, ai, dg ? dg->ai_addr : NULL, action, delay, &c, i);
		if (dt > 0 && !action)
			avg = (avg * 7 + dt) / 8;
	}
	printf("RACE seed=%u n=%d established=%d rejected=%d error=%d unreachable=%d destroyed=%d disconnected=%d lost=%d stray=%d setup=%d avg_us=%lld\n",
	       seed, n, c.established, c.rejected, c.error, c.unreachable,
	       c.destroyed, c.disconnected, c.lost, c.stray, c.setup, avg);
	return c.lost || c.stray || c.setup || !c.established ? 2 : 0;
}
