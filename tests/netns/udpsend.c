// SPDX-License-Identifier: GPL-2.0-only
/*
 * udpsend: send a known number of UDP datagrams, for the netns tests.
 *
 *   udpsend [-s SRC] [-t TOS] [-i USEC] [-c COUNT] [-l LEN] DST PORT
 *
 * Exits non-zero unless every datagram was handed to the kernel, so a
 * test's "sent" count is exact.  A full queue (ENOBUFS) is retried, not
 * counted as sent.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int usage(void)
{
	fprintf(stderr,
		"usage: udpsend [-s SRC] [-t TOS] [-i USEC] [-c COUNT] [-l LEN] DST PORT\n");
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

int main(int argc, char **argv)
{
	const char *src = NULL;
	long count = 1, interval = 0, len = 64, sent = 0;
	int tos = -1, opt, fd;
	struct sockaddr_storage dst, sa;
	socklen_t dlen, slen;
	char buf[1500];

	while ((opt = getopt(argc, argv, "s:t:i:c:l:")) != -1) {
		switch (opt) {
		case 's': src = optarg; break;
		case 't': tos = (int)strtol(optarg, NULL, 0); break;
		case 'i': interval = strtol(optarg, NULL, 0); break;
		case 'c': count = strtol(optarg, NULL, 0); break;
		case 'l': len = strtol(optarg, NULL, 0); break;
		default: return usage();
		}
	}
	if (argc - optind != 2 || len < 1 || len > (long)sizeof(buf))
		return usage();
	if (resolve(argv[optind], argv[optind + 1], &dst, &dlen))
		return 1;
	fd = socket(dst.ss_family, SOCK_DGRAM, 0);
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
	memset(buf, 'x', sizeof(buf));
	while (sent < count) {
		if (sendto(fd, buf, len, 0, (struct sockaddr *)&dst, dlen) < 0) {
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
