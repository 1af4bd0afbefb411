// SPDX-License-Identifier: GPL-2.0-only
/*
 * Is the pinned state whole?  Run after a change was interrupted and a
 * normal command followed (tests/netns/test_crash_points.sh):
 *   - no change is left in the journal;
 *   - the generation packets do not use holds no maps;
 *   - the counts in the state map are the routes the tries hold;
 *   - the tables are there if their policy says so, and agree with the
 *     tries on the edges of every IPv4 route, their neighbours, random
 *     addresses, and the addresses of IPv6 routes;
 *   - every attached tc program gives each of those addresses the
 *     priority (or drop) of the class the trie says (BPF_PROG_TEST_RUN);
 *   - counting is as expected.
 * It reads the journal straight from the pin, before the library (which
 * would finish what it finds) opens anything.
 *
 *   check_state BPFFS STATS_ON(0|1)     exit 0 and "ok ..." if whole
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/pkt_cls.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "loader/loader.h"
#include "maps/maps.h"

static char why[512];

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return -1;
}

static int pin_get(const char *root, const char *name)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/maps/%s", root, name);
	return bpf_obj_get(path);
}

/* Journal empty, spare slots empty: read before the library opens. */
static int raw_checks(const char *root)
{
	static const char *const outer[] = { "trie_v4", "trie_v6", "table_v4" };
	struct cls_config cfg;
	struct cls_state s;
	__u32 zero = 0, spare, id;
	int fd, i, bad;

	fd = pin_get(root, "state");
	if (fd < 0 || bpf_map_lookup_elem(fd, &zero, &s))
		return fail("state: %s", strerror(errno));
	close(fd);
	if (s.journal.op)
		return fail("journal still holds change %u (phase %u)",
			    s.journal.op, s.journal.phase);
	fd = pin_get(root, "config");
	if (fd < 0 || bpf_map_lookup_elem(fd, &zero, &cfg))
		return fail("config: %s", strerror(errno));
	close(fd);
	spare = !cfg.gen;
	for (i = 0; i < 3; i++) {
		fd = pin_get(root, outer[i]);
		if (fd < 0)
			return fail("%s: %s", outer[i], strerror(errno));
		bad = !bpf_map_lookup_elem(fd, &spare, &id);
		close(fd);
		if (bad)
			return fail("%s: generation %u's slot still holds map %u",
				    outer[i], spare, id);
	}
	return 0;
}

static int check_counts(struct cls_maps *m, const struct cls_route *r,
			size_t n)
{
	__u32 want[2][2] = {}, have[2][2];
	size_t i;
	int err;

	for (i = 0; i < n; i++)
		want[cls_family_slot(r[i].prefix.family)]
		    [!!(r[i].flags & CLS_ROUTE_SYNCED)]++;
	err = cls_route_counts(m, have);
	if (err)
		return fail("counts: %s", strerror(-err));
	if (memcmp(want, have, sizeof(want)))
		return fail("counts say v4 %u+%u v6 %u+%u, the tries hold v4 %u+%u v6 %u+%u",
			    have[0][0], have[0][1], have[1][0], have[1][1],
			    want[0][0], want[0][1], want[1][0], want[1][1]);
	return 0;
}

static int check_policy(struct cls_maps *m, size_t v4, size_t v6)
{
	struct cls_table_info t;
	int err = cls_table_info(m, &t);

	if (err)
		return fail("table: %s", strerror(-err));

	if (t.mode == CLS_TABLE_AUTO &&
	    ((v4 >= CLS_TABLE_AUTO_ROUTES && !t.on) ||
	     (v4 < CLS_TABLE_AUTO_ROUTES / 2 && t.on)))
		return fail("auto policy with %zu IPv4 routes, but the table is %s",
			    v4, t.on ? "on" : "off");
	if (t.mode == CLS_TABLE_AUTO &&
	    ((v6 >= CLS_TABLE_AUTO_ROUTES && !t.v6.on) ||
	     (v6 < CLS_TABLE_AUTO_ROUTES / 2 && t.v6.on)))
		return fail("auto policy with %zu IPv6 routes, but the table is %s",
			    v6, t.v6.on ? "on" : "off");
	if (t.mode != CLS_TABLE_AUTO && t.on != t.v6.on)
		return fail("policy %s, but IPv4 table %d and IPv6 table %d",
			    t.mode == CLS_TABLE_ON ? "on" : "off", t.on,
			    t.v6.on);
	return 0;
}

