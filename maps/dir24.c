// SPDX-License-Identifier: GPL-2.0-only
/*
 * Painting the DIR-24-8 table.  Each leaf remembers the length of the
 * prefix that painted it, so one route can be added or deleted by touching
 * only its own range: a route paints the entries whose painter is not
 * longer than itself, and a deleted route hands exactly the entries it
 * painted to its cover.  Entries are written with single 32-bit stores and
 * a group is filled before the first-level entry pointing to it is
 * published (release), so the data path never reads a half-made entry.
 */
#include <errno.h>
#include <string.h>

#include "maps/dir24.h"

#define NO_ROUTE 0U

static inline __u32 leaf(unsigned int len, __u32 class_idx)
{
	return (len + 1) << CLS_DIR24_PLEN_SHIFT |
	       cls_idx_put(class_idx, CLS_DIR24_CLASS_LO, CLS_DIR24_CLASS_HI);
}

/* Length of the painter, -1 for no route. */
static inline int leaf_len(__u32 e)
{
	return (int)(e >> CLS_DIR24_PLEN_SHIFT & CLS_DIR24_PLEN_MASK) - 1;
}

static inline bool is_group(__u32 e)
{
	return (e & CLS_DIR24_GROUP_BIT) && e != CLS_DIR24_ASK_TRIE;
}

static inline void store(__u32 *p, __u32 v)
{
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
}

static inline __u32 *group_of(const struct dir24 *d, __u32 e)
{
	return d->t + CLS_DIR24_L1_ENTRIES +
	       (size_t)(e & ~CLS_DIR24_GROUP_BIT) * CLS_DIR24_GROUP_SIZE;
}

int dir24_view(struct dir24 *d, __u32 *mem, size_t entries)
{
	size_t hdr = entries - CLS_DIR24_HDR_ENTRIES;

	if (entries < CLS_DIR24_HDR_ENTRIES)
		return -EINVAL;
	if (hdr != 0 && (hdr < CLS_DIR24_L1_ENTRIES ||
			 (hdr - CLS_DIR24_L1_ENTRIES) % CLS_DIR24_GROUP_SIZE))
		return -EINVAL;
	d->t = mem;
	d->hdr = (struct cls_dir24_hdr *)(mem + hdr);
	d->on = hdr != 0;
	d->groups = d->on ? (hdr - CLS_DIR24_L1_ENTRIES) / CLS_DIR24_GROUP_SIZE :
			    0;
	return 0;
}

void dir24_clear(struct dir24 *d)
{
	if (d->hdr->used > d->groups)
		d->hdr->used = d->groups;
	if (d->on)
		memset(d->t, 0,
		       (CLS_DIR24_L1_ENTRIES +
			(size_t)d->hdr->used * CLS_DIR24_GROUP_SIZE) *
			       sizeof(__u32));
	dir24_init(d);
}

void dir24_init(struct dir24 *d)
{
	memset(d->hdr, 0, sizeof(*d->hdr));
	d->hdr->magic = CLS_DIR24_MAGIC;
	d->hdr->groups = d->groups;
}

/* Entries [from, from + n) of a group or the first level. */
static void paint_range(__u32 *e, size_t n, unsigned int len, __u32 v)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (leaf_len(e[i]) <= (int)len)
			store(&e[i], v);
}

static void unpaint_range(__u32 *e, size_t n, unsigned int len, __u32 v)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (leaf_len(e[i]) == (int)len)
			store(&e[i], v);
}

/*
 * The group for first-level entry i, made from its leaf if it has none.
 * NULL when the /24 is (or now becomes) the trie's to answer.
 */
static __u32 *group_for(struct dir24 *d, __u32 i)
{
	__u32 e = d->t[i], g, k, *grp;

	if (is_group(e))
		return group_of(d, e);
	if (e == CLS_DIR24_ASK_TRIE)
		return NULL;
	if (d->hdr->used >= d->groups) {
		store(&d->t[i], CLS_DIR24_ASK_TRIE);
		d->hdr->ask_trie++;
		return NULL;
	}
	g = d->hdr->used++;
	grp = group_of(d, CLS_DIR24_GROUP_BIT | g);
	for (k = 0; k < CLS_DIR24_GROUP_SIZE; k++)
		store(&grp[k], e);
	__atomic_store_n(&d->t[i], CLS_DIR24_GROUP_BIT | g, __ATOMIC_RELEASE);
	return grp;
}

typedef void (*range_fn)(__u32 *e, size_t n, unsigned int len, __u32 v);

static void walk(struct dir24 *d, __u32 addr, unsigned int len, __u32 v,
		 range_fn fn, bool may_split)
{
	__u32 i, first, n, *grp;

	if (!d->on)
		return;
	if (len > 24) {
		i = addr >> 8;
		grp = may_split ? group_for(d, i) :
		      is_group(d->t[i]) ? group_of(d, d->t[i]) :
					  NULL;
		/* A first-level leaf was never painted by a route this long. */
		if (grp)
			fn(grp + (addr & 0xff), 1U << (32 - len), len, v);
		return;
	}
	first = len ? addr >> 8 : 0;
	n = 1U << (24 - len);
	for (i = first; i < first + n; i++) {
		if (is_group(d->t[i]))
			fn(group_of(d, d->t[i]), CLS_DIR24_GROUP_SIZE, len, v);
		else if (d->t[i] != CLS_DIR24_ASK_TRIE)
			fn(&d->t[i], 1, len, v);
	}
}

