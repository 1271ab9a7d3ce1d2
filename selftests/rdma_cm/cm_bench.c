// SPDX-License-Identifier: GPL-2.0
/*
 * cm_bench: the librdmacm client and server of make bench's recovery and
 * storm rounds (selftests/rdma_cm/bench.sh).  It times each connect in the
 * process, with CLOCK_MONOTONIC, from rdma_resolve_addr() to the final
 * event of the connect:
 *
 *   cm_bench -s ADDR [-p PORT] [-P PRIO]
 *   cm_bench -c ADDR [-p PORT] [-d DGID_ADDR] [-n COUNT] [-t SECONDS]
 *            [-f FORKS] [-S [-G USECS]] [-P PRIO]
 *
 * Server (-s): listens on ADDR, accepts every request with a QP, destroys
 * each connection when the client disconnects, until killed.  It prints
 * "BENCH listening" once the listener is up.
 *
 * Client (-c): the devices opened first (librdmacm opens one when an id
 * is first bound to it: not part of any connect's time), then COUNT
 * connects (default 1), one after the other, each
 * resolved as usual or, with -d, misdirected as gid_client -d does: the
 * path record's DGID is DGID_ADDR's RoCE GID (RDMA_OPTION_IB_PATH), so
 * the REQ goes to that address's port while its CM IP header names ADDR.
 * Each connect that is established is disconnected and destroyed at once.
 * One line per connect, then a summary:
 *
 *   BENCH conn=I result=R status=S us=T
 *   BENCH summary n=N established=E rejected=J unreachable=U other=O timeout=X
 *
 * R is established, rejected, unreachable, connect_error, addr_error,
 * route_error, timeout (no final event within SECONDS, default 30) or
 * failed (a call failed); S the event's status (for rejected the IBTA
 * reject reason); T microseconds from rdma_resolve_addr() to that event
 * (with -G, the two sleeps before it included).
 * Exit status: 0 when every connect was established, 3 when one was not,
 * 1 usage or setup.
 *
 * -S: each connect that is established also waits for the DISCONNECTED
 * event of its rdma_disconnect(), and reports the nanoseconds of its
 * steps, each from its call to its event, as cmtime names them
 * (connect: rdma_connect() to ESTABLISHED; the QP is created before;
 * destroy: rdma_destroy_qp() and rdma_destroy_id()):
 *
 *   BENCH steps conn=I resolve_addr=A resolve_route=R connect=C disconnect=D destroy=X
 *
 * -G USECS: with -S, the client also sleeps USECS between two steps
 * (after a step's event, before the next step's call), so that what the
 * step set going and did not wait for (the server's handling of an
 * ESTABLISHED, the rest of its rdma_destroy_id() after the DREP, deferred
 * work) runs there, not in the next step.  The server never calls
 * rdma_disconnect(): ib_cm sends the DREP from its rdma_destroy_id(), so
 * the disconnect step holds the server's rdma_destroy_qp() and its
 * rdma_destroy_id() up to the DREP.
 *
 * Between two connects it sleeps 10 ms, in which the server destroys
 * what the last one left, so that the next connect's steps do not time
 * it (ib_cm's time wait still ends in some later step).  make bench's
 * icount table takes their medians (icount.sh), where the VM's clock
 * leaps over the sleep.
 *
 * -P PRIO: the process runs SCHED_FIFO at PRIO, so that each of its
 * events wakes it ahead of every kernel worker (at the worker's next
 * preemption point), not when the fair scheduler's state of the moment
 * lets it: make bench's icount VM (icount.sh, ic_seq) runs its client and
 * server so, one CPU for all, and their connects take the same course
 * in each round.
 *
 * -f FORKS: FORKS client processes connect at once, COUNT connects each.
 * Each opens librdmacm before a common start, so that the burst of
 * connects, not the processes' start, is timed; then
 *
 *   BENCH burst forks=F wall_us=W ok=K
 *
 * W is the time from the start to the last process's end, K the processes
 * whose every connect was established.
 */
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#include "cm_event.h"

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long long now_us(void)
{
	return now_ns() / 1000;
}

