/* SPDX-License-Identifier: GPL-2.0-only */
/* Per-class rates between two snapshots, for the live view. */
#ifndef CLS_METRICS_RATES_H
#define CLS_METRICS_RATES_H

#include "metrics/snapshot.h"

struct rate_row {
	const struct metrics_class *c; /* in the newer snapshot */
	__u64 packets, bytes;	       /* totals now, both directions */
	double pps, bps;	       /* packets/s, bits/s over the interval */
};

enum rate_sort {
	RATE_BY_BITS, /* bits/s, then packets/s */
	RATE_BY_PACKETS,
};

/*
 * One row per class of cur (rows holds cur->nr_classes), sorted by rate,
 * highest first, ties by class index.  A class absent from prev (new) or
 * whose counters went down (stats reset) counts from zero.  dt_ns is the
 * time between the two reads; 0 gives zero rates.
 */
void rates_compute(const struct metrics_snapshot *prev,
		   const struct metrics_snapshot *cur, __u64 dt_ns,
		   enum rate_sort sort, struct rate_row *rows);
/* Re-sort rows already computed (the view's sort key changed). */
void rates_sort(struct rate_row *rows, size_t n, enum rate_sort sort);

/* Totals of the rows, and unclassified packets/s over all reasons. */
struct rate_totals {
	double pps, bps, unclassified_pps;
};
void rates_totals(const struct rate_row *rows, size_t n,
		  const struct metrics_snapshot *prev,
		  const struct metrics_snapshot *cur, __u64 dt_ns,
		  struct rate_totals *t);

/* "999", "1.2k", "12.3M", "4.56G": three significant digits, SI prefix. */
void rates_si(double v, char *buf, size_t n);

#endif
