/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The user-space library over classifier's pinned state: the one owner of
 * every change to it.  Front ends (the CLI, the sync daemon, the metrics
 * exporter, the bench) open a handle, and the library takes the lock,
 * checks the pins and the layout version, finishes or rolls back a change
 * that an earlier process left half done, and keeps every derived
 * structure (the lookup tables, route counts) equal to the tries.
 * Every function returns 0 (or a count) or a negative errno; none prints.
 */
#ifndef CLS_MAPS_H
#define CLS_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <limits.h>

#include "maps/classifier_abi.h"
#include "maps/state.h"
#include "lib/parse.h"
#include "maps/dir24.h"
#include "maps/mbt6.h"

/* The kernel-internal errno BPF syscalls leak for "not supported". */
#ifndef ENOTSUPP
#define ENOTSUPP 524
#endif

#define CLS_DEFAULT_BPFFS "/sys/fs/bpf"
#define CLS_PIN_DIR "classifier"
/* How long a change waits for another process's lock by default. */
#define CLS_LOCK_WAIT_MS 10000

/* The pinned maps, declared once (CLS_MAPS in maps/classifier_abi.h). */
#define CLS_MAP_ID(_id, ...) CLS_M_##_id,
enum cls_map_id { CLS_MAPS(CLS_MAP_ID, CLS_MAP_ID) CLS_NR_MAPS };

/* The generation-slotted maps: what a whole-table change replaces. */
#define CLS_SLOT_ID(_id, ...) CLS_S_##_id,
#define CLS_NOT_SLOTTED(...)
enum cls_slotted { CLS_MAPS(CLS_NOT_SLOTTED, CLS_SLOT_ID) CLS_NR_SLOTTED };

/* How a map's max_entries is chosen (a line of CLS_MAPS says which). */
enum cls_map_size {
	CLS_SIZE_FIXED,	  /* max_entries, exactly */
	CLS_SIZE_PER_CPU, /* max_entries for each possible CPU */
	CLS_SIZE_BY_NEED, /* what the maker asks (max_entries: a template) */
};

struct cls_map_spec {
	const char *name; /* pin name and BPF map name */
	__u32 type, key_size, value_size;
	__u32 max_entries; /* read with .size */
	__u32 flags;
	enum cls_map_size size;
	const struct cls_map_spec *inner; /* what the slots of an outer map hold */
	bool bpf;			  /* the BPF programs use it */
	bool derived; /* rebuilt from the other maps when missing (a cache) */
};

extern const struct cls_map_spec cls_map_specs[CLS_NR_MAPS];

/* The outer map of a slotted map, and what its slots hold. */
enum cls_map_id cls_slot_map(enum cls_slotted s);
const struct cls_map_spec *cls_slot_spec(enum cls_slotted s);
/*
 * A new map of that shape: entries for CLS_SIZE_BY_NEED (0: its
 * template's), ignored otherwise.  An outer map gets a template of its
 * inner shape.  Returns the fd or -errno.
 */
int cls_map_create(const struct cls_map_spec *s, __u32 entries);
/*
 * The entries of map id in a set with room for cap classes, for cpus
 * CPUs (1: a per-CPU map's one slice); 0 for a map not indexed by class.
 */
__u32 cls_class_entries(enum cls_map_id id, __u32 cap, unsigned int cpus);
/*
 * 0 if fd is a map of that shape (*entries, if asked: its max_entries);
 * -EUCLEAN with why filled when it is not.
 */
int cls_map_check(int fd, const struct cls_map_spec *s, __u32 *entries,
		  char *why, size_t n);
/*
 * Bind every map of the registry the programs use, by name, to fds[id]
 * (NULL: new maps made from the registry) before obj is loaded.
 * -EUCLEAN with *stray naming it: obj has a map the registry lacks.
 */
struct bpf_object;
int cls_bind_maps(struct bpf_object *obj, const int fds[CLS_NR_MAPS],
		  const char **stray);

