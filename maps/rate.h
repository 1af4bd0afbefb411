/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A class's rate as the data path reads it (struct cls_rate,
 * xdp_tc/rate.h), made from the operator's numbers.  A leaf: plain
 * arithmetic, unit-tested and used by the program tests.
 */
#ifndef CLS_MAPS_RATE_H
#define CLS_MAPS_RATE_H

#include "maps/classifier_abi.h"

/*
 * r for bytes_per_sec (1 .. RATE_MAX_BPS of lib/units.h) with the
 * burst, horizon and CE threshold given.  -ERANGE if the rate is 0.
 */
int cls_rate_set(struct cls_rate *r, __u64 bytes_per_sec, __u32 burst,
		 __u32 horizon_ns, __u32 ce_ns);
/* The ns len bytes take at r, as the data path computes it. */
__u64 cls_rate_ns(const struct cls_rate *r, __u32 len);
/* The burst's time: how far the clock may lag behind now. */
__u64 cls_rate_burst_ns(const struct cls_rate *r);

#endif
