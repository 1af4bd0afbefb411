// SPDX-License-Identifier: GPL-2.0-only
/*
 * The IPv6 table against a plain longest-prefix match over the same
 * routes, after random overlapping adds, replaces and deletes, with the
 * pool plentiful and exhausted; a one-pass fill against route-by-route
 * painting, node by node; sizing; the TINY run count.  Addresses checked:
 * random ones near the routes, far ones, and both edges of every prefix
 * and their neighbours.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "maps/mbt6.h"

typedef unsigned __int128 u128;

#define MAX_ROUTES 1536

struct route {
	u128 addr;
	unsigned int len;
	__u32 cls;
	bool live;
};

struct model {
	struct route r[MAX_ROUTES];
	size_t n;
};

static u128 mask(unsigned int len)
{
	return len ? ~(u128)0 << (128 - len) : 0;
}

static void bytes(u128 a, __u8 out[16])
{
	int i;

	for (i = 15; i >= 0; i--, a >>= 8)
		out[i] = (__u8)a;
}

static u128 rand64(void)
{
	return (u128)(__u32)rand() << 33 ^ (u128)(__u32)rand() << 11 ^
	       (__u32)rand();
}

static u128 rand128(void)
{
	return rand64() << 64 | rand64();
}

/* The reference: longest live prefix covering addr, below max_len. */
static struct route *best(struct model *m, u128 addr, int max_len)
{
	struct route *b = NULL;
	size_t i;

	for (i = 0; i < m->n; i++) {
		struct route *r = &m->r[i];

		if (r->live && (int)r->len <= max_len &&
		    (addr & mask(r->len)) == r->addr && (!b || r->len > b->len))
			b = r;
	}
	return b;
}

static struct route *find(struct model *m, u128 addr, unsigned int len)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (m->r[i].live && m->r[i].addr == addr && m->r[i].len == len)
			return &m->r[i];
	return NULL;
}

/*
 * Lengths weighted like IPv6 tables, with every stride edge (16 + 8k and
 * its neighbours) and the extremes; /0 and /8 repaint most of the first
 * level, so run() toggles /0 only now and then.
 */
static unsigned int random_len(void)
{
	static const unsigned int lens[] = {
		12, 16, 17, 20, 23, 24,	 25,  29,  31,	32,  32,  33,  36,  39,
		40, 41, 44, 47, 48, 48,	 48,  48,  49,	52,  56,  56,  63,  64,
		64, 65, 72, 80, 96, 112, 119, 120, 121, 126, 127, 128, 128,
	};

	return lens[rand() % (sizeof(lens) / sizeof(lens[0]))];
}

/* Addresses crowd into a few /32s and /48s so that prefixes overlap. */
static u128 random_addr(void)
{
	static const u128 bases[] = {
		(u128)0x20010db8 << 96,
		(u128)0x20010db800010000ULL << 64,
		(u128)0x2a0012340000ULL << 80,
		(u128)0x2a00123400ffULL << 80,
		(u128)0x26000000 << 96,
		(u128)0xfd000000 << 96,
	};
	u128 b = bases[rand() % 6];

	switch (rand() % 4) {
	case 0:
		return b | (rand128() & ~mask(32));
	case 1:
		return b | (rand128() & ~mask(44));
	case 2:
		return b | (rand128() & ~mask(60));
	default:
		return b | (rand128() & ~mask(120));
	}
}

struct table {
	__u32 *mem;
	size_t entries;
	struct mbt6 m;
};

/* Tables with a 24-bit first level (the *_wide runs of the tests). */
static bool wide;

static int set_wide(void **state)
{
	(void)state;
	wide = true;
	return 0;
}

static int set_narrow(void **state)
{
	(void)state;
	wide = false;
	return 0;
}

static void table_new(struct table *t, size_t units)
{
	t->entries = mbt6_entries(units, wide);
	t->mem = malloc(t->entries * sizeof(__u32));
	assert_non_null(t->mem);
	/* Garbage: nothing may rely on zeroed memory. */
	memset(t->mem, 0x5a, t->entries * sizeof(__u32));
	assert_int_equal(mbt6_view(&t->m, t->mem, t->entries, wide), 0);
	mbt6_clear(&t->m);
}

