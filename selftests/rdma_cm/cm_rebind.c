// SPDX-License-Identifier: GPL-2.0
/*
 * cm_rebind: rdma_resolve_addr() on an id that is not idle must leave the
 * id as it was (patches/cma-fixes/0001).
 *
 *   cm_rebind ADDR 'NEIGH_CMD'
 *
 * Stock rdma_cm writes the scope of an IPv6 link-local destination into
 * the id's bound_dev_if before it finds that the id is not idle and fails
 * with EINVAL.  On RoCE, bound_dev_if is part of the key of the id table
 * that rdma_resolve_route() puts ids on, so the destroyed id stays on the
 * table, and the next id resolved to the same address writes through it
 * (KASAN: slab-use-after-free in cma_add_id_to_tree).  The steps:
 *
 *   1. ids B and A resolve the address and the route to ADDR (RoCE);
 *   2. A resolves the address fe80::1%1: EINVAL, A is past ADDR_BOUND;
 *   3. A is destroyed;
 *   4. id C resolves the address and the route to ADDR;
 *   5. NEIGH_CMD (run with system()) gives ADDR's neighbour entry another
 *      MAC: the RDMA CM's netevent handler walks the table entry of ADDR,
 *      and B and C each get UNREACHABLE, as any id with a resolved route
 *      to a neighbour that changes does.
 *
 * The kernel's KASAN (the debug kernel) is the judge of steps 3-5; the
 * events of step 5 are checked here.  Prints "REBIND ok" or "REBIND
 * failed STEP" and exits 0 or 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rdma/rdma_cma.h>

#include "cm_event.h"

static struct rdma_event_channel *ch;

static int resolve(struct rdma_cm_id *id, struct sockaddr *dst)
{
	if (rdma_resolve_addr(id, NULL, dst, 2000) ||
	    cm_expect(ch, id, RDMA_CM_EVENT_ADDR_RESOLVED, "addr"))
		return -1;
	if (rdma_resolve_route(id, 2000) ||
	    cm_expect(ch, id, RDMA_CM_EVENT_ROUTE_RESOLVED, "route"))
		return -1;
	return 0;
}

#define FAIL(step) do { printf("REBIND failed %s\n", step); return 1; } while (0)

int main(int argc, char **argv)
{
	struct sockaddr_in6 ll = {
		.sin6_family = AF_INET6,
		.sin6_scope_id = 1,
	};
	struct rdma_cm_id *a, *b, *c, *ids[2];
	struct addrinfo *ai;
	int i, got[2] = {};

	if (argc != 3 || getaddrinfo(argv[1], NULL, NULL, &ai)) {
		fprintf(stderr, "usage: cm_rebind ADDR 'NEIGH_CMD'\n");
		return 2;
	}
	ll.sin6_addr.s6_addr[0] = 0xfe;
	ll.sin6_addr.s6_addr[1] = 0x80;
	ll.sin6_addr.s6_addr[15] = 1;
	setvbuf(stdout, NULL, _IOLBF, 0);
	ch = rdma_create_event_channel();
	if (!ch || rdma_create_id(ch, &b, NULL, RDMA_PS_TCP) ||
	    rdma_create_id(ch, &a, NULL, RDMA_PS_TCP) ||
	    rdma_create_id(ch, &c, NULL, RDMA_PS_TCP))
		FAIL("create");

	if (resolve(b, ai->ai_addr) || resolve(a, ai->ai_addr))
		FAIL("1-resolve");
	printf("step 1: ids B and A have a route to %s\n", argv[1]);

	errno = 0;
	if (!rdma_resolve_addr(a, NULL, (struct sockaddr *)&ll, 2000) ||
	    errno != EINVAL)
		FAIL("2-resolve-linklocal-not-EINVAL");
	printf("step 2: A: rdma_resolve_addr(fe80::1%%1): EINVAL\n");

	rdma_destroy_id(a);
	printf("step 3: A destroyed\n");

	if (resolve(c, ai->ai_addr))
		FAIL("4-resolve");
	printf("step 4: id C has a route to %s\n", argv[1]);

	printf("step 5: %s\n", argv[2]);
	if (system(argv[2]))
		FAIL("5-neigh-cmd");
	ids[0] = b;
	ids[1] = c;
	for (i = 0; i < 2; i++) {
		struct rdma_cm_event *ev = cm_get_event(ch, 10000, "neigh");
		int j;

		if (!ev)
			FAIL("5-no-event");
		for (j = 0; j < 2; j++)
			if (ev->id == ids[j] &&
			    ev->event == RDMA_CM_EVENT_UNREACHABLE)
				got[j]++;
		printf("step 5: %s on %s\n", rdma_event_str(ev->event),
		       ev->id == b ? "B" : ev->id == c ? "C" : "another id");
		rdma_ack_cm_event(ev);
	}
	if (got[0] != 1 || got[1] != 1)
		FAIL("5-not-one-unreachable-each");
	rdma_destroy_id(b);
	rdma_destroy_id(c);
	rdma_destroy_event_channel(ch);
	freeaddrinfo(ai);
	printf("REBIND ok\n");
	return 0;
}
