// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sync engine's reconcile logic against the in-memory applier
 * (tests/sync/mem_applier.c): initial swap, events, resync by diff,
 * restarts, precedence of hand routes, route selection across tables and
 * metrics, IPv4 aliases and IPv6 multipath, errors, what other processes
 * change between batches.  This tests the engine, not classifier's maps:
 * the applier over the maps (cli/cmd_sync.c) is tested by tests/sync/.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include <cmocka.h>

#include "sync/engine.h"
#include "tests/sync/mem_applier.h"
#include "tests/sync/troute.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define NONE	      0xffffffffU
#define C(maj, min)   ((maj) << 16 | (min))

struct fx {
	struct mem_applier m;
	struct sync_applier a;
	struct sync_engine *e;
};

static void set_rules(struct fx *f, const char *const *rules, size_t n)
{
	struct sync_rules rs;
	char err[SYNC_ERR_LEN];
	size_t i;

	sync_rules_init(&rs);
	for (i = 0; i < n; i++) {
		char buf[256], *argv[32];
		int argc;

		snprintf(buf, sizeof(buf), "%s", rules[i]);
		argc = split_args(buf, argv, 32);
		if (sync_rules_parse_args(&rs, argc, argv, "test", i + 1, err,
					  sizeof(err)))
			fail_msg("%s", err);
	}
	assert_int_equal(sync_rules_resolve(&rs, f->a.resolve, f->a.ctx, "test",
					    err, sizeof(err)),
			 0);
	assert_int_equal(sync_engine_set_rules(f->e, &rs), 0);
}

static struct fx *fx_new(const char *const *rules, size_t n)
{
	static struct fx f;

	memset(&f, 0, sizeof(f));
	mem_applier_init(&f.m);
	mem_applier_ops(&f.m, &f.a);
	assert_int_equal(sync_engine_new(&f.a, 100, &f.e), 0);
	set_rules(&f, rules, n);
	return &f;
}

/* A second engine over the same applier: the daemon restarted. */
static void fx_restart(struct fx *f, const char *const *rules, size_t n)
{
	sync_engine_free(f->e);
	assert_int_equal(sync_engine_new(&f->a, 100, &f->e), 0);
	set_rules(f, rules, n);
}

static void fx_free(struct fx *f)
{
	sync_engine_free(f->e);
	mem_applier_free(&f->m);
}

static struct kroute *kr(const char *text)
{
	static struct kroute k;

	if (troute(text, &k))
		fail_msg("bad test route: %s", text);
	return &k;
}

static void add_all(struct fx *f, const char *const *routes, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		assert_int_equal(sync_engine_resync_add(f->e, kr(routes[i])),
				 0);
}

static void resync(struct fx *f, const char *const *routes, size_t n)
{
	assert_int_equal(sync_engine_resync_begin(f->e), 0);
	add_all(f, routes, n);
	assert_int_equal(sync_engine_resync_end(f->e, "test", 0), 0);
}

static void ev(struct fx *f, bool del, __u16 flags, const char *route)
{
	sync_engine_route(f->e, del, flags, kr(route), 1);
}

#define NEW(f, r)     ev(f, false, NLM_F_CREATE | NLM_F_EXCL, r)
#define APPEND(f, r)  ev(f, false, NLM_F_CREATE | NLM_F_APPEND, r)
#define REPLACE(f, r) ev(f, false, NLM_F_REPLACE, r)
#define DEL(f, r)     ev(f, true, 0, r)

static void commit(struct fx *f)
{
	assert_int_equal(sync_engine_commit(f->e), 0);
}

/* The applier holds p with this class (NONE: nothing), by hand or not. */
static void expect(const struct fx *f, const char *prefix, __u32 class_idx,
		   bool hand)
{
	struct cls_prefix p;
	__u32 got;
	bool got_hand;

	assert_int_equal(parse_prefix(prefix, &p, NULL), 0);
	if (mem_applier_get(&f->m, &p, &got, &got_hand)) {
		if (class_idx != NONE)
			fail_msg("%s: missing, expected class %x", prefix,
				 class_idx);
		return;
	}
	if (class_idx == NONE)
		fail_msg("%s: present (class %x), expected none", prefix, got);
	if (got != class_idx || got_hand != hand)
		fail_msg("%s: class %x%s, expected %x%s", prefix, got,
			 got_hand ? " (hand)" : "", class_idx,
			 hand ? " (hand)" : "");
}

static const char *const realm_rules[] = {
	"table 100 realm 5 class 1:5",
	"table 100 realm 6 class 1:6",
	"family inet6 table 100 class 1:60",
};

/* n kernel routes 10.x.y.0/24 in table 100, realm 5 or 6 by parity. */
static void bulk(struct fx *f, size_t n, size_t skip_mod, bool flip)
{
	size_t i;

	assert_int_equal(sync_engine_resync_begin(f->e), 0);
	for (i = 0; i < n; i++) {
		char r[96];

		if (skip_mod && i % skip_mod == 0)
			continue;
		snprintf(r, sizeof(r), "10.%zu.%zu.0/24 table 100 nh - 1 %zu",
			 i / 256, i % 256, 5 + ((i + flip) & 1));
		assert_int_equal(sync_engine_resync_add(f->e, kr(r)), 0);
	}
	assert_int_equal(sync_engine_resync_end(f->e, "test", 0), 0);
}

