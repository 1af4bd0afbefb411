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
 *   syncbench churn TABLE DEV N RATE SECONDS BPFFS
 *	replace routes 1.0.0.0/24 ... (the first N of bench/sync.sh's fill)
 *	at RATE a second for SECONDS, each with the other realm (5 <-> 6),
 *	one netlink request a change, acked; never the same prefix twice;
 *	while `classifier sync` (rules realm 5 -> 1:5, 6 -> 1:6) follows
 *	into the pins under BPFFS, a second thread looks each change up as
 *	`classifier lookup` does until the trie gives the new class.
 *	Prints "key value" lines: sent, seen, lost (unseen 2 s after the
 *	last), reopened (see probe()), p50_ms, p99_ms, max_ms: from just
 *	before the request to the first lookup that saw it.
 *
 *   syncbench settle QUIET_MS MAX_S [EVENTS]
 *	listen to route notifications (of every table, a 1 GiB buffer)
 *	until QUIET_MS pass without one after the first (after EVENTS of
 *	them, if given: a routing daemon may pause in the middle), or
 *	MAX_S in all; the kernel has settled at the last one.  Prints
 *	"key value" lines: events, overruns (ENOBUFS: the counts are then
 *	low), first_s and last_s (CLOCK_REALTIME seconds of the first and
 *	the last notification).
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdbool.h>
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

#include "maps/maps.h"
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

static int no_event(void *ctx, const struct nlmsghdr *h)
{
	(void)ctx;
	(void)h;
	return 0;
}

/* One dump of an IPv4 table, on a socket of its own, as the daemon reads it. */
static int dump_table(__u32 table, rtsock_cb cb, void *ctx)
{
	struct rtsock_dump d;
	struct rtsock s;
	int err = rtsock_listen(&s);

	if (err)
		return err;
	err = rtsock_dump_routes(&s, AF_INET, table, cb, no_event, ctx, &d);
	rtsock_close(&s);
	return err;
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
	err = dump_table(table, count_only, &n);
	t1 = now_s();
	if (err)
		return err;
	printf("routes %zu\ndump_s %.3f\n", n, t1 - t0);
	err = dump_table(table, keep, &c);
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

/* One change the churn made and when `lookup` first saw it. */
struct change {
	double sent; /* CLOCK_MONOTONIC, just before the request */
	double seen; /* 0: not yet */
	__u32 dst;
	__u32 want; /* class index */
};

struct churn {
	struct change *c;
	__u64 total;
	__u64 sent; /* published by the sender, read by the prober */
	bool done;
	const char *bpffs;
	__u32 idx[2]; /* class indices of 1:5 and 1:6 */
	unsigned int reopened;
	int err;
};

/* What the trie answers for an address inside the change's prefix. */
static bool visible(struct cls_maps *m, const struct change *c)
{
	struct cls_prefix a = {.family = AF_INET, .len = 32};
	struct cls_route r;
	bool found;
	__u32 be = htonl(c->dst | 1);

	memcpy(a.addr, &be, 4);
	return !cls_route_lookup(m, &a, &r, &found) && found &&
	       r.prefix.len == 24 && r.class_idx == c->want &&
	       (r.flags & CLS_ROUTE_SYNCED);
}

static int open_maps(struct cls_maps *m, const char *bpffs)
{
	return cls_open(m, &(struct cls_open_opts){.bpffs = bpffs});
}

/*
 * The prober: what `classifier lookup` does (cls_route_lookup on a
 * reader's handle), for every change not seen yet, every 200 us.  A
 * reader's handle keeps the trie it found; if a change stays unseen for
 * 50 ms the handle is opened again, in case a whole-set swap published
 * new tries (counted: such changes' lag is then an overestimate).
 */
static void *probe(void *arg)
{
	struct churn *ch = arg;
	struct timespec nap = {.tv_nsec = 200000};
	__u64 first = 0, n, i;
	double done_at = 0, now;
	struct cls_maps m;
	bool stale;

	ch->err = open_maps(&m, ch->bpffs);
	if (ch->err)
		return NULL;
	for (;;) {
		n = __atomic_load_n(&ch->sent, __ATOMIC_ACQUIRE);
		stale = false;
		now = now_s();
		for (i = first; i < n; i++) {
			struct change *c = &ch->c[i];

			if (c->seen)
				continue;
			if (visible(&m, c))
				c->seen = now_s();
			else if (now - c->sent > 0.05)
				stale = true;
		}
		while (first < n && ch->c[first].seen)
			first++;
		if (__atomic_load_n(&ch->done, __ATOMIC_ACQUIRE) && !done_at)
			done_at = now_s();
		/* 2 s after the last change, what is unseen is lost */
		if (first == ch->total || (done_at && now_s() - done_at > 2))
			break;
		if (stale && first < n && now - ch->c[first].sent > 0.05 &&
		    !ch->c[first].seen) {
			cls_close(&m);
			ch->err = open_maps(&m, ch->bpffs);
			if (ch->err)
				return NULL;
			ch->reopened++;
		}
		nanosleep(&nap, NULL);
	}
	cls_close(&m);
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void report(const struct churn *ch)
{
	double *lat = malloc((ch->total + 1) * sizeof(*lat));
	__u64 i, k = 0;

	if (!lat)
		return;
	for (i = 0; i < ch->total; i++)
		if (ch->c[i].seen)
			lat[k++] = (ch->c[i].seen - ch->c[i].sent) * 1000;
	qsort(lat, k, sizeof(*lat), cmp_double);
	printf("sent %llu\nseen %llu\nlost %llu\nreopened %u\n",
	       (unsigned long long)ch->total, (unsigned long long)k,
	       (unsigned long long)(ch->total - k), ch->reopened);
	if (k)
		printf("p50_ms %.3f\np99_ms %.3f\nmax_ms %.3f\n", lat[k / 2],
		       lat[k * 99 / 100], lat[k - 1]);
	free(lat);
}

static int cmd_churn(__u32 table, const char *dev, __u32 n, double rate,
		     double secs, const char *bpffs)
{
	struct nl_sock *sk = nl_socket_alloc();
	struct churn ch = {.total = rate * secs, .bpffs = bpffs};
	int oif = if_nametoindex(dev), err = 0, k;
	struct cls_maps m;
	pthread_t prober;
	double start;
	__u64 i;

	if (!sk || !oif || nl_connect(sk, NETLINK_ROUTE) < 0)
		return -EINVAL;
	if (ch.total > n)
		return -ERANGE;
	ch.c = calloc(ch.total + 1, sizeof(*ch.c));
	if (!ch.c)
		return -ENOMEM;
	/* the classes the bench's rules name: realm 5 -> 1:5, 6 -> 1:6 */
	err = open_maps(&m, bpffs);
	for (k = 0; k < 2 && !err; k++)
		err = cls_class_resolve(&m, k ? "1:6" : "1:5", &ch.idx[k]);
	if (!err)
		cls_close(&m);
	if (!err)
		err = -pthread_create(&prober, NULL, probe, &ch);
	if (err)
		return err;
	start = now_s();
	for (i = 0; i < ch.total && !err; i++) {
		/* a stride coprime to n visits every prefix once */
		__u32 idx = (i * 7919) % n;
		/* the fill gave realm 5 + idx % 2: flip it */
		__u32 realm = 6 - (idx & 1);
		double due = start + i / rate, t = now_s();
		struct change *c = &ch.c[i];
		struct timespec ts;

		if (due > t) {
			ts.tv_sec = (time_t)(due - t);
			ts.tv_nsec = (due - t - ts.tv_sec) * 1e9;
			nanosleep(&ts, NULL);
		}
		c->dst = fill_prefix(idx);
		c->want = ch.idx[realm - 5];
		c->sent = now_s();
		__atomic_store_n(&ch.sent, i + 1, __ATOMIC_RELEASE);
		err = send_replace(sk, table, oif, c->dst, realm);
	}
	fprintf(stderr, "churn: %llu changes in %.2f s\n",
		(unsigned long long)i, now_s() - start);
	__atomic_store_n(&ch.done, true, __ATOMIC_RELEASE);
	pthread_join(prober, NULL);
	if (!err)
		err = ch.err;
	if (!err)
		report(&ch);
	free(ch.c);
	nl_socket_free(sk);
	return err;
}

static double real_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct settle {
	unsigned long events;
	double first, last;
};

static int settle_msg(void *ctx, const struct nlmsghdr *h)
{
	struct settle *st = ctx;

	if (h->nlmsg_type != RTM_NEWROUTE && h->nlmsg_type != RTM_DELROUTE)
		return 0;
	st->last = real_s();
	if (!st->events++)
		st->first = st->last;
	return 0;
}

static int cmd_settle(int quiet_ms, double max_s, unsigned long want)
{
	struct settle st = {0};
	double end = now_s() + max_s;
	unsigned long overruns = 0;
	struct rtsock_read r;
	struct rtsock s;
	int err = rtsock_listen(&s);

	if (!err)
		err = rtsock_set_rcvbuf(&s, 1U << 30, NULL);
	/* printed once the listener is up: the caller may start the storm */
	printf("listening 1\n");
	fflush(stdout);
	while (!err && now_s() < end) {
		struct pollfd p = {.fd = s.fd, .events = POLLIN};

		poll(&p, 1, quiet_ms);
		err = rtsock_drain(&s, SIZE_MAX, settle_msg, &st, &r);
		overruns += r.overrun;
		if (st.events && st.events >= want &&
		    real_s() - st.last > quiet_ms / 1000.0)
			break;
	}
	rtsock_close(&s);
	if (err)
		return err;
	printf("events %lu\noverruns %lu\nfirst_s %.3f\nlast_s %.3f\n",
	       st.events, overruns, st.first, st.last);
	return 0;
}

int main(int argc, char **argv)
{
	int err = -EINVAL;

	if (argc >= 2 && !strcmp(argv[1], "decode"))
		err = cmd_decode(argc > 2 ? strtoul(argv[2], NULL, 0) : 100);
	else if (argc == 8 && !strcmp(argv[1], "churn"))
		err = cmd_churn(strtoul(argv[2], NULL, 0), argv[3],
				strtoul(argv[4], NULL, 0), atof(argv[5]),
				atof(argv[6]), argv[7]);
	else if ((argc == 4 || argc == 5) && !strcmp(argv[1], "settle"))
		err = cmd_settle(atoi(argv[2]), atof(argv[3]),
				 argc == 5 ? strtoul(argv[4], NULL, 0) : 0);
	else
		fprintf(stderr, "usage: syncbench decode [TABLE] | churn TABLE DEV N RATE SECONDS BPFFS | settle QUIET_MS MAX_S [EVENTS]\n");
	if (err)
		fprintf(stderr, "syncbench: %s\n", strerror(-err));
	return err ? 1 : 0;
}
