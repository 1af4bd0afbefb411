// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The data path: tc egress classifies by destination, XDP ingress by
 * source, each in a program for Ethernet devices and one for L3 devices.
 * All are thin: parse, look up, apply, count.  Packets we cannot classify
 * are passed untouched and counted under a reason.
 */
/*
 * Some kernels' BTF has a typedef named "config" (zstd), which would clash
 * with the map user space knows by that name: rename the typedef.
 */
#define config cls_vmlinux_config
#include "vmlinux.h"
#undef config
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "maps/classifier_abi.h"

/*
 * Which build of this program runs: the loader writes a hash of the BPF
 * object here before loading, and `classifier status` reads it back from
 * an attached program's .rodata map (at offset 0: defined first).
 */
const volatile __u64 cls_build_id = 0;

/*
 * The classes the maps bound to this program have room for: the loader
 * writes the classes map's size here before loading, so the counters'
 * stride is a constant the verifier knows.  A set that grows gets
 * programs loaded for its new size (maps/grow.c).
 */
const volatile __u32 cls_class_cap = CLS_CLASS_STEP;

#include "xdp_tc/maps.bpf.h"
#include "xdp_tc/parse.h"
#include "xdp_tc/lookup.h"
#include "xdp_tc/count.h"
#include "xdp_tc/rate.h"
#include "xdp_tc/rated.h"
#include "xdp_tc/action.h"
#include "xdp_tc/steer.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/*
 * Looks up the class, counting NO_TABLE and the class itself in the
 * counters of this hook (counter_base).  Returns the class index; the
 * default class stands in when there is no table.
 */
static __always_inline __u32 cls_classify(const struct cls_pkt *pkt,
					  __u64 bytes, __u32 counter_base)
{
	struct cls_config *cfg;
	__u32 zero = 0;
	int idx;

	cfg = bpf_map_lookup_elem(&config, &zero);
	idx = cls_lookup_class(pkt, cfg);
	if (idx < 0) {
		cls_count_reason(CLS_R_NO_TABLE, bytes);
		idx = CLS_DEFAULT_CLASS;
	}
	cls_count_class(cfg, counter_base + idx, bytes);
	return idx;
}

/*
 * Each hook has two programs, one body: the loader attaches the one for
 * the device's link layer (loader/link_type.c), so Ethernet devices run
 * no code for L3 ones.  l3 is a constant in each.
 */
static __always_inline int cls_egress_run(struct __sk_buff *skb, bool l3)
{
	struct cls_pkt pkt = {};
	struct cls_class *cls;
	void *data, *data_end;
	__u32 idx;

	cls_linearize(skb);
	/* Keeps clang from merging the ctx loads into ctx + variable offset. */
	asm volatile("" ::: "memory");
	data = (void *)(long)skb->data;
	data_end = (void *)(long)skb->data_end;
	if (l3 ? cls_parse_l3(data, data_end, &pkt, skb->protocol, true) :
		 cls_parse(data, data_end, &pkt, true)) {
		cls_count_reason(pkt.reason, skb->len);
		return TC_ACT_UNSPEC;
	}
	idx = cls_classify(&pkt, skb->len, CLS_STATS_EGRESS_BASE);
	cls = bpf_map_lookup_elem(&classes, &idx);
	return cls_apply_skb(skb, cls, &pkt, idx);
}

static __always_inline int cls_ingress_run(struct xdp_md *ctx, bool l3)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u32 len = data_end - data;
	struct cls_pkt pkt = {};
	struct cls_class *cls;
	__u32 idx;

	if (l3 ? cls_parse_l3(data, data_end, &pkt, 0, false) :
		 cls_parse(data, data_end, &pkt, false)) {
		cls_count_reason(pkt.reason, len);
		return XDP_PASS;
	}
	idx = cls_classify(&pkt, len, CLS_STATS_INGRESS_BASE(cls_class_cap));
	cls = bpf_map_lookup_elem(&classes, &idx);
	return cls_apply_xdp(cls, idx, len);
}

/* Ethernet devices (veth, physical NICs, VLAN, bonds, bridges, tap). */
SEC("tc")
int cls_egress(struct __sk_buff *skb)
{
	return cls_egress_run(skb, false);
}

SEC("xdp")
int cls_ingress(struct xdp_md *ctx)
{
	return cls_ingress_run(ctx, false);
}

/* Devices whose packets start with the IP header (tun, WireGuard, ...). */
SEC("tc")
int cls_egress_l3(struct __sk_buff *skb)
{
	return cls_egress_run(skb, true);
}

SEC("xdp")
int cls_ingress_l3(struct xdp_md *ctx)
{
	return cls_ingress_run(ctx, true);
}

/*
 * Steering to the CPU of the class's TX queue (xdp_tc/steer.h), on the
 * ingress device of a router: Ethernet devices only.
 */
SEC("xdp")
int cls_steer(struct xdp_md *ctx)
{
	return cls_steer_run(ctx);
}