/*
 * -S: the steps of the last connect, in ns (resolve_addr, resolve_route,
 * connect, disconnect, destroy).
 */
static int steps, gap_us;
static long long step_ns[5];

/* -G: between two timed steps, what the last one set going runs out. */
static void step_gap(void)
{
	if (steps && gap_us > 0)
		usleep(gap_us);
}

/*
 * A QP with CQs of its own: rdma_create_qp() creates them when the
 * attributes name none, and writes them back into the attributes, so
 * each QP starts from a fresh copy.
 */
static int create_qp(struct rdma_cm_id *id)
{
	struct ibv_qp_init_attr qp_attr = {
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};

	if (rdma_create_qp(id, NULL, &qp_attr)) {
		perror("rdma_create_qp");
		return -1;
	}
	return 0;
}

static struct rdma_conn_param conn_param = {
	.responder_resources = 1, .initiator_depth = 1,
	.retry_count = 7, .rnr_retry_count = 7,
};

static int server(struct rdma_event_channel *ch, struct addrinfo *ai)
{
	struct rdma_cm_id *listen_id, *id;
	struct rdma_cm_event *ev;
	enum rdma_cm_event_type type;
	unsigned long accepted = 0;

	if (rdma_create_id(ch, &listen_id, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(listen_id, ai->ai_addr) ||
	    rdma_listen(listen_id, 1024)) {
		perror("listen");
		return 1;
	}
	printf("BENCH listening\n");
	while (!rdma_get_cm_event(ch, &ev)) {
		type = ev->event;
		id = ev->id;
		if (type == RDMA_CM_EVENT_CONNECT_REQUEST) {
			rdma_ack_cm_event(ev);
			if (create_qp(id) || rdma_accept(id, &conn_param)) {
				perror("accept");
				if (id->qp)
					rdma_destroy_qp(id);
				rdma_destroy_id(id);
			}
			continue;
		}
		rdma_ack_cm_event(ev);
		switch (type) {
		case RDMA_CM_EVENT_ESTABLISHED:
			accepted++;
			break;
		case RDMA_CM_EVENT_DISCONNECTED:
		case RDMA_CM_EVENT_REJECTED:
		case RDMA_CM_EVENT_CONNECT_ERROR:
		case RDMA_CM_EVENT_UNREACHABLE:
			if (id == listen_id)
				break;
			if (id->qp)
				rdma_destroy_qp(id);
			rdma_destroy_id(id);
			break;
		default:
			break;
		}
	}
	perror("rdma_get_cm_event");
	return 1;
}

/* wait_final: the next event of @ch within @deadline (now_us() time). */
static struct rdma_cm_event *wait_event(struct rdma_event_channel *ch,
					long long deadline)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;
	long long left;
	int n;

	for (;;) {
		left = (deadline - now_us()) / 1000;
		if (left <= 0)
			return NULL;
		n = poll(&pfd, 1, left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return NULL;
		if (rdma_get_cm_event(ch, &ev))
			return NULL;
		return ev;
	}
}

static const char *result_of(enum rdma_cm_event_type e)
{
	switch (e) {
	case RDMA_CM_EVENT_ESTABLISHED: return "established";
	case RDMA_CM_EVENT_REJECTED: return "rejected";
	case RDMA_CM_EVENT_UNREACHABLE: return "unreachable";
	case RDMA_CM_EVENT_CONNECT_ERROR: return "connect_error";
	case RDMA_CM_EVENT_ADDR_ERROR: return "addr_error";
	case RDMA_CM_EVENT_ROUTE_ERROR: return "route_error";
	default: return "other";
	}
}

/* number: a whole non-negative number, or a message and -1. */
static int number(const char *s, int *v)
{
	char *end;
	long n = strtol(s, &end, 10);

	if (!*s || *end || n < 0 || n > 1000000000) {
		fprintf(stderr, "cm_bench: not a number: %s\n", s);
		return -1;
	}
	*v = n;
	return 0;
}

/*
 * one_connect: resolve, (misdirect,) connect, wait for the final event.
 * Returns the final event type, or -1 on a timeout, -2 on a failed call;
 * *status is the event's status, *us the time it took.
 */
static int one_connect(struct rdma_event_channel *ch, struct addrinfo *ai,
		       struct addrinfo *dgid, int timeout_s, int *status,
		       long long *us)
{
	struct rdma_cm_id *id;
	struct rdma_cm_event *ev;
	long long t0, deadline, ts;
	int type = -2, stage = 0;

	*status = 0;
	step_ns[3] = -1;
	if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP)) {
		perror("rdma_create_id");
		return -2;
	}
	t0 = now_us();
	deadline = t0 + timeout_s * 1000000LL;
	ts = now_ns();
	if (rdma_resolve_addr(id, NULL, ai->ai_addr, 2000)) {
		perror("rdma_resolve_addr");
		goto out;
	}
	for (;;) {
		ev = wait_event(ch, deadline);
		*us = now_us() - t0;
		if (!ev) {
			type = -1;
			break;
		}
		type = ev->event;
		*status = ev->status;
		rdma_ack_cm_event(ev);
		if (type == RDMA_CM_EVENT_ADDR_RESOLVED && stage == 0) {
			step_ns[0] = now_ns() - ts;
			step_gap();
			ts = now_ns();
			stage = 1;
			if (dgid) {
				/* librdmacm reports the path as a route. */
				if (cm_misdirect(id, dgid->ai_addr)) {
					type = -2;
					break;
				}
			} else if (rdma_resolve_route(id, 2000)) {
				type = -2;
				break;
			}
		} else if (type == RDMA_CM_EVENT_ROUTE_RESOLVED && stage == 1) {
			step_ns[1] = now_ns() - ts;
			stage = 2;
			if (create_qp(id)) {
				type = -2;
				break;
			}
			step_gap();
			ts = now_ns();
			if (rdma_connect(id, &conn_param)) {
				type = -2;
				break;
			}
		} else {
			if (type == RDMA_CM_EVENT_ESTABLISHED)
				step_ns[2] = now_ns() - ts;
			break;
		}
	}
