// SPDX-License-Identifier: GPL-2.0-only
/*
 * Program cost under BPF_PROG_TEST_RUN: the real cls_egress against an
 * empty program and the bare route lookup, IPv4 and IPv6, for tables of
 * several sizes, rounds interleaved.  With --table: IPv4 only, cls_egress
 * with the IPv4 table out of and in the generation's slot, the table
 * painted by maps/dir24.c over the mmap of an inner map made as
 * maps/table.c makes it.  With --table6: the IPv6 table (table6.c).
 * Prints one JSON object per line; bench/report.py turns them into tables.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "maps/maps.h"
#include "classifier.skel.h"
#include "bench.skel.h"
#include "bench/gen.h"
#include "bench/progbench.h"

struct table {
	size_t n;
	int trie[2]; /* v4, v6 */
	uint8_t hot[2][16];
	uint8_t (*spread[2])[16];
	double fill_ns[2]; /* one bpf_map_update_elem per prefix */
};

double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int pin_cpu(void)
{
	cpu_set_t set;
	int cpu;

	if (sched_getaffinity(0, sizeof(set), &set))
		return -errno;
	for (cpu = CPU_SETSIZE - 1; cpu >= 0; cpu--)
		if (CPU_ISSET(cpu, &set))
			break;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return -errno;
	return cpu;
}

/* A trie as the library makes it; -1 with errno set on failure. */
int new_trie(int v6)
{
	int fd = cls_map_create(
		cls_slot_spec(v6 ? CLS_S_TRIE_V6 : CLS_S_TRIE_V4), 0);

	if (fd < 0) {
		errno = -fd;
		return -1;
	}
	return fd;
}

/* Which path the loader's cls_trie_fill takes on this kernel. */
static void probe_batch(void)
{
	LIBBPF_OPTS(bpf_map_batch_opts, o, .elem_flags = BPF_ANY);
	struct cls_v4_key k = {.prefixlen = 8, .addr = {10}};
	__u32 v = 1, count = 1;
	int fd = new_trie(0), err = 0;

	if (fd < 0) {
		fprintf(stderr, "progbench: trie: %s\n", strerror(errno));
		return;
	}
	if (bpf_map_update_batch(fd, &k, &v, &count, &o))
		err = errno;
	printf("{\"part\":\"probe\",\"lpm_update_batch\":\"%s\","
	       "\"errno\":%d}\n",
	       err ? strerror(err) : "ok", err);
	close(fd);
}

static int fill(struct table *tb, int v6, const struct gen_table *g)
{
	struct cls_v6_key k;
	__u32 v;
	double t0;
	size_t i;

	tb->trie[v6] = new_trie(v6);
	if (tb->trie[v6] < 0)
		return -errno;
	t0 = now_ns();
	for (i = 0; i < g->n; i++) {
		memset(&k, 0, sizeof(k));
		k.prefixlen = g->p[i].len;
		memcpy(k.addr, g->p[i].addr, v6 ? 16 : 4);
		v = g->p[i].class_idx + 1;
		if (bpf_map_update_elem(tb->trie[v6], &k, &v, BPF_ANY))
			return -errno;
	}
	tb->fill_ns[v6] = now_ns() - t0;
	return 0;
}

#define FILL_CHUNK 8192 /* as maps/routes.c's cls_trie_fill */

/* The same prefixes into a throwaway trie, FILL_CHUNK per syscall. */
int fill_batch(int v6, const struct gen_table *g, double *ns,
		      int *keep)
{
	LIBBPF_OPTS(bpf_map_batch_opts, o, .elem_flags = BPF_ANY);
	size_t ks = v6 ? sizeof(struct cls_v6_key) : sizeof(struct cls_v4_key);
	size_t done, i, chunk;
	struct cls_v6_key k;
	__u32 *vals, count;
	__u8 *keys;
	int fd, err = 0;
	double t0;

	fd = new_trie(v6);
	keys = malloc(FILL_CHUNK * ks);
	vals = malloc(FILL_CHUNK * sizeof(*vals));
	if (fd < 0 || !keys || !vals) {
		err = fd < 0 ? -errno : -ENOMEM;
		goto out;
	}
	t0 = now_ns();
	for (done = 0; done < g->n && !err; done += chunk) {
		chunk = g->n - done < FILL_CHUNK ? g->n - done : FILL_CHUNK;
		for (i = 0; i < chunk; i++) {
			memset(&k, 0, sizeof(k));
			k.prefixlen = g->p[done + i].len;
			memcpy(k.addr, g->p[done + i].addr, v6 ? 16 : 4);
			memcpy(keys + i * ks, &k, ks);
			vals[i] = g->p[done + i].class_idx + 1;
		}
		count = chunk;
		if (bpf_map_update_batch(fd, keys, vals, &count, &o))
			err = -errno;
	}
	*ns = now_ns() - t0;
out:
	free(keys);
	free(vals);
	if (keep && !err)
		*keep = fd;
	else if (fd >= 0)
		close(fd);
	return err;
}

