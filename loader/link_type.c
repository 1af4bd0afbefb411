// SPDX-License-Identifier: GPL-2.0-only
/*
 * Which of the programs a device needs: what its packets start with at tc
 * egress and at XDP ingress, an Ethernet header or the IP header, told by
 * the device's type (ARPHRD).  Asked over rtnetlink, so the answer is the
 * caller's network namespace's (sysfs may show another one's, under
 * nsenter).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/if_arp.h>

#include "classifier.skel.h"
#include "loader/loader.h"
#include "loader/loader_internal.h"
#include "loader/tc_netlink.h"

static bool all_zero(const __u8 *b, size_t n)
{
	while (n--)
		if (*b++)
			return false;
	return true;
}

/*
 * A GRE device without a fixed remote (NBMA, or a multicast one) builds
 * the outer IP and GRE headers as its link header, in front of the packet
 * at tc egress (and for IPv4, at XDP ingress too).
 */
static bool gre_has_link_header(const struct tc_link *l)
{
	if (l->collect_md ||
	    (strcmp(l->kind, "gre") && strcmp(l->kind, "ip6gre")))
		return false;
	if (l->type == ARPHRD_IPGRE)
		return all_zero(l->remote, 4) || (l->remote[0] & 0xf0) == 0xe0;
	return all_zero(l->remote, 16);
}

static const char *type_name(__u16 type)
{
	switch (type) {
	case ARPHRD_INFINIBAND:
		return "InfiniBand";
	case ARPHRD_CAN:
		return "CAN";
	case ARPHRD_IEEE802154:
		return "IEEE 802.15.4";
	case ARPHRD_6LOWPAN:
		return "6LoWPAN";
	case ARPHRD_IEEE80211:
	case ARPHRD_IEEE80211_PRISM:
	case ARPHRD_IEEE80211_RADIOTAP:
		return "802.11 monitor";
	case ARPHRD_NETLINK:
		return "netlink monitor";
	}
	return NULL;
}

int cls_link_of(int ifindex, enum cls_link *link, char *why, size_t n)
{
	struct tc_link l;
	const char *name;
	int err;

	err = tc_link_query(ifindex, &l);
	if (err)
		return err;
	switch (l.type) {
	case ARPHRD_ETHER:
	case ARPHRD_LOOPBACK:
		*link = CLS_LINK_ETHERNET;
		return 0;
	case ARPHRD_IPGRE:
	case ARPHRD_IP6GRE:
		if (gre_has_link_header(&l)) {
			if (why)
				snprintf(why, n,
					 "a GRE device without a fixed remote "
					 "(its packets start with the outer IP "
					 "and GRE headers)");
			return -EPFNOSUPPORT;
		}
		/* fall through */
	case ARPHRD_NONE:    /* tun, WireGuard, GRE in external mode */
	case ARPHRD_TUNNEL:  /* ipip, vti */
	case ARPHRD_TUNNEL6: /* ip6tnl, ip6 vti */
	case ARPHRD_SIT:
	case ARPHRD_PPP:
	case ARPHRD_RAWIP: /* raw-IP modems (qmi_wwan, rmnet, mhi) */
		*link = CLS_LINK_L3;
		return 0;
	}
	name = type_name(l.type);
	if (why)
		snprintf(why, n, "link type %u%s%s%s", l.type, name ? " (" : "",
			 name ? name : "", name ? ")" : "");
	return -EPFNOSUPPORT;
}

struct bpf_program *cls_prog_for(struct classifier_bpf *skel,
				 enum cls_hook hook, enum cls_link link)
{
	if (hook == CLS_HOOK_STEER)
		return skel->progs.cls_steer;
	if (hook == CLS_HOOK_XDP)
		return link == CLS_LINK_L3 ? skel->progs.cls_ingress_l3
					   : skel->progs.cls_ingress;
	return link == CLS_LINK_L3 ? skel->progs.cls_egress_l3
				   : skel->progs.cls_egress;
}

bool cls_prog_is_l3(const char *prog_name)
{
	return !strcmp(prog_name, "cls_egress_l3") ||
	       !strcmp(prog_name, "cls_ingress_l3");
}
