// SPDX-License-Identifier: GPL-2.0-only
/*
 * The data path: every input is a frame run through the real programs
 * (BPF_PROG_TEST_RUN; root, the running kernel), cls_egress (tc) and
 * cls_ingress (XDP), with IPv4 looked up by the trie and then by the
 * DIR-24-8 table.  A model of the parser and the route table written here
 * says what each run must give: the verdict, the one counter slot that
 * grows (by exactly the packets run, bytes too; every counter of every
 * CPU summed grows by as much), skb priority and mark, and which bytes
 * may change (only the DSCP bits, and the IPv4 checksum by as much).
 * libFuzzer cannot see coverage inside BPF; the model parses as the
 * programs do, so its coverage stands in for theirs.
 *
 * Routes, classes and the table are set up in setup_maps() alone.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "classifier.skel.h"
#include "maps/dir24.h"
#include "maps/mbt6.h"
#include "tests/fuzz/fuzz.h"
#include "tests/prog/harness.h"

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

#define ETH_HLEN   14
#define TC_PASS	   (-1) /* TC_ACT_UNSPEC */
#define TC_SHOT	   2
#define NO_REASON  (-1)
#define MAX_REPEAT 3

/* Classes beyond tests/prog's defaults (valid, priority = test_classid). */
enum {
	C_DROP = 2,
	C_DSCP = 3,    /* AF41, and priority */
	C_MARK = 4,    /* mark, and priority */
	C_BOTH = 5,    /* EF and mark, no priority */
	C_INVALID = 6, /* a slot not in use: counted, nothing applied */
	C_OUT_OF_RANGE = FIX_CAP + 904, /* read as the default */
};

static const struct {
	__u32 idx;
	struct cls_class cls;
} special[] = {
	{C_DROP, {.flags = CLS_F_VALID | CLS_F_DROP}},
	{C_DSCP,
	 {.flags = CLS_F_VALID | CLS_F_PRIORITY | CLS_F_DSCP, .dscp = 34}},
	{C_MARK,
	 {.flags = CLS_F_VALID | CLS_F_PRIORITY | CLS_F_MARK, .mark = 0x20}},
	{C_BOTH,
	 {.flags = CLS_F_VALID | CLS_F_MARK | CLS_F_DSCP,
	  .mark = 0x5,
	  .dscp = 46}},
	{C_INVALID, {.flags = 0}},
};
#define N_SPECIAL (sizeof(special) / sizeof(special[0]))

/* Nested, so the longest match matters; the decoys are tests/prog's. */
static const struct {
	const char *prefix;
	__u32 idx;
} route_text[] = {
	{"10.0.0.0/8", 1},
	{"10.1.0.0/16", C_DROP},
	{"10.1.2.0/24", C_DSCP},
	{"10.1.2.128/25", C_MARK},
	{"10.1.2.192/28", C_BOTH},
	{"172.16.0.0/12", C_INVALID},
	{"198.51.100.0/24", C_OUT_OF_RANGE},
	{"203.0.113.7/32", 7},
	{TEST_DECOY_V4 "/32", TEST_DECOY_CLASS},
	{TEST_DECOY_L3_V4 "/32", TEST_DECOY_CLASS},
	{"2001:db8::/32", 1},
	{"2001:db8:1::/48", C_DROP},
	{"2001:db8:1:2::/64", C_DSCP},
	{"2001:db8:1:2::80/121", C_MARK},
	{"2001:db8:1:2::c0/124", C_BOTH},
	{"fc00::/7", C_INVALID},
	{"64:ff9b::/96", C_OUT_OF_RANGE},
	{TEST_DECOY_V6 "/128", TEST_DECOY_CLASS},
	{TEST_DECOY_L3_V6 "/128", TEST_DECOY_CLASS},
};
#define N_ROUTES (sizeof(route_text) / sizeof(route_text[0]))

static struct fix fix;
static struct cls_prefix routes[N_ROUTES];
static struct cls_class classes[TEST_CLASSES];
static __u64 total_packets; /* every counter of every CPU, as expected */

/*
 * Generation 0 holds the tries alone; generation 1 the same tries and the
 * IPv4 and IPv6 tables painted from the same routes, as the maps library
 * paints them.  Switching config.gen picks one per run without the RCU
 * wait of a map-in-map update.
 */
enum { GEN_TRIES = 0, GEN_TABLES = 1 };

