// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Bench-only programs, run next to the real cls_egress under
 * BPF_PROG_TEST_RUN.  They share the classifier's maps (user space reuses
 * its fds) and its lookup code (xdp_tc/lookup.h), so "bare lookup" is the
 * production lookup without parsing, actions and counters.
 */
#define config cls_vmlinux_config
#include "vmlinux.h"
#undef config
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "maps/classifier_abi.h"

/*
 * The classes the shared maps have room for, as xdp_tc/classifier.bpf.c
 * has it: user space binds maps made for CLS_CLASS_STEP (the registry's
 * templates) and loads both objects so.
 */
const volatile __u32 cls_class_cap = CLS_CLASS_STEP;

#include "xdp_tc/maps.bpf.h"
#include "xdp_tc/parse.h"
#include "xdp_tc/lookup.h"
#include "xdp_tc/lookup6.h"
#include "xdp_tc/count.h"
#include "xdp_tc/rate.h"
#include "xdp_tc/rated.h"
#include "xdp_tc/action.h"
#include "bench/poptrie6.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define BENCH_ADDRS	(1U << 20) /* power of two: the index is masked */
#define BENCH_TC_UNSPEC (-1) /* TC_ACT_UNSPEC: vmlinux.h has no #defines */

/* Destinations the spread wrapper writes into the packet, one per run. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, BENCH_ADDRS);
	__type(key, __u32);
	__type(value, struct cls_v6_key);
} bench_addrs SEC(".maps");

/* Slot 0: the program the spread wrapper hands the packet to. */
struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} bench_jmp SEC(".maps");

__u32 bench_next;
/* How many of bench_addrs the wrapper cycles through, minus one. */
__u32 bench_mask = (1U << 16) - 1;
__u64 bench_tail_fail;

/* The floor: what a run costs the kernel with no work in the program. */
SEC("tc")
int bench_empty(struct __sk_buff *skb)
{
	return BENCH_TC_UNSPEC;
}

/* Ethernet + IPv4/IPv6 without options; returns nonzero if not that. */
static __always_inline int bench_dst(struct __sk_buff *skb, struct cls_pkt *pkt,
				     __u8 **dst)
{
	void *data = (void *)(long)skb->data;
	void *data_end = (void *)(long)skb->data_end;
	struct ethhdr *eth = data;

	if ((void *)(eth + 1) > data_end)
		return -1;
	if (eth->h_proto == CLS_ETH_P_IP) {
		struct iphdr *ip = (void *)(eth + 1);

		if ((void *)(ip + 1) > data_end)
			return -1;
		pkt->family = CLS_FAMILY_V4;
		*dst = (__u8 *)&ip->daddr;
		return 0;
	}
	if (eth->h_proto == CLS_ETH_P_IPV6) {
		struct ipv6hdr *ip6 = (void *)(eth + 1);

		if ((void *)(ip6 + 1) > data_end)
			return -1;
		pkt->family = CLS_FAMILY_V6;
		*dst = (__u8 *)&ip6->daddr;
		return 0;
	}
	return -1;
}

/*
 * The route lookup alone: outer slot, then the trie, as cls_egress does
 * (with the DIR-24-8 table off, as progbench runs it; generation 0).
 */
SEC("tc")
int bench_bare_lookup(struct __sk_buff *skb)
{
	struct cls_pkt pkt = {};
	__u8 *dst;

	if (bench_dst(skb, &pkt, &dst))
		return BENCH_TC_UNSPEC;
	if (pkt.family == CLS_FAMILY_V4)
		__builtin_memcpy(pkt.addr, dst, 4);
	else
		__builtin_memcpy(pkt.addr, dst, 16);
	skb->priority = cls_lookup_trie(&pkt, 0);
	return BENCH_TC_UNSPEC;
}

/*
 * One read of the IPv4 table's first level for the destination (through
 * generation 0's slot), and nothing else: the memory access no DIR-24-8
 * lookup can do without.
 * Spread over many destinations, it says how much of the table's cost is
 * that access (the machine's memory) and how much the rest of cls_egress.
 */
