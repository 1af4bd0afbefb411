/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The daemon's rtnetlink socket, through libnl-3: subscribed to route,
 * link and IPv4 address notifications, and the dumps of the routes of
 * chosen tables, asked on the same socket so that dumped routes and
 * notifications come in one queue, in the order the kernel queued them.
 * Messages go to callbacks raw, one at a time, from a buffer reused for
 * every read: nothing is cached.
 *
 * What the kernel does that shapes this file (net/netlink/af_netlink.c):
 *  - A dump datagram is sized by the largest read the socket ever made,
 *    up to SKB_WITH_OVERHEAD(32768) (max_recvmsg_len); a socket that
 *    never read gets NLMSG_GOODSIZE (about 3.7 KB) for its first one.  A
 *    route whose message does not fit an empty dump datagram ends the
 *    dump there: with -EMSGSIZE in NLMSG_DONE before 6.10, silently
 *    since (rtnl_dumpit() swallows -EMSGSIZE for IPv4; IPv6 returns the
 *    empty datagram's length).  rtsock_listen() therefore reads once
 *    before the first dump, with a buffer past that limit, so every dump
 *    datagram is the largest the kernel makes; KROUTE_DUMP_MAX is what
 *    still cannot be dumped.
 *  - A notification is as long as its route needs (more than 64 KiB for
 *    a few thousand nexthops): each datagram is peeked for its size
 *    first and read whole.
 *  - When the queue overflows the kernel reports ENOBUFS once, then drops
 *    every notification, silently, until a read finds the queue empty
 *    (NETLINK_S_CONGESTED).  A dump must start from an empty queue, or
 *    what changes during it is lost without a word: rtsock_drain() says
 *    when the queue was read empty.
 */
#ifndef CLS_SYNC_RTSOCK_H
#define CLS_SYNC_RTSOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/netlink.h>
#include <linux/types.h>

struct nl_sock;

struct rtsock {
	struct nl_sock *sk;
	int fd;
	__u32 portid; /* ours: the dumps' answers carry it */
	__u32 seq;    /* of our last request */
	bool strict;  /* NETLINK_GET_STRICT_CHK: the kernel filters dumps */
	__u8 *buf;
	size_t buflen;
};

/* Returns 0, or a negative errno to stop the read. */
typedef int (*rtsock_cb)(void *ctx, const struct nlmsghdr *h);

/*
 * The socket: RTNLGRP_IPV4_ROUTE, RTNLGRP_IPV6_ROUTE, RTNLGRP_LINK and
 * RTNLGRP_IPV4_IFADDR, non-blocking, strict checking asked for, and one
 * read done (an NLMSG_NOOP acknowledged) before any subscription, so the
 * kernel sizes the first dump's datagrams as the later ones.
 */
int rtsock_listen(struct rtsock *s);
/*
 * Set the receive buffer: SO_RCVBUFFORCE (CAP_NET_ADMIN) past
 * net.core.rmem_max, else SO_RCVBUF, which that caps.  *actual: what the
 * kernel reports (twice what it grants: it counts its overhead).
 */
int rtsock_set_rcvbuf(struct rtsock *s, __u32 rcvbuf, int *actual);
void rtsock_close(struct rtsock *s);

struct rtsock_read {
	long msgs;    /* messages passed on */
	bool overrun; /* ENOBUFS: the kernel dropped notifications */
	bool more;    /* stopped at max with datagrams left */
	bool empty;   /* the last read found the queue empty */
};

/*
 * Read what is queued, at most max messages, passing each to cb.
 * Returns 0 or a negative errno (cb's, or the socket's); *r says what
 * was read either way.
 */
int rtsock_drain(struct rtsock *s, size_t max, rtsock_cb cb, void *ctx,
		 struct rtsock_read *r);

/* One dump's answer, as its messages arrive. */
struct rtsock_dump {
	__u32 portid, seq;    /* of the request */
	bool done;	      /* NLMSG_DONE or NLMSG_ERROR came */
	bool intr;	      /* some message had NLM_F_DUMP_INTR */
	int err;	      /* the kernel's: NLMSG_DONE's or NLMSG_ERROR's */
	unsigned long routes; /* RTM_NEWROUTE messages of the dump */
	unsigned long events; /* notifications read meanwhile */
	bool overrun;	      /* ENOBUFS meanwhile */
};

enum rtsock_msg {
	RTSOCK_MSG_EVENT, /* not of this dump: a notification */
	RTSOCK_MSG_ROUTE, /* a route of this dump */
	RTSOCK_MSG_END,	  /* the dump's end; d->err says how it ended */
	RTSOCK_MSG_SKIP,  /* of this dump, nothing to pass on */
};

/*
 * What h is to the dump d waits for (portid and seq set), updating d.
 * NLMSG_DONE carries the dump's error in its payload: a dump that failed
 * is never taken for an empty table.
 */
enum rtsock_msg rtsock_dump_msg(struct rtsock_dump *d,
				const struct nlmsghdr *h);

/*
 * Dump the routes of one family and one table (0: every table) on the
 * socket, passing each route to route_cb and each notification that
 * arrives meanwhile, in queue order, to event_cb.  Returns 0 when the
 * dump ended well (a table the kernel never made is empty), or a negative
 * errno: the kernel's (d->err: -EMSGSIZE, the dump was cut at a route
 * too long for it), a callback's, or the socket's.  *d has the counts.
 */
int rtsock_dump_routes(struct rtsock *s, int family, __u32 table,
		       rtsock_cb route_cb, rtsock_cb event_cb, void *ctx,
		       struct rtsock_dump *d);

#endif
