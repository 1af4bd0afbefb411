// SPDX-License-Identifier: GPL-2.0-only
/*
 * The IPv4 DIR-24-8 table, the LPM trie and the loaded tc program agree
 * with a reference longest-prefix match, through the real user-space path:
 * pinned maps in a private bpffs, route add/replace/del and route loads
 * (whole-table transactions) through the maps library, and
 * BPF_PROG_TEST_RUN on cls_egress for every address checked (random ones
 * and both edges of every prefix, with their neighbours).  Run with groups
 * to spare, with groups exhausted, and with the table left to its auto
 * policy (off, then on past the threshold, grown when short).  Needs root.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "loader/loader.h"
#include "maps/maps.h"
#include "tests/agree/agree.h"

#define MAX_ROUTES 6000

struct route {
	__u32 addr; /* host order */
	unsigned int len;
	__u32 cls;
	bool live;
};

struct ctx {
	struct cls_maps m;
	char root[PATH_MAX];
	int prog_fd;
	struct route r[MAX_ROUTES];
	size_t n;
	unsigned long checked, asked_trie;
};

static unsigned int passed, failed;

static __u32 mask(unsigned int len)
{
	return len ? ~0U << (32 - len) : 0;
}

static struct route *best(struct ctx *c, __u32 addr)
{
	struct route *b = NULL;
	size_t i;

	for (i = 0; i < c->n; i++)
		if (c->r[i].live && (addr & mask(c->r[i].len)) == c->r[i].addr &&
		    (!b || c->r[i].len > b->len))
			b = &c->r[i];
	return b;
}

static void to_prefix(struct cls_prefix *p, __u32 addr, unsigned int len)
{
	__u32 be = htonl(addr);

	memset(p, 0, sizeof(*p));
	p->family = AF_INET;
	p->len = len;
	memcpy(p->addr, &be, 4);
}

/* The class the program gave a packet to addr, from skb->priority. */
static int prog_class(struct ctx *c, __u32 addr, __u32 *cls)
{
	struct {
		struct ethhdr eth;
		struct iphdr ip;
		__u8 payload[26];
	} __attribute__((packed)) pkt = {
		.eth.h_proto = htons(ETH_P_IP),
		.ip = { .version = 4, .ihl = 5, .ttl = 64, .protocol = 17,
			.tot_len = htons(sizeof(struct iphdr) + 26),
			.saddr = htonl(0xc6336401), .daddr = htonl(addr) },
	};
	struct __sk_buff skb = {};
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = &pkt,
		    .data_size_in = sizeof(pkt), .ctx_out = &skb,
		    .ctx_size_out = sizeof(skb));

	if (bpf_prog_test_run_opts(c->prog_fd, &opts))
		return -errno;
	*cls = agree_class_of(skb.priority);
	return 0;
}

static int check_addr(struct ctx *c, __u32 addr, char *why, size_t n)
{
	struct route *b = best(c, addr);
	__u32 want = b ? b->cls : 0, trie = 0, table = 0, prog = 0;
	struct cls_route match;
	struct cls_prefix p;
	bool ask, found;
	int err;

	to_prefix(&p, addr, 32);
	err = cls_route_lookup(&c->m, &p, &match, &found);
	if (!err && found)
		trie = match.class_idx;
	if (!err)
		err = cls_table_lookup(&c->m, addr, &table, &ask);
	if (!err)
		err = prog_class(c, addr, &prog);
	c->checked++;
	c->asked_trie += ask;
	if (err || trie != want || (!ask && table != want) || prog != want) {
		snprintf(why, n,
			 "%u.%u.%u.%u: reference %u, trie %u, table %u%s, program %u (%d)",
			 addr >> 24, addr >> 16 & 255, addr >> 8 & 255,
			 addr & 255, want, trie, table, ask ? " (ask trie)" : "",
			 prog, err);
		return -1;
	}
	return 0;
}

static __u32 random_addr(void)
{
	static const __u32 bases[] = { 0x0a000000, 0x0a010000, 0xc0a80000,
				       0x64400000, 0xac100000 };

	return bases[rand() % 5] | (rand() & 0x3ffff);
}

static unsigned int random_len(void)
{
	static const unsigned int lens[] = { 8,	 14, 16, 19, 22, 24, 24, 24,
					     24, 24, 25, 27, 30, 31, 32, 32 };

	return lens[rand() % (sizeof(lens) / sizeof(lens[0]))];
}