SEC("tc")
int bench_table_read(struct __sk_buff *skb)
{
	struct cls_pkt pkt = {};
	__u32 addr, e = 0, gen = 0;
	void *table;
	__u8 *dst;

	table = bpf_map_lookup_elem(&table_v4, &gen);
	if (!table || bench_dst(skb, &pkt, &dst) ||
	    pkt.family != CLS_FAMILY_V4)
		return BENCH_TC_UNSPEC;
	__builtin_memcpy(&addr, dst, 4);
	cls_dir24_entry(table, bpf_ntohl(addr) >> 8, &e);
	skb->priority = e;
	return BENCH_TC_UNSPEC;
}

/* The table lookup alone: the first level, then the group if any. */
SEC("tc")
int bench_table_lookup(struct __sk_buff *skb)
{
	struct cls_pkt pkt = {};
	__u8 *dst;

	if (bench_dst(skb, &pkt, &dst) || pkt.family != CLS_FAMILY_V4)
		return BENCH_TC_UNSPEC;
	__builtin_memcpy(pkt.addr, dst, 4);
	skb->priority = cls_lookup_dir24(&pkt, 0);
	return BENCH_TC_UNSPEC;
}

/*
 * PROG_TEST_RUN repeats one packet; this gives each run the next of
 * bench_mask + 1 destinations, then tail-calls the program under test.
 */
SEC("tc")
int bench_spread(struct __sk_buff *skb)
{
	struct cls_v6_key *a;
	struct cls_pkt pkt = {};
	__u32 i = bench_next++ & bench_mask & (BENCH_ADDRS - 1);
	__u8 *dst;

	a = bpf_map_lookup_elem(&bench_addrs, &i);
	if (!a || bench_dst(skb, &pkt, &dst))
		return BENCH_TC_UNSPEC;
	if (pkt.family == CLS_FAMILY_V4)
		__builtin_memcpy(dst, a->addr, 4);
	else
		__builtin_memcpy(dst, a->addr, 16);
	bpf_tail_call(skb, &bench_jmp, 0);
	bench_tail_fail++;
	return BENCH_TC_UNSPEC;
}

/* --- the IPv6 table (issue 14) ---------------------------------------- */

/*
 * The data path's shape: the table is the inner map of a two-slot
 * ARRAY_OF_MAPS, the slot a generation number read from config once per
 * packet (config.gen), and a BPF_F_INNER_MAP array so tables of any size
 * fit one outer map.  The data path's table has 4 MiB values (the most an
 * array value may be; layout 5); two more outer maps hold the same table
 * in 8-byte values (layout 4's) and 32-byte values (a RANGE or TINY node
 * an element), to measure what the value size costs.
 */
#define BENCH_TABLE6_OUTER(name, inner)                                        \
	struct {                                                               \
		__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);                      \
		__uint(max_entries, 2);                                        \
		__type(key, __u32);                                            \
		__array(values, struct inner);                                 \
	} name SEC(".maps")

#define BENCH_TABLE6_INNER(name, bytes)                                        \
	struct name {                                                          \
		__uint(type, BPF_MAP_TYPE_ARRAY);                              \
		__uint(map_flags, BPF_F_MMAPABLE | BPF_F_INNER_MAP);           \
		__uint(max_entries, 1);                                        \
		__uint(key_size, sizeof(__u32));                               \
		__uint(value_size, bytes);                                     \
	}

#define BENCH_V6_PER_8 2	/* entries in an 8-byte value */
#define BENCH_V6_PER_32 8 /* in a 32-byte one */

BENCH_TABLE6_INNER(bench_table6_inner, 8);
BENCH_TABLE6_INNER(bench_table6_inner32, 4 * BENCH_V6_PER_32);
BENCH_TABLE6_INNER(bench_table6_inner4m, 4 * MBT6_PER_ELEM);
BENCH_TABLE6_OUTER(bench_table6, bench_table6_inner);
BENCH_TABLE6_OUTER(bench_table6_32, bench_table6_inner32);
BENCH_TABLE6_OUTER(bench_table6_4m, bench_table6_inner4m);
/* The same shape, the table with a 24-bit first level (format 3). */
BENCH_TABLE6_OUTER(bench_table6_wide, bench_table6_inner4m);
/*
 * The same table in an inner map of a fixed size without BPF_F_INNER_MAP:
 * the verifier then inlines each lookup in it (no helper call), as it does
 * for a map it knows.  Every table in that outer map must be that size.
 */
