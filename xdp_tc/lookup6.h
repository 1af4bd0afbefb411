/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * IPv6 address -> class index through the IPv6 table (layout in
 * maps/classifier_abi.h), which user space derives from the IPv6 trie.  The
 * table is an inner map of a map-in-map, and the verifier inlines no
 * lookup in an inner array: every element the walk touches costs a helper
 * call.  So elements are large (4 MiB) and reads go through a cursor that
 * remembers the last element it looked up: reads inside it are loads.
 * The walk reads one entry per DIRECT node, one or two per RANGE or RANGE2
 * node and two, side by side, per TINY node.
 */
#ifndef CLS_LOOKUP6_H
#define CLS_LOOKUP6_H

#include "maps/classifier_abi.h"

struct cls_v6table_cur {
	void *table;
	__u32 *p; /* element elem of the table, NULL: none yet */
	__u32 elem;
	__u32 pool; /* entry of unit 0: past the first level */
};

/*
 * The element holding entry idx, with per entries an element (a power of
 * two: the map's value size / 4); NULL past the end of the map.
 */
static __always_inline __u32 *cls_v6table_at(struct cls_v6table_cur *c,
					     __u32 idx, __u32 per)
{
	__u32 elem = idx / per;

	if (!c->p || elem != c->elem) {
		c->elem = elem;
		c->p = bpf_map_lookup_elem(c->table, &elem);
	}
	return c->p;
}

/*
 * One step down: e is a node entry, slot the address byte of its depth;
 * returns the entry of that slot, or MBT6_ASK_TRIE where the map is
 * shorter than the node claims.
 */
static __always_inline __u32 cls_v6table_step(struct cls_v6table_cur *c,
					      __u32 e, __u32 slot, __u32 per)
{
	__u32 idx = c->pool + (e & MBT6_UNIT_MASK) * MBT6_UNIT_ENTRIES;
	__u32 range, *p;

	if (e & MBT6_DIRECT) {
		idx += slot;
	} else {
		/* A unit is 8-aligned: entries 0 and 1 are one element. */
		p = cls_v6table_at(c, idx, per);
		if (!p)
			return MBT6_ASK_TRIE;
		p += idx % per & ~1U;
		if (e & MBT6_RANGE) {
			range = p[0];
			if (slot - (range & 0xff) <=
			    (range >> 8 & 0xff) - (range & 0xff))
				return p[MBT6_RANGE_IN];
			idx += MBT6_RANGE_OUT;
		} else {
			idx += MBT6_TINY_FIRST +
			       mbt6_tiny_run(*(__u64 *)p, slot);
		}
	}
	p = cls_v6table_at(c, idx, per);
	if (!p)
		return MBT6_ASK_TRIE;
	return p[idx % per];
}

/* The slot of the node of depth d (1..MBT6_MAX_DEPTH): address byte d + 1. */
static __always_inline __u32 cls_v6table_slot(__u64 hi, __u64 lo, __u32 d)
{
	return (d <= 6 ? hi >> (48 - 8 * d) : lo >> (112 - 8 * d)) & 0xff;
}

/*
 * A RANGE2 node e of depth d: key is address bytes d + 1 and d + 2, and
 * the entry returned is of depth d + 2.
 */
static __always_inline __u32 cls_v6table_range2(struct cls_v6table_cur *c,
						__u32 e, __u32 key, __u32 per)
{
	__u32 idx = c->pool + (e & MBT6_UNIT_MASK) * MBT6_UNIT_ENTRIES;
	__u32 range, *p = cls_v6table_at(c, idx, per);

	if (!p)
		return MBT6_ASK_TRIE;
	p += idx % per & ~1U;
	range = p[0];
	if (key - (range & 0xffff) <= (range >> 16) - (range & 0xffff))
		return p[MBT6_RANGE_IN];
	idx += MBT6_RANGE_OUT;
	p = cls_v6table_at(c, idx, per);
	return p ? p[idx % per] : MBT6_ASK_TRIE;
}

/*
 * The walk, for a map whose elements hold per entries, and a first level
 * of 16 bits or (wide) 24.  Its depth is the prefix's: a bounded loop of
 * at most MBT6_MAX_DEPTH steps (bpf_loop() measured slower,
 * bench/table6.c; unrolled, no faster at five times the JITed size, in a
 * trial not kept).
 */
static __always_inline int cls_v6table_walk(void *table, const __u8 addr[16],
					    __u32 per, bool wide)
{
	__u32 l1_bits = wide ? MBT6_L1_WIDE_BITS : MBT6_L1_BITS;
	struct cls_v6table_cur c = {.table = table, .pool = 1U << l1_bits};
	__u32 e, d, l1, *p;
	__u64 hi, lo;
	/*
	 * One depth a turn, so the verifier sees d follow the loop: past a
	 * RANGE2, e is two levels down and the next turn only passes; so
	 * does the first under a wide first level, whose nodes start at
	 * depth 2.
	 */
	bool skip = wide;

	__builtin_memcpy(&hi, addr, 8);
	__builtin_memcpy(&lo, addr + 8, 8);
	hi = bpf_be64_to_cpu(hi);
	lo = bpf_be64_to_cpu(lo);
	l1 = hi >> (64 - l1_bits);
	p = cls_v6table_at(&c, l1, per);
	if (!p)
		return -1;
	e = p[l1 % per];
	for (d = 1; d <= MBT6_MAX_DEPTH + 1; d++) {
		if (skip) {
			skip = false;
			continue;
		}
		if (!(e & MBT6_CHILD))
			return mbt6_class(e);
		if (e == MBT6_ASK_TRIE || d > MBT6_MAX_DEPTH)
			return -1;
		if ((e & MBT6_KINDS) != MBT6_RANGE2) {
			e = cls_v6table_step(&c, e, cls_v6table_slot(hi, lo, d),
					     per);
			continue;
		}
		if (d == MBT6_MAX_DEPTH)
			return -1;
		e = cls_v6table_range2(&c, e,
				       cls_v6table_slot(hi, lo, d) << 8 |
					       cls_v6table_slot(hi, lo, d + 1),
				       per);
		skip = true;
	}
	return -1;
}

/*
 * The class index for addr (16 bytes, network order): 0..4095, 0 being
 * the default class (no route), or -1: ask the trie (the table says so,
 * or the map is not what the table claims).  table: the inner map, an
 * ARRAY of MBT6_PER_ELEM entries per element; wide: format 3.
 */
static __always_inline int cls_lookup_v6table(void *table, const __u8 addr[16],
					      bool wide)
{
	return cls_v6table_walk(table, addr, MBT6_PER_ELEM, wide);
}

#endif /* CLS_LOOKUP6_H */
