// SPDX-License-Identifier: GPL-2.0-only
/*
 * progbench --table6 (issue 14): the IPv6 table (maps/mbt6.c read by
 * xdp_tc/lookup6.h) under BPF_PROG_TEST_RUN, in the shape the data path
 * will have (an inner map of a two-slot ARRAY_OF_MAPS whose slot comes
 * from config), beside, in the same run: the IPv6 trie (cls_egress and
 * the bare trie lookup), the IPv4 DIR-24-8 table (cls_egress in DIR24
 * mode) and the empty program, and two other candidate structures: the
 * same trie of nodes with DIRECT nodes only, and a Poptrie
 * (bench/poptrie6.c).  The sets are gen_table6's (bench/gen6.c).  Then
 * what building costs, memory against the trie's, and single route
 * changes on the live table.  One JSON object per line.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "maps/maps.h"
#include "classifier.skel.h"
#include "bench.skel.h"
#include "bench/gen.h"
#include "bench/poptrie6.h"
#include "bench/progbench.h"

typedef unsigned __int128 u128;

#define NODES_MAX 6 /* cost by path length: lookups of 0..6 nodes */

/* Room for route changes after a load: 1/8 more units than needed. */
#define HEADROOM 8
#define CHANGES	 200 /* per kind of single route change timed */

/* One inner map, mapped. */
struct tmap {
	int fd;
	__u32 *mem;
	size_t entries, len;
};

/* The table in maps of 8-byte, 32-byte, 4 MiB values (the data path's). */
enum shape { SHAPE_8, SHAPE_32, SHAPE_4M, SHAPE_FX, SHAPE_WIDE, SHAPES };

static const char *const shape_name[SHAPES] = {"mbt6_8", "mbt6_32", "mbt6",
					       "mbt6_fx", "mbt6_wide"};
/* BENCH_V6_FIXED_ELEMS in bench.bpf.c: the fixed-size map's 8-byte values */
#define FX_ELEMS (1U << 25)

/* The candidates' inner maps, as bench.bpf.c declares their outer maps. */
#define CANDIDATE(bytes, fl, sz, n)                                            \
	{                                                                      \
		.name = "bench_table6", .type = BPF_MAP_TYPE_ARRAY,            \
		.key_size = sizeof(__u32), .value_size = bytes, .flags = fl,   \
		.size = CLS_SIZE_##sz, .max_entries = n,                       \
	}
static const struct cls_map_spec candidate[SHAPES] = {
	[SHAPE_8] = CANDIDATE(8, BPF_F_MMAPABLE | BPF_F_INNER_MAP, BY_NEED, 1),
	[SHAPE_32] =
		CANDIDATE(32, BPF_F_MMAPABLE | BPF_F_INNER_MAP, BY_NEED, 1),
	[SHAPE_FX] = CANDIDATE(8, BPF_F_MMAPABLE, FIXED, FX_ELEMS),
};

/* The data path's own shape (the library's map), or a candidate's. */
static const struct cls_map_spec *shape_spec(enum shape k)
{
	return k == SHAPE_4M || k == SHAPE_WIDE ? cls_slot_spec(CLS_S_TABLE_V6)
						: &candidate[k];
}

struct set6 {
	size_t n;
	struct gen_table g;
	int trie;
	uint8_t hot[16];
	uint8_t (*spread)[16];
	/* A spread destination whose lookup reads k nodes, if any. */
	uint8_t by_nodes[NODES_MAX + 1][16];
	bool has_nodes[NODES_MAX + 1];
	struct tmap tab[SHAPES], direct, pop;
	struct mbt6 m[SHAPES], md;
};