static int slot_set(struct t *t, struct bpf_map *outer, __u32 slot, int fd)
{
	if (bpf_map_update_elem(bpf_map__fd(outer), &slot, &fd, BPF_ANY))
		return fail(t, "%s[%u]: %s", bpf_map__name(outer), slot,
			    strerror(errno));
	return 0;
}

static int paint_tables(struct t *t)
{
	struct fix *f = t->f;
	__u32 gen0 = GEN_TRIES, addr;
	struct dir24 d;
	struct mbt6 m;
	size_t i;

	if (dir24_view(&d, f->dir24, TEST_DIR24_ENTRIES) || v6table(t, &m))
		return fail(t, "table views");
	dir24_clear(&d);
	for (i = 0; i < N_ROUTES; i++) {
		const struct cls_prefix *r = &routes[i];

		memcpy(&addr, r->addr, 4);
		if (r->family == AF_INET)
			dir24_paint(&d, ntohl(addr), r->len, route_text[i].idx);
		/* The library never has a class index past the array. */
		else if (route_text[i].idx < FIX_CAP &&
			 mbt6_add(&m, r->addr, r->len, route_text[i].idx))
			return fail(t, "IPv6 table: %s", route_text[i].prefix);
	}
	if (d.hdr->ask_trie || m.hdr->ask_trie)
		return fail(t, "a table left routes to the trie");
	/* v6table() put the IPv6 table in generation 0. */
	if (bpf_map_delete_elem(bpf_map__fd(f->skel->maps.table_v6), &gen0))
		return fail(t, "table_v6[0]: %s", strerror(errno));
	return slot_set(t, f->skel->maps.table_v6, GEN_TABLES, f->table6) ||
	       set_table6_format(t, GEN_TABLES, MBT6_FORMAT) ||
	       use_table(t, GEN_TABLES) ||
	       slot_set(t, f->skel->maps.trie_v4, GEN_TABLES, f->trie_v4) ||
	       slot_set(t, f->skel->maps.trie_v6, GEN_TABLES, f->trie_v6);
}

/*
 * Everything the programs read.  With tests/prog/harness.c under it, the
 * one place to change when the map layout does.
 */
static int setup_maps(struct fix *f, struct t *t)
{
	size_t i;
	int err;

	err = fix_open(f);
	if (!err)
		err = fix_reset(f);
	if (err)
		return err;
	for (i = 0; i < TEST_CLASSES; i++)
		classes[i] = (struct cls_class){
			.flags = CLS_F_VALID | CLS_F_PRIORITY,
		};
	for (i = 0; i < N_SPECIAL; i++)
		classes[special[i].idx] = special[i].cls;
	for (i = 0; i < TEST_CLASSES; i++) {
		classes[i].classid = test_classid(i);
		if (class_set(t, i, &classes[i]))
			return -EINVAL;
	}
	for (i = 0; i < N_ROUTES; i++) {
		if (parse_prefix(route_text[i].prefix, &routes[i], NULL))
			return -EINVAL;
		if (route_add(t, route_text[i].prefix, route_text[i].idx))
			return -EINVAL;
	}
	return paint_tables(t) ? -EINVAL : 0;
}

/* ---- the model ---- */

struct expect {
	int reason; /* enum cls_reason, or NO_REASON */
	__u32 idx;  /* the class, when no reason */
	int family;
	size_t l3_off;
};

static __u16 be16(const __u8 *b)
{
	return b[0] << 8 | b[1];
}

/* The longest match, as the trie and the table must both answer. */
static __u32 lookup(int family, const __u8 *addr)
{
	__u32 idx = CLS_DEFAULT_CLASS;
	int best = -1, b;
	size_t i;

	for (i = 0; i < N_ROUTES; i++) {
		if (routes[i].family != family || routes[i].len <= best)
			continue;
		for (b = 0; b < routes[i].len; b++)
			if ((routes[i].addr[b / 8] ^ addr[b / 8]) &
			    (0x80 >> (b % 8)))
				break;
		if (b < routes[i].len)
			continue;
		best = routes[i].len;
		idx = route_text[i].idx;
	}
	return idx < FIX_CAP ? idx : CLS_DEFAULT_CLASS;
}

/*
 * The fixed IP header at off, of the protocol proto: what every program
 * does from there.  The address decides; nothing after the fixed header
 * (IPv4 options, IPv6 extension headers) is read, whatever it says.
 */
