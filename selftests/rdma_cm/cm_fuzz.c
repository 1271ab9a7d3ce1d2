// SPDX-License-Identifier: GPL-2.0
/*
 * cm_fuzz: random commands written to /dev/infiniband/rdma_cm, the RDMA
 * CM's user interface, without librdmacm: each write() is a struct
 * rdma_ucm_cmd_hdr and its command (<rdma/rdma_user_cm.h>).
 *
 *   cm_fuzz -a ADDR[,ADDR...] [-p PORT] [-T SECONDS] [-S SEED]
 *
 * Two files are open (O_NONBLOCK, so GET_EVENT never blocks), for
 * MIGRATE_ID.  Ids the kernel returned (CREATE_ID, and CONNECT_REQUEST
 * events) go into a pool; each step picks a command (create, destroy,
 * bind_ip, bind, resolve_ip, resolve_addr, resolve_route, query_route,
 * query, connect, listen, accept, reject, disconnect, init_qp_attr,
 * get_event, get/set_option, notify, join/leave mcast, migrate), an id from
 * the pool or a random number, and arguments: mostly plausible (the ADDRs,
 * wildcards, loopback, multicast, foreign; ports near PORT; read limits;
 * private data of any length), sometimes random bytes, wrong lengths and
 * bad response pointers.  Every few thousand steps a file is closed and
 * opened again, which destroys all its ids at once.
 *
 * It prints "FUZZ seed=S" first, to replay a run (-S S), and at the end
 * "FUZZ seed=S ops=N ok=K errors=E events=V closes=C ids=I", and exits 0:
 * its pass criteria are the kernel's (no report on the console, nothing
 * leaked, no cm_id left once it exits).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netdb.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <netinet/in.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_user_cm.h>

#define DEV "/dev/infiniband/rdma_cm"
#define POOL 64
#define NCMD (RDMA_USER_CM_CMD_JOIN_MCAST + 1)

static int fds[2];
static struct { int fd; __u32 id; } pool[POOL];
static int npool;
static struct sockaddr_storage addrs[16];
static int naddrs, port = 7800;
static long ops, okc, errs, events, closes, idsn, per[NCMD];
static unsigned char resp[8192] __attribute__((aligned(8)));

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static unsigned int rnd(unsigned int n) { return n ? random() % n : 0; }

static void fill_rand(void *p, size_t n)
{
	unsigned char *b = p;

	while (n--)
		*b++ = random();
}

static void pool_add(int fd, __u32 id)
{
	idsn++;
	if (npool < POOL) {
		pool[npool].fd = fd;
		pool[npool++].id = id;
	} else {
		int k = rnd(POOL);

		pool[k].fd = fd;
		pool[k].id = id;
	}
}

static void pool_del(int fd, __u32 id)
{
	int i;

	for (i = 0; i < npool; i++)
		if (pool[i].fd == fd && pool[i].id == id) {
			pool[i] = pool[--npool];
			return;
		}
}

/* an id and the file it lives on; sometimes a wrong file or a random id */
static __u32 pick(int *fd)
{
	int k;

	if (!npool || rnd(20) == 0) {
		*fd = fds[rnd(2)];
		return rnd(4) ? rnd(64) : (__u32)random();
	}
	k = rnd(npool);
	*fd = rnd(30) ? pool[k].fd : fds[rnd(2)];
	return pool[k].id;
}

static int parse(const char *s, struct sockaddr_storage *ss)
{
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST }, *ai;

	if (getaddrinfo(s, NULL, &hints, &ai))
		return -1;
	memset(ss, 0, sizeof(*ss));
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	freeaddrinfo(ai);
	return 0;
}

static const char *extra[] = { "0.0.0.0", "::", "127.0.0.1", "::1",
	"224.0.0.1", "ff02::1", "ff0e::1:2", "fe80::1", "192.0.2.250",
	"198.51.100.7", "::ffff:192.0.2.1", "255.255.255.255", "169.254.1.1" };

/* a plausible address, sometimes a random one; *len its length */
static void rnd_addr(struct sockaddr_storage *ss, __u16 *len)
{
	int r = rnd(naddrs + 14);

	if (r < naddrs)
		*ss = addrs[r];
	else if (r < naddrs + 13)
		parse(extra[r - naddrs], ss);
	else {
		fill_rand(ss, sizeof(*ss));
		ss->ss_family = rnd(3) == 0 ? rnd(64) : rnd(2) ? AF_INET : AF_INET6;
	}
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons(rnd(4) ? port + rnd(4) : rnd(65536));
	else if (ss->ss_family == AF_INET6)
		((struct sockaddr_in6 *)ss)->sin6_port = htons(rnd(4) ? port + rnd(4) : rnd(65536));
	if (len)
		*len = rnd(10) ? (ss->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
				  sizeof(struct sockaddr_in)) : rnd(sizeof(*ss) + 1);
}

