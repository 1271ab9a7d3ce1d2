// SPDX-License-Identifier: GPL-2.0
/*
 * cm_hold: keep one connect's REQ out, unanswered, for a while.
 *
 *   cm_hold ADDR PORT SECONDS
 *
 * Resolves ADDR (an address that nothing answers at, e.g. a static
 * neighbour entry to a MAC that no NIC has), connects to PORT without a
 * QP, and prints "REQ out" once rdma_connect() returned: ib_cm then
 * retransmits the REQ through QP1 until it gives up.  It waits SECONDS
 * for an event of the id, prints it, and destroys the id.  Exits 0 if
 * the connect got that far.
 */
#define _GNU_SOURCE
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <rdma/rdma_cma.h>

#include "cm_event.h"

static struct rdma_event_channel *ch;

int main(int argc, char **argv)
{
	struct rdma_conn_param param = { .retry_count = 7 };
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	struct addrinfo *ai;

	if (argc != 4 || getaddrinfo(argv[1], argv[2], NULL, &ai)) {
		fprintf(stderr, "usage: cm_hold ADDR PORT SECONDS\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	ch = rdma_create_event_channel();
	if (!ch || rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) ||
	    rdma_resolve_addr(id, NULL, ai->ai_addr, 2000) ||
	    cm_expect(ch, NULL, RDMA_CM_EVENT_ADDR_RESOLVED, "addr") ||
	    rdma_resolve_route(id, 2000) ||
	    cm_expect(ch, NULL, RDMA_CM_EVENT_ROUTE_RESOLVED, "route") ||
	    rdma_connect(id, &param)) {
		printf("HOLD failed before the REQ\n");
		return 1;
	}
	printf("REQ out\n");
	ev = cm_get_event(ch, atoi(argv[3]) * 1000, "hold");
	if (ev) {
		printf("event %s status %d\n", rdma_event_str(ev->event),
		       ev->status);
		rdma_ack_cm_event(ev);
	}
	rdma_destroy_id(id);
	rdma_destroy_event_channel(ch);
	freeaddrinfo(ai);
	return 0;
}