static void model_ip(const __u8 *d, size_t len, size_t off, __u16 proto,
		     bool dst, struct expect *e)
{
	size_t hlen = proto == 0x0800 ? 20 : 40;
	int version = proto == 0x0800 ? 4 : 6;

	e->l3_off = off;
	if (proto != 0x0800 && proto != 0x86dd) {
		e->reason = CLS_R_NOT_IP;
		return;
	}
	e->family = version == 4 ? AF_INET : AF_INET6;
	if (off + hlen > len)
		e->reason = CLS_R_TRUNCATED;
	else if (d[off] >> 4 != version)
		e->reason = CLS_R_MALFORMED;
	else if (version == 4)
		e->idx = lookup(AF_INET, d + off + (dst ? 16 : 12));
	else
		e->idx = lookup(AF_INET6, d + off + (dst ? 24 : 8));
}

/*
 * What a program does with the packet d[0, len): an Ethernet one reads
 * the frame's own type; of the L3 ones, tc takes skb->protocol, which a
 * test run reads from bytes 12-13 (eth_type_trans(): below 0x600 they are
 * an 802.3 length, not IP), and XDP the version.  By the destination for
 * tc, by the source for XDP.
 */
static void model(const __u8 *d, size_t len, enum hook hook, struct expect *e)
{
	bool dst = hook & (HOOK_TC | HOOK_TC_L3);
	size_t off = ETH_HLEN;
	__u16 proto = be16(d + 12);
	int i;

	memset(e, 0, sizeof(*e));
	e->reason = NO_REASON;
	if (hook & (HOOK_TC_L3 | HOOK_XDP_L3)) {
		if (hook == HOOK_XDP_L3)
			proto = d[0] >> 4 == 4	 ? 0x0800
				: d[0] >> 4 == 6 ? 0x86dd
						 : 0;
		model_ip(d, len, 0, proto, dst, e);
		return;
	}
	for (i = 0; i < CLS_MAX_VLAN_TAGS; i++) {
		if (proto != 0x8100 && proto != 0x88a8)
			break;
		if (off + 4 > len) {
			e->reason = CLS_R_TRUNCATED;
			return;
		}
		proto = be16(d + off + 2);
		off += 4;
	}
	model_ip(d, len, off, proto, dst, e);
}

/* ---- the checks ---- */

/*
 * Loops over every counter and byte: without coverage callbacks, or they
 * take most of the time, and their branches tell the fuzzer nothing.
 */
#define NO_COVERAGE __attribute__((no_sanitize("coverage")))

static NO_COVERAGE __u64 all_packets(const struct fix *f)
{
	size_t i, n = (size_t)f->ncpus * CLS_STATS_STRIDE(FIX_CAP);
	__u64 sum = 0;

	for (i = 0; i < n; i++)
		sum += f->stats[i].packets;
	return sum;
}

/* in and out differ at most at offsets skip[0..n). */
static NO_COVERAGE bool same_except(const struct pkt *in, const struct run *r,
				    const size_t *skip, int n)
{
	size_t i;
	int k;

	for (i = 0; i < in->len; i++) {
		for (k = 0; k < n && skip[k] != i; k++)
			;
		if (k == n && in->buf[i] != r->out.buf[i])
			return false;
	}
	return true;
}

/* The DSCP bits changed, ECN kept; for IPv4 the checksum still adds up. */
static int check_dscp(struct t *t, const struct pkt *in, const struct run *r,
		      const struct expect *e, __u8 dscp)
{
	const __u8 *a = in->buf + e->l3_off, *b = r->out.buf + e->l3_off;
	size_t l3 = e->l3_off, v6_skip[] = {l3, l3 + 1},
	       v4_skip[] = {l3 + 1, l3 + 10, l3 + 11};

	if (e->family == AF_INET6) {
		CHECK(t,
		      b[0] == ((a[0] & 0xf0) | dscp >> 2) &&
			      b[1] == (((dscp & 3) << 6) | (a[1] & 0x3f)),
		      "IPv6 traffic class %02x%02x, want DSCP %u", b[0], b[1],
		      dscp);
		CHECK(t, same_except(in, r, v6_skip, 2),
		      "bytes besides the traffic class changed");
		return 0;
	}
	CHECK(t, b[1] == ((dscp << 2) | (a[1] & 3)),
	      "IPv4 TOS %02x, want DSCP %u", b[1], dscp);
	CHECK(t, same_except(in, r, v4_skip, 3),
	      "bytes besides TOS and checksum changed");
	/* Over the fixed header, whatever IHL says: the sum stays. */
	CHECK(t, pkt_ipv4_csum(a, 20) == pkt_ipv4_csum(b, 20),
	      "IPv4 checksum not updated with the TOS");
	return 0;
}

