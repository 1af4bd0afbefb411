/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Deterministic prefix tables for the benchmarks: the same seed gives the
 * same prefixes, classes and destinations to every variant (classifier,
 * tc u32, nftables), so their numbers compare the same work.
 */
#ifndef BENCH_GEN_H
#define BENCH_GEN_H

#include <stddef.h>
#include <stdint.h>

#define GEN_CLASSES 16 /* classes 1:10 .. 1:1f */

struct gen_prefix {
	uint8_t addr[16]; /* network order; IPv4 uses the first 4 bytes */
	uint8_t len;
	uint8_t class_idx; /* 0 .. GEN_CLASSES-1 */
};

struct gen_table {
	int v6;
	size_t n;
	struct gen_prefix *p; /* sorted by address, then length */
};

/*
 * n unique prefixes: ~70 % /24 (v6: /48), 15 % /16-/22 (/32-/44), 10 % /32
 * (/128), 5 % /8-/15 (/20-/31); overlapping by construction.  IPv4 first
 * octets stay in 1-223 minus 10 and 127 so every address is routable and
 * 240.0.0.0/4 is a guaranteed miss; IPv6 stays in 2000::/4, fc00::/7 misses.
 */
int gen_table(struct gen_table *t, int v6, size_t n, uint64_t seed);
/*
 * n unique IPv6 prefixes shaped like a global table (bench/gen6.c says
 * how and why): registry allocations /19-/32 in the RIRs' pools of
 * 2000::/3, most prefixes /29-/48, a few percent /56 and /64, a tail to
 * /128, nested prefixes common.
 */
int gen_table6(struct gen_table *t, size_t n, uint64_t seed);
void gen_free(struct gen_table *t);

/* An address inside prefix i, host bits drawn from the seed. */
void gen_addr_in(const struct gen_table *t, size_t i, uint64_t *rng,
		 uint8_t out[16]);
/* A destination in a /24 (/48) of the table: a hit at the usual depth. */
void gen_hot(const struct gen_table *t, uint8_t out[16]);
void gen_miss(int v6, uint8_t out[16]);
/* n destinations, each inside a random prefix of the table. */
void gen_spread(const struct gen_table *t, size_t n, uint64_t seed,
		uint8_t (*out)[16]);

uint64_t gen_next(uint64_t *state);

/* One "lo hi class" per maximal run with one longest-prefix answer. */
struct gen_range {
	uint32_t lo, hi;
	uint8_t class_idx;
};
/* IPv4 only: the LPM table as disjoint intervals (for nftables). */
int gen_ranges_v4(const struct gen_table *t, struct gen_range **out, size_t *n);

#endif /* BENCH_GEN_H */
