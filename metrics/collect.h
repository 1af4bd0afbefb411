/* SPDX-License-Identifier: GPL-2.0-only */
/* Snapshots of classifier's pinned state, for the metrics views. */
#ifndef CLS_METRICS_COLLECT_H
#define CLS_METRICS_COLLECT_H

#include "metrics/snapshot.h"

struct cls_maps;

/*
 * Fill s (metrics_snapshot_init()ed) from an open handle (read-only is
 * enough); maps the counters on first use.  0 or a negative errno.
 */
int metrics_collect(struct cls_maps *m, struct metrics_snapshot *s);

/*
 * The same from the pins under bpffs (NULL: the default), opened without
 * the lock and closed around the read: what a long-running reader uses,
 * so that whatever replaces maps meanwhile (route load, table on|off,
 * upgrade, purge and setup again) is followed.  read_only: through
 * read-only fds (cls_open_opts.read_only: no lookup tables' gauges).
 * -ENOENT when nothing is pinned there; other errors of cls_open() leave
 * their reason in cls_open_error().
 */
int metrics_collect_pinned(const char *bpffs, bool read_only,
			   struct metrics_snapshot *s);

#endif