static int check_output(struct t *t, const struct pkt *in, const struct run *r,
			const struct expect *e)
{
	const struct cls_class *cls = NULL;
	bool drop;

	if (e->reason == NO_REASON && e->idx < TEST_CLASSES &&
	    (classes[e->idx].flags & CLS_F_VALID))
		cls = &classes[e->idx];
	drop = cls && (cls->flags & CLS_F_DROP);
	if (!hook_is_tc(t)) {
		CHECK(t, r->verdict == (drop ? XDP_DROP : XDP_PASS),
		      "XDP verdict %d, want %s", r->verdict,
		      drop ? "XDP_DROP" : "XDP_PASS");
		CHECK(t,
		      r->out.len == in->len &&
			      !memcmp(r->out.buf, in->buf, in->len),
		      "XDP changed the frame");
		return 0;
	}
	CHECK(t, r->verdict == (drop ? TC_SHOT : TC_PASS),
	      "tc verdict %d, want %s", r->verdict,
	      drop ? "TC_ACT_SHOT" : "TC_ACT_UNSPEC");
	CHECK(t, r->out.len == in->len, "tc changed the length to %zu",
	      r->out.len);
	if (drop)
		return 0;
	CHECK(t,
	      r->skb.priority ==
		      (cls && (cls->flags & CLS_F_PRIORITY) ? cls->classid : 0),
	      "priority %#x", r->skb.priority);
	CHECK(t,
	      r->skb.mark == (cls && (cls->flags & CLS_F_MARK) ? cls->mark : 0),
	      "mark %#x", r->skb.mark);
	if (cls && (cls->flags & CLS_F_DSCP))
		return check_dscp(t, in, r, e, cls->dscp);
	CHECK(t, !memcmp(r->out.buf, in->buf, in->len), "tc changed the frame");
	return 0;
}

/*
 * The kernel's test run refuses an untagged IPv4 or IPv6 skb shorter than
 * its IP header (tests/prog works around it with a VLAN tag); real skbs
 * that short never reach tc egress.  XDP takes any frame.
 */
static bool kernel_runs(const struct t *t, const struct pkt *in)
{
	__u16 proto = be16(in->buf + 12);

	if (!hook_is_tc(t))
		return true;
	return !(proto == 0x0800 && in->len < ETH_HLEN + 20) &&
	       !(proto == 0x86dd && in->len < ETH_HLEN + 40);
}

/* Runs the frame repeat times through this hook; checks all of the above. */
static int run_checked(struct t *t, const struct pkt *in, __u32 repeat)
{
	struct cls_counter before, after;
	struct expect e;
	struct run r;
	__u32 slot;
	int err;

	if (!kernel_runs(t, in))
		return 0;
	model(in->buf, in->len, t->hook, &e);
	slot = e.reason == NO_REASON
		       ? class_slot(t, e.idx)
		       : CLS_STATS_REASON_BASE(FIX_CAP) + e.reason;
	for (;;) {
		before = counter(t, t->f->cpu, slot);
		err = run_pkt_n(t, in, repeat, &r);
		if (err != -EINTR)
			break;
		/* libFuzzer's timer signal cut the repeats short: again. */
		total_packets = all_packets(t->f);
	}
	if (err)
		return -1;
	after = counter(t, t->f->cpu, slot);
	total_packets += repeat;
	CHECK(t, after.packets - before.packets == repeat,
	      "slot %u (%s %d) counted %llu packets, want %u", slot,
	      e.reason == NO_REASON ? "class" : "reason",
	      e.reason == NO_REASON ? (int)e.idx : e.reason,
	      (unsigned long long)(after.packets - before.packets), repeat);
	CHECK(t, after.bytes - before.bytes == (__u64)repeat * in->len,
	      "slot %u counted %llu bytes, want %zu", slot,
	      (unsigned long long)(after.bytes - before.bytes),
	      repeat * in->len);
	CHECK(t, all_packets(t->f) == total_packets,
	      "all counters add up to %llu packets, want %llu",
	      (unsigned long long)all_packets(t->f),
	      (unsigned long long)total_packets);
	return check_output(t, in, &r, &e);
}

static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level == LIBBPF_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

/*
 * A BPF_PROG_TEST_RUN of an XDP program puts it into the kernel's XDP
 * dispatcher and takes it out again, ~30 ms of RCU waits per run, unless
 * the program is in it already: so attach both XDP programs (driver mode)
 * to the two ends of a veth in a network namespace of our own, which goes
 * away with the process.
 */