static long slab_kb(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[128];
	long kb = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Slab: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* A map of shape sp holding at least entries __u32s. */
static int tmap_new(struct tmap *t, size_t entries,
		    const struct cls_map_spec *sp)
{
	size_t per = sp->value_size / sizeof(__u32);
	long page = sysconf(_SC_PAGESIZE);
	void *p;

	t->entries = (entries + per - 1) / per * per;
	t->fd = cls_map_create(sp, t->entries / per);
	if (t->fd < 0)
		return t->fd;
	t->len = (t->entries * sizeof(__u32) + page - 1) / page * page;
	p = mmap(NULL, t->len, PROT_READ | PROT_WRITE, MAP_SHARED, t->fd, 0);
	if (p == MAP_FAILED) {
		close(t->fd);
		t->fd = -1;
		return -errno;
	}
	t->mem = p;
	return 0;
}

static void tmap_free(struct tmap *t)
{
	if (t->mem)
		munmap(t->mem, t->len);
	if (t->fd > 0)
		close(t->fd);
}

/* The table of the set in one pass, sized by need; returns ms. */
static double fill6(struct mbt6 *m, const struct gen_table *g)
{
	struct mbt6_fill *f = malloc(sizeof(*f));
	double t0 = now_ns();
	size_t i;

	if (!f)
		return -1;
	mbt6_fill_begin(f, m);
	for (i = 0; i < g->n; i++)
		mbt6_fill_add(f, g->p[i].addr, g->p[i].len,
			      g->p[i].class_idx + 1);
	mbt6_fill_end(f);
	free(f);
	return (now_ns() - t0) / 1e6;
}

/* Units the set needs, counted by a fill that writes nothing. */
static size_t need6(const struct gen_table *g, bool all_direct, bool wide,
		    double *ms)
{
	struct mbt6 count = {.all_direct = all_direct, .wide = wide};
	struct mbt6_fill *f = malloc(sizeof(*f));
	double t0 = now_ns();
	size_t i, units;

	if (!f)
		return 0;
	mbt6_fill_begin(f, &count);
	for (i = 0; i < g->n; i++)
		mbt6_fill_add(f, g->p[i].addr, g->p[i].len,
			      g->p[i].class_idx + 1);
	mbt6_fill_end(f);
	units = mbt6_fill_units(f);
	*ms = (now_ns() - t0) / 1e6;
	free(f);
	return units;
}

/* fixed: the entries of a fixed-size map (SHAPE_FX); 0: sized by need. */
static int table_for(struct tmap *t, struct mbt6 *m, const struct gen_table *g,
		     bool all_direct, bool wide, const struct cls_map_spec *sp,
		     size_t fixed, const char *name)
{
	double count_ms = 0, fill_ms;
	size_t units = need6(g, all_direct, wide, &count_ms);
	struct mbt6_usage u;
	int err;

	units += units / HEADROOM;
	/* Bigger values round the map up: the pool takes the rest. */
	err = tmap_new(t, fixed ? fixed : mbt6_entries(units, wide), sp);
	if (!err)
		err = mbt6_view(m, t->mem, t->entries, wide);
	if (err)
		return err;
	m->all_direct = all_direct;
	fill_ms = fill6(m, g);
	mbt6_usage(m, &u);
	printf("{\"part\":\"t6build\",\"n\":%zu,\"table\":\"%s\","
	       "\"count_ms\":%.1f,\"fill_ms\":%.1f,\"units\":%zu,"
	       "\"used\":%zu,\"direct\":%zu,\"range\":%zu,\"tiny\":%zu,"
	       "\"range2\":%zu,"
	       "\"ask_trie\":%zu,\"bytes\":%zu,\"used_bytes\":%zu}\n",
	       g->n, name, count_ms, fill_ms, u.units, u.used, u.direct,
	       u.range, u.tiny, u.range2, u.ask_trie, u.bytes,
	       mbt6_entries(u.used, wide) * sizeof(__u32));
	return u.ask_trie ? -ENOSPC : 0;
}

static int pop_for(struct set6 *s)
{
	struct pop6 pt;
	double t0 = now_ns(), ms;
	int err = pop6_build(&pt, s->g.p, s->g.n);

	ms = (now_ns() - t0) / 1e6;
	if (!err)
		err = tmap_new(&s->pop, pt.entries, &candidate[SHAPE_8]);
	if (!err) {
		memcpy(s->pop.mem, pt.t, pt.entries * sizeof(__u32));
		printf("{\"part\":\"t6build\",\"n\":%zu,\"table\":\"poptrie\","
		       "\"fill_ms\":%.1f,\"nodes\":%zu,\"leaves\":%zu,"
		       "\"bytes\":%zu}\n",
		       s->n, ms, pt.nodes, pt.leaves,
		       pt.entries * sizeof(__u32));
	}
	pop6_free(&pt);
	return err;
}

/* Distinct cache lines of a path's reads (16 entries a line). */
static unsigned int path_lines(const struct mbt6_path *p, __u32 *out)
{
	unsigned int i, k, n = 0;

	for (i = 0; i < p->reads; i++) {
		for (k = 0; k < n && out[k] != p->entry[i] / 16; k++)
			;
		if (k == n)
			out[n++] = p->entry[i] / 16;
	}
	return n;
}

/*
 * Which nodes lookups of the hot and the spread destinations read, and
 * the cache lines they touch: per lookup, and all of them together (the
 * working set the spread cases need; bench/memlat gives its latency).
 */
static void paths(struct set6 *s)
{
	size_t nodes[MBT6_MAX_DEPTH + 2] = {0}, direct = 0, range = 0;
	size_t tiny = 0, range2 = 0, lines = 0, reads = 0, i, n = 0, k;
	size_t distinct;
	unsigned int wide_nodes;
	__u32 *all = malloc(SPREAD * MBT6_PATH_READS * sizeof(*all));
	struct mbt6_path p, hot;
	bool ask;

	if (!all)
		return;
	mbt6_lookup(&s->m[SHAPE_WIDE], s->hot, &ask, &p);
	wide_nodes = p.direct + p.range + p.tiny + p.range2;
	mbt6_lookup(&s->m[SHAPE_8], s->hot, &ask, &hot);
	/* No route in fd00::/8: the first level answers. */
	gen_miss(1, s->by_nodes[0]);
	mbt6_lookup(&s->m[SHAPE_8], s->by_nodes[0], &ask, &p);
	s->has_nodes[0] = p.reads == 1;
	for (i = 0; i < SPREAD; i++) {
		mbt6_lookup(&s->m[SHAPE_8], s->spread[i], &ask, &p);
		k = p.direct + p.range + p.tiny + p.range2;
		nodes[k]++;
		if (k <= NODES_MAX && !s->has_nodes[k] &&
		    k == p.direct + p.range) {
			/* DIRECT and RANGE nodes only, the slot inside */
			memcpy(s->by_nodes[k], s->spread[i], 16);
			s->has_nodes[k] = p.reads == 1 + p.direct + 2 * p.range;
		}
		direct += p.direct;
		range += p.range;
		tiny += p.tiny;
		range2 += p.range2;
		reads += p.reads;
		k = path_lines(&p, all + n);
		lines += k;
		n += k;
	}
	qsort(all, n, sizeof(*all), cmp_u32);
	for (i = 0, distinct = 0; i < n; i++)
		distinct += !i || all[i] != all[i - 1];
	free(all);
	printf("{\"part\":\"t6path\",\"n\":%zu,\"hot_direct\":%u,"
	       "\"hot_range\":%u,\"hot_tiny\":%u,\"hot_range2\":%u,"
	       "\"hot_reads\":%u,\"hot_wide_nodes\":%u,"
	       "\"spread_direct\":%.3f,\"spread_range\":%.3f,"
	       "\"spread_tiny\":%.3f,\"spread_range2\":%.3f,"
	       "\"spread_reads\":%.3f,"
	       "\"spread_lines\":%.3f,\"spread_distinct_lines\":%zu,"
	       "\"spread_nodes\":[",
	       s->n, hot.direct, hot.range, hot.tiny, hot.range2, hot.reads,
	       wide_nodes,
	       (double)direct / SPREAD, (double)range / SPREAD,
	       (double)tiny / SPREAD, (double)range2 / SPREAD,
	       (double)reads / SPREAD,
	       (double)lines / SPREAD, distinct);
	for (i = 0; i <= MBT6_MAX_DEPTH; i++)
		printf("%s%zu", i ? "," : "", nodes[i]);
	printf("]}\n");
}

static int set6_make(struct set6 *s, size_t n, __u64 seed, bool scattered)
{
	long slab0, slab1;
	double t0 = now_ns(), gen_ms, ns = 0;
	int err, k;

	memset(s, 0, sizeof(*s));
	s->n = n;
	s->trie = s->direct.fd = s->pop.fd = -1;
	for (k = 0; k < SHAPES; k++)
		s->tab[k].fd = -1;
	err = scattered ? gen_table(&s->g, 1, n, seed)
			: gen_table6(&s->g, n, seed);
	if (err)
		return err;
	gen_ms = (now_ns() - t0) / 1e6;
	slab0 = slab_kb();
	err = fill_batch(1, &s->g, &ns, &s->trie);
	usleep(200000);
	slab1 = slab_kb();
	if (err)
		return err;
	printf("{\"part\":\"t6trie\",\"n\":%zu,\"shape\":\"%s\","
	       "\"gen_ms\":%.1f,\"fill_ms\":%.1f,\"slab_kb\":%ld}\n",
	       n, scattered ? "scattered" : "global", gen_ms, ns / 1e6,
	       slab1 - slab0);
	for (k = 0; k < SHAPES && !err; k++)
		err = table_for(&s->tab[k], &s->m[k], &s->g, false,
				k == SHAPE_WIDE, shape_spec(k),
				k == SHAPE_FX ? 2 * (size_t)FX_ELEMS : 0,
				shape_name[k]);
	if (!err)
		err = table_for(&s->direct, &s->md, &s->g, true, false,
				&candidate[SHAPE_8], 0, "direct");
	if (!err)
		err = pop_for(s);
	s->spread = calloc(SPREAD, 16);
	if (!err && !s->spread)
		err = -ENOMEM;
	if (err)
		return err;
	gen_hot(&s->g, s->hot);
	gen_spread(&s->g, SPREAD, seed, s->spread);
	paths(s);
	return 0;
}

static void set6_free(struct set6 *s)
{
	int k;

	if (s->trie > 0)
		close(s->trie);
	for (k = 0; k < SHAPES; k++)
		tmap_free(&s->tab[k]);
	tmap_free(&s->direct);
	tmap_free(&s->pop);
	free(s->spread);
	gen_free(&s->g);
}

static int install6(struct ctx *c, const struct set6 *s)
{
	struct bench_bpf *b = c->bench;
	__u32 zero = 0, one = 1;
	int t6 = bpf_map__fd(b->maps.bench_table6);

	/* The trie in both slots: some cases run in generation 1. */
	if (bpf_map_update_elem(bpf_map__fd(c->cls->maps.trie_v6), &zero,
				&s->trie, BPF_ANY) ||
	    bpf_map_update_elem(bpf_map__fd(c->cls->maps.trie_v6), &one,
				&s->trie, BPF_ANY) ||
	    bpf_map_update_elem(t6, &zero, &s->tab[SHAPE_8].fd, BPF_ANY) ||
	    bpf_map_update_elem(t6, &one, &s->direct.fd, BPF_ANY) ||
	    bpf_map_update_elem(bpf_map__fd(b->maps.bench_table6_32), &zero,
				&s->tab[SHAPE_32].fd, BPF_ANY) ||
	    bpf_map_update_elem(bpf_map__fd(b->maps.bench_table6_4m), &zero,
				&s->tab[SHAPE_4M].fd, BPF_ANY) ||
	    bpf_map_update_elem(bpf_map__fd(b->maps.bench_table6_fx), &zero,
				&s->tab[SHAPE_FX].fd, BPF_ANY) ||
	    bpf_map_update_elem(bpf_map__fd(b->maps.bench_table6_wide), &zero,
				&s->tab[SHAPE_WIDE].fd, BPF_ANY) ||
	    bpf_map_update_elem(bpf_map__fd(b->maps.bench_pop6), &zero,
				&s->pop.fd, BPF_ANY))
		return -errno;
	return load_dests(c, s->spread, SPREAD, 16);
}

/* What agree6() checks a program's skb->priority against. */
enum k6_check {
	CHECK_NONE,
	CHECK_CLASS,   /* the class index the IPv6 table gives */
	CHECK_CLASSID, /* the classid cls_egress gives with the trie */
};

/* The programs measured, hot and over the spread destinations. */
struct k6 {
	const char *name;
	int (*prog)(const struct ctx *c);
	__u32 gen;     /* the IPv6 table's slot: 1 holds the all-DIRECT one */
	bool v4_table; /* an IPv4 packet, the table in the slot */
	bool spread;   /* 64k destinations cycled; else the hot one */
	int nodes;     /* > 0: the destination whose lookup reads nodes - 1 */
	enum k6_check check;
};

#define PROG(fn, skel, prog)                                                   \
	static int fn(const struct ctx *c)                                     \
	{                                                                      \
		return bpf_program__fd(c->skel->progs.prog);                   \
	}
PROG(p_empty, bench, bench_empty)
PROG(p_egress, cls, cls_egress)
PROG(p_bare, bench, bench_bare_lookup)
PROG(p_egress8, bench, bench_table6_egress8)
PROG(p_egress32, bench, bench_table6_egress32)
PROG(p_egress4m, bench, bench_table6_egress4m)
PROG(p_look8, bench, bench_table6_lookup8)
PROG(p_look32, bench, bench_table6_lookup32)
PROG(p_look4m, bench, bench_table6_lookup4m)
PROG(p_egress_fx, bench, bench_table6_egress_fx)
PROG(p_look_fx, bench, bench_table6_lookup_fx)
PROG(p_egress_wide, bench, bench_table6_egress_wide)
PROG(p_look_wide, bench, bench_table6_lookup_wide)
PROG(p_bpf_loop, bench, bench_table6_lookup_bpf_loop)
PROG(p_pop, bench, bench_pop6_lookup)
PROG(p_v4in, bench, bench_dir24_in_egress)
PROG(p_spread, bench, bench_spread)
#undef PROG

#define HOT(n, p, ...)                                                         \
	{                                                                      \
		.name = n "_hot", .prog = p, __VA_ARGS__                       \
	}
#define SPREAD64K(n, p, ...)                                                   \
	{                                                                      \
		.name = n "_spread64k", .prog = p, .spread = true, __VA_ARGS__ \
	}
static const struct k6 k6s[] = {
	{.name = "empty", .prog = p_empty},
	HOT("v4_table", p_egress, .v4_table = true),
	HOT("v4_table_inner", p_v4in, .v4_table = true),
	HOT("trie", p_egress),
	HOT("table", p_egress4m, .check = CHECK_CLASSID),
	HOT("table8", p_egress8, .check = CHECK_CLASSID),
	HOT("table32", p_egress32, .check = CHECK_CLASSID),
	HOT("table_fx", p_egress_fx, .check = CHECK_CLASSID),
	HOT("table_wide", p_egress_wide, .check = CHECK_CLASSID),
	HOT("bare_trie", p_bare),
	HOT("lookup", p_look4m, .check = CHECK_CLASS),
	HOT("lookup8", p_look8, .check = CHECK_CLASS),
	HOT("lookup32", p_look32, .check = CHECK_CLASS),
	HOT("lookup_fx", p_look_fx, .check = CHECK_CLASS),
	HOT("lookup_wide", p_look_wide, .check = CHECK_CLASS),
	HOT("bpf_loop", p_bpf_loop, .check = CHECK_CLASS),
	HOT("direct", p_look8, .gen = 1, .check = CHECK_CLASS),
	HOT("poptrie", p_pop, .check = CHECK_CLASS),
	HOT("lookup_nodes0", p_look8, .nodes = 1),
	HOT("lookup_nodes1", p_look8, .nodes = 2),
	HOT("lookup_nodes2", p_look8, .nodes = 3),
	HOT("lookup_nodes3", p_look8, .nodes = 4),
	HOT("lookup_nodes4", p_look8, .nodes = 5),
	HOT("lookup_nodes5", p_look8, .nodes = 6),
	HOT("lookup_nodes6", p_look8, .nodes = 7),
	HOT("lookup_fx_nodes0", p_look_fx, .nodes = 1),
	HOT("lookup_fx_nodes1", p_look_fx, .nodes = 2),
	HOT("lookup_fx_nodes2", p_look_fx, .nodes = 3),
	HOT("lookup_fx_nodes3", p_look_fx, .nodes = 4),
	HOT("lookup_fx_nodes4", p_look_fx, .nodes = 5),
	HOT("lookup_fx_nodes5", p_look_fx, .nodes = 6),
	HOT("lookup_fx_nodes6", p_look_fx, .nodes = 7),
	{.name = "spread64k_floor", .prog = p_empty, .spread = true},
	SPREAD64K("trie", p_egress),
	SPREAD64K("table", p_egress4m),
	SPREAD64K("table8", p_egress8),
	SPREAD64K("table32", p_egress32),
	SPREAD64K("table_fx", p_egress_fx),
	SPREAD64K("table_wide", p_egress_wide),
	SPREAD64K("bare_trie", p_bare),
	SPREAD64K("lookup", p_look4m),
	SPREAD64K("lookup8", p_look8),
	SPREAD64K("lookup32", p_look32),
	SPREAD64K("lookup_fx", p_look_fx),
	SPREAD64K("lookup_wide", p_look_wide),
	SPREAD64K("bpf_loop", p_bpf_loop),
	SPREAD64K("direct", p_look8, .gen = 1),
	SPREAD64K("poptrie", p_pop),
};
#undef HOT
#undef SPREAD64K
#define K6_MAX ((int)(sizeof(k6s) / sizeof(k6s[0])))

static int prio_gen(struct ctx *c, int prog, __u32 gen, const uint8_t *dst,
		    __u32 *prio)
{
	c->gen = gen;
	return set_config(c, 1, false) ?: prog_prio(prog, 1, dst, prio);
}

/*
 * Every candidate must answer as the table does, or the numbers mean
 * nothing: the other structures' user-space lookups, the lookup programs
 * (class index in skb->priority) and the egress ones against cls_egress
 * on the trie (classid).
 */
static int agree6(struct ctx *c, const struct set6 *s)
{
	struct pop6 pop6 = {.t = s->pop.mem};
	__u32 want, got, trie, i, k;
	const uint8_t *dst;
	bool ask, ask2 = false;
	int err = 0;

	for (i = 0; i <= 4096 && !err; i++) {
		dst = i == 4096 ? s->hot : s->spread[i * 13 % SPREAD];
		want = mbt6_lookup(&s->m[SHAPE_8], dst, &ask, NULL);
		for (k = 1; k < SHAPES + 2 && !err; k++) {
			got = k < SHAPES
				      ? mbt6_lookup(&s->m[k], dst, &ask2, NULL)
			      : k == SHAPES
				      ? mbt6_lookup(&s->md, dst, &ask2, NULL)
				      : pop6_lookup(&pop6, dst);
			if (ask || ask2 || got != want) {
				fprintf(stderr,
					"progbench: N=%zu dest %u: "
					"structure %u says %u, the "
					"table %u\n",
					s->n, i, k, got, want);
				err = -EPROTO;
			}
		}
		if (!err)
			err = prio_gen(c, p_egress(c), 0, dst, &trie);
		for (k = 0; k < K6_MAX && !err; k++) {
			const struct k6 *x = &k6s[k];
			__u32 expect = x->check == CHECK_CLASS ? want : trie;

			if (x->check == CHECK_NONE)
				continue;
			err = prio_gen(c, x->prog(c), x->gen, dst, &got);
			if (!err && got != expect) {
				fprintf(stderr,
					"progbench: N=%zu dest %u: %s "
					"says %#x, want %#x\n",
					s->n, i, x->name, got, expect);
				err = -EPROTO;
			}
		}
	}
	c->gen = 0;
	return err;
}

static int run_k6(struct ctx *c, const struct k6 *k, const struct set6 *s,
		  const struct vtab *v4, __u32 repeat, __u32 *ns)
{
	__u8 pkt[128];
	size_t len;

	c->gen = k->gen;
	if (set_config(c, 1, k->v4_table))
		return -errno;
	if (k->nodes && !s->has_nodes[k->nodes - 1])
		return -ENOENT;
	len = k->v4_table ? mk_pkt(pkt, 0, v4->hot)
	      : k->nodes  ? mk_pkt(pkt, 1, s->by_nodes[k->nodes - 1])
			  : mk_pkt(pkt, 1, s->hot);
	if (!k->spread)
		return test_run(k->prog(c), pkt, len, repeat, ns);
	c->bench->data->bench_mask = SPREAD - 1;
	if (set_jmp(c, k->prog(c)))
		return -errno;
	/* Every destination equally often. */
	repeat = (repeat + SPREAD - 1) / SPREAD * SPREAD;
	return test_run(p_spread(c), pkt, len, repeat, ns);
}

/* The IPv4 table as painted, copied into an inner map in slot 0. */
static int v4_inner(struct ctx *c, struct tmap *t)
{
	size_t entries = dir24_entries(true, c->dir24_groups);
	__u32 zero = 0;
	int err = tmap_new(t, entries, cls_slot_spec(CLS_S_TABLE_V4));

	if (err)
		return err;
	memcpy(t->mem, c->d.t, entries * sizeof(__u32));
	if (bpf_map_update_elem(bpf_map__fd(c->bench->maps.bench_dir24_in),
				&zero, &t->fd, BPF_ANY))
		return -errno;
	return 0;
}

static void verifier_line(struct bpf_program *prog)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len))
		return;
	printf("{\"part\":\"t6verifier\",\"prog\":\"%s\",\"insns\":%u,"
	       "\"xlated\":%u,\"jited\":%u}\n",
	       bpf_program__name(prog), info.verified_insns,
	       info.xlated_prog_len / 8, info.jited_prog_len);
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

