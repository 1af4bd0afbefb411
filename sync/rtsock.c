// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <poll.h>
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

/*
 * Reads are at least this long: past SKB_WITH_OVERHEAD(32768), so the
 * kernel makes every dump datagram its largest.
 */
#define RTSOCK_BUF (64 << 10)
/* A datagram longer than this is no route message: dropped, an error. */
#define RTSOCK_BUF_MAX (16 << 20)
/* How long a dump may stay silent before it counts as lost. */
#define RTSOCK_WAIT_MS 30000

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
	s->portid = nl_socket_get_local_port(s->sk);
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

/* Wait until something is queued; -ETIMEDOUT after ms. */
static int wait_readable(const struct rtsock *s, int ms)
{
	struct pollfd p = {.fd = s->fd, .events = POLLIN};
	int n;

	do
		n = poll(&p, 1, ms);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return n ? 0 : -ETIMEDOUT;
}

static int grow(struct rtsock *s, size_t need)
{
	size_t len = (need + 4095) & ~(size_t)4095;
	__u8 *b = realloc(s->buf, len);

	if (!b)
		return -ENOMEM;
	s->buf = b;
	s->buflen = len;
	return 0;
}

/*
 * One datagram from the kernel, whole, into s->buf: peeked for its length
 * first, the buffer grown to it, then taken off the queue without a
 * second copy.  What another socket sent (a process with CAP_NET_ADMIN
 * can) is dropped: routes come from the kernel.  Returns the length, 0
 * when nothing is queued, -ENOBUFS when the kernel dropped notifications
 * (what is queued is still there), or another negative errno.
 */
static ssize_t recv_whole(struct rtsock *s)
{
	struct sockaddr_nl from;
	socklen_t fromlen;
	ssize_t n, got;

	for (;;) {
		fromlen = sizeof(from);
		n = recvfrom(s->fd, s->buf, s->buflen,
			     MSG_PEEK | MSG_TRUNC | MSG_DONTWAIT,
			     (struct sockaddr *)&from, &fromlen);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n < 0)
			return -errno;
		if (fromlen >= sizeof(from) && from.nl_pid) {
			recv(s->fd, s->buf, 0, MSG_DONTWAIT | MSG_TRUNC);
			continue;
		}
		if ((size_t)n <= s->buflen)
			break;
		if (n > RTSOCK_BUF_MAX || grow(s, n)) {
			/* drop it rather than stop reading */
			recv(s->fd, s->buf, 0, MSG_DONTWAIT | MSG_TRUNC);
			return -EMSGSIZE;
		}
	}
	do
		got = recv(s->fd, s->buf, 0, MSG_DONTWAIT | MSG_TRUNC);
	while (got < 0 && errno == EINTR);
	/* an overrun between the two reads: reported now, datagram kept */
	if (got < 0)
		return -errno;
	return n;
}

/* Pass every message of the datagram in s->buf to fn. */
static int walk(struct rtsock *s, int len, rtsock_cb fn, void *ctx)
{
	const struct nlmsghdr *h = (const struct nlmsghdr *)s->buf;
	int err;

	for (; nlmsg_ok(h, len); h = nlmsg_next((struct nlmsghdr *)h, &len)) {
		err = fn(ctx, h);
		if (err)
			return err;
	}
	return 0;
}

/* A request of ours: seq set, answered to our port. */
static int send_req(struct rtsock *s, struct nl_msg *msg)
{
	nlmsg_hdr(msg)->nlmsg_seq = ++s->seq;
	errno = 0;
	if (nl_send_auto(s->sk, msg) < 0)
		return errno ? -errno : -EIO;
	return 0;
}

/*
 * One read before anything else: the kernel sizes dump datagrams by the
 * longest read the socket made, and a socket that made none gets small
 * ones, in which a route of a few hundred nexthops does not fit.
 */
static int prime(struct rtsock *s)
{
	struct nl_msg *msg = nlmsg_alloc_simple(NLMSG_NOOP, NLM_F_ACK);
	struct rtsock_dump d = {.portid = s->portid};
	const struct nlmsghdr *h;
	ssize_t n;
	int err;

	if (!msg)
		return -ENOMEM;
	err = send_req(s, msg);
	nlmsg_free(msg);
	d.seq = s->seq;
	while (!err && !d.done) {
		n = recv_whole(s);
		if (n == 0) {
			err = wait_readable(s, RTSOCK_WAIT_MS);
			continue;
		}
		if (n < 0)
			return n;
		h = (const struct nlmsghdr *)s->buf;
		if (nlmsg_ok(h, n))
			rtsock_dump_msg(&d, h);
	}
	return err ? err : d.err;
}

