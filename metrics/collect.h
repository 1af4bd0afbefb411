/* SPDX-License-Identifier: GPL-2.0-only */
/* Snapshots of classifier's pinned state, for the metrics views. */
#ifndef CLS_METRICS_COLLECT_H
#define CLS_METRICS_COLLECT_H

#include "metrics/snapshot.h"

struct cls_maps;

/*
 * Fill s (metrics_snapshot_init()ed) from maps opened with cls_maps_open();
 * maps the counters on first use.  version and build_id are left to the
 * caller.  0 or a negative errno.
 */
int metrics_collect(struct cls_maps *m, struct metrics_snapshot *s);

/*
 * The same from the pins under root (<bpffs>/classifier), opened and closed
 * around the read: what a long-running reader uses, so that maps replaced
 * meanwhile (table on/off, purge and setup) are followed.  -ENOENT when
 * nothing is pinned there.
 */
int metrics_collect_pinned(const char *root, struct metrics_snapshot *s);

#endif
