// SPDX-License-Identifier: GPL-2.0-only
/*
 * A multipath route of N nexthops, sent to the kernel as a routing daemon
 * (BIRD) sends one: one RTM_NEWROUTE with RTA_MULTIPATH, a gateway in each
 * nexthop.  iproute2 6.1 builds at most 4 KiB of nexthops (about 250), so
 * the sync tests need this for routes of thousands.
 *
 *   nhroute add|replace|append 4|6 PREFIX/LEN TABLE N FIRST_GW DEV
 *
 * Gateways are FIRST_GW, FIRST_GW + 1, ... (all in a subnet DEV has).
 * IPv6 routes longer than one attribute holds (about 2300 nexthops) are
 * sent as a route and appends of the rest, as `ip -6 route append` does.
 * Exits 0 when the kernel took it, else 1 with the kernel's error.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#define CHUNK6 2000

static void die(const char *what)
{
	fprintf(stderr, "nhroute: %s\n", what);
	exit(2);
}

static size_t put_attr(unsigned char *p, unsigned short type, const void *data,
		       size_t len)
{
	struct rtattr *a = (struct rtattr *)p;

	a->rta_type = type;
	a->rta_len = RTA_LENGTH(len);
	memcpy(RTA_DATA(a), data, len);
	return RTA_ALIGN(a->rta_len);
}

/* The n-th gateway after first (host order arithmetic on the last word). */
static void gateway(int family, const unsigned char *first, unsigned int n,
		    unsigned char *out)
{
	size_t len = family == AF_INET ? 4 : 16;
	unsigned int w;

	memcpy(out, first, len);
	memcpy(&w, out + len - 4, 4);
	w = htonl(ntohl(w) + n);
	memcpy(out + len - 4, &w, 4);
}

static int send_route(int fd, int family, __u16 flags, const unsigned char *dst,
		      int dst_len, __u32 table, unsigned int from,
		      unsigned int n, const unsigned char *gw0, int oif)
{
	size_t alen = family == AF_INET ? 4 : 16, cap = 1024 + n * 40, off;
	unsigned char *buf = calloc(1, cap), gw[16];
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	struct rtmsg *rtm = NLMSG_DATA(h);
	struct rtattr *mp;
	unsigned int i;
	char reply[8192];
	ssize_t got;
	int err;

	if (!buf)
		die("out of memory");
	h->nlmsg_type = RTM_NEWROUTE;
	h->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	h->nlmsg_seq = 1;
	rtm->rtm_family = family;
	rtm->rtm_dst_len = dst_len;
	rtm->rtm_table = table < 256 ? table : RT_TABLE_COMPAT;
	rtm->rtm_protocol = RTPROT_STATIC;
	rtm->rtm_scope = RT_SCOPE_UNIVERSE;
	rtm->rtm_type = RTN_UNICAST;
	off = NLMSG_LENGTH(sizeof(*rtm));
	off += put_attr(buf + off, RTA_TABLE, &table, 4);
	off += put_attr(buf + off, RTA_DST, dst, alen);
	mp = (struct rtattr *)(buf + off);
	mp->rta_type = RTA_MULTIPATH;
	off += RTA_LENGTH(0);
	for (i = 0; i < n; i++) {
		struct rtnexthop *nh = (struct rtnexthop *)(buf + off);

		nh->rtnh_ifindex = oif;
		gateway(family, gw0, from + i, gw);
		off += RTNH_LENGTH(0);
		off += put_attr(buf + off, RTA_GATEWAY, gw, alen);
		nh->rtnh_len = buf + off - (unsigned char *)nh;
	}
	if (buf + off - (unsigned char *)mp > 0xffff)
		die("too many nexthops for one attribute");
	mp->rta_len = buf + off - (unsigned char *)mp;
	h->nlmsg_len = off;
	if (send(fd, buf, off, 0) != (ssize_t)off)
		die("send failed");
	free(buf);
	got = recv(fd, reply, sizeof(reply), 0);
	if (got < (ssize_t)NLMSG_LENGTH(sizeof(struct nlmsgerr)))
		die("no answer from the kernel");
	h = (struct nlmsghdr *)reply;
	if (h->nlmsg_type != NLMSG_ERROR)
		die("unexpected answer");
	err = ((struct nlmsgerr *)NLMSG_DATA(h))->error;
	if (err)
		fprintf(stderr, "nhroute: kernel: %s\n", strerror(-err));
	return err;
}

int main(int argc, char **argv)
{
	unsigned char dst[16], gw0[16];
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK};
	unsigned int n, done, chunk;
	int family, dst_len, oif, fd, err = 0;
	__u16 flags;
	__u32 table;
	char *slash;

	if (argc != 8)
		die("usage: nhroute add|replace|append 4|6 PREFIX/LEN TABLE N FIRST_GW DEV");
	if (!strcmp(argv[1], "add"))
		flags = NLM_F_CREATE | NLM_F_EXCL;
	else if (!strcmp(argv[1], "replace"))
		flags = NLM_F_CREATE | NLM_F_REPLACE;
	else if (!strcmp(argv[1], "append"))
		flags = NLM_F_CREATE | NLM_F_APPEND;
	else
		die("add, replace or append");
	family = !strcmp(argv[2], "6") ? AF_INET6 : AF_INET;
	slash = strchr(argv[3], '/');
	if (!slash)
		die("PREFIX/LEN");
	*slash = '\0';
	dst_len = atoi(slash + 1);
	table = strtoul(argv[4], NULL, 0);
	n = strtoul(argv[5], NULL, 0);
	oif = if_nametoindex(argv[7]);
	if (inet_pton(family, argv[3], dst) != 1 ||
	    inet_pton(family, argv[6], gw0) != 1 || !oif || !n)
		die("bad prefix, gateway, device or count");
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
		die("no netlink socket");
	chunk = family == AF_INET6 ? CHUNK6 : n;
	for (done = 0; !err && done < n; done += chunk) {
		if (chunk > n - done)
			chunk = n - done;
		err = send_route(fd, family,
				 done ? NLM_F_CREATE | NLM_F_APPEND : flags,
				 dst, dst_len, table, done, chunk, gw0, oif);
	}
	close(fd);
	return err ? 1 : 0;
}