static void add(struct mbt6 *t, u128 addr, unsigned int len, __u32 cls)
{
	__u8 a[16];

	bytes(addr, a);
	assert_int_equal(mbt6_add(t, a, len, cls), 0);
}

/* Route addr/len deleted; the /32 of class cover_cls covers it. */
static void del_route(struct mbt6 *t, u128 addr, unsigned int len,
		      __u32 cover_cls)
{
	__u8 a[16];

	bytes(addr, a);
	assert_int_equal(mbt6_del(t, a, len, true, 32, cover_cls), 0);
}

static void del(struct model *m, struct mbt6 *t, struct route *r)
{
	struct route *cover;
	__u8 a[16];

	r->live = false;
	cover = best(m, r->addr, (int)r->len - 1);
	bytes(r->addr, a);
	assert_int_equal(mbt6_del(t, a, r->len, cover != NULL,
				  cover ? cover->len : 0,
				  cover ? cover->cls : 0),
			 0);
}

/*
 * Classes from both ends of the index's width, so that leaves use every
 * class bit, few enough that neighbours often share one.
 */
static __u32 random_class(void)
{
	__u32 c = 1 + rand() % 2000;

	return rand() % 2 ? c : CLS_CLASS_LIMIT - c;
}

static void op(struct model *m, struct mbt6 *t)
{
	unsigned int len = random_len();
	u128 addr = random_addr() & mask(len);
	__u32 cls = random_class();
	struct route *r = find(m, addr, len);

	if (r && rand() % 2) {
		del(m, t, r);
		return;
	}
	if (!r) {
		if (m->n == MAX_ROUTES)
			return;
		r = &m->r[m->n++];
		r->addr = addr;
		r->len = len;
		r->live = true;
	}
	r->cls = cls;
	add(t, addr, len, cls);
}

/* Default route on or off. */
static void toggle_default(struct model *m, struct mbt6 *t)
{
	struct route *r0 = find(m, 0, 0);

	if (r0) {
		del(m, t, r0);
	} else if (m->n < MAX_ROUTES) {
		m->r[m->n++] = (struct route){0, 0, CLS_CLASS_LIMIT - 1, true};
		add(t, 0, 0, CLS_CLASS_LIMIT - 1);
	}
}

static void check_addr(struct model *m, const struct mbt6 *t, u128 addr,
		       size_t *asked)
{
	struct route *b = best(m, addr, 128);
	__u8 a[16];
	bool ask;
	__u32 got;

	bytes(addr, a);
	got = mbt6_lookup(t, a, &ask, NULL);
	if (ask) {
		(*asked)++;
		return;
	}
	if (got != (b ? b->cls : 0))
		fail_msg("%016llx%016llx: table says %u, routes say %u",
			 (unsigned long long)(addr >> 64),
			 (unsigned long long)addr, got, b ? b->cls : 0);
}

static void check_all(struct model *m, const struct mbt6 *t, size_t *asked)
{
	size_t i;
	int k;

	for (i = 0; i < m->n; i++) {
		u128 lo = m->r[i].addr, hi = lo | ~mask(m->r[i].len);

		check_addr(m, t, lo, asked);
		check_addr(m, t, hi, asked);
		check_addr(m, t, lo - 1, asked);
		check_addr(m, t, hi + 1, asked);
	}
	for (k = 0; k < 4000; k++)
		check_addr(m, t, random_addr(), asked);
	for (k = 0; k < 500; k++)
		check_addr(m, t, rand128(), asked);
}

