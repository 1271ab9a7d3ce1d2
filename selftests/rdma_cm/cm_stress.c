// SPDX-License-Identifier: GPL-2.0
/*
 * cm_stress: many connects in flight at once through one asynchronous
 * event channel, mixed and torn down at random moments (issue 12).
 *
 *   cm_stress -s ADDR[,ADDR...] [-p PORT] [-t IDLE_S]            server
 *   cm_stress -c ADDR4 [-6 ADDR6] [-d DGID4] [-D DGID6] [-p PORT]
 *             [-n COUNT] [-f INFLIGHT] [-w WAVE] [-S SEED] [-T FINAL_S] [-e|-E]
 *                                                                   client
 *   cm_stress -L CYCLES -a ADDR[,ADDR...] [-p PORT] [-S SEED] [-o] listener churn
 *   cm_stress -F SECONDS -a ADDR[,ADDR...] [-p PORT] [-S SEED]    librdmacm fuzz
 *
 * Server: a listener bound to each ADDR on PORT and a wildcard one (AF_INET6
 * ::, both families) on PORT+1.  It accepts each CONNECT_REQUEST with a QP
 * (one in 16 is rejected by the application); a "clamp" connect (private
 * data byte 0 = 'L') is accepted with initiator depth and responder
 * resources 16, more than the client offered (1), which read_limit_clamp
 * lowers.  A listener that gets DEVICE_REMOVAL is destroyed and made again.
 * It ends after IDLE_S seconds without an event, or at SIGTERM, destroys
 * what it holds and prints "STRESS served ESTABLISHED=E REQ=R REJ=J".
 *
 * Client: COUNT connects, INFLIGHT at once (default 200); -w: in waves of
 * WAVE connects, each started once every connect of the one before ended.
 * Each draws a kind: normal IPv4 or IPv6, misdirected IPv4 or IPv6 (the
 * REQ to the RoCE GID of DGID4/DGID6 through RDMA_OPTION_IB_PATH, as
 * gid_client: the server rejects it with 12 and the client's rdma_cm
 * retries), clamp, and bound or wildcard listener; and an action at a
 * random moment of its life (0 to twice the average time a connect
 * takes): none, rdma_destroy_id(),
 * rdma_disconnect() or rdma_destroy_qp().  Every connect is accounted for:
 * exactly one final event (ESTABLISHED, REJECTED, UNREACHABLE,
 * CONNECT_ERROR, ADDR_ERROR, ROUTE_ERROR, DEVICE_REMOVAL before one, a call
 * that failed) or destroyed by the application before one.  A second final
 * event is "dup", an event for an unknown id "stray", no final event within
 * FINAL_S seconds "lost".  A connect whose QP was destroyed gets
 * CONNECT_RESPONSE and ends with rdma_establish().  Established connects
 * are disconnected after a random hold and must see DISCONNECTED, or
 * UNREACHABLE (their neighbour entry moved to another MAC).  It prints
 *
 *   STRESS seed=S attempted=A established=E rejected=R failed=F destroyed=D
 *          (A = E + R + F + D) ... lost=L dup=U stray=T
 *
 * and exits 0 when the sum holds, nothing is lost, dup or stray, and at
 * least one connect established (-e: or none, for connects to a churn's
 * listeners, which never accept, on PORT only; -E: or none, the mix
 * unchanged, for a fault round in which every connect may fail); 2
 * otherwise.
 *
 * -L: CYCLES times create, bind (an ADDR or the wildcard, of each family),
 * listen, destroy; a device going away makes bind or listen fail, which is
 * counted, not an error.  -o: ADDRs on PORT only, each listener up for 0
 * to 2 ms, so that the REQs of a client race its destruction; a request
 * that reaches one is rejected or its id destroyed.  -F: random librdmacm calls on up to 32 ids for
 * SECONDS seconds (create, bind, resolve_addr, resolve_route, listen,
 * connect, accept, reject, disconnect, set_option, destroy, migrate,
 * create/destroy QP) with random arguments; events are read and acked as
 * they come.  Both print their seed first and their counts last.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
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

#define MAXADDR 8

static volatile sig_atomic_t stop;
static void on_term(int sig) { stop = 1; }

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/*
 * A QP for @id on a PD and CQ shared by every id of its device: hundreds
 * of ids with a CQ and completion channel each cost more than the CM work
 * that is under test.
 */
static struct { struct ibv_context *verbs; struct ibv_pd *pd; struct ibv_cq *cq; } shared[8];