/* A mapped IPv4 table (maps/table.c). */
struct cls_table {
	int fd;
	struct dir24 d;
	void *mem;		/* the whole map's range, reserved */
	size_t len;
	unsigned char *mapped;	/* per page: mapped yet? */
	bool copied;		/* read-only fd: pages copied, not mapped */
};

/*
 * A mapped IPv6 table (maps/table6.c); through a read-only fd, only its
 * header is copied in (its gauges), and it is not walked.
 */
struct cls_table6 {
	int fd;
	struct mbt6 m;
	void *mem;
	size_t len;
	bool header_only;
};

struct cls_catalog;
struct nl;

struct cls_maps {
	char root[PATH_MAX]; /* <bpffs>/classifier */
	int dir_fd;	     /* root; flock()ed while locked */
	bool locked;
	bool read_only; /* fds opened BPF_F_RDONLY (cls_open_opts) */
	int fd[CLS_NR_MAPS];
	unsigned int nr_cpus;
	__u32 cap; /* classes the class-indexed maps have room for */
	unsigned long maps_ino; /* of the maps/ the fds were opened from */
	/* The live generation's inner maps, looked up on first use. */
	__u32 gen;
	bool gen_known;
	int live[CLS_NR_SLOTTED]; /* -1: not looked up (or no table) */
	struct cls_table table;	  /* the live IPv4 table, if it has one */
	struct cls_table6 table6; /* the live IPv6 table, if it has one */
	/*
	 * The format config gives the live slot's IPv6 table (0: none); one
	 * this build cannot read leaves table6 unmapped.
	 */
	__u8 table6_format;
	struct cls_counter *stats_mem;
	size_t stats_len;
	struct cls_rate_counter *rate_stats_mem; /* mapped with stats_mem */
	size_t rate_stats_len;
	struct cls_catalog *catalog;
	struct nl *nl; /* rtnetlink for the shaping trees, opened on use */
	/* One line per change found half done and finished or rolled back. */
	void (*notify)(void *ctx, const char *line);
	void *notify_ctx;
};

/* Options of cls_open(). */
struct cls_open_opts {
	const char *bpffs; /* mount point; NULL: CLS_DEFAULT_BPFFS */
	bool write;	   /* take the lock, create the pins if missing */
	int wait_ms;	   /* how long to wait for the lock (-1: default) */
	/*
	 * Reading only, through read-only fds (BPF_F_RDONLY): the pin
	 * directory may be root's (its group readable, maps/share.c), the
	 * counters and the tables' pages read are copied (a read-only map
	 * cannot be mmap()ed; of the IPv6 table only its header, for the
	 * gauges), and nothing left half done is finished.
	 */
	bool read_only;
	void (*notify)(void *ctx, const char *line);
	void *notify_ctx;
};

/*
 * <bpffs>/classifier; -EINVAL for an empty bpffs (it would silently mean
 * the default), -ENAMETOOLONG.
 */
int cls_root_path(char *root, size_t n, const char *bpffs);
/*
 * Open the pinned state.  Reading: -ENOENT if nothing is set up.  Writing:
 * creates the pins if missing (mounting is the caller's: cls_bpffs_check)
 * and holds the lock until cls_close().  Either finishes what an
 * interrupted change left (a reader only if no writer holds the lock).  Errors that name a problem with the pins (-EUCLEAN: not ours,
 * wrong shape; -EPROTO: another layout version) leave a reason in
 * cls_open_error().
 */
int cls_open(struct cls_maps *m, const struct cls_open_opts *o);
/*
 * Upkeep left for the end of a change (the lookup tables against their
 * policy), then unlock and close; returns the upkeep's error, and
 * cls_open_error() says what it was doing (or "").
 */
int cls_close(struct cls_maps *m);
/*
 * Why the last cls_open(), cls_lock(), cls_unlock() or cls_close() failed,
 * for the user (or "").
 */
const char *cls_open_error(void);

/* The bpffs at path is one (0), is not (-ENOTSUP), or is missing. */
int cls_bpffs_check(const char *path);