/* Node by node: same kinds, same slots (painters included). */
static void same_tree(const struct mbt6 *a, __u32 ea, const struct mbt6 *b,
		      __u32 eb, int d)
{
	const __u32 *pa, *pb;
	__u32 *sa, *sb;
	int s;

	if (!(ea & MBT6_CHILD) || ea == MBT6_ASK_TRIE) {
		assert_int_equal(ea, eb);
		return;
	}
	assert_true((eb & MBT6_CHILD) && eb != MBT6_ASK_TRIE);
	assert_int_equal(ea & MBT6_KINDS, eb & MBT6_KINDS);
	assert_true(d <= MBT6_MAX_DEPTH);
	if ((ea & MBT6_KINDS) == MBT6_RANGE2) {
		/* Two levels in one: the same range, inside and outside. */
		pa = mbt6_node_mem(a, ea);
		pb = mbt6_node_mem(b, eb);
		assert_non_null(pa);
		assert_non_null(pb);
		assert_int_equal(pa[0], pb[0]);
		same_tree(a, pa[MBT6_RANGE_IN], b, pb[MBT6_RANGE_IN], d + 2);
		same_tree(a, pa[MBT6_RANGE_OUT], b, pb[MBT6_RANGE_OUT], d + 2);
		return;
	}
	sa = malloc(2 * MBT6_SLOTS * sizeof(*sa));
	assert_non_null(sa);
	sb = sa + MBT6_SLOTS;
	assert_int_equal(mbt6_node_slots(a, ea, sa), 0);
	assert_int_equal(mbt6_node_slots(b, eb, sb), 0);
	for (s = 0; s < MBT6_SLOTS; s++)
		same_tree(a, sa[s], b, sb[s], d + 1);
	free(sa);
}

static void same_table(const struct mbt6 *a, const struct mbt6 *b)
{
	__u32 i;

	for (i = 0; i < mbt6_l1_entries(wide); i++)
		same_tree(a, a->t[i], b, b->t[i], wide ? 2 : 1);
	assert_int_equal(a->hdr->direct, b->hdr->direct);
	assert_int_equal(a->hdr->range, b->hdr->range);
	assert_int_equal(a->hdr->tiny, b->hdr->tiny);
	assert_int_equal(a->hdr->range2, b->hdr->range2);
}

static int by_addr(const void *x, const void *y)
{
	const struct route *a = x, *b = y;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return (int)a->len - (int)b->len;
}

/* The model's live routes in address order; returns how many. */
static size_t live_sorted(struct model *m, struct route *r)
{
	size_t i, k = 0;

	for (i = 0; i < m->n; i++)
		if (m->r[i].live)
			r[k++] = m->r[i];
	qsort(r, k, sizeof(*r), by_addr);
	return k;
}

/* The whole table from the model's live routes, in one ordered pass. */
static size_t fill_from(struct model *m, struct mbt6 *t)
{
	struct route *r = calloc(MAX_ROUTES, sizeof(*r));
	struct mbt6_fill *f = malloc(sizeof(*f));
	size_t i, k, units;
	__u8 a[16];

	assert_non_null(r);
	assert_non_null(f);
	k = live_sorted(m, r);
	mbt6_fill_begin(f, t);
	for (i = 0; i < k; i++) {
		bytes(r[i].addr, a);
		assert_int_equal(mbt6_fill_add(f, a, r[i].len, r[i].cls), 0);
	}
	mbt6_fill_end(f);
	units = mbt6_fill_units(f);
	free(f);
	free(r);
	return units;
}

static void run(unsigned int seed, size_t units, size_t ops, bool reclaim,
		size_t *asked_out)
{
	struct model *m = calloc(1, sizeof(*m));
	struct table t;
	size_t asked = 0, i;
	struct mbt6_usage u;

	assert_non_null(m);
	table_new(&t, units);
	srand(seed);
	for (i = 0; i < ops; i++) {
		if (i % 700 == 0)
			toggle_default(m, &t.m);
		op(m, &t.m);
		if (reclaim && i % 50 == 49)
			mbt6_reclaim(&t.m);
		if (i % 500 == 499)
			check_all(m, &t.m, &asked);
	}
	check_all(m, &t.m, &asked);
	mbt6_usage(&t.m, &u);
	assert_true(u.used <= u.units);
	assert_int_equal(u.units, units);
	free(t.mem);
	free(m);
	*asked_out = asked;
}

static void test_matches_lpm_with_room(void **state)
{
	size_t asked;
	unsigned int seed;

	(void)state;
	for (seed = 1; seed <= 3; seed++) {
		run(seed, 1 << 16, 3000, seed != 2, &asked);
		assert_int_equal(asked, 0);
	}
}

static void test_matches_lpm_when_full(void **state)
{
	size_t asked;

	(void)state;
	run(7, 200, 3000, true, &asked);
	/* Some ranges must have been left to the trie, and none was wrong. */
	assert_true(asked > 0);
	run(8, 40, 2000, false, &asked);
	assert_true(asked > 0);
}