static int check_all(struct ctx *c, char *why, size_t n)
{
	size_t i;
	int k;

	for (i = 0; i < c->n; i++) {
		__u32 lo = c->r[i].addr, hi = lo | ~mask(c->r[i].len);

		if (check_addr(c, lo, why, n) || check_addr(c, hi, why, n) ||
		    check_addr(c, lo - 1, why, n) ||
		    check_addr(c, hi + 1, why, n))
			return -1;
	}
	for (k = 0; k < 30000; k++)
		if (check_addr(c, random_addr(), why, n))
			return -1;
	for (k = 0; k < 5000; k++)
		if (check_addr(c, (__u32)rand() << 1 ^ (__u32)rand(), why, n))
			return -1;
	return 0;
}

static struct route *find(struct ctx *c, __u32 addr, unsigned int len)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (c->r[i].live && c->r[i].addr == addr && c->r[i].len == len)
			return &c->r[i];
	return NULL;
}

/* One random add, replace or delete through the maps library. */
static int random_op(struct ctx *c)
{
	unsigned int len = random_len();
	__u32 addr = random_addr() & mask(len);
	struct route *r = find(c, addr, len);
	struct cls_prefix p;

	to_prefix(&p, addr, len);
	if (r && rand() % 3 == 0) {
		r->live = false;
		return cls_route_del(&c->m, &p);
	}
	if (!r) {
		if (c->n == MAX_ROUTES)
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

/* groups 0: the table's auto policy. */
static void scenario(const char *name, const char *bpffs, __u32 groups,
		     unsigned int seed, int ops)
{
	struct ctx *c = calloc(1, sizeof(*c));
	struct cls_table_info t = {};
	bool was_off = false;
	char why[256] = "";
	int err, i;

	srand(seed);
	if (c)
		cls_root_path(c->root, sizeof(c->root), bpffs);
	err = c ? agree_open(&c->m, bpffs, groups ? CLS_TABLE_ON : CLS_TABLE_AUTO,
			     groups, &c->prog_fd) :
		  -ENOMEM;
	if (err)
		snprintf(why, sizeof(why), "setup: %s", strerror(-err));
	for (i = 0; !err && i < ops; i++) {
		err = random_op(c);
		if (err)
			snprintf(why, sizeof(why), "route op: %s",
				 strerror(-err));
		else if (i % 1500 == 1499 && !groups &&
			 (err = agree_end_of_command(&c->m)))
			snprintf(why, sizeof(why), "upkeep: %s",
				 strerror(-err));
		/* Few routes yet: auto leaves IPv4 to the trie. */
		if (!err && !groups && i == 200 &&
		    !(err = agree_end_of_command(&c->m)) &&
		    !(err = cls_table_info(&c->m, &t)))
			was_off = !t.on;
		if (!err && i % 1500 == 1499) {
			err = cls_table_info(&c->m, &t);
			if (!err)
				err = check_all(c, why, sizeof(why));
		}
	}
	if (!err && (err = reload(c)))
		snprintf(why, sizeof(why), "reload: %s", strerror(-err));
	if (!err)
		err = check_all(c, why, sizeof(why));
	if (!err && groups && groups < 64 && !c->asked_trie) {
		snprintf(why, sizeof(why), "groups never ran out");
		err = -1;
	}
	if (!err && !groups && !(err = agree_end_of_command(&c->m)))
		err = cls_table_info(&c->m, &t);
	if (!err && !groups && (!was_off || !t.on || t.ask_trie)) {
		snprintf(why, sizeof(why),
			 "auto: was off %d, on at the end %d, %u /24s left to the trie",
			 was_off, t.on, t.ask_trie);
		err = -1;
	}
	if (err) {
		printf("FAIL %s: %s\n", name, why);
		failed++;
	} else {
		cls_table_info(&c->m, &t);
		printf("ok %s (%lu addresses, %lu left to the trie, %u of %u groups used)\n",
		       name, c->checked, c->asked_trie, t.used, t.groups);
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
	scenario("table_trie_program_agree_groups_to_spare", bpffs, 131072, 1,
		 4500);
	scenario("table_trie_program_agree_groups_exhausted", bpffs, 8, 2,
		 4500);
	scenario("table_trie_program_agree_auto_policy", bpffs, 0, 3, 9000);
	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}

int main(void)
{
	char bpffs[] = "/tmp/cls-agree.XXXXXX";

	return agree_main(bpffs, run_all);
}