static void rnd_in6(struct sockaddr_in6 *s6)
{
	struct sockaddr_storage ss;

	rnd_addr(&ss, NULL);
	memcpy(s6, &ss, sizeof(*s6));
}

static __u64 rnd_resp(void)
{
	switch (rnd(40)) {
	case 0: return 0;
	case 1: return 1;
	case 2: return 0xffff888000000000ULL;	/* the kernel's */
	default: return (uintptr_t)resp;
	}
}

static void rnd_conn(struct rdma_ucm_conn_param *p)
{
	memset(p, 0, sizeof(*p));
	if (rnd(8) == 0) {
		fill_rand(p, sizeof(*p));
		return;
	}
	p->qp_num = rnd(4) ? rnd(64) : random();
	p->private_data_len = rnd(4) ? rnd(57) : rnd(256);
	fill_rand(p->private_data, sizeof(p->private_data));
	p->responder_resources = rnd(3) ? rnd(20) : rnd(256);
	p->initiator_depth = rnd(3) ? rnd(20) : rnd(256);
	p->flow_control = rnd(2);
	p->retry_count = rnd(8);
	p->rnr_retry_count = rnd(8);
	p->srq = rnd(8) == 0;
	p->valid = rnd(4) != 0;
}

/* one command: header + body of `in` bytes (sometimes truncated) */
static int cmd(int fd, __u32 c, void *body, size_t in, size_t out)
{
	struct { struct rdma_ucm_cmd_hdr h; unsigned char b[1024]; } m;
	size_t len;
	ssize_t r;

	memset(&m, 0, sizeof(m));
	m.h.cmd = c;
	m.h.in = in;
	m.h.out = out;
	if (rnd(30) == 0)
		m.h.in = rnd(in + 16);
	if (rnd(30) == 0)
		m.h.out = rnd(out + 16);
	memcpy(m.b, body, in);
	len = sizeof(m.h) + m.h.in;
	if (rnd(50) == 0)
		len = rnd(len + 1);
	ops++;
	per[c < NCMD ? c : 0]++;
	r = write(fd, &m, len);
	if (r < 0) {
		errs++;
		return -errno;
	}
	okc++;
	return 0;
}

static void drain(int fd)
{
	struct rdma_ucm_get_event g = { .response = (uintptr_t)resp };
	struct rdma_ucm_event_resp *e = (void *)resp;
	int n;

	for (n = 0; n < 32; n++) {
		if (cmd(fd, RDMA_USER_CM_CMD_GET_EVENT, &g, sizeof(g), sizeof(*e)))
			return;
		events++;
		if (e->event == 4)	/* RDMA_CM_EVENT_CONNECT_REQUEST */
			pool_add(fd, e->id);
	}
}

