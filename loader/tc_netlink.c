// SPDX-License-Identifier: GPL-2.0-only
/*
 * clsact qdisc + cls_bpf direct-action filter over rtnetlink (libmnl), the
 * egress attach for kernels that predate tcx links; and what a device's
 * link says of the packets attach will see (tc_link_query).
 *
 * Every request asks for an ack and every ack is checked, so an error is
 * never lost; the kernel's extended-ack text is kept for the CLI. Requests
 * that read state are dumps filtered by the kernel where it can and by us
 * always, since older kernels ignore some of the filter fields.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <sys/socket.h>

#include <libmnl/libmnl.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/if_tunnel.h>
#include <linux/netlink.h>
#include <linux/pkt_cls.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include "lib/log.h"
#include "loader/tc_netlink.h"

/*
 * One kernel dump skb can hold up to 32 KiB of messages and a short read
 * truncates them; libmnl 1.0.4 (Debian 12) has no MNL_SOCKET_DUMP_SIZE.
 */
#define TC_NL_BUF_SIZE 32768
/* TCA_KIND strings are at most IFNAMSIZ bytes in the kernel. */
#define TC_KIND_LEN IFNAMSIZ

#define CLSACT_HANDLE  TC_H_MAKE(TC_H_CLSACT, 0)
#define EGRESS_PARENT  TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_EGRESS)
#define INGRESS_PARENT TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_INGRESS)
/* tcm_info of a filter: preference in the high half, protocol (network
 * byte order) in the low half.
 */
#define OUR_FILTER_INFO TC_H_MAKE((__u32)CLS_TC_PRIO << 16, htons(ETH_P_ALL))

static __thread char last_error[256];

struct tc_nl {
	struct mnl_socket *sock;
	unsigned int portid;
	unsigned int seq;
	char *buf;
};

static void clear_error(void)
{
	last_error[0] = '\0';
}

static void set_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
}

const char *tc_netlink_last_error(void)
{
	return last_error;
}

static void tc_nl_close(struct tc_nl *nl)
{
	if (nl->sock)
		mnl_socket_close(nl->sock);
	free(nl->buf);
	nl->sock = NULL;
	nl->buf = NULL;
}

static int tc_nl_setup(struct tc_nl *nl)
{
	int one = 1;

	/* Ext-ack gives the CLI the kernel's reason; cap-ack keeps the
	 * error small by not echoing our request back.
	 */
	if (mnl_socket_setsockopt(nl->sock, NETLINK_EXT_ACK, &one, sizeof(one)))
		pr_debug("tc: no NETLINK_EXT_ACK: %s\n", strerror(errno));
	if (mnl_socket_setsockopt(nl->sock, NETLINK_CAP_ACK, &one, sizeof(one)))
		pr_debug("tc: no NETLINK_CAP_ACK: %s\n", strerror(errno));
	if (mnl_socket_bind(nl->sock, 0, MNL_SOCKET_AUTOPID))
		return -errno;
	nl->portid = mnl_socket_get_portid(nl->sock);
	nl->seq = (unsigned int)time(NULL);
	return 0;
}

/*
 * Checking the device up front gives -ENODEV for a bad ifindex on every
 * call: the kernel answers a dump on a missing device with an empty dump,
 * which would read as "no filter".
 */
static int tc_nl_open(struct tc_nl *nl, int ifindex)
{
	char name[IF_NAMESIZE];
	int err;

	memset(nl, 0, sizeof(*nl));
	clear_error();
	if (ifindex <= 0)
		return -EINVAL;
	if (!if_indextoname(ifindex, name))
		return errno == ENXIO ? -ENODEV : -errno;

	nl->buf = malloc(TC_NL_BUF_SIZE);
	if (!nl->buf)
		return -ENOMEM;
	nl->sock = mnl_socket_open(NETLINK_ROUTE);
	if (!nl->sock) {
		err = -errno;
		goto out;
	}
	err = tc_nl_setup(nl);
out:
	if (err)
		tc_nl_close(nl);
	return err;
}

static struct nlmsghdr *tc_msg(struct tc_nl *nl, __u16 type, __u16 flags,
			       int ifindex, __u32 parent, __u32 handle,
			       __u32 info)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(nl->buf);
	struct tcmsg *tcm;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = ++nl->seq;
	tcm = mnl_nlmsg_put_extra_header(nlh, sizeof(*tcm));
	tcm->tcm_family = AF_UNSPEC;
	tcm->tcm_ifindex = ifindex;
	tcm->tcm_parent = parent;
	tcm->tcm_handle = handle;
	tcm->tcm_info = info;
	return nlh;
}

