// SPDX-License-Identifier: GPL-2.0-only
/*
 * Painting the IPv6 table (layout in classifier_abi.h).  As in the DIR-24-8
 * table, each leaf remembers the length of the prefix that painted it: a
 * route paints the slots in its range whose painter is not longer, and a
 * deleted route hands exactly the slots it painted to its cover, so one
 * change touches only its own range.
 *
 * The table is canonical: a node exists exactly where its 256 slots are
 * not all one leaf painted by a route covering the whole node, and its
 * kind follows from its runs of equal slots (kind_of()).  So a table
 * built route by route and one filled in one pass are the same tree (the
 * unit tests compare them node by node).
 *
 * Readers never see a half-made node: DIRECT slots change by single
 * 32-bit stores; RANGE and TINY nodes, whose entries must agree with one
 * another, are copied and the copy is published; a node is complete
 * before the entry pointing to it is stored (release).  Nodes taken out
 * of the tree go to limbo, not back to the free lists (mbt6.h).
 */
#include <errno.h>
#include <string.h>

#include "maps/mbt6.h"

typedef unsigned __int128 u128;

#define NO_ROUTE 0U
#define NO_UNIT	 0xFFFFFFFFU

/* The runs of equal slots of a node, as far as MBT6_TINY_RUNS of them. */
struct runs {
	unsigned int n;
	__u8 start[MBT6_TINY_RUNS];
	__u32 v[MBT6_TINY_RUNS];
};

static inline __u32 leaf(unsigned int len, __u32 class_idx)
{
	return (len + 1) << MBT6_PLEN_SHIFT |
	       cls_idx_put(class_idx, MBT6_CLASS_LO, MBT6_CLASS_HI);
}

/* Length of a leaf's painter, -1 for no route. */
static inline int leaf_len(__u32 e)
{
	return (int)(e >> MBT6_PLEN_SHIFT & MBT6_PLEN_MASK) - 1;
}

static inline bool is_node(__u32 e)
{
	return (e & MBT6_CHILD) && e != MBT6_ASK_TRIE;
}

static inline __u32 kind(__u32 e)
{
	return e & MBT6_KINDS;
}

static inline __u32 node_ref(__u32 unit, __u32 kind)
{
	return MBT6_CHILD | kind | unit;
}

