/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Prometheus text exposition format (version 0.0.4) of a snapshot: what
 * `classifier stats prometheus` prints and the exporter serves.  Names
 * follow Prometheus conventions: classifier_ prefix, base units (bytes,
 * seconds), _total for counters.  docs/metrics.md lists them.
 */
#ifndef CLS_METRICS_PROM_H
#define CLS_METRICS_PROM_H

#include <stdio.h>

#include "metrics/snapshot.h"

#define PROM_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

/* Every metric of s; 0, or -EIO if f reported a write error. */
int prom_write(FILE *f, const struct metrics_snapshot *s);
/*
 * What to serve when no snapshot could be read (nothing pinned yet, ...):
 * classifier_up 0, so an alert can tell "down" from "no data".
 */
int prom_write_down(FILE *f);
/*
 * The same into path atomically, for node_exporter's textfile collector:
 * a temporary file beside it, fsync, rename over path, fsync of the
 * directory.  The file is world-readable (the collector runs as another
 * user).  0 or a negative errno; path is replaced whole or not at all
 * (an error after the rename can only be the directory's fsync).
 */
int prom_write_file(const char *path, const struct metrics_snapshot *s);

#endif
