// SPDX-License-Identifier: GPL-2.0-only
/*
 * syncbench: measurements for the route sync daemon (bench/sync.sh).
 *
 *   syncbench decode [TABLE]
 *	dump the IPv4 routes of TABLE (default 100) of this namespace into
 *	memory, then decode every message three ways: kroute_decode()
 *	(what the daemon does), libnl's rtnl_route_parse() + put, and
 *	rtnl_route_parse() keeping every object (a libnl cache's cost).
 *	Prints "key value" lines: routes, dump_s, ours_ns, libnl_ns,
 *	libnl_keep_bytes (RSS growth per route kept).
 *
 *   syncbench churn TABLE DEV N RATE SECONDS
 *	replace routes 1.0.0.0/24 ... (the first N of bench/sync.sh's fill)
 *	at RATE a second for SECONDS, each with the other realm (5 <-> 6),
 *	one netlink request a change, acked; never the same prefix twice.
 *	Prints one line per change: "SECONDS.NANOS PREFIX 1:REALM"
 *	(CLOCK_REALTIME, read just before the send).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include <netlink/msg.h>
#include <netlink/attr.h>
#include <netlink/route/route.h>
#include <linux/rtnetlink.h>

#include "sync/kroute.h"
#include "sync/rtsock.h"

struct capture {
	__u8 *buf;
	size_t len, cap;
	size_t n;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static long rss_kib(void)
{
	char line[256];
	long v = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld", &v) == 1)
			break;
	if (f)
		fclose(f);
	return v;
}

static int keep(void *ctx, const struct nlmsghdr *h)
{
	struct capture *c = ctx;

	if (c->len + h->nlmsg_len > c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 1 << 20;
		__u8 *n = realloc(c->buf, cap);

		if (!n)
			return -ENOMEM;
		c->buf = n;
		c->cap = cap;
	}
	memcpy(c->buf + c->len, h, h->nlmsg_len);
	c->len += NLMSG_ALIGN(h->nlmsg_len);
	c->n++;
	return 0;
}

static int count_only(void *ctx, const struct nlmsghdr *h)
{
	(void)h;
	(*(size_t *)ctx)++;
	return 0;
}

#define for_each_msg(h, c)                                                     \
	for (h = (struct nlmsghdr *)(c)->buf; (__u8 *)h < (c)->buf + (c)->len; \
	     h = (struct nlmsghdr *)((__u8 *)h + NLMSG_ALIGN(h->nlmsg_len)))

static int cmd_decode(__u32 table)
{
	struct capture c = {0};
	struct rtnl_route **objs;
	struct nlmsghdr *h;
	static struct kroute k;
	size_t n = 0, i;
	double t0, t1;
	long rss0;
	int err;

	/* the dump alone: kernel, copy to user space, no decoding */
	t0 = now_s();
	err = rtsock_dump_routes(AF_INET, &table, 1, count_only, &n);
	t1 = now_s();
	if (err)
		return err;
	printf("routes %zu\ndump_s %.3f\n", n, t1 - t0);
	err = rtsock_dump_routes(AF_INET, &table, 1, keep, &c);
	if (err)
		return err;

	t0 = now_s();
	for_each_msg(h, &c) if (kroute_decode(h, &k)) return -EINVAL;
	t1 = now_s();
	printf("ours_ns %.1f\n", (t1 - t0) * 1e9 / c.n);

	t0 = now_s();
	for_each_msg(h, &c)
	{
		struct rtnl_route *r;

		if (rtnl_route_parse(h, &r) < 0)
			return -EINVAL;
		rtnl_route_put(r);
	}
	t1 = now_s();
	printf("libnl_ns %.1f\n", (t1 - t0) * 1e9 / c.n);

	objs = malloc(c.n * sizeof(*objs));
	if (!objs)
		return -ENOMEM;
	rss0 = rss_kib();
	i = 0;
	for_each_msg(h, &c) if (rtnl_route_parse(h, &objs[i++]) <
				0) return -EINVAL;
	printf("libnl_keep_bytes %.0f\n", (rss_kib() - rss0) * 1024.0 / c.n);
	for (i = 0; i < c.n; i++)
		rtnl_route_put(objs[i]);
	free(objs);
	free(c.buf);
	return 0;
}

