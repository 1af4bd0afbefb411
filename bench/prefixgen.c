// SPDX-License-Identifier: GPL-2.0-only
/*
 * Writes one generated table (bench/gen.h) in the input format of each
 * contender, so that all of them get exactly the same prefixes and classes:
 *   prefixgen routes [v6] N SEED      "PREFIX CLASSID" for route load
 *   prefixgen byclass [v6] N SEED     the same lines grouped by class
 *   prefixgen batch  [v6] N SEED      "route add ..." for classifier -batch
 *   prefixgen u32    N SEED DEV       tc -batch, one u32 filter per prefix
 *   prefixgen groups N SEED          DIR-24-8 groups the IPv4 set needs
 *   prefixgen nft    N SEED           nft -f: interval map + postrouting rule
 *   prefixgen dests  [v6] N SEED K    K destinations inside the prefixes
 *   prefixgen shape  [v6] N SEED      prefixes per length, nesting
 * v6real instead of v6: the IPv6 table shaped like a global one (gen6.c).
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/gen.h"

static const char *addr_str(int v6, const uint8_t *a, char *buf)
{
	return inet_ntop(v6 ? AF_INET6 : AF_INET, a, buf, INET6_ADDRSTRLEN);
}

static void put_v4(uint32_t a, char *buf)
{
	sprintf(buf, "%u.%u.%u.%u", a >> 24, (a >> 16) & 255, (a >> 8) & 255,
		a & 255);
}

static int cmp_class(const void *x, const void *y)
{
	const struct gen_prefix *a = x, *b = y;

	if (a->class_idx != b->class_idx)
		return (int)a->class_idx - (int)b->class_idx;
	return memcmp(a->addr, b->addr, 16) ?: (int)a->len - (int)b->len;
}

/* Most specific first: u32 takes the first match, LPM the longest. */
static int cmp_len_desc(const void *x, const void *y)
{
	const struct gen_prefix *a = x, *b = y;

	if (a->len != b->len)
		return (int)b->len - (int)a->len;
	return memcmp(a->addr, b->addr, 16);
}

static int write_nft(const struct gen_table *t)
{
	struct gen_range *r;
	char lo[INET6_ADDRSTRLEN], hi[INET6_ADDRSTRLEN];
	size_t n, i;

	if (gen_ranges_v4(t, &r, &n))
		return -1;
	printf("table ip clsbench {\n"
	       "\tmap m {\n\t\ttype ipv4_addr : classid\n"
	       "\t\tflags interval\n\t}\n"
	       "\tchain post {\n"
	       "\t\ttype filter hook postrouting priority 0; policy accept;\n"
	       "\t\tmeta priority set ip daddr map @m\n\t}\n}\n");
	for (i = 0; i < n; i++) {
		if (i % 4096 == 0)
			printf("%sadd element ip clsbench m { ",
			       i ? " }\n" : "");
		else
			printf(", ");
		put_v4(r[i].lo, lo);
		put_v4(r[i].hi, hi);
		if (r[i].lo == r[i].hi)
			printf("%s : 1:%x", lo, 0x10 + r[i].class_idx);
		else
			printf("%s-%s : 1:%x", lo, hi, 0x10 + r[i].class_idx);
	}
	if (n)
		printf(" }\n");
	fprintf(stderr, "prefixgen: %zu prefixes -> %zu intervals\n", t->n, n);
	free(r);
	return 0;
}

/*
 * Prefixes per length, and how many lie inside a shorter one of the table
 * (t->p is in address order: the covering prefixes precede, on a stack).
 */