static void step(void)
{
	unsigned char b[1024];
	__u32 c = rnd(NCMD + 1), id;
	int fd, r;

	memset(b, 0, sizeof(b));
	if (c == NCMD)
		c = RDMA_USER_CM_CMD_CREATE_ID;	/* keep the pool full */
	id = pick(&fd);
	switch (c) {
	case RDMA_USER_CM_CMD_CREATE_ID: {
		struct rdma_ucm_create_id *x = (void *)b;
		static const __u16 ps[] = { RDMA_PS_TCP, RDMA_PS_UDP, RDMA_PS_IB,
					    RDMA_PS_IPOIB, 0x0101 };

		fd = fds[rnd(2)];
		x->uid = random();
		x->response = (uintptr_t)resp;
		x->ps = rnd(10) ? ps[rnd(4)] : ps[rnd(5)] + rnd(3);
		x->qp_type = rnd(5) ? 2 /* IB_QPT_RC */ : rnd(16);
		if (!cmd(fd, c, x, sizeof(*x), 4))
			pool_add(fd, ((struct rdma_ucm_create_id_resp *)resp)->id);
		return;
	}
	case RDMA_USER_CM_CMD_DESTROY_ID: {
		struct rdma_ucm_destroy_id *x = (void *)b;

		x->response = rnd_resp();
		x->id = id;
		r = cmd(fd, c, x, sizeof(*x), 4);
		if (!r || r == -EFAULT)
			pool_del(fd, id);
		return;
	}
	case RDMA_USER_CM_CMD_BIND_IP: {
		struct rdma_ucm_bind_ip *x = (void *)b;

		x->response = rnd_resp();
		rnd_in6(&x->addr);
		x->id = id;
		cmd(fd, c, x, sizeof(*x), 0);
		return;
	}
	case RDMA_USER_CM_CMD_BIND: {
		struct rdma_ucm_bind *x = (void *)b;

		x->id = id;
		rnd_addr((struct sockaddr_storage *)&x->addr, &x->addr_size);
		cmd(fd, c, x, sizeof(*x), 0);
		return;
	}
	case RDMA_USER_CM_CMD_RESOLVE_IP: {
		struct rdma_ucm_resolve_ip *x = (void *)b;

		if (rnd(2))
			rnd_in6(&x->src_addr);
		rnd_in6(&x->dst_addr);
		x->id = id;
		x->timeout_ms = rnd(3000);
		cmd(fd, c, x, sizeof(*x), 0);
		return;
	}
	case RDMA_USER_CM_CMD_RESOLVE_ADDR: {
		struct rdma_ucm_resolve_addr *x = (void *)b;
		__u16 l;

		x->id = id;
		x->timeout_ms = rnd(3000);
		if (rnd(2)) {
			rnd_addr((struct sockaddr_storage *)&x->src_addr, &l);
			x->src_size = l;
		}
		rnd_addr((struct sockaddr_storage *)&x->dst_addr, &l);
		x->dst_size = l;
		cmd(fd, c, x, sizeof(*x), 0);
		return;
	}
	case RDMA_USER_CM_CMD_RESOLVE_ROUTE: {
		struct rdma_ucm_resolve_route *x = (void *)b;

		x->id = id;
		x->timeout_ms = rnd(3000);
		cmd(fd, c, x, sizeof(*x), 0);
		return;
	}
	case RDMA_USER_CM_CMD_QUERY_ROUTE:
	case RDMA_USER_CM_CMD_QUERY: {
		struct rdma_ucm_query *x = (void *)b;

		x->response = rnd_resp();
		x->id = id;
		x->option = rnd(5);
		cmd(fd, c, x, sizeof(*x), rnd(4) ? sizeof(resp) / 2 : rnd(600));
		return;
	}
	case RDMA_USER_CM_CMD_CONNECT: {
		struct rdma_ucm_connect *x = (void *)b;

		rnd_conn(&x->conn_param);
		x->id = id;
		if (rnd(4) == 0)
			fill_rand(&x->ece, sizeof(x->ece));
		cmd(fd, c, x, rnd(6) ? sizeof(*x) : offsetof(struct rdma_ucm_connect, ece), 0);
		return;
	}
	case RDMA_USER_CM_CMD_LISTEN: {
		struct rdma_ucm_listen *x = (void *)b;

		x->id = id;
		x->backlog = rnd(4) ? rnd(16) : random();
		cmd(fd, c, x, sizeof(*x), 0);
		return;
	}
	case RDMA_USER_CM_CMD_ACCEPT: {
		struct rdma_ucm_accept *x = (void *)b;

		x->uid = random();
		rnd_conn(&x->conn_param);
		x->id = id;
		cmd(fd, c, x, sizeof(*x), 0);
		return;
	}
	case RDMA_USER_CM_CMD_REJECT: {
		struct rdma_ucm_reject *x = (void *)b;

		x->id = id;
		x->private_data_len = rnd(4) ? rnd(57) : rnd(256);
		x->reason = rnd(4);
		fill_rand(x->private_data, sizeof(x->private_data));
		cmd(fd, c, x, sizeof(*x), 0);
		return;
	}
	case RDMA_USER_CM_CMD_DISCONNECT: {
		struct rdma_ucm_disconnect *x = (void *)b;

		x->id = id;
		cmd(fd, c, x, sizeof(*x), 0);
		return;
	}
	case RDMA_USER_CM_CMD_INIT_QP_ATTR: {
		struct rdma_ucm_init_qp_attr *x = (void *)b;

		x->response = rnd_resp();
		x->id = id;
		x->qp_state = rnd(10);
		cmd(fd, c, x, sizeof(*x), sizeof(struct ib_uverbs_qp_attr));
		return;
	}
	case RDMA_USER_CM_CMD_GET_EVENT:
		drain(fds[rnd(2)]);
		return;
	case RDMA_USER_CM_CMD_GET_OPTION:
	case RDMA_USER_CM_CMD_SET_OPTION: {
		struct rdma_ucm_set_option *x = (void *)b;
		static unsigned char opt[256] __attribute__((aligned(8)));

		x->id = id;
		x->level = rnd(4) ? rnd(2) : random();
		x->optname = rnd(5);
		fill_rand(opt, sizeof(opt));
		if (x->level == RDMA_OPTION_ID && rnd(2))
			*(int *)opt = rnd(4) ? rnd(2) : rnd(256);
		if (x->level == RDMA_OPTION_IB && x->optname == RDMA_OPTION_IB_PATH) {
			/* a path record or two (struct ib_path_rec_data, 72 bytes each) */
			x->optlen = rnd(4) ? 72 * (1 + rnd(2)) : rnd(256);
			opt[0] = 0x7;	/* flags GMP|PRIMARY|BIDIRECTIONAL */
			opt[1] = opt[2] = opt[3] = 0;
		} else {
			x->optlen = rnd(4) ? 4 : rnd(256);
		}
		x->optval = rnd(20) ? (uintptr_t)opt : rnd_resp();
		cmd(fd, RDMA_USER_CM_CMD_SET_OPTION, x, sizeof(*x), 0);
		return;
	}
	case RDMA_USER_CM_CMD_NOTIFY: {
		struct rdma_ucm_notify *x = (void *)b;

		x->id = id;
		x->event = rnd(20);
		cmd(fd, c, x, sizeof(*x), 0);
		return;
	}
	case RDMA_USER_CM_CMD_JOIN_IP_MCAST:
	case RDMA_USER_CM_CMD_JOIN_MCAST: {
		struct rdma_ucm_join_mcast *x = (void *)b;
		__u16 l;

		if (rnd(4))	/* joins are rare: they need a device */
			return;
		x->response = rnd_resp();
		x->uid = random();
		x->id = id;
		rnd_addr((struct sockaddr_storage *)&x->addr, &l);
		x->addr_size = l;
		x->join_flags = rnd(4);
		cmd(fd, RDMA_USER_CM_CMD_JOIN_MCAST, x, sizeof(*x), 4);
		return;
	}
	case RDMA_USER_CM_CMD_LEAVE_MCAST: {
		struct rdma_ucm_destroy_id *x = (void *)b;

		x->response = rnd_resp();
		x->id = rnd(64);
		cmd(fd, c, x, sizeof(*x), 4);
		return;
	}
	case RDMA_USER_CM_CMD_MIGRATE_ID: {
		struct rdma_ucm_migrate_id *x = (void *)b;
		int to = fds[rnd(2)];

		x->response = rnd_resp();
		x->id = id;
		x->fd = rnd(10) ? to : rnd(2) ? 0 : 999;
		if (!cmd(fd, c, x, sizeof(*x), 4) && x->fd == (__u32)to && fd != to) {
			pool_del(fd, id);
			pool_add(to, id);
		}
		return;
	}
	default: {
		/* an unknown command number or random bytes */
		fill_rand(b, 64);
		cmd(fd, rnd(2) ? NCMD + rnd(8) : c, b, rnd(64), rnd(64));
		return;
	}
	}
}

