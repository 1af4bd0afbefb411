/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Steering to CPUs (cls_steer, XDP on a router's ingress device): the
 * packet's class, by destination as tc egress on the way out will find
 * it, names the TX queue whose HTB shapes it; the packet is redirected
 * through cpumap to the CPU that owns that queue (queue_cpu), so each
 * queue's HTB lock is taken by one CPU.  Everything else is passed on
 * the CPU that received it, counted by why.  It applies no action: tc
 * egress classifies the packet again on the output device, since no
 * class handed over in the packet's metadata reaches it there
 * (docs/architecture.md, "Steering").
 */
#ifndef CLS_STEER_H
#define CLS_STEER_H

/* A counter of this CPU's slice of steer_stats. */
static __always_inline void cls_steer_count(__u32 slot, __u64 bytes)
{
	cls_count_at(&steer_stats, CLS_STEER_STRIDE, slot, bytes);
}

static __always_inline int cls_steer_pass(__u32 reason, __u64 bytes)
{
	cls_steer_count(CLS_STEER_REASON_BASE + reason, bytes);
	return XDP_PASS;
}

static __always_inline int cls_steer_run(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u32 len = data_end - data, idx, queue, *cpu;
	struct cls_pkt pkt = {};
	struct cls_config *cfg;
	struct cls_class *cls;
	__u32 zero = 0;
	int found;

	if (cls_parse(data, data_end, &pkt, true))
		return cls_steer_pass(CLS_STEER_NOT_IP, len);
	cfg = bpf_map_lookup_elem(&config, &zero);
	found = cls_lookup_class(&pkt, cfg);
	idx = found < 0 ? CLS_DEFAULT_CLASS : found;
	cls = bpf_map_lookup_elem(&classes, &idx);
	if (!cls || !(cls->flags & CLS_F_VALID) || !(cls->flags & CLS_F_QUEUE))
		return cls_steer_pass(CLS_STEER_NO_QUEUE, len);
	queue = cls->queue & CLS_QUEUE_MAX;
	cpu = bpf_map_lookup_elem(&queue_cpu, &queue);
	if (!cpu || !*cpu)
		return cls_steer_pass(CLS_STEER_NO_CPU, len);
	/* No cpumap entry for the CPU: XDP_PASS, the low bits of flags. */
	if (bpf_redirect_map(&cpumap, *cpu - 1, XDP_PASS) != XDP_REDIRECT)
		return cls_steer_pass(CLS_STEER_FAILED, len);
	cls_steer_count(queue, len);
	return XDP_REDIRECT;
}

#endif /* CLS_STEER_H */
