/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * When the sync engine reads the kernel's tables whole again (a resync).
 * Two kinds of wants:
 *  - at a time: the start, new rules, a link down, a failed dump retried
 *    (schedule_want());
 *  - once the tables are quiet: after events were lost (an overrun) or a
 *    dump was taken while the tables changed (schedule_settle()).  A dump
 *    is no snapshot: what changes while the kernel walks a table may be
 *    missed (IPv6 restarts its walk and skips routes), so a resync taken
 *    in a storm is followed by one taken in the calm after it.  Quiet is
 *    SYNC_QUIET_MS without a route event or an overrun; a storm that
 *    never calms down still gets one every SYNC_SETTLE_MAX_MS.
 * Resyncs are spaced: the next starts no sooner than the last took, and
 * SYNC_RESYNC_HOLDOFF_MS at least, after it ended, so resyncs of a large
 * table never take more than half the time.
 */
#ifndef CLS_SYNC_SCHEDULE_H
#define CLS_SYNC_SCHEDULE_H

#include <linux/types.h>

#define SYNC_RESYNC_HOLDOFF_MS 1000
#define SYNC_QUIET_MS	       1000
#define SYNC_SETTLE_MAX_MS     30000

struct schedule {
	__u64 due; /* CLOCK_MONOTONIC ns; 0: no want at a time */
	char reason[32];
	__u64 settle_since; /* a want for the quiet; 0: none */
	char settle_reason[32];
	__u64 last_activity;	    /* the last route event or overrun */
	__u64 last_start, last_end; /* of the last resync; 0: none yet */
};

/* A resync at now_ns + delay_ms (the earliest want wins). */
void schedule_want(struct schedule *s, const char *reason,
		   unsigned int delay_ms, __u64 now_ns);
/* A resync once the tables have been quiet (the first reason stays). */
void schedule_settle(struct schedule *s, const char *reason, __u64 now_ns);
/* The kernel is busy: a route event or an overrun, now. */
void schedule_activity(struct schedule *s, __u64 now_ns);
/* When the next resync is due (0: none wanted) and why. */
__u64 schedule_due(const struct schedule *s, const char **reason);
/*
 * A resync starts: it answers every want made so far (those made while
 * it runs stay).
 */
void schedule_begin(struct schedule *s, __u64 now_ns);
/* It ended (well or not: a failure wants a retry of its own). */
void schedule_end(struct schedule *s, __u64 now_ns);

#endif