static int extack_attr_cb(const struct nlattr *attr, void *data)
{
	(void)data;
	if (mnl_attr_get_type(attr) == NLMSGERR_ATTR_MSG &&
	    mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) == 0)
		set_error("%s", mnl_attr_get_str(attr));
	return MNL_CB_OK;
}

/* The TLVs start after the fixed payload, which is @fixed bytes long. */
static void record_extack(const struct nlmsghdr *nlh, size_t fixed)
{
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	if (nlh->nlmsg_len < MNL_NLMSG_HDRLEN + MNL_ALIGN(fixed))
		return;
	mnl_attr_parse(nlh, fixed, extack_attr_cb, NULL);
}

static int on_error(const struct nlmsghdr *nlh, void *data)
{
	const struct nlmsgerr *err = mnl_nlmsg_get_payload(nlh);
	size_t fixed = sizeof(*err);

	(void)data;
	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*err)) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	if (!err->error)
		return MNL_CB_STOP;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		fixed += err->msg.nlmsg_len - sizeof(struct nlmsghdr);
	record_extack(nlh, fixed);
	errno = -err->error;
	return MNL_CB_ERROR;
}

/* A dump that fails part way reports the error in NLMSG_DONE. */
static int on_done(const struct nlmsghdr *nlh, void *data)
{
	int error;

	(void)data;
	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(error))
		return MNL_CB_STOP;
	memcpy(&error, mnl_nlmsg_get_payload(nlh), sizeof(error));
	if (error >= 0)
		return MNL_CB_STOP;
	record_extack(nlh, sizeof(error));
	errno = -error;
	return MNL_CB_ERROR;
}

/* Send @nlh and consume replies until its ack or the end of its dump. */
static int tc_nl_talk(struct tc_nl *nl, struct nlmsghdr *nlh, mnl_cb_t cb,
		      void *data)
{
	/* Not const only because libmnl 1.0.4's prototype is not. */
	static mnl_cb_t ctl[NLMSG_MIN_TYPE] = {
		[NLMSG_ERROR] = on_error,
		[NLMSG_DONE] = on_done,
	};
	unsigned int seq = nlh->nlmsg_seq;
	ssize_t len;
	int ret;

	if (mnl_socket_sendto(nl->sock, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	do {
		len = mnl_socket_recvfrom(nl->sock, nl->buf, TC_NL_BUF_SIZE);
		if (len < 0)
			return -errno;
		errno = 0;
		ret = mnl_cb_run2(nl->buf, len, seq, nl->portid, cb, data, ctl,
				  NLMSG_MIN_TYPE);
	} while (ret > MNL_CB_STOP);
	if (ret < 0)
		return errno ? -errno : -EPROTO;
	return 0;
}

static int tca_attr_cb(const struct nlattr *attr, void *data)
{
	const struct nlattr **tb = data;
	int type = mnl_attr_get_type(attr);

	if (mnl_attr_type_valid(attr, TCA_MAX) > 0)
		tb[type] = attr;
	return MNL_CB_OK;
}

/* Parse a tc message's attributes into tb[0..TCA_MAX]; NULL if malformed. */
static const struct tcmsg *tc_parse(const struct nlmsghdr *nlh,
				    const struct nlattr **tb)
{
	memset(tb, 0, sizeof(*tb) * (TCA_MAX + 1));
	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(struct tcmsg))
		return NULL;
	if (mnl_attr_parse(nlh, sizeof(struct tcmsg), tca_attr_cb, tb) < 0)
		return NULL;
	return mnl_nlmsg_get_payload(nlh);
}

static bool tc_kind_is(const struct nlattr *kind, const char *want)
{
	return kind && mnl_attr_validate(kind, MNL_TYPE_NUL_STRING) == 0 &&
	       strcmp(mnl_attr_get_str(kind), want) == 0;
}

struct ingress_qdisc {
	int ifindex;
	char kind[TC_KIND_LEN];
};

static int ingress_qdisc_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[TCA_MAX + 1];
	struct ingress_qdisc *q = data;
	const struct tcmsg *tcm;

	if (nlh->nlmsg_type != RTM_NEWQDISC)
		return MNL_CB_OK;
	tcm = tc_parse(nlh, tb);
	if (!tcm || tcm->tcm_ifindex != q->ifindex)
		return MNL_CB_OK;
	/* clsact and ingress both sit at ffff: under the ingress parent. */
	if (tcm->tcm_parent != TC_H_INGRESS || !tb[TCA_KIND] ||
	    mnl_attr_validate(tb[TCA_KIND], MNL_TYPE_NUL_STRING))
		return MNL_CB_OK;
	snprintf(q->kind, sizeof(q->kind), "%s",
		 mnl_attr_get_str(tb[TCA_KIND]));
	return MNL_CB_OK;
}