static int build_table(struct table *tb, size_t n, __u64 seed)
{
	struct gen_table g;
	double batch_ns = 0;
	int v6, err;

	memset(tb, 0, sizeof(*tb));
	tb->n = n;
	tb->trie[0] = tb->trie[1] = -1;
	for (v6 = 0; v6 < 2; v6++) {
		err = gen_table(&g, v6, n, seed);
		if (err)
			return err;
		err = fill(tb, v6, &g);
		if (!err)
			err = fill_batch(v6, &g, &batch_ns, NULL);
		if (!err) {
			gen_hot(&g, tb->hot[v6]);
			tb->spread[v6] = calloc(SPREAD, 16);
			if (!tb->spread[v6])
				err = -ENOMEM;
		}
		if (!err)
			gen_spread(&g, SPREAD, seed, tb->spread[v6]);
		gen_free(&g);
		if (err)
			return err;
		printf("{\"part\":\"fill\",\"family\":\"%s\",\"n\":%zu,"
		       "\"ns_per_prefix\":%.1f,\"batch_ns_per_prefix\":%.1f}\n",
		       v6 ? "v6" : "v4", n, tb->fill_ns[v6] / n, batch_ns / n);
	}
	return 0;
}

/* Ethernet + IPv4/IPv6 + UDP, 64 bytes of frame for IPv4. */
size_t mk_pkt(__u8 *buf, int v6, const uint8_t dst[16])
{
	size_t l3 = 14, len = v6 ? 14 + 40 + 8 + 16 : 14 + 20 + 8 + 22;

	memset(buf, 0, 128);
	buf[12] = v6 ? 0x86 : 0x08;
	buf[13] = v6 ? 0xdd : 0x00;
	if (v6) {
		buf[l3] = 0x60;
		buf[l3 + 5] = 8 + 16; /* payload length */
		buf[l3 + 6] = 17;
		buf[l3 + 7] = 64;
		buf[l3 + 8] = 0x20;
		buf[l3 + 9] = 0x01;
		buf[l3 + 23] = 1;
		memcpy(buf + l3 + 24, dst, 16);
	} else {
		__u16 tot = htons(20 + 8 + 22);

		buf[l3] = 0x45;
		memcpy(buf + l3 + 2, &tot, 2);
		buf[l3 + 8] = 64;
		buf[l3 + 9] = 17;
		buf[l3 + 12] = 192;
		buf[l3 + 15] = 1;
		memcpy(buf + l3 + 16, dst, 4);
	}
	return len;
}

/* The IPv4 table in (or out of) generation c->gen's slot, as the library
 * publishes it. */
static int use_table(struct ctx *c, bool on)
{
	int outer = bpf_map__fd(c->cls->maps.table_v4);

	if (on)
		return bpf_map_update_elem(outer, &c->gen, &c->table_fd,
					   BPF_ANY) ?
			       -errno :
			       0;
	return bpf_map_delete_elem(outer, &c->gen) && errno != ENOENT ? -errno :
									 0;
}

int set_config(struct ctx *c, __u32 stats_on, bool table)
{
	struct cls_config cfg = {.stats_on = stats_on,
				 .layout = CLS_LAYOUT_VERSION,
				 .gen = c->gen};
	__u32 zero = 0;

	if (bpf_map_update_elem(bpf_map__fd(c->cls->maps.config), &zero, &cfg,
				BPF_ANY))
		return -errno;
	return use_table(c, table);
}

