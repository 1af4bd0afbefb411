// SPDX-License-Identifier: GPL-2.0-only
/*
 * The shaping tree's tc objects over rtnetlink.  Every request is one the
 * kernel takes whether its object exists or not (NLM_F_CREATE without
 * NLM_F_EXCL: created, or changed in place), so making a tree, a class
 * or a leaf again is how a half-made one is finished.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/gen_stats.h>
#include <linux/pkt_sched.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include "lib/tctree.h"

/* HTB's own divisor of rate for quantum; its bounds without a warning. */
#define HTB_R2Q	    10
#define QUANTUM_MIN 1600
#define QUANTUM_MAX 200000
#define BURST_MIN   1600
/* The kernel's PSCHED ticks (tc_htb_opt.buffer) are 64 ns. */
#define PSCHED_SHIFT 6
#define NSEC_PER_SEC 1000000000ULL

static const char *const leaf_names[TCT_NR_LEAVES] = {
	[TCT_LEAF_PFIFO] = "pfifo",	  [TCT_LEAF_BFIFO] = "bfifo",
	[TCT_LEAF_FQ_CODEL] = "fq_codel", [TCT_LEAF_CAKE] = "cake",
	[TCT_LEAF_SFQ] = "sfq",		  [TCT_LEAF_CODEL] = "codel",
	[TCT_LEAF_FQ_PIE] = "fq_pie",
};

const char *tct_leaf_name(enum tct_leaf leaf)
{
	return leaf < TCT_NR_LEAVES ? leaf_names[leaf] : NULL;
}

int tct_leaf_parse(const char *name, enum tct_leaf *leaf)
{
	unsigned int i;

	for (i = 1; i < TCT_NR_LEAVES; i++)
		if (!strcmp(name, leaf_names[i])) {
			*leaf = i;
			return 0;
		}
	return -EINVAL;
}

const char *tct_leaf_names(void)
{
	return "pfifo|bfifo|fq_codel|cake|sfq|codel|fq_pie";
}

/*
 * Ask the kernel itself: a child in a network namespace of its own puts
 * a qdisc of that kind on its loopback (the kernel loads the module if
 * it can), which goes with the namespace.  Nothing of the caller's is
 * touched.
 */
