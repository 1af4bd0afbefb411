/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Header parsing shared by the tc and XDP programs: Ethernet, up to
 * CLS_MAX_VLAN_TAGS VLAN tags, IPv4 or IPv6 with its extension headers.
 * The fixed headers are read with direct packet access; the IPv6 extension
 * chain has a data-dependent length, so it is walked by bpf_loop() with the
 * load_bytes helper of each hook.
 */
#ifndef CLS_PARSE_H
#define CLS_PARSE_H

#define CLS_ETH_HLEN  14
#define CLS_VLAN_HLEN 4
#define CLS_IPV4_HLEN 20
#define CLS_IPV6_HLEN 40

/* vmlinux.h carries no #defines: the values we need, in network order. */
#define CLS_ETH_P_IP	 bpf_htons(0x0800)
#define CLS_ETH_P_IPV6	 bpf_htons(0x86dd)
#define CLS_ETH_P_8021Q	 bpf_htons(0x8100)
#define CLS_ETH_P_8021AD bpf_htons(0x88a8)

#define CLS_NEXTHDR_HOP	     0
#define CLS_NEXTHDR_ROUTING  43
#define CLS_NEXTHDR_FRAGMENT 44
#define CLS_NEXTHDR_AUTH     51
#define CLS_NEXTHDR_DEST     60

enum cls_family {
	CLS_FAMILY_V4 = 4,
	CLS_FAMILY_V6 = 6,
};

struct cls_pkt {
	__u32 family;
	__u32 l3_off;
	__u32 l4_off;
	__u32 l4_proto;
	__u32 reason;  /* enum cls_reason, valid when parsing failed */
	__u8 addr[16]; /* network order; first 4 bytes for IPv4 */
};

/* State of the extension-header walk, shared with the bpf_loop callback. */
struct cls_ext_walk {
	void *ctx;
	__u32 off;
	__u32 len;
	__u32 nexthdr;
	__s32 reason; /* -1 while the walk goes well */
};

static __always_inline bool cls_is_ext_hdr(__u32 nexthdr)
{
	return nexthdr == CLS_NEXTHDR_HOP || nexthdr == CLS_NEXTHDR_ROUTING ||
	       nexthdr == CLS_NEXTHDR_FRAGMENT || nexthdr == CLS_NEXTHDR_DEST ||
	       nexthdr == CLS_NEXTHDR_AUTH;
}

/* Returns 1 to stop bpf_loop, 0 to go on, as bpf_loop wants. */
static __always_inline long cls_ext_step(struct cls_ext_walk *w,
					 const __u8 hdr[2], long err)
{
	__u32 hlen;

	if (err || w->off + 2 > w->len) {
		w->reason = CLS_R_TRUNCATED;
		return 1;
	}
	if (w->nexthdr == CLS_NEXTHDR_FRAGMENT)
		hlen = 8;
	else if (w->nexthdr == CLS_NEXTHDR_AUTH)
		hlen = ((__u32)hdr[1] + 2) * 4;
	else
		hlen = ((__u32)hdr[1] + 1) * 8;
	if (w->off + hlen > w->len) {
		w->reason = CLS_R_TRUNCATED;
		return 1;
	}
	w->off += hlen;
	w->nexthdr = hdr[0];
	return cls_is_ext_hdr(w->nexthdr) ? 0 : 1;
}

/* One callback per hook: each may call only its own load_bytes helper. */
static long cls_ext_step_skb(__u32 i, void *data)
{
	struct cls_ext_walk *w = data;
	__u8 hdr[2] = {};
	long err;

	err = bpf_skb_load_bytes(w->ctx, w->off, hdr, sizeof(hdr));
	return cls_ext_step(w, hdr, err);
}

static long cls_ext_step_xdp(__u32 i, void *data)
{
	struct cls_ext_walk *w = data;
	__u8 hdr[2] = {};
	long err;

	err = bpf_xdp_load_bytes(w->ctx, w->off, hdr, sizeof(hdr));
	return cls_ext_step(w, hdr, err);
}

