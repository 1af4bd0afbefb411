/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * A rated class's packet: its clock in rate_state (xdp_tc/rate.h does the
 * arithmetic), what it did counted in rate_stats (this CPU's slice, when
 * counting is on), and the verdict for the actions that follow.
 */
#ifndef CLS_RATED_H
#define CLS_RATED_H

/* BPF_SKB_TSTAMP_DELIVERY_MONO (5.18), BPF_SKB_CLOCK_MONOTONIC (6.11) */
#define CLS_TSTAMP_MONO 1

enum cls_rated {
	CLS_RATED_PASS, /* within the rate: the class's actions */
	CLS_RATED_OVER, /* over it: the over actions instead */
	CLS_RATED_DROP, /* over it (police) or past the horizon (pace) */
};

/*
 * The bytes a packet takes on the wire, as qdiscs count them: a GSO
 * packet's headers once per segment (qdisc_pkt_len_init() ran before tc
 * egress; skb->len counts them once, 4 % short for TCP).
 */
static __always_inline __u32 cls_wire_len(const struct __sk_buff *skb)
{
	__u32 len = skb->len, wire = skb->wire_len;

	/* Values, not a select of two ctx addresses (the verifier's rule). */
	asm volatile("" : "+r"(len), "+r"(wire));
	return wire > len ? wire : len;
}

static __always_inline struct cls_rate_counter *cls_rate_counter(__u32 hook,
								 __u32 idx)
{
	struct cls_config *cfg;
	__u32 zero = 0, slot;

	cfg = bpf_map_lookup_elem(&config, &zero);
	if (!cfg || !cfg->stats_on)
		return NULL;
	slot = bpf_get_smp_processor_id() *
		       CLS_RATE_STATS_STRIDE(cls_class_cap) +
	       hook * cls_class_cap + idx;
	return bpf_map_lookup_elem(&rate_stats, &slot);
}

/*
 * Policing, at either hook: over the rate the packet is dropped, or
 * passed to the over actions if the class has them (tc egress only: XDP
 * has no mark, and only drops).  No clock (never, once loaded): dropped.
 */
static __always_inline enum cls_rated
cls_police_pkt(const struct cls_class *cls, __u32 idx, __u32 hook, __u32 len)
{
	struct cls_rate_counter *c = cls_rate_counter(hook, idx);
	struct cls_rate_state *st = bpf_map_lookup_elem(&rate_state, &idx);
	bool ok = false;

	if (st)
		ok = cls_police(&st->tat[hook & 1], &cls->rate,
				bpf_ktime_get_ns(), len);
	if (ok) {
		if (c)
			c->passed++;
		return CLS_RATED_PASS;
	}
	if (hook == CLS_RATE_EGRESS &&
	    (cls->flags & (CLS_F_OVER_DSCP | CLS_F_OVER_MARK))) {
		if (c)
			c->marked++;
		return CLS_RATED_OVER;
	}
	if (c)
		c->dropped++;
	return CLS_RATED_DROP;
}

/*
 * Pacing, at tc egress: the packet's departure time (fq under the device
 * releases it then).  Its own departure time (TCP's pacing: a mono
 * delivery time) is kept if later; any other stamp (a receive time) is
 * not a departure.
 */
static __always_inline enum cls_rated
cls_pace_skb(struct __sk_buff *skb, const struct cls_class *cls, __u32 idx)
{
	struct cls_rate_counter *c = cls_rate_counter(CLS_RATE_EGRESS, idx);
	struct cls_rate_state *st = bpf_map_lookup_elem(&rate_state, &idx);
	__u64 now = bpf_ktime_get_ns(), earliest = now, depart = 0;
	enum cls_pace_verdict v = CLS_PACE_DROP;

	if (skb->tstamp_type == CLS_TSTAMP_MONO && skb->tstamp > now)
		earliest = skb->tstamp;
	if (st)
		v = cls_pace(&st->tat[CLS_RATE_EGRESS], &cls->rate, now,
			     earliest, cls_wire_len(skb), &depart);
	if (v == CLS_PACE_DROP) {
		if (c)
			c->dropped++;
		return CLS_RATED_DROP;
	}
	if (c)
		c->passed++;
	if (v != CLS_PACE_LATER)
		return CLS_RATED_PASS;
	bpf_skb_set_tstamp(skb, depart, CLS_TSTAMP_MONO);
	if (c)
		c->delayed++;
	if (cls->rate.ce_ns && depart - now > cls->rate.ce_ns &&
	    bpf_skb_ecn_set_ce(skb) && c)
		c->marked++;
	return CLS_RATED_PASS;
}

#endif /* CLS_RATED_H */