/*
 * The lock on its own, for long-running writers (the sync daemon) that
 * change state in batches and must let the CLI in between.  On taking it,
 * cached views are refreshed and unfinished changes are finished.
 */
int cls_lock(struct cls_maps *m, int wait_ms);
/* Upkeep (as cls_close), then unlock; returns the upkeep's error. */
int cls_unlock(struct cls_maps *m);

/*
 * The lock alone, on a pin directory in any state (purge, upgrade): the
 * directory's fd, locked, or -errno with cls_open_error() set.
 */
int cls_lock_root(const char *root, int wait_ms);
/* Layout version of the pins under root: 0 none, 3, 4, ...; <0 error. */
int cls_layout_of(const char *root);
/*
 * Upgrades (the loader drives them, holding cls_lock_root()'s lock on
 * dir_fd): build this layout in staging/ from the pins of layout `from`;
 * the staged maps' fds for the programs; then make staging/ the live
 * maps/ in one step.  cls_open() says -EINPROGRESS while an upgrade that
 * reached staging/ is unfinished.
 */
int cls_migrate_stage(int dir_fd, const char *root, int from,
		      const struct cls_open_opts *o);
int cls_staging_fds(int dir_fd, int fds[CLS_NR_MAPS]);
/*
 * Room for need classes (maps/grow.c): the capacity a set of need
 * classes gets (CLS_CLASS_STEP doubled, at most CLS_MAX_CLASSES); the
 * grown set of the locked m staged as an upgrade to this layout is
 * (1; 0: m has room already; -ENOSPC: need is past CLS_MAX_CLASSES).
 * The loader's cls_grow() makes it live.
 */
__u32 cls_cap_for(__u32 need);
int cls_grow_stage(struct cls_maps *m, __u32 need);
/* The live pins opened again in m (locked: the lock kept). */
int cls_reopen(struct cls_maps *m);
int cls_migrate_commit(int dir_fd, const char *root);
/*
 * The layout of a complete upgrade staging/ holds (this build's, or an
 * older build's it interrupted), 0 if none (removed if half-built).
 */
int cls_staging_pending(int dir_fd, const char *root);
/* Unpin everything under root and remove it (after detaching). */
int cls_remove_pins(const char *root);
/*
 * When the pin directory (dir_fd) grants its group read access, the same
 * group and read access (never write) for maps/ and its pins, links/ and
 * tc/: readers by group (maps/share.c).  Writers call it.
 */
int cls_share_tree(int dir_fd, const char *root);

/*
 * A named point between two steps of a change.  Builds with
 * CLS_FAULT_INJECT die there by SIGKILL when $CLS_FAULT_STEP counts down
 * to it, so tests can try every crash point; elsewhere it is nothing.
 * cls_fail(): a named point where a change may fail as a real error
 * would (a map update refused, memory short).  There those builds return
 * -EIO when $CLS_FAULT_FAIL names it, the first $CLS_FAULT_FAILS times
 * (1 unless set), so tests can follow what a failed change leaves;
 * elsewhere it is 0.
 */
#ifdef CLS_FAULT_INJECT
void cls_step(const char *what);
int cls_fail(const char *what);
#else
static inline void cls_step(const char *what)
{
	(void)what;
}

static inline int cls_fail(const char *what)
{
	(void)what;
	return 0;
}
#endif

/* Routes.  family picks the table; values are class indices. */
static inline int cls_family_slot(int family)
{
	return family == AF_INET6;
}

struct cls_route {
	struct cls_prefix prefix;
	__u32 class_idx;
	__u32 flags; /* CLS_ROUTE_SYNCED */
};

#define CLS_ROUTE_ADD 0	    /* fail with -EEXIST if present */
#define CLS_ROUTE_REPLACE 1 /* add or overwrite */

/* Which routes a dump returns. */
enum cls_source_filter {
	CLS_SRC_ALL = -1,
	CLS_SRC_HAND = 0,
	CLS_SRC_SYNCED = 1,
};

/* A route added by hand (a synced one at p becomes a hand route). */
int cls_route_set(struct cls_maps *m, const struct cls_prefix *p,
		  __u32 class_idx, int how);
