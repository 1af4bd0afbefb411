/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The user-space library over classifier's pinned maps: routes, classes and
 * counters.  Every function returns 0 (or a count) or a negative errno; none
 * prints.  The pins live under <bpffs>/classifier/maps/.
 */
#ifndef CLS_MAPS_H
#define CLS_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <limits.h>

#include "maps/classifier_abi.h"
#include "lib/parse.h"
#include "maps/dir24.h"

/* The kernel-internal errno BPF syscalls leak for "not supported". */
#ifndef ENOTSUPP
#define ENOTSUPP 524
#endif

#define CLS_DEFAULT_BPFFS "/sys/fs/bpf"
#define CLS_PIN_DIR "classifier"

/* Names of the maps as the BPF object defines and we pin them. */
#define CLS_MAP_CONFIG "config"
#define CLS_MAP_CLASSES "classes"
#define CLS_MAP_CLASS_META "class_meta"
#define CLS_MAP_ROUTES_V4 "routes_v4"
#define CLS_MAP_ROUTES_V6 "routes_v6"
#define CLS_MAP_STATS "stats"
#define CLS_MAP_DIR24 "dir24"
#define CLS_NR_MAPS 7
/* Every pinned map, in the order loader and purge walk them. */
extern const char *const cls_map_names[CLS_NR_MAPS];

struct cls_maps {
	char root[PATH_MAX]; /* <bpffs>/classifier */
	int root_fd;         /* flock()ed while mutating */
	int config_fd;
	int classes_fd;
	int class_meta_fd;
	int routes_fd[2]; /* outer one-slot ARRAY_OF_MAPS: [0] v4, [1] v6 */
	int trie_fd[2];   /* the live tries, once looked up */
	int stats_fd;
	int dir24_fd;
	unsigned int nr_cpus;
	struct dir24 dir24; /* view of the mmap, on first use */
	void *dir24_mem;       /* reserved for the whole map, mapped in windows */
	size_t dir24_len;
	unsigned char *dir24_mapped; /* per page */
	struct cls_counter *stats_mem; /* mmap of stats, on first use */
	size_t stats_len;
};

/* Fill root from a bpffs mount point (NULL: the default). */
int cls_root_path(char *root, size_t n, const char *bpffs);
/* Open the pinned maps; -ENOENT if nothing is pinned under root yet. */
int cls_maps_open(struct cls_maps *m, const char *root);
void cls_maps_close(struct cls_maps *m);
/* Serialise mutations across processes (flock on the pin directory). */
int cls_lock_root(const char *root, int *fd_out);
void cls_unlock_root(int fd);

/* Routes.  family picks the table; values are class indices. */
static inline int cls_family_slot(int family)
{
	return family == AF_INET6;
}

struct cls_route {
	struct cls_prefix prefix;
	__u32 class_idx;
};

#define CLS_ROUTE_ADD 0     /* fail with -EEXIST if present */
#define CLS_ROUTE_REPLACE 1 /* add or overwrite */

/* Create an empty LPM trie of the shape the BPF object expects. */
int cls_trie_create(int family);
/* fd of the trie currently in the family's slot. */
int cls_trie_current(const struct cls_maps *m, int family);
/* Publish a trie: one map update, so packets see the old or the new table. */
int cls_trie_publish(struct cls_maps *m, int family, int trie_fd);
/* Insert n routes into trie_fd (batched where the kernel allows). */
int cls_trie_fill(int trie_fd, int family, const struct cls_route *r,
		  size_t n);

/*
 * Routes of one family in address order, shortest first among equal
 * addresses; stable, so a repeated prefix keeps its input order.
 */
int cls_route_sort(struct cls_route *r, size_t n);
bool cls_route_sorted(const struct cls_route *r, size_t n);
/* That order: <0, 0, >0 (same family). */
int cls_route_cmp(const struct cls_route *x, const struct cls_route *y);

int cls_route_update(struct cls_maps *m, const struct cls_prefix *p,
		     __u32 class_idx, int how);
int cls_route_delete(struct cls_maps *m, const struct cls_prefix *p);
/* All routes of one family (or both: family 0), sorted; caller frees. */
int cls_route_dump(const struct cls_maps *m, int family,
		   struct cls_route **out, size_t *n);
