/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the sync engine needs from classifier's route library, as a table
 * of operations so that the engine can be tested against an in-memory
 * store and run against the pinned maps.  Every operation returns 0 (or
 * a count) or a negative errno; none prints.
 *
 * Routes carry a source: added by hand (route add/replace/load) or
 * synced.  The library decides precedence, and the engine relies on it:
 * a synced route never removes or overwrites a hand route.
 */
#ifndef CLS_SYNC_APPLIER_H
#define CLS_SYNC_APPLIER_H

#include <stddef.h>
#include <time.h>
#include <linux/types.h>

#include "lib/parse.h"

/*
 * The layout of the library's struct cls_route, so an applier may pass
 * arrays through; flags is 0 from the engine (the library marks synced
 * routes itself).
 */
struct sync_route {
	struct cls_prefix prefix;
	__u32 class_idx;
	__u32 flags;
};

/* What `classifier status` shows of the daemon; pushed after each change. */
struct sync_status {
	__u32 pid;
	__u32 running;	 /* 0 once the daemon has stopped */
	__u64 started;	 /* CLOCK_REALTIME, ns */
	__u64 routes_v4; /* synced routes the engine holds */
	__u64 routes_v6;
	__u64 shadowed;	     /* prefixes a hand route holds */
	__u64 kernel_routes; /* kernel routes some rule selects */
	__u64 events;	     /* route messages read */
	__u64 changes;	     /* set/del calls made */
	__u64 resyncs;
	__u64 overruns; /* ENOBUFS on the event socket */
	__u64 errors;
	__u64 last_resync;    /* CLOCK_REALTIME, ns; 0: never */
	__u32 last_resync_ms; /* how long it took */
	__u32 lag_us;	      /* last batch: first message read to applied */
	__u32 lag_max_us;     /* the largest since start */
	__u32 rules;
	/*
	 * Why: "start", "reload" (the rules), "overrun", "link down", "link
	 * deleted", "link renamed", "address removed", "retry" (a failed
	 * resync, after "lock failed" or "apply failed"), or the kernel's
	 * messages did not say which route changed: "ambiguous replace",
	 * "ambiguous delete", "partial multipath delete", "inconsistent ipv6
	 * route", "inconsistent ipv6 delete".
	 */
	char last_resync_reason[32];
	char last_error[128];  /* "" if none */
	__u64 last_error_time; /* CLOCK_REALTIME, ns */
};

/*
 * What other processes may have changed under the daemon, read without
 * the lock (one map read): a generation of the class catalogue and the
 * route counts by source.
 */
struct sync_outside {
	__u32 class_gen; /* moves on every class change */
	__u64 synced[2]; /* routes installed by sync: [0] IPv4, [1] IPv6 */
	__u64 hand[2];	 /* routes added by hand */
};

/* The library's view: all of these work on synced routes only. */
struct sync_applier {
	void *ctx;
	/*
	 * The pin-directory lock, taken around each batch of changes and
	 * released between batches so the CLI keeps working; -ETIMEDOUT
	 * after wait_ms.
	 */
	int (*lock)(void *ctx, unsigned int wait_ms);
	/* Returns what the library's upkeep at unlock returns. */
	int (*unlock)(void *ctx);
	/* Add or overwrite the synced route at p; -EEXIST: a hand route holds p. */
	int (*set)(void *ctx, const struct cls_prefix *p, __u32 class_idx);
	/*
	 * Remove the synced route at p; -ENOENT: no route there, -EPERM: a
	 * hand route holds p (left alone).
	 */
	int (*del)(void *ctx, const struct cls_prefix *p);
	/*
	 * Replace the whole synced set: begin, add (any order, in chunks),
	 * then commit, which publishes the new set atomically (a packet sees
	 * the old set or the new one, never a gap; hand routes stay) and
	 * returns how many routes it skipped because a hand route holds their
	 * prefix; abort leaves everything as it was.
	 */
	int (*swap_begin)(void *ctx, void **txn);
	int (*swap_add)(void *ctx, void *txn, const struct sync_route *r,
			size_t n);
	int (*swap_commit)(void *ctx, void *txn);
	void (*swap_abort)(void *ctx, void *txn);
	/* The synced routes of one family, in any order; caller frees. */
	int (*dump)(void *ctx, int family, struct sync_route **out, size_t *n);
	/* A class word (classid "1:10" or a name) to its index; -ENOENT. */
	int (*resolve)(void *ctx, const char *tok, __u32 *class_idx);
	/* Publish the daemon's status for `classifier status`; under the lock. */
	int (*status)(void *ctx, const struct sync_status *s);
	/* Optional (NULL: never looked at): see struct sync_outside. */
	int (*outside)(void *ctx, struct sync_outside *o);
};

/* Prefix order: address bytes, then length (0: the same prefix). */
int sync_prefix_cmp(const struct cls_prefix *a, const struct cls_prefix *b);

#endif
