// SPDX-License-Identifier: GPL-2.0-only
/*
 * Rates from two snapshots.  Classes come in index order from the maps
 * library, so the previous value of each is found by walking both lists
 * together.  Counters belong to the class index: a class deleted and
 * re-added at the same index keeps counting, so only a decrease (a stats
 * reset) restarts from zero.
 */
#include <stdio.h>
#include <stdlib.h>

#include "metrics/rates.h"

static __u64 both_dirs(const struct metrics_class *c, bool bytes)
{
	__u64 v = 0;
	int d;

	for (d = 0; d < METRICS_NR_DIRS; d++)
		v += bytes ? c->dir[d].bytes : c->dir[d].packets;
	return v;
}

static __u64 grown(__u64 now, __u64 before)
{
	return now >= before ? now - before : now;
}

static double per_second(__u64 delta, __u64 dt_ns)
{
	return dt_ns ? (double)delta * 1e9 / (double)dt_ns : 0;
}

static int by_bits(const void *a, const void *b)
{
	const struct rate_row *x = a, *y = b;

	if (x->bps != y->bps)
		return x->bps < y->bps ? 1 : -1;
	if (x->pps != y->pps)
		return x->pps < y->pps ? 1 : -1;
	return x->c->idx < y->c->idx ? -1 : x->c->idx > y->c->idx;
}

static int by_packets(const void *a, const void *b)
{
	const struct rate_row *x = a, *y = b;

	if (x->pps != y->pps)
		return x->pps < y->pps ? 1 : -1;
	return by_bits(a, b);
}

void rates_sort(struct rate_row *rows, size_t n, enum rate_sort sort)
{
	qsort(rows, n, sizeof(*rows),
	      sort == RATE_BY_PACKETS ? by_packets : by_bits);
}

void rates_compute(const struct metrics_snapshot *prev,
		   const struct metrics_snapshot *cur, __u64 dt_ns,
		   enum rate_sort sort, struct rate_row *rows)
{
	const struct metrics_class *c, *p;
	size_t i, j = 0;

	for (i = 0; i < cur->nr_classes; i++) {
		c = &cur->classes[i];
		while (prev && j < prev->nr_classes &&
		       prev->classes[j].idx < c->idx)
			j++;
		p = prev && j < prev->nr_classes &&
				    prev->classes[j].idx == c->idx
			    ? &prev->classes[j]
			    : NULL;
		rows[i].c = c;
		rows[i].packets = both_dirs(c, false);
		rows[i].bytes = both_dirs(c, true);
		rows[i].pps = per_second(
			grown(rows[i].packets, p ? both_dirs(p, false) : 0),
			dt_ns);
		rows[i].bps = 8 * per_second(grown(rows[i].bytes,
						   p ? both_dirs(p, true) : 0),
					     dt_ns);
	}
	rates_sort(rows, cur->nr_classes, sort);
}

void rates_totals(const struct rate_row *rows, size_t n,
		  const struct metrics_snapshot *prev,
		  const struct metrics_snapshot *cur, __u64 dt_ns,
		  struct rate_totals *t)
{
	__u64 now = 0, before = 0;
	size_t i;
	int r;

	t->pps = t->bps = 0;
	for (i = 0; i < n; i++) {
		t->pps += rows[i].pps;
		t->bps += rows[i].bps;
	}
	for (r = 0; r < CLS_R_MAX; r++) {
		now += cur->unclassified[r].count.packets;
		before += prev ? prev->unclassified[r].count.packets : 0;
	}
	t->unclassified_pps = per_second(grown(now, before), dt_ns);
}

void rates_si(double v, char *buf, size_t n)
{
	static const char prefix[] = "kMGTPE";
	int i = -1, decimals;

	while (v >= 999.5 && prefix[i + 1]) {
		v /= 1000;
		i++;
	}
	if (i < 0) {
		snprintf(buf, n, "%.0f", v);
		return;
	}
	decimals = v < 9.995 ? 2 : v < 99.95 ? 1 : 0;
	snprintf(buf, n, "%.*f%c", decimals, v, prefix[i]);
}