static int set_stats(struct ctx *c, __u32 on)
{
	struct cls_config cfg = {.stats_on = on,
				 .layout = CLS_LAYOUT_VERSION,
				 .gen = c->gen};
	__u32 zero = 0;

	return bpf_map_update_elem(bpf_map__fd(c->cls->maps.config), &zero,
				   &cfg, BPF_ANY);
}

int test_run(int prog, const __u8 *pkt, size_t len, __u32 repeat,
		    __u32 *ns)
{
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = pkt, .data_size_in = len,
		    .repeat = repeat);

	if (bpf_prog_test_run_opts(prog, &o))
		return -errno;
	*ns = o.duration;
	return 0;
}

int set_jmp(struct ctx *c, int prog)
{
	__u32 zero = 0;

	return bpf_map_update_elem(bpf_map__fd(c->bench->maps.bench_jmp), &zero,
				   &prog, BPF_ANY);
}

enum kase {
	K_EMPTY,
	K_BARE_HOT,
	K_FULL_HOT,
	K_FULL_HOT_NOSTATS,
	K_BARE_MISS,
	K_FULL_MISS,
	K_SPREAD_FLOOR,
	K_SPREAD_BARE,
	K_SPREAD_FULL,
	K_MAX,
};

static const char *const kase_name[K_MAX] = {
	"empty",       "bare_hot",  "full_hot",	    "full_hot_nostats",
	"bare_miss",   "full_miss", "spread_floor", "spread_bare",
	"spread_full",
};

static int run_case(struct ctx *c, enum kase k, int v6, const struct table *tb,
		    __u32 repeat, __u32 *ns)
{
	int full = bpf_program__fd(c->cls->progs.cls_egress);
	int bare = bpf_program__fd(c->bench->progs.bench_bare_lookup);
	int empty = bpf_program__fd(c->bench->progs.bench_empty);
	int spread = bpf_program__fd(c->bench->progs.bench_spread);
	uint8_t miss[16];
	__u8 pkt[128];
	size_t len;
	int err;

	gen_miss(v6, miss);
	len = mk_pkt(pkt, v6,
		     k == K_BARE_MISS || k == K_FULL_MISS ? miss : tb->hot[v6]);
	switch (k) {
	case K_EMPTY:
		return test_run(empty, pkt, len, repeat, ns);
	case K_BARE_HOT:
	case K_BARE_MISS:
		return test_run(bare, pkt, len, repeat, ns);
	case K_FULL_HOT:
	case K_FULL_MISS:
		return test_run(full, pkt, len, repeat, ns);
	case K_FULL_HOT_NOSTATS:
		err = set_stats(c, 0);
		if (!err)
			err = test_run(full, pkt, len, repeat, ns);
		set_stats(c, 1);
		return err;
	case K_SPREAD_FLOOR:
	case K_SPREAD_BARE:
	case K_SPREAD_FULL:
		err = set_jmp(c, k == K_SPREAD_FLOOR  ? empty
				 : k == K_SPREAD_BARE ? bare
						      : full);
		if (err)
			return -errno;
		/* Every destination equally often. */
		repeat = (repeat + SPREAD - 1) / SPREAD * SPREAD;
		return test_run(spread, pkt, len, repeat, ns);
	default:
		return -EINVAL;
	}
}

/* The first n of addrs (bytes each) as the spread wrapper's destinations. */
int load_dests(struct ctx *c, uint8_t (*addrs)[16], __u32 n,
		      size_t bytes)
{
	LIBBPF_OPTS(bpf_map_batch_opts, o, .elem_flags = BPF_ANY);
	struct cls_v6_key *vals;
	__u32 *keys, count = n, i;
	int err = 0;

	keys = calloc(n, sizeof(*keys));
	vals = calloc(n, sizeof(*vals));
	if (!keys || !vals) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		keys[i] = i;
		memcpy(vals[i].addr, addrs[i], bytes);
	}
	if (bpf_map_update_batch(bpf_map__fd(c->bench->maps.bench_addrs), keys,
				 vals, &count, &o))
		err = -errno;
out:
	free(keys);
	free(vals);
	return err;
}

static int install(struct ctx *c, const struct table *tb, int v6)
{
	int outer = v6 ? bpf_map__fd(c->cls->maps.trie_v6)
		       : bpf_map__fd(c->cls->maps.trie_v4);
	__u32 zero = 0;

	if (bpf_map_update_elem(outer, &zero, &tb->trie[v6], BPF_ANY))
		return -errno;
	return load_dests(c, tb->spread[v6], SPREAD, 16);
}