static void test_start_swaps_in_everything(void **state)
{
	struct fx *f = fx_new(realm_rules, ARRAY_SIZE(realm_rules));
	const struct sync_status *s;

	(void)state;
	bulk(f, 3000, 0, false);
	assert_int_equal(f->m.n_swap, 1);
	assert_int_equal(f->m.n_set, 0);
	assert_int_equal(f->m.synced, 3000);
	expect(f, "10.0.0.0/24", C(1, 5), false);
	expect(f, "10.0.1.0/24", C(1, 6), false);
	expect(f, "10.11.183.0/24", C(1, 6), false);
	s = &f->m.status;
	assert_int_equal(s->routes_v4, 3000);
	assert_int_equal(s->routes_v6, 0);
	assert_int_equal(s->resyncs, 1);
	assert_string_equal(s->last_resync_reason, "test");
	assert_false(f->m.locked);
	fx_free(f);
}

/*
 * Onto an empty synced set the dump streams into one swap: the prefixes
 * of one address go out shortest first (the kernel lists the longest
 * first), and a better route met later, in another table, wins.  A dump
 * the kernel interrupted starts its stream again.  Hand routes stay.
 */
static void test_streamed_start(void **state)
{
	static const char *const rules[] = {
		"table 100 realm 5 class 1:5",
		"table 101 realm 6 class 1:6",
	};
	static const char *const one_table[] = {
		"10.0.0.0/24 table 100 nh - 1 5",
		"10.0.0.0/16 table 100 nh - 1 5",
		"10.0.0.0/8 table 100 nh - 1 5",
		"10.0.1.0/24 table 100 metric 5 nh - 1 5",
		"10.0.1.0/24 table 100 metric 1 nh - 1 7",
		"10.0.2.0/24 table 100 nh - 1 5",
	};
	static const char *const two_tables[] = {
		"10.0.0.0/24 table 100 metric 10 nh - 1 5",
		"10.0.0.0/16 table 100 nh - 1 5",
		"10.0.2.0/24 table 100 nh - 1 5",
		"10.0.0.0/24 table 101 metric 1 nh - 1 6",
		"10.0.3.0/24 table 101 nh - 1 6",
	};
	struct fx *f = fx_new(rules, ARRAY_SIZE(rules));
	struct cls_prefix p;

	(void)state;
	/* interrupted once, then whole */
	assert_int_equal(sync_engine_resync_begin(f->e), 0);
	assert_true(f->m.locked);
	assert_int_equal(sync_engine_resync_add(f->e, kr(one_table[0])), 0);
	resync(f, one_table, ARRAY_SIZE(one_table));
	assert_int_equal(f->m.n_swap, 1);
	assert_int_equal(f->m.n_set, 0);
	assert_true(f->m.swap_in_order);
	assert_false(f->m.locked);
	expect(f, "10.0.0.0/8", C(1, 5), false);
	expect(f, "10.0.0.0/16", C(1, 5), false);
	expect(f, "10.0.0.0/24", C(1, 5), false);
	expect(f, "10.0.1.0/24", C(1, 5), false);
	assert_int_equal(f->m.status.routes_v4, 5);
	fx_free(f);

	f = fx_new(rules, ARRAY_SIZE(rules));
	assert_int_equal(parse_prefix("10.0.2.0/24", &p, NULL), 0);
	assert_int_equal(mem_applier_hand(&f->m, &p, C(1, 99)), 0);
	resync(f, two_tables, ARRAY_SIZE(two_tables));
	assert_int_equal(f->m.n_swap, 1);
	expect(f, "10.0.0.0/24", C(1, 6), false);
	expect(f, "10.0.0.0/16", C(1, 5), false);
	expect(f, "10.0.2.0/24", C(1, 99), true);
	expect(f, "10.0.3.0/24", C(1, 6), false);
	assert_int_equal(f->m.status.routes_v4, 3);
	assert_int_equal(f->m.status.shadowed, 1);

	/* now something is synced: the next resync is a difference, which
	 * tries only the prefix the hand route holds */
	resync(f, two_tables, ARRAY_SIZE(two_tables));
	assert_int_equal(f->m.n_swap, 1);
	assert_int_equal(f->m.n_set, 1);
	assert_int_equal(f->m.status.shadowed, 1);
	fx_free(f);
}

