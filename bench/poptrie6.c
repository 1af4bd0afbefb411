// SPDX-License-Identifier: GPL-2.0-only
/*
 * Building the Poptrie candidate (bench/poptrie6.h).  A node's children
 * are numbered consecutively and so are its leaves, so one population
 * count over the bits below a child finds it.  Routes come in address
 * order, so those inside one child are consecutive, and painting them in
 * order lets a longer route overwrite the shorter one it lies in.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "bench/poptrie6.h"

typedef unsigned __int128 u128;

struct pnode {
	__u64 vec, leafvec;
	__u32 child, leaf;
};

struct build {
	const struct gen_prefix *p;
	struct pnode *node;
	size_t nodes, node_cap;
	__u32 *leaf;
	size_t leaves, leaf_cap;
	int err;
};

static u128 addr_of(const struct gen_prefix *p)
{
	u128 a = 0;
	int i;

	for (i = 0; i < 16; i++)
		a = a << 8 | p->addr[i];
	return a;
}

/* The 6 bits of a at bit offset off (bits past 128 read as 0). */
static unsigned int chunk(u128 a, unsigned int off)
{
	return (unsigned int)(off <= 122 ? a >> (122 - off)
					 : a << (off - 122)) &
	       63;
}

static int grow(void **arr, size_t *cap, size_t need, size_t size)
{
	void *p;

	if (need <= *cap)
		return 0;
	p = realloc(*arr, (need > 2 * *cap ? need : 2 * *cap) * size);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = need > 2 * *cap ? need : 2 * *cap;
	return 0;
}

/*
 * Node k (already reserved) for the /len at base: routes [i, j) lie in it
 * and are longer than len; the rest of it is dflt.
 */
static void build_node(struct build *b, size_t k, u128 base, unsigned int len,
		       size_t i, size_t j, __u32 dflt)
{
	unsigned int c, cc, clen = len + POP6_STRIDE, inner = 0;
	size_t from[64], to[64], x, child0, leaf0;
	__u64 vec = 0, leafvec = 0;
	__u32 leafv[64], prev = 0;
	bool first = true;

	for (c = 0; c < 64; c++)
		leafv[c] = dflt;
	for (x = i; x < j; x++) {
		const struct gen_prefix *r = &b->p[x];

		c = chunk(addr_of(r), len);
		if (r->len <= clen) {
			for (cc = c; cc < c + (1U << (clen - r->len)); cc++)
				leafv[cc] = r->class_idx + 1;
			continue;
		}
		if (!(vec >> c & 1)) {
			vec |= 1ULL << c;
			from[c] = x;
			inner++;
		}
		to[c] = x + 1;
	}
	leaf0 = b->leaves;
	for (c = 0; c < 64; c++) {
		if (vec >> c & 1 || (!first && leafv[c] == prev))
			continue;
		leafvec |= 1ULL << c;
		prev = leafv[c];
		first = false;
		if (grow((void **)&b->leaf, &b->leaf_cap, b->leaves + 1,
			 sizeof(*b->leaf))) {
			b->err = -ENOMEM;
			return;
		}
		b->leaf[b->leaves++] = leafv[c];
	}
	child0 = b->nodes;
	if (grow((void **)&b->node, &b->node_cap, b->nodes + inner,
		 sizeof(*b->node))) {
		b->err = -ENOMEM;
		return;
	}
	b->nodes += inner;
	b->node[k] = (struct pnode){vec, leafvec, (__u32)child0, (__u32)leaf0};
	for (c = 0, x = child0; c < 64 && !b->err; c++)
		if (vec >> c & 1)
			build_node(b, x++, base | (u128)c << (128 - clen), clen,
				   from[c], to[c], leafv[c]);
}

int pop6_build(struct pop6 *pt, const struct gen_prefix *p, size_t n)
{
	struct build b = {.p = p};
	size_t i, j, k, s, leaf_at;
	__u32 *l1 = calloc(POP6_L1_ENTRIES, sizeof(*l1)), top;
	u128 a;

	memset(pt, 0, sizeof(*pt));
	if (!l1)
		return -ENOMEM;
	/* Routes up to /16 paint the first level, in order; they come
	 * before the longer routes in their range. */
	for (i = 0; i < n; i = j) {
		a = addr_of(&p[i]);
		top = (__u32)(a >> 112);
		if (p[i].len <= 16) {
			for (s = top; s < top + (1U << (16 - p[i].len)); s++)
				l1[s] = p[i].class_idx + 1;
			j = i + 1;
			continue;
		}
		for (j = i; j < n && (__u32)(addr_of(&p[j]) >> 112) == top; j++)
			;
		if (grow((void **)&b.node, &b.node_cap, b.nodes + 1,
			 sizeof(*b.node)))
			b.err = -ENOMEM;
		if (b.err)
			break;
		k = b.nodes++;
		build_node(&b, k, a & ~(u128)0 << 112, 16, i, j, l1[top]);
		l1[top] = POP6_NODE | (__u32)k;
	}
	if (!b.err) {
		leaf_at = POP6_NODES + b.nodes * POP6_NODE_ENTRIES;
		pt->entries = (leaf_at + b.leaves + 1) & ~(size_t)1;
		pt->t = calloc(pt->entries, sizeof(__u32));
		if (!pt->t)
			b.err = -ENOMEM;
	}
	for (k = 0; !b.err && k < b.nodes; k++) {
		__u32 *e = pt->t + POP6_NODES + k * POP6_NODE_ENTRIES;

		memcpy(e, &b.node[k].vec, 8);
		memcpy(e + 2, &b.node[k].leafvec, 8);
		e[4] = b.node[k].child;
		e[5] = (__u32)(leaf_at + b.node[k].leaf);
	}
	if (!b.err) {
		memcpy(pt->t, l1, POP6_L1_ENTRIES * sizeof(*l1));
		memcpy(pt->t + leaf_at, b.leaf, b.leaves * sizeof(__u32));
		pt->nodes = b.nodes;
		pt->leaves = b.leaves;
	}
	free(b.node);
	free(b.leaf);
	free(l1);
	return b.err;
}

void pop6_free(struct pop6 *pt)
{
	free(pt->t);
	pt->t = NULL;
}

__u32 pop6_lookup(const struct pop6 *pt, const __u8 addr[16])
{
	u128 a = 0;
	__u32 e, *nd, c;
	__u64 vec, lv, below;
	int i, lvl;

	for (i = 0; i < 16; i++)
		a = a << 8 | addr[i];
	e = pt->t[a >> 112];
	for (lvl = 0; lvl < POP6_LEVELS && (e & POP6_NODE); lvl++) {
		nd = pt->t + POP6_NODES +
		     (size_t)(e & ~POP6_NODE) * POP6_NODE_ENTRIES;
		c = chunk(a, 16 + POP6_STRIDE * lvl);
		memcpy(&vec, nd, 8);
		memcpy(&lv, nd + 2, 8);
		below = c == 63 ? ~0ULL : (2ULL << c) - 1;
		if (vec >> c & 1) {
			e = POP6_NODE |
			    (nd[4] + __builtin_popcountll(vec & below) - 1);
			continue;
		}
		return pt->t[nd[5] + __builtin_popcountll(lv & below) - 1];
	}
	return e;
}
