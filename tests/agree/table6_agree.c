// SPDX-License-Identifier: GPL-2.0-only
/*
 * The IPv6 table, the IPv6 trie and the loaded tc program agree with a
 * reference longest-prefix match, through the real user-space path:
 * pinned maps in a private bpffs, random route add / replace / del and
 * route loads through the maps library, with the table's room to spare
 * and with the table filled to the brim (tables built small on purpose,
 * so part of it asks the trie), and BPF_PROG_TEST_RUN on cls_egress for
 * the first and last address of every route, their neighbours, and
 * addresses inside every route.  Needs root.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/ipv6.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "loader/loader.h"
#include "maps/maps.h"
#include "tests/agree/agree.h"

#define MAX_ROUTES 12000

typedef unsigned __int128 u128;

struct route {
	u128 addr;
	unsigned int len;
	__u32 cls;
	bool live;
};

struct ctx {
	struct cls_maps m;
	bool deep; /* routes that each take a node per level */
	char root[PATH_MAX];
	int prog_fd;
	struct route r[MAX_ROUTES];
	size_t n;
	unsigned long checked, asked_trie;
};

static unsigned int passed, failed;

static u128 mask(unsigned int len)
{
	return len ? ~(u128)0 << (128 - len) : 0;
}

static void to_bytes(u128 a, __u8 out[16])
{
	int i;

	for (i = 15; i >= 0; i--, a >>= 8)
		out[i] = a & 0xff;
}

static struct route *best(struct ctx *c, u128 addr)
{
	struct route *b = NULL;
	size_t i;

	for (i = 0; i < c->n; i++)
		if (c->r[i].live && (addr & mask(c->r[i].len)) == c->r[i].addr &&
		    (!b || c->r[i].len > b->len))
			b = &c->r[i];
	return b;
}

static void to_prefix(struct cls_prefix *p, u128 addr, unsigned int len)
{
	memset(p, 0, sizeof(*p));
	p->family = AF_INET6;
	p->len = len;
	to_bytes(addr, p->addr);
}

/* The class the program gave a packet to addr, from skb->priority. */
static int prog_class(struct ctx *c, u128 addr, __u32 *cls)
{
	struct {
		struct ethhdr eth;
		struct ipv6hdr ip6;
		__u8 payload[16];
	} __attribute__((packed)) pkt = {
		.eth.h_proto = htons(ETH_P_IPV6),
		.ip6 = { .version = 6, .nexthdr = 17, .hop_limit = 64,
			 .payload_len = htons(16) },
	};
	struct __sk_buff skb = {};
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = &pkt,
		    .data_size_in = sizeof(pkt), .ctx_out = &skb,
		    .ctx_size_out = sizeof(skb));

	to_bytes(addr, pkt.ip6.daddr.s6_addr);
	if (bpf_prog_test_run_opts(c->prog_fd, &opts))
		return -errno;
	*cls = agree_class_of(skb.priority);
	return 0;
}

static int check_addr(struct ctx *c, u128 addr, char *why, size_t n)
{
	struct route *b = best(c, addr);
	__u32 want = b ? b->cls : 0, trie = 0, table = 0, prog = 0;
	struct cls_route match;
	struct cls_prefix p;
	char text[PREFIX_STRLEN];
	bool ask, found;
	int err;

	to_prefix(&p, addr, 128);
	err = cls_route_lookup(&c->m, &p, &match, &found);
	if (!err && found)
		trie = match.class_idx;
	if (!err)
		err = cls_table6_lookup(&c->m, p.addr, &table, &ask);
	if (!err)
		err = prog_class(c, addr, &prog);
	c->checked++;
	c->asked_trie += ask;
	if (err || trie != want || (!ask && table != want) || prog != want) {
		format_prefix(&p, text, sizeof(text));
		snprintf(why, n,
			 "%s: reference %u, trie %u, table %u%s, program %u (%d)",
			 text, want, trie, table, ask ? " (ask trie)" : "",
			 prog, err);
		return -1;
	}
	return 0;
}

static u128 rnd128(void)
{
	u128 v = 0;
	int i;

	for (i = 0; i < 8; i++)
		v = v << 16 | (rand() & 0xffff);
	return v;
}

/* Prefixes in a few /24s of 2001::/16, lengths as real tables have them. */
static void random_route(unsigned int *len, u128 *addr)
{
	static const unsigned int lens[] = { 24, 29, 32, 32, 36, 40, 44, 48,
					     48, 48, 48, 52, 56, 64, 96, 128 };
	static const u128 bases[] = { (u128)0x2001 << 112,
				      (u128)0x20010db8 << 96,
				      (u128)0x2a00 << 112 };

	*len = lens[rand() % (sizeof(lens) / sizeof(lens[0]))];
	*addr = (bases[rand() % 3] | (rnd128() >> 20)) & mask(*len);
}

/*
 * Long prefixes scattered over 2000::/3: each new one takes about a node
 * per level, so a few thousand fill a table's spare room.
 */
static void deep_route(unsigned int *len, u128 *addr)
{
	*len = 112 + rand() % 17;
	*addr = ((u128)1 << 125 | rnd128() >> 3) & mask(*len);
}