static void change_line(const char *op, unsigned int len, double *us, size_t n)
{
	if (!n)
		return;
	qsort(us, n, sizeof(*us), cmp_double);
	printf("{\"part\":\"t6change\",\"op\":\"%s\",\"len\":%u,\"n\":%zu,"
	       "\"median_us\":%.2f,\"p90_us\":%.2f,\"max_us\":%.2f}\n",
	       op, len, n, us[n / 2], us[n * 9 / 10], us[n - 1]);
}

static u128 addr128(const uint8_t *a)
{
	u128 v = 0;
	int i;

	for (i = 0; i < 16; i++)
		v = v << 8 | a[i];
	return v;
}

static void bytes128(u128 v, uint8_t *a)
{
	int i;

	for (i = 15; i >= 0; i--, v >>= 8)
		a[i] = (uint8_t)v;
}

/* The data path's class for dst, which must be want. */
static int check_live(struct ctx *c, const uint8_t *dst, __u32 want)
{
	__u32 got;
	int err = prio_gen(c, p_look8(c), 0, dst, &got);

	if (!err && got != want) {
		fprintf(stderr,
			"progbench: after a change the data path says "
			"%u, want %u\n",
			got, want);
		err = -EPROTO;
	}
	return err;
}

/*
 * Single changes on the live table of set s, each through the library as
 * the route code will call it (the cover from the set, as the trie would
 * give it), then mbt6_reclaim as after a grace period: new prefixes in
 * 3fff::/16 (outside every set) added and deleted, and /48s of the set
 * (with no longer prefix inside) deleted and added back.  After each,
 * the data path must see it.
 */
