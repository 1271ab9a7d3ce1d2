// SPDX-License-Identifier: GPL-2.0
/*
 * udp_recv PORT SECONDS: wait up to SECONDS for one UDP datagram to PORT
 * (IPv4).  A word that needs no answer: the failover group's server sends
 * it after the fail-over, when an exchange with the client would tell the
 * client the new MAC.
 * Exit status: 0 received, 1 otherwise.
 */
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/time.h>

int main(int argc, char **argv)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct timeval tv = {};
	char buf[64];
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: udp_recv PORT SECONDS\n");
		return 1;
	}
	sin.sin_port = htons(atoi(argv[1]));
	tv.tv_sec = atoi(argv[2]);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sin, sizeof(sin)) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    recv(fd, buf, sizeof(buf), 0) < 0) {
		perror("udp_recv");
		return 1;
	}
	return 0;
}