/* Delete the route at p, whoever installed it; -ENOENT if none. */
int cls_route_del(struct cls_maps *m, const struct cls_prefix *p);
/* The sync daemon's changes: never over a hand route (-EEXIST). */
int cls_route_sync_set(struct cls_maps *m, const struct cls_prefix *p,
		       __u32 class_idx);
/* -ENOENT: no route at p; -EPERM: a hand route (left alone). */
int cls_route_sync_del(struct cls_maps *m, const struct cls_prefix *p);
/* Routes of one family (0: both) from one source, sorted; caller frees. */
int cls_route_dump(struct cls_maps *m, int family, enum cls_source_filter src,
		   struct cls_route **out, size_t *n);
/* How the trie answers for addr: *found=false on a miss (default class). */
int cls_route_lookup(struct cls_maps *m, const struct cls_prefix *addr,
		     struct cls_route *match, bool *found);
/* Route counts [family slot][source], kept where routes change. */
int cls_route_counts(struct cls_maps *m, __u32 counts[2][2]);
/* Routes pointing at class_idx (both families). */
int cls_route_count_class(struct cls_maps *m, __u32 class_idx);

/*
 * Routes of one family in address order, shortest first among equal
 * addresses; stable, so a repeated prefix keeps its input order.
 */
int cls_route_sort(struct cls_route *r, size_t n);
bool cls_route_sorted(const struct cls_route *r, size_t n);
/* That order: <0, 0, >0 (same family). */
int cls_route_cmp(const struct cls_route *x, const struct cls_route *y);

/*
 * Whole-table changes: the new route set is built beside the live one
 * (new tries, new lookup tables sized for it) and published by one write
 * of the generation, so packets see the old set or the new one.  The
 * scope says which routes the change replaces; the others are kept.
 * cls_txn_add() may be called many times (one thread at a time) while
 * the tries fill in the background; commit or abort frees the txn.
 */
enum cls_txn_scope {
	CLS_TXN_HAND,	/* route load, route flush: synced routes stay */
	CLS_TXN_SYNCED, /* the sync daemon's resync: hand routes stay */
	CLS_TXN_TABLE,	/* the same routes, the lookup tables rebuilt */
};

struct cls_txn;

struct cls_txn_result {
	__u32 routes[2];  /* routes of the scope now live, per family */
	__u32 shadowed;	  /* synced routes left out for a hand route */
};

int cls_txn_begin(struct cls_maps *m, enum cls_txn_scope scope,
		  struct cls_txn **out);
/* -E2BIG: more routes than a trie holds. */
int cls_txn_add(struct cls_txn *t, const struct cls_route *r, size_t n);
int cls_txn_commit(struct cls_txn *t, struct cls_txn_result *res);
void cls_txn_abort(struct cls_txn *t);

/*
 * The tables' size policy, kept in the state map: AUTO gives a family a
 * table from CLS_TABLE_AUTO_ROUTES routes of it, sized by need; ON keeps
 * both on, the IPv4 table's groups fixed (groups > 0) or by need; OFF
 * leaves every lookup to the tries.  Setting it
 * rebuilds the table (a CLS_TXN_TABLE change).
 */
int cls_table_set_policy(struct cls_maps *m, enum cls_table_mode mode,
			 __u32 groups);
int cls_table_rebuild(struct cls_maps *m);

struct cls_table_info {
	enum cls_table_mode mode;
	bool on;       /* the live generation has an IPv4 table */
	__u32 groups;  /* capacity */
	__u32 used;    /* groups handed out */
	__u32 ask_trie; /* /24s left to the trie for want of a group */
	size_t bytes;
	struct {
		bool on;	 /* the live generation has an IPv6 table */
		size_t units;	 /* pool capacity, 32-byte units */
		size_t used;	 /* units in use */
		size_t ask_trie; /* slots left to the trie for want of room */
		size_t bytes;
		unsigned int format; /* of the table, when on */
		/* !on: the format of a table this build cannot read, or 0 */
		unsigned int foreign_format;
	} v6;
};
int cls_table_info(struct cls_maps *m, struct cls_table_info *t);
/* What the live table answers for addr (host order); *ask: the trie. */
int cls_table_lookup(struct cls_maps *m, __u32 addr, __u32 *cls, bool *ask);
/* The same for an IPv6 address (network order), from the IPv6 table. */
int cls_table6_lookup(struct cls_maps *m, const __u8 addr[16], __u32 *cls,
		      bool *ask);

