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
#include "lib/nl.h"
#include "loader/tc_netlink.h"

#define CLSACT_HANDLE  TC_H_MAKE(TC_H_CLSACT, 0)
#define EGRESS_PARENT  TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_EGRESS)
#define INGRESS_PARENT TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_INGRESS)
/* tcm_info of a filter: preference in the high half, protocol (network
 * byte order) in the low half.
 */
#define OUR_FILTER_INFO TC_H_MAKE((__u32)CLS_TC_PRIO << 16, htons(ETH_P_ALL))
/* TCA_KIND strings are at most IFNAMSIZ bytes in the kernel. */
#define TC_KIND_LEN IFNAMSIZ

static __thread char last_error[256];

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

/*
 * Checking the device up front gives -ENODEV for a bad ifindex on every
 * call: the kernel answers a dump on a missing device with an empty dump,
 * which would read as "no filter".
 */
static int tc_nl_open(struct nl *nl, int ifindex)
{
	char name[IF_NAMESIZE];

	memset(nl, 0, sizeof(*nl));
	clear_error();
	if (ifindex <= 0)
		return -EINVAL;
	if (!if_indextoname(ifindex, name))
		return errno == ENXIO ? -ENODEV : -errno;
	return nl_open(nl);
}

static struct nlmsghdr *tc_msg(struct nl *nl, __u16 type, __u16 flags,
			       int ifindex, __u32 parent, __u32 handle,
			       __u32 info)
{
	struct nlmsghdr *nlh = nl_req(nl, type, flags, 0);

	nl_put_tcmsg(nlh, ifindex, parent, handle, info);
	return nlh;
}

/* Send what is queued, consume the replies; the kernel's text on failure. */
static int tc_nl_talk(struct nl *nl, mnl_cb_t cb, void *data)
{
	int err = nl_talk(nl, cb, data);

	if (err && nl->msg[0])
		set_error("%s", nl->msg);
	nl_clear(nl);
	return err;
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
	tcm = nl_parse_tcmsg(nlh, tb);
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
static int ingress_qdisc_kind(struct nl *nl, int ifindex, char *kind,
			      size_t len)
{
	struct ingress_qdisc q = {.ifindex = ifindex};
	int err;

	tc_msg(nl, RTM_GETQDISC, NLM_F_DUMP, ifindex, 0, 0, 0);
	err = tc_nl_talk(nl, ingress_qdisc_cb, &q);
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
	struct nl nl;
	int err;

	*created = false;
	err = tc_nl_open(&nl, ifindex);
	if (err)
		return err;

	nlh = tc_msg(&nl, RTM_NEWQDISC, NLM_F_CREATE | NLM_F_EXCL, ifindex,
		     TC_H_CLSACT, CLSACT_HANDLE, 0);
	mnl_attr_put_strz(nlh, TCA_KIND, "clsact");
	err = tc_nl_talk(&nl, NULL, NULL);
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
	nl_close(&nl);
	return err;
}

int tc_clsact_delete(int ifindex)
{
	char kind[TC_KIND_LEN];
	struct nlmsghdr *nlh;
	struct nl nl;
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
	nlh = tc_msg(&nl, RTM_DELQDISC, 0, ifindex, TC_H_CLSACT, CLSACT_HANDLE,
		     0);
	/* The kind makes the kernel refuse if ffff: changed to non-clsact. */
	mnl_attr_put_strz(nlh, TCA_KIND, "clsact");
	err = tc_nl_talk(&nl, NULL, NULL);
out:
	nl_close(&nl);
	return err;
}

int tc_filter_attach(int ifindex, int prog_fd, const char *name)
{
	struct nlmsghdr *nlh;
	struct nlattr *opts;
	struct nl nl;
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
	nlh = tc_msg(&nl, RTM_NEWTFILTER, NLM_F_CREATE, ifindex, EGRESS_PARENT,
		     CLS_TC_HANDLE, OUR_FILTER_INFO);
	mnl_attr_put_strz(nlh, TCA_KIND, "bpf");
	opts = mnl_attr_nest_start(nlh, TCA_OPTIONS);
	mnl_attr_put_u32(nlh, TCA_BPF_FD, prog_fd);
	if (!mnl_attr_put_strz_check(nlh, NL_REQ_MAX, TCA_BPF_NAME, name)) {
		err = -ENAMETOOLONG;
		goto out;
	}
	mnl_attr_put_u32(nlh, TCA_BPF_FLAGS, TCA_BPF_FLAG_ACT_DIRECT);
	mnl_attr_nest_end(nlh, opts);
	err = tc_nl_talk(&nl, NULL, NULL);
	if (!err)
		pr_debug("tc: ifindex %d: cls_bpf %s on egress\n", ifindex,
			 name);
out:
	nl_close(&nl);
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
	tcm = nl_parse_tcmsg(nlh, tb);
	if (!tcm || !is_our_filter(tcm, tb))
		return MNL_CB_OK;
	f->found = true;
	if (tb[TCA_OPTIONS])
		mnl_attr_parse_nested(tb[TCA_OPTIONS], bpf_opt_cb, f);
	return MNL_CB_OK;
}

static int find_our_filter(struct nl *nl, int ifindex, struct our_filter *f)
{

	memset(f, 0, sizeof(*f));
	/* The kernel skips other preferences and protocols for us. */
	tc_msg(nl, RTM_GETTFILTER, NLM_F_DUMP, ifindex, EGRESS_PARENT, 0,
	       OUR_FILTER_INFO);
	return tc_nl_talk(nl, our_filter_cb, f);
}

int tc_filter_detach(int ifindex)
{
	struct our_filter f;
	struct nlmsghdr *nlh;
	struct nl nl;
	int err;

	err = tc_nl_open(&nl, ifindex);
	if (err)
		return err;

	/* The kind makes the kernel refuse to delete a foreign filter that
	 * took our prio and handle.
	 */
	nlh = tc_msg(&nl, RTM_DELTFILTER, 0, ifindex, EGRESS_PARENT,
		     CLS_TC_HANDLE, OUR_FILTER_INFO);
	mnl_attr_put_strz(nlh, TCA_KIND, "bpf");
	err = tc_nl_talk(&nl, NULL, NULL);
	if (!err || err == -ENOENT)
		goto out;
	/* No clsact at all gives -EINVAL; for the caller that is "absent". */
	if (find_our_filter(&nl, ifindex, &f) == 0 && !f.found)
		err = -ENOENT;
out:
	nl_close(&nl);
	return err;
}

int tc_filter_query(int ifindex, __u32 *prog_id)
{
	struct our_filter f;
	struct nl nl;
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
	nl_close(&nl);
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
	struct nl nl;
	int count = 0;
	size_t i;
	int err;

	err = tc_nl_open(&nl, ifindex);
	if (err)
		return err;
	for (i = 0; i < sizeof(parents) / sizeof(parents[0]); i++) {
		tc_msg(&nl, RTM_GETTFILTER, NLM_F_DUMP, ifindex, parents[i], 0,
		       0);
		err = tc_nl_talk(&nl, count_cb, &count);
		if (err)
			goto out;
	}
	err = count;
out:
	nl_close(&nl);
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
	struct nl nl;
	int err;

	memset(out, 0, sizeof(*out));
	out->ifindex = ifindex;
	err = tc_nl_open(&nl, ifindex);
	if (err)
		return err;
	nl_put_ifinfomsg(nl_req(&nl, RTM_GETLINK, 0, 0), ifindex);
	err = tc_nl_talk(&nl, link_cb, out);
	if (!err && !out->found)
		err = -ENODEV;
	nl_close(&nl);
	return err;
}
