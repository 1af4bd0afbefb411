// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bench/gen.h"

/* splitmix64: tiny, seedable, good enough for test data. */
uint64_t gen_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static unsigned int pick_len(int v6, uint64_t *rng)
{
	unsigned int r = gen_next(rng) % 100;

	if (r < 70)
		return v6 ? 48 : 24;
	if (r < 85)
		return v6 ? 32 + gen_next(rng) % 13 : 16 + gen_next(rng) % 7;
	if (r < 95)
		return v6 ? 128 : 32;
	return v6 ? 20 + gen_next(rng) % 12 : 8 + gen_next(rng) % 8;
}

static void mask_addr(uint8_t *a, unsigned int len, unsigned int bytes)
{
	unsigned int i;

	for (i = 0; i < bytes; i++) {
		if (len >= 8 * (i + 1))
			continue;
		if (len <= 8 * i)
			a[i] = 0;
		else
			a[i] &= (uint8_t)(0xff << (8 - (len - 8 * i)));
	}
}

static void random_prefix(int v6, uint64_t *rng, struct gen_prefix *p)
{
	uint64_t a = gen_next(rng), b = gen_next(rng);
	unsigned int first;

	memset(p, 0, sizeof(*p));
	p->len = pick_len(v6, rng);
	memcpy(p->addr, &a, 8);
	memcpy(p->addr + 8, &b, 8);
	if (v6) {
		p->addr[0] = 0x20 | (p->addr[0] & 0x0f);
	} else {
		do {
			first = 1 + gen_next(rng) % 223;
		} while (first == 10 || first == 127);
		p->addr[0] = first;
		memset(p->addr + 4, 0, 12);
	}
	mask_addr(p->addr, p->len, v6 ? 16 : 4);
	p->class_idx = gen_next(rng) % GEN_CLASSES;
}

static int cmp_prefix(const void *x, const void *y)
{
	const struct gen_prefix *a = x, *b = y;
	int c = memcmp(a->addr, b->addr, 16);

	return c ? c : (int)a->len - (int)b->len;
}

int gen_table(struct gen_table *t, int v6, size_t n, uint64_t seed)
{
	uint64_t rng = seed ^ (v6 ? 0x6666 : 0x4444);
	size_t have = 0, i, w;

	t->v6 = v6;
	t->n = 0;
	t->p = malloc((n + 1) * sizeof(*t->p));
	if (!t->p)
		return -ENOMEM;
	/* Top up after removing duplicates until exactly n are unique. */
	while (have < n) {
		for (i = have; i < n; i++)
			random_prefix(v6, &rng, &t->p[i]);
		qsort(t->p, n, sizeof(*t->p), cmp_prefix);
		for (i = 1, w = 1; i < n; i++)
			if (cmp_prefix(&t->p[i], &t->p[w - 1]))
				t->p[w++] = t->p[i];
		have = n ? w : 0;
	}
	t->n = n;
	return 0;
}

void gen_free(struct gen_table *t)
{
	free(t->p);
	t->p = NULL;
	t->n = 0;
}

void gen_addr_in(const struct gen_table *t, size_t i, uint64_t *rng,
		 uint8_t out[16])
{
	const struct gen_prefix *p = &t->p[i];
	unsigned int bytes = t->v6 ? 16 : 4, k;
	uint64_t a = gen_next(rng), b = gen_next(rng);
	uint8_t host[16];

	memcpy(host, &a, 8);
	memcpy(host + 8, &b, 8);
	memset(out, 0, 16);
	for (k = 0; k < bytes; k++) {
		uint8_t keep;

		if (p->len >= 8 * (k + 1))
			keep = 0xff;
		else if (p->len <= 8 * k)
			keep = 0;
		else
			keep = (uint8_t)(0xff << (8 - (p->len - 8 * k)));
		out[k] = (p->addr[k] & keep) | (host[k] & ~keep);
	}
	/* Keep IPv4 hosts off .0 and .255 (broadcast-looking). */
	if (!t->v6 && p->len < 31 && (out[3] == 0 || out[3] == 255))
		out[3] = 1;
}

void gen_hot(const struct gen_table *t, uint8_t out[16])
{
	uint64_t rng = 42;
	size_t i;

	for (i = t->n / 2; i < t->n; i++)
		if (t->p[i].len == (t->v6 ? 48 : 24))
			break;
	if (i == t->n)
		i = 0;
	gen_addr_in(t, i, &rng, out);
}

void gen_miss(int v6, uint8_t out[16])
{
	memset(out, 0, 16);
	if (v6) {
		out[0] = 0xfd;
		out[15] = 1;
	} else {
		out[0] = 240;
		out[3] = 1;
	}
}

void gen_spread(const struct gen_table *t, size_t n, uint64_t seed,
		uint8_t (*out)[16])
{
	uint64_t rng = seed ^ 0x5bead;
	size_t i;

	for (i = 0; i < n; i++)
		gen_addr_in(t, gen_next(&rng) % t->n, &rng, out[i]);
}

static uint32_t v4_of(const uint8_t *a)
{
	return (uint32_t)a[0] << 24 | a[1] << 16 | a[2] << 8 | a[3];
}

struct open_pfx {
	uint64_t end;
	uint8_t class_idx;
};

static int emit(struct gen_range **r, size_t *n, size_t *cap, uint64_t lo,
		uint64_t hi, uint8_t cls)
{
	struct gen_range *nr;

	if (lo > hi)
		return 0;
	if (*n && (*r)[*n - 1].class_idx == cls &&
	    (uint64_t)(*r)[*n - 1].hi + 1 == lo) {
		(*r)[*n - 1].hi = hi;
		return 0;
	}
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 1024;
		nr = realloc(*r, *cap * sizeof(**r));
		if (!nr)
			return -ENOMEM;
		*r = nr;
	}
	(*r)[(*n)++] = (struct gen_range){lo, hi, cls};
	return 0;
}

/*
 * Sorted by (start, length), a prefix's parents come before it: a stack of
 * open prefixes gives, for every stretch, the innermost one covering it.
 */
int gen_ranges_v4(const struct gen_table *t, struct gen_range **out, size_t *n)
{
	struct open_pfx st[33];
	size_t cap = 0, i;
	uint64_t cur = 0, start;
	int sp = 0, err = 0;

	*out = NULL;
	*n = 0;
	for (i = 0; i < t->n && !err; i++) {
		start = v4_of(t->p[i].addr);
		while (sp && st[sp - 1].end < start && !err) {
			sp--;
			err = emit(out, n, &cap, cur, st[sp].end,
				   st[sp].class_idx);
			if (cur <= st[sp].end)
				cur = st[sp].end + 1;
		}
		if (sp && !err)
			err = emit(out, n, &cap, cur, start - 1,
				   st[sp - 1].class_idx);
		cur = start;
		st[sp].end = start + (1ULL << (32 - t->p[i].len)) - 1;
		st[sp].class_idx = t->p[i].class_idx;
		sp++;
	}
	while (sp && !err) {
		sp--;
		err = emit(out, n, &cap, cur, st[sp].end, st[sp].class_idx);
		if (cur <= st[sp].end)
			cur = st[sp].end + 1;
	}
	return err;
}
