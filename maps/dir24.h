/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The DIR-24-8 table's contents (layout in classifier_abi.h), over any
 * memory: the mmap of the pinned map, or a buffer in the unit tests.
 * The LPM trie stays the truth; these functions keep the table equal to it.
 */
#ifndef CLS_DIR24_H
#define CLS_DIR24_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "maps/classifier_abi.h"

/* Bookkeeping at the end of the map; only user space reads it. */
struct cls_dir24_hdr {
	__u32 magic;
	__u32 groups;   /* capacity */
	__u32 used;     /* groups handed out (reclaimed on rebuild) */
	__u32 ask_trie; /* /24s left to the trie for want of a group */
};
#define CLS_DIR24_MAGIC 0x44323401 /* "D24", version 1 */

struct dir24 {
	__u32 *t;
	struct cls_dir24_hdr *hdr;
	__u32 groups;
	bool on; /* has a first level (groups may still be 0) */
};

/* map entries for a table with that many groups; 0 groups and !on: off */
static inline size_t dir24_entries(bool on, __u32 groups)
{
	return (on ? CLS_DIR24_L1_ENTRIES +
			     (size_t)groups * CLS_DIR24_GROUP_SIZE :
		     0) +
	       CLS_DIR24_HDR_ENTRIES;
}

/* Interpret mem (entries __u32s) as a table; -EINVAL for a bad size. */
int dir24_view(struct dir24 *d, __u32 *mem, size_t entries);
/* Every address: no route.  Groups are all free again. */
void dir24_clear(struct dir24 *d);
/* The bookkeeping of a table whose entries are all zero (a new map). */
void dir24_init(struct dir24 *d);
/* Route addr/len (host byte order) -> class added or replaced. */
void dir24_paint(struct dir24 *d, __u32 addr, unsigned int len,
		 __u32 class_idx);
/*
 * Route addr/len deleted: what it painted falls to the covering route
 * (cover_len < len, or has_cover false: no route).
 */
void dir24_unpaint(struct dir24 *d, __u32 addr, unsigned int len,
		   bool has_cover, unsigned int cover_len, __u32 cover_class);
/*
 * A whole table from routes in address order (shortest first among equal
 * addresses; a repeated prefix: the last one wins), each entry written
 * once (zeroed: the table is all zero, as a new map is, and entries with
 * no route are not written at all).  For a table no program reads: no
 * ordering of stores is kept.  fill_add returns -EINVAL for a route out of
 * order.
 */
struct dir24_fill {
	struct dir24 *d;
	__u64 next;	/* first address not yet written */
	__u32 grp_blk;	/* /24 whose group is being written, or -1 */
	__u32 *grp;	/* that group, NULL: left to the trie */
	bool zeroed;
	int depth;
	struct {
		__u64 start, end;
		__u32 len, leaf;
	} open[33];	/* the routes covering the current address */
};

void dir24_fill_begin(struct dir24_fill *f, struct dir24 *d, bool zeroed);
int dir24_fill_add(struct dir24_fill *f, __u32 addr, unsigned int len,
		   __u32 class_idx);
void dir24_fill_end(struct dir24_fill *f);

/* What the data path would do for addr: a class, or *ask_trie. */
__u32 dir24_lookup(const struct dir24 *d, __u32 addr, bool *ask_trie);

#endif
