// SPDX-License-Identifier: GPL-2.0-only
/*
 * The DIR-24-8 table against a plain longest-prefix-match over the same
 * routes, after random overlapping adds, replaces and deletes, with groups
 * plentiful and exhausted.  Addresses checked: random ones and both edges
 * of every prefix (and their neighbours).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "maps/dir24.h"

#define MAX_ROUTES 4096

struct route {
	__u32 addr;
	unsigned int len;
	__u32 cls;
	bool live;
};

struct model {
	struct route r[MAX_ROUTES];
	size_t n;
};

static __u32 mask(unsigned int len)
{
	return len ? ~0U << (32 - len) : 0;
}

/* The reference: longest live prefix covering addr, below max_len. */
static struct route *best(struct model *m, __u32 addr, int max_len)
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

static struct route *find(struct model *m, __u32 addr, unsigned int len)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (m->r[i].live && m->r[i].addr == addr && m->r[i].len == len)
			return &m->r[i];
	return NULL;
}

/*
 * Lengths weighted like real tables, with the edges the issue names; /0
 * repaints all 2^24 entries, so run() adds and removes it only a few times.
 */
static unsigned int random_len(void)
{
	static const unsigned int lens[] = { 8,	 12, 16, 20, 22, 23,
					     24, 24, 24, 24, 25, 26, 28,
					     30, 31, 32, 32, 32 };

	return lens[rand() % (sizeof(lens) / sizeof(lens[0]))];
}

/* Addresses crowd into a few /16s so that prefixes overlap. */
static __u32 random_addr(void)
{
	static const __u32 bases[] = { 0x0a000000, 0x0a010000, 0xc0a80000,
				       0xc0a80100, 0x64400000 };

	return bases[rand() % 5] | (rand() & 0x1ffff);
}