static int changes(struct ctx *c, struct set6 *s)
{
	static const unsigned int lens[] = {32, 48, 64, 128};
	struct {
		u128 start, end;
		unsigned int len;
		__u32 cls;
	} open[129];
	double add[CHANGES], del[CHANGES], t0, t1, t2;
	struct mbt6 *m = &s->m[SHAPE_8];
	unsigned int li, k = 0, depth = 0;
	size_t i, n48 = 0;
	uint8_t a[16];
	int err = 0;
	u128 x;

	for (li = 0; li < 4 && !err; li++) {
		for (k = 0; k < CHANGES && !err; k++) {
			x = (u128)0x3fff << 112 | (u128)(k * 7919 + li) << 64 |
			    (u128)k << 8;
			bytes128(x & ~(u128)0 << (128 - lens[li]), a);
			t0 = now_ns();
			mbt6_add(m, a, lens[li], 1 + k % GEN_CLASSES);
			t1 = now_ns();
			err = check_live(c, a, 1 + k % GEN_CLASSES);
			t2 = now_ns();
			mbt6_del(m, a, lens[li], false, 0, 0);
			add[k] = (t1 - t0) / 1e3;
			del[k] = (now_ns() - t2) / 1e3;
			mbt6_reclaim(m);
			if (!err)
				err = check_live(c, a, 0);
		}
		change_line("add_new", lens[li], add, k);
		change_line("del_new", lens[li], del, k);
	}
	/* Every so many /48 of the set, with its cover. */
	for (i = 0, k = 0; i < s->g.n && k < CHANGES && !err; i++) {
		const struct gen_prefix *p = &s->g.p[i];
		__u32 cover = 0;

		x = addr128(p->addr);
		while (depth && open[depth - 1].end < x)
			depth--;
		/* Those with nothing inside: the check reads their start. */
		if (p->len == 48 && ++n48 % 997 == 0 &&
		    (i + 1 == s->g.n ||
		     (addr128(s->g.p[i + 1].addr) ^ x) >> 80)) {
			cover = depth ? open[depth - 1].cls : 0;
			t0 = now_ns();
			mbt6_del(m, p->addr, 48, depth > 0,
				 depth ? open[depth - 1].len : 0, cover);
			t1 = now_ns();
			err = check_live(c, p->addr, cover);
			t2 = now_ns();
			mbt6_add(m, p->addr, 48, p->class_idx + 1);
			del[k] = (t1 - t0) / 1e3;
			add[k++] = (now_ns() - t2) / 1e3;
			mbt6_reclaim(m);
			if (!err)
				err = check_live(c, p->addr, p->class_idx + 1);
		}
		open[depth].start = x;
		open[depth].end = x | (p->len < 128 ? ~(u128)0 >> p->len : 0);
		open[depth].len = p->len;
		open[depth++].cls = p->class_idx + 1;
	}
	if (k) {
		change_line("del_existing", 48, del, k);
		change_line("add_back", 48, add, k);
	}
	return err;
}

