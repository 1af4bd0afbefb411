/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Rates without a qdisc lock: a policer (token bucket) and a pacer (a
 * departure time per packet, for fq), both over one 64-bit clock per class
 * that every CPU moves with atomic adds, so no update is lost (Cilium's
 * bandwidth manager writes its clock without atomics and exceeds its rate
 * when CPUs race).
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
 * Every passed packet adds its cost to the clock with one atomic add,
 * which cannot fail, so the clock is the sum of what passed whatever the
 * CPUs do.  (A compare-and-exchange loop of 8 tries, the first design,
 * dropped packets within the rate: on this 2-CPU host, loaded, 1 packet
 * in 60000 lost 8 races in a row, the losses coming in runs when a CPU
 * is slowed; deploy/kernel/evidence/rate-cas-losses.txt.)  The only
 * write that must read first is the clamp of an idle class's clock up to floor,
 * and it is tried once: if another CPU moved the clock meanwhile, that CPU's
 * own write had just brought the clock to its floor (its now, a few ns from
 * ours), so the packet adds its cost like any other and the clock is at
 * most that skew short of the clamp.  *base: where the packet's cost
 * starts on the clock.
 */
static __always_inline void cls_rate_take(__u64 *tat, __u64 old, __u64 floor,
					  __u64 cost, __u64 *base)
{
	if (old < floor &&
	    __sync_val_compare_and_swap(tat, old, floor + cost) == old) {
		*base = floor;
		return;
	}
	*base = cls_rate_max(__sync_fetch_and_add(tat, cost), floor);
}

/* A packet that took its cost and may not go after all gives it back. */
static __always_inline void cls_rate_give_back(__u64 *tat, __u64 cost)
{
	__sync_fetch_and_sub(tat, cost);
}

/*
 * Policing: the packet conforms while the clock is not ahead of now (the
 * bucket is not empty; a packet may take it below zero, as in the GCRA
 * of ATM), and then moves the clock on by its cost.  A packet over the
 * rate leaves the clock alone: it is judged on a read, and one that the
 * other CPU overtook between its read and its add gives its cost back
 * (the other CPU may meanwhile have seen the clock that much ahead and
 * refused a packet: the error is on the side of the rate).  True: within
 * the rate.
 */
static __always_inline bool cls_police(__u64 *tat, const struct cls_rate *r,
				       __u64 now, __u32 len)
{
	__u64 cost = cls_rate_ns(r, len), old, base, floor;

	now += CLS_RATE_EPOCH;
	floor = cls_rate_floor(r, now);
	old = *(volatile __u64 *)tat;
	if (cls_rate_max(old, floor) > now)
		return false;
	cls_rate_take(tat, old, floor, cost, &base);
	if (base <= now)
		return true;
	cls_rate_give_back(tat, cost);
	return false;
}

/*
 * Pacing: the packet leaves when the class's clock says (or when it
 * wanted to leave, earliest >= now, if that is later), and moves the
 * clock on by its cost.  A departure more than the horizon after now is
 * dropped and leaves the clock alone (judged on a read; given back if
 * the add found the clock further on).  *depart is set for NOW and LATER.
 */
static __always_inline enum cls_pace_verdict cls_pace(__u64 *tat,
						      const struct cls_rate *r,
						      __u64 now, __u64 earliest,
						      __u32 len, __u64 *depart)
{
	__u64 cost = cls_rate_ns(r, len), old, base, floor, d;

	now += CLS_RATE_EPOCH;
	earliest += CLS_RATE_EPOCH;
	floor = cls_rate_floor(r, earliest);
	old = *(volatile __u64 *)tat;
	if (cls_rate_max(cls_rate_max(old, floor), earliest) - now >
	    r->horizon_ns)
		return CLS_PACE_DROP;
	cls_rate_take(tat, old, floor, cost, &base);
	d = cls_rate_max(base, earliest);
	if (d - now > r->horizon_ns) {
		cls_rate_give_back(tat, cost);
		return CLS_PACE_DROP;
	}
	*depart = d - CLS_RATE_EPOCH;
	return d > now ? CLS_PACE_LATER : CLS_PACE_NOW;
}

#endif /* CLS_RATE_H */
