/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by the librdmacm test helpers of selftests/rdma_cm. */
#ifndef CM_EVENT_H
#define CM_EVENT_H

#include <errno.h>
#include <poll.h>
#include <stdio.h>
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

#endif