static void shape(const struct gen_table *t)
{
	unsigned int bytes = t->v6 ? 16 : 4, depth = 0, i, k;
	size_t per_len[129] = { 0 }, nested = 0, j;
	const struct gen_prefix *open[129];

	for (j = 0; j < t->n; j++) {
		const struct gen_prefix *p = &t->p[j];

		while (depth) {
			const struct gen_prefix *o = open[depth - 1];

			for (k = 0; k < bytes && 8 * (k + 1) <= o->len; k++)
				if (o->addr[k] != p->addr[k])
					break;
			i = o->len - 8 * k;
			if (8 * k >= o->len ||
			    (k < bytes && i < 8 &&
			     !((o->addr[k] ^ p->addr[k]) & (0xff << (8 - i)))))
				break;
			depth--;
		}
		nested += depth > 0;
		open[depth++] = p;
		per_len[p->len]++;
	}
	printf("{\"part\":\"shape\",\"n\":%zu,\"nested\":%zu,\"lengths\":{",
	       t->n, nested);
	for (i = 0, k = 0; i <= 8 * bytes; i++)
		if (per_len[i])
			printf("%s\"%u\":%zu", k++ ? "," : "", i, per_len[i]);
	printf("}}\n");
}

int main(int argc, char **argv)
{
	char buf[INET6_ADDRSTRLEN];
	struct gen_table t;
	const char *kind;
	int v6 = 0, a = 2;
	uint8_t(*d)[16];
	size_t n, i, k;
	uint64_t seed;

	if (argc < 4)
		goto usage;
	kind = argv[1];
	if (!strcmp(argv[2], "v6") || !strcmp(argv[2], "v6real")) {
		v6 = 1;
		a = 3;
	}
	if (argc < a + 2)
		goto usage;
	n = strtoull(argv[a], NULL, 0);
	seed = strtoull(argv[a + 1], NULL, 0);
	if (!strcmp(argv[2], "v6real") ? gen_table6(&t, n, seed) :
					     gen_table(&t, v6, n, seed))
		return 1;
	if (!strcmp(kind, "byclass")) {
		qsort(t.p, t.n, sizeof(*t.p), cmp_class);
		kind = "routes";
	}
	if (!strcmp(kind, "routes") || !strcmp(kind, "batch")) {
		for (i = 0; i < t.n; i++)
			printf("%s%s/%u 1:%x\n",
			       kind[0] == 'b' ? "route add " : "",
			       addr_str(v6, t.p[i].addr, buf), t.p[i].len,
			       0x10 + t.p[i].class_idx);
	} else if (!strcmp(kind, "u32") && !v6 && argc > a + 2) {
		qsort(t.p, t.n, sizeof(*t.p), cmp_len_desc);
		for (i = 0; i < t.n; i++)
			printf("filter add dev %s parent 1: protocol ip prio 1 "
			       "u32 match ip dst %s/%u flowid 1:%x\n",
			       argv[a + 2], addr_str(0, t.p[i].addr, buf),
			       t.p[i].len, 0x10 + t.p[i].class_idx);
	} else if (!strcmp(kind, "groups") && !v6) {
		/* One per /24 holding a longer prefix (t.p is address order). */
		uint32_t last = 0, s24;
		size_t g = 0;

		for (i = 0; i < t.n; i++) {
			if (t.p[i].len <= 24)
				continue;
			s24 = (uint32_t)t.p[i].addr[0] << 16 |
			      t.p[i].addr[1] << 8 | t.p[i].addr[2];
			g += !g || s24 != last;
			last = s24;
		}
		printf("%zu\n", g);
	} else if (!strcmp(kind, "nft") && !v6) {
		if (write_nft(&t))
			return 1;
	} else if (!strcmp(kind, "shape")) {
		shape(&t);
	} else if (!strcmp(kind, "dests") && argc > a + 2) {
		k = strtoull(argv[a + 2], NULL, 0);
		d = calloc(k ? k : 1, 16);
		if (!d)
			return 1;
		gen_spread(&t, k, seed, d);
		for (i = 0; i < k; i++)
			printf("%s\n", addr_str(v6, d[i], buf));
		free(d);
	} else {
		goto usage;
	}
	gen_free(&t);
	return 0;
usage:
	fprintf(stderr,
		"usage: prefixgen { routes | byclass | batch | dests | shape } "
		"[v6 | v6real] N SEED [K]\n       prefixgen u32 N SEED DEV\n"
		"       prefixgen { nft | groups } N SEED\n");
	return 2;
}
