// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sync rule grammar: what parses (and prints back the same), what is
 * refused and how the message names the place, and which rule a kernel
 * route matches.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/rtnetlink.h>

#include <cmocka.h>

#include "lib/parse.h"
#include "sync/rules.h"
#include "tests/sync/troute.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Parse one line as a file line would be (line 7 of sync.conf). */
static int parse_line(const char *text, struct sync_rules *rs, char *err)
{
	char buf[512], *argv[64];
	int argc;

	snprintf(buf, sizeof(buf), "%s", text);
	argc = split_args(buf, argv, 64);
	assert_true(argc >= 0);
	return sync_rules_parse_args(rs, argc, argv, "sync.conf", 7, err,
				     SYNC_ERR_LEN);
}

static void test_rules_valid(void **state)
{
	static const struct {
		const char *in;
		const char *canon;
	} cases[] = {
		{"table 100 realm 5 class 1:10",
		 "table 100 realm 5 class 1:10"},
		{"table 100 protocol bird class bulk",
		 "table 100 protocol bird class bulk"},
		{"proto 186 class web", "table main protocol bgp class web"},
		{"class web", "table main class web"},
		{"table all class web", "table all class web"},
		{"table main metric 100-199 class web",
		 "table main metric 100-199 class web"},
		{"priority 7 class web", "table main metric 7 class web"},
		{"preference 7 class web", "table main metric 7 class web"},
		{"table 100 to 10.0.0.0/8 ignore",
		 "table 100 to 10.0.0.0/8 ignore"},
		{"gateway 192.0.2.1 dev eth0 class 1:",
		 "table main via 192.0.2.1/32 dev eth0 class 1:"},
		{"via 2001:db8::/32 oif veth0 class web",
		 "table main via 2001:db8::/32 dev veth0 class web"},
		{"realms 3/5 class web", "table main realm 3/5 class web"},
		{"realm 0 class web", "table main realm 0 class web"},
		{"family inet6 table 4294967295 class web",
		 "family inet6 table 4294967295 class web"},
		{"family ipv4 type blackhole class drop",
		 "family inet table main type blackhole class drop"},
		{"table local type unreachable class web",
		 "table local type unreachable class web"},
		{"  table 100 class web   # trailing comment",
		 "table 100 class web"},
		{"table default protocol 0 class ff:ffff",
		 "table default protocol unspec class ff:ffff"},
		/* names the kernel takes, quoted where the words need it */
		{"dev 'a#b' class web", "table main dev \"a#b\" class web"},
		{"dev 'x\"y' class web",
		 "table main dev \"x\"'\"'\"y\" class web"},
		{"dev \"it's\" class web", "table main dev \"it's\" class web"},
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct sync_rules rs;
		char err[SYNC_ERR_LEN] = "", out[256];

		sync_rules_init(&rs);
		if (parse_line(cases[i].in, &rs, err))
			fail_msg("%s: refused: %s", cases[i].in, err);
		assert_int_equal(rs.n, 1);
		assert_true(sync_rule_format(&rs.rule[0], out, sizeof(out)) >
			    0);
		assert_string_equal(out, cases[i].canon);
		sync_rules_free(&rs);
		/* what it prints parses back to the same rule */
		sync_rules_init(&rs);
		assert_int_equal(parse_line(out, &rs, err), 0);
		assert_true(sync_rule_format(&rs.rule[0], err, sizeof(err)) >
			    0);
		assert_string_equal(err, cases[i].canon);
		sync_rules_free(&rs);
	}
}