static void op(struct model *m, struct dir24 *d)
{
	unsigned int len = random_len();
	__u32 addr = random_addr() & mask(len);
	__u32 cls = 1 + rand() % 100;

	/* Both ends of the index's width: leaves use every class bit. */
	if (rand() % 2)
		cls = CLS_CLASS_LIMIT - cls;
	struct route *r = find(m, addr, len), *cover;

	if (r && rand() % 2) {
		r->live = false;
		cover = best(m, addr, (int)len - 1);
		dir24_unpaint(d, addr, len, cover != NULL,
			      cover ? cover->len : 0, cover ? cover->cls : 0);
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
	dir24_paint(d, addr, len, cls);
}

static void check_addr(struct model *m, struct dir24 *d, __u32 addr,
		       size_t *asked)
{
	struct route *b = best(m, addr, 32);
	bool ask;
	__u32 got = dir24_lookup(d, addr, &ask);

	if (ask) {
		(*asked)++;
		return;
	}
	if (got != (b ? b->cls : 0))
		fail_msg("%u.%u.%u.%u: table says %u, routes say %u",
			 addr >> 24, (addr >> 16) & 255, (addr >> 8) & 255,
			 addr & 255, got, b ? b->cls : 0);
}

static void check_all(struct model *m, struct dir24 *d, size_t *asked)
{
	size_t i;
	int k;

	for (i = 0; i < m->n; i++) {
		__u32 lo = m->r[i].addr, hi = lo | ~mask(m->r[i].len);

		check_addr(m, d, lo, asked);
		check_addr(m, d, hi, asked);
		check_addr(m, d, lo - 1, asked);
		check_addr(m, d, hi + 1, asked);
	}
	for (k = 0; k < 20000; k++)
		check_addr(m, d, random_addr(), asked);
	for (k = 0; k < 2000; k++)
		check_addr(m, d, (__u32)rand() << 1 ^ (__u32)rand(), asked);
}

static void run(unsigned int seed, __u32 groups, size_t ops,
		size_t *asked_out)
{
	size_t entries = dir24_entries(true, groups), asked = 0, i;
	struct model *m = calloc(1, sizeof(*m));
	__u32 *mem = calloc(entries, sizeof(__u32));
	struct dir24 d;

	assert_non_null(m);
	assert_non_null(mem);
	assert_int_equal(dir24_view(&d, mem, entries), 0);
	dir24_clear(&d);
	srand(seed);
	for (i = 0; i < ops; i++) {
		if (i % 1000 == 0) {
			/* Toggle a default route now and then. */
			struct route *r0 = find(m, 0, 0);

			if (r0) {
				r0->live = false;
				dir24_unpaint(&d, 0, 0, false, 0, 0);
			} else if (m->n < MAX_ROUTES) {
				m->r[m->n++] = (struct route){ 0, 0, 99, true };
				dir24_paint(&d, 0, 0, 99);
			}
		}
		op(m, &d);
		if (i % 1000 == 999)
			check_all(m, &d, &asked);
	}
	check_all(m, &d, &asked);
	assert_true(d.hdr->used <= groups);
	free(mem);
	free(m);
	*asked_out = asked;
}

static void test_matches_lpm_with_groups_to_spare(void **state)
{
	size_t asked;
	unsigned int seed;

	(void)state;
	for (seed = 1; seed <= 3; seed++) {
		run(seed, 4096, 3000, &asked);
		assert_int_equal(asked, 0);
	}
}

static void test_matches_lpm_with_groups_exhausted(void **state)
{
	size_t asked;

	(void)state;
	run(7, 4, 3000, &asked);
	/* Some /24s must have been left to the trie, and were never wrong. */
	assert_true(asked > 0);
}

/* A cleared table of 16 groups over new memory (free it). */
static __u32 *small_table(struct dir24 *d)
{
	size_t entries = dir24_entries(true, 16);
	__u32 *mem = calloc(entries, sizeof(__u32));

	assert_non_null(mem);
	assert_int_equal(dir24_view(d, mem, entries), 0);
	dir24_clear(d);
	return mem;
}

static void test_edges(void **state)
{
	struct dir24 d;
	__u32 *mem = small_table(&d);
	bool ask;

	(void)state;
	dir24_paint(&d, 0, 0, 1);                   /* 0.0.0.0/0 */
	dir24_paint(&d, 0x0a000000, 8, 2);          /* 10.0.0.0/8 */
	dir24_paint(&d, 0x0a000100, 24, 3);         /* 10.0.1.0/24 */
	dir24_paint(&d, 0x0a000180, 25, 4);         /* 10.0.1.128/25 */
	dir24_paint(&d, 0x0a0001ff, 32, 5);         /* 10.0.1.255/32 */
	assert_int_equal(dir24_lookup(&d, 0x01020304, &ask), 1);
	assert_int_equal(dir24_lookup(&d, 0x0a000000, &ask), 2);
	assert_int_equal(dir24_lookup(&d, 0x0a000100, &ask), 3);
	assert_int_equal(dir24_lookup(&d, 0x0a00017f, &ask), 3);
	assert_int_equal(dir24_lookup(&d, 0x0a000180, &ask), 4);
	assert_int_equal(dir24_lookup(&d, 0x0a0001fe, &ask), 4);
	assert_int_equal(dir24_lookup(&d, 0x0a0001ff, &ask), 5);
	assert_int_equal(dir24_lookup(&d, 0x0a000200, &ask), 2);
	/* A shorter route added later must not cover longer ones. */
	dir24_paint(&d, 0x0a000000, 16, 6);
	assert_int_equal(dir24_lookup(&d, 0x0a000180, &ask), 4);
	assert_int_equal(dir24_lookup(&d, 0x0a000200, &ask), 6);
	/* Deleting the /25 hands its range back to the /24. */
	dir24_unpaint(&d, 0x0a000180, 25, true, 24, 3);
	assert_int_equal(dir24_lookup(&d, 0x0a000180, &ask), 3);
	assert_int_equal(dir24_lookup(&d, 0x0a0001ff, &ask), 5);
	/* Deleting /0 leaves no route outside 10/8. */
	dir24_unpaint(&d, 0, 0, false, 0, 0);
	assert_int_equal(dir24_lookup(&d, 0x01020304, &ask), 0);
	assert_int_equal(dir24_lookup(&d, 0xffffffff, &ask), 0);
	assert_false(ask);
	assert_int_equal(d.hdr->used, 1);
	free(mem);
}

/* Indexes past 16 bits keep their high bits, and lengths stay apart. */
static void test_classes_past_16_bits(void **state)
{
	struct dir24 d;
	__u32 *mem = small_table(&d);
	bool ask;

	(void)state;
	dir24_paint(&d, 0x0a000000, 8, CLS_CLASS_LIMIT - 1);
	dir24_paint(&d, 0x0a000100, 24, 0x10000);
	dir24_paint(&d, 0x0a000180, 25, 0xABCDE);
	assert_int_equal(dir24_lookup(&d, 0x0a000000, &ask),
			 CLS_CLASS_LIMIT - 1);
	assert_int_equal(dir24_lookup(&d, 0x0a000100, &ask), 0x10000);
	assert_int_equal(dir24_lookup(&d, 0x0a000180, &ask), 0xABCDE);
	/* A /16 of a high class must not take the /24's entries. */
	dir24_paint(&d, 0x0a000000, 16, 0xF0001);
	assert_int_equal(dir24_lookup(&d, 0x0a000100, &ask), 0x10000);
	assert_int_equal(dir24_lookup(&d, 0x0a000200, &ask), 0xF0001);
	dir24_unpaint(&d, 0x0a000180, 25, true, 24, 0x10000);
	assert_int_equal(dir24_lookup(&d, 0x0a0001ff, &ask), 0x10000);
	dir24_unpaint(&d, 0x0a000100, 24, true, 16, 0xF0001);
	assert_int_equal(dir24_lookup(&d, 0x0a000100, &ask), 0xF0001);
	assert_false(ask);
	free(mem);
}

static int by_addr(const void *a, const void *b)
{
	const struct route *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return (int)x->len - (int)y->len;
}

/* The whole table from the model's live routes, in one ordered pass. */
static void fill_from(struct model *m, struct dir24 *d)
{
	struct route *r = calloc(m->n ? m->n : 1, sizeof(*r));
	struct dir24_fill *f = malloc(sizeof(*f));
	size_t i, k = 0;

	assert_non_null(r);
	assert_non_null(f);
	for (i = 0; i < m->n; i++)
		if (m->r[i].live)
			r[k++] = m->r[i];
	qsort(r, k, sizeof(*r), by_addr);
	dir24_fill_begin(f, d, false);
	for (i = 0; i < k; i++)
		assert_int_equal(dir24_fill_add(f, r[i].addr, r[i].len,
						r[i].cls),
				 0);
	dir24_fill_end(f);
	free(f);
	free(r);
}

static __u32 entry(const struct dir24 *d, __u32 blk, __u32 k)
{
	__u32 e = d->t[blk];

	if ((e & CLS_DIR24_GROUP_BIT) && e != CLS_DIR24_ASK_TRIE)
		e = d->t[CLS_DIR24_L1_ENTRIES +
			 (size_t)(e & ~CLS_DIR24_GROUP_BIT) *
				 CLS_DIR24_GROUP_SIZE +
			 k];
	return e;
}

/*
 * Painting route by route and filling in one pass must give the same
 * entries, painter lengths included (later adds and deletes read them),
 * whichever groups each handed out; then the filled table must keep
 * matching through more random changes.
 */
static void test_fill_equals_painting(void **state)
{
	size_t entries = dir24_entries(true, 4096), asked = 0, i;
	struct model *m = calloc(1, sizeof(*m));
	__u32 *a = calloc(entries, sizeof(__u32));
	__u32 *b = calloc(entries, sizeof(__u32));
	struct dir24 da, db;
	__u32 blk, k;

	(void)state;
	assert_non_null(m);
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(dir24_view(&da, a, entries), 0);
	assert_int_equal(dir24_view(&db, b, entries), 0);
	dir24_clear(&da);
	/* b starts as garbage: the fill must write every entry it uses. */
	memset(b, 0x5a, entries * sizeof(__u32));
	srand(11);
	m->r[m->n++] = (struct route){ 0, 0, 99, true };
	dir24_paint(&da, 0, 0, 99);
	for (i = 0; i < 3000; i++)
		op(m, &da);
	fill_from(m, &db);
	assert_int_equal(db.hdr->magic, CLS_DIR24_MAGIC);
	assert_int_equal(db.hdr->ask_trie, 0);
	assert_true(db.hdr->used <= da.hdr->used);
	for (blk = 0; blk < CLS_DIR24_L1_ENTRIES; blk++) {
		bool ga = (a[blk] & CLS_DIR24_GROUP_BIT) != 0;
		bool gb = (b[blk] & CLS_DIR24_GROUP_BIT) != 0;

		if (!ga && !gb) {
			assert_int_equal(a[blk], b[blk]);
			continue;
		}
		/* A group of 256 equal entries may be a plain leaf. */
		for (k = 0; k < CLS_DIR24_GROUP_SIZE; k++)
			if (entry(&da, blk, k) != entry(&db, blk, k))
				fail_msg("/24 %#x entry %u: painted %#x, "
					 "filled %#x", blk, k, entry(&da, blk, k),
					 entry(&db, blk, k));
	}
	check_all(m, &db, &asked);
	for (i = 0; i < 2000; i++)
		op(m, &db);
	check_all(m, &db, &asked);
	assert_int_equal(asked, 0);
	free(a);
	free(b);
	free(m);
}

static void test_fill_groups_exhausted(void **state)
{
	size_t entries = dir24_entries(true, 3), asked = 0, i;
	struct model *m = calloc(1, sizeof(*m));
	__u32 *mem = calloc(entries, sizeof(__u32));
	struct dir24 d;

	(void)state;
	assert_non_null(m);
	assert_non_null(mem);
	assert_int_equal(dir24_view(&d, mem, entries), 0);
	srand(12);
	for (i = 0; i < 2000; i++) {
		unsigned int len = random_len();
		__u32 addr = random_addr() & mask(len);

		if (!find(m, addr, len) && m->n < MAX_ROUTES)
			m->r[m->n++] = (struct route){ addr, len,
						       1 + rand() % 100, true };
	}
	fill_from(m, &d);
	assert_int_equal(d.hdr->used, 3);
	assert_true(d.hdr->ask_trie > 0);
	check_all(m, &d, &asked);
	assert_true(asked > 0);
	free(mem);
	free(m);
}

static void test_fill_order_and_repeats(void **state)
{
	size_t entries = dir24_entries(true, 4);
	__u32 *mem = calloc(entries, sizeof(__u32));
	struct dir24_fill f;
	struct dir24 d;
	bool ask;

	(void)state;
	assert_non_null(mem);
	assert_int_equal(dir24_view(&d, mem, entries), 0);
	dir24_fill_begin(&f, &d, true);
	assert_int_equal(dir24_fill_add(&f, 0x0a000000, 8, 1), 0);
	assert_int_equal(dir24_fill_add(&f, 0x0a000000, 8, 2), 0);
	assert_int_equal(dir24_fill_add(&f, 0x0a000100, 24, 3), 0);
	/* Shorter at the same address, and an earlier address: refused. */
	assert_int_equal(dir24_fill_add(&f, 0x0a000100, 16, 4), -EINVAL);
	assert_int_equal(dir24_fill_add(&f, 0x09000000, 8, 4), -EINVAL);
	assert_int_equal(dir24_fill_add(&f, 0x0a0001ff, 32, 5), 0);
	assert_int_equal(dir24_fill_add(&f, 0xffffffff, 32, 6), 0);
	assert_int_equal(dir24_fill_add(&f, 0xffffffff, 33, 6), -EINVAL);
	dir24_fill_end(&f);
	/* The repeated 10/8: the last one wins. */
	assert_int_equal(dir24_lookup(&d, 0x0a000000, &ask), 2);
	assert_int_equal(dir24_lookup(&d, 0x0a000100, &ask), 3);
	assert_int_equal(dir24_lookup(&d, 0x0a0001fe, &ask), 3);
	assert_int_equal(dir24_lookup(&d, 0x0a0001ff, &ask), 5);
	assert_int_equal(dir24_lookup(&d, 0x0a000200, &ask), 2);
	assert_int_equal(dir24_lookup(&d, 0x0b000000, &ask), 0);
	assert_int_equal(dir24_lookup(&d, 0xfffffffe, &ask), 0);
	assert_int_equal(dir24_lookup(&d, 0xffffffff, &ask), 6);
	assert_false(ask);
	assert_int_equal(d.hdr->used, 2);
	free(mem);
}

/* Over zeroed memory, skipping the "no route" stores changes nothing. */
static void test_fill_zeroed_equals_full(void **state)
{
	size_t entries = dir24_entries(true, 4);
	__u32 *a = calloc(entries, sizeof(__u32));
	__u32 *b = calloc(entries, sizeof(__u32));
	static const struct { __u32 addr, len, cls; } r[] = {
		{ 0x0a000000, 8, 1 },  { 0x0a000100, 24, 2 },
		{ 0x0a000180, 25, 3 }, { 0x0a0002f0, 28, 4 },
		{ 0x0b000000, 16, 5 }, { 0xc0000200, 32, 6 },
	};
	struct dir24_fill f;
	struct dir24 da, db;
	size_t i;

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(dir24_view(&da, a, entries), 0);
	assert_int_equal(dir24_view(&db, b, entries), 0);
	dir24_fill_begin(&f, &da, false);
	for (i = 0; i < sizeof(r) / sizeof(r[0]); i++)
		assert_int_equal(dir24_fill_add(&f, r[i].addr, r[i].len,
						r[i].cls),
				 0);
	dir24_fill_end(&f);
	dir24_fill_begin(&f, &db, true);
	for (i = 0; i < sizeof(r) / sizeof(r[0]); i++)
		assert_int_equal(dir24_fill_add(&f, r[i].addr, r[i].len,
						r[i].cls),
				 0);
	dir24_fill_end(&f);
	assert_memory_equal(a, b, entries * sizeof(__u32));
	free(a);
	free(b);
}

static void test_view_rejects_bad_sizes(void **state)
{
	__u32 mem[CLS_DIR24_HDR_ENTRIES];
	struct dir24 d;

	(void)state;
	assert_int_equal(dir24_view(&d, mem, 10), -EINVAL);
	assert_int_equal(dir24_view(&d, mem, CLS_DIR24_HDR_ENTRIES + 1),
			 -EINVAL);
	assert_int_equal(dir24_view(&d, mem, CLS_DIR24_HDR_ENTRIES), 0);
	assert_false(d.on);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_classes_past_16_bits),
		cmocka_unit_test(test_view_rejects_bad_sizes),
		cmocka_unit_test(test_fill_order_and_repeats),
		cmocka_unit_test(test_fill_zeroed_equals_full),
		cmocka_unit_test(test_fill_equals_painting),
		cmocka_unit_test(test_fill_groups_exhausted),
		cmocka_unit_test(test_matches_lpm_with_groups_to_spare),
		cmocka_unit_test(test_matches_lpm_with_groups_exhausted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
