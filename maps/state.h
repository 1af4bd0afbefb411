/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The `state` map: one entry that only user space reads and writes.  It
 * marks the pin directory as ours, holds the layout version, the counts
 * kept where routes change, the IPv4 table's size policy, the sync
 * daemon's status, and the journal: the one multi-step change in
 * progress (there is one at most: changes hold the lock).  A process that
 * dies mid-change leaves its record; the next one to take the lock
 * finishes or rolls back what the record describes.
 * Its size never changes (a build of any layout reads the magic and the
 * layout version first); reserved bytes let fields be added without a
 * new layout, and the journal's records have room to grow.
 */
#ifndef CLS_STATE_H
#define CLS_STATE_H

#include <linux/types.h>

#include "maps/classifier_abi.h"

#define CLS_STATE_MAGIC 0x464c5343U /* "CSLF" */
#define CLS_STATE_SIZE	512

enum cls_table_mode {
	CLS_TABLE_AUTO = 0,
	CLS_TABLE_ON = 1,
	CLS_TABLE_OFF = 2,
};

/* Below this many IPv4 routes AUTO leaves IPv4 to the trie. */
#define CLS_TABLE_AUTO_ROUTES 1024

enum cls_op {
	CLS_OP_NONE = 0,
	CLS_OP_ROUTE,	    /* one route: trie, then its range of the table */
	CLS_OP_SWAP,	    /* a whole route set published through the slots */
	CLS_OP_STATS_RESET, /* counting off, counters zeroed, counting back */
	CLS_OP_CLASS,	    /* a class's action and name, or its deletion */
	CLS_OP_MIGRATE,	    /* a move to this layout (maps/migrate.c) */
	CLS_OP_SHAPE,	    /* a device's shaping tree made or removed */
	CLS_OP_CLASS_LOAD,  /* a class set's records (maps/class_load.c) */
};

/* What a CLS_OP_SWAP publishes, for the message after a crash. */
enum cls_swap_kind {
	CLS_SWAP_LOAD,
	CLS_SWAP_FLUSH,
	CLS_SWAP_SYNC,
	CLS_SWAP_TABLE,
};

/*
 * A device classifier shapes (maps/shape.c): its tree (lib/tctree.h) has
 * queues HTBs, each root class at rate, each default class at
 * default_rate (ceil: rate).  ifindex in the namespace of the commands
 * that shape it.
 */
#define CLS_SHAPE_DEVS	   4
#define CLS_SHAPE_REPLACED (1U << 0) /* its root was someone else's */
struct cls_shape_dev {
	__u32 ifindex; /* 0: a free slot */
	__u16 queues;
	__u16 flags;		  /* CLS_SHAPE_* */
	__u64 rate, default_rate; /* bytes a second */
};

#define CLS_JOURNAL_ROOM 256
struct cls_journal {
	__u32 op;    /* enum cls_op */
	__u32 phase; /* op-specific */
	__u32 pid;   /* who started it */
	__u32 pad;
	union {
		struct {
			__u32 family;
			__u32 len;
			__u8 addr[16];
			__u32 before; /* route value before, 0: none */
		} route;
		struct {
			__u32 gen;  /* the slot being published */
			__u32 kind; /* enum cls_swap_kind */
			__u32 routes[2][2];
			/* the table policy the new set was built for */
			__u32 table_mode;
			__u32 table_groups;
		} swap;
		struct {
			__u32 was_on;
		} stats;
		/* the class's records whole, settings unknown to us too */
		struct {
			__u32 idx;
			__u32 del;
			struct cls_class cls;
			struct cls_class_meta meta;
			/* the class's rate clocks start again (full) */
			__u32 rate_reset;
			/*
			 * Its HTB class before the change, deleted from
			 * every shaped device after the records are written
			 * (0: none, or the same as cls.classid).
			 */
			__u32 htb_old;
		} cls;
		struct {
			__u32 from; /* layout version migrated from */
		} migrate;
		/* a device's tree made (del 0) or removed (del 1) */
		struct {
			__u32 del;
			__u32 pad;
			struct cls_shape_dev dev;
		} shape;
		struct {
			__u32 n; /* records staged in maps/class_load */
		} load;
		__u8 raw[CLS_JOURNAL_ROOM];
	};
};

/* Why the sync daemon last read the kernel's tables whole. */
enum cls_resync_reason {
	CLS_RESYNC_NONE = 0,
	CLS_RESYNC_START,
	CLS_RESYNC_OVERRUN,
	CLS_RESYNC_RULES,    /* SIGHUP, or the classes the rules name changed */
	CLS_RESYNC_LINK,     /* a link went down, away, or was renamed */
	CLS_RESYNC_ADDR,     /* an IPv4 address went away */
	CLS_RESYNC_KERNEL,   /* a notification that did not say which route */
	CLS_RESYNC_RETRY,    /* after a failed dump, lock or change */
	CLS_RESYNC_PERIODIC, /* the configured interval (`resync`) */
	CLS_RESYNC_HAND,     /* synced routes changed by a hand command */
};

struct cls_sync_status {
	__u32 pid;	/* the daemon, 0 when none runs */
	__u32 routes;	/* synced routes installed */
	__u32 shadowed; /* selected, but a hand route holds the prefix */
	__u32 errors;
	__u64 started;	   /* unix time */
	__u64 last_resync; /* unix time */
	__u32 last_reason; /* enum cls_resync_reason */
	__u32 lag_us;	   /* kernel change -> classifier, last event */
	__u64 events;
};

struct cls_state {
	__u32 magic;
	__u32 layout;	    /* CLS_LAYOUT_VERSION */
	__u32 class_gen;    /* bumped on every class change */
	__u32 table_mode;   /* enum cls_table_mode */
	__u32 table_groups; /* with CLS_TABLE_ON */
	__u32 pad;
	__u32 routes[2][2]; /* [family slot][0 hand, 1 synced] */
	struct cls_sync_status sync;
	struct cls_shape_dev shape[CLS_SHAPE_DEVS]; /* the devices shaped */
	__u8 reserved[CLS_STATE_SIZE - 40 - sizeof(struct cls_sync_status) -
		      CLS_SHAPE_DEVS * sizeof(struct cls_shape_dev) -
		      sizeof(struct cls_journal)];
	struct cls_journal journal;
};

_Static_assert(sizeof(struct cls_journal) == 16 + CLS_JOURNAL_ROOM,
	       "journal layout");
_Static_assert(sizeof(struct cls_state) == CLS_STATE_SIZE, "state layout");

#endif