int rtsock_listen(struct rtsock *s)
{
	int one = 1, err = open_sock(s);

	if (err)
		return err;
	/* strict checking lets the kernel filter dumps by table */
	s->strict = !setsockopt(s->fd, SOL_NETLINK, NETLINK_GET_STRICT_CHK,
				&one, sizeof(one));
	err = nl_socket_set_nonblocking(s->sk) ? -EINVAL : prime(s);
	if (!err && nl_socket_add_memberships(s->sk, RTNLGRP_IPV4_ROUTE,
					      RTNLGRP_IPV6_ROUTE, RTNLGRP_LINK,
					      RTNLGRP_IPV4_IFADDR, 0))
		err = -EINVAL;
	if (err)
		rtsock_close(s);
	return err;
}

struct drain_ctx {
	rtsock_cb cb;
	void *ctx;
	long *msgs;
};

static int drain_msg(void *ctx, const struct nlmsghdr *h)
{
	struct drain_ctx *c = ctx;

	(*c->msgs)++;
	return c->cb(c->ctx, h);
}

int rtsock_drain(struct rtsock *s, size_t max, rtsock_cb cb, void *ctx,
		 struct rtsock_read *r)
{
	struct drain_ctx c = {cb, ctx, &r->msgs};
	ssize_t n;

	memset(r, 0, sizeof(*r));
	while ((size_t)r->msgs < max) {
		n = recv_whole(s);
		if (n == -ENOBUFS) {
			r->overrun = true;
			continue;
		}
		if (n <= 0) {
			/* an empty queue: the kernel queues to us again */
			r->empty = !n;
			return n;
		}
		n = walk(s, n, drain_msg, &c);
		if (n)
			return n;
	}
	r->more = true;
	return 0;
}

enum rtsock_msg rtsock_dump_msg(struct rtsock_dump *d, const struct nlmsghdr *h)
{
	int err;

	if (h->nlmsg_pid != d->portid || h->nlmsg_seq != d->seq)
		return RTSOCK_MSG_EVENT;
	if (h->nlmsg_flags & NLM_F_DUMP_INTR)
		d->intr = true;
	switch (h->nlmsg_type) {
	case NLMSG_DONE:
		d->done = true;
		/* the dump's own error: a failed dump is no empty table */
		if (h->nlmsg_len >= NLMSG_LENGTH(sizeof(err))) {
			memcpy(&err, nlmsg_data(h), sizeof(err));
			d->err = err > 0 ? -EPROTO : err;
		}
		return RTSOCK_MSG_END;
	case NLMSG_ERROR:
		d->done = true;
		if (h->nlmsg_len >= NLMSG_LENGTH(sizeof(struct nlmsgerr))) {
			memcpy(&err, nlmsg_data(h), sizeof(err));
			d->err = err > 0 ? -EPROTO : err;
		} else {
			d->err = -EPROTO;
		}
		return RTSOCK_MSG_END;
	case RTM_NEWROUTE:
		d->routes++;
		return RTSOCK_MSG_ROUTE;
	}
	return RTSOCK_MSG_SKIP;
}

static int send_dump(struct rtsock *s, int family, __u32 table)
{
	struct rtmsg rtm = {.rtm_family = family};
	struct nl_msg *msg;
	int err;

	msg = nlmsg_alloc_simple(RTM_GETROUTE, NLM_F_REQUEST | NLM_F_DUMP);
	if (!msg)
		return -ENOMEM;
	/* libnl returns its own codes: only "no room" can happen here */
	if (nlmsg_append(msg, &rtm, sizeof(rtm), NLMSG_ALIGNTO) ||
	    (table && nla_put_u32(msg, RTA_TABLE, table)))
		err = -ENOMEM;
	else
		err = send_req(s, msg);
	nlmsg_free(msg);
	return err;
}

struct dump_ctx {
	struct rtsock_dump *d;
	rtsock_cb route_cb, event_cb;
	void *ctx;
};

static int dump_msg(void *ctx, const struct nlmsghdr *h)
{
	struct dump_ctx *c = ctx;

	switch (rtsock_dump_msg(c->d, h)) {
	case RTSOCK_MSG_EVENT:
		c->d->events++;
		return c->event_cb(c->ctx, h);
	case RTSOCK_MSG_ROUTE:
		return c->route_cb(c->ctx, h);
	default:
		return 0;
	}
}

int rtsock_dump_routes(struct rtsock *s, int family, __u32 table,
		       rtsock_cb route_cb, rtsock_cb event_cb, void *ctx,
		       struct rtsock_dump *d)
{
	struct dump_ctx c = {d, route_cb, event_cb, ctx};
	ssize_t n;
	int err;

	memset(d, 0, sizeof(*d));
	d->portid = s->portid;
	/* without strict checking the kernel ignores RTA_TABLE */
	err = send_dump(s, family, s->strict ? table : 0);
	d->seq = s->seq;
	while (!err && !d->done) {
		n = recv_whole(s);
		if (n == -ENOBUFS) {
			d->overrun = true;
			continue;
		}
		if (n == 0)
			err = wait_readable(s, RTSOCK_WAIT_MS);
		else if (n < 0)
			err = n;
		else
			err = walk(s, n, dump_msg, &c);
	}
	if (err)
		return err;
	/* a table the kernel never made: nothing in it */
	if (d->err == -ENOENT && table)
		return 0;
	return d->err;
}
