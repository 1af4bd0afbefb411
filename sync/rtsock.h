/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rtnetlink sockets through libnl-3: one subscribed to route, link and
 * IPv4 address notifications (the event socket), and dumps of the routes
 * of chosen tables on a socket of their own.  Messages go to a callback
 * raw, one at a time, from a buffer reused for every read: nothing is
 * cached.
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
	__u8 *buf;
	size_t buflen;
};

/* Returns 0, or a negative errno to stop the read. */
typedef int (*rtsock_cb)(void *ctx, const struct nlmsghdr *h);

/*
 * The event socket: RTNLGRP_IPV4_ROUTE, RTNLGRP_IPV6_ROUTE, RTNLGRP_LINK
 * and RTNLGRP_IPV4_IFADDR, non-blocking.
 */
int rtsock_listen(struct rtsock *s);
/*
 * Set the receive buffer: SO_RCVBUFFORCE (CAP_NET_ADMIN) past
 * net.core.rmem_max, else SO_RCVBUF, which that caps.  *actual: what the
 * kernel reports (twice what it grants: it counts its overhead).
 */
int rtsock_set_rcvbuf(struct rtsock *s, __u32 rcvbuf, int *actual);
void rtsock_close(struct rtsock *s);

/*
 * Read what is queued, at most max messages, passing each to cb.
 * Returns how many were read; *overrun is set when the kernel dropped
 * notifications for want of buffer (ENOBUFS: the socket stays usable);
 * *more when it stopped at max with data left.
 */
long rtsock_drain(struct rtsock *s, size_t max, rtsock_cb cb, void *ctx,
		  bool *overrun, bool *more);

/*
 * Dump the routes of one family, of the given tables (ntables < 0: all
 * tables), passing each RTM_NEWROUTE to cb.  A table the kernel does
 * not have is empty.  Returns 0, -EINTR when the kernel flagged the dump
 * inconsistent (NLM_F_DUMP_INTR: the caller starts it again), or another
 * negative errno.
 */
int rtsock_dump_routes(int family, const __u32 *tables, int ntables,
		       rtsock_cb cb, void *ctx);

#endif
