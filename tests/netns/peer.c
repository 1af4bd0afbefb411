// SPDX-License-Identifier: GPL-2.0-only
/*
 * peer: the far end of the netns tests' traffic, counting what reaches it.
 *
 *   peer udp ADDR PORT
 *	a UDP socket bound to ADDR:PORT; counts the datagrams it receives
 *   peer tun NETNS_A DEV_A NETNS_B DEV_B
 *	makes tun device DEV_A (no Ethernet header, no packet info) in the
 *	network namespace NETNS_A (a path: /run/netns/NAME) and DEV_B in
 *	NETNS_B, and forwards every packet DEV_A sends into DEV_B, as a VPN
 *	would: what leaves A at tc egress arrives at B, through B's XDP.
 *	Counts the packets it forwards, per destination address.
 *   peer tun-type NETNS DEV TYPE
 *	makes a persistent tun device DEV in NETNS whose link type (ARPHRD)
 *	says TYPE, and exits: a device of any link type, for attach to
 *	refuse.
 *
 * udp and tun print "ready" once listening, then on SIGTERM or SIGINT the
 * counts ("COUNT" for udp, "ADDR COUNT" lines for tun) and exit 0.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <netdb.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_DSTS 64

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int die(const char *what)
{
	fprintf(stderr, "peer: %s: %s\n", what, strerror(errno));
	return 1;
}

static void ready(void)
{
	struct sigaction sa = {.sa_handler = on_signal};

	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	printf("ready\n");
	fflush(stdout);
}

static int udp(const char *addr, const char *port)
{
	struct addrinfo hints = {.ai_socktype = SOCK_DGRAM,
				 .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV};
	struct addrinfo *res;
	long count = 0;
	char buf[65536];
	int fd;

	if (getaddrinfo(addr, port, &hints, &res)) {
		fprintf(stderr, "peer: bad address %s port %s\n", addr, port);
		return 2;
	}
	fd = socket(res->ai_family, SOCK_DGRAM, 0);
	if (fd < 0 || bind(fd, res->ai_addr, res->ai_addrlen))
		return die("bind");
	freeaddrinfo(res);
	ready();
	while (!stop) {
		if (recv(fd, buf, sizeof(buf), 0) >= 0)
			count++;
		else if (errno != EINTR)
			return die("recv");
	}
	printf("%ld\n", count);
	return 0;
}

/* A tun device made in the network namespace at path. */
static int tun_in(const char *netns, const char *dev)
{
	struct ifreq ifr = {.ifr_flags = IFF_TUN | IFF_NO_PI};
	int ns = open(netns, O_RDONLY | O_CLOEXEC), fd;

	if (ns < 0 || setns(ns, CLONE_NEWNET))
		return -1;
	close(ns);
	fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -1;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", dev);
	if (ioctl(fd, TUNSETIFF, &ifr)) {
		close(fd);
		return -1;
	}
	return fd;
}

struct dst_count {
	int family;
	unsigned char addr[16];
	long n;
};

static void count_dst(struct dst_count *c, int *n, const unsigned char *pkt,
		      ssize_t len)
{
	int family = 0, i, alen = 0;
	const unsigned char *a = NULL;

	if (len >= 20 && pkt[0] >> 4 == 4)
		family = AF_INET, a = pkt + 16, alen = 4;
	else if (len >= 40 && pkt[0] >> 4 == 6)
		family = AF_INET6, a = pkt + 24, alen = 16;
	if (!family)
		return;
	for (i = 0; i < *n; i++)
		if (c[i].family == family && !memcmp(c[i].addr, a, alen))
			break;
	if (i == *n) {
		if (*n == MAX_DSTS)
			return;
		c[i].family = family;
		memcpy(c[i].addr, a, alen);
		c[i].n = 0;
		(*n)++;
	}
	c[i].n++;
}

static int tun(char **argv)
{
	struct dst_count c[MAX_DSTS];
	unsigned char pkt[65536];
	char text[INET6_ADDRSTRLEN];
	struct pollfd pfd[2];
	int a, b, n = 0, i;
	ssize_t len;

	a = tun_in(argv[0], argv[1]);
	if (a < 0)
		return die(argv[1]);
	b = tun_in(argv[2], argv[3]);
	if (b < 0)
		return die(argv[3]);
	ready();
	pfd[0] = (struct pollfd){.fd = a, .events = POLLIN};
	pfd[1] = (struct pollfd){.fd = b, .events = POLLIN};
	while (!stop) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return die("poll");
		}
		/* What B sends (ICMP errors, say) goes nowhere. */
		if ((pfd[1].revents & POLLIN) && read(b, pkt, sizeof(pkt)) < 0)
			return die("read B");
		if (!(pfd[0].revents & POLLIN))
			continue;
		len = read(a, pkt, sizeof(pkt));
		if (len < 0)
			return die("read A");
		count_dst(c, &n, pkt, len);
		/* EIO: B is not up (yet); like a wire, it loses the packet. */
		if (write(b, pkt, len) != len && errno != EIO)
			return die("write B");
	}
	for (i = 0; i < n; i++)
		printf("%s %ld\n",
		       inet_ntop(c[i].family, c[i].addr, text, sizeof(text)),
		       c[i].n);
	return 0;
}

/* TUNSETLINK takes a device that is down: made here, it is. */
static int tun_type(char **argv)
{
	int fd = tun_in(argv[0], argv[1]);

	if (fd < 0)
		return die(argv[1]);
	if (ioctl(fd, TUNSETLINK, strtoul(argv[2], NULL, 0)) ||
	    ioctl(fd, TUNSETPERSIST, 1))
		return die("TUNSETLINK");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "udp"))
		return udp(argv[2], argv[3]);
	if (argc == 6 && !strcmp(argv[1], "tun"))
		return tun(argv + 2);
	if (argc == 5 && !strcmp(argv[1], "tun-type"))
		return tun_type(argv + 2);
	fprintf(stderr, "usage: peer udp ADDR PORT\n"
			"       peer tun NETNS_A DEV_A NETNS_B DEV_B\n"
			"       peer tun-type NETNS DEV TYPE\n");
	return 2;
}