int setup(struct ctx *c)
{
	struct cls_class cls = {.flags = CLS_F_VALID};
	const char *stray;
	int fd, err;
	__u32 i;

	c->cls = classifier_bpf__open();
	if (!c->cls)
		return -errno;
	/* The programs' maps as the library makes them (maps/registry.c). */
	err = cls_bind_maps(c->cls->obj, NULL, &stray);
	if (!err)
		err = classifier_bpf__load(c->cls);
	if (err)
		return err;
	fd = bpf_map__fd(c->cls->maps.classes);
	for (i = 0; i <= GEN_CLASSES; i++) {
		if (bpf_map_update_elem(fd, &i, &cls, BPF_ANY))
			return -errno;
		cls.flags = CLS_F_VALID | CLS_F_PRIORITY;
		cls.classid = 1U << 16 | (0x10 + i);
	}
	c->bench = bench_bpf__open();
	if (!c->bench)
		return -errno;
#define REUSE(m)                                                               \
	bpf_map__reuse_fd(c->bench->maps.m, bpf_map__fd(c->cls->maps.m))
	err = REUSE(config) ?: REUSE(classes) ?: REUSE(trie_v4)
		?: REUSE(trie_v6) ?: REUSE(stats) ?: REUSE(table_v4);
#undef REUSE
	if (!err)
		err = bench_bpf__load(c->bench);
	if (!err)
		err = set_stats(c, 1);
	return err;
}

/* --- --table: IPv4, the trie against the DIR-24-8 table --------------- */

static int by_addr(const void *x, const void *y)
{
	const struct gen_prefix *a = x, *b = y;
	int c = memcmp(a->addr, b->addr, 4);

	return c ? c : (int)a->len - (int)b->len;
}

int cmp_u32(const void *x, const void *y)
{
	__u32 a = *(const __u32 *)x, b = *(const __u32 *)y;

	return a < b ? -1 : a > b;
}

static __u32 host_v4(const uint8_t *a)
{
	return (__u32)a[0] << 24 | (__u32)a[1] << 16 | (__u32)a[2] << 8 | a[3];
}

static __u32 count_groups(const struct gen_table *g)
{
	__u32 *s24 = malloc((g->n ? g->n : 1) * sizeof(*s24)), k = 0, u = 0;
	size_t i;

	if (!s24)
		return 0;
	for (i = 0; i < g->n; i++)
		if (g->p[i].len > 24)
			s24[k++] = host_v4(g->p[i].addr) >> 8;
	qsort(s24, k, sizeof(*s24), cmp_u32);
	for (i = 0; i < k; i++)
		u += !i || s24[i] != s24[i - 1];
	free(s24);
	return u;
}

int vtab_make(struct vtab *v, size_t n, __u64 seed)
{
	struct gen_table g;
	double ns = 0;
	int err;

	memset(v, 0, sizeof(*v));
	v->n = n;
	v->trie = -1;
	err = gen_table(&g, 0, n, seed);
	if (err)
		return err;
	err = fill_batch(0, &g, &ns, &v->trie);
	v->spread = calloc(SPREAD_1M, 16);
	v->p = malloc(g.n * sizeof(*v->p));
	if (!err && (!v->spread || !v->p))
		err = -ENOMEM;
	if (!err) {
		gen_hot(&g, v->hot);
		gen_spread(&g, SPREAD_1M, seed, v->spread);
		v->groups_needed = count_groups(&g);
		memcpy(v->p, g.p, g.n * sizeof(*v->p));
		qsort(v->p, g.n, sizeof(*v->p), by_addr);
	}
	gen_free(&g);
	return err;
}

void vtab_free(struct vtab *v)
{
	if (v->n && v->trie >= 0)
		close(v->trie);
	free(v->p);
	free(v->spread);
}

/* As maps/table.c's cls_dir24_fill: one pass in address order. */
double paint(struct ctx *c, const struct vtab *v)
{
	struct dir24_fill f;
	double t0 = now_ns();
	size_t i;

	dir24_fill_begin(&f, &c->d, false);
	for (i = 0; i < v->n; i++)
		dir24_fill_add(&f, host_v4(v->p[i].addr), v->p[i].len,
			       v->p[i].class_idx + 1);
	dir24_fill_end(&f);
	return now_ns() - t0;
}