int table6_main(struct ctx *c, const struct opts *o)
{
	struct set6 s[MAX_SIZES] = {};
	struct tmap v4in = {.fd = -1};
	struct vtab v4 = {};
	int r, i, k, kk, err;
	double t0;
	__u32 ns = 0, zero = 0, one = 1;

	t0 = now_ns();
	/* The IPv4 reference: the largest set in the DIR-24-8 table. */
	err = vtab_make(&v4, o->sizes[o->nsizes - 1], o->seed);
	c->dir24_groups = v4.groups_needed ? v4.groups_needed : 1;
	for (i = 0; i < o->nsizes && !err; i++)
		err = set6_make(&s[i], o->sizes[i], o->seed, o->table6 == 2);
	if (!err)
		fprintf(stderr, "progbench: sets ready in %.1f s\n",
			(now_ns() - t0) / 1e9);
	if (!err)
		err = setup(c) ?: map_dir24(c);
	if (!err && (bpf_map_update_elem(bpf_map__fd(c->cls->maps.trie_v4),
					 &zero, &v4.trie, BPF_ANY) ||
		     bpf_map_update_elem(bpf_map__fd(c->cls->maps.trie_v4),
					 &one, &v4.trie, BPF_ANY)))
		err = -errno;
	if (!err) {
		paint(c, &v4);
		err = v4_inner(c, &v4in);
	}
	if (!err) {
		verifier_line(c->cls->progs.cls_egress);
		verifier_line(c->bench->progs.bench_table6_egress8);
		verifier_line(c->bench->progs.bench_table6_egress32);
		verifier_line(c->bench->progs.bench_table6_egress4m);
		verifier_line(c->bench->progs.bench_table6_lookup8);
		verifier_line(c->bench->progs.bench_table6_egress_fx);
		verifier_line(c->bench->progs.bench_table6_lookup_bpf_loop);
		verifier_line(c->bench->progs.bench_pop6_lookup);
	}
	for (r = 0; r < o->rounds && !err; r++) {
		for (i = 0; i < o->nsizes && !err; i++) {
			err = install6(c, &s[i]);
			if (!err && r == 0)
				err = agree6(c, &s[i]);
			for (kk = 0; kk < K6_MAX && !err; kk++) {
				k = (kk + r + i) % K6_MAX;
				err = run_k6(c, &k6s[k], &s[i], &v4, o->repeat,
					     &ns);
				if (err == -ENOENT) {
					err = 0;
					continue;
				}
				if (!err)
					printf("{\"part\":\"t6prog\",\"n\":%zu,"
					       "\"case\":\"%s\",\"round\":%d,"
					       "\"ns\":%u}\n",
					       s[i].n, k6s[k].name, r, ns);
			}
		}
	}
	if (!err && c->bench->bss->bench_tail_fail) {
		fprintf(stderr, "progbench: %llu tail calls failed\n",
			(unsigned long long)c->bench->bss->bench_tail_fail);
		err = -EIO;
	}
	if (!err)
		err = changes(c, &s[o->nsizes - 1]);
	for (i = 0; i < MAX_SIZES; i++)
		set6_free(&s[i]);
	vtab_free(&v4);
	tmap_free(&v4in);
	if (c->dir24_mem)
		munmap(c->dir24_mem, c->dir24_len);
	return err;
}
