// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "lib/parse.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static char *fmt(const struct cls_prefix *p)
{
	static char buf[PREFIX_STRLEN];

	assert_true(format_prefix(p, buf, sizeof(buf)) > 0);
	return buf;
}

static void test_prefix_valid(void **state)
{
	static const struct {
		const char *in;
		int family;
		int len;
		const char *canon;
	} cases[] = {
		{"10.0.0.0/8", AF_INET, 8, "10.0.0.0/8"},
		{"10.0.0.0/08", AF_INET, 8, "10.0.0.0/8"},
		{"0.0.0.0/0", AF_INET, 0, "0.0.0.0/0"},
		{"192.0.2.1", AF_INET, 32, "192.0.2.1/32"},
		{"192.0.2.1/32", AF_INET, 32, "192.0.2.1/32"},
		{"255.255.255.255/32", AF_INET, 32, "255.255.255.255/32"},
		{"192.168.128.0/17", AF_INET, 17, "192.168.128.0/17"},
		{"10.0.0.0/7", AF_INET, 7, "10.0.0.0/7"},
		{"2001:db8::/32", AF_INET6, 32, "2001:db8::/32"},
		{"2001:DB8::/32", AF_INET6, 32, "2001:db8::/32"},
		{"2001:0db8:0000::/48", AF_INET6, 48, "2001:db8::/48"},
		{"2001:db8::/033", AF_INET6, 33, "2001:db8::/33"},
		{"::/0", AF_INET6, 0, "::/0"},
		{"::", AF_INET6, 128, "::/128"},
		{"::1", AF_INET6, 128, "::1/128"},
		{"fe80::1/128", AF_INET6, 128, "fe80::1/128"},
		{"::ffff:10.0.0.0/104", AF_INET6, 104, "::ffff:10.0.0.0/104"},
		{"ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/128", AF_INET6, 128,
		 "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/128"},
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct cls_prefix p, again;
		struct parse_why why;

		if (parse_prefix(cases[i].in, &p, &why))
			fail_msg("%s: rejected: %s", cases[i].in, why.text);
		assert_int_equal(p.family, cases[i].family);
		assert_int_equal(p.len, cases[i].len);
		assert_string_equal(fmt(&p), cases[i].canon);
		/* Output must be accepted back as input, unchanged. */
		assert_int_equal(parse_prefix(fmt(&p), &again, NULL), 0);
		assert_memory_equal(&p, &again, sizeof(p));
	}
}

static void test_prefix_bytes(void **state)
{
	static const __u8 v4[16] = {192, 0, 2, 1};
	static const __u8 v6[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 1};
	struct cls_prefix p;

	(void)state;
	/* Fill with junk: IPv4 must clear the unused 12 bytes. */
	memset(&p, 0xaa, sizeof(p));
	assert_int_equal(parse_prefix("192.0.2.1", &p, NULL), 0);
	assert_memory_equal(p.addr, v4, 16);
	assert_int_equal(parse_prefix("2001:db8::1/128", &p, NULL), 0);
	assert_memory_equal(p.addr, v6, 16);
}