static int create_qp(struct rdma_cm_id *id)
{
	struct ibv_qp_init_attr attr = {
		.cap = { .max_send_wr = 2, .max_recv_wr = 2,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	int i;

	for (i = 0; i < 8 && shared[i].verbs && shared[i].verbs != id->verbs; i++)
		;
	if (i < 8 && id->verbs && !shared[i].verbs) {
		shared[i].pd = ibv_alloc_pd(id->verbs);
		shared[i].cq = shared[i].pd ? ibv_create_cq(id->verbs, 1024, NULL, NULL, 0) : NULL;
		if (shared[i].cq)
			shared[i].verbs = id->verbs;
	}
	if (i < 8 && shared[i].verbs) {
		attr.send_cq = attr.recv_cq = shared[i].cq;
		return rdma_create_qp(id, shared[i].pd, &attr);
	}
	return rdma_create_qp(id, NULL, &attr);
}

static void drop(struct rdma_cm_id *id)
{
	if (id->qp)
		rdma_destroy_qp(id);
	rdma_destroy_id(id);
}

/* parse "A,B,C" with port into sockaddrs; returns how many */
static int parse_addrs(const char *list, const char *port,
		       struct sockaddr_storage *out, int max)
{
	char *s = strdup(list), *tok, *save = NULL;
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST }, *ai;
	int n = 0;

	for (tok = strtok_r(s, ",", &save); tok && n < max;
	     tok = strtok_r(NULL, ",", &save)) {
		if (getaddrinfo(tok, port, &hints, &ai)) {
			fprintf(stderr, "bad address %s\n", tok);
			exit(1);
		}
		memcpy(&out[n++], ai->ai_addr, ai->ai_addrlen);
		freeaddrinfo(ai);
	}
	free(s);
	return n;
}

static void set_port(struct sockaddr *sa, int port)
{
	if (sa->sa_family == AF_INET6)
		((struct sockaddr_in6 *)sa)->sin6_port = htons(port);
	else
		((struct sockaddr_in *)sa)->sin_port = htons(port);
}

/* ---------------------------------------------------------------- server */

struct listener {
	struct sockaddr_storage addr;
	struct rdma_cm_id *id;
	long long retry_at;
};

static int listen_one(struct rdma_event_channel *ch, struct listener *l)
{
	if (rdma_create_id(ch, &l->id, l, RDMA_PS_TCP))
		return -1;
	if (rdma_bind_addr(l->id, (struct sockaddr *)&l->addr) ||
	    rdma_listen(l->id, 1024)) {
		rdma_destroy_id(l->id);
		l->id = NULL;
		l->retry_at = now_ms() + 1000;
		return -1;
	}
	return 0;
}

static int serve(const char *addrs, int port, int idle_s)
{
	struct rdma_conn_param param = {
		.responder_resources = 1, .initiator_depth = 1,
		.retry_count = 7, .rnr_retry_count = 7,
	};
	struct listener ls[MAXADDR + 1] = {};
	struct rdma_event_channel *ch;
	struct rdma_cm_event *ev;
	int nl, i, req = 0, est = 0, rej = 0, relisten = 0;
	long long last = now_ms();
	char pstr[16];

	snprintf(pstr, sizeof(pstr), "%d", port);
	{
		struct sockaddr_storage as[MAXADDR];

		nl = parse_addrs(addrs, pstr, as, MAXADDR);
		for (i = 0; i < nl; i++)
			ls[i].addr = as[i];
	}
	/* the wildcard on PORT + 1, both families */
	ls[nl].addr.ss_family = AF_INET6;
	set_port((struct sockaddr *)&ls[nl].addr, port + 1);
	nl++;

	ch = rdma_create_event_channel();
	if (!ch)
		return 1;
	for (i = 0; i < nl; i++)
		if (listen_one(ch, &ls[i])) {
			perror("listen");
			return 1;
		}
	printf("STRESS listening\n");
	while (!stop) {
		static long long lastp;
		struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
		struct rdma_cm_id *id;
		enum rdma_cm_event_type type;
		int r, kind = 0;

		r = poll(&pfd, 1, 500);
		if (now_ms() - lastp > 10000) {
			lastp = now_ms();
			printf("STRESS server progress req=%d est=%d rej=%d\n", req, est, rej);
		}
		for (i = 0; i < nl; i++)
			if (!ls[i].id && now_ms() >= ls[i].retry_at &&
			    !listen_one(ch, &ls[i]))
				relisten++;
		if (r <= 0) {
			if (now_ms() - last > idle_s * 1000LL)
				break;
			continue;
		}
		if (rdma_get_cm_event(ch, &ev))
			break;
		last = now_ms();
		id = ev->id;
		type = ev->event;
		if (type == RDMA_CM_EVENT_CONNECT_REQUEST &&
		    ev->param.conn.private_data_len >= 1)
			kind = ((const char *)ev->param.conn.private_data)[0];
		rdma_ack_cm_event(ev);
		if (id->context >= (void *)ls && id->context < (void *)(ls + nl) &&
		    type != RDMA_CM_EVENT_CONNECT_REQUEST) {
			/* a listener's own event: the device went away */
			struct listener *l = id->context;

			if (type == RDMA_CM_EVENT_DEVICE_REMOVAL && l->id == id) {
				rdma_destroy_id(id);
				l->id = NULL;
				l->retry_at = now_ms() + 1000;
			}
			continue;
		}
		switch (type) {
		case RDMA_CM_EVENT_CONNECT_REQUEST:
			req++;
			id->context = NULL;
			if (random() % 16 == 0) {
				rdma_reject(id, "no", 2);
				rdma_destroy_id(id);
				rej++;
				break;
			}
			param.responder_resources = kind == 'L' ? 16 : 1;
			param.initiator_depth = kind == 'L' ? 16 : 1;
			if (create_qp(id) || rdma_accept(id, &param)) {
				rdma_reject(id, NULL, 0);
				drop(id);
				rej++;
			}
			break;
		case RDMA_CM_EVENT_ESTABLISHED:
			est++;
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
	/* Connections still up are the clients' to end; the harness
	 * checks that nothing is left once both sides are done. */
	for (i = 0; i < nl; i++)
		if (ls[i].id)
			rdma_destroy_id(ls[i].id);
	printf("STRESS served established=%d req=%d rej=%d relisten=%d\n",
	       est, req, rej, relisten);
	return 0;
}

/* ---------------------------------------------------------------- client */

enum kind { K_V4, K_V6, K_MIS4, K_MIS6, K_CLAMP, K_NKINDS };
static const char *kind_name[] = { "v4", "v6", "mis4", "mis6", "clamp" };
enum action { A_NONE, A_DESTROY, A_DISCONNECT, A_QP, A_NACTIONS };
enum state { S_FREE, S_ADDR, S_ROUTE, S_CONNECT, S_ESTAB, S_DISC };

struct conn {
	struct rdma_cm_id *id;
	enum state state;
	int kind, action, wild, final;
	long long t0, t_connect, action_at, final_at, hold_at, disc_at;
	/* for a lost DISCONNECTED: rdma_disconnect()'s errno, TIMEWAIT_EXIT */
	int disc_err, timewait;
};

struct ccounts {
	long attempted, established, rejected, failed, destroyed;
	long disconnected, disc_lost, lost, dup, stray, conn_resp, unreach_est;
	long rej_status[64], fail_ev[32], sync_fail, actions[A_NACTIONS];
	long kinds[K_NKINDS], disconnect_calls, qp_destroyed;
};

static struct ccounts cc;
static long wave;	/* -w: connects per wave (0: one wave) */
static struct sockaddr_storage dst4, dst6, dgid4, dgid6;

/* How the connects ended so far that did not establish. */
static void print_ends(void)
{
	int i;

	printf("STRESS rejected by status:");
	for (i = 0; i < 64; i++)
		if (cc.rej_status[i])
			printf(" %d=%ld", i, cc.rej_status[i]);
	printf("; failed by event:");
	for (i = 0; i < 32; i++)
		if (cc.fail_ev[i])
			printf(" %s=%ld", rdma_event_str(i), cc.fail_ev[i]);
	printf(" call=%ld\n", cc.sync_fail);
}
static int have6, have_dgid4, have_dgid6, cport, final_s = 120;
static long long avg_ms = 2000;

/*
 * -e: connects to listeners that never accept (a churn's), on PORT only:
 * none need be established
 */
static int none_established_ok;
/* -E: none need be established, the mix unchanged (a fault round) */
static int none_needed;

static void conn_free(struct conn *c)
{
	if (c->id)
		drop(c->id);
	memset(c, 0, sizeof(*c));
}

/* the connect ends (before a final event): counted as failed */
static void conn_fail(struct conn *c, int ev)
{
	static int printed;

	if (ev < 0 && printed++ < 10)
		printf("STRESS call failed in state %d (kind %s): errno %d\n",
		       c->state, kind_name[c->kind], errno);
	cc.failed++;
	if (ev >= 0 && ev < 32)
		cc.fail_ev[ev]++;
	c->final = 1;
	conn_free(c);
}

static int conn_start(struct rdma_event_channel *ch, struct conn *c)
{
	struct sockaddr_storage dst;
	int r;

	memset(c, 0, sizeof(*c));
	c->kind = random() % K_NKINDS;
	if (!have6 && (c->kind == K_V6 || c->kind == K_MIS6))
		c->kind = K_V4;
	if ((c->kind == K_MIS4 && !have_dgid4) || (c->kind == K_MIS6 && !have_dgid6))
		c->kind = c->kind == K_MIS4 ? K_V4 : K_V6;
	c->action = random() % A_NACTIONS;
	c->wild = none_established_ok ? 0 : random() % 2;
	c->t0 = now_ms();
	c->action_at = c->t0 + random() % (2 * avg_ms + 1);
	c->final_at = c->t0 + final_s * 1000LL;
	cc.attempted++;
	cc.kinds[c->kind]++;
	cc.actions[c->action]++;
	dst = (c->kind == K_V6 || c->kind == K_MIS6) ? dst6 : dst4;
	set_port((struct sockaddr *)&dst, cport + c->wild);
	if (rdma_create_id(ch, &c->id, c, RDMA_PS_TCP)) {
		c->id = NULL;
		cc.sync_fail++;
		conn_fail(c, -1);
		return -1;
	}
	c->state = S_ADDR;
	r = rdma_resolve_addr(c->id, NULL, (struct sockaddr *)&dst, 2000);
	if (r) {
		cc.sync_fail++;
		conn_fail(c, -1);
		return -1;
	}
	return 0;
}

static void conn_connect(struct conn *c)
{
	struct rdma_conn_param param = {
		.responder_resources = 1, .initiator_depth = 1,
		.retry_count = 7, .rnr_retry_count = 7,
	};
	char pd[4] = { c->kind == K_CLAMP ? 'L' : 'N', (char)c->kind };

	param.private_data = pd;
	param.private_data_len = sizeof(pd);
	if (create_qp(c->id)) {
		cc.sync_fail++;
		conn_fail(c, -1);
		return;
	}
	if (c->action == A_QP && now_ms() >= c->action_at) {
		rdma_destroy_qp(c->id);
		cc.qp_destroyed++;
		c->action = A_NONE;
	}
	c->t_connect = now_ms();
	c->state = S_CONNECT;
	if (rdma_connect(c->id, &param)) {
		cc.sync_fail++;
		conn_fail(c, -1);
	}
}

static void conn_established(struct conn *c)
{
	long long dt = now_ms() - c->t0;

	cc.established++;
	c->final = 1;
	c->state = S_ESTAB;
	c->hold_at = now_ms() + random() % 500;
	if (c->action == A_NONE)
		avg_ms = (avg_ms * 7 + dt) / 8;
}

static void conn_event(struct conn *c, struct rdma_cm_event *ev)
{
	enum rdma_cm_event_type t = ev->event;
	int status = ev->status;
	struct rdma_cm_id *id = ev->id;

	rdma_ack_cm_event(ev);
	if (!c || c->id != id) {
		cc.stray++;
		printf("STRESS stray event %s\n", rdma_event_str(t));
		return;
	}
	switch (t) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		if (c->state != S_ADDR)
			goto odd;
		c->state = S_ROUTE;
		if (c->kind == K_MIS4 || c->kind == K_MIS6) {
			if (cm_misdirect(c->id, (struct sockaddr *)(c->kind == K_MIS4 ? &dgid4 : &dgid6))) {
				cc.sync_fail++;
				conn_fail(c, -1);
			}
		} else if (rdma_resolve_route(c->id, 2000)) {
			cc.sync_fail++;
			conn_fail(c, -1);
		}
		return;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		if (c->state != S_ROUTE)
			goto odd;
		conn_connect(c);
		return;
	case RDMA_CM_EVENT_CONNECT_RESPONSE:
		/*
		 * The QP was destroyed (action qp) before the REP came: the
		 * connect ends only with rdma_establish() (the RTU).  Without
		 * it ib_cm stays in MRA_REP_SENT, and rdma_disconnect() later
		 * finds no connection to end.
		 */
		if (c->final)
			goto dup;
		cc.conn_resp++;
		if (rdma_establish(c->id)) {
			conn_fail(c, -1);
			return;
		}
		conn_established(c);
		return;
	case RDMA_CM_EVENT_ESTABLISHED:
		if (c->final)
			goto dup;
		conn_established(c);
		return;
	case RDMA_CM_EVENT_REJECTED:
		if (c->final)
			goto dup;
		cc.rejected++;
		cc.rej_status[status >= 0 && status < 64 ? status : 63]++;
		c->final = 1;
		conn_free(c);
		return;
	case RDMA_CM_EVENT_UNREACHABLE:
		/*
		 * After ESTABLISHED, not a second end of the connect: the
		 * RDMA CM aborts a RoCE connection whose neighbour entry
		 * moved to another MAC (stock's netevent callback), as the
		 * server's teardown makes the client's entries do.
		 */
		if (c->final && (c->state == S_ESTAB || c->state == S_DISC)) {
			cc.unreach_est++;
			conn_free(c);
			return;
		}
		/* fall through */
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_CONNECT_ERROR:
		if (c->final)
			goto dup;
		conn_fail(c, t);
		return;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		if (!c->final) {
			conn_fail(c, t);
			return;
		}
		if (c->state == S_DISC)
			cc.disconnected++;
		conn_free(c);
		return;
	case RDMA_CM_EVENT_DISCONNECTED:
		if (c->state != S_ESTAB && c->state != S_DISC)
			goto odd;
		cc.disconnected++;
		conn_free(c);
		return;
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		c->timewait = 1;
		return;
	case RDMA_CM_EVENT_ADDR_CHANGE:
		return;
	default:
		goto odd;
	}
dup:
	cc.dup++;
	printf("STRESS dup final event %s status %d (kind %s, state %d)\n",
	       rdma_event_str(t), status, kind_name[c->kind], c->state);
	return;
odd:
	cc.stray++;
	printf("STRESS unexpected event %s status %d in state %d (kind %s)\n",
	       rdma_event_str(t), status, c->state, kind_name[c->kind]);
}

/* The kernel's view of a connect's id, for the log (iproute2's rdma). */
static void print_kernel_id(struct conn *c)
{
	char cmd[96];

	snprintf(cmd, sizeof(cmd),
		 "rdma res show cm_id src-port %u | sed 's/^/STRESS   /'",
		 ntohs(rdma_get_src_port(c->id)));
	fflush(stdout);
	if (system(cmd) < 0)
		perror("system");
}

static void conn_timers(struct conn *c, long long now)
{
	if (c->state == S_FREE)
		return;
	if (c->action != A_NONE && now >= c->action_at) {
		int a = c->action;

		c->action = A_NONE;
		switch (a) {
		case A_DESTROY:
			if (!c->final) {
				cc.destroyed++;
				c->final = 1;
			} else if (c->state == S_DISC || c->state == S_ESTAB) {
				/* after ESTABLISHED: a teardown, not a connect's end */
			}
			conn_free(c);
			return;
		case A_DISCONNECT:
			cc.disconnect_calls++;
			if (rdma_disconnect(c->id) == 0 && c->state == S_ESTAB) {
				c->state = S_DISC;
				c->disc_at = now + 150000;
			}
			break;
		case A_QP:
			if (c->id->qp) {
				rdma_destroy_qp(c->id);
				cc.qp_destroyed++;
			} else {
				c->action = A_QP;	/* once it has one */
			}
			break;
		}
	}
	if (c->state == S_ESTAB && now >= c->hold_at && c->action == A_NONE) {
		if (rdma_disconnect(c->id))
			c->disc_err = errno;
		c->state = S_DISC;
		c->disc_at = now + 150000;
	}
	if (c->state == S_DISC && now >= c->disc_at) {
		cc.disc_lost++;
		printf("STRESS no DISCONNECTED within 150 s (kind %s, rdma_disconnect errno %d, TIMEWAIT_EXIT %s)\n",
		       kind_name[c->kind], c->disc_err,
		       c->timewait ? "seen" : "not seen");
		print_kernel_id(c);
		conn_free(c);
		return;
	}
	if (!c->final && now >= c->final_at) {
		cc.lost++;
		printf("STRESS lost: no final event in %d s (kind %s, state %d)\n",
		       final_s, kind_name[c->kind], c->state);
		print_kernel_id(c);
		c->final = 1;
		conn_free(c);
	}
}

static int client(const char *a4, const char *a6, const char *d4,
		  const char *d6, int port, long n, int inflight,
		  unsigned int seed)
{
	struct rdma_event_channel *ch;
	struct conn *cs = calloc(inflight, sizeof(*cs));
	long started = 0, wave_end = wave ? wave : n;
	int active, i, maxact = 0, active_pre, maxpre = 0;
	long long t0 = now_ms(), lastprint = t0;

	cport = port;
	parse_addrs(a4, "0", &dst4, 1);
	if (a6)
		have6 = parse_addrs(a6, "0", &dst6, 1);
	if (d4)
		have_dgid4 = parse_addrs(d4, "0", &dgid4, 1);
	if (d6)
		have_dgid6 = parse_addrs(d6, "0", &dgid6, 1);
	printf("STRESS seed=%u n=%ld inflight=%d wave=%ld\n", seed, n, inflight, wave);
	srandom(seed);
	ch = rdma_create_event_channel();
	if (!ch || !cs)
		return 1;
	for (;;) {
		struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
		struct rdma_cm_event *ev;
		long long now;

		/* -w: the next wave once every connect of this one ended */
		for (i = 0, active = 0; i < inflight; i++)
			active += cs[i].state != S_FREE;
		if (!active && started >= wave_end)
			wave_end += wave;
		active = 0;
		for (i = 0; i < inflight; i++) {
			if (cs[i].state == S_FREE && started < n &&
			    started < wave_end && !stop) {
				started++;
				conn_start(ch, &cs[i]);
			}
			active += cs[i].state != S_FREE;
		}
		if (active > maxact)
			maxact = active;
		for (i = 0, active_pre = 0; i < inflight; i++)
			active_pre += cs[i].state != S_FREE && !cs[i].final;
		if (active_pre > maxpre)
			maxpre = active_pre;
		if (!active && (started >= n || stop))
			break;
		if (poll(&pfd, 1, 20) > 0) {
			/* a burst of events, then the timers */
			for (i = 0; i < 64; i++) {
				struct pollfd p2 = { .fd = ch->fd, .events = POLLIN };

				if (poll(&p2, 1, 0) <= 0 || rdma_get_cm_event(ch, &ev))
					break;
				conn_event(ev->id->context, ev);
			}
		}
		now = now_ms();
		for (i = 0; i < inflight; i++)
			conn_timers(&cs[i], now);
		if (now - lastprint > 10000) {
			lastprint = now;
			printf("STRESS progress %lds started=%ld active=%d est=%ld rej=%ld failed=%ld destroyed=%ld\n",
			       (long)((now - t0) / 1000), started, active,
			       cc.established, cc.rejected, cc.failed, cc.destroyed);
			print_ends();
		}
	}
	printf("STRESS kinds:");
	for (i = 0; i < K_NKINDS; i++)
		printf(" %s=%ld", kind_name[i], cc.kinds[i]);
	printf("; actions: none=%ld destroy=%ld disconnect=%ld qp=%ld; qp_destroyed=%ld disconnect_calls=%ld conn_resp=%ld unreachable_established=%ld\n",
	       cc.actions[0], cc.actions[1], cc.actions[2], cc.actions[3],
	       cc.qp_destroyed, cc.disconnect_calls, cc.conn_resp, cc.unreach_est);
	print_ends();
	printf("STRESS seed=%u attempted=%ld established=%ld rejected=%ld failed=%ld destroyed=%ld disconnected=%ld disc_lost=%ld lost=%ld dup=%ld stray=%ld max_inflight=%d max_connecting=%d avg_ms=%lld secs=%lld\n",
	       seed, cc.attempted, cc.established, cc.rejected, cc.failed,
	       cc.destroyed, cc.disconnected, cc.disc_lost, cc.lost, cc.dup,
	       cc.stray, maxact, maxpre, avg_ms, (now_ms() - t0) / 1000);
	rdma_destroy_event_channel(ch);
	return cc.attempted != cc.established + cc.rejected + cc.failed + cc.destroyed ||
	       cc.lost || cc.dup || cc.stray || cc.disc_lost ||
	       (!cc.established && !none_established_ok && !none_needed) ? 2 : 0;
}

/* ------------------------------------------------------ listener churn */

/* -o: the churn's listeners are bound to ADDRs on PORT only */
static int churn_one_port;

static int churn(const char *addrs, int port, long cycles, unsigned int seed)
{
	struct sockaddr_storage as[MAXADDR + 2];
	struct rdma_event_channel *ch = rdma_create_event_channel();
	long ok = 0, bindfail = 0, listenfail = 0, events = 0, rejected = 0, i;
	int na;

	printf("STRESS churn seed=%u cycles=%ld\n", seed, cycles);
	srandom(seed);
	na = parse_addrs(addrs, "0", as, MAXADDR);
	memset(&as[na], 0, sizeof(as[0]) * 2);
	if (!churn_one_port) {
		as[na++].ss_family = AF_INET;		/* wildcards */
		as[na++].ss_family = AF_INET6;
	}
	if (!ch)
		return 1;
	for (i = 0; i < cycles; i++) {
		struct sockaddr_storage a = as[random() % na];
		struct rdma_cm_id *id;
		struct rdma_cm_event *ev;
		struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };

		set_port((struct sockaddr *)&a, port + (churn_one_port ? 0 : random() % 4));
		if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP))
			return printf("STRESS churn: create_id: %d\n", errno), 2;
		if (random() % 4 == 0) {
			int one = 1;

			rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_AFONLY,
					&one, sizeof(one));
		}
		if (rdma_bind_addr(id, (struct sockaddr *)&a))
			bindfail++;
		else if (rdma_listen(id, random() % 2 ? 0 : 128))
			listenfail++;
		else
			ok++;
		/* With -o, a REQ may be on its way to this listener. */
		if (churn_one_port)
			usleep(random() % 2000);
		while (poll(&pfd, 1, 0) > 0 && !rdma_get_cm_event(ch, &ev)) {
			struct rdma_cm_id *nid = ev->id;
			int req = ev->event == RDMA_CM_EVENT_CONNECT_REQUEST;

			events++;
			rdma_ack_cm_event(ev);
			/*
			 * A request's id is ours to end.  Held, its ib_cm id
			 * answers each REQ retransmission with an MRA (68 s of
			 * service timeout), so the peer's connect waits until
			 * this process exits or its 15 REQ retries run out,
			 * about 16 min (stress item 6).  rdma_reject() sends
			 * a REJ with reason 28, and so does destroying the id
			 * without it.
			 */
			if (req) {
				if (random() % 2 && !rdma_reject(nid, NULL, 0))
					rejected++;
				rdma_destroy_id(nid);
			}
		}
		rdma_destroy_id(id);
	}
	rdma_destroy_event_channel(ch);
	printf("STRESS churn seed=%u cycles=%ld listened=%ld bind_failed=%ld listen_failed=%ld events=%ld rejected=%ld\n",
	       seed, cycles, ok, bindfail, listenfail, events, rejected);
	return 0;
}

