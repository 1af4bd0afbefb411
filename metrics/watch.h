/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `classifier stats watch`: per-class packets/s and bits/s, highest first,
 * redrawn in place on a terminal every interval; on anything else (or
 * with json) one JSON object per interval, one per line.
 */
#ifndef CLS_METRICS_WATCH_H
#define CLS_METRICS_WATCH_H

#include <stdbool.h>
#include <stdio.h>

#include "metrics/rates.h"
#include "metrics/snapshot.h"

struct watch_opts {
	unsigned int interval_ms; /* 0: WATCH_INTERVAL_MS */
	bool json;		  /* JSON lines even on a terminal */
	unsigned long count;	  /* intervals shown; 0: until q or a signal */
};
#define WATCH_INTERVAL_MS     1000
#define WATCH_MIN_INTERVAL_MS 100

/*
 * Run the view on stdin/stdout until q, Ctrl-C, SIGTERM or count
 * intervals.  The terminal is restored however it ends (but SIGKILL).
 * 0, or a negative errno from src->read or from the terminal.
 */
int watch_run(const struct watch_opts *o, const struct metrics_source *src);

/* One interval, as the view shows it. */
struct watch_frame {
	const struct metrics_snapshot *cur;
	const struct rate_row *rows; /* cur->nr_classes of them, sorted */
	struct rate_totals tot;
	__u64 dt_ns; /* 0: first read, no rates yet */
	enum rate_sort sort;
	unsigned int interval_ms;
	int cols, lines; /* terminal size */
};

/* The screen: starts at the top left, each line cut to cols, clears the rest.
 */
void watch_draw(FILE *f, const struct watch_frame *w);
/* One JSON object and a newline. */
void watch_json(FILE *f, const struct watch_frame *w);

#endif
