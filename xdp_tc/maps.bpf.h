/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Map definitions of the data path.  The names are part of the contract
 * with user space, which finds the maps by these names in the skeleton and
 * pins them: do not rename.
 */
#ifndef CLS_MAPS_BPF_H
#define CLS_MAPS_BPF_H

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cls_config);
} config SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, CLS_MAX_CLASSES);
	__type(key, __u32);
	__type(value, struct cls_class);
} classes SEC(".maps");

/* Never read here: it lives in BPF memory so the CLI can stay stateless. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, CLS_MAX_CLASSES);
	__type(key, __u32);
	__type(value, struct cls_class_meta);
} class_meta SEC(".maps");

/*
 * The tries and the IPv4 table sit in two-slot ARRAY_OF_MAPS, one slot per
 * generation (cls_config.gen): user space builds a whole new route set in
 * the slot packets do not use and publishes it with one write of the
 * generation.  The slots are empty here on purpose: user space creates
 * the inner maps and installs them.
 * Sizes rather than BTF types: clang 14 emits the key structs of a nested
 * map definition as forward declarations, which libbpf cannot size.
 */
struct cls_trie_v4_inner {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, CLS_MAX_ROUTES_V4);
	__uint(key_size, sizeof(struct cls_v4_key));
	__uint(value_size, sizeof(__u32));
};

struct cls_trie_v6_inner {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, CLS_MAX_ROUTES_V6);
	__uint(key_size, sizeof(struct cls_v6_key));
	__uint(value_size, sizeof(__u32));
};

/*
 * A table's size follows the route set, so its inner map is
 * BPF_F_INNER_MAP: any size fits the slot.  A value is a pair of __u32
 * entries (array elements are 8 bytes apart anyway), so the mmap is a
 * plain __u32[].  max_entries here only shapes the template.
 */
struct cls_table_inner {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE | BPF_F_INNER_MAP);
	__uint(max_entries, CLS_DIR24_HDR_ENTRIES / CLS_DIR24_PER_ELEM);
	__type(key, __u32);
	__type(value, __u64);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, CLS_GENERATIONS);
	__type(key, __u32);
	__array(values, struct cls_trie_v4_inner);
} trie_v4 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, CLS_GENERATIONS);
	__type(key, __u32);
	__array(values, struct cls_trie_v6_inner);
} trie_v6 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, CLS_GENERATIONS);
	__type(key, __u32);
	__array(values, struct cls_table_inner);
} table_v4 SEC(".maps");

/*
 * The IPv6 table (layout in classifier_abi.h, MBT6_*): an inner map of
 * 4 MiB elements, as many as the IPv6 route set needs.
 */
struct cls_table6_inner {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE | BPF_F_INNER_MAP);
	__uint(max_entries, 1);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, MBT6_PER_ELEM * sizeof(__u32));
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, CLS_GENERATIONS);
	__type(key, __u32);
	__array(values, struct cls_table6_inner);
} table_v6 SEC(".maps");

/*
 * One slice of CLS_STATS_STRIDE counters per possible CPU; user space raises
 * max_entries to nr_possible_cpus * CLS_STATS_STRIDE before load.  An index
 * past the end (user space forgot) makes the lookup fail, never overflow.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, CLS_STATS_STRIDE);
	__type(key, __u32);
	__type(value, struct cls_counter);
} stats SEC(".maps");

#endif /* CLS_MAPS_BPF_H */
