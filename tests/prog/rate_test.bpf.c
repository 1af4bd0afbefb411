// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The policer and the pacer of xdp_tc/rate.h driven by the test's clock:
 * each program runs one of them on a clock of the clocks map with the now,
 * rate and length the test wrote into args, and counts what it decided.
 * A shared clock (args.step != 0) advances by step ns per packet, taken
 * with an atomic add, so two CPUs running the program see one timeline.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "maps/classifier_abi.h"
#include "xdp_tc/rate.h"
#include "tests/prog/rate_test.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define TC_ACT_OK	0
#define TC_ACT_SHOT	2
#define CLS_TSTAMP_MONO 1 /* BPF_SKB_TSTAMP_DELIVERY_MONO, _CLOCK_MONOTONIC */

struct rate_args args;
struct rate_counts counts;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} clocks SEC(".maps");

static __always_inline __u64 test_now(void)
{
	if (!args.step)
		return args.now;
	return __sync_fetch_and_add(&counts.shared_now, args.step) + args.step;
}

SEC("tc")
int police(struct __sk_buff *skb)
{
	__u32 key = args.clock;
	__u64 *tat = bpf_map_lookup_elem(&clocks, &key);

	(void)skb;
	if (!tat)
		return -1;
	if (cls_police(tat, &args.rate, test_now(), args.len)) {
		__sync_fetch_and_add(&counts.passed, 1);
		return TC_ACT_OK;
	}
	__sync_fetch_and_add(&counts.over, 1);
	return TC_ACT_SHOT;
}

/*
 * The same policer written as Cilium writes its clock: a plain read and
 * a plain write.  The cross-CPU test runs it to show that it would catch
 * lost updates.
 */
SEC("tc")
int police_racy(struct __sk_buff *skb)
{
	__u32 key = args.clock;
	__u64 *tat = bpf_map_lookup_elem(&clocks, &key);
	__u64 now = test_now() + CLS_RATE_EPOCH, floor, base;

	(void)skb;
	if (!tat)
		return -1;
	floor = cls_rate_floor(&args.rate, now);
	base = cls_rate_max(*(volatile __u64 *)tat, floor);
	if (base > now) {
		__sync_fetch_and_add(&counts.over, 1);
		return TC_ACT_SHOT;
	}
	*(volatile __u64 *)tat = base + cls_rate_ns(&args.rate, args.len);
	__sync_fetch_and_add(&counts.passed, 1);
	return TC_ACT_OK;
}

/*
 * Pacing as the data path does it: the packet's own departure time counts
 * only if it is one (a mono delivery time); the departure is written with
 * bpf_skb_set_tstamp(); CE past the threshold.
 */
SEC("tc")
int pace(struct __sk_buff *skb)
{
	__u32 key = args.clock;
	__u64 *tat = bpf_map_lookup_elem(&clocks, &key);
	__u64 now = test_now(), earliest = now, depart = 0;
	enum cls_pace_verdict v;

	if (!tat)
		return -1;
	if (skb->tstamp_type == CLS_TSTAMP_MONO && skb->tstamp > now)
		earliest = skb->tstamp;
	v = cls_pace(tat, &args.rate, now, earliest, args.len, &depart);
	if (v == CLS_PACE_DROP) {
		__sync_fetch_and_add(&counts.over, 1);
		return TC_ACT_SHOT;
	}
	__sync_fetch_and_add(&counts.passed, 1);
	counts.last_depart = depart;
	if (v == CLS_PACE_LATER) {
		bpf_skb_set_tstamp(skb, depart, CLS_TSTAMP_MONO);
		__sync_fetch_and_add(&counts.later, 1);
		if (args.rate.ce_ns && depart - now > args.rate.ce_ns &&
		    bpf_skb_ecn_set_ce(skb))
			__sync_fetch_and_add(&counts.ce, 1);
	}
	return TC_ACT_OK;
}