/* Classes: dense indices, index 0 is the default class. */
struct cls_class_entry {
	__u32 idx;
	struct cls_class cls;
	struct cls_class_meta meta;
};

/*
 * The class catalogue: read once per handle (a few thousand slots, two
 * syscalls), reread after a class change by anyone.  Entries in index
 * order.
 */
int cls_classes(struct cls_maps *m, const struct cls_class_entry **e,
		size_t *n);
/* The entry of index idx, or NULL if no class has it. */
const struct cls_class_entry *cls_class_at(struct cls_maps *m, __u32 idx);
/*
 * The same as a copy, -ENOENT if none; reads only that class unless the
 * catalogue is loaded anyway (one lookup need not read them all).
 */
int cls_class_get(struct cls_maps *m, __u32 idx, struct cls_class_entry *e);
/*
 * A class token as an operator writes it: a name, "default", or a tc
 * classid.  -ENOENT: no such class; -EINVAL: neither a name nor a classid.
 * Safe from several threads at once while the handle holds the lock and
 * has read the catalogue (cls_classes()).
 */
int cls_class_resolve(struct cls_maps *m, const char *tok, __u32 *idx);
/* The one wording for a token cls_class_resolve() refused with err. */
const char *cls_class_strerror(int err, const char *tok, char *buf, size_t n);
/*
 * Store a class: e->idx as found by cls_class_resolve(), or
 * CLS_CLASS_NEW to give it the first free index (-ENOSPC when full).
 * Names and classids stay unique (-EEXIST).
 */
#define CLS_CLASS_NEW ((__u32)-1)
int cls_class_store(struct cls_maps *m, struct cls_class_entry *e);
/*
 * -EBUSY while routes point at it (*routes: how many); -EPERM for the
 * default class.
 */
int cls_class_del(struct cls_maps *m, __u32 idx, __u32 *routes);
/*
 * Replace the whole class set by e[0..n): a class of the default class's
 * index (CLS_DEFAULT_CLASS; its settings, none if no entry has it) or of
 * CLS_CLASS_NEW.  A classid that stays keeps its index (its routes and
 * counters), a new one takes a free index, a class missing from e goes.
 * On return e[i].idx is each entry's index.  Errors change nothing:
 * -EEXIST: e[dup[0]] and e[dup[1]] share a classid or a name;
 * -EBUSY: routes (that many; example is one) point at classes e lacks;
 * -ENOSPC: more than CLS_MAX_CLASSES; -EPERM: e[dup[0]]'s class has
 * settings this build does not know (a newer one set them);
 * -EOPNOTSUPP: shaping classes are there (their HTB classes follow them
 * through class add, set and del, not yet through a load).
 */
struct cls_class_load_result {
	size_t dup[2];
	__u32 routes;
	struct cls_route example;
	size_t added, changed, removed;
};
int cls_class_load(struct cls_maps *m, struct cls_class_entry *e, size_t n,
		   struct cls_class_load_result *res);
/* "default", or the classid as tc writes it. */
void cls_class_label(const struct cls_class_entry *e, char *buf, size_t n);

/* Counters. */
int cls_stats_map(struct cls_maps *m);
/* Sum over CPUs of one slot (CLS_STATS_*_BASE + class index or reason). */
struct cls_counter cls_stats_sum(const struct cls_maps *m, __u32 slot);
/* What class idx's rate did at a hook (CLS_RATE_EGRESS, _INGRESS). */
struct cls_rate_counter cls_rate_stats_sum(const struct cls_maps *m,
					   __u32 hook, __u32 idx);