/* Kind of the qdisc at ffff: ("clsact", "ingress"), -ENOENT if none. */
static int ingress_qdisc_kind(struct tc_nl *nl, int ifindex, char *kind,
			      size_t len)
{
	struct ingress_qdisc q = {.ifindex = ifindex};
	struct nlmsghdr *nlh;
	int err;

	nlh = tc_msg(nl, RTM_GETQDISC, NLM_F_DUMP, ifindex, 0, 0, 0);
	err = tc_nl_talk(nl, nlh, ingress_qdisc_cb, &q);
	if (err)
		return err;
	if (!q.kind[0])
		return -ENOENT;
	snprintf(kind, len, "%s", q.kind);
	return 0;
}

int tc_clsact_ensure(int ifindex, bool *created)
{
	char kind[TC_KIND_LEN];
	struct nlmsghdr *nlh;
	struct tc_nl nl;
	int err;

	*created = false;
	err = tc_nl_open(&nl, ifindex);
	if (err)
		return err;

	nlh = tc_msg(&nl, RTM_NEWQDISC, NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL,
		     ifindex, TC_H_CLSACT, CLSACT_HANDLE, 0);
	mnl_attr_put_strz(nlh, TCA_KIND, "clsact");
	err = tc_nl_talk(&nl, nlh, NULL, NULL);
	if (!err) {
		*created = true;
		goto out;
	}
	if (err != -EEXIST)
		goto out;

	/* Something holds ffff:; only a clsact is ours to share. */
	err = ingress_qdisc_kind(&nl, ifindex, kind, sizeof(kind));
	if (err == -ENOENT) {
		/* Removed under us: report the original conflict. */
		err = -EEXIST;
		goto out;
	}
	if (err)
		goto out;
	if (strcmp(kind, "clsact")) {
		set_error("qdisc %s already holds ffff:, clsact needs it",
			  kind);
		err = -EEXIST;
		goto out;
	}
	clear_error();
	pr_debug("tc: ifindex %d: reusing existing clsact\n", ifindex);
out:
	tc_nl_close(&nl);
	return err;
}

int tc_clsact_delete(int ifindex)
{
	char kind[TC_KIND_LEN];
	struct nlmsghdr *nlh;
	struct tc_nl nl;
	int err;

	err = tc_nl_open(&nl, ifindex);
	if (err)
		return err;

	/*
	 * The kernel's answers for "nothing at ffff:" vary (-EINVAL for a
	 * handle mismatch against the builtin noop qdisc), so look first.
	 */
	err = ingress_qdisc_kind(&nl, ifindex, kind, sizeof(kind));
	if (err)
		goto out;
	if (strcmp(kind, "clsact")) {
		set_error("qdisc at ffff: is %s, not clsact", kind);
		err = -ENOENT;
		goto out;
	}
	nlh = tc_msg(&nl, RTM_DELQDISC, NLM_F_ACK, ifindex, TC_H_CLSACT,
		     CLSACT_HANDLE, 0);
	/* The kind makes the kernel refuse if ffff: changed to non-clsact. */
	mnl_attr_put_strz(nlh, TCA_KIND, "clsact");
	err = tc_nl_talk(&nl, nlh, NULL, NULL);
out:
	tc_nl_close(&nl);
	return err;
}

int tc_filter_attach(int ifindex, int prog_fd, const char *name)
{
	struct nlmsghdr *nlh;
	struct nlattr *opts;
	struct tc_nl nl;
	int err;

	if (prog_fd < 0 || !name)
		return -EINVAL;
	err = tc_nl_open(&nl, ifindex);
	if (err)
		return err;

	/*
	 * NLM_F_CREATE without NLM_F_EXCL: cls_bpf swaps the program of an
	 * existing (prio, handle) in one RCU update, so traffic never sees
	 * the hook empty.
	 */
	nlh = tc_msg(&nl, RTM_NEWTFILTER, NLM_F_ACK | NLM_F_CREATE, ifindex,
		     EGRESS_PARENT, CLS_TC_HANDLE, OUR_FILTER_INFO);
	mnl_attr_put_strz(nlh, TCA_KIND, "bpf");
	opts = mnl_attr_nest_start(nlh, TCA_OPTIONS);
	mnl_attr_put_u32(nlh, TCA_BPF_FD, prog_fd);
	if (!mnl_attr_put_strz_check(nlh, TC_NL_BUF_SIZE, TCA_BPF_NAME, name)) {
		err = -ENAMETOOLONG;
		goto out;
	}
	mnl_attr_put_u32(nlh, TCA_BPF_FLAGS, TCA_BPF_FLAG_ACT_DIRECT);
	mnl_attr_nest_end(nlh, opts);
	err = tc_nl_talk(&nl, nlh, NULL, NULL);
	if (!err)
		pr_debug("tc: ifindex %d: cls_bpf %s on egress\n", ifindex,
			 name);
out:
	tc_nl_close(&nl);
	return err;
}

