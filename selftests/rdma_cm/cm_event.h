/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by the librdmacm test helpers of selftests/rdma_cm. */
#ifndef CM_EVENT_H
#define CM_EVENT_H

#include <endian.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <netinet/in.h>
#include <infiniband/sa.h>
#include <rdma/rdma_cma.h>

/*
 * cm_get_event: the next event of @ch within @timeout_ms, or NULL, after
 * printing "TAG failed event=timeout status=-110" on a timeout.
 */
static inline struct rdma_cm_event *cm_get_event(struct rdma_event_channel *ch,
						 int timeout_ms, const char *tag)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;

	if (poll(&pfd, 1, timeout_ms) <= 0) {
		printf("%s failed event=timeout status=%d\n", tag, -ETIMEDOUT);
		return NULL;
	}
	if (rdma_get_cm_event(ch, &ev)) {
		perror("rdma_get_cm_event");
		return NULL;
	}
	return ev;
}

/*
 * cm_expect: the next event of @ch within 10 s must be @want, for @id
 * unless @id is NULL; otherwise it prints what came, after @tag.
 * Returns 0 or -1.
 */
static inline int cm_expect(struct rdma_event_channel *ch,
			    struct rdma_cm_id *id,
			    enum rdma_cm_event_type want, const char *tag)
{
	struct rdma_cm_event *ev = cm_get_event(ch, 10000, tag);
	int ok;

	if (!ev)
		return -1;
	ok = (!id || ev->id == id) && ev->event == want;
	if (!ok)
		printf("%s: got %s (status %d) on %s id\n", tag,
		       rdma_event_str(ev->event), ev->status,
		       !id || ev->id == id ? "this" : "another");
	rdma_ack_cm_event(ev);
	return ok ? 0 : -1;
}

/* The RoCE GID of an IP address: ::ffff:a.b.c.d, or the IPv6 address. */
static inline void cm_ip_gid(const struct sockaddr *sa, union ibv_gid *gid)
{
	memset(gid, 0, sizeof(*gid));
	if (sa->sa_family == AF_INET6) {
		memcpy(gid->raw, &((const struct sockaddr_in6 *)sa)->sin6_addr,
		       sizeof(gid->raw));
		return;
	}
	gid->raw[10] = 0xff;
	gid->raw[11] = 0xff;
	memcpy(&gid->raw[12], &((const struct sockaddr_in *)sa)->sin_addr, 4);
}

/*
 * cm_misdirect: set @id's path record (RDMA_OPTION_IB_PATH) with the RoCE
 * GID of @dgid_sa as DGID: the REQ goes to the port of that address while
 * its CM IP header names the address @id resolved, as a stale neighbour
 * entry makes it do.  librdmacm reports the path as a resolved route.
 */
static inline int cm_misdirect(struct rdma_cm_id *id,
			       const struct sockaddr *dgid_sa)
{
	struct ibv_path_data pd = {
		.flags = IBV_PATH_FLAG_GMP | IBV_PATH_FLAG_PRIMARY |
			 IBV_PATH_FLAG_BIDIRECTIONAL,
	};
	struct ibv_path_record *p = &pd.path;

	cm_ip_gid(dgid_sa, &p->dgid);
	cm_ip_gid(rdma_get_local_addr(id), &p->sgid);
	p->flowlabel_hoplimit = htobe32(64);
	p->reversible_numpath = 0x81;
	p->pkey = htobe16(0xffff);
	p->mtu = 0x80 | IBV_MTU_1024;
	p->rate = 0x80 | IBV_RATE_10_GBPS;
	p->packetlifetime = 0x80 | 14;
	return rdma_set_option(id, RDMA_OPTION_IB, RDMA_OPTION_IB_PATH,
			       &pd, sizeof(pd));
}

#endif
