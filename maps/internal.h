/* SPDX-License-Identifier: GPL-2.0-only */
/* Shared between the files of maps/ only. */
#ifndef CLS_MAPS_INTERNAL_H
#define CLS_MAPS_INTERNAL_H

#include "maps/maps.h"

/* state.c */
int cls_state_write(struct cls_maps *m, const struct cls_state *s);
int cls_config_read(struct cls_maps *m, struct cls_config *cfg);
int cls_config_write(struct cls_maps *m, const struct cls_config *cfg);
/*
 * The state a change starts from: -ENOLCK without the lock, -EALREADY
 * while another change's record is open.  A change that fails after
 * recording itself settles its record at once (this process may go on:
 * -batch -force, the sync daemon's next route); one it could not settle
 * is the next lock-taker's, and no change writes its record over it.
 */
int cls_state_for_change(struct cls_maps *m, struct cls_state *s);
/* Record op as the change in progress (s is written whole). */
int cls_journal_begin(struct cls_maps *m, struct cls_state *s, enum cls_op op);
/* The change is complete: clear the record, write s. */
int cls_journal_end(struct cls_maps *m, struct cls_state *s);
/* For cls_open_error(). */
void cls_set_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Tell the front end, one line, about a change finished or rolled back. */
void cls_notify(struct cls_maps *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* live.c: the generation packets use and its maps */
int cls_live_gen(struct cls_maps *m, __u32 *gen);
/* fd of the live inner map (owned by m), -ENOENT: the slot is empty. */
int cls_live_fd(struct cls_maps *m, enum cls_slotted s);
/* Map the live IPv4 table into m->table; m->table.fd < 0: none. */
int cls_live_table(struct cls_maps *m);
/*
 * The same for the IPv6 table, into m->table6.  A table in a format this
 * build does not know is none (m->table6_format says which); one that
 * holds the lock takes it out of its slot.
 */
int cls_live_table6(struct cls_maps *m);
/* Slot gen's IPv6 table's format, 0: none; written before a publish. */
int cls_table6_format_set(struct cls_maps *m, __u32 gen, __u8 format);
/* Cached views are stale: another generation, or another process. */
void cls_live_forget(struct cls_maps *m);
/* fd of the map in a slot (caller closes), -ENOENT if empty. */
int cls_slot_get(struct cls_maps *m, enum cls_slotted s, __u32 gen);
int cls_slot_set(struct cls_maps *m, enum cls_slotted s, __u32 gen, int fd);
int cls_slot_clear(struct cls_maps *m, enum cls_slotted s, __u32 gen);
/* Return once no BPF program still runs with what it read before. */
int cls_wait_for_programs(struct cls_maps *m);
/* The room for classes of every layout before 8 (maps/history.c). */
#define CLS_CLASSES_BEFORE_8 4096
/* cap elements of ARRAY fd into vals (size bytes each), batched. */
int cls_array_read(int fd, void *vals, size_t size, __u32 cap);

/* An IPv4 prefix's address in host byte order. */
static inline __u32 cls_prefix_v4(const struct cls_prefix *p)
{
	return (__u32)p->addr[0] << 24 | (__u32)p->addr[1] << 16 |
	       (__u32)p->addr[2] << 8 | p->addr[3];
}

/* table.c: an IPv4 table map, mapped in windows (a leaf over dir24.c) */
int cls_table_create(__u32 groups);
int cls_table_map(struct cls_table *t, int fd);
void cls_table_unmap(struct cls_table *t);
/* Paint a new (all-zero) table from routes in address order. */
int cls_table_fill(struct cls_table *t, const struct cls_route *r, size_t n);
void cls_table_paint(struct cls_table *t, const struct cls_prefix *p,
		     __u32 class_idx);
void cls_table_unpaint(struct cls_table *t, const struct cls_prefix *p,
		       const struct cls_route *cover);
/* Make what painting p will touch accessible. */
int cls_table_map_for(struct cls_table *t, const struct cls_prefix *p);
int cls_table_entry(struct cls_table *t, __u32 addr, __u32 *cls, bool *ask);
/* Groups a table needs for these IPv4 routes (address order). */
__u32 cls_table_groups_needed(const struct cls_route *r, size_t n);

/* table6.c: an IPv6 table map (a leaf over mbt6.c) */
/* A table for this many routes has a 24-bit first level (format 3). */
bool cls_table6_wide(size_t n);
/* Pool units (with room to spare) a table for these routes needs. */
size_t cls_table6_units(const struct cls_route *r, size_t n, bool wide);
int cls_table6_create(size_t units, bool wide);
/* Map the table in fd, of that format (cls_config.table6_format). */
int cls_table6_map(struct cls_table6 *t, int fd, unsigned int format);
void cls_table6_unmap(struct cls_table6 *t);
/* Paint a new table from IPv6 routes in address order. */
int cls_table6_fill(struct cls_table6 *t, const struct cls_route *r,
		    size_t n);
int cls_table6_paint(struct cls_table6 *t, const struct cls_prefix *p,
		     __u32 class_idx);
int cls_table6_unpaint(struct cls_table6 *t, const struct cls_prefix *p,
		       const struct cls_route *cover);

/* routes.c */
int cls_trie_create(int family);
/* Insert n routes (batched where the kernel allows). */
int cls_trie_fill(int fd, int family, const struct cls_route *r, size_t n);
/* Append the routes of one trie matching src to *out. */
int cls_trie_dump(int fd, int family, enum cls_source_filter src,
		  struct cls_route **out, size_t *n, size_t *cap);
/* Make the live table's range of p equal to what the trie holds now. */
int cls_route_repaint(struct cls_maps *m, const struct cls_prefix *p);
/* Finish the one-route change s records: repaint, counts, end. */
int cls_route_recover(struct cls_maps *m, struct cls_state *s);
static inline void cls_route_from_value(struct cls_route *r, __u32 v)
{
	r->class_idx = cls_route_class(v);
	r->flags = v & CLS_ROUTE_SYNCED;
}

/* tables.c: the tables the policy in s wants for routes in address order */
int cls_table_build(const struct cls_state *s, const struct cls_route *r,
		    size_t n, int *fd);
/* *format: the new table's (cls_config.table6_format), 0: none. */
int cls_table6_build(const struct cls_state *s, const struct cls_route *r,
		     size_t n, int *fd, __u8 *format);

/* upkeep.c: the tables against their policy and the routes: rebuilt if off */
int cls_table_maintain(struct cls_maps *m);

/* txn.c */
/* A CLS_TXN_TABLE change builds (and publishes) this policy. */
int cls_txn_set_policy(struct cls_txn *t, __u32 mode, __u32 groups);
int cls_swap_recover(struct cls_maps *m, struct cls_state *s);

/* stats.c, catalog.c */
int cls_stats_recover(struct cls_maps *m, struct cls_state *s);
int cls_class_recover(struct cls_maps *m, struct cls_state *s);
/* class_load.c: a class load's staged records written again, or none. */
int cls_class_load_recover(struct cls_maps *m, struct cls_state *s);
void cls_catalog_free(struct cls_maps *m);

/* tree.c: the shaping classes as tc objects on the shaped devices */
struct tct_class;
void cls_tree_close(struct cls_maps *m);
void cls_tree_class(const struct cls_class_entry *e, struct tct_class *t);
/* e's HTB class (and leaf) on every device s shapes, made or changed. */
int cls_tree_class_put(struct cls_maps *m, const struct cls_state *s,
		       const struct cls_class_entry *e);
/* That HTB class off every device s shapes (gone already: no error). */
int cls_tree_class_del(struct cls_maps *m, const struct cls_state *s,
		       __u32 handle);
/* d's whole tree with the shaping classes among e[0..n), parents first. */
int cls_tree_build(struct cls_maps *m, const struct cls_shape_dev *d,
		   const struct cls_class_entry *e, size_t n);
int cls_tree_remove(struct cls_maps *m, const struct cls_shape_dev *d);
/* 1: the root qdisc is someone else's (its kind in kind), 0: not, -errno. */
int cls_tree_root_foreign(struct cls_maps *m, int ifindex, unsigned int queues,
			  char *kind, size_t n);
/* Remove the root qdisc, whoever's (the device gets its default). */
int cls_tree_root_clear(struct cls_maps *m, int ifindex);

/* shape.c */
int cls_shape_recover(struct cls_maps *m, struct cls_state *s);

/* history.c: every layout that landed, as what it changed */
#define CLS_LAYOUT_OLDEST 3 /* the oldest an upgrade moves */
typedef void (*cls_value_fn)(const void *key, const void *old, void *new);

/*
 * A map that changed in a layout.  Its values move by .value, element by
 * element (each slot's map's, if slotted), or without one as they are
 * (the first .keep bytes, if given), the new bytes zero: a setting that
 * is off.  A cache (CACHE in CLS_MAPS) that changed starts empty; the
 * upkeep rebuilds it.
 */
struct cls_map_change {
	unsigned int layout;
	const char *name; /* its pin in this layout */
	const char *was;  /* its pin in the one before, if renamed */
	const struct cls_map_spec *before; /* its shape before, if another */
	cls_value_fn value;
	__u32 keep;
	bool added; /* new in this layout: made empty */
};

/* Oldest layout first, a line per map that changed. */
extern const struct cls_map_change cls_history[];

/*
 * A map of this layout as layout `from` had it: its pin there, the
 * changes since and its shapes, newest first (change[i] makes shape[i]
 * of shape[i + 1]; shape[0]: this build's, shape[n]: the pin's); added:
 * not there yet, made empty.
 */
struct cls_map_past {
	unsigned int from;
	const char *name;
	bool added;
	unsigned int n;
	const struct cls_map_change *change[CLS_LAYOUT_VERSION];
	const struct cls_map_spec *shape[CLS_LAYOUT_VERSION + 1];
};
/* -ENOENT: no layout `from` landed. */
int cls_map_past(enum cls_map_id id, unsigned int from, struct cls_map_past *p);

/* recover.c: finish or roll back what the journal records. */
int cls_recover(struct cls_maps *m);
/*
 * open.c: a handle over maps of this layout made elsewhere (an upgrade's
 * staged set), fds taken over and checked; the caller holds the lock.
 */
int cls_handle_adopt(struct cls_maps *m, const char *root,
		     int fds[CLS_NR_MAPS], const struct cls_open_opts *o);
/* Close its maps; the lock stays the caller's. */
void cls_handle_release(struct cls_maps *m);

/*
 * n elements of size sz of the array fd, copied in batches (maps/stats.c):
 * NULL with errno set.
 */
void *cls_counters_copy(int fd, size_t n, size_t sz, size_t *len);

#endif