/* -------------------------------------------------------- librdmacm fuzz */

#define FZ_IDS 32

static int fz_port = 7600;

static int fz_addr(struct sockaddr_storage *as, int na, struct sockaddr_storage *out)
{
	static const char *extra[] = { "127.0.0.1", "0.0.0.0", "224.0.0.1",
		"255.255.255.255", "::", "::1", "fe80::1", "ff02::1",
		"192.0.2.77", "198.51.100.1", "::ffff:192.0.2.1" };
	int r = random() % (na + 12);

	if (r < na) {
		*out = as[r];
	} else if (r < na + 11) {
		parse_addrs(extra[r - na], "0", out, 1);
	} else {
		unsigned char *p = (unsigned char *)out;
		size_t i;

		for (i = 0; i < sizeof(*out); i++)
			p[i] = random();
		out->ss_family = random() % 2 ? AF_INET : AF_INET6;
	}
	set_port((struct sockaddr *)out, random() % 3 ? fz_port + random() % 4 : random() % 65536);
	return 0;
}

static int fuzz(const char *addrs, int port, int secs, unsigned int seed)
{
	struct rdma_event_channel *ch[2];
	struct rdma_cm_id *ids[FZ_IDS] = {};
	char isreq[FZ_IDS] = {};	/* from a CONNECT_REQUEST */
	struct sockaddr_storage as[MAXADDR], a, b;
	long ops = 0, fails = 0, events = 0, per[16] = {};
	long long end = now_ms() + secs * 1000LL;
	int na, i;

	printf("STRESS fuzz seed=%u seconds=%d\n", seed, secs);
	fz_port = port;
	srandom(seed);
	na = parse_addrs(addrs, "0", as, MAXADDR);
	ch[0] = rdma_create_event_channel();
	ch[1] = rdma_create_event_channel();
	if (!ch[0] || !ch[1])
		return 1;
	while (now_ms() < end) {
		int k = random() % FZ_IDS, op = random() % 16, r = 0, c;
		struct rdma_cm_id *id = ids[k];
		struct rdma_cm_event *ev;

		/* events first: new ids from CONNECT_REQUEST join the pool */
		for (c = 0; c < 2; c++) {
			struct pollfd pfd = { .fd = ch[c]->fd, .events = POLLIN };

			while (poll(&pfd, 1, 0) > 0 && !rdma_get_cm_event(ch[c], &ev)) {
				struct rdma_cm_id *nid = ev->id;
				int t = ev->event;

				events++;
				rdma_ack_cm_event(ev);
				if (t == RDMA_CM_EVENT_CONNECT_REQUEST) {
					int j = random() % FZ_IDS;

					if (ids[j] || random() % 3 == 0) {
						if (random() % 2)
							rdma_reject(nid, NULL, 0);
						drop(nid);
					} else {
						ids[j] = nid;
						isreq[j] = 1;
					}
				}
			}
		}
		ops++;
		per[op]++;
		if (!id && op != 0) {
			op = 0;
		}
		/*
		 * librdmacm dereferences the device of an id in these (a
		 * NULL pointer before an address is bound): the kernel's
		 * side of them is cm_fuzz's.
		 */
		if (id && !id->verbs && (op == 3 || op == 5 || op == 6 || op == 8 ||
					 op == 9 || op == 14))
			op = 15;
		/* librdmacm's accept and connect expect the right kind of id */
		if (id && ((op == 6 || op == 14) && !isreq[k]))
			op = 15;
		if (id && op == 5 && isreq[k])
			op = 15;
		switch (op) {
		case 0: /* create */
			if (id)
				drop(id);
			ids[k] = NULL;
			isreq[k] = 0;
			r = rdma_create_id(ch[random() % 2], &ids[k], NULL,
					   random() % 4 ? RDMA_PS_TCP :
					   random() % 2 ? RDMA_PS_UDP : RDMA_PS_IB);
			if (r)
				ids[k] = NULL;
			break;
		case 1: /* bind */
			fz_addr(as, na, &a);
			r = rdma_bind_addr(id, (struct sockaddr *)&a);
			break;
		case 2: /* resolve addr */
			fz_addr(as, na, &a);
			fz_addr(as, na, &b);
			r = rdma_resolve_addr(id, random() % 2 ? (struct sockaddr *)&b : NULL,
					      (struct sockaddr *)&a, random() % 3000);
			break;
		case 3:
			r = rdma_resolve_route(id, random() % 3000);
			break;
		case 4:
			r = rdma_listen(id, random() % 8);
			break;
		case 5: { /* connect */
			struct rdma_conn_param p = {
				.responder_resources = random() % 3 ? random() % 4 : 255,
				.initiator_depth = random() % 3 ? random() % 4 : 255,
				.retry_count = random() % 8,
				.rnr_retry_count = random() % 8,
				.private_data_len = random() % 57,
			};
			char pd[64] = "fuzz";

			p.private_data = pd;
			r = rdma_connect(id, random() % 4 ? &p : NULL);
			break;
		}
		case 6: { /* accept */
			struct rdma_conn_param p = {
				.responder_resources = random() % 20,
				.initiator_depth = random() % 20,
			};

			r = rdma_accept(id, random() % 3 ? &p : NULL);
			break;
		}
		case 7:
			r = rdma_reject(id, "x", random() % 2);
			break;
		case 8:
			r = rdma_disconnect(id);
			break;
		case 9: { /* set_option */
			int v = random() % 300;
			int level = random() % 2 ? RDMA_OPTION_ID : RDMA_OPTION_IB;
			int name = random() % 5;

			if (level == RDMA_OPTION_IB && random() % 2) {
				fz_addr(as, na, &a);
				r = cm_misdirect(id, (struct sockaddr *)&a);
			} else {
				r = rdma_set_option(id, level, name, &v, random() % 2 ? sizeof(v) : 1);
			}
			break;
		}
		case 10:
			drop(id);
			ids[k] = NULL;
			break;
		case 11:
			r = rdma_migrate_id(id, ch[random() % 2]);
			break;
		case 12:
			/* librdmacm needs a device for a QP */
			if (!id->qp && id->verbs)
				r = create_qp(id);
			break;
		case 13:
			if (id->qp)
				rdma_destroy_qp(id);
			break;
		case 14:
			r = rdma_establish(id);
			break;
		case 15:
			usleep(random() % 20000);
			break;
		}
		if (r)
			fails++;
	}
	for (i = 0; i < FZ_IDS; i++)
		if (ids[i])
			drop(ids[i]);
	printf("STRESS fuzz seed=%u ops=%ld failed=%ld events=%ld per-op:", seed, ops, fails, events);
	for (i = 0; i < 16; i++)
		printf(" %ld", per[i]);
	printf("\n");
	return 0;
}