static void test_prefix_invalid(void **state)
{
	static const struct {
		const char *in;
		const char *why; /* substring of the reason */
	} cases[] = {
		{"", "empty"},
		{"10.0.0.0/", "missing prefix length"},
		{"10.0.0.0/8x", "must be a number"},
		{"10.0.0.0/-1", "must be a number"},
		{"10.0.0.0/+8", "must be a number"},
		{"10.0.0.0/ 8", "must be a number"},
		{"10.0.0.0/8 ", "must be a number"},
		{"10.0.0.0/8\n", "must be a number"},
		{"10.0.0.0/8/8", "must be a number"},
		{"10.0.0.0/0x8", "must be a number"},
		{"10.0.0.0/033", "prefix length must be 0-32"},
		{"10.0.0.0/33", "prefix length must be 0-32"},
		{"10.0.0.0/4294967304", "prefix length must be 0-32"},
		{"::/129", "prefix length must be 0-128"},
		{"10.1.0.0/8", "host bits set (did you mean 10.0.0.0/8?)"},
		{"192.0.2.1/24", "host bits set (did you mean 192.0.2.0/24?)"},
		{"10.0.0.1/0", "host bits set (did you mean 0.0.0.0/0?)"},
		{"2001:db8::1/32",
		 "host bits set (did you mean 2001:db8::/32?)"},
		{"/8", "missing address"},
		{"10.0.0/8", "invalid IPv4 address"},
		{"256.0.0.0/8", "invalid IPv4 address"},
		{"1.2.3.4.5", "invalid IPv4 address"},
		{"010.0.0.0/8", "invalid IPv4 address"},
		{" 10.0.0.0/8", "invalid IPv4 address"},
		{"10.0.0.0 /8", "invalid IPv4 address"},
		{"10.0.0.0 ", "invalid IPv4 address"},
		{"web", "invalid IPv4 address"},
		{"2001:db8::g/32", "invalid IPv6 address"},
		{":::/0", "invalid IPv6 address"},
		{"fe80::1%eth0/128", "invalid IPv6 address"},
		{"::1 ", "invalid IPv6 address"},
		{"1111:2222:3333:4444:5555:6666:7777:8888:9999/128",
		 "invalid IPv6 address"},
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct cls_prefix p;
		struct parse_why why = {""};
		int err = parse_prefix(cases[i].in, &p, &why);

		if (err != -EINVAL)
			fail_msg("'%s': got %d, want -EINVAL", cases[i].in,
				 err);
		assert_true(why.text[0]);
		if (!strstr(why.text, cases[i].why))
			fail_msg("'%s': reason '%s', want '%s'", cases[i].in,
				 why.text, cases[i].why);
		/* A NULL why must be allowed too. */
		assert_int_equal(parse_prefix(cases[i].in, &p, NULL), -EINVAL);
	}
}

static void test_addr(void **state)
{
	struct cls_prefix p;
	struct parse_why why;

	(void)state;
	assert_int_equal(parse_addr("192.0.2.1", &p, NULL), 0);
	assert_int_equal(p.family, AF_INET);
	assert_int_equal(p.len, 32);
	assert_int_equal(parse_addr("::1", &p, NULL), 0);
	assert_int_equal(p.family, AF_INET6);
	assert_int_equal(p.len, 128);
	assert_int_equal(parse_addr("10.0.0.0/8", &p, &why), -EINVAL);
	assert_non_null(strstr(why.text, "not a prefix"));
	assert_int_equal(parse_addr("", &p, &why), -EINVAL);
	assert_int_equal(parse_addr("10.0.0.256", &p, &why), -EINVAL);
	assert_string_equal(why.text, "invalid IPv4 address");
}

static void test_format_prefix_space(void **state)
{
	struct cls_prefix p;
	char buf[PREFIX_STRLEN];

	(void)state;
	assert_int_equal(parse_prefix("10.0.0.0/8", &p, NULL), 0);
	/* "10.0.0.0/8" is 10 characters and needs 11 bytes. */
	assert_int_equal(format_prefix(&p, buf, 11), 10);
	assert_string_equal(buf, "10.0.0.0/8");
	assert_int_equal(format_prefix(&p, buf, 10), -ENOSPC);
	p.family = 0;
	assert_int_equal(format_prefix(&p, buf, sizeof(buf)), -EINVAL);
}

static void test_prefix_contains(void **state)
{
	static const struct {
		const char *a, *b;
		bool want;
	} cases[] = {
		{"10.0.0.0/8", "10.1.0.0/16", true},
		{"10.0.0.0/8", "10.0.0.0/8", true},
		{"10.0.0.0/8", "10.255.255.255", true},
		{"10.1.0.0/16", "10.0.0.0/8", false},
		{"10.0.0.0/8", "11.0.0.0/8", false},
		{"10.0.0.0/7", "11.0.0.0/8", true},
		{"10.0.0.0/9", "10.128.0.0/9", false},
		{"10.128.0.0/9", "10.200.0.0/16", true},
		{"10.128.0.0/9", "10.127.0.0/16", false},
		{"0.0.0.0/0", "192.0.2.1", true},
		{"::/0", "10.0.0.0/8", false},
		{"0.0.0.0/0", "::/0", false},
		{"::/0", "2001:db8::1", true},
		{"2001:db8::/32", "2001:db8:1::/48", true},
		{"2001:db8::/32", "2001:db9::/48", false},
		{"2001:db8::/33", "2001:db8:8000::/33", false},
		{"2001:db8::1", "2001:db8::1", true},
		{"2001:db8::1", "2001:db8::/32", false},
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct cls_prefix a, b;

		assert_int_equal(parse_prefix(cases[i].a, &a, NULL), 0);
		assert_int_equal(parse_prefix(cases[i].b, &b, NULL), 0);
		if (prefix_contains(&a, &b) != cases[i].want)
			fail_msg("%s contains %s: want %d", cases[i].a,
				 cases[i].b, cases[i].want);
	}
}