struct cls_counter cls_stats_cpu(const struct cls_maps *m, unsigned int cpu,
				 __u32 slot);
/* Class idx on one CPU, egress and ingress together. */
struct cls_counter cls_stats_class_cpu(const struct cls_maps *m,
				       unsigned int cpu, __u32 idx);
/* Class idx over all CPUs, egress and ingress together. */
struct cls_counter cls_stats_class_sum(const struct cls_maps *m, __u32 idx);
int cls_stats_reset(struct cls_maps *m);
int cls_stats_get_enabled(struct cls_maps *m, bool *on);
int cls_stats_set_enabled(struct cls_maps *m, bool on);

const char *cls_reason_name(enum cls_reason r);

/*
 * Shaping (maps/shape.c): the devices whose tree (lib/tctree.h) classifier
 * makes, and in it, on every one of them, an HTB class for each class
 * with CLS_F_SHAPE (cls_class_store() and cls_class_del() put and delete
 * them: the HTB class before the class's records on a change, after them
 * on a deletion).  All shaped devices have the same number of queues.
 */
struct cls_shape_why {
	__u32 idx;	     /* -ERANGE: a class in a queue past the count */
	unsigned int queues; /* -EXDEV: the other devices' count */
	char kind[16];	     /* -EBUSY: the root qdisc there (someone else's) */
};
/*
 * Shape a device (d->ifindex, queues, rates): make its tree with every
 * shaping class.  Again on a shaped device: made again with these rates
 * (-EEXIST if queues differ).  -EBUSY: its root qdisc is someone else's
 * (replace: removed); -EXDEV, -ERANGE, -ENOSPC (CLS_SHAPE_DEVS).
 */
int cls_shape_dev_add(struct cls_maps *m, const struct cls_shape_dev *d,
		      bool replace, struct cls_shape_why *why);
/* Remove the tree from ifindex: -ENOENT if it is not shaped. */
int cls_shape_dev_del(struct cls_maps *m, int ifindex);
/* The shaped devices (up to CLS_SHAPE_DEVS), their number. */
int cls_shape_devs(struct cls_maps *m, struct cls_shape_dev *d);
/* The queue count of the shaped devices, 0 if none. */
unsigned int cls_shape_queues(const struct cls_shape_dev *d);
/*
 * The queue a new top-level shaping class of that rate goes to: the one
 * whose top-level classes' rates add up to the least (0 if none shaped).
 */
int cls_shape_queue_pick(struct cls_maps *m, __u64 rate, unsigned int *queue);

/*
 * Steering to CPUs (maps/steer.c): the CPU that owns each TX queue, for
 * cls_steer.  A CPU must be below the possible CPUs (-ERANGE) and online
 * (-ENXIO).
 */
int cls_steer_cpu_check(const struct cls_maps *m, unsigned int cpu);
/* Queue's CPU (cpu < 0: none); -EDOM for a queue past CLS_QUEUE_MAX. */
int cls_steer_set(struct cls_maps *m, unsigned int queue, int cpu);
/* Queues 0 .. queues - 1 over CPUs 0 .. cpus - 1 (q % cpus); no others. */
int cls_steer_spread(struct cls_maps *m, unsigned int queues,
		     unsigned int cpus);
/* Each queue's CPU, -1 for none. */
int cls_steer_read(const struct cls_maps *m, int cpu_of[CLS_STEER_QUEUES]);
/* steer_stats copied: nr_cpus * CLS_STEER_STRIDE counters (caller frees). */
int cls_steer_stats(const struct cls_maps *m, struct cls_counter **out);

/* The state map: layout, counts, the change in progress, sync status. */
int cls_state_read(struct cls_maps *m, struct cls_state *s);
int cls_sync_status_set(struct cls_maps *m, const struct cls_sync_status *s);
/*
 * The daemon whose status this is still runs (its pid is cleared when it
 * exits cleanly; a process we may not signal counts as alive).
 */
bool cls_sync_running(const struct cls_sync_status *s);

#endif
