// SPDX-License-Identifier: GPL-2.0-only
/*
 * Smallest EDT pacer, for the guest's platform check (smoke/pace.sh), not
 * classifier's: every packet through the tc egress hook it is attached to
 * is one class paced to cfg.rate bytes/s. Departure times come from one
 * clock under a spin lock, so two CPUs sending cannot lose an update; a
 * packet that would wait longer than cfg.horizon_ns is dropped, one that
 * waits longer than cfg.ce_ns (when set) is marked CE. The departure time
 * goes into skb->tstamp for the fq qdisc to hold the packet until then:
 * through bpf_skb_set_tstamp(BPF_SKB_TSTAMP_DELIVERY_MONO) (5.18+), or a
 * direct write of __sk_buff->tstamp when cfg.direct is set.
 */
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>

struct edt_cfg {
	__u64 rate; /* bytes per second; 0: pass untouched */
	__u64 horizon_ns;
	__u64 ce_ns; /* 0: never mark */
	__u64 direct; /* write skb->tstamp instead of the helper */
};

struct edt_clock {
	struct bpf_spin_lock lock;
	__u64 next_ns; /* departure time of the next packet */
	__u64 packets;
	__u64 bytes;
	__u64 dropped;
	__u64 marked;
	__u64 max_delay_ns;
	__u64 idle; /* packets that found the clock behind: the class went idle */
	__u64 idle_ns; /* how long the clock stood behind, summed */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct edt_cfg);
} cfg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct edt_clock);
} clock SEC(".maps");

SEC("tc")
int edt_pace(struct __sk_buff *skb)
{
	__u32 zero = 0;
	struct edt_cfg *c = bpf_map_lookup_elem(&cfg, &zero);
	struct edt_clock *k = bpf_map_lookup_elem(&clock, &zero);
	__u64 now, t, delay;
	int drop = 0;

	if (!c || !k || !c->rate)
		return TC_ACT_OK;
	now = bpf_ktime_get_ns();
	bpf_spin_lock(&k->lock);
	t = k->next_ns > now ? k->next_ns : now;
	if (t == now) {
		k->idle++;
		if (k->next_ns)
			k->idle_ns += now - k->next_ns;
	}
	delay = t - now;
	if (delay > c->horizon_ns) {
		k->dropped++;
		drop = 1;
	} else {
		k->next_ns = t + (__u64)skb->len * 1000000000ULL / c->rate;
		k->packets++;
		k->bytes += skb->len;
		if (delay > k->max_delay_ns)
			k->max_delay_ns = delay;
	}
	bpf_spin_unlock(&k->lock);
	if (drop)
		return TC_ACT_SHOT;
	if (c->ce_ns && delay > c->ce_ns && bpf_skb_ecn_set_ce(skb))
		__sync_fetch_and_add(&k->marked, 1);
	if (c->direct)
		skb->tstamp = t;
	else
		bpf_skb_set_tstamp(skb, t, BPF_SKB_TSTAMP_DELIVERY_MONO);
	return TC_ACT_OK;
}

char LICENSE[] SEC("license") = "GPL";