static void test_classid_valid(void **state)
{
	static const struct {
		const char *in;
		__u32 want;
	} cases[] = {
		{"1:10", 0x00010010},	  {"1:", 0x00010000},
		{":10", 0x00000010},	  {"10", 0x10},
		{"root", 0xffffffff},	  {"none", 0},
		{"1:0", 0x00010000},	  {"ffff:ffff", 0xffffffff},
		{"A:b", 0x000a000b},	  {"1:0010", 0x00010010},
		{"0x1:0x10", 0x00010010}, {":", 0},
		{"ffffffff", 0xffffffff}, {"12345678", 0x12345678},
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		__u32 id = 0xdeadbeef;

		if (parse_classid(cases[i].in, &id))
			fail_msg("'%s' rejected", cases[i].in);
		if (id != cases[i].want)
			fail_msg("'%s': got %#x want %#x", cases[i].in, id,
				 cases[i].want);
	}
}

static void test_classid_invalid(void **state)
{
	static const char *const cases[] = {
		"",	"10000:1", "1:10000", "1:10:1",	   "g",
		"1:g",	" 1:10",   "1:10 ",   "-1:10",	   "1:-1",
		"+1",	"Root",	   "root ",   "100000000", "0x",
		"1:0x", "1 :10",   "1: 10",   "0x:1",	   "web",
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		__u32 id = 0xdeadbeef;

		if (parse_classid(cases[i], &id) != -EINVAL)
			fail_msg("'%s' accepted as %#x", cases[i], id);
		assert_int_equal(id, 0xdeadbeef);
	}
}

static void test_classid_format(void **state)
{
	static const struct {
		__u32 id;
		const char *want;
	} cases[] = {
		{0x00010010, "1:10"},
		{0xffffffff, "root"},
		{0, "none"},
		{0x10, "0:10"},
		{0x00010000, "1:0"},
		{0xabcd1234, "abcd:1234"},
		{0xffff0000, "ffff:0"},
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		char buf[CLASSID_STRLEN];
		__u32 back;

		format_classid(cases[i].id, buf, sizeof(buf));
		assert_string_equal(buf, cases[i].want);
		assert_int_equal(parse_classid(buf, &back), 0);
		assert_int_equal(back, cases[i].id);
	}
}

static void test_u32(void **state)
{
	static const struct {
		const char *in;
		int err;
		__u32 want;
	} cases[] = {
		{"0", 0, 0},
		{"123", 0, 123},
		{"010", 0, 10},
		{"4294967295", 0, 4294967295U},
		{"0xffffffff", 0, 0xffffffff},
		{"0XFFFFFFFF", 0, 0xffffffff},
		{"0x0", 0, 0},
		{"0x00000000000010", 0, 0x10},
		{"4294967296", -ERANGE, 0},
		{"0x100000000", -ERANGE, 0},
		{"99999999999999999999999", -ERANGE, 0},
		{"", -EINVAL, 0},
		{"-1", -EINVAL, 0},
		{"+1", -EINVAL, 0},
		{" 1", -EINVAL, 0},
		{"1 ", -EINVAL, 0},
		{"0x", -EINVAL, 0},
		{"1a", -EINVAL, 0},
		{"0xg", -EINVAL, 0},
		{"0x-1", -EINVAL, 0},
		{"1e3", -EINVAL, 0},
		{"99999999999999x", -EINVAL, 0},
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		__u32 v = 0xdeadbeef;
		int err = parse_u32(cases[i].in, &v);

		if (err != cases[i].err)
			fail_msg("'%s': got %d want %d", cases[i].in, err,
				 cases[i].err);
		/* Output is only written on success. */
		assert_int_equal(v, err ? 0xdeadbeef : cases[i].want);
	}
}