void dir24_paint(struct dir24 *d, __u32 addr, unsigned int len,
		 __u32 class_idx)
{
	walk(d, addr, len, leaf(len, class_idx), paint_range, true);
}

void dir24_unpaint(struct dir24 *d, __u32 addr, unsigned int len,
		   bool has_cover, unsigned int cover_len, __u32 cover_class)
{
	walk(d, addr, len, has_cover ? leaf(cover_len, cover_class) : NO_ROUTE,
	     unpaint_range, false);
}

/* No /24 has this index: 2^24 of them. */
#define NO_BLOCK 0xFFFFFFFFU

void dir24_fill_begin(struct dir24_fill *f, struct dir24 *d, bool zeroed)
{
	memset(f, 0, sizeof(*f));
	f->d = d;
	f->zeroed = zeroed;
	f->grp_blk = NO_BLOCK;
	dir24_init(d);
}

/* The group for /24 blk, its first entries still to be written. */
static __u32 *new_group(struct dir24 *d, __u32 blk)
{
	__u32 g;

	if (d->hdr->used >= d->groups) {
		d->t[blk] = CLS_DIR24_ASK_TRIE;
		d->hdr->ask_trie++;
		return NULL;
	}
	g = d->hdr->used++;
	d->t[blk] = CLS_DIR24_GROUP_BIT | g;
	return group_of(d, CLS_DIR24_GROUP_BIT | g);
}

/* [lo, hi] gets v: whole /24s in the first level, the rest in groups. */
static void fill_range(struct dir24_fill *f, __u64 lo, __u64 hi, __u32 v)
{
	__u32 *t = f->d->t, blk;
	__u64 n, i, blk_end;

	while (lo <= hi) {
		blk = (__u32)(lo >> 8);
		if (!(lo & 0xff) && hi - lo >= 0xff) {
			n = (hi - lo + 1) >> 8;
			/* A zeroed table says "no route" already: do not touch. */
			for (i = 0; i < n && !(f->zeroed && v == NO_ROUTE); i++)
				t[blk + i] = v;
			lo += n << 8;
			continue;
		}
		if (blk != f->grp_blk) {
			f->grp_blk = blk;
			f->grp = new_group(f->d, blk);
		}
		blk_end = (__u64)blk << 8 | 0xff;
		n = (blk_end < hi ? blk_end : hi) - lo + 1;
		if (f->grp && !(f->zeroed && v == NO_ROUTE))
			for (i = 0; i < n; i++)
				f->grp[(lo & 0xff) + i] = v;
		lo += n;
	}
}

/* Write up to (not including) addr what the open routes say. */
static void fill_until(struct dir24_fill *f, __u64 addr)
{
	__u64 end;

	while (f->depth && f->open[f->depth - 1].end < addr) {
		end = f->open[--f->depth].end;
		if (f->next <= end)
			fill_range(f, f->next, end, f->open[f->depth].leaf);
		f->next = end + 1;
	}
	if (f->next < addr)
		fill_range(f, f->next, addr - 1,
			   f->depth ? f->open[f->depth - 1].leaf : NO_ROUTE);
	if (f->next < addr)
		f->next = addr;
}

int dir24_fill_add(struct dir24_fill *f, __u32 addr, unsigned int len,
		   __u32 class_idx)
{
	__u64 start, size;
	int top;

	if (len > 32)
		return -EINVAL;
	size = 1ULL << (32 - len);
	start = addr & ~(size - 1);
	if (start < f->next)
		return -EINVAL;
	if (!f->d->on)
		return 0;
	fill_until(f, start);
	top = f->depth - 1;
	if (top >= 0 && f->open[top].start == start &&
	    f->open[top].len >= len) {
		if (f->open[top].len > len)
			return -EINVAL;
		f->open[top].leaf = leaf(len, class_idx);
		return 0;
	}
	top = f->depth++;
	f->open[top].start = start;
	f->open[top].end = start + size - 1;
	f->open[top].len = len;
	f->open[top].leaf = leaf(len, class_idx);
	return 0;
}

void dir24_fill_end(struct dir24_fill *f)
{
	if (!f->d->on)
		return;
	fill_until(f, 1ULL << 32);
}

__u32 dir24_lookup(const struct dir24 *d, __u32 addr, bool *ask_trie)
{
	__u32 e;

	*ask_trie = !d->on;
	if (!d->on)
		return 0;
	e = d->t[addr >> 8];
	if (e == CLS_DIR24_ASK_TRIE) {
		*ask_trie = true;
		return 0;
	}
	if (e & CLS_DIR24_GROUP_BIT)
		e = group_of(d, e)[addr & 0xff];
	return cls_dir24_class(e);
}
