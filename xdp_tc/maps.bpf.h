/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Map definitions of the data path: the maps of CLS_MAPS
 * (maps/classifier_abi.h) that the programs use, as libbpf wants them.
 * User space binds each by name to the pinned map of the same line.
 * The slotted maps' slots are empty here on purpose: user space creates
 * the inner maps and installs them.  Inner maps are given by sizes, not
 * BTF types: clang 14 emits the key structs of a nested map definition
 * as forward declarations, which libbpf cannot size.  The template of a
 * map sized at run time (stats: per CPU) is what libbpf sees; the pinned
 * map's size is what the programs get, and an index past it makes a
 * lookup fail, never overflow.
 */
#ifndef CLS_MAPS_BPF_H
#define CLS_MAPS_BPF_H

#define CLS_BPF_MAP_USER(...)
#define CLS_BPF_MAP_BPF(_name, _type, _key, _val, _n, _flags)                  \
	struct {                                                               \
		__uint(type, BPF_MAP_TYPE_##_type);                            \
		__uint(map_flags, _flags);                                     \
		__uint(max_entries, _n);                                       \
		__type(key, _key);                                             \
		__type(value, _val);                                           \
	} _name SEC(".maps");
#define CLS_BPF_MAP(_id, _name, _type, _key, _val, _n, _flags, _size, _who)    \
	CLS_BPF_MAP_##_who(_name, _type, _key, _val, _n, _flags)
#define CLS_BPF_SLOTS(_id, _name, _type, _key, _val, _n, _flags, _size, _kind) \
	struct cls_##_name##_inner {                                           \
		__uint(type, BPF_MAP_TYPE_##_type);                            \
		__uint(map_flags, _flags);                                     \
		__uint(max_entries, _n);                                       \
		__uint(key_size, sizeof(_key));                                \
		__uint(value_size, sizeof(_val));                              \
	};                                                                     \
	struct {                                                               \
		__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);                      \
		__uint(max_entries, CLS_GENERATIONS);                          \
		__type(key, __u32);                                            \
		__array(values, struct cls_##_name##_inner);                   \
	} _name SEC(".maps");

CLS_MAPS(CLS_BPF_MAP, CLS_BPF_SLOTS)

#endif /* CLS_MAPS_BPF_H */