struct sample {
	struct cls_prefix a[8192];
	size_t n;
};

static void add(struct sample *s, const struct cls_prefix *p)
{
	if (s->n < sizeof(s->a) / sizeof(s->a[0]))
		s->a[s->n++] = *p;
}

/* Edges of routes and their neighbours, and random addresses. */
static void make_sample(struct sample *s, const struct cls_route *r, size_t n)
{
	size_t i, step = n > 1500 ? n / 1500 : 1;
	struct cls_prefix p;
	__u32 a, mask;
	int k;

	for (i = 0; i < n; i += step) {
		p = r[i].prefix;
		p.len = p.family == AF_INET ? 32 : 128;
		if (p.family == AF_INET6) {
			add(s, &p);
			continue;
		}
		memcpy(&a, p.addr, 4);
		a = ntohl(a);
		mask = r[i].prefix.len ? ~0U << (32 - r[i].prefix.len) : 0;
		__u32 edge[4] = { a, a | ~mask, a - 1, (a | ~mask) + 1 };

		for (k = 0; k < 4; k++) {
			__u32 be = htonl(edge[k]);

			memcpy(p.addr, &be, 4);
			add(s, &p);
		}
	}
	for (k = 0; k < 1000; k++) {
		__u32 be = (__u32)rand() << 1 ^ (__u32)rand();

		memset(&p, 0, sizeof(p));
		p.family = AF_INET;
		p.len = 32;
		memcpy(p.addr, &be, 4);
		add(s, &p);
	}
}

/* Priority (or -1: dropped) the attached program gives a packet to p. */
static int prog_answer(int prog, const struct cls_prefix *p, long *prio)
{
	__u8 pkt[128] = {};
	struct __sk_buff skb = {};
	size_t len;
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = pkt, .ctx_out = &skb,
		    .ctx_size_out = sizeof(skb));

	/* Built aside and copied in: at offset 14 they would be misaligned. */
	if (p->family == AF_INET) {
		struct iphdr ip = {.version = 4, .ihl = 5, .ttl = 64,
				   .protocol = IPPROTO_UDP,
				   .tot_len = htons(40)};

		pkt[12] = 0x08;
		memcpy(&ip.daddr, p->addr, 4);
		memcpy(pkt + ETH_HLEN, &ip, sizeof(ip));
		len = ETH_HLEN + 40;
	} else {
		struct ipv6hdr ip6 = {.version = 6, .payload_len = htons(8),
				      .hop_limit = 64,
				      .nexthdr = IPPROTO_UDP};

		pkt[12] = 0x86;
		pkt[13] = 0xdd;
		memcpy(&ip6.daddr, p->addr, 16);
		memcpy(pkt + ETH_HLEN, &ip6, sizeof(ip6));
		len = ETH_HLEN + 48;
	}
	o.data_size_in = len;
	if (bpf_prog_test_run_opts(prog, &o))
		return -errno;
	*prio = o.retval == TC_ACT_SHOT ? -1 : (long)skb.priority;
	return 0;
}

static long want_answer(struct cls_maps *m, __u32 idx)
{
	const struct cls_class_entry *e = cls_class_at(m, idx);

	if (!e)
		return 0;
	if (e->cls.flags & CLS_F_DROP)
		return -1;
	return e->cls.flags & CLS_F_PRIORITY ? (long)e->cls.classid : 0;
}