/* A restart (or SIGHUP with the same rules) finds nothing to change. */
static void test_restart_changes_nothing(void **state)
{
	struct fx *f = fx_new(realm_rules, ARRAY_SIZE(realm_rules));
	unsigned long set, del, swap;

	(void)state;
	bulk(f, 3000, 0, false);
	set = f->m.n_set;
	del = f->m.n_del;
	swap = f->m.n_swap;
	fx_restart(f, realm_rules, ARRAY_SIZE(realm_rules));
	bulk(f, 3000, 0, false);
	assert_int_equal(f->m.n_set, set);
	assert_int_equal(f->m.n_del, del);
	assert_int_equal(f->m.n_swap, swap);
	assert_int_equal(f->m.synced, 3000);
	assert_int_equal(f->m.status.routes_v4, 3000);
	fx_free(f);
}

/* A resync sends only the difference while it is small, else a swap. */
static void test_resync_by_diff(void **state)
{
	struct fx *f = fx_new(realm_rules, ARRAY_SIZE(realm_rules));

	(void)state;
	bulk(f, 8000, 0, false);
	f->m.n_set = f->m.n_del = 0;
	/* 1 in 10 gone: 800 deletes */
	bulk(f, 8000, 10, false);
	assert_int_equal(f->m.n_swap, 1);
	assert_int_equal(f->m.n_del, 800);
	assert_int_equal(f->m.n_set, 0);
	assert_int_equal(f->m.synced, 7200);
	expect(f, "10.0.0.0/24", NONE, false);
	expect(f, "10.0.1.0/24", C(1, 6), false);
	/* all classes flipped: 8000 changes out of 8000, one swap */
	bulk(f, 8000, 0, true);
	assert_int_equal(f->m.n_swap, 2);
	assert_int_equal(f->m.n_del, 800);
	expect(f, "10.0.0.0/24", C(1, 6), false);
	expect(f, "10.0.1.0/24", C(1, 5), false);
	assert_int_equal(f->m.synced, 8000);
	fx_free(f);
}

static void test_events(void **state)
{
	struct fx *f = fx_new(realm_rules, ARRAY_SIZE(realm_rules));
	unsigned long locks;

	(void)state;
	resync(f, NULL, 0);
	locks = f->m.n_lock;
	NEW(f, "192.0.2.0/24 table 100 nh 10.0.0.1 1 5");
	NEW(f, "198.51.100.0/24 table 100 nh 10.0.0.1 1 6");
	NEW(f, "203.0.113.0/24 table 100 nh 10.0.0.1 1 7"); /* no rule */
	NEW(f, "203.0.114.0/24 table 101 nh 10.0.0.1 1 5"); /* no table */
	NEW(f, "2001:db8:1::/48 table 100 nh - 1 0");
	commit(f);
	/* one lock for the batch */
	assert_int_equal(f->m.n_lock, locks + 1);
	expect(f, "192.0.2.0/24", C(1, 5), false);
	expect(f, "198.51.100.0/24", C(1, 6), false);
	expect(f, "203.0.113.0/24", NONE, false);
	expect(f, "203.0.114.0/24", NONE, false);
	expect(f, "2001:db8:1::/48", C(1, 0x60), false);
	assert_int_equal(f->m.status.routes_v4, 2);
	assert_int_equal(f->m.status.routes_v6, 1);
	/* table 101 is no rule's: not even counted */
	assert_int_equal(f->m.status.events, 4);

	/* ip route replace ... realm 6: the class follows */
	REPLACE(f, "192.0.2.0/24 table 100 nh 10.0.0.2 1 6");
	/* replaced by a route no rule takes: the prefix goes */
	REPLACE(f, "198.51.100.0/24 table 100 nh 10.0.0.1 1 9");
	commit(f);
	expect(f, "192.0.2.0/24", C(1, 6), false);
	expect(f, "198.51.100.0/24", NONE, false);

	DEL(f, "192.0.2.0/24 table 100 nh 10.0.0.2 1 6");
	DEL(f, "2001:db8:1::/48 table 100 nh - 1 0");
	commit(f);
	expect(f, "192.0.2.0/24", NONE, false);
	expect(f, "2001:db8:1::/48", NONE, false);
	assert_int_equal(f->m.synced, 0);
	assert_int_equal(sync_engine_resync_due(f->e, NULL), 0);
	fx_free(f);
}

/* A flush is many deletes in one batch: one swap, not one call each. */
static void test_flush_is_one_swap(void **state)
{
	struct fx *f = fx_new(realm_rules, ARRAY_SIZE(realm_rules));
	size_t i;

	(void)state;
	bulk(f, 5000, 0, false);
	NEW(f, "2001:db8:1::/48 table 100 nh - 1 0");
	commit(f);
	f->m.n_set = f->m.n_del = f->m.n_swap = 0;
	for (i = 0; i < 5000; i++) {
		char r[96];

		snprintf(r, sizeof(r), "10.%zu.%zu.0/24 table 100 nh - 1 %zu",
			 i / 256, i % 256, 5 + (i & 1));
		DEL(f, r);
	}
	commit(f);
	assert_int_equal(f->m.n_swap, 1);
	assert_true(f->m.n_del < 2000);
	assert_int_equal(f->m.synced, 1);
	expect(f, "2001:db8:1::/48", C(1, 0x60), false);
	fx_free(f);
}

