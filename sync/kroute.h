/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A kernel route as the sync daemon needs it, decoded straight from an
 * RTM_NEWROUTE / RTM_DELROUTE message with libnl's attribute accessors
 * (no libnl route object: rtnl_route_parse allocates one per route, see
 * bench/syncbench.c for what that costs at a million routes).
 *
 * Nexthops: a single-path route has one (RTA_GATEWAY / RTA_VIA, RTA_OIF,
 * RTA_FLOW); a multipath one has one per struct rtnexthop in
 * RTA_MULTIPATH, each with its own gateway, device and (IPv4) realm.
 * Routes with more than KROUTE_MAX_NH nexthops keep the first
 * KROUTE_MAX_NH and set nh_truncated; the others are still counted
 * (nh_more) and hashed (nh_more_hash), so that routes that differ only
 * past the first KROUTE_MAX_NH stay apart.
 */
#ifndef CLS_SYNC_KROUTE_H
#define CLS_SYNC_KROUTE_H

#include <stdbool.h>
#include <linux/netlink.h>
#include <linux/types.h>

#include "lib/parse.h"

#define KROUTE_MAX_NH 4096
/*
 * The longest route message a kernel route dump can hold, with room to
 * spare: a dump datagram is at most SKB_WITH_OVERHEAD(32768) bytes
 * (32448 on x86_64), and a route that does not fit an empty one ends the
 * dump (sync/rtsock.h).  Routes longer than this are known only from
 * their notifications.
 */
#define KROUTE_DUMP_MAX (32768 - 512)

struct kroute_nh {
	struct cls_prefix gw; /* len 0 (family 0): no gateway */
	__u32 oif;	      /* 0: none */
	__u32 realm;	      /* RTA_FLOW: source realm << 16 | destination */
};

struct kroute {
	struct cls_prefix dst;
	__u32 table;	/* RTA_TABLE, or rtm_table */
	__u32 priority; /* RTA_PRIORITY: the metric; 0 if absent */
	__u32 flags;	/* rtm_flags (RTM_F_CLONED, ...) */
	__u32 nh_id;	/* RTA_NH_ID: a nexthop object, 0 if none */
	__u32 msg_len;	/* the message's length (nlmsg_len) */
	__u8 protocol;
	__u8 type;
	__u8 scope;
	__u8 tos;
	bool nh_truncated;
	unsigned int nr_nh;	   /* in nh[] */
	unsigned int nh_more;	   /* past KROUTE_MAX_NH, not kept */
	__u32 nh_more_hash;	   /* their part of kroute_nh_hash() */
	struct kroute_nh nh[KROUTE_MAX_NH];
};

/*
 * Decode an RTM_NEWROUTE/RTM_DELROUTE message.  Returns 0, or -EINVAL
 * for a message too short or malformed to be a route (the caller counts
 * it and goes on: the kernel does not send those).
 */
int kroute_decode(const struct nlmsghdr *h, struct kroute *r);

/* How many nexthops the route has, kept in nh[] or not. */
static inline unsigned int kroute_nh_count(const struct kroute *r)
{
	return r->nr_nh + r->nh_more;
}

/*
 * Whether a route is one sync may follow: not a cache clone (IPv6
 * exceptions, RTM_F_CLONED), and a type that says where packets to the
 * prefix go: unicast, blackhole, unreachable or prohibit.  local,
 * broadcast, anycast, multicast, throw, nat and xresolve are the
 * kernel's own bookkeeping or policy-routing plumbing, never synced.
 */
bool kroute_syncable(const struct kroute *r);

/*
 * A hash of what tells apart two routes of one prefix, table, metric and
 * TOS (IPv4 "append" aliases): the nexthops, all of them in any order,
 * and the nexthop object id.  Equal routes hash equal.
 */
__u32 kroute_nh_hash(const struct kroute *r);
/*
 * The part of that hash that is not a sum over nexthops: the hash of a
 * route less some of its nexthops is its hash minus (the hash of a route
 * with just those nexthops minus this).
 */
__u32 kroute_nh_hash_base(const struct kroute *r);

#endif