static bool probe_in_netns(const char *kind)
{
	struct nlmsghdr *nlh;
	struct nl nl;
	int status, ok;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return false;
	if (!pid) {
		if (unshare(CLONE_NEWNET) || nl_open(&nl))
			_exit(2);
		nlh = nl_req(&nl, RTM_NEWQDISC, NLM_F_CREATE | NLM_F_EXCL, 0);
		nl_put_tcmsg(nlh, 1 /* lo */, TC_H_ROOT, 0, 0);
		mnl_attr_put_strz(nlh, TCA_KIND, kind);
		/*
		 * A kind the kernel lacks is -ENOENT; one that wants
		 * options (tbf) refuses none otherwise, and exists.
		 */
		ok = nl_talk(&nl, NULL, NULL) != -ENOENT;
		nl_close(&nl);
		_exit(ok ? 0 : 1);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return false;
	return WIFEXITED(status) && !WEXITSTATUS(status);
}

bool tct_kernel_has(const char *kind)
{
	/* net/sched/Makefile: sch_fifo.o and sch_mq.o are never modules. */
	static const char *const always[] = {"pfifo", "bfifo",
					     "pfifo_head_drop", "mq"};
	char path[96];
	size_t i;

	for (i = 0; i < sizeof(always) / sizeof(always[0]); i++)
		if (!strcmp(kind, always[i]))
			return true;
	snprintf(path, sizeof(path), "/sys/module/sch_%s", kind);
	return !access(path, F_OK) || probe_in_netns(kind);
}

__u32 tct_default_burst(__u64 rate)
{
	__u64 b = rate / 1000;

	return b < BURST_MIN ? BURST_MIN : b > 0xffffffffU ? 0xffffffffU : b;
}

/*
 * The tree's qdiscs have no change operation (mq, HTB): made where the
 * kernel's default stands (handle 0, which the kernel lets a new qdisc
 * take over), and "exists" is no failure.  A qdisc of someone else's in
 * that place is not replaced: the classes under ours then fail.
 */
static struct nlmsghdr *tree_qdisc_req(struct nl *nl, int ifindex, __u32 parent,
				       __u32 handle, const char *kind,
				       unsigned long tag)
{
	struct nlmsghdr *nlh;

	nlh = nl_req(nl, RTM_NEWQDISC, NLM_F_CREATE | NLM_F_EXCL, tag);
	nl_allow(nl, -EEXIST);
	nl_put_tcmsg(nlh, ifindex, parent, handle, 0);
	mnl_attr_put_strz(nlh, TCA_KIND, kind);
	return nlh;
}

/* A leaf: a new one, or the one of that kind there changed in place. */
static void leaf_req(struct nl *nl, int ifindex, __u32 parent, const char *kind,
		     unsigned long tag)
{
	struct nlmsghdr *nlh;

	nlh = nl_req(nl, RTM_NEWQDISC, NLM_F_CREATE | NLM_F_REPLACE, tag);
	/* Handle 0: the kernel names it, and changes one of that kind. */
	nl_put_tcmsg(nlh, ifindex, parent, 0, 0);
	mnl_attr_put_strz(nlh, TCA_KIND, kind);
}

static void htb_qdisc(struct nl *nl, int ifindex, __u32 parent,
		      unsigned int queue, unsigned long tag)
{
	struct tc_htb_glob g = {
		.version = TC_HTB_PROTOVER,
		.rate2quantum = HTB_R2Q,
		.defcls = TCT_DEFAULT_MINOR,
	};
	struct nlmsghdr *nlh;
	struct nlattr *opts;

	nlh = tree_qdisc_req(nl, ifindex, parent, tct_handle(queue, 0), "htb",
			     tag);
	opts = mnl_attr_nest_start(nlh, TCA_OPTIONS);
	mnl_attr_put(nlh, TCA_HTB_INIT, sizeof(g), &g);
	mnl_attr_nest_end(nlh, opts);
}

/* burst bytes at rate, in PSCHED ticks, rounded up */
static __u32 ticks(__u32 burst, __u64 rate)
{
	__u64 ns = ((__u64)burst * NSEC_PER_SEC + rate - 1) / rate;
	__u64 t = (ns + (1U << PSCHED_SHIFT) - 1) >> PSCHED_SHIFT;

	return t > 0xffffffffU ? 0xffffffffU : t;
}

static void ratespec(struct tc_ratespec *r, __u64 rate)
{
	/* Linklayer set: the kernel computes rates itself, no rate table. */
	r->linklayer = TC_LINKLAYER_ETHERNET;
	r->rate = rate >= 0xffffffffULL ? 0xffffffffU : rate;
}

static void htb_class(struct nl *nl, int ifindex, const struct tct_class *c,
		      unsigned long tag)
{
	__u32 parent =
		c->parent ? c->parent
			  : tct_handle(tct_queue_of(c->handle), TCT_ROOT_MINOR);
	__u32 burst = c->burst ? c->burst : tct_default_burst(c->rate);
	__u32 cburst = c->cburst ? c->cburst : tct_default_burst(c->ceil);
	__u64 quantum = c->rate / HTB_R2Q;
	struct tc_htb_opt o = {};
	struct nlmsghdr *nlh;
	struct nlattr *opts;

	ratespec(&o.rate, c->rate);
	ratespec(&o.ceil, c->ceil);
	o.buffer = ticks(burst, c->rate);
	o.cbuffer = ticks(cburst, c->ceil);
	/* Given, so HTB neither warns nor clamps it itself. */
	o.quantum = quantum < QUANTUM_MIN   ? QUANTUM_MIN
		    : quantum > QUANTUM_MAX ? QUANTUM_MAX
					    : quantum;
	o.prio = c->prio;
	nlh = nl_req(nl, RTM_NEWTCLASS, NLM_F_CREATE, tag);
	nl_put_tcmsg(nlh, ifindex, parent, c->handle, 0);
	mnl_attr_put_strz(nlh, TCA_KIND, "htb");
	opts = mnl_attr_nest_start(nlh, TCA_OPTIONS);
	mnl_attr_put(nlh, TCA_HTB_PARMS, sizeof(o), &o);
	if (c->rate >= 0xffffffffULL)
		mnl_attr_put_u64(nlh, TCA_HTB_RATE64, c->rate);
	if (c->ceil >= 0xffffffffULL)
		mnl_attr_put_u64(nlh, TCA_HTB_CEIL64, c->ceil);
	mnl_attr_nest_end(nlh, opts);
}

/*
 * fq, which has a change operation: made in place of the default, or
 * the one of ours changed (its horizon follows the classes').  Its
 * horizon is in us, rounded up, so that fq never drops what the class's
 * own horizon let through; past it fq drops (not caps) the departure.
 */
static void fq_qdisc(struct nl *nl, int ifindex, __u32 parent,
		     unsigned int queue, __u64 horizon_ns, unsigned long tag)
{
	__u64 us = (horizon_ns + 999) / 1000;
	struct nlmsghdr *nlh;
	struct nlattr *opts;

	nlh = nl_req(nl, RTM_NEWQDISC, NLM_F_CREATE | NLM_F_REPLACE, tag);
	nl_put_tcmsg(nlh, ifindex, parent, tct_handle(queue, 0), 0);
	mnl_attr_put_strz(nlh, TCA_KIND, "fq");
	opts = mnl_attr_nest_start(nlh, TCA_OPTIONS);
	mnl_attr_put_u32(nlh, TCA_FQ_HORIZON,
			 !us ? 1 : us > 0xffffffffU ? 0xffffffffU : us);
	mnl_attr_put_u8(nlh, TCA_FQ_HORIZON_DROP, 1);
	mnl_attr_nest_end(nlh, opts);
}

static void fq_tree_put(struct nl *nl, const struct tct_tree *t,
			unsigned long tag)
{
	unsigned int q;

	if (t->queues > 1)
		tree_qdisc_req(nl, t->ifindex, TC_H_ROOT, TCT_MQ_MAJOR << 16,
			       "mq", tag);
	for (q = 0; q < t->queues; q++)
		fq_qdisc(nl, t->ifindex,
			 t->queues > 1 ? TCT_MQ_MAJOR << 16 | (q + 1)
				       : TC_H_ROOT,
			 q, t->horizon_ns, tag);
}

void tct_tree_put(struct nl *nl, const struct tct_tree *t, unsigned long tag)
{
	struct tct_class root = {.rate = t->rate, .ceil = t->rate};
	struct tct_class dflt = {
		.rate = t->default_rate,
		.ceil = t->rate,
		.prio = TCT_MAX_PRIO,
	};
	unsigned int q;

	if (t->kind == TCT_FQ) {
		fq_tree_put(nl, t, tag);
		return;
	}
	if (t->queues > 1)
		tree_qdisc_req(nl, t->ifindex, TC_H_ROOT, TCT_MQ_MAJOR << 16,
			       "mq", tag);
	for (q = 0; q < t->queues; q++) {
		htb_qdisc(nl, t->ifindex,
			  t->queues > 1 ? TCT_MQ_MAJOR << 16 | (q + 1)
					: TC_H_ROOT,
			  q, tag);
		root.handle = tct_handle(q, TCT_ROOT_MINOR);
		root.parent = tct_handle(q, 0);
		htb_class(nl, t->ifindex, &root, tag);
		dflt.handle = tct_handle(q, TCT_DEFAULT_MINOR);
		dflt.parent = root.handle;
		htb_class(nl, t->ifindex, &dflt, tag);
	}
}

static const char *kind_name(enum tct_kind kind)
{
	return kind == TCT_FQ ? "fq" : "htb";
}

void tct_tree_del_kind(struct nl *nl, int ifindex, unsigned int queues,
		       enum tct_kind kind, unsigned long tag)
{
	struct nlmsghdr *nlh = nl_req(nl, RTM_DELQDISC, 0, tag);

	nl_put_tcmsg(nlh, ifindex, TC_H_ROOT,
		     queues > 1 ? TCT_MQ_MAJOR << 16 : tct_handle(0, 0), 0);
	/* The kind makes the kernel refuse a root someone else put there. */
	mnl_attr_put_strz(nlh, TCA_KIND, queues > 1 ? "mq" : kind_name(kind));
}

void tct_tree_del(struct nl *nl, int ifindex, unsigned int queues,
		  unsigned long tag)
{
	tct_tree_del_kind(nl, ifindex, queues, TCT_HTB, tag);
}

void tct_class_put(struct nl *nl, int ifindex, const struct tct_class *c,
		   unsigned long tag)
{
	htb_class(nl, ifindex, c, tag);
	if (c->leaf != TCT_LEAF_DEFAULT && tct_leaf_name(c->leaf))
		leaf_req(nl, ifindex, c->handle, tct_leaf_name(c->leaf), tag);
}

void tct_class_del(struct nl *nl, int ifindex, __u32 handle, unsigned long tag)
{
	struct nlmsghdr *nlh = nl_req(nl, RTM_DELTCLASS, 0, tag);

	nl_put_tcmsg(nlh, ifindex, 0, handle, 0);
	mnl_attr_put_strz(nlh, TCA_KIND, "htb");
}

static int txq_attr(const struct nlattr *attr, void *data)
{
	if (mnl_attr_get_type(attr) == IFLA_NUM_TX_QUEUES &&
	    !mnl_attr_validate(attr, MNL_TYPE_U32))
		*(int *)data = mnl_attr_get_u32(attr);
	return MNL_CB_OK;
}

static int txq_cb(const struct nlmsghdr *nlh, void *data)
{
	if (nlh->nlmsg_type == RTM_NEWLINK)
		mnl_attr_parse(nlh, sizeof(struct ifinfomsg), txq_attr, data);
	return MNL_CB_OK;
}

int tct_tx_queues(int ifindex)
{
	struct nl nl;
	int n = -ENODATA, err = nl_open(&nl);

	if (err)
		return err;
	nl_put_ifinfomsg(nl_req(&nl, RTM_GETLINK, 0, 0), ifindex);
	err = nl_talk(&nl, txq_cb, &n);
	nl_close(&nl);
	return err ? err : n;
}

struct root_query {
	int ifindex;
	struct tct_root *r;
};

static int root_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[TCA_MAX + 1];
	struct root_query *q = data;
	const struct tcmsg *tcm;

	if (nlh->nlmsg_type != RTM_NEWQDISC)
		return MNL_CB_OK;
	tcm = nl_parse_tcmsg(nlh, tb);
	if (!tcm || tcm->tcm_ifindex != q->ifindex ||
	    tcm->tcm_parent != TC_H_ROOT)
		return MNL_CB_OK;
	nl_tc_kind(tb[TCA_KIND], q->r->kind, sizeof(q->r->kind));
	q->r->handle = tcm->tcm_handle;
	return MNL_CB_OK;
}