static void test_edges(void **state)
{
	struct table t;
	__u8 a[16];
	bool ask;

	(void)state;
	table_new(&t, 1024);
#define LOOK(x) (bytes((x), a), mbt6_lookup(&t.m, a, &ask, NULL))
	add(&t.m, 0, 0, 1);
	add(&t.m, (u128)0x20010db8 << 96, 32, 2);
	add(&t.m, (u128)0x20010db80001ULL << 80, 48, 3);
	add(&t.m, (u128)0x20010db800018000ULL << 64, 49, 4);
	add(&t.m, ((u128)0x20010db80001ffffULL << 64) | ~(u128)0 >> 64, 128, 5);
	assert_int_equal(LOOK(1), 1);
	assert_int_equal(LOOK((u128)0x20010db8 << 96), 2);
	assert_int_equal(LOOK((u128)0x20010db80001ULL << 80), 3);
	assert_int_equal(LOOK((u128)0x20010db800017fffULL << 64 | 0xff), 3);
	assert_int_equal(LOOK((u128)0x20010db800018000ULL << 64), 4);
	assert_int_equal(LOOK(((u128)0x20010db80001ffffULL << 64) |
			      ((~(u128)0 >> 64) - 1)),
			 4);
	assert_int_equal(
		LOOK(((u128)0x20010db80001ffffULL << 64) | ~(u128)0 >> 64), 5);
	assert_int_equal(LOOK((u128)0x20010db80002ULL << 80), 2);
	/* A shorter route added later must not cover longer ones. */
	add(&t.m, (u128)0x20010db8 << 96, 36, 6);
	assert_int_equal(LOOK((u128)0x20010db800018000ULL << 64), 4);
	assert_int_equal(LOOK((u128)0x20010db80002ULL << 80), 6);
	/* Deleting the /49 hands its range back to the /48. */
	bytes((u128)0x20010db800018000ULL << 64, a);
	assert_int_equal(mbt6_del(&t.m, a, 49, true, 48, 3), 0);
	assert_int_equal(LOOK((u128)0x20010db800018000ULL << 64), 3);
	/* Deleting /0 leaves no route outside 2001:db8::/32. */
	bytes(0, a);
	assert_int_equal(mbt6_del(&t.m, a, 0, false, 0, 0), 0);
	assert_int_equal(LOOK(1), 0);
	assert_int_equal(LOOK(~(u128)0), 0);
	assert_false(ask);
	/* Bad lengths, classes and covers change nothing. */
	assert_int_equal(mbt6_add(&t.m, a, 129, 1), -EINVAL);
	assert_int_equal(mbt6_add(&t.m, a, 64, CLS_CLASS_LIMIT), -EINVAL);
	assert_int_equal(mbt6_del(&t.m, a, 64, true, 64, 1), -EINVAL);
#undef LOOK
	free(t.mem);
}

/* Indexes past 12 bits keep their high bits, and lengths stay apart. */
static void test_classes_past_12_bits(void **state)
{
	u128 p32 = (u128)0x20010db8 << 96, p48 = (u128)0x20010db80001ULL << 80;
	struct table t;
	__u8 a[16];
	bool ask;

	(void)state;
	table_new(&t, 1024);
#define LOOK(x) (bytes((x), a), mbt6_lookup(&t.m, a, &ask, NULL))
	add(&t.m, p32, 32, CLS_CLASS_LIMIT - 1);
	add(&t.m, p48, 48, 0x10000);
	add(&t.m, p48 | (u128)1 << 79, 49, 0x1000);
	assert_int_equal(LOOK(p32), CLS_CLASS_LIMIT - 1);
	assert_int_equal(LOOK(p48), 0x10000);
	assert_int_equal(LOOK(p48 | (u128)1 << 79), 0x1000);
	/* A /40 of a high class must not take the /48's slots. */
	add(&t.m, p32, 40, 0xFF001);
	assert_int_equal(LOOK(p48), 0x10000);
	assert_int_equal(LOOK(p32 | 1), 0xFF001);
	bytes(p48 | (u128)1 << 79, a);
	assert_int_equal(mbt6_del(&t.m, a, 49, true, 48, 0x10000), 0);
	assert_int_equal(LOOK(p48 | (u128)1 << 79), 0x10000);
	bytes(p48, a);
	assert_int_equal(mbt6_del(&t.m, a, 48, true, 40, 0xFF001), 0);
	assert_int_equal(LOOK(p48), 0xFF001);
	assert_false(ask);
#undef LOOK
	free(t.mem);
}