static void test_u64(void **state)
{
	static const struct {
		const char *in;
		int err;
		__u64 want;
	} cases[] = {
		{"0", 0, 0},
		{"4294967296", 0, 4294967296ULL},
		{"18446744073709551615", 0, UINT64_MAX},
		{"0xffffffffffffffff", 0, UINT64_MAX},
		{"18446744073709551616", -ERANGE, 0},
		{"0x10000000000000000", -ERANGE, 0},
		{"", -EINVAL, 0},
		{"-1", -EINVAL, 0},
		{"12 ", -EINVAL, 0},
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		__u64 v = 0;
		int err = parse_u64(cases[i].in, &v);

		if (err != cases[i].err)
			fail_msg("'%s': got %d want %d", cases[i].in, err,
				 cases[i].err);
		if (!err)
			assert_true(v == cases[i].want);
	}
}

static void test_dscp(void **state)
{
	static const struct {
		const char *in;
		int want; /* -1: rejected */
	} cases[] = {
		{"0", 0},      {"63", 63},   {"0x3f", 63}, {"46", 46},
		{"cs0", 0},    {"CS1", 8},   {"cs7", 56},  {"af11", 10},
		{"AF12", 12},  {"af13", 14}, {"af21", 18}, {"af31", 26},
		{"af41", 34},  {"Af42", 36}, {"AF43", 38}, {"ef", 46},
		{"EF", 46},    {"va", 44},   {"VA", 44},   {"le", 1},
		{"Le", 1},     {"64", -1},   {"0x40", -1}, {"cs8", -1},
		{"af14", -1},  {"af51", -1}, {"af10", -1}, {"af1", -1},
		{"af111", -1}, {"e", -1},    {"", -1},	   {"-1", -1},
		{"ef ", -1},   {"cs", -1},   {"46x", -1},  {"cs01", -1},
		{"best", -1},
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		__u8 d = 0xff;
		int err = parse_dscp(cases[i].in, &d);

		if (cases[i].want < 0) {
			if (err != -EINVAL)
				fail_msg("'%s' accepted as %u", cases[i].in, d);
			continue;
		}
		if (err)
			fail_msg("'%s' rejected", cases[i].in);
		assert_int_equal(d, cases[i].want);
	}
}

#define MAX_TEST_ARGS 4

static void test_split_args(void **state)
{
	static const struct {
		const char *line;
		int max;
		int ret;
		const char *args[MAX_TEST_ARGS];
	} cases[] = {
		{"a b c", 4, 3, {"a", "b", "c"}},
		{"  a\t b  \r\n", 4, 2, {"a", "b"}},
		{"", 4, 0, {}},
		{" \t\n", 4, 0, {}},
		{"# comment", 4, 0, {}},
		{"   # comment \"x", 4, 0, {}},
		{"a # c d", 4, 1, {"a"}},
		{"a#c", 4, 1, {"a"}},
		{"\"a b\" c", 4, 2, {"a b", "c"}},
		{"'a b' \"c'd\"", 4, 2, {"a b", "c'd"}},
		{"name=\"x y\" z", 4, 2, {"name=x y", "z"}},
		{"\"a#b\" c", 4, 2, {"a#b", "c"}},
		{"\"\" x", 4, 2, {"", "x"}},
		{"'a''b'", 4, 1, {"ab"}},
		{"a \"b", 4, -EINVAL, {}},
		{"'abc", 4, -EINVAL, {}},
		{"a 'b\"", 4, -EINVAL, {}},
		{"a b c d e", 4, -E2BIG, {}},
		{"a b c d", 4, 4, {"a", "b", "c", "d"}},
		{"a b c d # e", 4, 4, {"a", "b", "c", "d"}},
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		char line[64];
		char *argv[MAX_TEST_ARGS] = {0};
		int ret, j;

		snprintf(line, sizeof(line), "%s", cases[i].line);
		ret = split_args(line, argv, cases[i].max);
		if (ret != cases[i].ret)
			fail_msg("'%s': got %d want %d", cases[i].line, ret,
				 cases[i].ret);
		for (j = 0; j < ret; j++)
			assert_string_equal(argv[j], cases[i].args[j]);
		if (ret >= 0 && ret < cases[i].max)
			assert_null(argv[ret]);
	}
}