int tct_root_get(struct nl *nl, int ifindex, struct tct_root *r)
{
	struct root_query q = {.ifindex = ifindex, .r = r};
	struct nlmsghdr *nlh;

	memset(r, 0, sizeof(*r));
	/*
	 * A get, not a dump: a tree of 10 000 leaves is not read whole.
	 * 6.18 answers a get only with NLM_F_ECHO (6.1 either way).
	 */
	nlh = nl_req(nl, RTM_GETQDISC, NLM_F_ECHO, 0);
	nl_put_tcmsg(nlh, ifindex, TC_H_ROOT, 0, 0);
	return nl_talk(nl, root_cb, &q);
}

bool tct_root_is_kind(const struct tct_root *r, unsigned int queues,
		      enum tct_kind kind)
{
	if (queues > 1)
		return !strcmp(r->kind, "mq") && r->handle == TCT_MQ_MAJOR
								      << 16;
	return !strcmp(r->kind, kind_name(kind)) &&
	       r->handle == tct_handle(0, 0);
}

bool tct_root_is_tree(const struct tct_root *r, unsigned int queues)
{
	return tct_root_is_kind(r, queues, TCT_HTB);
}

struct class_query {
	int ifindex;
	int (*cb)(const struct tct_class_info *c, void *arg);
	void *arg;
	int stop;
};

