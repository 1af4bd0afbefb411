// SPDX-License-Identifier: GPL-2.0-only
/*
 * IPv6 tables shaped like a global routing table, as bench/gen.h's
 * gen_table6 describes.  The shape, and why:
 *
 * - Registries: IANA gave the RIRs /12s (2400::/12 APNIC, 2600::/12 ARIN,
 *   2800::/12 LACNIC, 2a00::/12 RIPE, 2c00::/12 AFRINIC) and /23s of
 *   2001::/16; everything routed today sits in those.  Pools are weighted
 *   roughly as the regions' share of today's IPv6 table.
 * - Allocations (/19 to /32): RIRs hand LIRs a /32 (the classic default)
 *   or a /29 (RIPE's default since 2014), big ISPs /19-/28.  RIRs spread
 *   allocations over their pool (sparse allocation), so positions are
 *   random, aligned, never overlapping.  Most allocations announce their
 *   aggregate; some announce only more-specifics.
 * - More-specifics: the number per allocation is heavy-tailed (Pareto,
 *   alpha 1.2: most announce a handful, a few thousands, as deaggregating
 *   ISPs do); lengths are mostly /48 (customer and PI sites), then /44,
 *   /40, /36 and the lengths between; a few percent /56 and /64; a tail to
 *   /128 (host routes, /127 links, /112, /96).  ISPs number customers from
 *   a counter, so more-specifics of one length often sit side by side; the
 *   rest are spread over the allocation.  Nested prefixes are common: a
 *   quarter of the more-specifics up to /48 and 80 % of the longer ones
 *   are placed inside an earlier, shorter one of the same allocation.
 * - PI pools: registries assign provider-independent /48s one after the
 *   other from dedicated blocks that are not announced themselves.
 * - Classes follow the allocation (a customer, a peer) most of the time.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/gen.h"

typedef unsigned __int128 u128;

struct pool {
	uint16_t top;	  /* first 16 bits */
	unsigned int len; /* 12 or 16 (2001::/16) */
	unsigned int w;	  /* weight */
};

static const struct pool pools[] = {
	{0x2001, 16, 8}, {0x2400, 12, 20}, {0x2600, 12, 20},
	{0x2800, 12, 9}, {0x2a00, 12, 40}, {0x2c00, 12, 3},
};
#define NPOOLS (sizeof(pools) / sizeof(pools[0]))

struct gen6 {
	uint64_t rng;
	struct gen_prefix *p;
	size_t n, cap;
};

static u128 mask(unsigned int len)
{
	return len ? ~(u128)0 << (128 - len) : 0;
}

static u128 rand128(uint64_t *rng)
{
	return (u128)gen_next(rng) << 64 | gen_next(rng);
}

static unsigned int below(uint64_t *rng, unsigned int n)
{
	return gen_next(rng) % n;
}

static int put(struct gen6 *g, u128 a, unsigned int len, unsigned int cls)
{
	struct gen_prefix *np;
	int i;

	if (g->n == g->cap) {
		g->cap = g->cap ? g->cap * 2 : 4096;
		np = realloc(g->p, g->cap * sizeof(*np));
		if (!np)
			return -ENOMEM;
		g->p = np;
	}
	a &= mask(len);
	for (i = 0; i < 16; i++)
		g->p[g->n].addr[i] = (uint8_t)(a >> (120 - 8 * i));
	g->p[g->n].len = len;
	g->p[g->n].class_idx = cls;
	g->n++;
	return 0;
}

/* Most allocations are /32 or /29; a few hundred big ISPs hold /19-/28. */
static unsigned int alloc_len(uint64_t *rng)
{
	unsigned int r = below(rng, 10000);

	if (r < 6000)
		return 32;
	if (r < 9300)
		return 29;
	if (r < 9800)
		return 30 + below(rng, 2);
	if (r < 9995)
		return 24 + below(rng, 5);
	return 19 + below(rng, 5);
}

/* Lengths of more-specifics, in percent of them. */
static unsigned int more_len(uint64_t *rng)
{
	static const unsigned int tail[] = {128, 128, 128, 128, 128, 127,
					    126, 112, 96,  80,	72,  124};
	unsigned int r = below(rng, 100);

	if (r < 50)
		return 48;
	if (r < 60)
		return 44;
	if (r < 69)
		return 40;
	if (r < 74)
		return 36;
	if (r < 77)
		return 33 + below(rng, 3);
	if (r < 80)
		return 37 + below(rng, 3);
	if (r < 83)
		return 41 + below(rng, 3);
	if (r < 87)
		return 45 + below(rng, 3);
	if (r < 91)
		return 56;
	if (r < 95)
		return 64;
	if (r < 97)
		return 49 + below(rng, 15); /* /49-/63 */
	return tail[below(rng, sizeof(tail) / sizeof(tail[0]))];
}

/* Pareto(alpha 1.2), capped: mostly a few, sometimes thousands. */
static unsigned int more_count(uint64_t *rng, double min, unsigned int cap)
{
	double u = (gen_next(rng) >> 11) * (1.0 / 9007199254740992.0);
	double k;

	if (below(rng, 100) < 30)
		return 0;
	k = min * pow(1.0 - u, -1.0 / 1.2);
	return k > cap ? cap : (unsigned int)k;
}

struct placed {
	u128 a;
	unsigned int len;
};

/*
 * The more-specifics of one allocation [base, base + 2^(128 - alen)).
 * next[] numbers customers per length (side by side, small gaps).
 */