static void test_route_line(void **state)
{
	static const struct {
		const char *line;
		int ret;
		const char *prefix; /* canonical, or expected reason */
		const char *class;
	} cases[] = {
		{"10.0.0.0/8 1:10", 1, "10.0.0.0/8", "1:10"},
		{"  2001:db8::/32\tweb  # c", 1, "2001:db8::/32", "web"},
		{"192.0.2.1 bulk", 1, "192.0.2.1/32", "bulk"},
		{"10.0.0.0/8 \"my class\"", 1, "10.0.0.0/8", "my class"},
		{"", 0, NULL, NULL},
		{"# 10.0.0.0/8 1:10", 0, NULL, NULL},
		{"  \t", 0, NULL, NULL},
		{"10.0.0.0/8", -EINVAL, "expected PREFIX CLASS", NULL},
		{"10.0.0.0/8 1:10 x", -EINVAL, "expected PREFIX CLASS", NULL},
		{"10.0.0.0/8 a b c d", -EINVAL, "expected PREFIX CLASS", NULL},
		{"10.1.0.0/8 1:10", -EINVAL,
		 "host bits set (did you mean 10.0.0.0/8?)", NULL},
		{"10.0.0.0/33 web", -EINVAL, "prefix length must be 0-32",
		 NULL},
		{"10.0.0.0/8 'x", -EINVAL, "unterminated quote", NULL},
		/* The IPv4 fast path's edges: what it takes, what it leaves. */
		{"0.0.0.0/0 d", 1, "0.0.0.0/0", "d"},
		{"255.255.255.255/32 d\r\n", 1, "255.255.255.255/32", "d"},
		{"\t1.2.3.0/24\td \n", 1, "1.2.3.0/24", "d"},
		{"1.2.3.0/024 d", 1, "1.2.3.0/24", "d"},
		{"1.2.3.0/24 d#x", 1, "1.2.3.0/24", "d"},
		{"1.2.3.0/24 d extra", -EINVAL, "expected PREFIX CLASS", NULL},
		{"01.2.3.0/24 d", -EINVAL, "invalid IPv4 address", NULL},
		{"256.0.0.0/8 d", -EINVAL, "invalid IPv4 address", NULL},
		{"1.2.3/24 d", -EINVAL, "invalid IPv4 address", NULL},
		{"1.2.3.0.0/24 d", -EINVAL, "invalid IPv4 address", NULL},
		{"1.2.3.1/31 d", -EINVAL,
		 "host bits set (did you mean 1.2.3.0/31?)", NULL},
		{"0.0.0.1/0 d", -EINVAL,
		 "host bits set (did you mean 0.0.0.0/0?)", NULL},
		{"1.2.3.0/24", -EINVAL, "expected PREFIX CLASS", NULL},
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		char line[64];
		struct cls_prefix p;
		char *class = NULL;
		struct parse_why why = {""};
		int ret;

		snprintf(line, sizeof(line), "%s", cases[i].line);
		ret = parse_route_line(line, &p, &class, &why);
		if (ret != cases[i].ret)
			fail_msg("'%s': got %d want %d", cases[i].line, ret,
				 cases[i].ret);
		if (ret == 1) {
			assert_string_equal(fmt(&p), cases[i].prefix);
			assert_string_equal(class, cases[i].class);
		} else if (ret < 0) {
			assert_true(why.text[0]);
			assert_string_equal(why.text, cases[i].prefix);
		}
	}
}

/*
 * A million generated lines, each parsed and checked: a slip that shows
 * only at scale (a counter overflow, state kept between lines) fails here.
 * How fast it parses is bench/'s business, not a test's.
 */