/* The table's inner map, made as maps/table.c makes it, and mapped. */
int map_dir24(struct ctx *c)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t entries = dir24_entries(true, c->dir24_groups);
	void *p;

	c->table_fd = cls_map_create(cls_slot_spec(CLS_S_TABLE_V4),
				     entries / CLS_DIR24_PER_ELEM);
	if (c->table_fd < 0)
		return c->table_fd;
	c->dir24_len = (entries * sizeof(__u32) + page - 1) / page * page;
	p = mmap(NULL, c->dir24_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		 c->table_fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	c->dir24_mem = p;
	return dir24_view(&c->d, p, entries);
}

/* skb->priority cls_egress gives a v4 packet to dst. */
static int prio_of(struct ctx *c, const uint8_t dst[16], __u32 *prio)
{
	return prog_prio(bpf_program__fd(c->cls->progs.cls_egress), 0, dst,
			 prio);
}

/* skb->priority program prog gives a v4 (v6) packet to dst. */
int prog_prio(int prog, int v6, const uint8_t dst[16], __u32 *prio)
{
	struct __sk_buff skb = {};
	__u8 pkt[128];
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = pkt,
		    .data_size_in = mk_pkt(pkt, v6, dst), .ctx_out = &skb,
		    .ctx_size_out = sizeof(skb));

	if (bpf_prog_test_run_opts(prog, &o))
		return -errno;
	*prio = skb.priority;
	return 0;
}

/* The table must answer as the trie does, or the numbers mean nothing. */
#define AGREE_DESTS 4096

/* Trie answers first, then the table's: a slot update waits for RCU. */
static int agree(struct ctx *c, const struct vtab *v)
{
	static __u32 trie[AGREE_DESTS];
	__u32 b, i;
	int err = use_table(c, false);

	for (i = 0; i < AGREE_DESTS && !err; i++)
		err = prio_of(c, v->spread[i * 97], &trie[i]);
	if (!err)
		err = use_table(c, true);
	for (i = 0; i < AGREE_DESTS && !err; i++) {
		err = prio_of(c, v->spread[i * 97], &b);
		if (!err && trie[i] != b) {
			fprintf(stderr, "progbench: N=%zu dest %u: trie %#x, "
					"table %#x\n", v->n, i * 97, trie[i], b);
			err = -EPROTO;
		}
	}
	return err;
}

static int vtab_install(struct ctx *c, const struct vtab *v, int round)
{
	__u32 zero = 0, i, e, in_groups = 0;
	double ns;
	int err;

	if (bpf_map_update_elem(bpf_map__fd(c->cls->maps.trie_v4), &zero,
				&v->trie, BPF_ANY))
		return -errno;
	err = load_dests(c, v->spread, SPREAD_1M, 4);
	if (err)
		return err;
	ns = paint(c, v);
	/* Those take a second memory read: the group. */
	for (i = 0; i < SPREAD; i++) {
		e = c->d.t[host_v4(v->spread[i]) >> 8];
		in_groups += (e & CLS_DIR24_GROUP_BIT) &&
			     e != CLS_DIR24_ASK_TRIE;
	}
	printf("{\"part\":\"table\",\"n\":%zu,\"round\":%d,\"groups\":%u,"
	       "\"groups_needed\":%u,\"used\":%u,\"ask_trie\":%u,"
	       "\"paint_ms\":%.1f,\"spread64k_in_groups\":%u}\n",
	       v->n, round, c->d.groups, v->groups_needed, c->d.hdr->used,
	       c->d.hdr->ask_trie, ns / 1e6, in_groups);
	return round == 0 ? agree(c, v) : 0;
}

enum tkase {
	T_EMPTY,
	T_TRIE_HOT,
	T_DIR24_HOT,
	T_TRIE_MISS,
	T_DIR24_MISS,
	T_FLOOR_64K,
	T_TRIE_64K,
	T_DIR24_64K,
	T_FLOOR_1M,
	T_TRIE_1M,
	T_DIR24_1M,
	T_READ_64K,
	T_LOOKUP_64K,
	T_MAX,
};