/*
 * Hand routes win: sync never removes or overwrites them; the prefix is
 * counted as shadowed, and synced again once the hand route is gone and
 * the kernel route changes (or on a resync).
 */
static void test_hand_routes_win(void **state)
{
	struct fx *f = fx_new(realm_rules, ARRAY_SIZE(realm_rules));
	struct cls_prefix p, q;

	(void)state;
	assert_int_equal(parse_prefix("10.0.0.0/24", &p, NULL), 0);
	assert_int_equal(parse_prefix("192.0.2.0/24", &q, NULL), 0);
	assert_int_equal(mem_applier_hand(&f->m, &p, C(1, 99)), 0);
	assert_int_equal(mem_applier_hand(&f->m, &q, C(1, 98)), 0);
	/* the swap at start skips the hand route's prefix */
	bulk(f, 3000, 0, false);
	expect(f, "10.0.0.0/24", C(1, 99), true);
	assert_int_equal(f->m.status.shadowed, 1);
	assert_int_equal(f->m.status.routes_v4, 2999);

	/* an event for a hand-held prefix is skipped too */
	NEW(f, "192.0.2.0/24 table 100 nh - 1 5");
	commit(f);
	expect(f, "192.0.2.0/24", C(1, 98), true);
	assert_int_equal(f->m.status.shadowed, 2);
	/* the kernel route goes: the hand route stays */
	DEL(f, "192.0.2.0/24 table 100 nh - 1 5");
	commit(f);
	expect(f, "192.0.2.0/24", C(1, 98), true);
	assert_int_equal(f->m.status.shadowed, 1);

	/* the operator deletes the hand route: synced at the next change */
	assert_int_equal(mem_applier_hand_del(&f->m, &p), 0);
	REPLACE(f, "10.0.0.0/24 table 100 nh - 1 6");
	commit(f);
	expect(f, "10.0.0.0/24", C(1, 6), false);
	assert_int_equal(f->m.status.shadowed, 0);

	/* `route replace` by hand of a synced prefix makes it a hand route;
	 * a resync (restart) neither removes nor overwrites it */
	assert_int_equal(mem_applier_hand(&f->m, &p, C(1, 97)), 0);
	fx_restart(f, realm_rules, ARRAY_SIZE(realm_rules));
	bulk(f, 3000, 0, false);
	expect(f, "10.0.0.0/24", C(1, 97), true);
	assert_int_equal(f->m.status.shadowed, 1);
	expect(f, "192.0.2.0/24", C(1, 98), true);
	fx_free(f);
}

/*
 * One prefix in several places: the lowest metric wins, then the first
 * rule; deleting the winner hands the prefix to the next.
 */
static void test_best_route(void **state)
{
	static const char *const rules[] = {
		"table 100 class 1:1",
		"table 200 class 1:2",
		"table 300 ignore",
		"table all class 1:3",
	};
	struct fx *f = fx_new(rules, ARRAY_SIZE(rules));

	(void)state;
	resync(f, NULL, 0);
	NEW(f, "192.0.2.0/24 table 100 metric 20");
	NEW(f, "192.0.2.0/24 table 200 metric 10");
	commit(f);
	expect(f, "192.0.2.0/24", C(1, 2), false);
	/* same metric: rule order decides, whatever the arrival order */
	NEW(f, "192.0.2.0/24 table 100 metric 10");
	commit(f);
	expect(f, "192.0.2.0/24", C(1, 1), false);
	DEL(f, "192.0.2.0/24 table 100 metric 10");
	commit(f);
	expect(f, "192.0.2.0/24", C(1, 2), false);
	DEL(f, "192.0.2.0/24 table 200 metric 10");
	commit(f);
	expect(f, "192.0.2.0/24", C(1, 1), false);
	/* an ignored route does not take part, even at a lower metric */
	NEW(f, "192.0.2.0/24 table 300 metric 1");
	/* the catch-all rule takes other tables */
	NEW(f, "198.51.100.0/24 table 400 metric 1");
	commit(f);
	expect(f, "192.0.2.0/24", C(1, 1), false);
	expect(f, "198.51.100.0/24", C(1, 3), false);
	/* a dump gives the same answer as the events did */
	resync(f,
	       (const char *const[]){"192.0.2.0/24 table 300 metric 1",
				     "192.0.2.0/24 table 100 metric 20",
				     "198.51.100.0/24 table 400 metric 1"},
	       3);
	expect(f, "192.0.2.0/24", C(1, 1), false);
	assert_int_equal(f->m.status.kernel_routes, 2);
	fx_free(f);
}