/*
 * 256 routes of one length and class side by side fill a node with one
 * leaf, which a route that short does not cover: the node must stay, or
 * deleting one of them could not find what it painted.
 */
static void test_node_of_equal_routes(void **state)
{
	u128 base = (u128)0x20010db8 << 96;
	struct model *m = calloc(1, sizeof(*m));
	struct table a, b;
	size_t asked = 0;
	unsigned int i;

	(void)state;
	assert_non_null(m);
	table_new(&a, 1024);
	table_new(&b, 1024);
	m->r[m->n++] = (struct route){base, 32, 9, true};
	add(&a.m, base, 32, 9);
	for (i = 0; i < 256; i++) {
		m->r[m->n] = (struct route){base | (u128)i << 80, 48, 7, true};
		add(&a.m, m->r[m->n].addr, 48, 7);
		m->n++;
		/* Each add copies the TINY path: let limbo go back. */
		mbt6_reclaim(&a.m);
	}
	fill_from(m, &b.m);
	same_table(&a.m, &b.m);
	del(m, &a.m, find(m, base | (u128)5 << 80, 48));
	del(m, &b.m, &(struct route){base | (u128)5 << 80, 48, 7, true});
	check_all(m, &a.m, &asked);
	check_all(m, &b.m, &asked);
	assert_int_equal(asked, 0);
	free(a.mem);
	free(b.mem);
	free(m);
}

/*
 * Painting route by route and filling in one pass must give the same tree
 * (a later change reads painter lengths and node kinds), also after the
 * painted table went through deletes; then the filled table must keep
 * matching through more random changes.
 */
static void test_fill_equals_painting(void **state)
{
	struct model *m = calloc(1, sizeof(*m));
	struct table a, b;
	size_t asked = 0, i, units;
	unsigned int seed;

	(void)state;
	assert_non_null(m);
	for (seed = 11; seed <= 13; seed++) {
		memset(m, 0, sizeof(*m));
		table_new(&a, 1 << 16);
		table_new(&b, 1 << 16);
		srand(seed);
		for (i = 0; i < 2500; i++) {
			if (i % 1000 == 0)
				toggle_default(m, &a.m);
			op(m, &a.m);
		}
		units = fill_from(m, &b.m);
		assert_int_equal(b.m.hdr->ask_trie, 0);
		assert_int_equal(b.m.hdr->magic, MBT6_MAGIC);
		assert_int_equal(units, b.m.hdr->direct * MBT6_DIRECT_UNITS +
						b.m.hdr->range + b.m.hdr->tiny +
						b.m.hdr->range2);
		same_table(&a.m, &b.m);
		/* the sets have lone ranges two levels down */
		assert_true(b.m.hdr->range2 > 0);
		check_all(m, &b.m, &asked);
		for (i = 0; i < 1500; i++)
			op(m, &b.m);
		check_all(m, &b.m, &asked);
		assert_int_equal(asked, 0);
		free(a.mem);
		free(b.mem);
	}
	free(m);
}

/* A route set in exactly the units the fill counted: no room to spare. */
static void test_sizing(void **state)
{
	struct model *m = calloc(1, sizeof(*m));
	struct mbt6 count = {.t = NULL, .wide = wide};
	struct table t, small;
	size_t asked = 0, need, i;
	struct mbt6_usage u;

	(void)state;
	assert_non_null(m);
	srand(21);
	for (i = 0; i < 1200; i++) {
		unsigned int len = random_len();
		u128 addr = random_addr() & mask(len);

		if (!find(m, addr, len) && m->n < MAX_ROUTES)
			m->r[m->n++] =
				(struct route){addr, len, rand() % 4096, true};
	}
	need = fill_from(m, &count);
	assert_true(need > 0);
	table_new(&t, need);
	assert_int_equal(fill_from(m, &t.m), need);
	mbt6_usage(&t.m, &u);
	assert_int_equal(u.used, need);
	assert_int_equal(u.ask_trie, 0);
	check_all(m, &t.m, &asked);
	assert_int_equal(asked, 0);
	/* One unit short: some range goes to the trie, none is wrong. */
	table_new(&small, need - 1);
	fill_from(m, &small.m);
	assert_true(small.m.hdr->ask_trie > 0);
	check_all(m, &small.m, &asked);
	assert_true(asked > 0);
	free(t.mem);
	free(small.mem);
	free(m);
}