static int hold_xdp_dispatcher(struct fix *f)
{
	struct bpf_program *prog[2] = {f->skel->progs.cls_ingress,
				       f->skel->progs.cls_ingress_l3};
	static const char *const dev[2] = {"fuzz0", "fuzz1"};
	int ifindex, i, err;

	if (unshare(CLONE_NEWNET))
		return -errno;
	if (system("ip link add fuzz0 type veth peer name fuzz1"))
		return -ENODEV;
	for (i = 0; i < 2; i++) {
		ifindex = if_nametoindex(dev[i]);
		if (!ifindex)
			return -errno;
		err = bpf_xdp_attach(ifindex, bpf_program__fd(prog[i]),
				     XDP_FLAGS_DRV_MODE, NULL);
		if (err)
			return err;
	}
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct t t = {.f = &fix};
	int err;

	(void)argc;
	(void)argv;
	if (geteuid()) {
		fprintf(stderr,
			"fuzz packet: needs root (BPF_PROG_TEST_RUN)\n");
		exit(1);
	}
	libbpf_set_print(quiet);
	err = setup_maps(&fix, &t);
	if (err) {
		fprintf(stderr, "fuzz packet: setting up the maps: %s\n",
			t.why[0] ? t.why : strerror(-err));
		exit(1);
	}
	err = hold_xdp_dispatcher(&fix);
	if (err) {
		fprintf(stderr, "fuzz packet: attaching XDP to a veth: %s\n",
			strerror(-err));
		exit(1);
	}
	total_packets = all_packets(&fix);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const __u32 gens[] = {GEN_TRIES, GEN_TABLES};
	static const struct {
		enum hook hook;
		const char *name;
	} hooks[] = {
		{HOOK_TC, "tc"},
		{HOOK_XDP, "XDP"},
		{HOOK_TC_L3, "tc (L3)"},
		{HOOK_XDP_L3, "XDP (L3)"},
	};
	struct t t = {.f = &fix};
	struct pkt p;
	int m, h;

	/* The kernel refuses frames shorter than Ethernet. */
	if (size < ETH_HLEN || size > sizeof(p.buf))
		return 0;
	memset(&p, 0, sizeof(p));
	memcpy(p.buf, data, size);
	p.len = size;
	for (m = 0; m < 2; m++) {
		if (set_gen(&t, gens[m]))
			fuzz_fail("%s", t.why);
		for (h = 0; h < 4; h++) {
			t.hook = hooks[h].hook;
			if (run_checked(&t, &p, 1 + size % MAX_REPEAT))
				fuzz_fail("%s, %s lookup: %s", hooks[h].name,
					  m ? "table" : "trie", t.why);
		}
	}
	return 0;
}

/* ---- a mutator that knows frames ---- */