/* IPv4 "append": two routes of one prefix, table and metric. */
static void test_ipv4_aliases(void **state)
{
	static const char *const rules[] = {
		"table 100 via 192.0.2.0/24 class 1:1",
		"table 100 class 1:2",
	};
	struct fx *f = fx_new(rules, ARRAY_SIZE(rules));

	(void)state;
	resync(f, NULL, 0);
	NEW(f, "10.50.0.0/16 table 100 nh 198.51.100.1 1 0");
	APPEND(f, "10.50.0.0/16 table 100 nh 192.0.2.1 2 0");
	commit(f);
	expect(f, "10.50.0.0/16", C(1, 1), false);
	assert_int_equal(f->m.status.kernel_routes, 2);
	/* deleting one alias leaves the other */
	DEL(f, "10.50.0.0/16 table 100 nh 192.0.2.1 2 0");
	commit(f);
	expect(f, "10.50.0.0/16", C(1, 2), false);
	assert_int_equal(sync_engine_resync_due(f->e, NULL), 0);
	/* a replace with two aliases: which one went, the kernel does not
	 * say; the engine asks for a resync */
	APPEND(f, "10.50.0.0/16 table 100 nh 192.0.2.1 2 0");
	REPLACE(f, "10.50.0.0/16 table 100 nh 192.0.2.7 2 0");
	commit(f);
	assert_int_not_equal(sync_engine_resync_due(f->e, NULL), 0);
	fx_free(f);
}

/*
 * More than 64 routes of one prefix (other metrics): a replace or a
 * delete of one of them changes that one only, and nothing is
 * ambiguous, however many the prefix has.
 */
static void test_many_metrics(void **state)
{
	static const char *const rules[] = {
		"table 100 realm 5 class 1:5",
		"table 100 realm 6 class 1:6",
		"family inet6 table 100 metric 1 class 1:5",
		"family inet6 table 100 class 1:6",
	};
	struct fx *f = fx_new(rules, ARRAY_SIZE(rules));
	char r[128];
	int m;

	(void)state;
	resync(f, NULL, 0);
	for (m = 1; m <= 70; m++) {
		snprintf(r, sizeof(r),
			 "10.9.0.0/16 table 100 metric %d nh - 1 6", m);
		NEW(f, r);
		snprintf(r, sizeof(r),
			 "2001:db8:9::/48 table 100 metric %d nh fd09::2 1 0",
			 m);
		NEW(f, r);
	}
	commit(f);
	expect(f, "10.9.0.0/16", C(1, 6), false);
	expect(f, "2001:db8:9::/48", C(1, 5), false);
	assert_int_equal(f->m.status.kernel_routes, 140);
	REPLACE(f, "10.9.0.0/16 table 100 metric 1 nh - 1 5");
	REPLACE(f, "2001:db8:9::/48 table 100 metric 1 nh fd09::3 1 0");
	commit(f);
	expect(f, "10.9.0.0/16", C(1, 5), false);
	expect(f, "2001:db8:9::/48", C(1, 5), false);
	REPLACE(f, "10.9.0.0/16 table 100 metric 70 nh - 1 5");
	commit(f);
	expect(f, "10.9.0.0/16", C(1, 5), false);
	DEL(f, "10.9.0.0/16 table 100 metric 1 nh - 1 5");
	DEL(f, "2001:db8:9::/48 table 100 metric 1 nh fd09::3 1 0");
	commit(f);
	expect(f, "10.9.0.0/16", C(1, 6), false);
	expect(f, "2001:db8:9::/48", C(1, 6), false);
	assert_int_equal(f->m.status.kernel_routes, 138);
	assert_int_equal(sync_engine_resync_due(f->e, NULL), 0);
	/* the highest metric alone is left: it decides */
	for (m = 2; m <= 69; m++) {
		snprintf(r, sizeof(r),
			 "10.9.0.0/16 table 100 metric %d nh - 1 6", m);
		DEL(f, r);
	}
	commit(f);
	expect(f, "10.9.0.0/16", C(1, 5), false);
	assert_int_equal(sync_engine_resync_due(f->e, NULL), 0);
	fx_free(f);
}

/*
 * Route events while a resync dumps, in the kernel's queue order among
 * the dumped routes: each goes into the resync; the resync is dirty and
 * asks for another once the tables are quiet.
 */
static void test_events_during_resync(void **state)
{
	struct fx *f = fx_new(realm_rules, ARRAY_SIZE(realm_rules));
	const char *why;

	(void)state;
	resync(f, NULL, 0);
	assert_int_equal(sync_engine_resync_begin(f->e), 0);
	assert_true(sync_engine_resync_clean(f->e));
	add_all(f, (const char *const[]){"10.1.0.0/16 table 100 nh - 1 5"}, 1);
	/* withdrawn after the dump listed it */
	DEL(f, "10.1.0.0/16 table 100 nh - 1 5");
	/* announced before the dump reached it, and listed by it */
	NEW(f, "10.3.0.0/16 table 100 nh - 1 5");
	add_all(f, (const char *const[]){"10.3.0.0/16 table 100 nh - 1 6"}, 1);
	add_all(f, (const char *const[]){"10.4.0.0/16 table 100 nh - 1 6"}, 1);
	/* announced after the dump went past it */
	NEW(f, "10.0.0.0/16 table 100 nh - 1 6");
	assert_false(sync_engine_resync_clean(f->e));
	assert_int_equal(sync_engine_resync_end(f->e, "test", 0), 0);
	expect(f, "10.1.0.0/16", NONE, false);
	expect(f, "10.0.0.0/16", C(1, 6), false);
	expect(f, "10.4.0.0/16", C(1, 6), false);
	/* the dump's view, queued after the event, wins: no second alias */
	expect(f, "10.3.0.0/16", C(1, 6), false);
	assert_int_equal(f->m.status.kernel_routes, 3);
	assert_int_not_equal(sync_engine_resync_due(f->e, &why), 0);
	assert_string_equal(why, "changed during the dump");
	/* the resync in the calm finds it right already */
	resync(f,
	       (const char *const[]){"10.0.0.0/16 table 100 nh - 1 6",
				     "10.3.0.0/16 table 100 nh - 1 6",
				     "10.4.0.0/16 table 100 nh - 1 6"},
	       3);
	assert_int_equal(sync_engine_resync_due(f->e, NULL), 0);
	fx_free(f);
}

