/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rtnetlink over libmnl for the tc objects classifier makes (loader/'s
 * clsact and filter, lib/tctree.c's shaping tree).  Requests are queued
 * in a batch and sent many to one sendmsg(), each acked, so a tree of
 * thousands of classes costs a few system calls per few hundred objects;
 * every ack is read and checked, and the first failure is kept with its
 * errno, the caller's tag for the request and the kernel's extended-ack
 * text.  Dumps go through the same queue and hand their messages to a
 * callback.
 */
#ifndef CLS_NL_H
#define CLS_NL_H

#include <stddef.h>
#include <linux/netlink.h>

#include <libmnl/libmnl.h>

/* Requests sent to one sendmsg() at most, and bytes of them. */
#define NL_BATCH_REQS  256
#define NL_BATCH_BYTES 65536
/* The most one request may take (attributes included). */
#define NL_REQ_MAX 4096

struct nl {
	struct mnl_socket *sock;
	unsigned int portid;
	unsigned int seq;     /* of the last request queued */
	char *rx;	      /* a dump's messages, 32 KiB at a time */
	char *tx;	      /* the queued requests */
	size_t tx_len;	      /* bytes before the current request */
	struct nlmsghdr *cur; /* the request being built, or NULL */
	unsigned int n;	      /* requests queued, the current one included */
	unsigned long tags[NL_BATCH_REQS];
	int allow[NL_BATCH_REQS]; /* an error that is not a failure, or 0 */
	/* The first failure since nl_open() or nl_clear(); 0: none. */
	int err;
	unsigned long err_tag;
	char msg[256]; /* its extended-ack text, or "" */
};

/* A NETLINK_ROUTE socket with extended acks; -errno. */
int nl_open(struct nl *nl);
void nl_close(struct nl *nl);
/*
 * A new request of type with flags (NLM_F_REQUEST and NLM_F_ACK are
 * added) at the end of the queue: its header, to put the payload and
 * attributes after, within NL_REQ_MAX bytes.  A full queue is sent first.
 * Never NULL.  Once a request failed, the kernel still takes the requests
 * sent with it (a batch is one sendmsg()), but what is queued after that
 * batch is dropped unsent, and nl_talk() returns the first failure; tag
 * names its request in nl->err_tag.
 */
struct nlmsghdr *nl_req(struct nl *nl, __u16 type, __u16 flags,
			unsigned long tag);
/*
 * The current request may fail with err (-EEXIST: what it makes is there
 * already) without that counting as a failure.
 */
void nl_allow(struct nl *nl, int err);
/*
 * Send the queue and read every reply: messages that are neither acks
 * nor errors go to cb (a dump's), if given.  Returns nl->err.
 */
int nl_talk(struct nl *nl, mnl_cb_t cb, void *data);
/* Forget the failure recorded (to go on after an expected one). */
void nl_clear(struct nl *nl);

/* tc messages (RTM_*QDISC, *TCLASS, *TFILTER): the tcmsg after nlh. */
struct tcmsg;
struct tcmsg *nl_put_tcmsg(struct nlmsghdr *nlh, int ifindex, __u32 parent,
			   __u32 handle, __u32 info);
/* A link message (RTM_GETLINK of one device): the ifinfomsg after nlh. */
void nl_put_ifinfomsg(struct nlmsghdr *nlh, int ifindex);
/* Its attributes into tb[0..TCA_MAX]; NULL if it is malformed. */
const struct tcmsg *nl_parse_tcmsg(const struct nlmsghdr *nlh,
				   const struct nlattr **tb);
/* A TCA_KIND attribute's text into kind ("" if absent or malformed). */
void nl_tc_kind(const struct nlattr *attr, char *kind, size_t n);

#endif