static const char *const tkase_name[T_MAX] = {
	"empty",	   "trie_hot",	      "dir24_hot",
	"trie_miss",	   "dir24_miss",      "spread64k_floor",
	"trie_spread64k",  "dir24_spread64k", "spread1m_floor",
	"trie_spread1m",   "dir24_spread1m",  "read_spread64k",
	"lookup_spread64k",
};

static int run_tcase(struct ctx *c, enum tkase k, const struct vtab *v,
		     __u32 repeat, __u32 *ns)
{
	int full = bpf_program__fd(c->cls->progs.cls_egress);
	int empty = bpf_program__fd(c->bench->progs.bench_empty);
	int spread = bpf_program__fd(c->bench->progs.bench_spread);
	int read = bpf_program__fd(c->bench->progs.bench_table_read);
	int lookup = bpf_program__fd(c->bench->progs.bench_table_lookup);
	int dir24 = k == T_DIR24_HOT || k == T_DIR24_MISS ||
		    k == T_DIR24_64K || k == T_DIR24_1M || k == T_READ_64K ||
		    k == T_LOOKUP_64K;
	uint8_t miss[16];
	__u8 pkt[128];
	size_t len;
	int err;

	gen_miss(0, miss);
	len = mk_pkt(pkt, 0,
		     k == T_TRIE_MISS || k == T_DIR24_MISS ? miss : v->hot);
	err = use_table(c, dir24);
	if (err)
		return err;
	switch (k) {
	case T_EMPTY:
		return test_run(empty, pkt, len, repeat, ns);
	case T_TRIE_HOT:
	case T_DIR24_HOT:
	case T_TRIE_MISS:
	case T_DIR24_MISS:
		return test_run(full, pkt, len, repeat, ns);
	case T_FLOOR_64K:
	case T_TRIE_64K:
	case T_DIR24_64K:
	case T_READ_64K:
	case T_LOOKUP_64K:
		c->bench->data->bench_mask = SPREAD - 1;
		/* Every destination equally often. */
		repeat = (repeat + SPREAD - 1) / SPREAD * SPREAD;
		break;
	default:
		/* The next `repeat` of the 1M cycle: none seen for 1M runs. */
		c->bench->data->bench_mask = SPREAD_1M - 1;
		break;
	}
	if (set_jmp(c, k == T_FLOOR_64K || k == T_FLOOR_1M ? empty :
		       k == T_READ_64K			 ? read :
		       k == T_LOOKUP_64K		 ? lookup :
							   full))
		return -errno;
	return test_run(spread, pkt, len, repeat, ns);
}

static int table_main(struct ctx *c, const struct opts *o)
{
	struct vtab v[MAX_SIZES] = {};
	int r, s, k, kk, err = 0;
	double t0;
	__u32 ns = 0;

	for (s = 0; s < o->nsizes && !err; s++) {
		t0 = now_ns();
		err = vtab_make(&v[s], o->sizes[s], o->seed);
		if (!err && v[s].groups_needed > c->dir24_groups)
			c->dir24_groups = v[s].groups_needed;
		if (!err)
			fprintf(stderr, "progbench: N=%zu ready in %.1f s\n",
				o->sizes[s], (now_ns() - t0) / 1e9);
	}
	if (o->groups)
		c->dir24_groups = o->groups;
	if (!c->dir24_groups)
		c->dir24_groups = 1;
	if (!err)
		err = setup(c);
	if (!err)
		err = map_dir24(c);
	for (r = 0; r < o->rounds && !err; r++) {
		for (s = 0; s < o->nsizes && !err; s++) {
			err = vtab_install(c, &v[s], r);
			for (kk = 0; kk < T_MAX && !err; kk++) {
				k = (kk + r + s) % T_MAX;
				err = run_tcase(c, k, &v[s], o->repeat, &ns);
				if (!err)
					printf("{\"part\":\"tprog\",\"n\":%zu,"
					       "\"case\":\"%s\",\"round\":%d,"
					       "\"ns\":%u}\n",
					       v[s].n, tkase_name[k], r, ns);
			}
		}
	}
	if (!err && c->bench->bss->bench_tail_fail) {
		fprintf(stderr, "progbench: %llu tail calls failed\n",
			(unsigned long long)c->bench->bss->bench_tail_fail);
		err = -EIO;
	}
	for (s = 0; s < MAX_SIZES; s++)
		vtab_free(&v[s]);
	if (c->dir24_mem)
		munmap(c->dir24_mem, c->dir24_len);
	if (c->table_fd > 0)
		close(c->table_fd);
	return err;
}