static void big_event(struct fx *f, bool del, const char *route)
{
	struct kroute *k = kr(route);

	/* a notification longer than any dump can carry */
	k->msg_len = KROUTE_DUMP_MAX + 1;
	sync_engine_route(f->e, del, del ? 0 : NLM_F_CREATE | NLM_F_EXCL, k, 1);
}

/* 10.2.0.0/16, too long for a dump, comes between the first and the rest. */
static const char *const cut_routes[] = {
	"10.1.0.0/16 table 100 nh - 1 5",
	"10.5.0.0/16 table 100 nh - 1 6",
	"10.6.0.0/16 table 100 nh - 1 5",
};

/*
 * A dump cut short withdraws nothing: the kernel ends a dump at a route
 * too long for it, and the routes after it go unlisted.  The engine
 * knows such a route from its notification; when the dump lacks it, the
 * routes of its table that the dump did not list stay as they were.
 */
static void test_cut_dump_keeps(void **state)
{
	struct fx *f = fx_new(realm_rules, ARRAY_SIZE(realm_rules));

	(void)state;
	resync(f, cut_routes, 3);
	big_event(f, false, "10.2.0.0/16 table 100 nh - 1 5");
	commit(f);
	expect(f, "10.2.0.0/16", C(1, 5), false);
	/* the dump stops at 10.2.0.0/16; 10.6.0.0/16 went meanwhile */
	DEL(f, "10.6.0.0/16 table 100 nh - 1 5");
	commit(f);
	assert_int_equal(sync_engine_resync_begin(f->e), 0);
	add_all(f, cut_routes, 1);
	assert_int_equal(sync_engine_resync_end(f->e, "test", 0), 0);
	expect(f, "10.1.0.0/16", C(1, 5), false);
	expect(f, "10.2.0.0/16", C(1, 5), false);
	expect(f, "10.5.0.0/16", C(1, 6), false);
	expect(f, "10.6.0.0/16", NONE, false);
	assert_int_equal(f->m.status.kernel_routes, 3);
	/* the long route goes: the next dump is whole, and what went goes */
	big_event(f, true, "10.2.0.0/16 table 100 nh - 1 5");
	commit(f);
	resync(f, cut_routes, 1);
	expect(f, "10.5.0.0/16", NONE, false);
	expect(f, "10.2.0.0/16", NONE, false);
	fx_free(f);
}

/*
 * A restart onto a cut dump (the daemon said so: the kernel's count is
 * higher): the synced routes the engine cannot see are kept, and a
 * delete of one later still withdraws it.
 */
static void test_cut_dump_at_start(void **state)
{
	struct fx *f = fx_new(realm_rules, ARRAY_SIZE(realm_rules));

	(void)state;
	resync(f, cut_routes, 3);
	fx_restart(f, realm_rules, ARRAY_SIZE(realm_rules));
	assert_int_equal(sync_engine_resync_begin(f->e), 0);
	add_all(f, cut_routes, 1);
	sync_engine_resync_partial(f->e, AF_INET, 100);
	assert_int_equal(sync_engine_resync_end(f->e, "start", 0), 0);
	expect(f, "10.5.0.0/16", C(1, 6), false);
	expect(f, "10.6.0.0/16", C(1, 5), false);
	DEL(f, "10.6.0.0/16 table 100 nh - 1 5");
	commit(f);
	expect(f, "10.6.0.0/16", NONE, false);
	expect(f, "10.5.0.0/16", C(1, 6), false);
	/* IPv6 was whole: nothing of it is kept */
	fx_free(f);
}

/*
 * A failed dump leaves the engine as it knew the tables, events of the
 * dump's time included: events after it apply at once, and the retry
 * puts right what changed while the dump ran.
 */
