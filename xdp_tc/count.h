/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Per-CPU counters in one array: CPU c owns the slice starting at
 * c * stride and nobody else writes it, hence plain adds.
 */
#ifndef CLS_COUNT_H
#define CLS_COUNT_H

/*
 * One counter of this CPU's slice of a per-CPU counter array (stats,
 * steer_stats) of stride entries a CPU.
 */
static __always_inline void cls_count_at(void *map, __u32 stride, __u32 slot,
					 __u64 bytes)
{
	struct cls_counter *c;
	__u32 idx;

	idx = bpf_get_smp_processor_id() * stride + slot;
	c = bpf_map_lookup_elem(map, &idx);
	if (!c)
		return;
	c->packets += 1;
	c->bytes += bytes;
}

static __always_inline void cls_count_slot(__u32 slot, __u64 bytes)
{
	cls_count_at(&stats, CLS_STATS_STRIDE(cls_class_cap), slot, bytes);
}

/* Class counters cost a cache line per packet, so they can be turned off. */
static __always_inline void cls_count_class(const struct cls_config *cfg,
					    __u32 class_idx, __u64 bytes)
{
	if (cfg && cfg->stats_on)
		cls_count_slot(class_idx, bytes);
}

/* Reasons are rare and explain lost classification: always counted. */
static __always_inline void cls_count_reason(__u32 reason, __u64 bytes)
{
	cls_count_slot(CLS_STATS_REASON_BASE(cls_class_cap) + reason, bytes);
}

#endif /* CLS_COUNT_H */
