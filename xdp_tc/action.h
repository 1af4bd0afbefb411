/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Applying a class: skb metadata, DSCP and the verdict. */
#ifndef CLS_ACTION_H
#define CLS_ACTION_H

/* Not in vmlinux.h (uapi #defines).  UNSPEC lets the next program run. */
#ifndef TC_ACT_UNSPEC
#define TC_ACT_UNSPEC (-1)
#endif
#ifndef TC_ACT_SHOT
#define TC_ACT_SHOT 2
#endif

#define CLS_IPV4_CSUM_OFF 10
#define CLS_ECN_MASK	  0x03

/* The TOS byte shares a 16-bit checksum word with version/IHL. */
static __always_inline int cls_set_dscp_v4(struct __sk_buff *skb, __u32 l3_off,
					   __u8 dscp)
{
	__u8 word[2];
	__u16 from, to;

	if (bpf_skb_load_bytes(skb, l3_off, word, sizeof(word)))
		return -1;
	__builtin_memcpy(&from, word, sizeof(from));
	word[1] = (dscp << 2) | (word[1] & CLS_ECN_MASK);
	__builtin_memcpy(&to, word, sizeof(to));
	if (from == to)
		return 0;
	if (bpf_l3_csum_replace(skb, l3_off + CLS_IPV4_CSUM_OFF, from, to,
				sizeof(to)))
		return -1;
	return bpf_skb_store_bytes(skb, l3_off + 1, &word[1], 1, 0);
}

/*
 * The traffic class straddles the first two bytes: version(4) TC(8)
 * flow label(20).  IPv6 has no header checksum.
 */
static __always_inline int cls_set_dscp_v6(struct __sk_buff *skb, __u32 l3_off,
					   __u8 dscp)
{
	__u8 word[2];

	if (bpf_skb_load_bytes(skb, l3_off, word, sizeof(word)))
		return -1;
	word[0] = (word[0] & 0xf0) | (dscp >> 2);
	word[1] = ((dscp & 0x03) << 6) | (word[1] & 0x3f);
	return bpf_skb_store_bytes(skb, l3_off, word, sizeof(word), 0);
}

static __always_inline int cls_apply_skb(struct __sk_buff *skb,
					 const struct cls_class *cls,
					 const struct cls_pkt *pkt)
{
	if (!cls || !(cls->flags & CLS_F_VALID))
		return TC_ACT_UNSPEC;
	if (cls->flags & CLS_F_DROP)
		return TC_ACT_SHOT;
	if (cls->flags & CLS_F_PRIORITY)
		skb->priority = cls->classid;
	if (cls->flags & CLS_F_MARK)
		skb->mark = cls->mark;
	if (cls->flags & CLS_F_DSCP) {
		/* A failed rewrite leaves the packet as it was: still pass. */
		if (pkt->family == CLS_FAMILY_V4)
			cls_set_dscp_v4(skb, pkt->l3_off, cls->dscp & 0x3f);
		else
			cls_set_dscp_v6(skb, pkt->l3_off, cls->dscp & 0x3f);
	}
	return TC_ACT_UNSPEC;
}

static __always_inline int cls_apply_xdp(const struct cls_class *cls)
{
	if (cls && (cls->flags & CLS_F_VALID) && (cls->flags & CLS_F_DROP))
		return XDP_DROP;
	return XDP_PASS;
}

#endif /* CLS_ACTION_H */
