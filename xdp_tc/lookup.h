/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Address -> class index, through the trie user space put in slot 0. */
#ifndef CLS_LOOKUP_H
#define CLS_LOOKUP_H

/*
 * Returns the class index of the longest matching prefix, the default class
 * on a miss or an index out of range, or -1 when slot 0 holds no trie.
 */
static __always_inline int cls_lookup_class(const struct cls_pkt *pkt)
{
	union {
		struct cls_v4_key v4;
		struct cls_v6_key v6;
	} key;
	__u32 zero = 0;
	__u32 *idx;
	void *trie;

	if (pkt->family == CLS_FAMILY_V4) {
		trie = bpf_map_lookup_elem(&routes_v4, &zero);
		key.v4.prefixlen = 32;
		__builtin_memcpy(key.v4.addr, pkt->addr, 4);
	} else {
		trie = bpf_map_lookup_elem(&routes_v6, &zero);
		key.v6.prefixlen = 128;
		__builtin_memcpy(key.v6.addr, pkt->addr, 16);
	}
	if (!trie)
		return -1;
	idx = bpf_map_lookup_elem(trie, &key);
	if (!idx || *idx >= CLS_MAX_CLASSES)
		return CLS_DEFAULT_CLASS;
	return *idx;
}

#endif /* CLS_LOOKUP_H */
