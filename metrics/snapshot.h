/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Everything the metrics show, read at one moment: the seam between the
 * maps library (metrics/collect.c fills it) and the views (prom.c,
 * exporter.c, watch.c), which never touch a map.  Plain C, so the views
 * are tested on hand-made snapshots.
 *
 * A table that could not be read has its `available` flag false; the views then
 * show nothing for it (no zero that could be mistaken for a value).
 */
#ifndef CLS_METRICS_SNAPSHOT_H
#define CLS_METRICS_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "maps/classifier_abi.h"
#include "lib/parse.h" /* CLASSID_STRLEN */

enum metrics_dir {
	METRICS_EGRESS,	 /* tc egress: classified by destination */
	METRICS_INGRESS, /* XDP ingress: classified by source */
	METRICS_NR_DIRS,
};

struct metrics_class {
	__u32 idx;
	char label[CLASSID_STRLEN]; /* "1:10" as tc writes it; "default" */
	char name[CLS_NAME_MAX];
	struct cls_counter dir[METRICS_NR_DIRS]; /* summed over CPUs */
	/* police or pace: what the rate did, summed over CPUs */
	const char *rate_kind; /* static: "police", "pace"; NULL: no rate */
	struct cls_rate_counter rate[METRICS_NR_DIRS];
};

struct metrics_reason {
	const char *name; /* static: cls_reason_name() */
	struct cls_counter count;
};

/*
 * A lookup table: IPv4's DIR-24-8 counts its room in second-level groups
 * (one /24 each), IPv6's multibit table in 32-byte units of its pool.
 */
struct metrics_table {
	bool available; /* read (the live tables need CAP_SYS_ADMIN) */
	bool on;	/* the live route set has a table */
	__u64 capacity; /* groups, units */
	__u64 used;
	__u64 ask_trie; /* IPv4: /24s, IPv6: slots left to the trie */
	__u64 bytes;	/* size of the map */
};

enum metrics_family { METRICS_V4, METRICS_V6, METRICS_NR_FAMILIES };
enum metrics_route_src { METRICS_HAND, METRICS_SYNCED, METRICS_NR_SOURCES };

struct metrics_attachment {
	char dev[64];
	const char *hook; /* static: "egress", "xdp" */
	const char *mode; /* static: "tcx", "tc", "native", "generic", ... */
	bool live;	  /* false: the device is gone (defunct link) */
	__u32 prog_id;
};

/* A 64-bit build id in hex; "" when unknown. */
#define METRICS_BUILD_ID_LEN 17

struct metrics_prog {
	__u32 id;
	char name[16]; /* BPF_OBJ_NAME_LEN */
	char tag[17];  /* hex of the kernel's program tag */
	/* the classifier build it came from; "": older build, or unreadable */
	char build_id[METRICS_BUILD_ID_LEN];
	/* counted only while the kernel's BPF run-time accounting is on */
	__u64 run_time_ns;
	__u64 run_cnt;
};

/* The sync daemon's own figures are meaningful only while it runs. */
struct metrics_sync {
	bool running;
	__u64 routes;	/* synced routes installed */
	__u64 shadowed; /* selected prefixes a hand route holds */
	__u64 errors;
	__u64 events;	   /* route changes received */
	__u64 started;	   /* unix seconds */
	__u64 last_resync; /* unix seconds, 0: never */
	__u64 lag_us;	   /* kernel change -> classifier, last event */
};

struct metrics_snapshot {
	/* the counters and their names */
	bool stats_on;
	struct metrics_class *classes; /* class_cap allocated */
	size_t nr_classes, class_cap;
	__u32 class_room; /* classes the maps have room for (cls_maps.cap) */
	struct metrics_reason unclassified[CLS_R_MAX];
	unsigned int nr_cpus;

	/* the tables */
	__u64 routes[METRICS_NR_FAMILIES][METRICS_NR_SOURCES];
	struct metrics_table table[METRICS_NR_FAMILIES];

	/* where the programs run */
	struct metrics_attachment *att;
	size_t nr_att;
	struct metrics_prog *prog; /* one per distinct program id */
	size_t nr_prog;
	size_t att_cap; /* room in att and in prog */
	struct {
		bool known; /* /proc/sys/kernel/bpf_stats_enabled was read */
		bool on;
	} bpf_stats;

	/* versions: of the pins, and of the binary reading them */
	__u32 layout;
	const char *version; /* static */
	char build_id[METRICS_BUILD_ID_LEN];

	struct metrics_sync sync;

	/* of this snapshot */
	__u64 time_ns;	  /* CLOCK_REALTIME when read */
	__u64 collect_ns; /* how long reading took */
};

/* One empty snapshot; -ENOMEM. */
int metrics_snapshot_init(struct metrics_snapshot *s);
/* Room for n classes; -ENOMEM. */
int metrics_snapshot_reserve_classes(struct metrics_snapshot *s, size_t n);
void metrics_snapshot_free(struct metrics_snapshot *s);
/* Room for n attachments (and as many programs); -ENOMEM. */
int metrics_snapshot_reserve_att(struct metrics_snapshot *s, size_t n);

/*
 * Where a view gets its snapshots: fill s (already initialised) from the
 * current state; 0 or a negative errno.  The exporter calls it from its
 * own thread, one call at a time.
 */
struct metrics_source {
	int (*read)(void *ctx, struct metrics_snapshot *s);
	void *ctx;
};

#endif
