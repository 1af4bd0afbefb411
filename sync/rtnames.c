// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <linux/rtnetlink.h>

#include "lib/parse.h"
#include "sync/rtnames.h"

struct rt_name {
	__u32 val;
	const char *name;
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const struct rt_name tables[] = {
	{RT_TABLE_DEFAULT, "default"},
	{RT_TABLE_MAIN, "main"},
	{RT_TABLE_LOCAL, "local"},
};

/* iproute2's rt_protos, which mirrors the kernel's RTPROT_* list. */
static const struct rt_name protos[] = {
	{RTPROT_UNSPEC, "unspec"},
	{RTPROT_REDIRECT, "redirect"},
	{RTPROT_KERNEL, "kernel"},
	{RTPROT_BOOT, "boot"},
	{RTPROT_STATIC, "static"},
	{RTPROT_GATED, "gated"},
	{RTPROT_RA, "ra"},
	{RTPROT_MRT, "mrt"},
	{RTPROT_ZEBRA, "zebra"},
	{RTPROT_BIRD, "bird"},
	{RTPROT_DNROUTED, "dnrouted"},
	{RTPROT_XORP, "xorp"},
	{RTPROT_NTK, "ntk"},
	{RTPROT_DHCP, "dhcp"},
	{RTPROT_MROUTED, "mrouted"},
	{RTPROT_KEEPALIVED, "keepalived"},
	{RTPROT_BABEL, "babel"},
	{RTPROT_OPENR, "openr"},
	{RTPROT_BGP, "bgp"},
	{RTPROT_ISIS, "isis"},
	{RTPROT_OSPF, "ospf"},
	{RTPROT_RIP, "rip"},
	{RTPROT_EIGRP, "eigrp"},
};

static const struct rt_name types[] = {
	{RTN_UNSPEC, "unspec"},
	{RTN_UNICAST, "unicast"},
	{RTN_LOCAL, "local"},
	{RTN_BROADCAST, "broadcast"},
	{RTN_ANYCAST, "anycast"},
	{RTN_MULTICAST, "multicast"},
	{RTN_BLACKHOLE, "blackhole"},
	{RTN_UNREACHABLE, "unreachable"},
	{RTN_PROHIBIT, "prohibit"},
	{RTN_THROW, "throw"},
	{RTN_NAT, "nat"},
	{RTN_XRESOLVE, "xresolve"},
};

static int by_name(const struct rt_name *t, size_t n, const char *s, __u32 *val)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (!strcmp(t[i].name, s)) {
			*val = t[i].val;
			return 0;
		}
	}
	return -EINVAL;
}

static const char *by_val(const struct rt_name *t, size_t n, __u32 val,
			  char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (t[i].val == val) {
			snprintf(buf, len, "%s", t[i].name);
			return buf;
		}
	}
	snprintf(buf, len, "%u", val);
	return buf;
}

/* A name from the list, or a number no larger than max. */
static int name_or_number(const struct rt_name *t, size_t n, const char *s,
			  __u32 max, __u32 *val)
{
	if (!by_name(t, n, s, val))
		return 0;
	if (parse_u32(s, val) || *val > max)
		return -EINVAL;
	return 0;
}

int rt_table_parse(const char *s, __u32 *table)
{
	int err = name_or_number(tables, ARRAY_SIZE(tables), s, UINT32_MAX,
				 table);

	/* Table 0 (RT_TABLE_UNSPEC) holds no routes: "all" in ip's terms. */
	return err ? err : *table ? 0 : -EINVAL;
}

int rt_proto_parse(const char *s, __u8 *proto)
{
	__u32 v;
	int err = name_or_number(protos, ARRAY_SIZE(protos), s, 255, &v);

	if (!err)
		*proto = v;
	return err;
}

int rt_type_parse(const char *s, __u8 *type)
{
	__u32 v;
	int err = by_name(types, ARRAY_SIZE(types), s, &v);

	if (!err)
		*type = v;
	return err;
}

const char *rt_table_name(__u32 table, char *buf, size_t n)
{
	return by_val(tables, ARRAY_SIZE(tables), table, buf, n);
}

const char *rt_proto_name(__u8 proto, char *buf, size_t n)
{
	return by_val(protos, ARRAY_SIZE(protos), proto, buf, n);
}

const char *rt_type_name(__u8 type, char *buf, size_t n)
{
	return by_val(types, ARRAY_SIZE(types), type, buf, n);
}
