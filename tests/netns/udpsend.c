// SPDX-License-Identifier: GPL-2.0-only
/*
 * udpsend: send a known number of UDP datagrams, for the netns tests.
 *
 *   udpsend [-s SRC] [-t TOS] [-i USEC] [-c COUNT] [-l LEN] [-x N] [-C] DST PORT
 *
 * -x N (IPv6 only) puts N destination-options headers (8 bytes each, one
 * PadN option) between the IPv6 header and UDP: such datagrams are built
 * here, checksum included, and sent on a raw socket with the header
 * included, so they go through the kernel's routing and tc egress as any
 * datagram does.  The source is SRC, or the one the kernel would pick.
 * -C connects the socket first and sends with send(): a connected
 * socket caches its route and, with it, the TX queue the kernel picked.
 *
 * Exits non-zero unless every datagram was handed to the kernel, so a
 * test's "sent" count is exact.  A full queue (ENOBUFS) is retried, not
 * counted as sent.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/ip6.h>
#include <netinet/udp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int usage(void)
{
	fprintf(stderr,
		"usage: udpsend [-s SRC] [-t TOS] [-i USEC] [-c COUNT] [-l LEN] [-x N] [-C] DST PORT\n");
	return 2;
}

static int resolve(const char *host, const char *port,
		   struct sockaddr_storage *ss, socklen_t *len)
{
	struct addrinfo hints = { .ai_socktype = SOCK_DGRAM,
				  .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV };
	struct addrinfo *res;
	int err = getaddrinfo(host, port, &hints, &res);

	if (err) {
		fprintf(stderr, "udpsend: %s: %s\n", host, gai_strerror(err));
		return -1;
	}
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	*len = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

static void pause_usec(long usec)
{
	struct timespec ts = { usec / 1000000, (usec % 1000000) * 1000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

#define EXT_LEN 8

/* The source the kernel picks for dst: what a UDP socket would send from. */
static int kernel_source(const struct sockaddr_in6 *dst, struct in6_addr *src)
{
	struct sockaddr_in6 sa;
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET6, SOCK_DGRAM, 0), err;

	if (fd < 0)
		return -1;
	err = connect(fd, (const struct sockaddr *)dst, sizeof(*dst)) ||
	      getsockname(fd, (struct sockaddr *)&sa, &len);
	close(fd);
	*src = sa.sin6_addr;
	return err ? -1 : 0;
}

static unsigned int sum16(const void *p, size_t n, unsigned int sum)
{
	const unsigned char *b = p;
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		sum += b[i] << 8 | b[i + 1];
	if (n & 1)
		sum += b[n - 1] << 8;
	return sum;
}

/*
 * IPv6 + n_ext destination-options headers + UDP + len bytes of payload
 * into buf; returns its length, or 0 if it does not fit.
 */
static size_t build_ext6(unsigned char *buf, size_t size,
			 const struct in6_addr *src,
			 const struct sockaddr_in6 *dst, int tclass, int n_ext,
			 size_t len)
{
	size_t udp_len = sizeof(struct udphdr) + len, i;
	size_t total = sizeof(struct ip6_hdr) + n_ext * EXT_LEN + udp_len;
	struct ip6_hdr ip6 = {};
	struct udphdr udp = {};
	unsigned char *at = buf + sizeof(ip6);
	unsigned int sum;
	int k;

	if (total > size || udp_len > 0xffff)
		return 0;
	ip6.ip6_flow = htonl(6U << 28 | (tclass < 0 ? 0 : tclass) << 20);
	ip6.ip6_plen = htons(total - sizeof(ip6));
	ip6.ip6_nxt = n_ext ? IPPROTO_DSTOPTS : IPPROTO_UDP;
	ip6.ip6_hlim = 64;
	ip6.ip6_src = *src;
	ip6.ip6_dst = dst->sin6_addr;
	memcpy(buf, &ip6, sizeof(ip6));
	for (k = 0; k < n_ext; k++, at += EXT_LEN) {
		memset(at, 0, EXT_LEN);
		at[0] = k + 1 < n_ext ? IPPROTO_DSTOPTS : IPPROTO_UDP;
		at[1] = 0;    /* (0 + 1) * 8 bytes */
		at[2] = 1;    /* PadN, */
		at[3] = 4;    /* 4 bytes of padding */
	}
	udp.uh_sport = htons(40000 + getpid() % 20000);
	udp.uh_dport = dst->sin6_port;
	udp.uh_ulen = htons(udp_len);
	memcpy(at, &udp, sizeof(udp));
	for (i = 0; i < len; i++)
		at[sizeof(udp) + i] = 'x';
	/* The pseudo-header: addresses, upper-layer length, next header. */
	sum = sum16(src, 16, 0);
	sum = sum16(&dst->sin6_addr, 16, sum);
	sum += udp_len + IPPROTO_UDP;
	sum = sum16(at, udp_len, sum);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	sum = ~sum & 0xffff;
	udp.uh_sum = htons(sum ? sum : 0xffff);
	memcpy(at, &udp, sizeof(udp));
	return total;
}