out:
	if (type == -2)
		*us = now_us() - t0;
	if (type == RDMA_CM_EVENT_ESTABLISHED) {
		step_gap();
		ts = now_ns();
		rdma_disconnect(id);
		while (steps && (ev = wait_event(ch, deadline))) {
			int e = ev->event;

			rdma_ack_cm_event(ev);
			if (e == RDMA_CM_EVENT_DISCONNECTED) {
				step_ns[3] = now_ns() - ts;
				break;
			}
		}
		step_gap();
	}
	ts = now_ns();
	if (id->qp)
		rdma_destroy_qp(id);
	rdma_destroy_id(id);
	step_ns[4] = now_ns() - ts;
	return type;
}

static int client(struct rdma_event_channel *ch, struct addrinfo *ai,
		  struct addrinfo *dgid, int count, int timeout);

/*
 * warm_up: open the devices before the first connect is timed.  librdmacm
 * opens a device when an id is first bound to it, which would put the
 * device's setup into the time of a process's first connect only.
 */
static void warm_up(void)
{
	struct ibv_context **devs = rdma_get_devices(NULL);

	if (devs)
		rdma_free_devices(devs);
}

/*
 * burst: @forks processes of client() at once.  Each creates its event
 * channel (librdmacm's setup), says so on @ready, and waits for @go to
 * close.
 */