/* Deleting every route leaves an empty first level and no nodes. */
static void test_delete_all(void **state)
{
	struct model *m = calloc(1, sizeof(*m));
	struct route *r = calloc(MAX_ROUTES, sizeof(*r));
	struct table t;
	struct mbt6_usage u;
	size_t i, k;

	(void)state;
	assert_non_null(m);
	assert_non_null(r);
	table_new(&t, 1 << 16);
	srand(31);
	for (i = 0; i < 2000; i++) {
		op(m, &t.m);
		if (i % 50 == 0)
			mbt6_reclaim(&t.m);
	}
	k = live_sorted(m, r);
	/* Longest first would be easy; take them in a shuffled order. */
	for (i = k; i > 1; i--) {
		size_t j = (size_t)rand() % i;
		struct route x = r[i - 1];

		r[i - 1] = r[j];
		r[j] = x;
	}
	for (i = 0; i < k; i++) {
		del(m, &t.m, find(m, r[i].addr, r[i].len));
		if (i % 50 == 0)
			mbt6_reclaim(&t.m);
	}
	for (i = 0; i < mbt6_l1_entries(wide); i++)
		assert_int_equal(t.mem[i], 0);
	mbt6_reclaim(&t.m);
	mbt6_usage(&t.m, &u);
	assert_int_equal(u.direct + u.range + u.tiny, 0);
	assert_int_equal(u.leaked, 0);
	assert_int_equal(u.used, 0);
	free(t.mem);
	free(r);
	free(m);
}

/* The entries of node e (zeros past its end). */
static void node_snap(const struct mbt6 *t, __u32 e, __u32 *out)
{
	const __u32 *p = mbt6_node_mem(t, e);
	size_t n = (e & MBT6_KINDS) == MBT6_DIRECT ? MBT6_SLOTS
						   : MBT6_UNIT_ENTRIES;

	assert_non_null(p);
	memset(out, 0, MBT6_SLOTS * sizeof(*out));
	memcpy(out, p, n * sizeof(*out));
}

/*
 * A packet may still be walking a node a change took out of the tree: no
 * later change may write it before mbt6_reclaim() (the caller's grace
 * period).  Snapshots of every retired node must stay as they were.
 */
static void test_limbo_untouched(void **state)
{
	struct model *m = calloc(1, sizeof(*m));
	__u32(*snap)[MBT6_SLOTS] = calloc(MBT6_LIMBO, sizeof(*snap));
	struct table t;
	__u32 seen = 0, i, e;
	size_t k;

	(void)state;
	assert_non_null(m);
	assert_non_null(snap);
	table_new(&t, 1 << 16);
	srand(61);
	for (k = 0; k < 1500 && t.m.hdr->n_limbo < MBT6_LIMBO; k++) {
		op(m, &t.m);
		for (; seen < t.m.hdr->n_limbo; seen++)
			node_snap(&t.m, t.m.hdr->limbo[seen], snap[seen]);
	}
	assert_true(seen > 100);
	for (i = 0; i < seen; i++) {
		__u32 now[MBT6_SLOTS];

		e = t.m.hdr->limbo[i];
		node_snap(&t.m, e, now);
		assert_memory_equal(now, snap[i], sizeof(now));
	}
	free(snap);
	free(t.mem);
	free(m);
}

