/* SPDX-License-Identifier: GPL-2.0-only */
/* The sync engine's hashes: of prefixes (sync/rtab.c, sync/engine.c), of
 * nexthops (sync/kroute.c). */
#ifndef CLS_SYNC_HASH_H
#define CLS_SYNC_HASH_H

#include <stddef.h>
#include <string.h>
#include <linux/types.h>

/* murmur3's finaliser: every input bit reaches every output bit. */
static inline __u32 sync_mix32(__u32 h)
{
	h ^= h >> 16;
	h *= 0x85ebca6bU;
	h ^= h >> 13;
	h *= 0xc2b2ae35U;
	h ^= h >> 16;
	return h;
}

/* An address (n: 4 or 16 bytes) into h. */
static inline __u32 sync_hash_addr(__u32 h, const __u8 *p, size_t n)
{
	size_t i;
	__u32 w;

	for (i = 0; i + 4 <= n; i += 4) {
		memcpy(&w, p + i, 4);
		h = sync_mix32(h ^ w);
	}
	return h;
}

/* A prefix: its address (n bytes) and length. */
static inline __u32 sync_hash_prefix(const __u8 *addr, size_t n, __u8 len)
{
	return sync_hash_addr(sync_mix32(len + 0x9e3779b9U), addr, n);
}

#endif