static void reopen(int k)
{
	int i;

	if (fds[k] >= 0) {
		close(fds[k]);
		closes++;
		for (i = 0; i < npool; i++)
			if (pool[i].fd == fds[k])
				pool[i--] = pool[--npool];
	}
	fds[k] = open(DEV, O_RDWR | O_NONBLOCK | O_CLOEXEC);
}

int main(int argc, char **argv)
{
	unsigned int seed = time(NULL) ^ getpid();
	const char *list = NULL;
	int secs = 30, opt, i;
	long long end;
	char *s, *tok, *save = NULL;

	while ((opt = getopt(argc, argv, "a:p:T:S:")) != -1) {
		switch (opt) {
		case 'a': list = optarg; break;
		case 'p': port = atoi(optarg); break;
		case 'T': secs = atoi(optarg); break;
		case 'S': seed = strtoul(optarg, NULL, 0); break;
		default:
			fprintf(stderr, "usage: cm_fuzz -a ADDR[,ADDR...] [-p PORT] [-T SECONDS] [-S SEED]\n");
			return 1;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("FUZZ seed=%u seconds=%d\n", seed, secs);
	srandom(seed);
	if (list) {
		s = strdup(list);
		for (tok = strtok_r(s, ",", &save); tok && naddrs < 16;
		     tok = strtok_r(NULL, ",", &save))
			if (!parse(tok, &addrs[naddrs]))
				naddrs++;
	}
	fds[0] = fds[1] = -1;
	reopen(0);
	reopen(1);
	closes = 0;
	if (fds[0] < 0 || fds[1] < 0) {
		perror(DEV);
		return 4;
	}
	end = now_ms() + secs * 1000LL;
	for (i = 0; now_ms() < end; i++) {
		step();
		if (rnd(4000) == 0)
			reopen(rnd(2));
		if (rnd(200) == 0)
			usleep(rnd(20000));
	}
	close(fds[0]);
	close(fds[1]);
	printf("FUZZ seed=%u ops=%ld ok=%ld errors=%ld events=%ld closes=%ld ids=%ld per-cmd:",
	       seed, ops, okc, errs, events, closes, idsn);
	for (i = 0; i < NCMD; i++)
		printf(" %ld", per[i]);
	printf("\n");
	return 0;
}