static inline void publish(__u32 *p, __u32 v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

static u128 addr128(const __u8 a[16])
{
	u128 v = 0;
	int i;

	for (i = 0; i < 16; i++)
		v = v << 8 | a[i];
	return v;
}

static u128 mask128(unsigned int len)
{
	return len ? ~(u128)0 << (128 - len) : 0;
}

/* Slot of addr in a node of depth d (address byte d + 1). */
static inline unsigned int slot_at(u128 a, int d)
{
	return (unsigned int)(a >> (112 - 8 * d)) & 0xff;
}

/* A node of depth d covers a /region_len(d); its slots a /(that + 8). */
static inline unsigned int region_len(int d)
{
	return d ? 8 + 8 * d : 0;
}

static inline unsigned int slot_len(int d)
{
	return 16 + 8 * d;
}

/* The depth of the nodes right under the first level. */
static inline int first_depth(const struct mbt6 *m)
{
	return m->wide ? 2 : 1;
}

/* The depth of the nodes under a slot of depth d (0: the first level). */
static inline int depth_below(const struct mbt6 *m, int d)
{
	return d ? d + 1 : first_depth(m);
}

/* An address's first-level slot is its top l1 bits. */
static inline unsigned int l1_shift(const struct mbt6 *m)
{
	return 128 - mbt6_l1_bits(m->wide);
}

/* Entries of the node e refers to, NULL if it lies outside the pool. */
static __u32 *node_mem(const struct mbt6 *m, __u32 e)
{
	__u32 u = e & MBT6_UNIT_MASK;
	__u32 n = kind(e) == MBT6_DIRECT ? MBT6_DIRECT_UNITS : 1;

	if (!m->t || !is_node(e) || u >= m->units || m->units - u < n)
		return NULL;
	return m->t + mbt6_l1_entries(m->wide) + (size_t)u * MBT6_UNIT_ENTRIES;
}

/*
 * What the data path reads for slot s of node e (at p, entry base of the
 * map); the entries it reads go to path, if not NULL.
 */
static __u32 node_read(const __u32 *p, __u32 e, unsigned int s, __u32 base,
		       struct mbt6_path *path)
{
	__u32 first[3] = {0, 1, 0}, n = 0, k, v;
	__u64 starts;

	switch (kind(e)) {
	case MBT6_DIRECT:
		first[n++] = s;
		v = p[s];
		break;
	case MBT6_RANGE:
		n = 2;
		if (s - (p[0] & 0xff) <= (p[0] >> 8 & 0xff) - (p[0] & 0xff)) {
			v = p[MBT6_RANGE_IN];
			break;
		}
		first[n++] = MBT6_RANGE_OUT;
		v = p[MBT6_RANGE_OUT];
		break;
	default:
		memcpy(&starts, p, sizeof(starts));
		n = 2;
		first[n] = MBT6_TINY_FIRST + mbt6_tiny_run(starts, s);
		v = p[first[n++]];
		break;
	}
	for (k = 0; path && k < n && path->reads < MBT6_PATH_READS; k++)
		path->entry[path->reads++] = base + first[k];
	return v;
}

static __u32 node_slot(const __u32 *p, __u32 e, unsigned int s)
{
	return node_read(p, e, s, 0, NULL);
}

/* What the data path reads in a RANGE2 node for key (two address bytes). */
static __u32 range2_read(const __u32 *p, unsigned int key, __u32 base,
			 struct mbt6_path *path)
{
	unsigned int lo = p[0] & 0xffff, hi = p[0] >> 16;
	__u32 at = key - lo <= hi - lo ? MBT6_RANGE_IN : MBT6_RANGE_OUT;

	if (path && path->reads + 2 <= MBT6_PATH_READS) {
		path->entry[path->reads++] = base;
		path->entry[path->reads++] = base + at;
	}
	return p[at];
}

static void decode(const __u32 *p, __u32 e, __u32 *slot)
{
	unsigned int s;

	if (kind(e) == MBT6_DIRECT) {
		memcpy(slot, p, MBT6_SLOTS * sizeof(*slot));
		return;
	}
	for (s = 0; s < MBT6_SLOTS; s++)
		slot[s] = node_slot(p, e, s);
}

int mbt6_node_slots(const struct mbt6 *m, __u32 e, __u32 *slot)
{
	const __u32 *p = node_mem(m, e);

	if (!p)
		return -EINVAL;
	if (kind(e) == MBT6_RANGE2)
		return -EOPNOTSUPP;
	decode(p, e, slot);
	return 0;
}

const __u32 *mbt6_node_mem(const struct mbt6 *m, __u32 e)
{
	return node_mem(m, e);
}

/* The runs of 256 slots; r->n counts them all. */
static void slot_runs(const __u32 *slot, struct runs *r)
{
	unsigned int s;

	r->n = 0;
	for (s = 0; s < MBT6_SLOTS; s++) {
		if (s && slot[s] == slot[s - 1])
			continue;
		if (r->n < MBT6_TINY_RUNS) {
			r->start[r->n] = (__u8)s;
			r->v[r->n] = slot[s];
		}
		r->n++;
	}
}

static unsigned int count_runs(const __u32 *slot)
{
	unsigned int s, runs = 1;

	for (s = 1; s < MBT6_SLOTS; s++)
		runs += slot[s] != slot[s - 1];
	return runs;
}

/*
 * Which of two runs a RANGE node reads in one step: the one lookups go to
 * more, i.e. the node, or the longer route's leaf.
 */
static bool first_inside(__u32 a, __u32 b)
{
	if (is_node(a) != is_node(b))
		return is_node(a);
	return leaf_len(a) >= leaf_len(b);
}

/* The kind a node of these runs is stored as (limit: runs for TINY). */
static __u32 kind_of(const struct runs *r, unsigned int limit)
{
	if (r->n > limit)
		return MBT6_DIRECT;
	if (r->n <= 2 || (r->n == 3 && r->v[0] == r->v[2]))
		return MBT6_RANGE;
	return 0; /* TINY */
}

static void range_write(__u32 *p, const struct runs *r)
{
	unsigned int lo = 0, hi = MBT6_SLOTS - 1, in = 0, out = 0;

	if (r->n == 3) {
		lo = r->start[1];
		hi = r->start[2] - 1;
		in = 1;
	} else if (r->n == 2) {
		in = first_inside(r->v[0], r->v[1]) ? 0 : 1;
		out = 1 - in;
		lo = in ? r->start[1] : 0;
		hi = in ? MBT6_SLOTS - 1 : r->start[1] - 1U;
	}
	memset(p, 0, MBT6_UNIT_ENTRIES * sizeof(*p));
	p[0] = lo | hi << 8;
	p[MBT6_RANGE_IN] = r->v[in];
	p[MBT6_RANGE_OUT] = r->v[out];
}

static void tiny_write(__u32 *p, const struct runs *r)
{
	__u64 starts = ~0ULL;
	unsigned int k;

	for (k = 0; k < MBT6_TINY_RUNS; k++)
		p[MBT6_TINY_FIRST + k] = r->v[k < r->n ? k : r->n - 1];
	for (k = 1; k < r->n; k++) {
		starts &= ~(0xffULL << (8 * (k - 1)));
		starts |= (__u64)r->start[k] << (8 * (k - 1));
	}
	memcpy(p, &starts, sizeof(starts));
}

/*
 * The leaf a node of depth d with these runs stands for, if it needs no
 * node: all slots one leaf painted by a route covering the whole node (or
 * all left to the trie).
 */
static bool uniform(unsigned int runs, __u32 first, int d, __u32 *v)
{
	if (runs != 1 || is_node(first))
		return false;
	if (first != MBT6_ASK_TRIE && leaf_len(first) > (int)region_len(d))
		return false;
	*v = first;
	return true;
}

static unsigned int tiny_runs(const struct mbt6 *m)
{
	return m->all_direct ? 0 : MBT6_TINY_RUNS;
}

/* --- the pool ----------------------------------------------------------- */

static __u32 *free_list(struct mbt6 *m, bool direct, __u32 **count)
{
	*count = direct ? &m->hdr->n_free_direct : &m->hdr->n_free_unit;
	return direct ? &m->hdr->free_direct : &m->hdr->free_unit;
}

static __u32 *node_count(struct mbt6 *m, __u32 kind)
{
	return kind == MBT6_DIRECT   ? &m->hdr->direct
	       : kind == MBT6_RANGE  ? &m->hdr->range
	       : kind == MBT6_RANGE2 ? &m->hdr->range2
				     : &m->hdr->tiny;
}

/* A unit for a new node of kind k, or NO_UNIT when the pool is full. */
static __u32 alloc_node(struct mbt6 *m, __u32 k)
{
	bool direct = k == MBT6_DIRECT;
	struct mbt6_hdr *h = m->hdr;
	__u32 *count, *head = free_list(m, direct, &count), u, *p;

	if (*head) {
		u = *head - 1;
		p = node_mem(m, node_ref(u, direct ? MBT6_DIRECT : 0));
		if (p) {
			*head = p[0];
			(*count)--;
			goto out;
		}
		*head = 0; /* a list that leaves the pool: drop it */
		*count = 0;
	}
	if (h->low > h->high || h->high > m->units)
		return NO_UNIT;
	if (m->packed) {
		/* In the order the fill makes them: a subtree side by side. */
		if (h->high - h->low < (direct ? MBT6_DIRECT_UNITS : 1))
			return NO_UNIT;
		u = h->low;
		h->low += direct ? MBT6_DIRECT_UNITS : 1;
	} else if (direct) {
		if (h->high - h->low < MBT6_DIRECT_UNITS)
			return NO_UNIT;
		u = h->low;
		h->low += MBT6_DIRECT_UNITS;
	} else {
		if (h->high == h->low)
			return NO_UNIT;
		u = --h->high;
	}
out:
	(*node_count(m, k))++;
	return u;
}

/* A node out of the tree: readers may still be in it, so to limbo. */
static void retire(struct mbt6 *m, __u32 e)
{
	struct mbt6_hdr *h = m->hdr;

	if (!node_mem(m, e))
		return;
	(*node_count(m, kind(e)))--;
	if (h->n_limbo < MBT6_LIMBO)
		h->limbo[h->n_limbo++] = e;
	else
		h->leaked++;
}

/* A subtree that could not be kept: all of it to limbo. */
static void retire_tree(struct mbt6 *m, __u32 e)
{
	__u32 slot[MBT6_SLOTS], *p = node_mem(m, e);
	unsigned int s;

	if (!p)
		return;
	if (kind(e) == MBT6_RANGE2) {
		if (is_node(p[MBT6_RANGE_IN]))
			retire_tree(m, p[MBT6_RANGE_IN]);
		retire(m, e);
		return;
	}
	decode(p, e, slot);
	for (s = 0; s < MBT6_SLOTS; s++)
		if (is_node(slot[s]) && (s == 0 || slot[s] != slot[s - 1]))
			retire_tree(m, slot[s]);
	retire(m, e);
}

/* Node e back on its free list: nobody can be reading it. */
static void free_node(struct mbt6 *m, __u32 e)
{
	__u32 *count, *head, *p = node_mem(m, e);

	if (!p)
		return;
	head = free_list(m, kind(e) == MBT6_DIRECT, &count);
	p[0] = *head;
	*head = (e & MBT6_UNIT_MASK) + 1;
	(*count)++;
}

/* A node made and never published: free at once. */
static void unalloc(struct mbt6 *m, __u32 e)
{
	if (!node_mem(m, e))
		return;
	(*node_count(m, kind(e)))--;
	free_node(m, e);
}

void mbt6_reclaim(struct mbt6 *m)
{
	struct mbt6_hdr *h = m->hdr;
	__u32 i;

	for (i = 0; i < h->n_limbo && i < MBT6_LIMBO; i++)
		free_node(m, h->limbo[i]);
	h->n_limbo = 0;
}

/*
 * A new node of these slots (with their runs, if it may be small), if
 * there is room: *ref is then the entry for it.
 */
static bool new_node(struct mbt6 *m, const __u32 *slot, const struct runs *r,
		     __u32 *ref)
{
	__u32 k = kind_of(r, tiny_runs(m)), u = alloc_node(m, k), *p;

	if (u == NO_UNIT)
		return false;
	*ref = node_ref(u, k);
	p = node_mem(m, *ref);
	if (k == MBT6_DIRECT)
		memcpy(p, slot, MBT6_SLOTS * sizeof(*slot));
	else if (k == MBT6_RANGE)
		range_write(p, r);
	else
		tiny_write(p, r);
	return true;
}

/* --- RANGE2: a lone range two levels down ------------------------------ */

/*
 * Of a RANGE node's runs c, the one run that is not out: *lo, *hi, *in.
 * False when the node holds out in more than one run, or not at all.
 */
static bool one_run_in(const struct runs *c, __u32 out, unsigned int *lo,
		       unsigned int *hi, __u32 *in)
{
	if (c->n == 3 && c->v[0] == out && c->v[2] == out) {
		*lo = c->start[1];
		*hi = c->start[2] - 1U;
		*in = c->v[1];
	} else if (c->n == 2 && c->v[0] == out) {
		*lo = c->start[1];
		*hi = MBT6_SLOTS - 1;
		*in = c->v[1];
	} else if (c->n == 2 && c->v[1] == out) {
		*lo = 0;
		*hi = c->start[1] - 1U;
		*in = c->v[0];
	} else {
		return false;
	}
	return true;
}

/*
 * The slot of a node (runs r) whose slots all hold one value, *out, but
 * that one, *child, a node; -1 if it is not such a node.
 */
static int lone_child(const struct runs *r, __u32 *out, __u32 *child)
{
	int x = -1;

	if (r->n == 3 && r->v[0] == r->v[2] && r->start[2] - r->start[1] == 1)
		x = r->start[1], *out = r->v[0], *child = r->v[1];
	else if (r->n == 2 && r->start[1] == 1)
		x = 0, *out = r->v[1], *child = r->v[0];
	else if (r->n == 2 && r->start[1] == MBT6_SLOTS - 1)
		x = MBT6_SLOTS - 1, *out = r->v[0], *child = r->v[1];
	return x >= 0 && !is_node(*out) && is_node(*child) ? x : -1;
}

/* A RANGE2's entries: the range x:lo..x:hi holds in, the rest out. */
static void range2_entries(__u32 *ent, unsigned int x, unsigned int lo,
			   unsigned int hi, __u32 in, __u32 out)
{
	ent[0] = (x << 8 | lo) | (x << 8 | hi) << 16;
	ent[1] = in;
	ent[2] = out;
}

/*
 * Is a node with these slots (runs r) a RANGE2?  Its one node slot must
 * hold a RANGE node (not a RANGE2: those do not chain) with out in all
 * but one run.  Fills its entries and the node it takes in.
 */
static bool range2_of(const struct mbt6 *m, const struct runs *r, __u32 *ent,
		      __u32 *child)
{
	__u32 c[MBT6_SLOTS], out, in;
	unsigned int lo, hi;
	const __u32 *p;
	struct runs cr;
	int x;

	if (m->all_direct || (x = lone_child(r, &out, child)) < 0 ||
	    kind(*child) != MBT6_RANGE || !(p = node_mem(m, *child)))
		return false;
	decode(p, *child, c);
	slot_runs(c, &cr);
	if (!one_run_in(&cr, out, &lo, &hi, &in))
		return false;
	range2_entries(ent, (unsigned int)x, lo, hi, in, out);
	return true;
}

/* A new RANGE2 node of these entries; false: no room. */
static bool new_range2(struct mbt6 *m, const __u32 *ent, __u32 *ref)
{
	__u32 u = alloc_node(m, MBT6_RANGE2), *p;

	if (u == NO_UNIT)
		return false;
	*ref = node_ref(u, MBT6_RANGE2);
	p = node_mem(m, *ref);
	memset(p, 0, MBT6_UNIT_ENTRIES * sizeof(*p));
	memcpy(p, ent, 3 * sizeof(*p));
	return true;
}

/*
 * The 256 slots of the RANGE2 node at p, its range taken out into a new
 * RANGE node of depth d + 1 (not yet published); false: no room.
 */
static bool range2_expand(struct mbt6 *m, const __u32 *p, __u32 *slot,
			  __u32 *child)
{
	unsigned int lo = p[0] & 0xffff, hi = p[0] >> 16, s;
	__u32 c[MBT6_SLOTS];
	struct runs r;

	if (lo >> 8 != hi >> 8 || lo > hi)
		return false;
	for (s = 0; s < MBT6_SLOTS; s++)
		c[s] = s >= (lo & 0xff) && s <= (hi & 0xff) ? p[MBT6_RANGE_IN]
							      : p[MBT6_RANGE_OUT];
	slot_runs(c, &r);
	if (!new_node(m, c, &r, child))
		return false;
	for (s = 0; s < MBT6_SLOTS; s++)
		slot[s] = p[MBT6_RANGE_OUT];
	slot[lo >> 8] = *child;
	return true;
}

/*
 * A node of depth d with these slots, if it needs one and there is room:
 * *v is then the entry for it, or the leaf it stands for.
 */
static bool try_encode(struct mbt6 *m, const __u32 *slot, int d, __u32 *v)
{
	__u32 ent[3], child;
	struct runs r;

	slot_runs(slot, &r);
	if (uniform(r.n, slot[0], d, v))
		return true;
	if (!range2_of(m, &r, ent, &child))
		return new_node(m, slot, &r, v);
	if (!new_range2(m, ent, v))
		return false;
	retire(m, child); /* taken in */
	return true;
}

/* As try_encode; without room the trie answers, the subtrees retire. */
static __u32 encode(struct mbt6 *m, const __u32 *slot, int d)
{
	unsigned int s;
	__u32 v;

	if (try_encode(m, slot, d, &v))
		return v;
	m->hdr->ask_trie++;
	for (s = 0; s < MBT6_SLOTS; s++)
		if (is_node(slot[s]) && (s == 0 || slot[s] != slot[s - 1]))
			retire_tree(m, slot[s]);
	return MBT6_ASK_TRIE;
}

/* --- one route ---------------------------------------------------------- */

struct op {
	u128 addr; /* masked to len */
	unsigned int len;
	bool paint; /* else unpaint */
	__u32 v;    /* the route's leaf (paint), the cover's (unpaint) */
};

/*
 * Slots [*lo, *hi] of a node of depth d (0: the first level) that op
 * touches.  Returns true when op is longer than a slot: it then lies in
 * the one slot *lo, below it.
 */
static bool op_slots(const struct mbt6 *m, const struct op *op, int d,
		     unsigned int *lo, unsigned int *hi)
{
	unsigned int first, g = d ? slot_len(d) : mbt6_l1_bits(m->wide);

	if (op->len <= region_len(d)) {
		*lo = 0;
		*hi = d ? MBT6_SLOTS - 1 : mbt6_l1_entries(m->wide) - 1;
		return false;
	}
	first = d ? slot_at(op->addr, d)
		  : (unsigned int)(op->addr >> l1_shift(m));
	*lo = first;
	*hi = op->len <= g ? first + (1U << (g - op->len)) - 1 : first;
	return op->len > g;
}

static __u32 apply_node(struct mbt6 *m, __u32 e, int d, const struct op *op);
static bool apply_slots(struct mbt6 *m, __u32 *slot, int d,
			const struct op *op);

/* The new value of slot e (of a node of depth d) after op. */
static __u32 apply_slot(struct mbt6 *m, __u32 e, int d, const struct op *op,
			bool below)
{
	__u32 slot[MBT6_SLOTS];
	int s;

	if (e == MBT6_ASK_TRIE)
		return e;
	if (is_node(e))
		return apply_node(m, e, depth_below(m, d), op);
	if (!below) {
		if (op->paint)
			return leaf_len(e) <= (int)op->len ? op->v : e;
		return leaf_len(e) == (int)op->len ? op->v : e;
	}
	/* Leaves are never painted by routes longer than their slot. */
	if (!op->paint)
		return e;
	for (s = 0; s < MBT6_SLOTS; s++)
		slot[s] = e;
	apply_slots(m, slot, depth_below(m, d), op);
	return encode(m, slot, depth_below(m, d));
}

/*
 * op on the slots of a node of depth d (0: the first level), in memory
 * we may write.  Returns whether a slot changed.
 */
static bool apply_slots(struct mbt6 *m, __u32 *slot, int d, const struct op *op)
{
	unsigned int lo, hi, s;
	bool below = op_slots(m, op, d, &lo, &hi), changed = false;
	__u32 v;

	for (s = lo; s <= hi; s++) {
		v = apply_slot(m, slot[s], d, op, below);
		if (v != slot[s]) {
			publish(&slot[s], v);
			changed = true;
		}
	}
	return changed;
}

/*
 * op below the node e of depth d.  DIRECT nodes change in place; the
 * others are copied.  Returns the entry for the node's slot in its parent.
 */
static __u32 apply_node(struct mbt6 *m, __u32 e, int d, const struct op *op)
{
	__u32 slot[MBT6_SLOTS], *p = node_mem(m, e), v, child;
	unsigned int runs;

	if (!p)
		return MBT6_ASK_TRIE;
	if (kind(e) == MBT6_RANGE2) {
		/* Two levels again, the lower one new, then as any node. */
		if (!range2_expand(m, p, slot, &child)) {
			m->hdr->ask_trie++;
			retire_tree(m, e);
			return MBT6_ASK_TRIE;
		}
		if (!apply_slots(m, slot, d, op)) {
			unalloc(m, child);
			return e;
		}
		retire(m, e);
		return encode(m, slot, d);
	}
	if (kind(e) == MBT6_DIRECT) {
		if (!apply_slots(m, p, d, op))
			return e;
		runs = count_runs(p);
		if (runs > tiny_runs(m) && !uniform(runs, p[0], d, &v))
			return e;
		/* No room for the smaller node: the DIRECT one still holds. */
		if (!try_encode(m, p, d, &v))
			return e;
		retire(m, e);
		return v;
	}
	decode(p, e, slot);
	if (!apply_slots(m, slot, d, op))
		return e;
	retire(m, e);
	return encode(m, slot, d);
}

static int apply(struct mbt6 *m, const __u8 addr[16], const struct op *in)
{
	struct op op = *in;

	if (!m->t)
		return -EINVAL;
	op.addr = addr128(addr) & mask128(op.len);
	apply_slots(m, m->t, 0, &op);
	return 0;
}

int mbt6_add(struct mbt6 *m, const __u8 addr[16], unsigned int len,
	     __u32 class_idx)
{
	struct op op = {.len = len, .paint = true};

	if (len > 128 || class_idx >= CLS_CLASS_LIMIT)
		return -EINVAL;
	op.v = leaf(len, class_idx);
	return apply(m, addr, &op);
}

int mbt6_del(struct mbt6 *m, const __u8 addr[16], unsigned int len,
	     bool has_cover, unsigned int cover_len, __u32 cover_class)
{
	struct op op = {.len = len, .paint = false, .v = NO_ROUTE};

	if (len > 128 ||
	    (has_cover && (cover_len >= len || cover_class >= CLS_CLASS_LIMIT)))
		return -EINVAL;
	if (has_cover)
		op.v = leaf(cover_len, cover_class);
	return apply(m, addr, &op);
}

__u32 mbt6_lookup(const struct mbt6 *m, const __u8 addr[16], bool *ask_trie,
		  struct mbt6_path *path)
{
	struct mbt6_path none;
	u128 a = addr128(addr);
	__u32 e, *p;
	int d;

	if (!path)
		path = &none;
	memset(path, 0, sizeof(*path));
	*ask_trie = true;
	if (!m->t)
		return 0;
	e = m->t[a >> l1_shift(m)];
	path->entry[path->reads++] = (__u32)(a >> l1_shift(m));
	for (d = first_depth(m); d <= MBT6_MAX_DEPTH && is_node(e); d++) {
		p = node_mem(m, e);
		if (!p)
			return 0;
		if (kind(e) == MBT6_RANGE2) {
			if (d >= MBT6_MAX_DEPTH)
				return 0;
			path->range2++;
			e = range2_read(p, slot_at(a, d) << 8 | slot_at(a, d + 1),
					(__u32)(p - m->t), path);
			d++;
			continue;
		}
		if (kind(e) == MBT6_DIRECT)
			path->direct++;
		else if (kind(e) == MBT6_RANGE)
			path->range++;
		else
			path->tiny++;
		e = node_read(p, e, slot_at(a, d), (__u32)(p - m->t), path);
	}
	if (e & MBT6_CHILD)
		return 0;
	*ask_trie = false;
	return mbt6_class(e);
}

/* --- the whole table ---------------------------------------------------- */

int mbt6_view(struct mbt6 *m, __u32 *mem, size_t entries, bool wide)
{
	size_t pool, l1 = mbt6_l1_entries(wide);

	if (entries < l1 + MBT6_HDR_ENTRIES)
		return -EINVAL;
	pool = entries - l1 - MBT6_HDR_ENTRIES;
	if (pool % MBT6_UNIT_ENTRIES ||
	    pool / MBT6_UNIT_ENTRIES > MBT6_MAX_UNITS)
		return -EINVAL;
	m->t = mem;
	m->hdr = (struct mbt6_hdr *)(mem + entries - MBT6_HDR_ENTRIES);
	m->units = pool / MBT6_UNIT_ENTRIES;
	m->wide = wide;
	m->all_direct = false;
	m->packed = false;
	return 0;
}

static void reset_pool(struct mbt6 *m)
{
	memset(m->hdr, 0, sizeof(*m->hdr));
	m->hdr->magic = MBT6_MAGIC;
	m->hdr->units = m->units;
	m->hdr->high = m->units;
	m->hdr->wide = m->wide;
}

void mbt6_clear(struct mbt6 *m)
{
	memset(m->t, 0, mbt6_l1_entries(m->wide) * sizeof(*m->t));
	reset_pool(m);
}

void mbt6_usage(const struct mbt6 *m, struct mbt6_usage *u)
{
	const struct mbt6_hdr *h = m->hdr;
	size_t idle = h->high >= h->low ? h->high - h->low : 0;

	memset(u, 0, sizeof(*u));
	u->units = m->units;
	u->direct = h->direct;
	u->range = h->range;
	u->tiny = h->tiny;
	u->range2 = h->range2;
	u->limbo = h->n_limbo;
	u->leaked = h->leaked;
	u->ask_trie = h->ask_trie;
	idle += (size_t)h->n_free_direct * MBT6_DIRECT_UNITS + h->n_free_unit;
	u->used = idle < m->units ? m->units - idle : 0;
	u->bytes = mbt6_entries(m->units, m->wide) * sizeof(__u32);
}

/* --- one pass ------------------------------------------------------------ */

void mbt6_fill_begin(struct mbt6_fill *f, struct mbt6 *m)
{
	memset(f, 0, sizeof(*f));
	f->m = m;
	if (m->t)
		reset_pool(m);
	m->packed = true;
}

/*
 * Slots [first, first + n) of open node d get v.  Slots come in order, so
 * a node keeps its runs while it may still be small, and spells out its
 * slots once it has more.
 */
static void fill_put(struct mbt6_fill *f, int d, unsigned int first,
		     unsigned int n, __u32 v)
{
	struct mbt6_fill_node *nd = &f->node[d];
	unsigned int lim = tiny_runs(f->m), k, s, end;
	bool dense = nd->runs > lim, same;

	same = nd->runs &&
	       (dense ? nd->slot[first - 1] : nd->run[nd->runs - 1]) == v;
	if (!same)
		nd->runs++;
	if (nd->runs <= lim) {
		if (!same) {
			nd->start[nd->runs - 1] = (__u8)first;
			nd->run[nd->runs - 1] = v;
		}
		return;
	}
	for (k = 0; !dense && k + 1 < nd->runs; k++) {
		end = k + 2 < nd->runs ? nd->start[k + 1] : first;
		for (s = nd->start[k]; s < end; s++)
			nd->slot[s] = nd->run[k];
	}
	for (s = first; s < first + n; s++)
		nd->slot[s] = v;
}

/*
 * Node d, of runs r, as a RANGE2 taking in the node of depth d + 1 that
 * closed last (try_encode decides the same way on a whole node); writes
 * it if there is a table.  False: not a RANGE2.
 */
static bool fill_range2(struct mbt6_fill *f, int d, const struct runs *r,
			__u32 *v)
{
	const struct mbt6_fill_range *c = &f->last[d + 1];
	struct runs cr = {.n = c->n};
	__u32 ent[3], out, in, child;
	unsigned int lo, hi;
	int x;

	if (f->m->all_direct || !c->ok ||
	    (x = lone_child(r, &out, &child)) < 0 || child != c->ref)
		return false;
	memcpy(cr.start, c->start, sizeof(cr.start));
	memcpy(cr.v, c->v, sizeof(cr.v));
	if (!one_run_in(&cr, out, &lo, &hi, &in))
		return false;
	f->range--;
	f->range2++;
	*v = node_ref(++f->made & MBT6_UNIT_MASK, 0);
	if (!f->m->t)
		return true;
	/* The node taken in was never published: its unit goes first. */
	unalloc(f->m, c->ref);
	range2_entries(ent, (unsigned int)x, lo, hi, in, out);
	if (!new_range2(f->m, ent, v)) {
		f->m->hdr->ask_trie++;
		*v = MBT6_ASK_TRIE;
	}
	return true;
}

/* Node d is complete: its entry goes into its parent. */
static void fill_close(struct mbt6_fill *f, int d)
{
	struct mbt6_fill_node *n = &f->node[d];
	struct mbt6_fill_range *last = &f->last[d];
	bool dense = n->runs > tiny_runs(f->m);
	struct runs r = {.n = n->runs};
	__u32 v, k = 0;

	if (!dense) {
		memcpy(r.start, n->start, sizeof(r.start));
		memcpy(r.v, n->run, sizeof(r.v));
	}
	last->ok = false;
	if (!uniform(r.n, dense ? n->slot[0] : r.v[0], d, &v) &&
	    (dense || !fill_range2(f, d, &r, &v))) {
		k = kind_of(&r, tiny_runs(f->m));
		if (k == MBT6_DIRECT)
			f->direct++;
		else if (k == MBT6_RANGE)
			f->range++;
		else
			f->tiny++;
		/* Counting only: still a reference of its own, so that the
		 * parent counts its runs right. */
		v = node_ref(++f->made & MBT6_UNIT_MASK, 0);
		if (f->m->t && !new_node(f->m, n->slot, &r, &v)) {
			f->m->hdr->ask_trie++;
			v = MBT6_ASK_TRIE;
		}
		/* What a RANGE2 parent needs to know of it. */
		last->ok = k == MBT6_RANGE && v != MBT6_ASK_TRIE;
		last->ref = v;
		last->n = r.n;
		memcpy(last->start, r.start, sizeof(last->start));
		memcpy(last->v, r.v, sizeof(last->v));
	}
	if (d > first_depth(f->m))
		fill_put(f, d - 1, slot_at(n->base, d - 1), 1, v);
	else if (f->m->t)
		f->m->t[n->base >> l1_shift(f->m)] = v;
}

/* floor(log2 x), 0 for 0 */
static unsigned int log2_128(u128 x)
{
	__u64 hi = (__u64)(x >> 64);

	if (hi)
		return 127 - __builtin_clzll(hi);
	return (__u64)x ? 63 - __builtin_clzll((__u64)x) : 0;
}

static unsigned int ctz_128(u128 x)
{
	__u64 lo = (__u64)x;

	if (lo)
		return __builtin_ctzll(lo);
	return (__u64)(x >> 64) ? 64 + __builtin_ctzll((__u64)(x >> 64)) : 128;
}

/* The shallowest depth whose slots start at lo and fit in [lo, hi]. */
static int fill_depth(const struct mbt6 *m, u128 lo, u128 hi)
{
	u128 span = hi - lo;
	unsigned int fit = span == ~(u128)0 ? 128 : log2_128(span + 1);
	unsigned int bits = ctz_128(lo);
	int d;

	if (bits > fit)
		bits = fit;
	if (bits >= l1_shift(m))
		return 0;
	d = (int)(112 - bits + 7) / 8;
	return d > first_depth(m) ? d : first_depth(m);
}

/*
 * Open nodes are depths first_depth..deep (0: none): closes those past
 * depth d or not on lo.
 */
static void fill_leave(struct mbt6_fill *f, int d, u128 lo)
{
	while (f->deep > d || (f->deep && (lo & mask128(region_len(f->deep))) !=
						  f->node[f->deep].base)) {
		fill_close(f, f->deep);
		f->deep = f->deep > first_depth(f->m) ? f->deep - 1 : 0;
	}
}

/* [lo, hi] gets v, slot by slot, in the shallowest slots that fit. */
static void fill_range(struct mbt6_fill *f, u128 lo, u128 hi, __u32 v)
{
	unsigned int shift, first, room, s;
	u128 size, whole, n, last;
	int d;

	for (;;) {
		d = fill_depth(f->m, lo, hi);
		shift = d ? 112 - 8 * (unsigned int)d : l1_shift(f->m);
		size = (u128)1 << shift;
		fill_leave(f, d, lo);
		if (d && !f->deep)
			f->deep = first_depth(f->m) - 1;
		while (f->deep < d) {
			struct mbt6_fill_node *nd = &f->node[++f->deep];

			nd->runs = 0;
			nd->base = lo & mask128(region_len(f->deep));
		}
		first = d ? slot_at(lo, d) : (unsigned int)(lo >> l1_shift(f->m));
		room = (d ? MBT6_SLOTS : mbt6_l1_entries(f->m->wide)) - first;
		whole = ((hi - lo) >> shift) +
			(((hi - lo) & (size - 1)) == size - 1);
		n = whole < room ? whole : room;
		if (d)
			fill_put(f, d, first, (unsigned int)n, v);
		for (s = first; !d && f->m->t && s < first + n; s++)
			f->m->t[s] = v;
		last = lo + (n * size - 1);
		if (last == hi) {
			if (hi == ~(u128)0)
				f->done = true;
			else
				f->next = hi + 1;
			return;
		}
		lo = last + 1;
	}
}

/* Writes what the open routes say up to (not including) a, or to the end. */
static void fill_until(struct mbt6_fill *f, u128 a, bool to_end)
{
	u128 end;

	while (f->depth && (to_end || f->open[f->depth - 1].end < a)) {
		end = f->open[--f->depth].end;
		if (!f->done && f->next <= end)
			fill_range(f, f->next, end, f->open[f->depth].leaf);
	}
	if (f->done || (!to_end && f->next >= a))
		return;
	fill_range(f, f->next, to_end ? ~(u128)0 : a - 1,
		   f->depth ? f->open[f->depth - 1].leaf : NO_ROUTE);
}

int mbt6_fill_add(struct mbt6_fill *f, const __u8 addr[16], unsigned int len,
		  __u32 class_idx)
{
	u128 start;
	int top;

	if (len > 128 || class_idx >= CLS_CLASS_LIMIT)
		return -EINVAL;
	start = addr128(addr) & mask128(len);
	if (f->done || start < f->next)
		return -EINVAL;
	fill_until(f, start, false);
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
	f->open[top].end = start | ~mask128(len);
	f->open[top].len = len;
	f->open[top].leaf = leaf(len, class_idx);
	return 0;
}

void mbt6_fill_end(struct mbt6_fill *f)
{
	fill_until(f, 0, true);
	fill_leave(f, 0, 0);
	f->m->packed = false;
}