static int parse_sizes(struct opts *o, char *s)
{
	char *tok, *save = NULL;

	o->nsizes = 0;
	for (tok = strtok_r(s, ",", &save); tok && o->nsizes < MAX_SIZES;
	     tok = strtok_r(NULL, ",", &save))
		o->sizes[o->nsizes++] = strtoull(tok, NULL, 0);
	return o->nsizes ? 0 : -EINVAL;
}

static int parse_opts(struct opts *o, int argc, char **argv)
{
	int i;

	*o = (struct opts){.rounds = 5, .repeat = 100000, .seed = 1};
	o->sizes[0] = 10;
	o->sizes[1] = 1000;
	o->nsizes = 2;
	for (i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--sizes")) {
			if (parse_sizes(o, argv[i + 1]))
				return -EINVAL;
		} else if (!strcmp(argv[i], "--rounds")) {
			o->rounds = atoi(argv[i + 1]);
		} else if (!strcmp(argv[i], "--repeat")) {
			o->repeat = strtoul(argv[i + 1], NULL, 0);
		} else if (!strcmp(argv[i], "--groups")) {
			o->groups = strtoul(argv[i + 1], NULL, 0);
		} else if (!strcmp(argv[i], "--table")) {
			o->table = atoi(argv[i + 1]);
		} else if (!strcmp(argv[i], "--table6")) {
			o->table6 = atoi(argv[i + 1]);
		} else if (!strcmp(argv[i], "--seed")) {
			o->seed = strtoull(argv[i + 1], NULL, 0);
		} else {
			return -EINVAL;
		}
	}
	return i == argc ? 0 : -EINVAL;
}

int main(int argc, char **argv)
{
	struct table tb[MAX_SIZES] = {};
	struct ctx c = {};
	struct opts o;
	int r, s, v6, k, kk, err;
	__u32 ns = 0;

	if (parse_opts(&o, argc, argv)) {
		fprintf(stderr, "usage: progbench [--sizes N,N..] [--rounds R]"
				" [--repeat K] [--seed S] [--table 1 | --table6 1]"
				" [--groups G]\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	c.cpu = pin_cpu();
	if (o.table && c.cpu >= 0) {
		err = table_main(&c, &o);
		goto out;
	}
	if (o.table6 && c.cpu >= 0) {
		err = table6_main(&c, &o);
		goto out;
	}
	err = c.cpu < 0 ? c.cpu : setup(&c);
	if (err)
		goto out;
	probe_batch();
	for (s = 0; s < o.nsizes && !err; s++)
		err = build_table(&tb[s], o.sizes[s], o.seed);
	/* Rounds outermost, case order rotated, so drift hits all alike. */
	for (r = 0; r < o.rounds && !err; r++) {
		for (s = 0; s < o.nsizes && !err; s++) {
			for (v6 = 0; v6 < 2 && !err; v6++) {
				err = install(&c, &tb[s], v6);
				for (kk = 0; kk < K_MAX && !err; kk++) {
					k = (kk + r + s) % K_MAX;
					err = run_case(&c, k, v6, &tb[s],
						       o.repeat, &ns);
					if (err)
						break;
					printf("{\"part\":\"prog\",\"family\":"
					       "\"%s\",\"n\":%zu,\"case\":"
					       "\"%s\",\"round\":%d,\"ns\":%u}"
					       "\n",
					       v6 ? "v6" : "v4", tb[s].n,
					       kase_name[k], r, ns);
				}
			}
		}
	}
	if (!err && c.bench->bss->bench_tail_fail) {
		fprintf(stderr, "progbench: %llu tail calls failed\n",
			(unsigned long long)c.bench->bss->bench_tail_fail);
		err = -EIO;
	}
out:
	if (err)
		fprintf(stderr, "progbench: %s\n", strerror(-err));
	for (s = 0; s < MAX_SIZES; s++) {
		for (v6 = 0; v6 < 2; v6++) {
			if (tb[s].n && tb[s].trie[v6] >= 0)
				close(tb[s].trie[v6]);
			free(tb[s].spread[v6]);
		}
	}
	bench_bpf__destroy(c.bench);
	classifier_bpf__destroy(c.cls);
	return err ? 1 : 0;
}
