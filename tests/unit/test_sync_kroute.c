// SPDX-License-Identifier: GPL-2.0-only
/*
 * Route messages as the kernel sends them, built with libnl's message
 * API, through kroute_decode(): fields, multipath, RTA_VIA, big table
 * ids, malformed messages, and the nexthop hash the engine tells routes
 * apart by.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netlink/msg.h>
#include <netlink/attr.h>
#include <linux/rtnetlink.h>

#include <cmocka.h>

#include "sync/kroute.h"

struct nh_spec {
	const char *gw; /* NULL: none; "inet6:ADDR" for RTA_VIA */
	int oif;
	__u32 flow;
};

struct msg_spec {
	int family;
	const char *dst; /* NULL: no RTA_DST */
	int dst_len;
	__u32 table;
	__u32 priority;
	__u8 protocol, type;
	__u32 flags;
	int nr_nh; /* 0: single path from nh[0] if nh[0].oif or gw */
	bool multipath;
	struct nh_spec nh[4];
};

static void put_addr(struct nl_msg *m, int type, int family, const char *s)
{
	__u8 a[16];

	assert_int_equal(inet_pton(family, s, a), 1);
	assert_int_equal(nla_put(m, type, family == AF_INET ? 4 : 16, a), 0);
}

static void put_nh(struct nl_msg *m, int family, const struct nh_spec *nh)
{
	if (nh->gw && !strncmp(nh->gw, "inet6:", 6)) {
		__u8 buf[sizeof(struct rtvia) + 16];
		struct rtvia *v = (struct rtvia *)buf;

		v->rtvia_family = AF_INET6;
		assert_int_equal(inet_pton(AF_INET6, nh->gw + 6, v->rtvia_addr),
				 1);
		assert_int_equal(nla_put(m, RTA_VIA, sizeof(buf), buf), 0);
	} else if (nh->gw) {
		put_addr(m, RTA_GATEWAY, family, nh->gw);
	}
	if (nh->flow)
		assert_int_equal(nla_put_u32(m, RTA_FLOW, nh->flow), 0);
}

static struct nl_msg *build(const struct msg_spec *s)
{
	struct rtmsg rtm = {
		.rtm_family = s->family,
		.rtm_dst_len = s->dst_len,
		.rtm_table = s->table < 256 ? s->table : RT_TABLE_COMPAT,
		.rtm_protocol = s->protocol,
		.rtm_type = s->type ? s->type : RTN_UNICAST,
		.rtm_flags = s->flags,
	};
	struct nl_msg *m = nlmsg_alloc_simple(RTM_NEWROUTE, 0);
	int i;

	assert_non_null(m);
	assert_int_equal(nlmsg_append(m, &rtm, sizeof(rtm), NLMSG_ALIGNTO), 0);
	assert_int_equal(nla_put_u32(m, RTA_TABLE, s->table), 0);
	if (s->dst)
		put_addr(m, RTA_DST, s->family, s->dst);
	if (s->priority)
		assert_int_equal(nla_put_u32(m, RTA_PRIORITY, s->priority), 0);
	if (!s->multipath) {
		if (s->nh[0].oif)
			assert_int_equal(nla_put_u32(m, RTA_OIF, s->nh[0].oif),
					 0);
		put_nh(m, s->family, &s->nh[0]);
		return m;
	}
	{
		struct nlattr *mp = nla_nest_start(m, RTA_MULTIPATH);

		for (i = 0; i < s->nr_nh; i++) {
			struct rtnexthop *rtnh =
				nlmsg_reserve(m, sizeof(*rtnh), NLMSG_ALIGNTO);
			struct nlmsghdr *h = nlmsg_hdr(m);

			rtnh->rtnh_ifindex = s->nh[i].oif;
			put_nh(m, s->family, &s->nh[i]);
			rtnh->rtnh_len =
				(__u8 *)h + h->nlmsg_len - (__u8 *)rtnh;
		}
		nla_nest_end(m, mp);
	}
	return m;
}

static void decode(const struct msg_spec *s, struct kroute *k)
{
	struct nl_msg *m = build(s);

	assert_int_equal(kroute_decode(nlmsg_hdr(m), k), 0);
	nlmsg_free(m);
}

static const char *addr_str(const struct cls_prefix *p)
{
	static char buf[INET6_ADDRSTRLEN];

	return inet_ntop(p->family, p->addr, buf, sizeof(buf));
}