/* Which kind a node takes follows from its runs of equal slots. */
static void test_node_kinds(void **state)
{
	u128 base = (u128)0x20010db8 << 96;
	struct mbt6_path p;
	struct table t;
	__u8 a[16];
	bool ask;
	int i;

	(void)state;
	table_new(&t, 1024);
	add(&t.m, base, 32, 1);
	/*
	 * One /48 in its /32: a RANGE node in a node that holds nothing
	 * else, two levels as one RANGE2.  Below 2001::/16 the lone /24 and
	 * /32 make another: two RANGE2 nodes in all.
	 */
	add(&t.m, base | (u128)0x0102 << 80, 48, 2);
	bytes(base | (u128)0x0102 << 80 | 7, a);
	assert_int_equal(mbt6_lookup(&t.m, a, &ask, &p), 2);
	assert_int_equal(p.range2, 2);
	assert_int_equal(p.direct + p.tiny + p.range, 0);
	/* Outside the /48, in its /32: the RANGE2's outside. */
	bytes(base | (u128)0x0103 << 80, a);
	assert_int_equal(mbt6_lookup(&t.m, a, &ask, &p), 1);
	assert_int_equal(p.range2, 2);
	/*
	 * A /44 and a /47 beside it: four runs, a TINY node at /40; its
	 * parent is a RANGE again (a TINY is not taken in), the /24 and /32
	 * still a RANGE2.
	 */
	add(&t.m, base | (u128)0x0110 << 80, 44, 3);
	add(&t.m, base | (u128)0x0120 << 80, 47, 4);
	bytes(base | (u128)0x0121 << 80, a);
	assert_int_equal(mbt6_lookup(&t.m, a, &ask, &p), 4);
	assert_int_equal(p.range2, 1);
	assert_int_equal(p.range, 1);
	assert_int_equal(p.tiny, 1);
	/* Seven runs and more: DIRECT. */
	for (i = 0; i < 8; i++)
		add(&t.m, base | (u128)(0x0140 + 2 * i) << 80, 48, 5 + i);
	bytes(base | (u128)0x014e << 80, a);
	assert_int_equal(mbt6_lookup(&t.m, a, &ask, &p), 12);
	assert_int_equal(p.range2, 1);
	assert_int_equal(p.range, 1);
	assert_int_equal(p.direct, 1);
	/* Deleted again: back to the two RANGE2 nodes. */
	for (i = 0; i < 8; i++)
		del_route(&t.m, base | (u128)(0x0140 + 2 * i) << 80, 48, 1);
	del_route(&t.m, base | (u128)0x0110 << 80, 44, 1);
	del_route(&t.m, base | (u128)0x0120 << 80, 47, 1);
	bytes(base | (u128)0x0102 << 80 | 7, a);
	assert_int_equal(mbt6_lookup(&t.m, a, &ask, &p), 2);
	assert_int_equal(p.range2, 2);
	assert_int_equal(p.direct + p.tiny + p.range, 0);
	free(t.mem);
}

/* The all-DIRECT variant answers the same; it only takes more room. */
static void test_all_direct(void **state)
{
	struct model *m = calloc(1, sizeof(*m));
	struct table t;
	size_t asked = 0, i;

	(void)state;
	assert_non_null(m);
	table_new(&t, 1 << 18);
	t.m.all_direct = true;
	srand(41);
	for (i = 0; i < 1500; i++)
		op(m, &t.m);
	check_all(m, &t.m, &asked);
	assert_int_equal(asked, 0);
	assert_int_equal(t.m.hdr->tiny + t.m.hdr->range, 0);
	free(t.mem);
	free(m);
}

static void test_fill_order_and_repeats(void **state)
{
	struct mbt6_fill *f = malloc(sizeof(*f));
	struct table t;
	__u8 a[16];
	bool ask;

	(void)state;
	assert_non_null(f);
	table_new(&t, 64);
	mbt6_fill_begin(f, &t.m);
#define ADD(x, len, cls) (bytes((x), a), mbt6_fill_add(f, a, (len), (cls)))
	assert_int_equal(ADD((u128)0x2001 << 112, 16, 1), 0);
	assert_int_equal(ADD((u128)0x2001 << 112, 16, 2), 0);
	assert_int_equal(ADD((u128)0x20010db8 << 96, 32, 3), 0);
	/* Shorter at the same address, and an earlier address: refused. */
	assert_int_equal(ADD((u128)0x20010db8 << 96, 24, 4), -EINVAL);
	assert_int_equal(ADD((u128)0x2000 << 112, 16, 4), -EINVAL);
	assert_int_equal(ADD(~(u128)0, 128, 6), 0);
	assert_int_equal(ADD(~(u128)0, 129, 6), -EINVAL);
	mbt6_fill_end(f);
#undef ADD
	bytes((u128)0x2001 << 112 | 5, a);
	assert_int_equal(mbt6_lookup(&t.m, a, &ask, NULL), 2);
	bytes((u128)0x20010db8 << 96 | 5, a);
	assert_int_equal(mbt6_lookup(&t.m, a, &ask, NULL), 3);
	bytes(~(u128)0, a);
	assert_int_equal(mbt6_lookup(&t.m, a, &ask, NULL), 6);
	bytes(~(u128)0 - 1, a);
	assert_int_equal(mbt6_lookup(&t.m, a, &ask, NULL), 0);
	assert_false(ask);
	free(t.mem);
	free(f);
}

