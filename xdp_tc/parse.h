/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Header parsing shared by the tc and XDP programs.  A packet's class is
 * decided by one address of its fixed IP header, so parsing reads up to
 * that header and no further: the link header (Ethernet with up to
 * CLS_MAX_VLAN_TAGS VLAN tags, or none on an L3 device), then the fixed
 * IPv4 or IPv6 header.  IPv4 options, IPv6 extension headers and what
 * follows them are never read, so no shape of theirs keeps a packet from
 * its class's verdict.  Every read is direct packet access.
 */
#ifndef CLS_PARSE_H
#define CLS_PARSE_H

#define CLS_ETH_HLEN  14
#define CLS_VLAN_HLEN 4

/* vmlinux.h carries no #defines: the values we need, in network order. */
#define CLS_ETH_P_IP	 bpf_htons(0x0800)
#define CLS_ETH_P_IPV6	 bpf_htons(0x86dd)
#define CLS_ETH_P_8021Q	 bpf_htons(0x8100)
#define CLS_ETH_P_8021AD bpf_htons(0x88a8)

enum cls_family {
	CLS_FAMILY_V4 = 4,
	CLS_FAMILY_V6 = 6,
};

struct cls_pkt {
	__u32 family;
	__u32 l3_off;
	__u32 reason;  /* enum cls_reason, valid when parsing failed */
	__u8 addr[16]; /* network order; first 4 bytes for IPv4 */
};

static __always_inline int cls_fail(struct cls_pkt *pkt, __u32 reason)
{
	pkt->reason = reason;
	return -1;
}

/*
 * Skips at most CLS_MAX_VLAN_TAGS tags and leaves in *proto what the
 * last one carries.  A tag past that is reported as "not IP": we cannot
 * see what it carries.
 */
static __always_inline int cls_parse_eth(void *data, void *data_end,
					 struct cls_pkt *pkt, __be16 *proto)
{
	struct ethhdr *eth = data;
	struct vlan_hdr *vh;
	__u32 off = CLS_ETH_HLEN;
	int i;

	if ((void *)(eth + 1) > data_end)
		return cls_fail(pkt, CLS_R_TRUNCATED);
	*proto = eth->h_proto;
#pragma unroll
	for (i = 0; i < CLS_MAX_VLAN_TAGS; i++) {
		if (*proto != CLS_ETH_P_8021Q && *proto != CLS_ETH_P_8021AD)
			break;
		vh = data + off;
		if ((void *)(vh + 1) > data_end)
			return cls_fail(pkt, CLS_R_TRUNCATED);
		*proto = vh->h_vlan_encapsulated_proto;
		off += CLS_VLAN_HLEN;
	}
	pkt->l3_off = off;
	return 0;
}

/*
 * The fixed IP header at pkt->l3_off, of the protocol proto (an Ethernet
 * type) says.  Its version must agree: every IP stack drops a packet whose
 * version is not the one its link layer named.  IHL, tot_len and payload
 * length are not checked: they do not move the address (and BIG TCP sends
 * IPv4 packets whose tot_len is 0).  want_dst picks the destination
 * address (egress) or the source (ingress).
 */
static __always_inline int cls_parse_ip(void *data, void *data_end,
					struct cls_pkt *pkt, __be16 proto,
					bool want_dst)
{
	struct ipv6hdr *ip6h = data + pkt->l3_off;
	struct iphdr *iph = data + pkt->l3_off;

	if (proto == CLS_ETH_P_IP) {
		if ((void *)(iph + 1) > data_end)
			return cls_fail(pkt, CLS_R_TRUNCATED);
		if (iph->version != 4)
			return cls_fail(pkt, CLS_R_MALFORMED);
		pkt->family = CLS_FAMILY_V4;
		__builtin_memcpy(pkt->addr,
				 want_dst ? &iph->daddr : &iph->saddr, 4);
		return 0;
	}
	if (proto == CLS_ETH_P_IPV6) {
		if ((void *)(ip6h + 1) > data_end)
			return cls_fail(pkt, CLS_R_TRUNCATED);
		if (ip6h->version != 6)
			return cls_fail(pkt, CLS_R_MALFORMED);
		pkt->family = CLS_FAMILY_V6;
		__builtin_memcpy(pkt->addr,
				 want_dst ? &ip6h->daddr : &ip6h->saddr, 16);
		return 0;
	}
	return cls_fail(pkt, CLS_R_NOT_IP);
}

/*
 * A frame [data, data_end) of an Ethernet device.  Returns 0, or -1 with
 * pkt->reason set.
 */
static __always_inline int cls_parse(void *data, void *data_end,
				     struct cls_pkt *pkt, bool want_dst)
{
	__be16 proto;

	if (cls_parse_eth(data, data_end, pkt, &proto))
		return -1;
	return cls_parse_ip(data, data_end, pkt, proto, want_dst);
}

/*
 * A packet of an L3 device (tun, WireGuard, ipip, sit, gre, ppp), which
 * starts with its IP header.  proto is what the kernel says it is
 * (skb->protocol).  XDP has no such metadata: there proto is 0 and the
 * version decides (as tun does for a packet written without packet
 * info), and a packet of neither version is not IP (MPLS over GRE, say).
 * A tc packet the kernel says nothing of (0) is read the same way.
 */
static __always_inline int cls_parse_l3(void *data, void *data_end,
					struct cls_pkt *pkt, __be16 proto,
					bool want_dst)
{
	__u8 *first = data;

	pkt->l3_off = 0;
	if (!proto) {
		if ((void *)(first + 1) > data_end)
			return cls_fail(pkt, CLS_R_TRUNCATED);
		if (*first >> 4 == 4)
			proto = CLS_ETH_P_IP;
		else if (*first >> 4 == 6)
			proto = CLS_ETH_P_IPV6;
	}
	return cls_parse_ip(data, data_end, pkt, proto, want_dst);
}

/* Ethernet + two VLAN tags + IPv6: enough for every fixed header we read. */
#define CLS_PULL_LEN 64

/*
 * Headers are normally in the linear part on egress; pull them in only when
 * they are not, since a pull may copy a cloned skb.
 */
static __always_inline void cls_linearize(struct __sk_buff *skb)
{
	__u32 linear = skb->data_end - skb->data;

	if (linear < CLS_PULL_LEN && skb->len > linear)
		bpf_skb_pull_data(skb, skb->len < CLS_PULL_LEN ? skb->len
							       : CLS_PULL_LEN);
}

#endif /* CLS_PARSE_H */