static void test_failed_dump_keeps_state(void **state)
{
	struct fx *f = fx_new(realm_rules, ARRAY_SIZE(realm_rules));

	(void)state;
	resync(f,
	       (const char *const[]){"10.1.0.0/16 table 100 nh - 1 5",
				     "10.2.0.0/16 table 100 nh - 1 5"},
	       2);
	assert_int_equal(sync_engine_resync_begin(f->e), 0);
	add_all(f, (const char *const[]){"10.1.0.0/16 table 100 nh - 1 5"}, 1);
	DEL(f, "10.2.0.0/16 table 100 nh - 1 5");
	sync_engine_resync_abort(f->e, -EIO, 1);
	expect(f, "10.2.0.0/16", C(1, 5), false);
	NEW(f, "10.3.0.0/16 table 100 nh - 1 6");
	commit(f);
	expect(f, "10.3.0.0/16", C(1, 6), false);
	expect(f, "10.1.0.0/16", C(1, 5), false);
	assert_int_equal(f->m.status.errors, 1);
	assert_int_not_equal(sync_engine_resync_due(f->e, NULL), 0);
	resync(f,
	       (const char *const[]){"10.1.0.0/16 table 100 nh - 1 5",
				     "10.3.0.0/16 table 100 nh - 1 6"},
	       2);
	expect(f, "10.2.0.0/16", NONE, false);
	fx_free(f);
}

/* IPv6 multipath: deleting some nexthops leaves the route. */
static void test_ipv6_multipath(void **state)
{
	static const char *const rules[] = {"family inet6 table 100 class 1:6"};
	struct fx *f = fx_new(rules, ARRAY_SIZE(rules));

	(void)state;
	resync(f, NULL, 0);
	NEW(f, "2001:db8:50::/48 table 100 metric 1024 nh fd09::2 1 0");
	/* the kernel's append notification lists every nexthop */
	APPEND(f, "2001:db8:50::/48 table 100 metric 1024 nh fd09:1::2 2 0 nh fd09::2 1 0");
	commit(f);
	expect(f, "2001:db8:50::/48", C(1, 6), false);
	assert_int_equal(f->m.status.kernel_routes, 1);
	DEL(f, "2001:db8:50::/48 table 100 metric 1024 nh fd09:1::2 2 0");
	commit(f);
	expect(f, "2001:db8:50::/48", C(1, 6), false);
	assert_int_equal(sync_engine_resync_due(f->e, NULL), 0);
	DEL(f, "2001:db8:50::/48 table 100 metric 1024 nh fd09::2 1 0");
	commit(f);
	expect(f, "2001:db8:50::/48", NONE, false);
	/* a delete that matches nothing the engine knows: resync */
	NEW(f, "2001:db8:51::/48 table 100 metric 1024 nh fd09::2 1 0");
	DEL(f, "2001:db8:51::/48 table 100 metric 1024 nh fd09::7 1 0");
	commit(f);
	assert_int_not_equal(sync_engine_resync_due(f->e, NULL), 0);
	fx_free(f);
}

/* A change the applier refuses is an error in status and a resync. */
static void test_apply_error(void **state)
{
	struct fx *f = fx_new(realm_rules, ARRAY_SIZE(realm_rules));

	(void)state;
	resync(f, NULL, 0);
	f->m.fail_after = 0;
	f->m.fail_err = -ENOSPC;
	NEW(f, "192.0.2.0/24 table 100 nh - 1 5");
	assert_int_equal(sync_engine_commit(f->e), -EIO);
	assert_int_equal(f->m.status.errors, 1);
	assert_string_equal(f->m.status.last_error,
			    "setting a synced route: No space left on device");
	assert_int_not_equal(sync_engine_resync_due(f->e, NULL), 0);
	expect(f, "192.0.2.0/24", NONE, false);
	resync(f, (const char *const[]){"192.0.2.0/24 table 100 nh - 1 5"}, 1);
	expect(f, "192.0.2.0/24", C(1, 5), false);
	assert_int_equal(sync_engine_resync_due(f->e, NULL), 0);
	fx_free(f);
}

/* New rules: the next resync moves prefixes to their new classes. */
static void test_rules_change(void **state)
{
	static const char *const swapped[] = {
		"table 100 realm 5 class 1:6",
		"table 100 realm 6 class 1:5",
	};
	struct fx *f = fx_new(realm_rules, ARRAY_SIZE(realm_rules));

	(void)state;
	bulk(f, 100, 0, false);
	expect(f, "10.0.0.0/24", C(1, 5), false);
	set_rules(f, swapped, ARRAY_SIZE(swapped));
	/* until the resync, events change nothing */
	NEW(f, "192.0.2.0/24 table 100 nh - 1 5");
	commit(f);
	expect(f, "192.0.2.0/24", NONE, false);
	bulk(f, 100, 0, false);
	expect(f, "10.0.0.0/24", C(1, 6), false);
	expect(f, "10.0.1.0/24", C(1, 5), false);
	expect(f, "192.0.2.0/24", NONE, false);
	fx_free(f);
}

/* Link down: the kernel drops IPv4 routes without a word: resync. */
static void test_link_down_resyncs(void **state)
{
	struct fx *f = fx_new(realm_rules, ARRAY_SIZE(realm_rules));
	const char *reason;

	(void)state;
	bulk(f, 10, 0, false);
	sync_engine_link(f->e, 7, "eth7", true, false);
	assert_int_equal(sync_engine_resync_due(f->e, NULL), 0);
	sync_engine_link(f->e, 7, "eth7", false, false);
	assert_int_not_equal(sync_engine_resync_due(f->e, &reason), 0);
	assert_string_equal(reason, "link down");
	fx_free(f);
}