#define BENCH_V6_FIXED_ELEMS (1U << 25)
struct bench_table6_inner_fx {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, BENCH_V6_FIXED_ELEMS);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, 8);
};
BENCH_TABLE6_OUTER(bench_table6_fx, bench_table6_inner_fx);
/* The Poptrie candidate (bench/poptrie6.h), 8-byte values. */
BENCH_TABLE6_OUTER(bench_pop6, bench_table6_inner);

static __always_inline void *bench_table6_of(void *outer,
					     const struct cls_config *cfg)
{
	__u32 gen = cfg ? cfg->gen & 1 : 0;

	return bpf_map_lookup_elem(outer, &gen);
}

/*
 * The IPv4 DIR-24-8 table moved into the same container (an inner map of
 * 8-byte values), for comparison: cls_lookup_dir24 with each read a
 * helper call.
 */
BENCH_TABLE6_OUTER(bench_dir24_in, bench_table6_inner);

/* The 8-byte element of table t holding entry idx (a __u32 view). */
static __always_inline __u32 *bench_elem8(void *t, __u32 idx)
{
	__u32 elem = idx / 2;

	return bpf_map_lookup_elem(t, &elem);
}

static __always_inline int bench_dir24_entry(void *t, __u32 idx, __u32 *e)
{
	__u32 *pair = bench_elem8(t, idx);

	if (!pair)
		return -1;
	*e = pair[idx % 2];
	return 0;
}

static __always_inline int bench_dir24_lookup(void *t, const __u8 addr[4])
{
	__u32 a, group, e;

	__builtin_memcpy(&a, addr, 4);
	a = bpf_ntohl(a);
	if (bench_dir24_entry(t, a >> 8, &e) || e == CLS_DIR24_ASK_TRIE)
		return -1;
	if (e & CLS_DIR24_GROUP_BIT) {
		group = e & ~CLS_DIR24_GROUP_BIT;
		if (group >= CLS_DIR24_MAX_GROUPS ||
		    bench_dir24_entry(t, CLS_DIR24_L1_ENTRIES +
					       group * CLS_DIR24_GROUP_SIZE +
					       (a & 0xff),
				      &e))
			return -1;
	}
	return cls_valid_class(cls_dir24_class(e));
}

/*
 * cls_egress with a table in an inner map in front of the trie: parse,
 * config, table (the trie where it says so), counters, class, action.
 * The table is the IPv6 one (its values per entries each), or with v4 the
 * IPv4 DIR-24-8 table moved into the same kind of map.
 */
static __always_inline int bench_egress(struct __sk_buff *skb, void *outer,
					__u32 per, bool v4, bool wide)
{
	struct cls_pkt pkt = {};
	struct cls_config *cfg;
	struct cls_class *cls;
	void *data, *data_end, *table;
	__u32 zero = 0, idx;
	int r = -1;

	cls_linearize(skb);
	asm volatile("" ::: "memory");
	data = (void *)(long)skb->data;
	data_end = (void *)(long)skb->data_end;
	if (cls_parse(data, data_end, &pkt, true)) {
		cls_count_reason(pkt.reason, skb->len);
		return TC_ACT_UNSPEC;
	}
	cfg = bpf_map_lookup_elem(&config, &zero);
	if (pkt.family == (v4 ? CLS_FAMILY_V4 : CLS_FAMILY_V6)) {
		table = bench_table6_of(outer, cfg);
		if (table)
			r = v4 ? bench_dir24_lookup(table, pkt.addr) :
				 cls_v6table_walk(table, pkt.addr, per, wide);
	}
	if (r < 0)
		r = v4 ? cls_lookup_trie(&pkt, cfg ? cfg->gen & 1 : 0) :
			 cls_lookup_class(&pkt, cfg);
	if (r < 0) {
		cls_count_reason(CLS_R_NO_TABLE, skb->len);
		r = CLS_DEFAULT_CLASS;
	}
	idx = r;
	cls_count_class(cfg, CLS_STATS_EGRESS_BASE + idx, skb->len);
	cls = bpf_map_lookup_elem(&classes, &idx);
	return cls_apply_skb(skb, cls, &pkt, idx);
}

SEC("tc")
int bench_table6_egress8(struct __sk_buff *skb)
{
	return bench_egress(skb, &bench_table6, BENCH_V6_PER_8, false, false);
}