/* How the kernel answers for addr: *found=false on a miss (default class). */
int cls_route_lookup(const struct cls_maps *m, const struct cls_prefix *addr,
		     struct cls_route *match, bool *found);
/* Replace both tables with empty ones. */
int cls_route_flush(struct cls_maps *m);
/* Count routes pointing at class_idx (both families). */
int cls_route_count_class(const struct cls_maps *m, __u32 class_idx);

/* Classes: dense indices, index 0 is the default class. */
struct cls_class_entry {
	__u32 idx;
	struct cls_class cls;
	struct cls_class_meta meta;
};

/* All valid classes, index order (index 0 first); caller frees. */
int cls_class_dump(const struct cls_maps *m, struct cls_class_entry **out,
		   size_t *n);
/* Find by name, or by classid if tok is not a name: -ENOENT if none. */
int cls_class_find(const struct cls_maps *m, const char *tok,
		   struct cls_class_entry *e);
/* Store e (e->idx chosen by cls_class_alloc for new classes). */
int cls_class_store(const struct cls_maps *m, const struct cls_class_entry *e);
/* First free index, -ENOSPC when all CLS_MAX_CLASSES are used. */
int cls_class_alloc(const struct cls_maps *m);
int cls_class_clear(const struct cls_maps *m, __u32 idx);

/* Counters. */
int cls_stats_map(struct cls_maps *m);
/* Sum over CPUs of one slot (CLS_STATS_*_BASE + class index or reason). */
struct cls_counter cls_stats_sum(const struct cls_maps *m, __u32 slot);
struct cls_counter cls_stats_cpu(const struct cls_maps *m, unsigned int cpu,
				 __u32 slot);
/* Class idx on one CPU, egress and ingress together. */
struct cls_counter cls_stats_class_cpu(const struct cls_maps *m,
				       unsigned int cpu, __u32 idx);
/* Class idx over all CPUs, egress and ingress together. */
struct cls_counter cls_stats_class_sum(const struct cls_maps *m, __u32 idx);
int cls_stats_reset(struct cls_maps *m);
int cls_stats_get_enabled(const struct cls_maps *m, bool *on);
int cls_stats_set_enabled(const struct cls_maps *m, bool on);
/* Wait until no BPF program still runs with the previous map contents. */
int cls_wait_for_programs(const struct cls_maps *m);

const char *cls_reason_name(enum cls_reason r);

/*
 * The IPv4 DIR-24-8 table.  Route changes keep it equal to the trie by
 * themselves (cls_route_update/delete); whole-table changes go
 * suspend -> publish tries -> build, so packets use the trie meanwhile.
 */
/* Reserve the table's address range; map its bookkeeping. */
int cls_dir24_map(struct cls_maps *m);
/* Map every page (whole-table work). */
int cls_dir24_map_all(struct cls_maps *m);
void cls_dir24_unmap(struct cls_maps *m);
/* What the table answers for addr (host order), mapping what it reads. */
int cls_dir24_lookup(struct cls_maps *m, __u32 addr, __u32 *cls, bool *ask);
/* Fresh table in a new map: empty, bookkeeping written. */
int cls_dir24_init_fd(int fd);
int cls_dir24_suspend(struct cls_maps *m);
/* Repaint from these IPv4 routes (any order), then switch packets to it. */
int cls_dir24_build(struct cls_maps *m, const struct cls_route *r, size_t n);
/* The same from what the IPv4 trie holds now (switch_on false: repaint only). */
int cls_dir24_rebuild(struct cls_maps *m, bool switch_on);
/* Repaint only, for a table no program reads yet. */
int cls_dir24_fill(struct cls_maps *m, const struct cls_route *r, size_t n);
int cls_get_config(const struct cls_maps *m, struct cls_config *cfg);
int cls_set_config(const struct cls_maps *m, const struct cls_config *cfg);
int cls_set_lookup_mode(const struct cls_maps *m, enum cls_lookup_mode mode);
/* After the trie gained (added) or lost p: paint or hand back its range. */
int cls_dir24_route_changed(struct cls_maps *m, const struct cls_prefix *p,
			    bool added, __u32 class_idx);

#endif