static void test_decode_single(void **state)
{
	struct msg_spec s = {
		.family = AF_INET,
		.dst = "10.1.0.0",
		.dst_len = 16,
		.table = 100,
		.priority = 20,
		.protocol = RTPROT_BIRD,
		.nh = {{"192.0.2.1", 3, 5}},
	};
	struct kroute k;

	(void)state;
	decode(&s, &k);
	assert_int_equal(k.dst.family, AF_INET);
	assert_int_equal(k.dst.len, 16);
	assert_string_equal(addr_str(&k.dst), "10.1.0.0");
	assert_int_equal(k.table, 100);
	assert_int_equal(k.priority, 20);
	assert_int_equal(k.protocol, RTPROT_BIRD);
	assert_int_equal(k.type, RTN_UNICAST);
	assert_int_equal(k.nr_nh, 1);
	assert_string_equal(addr_str(&k.nh[0].gw), "192.0.2.1");
	assert_int_equal(k.nh[0].gw.len, 32);
	assert_int_equal(k.nh[0].oif, 3);
	assert_int_equal(k.nh[0].realm, 5);
	assert_true(kroute_syncable(&k));
}

static void test_decode_shapes(void **state)
{
	struct msg_spec big = {.family = AF_INET,
			       .dst = "10.0.0.0",
			       .dst_len = 8,
			       .table = 70000};
	struct msg_spec dflt = {
		.family = AF_INET6, .table = 254, .nh = {{"fe80::1", 2, 0}}};
	struct msg_spec host = {.family = AF_INET,
				.dst = "10.1.2.3",
				.dst_len = 16,
				.table = 254};
	struct msg_spec via = {.family = AF_INET,
			       .dst = "10.2.0.0",
			       .dst_len = 16,
			       .table = 254,
			       .nh = {{"inet6:2001:db8::1", 4, 0}}};
	struct kroute k;

	(void)state;
	/* table ids past 255 only travel in RTA_TABLE */
	decode(&big, &k);
	assert_int_equal(k.table, 70000);
	assert_int_equal(k.nr_nh, 0);
	/* no RTA_DST: the default route */
	decode(&dflt, &k);
	assert_int_equal(k.dst.len, 0);
	assert_string_equal(addr_str(&k.dst), "::");
	assert_int_equal(k.nr_nh, 1);
	/* host bits the kernel would never send are masked, not kept */
	decode(&host, &k);
	assert_string_equal(addr_str(&k.dst), "10.1.0.0");
	/* an IPv4 route through an IPv6 gateway */
	decode(&via, &k);
	assert_int_equal(k.nh[0].gw.family, AF_INET6);
	assert_string_equal(addr_str(&k.nh[0].gw), "2001:db8::1");
}

static void test_decode_multipath(void **state)
{
	struct msg_spec s = {
		.family = AF_INET,
		.dst = "198.51.100.0",
		.dst_len = 24,
		.table = 100,
		.multipath = true,
		.nr_nh = 3,
		.nh = {{"192.0.2.1", 1, 5},
		       {"192.0.2.2", 2, 0x10006},
		       {NULL, 3, 0}},
	};
	struct msg_spec s6 = {
		.family = AF_INET6,
		.dst = "2001:db8:50::",
		.dst_len = 48,
		.table = 100,
		.multipath = true,
		.nr_nh = 2,
		.nh = {{"fd09::2", 7, 0}, {"fd09:1::2", 8, 0}},
	};
	struct kroute k;

	(void)state;
	decode(&s, &k);
	assert_int_equal(k.nr_nh, 3);
	assert_string_equal(addr_str(&k.nh[1].gw), "192.0.2.2");
	assert_int_equal(k.nh[1].oif, 2);
	assert_int_equal(k.nh[1].realm, 0x10006);
	assert_int_equal(k.nh[0].realm, 5);
	assert_int_equal(k.nh[2].gw.family, 0);
	assert_int_equal(k.nh[2].oif, 3);
	decode(&s6, &k);
	assert_int_equal(k.nr_nh, 2);
	assert_string_equal(addr_str(&k.nh[1].gw), "fd09:1::2");
	assert_int_equal(k.nh[1].oif, 8);
}

static void test_decode_malformed(void **state)
{
	struct msg_spec s = {.family = AF_INET,
			     .dst = "10.0.0.0",
			     .dst_len = 8,
			     .table = 100};
	struct nl_msg *m;
	struct nlmsghdr *h;
	struct rtmsg *rtm;
	struct kroute k;

	(void)state;
	m = build(&s);
	h = nlmsg_hdr(m);
	rtm = nlmsg_data(h);
	rtm->rtm_dst_len = 33;
	assert_int_equal(kroute_decode(h, &k), -EINVAL);
	rtm->rtm_dst_len = 8;
	rtm->rtm_family = AF_PACKET;
	assert_int_equal(kroute_decode(h, &k), -EINVAL);
	rtm->rtm_family = AF_INET;
	h->nlmsg_len = NLMSG_LENGTH(sizeof(*rtm) - 1);
	assert_int_equal(kroute_decode(h, &k), -EINVAL);
	nlmsg_free(m);

	/* an IPv6-sized RTA_DST in an IPv4 route */
	s.family = AF_INET6;
	s.dst = "2001:db8::";
	m = build(&s);
	h = nlmsg_hdr(m);
	((struct rtmsg *)nlmsg_data(h))->rtm_family = AF_INET;
	assert_int_equal(kroute_decode(h, &k), -EINVAL);
	nlmsg_free(m);
}

