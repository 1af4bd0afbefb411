// SPDX-License-Identifier: GPL-2.0-only
/*
 * rtnetlink requests in batches.  The kernel handles the requests of one
 * sendmsg() one after the other and queues an ack for each on our socket
 * before sendmsg() returns, so a batch is bounded (NL_BATCH_REQS) and the
 * receive buffer made large enough for its acks: an ack dropped for want
 * of room would be a request whose outcome we never learn.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include "lib/log.h"
#include "lib/nl.h"

/* One kernel dump skb can hold up to 32 KiB of messages. */
#define NL_RX_SIZE 32768
/* Room for a batch's acks: each is a small skb, truesize under 2 KiB. */
#define NL_RCVBUF (NL_BATCH_REQS * 2048 * 2)

int nl_open(struct nl *nl)
{
	int one = 1, size = NL_RCVBUF;

	memset(nl, 0, sizeof(*nl));
	nl->rx = malloc(NL_RX_SIZE);
	nl->tx = malloc(NL_BATCH_BYTES);
	nl->sock = mnl_socket_open(NETLINK_ROUTE);
	if (!nl->rx || !nl->tx || !nl->sock) {
		int err = nl->sock ? -ENOMEM : -errno;

		nl_close(nl);
		return err;
	}
	/* The kernel's reason in errors; acks without our request echoed. */
	if (mnl_socket_setsockopt(nl->sock, NETLINK_EXT_ACK, &one, sizeof(one)))
		pr_debug("netlink: no NETLINK_EXT_ACK: %s\n", strerror(errno));
	if (mnl_socket_setsockopt(nl->sock, NETLINK_CAP_ACK, &one, sizeof(one)))
		pr_debug("netlink: no NETLINK_CAP_ACK: %s\n", strerror(errno));
	/* Past rmem_max with CAP_NET_ADMIN, which every tc change needs. */
	if (setsockopt(mnl_socket_get_fd(nl->sock), SOL_SOCKET, SO_RCVBUFFORCE,
		       &size, sizeof(size)))
		setsockopt(mnl_socket_get_fd(nl->sock), SOL_SOCKET, SO_RCVBUF,
			   &size, sizeof(size));
	if (mnl_socket_bind(nl->sock, 0, MNL_SOCKET_AUTOPID)) {
		int err = -errno;

		nl_close(nl);
		return err;
	}
	nl->portid = mnl_socket_get_portid(nl->sock);
	nl->seq = (unsigned int)time(NULL);
	return 0;
}

void nl_close(struct nl *nl)
{
	if (nl->sock)
		mnl_socket_close(nl->sock);
	free(nl->rx);
	free(nl->tx);
	memset(nl, 0, sizeof(*nl));
}

void nl_clear(struct nl *nl)
{
	nl->err = 0;
	nl->err_tag = 0;
	nl->msg[0] = '\0';
}

static int extack_attr_cb(const struct nlattr *attr, void *data)
{
	struct nl *nl = data;

	if (mnl_attr_get_type(attr) == NLMSGERR_ATTR_MSG &&
	    mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) == 0)
		snprintf(nl->msg, sizeof(nl->msg), "%s",
			 mnl_attr_get_str(attr));
	return MNL_CB_OK;
}

/* The TLVs of an error or a dump's end start after fixed payload bytes. */
static void record_extack(struct nl *nl, const struct nlmsghdr *nlh,
			  size_t fixed)
{
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS) ||
	    nlh->nlmsg_len < MNL_NLMSG_HDRLEN + MNL_ALIGN(fixed))
		return;
	mnl_attr_parse(nlh, fixed, extack_attr_cb, nl);
}

static void record_failure(struct nl *nl, int err, unsigned int seq,
			   const struct nlmsghdr *nlh, size_t fixed)
{
	unsigned int i = seq - (nl->seq - nl->n + 1);

	if (nl->err || (i < nl->n && nl->allow[i] && nl->allow[i] == err))
		return;
	nl->err = err;
	nl->err_tag = i < nl->n ? nl->tags[i] : 0;
	nl->msg[0] = '\0';
	if (nlh)
		record_extack(nl, nlh, fixed);
}

/* An ack or an error: 1 if it ends a request of the batch, 0 if not. */
static int on_error(struct nl *nl, const struct nlmsghdr *nlh)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	size_t fixed = sizeof(*e);

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*e)) {
		record_failure(nl, -EBADMSG, nlh->nlmsg_seq, NULL, 0);
		return 1;
	}
	if (e->error) {
		if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
			fixed += e->msg.nlmsg_len - sizeof(struct nlmsghdr);
		record_failure(nl, e->error, nlh->nlmsg_seq, nlh, fixed);
	}
	return 1;
}

