// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <string.h>

#include "maps/rate.h"

#define NSEC_PER_SEC 1000000000ULL

int cls_rate_set(struct cls_rate *r, __u64 bytes_per_sec, __u32 burst,
		 __u32 horizon_ns, __u32 ce_ns)
{
	unsigned __int128 m = 0;
	int shift;

	if (!bytes_per_sec)
		return -ERANGE;
	/* The largest shift whose rounded ns-per-byte fits 32 bits. */
	for (shift = 63; shift >= 0; shift--) {
		m = (((unsigned __int128)NSEC_PER_SEC << shift) +
		     bytes_per_sec / 2) /
		    bytes_per_sec;
		if (m <= 0xffffffffU)
			break;
	}
	if (shift < 0)
		return -ERANGE;
	memset(r, 0, sizeof(*r));
	r->mult = (__u32)m;
	r->shift = shift;
	r->burst = burst;
	r->horizon_ns = horizon_ns;
	r->ce_ns = ce_ns;
	return 0;
}

__u64 cls_rate_ns(const struct cls_rate *r, __u32 len)
{
	__u64 x;

	if (len > CLS_RATE_MAX_LEN)
		len = CLS_RATE_MAX_LEN;
	x = (__u64)len * r->mult;
	return (x + ((1ULL << r->shift) >> 1)) >> r->shift;
}

__u64 cls_rate_burst_ns(const struct cls_rate *r)
{
	return ((__u64)r->burst * r->mult) >> r->shift;
}