/* The data path's run count against counting by hand, every slot. */
static void test_tiny_run(void **state)
{
	unsigned int k, runs, s, i, want;
	__u8 st[8];
	__u64 starts;

	(void)state;
	srand(51);
	for (k = 0; k < 3000; k++) {
		runs = 1 + rand() % MBT6_TINY_RUNS;
		memset(st, 0xff, sizeof(st));
		/* runs - 1 distinct ascending starts in 1..255 */
		for (i = 0; i + 1 < runs; i++) {
			unsigned int lo = i ? st[i - 1] + 1U : 1U;
			unsigned int room = 255 - lo - (runs - 2 - i) + 1;

			st[i] = (__u8)(lo + rand() % room);
		}
		starts = 0;
		for (i = 0; i < 8; i++)
			starts |= (__u64)st[i] << (8 * i);
		for (s = 0; s < MBT6_SLOTS; s++) {
			for (want = 0; want + 1 < runs && st[want] <= s; want++)
				;
			/* Past the last start, any run from it on will do:
			 * those entries repeat the last one. */
			if (mbt6_tiny_run(starts, s) != want &&
			    !(want == runs - 1 &&
			      mbt6_tiny_run(starts, s) >= want))
				fail_msg("starts %llx slot %u: run %u, want %u",
					 (unsigned long long)starts, s,
					 mbt6_tiny_run(starts, s), want);
		}
	}
}

static void test_view_sizes(void **state)
{
	struct mbt6 m;
	__u32 x;

	(void)state;
	assert_int_equal(mbt6_view(&m, &x, 0, false), -EINVAL);
	assert_int_equal(mbt6_view(&m, &x, MBT6_L1_ENTRIES, false), -EINVAL);
	assert_int_equal(mbt6_view(&m, &x, mbt6_entries(3, false) + 1, false),
			 -EINVAL);
	assert_int_equal(mbt6_view(&m, &x, mbt6_entries(3, false) - 4, false),
			 -EINVAL);
	assert_int_equal(mbt6_view(&m, &x, mbt6_entries(3, false), false), 0);
	assert_int_equal(m.units, 3);
	assert_int_equal(mbt6_view(&m, &x, mbt6_entries(0, false), false), 0);
	assert_int_equal(m.units, 0);
	/* The same size holds a 24-bit first level and no pool at all. */
	assert_int_equal(mbt6_view(&m, &x, mbt6_entries(3, false), true),
			 -EINVAL);
	assert_int_equal(mbt6_view(&m, &x, mbt6_entries(3, true), true), 0);
	assert_int_equal(m.units, 3);
}

/* A test again with tables of a 24-bit first level. */
#define WIDE(f)                                                                \
	{                                                                      \
		#f "_wide", f, set_wide, set_narrow, NULL                      \
	}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tiny_run),
		cmocka_unit_test(test_view_sizes),
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_classes_past_12_bits),
		cmocka_unit_test(test_fill_order_and_repeats),
		cmocka_unit_test(test_matches_lpm_with_room),
		cmocka_unit_test(test_matches_lpm_when_full),
		cmocka_unit_test(test_node_of_equal_routes),
		cmocka_unit_test(test_fill_equals_painting),
		cmocka_unit_test(test_sizing),
		cmocka_unit_test(test_delete_all),
		cmocka_unit_test(test_limbo_untouched),
		cmocka_unit_test(test_node_kinds),
		cmocka_unit_test(test_all_direct),
		WIDE(test_edges),
		WIDE(test_matches_lpm_with_room),
		WIDE(test_matches_lpm_when_full),
		WIDE(test_fill_equals_painting),
		WIDE(test_sizing),
		WIDE(test_delete_all),
		WIDE(test_fill_order_and_repeats),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