static __u64 rnd(__u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* An address in a route, just outside one, or anywhere. */
static void pick_addr(int family, __u8 *addr, __u64 *rs)
{
	int bytes = family == AF_INET ? 4 : 16, i, len;
	const struct cls_prefix *r;

	do
		r = &routes[rnd(rs) % N_ROUTES];
	while (r->family != family);
	for (i = 0; i < bytes; i++)
		addr[i] = rnd(rs);
	if (rnd(rs) % 8 == 0)
		return;
	len = r->len;
	for (i = 0; i < len; i++) {
		__u8 bit = 0x80 >> (i % 8);

		addr[i / 8] = (addr[i / 8] & ~bit) | (r->addr[i / 8] & bit);
	}
	if (len && rnd(rs) % 4 == 0)
		addr[(len - 1) / 8] ^= 0x80 >> ((len - 1) % 8);
}

/* IPv4 with n option words of NOP, EOL or noise after the header. */
static int put_ipv4(struct pkt *p, int n, __u64 *rs)
{
	size_t l3 = p->l3_off, i;
	__u8 *h;

	if (pkt_ipv4(p, "0.0.0.0", "0.0.0.0", rnd(rs)) || !pkt_put(p, 4 * n))
		return -ENOSPC;
	h = p->buf + l3;
	memmove(h + 20 + 4 * n, h + 20, p->len - l3 - 20 - 4 * n);
	for (i = 0; i < 4 * (size_t)n; i++)
		h[20 + i] = rnd(rs) % 3 ? 1 : rnd(rs) % 2 ? 0 : rnd(rs);
	h[0] = 0x45 + n;
	pick_addr(AF_INET, h + 12, rs);
	pick_addr(AF_INET, h + 16, rs);
	h[10] = h[11] = 0;
	i = pkt_ipv4_csum(h, 20 + 4 * n);
	h[10] = i >> 8;
	h[11] = i;
	return 0;
}

/*
 * IPv6 with up to MAX_EXTS extension headers (older builds walked 8 and
 * passed longer chains unclassified).
 */
#define MAX_EXTS 10
static int put_ipv6(struct pkt *p, __u64 *rs)
{
	static const __u8 kinds[] = {0, 43, 44, 51, 60};
	__u8 exts[MAX_EXTS];
	int n = rnd(rs) % (MAX_EXTS + 1), i;
	__u8 *h = p->buf + p->l3_off;

	for (i = 0; i < n; i++)
		exts[i] = kinds[rnd(rs) % sizeof(kinds)];
	if (pkt_ipv6(p, "::", "::", rnd(rs), exts, n))
		return -ENOSPC;
	pick_addr(AF_INET6, h + 8, rs);
	pick_addr(AF_INET6, h + 24, rs);
	return 0;
}

/*
 * An L3 packet that a tc test run takes for IP: bytes 12-13 (in the
 * source address) read as its Ethernet type.
 */
static void l3_for_tc(struct pkt *p, bool v4)
{
	p->buf[12] = v4 ? 0x08 : 0x86;
	p->buf[13] = v4 ? 0x00 : 0xdd;
}

/*
 * A whole frame: 0-3 VLAN tags, then IPv4, IPv6 or not IP; or one in four
 * an L3 packet (no link header); maybe cut.
 */
static size_t new_frame(uint8_t *data, size_t max_size, __u64 *rs)
{
	static const __u16 not_ip[] = {0x0806, 0x88cc, 0x8847, 0x0000};
	__u16 tpids[3];
	int ntags = rnd(rs) % 4, kind = rnd(rs) % 8, i, err = 0;
	bool l3 = rnd(rs) % 4 == 0;
	struct pkt p;

	for (i = 0; i < ntags; i++)
		tpids[i] = rnd(rs) % 2 ? 0x8100 : 0x88a8;
	if (l3)
		pkt_l3(&p);
	else
		pkt_eth(&p, tpids, ntags,
			kind < 3   ? 0x0800
			: kind < 6 ? 0x86dd
				   : not_ip[rnd(rs) % 4]);
	if (kind < 3)
		err = put_ipv4(&p, rnd(rs) % 3 ? 0 : rnd(rs) % 11, rs);
	else if (kind < 6)
		err = put_ipv6(&p, rs);
	else if (l3 && !pkt_put(&p, 20 + rnd(rs) % 60))
		err = -ENOSPC;
	if (err)
		return 0;
	if (l3 && kind < 6 && rnd(rs) % 2)
		l3_for_tc(&p, kind < 3);
	if (rnd(rs) % 4 == 0)
		p.len = ETH_HLEN + rnd(rs) % (p.len - ETH_HLEN + 1);
	if (p.len > max_size)
		return 0;
	memcpy(data, p.buf, p.len);
	return p.len;
}

/* Points the frame's source or destination into (or next to) a route. */
static size_t readdress(uint8_t *data, size_t size, __u64 *rs)
{
	static const enum hook as[] = {HOOK_TC, HOOK_XDP, HOOK_TC_L3,
				       HOOK_XDP_L3};
	enum hook hook = as[rnd(rs) % 4];
	bool dst = hook & (HOOK_TC | HOOK_TC_L3);
	struct expect e;

	if (size < ETH_HLEN || size > PKT_MAX)
		return size;
	model(data, size, hook, &e);
	if (e.family == AF_INET && e.l3_off + 20 <= size)
		pick_addr(AF_INET, data + e.l3_off + (dst ? 16 : 12), rs);
	else if (e.family == AF_INET6 && e.l3_off + 40 <= size)
		pick_addr(AF_INET6, data + e.l3_off + (dst ? 24 : 8), rs);
	return size;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size,
			       unsigned int seed)
{
	__u64 rs = seed | (__u64)seed << 32 | 1;
	size_t n;

	switch (rnd(&rs) % 8) {
	case 0:
		n = new_frame(data, max_size, &rs);
		if (n)
			return n;
		break;
	case 1:
		return readdress(data, size, &rs);
	}
	return LLVMFuzzerMutate(data, size, max_size);
}
