/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Rates without a qdisc lock: a policer (token bucket) and a pacer (a
 * departure time per packet, for fq), both over one 64-bit clock per class
 * that every CPU updates with compare-and-exchange, so no update is lost
 * (Cilium's bandwidth manager writes its clock without atomics and
 * exceeds its rate when CPUs race).
 *
 * The clock is the class's theoretical arrival time, tat, in ns of
 * CLOCK_MONOTONIC (bpf_ktime_get_ns(), the clock fq and TCP's departure
 * times use): the time from which the class is owed nothing.  Each packet
 * moves it on by the packet's cost, len / rate.  It may lag behind now by
 * the burst's cost at most (tau): that is the credit an idle class keeps.
 * A clock of 0 is a full bucket, so zeroing the state resets a class.
 * The clock counts from CLS_RATE_EPOCH before boot (maps/classifier_abi.h),
 * so that now less a burst never goes below zero: minutes after boot a
 * policer at 8 bit/s with a 64kb bucket still gets the whole bucket.
 *
 * The functions are pure in time: the caller passes now, so tests drive
 * them with the timestamps they choose (tests/prog/rate_test.bpf.c).
 */
#ifndef CLS_RATE_H
#define CLS_RATE_H

/*
 * Compare-and-exchange attempts per packet.  Each failure means another
 * CPU moved the clock meanwhile; a packet that loses every time is
 * treated as over the rate (dropped and counted), never let through
 * unaccounted.  With 2 CPUs it never happened in the tests.
 */
#define CLS_RATE_TRIES 8

enum cls_pace_verdict {
	CLS_PACE_NOW = 0, /* may leave at once */
	CLS_PACE_LATER,	  /* leaves at the departure time given */
	CLS_PACE_DROP,	  /* its departure would be past the horizon */
};

/* The ns len bytes take at the rate, rounded (maps/rate.c agrees). */
static __always_inline __u64 cls_rate_ns(const struct cls_rate *r, __u32 len)
{
	__u32 shift = r->shift & 63;

	if (len > CLS_RATE_MAX_LEN)
		len = CLS_RATE_MAX_LEN;
	return ((__u64)len * r->mult + ((1ULL << shift) >> 1)) >> shift;
}

/*
 * The earliest the clock may be at t (on the clock's scale): t less the
 * burst's time (tau).  burst * mult < 2^64, both being 32-bit, and tau
 * < CLS_RATE_EPOCH (shift >= 2 at the lowest rate), so no underflow.
 */
static __always_inline __u64 cls_rate_floor(const struct cls_rate *r, __u64 t)
{
	return t - (((__u64)r->burst * r->mult) >> (r->shift & 63));
}

static __always_inline __u64 cls_rate_max(__u64 a, __u64 b)
{
	return a > b ? a : b;
}

/*
 * Policing: the packet conforms while the clock is not ahead of now (the
 * bucket is not empty; a packet may take it below zero, as in the GCRA
 * of ATM), and then moves the clock on by its cost.  A packet over the
 * rate leaves the clock alone.  True: within the rate.
 */
static __always_inline bool cls_police(__u64 *tat, const struct cls_rate *r,
				       __u64 now, __u32 len)
{
	__u64 cost = cls_rate_ns(r, len), old, base, floor;
	int i;

	now += CLS_RATE_EPOCH;
	floor = cls_rate_floor(r, now);
	for (i = 0; i < CLS_RATE_TRIES; i++) {
		old = *(volatile __u64 *)tat;
		base = cls_rate_max(old, floor);
		if (base > now)
			return false;
		if (__sync_val_compare_and_swap(tat, old, base + cost) == old)
			return true;
	}
	return false;
}

/*
 * Pacing: the packet leaves when the class's clock says (or when it
 * wanted to leave, earliest >= now, if that is later), and moves the
 * clock on by its cost.  A departure more than the horizon after now is
 * dropped and leaves the clock alone.  *depart is set for NOW and LATER.
 */
static __always_inline enum cls_pace_verdict cls_pace(__u64 *tat,
						      const struct cls_rate *r,
						      __u64 now, __u64 earliest,
						      __u32 len, __u64 *depart)
{
	__u64 cost = cls_rate_ns(r, len), old, base, floor, d;
	int i;

	now += CLS_RATE_EPOCH;
	earliest += CLS_RATE_EPOCH;
	floor = cls_rate_floor(r, earliest);
	for (i = 0; i < CLS_RATE_TRIES; i++) {
		old = *(volatile __u64 *)tat;
		base = cls_rate_max(old, floor);
		d = cls_rate_max(base, earliest);
		if (d - now > r->horizon_ns)
			return CLS_PACE_DROP;
		if (__sync_val_compare_and_swap(tat, old, base + cost) == old) {
			*depart = d - CLS_RATE_EPOCH;
			return d > now ? CLS_PACE_LATER : CLS_PACE_NOW;
		}
	}
	return CLS_PACE_DROP;
}

#endif /* CLS_RATE_H */