static __always_inline int cls_fail(struct cls_pkt *pkt, __u32 reason)
{
	pkt->reason = reason;
	return -1;
}

/*
 * Skips at most CLS_MAX_VLAN_TAGS tags.  A tag past that is reported as
 * "not IP": we cannot see what it carries.
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
	if (*proto != CLS_ETH_P_IP && *proto != CLS_ETH_P_IPV6)
		return cls_fail(pkt, CLS_R_NOT_IP);
	pkt->l3_off = off;
	return 0;
}

/*
 * tot_len is not checked on purpose: BIG TCP (IPv4 GSO over 64K) sends
 * packets whose tot_len is 0.
 */
static __always_inline int cls_parse_v4(void *data, void *data_end,
					struct cls_pkt *pkt, bool want_dst)
{
	struct iphdr *iph = data + pkt->l3_off;
	__u32 hlen;

	if ((void *)(iph + 1) > data_end)
		return cls_fail(pkt, CLS_R_TRUNCATED);
	if (iph->version != 4 || iph->ihl < 5)
		return cls_fail(pkt, CLS_R_MALFORMED);
	hlen = iph->ihl * 4;
	if ((void *)iph + hlen > data_end)
		return cls_fail(pkt, CLS_R_TRUNCATED);
	pkt->family = CLS_FAMILY_V4;
	pkt->l4_proto = iph->protocol;
	pkt->l4_off = pkt->l3_off + hlen;
	__builtin_memcpy(pkt->addr, want_dst ? &iph->daddr : &iph->saddr, 4);
	return 0;
}

static __always_inline int cls_parse_v6(void *ctx, void *data, void *data_end,
					__u32 pkt_len, struct cls_pkt *pkt,
					bool is_xdp, bool want_dst)
{
	struct ipv6hdr *ip6h = data + pkt->l3_off;
	struct cls_ext_walk w;

	if ((void *)(ip6h + 1) > data_end)
		return cls_fail(pkt, CLS_R_TRUNCATED);
	if (ip6h->version != 6)
		return cls_fail(pkt, CLS_R_MALFORMED);
	pkt->family = CLS_FAMILY_V6;
	__builtin_memcpy(pkt->addr, want_dst ? &ip6h->daddr : &ip6h->saddr, 16);

	w.ctx = ctx;
	w.off = pkt->l3_off + CLS_IPV6_HLEN;
	w.len = pkt_len;
	w.nexthdr = ip6h->nexthdr;
	w.reason = -1;
	/* Most packets carry no extension header: skip the loop for them. */
	if (cls_is_ext_hdr(w.nexthdr)) {
		if (is_xdp)
			bpf_loop(CLS_MAX_IPV6_EXT_HDRS, cls_ext_step_xdp, &w,
				 0);
		else
			bpf_loop(CLS_MAX_IPV6_EXT_HDRS, cls_ext_step_skb, &w,
				 0);
		if (w.reason >= 0)
			return cls_fail(pkt, w.reason);
		if (cls_is_ext_hdr(w.nexthdr))
			return cls_fail(pkt, CLS_R_EXT_LIMIT);
	}
	pkt->l4_proto = w.nexthdr;
	pkt->l4_off = w.off;
	return 0;
}

/*
 * Fills pkt from the packet [data, data_end) of length pkt_len (the whole
 * packet, which for an skb may be longer than its linear part).  want_dst
 * picks the destination address (egress) or the source (ingress).
 * Returns 0, or -1 with pkt->reason set.
 */
static __always_inline int cls_parse(void *ctx, void *data, void *data_end,
				     __u32 pkt_len, struct cls_pkt *pkt,
				     bool is_xdp, bool want_dst)
{
	__be16 proto;

	if (cls_parse_eth(data, data_end, pkt, &proto))
		return -1;
	if (proto == CLS_ETH_P_IP)
		return cls_parse_v4(data, data_end, pkt, want_dst);
	return cls_parse_v6(ctx, data, data_end, pkt_len, pkt, is_xdp,
			    want_dst);
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