static void test_rules_invalid(void **state)
{
	static const struct {
		const char *in;
		const char *err;
	} cases[] = {
		{"tabel 100 class web", "sync.conf:7: unknown word \"tabel\""},
		{"table 100", "sync.conf:7: rule has no action: end it with \"class CLASS\" or \"ignore\""},
		{"table", "sync.conf:7: table needs a value"},
		{"table 100 class",
		 "sync.conf:7: class needs a classid or a class name"},
		{"table 0 class web",
		 "sync.conf:7: table \"0\": a number 1-4294967295, main, local, default or all"},
		{"table 4294967296 class web",
		 "sync.conf:7: table \"4294967296\": a number 1-4294967295, main, local, default or all"},
		{"table 100 table 101 class web",
		 "sync.conf:7: table given twice in one rule"},
		{"metric 1 priority 2 class web",
		 "sync.conf:7: metric given twice in one rule"},
		{"protocol birds class web",
		 "sync.conf:7: protocol \"birds\": a number 0-255 or a name such as bird, bgp, static, kernel"},
		{"protocol 256 class web",
		 "sync.conf:7: protocol \"256\": a number 0-255 or a name such as bird, bgp, static, kernel"},
		{"type local class web",
		 "sync.conf:7: type local: only unicast, blackhole, unreachable and prohibit routes are synced"},
		{"type bogus class web",
		 "sync.conf:7: type \"bogus\": unicast, blackhole, unreachable or prohibit"},
		{"metric 9-3 class web", "sync.conf:7: metric \"9-3\": a number, or a range N-M with N <= M"},
		{"metric -3 class web", "sync.conf:7: metric \"-3\": a number, or a range N-M with N <= M"},
		{"realm 65536 class web",
		 "sync.conf:7: realm \"65536\": a realm 0-65535, or SRC/DST"},
		{"realm 1/2/3 class web",
		 "sync.conf:7: realm \"1/2/3\": a realm 0-65535, or SRC/DST"},
		{"family inet6 realm 5 class web",
		 "sync.conf:7: realm: IPv6 routes have no realm (match them by table)"},
		{"to 2001:db8::/32 realm 5 class web",
		 "sync.conf:7: realm: IPv6 routes have no realm (match them by table)"},
		{"family inet to 2001:db8::/32 class web",
		 "sync.conf:7: to an IPv6 prefix in a family inet rule"},
		{"to 10.1.0.0/8 class web",
		 "sync.conf:7: to \"10.1.0.0/8\": host bits set (did you mean 10.0.0.0/8?)"},
		{"via 10.0.0.256 class web",
		 "sync.conf:7: via \"10.0.0.256\": invalid IPv4 address"},
		{"dev eth0/1 class web",
		 "sync.conf:7: dev \"eth0/1\": not an interface name"},
		{"dev abcdefghijklmnop class web",
		 "sync.conf:7: dev \"abcdefghijklmnop\": not an interface name"},
		{"dev \"a b\" class web",
		 "sync.conf:7: dev \"a b\": not an interface name"},
		{"dev eth0:1 class web",
		 "sync.conf:7: dev \"eth0:1\": not an interface name"},
		{"dev .. class web", "sync.conf:7: dev \"..\": not an interface name"},
		{"family ip class web",
		 "sync.conf:7: family \"ip\": inet or inet6"},
		{"class web table 100", "sync.conf:7: \"table\" after the rule's class: one rule a line"},
		{"ignore class web", "sync.conf:7: \"class\" after the rule's ignore: one rule a line"},
		{"class 0000000000000000000000000000001:1",
		 "sync.conf:7: class \"0000000000000000000000000000001:1\": not a classid (1:10) or a class name"},
		{"class 1:2:3", "sync.conf:7: class \"1:2:3\": not a classid (1:10) or a class name"},
		{"table 100 rcvbuf 1M class web",
		 "sync.conf:7: rcvbuf is a setting, not part of a rule"},
		{"rcvbuf 1",
		 "sync.conf:7: rcvbuf \"1\": a size 4k-1G (suffix k, M or G)"},
		{"rcvbuf 2G",
		 "sync.conf:7: rcvbuf \"2G\": a size 4k-1G (suffix k, M or G)"},
		{"rcvbuf 1M table 100 class web",
		 "sync.conf:7: \"table\" after rcvbuf: one setting a line"},
		{"resync 9s",
		 "sync.conf:7: resync \"9s\": an interval 10s-168h (suffix s, m or h), or off"},
		{"resync 169h",
		 "sync.conf:7: resync \"169h\": an interval 10s-168h (suffix s, m or h), or off"},
		{"resync 10d",
		 "sync.conf:7: resync \"10d\": an interval 10s-168h (suffix s, m or h), or off"},
		{"resync", "sync.conf:7: resync needs a value"},
		{"table 100 resync 1h class web",
		 "sync.conf:7: resync is a setting, not part of a rule"},
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		char path[] = "/tmp/test_sync_rules.XXXXXX";
		char err[SYNC_ERR_LEN] = "", want[SYNC_ERR_LEN];
		int fd = mkstemp(path);
		FILE *f = fdopen(fd, "w");
		struct sync_rules rs;

		/* the bad line is line 7 of a file that is fine elsewhere */
		assert_non_null(f);
		fprintf(f,
			"# six lines before the bad one\n\ntable 1 class web\n#\n\nclass 1:1\n%s\ntable 2 class web\n",
			cases[i].in);
		fclose(f);
		sync_rules_init(&rs);
		if (!sync_rules_load(&rs, path, err, sizeof(err)))
			fail_msg("%s: accepted", cases[i].in);
		/* the message names the file as it was given */
		snprintf(want, sizeof(want), "%s%s", path,
			 cases[i].err + strlen("sync.conf"));
		assert_string_equal(err, want);
		unlink(path);
		sync_rules_free(&rs);
	}
}

