// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "lib/units.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static void test_rate(void **state)
{
	static const struct {
		const char *in;
		__u64 bps;
	} ok[] = {
		{"100mbit", 12500000},
		{"100Mbit", 12500000},
		{"1gbit", 125000000},
		{"10kbit", 1250},
		{"1.5mbit", 187500},
		{"8", 1},	   /* a bare number is bits per second */
		{"12bit", 1},	   /* rounded down */
		{"1000bps", 1000}, /* bytes */
		{"2kbps", 2000},
		{"1mibit", 131072},
		{"1kibps", 1024},
		{"8tbit", RATE_MAX_BPS},
		{"0.000000008gbit", 1}, /* 9 fraction digits are exact */
	};
	static const struct {
		const char *in;
		int err;
	} bad[] = {
		{"", -EINVAL},	       {"mbit", -EINVAL},
		{"10 mbit", -EINVAL},  {"10mbits", -EINVAL},
		{"-1mbit", -EINVAL},   {"1e6", -EINVAL},
		{"0", -ERANGE},	       {"7bit", -ERANGE},
		{"9tbit", -ERANGE},    {"99999999999999999999999tbit", -ERANGE},
		{"1..2mbit", -EINVAL},
	};
	struct parse_why why;
	size_t i;
	__u64 v;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(ok); i++) {
		v = 0;
		assert_int_equal(parse_rate(ok[i].in, &v, &why), 0);
		assert_int_equal(v, ok[i].bps);
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		v = 77;
		why.text[0] = '\0';
		assert_int_equal(parse_rate(bad[i].in, &v, &why), bad[i].err);
		assert_int_equal(v, 77);
		assert_true(why.text[0] != '\0');
	}
	assert_int_equal(parse_rate(NULL, &v, NULL), -EINVAL);
}

static void test_size(void **state)
{
	static const struct {
		const char *in;
		__u32 bytes;
	} ok[] = {
		{"1514", 1514},	 {"1514b", 1514},	 {"64k", 65536},
		{"64KB", 65536}, {"1m", 1048576},	 {"1.5k", 1536},
		{"8kbit", 1024}, {"4095m", 4095U << 20},
	};
	static const char *const bad[] = {"",	  "k",	"4g",
					  "1kib", "-1", "1.5.5k"};
	struct parse_why why;
	size_t i;
	__u32 v;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(ok); i++) {
		assert_int_equal(parse_size(ok[i].in, &v, &why), 0);
		assert_int_equal(v, ok[i].bytes);
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		assert_true(parse_size(bad[i], &v, &why) < 0);
}

static void test_time(void **state)
{
	static const struct {
		const char *in;
		__u64 ns;
	} ok[] = {
		{"50ms", 50000000}, {"50msec", 50000000},
		{"2s", 2000000000}, {"250us", 250000},
		{"250", 250000},    {"10ns", 10},
		{"1.5ms", 1500000}, {"0", 0},
	};
	static const char *const bad[] = {"", "ms", "5min", "5 ms", "-5ms"};
	struct parse_why why;
	size_t i;
	__u64 v;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(ok); i++) {
		assert_int_equal(parse_time(ok[i].in, &v, &why), 0);
		assert_int_equal(v, ok[i].ns);
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		assert_true(parse_time(bad[i], &v, &why) < 0);
}

/* What is printed reads back as the same value. */
static void test_format_reads_back(void **state)
{
	static const __u64 rates[] = {1,      1250, 12500000,	 125000000,
				      187500, 3,    RATE_MAX_BPS};
	static const __u32 sizes[] = {0,    1,	      1514,	  65536,
				      1536, 1U << 30, 0xffffffffU};
	static const __u64 times[] = {0, 10, 1500000, 50000000, 2000000000};
	char buf[UNITS_STRLEN];
	__u64 v64;
	__u32 v32;
	size_t i;

	(void)state;
	format_rate(12500000, buf, sizeof(buf));
	assert_string_equal(buf, "100mbit");
	format_rate(187500, buf, sizeof(buf));
	assert_string_equal(buf, "1500kbit");
	format_size(65536, buf, sizeof(buf));
	assert_string_equal(buf, "64kb");
	format_time(50000000, buf, sizeof(buf));
	assert_string_equal(buf, "50ms");
	for (i = 0; i < ARRAY_SIZE(rates); i++) {
		format_rate(rates[i], buf, sizeof(buf));
		assert_int_equal(parse_rate(buf, &v64, NULL), 0);
		assert_int_equal(v64, rates[i]);
	}
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		format_size(sizes[i], buf, sizeof(buf));
		assert_int_equal(parse_size(buf, &v32, NULL), 0);
		assert_int_equal(v32, sizes[i]);
	}
	for (i = 0; i < ARRAY_SIZE(times); i++) {
		format_time(times[i], buf, sizeof(buf));
		assert_int_equal(parse_time(buf, &v64, NULL), 0);
		assert_int_equal(v64, times[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rate),
		cmocka_unit_test(test_size),
		cmocka_unit_test(test_time),
		cmocka_unit_test(test_format_reads_back),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