int main(int argc, char **argv)
{
	const char *src = NULL;
	long count = 1, interval = 0, len = 64, sent = 0;
	int tos = -1, opt, fd, n_ext = 0, connected = 0;
	struct sockaddr_storage dst, sa;
	socklen_t dlen, slen;
	unsigned char buf[1500];
	struct in6_addr src6;

	while ((opt = getopt(argc, argv, "s:t:i:c:l:x:C")) != -1) {
		switch (opt) {
		case 's': src = optarg; break;
		case 't': tos = (int)strtol(optarg, NULL, 0); break;
		case 'i': interval = strtol(optarg, NULL, 0); break;
		case 'c': count = strtol(optarg, NULL, 0); break;
		case 'l': len = strtol(optarg, NULL, 0); break;
		case 'x': n_ext = (int)strtol(optarg, NULL, 0); break;
		case 'C': connected = 1; break;
		default: return usage();
		}
	}
	if (argc - optind != 2 || len < 1 || len > (long)sizeof(buf) ||
	    n_ext < 0 || n_ext > 64)
		return usage();
	if (resolve(argv[optind], argv[optind + 1], &dst, &dlen))
		return 1;
	if (n_ext) {
		struct sockaddr_in6 *d6 = (struct sockaddr_in6 *)&dst;

		if (dst.ss_family != AF_INET6) {
			fprintf(stderr, "udpsend: -x is for IPv6\n");
			return 2;
		}
		if (src ? inet_pton(AF_INET6, src, &src6) != 1
			: kernel_source(d6, &src6)) {
			fprintf(stderr, "udpsend: no IPv6 source for %s\n",
				argv[optind]);
			return 1;
		}
		len = build_ext6(buf, sizeof(buf), &src6, d6, tos, n_ext, len);
		if (!len)
			return usage();
		/* IPPROTO_RAW: the header is ours; port 0 names no protocol. */
		fd = socket(AF_INET6, SOCK_RAW, IPPROTO_RAW);
		d6->sin6_port = 0;
		src = NULL;
		tos = -1;
	} else {
		fd = socket(dst.ss_family, SOCK_DGRAM, 0);
	}
	if (fd < 0) {
		perror("udpsend: socket");
		return 1;
	}
	if (src) {
		if (resolve(src, "0", &sa, &slen))
			return 1;
		if (bind(fd, (struct sockaddr *)&sa, slen)) {
			perror("udpsend: bind");
			return 1;
		}
	}
	if (tos >= 0) {
		int r = dst.ss_family == AF_INET6 ?
			setsockopt(fd, IPPROTO_IPV6, IPV6_TCLASS, &tos, sizeof(tos)) :
			setsockopt(fd, IPPROTO_IP, IP_TOS, &tos, sizeof(tos));
		if (r) {
			perror("udpsend: setsockopt tos");
			return 1;
		}
	}
	if (!n_ext)
		memset(buf, 'x', sizeof(buf));
	if (connected && connect(fd, (struct sockaddr *)&dst, dlen)) {
		perror("udpsend: connect");
		return 1;
	}
	while (sent < count) {
		if ((connected ? send(fd, buf, len, 0) :
				 sendto(fd, buf, len, 0, (struct sockaddr *)&dst,
					dlen)) < 0) {
			if (errno == ENOBUFS || errno == EAGAIN) {
				pause_usec(1000);
				continue;
			}
			fprintf(stderr, "udpsend: sendto %s after %ld: %s\n",
				argv[optind], sent, strerror(errno));
			printf("%ld\n", sent);
			return 1;
		}
		sent++;
		if (interval)
			pause_usec(interval);
	}
	printf("%ld\n", sent);
	return 0;
}
