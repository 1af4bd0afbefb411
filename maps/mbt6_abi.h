/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Layout of the IPv6 table (maps/mbt6.c writes it, xdp_tc/lookup6.h reads
 * it): a multibit trie derived from the IPv6 LPM trie, in one
 * BPF_F_MMAPABLE ARRAY whose 8-byte elements read as one __u32[] of
 * entries (element k holds entries 2k and 2k + 1):
 *   [0, 2^16)               first level, indexed by address bits 0-15
 *   [2^16, 2^16 + 8 units)  node pool in units of 8 entries (32 bytes)
 *   the rest                bookkeeping for user space (maps/mbt6.h)
 * A node of depth d (1..14) covers a /(8 + 8d) and has 256 slots, one per
 * value of address byte d + 1.  It is stored as one of
 *   DIRECT: 32 units, slot i is entry i (one read);
 *   RANGE:  1 unit for slots that hold one value in [lo, hi] and another
 *           outside (at most three runs, the outer two equal): entry 0 is
 *           lo | hi << 8, entry 1 the value inside, entry 2 the one
 *           outside, so a slot inside takes one read, one outside two;
 *   TINY:   1 unit for at most MBT6_TINY_RUNS runs of equal slots: the
 *           first 8 bytes are the slots where runs 1..5 start (ascending,
 *           0xff past the last run), entries 2..7 the runs' values (the
 *           last repeated), so a lookup reads the starts, counts those
 *           <= the slot (capped at 5) and reads that run: two reads in
 *           one cache line.
 * An entry is a leaf ((prefix length + 1) << 12 | class index; 0: no
 * route), a node (MBT6_CHILD | kind | unit), or MBT6_ASK_TRIE where the
 * pool had no room: the trie answers for that range.
 */
#ifndef CLS_MBT6_ABI_H
#define CLS_MBT6_ABI_H

#define MBT6_PER_ELEM	  2
#define MBT6_L1_BITS	  16
#define MBT6_L1_ENTRIES	  (1U << MBT6_L1_BITS)
#define MBT6_SLOTS	  256
#define MBT6_MAX_DEPTH	  14 /* (128 - 16) / 8 */
#define MBT6_UNIT_ENTRIES 8
#define MBT6_DIRECT_UNITS (MBT6_SLOTS / MBT6_UNIT_ENTRIES)
#define MBT6_TINY_RUNS	  6
#define MBT6_TINY_LAST	  (MBT6_TINY_RUNS - 1)
#define MBT6_TINY_FIRST	  2 /* entry of run 0 in a TINY unit */

#define MBT6_CHILD	0x80000000U
#define MBT6_DIRECT	0x40000000U
#define MBT6_RANGE	0x20000000U
#define MBT6_RANGE_IN	1 /* entries of a RANGE unit */
#define MBT6_RANGE_OUT	2
#define MBT6_UNIT_MASK	0x0FFFFFFFU /* entry indices stay below 2^32 */
#define MBT6_MAX_UNITS	MBT6_UNIT_MASK
#define MBT6_ASK_TRIE	0xFFFFFFFFU
#define MBT6_CLASS_MASK 0xFFFU
#define MBT6_PLEN_SHIFT 12

/*
 * The run of a TINY node that slot lies in: how many of the run starts
 * (bytes of starts, lane k = bits 8k..8k+7) are <= slot, at most
 * MBT6_TINY_LAST.  No loop and no popcount (BPF has none): the bytes are
 * spread into 16-bit lanes, 0x100 + slot - start has bit 8 set exactly
 * when start <= slot, and a multiply sums the lanes.
 */
static inline __attribute__((always_inline)) __u32 mbt6_tiny_run(__u64 starts,
								 __u32 slot)
{
	const __u64 lanes = 0x0001000100010001ULL;
	const __u64 bytes = 0x00FF00FF00FF00FFULL;
	__u64 x = (0x100 | (__u64)slot) * lanes;
	__u64 n = ((x - (starts & bytes)) >> 8 & lanes) +
		  ((x - (starts >> 8 & bytes)) >> 8 & lanes);
	__u32 run = (__u32)((n * lanes) >> 48);

	return run < MBT6_TINY_LAST ? run : MBT6_TINY_LAST;
}

#endif /* CLS_MBT6_ABI_H */