static void test_syncable(void **state)
{
	static const struct {
		__u8 type;
		__u32 flags;
		bool ok;
	} cases[] = {
		{RTN_UNICAST, 0, true},
		{RTN_BLACKHOLE, 0, true},
		{RTN_UNREACHABLE, 0, true},
		{RTN_PROHIBIT, 0, true},
		{RTN_LOCAL, 0, false},
		{RTN_BROADCAST, 0, false},
		{RTN_ANYCAST, 0, false},
		{RTN_MULTICAST, 0, false},
		{RTN_THROW, 0, false},
		{RTN_NAT, 0, false},
		{RTN_UNICAST, RTM_F_CLONED, false},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct msg_spec s = {.family = AF_INET6,
				     .dst = "2001:db8::",
				     .dst_len = 32,
				     .table = 254,
				     .type = cases[i].type,
				     .flags = cases[i].flags};
		struct kroute k;

		decode(&s, &k);
		assert_int_equal(kroute_syncable(&k), cases[i].ok);
	}
}

static void test_nh_hash(void **state)
{
	struct msg_spec ab = {
		.family = AF_INET6,
		.dst = "2001:db8::",
		.dst_len = 32,
		.table = 100,
		.multipath = true,
		.nr_nh = 2,
		.nh = {{"fd09::2", 7, 0}, {"fd09:1::2", 8, 0}},
	};
	struct msg_spec ba = ab, a = ab, b = ab, other = ab;
	struct kroute k;
	__u32 h_ab, h_ba, h_a, h_b, base;

	(void)state;
	ba.nh[0] = ab.nh[1];
	ba.nh[1] = ab.nh[0];
	a.nr_nh = 1;
	b.nr_nh = 1;
	b.nh[0] = ab.nh[1];
	other.nh[1].oif = 9;
	decode(&ab, &k);
	h_ab = kroute_nh_hash(&k);
	base = kroute_nh_hash_base(&k);
	decode(&ba, &k);
	h_ba = kroute_nh_hash(&k);
	decode(&a, &k);
	h_a = kroute_nh_hash(&k);
	decode(&b, &k);
	h_b = kroute_nh_hash(&k);
	/* the order of nexthops does not count */
	assert_int_equal(h_ab, h_ba);
	/* deleting nexthop a from {a, b} leaves {b} */
	assert_int_equal(h_ab - (h_a - base), h_b);
	assert_int_not_equal(h_a, h_b);
	decode(&other, &k);
	assert_int_not_equal(kroute_nh_hash(&k), h_ab);
}

/* n dev-only nexthops through devices 1..n, the last through last. */
static struct nl_msg *many_nh(int n, int last)
{
	struct rtmsg rtm = {.rtm_family = AF_INET,
			    .rtm_dst_len = 8,
			    .rtm_table = 100,
			    .rtm_type = RTN_UNICAST};
	struct nl_msg *m = nlmsg_alloc_size(64 + 8 * n);
	struct nlattr *mp;
	int i;

	assert_non_null(m);
	assert_non_null(nlmsg_put(m, 0, 0, RTM_NEWROUTE, 0, 0));
	assert_int_equal(nlmsg_append(m, &rtm, sizeof(rtm), NLMSG_ALIGNTO), 0);
	mp = nla_nest_start(m, RTA_MULTIPATH);
	for (i = 0; i < n; i++) {
		struct rtnexthop *rtnh =
			nlmsg_reserve(m, sizeof(*rtnh), NLMSG_ALIGNTO);

		assert_non_null(rtnh);
		rtnh->rtnh_len = sizeof(*rtnh);
		rtnh->rtnh_ifindex = i + 1 < n ? i + 1 : last;
	}
	nla_nest_end(m, mp);
	return m;
}

/*
 * Past KROUTE_MAX_NH nexthops are counted and hashed, not kept: two
 * routes that differ in their last nexthop only are two routes.
 */
