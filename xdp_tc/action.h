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

/*
 * The rate first (pace, else police): a packet it drops gets no other
 * action; one over the rate gets the over actions in place of the
 * class's mark and DSCP.
 */
static __always_inline int cls_apply_skb(struct __sk_buff *skb,
					 const struct cls_class *cls,
					 const struct cls_pkt *pkt, __u32 idx)
{
	enum cls_rated rated = CLS_RATED_PASS;
	__u32 flags, mark;
	__u8 dscp;

	if (!cls || !(cls->flags & CLS_F_VALID))
		return TC_ACT_UNSPEC;
	flags = cls->flags;
	if (flags & CLS_F_DROP)
		return TC_ACT_SHOT;
	if (flags & CLS_F_PACE)
		rated = cls_pace_skb(skb, cls, idx);
	else if (flags & CLS_F_POLICE)
		rated = cls_police_pkt(cls, idx, CLS_RATE_EGRESS,
				       cls_wire_len(skb));
	if (rated == CLS_RATED_DROP)
		return TC_ACT_SHOT;
	mark = cls->mark;
	dscp = cls->dscp;
	if (rated == CLS_RATED_OVER) {
		if (flags & CLS_F_OVER_MARK) {
			flags |= CLS_F_MARK;
			mark = cls->over_mark;
		}
		if (flags & CLS_F_OVER_DSCP) {
			flags |= CLS_F_DSCP;
			dscp = cls->over_dscp;
		}
	}
	if (flags & CLS_F_PRIORITY)
		skb->priority = cls->classid;
	/*
	 * Not a queue yet: the kernel picks it after this program, and its
	 * skb_tx_hash() reads a non-zero queue_mapping as a recorded queue
	 * plus one (a socket's cached queue and XPS come first).
	 */
	if (flags & CLS_F_QUEUE)
		skb->queue_mapping = cls->queue + 1;
	if (flags & CLS_F_MARK)
		skb->mark = mark;
	if (flags & CLS_F_DSCP) {
		/* A failed rewrite leaves the packet as it was: still pass. */
		if (pkt->family == CLS_FAMILY_V4)
			cls_set_dscp_v4(skb, pkt->l3_off, dscp & 0x3f);
		else
			cls_set_dscp_v6(skb, pkt->l3_off, dscp & 0x3f);
	}
	return TC_ACT_UNSPEC;
}

/* XDP passes or drops: a policed class's packets over the rate drop. */
static __always_inline int cls_apply_xdp(const struct cls_class *cls, __u32 idx,
					 __u32 len)
{
	if (!cls || !(cls->flags & CLS_F_VALID))
		return XDP_PASS;
	if (cls->flags & CLS_F_DROP)
		return XDP_DROP;
	if ((cls->flags & CLS_F_POLICE) &&
	    cls_police_pkt(cls, idx, CLS_RATE_INGRESS, len) == CLS_RATED_DROP)
		return XDP_DROP;
	return XDP_PASS;
}

#endif /* CLS_ACTION_H */
