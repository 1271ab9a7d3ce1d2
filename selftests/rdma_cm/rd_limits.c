// SPDX-License-Identifier: GPL-2.0
/*
 * rd_limits: a librdmacm client or server that connects one RC QP with the
 * read limits given on the command line and prints what each step saw:
 *
 *   RD connect_request responder_resources=R initiator_depth=I   (server)
 *   RD established max_rd_atomic=A max_dest_rd_atomic=D          (both)
 *   RD failed event=NAME status=S                                (both)
 *
 * The QP is created with rdma_create_qp(), so librdmacm programs it in user
 * space, as any librdmacm application does.
 *
 *   rd_limits -s ADDR [-p PORT] [-P tcp|ib] [-r RESP|max|event] [-i INIT|max|event] [-n COUNT]
 *   rd_limits -c ADDR [-p PORT] [-P tcp|ib] [-r RESP|max] [-i INIT|max] [-t SECONDS]
 *
 * 'max' passes RDMA_MAX_RESP_RES / RDMA_MAX_INIT_DEPTH (librdmacm picks);
 * 'event' (server) accepts with what the CONNECT_REQUEST event reported.
 * -n: the server serves COUNT connections, one after the other.
 * Exit status: 0 established, 2 the connection failed, 1 usage or setup.
 */
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#include "cm_event.h"

#define EVENT_VAL (-2)

static int parse_val(const char *s, int max)
{
	if (!strcmp(s, "max"))
		return max;
	if (!strcmp(s, "event"))
		return EVENT_VAL;
	return atoi(s);
}

static int wait_event(struct rdma_event_channel *ch, enum rdma_cm_event_type want,
		      int timeout_ms, struct rdma_conn_param *param,
		      struct rdma_cm_id **id)
{
	struct rdma_cm_event *ev = cm_get_event(ch, timeout_ms, "RD");
	int ok;

	if (!ev)
		return -1;
	ok = ev->event == want;
	if (!ok)
		printf("RD failed event=%s status=%d\n",
		       rdma_event_str(ev->event), ev->status);
	if (ok && param)
		*param = ev->param.conn;
	if (ok && id)
		*id = ev->id;
	rdma_ack_cm_event(ev);
	return ok ? 0 : -1;
}

static int report_qp(struct rdma_cm_id *id)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;

	if (ibv_query_qp(id->qp, &attr, IBV_QP_MAX_QP_RD_ATOMIC |
			 IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_STATE, &init)) {
		perror("ibv_query_qp");
		return -1;
	}
	printf("RD established max_rd_atomic=%u max_dest_rd_atomic=%u qp_state=%d\n",
	       attr.max_rd_atomic, attr.max_dest_rd_atomic, attr.qp_state);
	return 0;
}

static int create_qp(struct rdma_cm_id *id)
{
	struct ibv_qp_init_attr qp = {
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};

	if (rdma_create_qp(id, NULL, &qp)) {
		perror("rdma_create_qp");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *addr = NULL, *port = "7480";
	enum rdma_port_space ps = RDMA_PS_TCP;
	int server = -1, resp = RDMA_MAX_RESP_RES, init = RDMA_MAX_INIT_DEPTH;
	int timeout = 20, opt, count = 1;
	struct rdma_event_channel *ch;
	struct rdma_conn_param param = {}, req;
	struct rdma_cm_id *id, *conn;
	struct addrinfo *ai;

	while ((opt = getopt(argc, argv, "s:c:p:P:r:i:t:n:")) != -1) {
		switch (opt) {
		case 's': server = 1; addr = optarg; break;
		case 'c': server = 0; addr = optarg; break;
		case 'p': port = optarg; break;
		case 'P': ps = strcmp(optarg, "ib") ? RDMA_PS_TCP : RDMA_PS_IB; break;
		case 'r': resp = parse_val(optarg, RDMA_MAX_RESP_RES); break;
		case 'i': init = parse_val(optarg, RDMA_MAX_INIT_DEPTH); break;
		case 't': timeout = atoi(optarg); break;
		case 'n': count = atoi(optarg); break;
		default: return 1;
		}
	}
	if (server < 0 || getaddrinfo(addr, port, NULL, &ai)) {
		fprintf(stderr, "usage: see the comment at the top of rd_limits.c\n");
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	ch = rdma_create_event_channel();
	if (!ch || rdma_create_id(ch, &id, NULL, ps)) {
		perror("rdma_create_id");
		return 1;
	}
	param.retry_count = 7;
	param.rnr_retry_count = 7;

	if (server) {
		if (rdma_bind_addr(id, ai->ai_addr) || rdma_listen(id, 1)) {
			perror("listen");
			return 1;
		}
		printf("RD listening\n");
next:
		if (wait_event(ch, RDMA_CM_EVENT_CONNECT_REQUEST, timeout * 1000,
			       &req, &conn))
			return 2;
		printf("RD connect_request responder_resources=%u initiator_depth=%u\n",
		       req.responder_resources, req.initiator_depth);
		if (create_qp(conn))
			return 1;
		param.responder_resources = resp == EVENT_VAL ?
					    req.responder_resources : resp;
		param.initiator_depth = init == EVENT_VAL ?
					req.initiator_depth : init;
		if (rdma_accept(conn, &param)) {
			printf("RD failed event=accept status=%d\n", -errno);
			return 2;
		}
		if (wait_event(ch, RDMA_CM_EVENT_ESTABLISHED, timeout * 1000,
			       NULL, NULL))
			return 2;
		if (report_qp(conn))
			return 1;
		/* Stay until the client has looked at its side. */
		wait_event(ch, RDMA_CM_EVENT_DISCONNECTED, timeout * 1000,
			   NULL, NULL);
		if (--count > 0) {
			rdma_destroy_qp(conn);
			rdma_destroy_id(conn);
			goto next;
		}
		return 0;
	}

	if (rdma_resolve_addr(id, NULL, ai->ai_addr, 2000) ||
	    wait_event(ch, RDMA_CM_EVENT_ADDR_RESOLVED, 5000, NULL, NULL) ||
	    rdma_resolve_route(id, 2000) ||
	    wait_event(ch, RDMA_CM_EVENT_ROUTE_RESOLVED, 5000, NULL, NULL)) {
		printf("RD failed event=resolve status=%d\n", -errno);
		return 2;
	}
	if (create_qp(id))
		return 1;
	param.responder_resources = resp;
	param.initiator_depth = init;
	if (rdma_connect(id, &param)) {
		printf("RD failed event=connect status=%d\n", -errno);
		return 2;
	}
	if (wait_event(ch, RDMA_CM_EVENT_ESTABLISHED, timeout * 1000,
		       NULL, NULL))
		return 2;
	if (report_qp(id))
		return 1;
	rdma_disconnect(id);
	return 0;
}
