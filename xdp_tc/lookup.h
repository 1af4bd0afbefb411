/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Address -> class index.  The generation in config picks the slot of the
 * tries and tables, so a packet sees one whole route set.  Each family
 * asks its table (IPv4: DIR-24-8, IPv6: xdp_tc/lookup6.h) when the slot
 * has one, the trie otherwise or where the table says so.
 */
#ifndef CLS_LOOKUP_H
#define CLS_LOOKUP_H

#include "xdp_tc/lookup6.h"

static __always_inline __u32 cls_valid_class(__u32 idx)
{
	return idx < cls_class_cap ? idx : CLS_DEFAULT_CLASS;
}

/* The longest match in the trie, the default class on a miss, -1: no trie */
static __always_inline int cls_lookup_trie(const struct cls_pkt *pkt, __u32 gen)
{
	union {
		struct cls_v4_key v4;
		struct cls_v6_key v6;
	} key;
	__u32 *val;
	void *trie;

	if (pkt->family == CLS_FAMILY_V4) {
		trie = bpf_map_lookup_elem(&trie_v4, &gen);
		key.v4.prefixlen = 32;
		__builtin_memcpy(key.v4.addr, pkt->addr, 4);
	} else {
		trie = bpf_map_lookup_elem(&trie_v6, &gen);
		key.v6.prefixlen = 128;
		__builtin_memcpy(key.v6.addr, pkt->addr, 16);
	}
	if (!trie)
		return -1;
	val = bpf_map_lookup_elem(trie, &key);
	return val ? cls_valid_class(cls_route_class(*val)) : CLS_DEFAULT_CLASS;
}

/* Entry idx of the table's __u32[] view, or -1 past the end of the map. */
static __always_inline int cls_dir24_entry(void *table, __u32 idx, __u32 *entry)
{
	__u32 elem = idx / CLS_DIR24_PER_ELEM;
	__u32 *pair;

	pair = bpf_map_lookup_elem(table, &elem);
	if (!pair)
		return -1;
	*entry = pair[idx % CLS_DIR24_PER_ELEM];
	return 0;
}

/*
 * The class from the slot's table, or -1 to ask the trie: the slot has no
 * table, the table says so, or an entry points outside the map (a table
 * smaller than its contents claim must not give a wrong class).
 */
static __always_inline int cls_lookup_dir24(const struct cls_pkt *pkt,
					    __u32 gen)
{
	__u32 addr, group, e;
	void *table;

	table = bpf_map_lookup_elem(&table_v4, &gen);
	if (!table)
		return -1;
	__builtin_memcpy(&addr, pkt->addr, 4);
	addr = bpf_ntohl(addr);
	if (cls_dir24_entry(table, addr >> 8, &e) || e == CLS_DIR24_ASK_TRIE)
		return -1;
	if (e & CLS_DIR24_GROUP_BIT) {
		group = e & ~CLS_DIR24_GROUP_BIT;
		if (group >= CLS_DIR24_MAX_GROUPS ||
		    cls_dir24_entry(table,
				    CLS_DIR24_L1_ENTRIES +
					    group * CLS_DIR24_GROUP_SIZE +
					    (addr & 0xff),
				    &e))
			return -1;
	}
	return cls_valid_class(cls_dir24_class(e));
}

/*
 * Returns the class index, or -1 when the trie that should answer is
 * missing from its slot.
 */
static __always_inline int cls_lookup_class(const struct cls_pkt *pkt,
					    const struct cls_config *cfg)
{
	__u32 gen = cfg ? cfg->gen & (CLS_GENERATIONS - 1) : 0;
	__u32 format;
	void *table;
	int idx;

	if (pkt->family == CLS_FAMILY_V4) {
		idx = cls_lookup_dir24(pkt, gen);
	} else {
		/* A table of a format we do not know: the trie answers. */
		format = cfg ? cfg->table6_format[gen] : 0;
		table = mbt6_format_known(format) ?
				bpf_map_lookup_elem(&table_v6, &gen) :
				NULL;
		idx = table ? cls_lookup_v6table(table, pkt->addr,
						 format == MBT6_FORMAT_WIDE) :
			      -1;
		if (idx >= 0)
			idx = cls_valid_class(idx);
	}
	if (idx >= 0)
		return idx;
	return cls_lookup_trie(pkt, gen);
}

#endif /* CLS_LOOKUP_H */