static int send_replace(struct nl_sock *sk, __u32 table, int oif, __u32 dst,
			__u32 realm)
{
	struct rtmsg rtm = {
		.rtm_family = AF_INET,
		.rtm_dst_len = 24,
		.rtm_table = table < 256 ? table : RT_TABLE_COMPAT,
		.rtm_protocol = RTPROT_STATIC,
		.rtm_scope = RT_SCOPE_LINK,
		.rtm_type = RTN_UNICAST,
	};
	struct nl_msg *m = nlmsg_alloc_simple(
		RTM_NEWROUTE, NLM_F_REQUEST | NLM_F_CREATE | NLM_F_REPLACE);
	__u32 be = htonl(dst);
	int err;

	if (!m)
		return -ENOMEM;
	if (nlmsg_append(m, &rtm, sizeof(rtm), NLMSG_ALIGNTO) ||
	    nla_put_u32(m, RTA_TABLE, table) || nla_put(m, RTA_DST, 4, &be) ||
	    nla_put_u32(m, RTA_OIF, oif) || nla_put_u32(m, RTA_FLOW, realm)) {
		nlmsg_free(m);
		return -ENOMEM;
	}
	err = nl_send_auto(sk, m);
	nlmsg_free(m);
	if (err < 0)
		return -EIO;
	/* the ack (or the error) */
	return nl_wait_for_ack(sk) < 0 ? -EIO : 0;
}

/* The i-th /24 of the fill: 1.0.0.0/24, 1.0.1.0/24, ... */
static __u32 fill_prefix(__u32 i)
{
	return (((i >> 16) + 1) << 24) | ((i >> 8 & 255) << 16) |
	       (i & 255) << 8;
}

static int cmd_churn(__u32 table, const char *dev, __u32 n, double rate,
		     double secs)
{
	struct nl_sock *sk = nl_socket_alloc();
	__u64 total = rate * secs, i;
	int oif = if_nametoindex(dev);
	double start;

	if (!sk || !oif || nl_connect(sk, NETLINK_ROUTE) < 0)
		return -EINVAL;
	if (total > n)
		return -ERANGE;
	start = now_s();
	for (i = 0; i < total; i++) {
		/* a stride coprime to n visits every prefix once */
		__u32 idx = (i * 7919) % n, dst = fill_prefix(idx);
		/* the fill gave realm 5 + idx % 2: flip it */
		__u32 realm = 6 - (idx & 1);
		double due = start + i / rate, t = now_s();
		struct timespec ts;
		int err;

		if (due > t) {
			ts.tv_sec = (time_t)(due - t);
			ts.tv_nsec = (due - t - ts.tv_sec) * 1e9;
			nanosleep(&ts, NULL);
		}
		clock_gettime(CLOCK_REALTIME, &ts);
		err = send_replace(sk, table, oif, dst, realm);
		if (err)
			return err;
		printf("%ld.%09ld %u.%u.%u.0/24 1:%u\n", (long)ts.tv_sec,
		       ts.tv_nsec, dst >> 24, dst >> 16 & 255, dst >> 8 & 255,
		       realm);
	}
	fprintf(stderr, "churn: %llu changes in %.2f s\n",
		(unsigned long long)total, now_s() - start);
	nl_socket_free(sk);
	return 0;
}

int main(int argc, char **argv)
{
	int err = -EINVAL;

	if (argc >= 2 && !strcmp(argv[1], "decode"))
		err = cmd_decode(argc > 2 ? strtoul(argv[2], NULL, 0) : 100);
	else if (argc == 7 && !strcmp(argv[1], "churn"))
		err = cmd_churn(strtoul(argv[2], NULL, 0), argv[3],
				strtoul(argv[4], NULL, 0), atof(argv[5]),
				atof(argv[6]));
	else
		fprintf(stderr, "usage: syncbench decode [TABLE] | churn TABLE DEV N RATE SECONDS\n");
	if (err)
		fprintf(stderr, "syncbench: %s\n", strerror(-err));
	return err ? 1 : 0;
}