/* A dump that fails part way says so in NLMSG_DONE. */
static int on_done(struct nl *nl, const struct nlmsghdr *nlh)
{
	int error = 0;

	if (mnl_nlmsg_get_payload_len(nlh) >= sizeof(error))
		memcpy(&error, mnl_nlmsg_get_payload(nlh), sizeof(error));
	if (error < 0)
		record_failure(nl, error, nlh->nlmsg_seq, nlh, sizeof(error));
	return 1;
}

static bool ours(const struct nl *nl, const struct nlmsghdr *nlh)
{
	return nlh->nlmsg_pid == nl->portid &&
	       nlh->nlmsg_seq - (nl->seq - nl->n + 1) < nl->n;
}

/* Read until every request of the batch is answered. */
static int read_replies(struct nl *nl, mnl_cb_t cb, void *data)
{
	unsigned int answered = 0;

	while (answered < nl->n) {
		ssize_t len = mnl_socket_recvfrom(nl->sock, nl->rx, NL_RX_SIZE);
		const struct nlmsghdr *nlh = (const void *)nl->rx;
		int left = len;

		if (len < 0) {
			/* ENOBUFS: replies were lost, so outcomes are unknown.
			 */
			record_failure(nl, -errno, 0, NULL, 0);
			return nl->err;
		}
		for (; mnl_nlmsg_ok(nlh, left);
		     nlh = mnl_nlmsg_next(nlh, &left)) {
			if (!ours(nl, nlh))
				continue;
			if (nlh->nlmsg_type == NLMSG_ERROR)
				answered += on_error(nl, nlh);
			else if (nlh->nlmsg_type == NLMSG_DONE)
				answered += on_done(nl, nlh);
			else if (cb && cb(nlh, data) < MNL_CB_STOP)
				record_failure(nl, errno ? -errno : -EPROTO,
					       nlh->nlmsg_seq, NULL, 0);
		}
	}
	return nl->err;
}

int nl_talk(struct nl *nl, mnl_cb_t cb, void *data)
{
	if (nl->cur)
		nl->tx_len += NLMSG_ALIGN(nl->cur->nlmsg_len);
	nl->cur = NULL;
	if (nl->n && !nl->err) {
		if (mnl_socket_sendto(nl->sock, nl->tx, nl->tx_len) < 0)
			record_failure(nl, -errno, 0, NULL, 0);
		else
			read_replies(nl, cb, data);
	}
	nl->n = 0;
	nl->tx_len = 0;
	return nl->err;
}

struct nlmsghdr *nl_req(struct nl *nl, __u16 type, __u16 flags,
			unsigned long tag)
{
	struct nlmsghdr *nlh;

	if (nl->cur)
		nl->tx_len += NLMSG_ALIGN(nl->cur->nlmsg_len);
	nl->cur = NULL;
	if (nl->n == NL_BATCH_REQS || nl->tx_len + NL_REQ_MAX > NL_BATCH_BYTES)
		nl_talk(nl, NULL, NULL);
	nlh = mnl_nlmsg_put_header(nl->tx + nl->tx_len);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	nlh->nlmsg_seq = ++nl->seq;
	nl->tags[nl->n] = tag;
	nl->allow[nl->n++] = 0;
	nl->cur = nlh;
	return nlh;
}

void nl_allow(struct nl *nl, int err)
{
	if (nl->n)
		nl->allow[nl->n - 1] = err;
}

struct tcmsg *nl_put_tcmsg(struct nlmsghdr *nlh, int ifindex, __u32 parent,
			   __u32 handle, __u32 info)
{
	struct tcmsg *tcm = mnl_nlmsg_put_extra_header(nlh, sizeof(*tcm));

	tcm->tcm_family = AF_UNSPEC;
	tcm->tcm_ifindex = ifindex;
	tcm->tcm_parent = parent;
	tcm->tcm_handle = handle;
	tcm->tcm_info = info;
	return tcm;
}

void nl_put_ifinfomsg(struct nlmsghdr *nlh, int ifindex)
{
	struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));

	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = ifindex;
}

static int tca_attr_cb(const struct nlattr *attr, void *data)
{
	const struct nlattr **tb = data;

	if (mnl_attr_type_valid(attr, TCA_MAX) > 0)
		tb[mnl_attr_get_type(attr)] = attr;
	return MNL_CB_OK;
}

const struct tcmsg *nl_parse_tcmsg(const struct nlmsghdr *nlh,
				   const struct nlattr **tb)
{
	memset(tb, 0, sizeof(*tb) * (TCA_MAX + 1));
	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(struct tcmsg) ||
	    mnl_attr_parse(nlh, sizeof(struct tcmsg), tca_attr_cb, tb) < 0)
		return NULL;
	return mnl_nlmsg_get_payload(nlh);
}

void nl_tc_kind(const struct nlattr *attr, char *kind, size_t n)
{
	kind[0] = '\0';
	if (attr && !mnl_attr_validate(attr, MNL_TYPE_NUL_STRING))
		snprintf(kind, n, "%s", mnl_attr_get_str(attr));
}