SEC("tc")
int bench_table6_egress32(struct __sk_buff *skb)
{
	return bench_egress(skb, &bench_table6_32, BENCH_V6_PER_32, false, false);
}

SEC("tc")
int bench_table6_egress4m(struct __sk_buff *skb)
{
	return bench_egress(skb, &bench_table6_4m, MBT6_PER_ELEM, false, false);
}

SEC("tc")
int bench_table6_egress_fx(struct __sk_buff *skb)
{
	return bench_egress(skb, &bench_table6_fx, BENCH_V6_PER_8, false, false);
}

SEC("tc")
int bench_table6_egress_wide(struct __sk_buff *skb)
{
	return bench_egress(skb, &bench_table6_wide, MBT6_PER_ELEM, false, true);
}

/* cls_egress with the IPv4 table read through the container. */
SEC("tc")
int bench_dir24_in_egress(struct __sk_buff *skb)
{
	return bench_egress(skb, &bench_dir24_in, CLS_DIR24_PER_ELEM, true, false);
}

/* The IPv6 destination, on the stack as cls_parse leaves it. */
static __always_inline int bench_dst6(struct __sk_buff *skb,
				      struct cls_pkt *pkt)
{
	__u8 *dst;

	if (bench_dst(skb, pkt, &dst) || pkt->family != CLS_FAMILY_V6)
		return -1;
	__builtin_memcpy(pkt->addr, dst, 16);
	return 0;
}

/* The IPv6 table lookup alone. */
static __always_inline int bench_table6_lookup(struct __sk_buff *skb,
					       void *outer, __u32 per,
					       bool wide)
{
	struct cls_pkt pkt = {};
	struct cls_config *cfg;
	__u32 zero = 0;
	void *table;

	if (bench_dst6(skb, &pkt))
		return BENCH_TC_UNSPEC;
	cfg = bpf_map_lookup_elem(&config, &zero);
	table = bench_table6_of(outer, cfg);
	if (!table)
		return BENCH_TC_UNSPEC;
	skb->priority = cls_v6table_walk(table, pkt.addr, per, wide);
	return BENCH_TC_UNSPEC;
}

SEC("tc")
int bench_table6_lookup8(struct __sk_buff *skb)
{
	return bench_table6_lookup(skb, &bench_table6, BENCH_V6_PER_8, false);
}

SEC("tc")
int bench_table6_lookup_fx(struct __sk_buff *skb)
{
	return bench_table6_lookup(skb, &bench_table6_fx, BENCH_V6_PER_8, false);
}

SEC("tc")
int bench_table6_lookup32(struct __sk_buff *skb)
{
	return bench_table6_lookup(skb, &bench_table6_32, BENCH_V6_PER_32, false);
}

SEC("tc")
int bench_table6_lookup4m(struct __sk_buff *skb)
{
	return bench_table6_lookup(skb, &bench_table6_4m, MBT6_PER_ELEM, false);
}

SEC("tc")
int bench_table6_lookup_wide(struct __sk_buff *skb)
{
	return bench_table6_lookup(skb, &bench_table6_wide, MBT6_PER_ELEM, true);
}

/* The same walk with bpf_loop() instead of a bounded loop. */
struct bench_walk6 {
	struct cls_v6table_cur c;
	__u64 hi, lo;
	__u32 e;
	bool skip; /* e is two levels down: past a RANGE2 */
	int r;
};

static long bench_walk6_step(__u32 i, void *data)
{
	struct bench_walk6 *w = data;

	if (w->skip) {
		w->skip = false;
		return 0;
	}
	if (!(w->e & MBT6_CHILD)) {
		w->r = mbt6_class(w->e);
		return 1;
	}
	if (w->e == MBT6_ASK_TRIE || i >= MBT6_MAX_DEPTH)
		return 1;
	if ((w->e & MBT6_KINDS) != MBT6_RANGE2) {
		w->e = cls_v6table_step(&w->c, w->e,
					cls_v6table_slot(w->hi, w->lo, i + 1),
					BENCH_V6_PER_8);
		return 0;
	}
	if (i + 1 >= MBT6_MAX_DEPTH)
		return 1;
	w->e = cls_v6table_range2(&w->c, w->e,
				  cls_v6table_slot(w->hi, w->lo, i + 1) << 8 |
					  cls_v6table_slot(w->hi, w->lo, i + 2),
				  BENCH_V6_PER_8);
	w->skip = true;
	return 0;
}

