/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The sync engine: from kernel routes and rules to the synced routes,
 * through an applier (sync/applier.h).  No sockets here: the daemon feeds
 * it decoded routes, from a dump (resync) or from notifications (events),
 * and tells it when a batch ends.
 *
 * Desired state: for each prefix, among the kernel routes some rule
 * selects (in any selected table), the one with the lowest metric, then
 * the earliest rule, decides the class.  That is the kernel's own choice
 * within one table (lowest metric wins) and the rule order across tables.
 *
 * Changes reach the applier in batches: one lock per batch; a batch that
 * changes more than a quarter of the synced prefixes (at least 1024)
 * becomes one whole-set swap instead of single changes.  A resync
 * compares a fresh dump with the applier's synced set and applies the
 * difference the same way, so a restart, an overrun or a reload never
 * passes through a state where packets fall to the default class.  A
 * resync onto an empty synced set (a first start) streams the dump into
 * the swap as it is read.
 */
#ifndef CLS_SYNC_ENGINE_H
#define CLS_SYNC_ENGINE_H

#include <stdbool.h>
#include <linux/types.h>

#include "sync/applier.h"
#include "sync/kroute.h"
#include "sync/rules.h"

struct sync_engine;

#define SYNC_LOCK_WAIT_MS 10000

int sync_engine_new(const struct sync_applier *a, unsigned int lock_wait_ms,
		    struct sync_engine **out);
void sync_engine_free(struct sync_engine *e);

/*
 * Take rs (moved: rs is left empty).  What the engine knew was decided by
 * the old rules: it is dropped, and the caller resyncs before anything
 * else reaches the engine.
 */
int sync_engine_set_rules(struct sync_engine *e, struct sync_rules *rs);
const struct sync_rules *sync_engine_rules(const struct sync_engine *e);

/*
 * A route notification: del for RTM_DELROUTE, nlflags the message's
 * (NLM_F_REPLACE matters).  now_ns: when it was read (CLOCK_MONOTONIC),
 * for the lag.
 */
void sync_engine_route(struct sync_engine *e, bool del, __u16 nlflags,
		       const struct kroute *r, __u64 now_ns);
/*
 * A link notification.  The kernel removes IPv4 routes through a device
 * that goes down or away without a message for each; so that, and a
 * renamed device when rules name devices, asks for a resync.
 */
void sync_engine_link(struct sync_engine *e, __u32 ifindex, const char *name,
		      bool up, bool deleted);
/* An IPv4 address went away: routes using it may be gone unannounced. */
void sync_engine_addr_gone(struct sync_engine *e);

/*
 * Between batches, what other processes changed (the applier's
 * outside()): a class change resolves the rules' class words again
 * (where: the rules' source, for errors); synced routes a hand command
 * took over or deleted, or a hand route over a synced prefix removed,
 * ask for a resync, which puts the synced routes right and counts the
 * shadowed ones.
 */
void sync_engine_check_outside(struct sync_engine *e, const char *where,
			       __u64 now_ns);

/* Apply the batch of changes the events since the last call made. */
int sync_engine_commit(struct sync_engine *e);

/*
 * Resync: begin sets what the engine knows aside, add feeds each dumped
 * route, end diffs against the applier and applies (started_ns: when the
 * dump began, CLOCK_MONOTONIC, for the log); abort (a failed dump) leaves
 * the applier alone, takes back what the engine knew and asks for
 * another resync.  A streamed resync holds the applier's lock from begin
 * to end or abort.
 *
 * Route events may come between begin and end, in the order the kernel
 * queued them among the dumped routes (sync/rtsock.h): they go into the
 * resync, which is then dirty; a dirty resync asks for another once the
 * tables are quiet (sync/schedule.h).
 */
int sync_engine_resync_begin(struct sync_engine *e);
int sync_engine_resync_add(struct sync_engine *e, const struct kroute *r);
int sync_engine_resync_end(struct sync_engine *e, const char *reason,
			   __u64 started_ns);
void sync_engine_resync_abort(struct sync_engine *e, int err, __u64 now_ns);
/* Nothing changed so far during this resync (no route event, no overrun). */
bool sync_engine_resync_clean(const struct sync_engine *e);
/* The kernel said its dump may be inconsistent (NLM_F_DUMP_INTR). */
void sync_engine_resync_dirty(struct sync_engine *e);
/*
 * The kernel ended the dump of this table (0: of every table of the
 * family) early: the routes it did not list are kept, not withdrawn.
 */
void sync_engine_resync_partial(struct sync_engine *e, int family, __u32 table);

/* Ask for a resync no sooner than delay_ms from now_ns (merged). */
void sync_engine_want_resync(struct sync_engine *e, const char *reason,
			     unsigned int delay_ms, __u64 now_ns);
/*
 * When the next resync is due (CLOCK_MONOTONIC ns), 0 if none is wanted;
 * *reason says why.
 */
__u64 sync_engine_resync_due(const struct sync_engine *e, const char **reason);

/* Record an overrun (ENOBUFS): events were lost; resync once quiet. */
void sync_engine_overrun(struct sync_engine *e, __u64 now_ns);
/* Record an error for status (and the log); err 0: what says it all. */
void sync_engine_error(struct sync_engine *e, int err, const char *what);

struct sync_status *sync_engine_status(struct sync_engine *e);
/* Push the status to the applier (taking the lock for it). */
int sync_engine_status_push(struct sync_engine *e);

#endif