static void test_many_nexthops(void **state)
{
	struct nl_msg *m = many_nh(KROUTE_MAX_NH + 3, KROUTE_MAX_NH + 3);
	struct kroute k;
	__u32 h;

	(void)state;
	assert_int_equal(kroute_decode(nlmsg_hdr(m), &k), 0);
	assert_int_equal(k.nr_nh, KROUTE_MAX_NH);
	assert_int_equal(k.nh_more, 3);
	assert_int_equal(kroute_nh_count(&k), KROUTE_MAX_NH + 3);
	assert_true(k.nh_truncated);
	assert_int_equal(k.nh[KROUTE_MAX_NH - 1].oif, KROUTE_MAX_NH);
	assert_int_equal(k.msg_len, nlmsg_hdr(m)->nlmsg_len);
	h = kroute_nh_hash(&k);
	nlmsg_free(m);
	m = many_nh(KROUTE_MAX_NH + 3, 1);
	assert_int_equal(kroute_decode(nlmsg_hdr(m), &k), 0);
	assert_int_not_equal(kroute_nh_hash(&k), h);
	nlmsg_free(m);
}

/*
 * An IPv6 route of 2500 nexthops as the kernel announces it: the
 * nexthops take more than 64 KiB and RTA_MULTIPATH's length is their
 * length's low 16 bits; RTA_CACHEINFO and RTA_PREF follow them.  All
 * nexthops are read, and what lies inside them is not taken for the
 * route's own attributes.
 */
static void test_multipath_past_64k(void **state)
{
	enum { N = 2500 };
	size_t cap = 256 + N * 28, off;
	__u8 *buf = calloc(1, cap), gw[16] = {0xfd, 0x09};
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	struct rtmsg *rtm = NLMSG_DATA(h);
	struct rtattr *a, *mp;
	struct kroute k;
	__u32 v;
	int i;

	(void)state;
	assert_non_null(buf);
	h->nlmsg_type = RTM_NEWROUTE;
	rtm->rtm_family = AF_INET6;
	rtm->rtm_dst_len = 48;
	rtm->rtm_table = 101;
	rtm->rtm_type = RTN_UNICAST;
	off = NLMSG_LENGTH(sizeof(*rtm));
#define PUT(type, len, data)                                                   \
	do {                                                                   \
		a = (struct rtattr *)(buf + off);                              \
		a->rta_type = (type);                                          \
		a->rta_len = RTA_LENGTH(len);                                  \
		memcpy(RTA_DATA(a), (data), (len));                            \
		off += RTA_ALIGN(a->rta_len);                                  \
	} while (0)
	v = 101;
	PUT(RTA_TABLE, 4, &v);
	PUT(RTA_DST, 16, ((__u8[16]){0x20, 0x01, 0x0d, 0xb8, 0, 0x02}));
	v = 1024;
	PUT(RTA_PRIORITY, 4, &v);
	mp = (struct rtattr *)(buf + off);
	mp->rta_type = RTA_MULTIPATH;
	off += RTA_LENGTH(0);
	for (i = 0; i < N; i++) {
		struct rtnexthop *nh = (struct rtnexthop *)(buf + off);

		nh->rtnh_ifindex = 3;
		/* a nexthop whose flags and hops read as RTA_DST */
		nh->rtnh_flags = i == 2400 ? RTA_DST : 0;
		off += RTNH_LENGTH(0);
		gw[14] = i >> 8;
		gw[15] = i;
		PUT(RTA_GATEWAY, 16, gw);
		nh->rtnh_len = buf + off - (__u8 *)nh;
	}
	/* as nla_nest_end() writes it */
	mp->rta_len = (buf + off - (__u8 *)mp) & 0xffff;
	PUT(RTA_CACHEINFO, 32, ((__u8[32]){0}));
	PUT(RTA_PREF, 1, ((__u8[1]){0}));
#undef PUT
	h->nlmsg_len = off;
	assert_true(off > 65536);
	assert_int_equal(kroute_decode(h, &k), 0);
	assert_int_equal(k.nr_nh, N);
	assert_int_equal(k.priority, 1024);
	assert_int_equal(k.dst.len, 48);
	assert_int_equal(k.dst.addr[5], 0x02);
	assert_int_equal(k.nh[N - 1].gw.addr[15], (N - 1) & 0xff);
	assert_int_equal(k.nh[N - 1].oif, 3);
	/* a length that no nexthop boundary agrees with: refused */
	mp->rta_len += 2;
	assert_int_equal(kroute_decode(h, &k), -EINVAL);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_single),
		cmocka_unit_test(test_decode_shapes),
		cmocka_unit_test(test_decode_multipath),
		cmocka_unit_test(test_decode_malformed),
		cmocka_unit_test(test_syncable),
		cmocka_unit_test(test_nh_hash),
		cmocka_unit_test(test_many_nexthops),
		cmocka_unit_test(test_multipath_past_64k),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
