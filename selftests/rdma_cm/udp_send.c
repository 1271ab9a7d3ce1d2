// SPDX-License-Identifier: GPL-2.0
/*
 * udp_send ADDR PORT LEN: send one UDP datagram of LEN zero bytes to
 * ADDR:PORT (IPv4 or IPv6), for packets that no RDMA stack would send.
 * Exit status: 0 sent, 1 otherwise.
 */
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

int main(int argc, char **argv)
{
	struct addrinfo hints = { .ai_socktype = SOCK_DGRAM }, *ai;
	char buf[4096] = {};
	int fd, len;

	if (argc != 4 || getaddrinfo(argv[1], argv[2], &hints, &ai)) {
		fprintf(stderr, "usage: udp_send ADDR PORT LEN\n");
		return 1;
	}
	len = atoi(argv[3]);
	if (len < 0 || len > (int)sizeof(buf))
		return 1;
	fd = socket(ai->ai_family, SOCK_DGRAM, 0);
	if (fd < 0 || sendto(fd, buf, len, 0, ai->ai_addr, ai->ai_addrlen) != len) {
		perror("udp_send");
		return 1;
	}
	close(fd);
	freeaddrinfo(ai);
	return 0;
}
