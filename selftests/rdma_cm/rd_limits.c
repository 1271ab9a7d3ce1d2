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
 *   rd_limits -s ADDR [-p PORT] [-P tcp|ib] [-r RESP|max|event] [-i INIT|max|event] [-n COUNT] [-R N]
 *   rd_limits -c ADDR [-p PORT] [-P tcp|ib] [-r RESP|max] [-i INIT|max] [-t SECONDS] [-R N]
 *
 * 'max' passes RDMA_MAX_RESP_RES / RDMA_MAX_INIT_DEPTH (librdmacm picks);
 * 'event' (server) accepts with what the CONNECT_REQUEST event reported.
 * -n: the server serves COUNT connections, one after the other.
 * -R N: data moves the other way than usual, server to client: the client
 * exposes a buffer (address and rkey in the REQ's private data) and waits;
 * the server issues N RDMA reads of 4 KiB from it, all posted at once, so
 * that as many are in flight as its QP's max_rd_atomic allows, and prints
 *
 *   RD reads n=N ok=K status=S        (S: the first failed completion)
 *
 * then disconnects.  The client's responder must hold every read the
 * server's QP issues, or reads fail.
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
#include <endian.h>
#include <stdint.h>
#include <time.h>
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

#define READ_SIZE 4096
#define READ_BUF (64 * READ_SIZE)

/* What the client exposes to the server's reads (-R), in the REQ. */
struct rd_buf {
	uint64_t addr;
	uint32_t rkey;
	uint32_t len;
} __attribute__((packed));

static struct rd_buf peer_buf;
static int peer_buf_valid;

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
	if (ok && want == RDMA_CM_EVENT_CONNECT_REQUEST &&
	    ev->param.conn.private_data_len >= sizeof(peer_buf)) {
		memcpy(&peer_buf, ev->param.conn.private_data, sizeof(peer_buf));
		peer_buf_valid = 1;
	}
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

/*
 * -R: issue n reads of the peer's buffer at once; the QP keeps as many in
 * flight as its max_rd_atomic allows.
 */
static int do_reads(struct rdma_cm_id *id, int n, int timeout_s)
{
	static char buf[READ_BUF];
	struct ibv_mr *mr = rdma_reg_msgs(id, buf, sizeof(buf));
	struct ibv_wc wc;
	time_t end = time(NULL) + timeout_s;
	int i, done = 0, ok = 0, status = IBV_WC_SUCCESS;
	uint64_t off;

	if (!mr || !peer_buf_valid) {
		printf("RD reads n=%d ok=0 status=setup\n", n);
		return -1;
	}
	for (i = 0; i < n; i++) {
		off = (uint64_t)(i % (be32toh(peer_buf.len) / READ_SIZE)) * READ_SIZE;
		if (rdma_post_read(id, NULL, buf + (i % 64) * READ_SIZE,
				   READ_SIZE, mr, IBV_SEND_SIGNALED,
				   be64toh(peer_buf.addr) + off,
				   be32toh(peer_buf.rkey))) {
			printf("RD reads n=%d ok=0 status=post(%d)\n", n, errno);
			return -1;
		}
	}
	while (done < n && time(NULL) < end) {
		if (ibv_poll_cq(id->send_cq, 1, &wc) <= 0)
			continue;
		done++;
		if (wc.status == IBV_WC_SUCCESS)
			ok++;
		else if (status == IBV_WC_SUCCESS)
			status = wc.status;
	}
	printf("RD reads n=%d ok=%d status=%s\n", n, ok,
	       done < n ? "timeout" : ibv_wc_status_str(status));
	return ok == n ? 0 : -1;
}

static int reads;

static int create_qp(struct rdma_cm_id *id)
{
	struct ibv_qp_init_attr qp = {
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};

	if (reads)
		qp.cap.max_send_wr = reads;
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

	while ((opt = getopt(argc, argv, "s:c:p:P:r:i:t:n:R:")) != -1) {
		switch (opt) {
		case 's': server = 1; addr = optarg; break;
		case 'c': server = 0; addr = optarg; break;
		case 'p': port = optarg; break;
		case 'P': ps = strcmp(optarg, "ib") ? RDMA_PS_TCP : RDMA_PS_IB; break;
		case 'r': resp = parse_val(optarg, RDMA_MAX_RESP_RES); break;
		case 'i': init = parse_val(optarg, RDMA_MAX_INIT_DEPTH); break;
		case 't': timeout = atoi(optarg); break;
		case 'n': count = atoi(optarg); break;
		case 'R': reads = atoi(optarg); break;
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
		if (reads) {
			int rc = do_reads(conn, reads, timeout);

			rdma_disconnect(conn);
			return rc ? 2 : 0;
		}
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
	if (reads) {
		static char buf[READ_BUF];
		static struct rd_buf rb;
		struct ibv_mr *mr = ibv_reg_mr(id->pd, buf, sizeof(buf),
					       IBV_ACCESS_LOCAL_WRITE |
					       IBV_ACCESS_REMOTE_READ);

		if (!mr) {
			perror("ibv_reg_mr");
			return 1;
		}
		rb.addr = htobe64((uintptr_t)buf);
		rb.rkey = htobe32(mr->rkey);
		rb.len = htobe32(sizeof(buf));
		param.private_data = &rb;
		param.private_data_len = sizeof(rb);
	}
	if (rdma_connect(id, &param)) {
		printf("RD failed event=connect status=%d\n", -errno);
		return 2;
	}
	if (wait_event(ch, RDMA_CM_EVENT_ESTABLISHED, timeout * 1000,
		       NULL, NULL))
		return 2;
	if (report_qp(id))
		return 1;
	/* -R: the server reads, then disconnects. */
	if (reads)
		wait_event(ch, RDMA_CM_EVENT_DISCONNECTED, timeout * 1000,
			   NULL, NULL);
	rdma_disconnect(id);
	return 0;
}
