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

#include "xdp_tc/maps.bpf.h"
#include "xdp_tc/parse.h"
#include "xdp_tc/lookup.h"

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