int main(int argc, char **argv)
{
	const char *saddr = NULL, *caddr = NULL, *a6 = NULL, *d4 = NULL,
		   *d6 = NULL, *addrs = NULL;
	unsigned int seed = time(NULL) ^ getpid();
	long n = 1000, cycles = 0;
	int port = 7700, inflight = 200, idle = 60, fz = 0, opt;

	while ((opt = getopt(argc, argv, "s:c:6:d:D:p:n:f:S:T:t:L:F:a:eEow:")) != -1) {
		switch (opt) {
		case 's': saddr = optarg; break;
		case 'c': caddr = optarg; break;
		case '6': a6 = optarg; break;
		case 'd': d4 = optarg; break;
		case 'D': d6 = optarg; break;
		case 'p': port = atoi(optarg); break;
		case 'n': n = atol(optarg); break;
		case 'f': inflight = atoi(optarg); break;
		case 'w': wave = atol(optarg); break;
		case 'S': seed = strtoul(optarg, NULL, 0); break;
		case 'T': final_s = atoi(optarg); break;
		case 't': idle = atoi(optarg); break;
		case 'L': cycles = atol(optarg); break;
		case 'F': fz = atoi(optarg); break;
		case 'a': addrs = optarg; break;
		case 'e': none_established_ok = 1; break;
		case 'E': none_needed = 1; break;
		case 'o': churn_one_port = 1; break;
		default:
			fprintf(stderr, "usage: see the comment at the top of cm_stress.c\n");
			return 1;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGTERM, on_term);
	signal(SIGPIPE, SIG_IGN);
	srandom(seed);
	if (saddr)
		return serve(saddr, port, idle);
	if (caddr)
		return client(caddr, a6, d4, d6, port, n, inflight, seed);
	if (cycles && addrs)
		return churn(addrs, port, cycles, seed);
	if (fz && addrs)
		return fuzz(addrs, port, fz, seed);
	fprintf(stderr, "usage: see the comment at the top of cm_stress.c\n");
	return 1;
}