struct our_filter {
	bool found;
	__u32 prog_id;
};

static int bpf_opt_cb(const struct nlattr *attr, void *data)
{
	struct our_filter *f = data;

	if (mnl_attr_get_type(attr) == TCA_BPF_ID &&
	    mnl_attr_validate(attr, MNL_TYPE_U32) == 0)
		f->prog_id = mnl_attr_get_u32(attr);
	return MNL_CB_OK;
}

static bool is_our_filter(const struct tcmsg *tcm, const struct nlattr **tb)
{
	if (tcm->tcm_handle != CLS_TC_HANDLE ||
	    TC_H_MAJ(tcm->tcm_info) != TC_H_MAJ(OUR_FILTER_INFO) ||
	    TC_H_MIN(tcm->tcm_info) != TC_H_MIN(OUR_FILTER_INFO))
		return false;
	/* Our filter lives in chain 0; the same prio/handle elsewhere is
	 * someone else's.
	 */
	if (tb[TCA_CHAIN] && (mnl_attr_validate(tb[TCA_CHAIN], MNL_TYPE_U32) ||
			      mnl_attr_get_u32(tb[TCA_CHAIN]) != 0))
		return false;
	return tc_kind_is(tb[TCA_KIND], "bpf");
}

static int our_filter_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[TCA_MAX + 1];
	struct our_filter *f = data;
	const struct tcmsg *tcm;

	if (nlh->nlmsg_type != RTM_NEWTFILTER)
		return MNL_CB_OK;
	tcm = tc_parse(nlh, tb);
	if (!tcm || !is_our_filter(tcm, tb))
		return MNL_CB_OK;
	f->found = true;
	if (tb[TCA_OPTIONS])
		mnl_attr_parse_nested(tb[TCA_OPTIONS], bpf_opt_cb, f);
	return MNL_CB_OK;
}

static int find_our_filter(struct tc_nl *nl, int ifindex, struct our_filter *f)
{
	struct nlmsghdr *nlh;

	memset(f, 0, sizeof(*f));
	/* The kernel skips other preferences and protocols for us. */
	nlh = tc_msg(nl, RTM_GETTFILTER, NLM_F_DUMP, ifindex, EGRESS_PARENT, 0,
		     OUR_FILTER_INFO);
	return tc_nl_talk(nl, nlh, our_filter_cb, f);
}

int tc_filter_detach(int ifindex)
{
	struct our_filter f;
	struct nlmsghdr *nlh;
	struct tc_nl nl;
	int err;

	err = tc_nl_open(&nl, ifindex);
	if (err)
		return err;

	/* The kind makes the kernel refuse to delete a foreign filter that
	 * took our prio and handle.
	 */
	nlh = tc_msg(&nl, RTM_DELTFILTER, NLM_F_ACK, ifindex, EGRESS_PARENT,
		     CLS_TC_HANDLE, OUR_FILTER_INFO);
	mnl_attr_put_strz(nlh, TCA_KIND, "bpf");
	err = tc_nl_talk(&nl, nlh, NULL, NULL);
	if (!err || err == -ENOENT)
		goto out;
	/* No clsact at all gives -EINVAL; for the caller that is "absent". */
	if (find_our_filter(&nl, ifindex, &f) == 0 && !f.found)
		err = -ENOENT;
out:
	tc_nl_close(&nl);
	return err;
}

int tc_filter_query(int ifindex, __u32 *prog_id)
{
	struct our_filter f;
	struct tc_nl nl;
	int err;

	err = tc_nl_open(&nl, ifindex);
	if (err)
		return err;
	err = find_our_filter(&nl, ifindex, &f);
	if (err)
		goto out;
	if (f.found && prog_id)
		*prog_id = f.prog_id;
	err = f.found;
out:
	tc_nl_close(&nl);
	return err;
}

