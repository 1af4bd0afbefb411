/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The IPv6 table's contents (layout in classifier_abi.h), over any memory: the
 * mmap of the map, or a buffer in the unit tests.  The LPM trie stays the
 * truth; these functions keep the table equal to it.
 *
 * Nodes a change no longer needs are not reused at once: a packet may
 * still be reading them.  They wait in limbo until the caller has waited
 * for programs in flight (an RCU grace period: any map-in-map update) and
 * calls mbt6_reclaim().  Without that, a rebuild reclaims them.
 */
#ifndef CLS_MBT6_H
#define CLS_MBT6_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "maps/classifier_abi.h"

/*
 * Bookkeeping at the end of the map; only user space reads it.  Free lists
 * run through the first entry of each free node and hold unit + 1 (0 ends
 * a list), so a map of zeros has no room rather than a bogus list.  Nodes
 * in limbo may still be read: they are only listed here, never written.
 */
#define MBT6_LIMBO 4096

struct mbt6_hdr {
	__u32 magic;
	__u32 units;	   /* pool capacity */
	__u32 low;	   /* DIRECT nodes are cut from [low, high) upwards, */
	__u32 high;	   /* one-unit nodes downwards (a fill: all upwards) */
	__u32 free_direct; /* unit + 1 of the first free node, or 0 */
	__u32 free_unit;
	__u32 n_free_direct;
	__u32 n_free_unit;
	__u32 direct; /* nodes in use */
	__u32 range;
	__u32 tiny;
	__u32 ask_trie; /* slots left to the trie for want of room */
	__u32 leaked;	/* retired with limbo full: back on a rebuild */
	__u32 n_limbo;
	__u32 range2;
	__u32 wide; /* the first level is 24 bits (struct mbt6) */
	__u32 limbo[MBT6_LIMBO]; /* node references */
};
#define MBT6_MAGIC	 0x4d423601 /* "MB6", version 1 */
#define MBT6_HDR_ENTRIES (sizeof(struct mbt6_hdr) / sizeof(__u32))

/*
 * wide: the first level is indexed by address bits 0-23 (2^24 entries,
 * 64 MiB) and the nodes under it start at depth 2, one level nearer the
 * long prefixes; for large tables (format 3).  Else bits 0-15, depth 1.
 */
struct mbt6 {
	__u32 *t; /* NULL: a table that only counts (mbt6_fill) */
	struct mbt6_hdr *hdr;
	__u32 units;
	bool wide;
	bool all_direct; /* DIRECT nodes only: a variant the bench measures */
	/*
	 * While a fill runs: every node from the low end, in the order made,
	 * so the nodes a lookup walks sit side by side (fewer 4 MiB
	 * elements to look up).  A DIRECT node may then straddle two
	 * elements; its reads are single entries, each looked up.
	 */
	bool packed;
};

static inline unsigned int mbt6_l1_bits(bool wide)
{
	return wide ? MBT6_L1_WIDE_BITS : MBT6_L1_BITS;
}

static inline size_t mbt6_l1_entries(bool wide)
{
	return (size_t)1 << mbt6_l1_bits(wide);
}

/* Map entries (__u32) for a pool of that many units. */
static inline size_t mbt6_entries(size_t units, bool wide)
{
	return mbt6_l1_entries(wide) + units * MBT6_UNIT_ENTRIES +
	       MBT6_HDR_ENTRIES;
}

/* The map's 4 MiB elements (max_entries) for a pool of that many units. */
static inline size_t mbt6_elems(size_t units, bool wide)
{
	return (mbt6_entries(units, wide) + MBT6_PER_ELEM - 1) / MBT6_PER_ELEM;
}

/*
 * Interpret mem (entries __u32s) as a table with a first level as wide
 * says; -EINVAL for a bad size.
 */
int mbt6_view(struct mbt6 *m, __u32 *mem, size_t entries, bool wide);
/* Every address: no route.  The whole pool is free again. */
void mbt6_clear(struct mbt6 *m);

/*
 * Route addr/len (network order) -> class added or replaced.  Returns 0,
 * or -EINVAL for a bad length or class.  Where the pool has no room, the
 * range is left to the trie (counted in hdr->ask_trie).
 */
int mbt6_add(struct mbt6 *m, const __u8 addr[16], unsigned int len,
	     __u32 class_idx);