static int check_all(struct ctx *c, char *why, size_t n)
{
	size_t i;
	int k;

	for (i = 0; i < c->n; i++) {
		u128 lo = c->r[i].addr, hi = lo | ~mask(c->r[i].len);

		if (check_addr(c, lo, why, n) || check_addr(c, hi, why, n) ||
		    check_addr(c, lo - 1, why, n) ||
		    check_addr(c, hi + 1, why, n) ||
		    check_addr(c, lo | (rnd128() & ~mask(c->r[i].len)), why,
			       n))
			return -1;
	}
	for (k = 0; k < 2000; k++)
		if (check_addr(c, rnd128(), why, n))
			return -1;
	return 0;
}

static struct route *find(struct ctx *c, u128 addr, unsigned int len)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (c->r[i].live && c->r[i].addr == addr && c->r[i].len == len)
			return &c->r[i];
	return NULL;
}

static int random_op(struct ctx *c)
{
	struct cls_prefix p;
	struct route *r;
	unsigned int len;
	u128 addr;

	if (c->deep)
		deep_route(&len, &addr);
	else
		random_route(&len, &addr);
	r = find(c, addr, len);
	to_prefix(&p, addr, len);
	if (r && rand() % 3 == 0) {
		r->live = false;
		return cls_route_del(&c->m, &p);
	}
	if (!r) {
		if (c->n == (c->deep ? MAX_ROUTES : MAX_ROUTES / 4))
			return 0;
		r = &c->r[c->n++];
		*r = (struct route){ addr, len, 0, true };
	}
	r->cls = 1 + rand() % (AGREE_CLASSES - 1);
	return cls_route_set(&c->m, &p, r->cls, CLS_ROUTE_REPLACE);
}

/* A route load of the live routes. */
static int reload(struct ctx *c)
{
	struct cls_route *set = calloc(c->n + 1, sizeof(*set));
	size_t i, n = 0;
	int err;

	if (!set)
		return -ENOMEM;
	for (i = 0; i < c->n; i++)
		if (c->r[i].live) {
			to_prefix(&set[n].prefix, c->r[i].addr, c->r[i].len);
			set[n++].class_idx = c->r[i].cls;
		}
	err = agree_load(&c->m, set, n);
	free(set);
	return err;
}

/*
 * brim: after the first load, single adds of deep routes go on until the
 * table (sized for the load, with an eighth and 1024 units to spare, and
 * the rest of its last 4 MiB element) has no room; upkeep is not run, so
 * it stays full and asks the trie.
 */
static void scenario(const char *name, const char *bpffs, bool brim,
		     unsigned int seed, int ops)
{
	struct ctx *c = calloc(1, sizeof(*c));
	struct cls_table_info t = {};
	char why[256] = "";
	int err, i, check_every;

	srand(seed);
	if (c)
		cls_root_path(c->root, sizeof(c->root), bpffs);
	err = c ? agree_open(&c->m, bpffs, CLS_TABLE_ON, 0, &c->prog_fd) :
		  -ENOMEM;
	if (err)
		snprintf(why, sizeof(why), "setup: %s", strerror(-err));
	for (i = 0; !err && i < ops / 4; i++)
		err = random_op(c);
	if (!err && (err = reload(c)))
		snprintf(why, sizeof(why), "load: %s", strerror(-err));
	c->deep = brim;
	/* A check costs routes squared: the deep set is four times larger. */
	check_every = brim ? 4000 : 1000;
	for (i = 0; !err && i < ops; i++) {
		err = random_op(c);
		if (err)
			snprintf(why, sizeof(why), "route op: %s",
				 strerror(-err));
		else if (!brim && i % 500 == 499 && (err = agree_end_of_command(&c->m)))
			snprintf(why, sizeof(why), "upkeep: %s",
				 strerror(-err));
		if (!err && i % check_every == check_every - 1)
			err = check_all(c, why, sizeof(why));
	}
	if (!err)
		err = check_all(c, why, sizeof(why));
	if (!err && !(err = cls_table_info(&c->m, &t)) && brim &&
	    !t.v6.ask_trie) {
		snprintf(why, sizeof(why), "the table never ran out of room");
		err = -1;
	}
	if (!err && !brim && (err = reload(c)))
		snprintf(why, sizeof(why), "reload: %s", strerror(-err));
	if (!err && !brim)
		err = check_all(c, why, sizeof(why));
	if (err) {
		printf("FAIL %s: %s\n", name, why);
		failed++;
	} else {
		printf("ok %s (%lu addresses, %lu left to the trie, %zu of %zu units)\n",
		       name, c->checked, c->asked_trie, t.v6.used, t.v6.units);
		passed++;
	}
	if (c) {
		if (c->prog_fd > 0)
			close(c->prog_fd);
		cls_close(&c->m);
		cls_purge(c->root);
	}
	free(c);
}

static int run_all(const char *bpffs)
{
	scenario("table6_trie_program_agree_room_to_spare", bpffs, false, 1,
		 4000);
	scenario("table6_trie_program_agree_table_full", bpffs, true, 2, 12000);
	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}

int main(void)
{
	char bpffs[] = "/tmp/cls-agree6.XXXXXX";

	return agree_main(bpffs, run_all);
}