static int check_sample(struct cls_maps *m, const struct sample *s,
			const struct cls_attachment *a, size_t na,
			size_t *progs)
{
	char text[PREFIX_STRLEN];
	struct cls_route match;
	__u32 cls, host, idx;
	long got = 0, want;
	bool found, ask;
	size_t i, k;
	int err, fd;

	for (i = 0; i < s->n; i++) {
		err = cls_route_lookup(m, &s->a[i], &match, &found);
		if (err)
			return fail("lookup: %s", strerror(-err));
		idx = found ? match.class_idx : CLS_DEFAULT_CLASS;
		format_prefix(&s->a[i], text, sizeof(text));
		if (s->a[i].family == AF_INET) {
			memcpy(&host, s->a[i].addr, 4);
			err = cls_table_lookup(m, ntohl(host), &cls, &ask);
			if (err)
				return fail("table: %s", strerror(-err));
			if (!ask && cls != idx)
				return fail("%s: the table says class %u, the trie %u",
					    text, cls, idx);
		} else {
			err = cls_table6_lookup(m, s->a[i].addr, &cls, &ask);
			if (err)
				return fail("IPv6 table: %s", strerror(-err));
			if (!ask && cls != idx)
				return fail("%s: the IPv6 table says class %u, the trie %u",
					    text, cls, idx);
		}
		want = want_answer(m, idx);
		for (k = 0; k < na; k++) {
			if (a[k].hook != CLS_HOOK_EGRESS || a[k].defunct)
				continue;
			fd = bpf_prog_get_fd_by_id(a[k].prog_id);
			if (fd < 0)
				return fail("prog %u: %s", a[k].prog_id,
					    strerror(errno));
			err = prog_answer(fd, &s->a[i], &got);
			close(fd);
			if (err)
				return fail("test run: %s", strerror(-err));
			if (got != want)
				return fail("%s on %s: the program gives %ld, the trie's class %u wants %ld",
					    text, a[k].ifname, got, idx, want);
			if (!i)
				(*progs)++;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct cls_open_opts o = { .wait_ms = -1 };
	struct cls_attachment *a = NULL;
	struct sample *s = calloc(1, sizeof(*s));
	struct cls_route *r = NULL;
	size_t n = 0, na = 0, v4 = 0, i, progs = 0;
	char root[PATH_MAX];
	struct cls_maps m;
	bool on;
	int err;

	if (argc != 3 || !s) {
		fprintf(stderr, "usage: check_state BPFFS STATS_ON\n");
		return 2;
	}
	o.bpffs = argv[1];
	cls_root_path(root, sizeof(root), argv[1]);
	srand(1);
	err = raw_checks(root);
	if (!err && (err = cls_open(&m, &o)))
		fail("open: %s %s", strerror(-err), cls_open_error());
	if (err)
		goto out;
	err = cls_route_dump(&m, 0, CLS_SRC_ALL, &r, &n);
	if (err)
		fail("dump: %s", strerror(-err));
	for (i = 0; i < n; i++)
		v4 += r[i].prefix.family == AF_INET;
	if (!err)
		err = check_counts(&m, r, n);
	if (!err)
		err = check_policy(&m, v4, n - v4);
	if (!err && (err = cls_stats_get_enabled(&m, &on)))
		fail("config: %s", strerror(-err));
	if (!err && on != !!atoi(argv[2]))
		err = fail("counting is %s", on ? "on" : "off");
	if (!err && (err = cls_attachments(root, &a, &na)))
		fail("attachments: %s", strerror(-err));
	if (!err) {
		make_sample(s, r, n);
		err = check_sample(&m, s, a, na, &progs);
	}
	cls_close(&m);
out:
	if (err)
		printf("FAIL %s\n", why);
	else
		printf("ok: %zu routes, %zu addresses agree in trie, table and %zu program(s)\n",
		       n, s->n, progs);
	free(r);
	free(a);
	free(s);
	return err ? 1 : 0;
}
