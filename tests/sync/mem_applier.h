/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * An in-memory stand-in for classifier's route library, for the sync
 * engine's unit tests (tests/unit/test_sync_engine.c) only.  It keeps hand
 * and synced routes with the library's precedence (a synced route never
 * removes or overwrites a hand one), refuses changes made without the
 * lock, injects failures and counts calls.  It tests the engine's logic;
 * the applier over the pinned maps (cli/cmd_sync.c) is tested by
 * tests/sync/, through the real command.
 */
#ifndef CLS_TESTS_MEM_APPLIER_H
#define CLS_TESTS_MEM_APPLIER_H

#include <stdbool.h>
#include <stddef.h>

#include "sync/applier.h"

struct mem_ent {
	__u8 addr[16];
	__u8 len;
	__u8 v6;
	__u8 state; /* 0 free, 1 used, 2 deleted */
	__u8 hand;
	__u32 class_idx;
};

struct mem_class {
	char name[CLASS_NAME_MAX + 1];
	__u32 classid;
};

struct mem_applier {
	struct mem_ent *slots;
	size_t cap, used, dead; /* dead: deleted slots still probed */
	size_t synced, hand;
	bool locked;
	struct mem_class classes[32];
	size_t nclasses;
	__u32 class_gen; /* bumped by mem_applier_class() */
	struct sync_status status;
	/* call counts, for tests */
	unsigned long n_lock, n_set, n_del, n_swap, n_dump, n_status;
	/* the last swap's routes came in the library's fill order */
	bool swap_in_order;
	/* the next mutating call after fail_after more fails with fail_err */
	long fail_after;
	int fail_err;
};

void mem_applier_init(struct mem_applier *m);
void mem_applier_free(struct mem_applier *m);
/* The vtable over m. */
void mem_applier_ops(struct mem_applier *m, struct sync_applier *a);

/* A class name the resolver knows; classids resolve to themselves. */
int mem_applier_class(struct mem_applier *m, const char *name, __u32 classid);
/* Routes by hand: add or replace (a synced route at p becomes hand). */
int mem_applier_hand(struct mem_applier *m, const struct cls_prefix *p,
		     __u32 class_idx);
int mem_applier_hand_del(struct mem_applier *m, const struct cls_prefix *p);
/* The route at p: 0 and *class_idx, *hand; -ENOENT. */
int mem_applier_get(const struct mem_applier *m, const struct cls_prefix *p,
		    __u32 *class_idx, bool *hand);

#endif