static int htb_opt_cb(const struct nlattr *attr, void *data)
{
	struct tct_class_info *c = data;
	const struct tc_htb_opt *o;

	switch (mnl_attr_get_type(attr)) {
	case TCA_HTB_PARMS:
		if (mnl_attr_get_payload_len(attr) < sizeof(*o))
			break;
		o = mnl_attr_get_payload(attr);
		if (!c->rate)
			c->rate = o->rate.rate;
		if (!c->ceil)
			c->ceil = o->ceil.rate;
		c->prio = o->prio;
		break;
	case TCA_HTB_RATE64:
		if (!mnl_attr_validate(attr, MNL_TYPE_U64))
			c->rate = mnl_attr_get_u64(attr);
		break;
	case TCA_HTB_CEIL64:
		if (!mnl_attr_validate(attr, MNL_TYPE_U64))
			c->ceil = mnl_attr_get_u64(attr);
		break;
	}
	return MNL_CB_OK;
}

static int stats_cb(const struct nlattr *attr, void *data)
{
	struct tct_class_info *c = data;
	struct gnet_stats_basic b;

	if (mnl_attr_get_type(attr) == TCA_STATS_BASIC &&
	    mnl_attr_get_payload_len(attr) >= sizeof(b)) {
		memcpy(&b, mnl_attr_get_payload(attr), sizeof(b));
		c->bytes = b.bytes;
		c->packets = b.packets;
	}
	return MNL_CB_OK;
}