/*
 * Route addr/len deleted: what it painted falls to the covering route
 * (the longest route strictly containing it: has_cover, cover_len <
 * len, cover_class), or to no route.
 */
int mbt6_del(struct mbt6 *m, const __u8 addr[16], unsigned int len,
	     bool has_cover, unsigned int cover_len, __u32 cover_class);

/*
 * What the data path would answer for addr: a class, or *ask_trie.  If
 * path is not NULL, it says which nodes the walk went through and which
 * entries it read (the first-level one first), as the data path reads
 * them.
 */
#define MBT6_PATH_READS (1 + 3 * MBT6_MAX_DEPTH)
struct mbt6_path {
	unsigned int direct, range, tiny, range2;
	unsigned int reads;
	__u32 entry[MBT6_PATH_READS];
};
__u32 mbt6_lookup(const struct mbt6 *m, const __u8 addr[16], bool *ask_trie,
		  struct mbt6_path *path);

/* Nodes in limbo become free: the caller has waited for programs. */
void mbt6_reclaim(struct mbt6 *m);

struct mbt6_usage {
	size_t units, used; /* pool capacity; units not free */
	size_t direct, range, tiny, range2, limbo, leaked; /* nodes */
	size_t ask_trie;			   /* slots */
	size_t bytes;				   /* of the whole map */
};
void mbt6_usage(const struct mbt6 *m, struct mbt6_usage *u);

/*
 * A whole table from routes in address order (shortest first among equal
 * addresses; a repeated prefix: the last one wins), each entry written
 * once.  For a table no program reads: no ordering of stores is kept.
 * With m->t NULL nothing is written: the fill only counts the nodes the
 * routes need (mbt6_fill_units), to size a map.  fill_add returns -EINVAL
 * for a route out of order or a bad length or class.
 */
struct mbt6_fill_node {
	unsigned __int128 base;	    /* of the region the node covers */
	unsigned int runs;	    /* of equal slots, so far */
	__u8 start[MBT6_TINY_RUNS]; /* where they start, while they fit */
	__u32 run[MBT6_TINY_RUNS];  /* their values */
	__u32 slot[MBT6_SLOTS];	    /* every slot, once they do not */
};

/*
 * A closed node a RANGE2 parent may take in: a RANGE node whose slots
 * all hold out but the run [lo, hi] of in (MBT6_RANGE2 in
 * classifier_abi.h).
 */
struct mbt6_fill_range {
	bool ok;
	__u32 ref; /* the node's entry (counting only: a stand-in) */
	unsigned int n;		   /* its runs, at most 3 */
	__u8 start[3];
	__u32 v[3];
};

struct mbt6_fill {
	struct mbt6 *m;
	unsigned __int128 next; /* first address not yet written */
	bool done;		/* next wrapped past the last address */
	int depth;		/* routes open */
	struct {
		unsigned __int128 start, end;
		__u32 len, leaf;
	} open[129];
	int deep; /* nodes 1..deep are open */
	struct mbt6_fill_node node[MBT6_MAX_DEPTH + 1]; /* 1..MAX_DEPTH */
	/* [d]: the node of depth d closed last, if a RANGE2 may take it in */
	struct mbt6_fill_range last[MBT6_MAX_DEPTH + 2];
	size_t direct, range, tiny, range2;		/* nodes made */
	__u32 made; /* counting only: stand-in references handed out */
};

void mbt6_fill_begin(struct mbt6_fill *f, struct mbt6 *m);
int mbt6_fill_add(struct mbt6_fill *f, const __u8 addr[16], unsigned int len,
		  __u32 class_idx);
void mbt6_fill_end(struct mbt6_fill *f);
/* Pool units the filled routes take. */
static inline size_t mbt6_fill_units(const struct mbt6_fill *f)
{
	return f->direct * MBT6_DIRECT_UNITS + f->range + f->tiny + f->range2;
}

/*
 * The 256 slots of node e; -EINVAL if e is no node inside the pool,
 * -EOPNOTSUPP for a RANGE2 node (two levels: mbt6_node_mem).
 */
int mbt6_node_slots(const struct mbt6 *m, __u32 e, __u32 *slot);
/* The entries of node e, NULL if e is no node inside the pool. */
const __u32 *mbt6_node_mem(const struct mbt6 *m, __u32 e);

#endif