static int more_specifics(struct gen6 *g, u128 base, unsigned int alen,
			  unsigned int cls, unsigned int k)
{
	struct placed *done = malloc((k ? k : 1) * sizeof(*done));
	u128 next[129] = {0}, a;
	unsigned int i, j, len, c, tries;
	int err = 0;

	if (!done)
		return -ENOMEM;
	for (i = 0; i < k && !err; i++) {
		len = more_len(&g->rng);
		if (len <= alen)
			len = alen + 1 + below(&g->rng, 48 - alen);
		c = below(&g->rng, 100) < 70 ? cls
					     : below(&g->rng, GEN_CLASSES);
		a = 0;
		/* Inside an earlier, shorter one: mostly for the long ones. */
		if (i && below(&g->rng, 100) < (len > 48 ? 80 : 25)) {
			for (tries = 0; tries < 8; tries++) {
				j = below(&g->rng, i);
				if (done[j].len < len)
					break;
			}
			if (tries < 8)
				a = done[j].a |
				    (rand128(&g->rng) & ~mask(done[j].len));
		}
		if (!a && below(&g->rng, 100) < 50) {
			/* The next free number at this length, small gaps,
			 * from a pool somewhere in the allocation. */
			if (!next[len])
				next[len] =
					rand128(&g->rng) >> (alen + 128 - len);
			a = base | (next[len] << (128 - len) & ~mask(alen));
			next[len] +=
				1 + (below(&g->rng, 4) == 0 ? below(&g->rng, 4)
							    : 0);
		}
		if (!a)
			a = base | (rand128(&g->rng) & ~mask(alen));
		a &= mask(len);
		done[i].a = a;
		done[i].len = len;
		err = put(g, a, len, c);
	}
	free(done);
	return err;
}

/* PI /48s assigned one after the other from a block never announced. */
static int pi_pool(struct gen6 *g, u128 base, unsigned int k)
{
	u128 n = 0;
	unsigned int i;
	int err = 0;

	for (i = 0; i < k && !err; i++) {
		n += 1 + (below(&g->rng, 8) == 0);
		err = put(g, base | n << 80, 48, below(&g->rng, GEN_CLASSES));
	}
	return err;
}

static u128 pool_addr(uint64_t *rng, unsigned int len)
{
	unsigned int w = 0, r, i;
	u128 a;

	for (i = 0; i < NPOOLS; i++)
		w += pools[i].w;
	r = below(rng, w);
	for (i = 0; r >= pools[i].w; i++)
		r -= pools[i].w;
	a = (u128)pools[i].top << 112 | (rand128(rng) & ~mask(pools[i].len));
	return a & mask(len);
}

/* Allocations never overlap: a later one inside an earlier is dropped. */
struct alloc {
	u128 a;
	unsigned int len;
};

static int cmp_alloc(const void *x, const void *y)
{
	const struct alloc *a = x, *b = y;

	if (a->a != b->a)
		return a->a < b->a ? -1 : 1;
	return (int)a->len - (int)b->len;
}

static int cmp_prefix6(const void *x, const void *y)
{
	const struct gen_prefix *a = x, *b = y;
	int c = memcmp(a->addr, b->addr, 16);

	return c ? c : (int)a->len - (int)b->len;
}

/* One batch of allocations with their more-specifics. */
static int batch(struct gen6 *g, size_t want)
{
	size_t na = want / 6 + 16, i, w;
	struct alloc *al = malloc(na * sizeof(*al));
	u128 end = 0;
	unsigned int cls;
	int err = 0;

	if (!al)
		return -ENOMEM;
	for (i = 0; i < na; i++) {
		al[i].len = alloc_len(&g->rng);
		al[i].a = pool_addr(&g->rng, al[i].len);
	}
	qsort(al, na, sizeof(*al), cmp_alloc);
	for (i = 0, w = 0; i < na; i++) {
		if (w && al[i].a <= end)
			continue;
		end = al[i].a | ~mask(al[i].len);
		al[w++] = al[i];
	}
	for (i = 0; i < w && !err && g->n < want; i++) {
		cls = below(&g->rng, GEN_CLASSES);
		if (below(&g->rng, 1000) < 1) {
			err = pi_pool(g, al[i].a, 50 + below(&g->rng, 1000));
			continue;
		}
		if (below(&g->rng, 100) < 85)
			err = put(g, al[i].a, al[i].len, cls);
		if (!err)
			err = more_specifics(g, al[i].a, al[i].len, cls,
					     more_count(&g->rng,
							al[i].len < 29 ? 8 : 1,
							20000));
	}
	free(al);
	return err;
}

#define DROPPED 0xff /* no prefix is that long */

int gen_table6(struct gen_table *t, size_t n, uint64_t seed)
{
	struct gen6 g = {.rng = seed ^ 0x6a6a6a};
	size_t i, w;
	int err = 0;

	t->v6 = 1;
	t->n = 0;
	t->p = NULL;
	/* Batches until, duplicates removed, there are at least n. */
	while (g.n < n && !err) {
		err = batch(&g, n);
		if (err)
			break;
		qsort(g.p, g.n, sizeof(*g.p), cmp_prefix6);
		for (i = 1, w = g.n ? 1 : 0; i < g.n; i++)
			if (cmp_prefix6(&g.p[i], &g.p[w - 1]))
				g.p[w++] = g.p[i];
		g.n = w;
	}
	if (err) {
		free(g.p);
		return err;
	}
	/* Exactly n: drop a random surplus, keeping address order. */
	for (w = g.n; w > n;) {
		i = below(&g.rng, g.n);
		if (g.p[i].len != DROPPED) {
			g.p[i].len = DROPPED;
			w--;
		}
	}
	for (i = 0, w = 0; i < g.n; i++)
		if (g.p[i].len != DROPPED)
			g.p[w++] = g.p[i];
	t->p = g.p;
	t->n = n;
	return 0;
}