static int class_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[TCA_MAX + 1];
	struct class_query *q = data;
	struct tct_class_info c = {};
	const struct tcmsg *tcm;

	if (nlh->nlmsg_type != RTM_NEWTCLASS || q->stop)
		return MNL_CB_OK;
	tcm = nl_parse_tcmsg(nlh, tb);
	if (!tcm || tcm->tcm_ifindex != q->ifindex)
		return MNL_CB_OK;
	c.handle = tcm->tcm_handle;
	c.parent = tcm->tcm_parent;
	c.leaf = tcm->tcm_info;
	nl_tc_kind(tb[TCA_KIND], c.kind, sizeof(c.kind));
	/* HTB's rates only: the leaf of another kind has no classes here. */
	if (tb[TCA_OPTIONS] && !strcmp(c.kind, "htb"))
		mnl_attr_parse_nested(tb[TCA_OPTIONS], htb_opt_cb, &c);
	if (tb[TCA_STATS2])
		mnl_attr_parse_nested(tb[TCA_STATS2], stats_cb, &c);
	q->stop = q->cb(&c, q->arg);
	return MNL_CB_OK;
}

int tct_class_dump(struct nl *nl, int ifindex,
		   int (*cb)(const struct tct_class_info *c, void *arg),
		   void *arg)
{
	struct class_query q = {.ifindex = ifindex, .cb = cb, .arg = arg};
	struct nlmsghdr *nlh;

	nlh = nl_req(nl, RTM_GETTCLASS, NLM_F_DUMP, 0);
	nl_put_tcmsg(nlh, ifindex, 0, 0, 0);
	return nl_talk(nl, class_cb, &q);
}