static int count_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct tcmsg *tcm;
	int *count = data;

	if (nlh->nlmsg_type != RTM_NEWTFILTER ||
	    mnl_nlmsg_get_payload_len(nlh) < sizeof(*tcm))
		return MNL_CB_OK;
	tcm = mnl_nlmsg_get_payload(nlh);
	/* Handle 0 is the per-preference header, not a filter. */
	if (tcm->tcm_handle)
		(*count)++;
	return MNL_CB_OK;
}

int tc_clsact_count_filters(int ifindex)
{
	static const __u32 parents[] = {INGRESS_PARENT, EGRESS_PARENT};
	struct nlmsghdr *nlh;
	struct tc_nl nl;
	int count = 0;
	size_t i;
	int err;

	err = tc_nl_open(&nl, ifindex);
	if (err)
		return err;
	for (i = 0; i < sizeof(parents) / sizeof(parents[0]); i++) {
		nlh = tc_msg(&nl, RTM_GETTFILTER, NLM_F_DUMP, ifindex,
			     parents[i], 0, 0);
		err = tc_nl_talk(&nl, nlh, count_cb, &count);
		if (err)
			goto out;
	}
	err = count;
out:
	tc_nl_close(&nl);
	return err;
}

/* Attributes into tb[0..max] (libmnl's callbacks take one pointer). */
struct attr_table {
	const struct nlattr **tb;
	int max;
};

static int table_attr_cb(const struct nlattr *attr, void *data)
{
	const struct attr_table *t = data;

	if (mnl_attr_type_valid(attr, t->max) > 0)
		t->tb[mnl_attr_get_type(attr)] = attr;
	return MNL_CB_OK;
}

/* The GRE remote and metadata mode, for the link kinds that have them. */
static void parse_gre(const struct nlattr *data, struct tc_link *l)
{
	const struct nlattr *tb[IFLA_GRE_MAX + 1] = {};
	struct attr_table t = {tb, IFLA_GRE_MAX};
	size_t len;

	if (mnl_attr_parse_nested(data, table_attr_cb, &t) < 0)
		return;
	l->collect_md = tb[IFLA_GRE_COLLECT_METADATA] != NULL;
	if (!tb[IFLA_GRE_REMOTE])
		return;
	len = mnl_attr_get_payload_len(tb[IFLA_GRE_REMOTE]);
	if (len == 4 || len == 16)
		memcpy(l->remote, mnl_attr_get_payload(tb[IFLA_GRE_REMOTE]),
		       len);
}

static int link_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[IFLA_MAX + 1] = {};
	const struct nlattr *info[IFLA_INFO_MAX + 1] = {};
	struct attr_table t = {tb, IFLA_MAX}, ti = {info, IFLA_INFO_MAX};
	const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);
	struct tc_link *l = data;

	if (nlh->nlmsg_type != RTM_NEWLINK ||
	    mnl_nlmsg_get_payload_len(nlh) < sizeof(*ifi) ||
	    ifi->ifi_index != l->ifindex)
		return MNL_CB_OK;
	l->type = ifi->ifi_type;
	l->found = true;
	if (mnl_attr_parse(nlh, sizeof(*ifi), table_attr_cb, &t) < 0 ||
	    !tb[IFLA_LINKINFO] ||
	    mnl_attr_parse_nested(tb[IFLA_LINKINFO], table_attr_cb, &ti) < 0)
		return MNL_CB_OK;
	if (info[IFLA_INFO_KIND] &&
	    !mnl_attr_validate(info[IFLA_INFO_KIND], MNL_TYPE_NUL_STRING))
		snprintf(l->kind, sizeof(l->kind), "%s",
			 mnl_attr_get_str(info[IFLA_INFO_KIND]));
	if (info[IFLA_INFO_DATA] &&
	    (!strcmp(l->kind, "gre") || !strcmp(l->kind, "ip6gre")))
		parse_gre(info[IFLA_INFO_DATA], l);
	return MNL_CB_OK;
}

int tc_link_query(int ifindex, struct tc_link *out)
{
	struct nlmsghdr *nlh;
	struct ifinfomsg *ifi;
	struct tc_nl nl;
	int err;

	memset(out, 0, sizeof(*out));
	out->ifindex = ifindex;
	err = tc_nl_open(&nl, ifindex);
	if (err)
		return err;
	nlh = mnl_nlmsg_put_header(nl.buf);
	nlh->nlmsg_type = RTM_GETLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = ++nl.seq;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = ifindex;
	err = tc_nl_talk(&nl, nlh, link_cb, out);
	if (!err && !out->found)
		err = -ENODEV;
	tc_nl_close(&nl);
	return err;
}