static void test_route_line_million(void **state)
{
	const unsigned int n = 1000000;
	unsigned int i, sum = 0, want = 0;

	(void)state;
	for (i = 0; i < n; i++) {
		char line[64];
		struct cls_prefix p;
		char *class;

		snprintf(line, sizeof(line), "%u.%u.%u.0/24 1:%x # route\n",
			 i >> 16 & 0xff, i >> 8 & 0xff, i & 0xff, i & 0xffff);
		if (parse_route_line(line, &p, &class, NULL) != 1)
			fail_msg("line %u rejected", i);
		sum += p.addr[2] + p.len;
		want += (i & 0xff) + 24;
	}
	/* Every line was really parsed, not just accepted. */
	assert_int_equal(sum, want);
}

/* What parse_route_buf handed over, as "PREFIX CLASS;" per route. */
struct buf_seen {
	char out[256];
	int stop_at; /* > 0: the route callback fails on this route */
	int n;
};

static int buf_route(void *arg, const struct cls_prefix *p, char *class_tok)
{
	struct buf_seen *s = arg;
	size_t len = strlen(s->out);

	if (++s->n == s->stop_at)
		return -ENOENT;
	snprintf(s->out + len, sizeof(s->out) - len, "%s %s;", fmt(p),
		 class_tok);
	return 0;
}

static void test_route_buf(void **state)
{
	static const struct {
		const char *buf;
		size_t len; /* 0: strlen */
		int stop_at, ret;
		size_t lines;
		const char *out, *why;
	} cases[] = {
		{"", 0, 0, 0, 0, "", NULL},
		{"10.0.0.0/8 a\n# c\n\n2001:db8::/32 b", 0, 0, 0, 4,
		 "10.0.0.0/8 a;2001:db8::/32 b;", NULL},
		/* CRLF files read as LF ones. */
		{"10.0.0.0/8 a\r\n10.1.0.0/16 b\r\n", 0, 0, 0, 2,
		 "10.0.0.0/8 a;10.1.0.0/16 b;", NULL},
		/* The bad line stops the walk: it is the one counted last. */
		{"10.0.0.0/8 a\n10.0.0.1/8 b\n10.2.0.0/16 c\n", 0, 0, -EINVAL,
		 2, "10.0.0.0/8 a;", "host bits set (did you mean 10.0.0.0/8?)"},
		{"10.0.0.0/8 a\n1.2.\0.0/24 b\n", 26, 0, -EINVAL, 2,
		 "10.0.0.0/8 a;", "NUL byte in the line"},
		/* The callback's error stops it and comes back as it is. */
		{"10.0.0.0/8 a\n10.1.0.0/16 b\n10.2.0.0/16 c\n", 0, 2, -ENOENT,
		 2, "10.0.0.0/8 a;", NULL},
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct buf_seen s = {.stop_at = cases[i].stop_at};
		struct parse_why why;
		size_t lines = 99;
		size_t len = cases[i].len ? cases[i].len
					  : strlen(cases[i].buf);
		int ret = parse_route_buf(cases[i].buf, len, buf_route, &s,
					  &lines, &why);

		if (ret != cases[i].ret || lines != cases[i].lines)
			fail_msg("case %zu: got %d after %zu lines, want %d "
				 "after %zu",
				 i, ret, lines, cases[i].ret, cases[i].lines);
		assert_string_equal(s.out, cases[i].out);
		if (cases[i].why)
			assert_string_equal(why.text, cases[i].why);
		else if (ret != -ENOENT)
			assert_string_equal(why.text, "");
	}
}

static void test_class_name(void **state)
{
	static const struct {
		const char *in;
		const char *why; /* NULL: valid */
	} cases[] = {
		{"default", NULL},
		{"web", NULL},
		{"bulk-1", NULL},
		{"_x", NULL},
		{"a.b", NULL},
		{"Z", NULL},
		{"rootx", NULL},
		{"abcdefghijklmnopqrstuvwxyz01234", NULL},
		{"", "empty"},
		{"abcdefghijklmnopqrstuvwxyz012345", "longer than 31"},
		{"1:10", "start with a letter"},
		{"1abc", "start with a letter"},
		{"-a", "start with a letter"},
		{".a", "start with a letter"},
		{"a b", "may contain only"},
		{"a/b", "may contain only"},
		{"a:b", "may contain only"},
		{"caf\xc3\xa9", "may contain only"},
		{"ff", "class id"},
		{"FF", "class id"},
		{"abc", "class id"},
		{"root", "class id"},
		{"none", "class id"},
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct parse_why why;
		int err = check_class_name(cases[i].in, &why);

		if (!cases[i].why) {
			if (err)
				fail_msg("'%s' rejected: %s", cases[i].in,
					 why.text);
			continue;
		}
		if (err != -EINVAL)
			fail_msg("'%s' accepted", cases[i].in);
		if (!strstr(why.text, cases[i].why))
			fail_msg("'%s': reason '%s', want '%s'", cases[i].in,
				 why.text, cases[i].why);
	}
}