static int burst(struct addrinfo *ai, struct addrinfo *dgid, int count,
		 int timeout, int forks)
{
	int ready[2], go[2], i, st, ok = 0;
	long long t0;
	char c;

	if (pipe(ready) || pipe(go)) {
		perror("pipe");
		return 1;
	}
	for (i = 0; i < forks; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (!pid) {
			struct rdma_event_channel *ch;

			close(ready[0]);
			close(go[1]);
			ch = rdma_create_event_channel();
			warm_up();
			if (!ch || write(ready[1], "r", 1) != 1 ||
			    read(go[0], &c, 1) != 0)
				_exit(1);
			_exit(client(ch, ai, dgid, count, timeout));
		}
	}
	close(ready[1]);
	close(go[0]);
	for (i = 0; i < forks; i++)
		if (read(ready[0], &c, 1) != 1)
			return 1;
	t0 = now_us();
	close(go[1]);
	while (wait(&st) > 0)
		ok += WIFEXITED(st) && WEXITSTATUS(st) == 0;
	printf("BENCH burst forks=%d wall_us=%lld ok=%d\n", forks,
	       now_us() - t0, ok);
	return ok == forks ? 0 : 3;
}

int main(int argc, char **argv)
{
	const char *addr = NULL, *port = "7600", *dgid_addr = NULL;
	struct addrinfo hints = { .ai_family = AF_UNSPEC };
	struct addrinfo *ai, *dgid = NULL;
	struct rdma_event_channel *ch;
	int is_server = 0, count = 1, timeout = 30, forks = 0, prio = 0, opt;

	while ((opt = getopt(argc, argv, "s:c:p:d:n:t:f:SP:G:")) != -1) {
		switch (opt) {
		case 's': addr = optarg; is_server = 1; break;
		case 'c': addr = optarg; break;
		case 'p': port = optarg; break;
		case 'd': dgid_addr = optarg; break;
		case 'n': count = atoi(optarg); break;
		case 't': timeout = atoi(optarg); break;
		case 'f': forks = atoi(optarg); break;
		case 'S': steps = 1; break;
		case 'P': if (number(optarg, &prio)) return 1; break;
		case 'G': if (number(optarg, &gap_us)) return 1; break;
		default: return 1;
		}
	}
	if (!addr || getaddrinfo(addr, port, &hints, &ai) ||
	    (dgid_addr && getaddrinfo(dgid_addr, NULL, &hints, &dgid))) {
		fprintf(stderr, "usage: see the comment at the top of cm_bench.c\n");
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (prio > 0) {
		struct sched_param sp = { .sched_priority = prio };

		if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
			perror("sched_setscheduler");
			return 1;
		}
	}
	if (forks > 0 && !is_server)
		return burst(ai, dgid, count, timeout, forks);
	ch = rdma_create_event_channel();
	if (!ch) {
		perror("rdma_create_event_channel");
		return 1;
	}
	if (!is_server) {
		warm_up();
		return client(ch, ai, dgid, count, timeout);
	}
	return server(ch, ai);
}

static int client(struct rdma_event_channel *ch, struct addrinfo *ai,
		  struct addrinfo *dgid, int count, int timeout)
{
	unsigned long est = 0, rej = 0, unr = 0, other = 0, tmo = 0;
	int i, type, status;
	long long us = 0;
	const char *res;

	for (i = 1; i <= count; i++) {
		type = one_connect(ch, ai, dgid, timeout, &status, &us);
		if (type == -1)
			res = "timeout";
		else if (type == -2)
			res = "failed";
		else
			res = result_of(type);
		switch (type) {
		case RDMA_CM_EVENT_ESTABLISHED: est++; break;
		case RDMA_CM_EVENT_REJECTED: rej++; break;
		case RDMA_CM_EVENT_UNREACHABLE: unr++; break;
		case -1: tmo++; break;
		default: other++; break;
		}
		printf("BENCH conn=%d result=%s status=%d us=%lld\n", i, res,
		       status, us);
		if (steps && step_ns[3] >= 0)
			printf("BENCH steps conn=%d resolve_addr=%lld resolve_route=%lld connect=%lld disconnect=%lld destroy=%lld\n",
			       i, step_ns[0], step_ns[1], step_ns[2],
			       step_ns[3], step_ns[4]);
		if (steps)
			usleep(10000);
	}
	printf("BENCH summary n=%d established=%lu rejected=%lu unreachable=%lu other=%lu timeout=%lu\n",
	       count, est, rej, unr, other, tmo);
	return est == (unsigned long)count ? 0 : 3;
}