SEC("tc")
int bench_table6_lookup_bpf_loop(struct __sk_buff *skb)
{
	struct bench_walk6 w = { .r = -1 };
	struct cls_pkt pkt = {};
	struct cls_config *cfg;
	__u32 zero = 0, *p;

	if (bench_dst6(skb, &pkt))
		return BENCH_TC_UNSPEC;
	cfg = bpf_map_lookup_elem(&config, &zero);
	w.c.table = bench_table6_of(&bench_table6, cfg);
	w.c.pool = MBT6_L1_ENTRIES;
	if (!w.c.table)
		return BENCH_TC_UNSPEC;
	__builtin_memcpy(&w.hi, pkt.addr, 8);
	__builtin_memcpy(&w.lo, pkt.addr + 8, 8);
	w.hi = bpf_be64_to_cpu(w.hi);
	w.lo = bpf_be64_to_cpu(w.lo);
	p = cls_v6table_at(&w.c, w.hi >> 48, BENCH_V6_PER_8);
	if (!p)
		return BENCH_TC_UNSPEC;
	w.e = p[(w.hi >> 48) % BENCH_V6_PER_8];
	bpf_loop(MBT6_MAX_DEPTH + 1, bench_walk6_step, &w, 0);
	skb->priority = w.r;
	return BENCH_TC_UNSPEC;
}

/* BPF has no popcount instruction. */
static __always_inline __u64 bench_popcount(__u64 x)
{
	x = x - ((x >> 1) & 0x5555555555555555ULL);
	x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
	return (x * 0x0101010101010101ULL) >> 56;
}

/* The Poptrie lookup: per level the vector and bases, at the end a leaf. */
static __always_inline int bench_pop6_walk(void *t, __u64 hi, __u64 lo)
{
	__u32 e, node, base, off, c, *p;
	__u64 vec, below, leafvec;
	int lvl;

	p = bench_elem8(t, hi >> 48);
	if (!p)
		return -1;
	e = p[(hi >> 48) % 2];
	if (!(e & POP6_NODE))
		return e & POP6_CLASS_MASK;
	node = e & ~POP6_NODE;
	for (lvl = 0; lvl < POP6_LEVELS; lvl++) {
		off = 16 + POP6_STRIDE * lvl;
		c = (off <= 58 ? hi >> (58 - off) :
		     off <= 122 ? lo >> (122 - off) : lo << (off - 122)) & 63;
		base = POP6_NODES + node * POP6_NODE_ENTRIES;
		p = bench_elem8(t, base);
		if (!p)
			return -1;
		vec = *(__u64 *)p;
		below = c == 63 ? ~0ULL : (2ULL << c) - 1;
		p = bench_elem8(t, base + 4);
		if (!p)
			return -1;
		if (vec >> c & 1) {
			node = p[0] + bench_popcount(vec & below) - 1;
			continue;
		}
		off = p[1];
		p = bench_elem8(t, base + 2);
		if (!p)
			return -1;
		leafvec = *(__u64 *)p;
		off += bench_popcount(leafvec & below) - 1;
		p = bench_elem8(t, off);
		if (!p)
			return -1;
		return p[off % 2] & POP6_CLASS_MASK;
	}
	return -1;
}

SEC("tc")
int bench_pop6_lookup(struct __sk_buff *skb)
{
	struct cls_pkt pkt = {};
	struct cls_config *cfg;
	__u32 zero = 0;
	__u64 hi, lo;
	void *t;

	if (bench_dst6(skb, &pkt))
		return BENCH_TC_UNSPEC;
	cfg = bpf_map_lookup_elem(&config, &zero);
	t = bench_table6_of(&bench_pop6, cfg);
	if (!t)
		return BENCH_TC_UNSPEC;
	__builtin_memcpy(&hi, pkt.addr, 8);
	__builtin_memcpy(&lo, pkt.addr + 8, 8);
	skb->priority = bench_pop6_walk(t, bpf_be64_to_cpu(hi),
					bpf_be64_to_cpu(lo));
	return BENCH_TC_UNSPEC;
}