/*
 * Between batches: a synced route taken over by hand, and the hand route
 * removed again, each ask for a resync, which counts the shadowed prefix
 * and puts the synced route back.  Our own changes ask for none.
 */
static void test_hand_changes_noticed(void **state)
{
	struct fx *f = fx_new(realm_rules, ARRAY_SIZE(realm_rules));
	const char *reason;
	struct cls_prefix p;

	(void)state;
	assert_int_equal(parse_prefix("10.0.0.0/24", &p, NULL), 0);
	bulk(f, 10, 0, false);
	NEW(f, "10.1.0.0/24 table 100 nh - 1 5");
	commit(f);
	sync_engine_check_outside(f->e, "test", 1);
	assert_int_equal(sync_engine_resync_due(f->e, NULL), 0);

	assert_int_equal(mem_applier_hand(&f->m, &p, C(1, 99)), 0);
	sync_engine_check_outside(f->e, "test", 1);
	assert_int_not_equal(sync_engine_resync_due(f->e, &reason), 0);
	assert_string_equal(reason, "routes changed by hand");
	bulk(f, 10, 0, false);
	expect(f, "10.0.0.0/24", C(1, 99), true);
	assert_int_equal(f->m.status.shadowed, 1);
	sync_engine_check_outside(f->e, "test", 1);
	assert_int_equal(sync_engine_resync_due(f->e, NULL), 0);

	assert_int_equal(mem_applier_hand_del(&f->m, &p), 0);
	sync_engine_check_outside(f->e, "test", 1);
	assert_int_not_equal(sync_engine_resync_due(f->e, &reason), 0);
	bulk(f, 10, 0, false);
	expect(f, "10.0.0.0/24", C(1, 5), false);
	assert_int_equal(f->m.status.shadowed, 0);
	fx_free(f);
}

/*
 * A class the rules name by name gets another index: the rules follow
 * it (a resync moves the routes); a class that is gone is an error and
 * the rule keeps its index.
 */
static void test_classes_changed(void **state)
{
	static const char *const rules[] = {
		"table 100 realm 5 class web",
		"table 100 realm 6 class 1:6",
	};
	struct fx *f;
	const char *reason;

	(void)state;
	f = fx_new(NULL, 0);
	assert_int_equal(mem_applier_class(&f->m, "web", C(1, 0x10)), 0);
	set_rules(f, rules, ARRAY_SIZE(rules));
	bulk(f, 4, 0, false);
	expect(f, "10.0.0.0/24", C(1, 0x10), false);

	/* a class change that moves nothing the rules name */
	assert_int_equal(mem_applier_class(&f->m, "other", C(1, 0x20)), 0);
	sync_engine_check_outside(f->e, "test", 1);
	assert_int_equal(sync_engine_resync_due(f->e, NULL), 0);

	f->m.classes[0].classid = C(1, 0x11);
	f->m.class_gen++;
	sync_engine_check_outside(f->e, "test", 1);
	assert_int_not_equal(sync_engine_resync_due(f->e, &reason), 0);
	assert_string_equal(reason, "classes changed");
	bulk(f, 4, 0, false);
	expect(f, "10.0.0.0/24", C(1, 0x11), false);

	strcpy(f->m.classes[0].name, "gone");
	f->m.class_gen++;
	sync_engine_check_outside(f->e, "test", 1);
	assert_int_equal(sync_engine_status(f->e)->errors, 1);
	assert_string_equal(
		sync_engine_status(f->e)->last_error,
		"classes changed: test:1: class \"web\": no such class (see classifier class list); its rules keep the old class");
	bulk(f, 4, 0, false);
	expect(f, "10.0.0.0/24", C(1, 0x11), false);
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_start_swaps_in_everything),
		cmocka_unit_test(test_streamed_start),
		cmocka_unit_test(test_restart_changes_nothing),
		cmocka_unit_test(test_resync_by_diff),
		cmocka_unit_test(test_events),
		cmocka_unit_test(test_flush_is_one_swap),
		cmocka_unit_test(test_hand_routes_win),
		cmocka_unit_test(test_best_route),
		cmocka_unit_test(test_ipv4_aliases),
		cmocka_unit_test(test_many_metrics),
		cmocka_unit_test(test_ipv6_multipath),
		cmocka_unit_test(test_events_during_resync),
		cmocka_unit_test(test_cut_dump_keeps),
		cmocka_unit_test(test_cut_dump_at_start),
		cmocka_unit_test(test_failed_dump_keeps_state),
		cmocka_unit_test(test_apply_error),
		cmocka_unit_test(test_rules_change),
		cmocka_unit_test(test_link_down_resyncs),
		cmocka_unit_test(test_hand_changes_noticed),
		cmocka_unit_test(test_classes_changed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
