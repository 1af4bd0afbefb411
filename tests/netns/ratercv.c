// SPDX-License-Identifier: GPL-2.0-only
/*
 * ratercv: the rate a UDP stream arrives at, by the kernel's receive
 * timestamps, so that how long a test takes to read counters does not
 * enter the figure.
 *
 *   ratercv ADDR PORT WARMUP WINDOW [SRC]
 *
 * Binds ADDR:PORT, drops what arrives in the first WARMUP seconds, then
 * takes the datagrams of the next WINDOW seconds (by their timestamps)
 * and prints "RATE PACKETS DROPS": RATE the bytes a second of the frames
 * after the first (UDP payload + 42: Ethernet, IPv4, UDP headers) over
 * the time from the first to the last, PACKETS how many, DROPS what the
 * socket dropped meanwhile (SO_RXQ_OVFL; a figure with drops is low).
 * With SRC, only datagrams from that address count.  Gives up when
 * nothing arrives for 3 s.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BATCH	       64
#define FRAME_OVERHEAD 42

static __uint64_t ns_of(const struct timespec *t)
{
	return (__uint64_t)t->tv_sec * 1000000000ULL + t->tv_nsec;
}

int main(int argc, char **argv)
{
	static char bufs[BATCH][2048];
	char ctl[BATCH][CMSG_SPACE(sizeof(struct timespec)) +
			CMSG_SPACE(sizeof(__uint32_t))];
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];
	struct sockaddr_in a = {.sin_family = AF_INET}, from[BATCH];
	struct in_addr src = {0};
	__uint64_t start = 0, first = 0, last = 0, bytes = 0, pkts = 0, warm,
		   win, t;
	__uint32_t drops0 = 0, drops = 0;
	int fd, one = 1, big = 8 << 20, n, i;
	struct timeval quiet = {.tv_sec = 3};
	struct timespec now;

	if ((argc != 5 && argc != 6) ||
	    inet_pton(AF_INET, argv[1], &a.sin_addr) != 1 ||
	    (argc == 6 && inet_pton(AF_INET, argv[5], &src) != 1)) {
		fprintf(stderr,
			"usage: ratercv ADDR PORT WARMUP WINDOW [SRC]\n");
		return 2;
	}
	a.sin_port = htons(atoi(argv[2]));
	warm = (__uint64_t)(atof(argv[3]) * 1e9);
	win = (__uint64_t)(atof(argv[4]) * 1e9);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one)) ||
	    setsockopt(fd, SOL_SOCKET, SO_RXQ_OVFL, &one, sizeof(one)) ||
	    bind(fd, (struct sockaddr *)&a, sizeof(a))) {
		perror("ratercv");
		return 1;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big));
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &quiet, sizeof(quiet))) {
		perror("ratercv");
		return 1;
	}
	clock_gettime(CLOCK_REALTIME, &now);
	start = ns_of(&now);
	for (;;) {
		for (i = 0; i < BATCH; i++) {
			iov[i] = (struct iovec){bufs[i], sizeof(bufs[i])};
			msgs[i].msg_hdr = (struct msghdr){
				.msg_name = &from[i],
				.msg_namelen = sizeof(from[i]),
				.msg_iov = &iov[i],
				.msg_iovlen = 1,
				.msg_control = ctl[i],
				.msg_controllen = sizeof(ctl[i]),
			};
		}
		n = recvmmsg(fd, msgs, BATCH, MSG_WAITFORONE, NULL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (n < 0) {
			perror("ratercv: recvmmsg");
			return 1;
		}
		for (i = 0; i < n; i++) {
			struct cmsghdr *c;

			t = 0;
			for (c = CMSG_FIRSTHDR(&msgs[i].msg_hdr); c;
			     c = CMSG_NXTHDR(&msgs[i].msg_hdr, c)) {
				if (c->cmsg_type == SCM_TIMESTAMPNS)
					t = ns_of((struct timespec *)CMSG_DATA(
						c));
				else if (c->cmsg_type == SO_RXQ_OVFL)
					memcpy(&drops, CMSG_DATA(c),
					       sizeof(drops));
			}
			if (!t || t < start + warm ||
			    (src.s_addr &&
			     from[i].sin_addr.s_addr != src.s_addr))
				continue;
			if (!first) {
				first = t;
				drops0 = drops;
			} else if (t > first + win) {
				goto done;
			} else {
				bytes += msgs[i].msg_len + FRAME_OVERHEAD;
			}
			last = t;
			pkts++;
		}
	}
done:
	if (pkts < 2 || last <= first) {
		fprintf(stderr, "ratercv: %llu datagrams in the window\n",
			(unsigned long long)pkts);
		return 1;
	}
	printf("%llu %llu %u\n",
	       (unsigned long long)(bytes * 1000000000ULL / (last - first)),
	       (unsigned long long)pkts, drops - drops0);
	return 0;
}