/*
 * route load parses two halves on two threads: each one's reason is its
 * own.  Both threads refuse lines with host bits set, whose reason is
 * made for the line, as fast as they can; a reason in storage both share
 * would soon name the other thread's prefix.
 */
struct reason_run {
	const char *buf, *want;
	int wrong;
};

static int no_route(void *arg, const struct cls_prefix *p, char *class_tok)
{
	(void)arg;
	(void)p;
	(void)class_tok;
	return 0;
}

static void *reasons(void *arg)
{
	struct reason_run *r = arg;
	struct parse_why why;
	size_t lines;
	int i;

	for (i = 0; i < 200000; i++)
		if (parse_route_buf(r->buf, strlen(r->buf), no_route, NULL,
				    &lines, &why) != -EINVAL ||
		    strcmp(why.text, r->want))
			r->wrong++;
	return NULL;
}

static void test_reasons_per_thread(void **state)
{
	struct reason_run r[2] = {
		{"10.0.0.0/8 a\n10.99.1.0/16 web\n",
		 "host bits set (did you mean 10.99.0.0/16?)", 0},
		{"2001:db8:1::7/48 web\n",
		 "host bits set (did you mean 2001:db8:1::/48?)", 0},
	};
	pthread_t t;

	(void)state;
	assert_int_equal(pthread_create(&t, NULL, reasons, &r[1]), 0);
	reasons(&r[0]);
	pthread_join(t, NULL);
	if (r[0].wrong || r[1].wrong)
		fail_msg("wrong reasons: %d and %d of 200000", r[0].wrong,
			 r[1].wrong);
}

static void test_cpulist(void **state)
{
	static const struct {
		const char *list;
		unsigned int cpu;
		int want;
	} cases[] = {
		{"0-1\n", 0, 1},   {"0-1\n", 1, 1}, {"0-1\n", 2, 0},
		{"0", 0, 1},	     {"0,2-3", 1, 0},  {"0,2-3", 3, 1},
		{"0,2-3\n", 2, 1}, {"", 0, -EINVAL}, {"\n", 0, -EINVAL},
		{"1-0", 0, -EINVAL}, {"0,", 0, -EINVAL}, {"a", 0, -EINVAL},
		{"0-", 0, -EINVAL}, {"0 1", 0, -EINVAL}, {"0,,1", 1, -EINVAL},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (cpulist_has(cases[i].list, cases[i].cpu) != cases[i].want)
			fail_msg("cpulist_has(\"%s\", %u) = %d, not %d",
				 cases[i].list, cases[i].cpu,
				 cpulist_has(cases[i].list, cases[i].cpu),
				 cases[i].want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prefix_valid),
		cmocka_unit_test(test_prefix_bytes),
		cmocka_unit_test(test_prefix_invalid),
		cmocka_unit_test(test_addr),
		cmocka_unit_test(test_format_prefix_space),
		cmocka_unit_test(test_prefix_contains),
		cmocka_unit_test(test_classid_valid),
		cmocka_unit_test(test_classid_invalid),
		cmocka_unit_test(test_classid_format),
		cmocka_unit_test(test_u32),
		cmocka_unit_test(test_u64),
		cmocka_unit_test(test_dscp),
		cmocka_unit_test(test_split_args),
		cmocka_unit_test(test_route_line),
		cmocka_unit_test(test_route_line_million),
		cmocka_unit_test(test_route_buf),
		cmocka_unit_test(test_class_name),
		cmocka_unit_test(test_reasons_per_thread),
		cmocka_unit_test(test_cpulist),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