static void test_rules_file(void **state)
{
	char path[] = "/tmp/test_sync_rules.XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	struct sync_rules rs;
	char err[SYNC_ERR_LEN] = "";

	(void)state;
	assert_non_null(f);
	fputs("# classes by BGP community, through BIRD's krt_realm\nrcvbuf 8M\ntable 100 realm 5 class web   # customers\nresync 15m\ntable 100 realm 6 class \"bulk\"\n    table 101 family inet6 class web\n",
	      f);
	fclose(f);
	sync_rules_init(&rs);
	assert_int_equal(sync_rules_load(&rs, path, err, sizeof(err)), 0);
	assert_int_equal(rs.n, 3);
	assert_int_equal(rs.rcvbuf, 8 << 20);
	assert_int_equal(rs.resync_s, 900);
	assert_int_equal(rs.rule[0].line, 3);
	assert_int_equal(rs.rule[1].line, 5);
	assert_string_equal(rs.rule[1].class_tok, "bulk");
	assert_int_equal(rs.rule[2].line, 6);
	assert_int_equal(rs.rule[2].family, AF_INET6);
	assert_false(rs.uses_dev);
	sync_rules_free(&rs);
	unlink(path);

	/* a NUL byte would end the line unseen: the line is refused */
	f = fmemopen((char[]){"table 1 class web\ntable 2 class web\0 junk\n"},
		     41, "r");
	assert_non_null(f);
	sync_rules_init(&rs);
	assert_int_equal(sync_rules_read(&rs, f, "nul.conf", err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "nul.conf:2: NUL byte in the line");
	fclose(f);
	sync_rules_free(&rs);

	sync_rules_init(&rs);
	assert_int_equal(sync_rules_load(&rs, "/nonexistent/sync.conf", err,
					 sizeof(err)),
			 -ENOENT);
	assert_string_equal(
		err, "/nonexistent/sync.conf: No such file or directory");
	sync_rules_free(&rs);
}

/* On the command line a rule ends at its action and the next may follow. */
static void test_rules_command_line(void **state)
{
	char *argv[] = {"table",  "100",  "realm",  "5",	 "class",
			"web",	  "rcvbuf", "64k",    "resync", "off",
			"table",  "100",  "realm",  "6",	 "class",
			"bulk",	  "dev",    "eth0",   "ignore"};
	char *bad[] = {"table", "100", "realm", "5", "class", "web", "table"};
	struct sync_rules rs;
	char err[SYNC_ERR_LEN] = "";

	(void)state;
	sync_rules_init(&rs);
	assert_int_equal(sync_rules_parse_args(&rs, ARRAY_SIZE(argv), argv,
					       "command line", 0, err,
					       sizeof(err)),
			 0);
	assert_int_equal(rs.n, 3);
	assert_int_equal(rs.rcvbuf, 64 << 10);
	assert_int_equal(rs.resync_s, SYNC_RESYNC_OFF);
	assert_true(rs.rule[2].ignore);
	assert_true(rs.uses_dev);
	assert_true(rs.uses_nexthop);
	sync_rules_free(&rs);

	sync_rules_init(&rs);
	assert_int_equal(sync_rules_parse_args(&rs, ARRAY_SIZE(bad), bad,
					       "command line", 0, err,
					       sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "command line: table needs a value");
	sync_rules_free(&rs);
}

static int resolve(void *ctx, const char *tok, __u32 *idx)
{
	(void)ctx;
	if (!strcmp(tok, "web")) {
		*idx = 7;
		return 0;
	}
	return parse_classid(tok, idx) ? -ENOENT : 0;
}

static void test_rules_resolve(void **state)
{
	struct sync_rules rs;
	char err[SYNC_ERR_LEN] = "";

	(void)state;
	sync_rules_init(&rs);
	assert_int_equal(parse_line("table 100 class web", &rs, err), 0);
	assert_int_equal(parse_line("table 100 ignore", &rs, err), 0);
	assert_int_equal(parse_line("table 100 class 1:10", &rs, err), 0);
	assert_int_equal(sync_rules_resolve(&rs, resolve, NULL, "sync.conf",
					    err, sizeof(err)),
			 0);
	assert_int_equal(rs.rule[0].class_idx, 7);
	assert_int_equal(rs.rule[2].class_idx, 0x10010);
	assert_int_equal(parse_line("table 100 class nope", &rs, err), 0);
	assert_int_equal(sync_rules_resolve(&rs, resolve, NULL, "sync.conf",
					    err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "sync.conf:7: class \"nope\": no such class (see classifier class list)");
	sync_rules_free(&rs);
}

static struct kroute *route(const char *text)
{
	static struct kroute k;

	if (troute(text, &k))
		fail_msg("bad test route: %s", text);
	return &k;
}

static const char *ifname(void *ctx, __u32 ifindex)
{
	static const char *names[] = {NULL, "eth0", "eth1", "veth9"};

	(void)ctx;
	return ifindex < ARRAY_SIZE(names) ? names[ifindex] : NULL;
}

static void test_rules_match(void **state)
{
	static const char *rules[] = {
		/* 0 */ "table 100 realm 5 class 1:5",
		/* 1 */ "table 100 realm 1/6 class 1:6",
		/* 2 */ "table 100 to 10.0.0.0/8 ignore",
		/* 3 */ "table 100 protocol bird metric 10-20 class 1:20",
		/* 4 */ "table 200 via 192.0.2.0/24 dev eth1 class 1:30",
		/* 5 */ "table 200 type blackhole class 1:40",
		/* 6 */ "family inet6 table 100 class 1:60",
		/* 7 */ "table all dev veth9 class 1:70",
		/* 8 */ "protocol static class 1:80",
		/* 9 */ "table 300 via 2001:db8::/32 class 1:90",
	};
	static const struct {
		const char *route;
		int rule;
	} cases[] = {
		{"198.51.100.0/24 table 100 nh 192.0.2.1 1 5", 0},
		/* realm 5 only as a source realm: 1/5 is not 5 */
		{"198.51.100.0/24 table 100 nh - 1 0x10005", -1},
		{"198.51.100.0/24 table 100 nh - 1 0x10006", 1},
		/* multipath: one nexthop with realm 5 is enough */
		{"198.51.100.0/24 table 100 nh - 1 9 nh - 2 5", 0},
		/* first match wins: realm 5 comes before the ignore */
		{"10.1.0.0/16 table 100 nh - 1 5", 0},
		{"10.1.0.0/16 table 100 proto 12 metric 15", 2},
		{"11.1.0.0/16 table 100 proto 12 metric 15", 3},
		{"11.1.0.0/16 table 100 proto 12 metric 21", -1},
		{"11.1.0.0/16 table 100 proto 4 metric 15", -1},
		/* via and dev must hold for the same nexthop */
		{"11.2.0.0/16 table 200 nh 192.0.2.1 2 0", 4},
		{"11.2.0.0/16 table 200 nh 192.0.2.1 1 0 nh 203.0.113.1 2 0",
		 -1},
		{"11.2.0.0/16 table 200 nh 203.0.113.1 1 0 nh 192.0.2.9 2 0",
		 4},
		/* a blackhole has no nexthop: only the type rule takes it */
		{"11.3.0.0/16 table 200 type 6", 5},
		/* unicast rules leave other types alone */
		{"11.3.0.0/16 table 100 type 6 nh - 1 5", -1},
		{"2001:db8:1::/48 table 100", 6},
		{"2001:db8:1::/48 table 100 nh - 3 0", 6},
		{"2001:db8:1::/48 table 101 nh - 3 0", 7},
		{"2001:db8:1::/48 table 101 nh - 2 0", -1},
		/* no table in a rule means main */
		{"11.4.0.0/16 proto 4", 8},
		{"11.4.0.0/16 table 100 proto 4", -1},
		/* an IPv4 route via an IPv6 gateway (RTA_VIA) */
		{"11.5.0.0/16 table 300 nh 2001:db8::1 1 0", 9},
		{"11.5.0.0/16 table 300 nh 192.0.2.1 1 0", -1},
		/* an unknown device matches no dev */
		{"11.6.0.0/16 table 5 nh - 42 0", -1},
	};
	struct sync_rules rs;
	char err[SYNC_ERR_LEN];
	size_t i;

	(void)state;
	sync_rules_init(&rs);
	for (i = 0; i < ARRAY_SIZE(rules); i++)
		if (parse_line(rules[i], &rs, err))
			fail_msg("%s: %s", rules[i], err);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		int got = sync_rules_match(&rs, route(cases[i].route), ifname,
					   NULL);

		if (got != cases[i].rule)
			fail_msg("%s: rule %d, expected %d", cases[i].route,
				 got, cases[i].rule);
	}
	assert_true(sync_rules_want(&rs, AF_INET, 100));
	assert_true(sync_rules_want(&rs, AF_INET6, 12345));
	sync_rules_free(&rs);
}

static void test_rules_tables(void **state)
{
	struct sync_rules rs;
	char err[SYNC_ERR_LEN];
	__u32 t[8];

	(void)state;
	sync_rules_init(&rs);
	assert_int_equal(parse_line("table 100 realm 5 class web", &rs, err),
			 0);
	assert_int_equal(parse_line("table 100 realm 6 class web", &rs, err),
			 0);
	assert_int_equal(
		parse_line("family inet6 table 101 class web", &rs, err), 0);
	assert_int_equal(sync_rules_tables(&rs, AF_INET, t, 8), 1);
	assert_int_equal(t[0], 100);
	/* realm rules are IPv4 only; the family inet6 rule adds 101 */
	assert_int_equal(sync_rules_tables(&rs, AF_INET6, t, 8), 1);
	assert_int_equal(t[0], 101);
	assert_false(sync_rules_want(&rs, AF_INET6, 100));
	assert_false(sync_rules_want(&rs, AF_INET, 101));
	assert_true(sync_rules_want(&rs, AF_INET, 100));
	assert_int_equal(
		parse_line("family inet table all class web", &rs, err), 0);
	assert_int_equal(sync_rules_tables(&rs, AF_INET, t, 8), -1);
	assert_int_equal(sync_rules_tables(&rs, AF_INET6, t, 8), 1);
	sync_rules_free(&rs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rules_valid),
		cmocka_unit_test(test_rules_invalid),
		cmocka_unit_test(test_rules_file),
		cmocka_unit_test(test_rules_command_line),
		cmocka_unit_test(test_rules_resolve),
		cmocka_unit_test(test_rules_match),
		cmocka_unit_test(test_rules_tables),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
