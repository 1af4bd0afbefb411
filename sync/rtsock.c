// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include <netlink/msg.h>
#include <netlink/attr.h>
#include <linux/rtnetlink.h>

#include "sync/rtsock.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif
#ifndef NETLINK_GET_STRICT_CHK
#define NETLINK_GET_STRICT_CHK 12
#endif

/* The kernel never builds a netlink skb larger than 32 KiB for a dump. */
#define RTSOCK_BUF (64 << 10)

static int open_sock(struct rtsock *s)
{
	int err;

	memset(s, 0, sizeof(*s));
	s->fd = -1;
	errno = 0;
	s->buflen = RTSOCK_BUF;
	s->buf = malloc(s->buflen);
	s->sk = nl_socket_alloc();
	if (!s->buf || !s->sk) {
		rtsock_close(s);
		return -ENOMEM;
	}
	nl_socket_disable_seq_check(s->sk);
	nl_socket_disable_auto_ack(s->sk);
	if (nl_connect(s->sk, NETLINK_ROUTE) < 0) {
		/* libnl's codes are its own; errno still holds the kernel's */
		err = errno ? -errno : -EPROTO;
		rtsock_close(s);
		return err;
	}
	s->fd = nl_socket_get_fd(s->sk);
	return 0;
}

void rtsock_close(struct rtsock *s)
{
	if (s->sk)
		nl_socket_free(s->sk);
	free(s->buf);
	memset(s, 0, sizeof(*s));
	s->fd = -1;
}

int rtsock_set_rcvbuf(struct rtsock *s, __u32 rcvbuf, int *actual)
{
	int v = rcvbuf;
	socklen_t len = sizeof(v);

	/* FORCE passes net.core.rmem_max, for CAP_NET_ADMIN */
	if (setsockopt(s->fd, SOL_SOCKET, SO_RCVBUFFORCE, &v, sizeof(v)) &&
	    setsockopt(s->fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v)))
		return -errno;
	if (actual && getsockopt(s->fd, SOL_SOCKET, SO_RCVBUF, actual, &len))
		return -errno;
	return 0;
}

int rtsock_listen(struct rtsock *s)
{
	int err = open_sock(s);

	if (err)
		return err;
	err = nl_socket_add_memberships(s->sk, RTNLGRP_IPV4_ROUTE,
					RTNLGRP_IPV6_ROUTE, RTNLGRP_LINK,
					RTNLGRP_IPV4_IFADDR, 0);
	if (!err)
		err = nl_socket_set_nonblocking(s->sk);
	if (err) {
		rtsock_close(s);
		return -EINVAL;
	}
	return 0;
}

/* Pass every message of one datagram to cb. */
static int walk(const __u8 *buf, int len, rtsock_cb cb, void *ctx, long *count)
{
	const struct nlmsghdr *h = (const struct nlmsghdr *)buf;
	int err;

	for (; nlmsg_ok(h, len); h = nlmsg_next((struct nlmsghdr *)h, &len)) {
		(*count)++;
		err = cb(ctx, h);
		if (err)
			return err;
	}
	return 0;
}

long rtsock_drain(struct rtsock *s, size_t max, rtsock_cb cb, void *ctx,
		  bool *overrun, bool *more)
{
	long count = 0;
	ssize_t n;
	int err;

	*more = false;
	while ((size_t)count < max) {
		n = recv(s->fd, s->buf, s->buflen, MSG_DONTWAIT | MSG_TRUNC);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == ENOBUFS) {
			*overrun = true;
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return count;
		if (n < 0)
			return -errno;
		/* larger than any route message the kernel builds */
		if ((size_t)n > s->buflen)
			return -EMSGSIZE;
		err = walk(s->buf, n, cb, ctx, &count);
		if (err)
			return err;
	}
	*more = true;
	return count;
}

static int send_dump(struct rtsock *s, int family, __u32 table)
{
	struct rtmsg rtm = {.rtm_family = family};
	struct nl_msg *msg;
	int err;

	errno = 0;
	msg = nlmsg_alloc_simple(RTM_GETROUTE, NLM_F_REQUEST | NLM_F_DUMP);
	if (!msg)
		return -ENOMEM;
	/* libnl returns its own codes: only "no room" can happen here */
	if (nlmsg_append(msg, &rtm, sizeof(rtm), NLMSG_ALIGNTO) ||
	    (table && nla_put_u32(msg, RTA_TABLE, table)))
		err = -ENOMEM;
	else if (nl_send_auto(s->sk, msg) < 0)
		err = errno ? -errno : -EIO;
	else
		err = 0;
	nlmsg_free(msg);
	return err;
}

struct dump_state {
	rtsock_cb cb;
	void *ctx;
	bool done;
	bool intr;
	int err;
};

static int dump_msg(void *ctx, const struct nlmsghdr *h)
{
	struct dump_state *d = ctx;

	if (h->nlmsg_flags & NLM_F_DUMP_INTR)
		d->intr = true;
	switch (h->nlmsg_type) {
	case NLMSG_DONE:
		d->done = true;
		return 0;
	case NLMSG_ERROR: {
		const struct nlmsgerr *e = nlmsg_data(h);

		d->done = true;
		if (h->nlmsg_len >= NLMSG_LENGTH(sizeof(*e)))
			d->err = e->error;
		else
			d->err = -EPROTO;
		return 0;
	}
	case RTM_NEWROUTE:
		return d->cb(d->ctx, h);
	}
	return 0;
}

/* One dump request and its whole answer. */
static int dump_one(struct rtsock *s, int family, __u32 table, rtsock_cb cb,
		    void *ctx)
{
	struct dump_state d = {.cb = cb, .ctx = ctx};
	long count = 0;
	ssize_t n;
	int err = send_dump(s, family, table);

	while (!err && !d.done) {
		n = recv(s->fd, s->buf, s->buflen, MSG_TRUNC);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EPIPE;
		if ((size_t)n > s->buflen)
			return -EMSGSIZE;
		err = walk(s->buf, n, dump_msg, &d, &count);
	}
	if (err)
		return err;
	/* a table the kernel never made: nothing in it */
	if (d.err == -ENOENT && table)
		return 0;
	if (d.err)
		return d.err;
	return d.intr ? -EINTR : 0;
}

int rtsock_dump_routes(int family, const __u32 *tables, int ntables,
		       rtsock_cb cb, void *ctx)
{
	struct rtsock s;
	int one = 1, err, i;

	err = open_sock(&s);
	if (err)
		return err;
	/* strict checking lets the kernel filter by table */
	if (ntables >= 0 &&
	    setsockopt(s.fd, SOL_NETLINK, NETLINK_GET_STRICT_CHK, &one,
		       sizeof(one)))
		ntables = -1;
	if (ntables < 0)
		err = dump_one(&s, family, 0, cb, ctx);
	for (i = 0; !err && i < ntables; i++)
		err = dump_one(&s, family, tables[i], cb, ctx);
	rtsock_close(&s);
	return err;
}
